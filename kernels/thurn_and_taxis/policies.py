"""Thurn and Taxis policies: ``random`` and the ``route`` planner, and the play engine.

``choose_action`` is the reference definition of both policies. The ``random`` policy's fast
draws, which the engine takes in its dispatch on the phase, are in
``kernels.thurn_and_taxis.rules`` (``_random_play``, ``_random_draw``, ...); ``_random_move``
here is the same draw as one call (the search's random rollouts).

The play engine ``_advance`` is here, the earliest module that can hold it: it plays the
``route`` seats' decisions in its loop, and the play loop, records, replays (``apply_move``)
and the search steps all call it.
"""

import numpy as np
from numba import njit

from kernels.rng import randint, random_float
from kernels.thurn_and_taxis.layout import (
    A_CLOSE,
    A_CLOSE_CART,
    A_DRAW_DECK,
    A_DRAW_DISPLAY,
    A_HOUSE,
    A_HOUSE_SKIP,
    A_LEFT,
    A_MODE_EACH,
    A_MODE_REGION,
    A_NO,
    A_RESTART,
    A_RIGHT,
    A_START,
    A_TRIM,
    A_YES,
    DISPLAY,
    MAX_ACTIONS,
    MAX_SEATS,
    MAX_TILES,
    N_CITIES,
    N_REGIONS,
    N_STACKS,
    OFF_NONE,
    P_ADMIN_BELOW,
    P_CART,
    P_CHASE,
    P_CLOSE_LEN,
    P_DECK_VALUE,
    P_PM_HAND_MAX,
    P_W_HAND,
    P_W_HOUSE,
    P_W_OPEN,
    P_W_REGION,
    PH_ADMIN,
    PH_CLOSE,
    PH_DRAW1,
    PH_DRAW2,
    PH_HOUSE_MODE,
    PH_HOUSE_PICK,
    PH_PC,
    PH_PLAY1,
    PH_PLAY2,
    PH_PM,
    PH_TRIM,
    POL_RANDOM,
    POL_RANDOM_RESTRICTED,
    POL_RESTRICTED,
    POL_ROUTE,
    POL_ROUTE_RESTRICTED,
    ROUTE_SLOTS,
    S_CARRIAGE,
    S_CUR,
    S_DISPLAY,
    S_END_SEAT,
    S_FORBID_AVOIDED,
    S_FORBID_FORCED,
    S_GROUPS,
    S_HAND,
    S_HAND_N,
    S_HMASK,
    S_HOUSES,
    S_HOUSES_LEFT,
    S_OFFICIAL,
    S_OVER,
    S_PENDING,
    S_PHASE,
    S_PICK_MODE,
    S_RHI,
    S_RLO,
    S_RMASK,
    S_ROUTE,
    S_STACK,
    T_ADJ,
    T_CITY_GROUP,
    T_GROUP,
    T_REGION,
    T_REGMASK,
    T_STACK_N,
    T_STACK_VAL,
)
from kernels.thurn_and_taxis.rules import (
    _apply_move,
    _lowbit,
    _popcount,
    _random_close,
    _random_draw,
    _random_other,
    _random_play,
    legal_moves,
    restrict_moves,
    restricts_phase,
)

# ----------------------------------------------------------------------------- route planner


@njit(cache=True)
def _city_value(state, tables, p, c, params):
    """How much seat p wants city c on a route (regions and houses still needed)."""
    v = 1.0
    hm = state[S_HOUSES + p]
    if (hm >> c) & 1 == 0:
        v += params[P_W_HOUSE]
        r = tables[T_REGION + c]
        g = tables[T_CITY_GROUP + c]
        if g >= 0 and (state[S_GROUPS + p] >> g) & 1 == 0 and state[S_STACK + g] > 0:
            v += params[P_W_REGION] / _popcount(tables[T_GROUP + g] & ~hm)
        if (hm & tables[T_REGMASK + r]) == 0:
            v += 0.5 * params[P_W_REGION]
    return v


@njit(cache=True)
def _end_value(state, tables, p, end, rmask, params):
    """Growth prospects at a route end: free neighbours and hand cards that can follow."""
    free = tables[T_ADJ + end] & ~rmask
    v = params[P_W_OPEN] * _popcount(free)
    h = S_HAND + p * N_CITIES
    while free:
        c = _lowbit(free)
        free &= free - 1
        if state[h + c] > 0:
            v += params[P_W_HAND]
    return v


