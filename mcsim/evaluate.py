"""Policy evaluation on common deals (``mcsim evaluate GAME --policy A --policy B ...``).

Every policy plays the same N deals: game *i* of a run with seed *s* draws its deal from the
``STREAM_DEAL`` stream of (s, i) whatever the policy (``shared/DESIGN.md``, common random
numbers), so per-game differences between policies are paired and their intervals are narrow.

Generic over games; a game module may add (all optional):

``EVALUATE_BANDS``  tuple of score thresholds t: report P(score > t) with Wilson intervals.
``EVALUATE_GROUPS`` ``{name: (column, ...)}``: per-seat game columns to average, reported
                    under ``name`` (e.g. Don Quixote's per-category and per-scoring points).
``ORACLE_POLICY``   name of a full-knowledge reference policy; when it is evaluated, every
                    policy also gets its regret (oracle minus policy, paired), against the
                    oracle entry with the highest mean if several are given (``"oracle"``).
``EVALUATE_INFORMATION_GROUP`` name of an ``EVALUATE_GROUPS`` entry: when an oracle is
                    evaluated, the value of information (oracle minus the best playable
                    policy, paired) is also split by that group's columns (Don Quixote: per
                    scoring, so a designer sees in which round the luck lies).
``ensemble_options(k, seed, out_dir)`` -> list of ``(label, options)``: alternative component
                    sets (Don Quixote: random tile sets) for ``evaluate_ensemble``.

Every seat plays the evaluated policy; a game's score is the mean over its seats (for a solo
game, the score itself).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from mcsim import stats, values
from mcsim.errors import ConfigError
from mcsim.games import get_game
from mcsim.games.base import parse_policy
from mcsim.runner import RunOptions
from mcsim.text import counted


def _game_scores(games, players: int, column: str = "score") -> np.ndarray:
    cols = [f"{column}_{k}" for k in range(players)]
    return games[cols].to_numpy(dtype=np.float64).mean(axis=1)


def _policy_block(result, module, players: int) -> tuple[dict, np.ndarray]:
    g = result.games
    x = _game_scores(g, players)
    out: dict[str, Any] = {"policy": result.prepared.config.policies[0].label()}
    out["total"] = stats.mean_interval(x)
    out["median"] = float(np.median(x))
    out["bands"] = {
        f"p_over_{b:g}": stats.proportion(float((x > b).sum()), x.size)
        for b in module.EVALUATE_BANDS
    }
    for name, cols in module.EVALUATE_GROUPS.items():
        out[name] = {c: float(_game_scores(g, players, c).mean()) for c in cols}
    out["games_per_second"] = result.summary.get("games_per_second")
    out["seconds"] = result.summary.get("elapsed_seconds")
    # wall time per game of this policy's run (all workers; compile excluded only if cached)
    out["seconds_per_game"] = (out["seconds"] / x.size) if out["seconds"] and x.size else None
    info = getattr(module, "EVALUATE_INFORMATION_GROUP", None)
    if info:
        out["_columns"] = {c: _game_scores(g, players, c) for c in module.EVALUATE_GROUPS[info]}
    return out, x


def evaluate(
    game: str,
    policies: Iterable[str],
    games: int = 1000,
    seed: int = 0,
    variant: dict | None = None,
    players: int | None = None,
    workers: int | None = 1,
    options: dict | None = None,
    progress: bool = False,
) -> dict:
    """Evaluate policies on the same ``games`` deals and compare them with the first one.

    Parameters
    ----------
    game : str
        Game id.
    policies : list of str
        ``"name"`` or ``"name:param=value,..."``; at least one. The first is the reference of
        the paired differences.
    games, seed, variant, workers, options
        As for ``mcsim.simulate`` (``options={"tiles": FILE}`` for Don Quixote).
    players : int, optional
        Seats (every seat plays the evaluated policy); default the game's minimum.

    Returns
    -------
    dict
        ``{"game", "games", "seed", "players", "variant", <prep.info>, "notices", "reference",
        "policies": [{"policy", "total": {mean, low, high, sd, n}, "median", "bands":
        {"p_over_T": {estimate, low, high}}, <EVALUATE_GROUPS means>, "diff_vs_first":
        {mean, low, high, sd, n} | None, "regret_vs_oracle": {...} (if an oracle was
        evaluated), "games_per_second", "seconds", "seconds_per_game" (wall time of the
        policy's run over its games, compile included when the cache is cold)}],
        "value_of_information": {"best_playable": label, "total": {...}, "per_column":
        {column: {...}}} (if an oracle and a playable policy were evaluated and the game has
        an ``EVALUATE_INFORMATION_GROUP``: oracle minus the playable policy of highest mean,
        paired, in total and per column)}``. Means have
        t 95% intervals, proportions Wilson 95% intervals, differences paired t 95% intervals
        (points).

    Raises
    ------
    ConfigError
        No policy given; plus everything ``mcsim.simulate`` raises.
    """
    run = RunOptions(
        games=games,
        seed=seed,
        variant=variant,
        players=players,
        options=options,
        workers=workers,
        progress=progress,
    )
    return _evaluate(game, policies, run)[0]


def _evaluate(game, policies, run):
    """``evaluate`` plus the per-game scores of each policy (float64[games] per policy);
    ``run`` a ``RunOptions`` (its ``players`` None: the game's fewest)."""

    policies = [policies] if isinstance(policies, str) else list(policies)
    if not policies:
        raise ConfigError(f"evaluate needs at least one policy ({values.label('policies')})")
    module = get_game(game)
    players = module.SPEC.min_players if run.players is None else run.players
    run = replace(run, players=players)
    from mcsim.runner import resolve_config

    choices = [parse_policy(t, module.SPEC) if isinstance(t, str) else t for t in policies]
    for choice in choices:  # every policy checked before the first game
        resolve_config(game, players, [choice] * players, run.variant, run.options)
    blocks, scores = [], []
    head: dict[str, Any] = {}
    for choice in choices:
        r = run.simulate(game, [choice] * players)
        b, x = _policy_block(r, module, players)
        blocks.append(b)
        scores.append(x)
        if not head:
            head = {
                "game": game,
                "games": run.games,
                "seed": run.seed,
                "players": players,
                "variant": dict(r.prepared.config.variant),
            }
            head.update(r.prepared.info)
            head["notices"] = list(r.prepared.notices)
    for b, x in zip(blocks, scores):
        b["diff_vs_first"] = None if x is scores[0] else stats.paired_difference(x, scores[0])
    oracle = module.ORACLE_POLICY
    ref = [i for i, b in enumerate(blocks) if b["policy"].split(":")[0] == oracle]
    if ref:
        best = max(ref, key=lambda i: blocks[i]["total"]["mean"])  # the tightest bound
        head["oracle"] = blocks[best]["policy"]
        for b, x in zip(blocks, scores):
            b["regret_vs_oracle"] = stats.paired_difference(scores[best], x)
        playable = [i for i in range(len(blocks)) if i not in ref]
        if playable and "_columns" in blocks[best]:
            top = max(playable, key=lambda i: blocks[i]["total"]["mean"])
            head["value_of_information"] = {
                "best_playable": blocks[top]["policy"],
                "total": stats.paired_difference(scores[best], scores[top]),
                "per_column": {
                    c: stats.paired_difference(v, blocks[top]["_columns"][c])
                    for c, v in blocks[best]["_columns"].items()
                },
            }
    for b in blocks:
        b.pop("_columns", None)
    head["reference"] = blocks[0]["policy"]
    head["measures"] = SELF_PLAY if players > 1 else "solo"
    head["policies"] = blocks
    return head, scores


def check_ensemble(game: str, k) -> int:
    """``k`` as the size of a component ensemble of ``game`` (an int >= 1); raises
    ``BadValueError`` for another ``k`` and ``ConfigError`` for a game without alternative
    component sets (``ensemble_options``). Nothing is played or written."""
    module = get_game(game)
    with tempfile.TemporaryDirectory(prefix="mcsim-ensemble-") as tmp:
        module.ensemble_options(0, 0, tmp)  # raises ConfigError for a game without an ensemble
    return values.Whole(1).check(k, values.label("k"))


def evaluate_ensemble(
    game: str,
    policies: Iterable[str],
    k: int,
    games: int = 1000,
    seed: int = 0,
    ensemble_seed: int | None = None,
    out_dir: str | None = None,
    variant: dict | None = None,
    players: int | None = None,
    workers: int | None = 1,
    options: dict | None = None,
    progress: bool = False,
) -> dict:
    """Run ``evaluate`` on the given component set and on ``k`` alternative ones.

    The alternatives come from the game's ``ensemble_options(k, ensemble_seed, out_dir)``
    (Don Quixote: random tile sets obeying rules §6.1/§2.2, written to ``out_dir`` when given,
    else to a temporary directory removed afterwards).

    Returns
    -------
    dict
        ``{"base": evaluate(...) on the given set, "sets": [{"label", "tileset", "means":
        {policy: mean}}], "spread": {policy: {"mean_of_means", "sd", "min", "max",
        "base"}}, "pairs": [{"better", "worse", "base_difference": {mean, low, high, ...},
        "holds_in", "share", "flips": [set labels], "significant_flips": [set labels whose
        paired 95% interval lies below 0], "per_set": [{"set", "difference", "low",
        "high"}]}]}``. A pair's order is the one on the given set; ``share`` is the fraction of
        the k alternative sets in which the same order holds (same deals, paired).

    Raises
    ------
    ConfigError
        ``k < 1`` or the game has no ensemble.
    """
    module = get_game(game)
    k = check_ensemble(game, k)
    policies = list(policies)
    sets, set_scores = [], []
    with tempfile.TemporaryDirectory(prefix="mcsim-ensemble-") as tmp:
        run = RunOptions(
            games=games,
            seed=seed,
            variant=variant,
            players=players,
            options=options,
            workers=workers,
            progress=progress,
        )
        base, base_scores = _evaluate(game, policies, run)
        labels = [b["policy"] for b in base["policies"]]
        base_mean = {b["policy"]: b["total"]["mean"] for b in base["policies"]}
        eseed = seed if ensemble_seed is None else ensemble_seed
        for label, opts in module.ensemble_options(k, eseed, out_dir or tmp):
            merged = dict(options or {})
            merged.update(opts)
            ev, sc = _evaluate(game, policies, replace(run, options=merged))
            sets.append(
                {
                    "label": label,
                    "tileset": ev.get("tileset"),
                    "means": {b["policy"]: b["total"]["mean"] for b in ev["policies"]},
                }
            )
            set_scores.append(sc)
    spread = {}
    for p in labels:
        m = np.array([s["means"][p] for s in sets], dtype=np.float64)
        spread[p] = {
            "base": base_mean[p],
            "mean_of_means": float(m.mean()),
            "sd": float(m.std(ddof=1)) if m.size > 1 else math.nan,
            "min": float(m.min()),
            "max": float(m.max()),
        }
    pairs = []
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            ia, ib = (i, j) if base_mean[labels[i]] >= base_mean[labels[j]] else (j, i)
            a, b = labels[ia], labels[ib]
            per_set = []
            for s, sc in zip(sets, set_scores):
                d = stats.paired_difference(sc[ia], sc[ib])
                per_set.append(
                    {"set": s["label"], "difference": d["mean"], "low": d["low"], "high": d["high"]}
                )
            holds = [d for d in per_set if d["difference"] > 0]
            flips = [d["set"] for d in per_set if d["difference"] <= 0]
            pairs.append(
                {
                    "better": a,
                    "worse": b,
                    "base_difference": stats.paired_difference(base_scores[ia], base_scores[ib]),
                    "holds_in": len(holds),
                    "share": len(holds) / len(sets),
                    "flips": flips,
                    "significant_flips": [d["set"] for d in per_set if d["high"] < 0],
                    "per_set": per_set,
                }
            )
    return {"base": base, "sets": sets, "spread": spread, "pairs": pairs}


#: ``evaluate``'s ``"measures"`` on a multi-player game: every seat plays the evaluated policy
SELF_PLAY = "self-play"


def format_evaluation(ev: dict, long_name: str = "") -> str:
    """Readable table of an ``evaluate`` result."""
    ts = ev.get("tileset")
    lines = [
        f"{long_name or ev['game']}: {counted(len(ev['policies']), 'policy', 'policies')} on the "
        f"same {counted(ev['games'], 'deal')} (seed {ev['seed']}, {counted(ev['players'], 'player')})"
        + (f", tile set {ts['id']} ({ts['provenance']})" if ts else "")
    ]
    if ev["players"] > 1:
        lines.append(
            f"self-play: all {ev['players']} seats play the evaluated policy, so this "
            f"measures its score against copies of itself, not its strength; for "
            f"head-to-head strength use `mcsim tournament`"
        )
    bands = list(ev["policies"][0]["bands"])
    head = f"{'policy':<24} {'mean [95% CI]':<24}{'sd':>10}{'p50':>8}"
    for b in bands:
        head += f"  {'P(>' + b.split('_')[-1] + ') [95% CI]':<22}"
    head += f"  {'diff vs ' + ev['reference'] + ' [95% CI]':<28}{'games/s':>10}{'s/game':>9}"
    lines.append(head)
    for p in ev["policies"]:
        t = p["total"]
        row = (
            f"{p['policy']:<24} {t['mean']:7.2f} {stats.interval_text(t, '.2f')}".ljust(49)
            # an sd of one deal is undefined, worded as every text output words it
            + (f"{t['sd']:>10.2f}" if t["sd"] == t["sd"] else f"{'undefined':>10}")
            + f" {p['median']:>7g}"
        )
        for b in bands:
            q = p["bands"][b]
            row += f"  {q['estimate']:.3f} {stats.interval_text(q, '.3f')}".ljust(24)
        d = p["diff_vs_first"]
        row += (
            f"  {d['mean']:+7.2f} {stats.interval_text(d, '+.2f')}".ljust(30)
            if d
            else "  " + "-".ljust(28)
        )
        row += f"{p['games_per_second'] or 0:>10,.1f}"
        row += f"{p.get('seconds_per_game') or 0:>9.4f}"
        lines.append(row)
    extra = [
        k
        for k in ev["policies"][0]
        if isinstance(ev["policies"][0][k], dict) and k.startswith("mean_per_")
    ]
    for k in extra:
        cols = list(ev["policies"][0][k])
        lines.append(f"{k.replace('_', ' ')}: " + ", ".join(cols))
        for p in ev["policies"]:
            lines.append(f"  {p['policy']:<22} " + " ".join(f"{p[k][c]:7.2f}" for c in cols))
    if "regret_vs_oracle" in ev["policies"][0]:
        lines.append(
            f"regret vs {ev['oracle']} (oracle minus policy, paired; the oracle's "
            "total is a lower bound on the optimum, so these regrets are lower bounds "
            "too):"
        )
        for p in ev["policies"]:
            r = p["regret_vs_oracle"]
            lines.append(f"  {p['policy']:<22} {r['mean']:7.2f} {stats.interval_text(r, '.2f')}")
    voi = ev.get("value_of_information")
    if voi:
        t = voi["total"]
        lines.append(
            f"value of information ({ev['oracle']} minus {voi['best_playable']}, the best "
            f"playable policy, paired): {t['mean']:.2f} {stats.interval_text(t, '.2f')}; by "
            + ", ".join(
                f"{c} {d['mean']:.2f} {stats.interval_text(d, '.2f')}"
                for c, d in voi["per_column"].items()
            )
        )
    return "\n".join(lines)


def format_ensemble(res: dict, long_name: str = "") -> str:
    """Readable report of an ``evaluate_ensemble`` result."""
    lines = [
        format_evaluation(res["base"], long_name),
        "",
        f"tile-set ensemble: {len(res['sets'])} random sets",
    ]
    lines.append(f"{'policy':<24}{'base':>8}{'mean of means':>15}{'sd':>8}{'min':>8}{'max':>8}")
    for p, s in res["spread"].items():
        lines.append(
            f"{p:<24}{s['base']:>8.2f}{s['mean_of_means']:>15.2f}{s['sd']:>8.2f}"
            f"{s['min']:>8.2f}{s['max']:>8.2f}"
        )
    for q in res["pairs"]:
        flips = (
            ", ".join(
                f"{d['set']} ({d['difference']:+.2f} {stats.interval_text(d, '+.2f')})"
                for d in q["per_set"]
                if d["difference"] <= 0
            )
            or "none"
        )
        bd = q["base_difference"]
        lines.append(
            f"{q['better']} > {q['worse']} (base {bd['mean']:+.2f} [{bd['low']:+.2f}, "
            f"{bd['high']:+.2f}]): holds in {q['holds_in']}/{len(res['sets'])} sets "
            f"({q['share']:.0%}), significant flips {len(q['significant_flips'])}; "
            f"flips: {flips}"
        )
    return "\n".join(lines)
