"""Carcassonne's records and replay: ``record_games``, ``replay`` (turn by turn in the kernel, gift
actions included), ``Position`` (a hand-built board on the kernel state, for ``perft`` and the
worked examples of docs/rules/carcassonne.md §5), ``perft`` on a fixed tile pile.
"""

from __future__ import annotations

import json

import numpy as np

import kernels.carcassonne as K
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError
from mcsim.games.base import Prepared, ReplayResult, check_players, replay_result
from mcsim.games.carcassonne import (
    CATEGORIES,
    GIFT_IDS,
    SPEC,
    build_tables,
    default_tables,
    gift_readings_error,
    is_int,
    kernel_for_lineup,
    load_data,
    segment_names,
    start_balance_error,
    start_meeple_in_play,
    tables_for_variant,
)
from mcsim.values import label

RECORD_FORMAT = 1


_ROT_NAMES = ("r0", "r90", "r180", "r270")


def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """Records of the given games of a run; each replays to the run's result.

    Record format (JSON)::

        {"game": "carcassonne", "format": 1, "players": 2,
         "variant": {"gifts": "false", ...}, "seed": S, "game_index": i, "policies": [...],
         "start": {"tile": "D", "x": 0, "y": 0, "rotation": 0},
         "start_meeple": "road0",           # only with start_balance=tournament and 3-4
                                            # players: seat 0's meeple on the start tile
         "tiles": ["V", "U", ...],          # every tile drawn, in order (unplaceable and
                                            # Take 2 draws included; the start tile excluded)
         "gift_cards": ["cash_out", ...],   # gift cards drawn, in order (gifts=true), the
                                            # reshuffled discard pile's included; a draw from a
                                            # deck of one card type may be left out at the end
         "turns": [{"player": 0, "tile": "V", "place": [x, y, rotation],
                    "meeple": "road0" | null,
                    "gift": null | {"open": "synod", "monastery": [x, y]}
                               | {"open": "road_sweeper", "road": [x, y, "road0"]}
                               | {"open": "cash_out", "meeple": [x, y, "city0"]}
                               | {"open": "change_position", "meeple": [x, y, "road0"],
                                  "to": "field1"}
                               | {"open": "take_2", "keep": "V"}
                               | {"open": "<card>"}   (opened without effect),
                    "received": null | "<card>"}, ...],
         "points": [a, b], "points_by_feature": {"road": [..], ...}}

    Coordinates: start tile at (0, 0), x east, y south; rotation = quarter turns clockwise.
    A turn's ``tile`` is the tile placed (with Take 2: the one kept). A turn's ``player`` may be
    left out; when given it must be the seat to move (turn k: seat k mod players; seat
    (k + 1) mod players when the record has a ``start_meeple``, docs/rules/carcassonne.md §6 #21).
    """
    T = prep.tables["T"]
    out = []
    for i in game_indices:
        log, tl, gl, score, brk, s0 = kernel_for_lineup(prep, K.record_game, K.record_game_mcts)(
            int(i),
            np.uint64(root_seed & 0xFFFF_FFFF_FFFF_FFFF),
            prep.config.players,
            prep.policy_ids,
            prep.policy_params,
            prep.variant_codes,
            T,
        )
        rec = _record_from_arrays(
            prep.tables, prep.config.players, prep.config.variant, log, tl, gl, s0
        )
        rec.update(
            {
                "seed": int(root_seed),
                "game_index": int(i),
                "policies": [p.label() for p in prep.config.policies],
                "points": [int(x) for x in score],
                "points_by_feature": {
                    c: [int(x) for x in brk[:, k]] for k, c in enumerate(CATEGORIES)
                },
            }
        )
        out.append(rec)
    return out