@njit(cache=True)
def _hand_extensions(state, tables, p):
    """Number of hand cards that can extend the open route now."""
    lo = state[S_RLO + p]
    hi = state[S_RHI + p]
    if hi == lo:
        return state[S_HAND_N + p]
    rmask = state[S_RMASK + p]
    m = (
        tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + lo]]
        | tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + hi - 1]]
    ) & ~rmask
    return _popcount(m & state[S_HMASK + p])


@njit(cache=True)
def _draw_value(state, tables, p, c, params):
    """Value of drawing city c: a card that extends the route now, or helps one in hand."""
    lo = state[S_RLO + p]
    hi = state[S_RHI + p]
    v = 0.0
    if hi > lo:
        rmask = state[S_RMASK + p]
        if (rmask >> c) & 1:
            return 0.0
        ends = (
            tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + lo]]
            | tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + hi - 1]]
        )
        if (ends >> c) & 1:
            v += 2.0 + _city_value(state, tables, p, c, params)
        else:
            # neighbour of a hand card that extends the route: one step away
            h = S_HAND + p * N_CITIES
            m = ends & ~rmask
            near = False
            while m:
                d = _lowbit(m)
                m &= m - 1
                if state[h + d] > 0 and (tables[T_ADJ + d] >> c) & 1:
                    near = True
                    break
            if near:
                v += 1.0 + 0.5 * _city_value(state, tables, p, c, params)
    else:
        v += 0.5 * _city_value(state, tables, p, c, params)
        h = S_HAND + p * N_CITIES
        m = tables[T_ADJ + c]
        while m:
            d = _lowbit(m)
            m &= m - 1
            if state[h + d] > 0:
                v += 0.5
    return v


@njit(cache=True)
def _target_len(state, p, params):
    """Route length the planner aims for: close_len, or what the next carriage needs."""
    t = params[P_CLOSE_LEN]
    if params[P_CHASE] > 0:
        nxt = 3 if state[S_CARRIAGE + p] == 0 else state[S_CARRIAGE + p] + 1
        if nxt <= 7:
            need = nxt - 2 if (params[P_CART] > 0 and state[S_OFFICIAL] == OFF_NONE) else nxt
            if need > t:
                t = need
    return t


@njit(cache=True)
def _want_close(state, tables, p, params):
    L = state[S_RHI + p] - state[S_RLO + p]
    if L < 3:
        return False
    if _target_len(state, p, params) <= L:
        return True
    if state[S_END_SEAT] >= 0:
        return True  # last round: take what there is
    # stuck: no hand card extends the route
    if _hand_extensions(state, tables, p) == 0:
        return True
    return False


@njit(cache=True)
def _cart_pays(state, p, L):
    nxt = 3 if state[S_CARRIAGE + p] == 0 else state[S_CARRIAGE + p] + 1
    return nxt <= 7 and L < nxt <= L + 2


@njit(cache=True)
def _house_option_value(state, tables, p, a, params):
    """Houses placed + tile values completed for house mode a (approximate for mode i)."""
    hm = state[S_HOUSES + p]
    rm = state[S_RMASK + p]
    add = 0
    if a == A_MODE_EACH:
        for r in range(N_REGIONS):
            cand = rm & tables[T_REGMASK + r] & ~hm
            if cand:
                add |= cand & (~cand + 1)
    else:
        add = rm & tables[T_REGMASK + a - A_MODE_REGION] & ~hm
    k = _popcount(add)
    left = state[S_HOUSES_LEFT + p]
    if k > left:
        k = left
    v = float(k)
    new = hm | add
    for g in range(N_STACKS):
        gm = tables[T_GROUP + g]
        if gm != 0 and (state[S_GROUPS + p] >> g) & 1 == 0 and state[S_STACK + g] > 0:
            if (new & gm) == gm:
                v += tables[
                    T_STACK_VAL + g * MAX_TILES + tables[T_STACK_N + g] - state[S_STACK + g]
                ]
    return v


@njit(cache=True)
def _route_admin(state, tables, p, params):
    """Administrator: when no display card is worth ``admin_below`` and at most one hand card
    extends the route."""
    best = 0.0
    for i in range(DISPLAY):
        c = state[S_DISPLAY + i]
        if c >= 0:
            v = _draw_value(state, tables, p, c, params)
            if v > best:
                best = v
    if best < params[P_ADMIN_BELOW] and _hand_extensions(state, tables, p) <= 1:
        return A_YES
    return A_NO


