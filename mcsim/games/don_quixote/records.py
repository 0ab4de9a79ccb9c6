"""Don Quixote's records and replay: ``record_games``, ``replay`` (placement by placement, with the
recorded reveals and scorings checked), ``perft`` on a fixed deal.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

import numpy as np

from kernels import don_quixote as K
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError
from mcsim.games.base import Prepared, ReplayResult, replay_result
from mcsim.games.don_quixote import (
    CASTLE_VALUES,
    SPEC,
    TileSet,
    build_tables,
    cell_index,
    empty_record,
    load_tileset,
    new_forbid_counts,
    new_outputs,
)
from mcsim.values import label

# ---------------------------------------------------------------- records and replay
RECORD_FORMAT = "mcsim-don-quixote-record/1"


ROUND_KEYS = ("round1", "round2", "round3", "set_aside")


def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """JSON-ready records of the given games (format in ``replay``); replaying one gives the
    same scores as the run."""
    tab = prep.tables["tiles"]
    names = prep.tables["tile_names"]
    seats = prep.policy_ids.shape[0]
    n_land = tab.shape[0] - 2
    variant = {v.name: v.choices[int(c)] for v, c in zip(SPEC.variants, prep.variant_codes)}
    out = []
    for gi in game_indices:
        # the run's own kernel with one recorded game: no separate compile for records
        score, bd = new_outputs(1, seats)
        rec = empty_record(1, seats, n_land)
        K.entry_for(prep.policy_ids)(
            np.int64(gi),
            np.int64(1),
            np.uint64(root_seed),
            prep.policy_ids,
            prep.policy_params,
            prep.variant_codes,
            tab,
            score,
            bd,
            rec,
            new_forbid_counts(prep, 1),
        )
        castles, cells, seq, last_rot, moves = (a[0] for a in rec)
        score, bd = score[0], bd[0]
        players = []
        a, b = K.ROUND_SIZES[0], K.ROUND_SIZES[0] + K.ROUND_SIZES[1]
        for p in range(seats):
            s = [names[t] for t in seq[p]]
            players.append(
                {
                    "seat": p,
                    "policy": prep.config.policies[p].label(),
                    "reveals": {
                        "round1": s[:a],
                        "round2": s[a:b],
                        "round3": s[b : K.N_PLACE - 1],
                        "set_aside": s[K.N_PLACE - 1],
                    },
                    "placements": [
                        {
                            "cell": K.CELL_NAMES[cells[i]],
                            "tile": names[moves[p, i, 0]],
                            "rot": 180 * int(moves[p, i, 1]),
                        }
                        for i in range(K.N_PLACE)
                    ],
                    "scorings": [int(bd[p, r].sum()) for r in range(3)],
                    "total": int(score[p]),
                }
            )
        out.append(
            {
                "format": RECORD_FORMAT,
                "game": SPEC.id,
                "tileset": dict(prep.info["tileset"]),
                "tiles_file": prep.tables.get("tiles_path"),
                "variant": variant,
                "seed": int(root_seed),
                "game_index": int(gi),
                "castles": {
                    str(CASTLE_VALUES[0]): K.CELL_NAMES[castles[0]],
                    str(CASTLE_VALUES[1]): K.CELL_NAMES[castles[1]],
                },
                "players": players,
            }
        )
    return out


def _move_text(cell: int, tile: str, rot: int) -> str:
    return f"{K.CELL_NAMES[cell]} {tile} {rot}"


def replay(record: dict) -> ReplayResult:
    """Check a Don Quixote game record placement by placement and score it.

    Record (JSON object)::

        {"format": "mcsim-don-quixote-record/1", "game": "don-quixote",
         "tileset": {"id": ...}, "tiles_file": null | path, "variant": {...} (optional),
         "castles": {"6": "F1", "4": "C2"},
         "players": [{"placements": [{"cell": "G3", "tile": "K3a", "rot": 0 | 180}, ...],
                      "reveals": {"round1": [9 ids], "round2": [7], "round3": [5],
                                  "set_aside": id} (optional),
                      "scorings": [S1, S2, S3] (optional), "total": T (optional)}]}

    A solo record may give ``"placements"`` (and ``"reveals"``) at the top level instead of
    ``"players"``. Placements are in position-card order (shared by all players); the 9th,
    16th and 22nd end rounds 1-3 (§3.2), and the 22nd is the set-aside tile. Recorded
    ``scorings`` (points per scoring) are checked for every scoring the placements reach, and a
    recorded ``total`` once all 22 placements are in (a partial record's total is only reported
    as ``recorded_total`` / ``matches_record``).

    Returns
    -------
    dict
        ``{"tileset", "castles", "finished", "points" (totals per player), "players":
        [{"scorings": [{"round", "placements",
        "tiles_on_board", "breakdown": {category: points}, "points"}], "total", "complete",
        "recorded_total", "matches_record"}]}``

    Raises
    ------
    InvalidRecordError
        Not of the documented shape, unknown tile set, castles on adjacent cells (§3.1), or
        recorded ``scorings`` / ``total`` that differ from the replay.
    IllegalMoveError
        A placement on a castle or a filled cell, a tile already used or not face up, a bad
        rotation, a cell order that differs between players; carries the ply and legal moves.
    DataFileError
        ``tiles_file`` given but broken.
    """
    if not isinstance(record, dict) or record.get("game", SPEC.id) != SPEC.id:
        raise InvalidRecordError('not a don-quixote record (expected {"game": "don-quixote", ...})')
    ts, variant = _record_tileset(record)
    tab = build_tables(ts, variant)
    names = [t.id for t in ts.instances]
    ccell = _castle_cells(record)
    players = _record_players(record)
    su = _Setup(ts, tab, names, ccell, _instances_by_id(names, ts.n_land))
    results = []
    ref_cells: list[int] | None = None
    for p, pl in enumerate(players):
        cells, res = _replay_player(su, p, pl, ref_cells)
        if ref_cells is None:
            ref_cells = cells
        results.append(res)
    result = {
        "tileset": {"id": ts.id, "provenance": ts.provenance},
        "castles": {str(v): K.CELL_NAMES[c] for v, c in zip(CASTLE_VALUES, su.ccell)},
        "finished": all(r["complete"] for r in results),
        "points": [r["total"] for r in results],
        "players": results,
    }
    return replay_result(record, result)


def _record_tileset(record: dict) -> tuple[TileSet, dict]:
    """The record's tile set (it must be the one named in ``tileset``) and its variant."""
    tiles_file = record.get("tiles_file")
    ts = load_tileset(tiles_file)
    want = record.get("tileset")
    want_id = want.get("id") if isinstance(want, dict) else want
    if want_id is not None and want_id != ts.id:
        raise InvalidRecordError(
            f"record uses tile set {want_id!r} but {ts.id!r} is loaded; "
            'give its file as "tiles_file"'
        )
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:  # unknown variant in a record is a record problem
        raise InvalidRecordError(str(e)) from None
    return ts, variant


