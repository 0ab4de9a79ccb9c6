"""Don Quixote restricted play (docs/rules/don_quixote.md §8): a player given ``forbid=NAME+NAME``
never places a forbidden (tile, orientation) while a permitted one is legal, and the per-game
table counts the decisions that avoided one (``forbid_avoided_0``) and those the rules forced
(``forbid_forced_0``).

Every check of a simulated run reads the recorded placements with the naive second
implementation (``tests/don_quixote_naive.py``: the tile file's JSON, the turn and the road
networks coded again from the rules file) and classifies every legal option of every decision
by the definitions of §8 there: never from the kernel's legal-move lists or flags. Counts are
exact for the fixed seeds below.
"""

import json

import numpy as np
import pytest

import kernels.don_quixote as K
import mcsim
from mcsim.errors import ConfigError, UnknownPolicyError
from mcsim.games import don_quixote as DQ
from mcsim.runner import resolve_config
from tests.conftest import one_error_line
from tests.don_quixote_naive import replay_decisions

OPTIONS = [r.name for r in DQ.SPEC.restrictions]
#: every policy kind with a small budget (rollout, mcts and hindsight also with the exact
#: round-3 solver or without it)
POLICIES = {
    "random": 24,
    "greedy": 24,
    "heuristic": 24,
    "rollout:k=2": 3,
    "mcts:iterations=12": 2,
    "mcts:iterations=12,endgame=1": 2,
    "hindsight:k=2,iters=8": 3,
    "hindsight:k=2,iters=0,endgame=0": 2,
}


def _checked(policy: str, option: str, games: int, seed: int = 4, **kw):
    """Run ``games`` restricted games with records and check each against the naive replay:
    no forbidden placement but forced ones, and avoided/forced equal to the kernel's columns.
    Returns the per-game (avoided, forced) pairs."""
    sep = "," if ":" in policy else ":"
    r = mcsim.simulate(
        "don-quixote", games=games, seed=seed, policies=[f"{policy}{sep}forbid={option}"],
        workers=1, record=games, **kw,
    )  # fmt: skip
    got = []
    for rec, (_, row) in zip(r.records, r.games.iterrows()):
        assert rec["game_index"] == row["game_index"]
        avoided, forced, bad = replay_decisions(rec, set(option.split("+")))
        assert bad == [], (policy, option, rec["game_index"], bad)
        assert (avoided, forced) == (row["forbid_avoided_0"], row["forbid_forced_0"])
        got.append((avoided, forced))
    return got


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("policy", list(POLICIES))
def test_s8_records_obey_the_option_and_counts_match_the_naive_replay(policy, option):
    """docs/rules/don_quixote.md §8: every placement of a restricted player is permitted unless
    every legal option of that decision was forbidden, and the kernel's avoided/forced columns
    equal the naive replay's counts, for every policy kind (search trees, rollouts, sampled
    futures and the exact round-3 solver all filter the player's own placements)."""
    got = _checked(policy, option, POLICIES[policy])
    avoided = sum(a for a, _ in got)
    assert avoided > 0  # every option came up
    if option == "turn-tile":
        assert got == [(22, 0)] * len(got)  # §8.1: 0° is always legal under the free variant
    if option == "knight-off-defence":
        assert all(f == 0 for _, f in got)  # §8.4: alone never forced under the free variant


def test_s8_combined_options_and_forced_decisions():
    """Several options forbid the union of their options (§8); the kind options are forced now
    and then (a hand of church or windmill tiles that join none), and the replay agrees."""
    got = _checked("greedy", "church-apart+windmill-apart", 30, seed=9)
    assert sum(f for _, f in got) > 0
    got = _checked("heuristic", "turn-tile+church-apart", 12, seed=9)
    assert all(a + f == 22 for a, f in got)  # turn-tile makes every decision restricted
    got = _checked("random", "turn-tile+knight-off-defence", 40, seed=9)
    assert all(a + f == 22 for a, f in got)