@njit(cache=True)
def _route_draw(state, tables, p, actions, n, params, rng):
    """The draw of the highest ``_draw_value`` (the deck is worth ``deck_value``)."""
    best_a = actions[0]
    best = -1e9
    for i in range(n):
        a = actions[i]
        if a == A_DRAW_DECK:
            v = params[P_DECK_VALUE]
        else:
            v = _draw_value(state, tables, p, a - A_DRAW_DISPLAY, params)
        v += 1e-3 * random_float(rng)
        if v > best:
            best = v
            best_a = a
    return best_a


@njit(cache=True)
def _route_postmaster(state, tables, p, L, params):
    """Postmaster while the hand is small, unless the official buys the next carriage as the
    Cartwright."""
    if (
        params[P_CART] > 0
        and _cart_pays(state, p, L + 1)
        and L + 1 >= 3
        and _hand_extensions(state, tables, p) > 0
    ):
        return A_NO
    if state[S_HAND_N + p] <= params[P_PM_HAND_MAX]:
        return A_YES
    return A_NO


@njit(cache=True)
def _route_postal_carrier(state, tables, p, L, params):
    """Postal Carrier when a second extension is in hand and the route is short of its
    target, unless the official buys the next carriage as the Cartwright."""
    if _hand_extensions(state, tables, p) > 0 and _target_len(state, p, params) > L:
        if not (params[P_CART] > 0 and _cart_pays(state, p, L) and L >= 3):
            return A_YES
    return A_NO


@njit(cache=True)
def _route_play(state, tables, p, L, actions, n, params, rng):
    """The play of the highest value: extensions (10 + city + room to grow at both ends),
    new routes (city + room to grow), restarts (penalised by the route length lost)."""
    best_a = actions[0]
    best = -1e9
    rmask = state[S_RMASK + p]
    lo = state[S_RLO + p]
    hi = state[S_RHI + p]
    for i in range(n):
        a = actions[i]
        if a >= A_RESTART:
            c = a - A_RESTART
            v = (
                -5.0
                - 2.0 * L
                + _city_value(state, tables, p, c, params)
                + _end_value(state, tables, p, c, 1 << c, params)
            )
        elif a >= A_START:
            c = a - A_START
            v = _city_value(state, tables, p, c, params) + 2.0 * _end_value(
                state, tables, p, c, 1 << c, params
            )
        elif a >= A_RIGHT:
            c = a - A_RIGHT
            other = state[S_ROUTE + p * ROUTE_SLOTS + lo]
            nm = rmask | (1 << c)
            v = (
                10.0
                + _city_value(state, tables, p, c, params)
                + _end_value(state, tables, p, c, nm, params)
            )
            v += 0.5 * _end_value(state, tables, p, other, nm, params)
        else:
            c = a - A_LEFT
            other = state[S_ROUTE + p * ROUTE_SLOTS + hi - 1]
            nm = rmask | (1 << c)
            v = (
                10.0
                + _city_value(state, tables, p, c, params)
                + _end_value(state, tables, p, c, nm, params)
            )
            v += 0.5 * _end_value(state, tables, p, other, nm, params)
        v += 1e-3 * random_float(rng)
        if v > best:
            best = v
            best_a = a
    return best_a


@njit(cache=True)
def _route_close(state, tables, p, L, n, params):
    """Close when ``_want_close``; with the Cartwright when it buys the next carriage."""
    if _want_close(state, tables, p, params):
        if n == 3 and params[P_CART] > 0 and _cart_pays(state, p, L):
            return A_CLOSE_CART
        return A_CLOSE
    return A_NO


@njit(cache=True)
def _route_house_mode(state, tables, p, actions, n, params, rng):
    """The house option with the most houses + tile points (``_house_option_value``).

    One tie-break draw per option in the list (mode i, then every route region, legal or not),
    so the policy's random stream does not depend on which options place a house: an option
    that places none scores below any that places one, and was never chosen while it was
    (wrongly) offered (so the route games are the same as before that fix)."""
    best_a = actions[0]
    best = -1e9
    rm = state[S_RMASK + p]
    i = 0
    for r in range(-1, N_REGIONS):
        a = A_MODE_EACH
        if r >= 0:
            if rm & tables[T_REGMASK + r] == 0:
                continue
            a = A_MODE_REGION + r
        v = _house_option_value(state, tables, p, a, params) + 1e-3 * random_float(rng)
        if i < n and actions[i] == a:
            i += 1
            if v > best:
                best = v
                best_a = a
    return best_a