def _castle_cells(record: dict) -> list[int]:
    """The cells of the 6- and 4-castle, checked not to touch (§3.1)."""
    castles = record.get("castles")
    if not isinstance(castles, dict):
        raise InvalidRecordError('"castles" must be {"6": cell, "4": cell}')
    ccell = []
    for v in CASTLE_VALUES:
        name = castles.get(str(v))
        c = cell_index(name) if isinstance(name, str) else -1
        if c < 0:
            raise InvalidRecordError(f"castles: {v}-castle cell {name!r} is not a cell A1..H3")
        ccell.append(c)
    if ccell[0] == ccell[1] or int(K.BB_NEAR[ccell[0]]) >> ccell[1] & 1:
        raise InvalidRecordError(
            f"castles: the {CASTLE_VALUES[1]}-castle at {K.CELL_NAMES[ccell[1]]} touches the "
            f"{CASTLE_VALUES[0]}-castle at {K.CELL_NAMES[ccell[0]]} (rules §3.1: at least one "
            "cell between them)"
        )
    return ccell


def _record_players(record: dict) -> list:
    """The record's players (a solo record's top-level fields as its one player)."""
    players = record.get("players")
    if players is None:
        players = [
            {k: record[k] for k in ("placements", "reveals", "scorings", "total") if k in record}
        ]
    if not isinstance(players, list) or not players or len(players) > SPEC.max_players:
        raise InvalidRecordError(f'"players" must be a list of 1..{SPEC.max_players} players')
    return players


def _instances_by_id(names: list[str], n_land: int) -> dict[str, list[int]]:
    """The landscape tile instances of each tile id."""
    by_id: dict[str, list[int]] = {}
    for i, n in enumerate(names[:n_land]):
        by_id.setdefault(n, []).append(i)
    return by_id