def _record_from_arrays(tables, players, variant, log, tl, gl, start_seg=-1) -> dict:
    letters, segs = tables["letters"], tables["segments"]
    board = {(0, 0): letters.index(load_data()["start_tile"])}
    turns = []
    for row in log:
        row = [int(v) for v in row]
        t = row[K.L_TILE]
        turn = {
            "player": row[K.L_PLAYER],
            "tile": letters[t],
            "place": [row[K.L_X], row[K.L_Y], row[K.L_ROT]],
            "meeple": segs[t][row[K.L_MEEPLE]] if row[K.L_MEEPLE] >= 0 else None,
            "gift": None,
            "received": GIFT_IDS[row[K.L_RECEIVED]] if row[K.L_RECEIVED] >= 0 else None,
        }
        g = row[K.L_OPEN]
        if g >= 0:
            gift = {"open": GIFT_IDS[g]}
            a, b, c, d = row[K.L_GA : K.L_GD + 1]
            if a != K.NO_EFFECT:
                if g == K.GIFT_SYNOD:
                    gift["monastery"] = [a, b]
                elif g == K.GIFT_SWEEPER:
                    gift["road"] = [a, b, segs[board[(a, b)]][c]]
                elif g == K.GIFT_CASHOUT:
                    gift["meeple"] = [a, b, segs[board[(a, b)]][c]]
                elif g == K.GIFT_CHANGE:
                    gift["meeple"] = [a, b, segs[board[(a, b)]][c]]
                    gift["to"] = segs[board[(a, b)]][d]
                else:
                    gift["keep"] = letters[a]
            turn["gift"] = gift
        board[(row[K.L_X], row[K.L_Y])] = t
        turns.append(turn)
    rec = {
        "game": SPEC.id,
        "format": RECORD_FORMAT,
        "players": int(players),
        "variant": dict(variant),
        "start": {"tile": load_data()["start_tile"], "x": 0, "y": 0, "rotation": 0},
    }
    if start_meeple_in_play(variant, players):
        rec["start_meeple"] = segs[board[(0, 0)]][start_seg]
    rec.update(
        {
            "tiles": [letters[t] for t in tl],
            "gift_cards": [GIFT_IDS[g] for g in gl],
            "turns": turns,
        }
    )
    return rec


def _bad(msg: str):
    raise InvalidRecordError(msg)


def _xy_arg(v, where: str) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) < 2 or not all(is_int(x) for x in v[:2]):
        _bad(f"{where} must start with integer coordinates [x, y, ...]")
    return int(v[0]), int(v[1])


def _seg_index(segs_of_tile: list[str] | None, name) -> int:
    """Segment index of ``name`` on a tile (-3 = no such segment: the kernel reports it)."""
    if segs_of_tile is None or not isinstance(name, str) or name not in segs_of_tile:
        return -3
    return segs_of_tile.index(name)