@njit(cache=True)
def _route_house_pick(state, tables, p, actions, n, params, rng):
    """The house in the city of the highest ``_city_value``.

    The skip is never chosen (any house scores more). Its tie-break draw is made whenever the
    older move list offered it (pending regions counted whether or not they still lacked a
    house), so the policy's random stream and its games are unchanged."""
    old_skip = state[S_PICK_MODE] == 0 and state[S_HOUSES_LEFT + p] < _popcount(state[S_PENDING])
    k = n - 1 if actions[n - 1] == A_HOUSE_SKIP else n
    if k + old_skip == 1:
        return actions[0]
    best_a = actions[0]
    best = -1e9
    for i in range(k):
        a = actions[i]
        v = _city_value(state, tables, p, a - A_HOUSE, params) + 1e-3 * random_float(rng)
        if v > best:
            best = v
            best_a = a
    if old_skip:
        random_float(rng)
    return best_a


@njit(cache=True)
def _route_trim(state, tables, p, actions, n, params, rng):
    """Drop the card with the fewest neighbours among the other hand cards (duplicates
    first)."""
    h = S_HAND + p * N_CITIES
    best_a = actions[0]
    best = 1e9
    for i in range(n):
        c = actions[i] - A_TRIM
        v = _city_value(state, tables, p, c, params) + 0.5 * _popcount(tables[T_ADJ + c])
        m = tables[T_ADJ + c]
        while m:
            d = _lowbit(m)
            m &= m - 1
            if state[h + d] > 0:
                v += 1.0
        if state[h + c] > 1:
            v -= 3.0
        v += 1e-3 * random_float(rng)
        if v < best:
            best = v
            best_a = actions[i]
    return best_a


@njit(cache=True)
def _route_policy(state, tables, actions, n, params, rng):
    """Route-planning heuristic (issue §3): draw and play towards long routes through needed
    regions, close at a length threshold, use officials when they pay (one function per
    phase, ``_route_*``)."""
    ph = state[S_PHASE]
    p = state[S_CUR]
    if n == 1 and ph != PH_HOUSE_PICK:
        return actions[0]
    L = state[S_RHI + p] - state[S_RLO + p]
    if ph == PH_ADMIN:
        return _route_admin(state, tables, p, params)
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        return _route_draw(state, tables, p, actions, n, params, rng)
    if ph == PH_PM:
        return _route_postmaster(state, tables, p, L, params)
    if ph == PH_PC:
        return _route_postal_carrier(state, tables, p, L, params)
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        return _route_play(state, tables, p, L, actions, n, params, rng)
    if ph == PH_CLOSE:
        return _route_close(state, tables, p, L, n, params)
    if ph == PH_HOUSE_MODE:
        return _route_house_mode(state, tables, p, actions, n, params, rng)
    if ph == PH_HOUSE_PICK:
        return _route_house_pick(state, tables, p, actions, n, params, rng)
    if ph == PH_TRIM:
        return _route_trim(state, tables, p, actions, n, params, rng)
    return actions[randint(rng, n)]


# ----------------------------------------------------------------------------- random


@njit(cache=True)
def choose_action(state, tables, actions, n, policy_id, params, rng):
    """Policy decision: ``actions[:n]`` legal; returns one of them.

    ``POL_RANDOM``: uniform over the legal decisions of the phase, except that in a play phase
    the route is discarded only when no extension is possible. ``POL_ROUTE``: ``_route_policy``.

    This is the reference definition; the play loop (``_advance``) draws ``random`` decisions
    as ``_random_move`` does (in ``_apply_move``'s dispatch on the phase), which gives the same
    actions from the same random draws without listing every legal action, and calls
    ``_route_policy`` for ``route``.
    """
    if policy_id == POL_ROUTE:
        return _route_policy(state, tables, actions, n, params, rng)
    return _random_choice(state, actions, n, rng)


