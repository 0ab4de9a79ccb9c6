"""Test-only El Grande positions and scripted steps (test code only, so not in
``mcsim.games.el_grande``): ``position`` builds a state, ``score_place`` / ``general_scoring`` score it, ``apply_card`` and
``court_intake`` run one scripted step of the kernel (docs/rules/el_grande.md §3, §6).
"""

from __future__ import annotations

import numpy as np

from kernels import el_grande as K
from mcsim.errors import IllegalMoveError
from mcsim.games.el_grande import HEURISTIC_PARAMS, SPEC, build_tables, card_index, place_index
from mcsim.games.el_grande.records import decision_log, legal_option_names


def _buffers(log: np.ndarray, mode: int):
    """The kernel's buffers of one game with ``log`` as its decision log, in ``mode``."""
    D = K.make_buffers(1, 64, len(HEURISTIC_PARAMS))
    D = D[: K.D_LOG] + (log,) + D[K.D_LOG + 1 :]
    D[K.D_CTX][K.C_MODE] = mode
    D[K.D_CTX][K.C_LOGCAP] = log.shape[0]
    return D


def position(
    players: int = 4,
    king: str = "NC",
    grandes=None,
    cab: dict | None = None,
    court=None,
    prov=None,
    scores=None,
    boards=None,
    hands=None,
) -> np.ndarray:
    """A kernel state (int32[STATE_SIZE]) for tests and examples.

    ``cab`` maps a place id to a list of caballeros per seat; ``grandes`` lists each seat's home
    region id; ``boards`` maps a scoreboard index (0 = 8/4/0, 1 = 4/0/0) to a place id.

    >>> st = position(4, king="NC", cab={"AR": [3, 1, 0, 0]})
    >>> int(st[K.O_CAB + 2 * 5 + 0])
    3
    """
    st = np.zeros(K.STATE_SIZE, dtype=np.int32)
    st[K.O_NP] = players
    st[K.O_KING] = place_index(king)
    st[K.O_BOARD : K.O_BOARD + 2] = -1
    st[K.O_VETO_HOLDER : K.O_VETO_HOLDER + 2] = -1
    st[K.O_FACE : K.O_FACE + 5] = -1
    st[K.O_TAKER : K.O_TAKER + 45] = -1
    st[K.O_ROUND] = 1
    for p in range(5):
        st[K.O_GRANDE + p] = (
            place_index(grandes[p]) if grandes and p < len(grandes) and grandes[p] else -1
        )
        if p < players:
            st[K.O_COURT + p] = court[p] if court is not None else 7
            st[K.O_PROV + p] = prov[p] if prov is not None else 21
            st[K.O_SCORE + p] = scores[p] if scores is not None else 0
            st[K.O_HAND + p] = hands[p] if hands is not None else 0x3FFE
    for place, counts in (cab or {}).items():
        i = place_index(place)
        for p, c in enumerate(counts):
            st[K.O_CAB + i * 5 + p] = c
    for b, place in (boards or {}).items():
        st[K.O_BOARD + int(b)] = place_index(place)
    return st


def score_place(
    st: np.ndarray, place: str, variant: dict | None = None, firsts_only: bool = False
) -> list[int]:
    """Points per seat (bonuses included) if ``place`` were scored now; §4, §1.4, §7.

    >>> score_place(position(4, cab={"PV": [4, 4, 4, 3]}), "PV")
    [3, 3, 3, 1]
    """
    var = SPEC.variant_codes(SPEC.resolve_variant(variant))
    out = np.zeros(5, dtype=np.int32)
    K.score_place(
        st, build_tables(), var, place_index(place), firsts_only, K.SRC_GENERAL, False, out
    )
    return [int(x) for x in out[: st[K.O_NP]]]