def record_to_arrays(record: dict):
    """(players, variant, tscript, gscript, rscript) from a record; ``InvalidRecordError``."""
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        _bad('not a carcassonne record (expected {"game": "carcassonne", ...})')
    players = record.get("players")
    if not is_int(players) or not SPEC.min_players <= players <= SPEC.max_players:
        _bad(f'"players" must be an integer {SPEC.min_players}-{SPEC.max_players}')
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:
        _bad(str(e))
    if gift_readings_error(variant):
        _bad(gift_readings_error(variant))
    if start_balance_error(variant, players):
        _bad(start_balance_error(variant, players))
    data = load_data()
    letters = [t["letter"] for t in data["tiles"]]
    segs = [segment_names(t) for t in data["tiles"]]
    start = record.get("start", {"tile": data["start_tile"], "x": 0, "y": 0, "rotation": 0})
    if start != {"tile": data["start_tile"], "x": 0, "y": 0, "rotation": 0}:
        _bad(f'"start" must be {{"tile": "{data["start_tile"]}", "x": 0, "y": 0, "rotation": 0}}')
    tiles = record.get("tiles")
    if not isinstance(tiles, list) or any(t not in letters for t in tiles):
        _bad(f'"tiles" must be a list of tile letters ({"".join(letters)})')
    turns = record.get("turns")
    if isinstance(turns, list) and len(tiles) < len(turns):
        _bad(
            f'"tiles" lists {len(tiles)} draws but the record has {len(turns)} turns '
            f"(every turn draws at least one tile)"
        )
    cards = record.get("gift_cards", [])
    if not isinstance(cards, list) or any(c not in GIFT_IDS for c in cards):
        _bad(f'"gift_cards" must be a list of card ids ({", ".join(GIFT_IDS)})')
    turns = record.get("turns")
    if not isinstance(turns, list):
        _bad('"turns" must be a list of turn objects')
    if len(turns) > K.MAX_TILES:
        _bad(f'"turns" has {len(turns)} entries; at most {K.MAX_TILES - 1} tiles can be placed')
    first = 1 if start_meeple_in_play(variant, players) else 0
    if first and "start_meeple" not in record:
        _bad(
            f'"start_meeple" is missing: with start_balance=tournament and {players} players '
            f"seat 0 puts a meeple on the start tile (§6 #21)"
        )
    if not first and "start_meeple" in record:
        _bad(
            f'"start_meeple" is given but the record\'s variant start_balance='
            f"{variant['start_balance']} with {players} players has no start-tile meeple (§6 #21)"
        )
    board = {(0, 0): letters.index(data["start_tile"])}
    rows = np.full((len(turns), K.LOG_COLS), -1, dtype=np.int32)
    for k, turn in enumerate(turns):
        where = f"turn {k}"
        if not isinstance(turn, dict):
            _bad(f"{where}: must be an object")
        seat = (k + first) % players
        if turn.get("player", seat) != seat or isinstance(turn.get("player"), bool):
            # seat 0 starts and seats alternate (§6 #20): turn k is seat k mod players; with the
            # tournament start balance seat 1 takes the first turn (§6 #21)
            raise IllegalMoveError(k, f"player {turn.get('player')}", [f"player {seat}"])
        if turn.get("tile") not in letters:
            _bad(f'{where}: "tile" must be a tile letter')
        t = letters.index(turn["tile"])
        place = turn.get("place")
        if not isinstance(place, list) or len(place) != 3 or not all(is_int(v) for v in place):
            _bad(f'{where}: "place" must be [x, y, rotation] (integers)')
        rows[k, K.L_PLAYER] = seat
        rows[k, K.L_TILE] = t
        rows[k, K.L_X], rows[k, K.L_Y], rows[k, K.L_ROT] = [max(-9999, min(9999, v)) for v in place]
        m = turn.get("meeple")
        rows[k, K.L_MEEPLE] = -1 if m is None else _seg_index(segs[t], m)
        rows[k, K.L_GA : K.L_GD + 1] = K.NO_EFFECT
        gift = turn.get("gift")
        if gift is not None:
            if not isinstance(gift, dict) or gift.get("open") not in GIFT_IDS:
                _bad(f'{where}: "gift" must be null or {{"open": <card id>, ...}}')
            g = GIFT_IDS.index(gift["open"])
            rows[k, K.L_OPEN] = g
            if g == K.GIFT_SYNOD and "monastery" in gift:
                rows[k, K.L_GA], rows[k, K.L_GB] = _xy_arg(gift["monastery"], f"{where}: monastery")
            elif g in (K.GIFT_SWEEPER, K.GIFT_CASHOUT, K.GIFT_CHANGE):
                key = "road" if g == K.GIFT_SWEEPER else "meeple"
                if key in gift:
                    v = gift[key]
                    x, y = _xy_arg(v, f"{where}: {key}")
                    if len(v) != 3:
                        _bad(f"{where}: {key} must be [x, y, segment]")
                    rows[k, K.L_GA], rows[k, K.L_GB] = x, y
                    rows[k, K.L_GC] = _seg_index(
                        segs[board[(x, y)]] if (x, y) in board else None, v[2]
                    )
                    if g == K.GIFT_CHANGE:
                        rows[k, K.L_GD] = _seg_index(
                            segs[board[(x, y)]] if (x, y) in board else None, gift.get("to")
                        )
            elif g == K.GIFT_TAKE2 and "keep" in gift:
                if gift["keep"] not in letters:
                    _bad(f'{where}: take_2 "keep" must be a tile letter')
                rows[k, K.L_GA] = letters.index(gift["keep"])
        board[(int(place[0]), int(place[1]))] = t
    tscript = np.array([letters.index(t) for t in tiles], dtype=np.int32)
    gscript = np.array([GIFT_IDS.index(c) for c in cards], dtype=np.int32)
    return players, variant, tscript, gscript, rows


def record_start_meeple(record: dict) -> int:
    """Segment index on the start tile of a record's ``start_meeple`` (-1 when it has none; -3
    when it names no segment of that tile: the kernel's replay reports it as illegal). Call
    after ``record_to_arrays`` (which checks that the key matches the variant)."""
    if "start_meeple" not in record:
        return -1
    data = load_data()
    start = next(t for t in data["tiles"] if t["letter"] == data["start_tile"])
    return _seg_index(segment_names(start), record["start_meeple"])