def test_s8_1_turn_tile_is_forced_only_by_a_set_aside_tile_dealt_at_180():
    """§8.1 and §3.7.4: under ``last_tile_rotation=random`` placement 22 has one legal
    orientation, the dealt one; dealt at 180° the decision is forced, else it has no forbidden
    option. Forced games are exactly those whose set-aside tile lies at 180°."""
    r = mcsim.simulate(
        "don-quixote", games=40, seed=2, policies=["random:forbid=turn-tile"], workers=1,
        record=40, variant={"last_tile_rotation": "random"},
    )  # fmt: skip
    rots = [rec["players"][0]["placements"][21]["rot"] for rec in r.records]
    assert r.games["forbid_forced_0"].tolist() == [int(x == 180) for x in rots]
    assert r.games["forbid_avoided_0"].tolist() == [21] * 40
    assert 0 < sum(x == 180 for x in rots) < 40
    for rec in r.records:
        moves = rec["players"][0]["placements"]
        assert all(m["rot"] == 0 for m in moves[:21])


def test_s8_restriction_changes_the_games_exactly():
    """Fixed seed, greedy, 200 games: the mean total moves under each option (exact values of
    this seed; turn-tile costs about 9 points, church-apart gains about 1)."""
    means = {}
    for option in [None, *OPTIONS]:
        pol = "greedy" if option is None else f"greedy:forbid={option}"
        r = mcsim.simulate("don-quixote", games=200, seed=3, policies=[pol], workers=1)
        means[option] = float(r.games["score_0"].mean())
    assert means == {
        None: 38.86,
        "turn-tile": 29.915,
        "church-apart": 39.865,
        "windmill-apart": 38.725,
        "knight-off-defence": 38.45,
    }


def test_s8_restriction_moves_the_heuristic_mean_beyond_its_error():
    """heuristic, 300 paired deals: turn-tile lowers the mean total by more than 4 standard
    errors of the paired difference (the tolerance of this test)."""
    a = mcsim.simulate("don-quixote", games=300, seed=5, policies=["heuristic"], workers=1)
    b = mcsim.simulate(
        "don-quixote", games=300, seed=5, policies=["heuristic:forbid=turn-tile"], workers=1
    )
    d = b.games["score_0"].to_numpy() - a.games["score_0"].to_numpy()
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert d.mean() < -4 * se


def test_an_unrestricted_seat_plays_as_without_the_feature():
    """Seats do not interact (§3.1.5): beside a restricted seat an unrestricted one scores
    exactly as in an unrestricted run, and its forbid columns are 0; an unrestricted run has
    no forbid columns at all."""
    a = mcsim.simulate("don-quixote", games=50, seed=6, players=2, policies=["heuristic"] * 2)
    b = mcsim.simulate(
        "don-quixote", games=50, seed=6, players=2,
        policies=["heuristic", "heuristic:forbid=church-apart"],
    )  # fmt: skip
    assert not any("forbid" in c for c in a.games.columns)
    assert (a.games["score_0"] == b.games["score_0"]).all()
    assert (b.games["forbid_avoided_0"] == 0).all() and (b.games["forbid_forced_0"] == 0).all()
    assert (b.games["forbid_avoided_1"] > 0).any()


def test_a_zero_mask_is_the_unrestricted_game():
    """``forbid_mask=0`` set by number is the unrestricted policy (same scores)."""
    a = mcsim.simulate("don-quixote", games=40, seed=7, policies=["random"], workers=1)
    b = mcsim.simulate("don-quixote", games=40, seed=7, policies=["random:forbid_mask=0"])
    assert (a.games["score_0"] == b.games["score_0"]).all()


def test_restricted_run_is_deterministic_for_one_and_two_workers():
    """Game i depends only on (seed, i), restricted or not."""
    kw = dict(games=60, seed=8, policies=["heuristic:forbid=windmill-apart"])
    a = mcsim.simulate("don-quixote", workers=1, **kw).games
    b = mcsim.simulate("don-quixote", workers=2, **kw).games
    cols = ["score_0", "forbid_avoided_0", "forbid_forced_0"]
    assert (a[cols].to_numpy() == b[cols].to_numpy()).all()


def test_kernel_refuses_a_mask_it_would_ignore():
    """An entry kernel called without ``out_forbid`` for a restricted seat raises instead of
    playing it unrestricted."""
    prep = DQ.prepare(resolve_config("don-quixote", 1, ["greedy:forbid=turn-tile"])[1])
    score, bd = DQ.new_outputs(1, 1)
    n_land = prep.tables["tiles"].shape[0] - 2
    args = (
        np.int64(0), np.int64(1), np.uint64(1), prep.policy_ids, prep.policy_params,
        prep.variant_codes, prep.tables["tiles"], score, bd, DQ.empty_record(0, 1, n_land),
    )  # fmt: skip
    with pytest.raises(ValueError, match="needs out_forbid"):
        K.play_batch_simple(*args)