def apply_card(
    st: np.ndarray,
    seat: int,
    card: str,
    decisions: list,
    variant: dict | None = None,
    placement: str | None = None,
) -> np.ndarray:
    """Execute the special action of ``card`` (and the Veto check) for ``seat`` on ``st`` in place,
    with the scripted ``decisions`` ``[(kind, seat, value), ...]`` (record notation; the first is
    normally ``("execute", seat, "yes")``). ``placement="first"`` / ``"after"`` also runs the
    card's placement step before / after the special action. Returns ``st``.

    Raises
    ------
    IllegalMoveError
        A scripted decision is not legal, or the script ends early / is too long.
    """
    var = SPEC.variant_codes(SPEC.resolve_variant(variant))
    T = build_tables()
    log = decision_log(decisions, players=int(st[K.O_NP]))
    D = _buffers(log, K.MODE_REPLAY)
    c = card_index(card)
    if placement == "first":
        K.step(st, T, var, D, K.STEP_PLACEMENT, seat, T[K.T_CDECK + c])
    K.step(st, T, var, D, K.STEP_SPECIAL, seat, c)
    if placement == "after":
        K.step(st, T, var, D, K.STEP_PLACEMENT, seat, T[K.T_CDECK + c])
    ctx = D[K.D_CTX]
    if ctx[K.C_ERR] >= 0:
        ply = int(ctx[K.C_ERR])
        move = decisions[ply] if ply < len(decisions) else "(end of script)"
        raise IllegalMoveError(
            ply, str(move), legal_option_names(D[K.D_ERRBUF], int(ctx[K.C_NERR]))
        )
    if ctx[K.C_PTR] != len(decisions):
        raise IllegalMoveError(
            int(ctx[K.C_PTR]), str(decisions[int(ctx[K.C_PTR])]), ["(action finished)"]
        )
    return st


def general_scoring(st: np.ndarray, discs: list, variant: dict | None = None) -> np.ndarray:
    """Run a general scoring (§5) on ``st`` in place; ``discs`` = [(seat, region), ...] for the
    seats with caballeros in the Castillo, in seat order."""
    decisions = [("castillo_disc", s, r) for s, r in discs]
    var = SPEC.variant_codes(SPEC.resolve_variant(variant))
    D = _buffers(decision_log(decisions, players=int(st[K.O_NP])), K.MODE_REPLAY)
    K.step(st, build_tables(), var, D, K.STEP_GENERAL_SCORING, 0, 0)
    if D[K.D_CTX][K.C_ERR] >= 0:
        ply = int(D[K.D_CTX][K.C_ERR])
        raise IllegalMoveError(
            ply,
            str(decisions[ply]) if ply < len(decisions) else "(end)",
            legal_option_names(D[K.D_ERRBUF], int(D[K.D_CTX][K.C_NERR])),
        )
    return st


def court_intake(
    st: np.ndarray,
    seat: int,
    power_value: int,
    decisions: list,
    variant: dict | None = None,
) -> np.ndarray:
    """Court intake for a played power card (§3 step 4a, §3.1, A13) on ``st`` in place, with the
    scripted decisions: ``("intake", seat, N)`` (none when nothing can be taken), then one
    ``("shortfall", seat, REGION)`` per caballero beyond the province."""
    var = SPEC.variant_codes(SPEC.resolve_variant(variant))
    T = build_tables()
    D = _buffers(decision_log(decisions, players=int(st[K.O_NP])), K.MODE_REPLAY)
    K.step(st, T, var, D, K.STEP_COURT_INTAKE, seat, T[K.T_PCAB + power_value])
    if D[K.D_CTX][K.C_ERR] >= 0 or D[K.D_CTX][K.C_PTR] != len(decisions):
        ply = int(D[K.D_CTX][K.C_ERR]) if D[K.D_CTX][K.C_ERR] >= 0 else int(D[K.D_CTX][K.C_PTR])
        raise IllegalMoveError(
            ply,
            str(decisions[ply]) if ply < len(decisions) else "(end)",
            legal_option_names(D[K.D_ERRBUF], int(D[K.D_CTX][K.C_NERR])),
        )
    return st
