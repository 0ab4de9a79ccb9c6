"""Sacred Hill's records and replay: move notation, ``record_games``, ``replay`` (move by move, with
the rules' forced moves), positions for tests and benchmarks, ``perft``.
"""

from __future__ import annotations

import numpy as np

import kernels.sacred_hill as K
from kernels.rng import STREAM_POLICY
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError
from mcsim.games.base import Prepared, ReplayResult, replay_result
from mcsim.games.sacred_hill import SPEC, play_games, transition_code, zone_table
from mcsim.values import label


# ---------------------------------------------------------------- names
def format_move(move: int) -> str:
    """``"D4"`` for a cell index, ``"pass"`` for ``MOVE_PASS``."""
    return "pass" if move == K.MOVE_PASS else K.CELL_NAMES[int(move)]


_BY_NAME = {name: i for i, name in K.CELL_NAMES.items()}


def parse_move(text: str) -> int:
    """Cell index of a hill name (``"d4"`` or ``"D4"``) or ``MOVE_PASS`` for ``"pass"``.

    Raises
    ------
    InvalidRecordError
        Not a hill of the 45 (e.g. ``"A1"``, a removed corner) and not ``pass``.
    """
    t = str(text).strip()
    if t.lower() == "pass":
        return K.MOVE_PASS
    i = _BY_NAME.get(t.upper())
    if i is None:
        raise InvalidRecordError(f"{text!r} is not a hill (A1..G7 without the corners) or 'pass'")
    return i


# ---------------------------------------------------------------- records
def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """Records of the given games of a run (each replays to the run's result).

    Record format (docs/outputs.md, "Records")::

        {"game": "sacred-hill", "variant": {"transition": "box", "zone": "knight12"},
         "moves": ["D4", "B3", ..., "pass"], "seed": S, "game_index": i,
         "policies": [...], "points": [a, b]}
    """
    out = []
    for i in game_indices:
        o = play_games(
            prep,
            int(i),
            1,
            root_seed,
            STREAM_POLICY,
            prep.policy_ids,
            prep.policy_params,
            n_record=1,
        )
        moves = [format_move(m) for m in o["record"][0] if m >= 0]
        out.append(
            {
                "game": SPEC.id,
                "variant": dict(prep.config.variant),
                "moves": moves,
                "seed": int(root_seed),
                "game_index": int(i),
                "policies": [p.label() for p in prep.config.policies],
                "points": [int(x) for x in o["points"][0]],
            }
        )
    return out


def _legal_names(state) -> list[str]:
    moves, kind = K.legal_moves(state)
    if kind == K.KIND_PASS:
        return ["pass"]
    names = []
    m = int(moves)
    while m:
        low = m & -m
        names.append(format_move(low.bit_length() - 1))
        m ^= low
    return names