@njit(cache=True, inline="always")
def _random_choice(state, actions, n, rng):
    if n == 1:
        return actions[0]
    ph = state[S_PHASE]
    if (ph == PH_PLAY1 or ph == PH_PLAY2) and actions[0] < A_START:
        # random: uniform over the extensions; the route is discarded only when none exists
        k = 0
        while k < n and actions[k] < A_START:
            k += 1
        return actions[randint(rng, k)]
    return actions[randint(rng, n)]


@njit(cache=True, inline="always")
def _random_move(state, tables, actions, rng):
    """The ``random`` policy's decision (definition: ``choose_action``), drawn fast.

    Same action and same random draws as ``_random_choice`` over ``legal_moves`` (tested in
    ``tests/test_thurn_and_taxis_run.py``), but the yes/no, draw, play and close phases are
    drawn without listing every legal action.
    """
    ph = state[S_PHASE]
    if ph == PH_ADMIN or ph == PH_PM or ph == PH_PC:
        return randint(rng, 2)  # A_NO = 0, A_YES = 1
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        return _random_play(state, tables, rng)
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        return _random_draw(state, rng)
    if ph == PH_CLOSE:
        return _random_close(state, rng)
    return _random_other(state, tables, actions, rng)


# ----------------------------------------------------------------------------- restricted play


@njit(cache=True)
def count_restricted(state, tables, variant, mask, actions):
    """Classify the decision of the seat to move under forbid ``mask`` (rules §11) and count it
    in the state: ``S_FORBID_AVOIDED`` when a forbidden option is legal and another is too,
    ``S_FORBID_FORCED`` when every legal option is forbidden. Returns the number of permitted
    actions, moved to the front of ``actions`` (``restrict_moves``), or the number of legal ones
    when none or all are permitted (``actions`` then holds them all, as listed)."""
    n = legal_moves(state, tables, actions)
    k = restrict_moves(state, tables, variant, actions, n, mask)
    p = state[S_CUR]
    if k == 0:
        state[S_FORBID_FORCED + p] += 1
        return n
    if k < n:
        state[S_FORBID_AVOIDED + p] += 1
    return k


@njit(cache=True)
def restricted_choice(state, tables, variant, pid, mask, params, rng, actions):
    """The decision of a restricted ``random`` or ``route`` seat (``pid`` ``POL_RANDOM`` or
    ``POL_ROUTE``; forbid ``mask`` != 0, rules §11): the policy's choice among the permitted
    legal actions, among all when none is permitted (the rules force a forbidden one; counted,
    ``count_restricted``). In a phase the mask cannot touch, and where nothing is forbidden,
    the policy decides exactly as an unrestricted seat (the same action from the same draws).
    ``params``: the ``route`` parameters (adapted to the mask by the Python side)."""
    if restricts_phase(state[S_PHASE], mask):
        k = count_restricted(state, tables, variant, mask, actions)
        if pid == POL_RANDOM:
            return _random_choice(state, actions, k, rng)
        return _route_policy(state, tables, actions, k, params, rng)
    if pid == POL_RANDOM:
        return _random_move(state, tables, actions, rng)
    n = legal_moves(state, tables, actions)
    return _route_policy(state, tables, actions, n, params, rng)


# ----------------------------------------------------------------------------- engine
# (here, not in ``rules``: it calls ``_route_policy``; the play loop, records, replays and the
# search steps share this one compiled function)