@dataclass
class _Setup:
    """What every player's replay shares: the tile set, its kernel table, the tile names, the
    castle cells and the instances of each tile id."""

    ts: TileSet
    tab: np.ndarray
    names: list[str]
    ccell: list[int]
    by_id: dict[str, list[int]]

    @property
    def n_land(self) -> int:
        """Number of landscape tile instances."""
        return self.ts.n_land


def _checked_placement(
    su: _Setup, p: int, ply: int, mv, S, ref_cells, faceup, used
) -> tuple[int, int, int]:
    """Player ``p``'s placement ``ply`` checked in the estate ``S``: (cell, tile, rotation)."""
    if not isinstance(mv, dict):
        raise InvalidRecordError(f"player {p} placement {ply}: must be an object")
    text = f"{mv.get('cell')} {mv.get('tile')} {mv.get('rot')}"
    legal_cells = [c for c in range(K.N_CELLS) if S[K.CELLS, c] < 0]
    cell = cell_index(mv.get("cell", ""))
    if ref_cells is not None and ply < len(ref_cells) and cell != ref_cells[ply]:
        raise IllegalMoveError(
            ply,
            text,
            [f"{K.CELL_NAMES[ref_cells[ply]]} (position cards are shared by all players)"],
        )
    avail = _available(faceup, used, su.by_id, su.names, ply, su.n_land)
    if cell not in legal_cells:
        raise IllegalMoveError(ply, text, [f"{K.CELL_NAMES[c]} <tile> 0|180" for c in legal_cells])
    legal = [_move_text(cell, su.names[t], r) for t in avail for r in (0, 180)]
    tile = mv.get("tile")
    rot = mv.get("rot")
    if isinstance(rot, bool) or not isinstance(rot, int):
        raise InvalidRecordError(
            f'player {p} placement {ply}: "rot" must be the number 0 or 180, not {json.dumps(rot)}'
        )
    cand = [t for t in su.by_id.get(tile, []) if t in avail] if isinstance(tile, str) else []
    if not cand or rot not in (0, 180) or isinstance(rot, bool):
        raise IllegalMoveError(ply, text, legal)
    return cell, cand[0], rot


def _scoring(S, ply: int, bdrow: np.ndarray) -> dict | None:
    """The scoring that placement ``ply`` ends (§3.4), or None."""
    rnd = K.round_of(ply)
    if ply != K.ROUND_END[rnd - 1]:
        return None
    pts = int(K.score_breakdown(S, rnd, bdrow))
    return {
        "round": rnd,
        "placements": ply + 1,
        "tiles_on_board": int(S[K.SC, K.SC_NPLACED]),
        "breakdown": dict(zip(K.CAT_NAMES, map(int, bdrow))),
        "points": pts,
    }