def test_s8_1_tiles_whose_turn_changes_nothing():
    """§8.1: on the placeholder set C1, C2, W1 and W7 (one road through the midline between
    opposite ports, LW-RE or LN-RS) are the tiles whose two orientations compile to the same
    table row; turn-tile still forbids their 180° (the naive replay above forbids every 180°)."""
    ts = DQ.load_tileset()
    tab = DQ.build_tables(ts)
    land = [(i, t) for i, t in enumerate(ts.instances) if not t.castle]
    same = [t.id for i, t in land if (tab[i, 0] == tab[i, 1]).all()]
    assert same == ["C1", "C2", "W1", "W7"]


# ---------------------------------------------------------------- inside the searches
def _restricted_start(mask: int, seed: int = 5, game: int = 0):
    """The search root of a game's first placement and its context with forbid mask ``mask``."""
    prep = DQ.prepare(resolve_config("don-quixote", 1, ["mcts:iterations=10"])[1])
    root, ctx = DQ.search_start(prep, seed, game)
    forbid = np.zeros(K.restrict.RS_WIDTH, np.int64)
    forbid[K.restrict.RS_MASK] = mask
    return prep, root, ctx._replace(forbid=forbid)


def test_s8_search_tree_moves_and_rollouts_obey_the_mask():
    """mcts (§8): with turn-tile in the context the tree's moves are the 0° ones only (move bit
    0 = orientation), and a rollout from the root places every tile at 0°, read from the
    rollout's own moves; without it both orientations come up."""
    from kernels.rng import new_state

    steps = K.search_steps
    for mask, rots in ((1 << K.FORBID_TURN_TILE, {0}), (0, {0, 1})):
        _, root, ctx = _restricted_start(mask)
        moves = np.zeros(64, np.int64)
        n = steps._search_legal(root, ctx, moves)
        assert {int(m) & 1 for m in moves[:n]} == rots
        assert n == 9 * len(rots)  # the nine face-up tiles of round 1
        seen = set()
        for k in range(6):
            state = root.copy()
            steps._search_rollout(state, ctx, new_state(3, k, 9), np.zeros(1))
            seen |= {int(x) for x in ctx.moves[:, 1]}
        assert seen == rots


def test_s8_hindsight_beam_and_round3_solver_obey_the_mask():
    """hindsight (§8): the full-knowledge beam of a sampled future plans every placement at 0°
    under turn-tile (not forced anywhere under the free variant), and the round-3 expectimax
    picks a 0° move at a round-3 placement."""
    prep, root, _ = _restricted_start(0)
    tiles = prep.tables["tiles"]
    n_land = tiles.shape[0] - 2
    castles, cells = np.zeros(2, np.int64), np.zeros(K.N_PLACE, np.int64)
    seq, last_rot = np.zeros((1, n_land), np.int64), np.zeros(1, np.int64)
    K.deal(np.uint64(5), np.int64(0), 1, n_land, castles, cells, seq, last_rot)
    state = K.setup_estate(tiles, castles)
    avail = 0
    for t in seq[0, :9]:
        avail |= 1 << int(t)
    bufs = K.hindsight.hindsight_buffers(2)
    for mask, rots in ((1 << K.FORBID_TURN_TILE, {0}), (0, {0, 1})):
        plan = np.zeros((K.N_PLACE, 2), np.int64)
        K.hindsight.hindsight_beam(
            state, tiles, cells, seq[0], 0, avail, 3, 2, bufs, plan, np.int64(mask)
        )
        assert set(plan[:, 1].tolist()) == rots
    # round 3: play the plan's first 16 placements, then ask the solver at placement 16
    log = np.zeros(K.LOGN, np.int64)
    for pos in range(16):
        K.place(state, tiles, cells[pos], plan[pos, 0], plan[pos, 1], log)
    hand = np.zeros(K.layout.HAND_SLOTS, np.int64)
    hand[:5] = seq[0, 16:21]
    out = np.zeros(1)
    got = []
    for mask, allow in ((1 << K.FORBID_TURN_TILE, 0x155), (0, -1)):  # 0x155: every 0° of 5
        i, o = K.r3_choose(state, tiles, cells, seq[0], 16, hand, 5, 3, False, out, mask, allow)
        got.append((int(o), float(out[0])))
    assert got[0][0] == 0 and got[0][1] <= got[1][1]


