"""Golden per-game tables: fixed runs of every game, policy and variant value, saved once so that
a change not meant to alter results can prove it.

``tests/data/golden/<game>/<config>.parquet`` holds, for each configuration of :func:`configs`, the
per-game table (``SimulationResult.games``) of a fixed run (``/`` in the name written ``__``).
``tests/test_golden_tables.py`` replays every saved configuration and asserts the tables are
identical (``pandas.testing.assert_frame_equal``), and that the saved set of configurations is the
current one, so a new policy or variant value must be added here on purpose.

Configurations: every policy at its defaults with the default player count and every non-default
variant value; random play also at both ends of the player range. Seed 20261130. Games per run:
24 for random play, 6 for the heuristics, 2 for the search policies (enough to reach every
scoring path in every game several times; the point is identity, not statistics). The ``mcts``
of El Grande, Carcassonne and Thurn and Taxis plays its default parameters in the default
configuration and a light parameter set (:data:`LIGHT_SEARCH`: the same code, fewer iterations)
in the variant configurations; at their defaults those runs took two minutes of CPU. ``mcts1``
(the ``mcts`` of 2026-12-02, kept) plays the default configuration only; its saved tables are
the ``mcts`` tables of that day, and ``tests/test_golden_tables.py`` checks they still equal the
``mcts`` tables while the two policies share their parameters.

Regenerate (only when a change is meant to alter results, and say what moved in the note)::

    python tests/golden_tables.py                 # write missing configurations
    python tests/golden_tables.py --game el-grande --rewrite   # rewrite one game's file
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

GOLDEN_DIR = Path(__file__).parent / "data" / "golden"
SEED = 20261130
SEARCH_POLICIES = {"mcts", "mcts1", "rollout", "oracle", "hindsight"}
#: policies played in the default configuration only: ``mcts1`` is the ``mcts`` of 2026-12-02
#: (``mcsim.games.base.kept_mcts``), the same kernel code as ``mcts``, whose variant
#: configurations cover it (suite time)
DEFAULT_ONLY = {"mcts1"}
# The policy string played in the non-default configurations of a slow search policy.
LIGHT_SEARCH = {
    ("el-grande", "mcts"): "mcts:iterations=5",
    ("carcassonne", "mcts"): "mcts:iterations=40,width=4,depth=4",
    ("thurn-and-taxis", "mcts"): "mcts:iterations=20",
}


def games_for(policy: str) -> int:
    """Games per run for ``policy`` (24 random, 2 search policies, 6 other heuristics)."""
    policy = policy.split(":")[0]
    if policy == "random":
        return 24
    if policy in SEARCH_POLICIES:
        return 2
    return 6


def _needs(game_id: str) -> dict[str, dict[str, str]]:
    """Variant values a variant needs to mean anything: Carcassonne's readings of The Gifts need
    ``gifts=true`` (docs/rules/carcassonne.md §4; alone they are refused)."""
    if game_id == "carcassonne":
        from mcsim.games.carcassonne import GIFT_READINGS

        return {name: {"gifts": "true"} for name in GIFT_READINGS}
    return {}


def _variant_players(game_id: str) -> dict[str, int]:
    """Player counts a variant needs instead of the default: Carcassonne's
    ``start_balance=tournament`` is refused with 2 players (docs/rules/carcassonne.md §3.5), so
    it plays 4, the player count whose seat deficit it balances."""
    if game_id == "carcassonne":
        return {"start_balance": 4}
    return {}


def configs(game_id: str) -> list[tuple[str, str, int, dict[str, str]]]:
    """The fixed runs of one game: ``(config, policy, players, variant)`` tuples."""
    from mcsim.games import get_game

    spec = get_game(game_id).SPEC
    needs = _needs(game_id)
    var_players = _variant_players(game_id)
    out = []
    players = sorted({spec.min_players, spec.default_players, spec.max_players})
    for pol in spec.policies:
        counts = players if pol.name == "random" else [spec.default_players]
        for pc in counts:
            out.append((f"{pol.name}/{pc}p/default", pol.name, pc, {}))
        if pol.name in DEFAULT_ONLY:
            continue
        light = LIGHT_SEARCH.get((game_id, pol.name), pol.name)
        for v in spec.variants:
            for val in v.choices:
                if val != v.default:
                    var = {**needs.get(v.name, {}), v.name: val}
                    name = ",".join(f"{k}={x}" for k, x in var.items())
                    pc = var_players.get(v.name, spec.default_players)
                    out.append((f"{pol.name}/{pc}p/{name}", light, pc, var))
    return out


def play(game_id: str, policy: str, players: int, variant: dict[str, str]) -> pd.DataFrame:
    """The per-game table of one fixed run (1 worker, seed :data:`SEED`)."""
    import mcsim

    r = mcsim.simulate(
        game_id,
        games=games_for(policy),
        seed=SEED,
        policies=[policy],
        players=players,
        variant=variant,
        workers=1,
    )
    return r.games.reset_index(drop=True)


def _path(game_id: str, config: str) -> Path:
    return GOLDEN_DIR / game_id / (config.replace("/", "__") + ".parquet")


def load(game_id: str) -> dict[str, pd.DataFrame]:
    """Saved tables of one game by configuration name ({} when none are saved)."""
    folder = GOLDEN_DIR / game_id
    return {f.stem.replace("__", "/"): pd.read_parquet(f) for f in sorted(folder.glob("*.parquet"))}


def write(game_id: str, rewrite: bool = False) -> None:
    """Play the configurations of ``game_id`` not saved yet (all with ``rewrite``) and save them;
    remove saved configurations that no longer exist."""
    known = {c for c, *_ in configs(game_id)}
    for c in load(game_id):
        if c not in known:
            _path(game_id, c).unlink()
    for c, pol, pc, var in configs(game_id):
        f = _path(game_id, c)
        if f.exists() and not rewrite:
            continue
        f.parent.mkdir(parents=True, exist_ok=True)
        play(game_id, pol, pc, var).to_parquet(f)
        print("played", game_id, c, flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from mcsim.games import all_games

    args = sys.argv[1:]
    only = args[args.index("--game") + 1] if "--game" in args else None
    for module in all_games():
        if only is None or module.SPEC.id == only:
            write(module.SPEC.id, rewrite="--rewrite" in args)