def _replay_player(su: _Setup, p: int, pl, ref_cells: list[int] | None) -> tuple[list[int], dict]:
    """Replay player ``p``'s placements (the cells must be player 0's, ``ref_cells``) and
    check the recorded scores: (the cells placed on, the player's result)."""
    if not isinstance(pl, dict) or not isinstance(pl.get("placements"), list):
        raise InvalidRecordError(f'player {p}: "placements" must be a list')
    moves = pl["placements"]
    if len(moves) > K.N_PLACE:
        raise InvalidRecordError(f"player {p}: {len(moves)} placements, at most {K.N_PLACE}")
    faceup = _reveal_schedule(pl.get("reveals"), su.by_id, p)
    S = K.setup_estate(su.tab, np.array(su.ccell, dtype=np.int64))
    log = np.zeros(K.LOGN, dtype=np.int64)
    used = [False] * su.n_land
    cells: list[int] = []
    scorings = []
    bdrow = np.zeros(K.N_CAT, dtype=np.int64)
    for ply, mv in enumerate(moves):
        cell, t, rot = _checked_placement(su, p, ply, mv, S, ref_cells, faceup, used)
        used[t] = True
        cells.append(cell)
        K.place(S, su.tab, cell, t, rot // 180, log)
        scoring = _scoring(S, ply, bdrow)
        if scoring is not None:
            scorings.append(scoring)
    if ref_cells is not None and len(cells) != len(ref_cells):
        raise InvalidRecordError(
            f"player {p}: {len(cells)} placements but player 0 has {len(ref_cells)}"
        )
    total = sum(s["points"] for s in scorings)
    rec_total = pl.get("total")
    _check_recorded(pl, p, [s["points"] for s in scorings], total, len(moves) == K.N_PLACE)
    return cells, {
        "seat": p,
        "scorings": scorings,
        "total": total,
        "complete": len(moves) == K.N_PLACE,
        "recorded_total": rec_total,
        "matches_record": None if rec_total is None else rec_total == total,
    }


def _check_recorded(pl: dict, p: int, done: list[int], total: int, complete: bool) -> None:
    """Raise ``InvalidRecordError`` when a player's recorded ``scorings`` (points per scoring)
    or ``total`` differ from the replay: every scoring the placements reach is compared, and
    the total once the estate is complete (a partial record's total is not checked)."""
    rec = pl.get("scorings")
    if rec is not None:
        if not isinstance(rec, list) or len(rec) > len(K.ROUND_END):
            raise InvalidRecordError(
                f'player {p}: "scorings" must list the points of up to {len(K.ROUND_END)} scorings'
            )
        n = min(len(rec), len(done))
        if rec[:n] != done[:n] or (complete and len(rec) != len(done)):
            raise InvalidRecordError(f"player {p}: record says scorings {rec}, replay gives {done}")
    rec_total = pl.get("total")
    if complete and rec_total is not None and rec_total != total:
        raise InvalidRecordError(f"player {p}: record says total {rec_total}, replay gives {total}")


def _reveal_schedule(rev, by_id, p) -> list[Counter] | None:
    """Per round (1, 2, 3, set-aside) the Counter of tile ids turned face up, or None."""
    if rev is None:
        return None
    if not isinstance(rev, dict):
        raise InvalidRecordError(f'player {p}: "reveals" must be an object')
    sizes = (K.ROUND_SIZES[0], K.ROUND_SIZES[1], K.ROUND_SIZES[2] - 1, 1)
    out = []
    total: Counter = Counter()
    for key, size in zip(ROUND_KEYS, sizes):
        v = rev.get(key)
        v = [v] if key == "set_aside" and isinstance(v, str) else v
        if not isinstance(v, list) or len(v) != size:
            raise InvalidRecordError(f"player {p}: reveals.{key} must list {size} tile(s)")
        for tid in v:
            if tid not in by_id:
                raise InvalidRecordError(f"player {p}: reveals.{key}: unknown tile {tid!r}")
        c = Counter(v)
        total += c
        out.append(c)
    for tid, n in total.items():
        if n > len(by_id[tid]):
            raise InvalidRecordError(
                f"player {p}: tile {tid!r} revealed {n} times, the set has {len(by_id[tid])}"
            )
    return out


def _available(faceup, used, by_id, names, ply, n_land) -> list[int]:
    """Tile instances a player may place at ``ply`` (face up, unused; last = set-aside)."""
    free = [t for t in range(n_land) if not used[t]]
    if faceup is None:
        return free
    rnd = K.round_of(ply)
    allowed: Counter = Counter()
    if ply == K.N_PLACE - 1:
        allowed = faceup[3].copy()
    else:
        for r in range(rnd):
            allowed += faceup[r]
    # subtract tiles of those ids already placed
    placed = Counter(names[t] for t in range(n_land) if used[t])
    out = []
    for tid, n in allowed.items():
        left = n - placed.get(tid, 0) if ply != K.N_PLACE - 1 else n
        inst = [t for t in by_id[tid] if not used[t]]
        out.extend(inst[: max(left, 0)])
    return sorted(out)


# ---------------------------------------------------------------- perft
def perft_deal(ts: TileSet | None = None) -> dict:
    """The fixed deal ``perft`` starts from: the unshuffled one (no random stream involved).

    Position cards in cell order A1, A2, ... H3: the 6-castle on the first card (A1), the
    4-castle on the next card whose cell does not touch it (A3; rules §3.1 redraw), the 22
    placements on the remaining cells in order (A2, B1, B2, ..., H3). Landscape tiles revealed
    in tile-file order: instances 0-8 in round 1, 9-15 in round 2, 16-20 in round 3, 21 set
    aside (lying at 0°).

    Returns ``{"castles": [c6, c4], "cells": [22 cells], "reveals": {"round1": [ids], ...,
    "set_aside": id}}`` (cells as indices, reveals as tile ids, the record's ``reveals`` shape).
    """
    ts = ts or load_tileset()
    deck = list(range(K.N_CELLS))
    c6 = deck.pop(0)
    c4 = next(c for c in deck if not int(K.BB_NEAR[c6]) >> c & 1)
    deck.remove(c4)
    names = [t.id for t in ts.instances[: ts.n_land]]
    a, b = K.ROUND_SIZES[0], K.ROUND_SIZES[0] + K.ROUND_SIZES[1]
    return {
        "castles": [c6, c4],
        "cells": deck[: K.N_PLACE],
        "reveals": {
            "round1": names[:a],
            "round2": names[a:b],
            "round3": names[b : K.N_PLACE - 1],
            "set_aside": names[K.N_PLACE - 1],
        },
    }


def perft(depth: int, variant: dict | None = None, options: dict | None = None) -> int:
    """Number of placement sequences of length ``depth`` (0-22) from the unshuffled deal of the
    tile set ``options["tiles"]`` (default: the shipped set).

    Node = a player's estate after some placements; the chance events (castle cells, the cell of
    every position card, the tiles turned face up each round) are fixed by ``perft_deal``. A
    move at ply p is a placement record entry ``{cell, tile, rot}`` that ``replay`` accepts: the
    dealt cell, a face-up unused tile *id* (identical tiles count once) and rotation 0 or 180;
    the last placement is the set-aside tile, at 0 or 180 (``last_tile_rotation=free``) or as
    dealt (``random``: one move). Placement never restricts the next moves (the cells come from
    the cards), so the count checks the face-up / used-tile bookkeeping of ``replay``
    (``_available``) and the counts are memoised on (ply, tiles used): every depth runs in
    well under a second.

    With the placeholder tile set (22 different ids): 18, 288, 4032 for depths 1-3
    (2 x 9 x 2 x 8 x 2 x 7 ...), and ``9! 7! 5! 2^22`` = 920 523 160 682 496 000
    complete games (half of it with ``last_tile_rotation=random``).

    >>> [perft(d) for d in range(4)]
    [1, 18, 288, 4032]

    Raises
    ------
    ConfigError
        A depth outside 0..22.
    """
    if not 0 <= depth <= K.N_PLACE:
        raise ConfigError(f"{label('depth')} must be 0..{K.N_PLACE} for don-quixote, not {depth}")
    v = SPEC.resolve_variant(variant)
    ts = load_tileset((options or {}).get("tiles"))
    names = [t.id for t in ts.instances]
    n_land = ts.n_land
    by_id = _instances_by_id(names, n_land)
    faceup = _reveal_schedule(perft_deal(ts)["reveals"], by_id, 0)
    rots = 2 if v["last_tile_rotation"] == "free" else 1
    memo: dict[tuple, int] = {}

    def count(ply: int, used: tuple[bool, ...], d: int) -> int:
        if d == 0:
            return 1
        key = (ply, used, d)
        if key not in memo:
            avail = _available(faceup, list(used), by_id, names, ply, n_land)
            first = {}  # one instance per distinct tile id
            for t in avail:
                first.setdefault(names[t], t)
            n_rot = rots if ply == K.N_PLACE - 1 else 2
            memo[key] = sum(
                n_rot * count(ply + 1, used[:t] + (True,) + used[t + 1 :], d - 1)
                for t in first.values()
            )
        return memo[key]

    return count(0, (False,) * n_land, depth)


def format_replay(result: dict) -> str:
    """Readable text of a ``replay`` result: each completed scoring's breakdown and the total."""
    lines = [
        f"tile set {result['tileset']['id']} ({result['tileset']['provenance']}); castles "
        + ", ".join(f"{v} at {c}" for v, c in result["castles"].items())
    ]
    for pl in result["players"]:
        lines.append(f"player {pl['seat']}:")
        for s in pl["scorings"]:
            parts = ", ".join(f"{k} {v}" for k, v in s["breakdown"].items())
            lines.append(
                f"  scoring {s['round']} ({s['tiles_on_board']} tiles on the board): "
                f"{parts} = {s['points']}"
            )
        tail = "" if pl["complete"] else " (incomplete game)"
        if pl["matches_record"] is False:
            tail += f" (record says {pl['recorded_total']})"
        lines.append(f"  total {pl['total']}{tail}")
    return "\n".join(lines)
