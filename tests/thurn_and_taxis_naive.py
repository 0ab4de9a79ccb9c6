"""The naive second implementation of Thurn and Taxis scoring, for tests only (moved out of
``mcsim.games.thurn_and_taxis``, which ships no test code): ``naive_score_record`` rescores a record from its
turns by the rules text alone (docs/rules/thurn_und_taxis.md).
"""

from __future__ import annotations

from mcsim.games.thurn_and_taxis import SPEC
from mcsim.games.thurn_and_taxis.records import record_data


def naive_score_record(record: dict, data: dict | None = None) -> dict:
    """Recompute a finished record's scores with plain Python, independently of the kernel.

    Follows the record's plays to rebuild each closed route, then applies §4C (route tile with
    cascade, region groups once per player, all-regions tile, strict carriage order with the
    Cartwright's +2), the end trigger (§5) and the final score and tie-break (§5). Used by the
    tests as a second implementation; it checks route legality and house rules on the way
    (``AssertionError`` if violated).

    Returns
    -------
    dict
        ``{"scores": [...], "winner": seat, "carriages": [...], "tiles": [[values], ...]}``
    """
    data = data or record_data(record)
    names = data["names"]
    adj = data["adj"]
    region_of = {c["id"]: c["region"] for c in data["cities"]}
    variant = SPEC.resolve_variant(record.get("variant"))
    n = record["players"]
    stacks = {s["id"]: list(s["values"]) for s in data["stacks"]}
    vp = data["carriage_vp"]
    route = [[] for _ in range(n)]
    houses = [set() for _ in range(n)]
    carriage = [0] * n
    tiles: list[list[int]] = [[] for _ in range(n)]
    taken_groups = [set() for _ in range(n)]
    end_holder = None
    groups = {
        s["id"]: {c for c in range(22) if region_of[c] in s["regions"]}
        for s in data["stacks"]
        if s["kind"] == "region_group"
    }
    need_regions = set(data["regions"]) - (
        {"Baiern"} if variant["all_regions_includes_baiern"] == "false" else set()
    )
    for turn in record["turns"]:
        p = turn["seat"]
        for text in turn["plays"]:
            kind, _, name = text.partition(":")
            if kind == "none":
                continue
            c = names[name]
            r = route[p]
            if kind in ("new", "restart"):
                assert (kind == "new") == (len(r) == 0)
                route[p] = [c]
            else:
                assert c not in r and len(r) >= 1
                end = r[0] if kind == "left" else r[-1]
                assert c in adj[end], (text, r)
                if kind == "left":
                    r.insert(0, c)
                else:
                    r.append(c)
        close = turn["close"]
        if close is None:
            continue
        r = route[p]
        L = len(r)
        assert L >= 3
        placed = [names[h] for h in close["houses"]]
        assert len(set(placed)) == len(placed) and all(
            h in r and h not in houses[p] for h in placed
        )
        # placing is mandatory (§4C.1, §7.5, §7.13): as many as the option can take, fewer
        # only when houses run short; an option placing none only when none places any
        left = 20 - len(houses[p])
        lacking = [c for c in r if c not in houses[p]]
        if close["mode"] == "each":
            regs = [region_of[h] for h in placed]
            assert len(set(regs)) == len(regs)
            assert len(placed) == min(left, len({region_of[c] for c in lacking})), (turn, r)
        else:
            assert close["region"] in {region_of[c] for c in r}, (turn, r)
            assert all(region_of[h] == close["region"] for h in placed)
            cand = [c for c in lacking if region_of[c] == close["region"]]
            assert len(placed) == min(left, len(cand)), (turn, r)
            assert placed or not lacking or left == 0, (turn, r)
        houses[p] |= set(placed)
        assert len(houses[p]) <= 20
        # route tile, cascading down (§4C.2, §7.3)
        want = "route7" if L >= 7 else "route6" if L == 6 else "route5" if L == 5 else None
        order = ["route7", "route6", "route5"]
        if want:
            cands = order[order.index(want) :]
            if variant["route_tile_cascade"] == "false":
                cands = cands[:1]
            for sid in cands:
                if stacks[sid]:
                    tiles[p].append(stacks[sid].pop(0))
                    break
        for sid, cities in groups.items():
            if sid not in taken_groups[p] and cities <= houses[p] and stacks[sid]:
                taken_groups[p].add(sid)
                tiles[p].append(stacks[sid].pop(0))
        regs_with_house = {region_of[h] for h in houses[p]}
        if (
            "all" not in taken_groups[p]
            and need_regions <= regs_with_house
            and stacks["all_regions"]
        ):
            taken_groups[p].add("all")
            tiles[p].append(stacks["all_regions"].pop(0))
        nxt = carriage[p] + 1 if carriage[p] else 3
        bonus = 2 if turn["official"] == "cartwright" else 0
        if nxt <= 7 and L + bonus >= nxt:
            carriage[p] = nxt
        if end_holder is None and (carriage[p] == 7 or len(houses[p]) == 20):
            end_holder = p
            tiles[p].append(stacks["game_end"].pop(0))
        route[p] = []
    scores = [
        (vp[carriage[p]] if carriage[p] else 0) + sum(tiles[p]) - (20 - len(houses[p]))
        for p in range(n)
    ]
    best = max(scores)
    winner = None
    if end_holder is not None:
        for d in range(n):
            q = (end_holder + d) % n
            if scores[q] == best:
                winner = q
                break
    return {"scores": scores, "winner": winner, "carriages": carriage, "tiles": tiles}