# ---------------------------------------------------------------- bad specs and the CLI
@pytest.mark.parametrize(
    "policy, text",
    [
        (
            "greedy:forbid=turn-knight",
            "forbid='turn-knight': don-quixote has no such option; choose from: turn-tile, "
            "knight-off-defence, church-apart, windmill-apart",
        ),
        ("random:forbid=" + "+".join(OPTIONS), "forbids every option restricted play knows"),
        ("heuristic:forbid=turn-tile+turn-tile", "'turn-tile' given twice"),
    ],
)
def test_bad_restriction_specs_are_one_line_errors_before_play(policy, text, run):
    """Unknown option, every option at once, an option twice: one line, from the API and the
    command line, before any game."""
    with pytest.raises(UnknownPolicyError) as e:
        mcsim.simulate("don-quixote", games=1, policies=[policy])
    assert text in str(e.value) and "\n" not in str(e.value)
    one_error_line(run("simulate", "don-quixote", "-n", "1", "-p", policy), 2, text)


def test_a_restricted_oracle_is_refused(run):
    """§8: the oracle is not restricted; ``oracle:forbid=`` is a one-line ConfigError."""
    text = "don-quixote: oracle:forbid= is not supported"
    with pytest.raises(ConfigError, match=text):
        mcsim.simulate("don-quixote", games=1, policies=["oracle:forbid=turn-tile"])
    r = run("simulate", "don-quixote", "-n", "1", "-p", "oracle:forbid=turn-tile")
    one_error_line(r, 2, text)


def test_restrict_seat_out_of_range_on_a_one_seat_game(run):
    """``simulate --restrict 1=turn-tile`` on the solo game: seat 1 does not exist."""
    r = run("simulate", "don-quixote", "-n", "2", "--restrict", "1=turn-tile")
    one_error_line(r, 2, "'1=turn-tile': seat 1 is out of range (the game has seats 0..0)")
    r = run("simulate", "don-quixote", "-n", "2", "--restrict", "0=turn-tile", "--json")
    assert r.exit_code == 0, r.output


def test_games_lists_the_four_options(run):
    r = run("games")
    assert r.exit_code == 0
    lines = [x.strip() for x in r.output.splitlines()]
    for name, group in (("turn-tile", "orientation"), ("church-apart", "kind"),
                        ("windmill-apart", "kind"), ("knight-off-defence", "orientation")):  # fmt: skip
        assert any(x.startswith(f"forbid   {name}  ({group}):") for x in lines), name
    assert DQ.SPEC.exhaustive_groups == ()
    assert [(x.name, x.bit) for x in DQ.SPEC.restrictions] == [
        ("turn-tile", K.FORBID_TURN_TILE),
        ("knight-off-defence", K.FORBID_KNIGHT_OFF_DEFENCE),
        ("church-apart", K.FORBID_CHURCH_APART),
        ("windmill-apart", K.FORBID_WINDMILL_APART),
    ]


def test_value_cli_summary_and_json(run):
    """``mcsim value don-quixote -n 32 -p greedy`` end to end: one row per option (the solo
    game's value = restricted points minus the baseline's on the same deal), text and JSON."""
    args = ["value", "don-quixote", "-n", 32, "-p", "greedy", "-s", 1, "-w", 1, "-q"]
    r = run(*args)
    assert r.exit_code == 0, r.output
    assert "Don Quixote restricted play: policy greedy, seed 1, 1 player" in r.output
    lines = r.output.splitlines()
    assert any(x.startswith("* turn-tile") and "-7.91 [-11.20, -4.62]" in x for x in lines)
    assert any(x.startswith("  church-apart") and "-1.75" in x for x in lines)
    assert any(x.startswith("  knight-off-defence") for x in lines)
    assert "160 games played" in r.output
    r = run(*args, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert [x["option"] for x in doc["rows"]] == OPTIONS
    turn = doc["rows"][0]
    assert turn["value"] == pytest.approx(-7.90625)