@njit(cache=True, _nrt=False)
def _advance(
    state,
    tables,
    variant,
    a,
    policy_ids,
    policy_params,
    rngs,
    actions,
    deal_rng,
    script,
    reshuffle_log,
    action_log,
    plies,
    restrictions,
):
    """Apply decision ``a`` (if ``a >= 0``), then play the decisions of ``random`` and ``route``
    seats until a seat with another policy (``mcts``) is to move or the game is over; returns
    the decisions taken so far.

    Parameters
    ----------
    state, tables, variant, deal_rng, script, reshuffle_log
        As in ``apply_move``.
    a : int64
        A legal action of the seat to move, or -1 (none: start with the ``random`` seats).
    policy_ids : int64[>= n_players]
        Seat k plays ``random`` here iff ``policy_ids[k] == POL_RANDOM``, ``route`` iff
        ``POL_ROUTE``, and either restricted (``restricted_choice``, rules §11) iff
        ``POL_RANDOM_RESTRICTED`` / ``POL_ROUTE_RESTRICTED``; any other id stops the loop when
        that seat is to move.
    policy_params : float64[>= n_players, >= N_PARAMS] or None
        The ``route`` seats' parameters (a restricted ``route`` seat's adapted to its mask). None
        compiles an engine without the ``route`` policy and restricted play (random runs,
        replays: less to compile); then a ``route`` or restricted seat stops the loop like
        ``mcts``.
    rngs : uint64[MAX_SEATS, 4]
        The seats' policy streams (row k: seat k).
    actions : int64[MAX_ACTIONS]
        Scratch.
    action_log : int64[m]
        Action log (m > 1 to log): decision number i is written to ``action_log[i]`` (if i < m).
    plies : int64
        Decisions taken before this call.
    restrictions : int64[>= n_players] or None
        Each seat's forbid mask (rules §11; 0 = none), read for the seats with a restricted id.
        None (no seat restricted) compiles an engine without restricted play: an unrestricted
        run compiles what it compiled before restricted play existed.

    Notes
    -----
    This is the only compiled function holding the engine's move code (``_apply_move``
    inlined), so that a run, its records, their replays and the search share its machine code
    (compiled once); the ``random`` and ``route`` decisions are taken in its loop,
    without a call per decision (a call per decision would cost a third of the speed of a
    random game). The decisions are ``choose_action``'s.
    Compiled without NRT (it allocates nothing, see ``play_batch``).
    """
    n_log = action_log.shape[0] if action_log.shape[0] > 1 else 0  # log decisions 0 .. n_log - 1
    while True:
        if a < 0:
            if state[S_OVER] != 0:
                break
            p = state[S_CUR]
            pid = policy_ids[p]
            if pid != POL_RANDOM:  # (random, the fast path: one test per decision)
                if pid != POL_ROUTE:
                    if restrictions is None:  # pruned at compile time: no restricted seat
                        break
                    if policy_params is None:
                        break
                    if pid != POL_RANDOM_RESTRICTED and pid != POL_ROUTE_RESTRICTED:
                        break
                    # a restricted seat (rules §11), its real decisions counted in the state
                    a = restricted_choice(
                        state,
                        tables,
                        variant,
                        pid - POL_RESTRICTED,
                        restrictions[p],
                        policy_params[p],
                        rngs[p],
                        actions,
                    )
                else:
                    if policy_params is None:  # pruned at compile time: no route code compiled
                        break
                    n = legal_moves(state, tables, actions)
                    a = _route_policy(state, tables, actions, n, policy_params[p], rngs[p])
        # random (a < 0): drawn in _apply_move's dispatch on the phase
        a = _apply_move(
            state, tables, variant, a, deal_rng, script, reshuffle_log, rngs[state[S_CUR]], actions
        )
        if plies < n_log:
            action_log[plies] = a
        plies += 1
        a = -1
    return plies


_NOT_RANDOM = np.full(MAX_SEATS, -1, dtype=np.int64)  # policy ids: no random or route seat
_NO_STREAMS = np.zeros((MAX_SEATS, 4), dtype=np.uint64)
_NO_ACTS = np.zeros(MAX_ACTIONS, dtype=np.int64)
_NO_LOG = np.zeros(1, dtype=np.int64)


# here, not in ``rules``: it calls the engine ``_advance`` (replays share its compiled code)
def apply_move(state, tables, variant, a, rng, script, reshuffle_log):
    """Apply legal action ``a`` (see the module docstring) to ``state`` in place.

    Parameters
    ----------
    state : int64[ST_SIZE]
    tables : int64[TAB_SIZE]
    variant : int64[N_VARIANT_SLOTS]
    a : int
        Must be one of ``legal_moves`` (not checked here).
    rng : uint64[4]
        Deal stream, used only to reshuffle the discard pile (§4A).
    script : int64[k]
        Replay: concatenated reshuffle orders (empty array: shuffle with ``rng``).
    reshuffle_log : int64[m]
        Reshuffle log (size <= 1: no logging).

    Notes
    -----
    Plain Python: calls the compiled ``_advance`` (one move, no seat playing ``random``), the
    engine compiled for random play (no ``route`` code), so that replays compile nothing of
    their own after a random run.
    Caller validates. docs/rules/thurn_und_taxis.md §4-§6.
    """
    _advance(
        state,
        tables,
        variant,
        np.int64(a),
        _NOT_RANDOM,
        None,
        _NO_STREAMS,
        _NO_ACTS,
        rng,
        script,
        reshuffle_log,
        _NO_LOG,
        np.int64(0),
        None,
    )