def _place_name(letters, t, x, y, r) -> str:
    return f"place {letters[t]} {x},{y} {r}"


def replay(record: dict) -> ReplayResult:
    """Validate a record move by move and return the scores reached.

    Returns
    -------
    dict
        ``{"finished", "turns", "points", "points_by_feature", "gifts_held", "winner"}``:
        points per seat (final scores when finished), ``winner`` a seat or None (shared or
        unfinished).

    Raises
    ------
    InvalidRecordError
        Not a carcassonne record, bad shape, a draw list inconsistent with the tile set, or
        recorded points/gifts that differ from the replay.
    IllegalMoveError
        An illegal decision: ``ply`` = turn index, ``legal`` = the alternatives; also a turn
        whose ``player`` (optional) is not the seat to move (turn k is seat k mod players).
    """
    players, variant, tscript, gscript, rows = record_to_arrays(record)
    data = load_data()
    letters = [t["letter"] for t in data["tiles"]]
    segs = [segment_names(t) for t in data["tiles"]]
    T = tables_for_variant(default_tables(), variant, players)
    codes = SPEC.variant_codes(variant)
    (err, err_turn, opts, score, brk, log, ndrawn, ngdrawn, finished, held, tinfo) = K.replay_game(
        players, codes, T, tscript, gscript, rows, record_start_meeple(record)
    )
    err = int(err)
    turn = int(err_turn)
    if err == K.ERR_DRAW:
        k = int(ndrawn)
        what = record["tiles"][k] if k < len(record["tiles"]) else "missing"
        _bad(f"tiles: draw {k} ({what}) is not left in the draw pile at turn {turn}")
    if err == K.ERR_GIFT_DRAW:
        _bad(
            f"gift_cards: card {int(ngdrawn)} is missing or not left in the gift deck at turn {turn}"
        )
    if err == K.ERR_LENGTH:
        _bad(f"the draw pile is exhausted after {turn} turns but the record has {len(rows)}")
    if err == K.ERR_START:  # before turn 0: seat 0's start-tile meeple (§6 #21)
        start = segs[int(T[K.TB_START][0])]
        legal = [f"start_meeple {start[int(o[0])]}" for o in opts]
        raise IllegalMoveError(0, f"start_meeple {record['start_meeple']}", legal)
    if err != K.ERR_NONE:
        row = rows[turn]
        t = int(row[K.L_TILE])
        if err == K.ERR_OPEN:
            g = int(row[K.L_OPEN])
            legal = ["open none" if int(o[0]) < 0 else f"open {GIFT_IDS[int(o[0])]}" for o in opts]
            raise IllegalMoveError(turn, f"open {GIFT_IDS[g] if 0 <= g < 5 else g}", legal)
        if err == K.ERR_TILE:
            raise IllegalMoveError(
                turn,
                f"tile {letters[t] if 0 <= t < len(letters) else t}",
                [f"tile {letters[int(opts[0, 0])]}"],
            )
        if err == K.ERR_GIFT_ARG:
            g = int(row[K.L_OPEN])
            move = json.dumps(record["turns"][turn].get("gift"))

            def where(node):
                i = int(node) // K.MAX_SEG
                x, y = K.cell_xy(int(tinfo[i, 2]))
                return x, y, segs[int(tinfo[i, 0])][int(node) % K.MAX_SEG]

            if g == K.GIFT_TAKE2:
                legal = [json.dumps({"open": "take_2", "keep": letters[int(o[0])]}) for o in opts]
            elif g == K.GIFT_CHANGE:
                legal = []
                for o in opts:
                    x, y, name = where(o[0])
                    to = segs[int(tinfo[int(o[0]) // K.MAX_SEG, 0])][int(o[1])]
                    legal.append(
                        json.dumps({"open": "change_position", "meeple": [x, y, name], "to": to})
                    )
            elif g == K.GIFT_SYNOD:
                legal = [
                    json.dumps({"open": "synod", "monastery": list(where(o[3])[:2])}) for o in opts
                ]
            else:
                key = "road" if g == K.GIFT_SWEEPER else "meeple"
                legal = [json.dumps({"open": GIFT_IDS[g], key: list(where(o[3]))}) for o in opts]
            raise IllegalMoveError(turn, move, legal or [json.dumps({"open": GIFT_IDS[g]})])
        if err == K.ERR_PLACE:
            x, y, r = record["turns"][turn]["place"]  # as written (rows hold them clamped)
            move = _place_name(letters, t, x, y, r)
            legal = []
            for o in opts:
                cx, cy = K.cell_xy(int(o[0]))
                legal.append(_place_name(letters, t, cx, cy, int(o[1])))
            raise IllegalMoveError(turn, move, legal)
        if err == K.ERR_MEEPLE:
            move = f"meeple {record['turns'][turn].get('meeple')}"
            legal = [
                "meeple none" if int(o[0]) < 0 else f"meeple {segs[t][int(o[0])]}" for o in opts
            ]
            raise IllegalMoveError(turn, move, legal)
    for k, rrow in enumerate(log):
        want = record["turns"][k].get("received")
        got = GIFT_IDS[int(rrow[K.L_RECEIVED])] if int(rrow[K.L_RECEIVED]) >= 0 else None
        if "received" in record["turns"][k] and want != got:
            _bad(f"turn {k}: record says received {want!r}, replay gives {got!r}")
    points = [int(x) for x in score]
    best = max(points)
    winner = points.index(best) if finished and points.count(best) == 1 else None
    result = {
        "finished": bool(finished),
        "turns": int(len(log)),
        "points": points,
        "points_by_feature": {c: [int(x) for x in brk[:, k]] for k, c in enumerate(CATEGORIES)},
        "gifts_held": [int(x) for x in held.sum(axis=1)],
        "winner": winner,
    }
    return replay_result(record, result)


def format_replay(result: dict) -> str:
    """Readable text of a ``replay`` result for ``mcsim replay``."""
    state = "finished" if result["finished"] else "not finished"
    lines = [f"turns played: {result['turns']}; {state}"]
    for k, p in enumerate(result["points"]):
        parts = ", ".join(f"{c} {result['points_by_feature'][c][k]}" for c in CATEGORIES)
        lines.append(f"seat {k}: {p} points ({parts})")
    if result["finished"]:
        lines.append(
            "winner: " + ("shared" if result["winner"] is None else f"seat {result['winner']}")
        )
    return "\n".join(lines)


def perft_pile(data_dir: str | None = None) -> list[str]:
    """The fixed draw pile ``perft`` uses: the unshuffled one, tile letters in table order (§2)
    with their counts, the start tile D taken out once: ``A A B B B B C D D D E ...`` (of the
    data in ``data_dir``, default the shipped data)."""
    data = load_data(data_dir)
    T = build_tables(data) if data_dir else default_tables()
    letters = [t["letter"] for t in data["tiles"]]
    start = int(T[K.TB_START][0])
    return [
        letters[t]
        for t in range(len(letters))
        for _ in range(int(T[K.TB_COUNTS][t]) - (t == start))
    ]


def perft(
    depth: int,
    variant: dict | None = None,
    options: dict | None = None,
    players: int = SPEC.default_players,
) -> int:
    """Number of turn sequences of length ``depth`` from the start, on the unshuffled pile (of
    the data in ``options["data_dir"]``, default the shipped data).

    Node = the board after some turns, start tile D at (0, 0); the chance events are fixed by
    ``perft_pile`` (draws in table order; a tile with no legal placement is set aside and the
    next one drawn, §3.2). A move is one turn of seat ``turn mod players``: a legal placement
    of the drawn tile (every legal rotation counts, also the ones a symmetric tile shares, as in
    records and ``replay``'s legal list) together with a meeple choice on it (none or a
    segment whose feature is unoccupied, §3.2 step 2); completed features are scored. A game
    that ends before ``depth`` turns adds nothing. Base game only (``gifts=false``): with The
    Gifts a turn holds gift decisions and gift draws that this count does not define.

    Python on the kernel's move generator (``placements``, ``meeple_options``) and stepping
    (``place_tile``, ``put_meeple``, ``score_completed``): depths 0-3 take under a second
    (after loading the tables), depth 4 (1,602,944) about 25 seconds, so the doctest (run by
    the test suite) stops at depth 3.

    >>> [perft(d) for d in range(4)]
    [1, 20, 790, 31032]

    Raises
    ------
    ConfigError
        A negative depth, ``gifts=true`` or ``start_balance=tournament``.
    """
    if depth < 0:
        raise ConfigError(f"{label('depth')} must be 0 or more, not {depth}")
    check_players(SPEC, players)
    v = SPEC.resolve_variant(variant)
    if v["gifts"] != "false":
        raise ConfigError("carcassonne perft counts base-game turns; use --variant gifts=false")
    if v["start_balance"] != "none":  # its start holds seat 0's start-tile meeple (§3.5)
        raise ConfigError(
            "carcassonne perft counts turns from the plain start; use --variant start_balance=none"
        )
    data_dir = (options or {}).get("data_dir")
    pos = Position(players, v, data_dir=data_dir)
    T = pos.T
    letters = pos.letters
    nmee = min(int(T[K.TB_PTS][K.P_MEEPLES]), K.MAX_MEEPLES)
    pos.S.mnode[:players, nmee:] = -2  # meeple slots not in the game, as in the kernel
    pile = [letters.index(x) for x in perft_pile(data_dir)]
    codes = pos.variant
    conn = np.zeros(8, dtype=np.int64)
    mopts = np.zeros(16, dtype=np.int64)
    opts = np.zeros((K.MAX_OPT, 4), dtype=np.int32)

    def copy(S):
        return K.GameState(*(a.copy() for a in S))

    def count(S, turn: int, k: int, d: int) -> int:
        if d == 0:
            return 1
        while k < len(pile) and not K.placeable(S, T, pile[k]):
            k += 1
        if k == len(pile):
            return 0
        t = pile[k]
        cur = turn % players
        n = K.placements(S, T, t, False, opts)
        total = 0
        for c, r in [(int(opts[i, 0]), int(opts[i, 1])) for i in range(n)]:
            child = copy(S)
            child.sc[K.S_CUR] = cur
            idx = K.place_tile(child, T, t, r, c, conn)
            nm = K.meeple_options(child, T, idx, cur, mopts)
            if d == 1:
                total += int(nm)
                continue
            choices = [int(x) for x in mopts[:nm]]
            for i, seg in enumerate(choices):
                g = child if i == len(choices) - 1 else copy(child)
                if seg >= 0:
                    K.put_meeple(g, idx * K.MAX_SEG + seg, cur)
                K.score_completed(g, T, idx, codes)
                total += count(g, turn + 1, k + 1, d - 1)
        return total

    return count(pos.S, 0, 0, depth)


class Position:
    """A hand-built board on the kernel state, for the worked examples of §5 and tests.

    >>> pos = Position(players=2)                        # start tile D at (0, 0), city north
    >>> pos.place("E", 0, -1, rot=2, meeple="city0", player=0)   # cap facing south closes it
    >>> pos.scores
    [4, 0]

    ``place`` checks legality (edge matching, adjacency, meeple occupancy) unless
    ``check=False``, evaluates the gift predicate of §4.2 (``last_gift``), puts the meeple and
    scores what the tile completed (§3.2 step 3). ``finish()`` runs the final scoring.
    """

    def __init__(
        self,
        players: int = 2,
        variant: dict | None = None,
        start: bool = True,
        data_dir: str | None = None,
    ):
        data = load_data(data_dir)
        self.letters = [t["letter"] for t in data["tiles"]]
        self.segs = [segment_names(t) for t in data["tiles"]]
        tables = build_tables(data) if data_dir else default_tables()
        self.T = tables_for_variant(tables, SPEC.resolve_variant(variant), players, self.letters)
        self.variant = SPEC.variant_codes(SPEC.resolve_variant(variant))
        self.players = players
        self.S = K.new_game_state()
        self.S.sc[K.S_NPLAYERS] = players
        self.conn = np.zeros(8, dtype=np.int64)
        self.last_gift = False
        if start:
            self.place(data["start_tile"], 0, 0, 0, check=False)

    def _tile_at(self, x, y) -> int:
        c = K.xy_cell(x, y)
        j = self.S.board[c] if c >= 0 else -1
        if j < 0:
            raise IllegalMoveError(0, f"{x},{y}", ["a placed tile"])
        return int(j)

    def node(self, x: int, y: int, seg: str) -> int:
        j = self._tile_at(x, y)
        names = self.segs[int(self.S.tinfo[j, 0])]
        if seg not in names:
            raise IllegalMoveError(0, seg, names)
        return j * K.MAX_SEG + names.index(seg)

    def place(
        self,
        letter: str,
        x: int,
        y: int,
        rot: int = 0,
        meeple: str | None = None,
        player: int = 0,
        check: bool = True,
        score: bool = True,
    ) -> None:
        t = self.letters.index(letter)
        c = K.xy_cell(x, y)
        if check:
            ok = c >= 0 and self.S.fpos[c] >= 0 and (self.T[K.TB_FIT][t, self.S.pat[c]] >> rot) & 1
            if not ok:
                raise IllegalMoveError(0, _place_name(self.letters, t, x, y, rot), [])
        self.S.sc[K.S_CUR] = player
        idx = K.place_tile(self.S, self.T, t, rot, c, self.conn)
        self.last_gift = bool(K.gift_earned(self.S, self.T, idx, player, self.conn, self.variant))
        if meeple is not None:
            s = self.segs[t].index(meeple)
            if check:
                opts = np.zeros(16, dtype=np.int64)
                n = K.meeple_options(self.S, self.T, idx, player, opts)
                if s not in opts[:n]:
                    raise IllegalMoveError(
                        0,
                        f"meeple {meeple}",
                        [self.segs[t][o] if o >= 0 else "none" for o in opts[:n]],
                    )
            K.put_meeple(self.S, idx * K.MAX_SEG + s, player)
        if score:
            K.score_completed(self.S, self.T, idx, self.variant)

    def add_meeple(self, x: int, y: int, seg: str, player: int) -> None:
        """Put a meeple without the occupancy check (to build majorities as in §5 #7, #8)."""
        K.put_meeple(self.S, self.node(x, y, seg), player)

    def feature(self, x: int, y: int, seg: str) -> dict:
        """The feature through a segment: distinct tiles, open edges, pennants, meeples, complete."""
        r = K.find(self.S.parent, self.node(x, y, seg))
        f = self.S.fint[r]
        return {
            "tiles": int(K.feature_tiles(self.S, r)),
            "open": int(f[K.F_OPEN]),
            "pennants": int(f[K.F_PEN]),
            "meeples": [int(v) for v in self.S.fmee[r, : self.players]],
            "complete": bool(f[K.F_OPEN] == 0),
        }

    def supply(self, player: int) -> int:
        return int(K.supply(self.S, player))

    # gift effects (§4.4), applied as the kernel applies them when a card is opened
    def synod(self, player: int, x: int, y: int) -> None:
        k = K.put_meeple(self.S, self.node(x, y, "cloister"), player)
        if k < 0:
            raise IllegalMoveError(0, "synod", ["(no meeple in supply: no effect)"])
        self.S.mflag[player, k] = 1

    def road_sweeper(self, x: int, y: int, seg: str) -> None:
        K.road_sweep(self.S, self.T, K.find(self.S.parent, self.node(x, y, seg)))

    def cash_out(self, player: int, x: int, y: int, seg: str) -> int:
        nd = self.node(x, y, seg)
        v = int(K.cash_out_points(self.S, self.T, nd, player, self.variant))
        self.S.score[player] += v
        self.S.brk[player, K.CAT_GIFT] += v
        K.move_meeple(self.S, player, nd, -1)
        return v

    def change_targets(self, x: int, y: int, seg: str) -> list[str]:
        nd = self.node(x, y, seg)
        out = np.zeros(8, dtype=np.int64)
        n = K.change_targets(self.S, self.T, nd, self.variant, out)
        t = int(self.S.tinfo[nd // K.MAX_SEG, 0])
        return [self.segs[t][s] for s in out[:n]]

    def change_position(self, player: int, x: int, y: int, seg: str, to: str) -> None:
        if to not in self.change_targets(x, y, seg):
            raise IllegalMoveError(0, to, self.change_targets(x, y, seg))
        nd = self.node(x, y, seg)
        K.move_meeple(
            self.S,
            player,
            nd,
            (nd // K.MAX_SEG) * K.MAX_SEG
            + self.segs[int(self.S.tinfo[nd // K.MAX_SEG, 0])].index(to),
        )

    def finish(self) -> list[int]:
        """Final scoring (§3.3, §4.5); returns the scores."""
        K.score_final(self.S, self.T, self.variant)
        return self.scores

    @property
    def scores(self) -> list[int]:
        return [int(v) for v in self.S.score[: self.players]]

    def points(self, category: str) -> list[int]:
        return [int(v) for v in self.S.brk[: self.players, CATEGORIES.index(category)]]
