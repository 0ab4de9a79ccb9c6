"""El Grande's records and replay: decision notation, ``record_games``, ``replay`` (decision by
decision in the kernel's replay mode), ``perft`` (not available).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from kernels import el_grande as K
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError
from mcsim.games.base import Prepared, ReplayResult, replay_result
from mcsim.games.el_grande import (
    EFFECTS,
    HEURISTIC_PARAMS,
    KIND_NAMES,
    SOURCES,
    SPEC,
    build_tables,
    card_index,
    forbid_words,
    has_mcts_seat,
    heuristic_defaults,
    load_data,
    place_index,
    win_shares,
)


def _small_int(t: str, high: int) -> int | None:
    """``t`` as an int if it is plain ASCII digits with value <= ``high``, else None.

    Strict on purpose: ``str.isdigit`` accepts superscripts that ``int`` rejects, and a
    huge number would overflow the kernel's int32 decision log. Values in range but not
    legal in the position are left to the kernel (an illegal move with the legal options).
    """
    if not re.fullmatch(r"[0-9]{1,9}", t) or int(t) > high:
        return None
    return int(t)


def encode_value(kind: str, text, players: int = 5) -> int:
    """Kernel option value of a decision written as in records (see ``format_value``)."""
    t = str(text).strip()
    low = t.lower()
    if kind in ("power", "power_back"):
        v = _small_int(t, 999)  # a value no card has is an illegal move (legal options listed)
        if v is None:
            raise InvalidRecordError(f"{kind}: {text!r} is not a power card value")
        return v
    if kind == "intake":
        v = _small_int(t, 999)
        if v is None:
            raise InvalidRecordError(f"intake: {text!r} must be a number of caballeros 0..6")
        return v
    if kind == "veto_cut":
        if low == "all":
            return 0
        k = _small_int(low[6:], 999) if low.startswith("after_") else None
        if k is not None and k >= 1:
            return k
        raise InvalidRecordError(f"veto_cut: {text!r} must be all or after_K (K >= 1 steps)")
    if kind == "card":
        return card_index(t)
    if kind == "order":
        if low not in ("placement_first", "action_first"):
            raise InvalidRecordError(f"order: {text!r} must be placement_first or action_first")
        return 0 if low == "placement_first" else 1
    if kind in ("execute", "veto"):
        if low not in ("yes", "no"):
            raise InvalidRecordError(f"{kind}: {text!r} must be yes or no")
        return 1 if low == "yes" else 0
    if kind == "choice":
        if low not in ("1a", "1b"):
            raise InvalidRecordError(f"choice: {text!r} must be 1a or 1b")
        return 0 if low == "1a" else 1
    if kind in ("shortfall", "place", "angry_king") and low in ("stop", "court"):
        return K.STOP
    if kind == "move_from":
        place, _, seat = t.partition(":")
        p = _small_int(seat.strip(), 99)
        if p is None:
            raise InvalidRecordError(f"move_from: {text!r} must be REGION:SEAT")
        if p >= players:
            raise InvalidRecordError(
                f"move_from: {text!r}: seat {p} is not a seat 0..{players - 1}"
            )
        return place_index(place) * 5 + p
    if kind == "scoreboard":
        b, _, place = t.partition("@")
        boards = [m["id"].lower() for m in load_data()["board"]["mobile_scoreboards"]]
        if b.lower() not in boards:
            raise InvalidRecordError(
                f"scoreboard: {text!r} must be BOARD@PLACE, board one of {boards}"
            )
        return boards.index(b.lower()) * 10 + place_index(place)
    return place_index(t)


def format_value(kind: int | str, v: int) -> str:
    """Readable form of option ``v`` of a decision kind (the record notation)."""
    name = kind if isinstance(kind, str) else KIND_NAMES[kind]
    data = load_data()
    pid = data["place_ids"]
    if name in ("power", "power_back", "intake"):
        return str(int(v))
    if name == "veto_cut":
        return "all" if v == 0 else f"after_{int(v)}"
    if name == "card":
        return data["card_ids"][v]
    if name == "order":
        return "placement_first" if v == 0 else "action_first"
    if name in ("execute", "veto"):
        return "yes" if v else "no"
    if name == "choice":
        return "1a" if v == 0 else "1b"
    if v == K.STOP and name in ("shortfall", "place"):
        return "stop"
    if v == K.STOP and name == "angry_king":
        return "court"
    if name == "move_from":
        return f"{pid[v // 5]}:{v % 5}"
    if name == "scoreboard":
        return f"{data['board']['mobile_scoreboards'][v // 10]['id']}@{pid[v % 10]}"
    return pid[v]


def decision_log(decisions: list, cap_extra: int = 0, players: int = 5) -> np.ndarray:
    """The kernel's decision log (int32[n + cap_extra, 4]) of a record's decisions, checked."""
    log = np.zeros((len(decisions) + cap_extra, 4), dtype=np.int32)
    for i, d in enumerate(decisions):
        if isinstance(d, dict):
            kind, seat, value = d.get("kind"), d.get("seat"), d.get("value")
        elif isinstance(d, (list, tuple)) and len(d) == 3:
            kind, seat, value = d
        else:
            raise InvalidRecordError(f'decision {i}: must be an object {{"seat", "kind", "value"}}')
        if kind not in KIND_NAMES:
            raise InvalidRecordError(
                f"decision {i}: unknown kind {kind!r}; kinds: {', '.join(KIND_NAMES)}"
            )
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise InvalidRecordError(
                f"decision {i}: seat {seat!r} must be an integer 0..{players - 1}"
            )
        try:
            v = encode_value(kind, value, players)
        except InvalidRecordError as e:
            raise InvalidRecordError(f"decision {i}: {e}") from None
        log[i] = (KIND_NAMES.index(kind), seat, v, 0)
    return log


def legal_option_names(errbuf: np.ndarray, nerr: int) -> list[str]:
    """The legal options of an illegal decision (the kernel's error buffer) as record text."""
    kind, seat = int(errbuf[0]), int(errbuf[1])
    return [
        f"seat {seat} {KIND_NAMES[kind]} {format_value(kind, int(v))}"
        for v in errbuf[2 : 2 + min(nerr, 62)]
    ]


# =============================================================================================
# records and replay (docs/outputs.md, "Records")
# =============================================================================================
RECORD_FORMAT = 2


_LOG_CAP = 8000


def _is_veto(data: dict, card: int) -> bool:
    return EFFECTS[data["card_rows"][card]["effect"]] == K.OP_VETO


def _setup_dict(fixed: np.ndarray, npl: int, veto_off: bool = False) -> dict:
    """``veto_off``: the Veto cards are out of the game (A2) and not listed in deck 2."""
    data = load_data()
    pid = data["place_ids"]
    return {
        "king": pid[int(fixed[K.F_KING])],
        "homes": [pid[int(fixed[K.F_HOMES + p])] for p in range(npl)],
        "start_player": int(fixed[K.F_START]),
        "decks": {
            str(d + 1): [
                data["card_ids"][int(x)]
                for x in fixed[K.F_DECKS + 11 * d : K.F_DECKS + 11 * d + 11]
                if not (veto_off and _is_veto(data, int(x)))
            ]
            for d in range(4)
        },
    }


def _events(ev: np.ndarray, n: int, npl: int) -> list[dict]:
    data = load_data()
    out = []
    for k in range(n):
        ply, code, arg = int(ev[k, 0]), int(ev[k, 1]), int(ev[k, 2])
        if code < 200:
            what = f"general scoring after round {code - 100}"
        else:
            what = f"special scoring {data['card_ids'][code - 200]}"
            if arg >= 0:
                what += f" ({data['place_names'][arg]})"
        out.append(
            {"after_decision": ply, "event": what, "scores": [int(x) for x in ev[k, 3 : 3 + npl]]}
        )
    return out


def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """JSON-ready records of the given games (format below); replaying one gives the run's result.

    Record format (``"format": 2``)::

        {"game": "el-grande", "format": 2, "players": n, "variant": {...}, "policies": [...],
         "seed": S, "game_index": i,
         "places": {"GA": "Galicia", ..., "CS": "Castillo"},
         "setup": {"king": "AR", "homes": ["GA", ...], "start_player": 2,
                   "decks": {"1": ["1d#2", ...11 card ids, top first], "2": [...], "3": [...], "4": [...]}},
         "decisions": [{"seat": 0, "kind": "power", "value": "13"}, ...],
         "scorings": [{"after_decision": k, "event": "...", "scores": [...]}, ...],
         "points": [...]}

    Decision values: power / power_back: a value 1..13; intake: the number of caballeros taken
    to court (0..allowance; absent when nothing can be taken); card: a card id; order:
    placement_first | action_first; place / shortfall: a place id or ``stop`` (shortfall: no
    ``stop`` at an intake, whose count is fixed by ``intake``; ``stop`` only with card 4f);
    execute / veto: yes | no; veto_cut (after ``veto yes`` on a multi-step action, by the
    holder): ``all`` (cancel the whole action) or ``after_K`` (K steps happen, the rest is
    cancelled); choice: 1a | 1b; move_from: ``REGION:SEAT``; move_to, place_any, source_region,
    remove, secret_remove, score, king_to, evict_region, evict_to, grande_to, secret_score,
    castillo_disc: a place id; angry_king: ``court`` or a region id; scoreboard:
    ``B840@REGION`` / ``B400@REGION``. Only ``setup`` and ``decisions`` are needed to replay
    (seed and policies are informative; ``"format"`` may be left out).
    """
    cfg = prep.config
    npl = cfg.players
    data = load_data()
    out = []
    for gi in game_indices:
        log = np.zeros((_LOG_CAP, 4), dtype=np.int32)
        ev = np.zeros((64, 8), dtype=np.int32)
        fixed = np.zeros(K.FIXED_SIZE, dtype=np.int32)
        mode = K.MODE_RECORD
        if has_mcts_seat(prep):
            # play with the search, then replay the logged decisions for the scoring events
            # (the replay kernel is the random/heuristic one: the search is not needed)
            nd, fixed = K.record_mcts(
                np.uint64(root_seed),
                np.int64(gi),
                np.int64(npl),
                prep.policy_ids.astype(np.int64),
                prep.policy_params.astype(np.float64),
                prep.policy_params[:, : K.N_MPARAMS].astype(np.float64),
                heuristic_defaults(),
                prep.variant_codes.astype(np.int64),
                prep.tables["T"],
                log,
                forbid=forbid_words(prep),
            )
            fixed[K.F_GIVEN] = 1
            mode = K.MODE_REPLAY
        st, nd, nev, err, eb, ne = K.run_logged(
            np.uint64(root_seed),
            np.int64(gi),
            np.int64(npl),
            np.where(prep.policy_ids == K.POL_MCTS, K.POL_HEURISTIC, prep.policy_ids),
            prep.policy_params.astype(np.float64),
            prep.variant_codes.astype(np.int64),
            prep.tables["T"],
            mode,
            log,
            ev,
            fixed,
            forbid_words(prep),
        )
        if nd > _LOG_CAP:
            raise ConfigError(
                f"el-grande: game {gi} needs more than {_LOG_CAP} decisions to record"
            )
        decisions = [
            {
                "seat": int(log[i, 1]),
                "kind": KIND_NAMES[int(log[i, 0])],
                "value": format_value(int(log[i, 0]), int(log[i, 2])),
            }
            for i in range(nd)
        ]
        out.append(
            {
                "game": SPEC.id,
                "format": RECORD_FORMAT,
                "players": npl,
                "variant": dict(cfg.variant),
                "policies": [p.label() for p in cfg.policies],
                "seed": int(root_seed),
                "game_index": int(gi),
                "places": dict(zip(data["place_ids"], data["place_names"])),
                "setup": _setup_dict(fixed, npl, cfg.variant.get("veto") == "off"),
                "decisions": decisions,
                "scorings": _events(ev, nev, npl),
                "points": [int(st[K.O_SCORE + p]) for p in range(npl)],
            }
        )
    return out


def parse_setup(setup: Any, npl: int, veto_off: bool = False) -> np.ndarray:
    """The kernel's ``fixed`` setup array of a record's ``"setup"``, checked.

    ``veto_off``: deck 2 may not list the Veto cards, which go below its other cards (out of the
    game, A2).
    """
    if not isinstance(setup, dict):
        raise InvalidRecordError('"setup" must be an object with king, homes, start_player, decks')
    fixed = np.zeros(K.FIXED_SIZE, dtype=np.int32)
    fixed[K.F_GIVEN] = 1
    king = place_index(setup.get("king", ""))
    if king == K.CASTILLO:
        raise InvalidRecordError("setup: the King cannot start in the Castillo")
    fixed[K.F_KING] = king
    homes = setup.get("homes")
    if not isinstance(homes, list) or len(homes) != npl:
        raise InvalidRecordError(f"setup: 'homes' must list {npl} regions")
    hidx = [place_index(h) for h in homes]
    if len(set(hidx)) != npl or king in hidx or K.CASTILLO in hidx:
        raise InvalidRecordError(
            "setup: home regions must be distinct regions other than the King's (§2)"
        )
    fixed[K.F_HOMES : K.F_HOMES + npl] = hidx
    fixed[K.F_HOMES + npl : K.F_START] = -1
    sp = setup.get("start_player")
    if not isinstance(sp, int) or not 0 <= sp < npl:
        raise InvalidRecordError(f"setup: start_player must be a seat 0..{npl - 1}")
    fixed[K.F_START] = sp
    decks = setup.get("decks")
    data = load_data()
    if not isinstance(decks, dict):
        raise InvalidRecordError("setup: 'decks' must map '1'..'4' to card id lists")
    for d in range(4):
        lst = decks.get(str(d + 1))
        own = [cid for cid, c in zip(data["card_ids"], data["card_rows"]) if c["deck"] == d + 1]
        # every card of the deck in the game, checked here before any decision is replayed (a
        # short list used to fail only at the first card it lacked); with veto=off deck 2
        # holds its 9 other cards (A2), so a veto=off record relabelled veto=on is refused
        size = sum(1 for c in own if not (veto_off and _is_veto(data, data["card_ids"].index(c))))
        if not isinstance(lst, list) or len(lst) != size:
            n = f"{len(lst)} cards" if isinstance(lst, list) else json.dumps(lst)[:40]
            if d == 1 and not veto_off and isinstance(lst, list) and len(lst) == size - 2:
                raise InvalidRecordError(
                    f"setup: deck 2 lists {n}, the deck of a veto=off game (its Vetoes are out "
                    f"of the game, A2), but the record says veto=on: deck 2 must list all its "
                    f"{size} cards (top first)"
                )
            raise InvalidRecordError(
                f"setup: deck {d + 1} must list all its {size} cards (top first), not {n}"
            )
        idx = []
        for cid in lst:
            if cid not in own:
                raise InvalidRecordError(f"setup: card {cid!r} is not a deck-{d + 1} card id")
            if cid in idx:
                raise InvalidRecordError(f"setup: card {cid!r} appears twice in deck {d + 1}")
            if veto_off and _is_veto(data, data["card_ids"].index(cid)):
                raise InvalidRecordError(
                    f"setup: card {cid!r} is a Veto, out of the game with veto=off (A2)"
                )
            idx.append(cid)
        idx += [c for c in own if c not in idx]  # veto=off: the Vetoes last, never revealed
        fixed[K.F_DECKS + 11 * d : K.F_DECKS + 11 * d + 11] = [
            data["card_ids"].index(c) for c in idx
        ]
    return fixed


def replay(record: dict) -> ReplayResult:
    """Validate a record decision by decision and report the scores after every scoring.

    Returns
    -------
    dict
        ``{"finished": True, "players", "points": [...], "winner": seat or None (shared),
        "points_by_source": {source: [...]}, "scorings": [...], "plies"}``. A record that
        stops before the game ends gives ``"finished": False``, the points after the last
        scoring completed within it, ``"winner": None``, ``"points_by_source": None`` and
        ``"next_decision"``: where it stops (``{"index", "seat", "kind", "legal"}``, the
        decision the game asks for next and its legal values); the game is not played on.

    Raises
    ------
    InvalidRecordError
        Not an El Grande record, bad setup, unknown kind/value notation, or too many decisions.
    IllegalMoveError
        A decision that is not legal in the position reached (index, decision, legal options).
    """
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        raise InvalidRecordError('not an el-grande record (expected {"game": "el-grande", ...})')
    fmt = record.get("format", RECORD_FORMAT)
    if isinstance(fmt, bool) or fmt != RECORD_FORMAT:
        raise InvalidRecordError(
            f'"format" must be {RECORD_FORMAT}, got {json.dumps(fmt)} (format 1 is no longer read)'
        )
    npl = record.get("players")
    if not isinstance(npl, int) or not 2 <= npl <= 5:
        raise InvalidRecordError('"players" must be 2..5')
    if record.get("variant") is not None and not isinstance(record.get("variant"), dict):
        raise InvalidRecordError('"variant" must be an object')
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None
    decisions = record.get("decisions")
    if not isinstance(decisions, list):
        raise InvalidRecordError('"decisions" must be a list of {"seat", "kind", "value"}')
    fixed = parse_setup(record.get("setup"), npl, variant.get("veto") == "off")
    log = decision_log(decisions, players=npl)
    ev = np.zeros((64, 8), dtype=np.int32)
    T = build_tables()
    st, nd, nev, err, eb, ne = K.run_logged(
        np.uint64(0),
        np.int64(0),
        np.int64(npl),
        np.zeros(npl, np.int64),
        np.zeros((npl, len(HEURISTIC_PARAMS))),
        SPEC.variant_codes(variant),
        T,
        K.MODE_REPLAY,
        log,
        ev,
        fixed,
    )
    if err >= 0 and err == len(decisions):
        # the record stops before the game ends: unfinished, with the points of the scorings
        # completed before its end (the kernel stopped there, at the end of that turn) and the
        # decision that comes next
        events = [e for e in _events(ev, nev, npl) if e["after_decision"] <= err]
        kind, seat = int(eb[0]), int(eb[1])
        return replay_result(
            record,
            {
                "finished": False,
                "players": npl,
                "points": list(events[-1]["scores"]) if events else [0] * npl,
                "winner": None,
                "points_by_source": None,
                "scorings": events,
                "plies": int(err),
                "next_decision": {
                    "index": int(err),
                    "seat": seat,
                    "kind": KIND_NAMES[kind],
                    "legal": [format_value(kind, int(v)) for v in eb[2 : 2 + min(int(ne), 62)]],
                },
            },
        )
    if err >= 0:
        move = decisions[err] if err < len(decisions) else "(end of record)"
        if isinstance(move, dict):
            move = f"seat {move.get('seat')} {move.get('kind')} {move.get('value')}"
        raise IllegalMoveError(int(err), str(move), legal_option_names(eb, int(ne)))
    if nd != len(decisions):
        raise InvalidRecordError(
            f"record has {len(decisions)} decisions but the game ended after {nd}"
        )
    points = [int(st[K.O_SCORE + p]) for p in range(npl)]
    share = win_shares(
        np.array([points]),
        np.array(
            [[sum(v for v in range(1, 14) if (int(st[K.O_HAND + p]) >> v) & 1) for p in range(npl)]]
        ),
        SPEC.variant_codes(variant)[K.V_FINALTIE],
    )[0]
    winner = int(np.argmax(share)) if share.max() >= 1 - 1e-9 else None
    result = {
        "finished": True,
        "players": npl,
        "points": points,
        "winner": winner,
        "points_by_source": {
            name: [int(st[K.O_SRC + p * 5 + s]) for p in range(npl)]
            for s, name in enumerate(SOURCES)
        },
        "scorings": _events(ev, nev, npl),
        "plies": int(nd),
    }
    return replay_result(record, result)


def _unfinished_line(result: dict) -> str:
    """Where an unfinished record stops: its length and the decision asked for next."""
    line = f"not finished: the record ends after {result['plies']} decisions"
    nxt = result.get("next_decision")
    if nxt is None:
        return line
    legal = ", ".join(nxt["legal"][:12]) + (", ..." if len(nxt["legal"]) > 12 else "")
    return f"{line}; decision {nxt['index']} is seat {nxt['seat']}'s {nxt['kind']} ({legal})"


def format_replay(result: dict) -> str:
    """Readable replay report: scores after each scoring, final points by source, winner."""
    lines = [] if result["finished"] else [_unfinished_line(result)]
    for e in result["scorings"]:
        lines.append(
            f"after decision {e['after_decision']:4d}  {e['event']:<45s} "
            + "  ".join(f"{s:3d}" for s in e["scores"])
        )
    if not result["finished"]:
        lines.append(
            "points so far: " + ", ".join(f"seat {k}: {v}" for k, v in enumerate(result["points"]))
        )
        return "\n".join(lines)
    lines.append(
        "final points: " + ", ".join(f"seat {k}: {v}" for k, v in enumerate(result["points"]))
    )
    for name, vals in result["points_by_source"].items():
        lines.append(f"  {name:<9s} " + "  ".join(f"{v:3d}" for v in vals))
    w = result["winner"]
    lines.append("winner: " + (f"seat {w}" if w is not None else "shared"))
    return "\n".join(lines)


def perft(depth: int, variant: dict | None = None, options: dict | None = None) -> int:
    """Not available: El Grande's start is a random deal and its decisions are logged, not
    enumerated, by the kernel. Raises ``ConfigError``."""
    raise ConfigError("el-grande has no perft (its start position is a random deal)")