def _orth(i: int) -> list[int]:
    """Existing orthogonal neighbours of hill ``i`` (§1), from the cell names alone."""
    return [
        j
        for j in (i - 1, i + 1, i - 8, i + 8)
        if j in K.CELL_NAMES and abs(j % 8 - i % 8) + abs(j // 8 - i // 8) == 1
    ]


def forced_move_error(state, move: str) -> list[str] | None:
    """The rule's own check of the forced moves (§3.3.1-3.3.4, §3.4), not the kernel's list.

    ``state`` is the position before ``move`` (a kernel state, only its forts, phases and
    player to move are read). Returns None when ``move`` keeps these rules, else the moves they
    allow: a besieged enemy lone fort must be captured (any of them, §3.3.1); a Battle build
    must touch an own fort when some empty hill does (§3.3.2); a pass only when the board is
    full and nothing can be captured (§3.3.4, §3.4).
    """
    me = int(state[K.S_TO_MOVE])
    mine, theirs = int(state[K.S_FORTS + me]), int(state[K.S_FORTS + 1 - me])
    own = {i for i in K.CELL_NAMES if (mine >> i) & 1}
    enemy = {i for i in K.CELL_NAMES if (theirs >> i) & 1}
    empty = set(K.CELL_NAMES) - own - enemy
    besieged = sorted(i for i in enemy if all(j in own for j in _orth(i)))
    if besieged:
        names = [K.CELL_NAMES[i] for i in besieged]
        return None if move in names else names
    if move == "pass":
        return None if not empty else sorted(K.CELL_NAMES[i] for i in empty)
    if int(state[K.S_PHASE + me]) == K.PHASE_BATTLE:
        adjacent = sorted(i for i in empty if any(j in own for j in _orth(i)))
        names = [K.CELL_NAMES[i] for i in adjacent]
        if adjacent and move not in names:
            return names
    return None


def replay(record: dict) -> ReplayResult:
    """Validate a record move by move and describe the position reached.

    Besides the kernel's legal-move list, the forced moves (mandatory capture, Battle build next
    to an own fort, pass) are checked by ``forced_move_error`` from the rules themselves.

    Returns
    -------
    dict
        ``{"finished", "to_move", "plies", "kingdoms", "territory", "points", "winner"}``
        (``points`` and ``winner`` are None unless finished; ``winner`` is a seat).

    Raises
    ------
    InvalidRecordError
        Not a Sacred Hill record, unknown variant, or a move that is not a hill name.
    IllegalMoveError
        A move that is illegal in the position reached (with its ply index and the legal moves).
    """
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        raise InvalidRecordError('not a sacred-hill record (expected {"game": "sacred-hill", ...})')
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise InvalidRecordError('"moves" must be a list of hill names or "pass"')
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None
    state = np.zeros(K.S_SIZE, np.uint64)
    for ply, text in enumerate(moves):
        try:
            parse_move(text)
        except InvalidRecordError as e:
            raise InvalidRecordError(f"move at ply {ply}: {e}") from None
        if not K.is_terminal(state):
            allowed = forced_move_error(state, text)
            if allowed is not None:
                raise IllegalMoveError(ply, text, allowed)
        try:
            play(state, text, variant)
        except IllegalMoveError as e:
            raise IllegalMoveError(ply, text, e.legal) from None
    result = describe(state)
    return replay_result(record, result)


def describe(state) -> dict:
    """Replay summary of a kernel state (see ``replay``)."""
    finished = bool(K.is_terminal(state))
    pts = np.zeros(2, np.int64)
    points = winner = None
    if finished:
        K.score_final(state, pts)
        points = [int(pts[0]), int(pts[1])]
        winner = int(np.argmax(pts)) if pts[0] != pts[1] else None
    return {
        "finished": finished,
        "to_move": int(state[K.S_TO_MOVE]),
        "plies": int(state[K.S_PLIES]),
        "kingdoms": [int(K.count_kingdoms(state[K.S_FORTS + s])) for s in range(2)],
        "territory": [bin(int(state[K.S_FORTS + s])).count("1") for s in range(2)],
        "points": points,
        "winner": winner,
    }


_PHASES = {"manoeuvre": K.PHASE_MANOEUVRE, "grace": K.PHASE_GRACE, "battle": K.PHASE_BATTLE}


def position(
    red=(), blue=(), to_move: int = 0, phases=("battle", "battle"), variant: dict | None = None
) -> np.ndarray:
    """A kernel state (uint64[S_SIZE]) with the given forts, for tests and notebooks.

    ``red`` are seat 0's hills, ``blue`` seat 1's (names like ``"D4"``); ``phases`` per seat,
    each ``"manoeuvre"``, ``"grace"`` or ``"battle"``.

    >>> K.legal_moves(position(red=["D4"], phases=("manoeuvre", "manoeuvre")))[1] == K.KIND_MANOEUVRE
    True
    """
    v = SPEC.resolve_variant(variant)
    zone = zone_table(v)
    state = np.zeros(K.S_SIZE, np.uint64)
    for seat, cells in enumerate((red, blue)):
        for name in cells:
            state[K.S_FORTS + seat] |= np.uint64(1 << parse_move(name))
        K.recompute_unions(state, seat, zone)
        state[K.S_PHASE + seat] = _PHASES[phases[seat]]
    state[K.S_TO_MOVE] = to_move
    return state


def legal_move_names(state) -> list[str]:
    """The legal moves of the player to move, as hill names (or ``["pass"]``)."""
    return [] if K.legal_moves(state)[1] == K.KIND_TERMINAL else _legal_names(state)


def play(state, move: str, variant: dict | None = None) -> None:
    """Play one move given by name on ``state`` (checked; raises ``IllegalMoveError``)."""
    v = SPEC.resolve_variant(variant)
    mv = parse_move(move)
    legal, kind = K.legal_moves(state)
    if not (
        (kind == K.KIND_PASS and mv == K.MOVE_PASS)
        or (
            kind not in (K.KIND_PASS, K.KIND_TERMINAL)
            and mv != K.MOVE_PASS
            and (int(legal) >> mv) & 1
        )
    ):
        raise IllegalMoveError(int(state[K.S_PLIES]), move, legal_move_names(state))
    K.apply_move(state, mv, kind, transition_code(v), zone_table(v))


def board_ascii(state) -> str:
    """The board as text, row 7 on top: ``R``/``B`` forts of seat 0/1, ``.`` empty."""
    f0, f1 = int(state[K.S_FORTS]), int(state[K.S_FORTS + 1])
    rows = []
    for r in range(6, -1, -1):
        cells = []
        for c in range(7):
            i = 8 * r + c
            if i not in K.CELL_NAMES:
                cells.append(" ")
            elif (f0 >> i) & 1:
                cells.append("R")
            elif (f1 >> i) & 1:
                cells.append("B")
            else:
                cells.append(".")
        rows.append(f"{r + 1} " + " ".join(cells))
    rows.append("  " + " ".join(K.COL_NAMES))
    return "\n".join(rows)


def format_replay(result: dict) -> str:
    lines = [
        f"plies played: {result['plies']}; seat to move: {result['to_move']}",
        f"kingdoms: {result['kingdoms'][0]} / {result['kingdoms'][1]}   "
        f"territory: {result['territory'][0]} / {result['territory'][1]}",
    ]
    if result["finished"]:
        w = "draw" if result["winner"] is None else f"seat {result['winner']} wins"
        lines.append(f"finished: points {result['points'][0]} / {result['points'][1]} ({w})")
    else:
        lines.append("not finished")
    return "\n".join(lines)


def perft(depth: int, variant: dict | None = None, options: dict | None = None) -> int:
    """Number of move sequences of length ``depth`` from the empty board (Sacred Hill has no
    game options: ``options`` is always empty).

    >>> perft(3)
    9632
    """
    if depth < 0:
        raise ConfigError(f"{label('depth')} must be 0 or more, not {depth}")
    v = SPEC.resolve_variant(variant)
    return int(K.perft(np.zeros(K.S_SIZE, np.uint64), depth, transition_code(v), zone_table(v)))
