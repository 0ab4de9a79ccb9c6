"""El Grande (Kramer & Ulrich, Hans im Glück 1995): the base game for 2-5 players.

Rule source: ``docs/rules/el_grande.md`` (section numbers below refer to it). Component data:
``mcsim/data/el_grande/{board,power_cards,action_cards}.json``, validated on load.

Variants (``--variant name=value``; ambiguity table §10):

=============  ==========================  =========  ==============================================
name           choices                     default    meaning
=============  ==========================  =========  ==============================================
tie_rank       rulebook | competition      rulebook   A1: tied players slide back one place; the next
                                                      group starts two places lower (rulebook) or at
                                                      1 + seats above it (competition)
veto           on | off                    on         A2: the two Veto cards are in deck 2 (off: they
                                                      leave the game, deck 2 holds its 9 other cards,
                                                      as BGA's option)
rounds         9 | 6                       9          §2: short game skips rounds 1, 4, 7
final_tie      shared | unplayed           shared     A6: a final tie is a shared win, or broken by the
                                                      larger sum of power cards still in hand
=============  ==========================  =========  ==============================================

Modelling decisions (documented deviations / readings):

* Court intake (§3 4a, A13) is one decision: how many caballeros n = 0..m to take, m = min(the
  power card's allowance, province + own caballeros in regions other than the King's region).
  The first min(n, province) come from the province; only the shortfall beyond an emptied
  province comes from regions, one decision (the region) per caballero. Card 4f takes its 2
  caballeros as before (province first, then per caballero a region or stop).
* Veto (§6 2a, A2): holders are asked clockwise from the actor's left, once the actor has decided
  to execute his special action; the first to veto discards his Veto card (even if the action
  then ends before the cut point). For a multi-step action he then chooses the cut k = 0..n-1:
  the first k steps happen, the rest is cancelled (k = 0: the whole action, the only choice for
  single-step actions). Steps (``kernels.el_grande.nominal_steps``): one per caballero moved or
  placed for 1a-1i (n = the card's limit: 1b 2, 1d 5, 1e/1f 3, 1h/1i 4, 1g 2+2; 1a: the own
  caballeros of the region holding most of them outside the King's region; 1c: the larger of
  its 1a and 1b counts), one per opponent clockwise from the actor's left for 2b, 2c, 2d, 2e
  (n = players - 1); every other action (scorings, secret choices 2f/2g/4c/4g, King, Grande,
  scoreboard, 4e, 4f) is a single step. The cut is chosen right after the veto, before any step.
* The Castillo's contents are public (A5). Secret choices (Castillo discs, 2f, 2g, 4c
  destinations, 4g) are made by every policy on the same position before any is revealed.
* Special actions, once executed, are carried out as fully as possible (§3 4c): move cards move
  their full number when possible; 1a may put caballeros back where they were.

Decision space (what the ``random`` policy chooses uniformly from, one decision at a time; the
record lists the same decisions): power card value; court intake count (0..m, one decision:
the random policy's count is uniform, so it takes m/2 on average, whereas placement below is
a sequence of place-or-stop decisions); shortfall region (intake: a region; card 4f: a region or
stop); action card; order (placement first / special action first); each placement target or
stop; execute special action yes/no; veto yes/no (so a random holder vetoes with p = 1/2, A2);
veto cut 0..n-1 (uniform among the cut points once it vetoes); 1c alternative; 1a/1d source
region; each move's source (region + colour) and destination; 1b targets; angry-King source
(court or region); 2e victim region; 2f/2g secret region; scored place (2h/3h); scoreboard +
place; King's destination; eviction region and the victims' secret destinations; Grande
region; power card taken back; 4g secret region; Castillo disc at general scorings. A decision
with a single legal option is still a decision (and a record entry), except the intake when
nothing can be taken (m = 0) and the cut of a single-step action.

Heuristic policy (parameters in ``HEURISTIC_PARAMS``): the evaluation of a position for seat p
is its score + ``w_board`` x (points every place would pay now) + ``w_court`` x (court size),
minus the opponents' mean of the same. Bids maximise ``bid_cab`` x caballeros gained +
``bid_order`` x value (+ ``bid_spread`` x value/13 x value spread of the face-up cards, -
``bid_save`` x value x rounds left / 9). The card is the one whose greedy placement plus special
action (exact gain for scorings, a static value x ``w_special`` otherwise) evaluates best; every
placement, move, King/Grande/scoreboard move, removal, secret choice and Castillo disc takes the
option with the best one-step evaluation; King-moving cards are played action first; scorings
are skipped when they do not gain; a Veto is used on a scoring that gives the actor at least
``veto_threshold`` points more than the holder (cut: the whole action), and on 2b-2e when its
step would cost the holder at least ``veto_harm`` caballeros (court caballeros for 2b/2c, up to
3 from court and regions for 2d, 1 for 2e), cut right before the holder's own step (the steps
on the players before him happen); court intake: province caballeros until the court holds
``court_target`` (default 30 = the maximum), then, only if the province is empty, shortfall
caballeros from regions while the court holds fewer than ``short_min_court``; ``eps`` =
probability of a uniformly random decision.

``mcts`` policy (parameters in ``MCTS_PARAMS``; issue 15): information-set Monte Carlo tree
search (``kernels/search.py``) over the seat's own decisions, one tree per decision. Each
iteration samples what the seat cannot see (§10 A5): the order of the unrevealed action cards
of each deck (reshuffled), and the other seats' secret choices of the group being decided
(Castillo discs, 2f/2g, 4c destinations, 4g; played by the rollout policy); power cards in hand
are public (13 minus those played) and the Castillo's contents are public (A5). The other seats
and the rollouts play the ``rollout`` policy (default: the heuristic at its defaults); rollouts
play ``horizon`` more rounds after the current one and then count points plus what every place
would pay now (0: to the end of the game). With ``scope=1`` the single steps of placements and
moves (place, shortfall, move source/destination, 1b targets, angry-King losses) are left to
the heuristic and every other decision with two or more options is searched. Reward per seat:
``reward=0`` win share (seats on the top score share 1), ``reward=1`` margin (own points - the
best other seat's) / 20 points; each seat maximises its own. Lineups with an ``mcts`` seat run
on a separate kernel (``kernels.el_grande.play_batch_mcts``), so random/heuristic runs never
compile the search; in them every ``heuristic`` seat keeps its own parameters.

Points by source: ``general`` (region points at general scorings), ``special`` (region points at
special scorings), ``king`` (+2 King bonus), ``grande`` (+2 Grande bonus), ``castillo`` (points
for scoring the Castillo, general or special).
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from kernels import el_grande as K
from mcsim.errors import ConfigError, DataFileError, IllegalMoveError, InvalidRecordError
from mcsim.files import read_json
from mcsim.games.base import (
    GameSpec,
    ParamSpec,
    PolicySpec,
    Prepared,
    RunConfig,
    VariantSpec,
    check_players,
    check_recorded_points,
    policy_arrays,
)

RULES = "docs/rules/el_grande.md"
DEFAULT_TIE_RANK = "rulebook"
DEFAULT_VETO = "on"
DEFAULT_ROUNDS = "9"
DEFAULT_FINAL_TIE = "shared"

#: effect names in action_cards.json -> kernel opcode
EFFECTS: dict[str, int] = {
    "move_own_one_region": K.OP_MOVE_OWN_ONE,
    "place_any": K.OP_PLACE_ANY,
    "choose_1a_1b": K.OP_CHOOSE_1A1B,
    "move_from_one_region": K.OP_MOVE_FROM_ONE,
    "move_opponents": K.OP_MOVE_OPP,
    "move_any": K.OP_MOVE_ANY,
    "move_own_and_opponents": K.OP_MOVE_OWN_OPP,
    "move_own": K.OP_MOVE_OWN,
    "veto": K.OP_VETO,
    "decay_all": K.OP_DECAY_ALL,
    "decay_n": K.OP_DECAY_N,
    "angry_king": K.OP_ANGRY,
    "remove_one_each": K.OP_REMOVE_EACH,
    "secret_remove_two": K.OP_SECRET_REM2,
    "secret_remove_all": K.OP_SECRET_REMALL,
    "score_choice": K.OP_SCORE_CHOICE,
    "score_class": K.OP_SCORE_CLASS,
    "score_castillo": K.OP_SCORE_CASTILLO,
    "score_firsts": K.OP_SCORE_FIRSTS,
    "score_most": K.OP_SCORE_MOST,
    "score_fewest": K.OP_SCORE_FEWEST,
    "scoreboard": K.OP_BOARD,
    "royal_advisor": K.OP_ADVISOR,
    "eviction": K.OP_EVICT,
    "grande": K.OP_GRANDE,
    "power_back": K.OP_POWERBACK,
    "court": K.OP_COURT,
    "secret_scoring": K.OP_SECRET_SCORE,
    "king": K.OP_KING,
}
_NEEDS_LIMIT = {
    "place_any",
    "choose_1a_1b",
    "move_from_one_region",
    "move_opponents",
    "move_any",
    "move_own_and_opponents",
    "move_own",
    "decay_n",
    "angry_king",
    "remove_one_each",
    "secret_remove_two",
    "court",
}

HEURISTIC_PARAMS = (
    ParamSpec(
        "w_board", 1.5, "weight of the points every place would pay now (evaluation)", 0.0, 10.0
    ),
    ParamSpec("w_court", 0.4, "value of one caballero in court (evaluation, points)", 0.0, 10.0),
    ParamSpec(
        "bid_cab", 0.7, "bid: weight per caballero the power card brings to court", 0.0, 10.0
    ),
    ParamSpec("bid_order", 0.35, "bid: weight per power value (turn order)", 0.0, 10.0),
    ParamSpec(
        "veto_threshold",
        3.0,
        "veto a scoring that gives the actor this many points more than me",
        -50.0,
        50.0,
        integer=True,
    ),
    ParamSpec(
        "short_min_court",
        2.0,
        "take shortfall caballeros from regions only while court is below this",
        0.0,
        30.0,
        integer=True,
    ),
    ParamSpec("eps", 0.0, "probability of a uniformly random decision instead", 0.0, 1.0),
    ParamSpec(
        "w_special",
        1.0,
        "weight of the static value of non-scoring special actions (card choice)",
        0.0,
        10.0,
    ),
    ParamSpec(
        "bid_spread",
        0.0,
        "bid: weight per power value / 13 of the value spread of the face-up cards",
        0.0,
        10.0,
    ),
    ParamSpec(
        "bid_save", 0.0, "bid: cost per power value x rounds left / 9 (keep high cards)", 0.0, 10.0
    ),
    ParamSpec(
        "veto_harm",
        3.0,
        "veto 2b-2e when my step would cost me at least this many caballeros (cut before my step)",
        0.0,
        31.0,
        integer=True,
    ),
    ParamSpec(
        "court_target",
        30.0,
        "court intake: take province caballeros only up to this court size (30 = the maximum)",
        0.0,
        30.0,
        integer=True,
    ),
)

#: ``mcts`` parameters (kernel order ``kernels.el_grande.M_*``); defaults from the measurements
#: in benchmarks/RESULTS.md (Search, El Grande)
MCTS_PARAMS = (
    ParamSpec(
        "iterations",
        20.0,
        "search iterations per searched decision (no wall-clock budget)",
        1.0,
        1e5,
        integer=True,
    ),
    ParamSpec(
        "c",
        0.7,
        "UCB1 exploration constant (rewards: win share in [0, 1], or margin / 20 points)",
        0.0,
        100.0,
    ),
    ParamSpec(
        "reward",
        1.0,
        "0 win share (seats on the top score share 1), 1 margin: (own points - best other "
        "seat's) / 20",
        0.0,
        1.0,
        integer=True,
    ),
    ParamSpec(
        "rollout",
        1.0,
        "rollout policy of every seat: 0 random, 1 heuristic (default parameters)",
        0.0,
        1.0,
        integer=True,
    ),
    ParamSpec(
        "scope",
        1.0,
        "0 search every decision; 1 all but single placement/move steps (heuristic plays those)",
        0.0,
        1.0,
        integer=True,
    ),
    ParamSpec(
        "horizon",
        2.0,
        "rounds after the current one that rollouts play, then points + what every place "
        "would pay now (0: to the end)",
        0.0,
        9.0,
        integer=True,
    ),
)

#: game-specific options (``--option KEY=VALUE``): none
OPTIONS: dict[str, str] = {}

SPEC = GameSpec(
    id="el-grande",
    long_name="El Grande",
    rules=RULES,
    min_players=2,
    max_players=5,
    default_players=4,
    variants=(
        VariantSpec(
            "tie_rank",
            ("rulebook", "competition"),
            DEFAULT_TIE_RANK,
            "rank after a tie: rulebook (tie uses two rank slots) or competition",
            RULES + " §10 A1",
        ),
        VariantSpec(
            "veto",
            ("on", "off"),
            DEFAULT_VETO,
            "on: the 2 Veto cards (deck 2) cancel special actions; off: they leave the game",
            RULES + " §10 A2",
        ),
        VariantSpec(
            "rounds",
            ("9", "6"),
            DEFAULT_ROUNDS,
            "game length (6 skips rounds 1, 4, 7)",
            RULES + " §2",
        ),
        VariantSpec(
            "final_tie",
            ("shared", "unplayed"),
            DEFAULT_FINAL_TIE,
            "final tie: shared win, or higher sum of unplayed power cards wins",
            RULES + " §10 A6",
        ),
    ),
    policies=(
        PolicySpec("random", K.POL_RANDOM, "uniform over the legal options of every decision"),
        PolicySpec(
            "heuristic",
            K.POL_HEURISTIC,
            "bids for caballeros/turn order, takes the card with the best look-ahead, places and "
            "moves by one-step evaluation of majorities, scores where ahead, vetoes big swings",
            HEURISTIC_PARAMS,
        ),
        PolicySpec(
            "mcts",
            K.POL_MCTS,
            "information-set Monte Carlo tree search (kernels/search.py) over its own decisions; "
            "each iteration reshuffles the unrevealed action cards and redraws the others' "
            "secret choices; other seats and rollouts play the heuristic",
            MCTS_PARAMS,
        ),
    ),
    summary_key="el_grande",
    max_plies=4000,
    description="majorities in nine Spanish regions; power-card bidding, 45 action cards, Castillo",
)

SOURCES = ("general", "special", "king", "grande", "castillo")
KIND_NAMES = (
    "power",
    "shortfall",
    "card",
    "order",
    "place",
    "execute",
    "veto",
    "choice",
    "source_region",
    "move_from",
    "move_to",
    "place_any",
    "angry_king",
    "remove",
    "secret_remove",
    "score",
    "scoreboard",
    "king_to",
    "evict_region",
    "evict_to",
    "grande_to",
    "power_back",
    "secret_score",
    "castillo_disc",
    "intake",
    "veto_cut",
)


# =============================================================================================
# data
# =============================================================================================
def _read_json(name: str) -> dict:
    return read_json(str(resources.files("mcsim") / "data" / "el_grande" / name), "data file")


def _values(where: str, v: Any) -> list[int]:
    if (
        not isinstance(v, list)
        or len(v) != 3
        or not all(isinstance(x, int) and x >= 0 for x in v)
        or not (v[0] >= v[1] >= v[2])
    ):
        raise DataFileError(f"{where}: values must be 3 non-increasing integers >= 0, got {v!r}")
    return v


def validate_board(b: dict) -> dict:
    """Check board.json (regions, 15 symmetric borders, Castillo, mobile boards); §1.

    Raises
    ------
    DataFileError
        One line naming the entry and the rule broken.
    """
    regs = b.get("regions")
    if not isinstance(regs, list) or len(regs) != 9:
        raise DataFileError("el_grande/board.json: 'regions' must list 9 regions")
    ids = []
    for k, r in enumerate(regs):
        if r.get("index") != k:
            raise DataFileError(
                f"el_grande/board.json: region {r.get('id')!r} has index "
                f"{r.get('index')!r}, expected {k}"
            )
        _values(f"el_grande/board.json: region {r.get('id')!r}", r.get("values"))
        ids.append(r["id"])
    if len(set(ids)) != 9:
        raise DataFileError("el_grande/board.json: region ids must be distinct")
    _values("el_grande/board.json: castillo", b.get("castillo", {}).get("values"))
    edges = b.get("borders", [])
    seen = set()
    for e in edges:
        if (
            not isinstance(e, list)
            or len(e) != 2
            or e[0] not in ids
            or e[1] not in ids
            or e[0] == e[1]
        ):
            raise DataFileError(
                f"el_grande/board.json: border {e!r} must join two different known regions"
            )
        key = frozenset(e)
        if key in seen:
            raise DataFileError(f"el_grande/board.json: border {e!r} listed twice")
        seen.add(key)
    exp = b.get("expected_border_count", 15)
    if len(seen) != exp:
        raise DataFileError(f"el_grande/board.json: {len(seen)} borders, expected {exp}")
    adj = {i: set() for i in ids}
    for a, c in (tuple(e) for e in edges):
        adj[a].add(c)
        adj[c].add(a)
    for a in ids:  # symmetric by construction; check connectivity and no isolated region
        if not adj[a]:
            raise DataFileError(f"el_grande/board.json: region {a} has no border")
        for c in adj[a]:
            if a not in adj[c]:
                raise DataFileError(f"el_grande/board.json: border {a}-{c} is not symmetric")
    mb = b.get("mobile_scoreboards")
    if not isinstance(mb, list) or len(mb) != 2:
        raise DataFileError("el_grande/board.json: 'mobile_scoreboards' must list 2 boards")
    for m in mb:
        _values(f"el_grande/board.json: scoreboard {m.get('id')!r}", m.get("values"))
    s = b.get("setup", {})
    total = (
        s.get("home_caballeros", 0) + s.get("court_caballeros", 0) + s.get("province_caballeros", 0)
    )
    if total != s.get("caballeros_per_colour"):
        raise DataFileError(
            f"el_grande/board.json: setup home+court+province = {total}, "
            f"expected caballeros_per_colour {s.get('caballeros_per_colour')}"
        )
    pr = b.get("paying_ranks", {})
    for n in range(2, 6):
        if not isinstance(pr.get(str(n)), int) or not 1 <= pr[str(n)] <= 3:
            raise DataFileError(f"el_grande/board.json: paying_ranks[{n}] must be 1..3")
    return b


def validate_power(pc: dict) -> dict:
    """Check power_cards.json: values 1..13 once each, caballeros summing to 40 (§3.1)."""
    cards = pc.get("cards")
    if not isinstance(cards, list) or [c.get("value") for c in cards] != list(range(1, 14)):
        raise DataFileError("el_grande/power_cards.json: cards must have values 1..13 in order")
    for c in cards:
        if not isinstance(c.get("caballeros"), int) or c["caballeros"] < 0:
            raise DataFileError(
                f"el_grande/power_cards.json: card {c['value']} caballeros must be an integer >= 0"
            )
    tot = sum(c["caballeros"] for c in cards)
    exp = pc.get("expected_caballero_sum", 40)
    if tot != exp:
        raise DataFileError(f"el_grande/power_cards.json: caballeros sum to {tot}, expected {exp}")
    return pc


def validate_cards(ac: dict) -> dict:
    """Check action_cards.json: known effects, limits, deck sizes 11/11/11/11/1 (§6)."""
    cards = ac.get("cards")
    if not isinstance(cards, list):
        raise DataFileError("el_grande/action_cards.json: 'cards' must be a list")
    sizes = {d: 0 for d in range(1, 6)}
    seen = set()
    for c in cards:
        cid = c.get("id")
        if cid in seen:
            raise DataFileError(f"el_grande/action_cards.json: card {cid!r} listed twice")
        seen.add(cid)
        d = c.get("deck")
        if d not in sizes:
            raise DataFileError(f"el_grande/action_cards.json: card {cid!r} deck {d!r} is not 1..5")
        if not isinstance(c.get("copies"), int) or c["copies"] < 1:
            raise DataFileError(f"el_grande/action_cards.json: card {cid!r} copies must be >= 1")
        eff = c.get("effect")
        if eff not in EFFECTS:
            raise DataFileError(
                f"el_grande/action_cards.json: card {cid!r} has unknown effect {eff!r}"
            )
        if eff in _NEEDS_LIMIT and not (isinstance(c.get("limit"), int) and c["limit"] >= 1):
            raise DataFileError(
                f"el_grande/action_cards.json: card {cid!r} ({eff}) needs a limit >= 1"
            )
        if eff == "score_class":
            fv = c.get("first_values")
            if (
                not isinstance(fv, list)
                or not fv
                or not all(isinstance(x, int) and 0 <= x < 31 for x in fv)
            ):
                raise DataFileError(f"el_grande/action_cards.json: card {cid!r} needs first_values")
        if (eff == "king") != (d == 5):
            raise DataFileError(
                f"el_grande/action_cards.json: card {cid!r}: the King's card is deck 5 and only it"
            )
        sizes[d] += c["copies"]
    exp = {int(k): v for k, v in ac.get("expected_deck_sizes", {}).items()}
    for d in range(1, 6):
        if sizes[d] != exp.get(d):
            raise DataFileError(
                f"el_grande/action_cards.json: deck {d} has {sizes[d]} cards, expected {exp.get(d)}"
            )
    if exp != {1: 11, 2: 11, 3: 11, 4: 11, 5: 1}:
        raise DataFileError(
            "el_grande/action_cards.json: the kernel needs deck sizes 11/11/11/11/1"
        )
    return ac


@lru_cache(maxsize=1)
def load_data() -> dict:
    """Load and validate the three data files.

    Returns
    -------
    dict with ``board``, ``power``, ``cards`` (raw JSON), ``region_ids`` (9 ids), ``place_names``
    (10 names, Castillo last), ``card_ids`` (45 card ids such as ``"1d#2"``), ``card_types``
    (45 type ids such as ``"1d"``).

    Raises
    ------
    DataFileError
    """
    board = validate_board(_read_json("board.json"))
    power = validate_power(_read_json("power_cards.json"))
    cards = validate_cards(_read_json("action_cards.json"))
    card_ids, card_types, card_rows = [], [], []
    for d in range(1, 6):
        for c in cards["cards"]:
            if c["deck"] != d:
                continue
            for k in range(c["copies"]):
                card_types.append(c["id"])
                card_ids.append(c["id"] if c["copies"] == 1 else f"{c['id']}#{k + 1}")
                card_rows.append(c)
    return {
        "board": board,
        "power": power,
        "cards": cards,
        "region_ids": [r["id"] for r in board["regions"]],
        "place_names": [r["name"] for r in board["regions"]] + [board["castillo"]["name"]],
        "place_ids": [r["id"] for r in board["regions"]] + [board["castillo"]["id"]],
        "card_ids": card_ids,
        "card_types": card_types,
        "card_rows": card_rows,
    }


def build_tables(data: dict | None = None) -> np.ndarray:
    """The kernel table vector ``T`` (int32[T_SIZE], offsets ``kernels.el_grande.T_*``)."""
    data = data or load_data()
    b = data["board"]
    T = np.zeros(K.T_SIZE, dtype=np.int32)
    for r in b["regions"]:
        T[K.T_VAL + 3 * r["index"] : K.T_VAL + 3 * r["index"] + 3] = r["values"]
    T[K.T_VAL + 27 : K.T_VAL + 30] = b["castillo"]["values"]
    for k, m in enumerate(b["mobile_scoreboards"]):
        T[K.T_BVAL + 3 * k : K.T_BVAL + 3 * k + 3] = m["values"]
    idx = {rid: k for k, rid in enumerate(data["region_ids"])}
    for a, c in b["borders"]:
        T[K.T_ADJ + idx[a]] |= 1 << idx[c]
        T[K.T_ADJ + idx[c]] |= 1 << idx[a]
    for pc in data["power"]["cards"]:
        T[K.T_PCAB + pc["value"]] = pc["caballeros"]
    for i, c in enumerate(data["card_rows"]):
        T[K.T_COP + i] = EFFECTS[c["effect"]]
        T[K.T_CARG + i] = c.get("limit", 0)
        T[K.T_CCLS + i] = sum(1 << v for v in c.get("first_values", []))
        T[K.T_CDECK + i] = c["deck"]
    for n in range(2, 6):
        T[K.T_PAY + n] = b["paying_ranks"][str(n)]
    T[K.T_KB] = b["bonuses"]["king"]
    T[K.T_GB] = b["bonuses"]["grande"]
    T[K.T_HOME] = b["setup"]["home_caballeros"]
    T[K.T_COURT0] = b["setup"]["court_caballeros"]
    T[K.T_PROV0] = b["setup"]["province_caballeros"]
    for d in range(5):
        T[K.T_DECKSTART + d] = 11 * d
        T[K.T_DECKLEN + d] = 11 if d < 4 else 1
    return T


# =============================================================================================
# protocol
# =============================================================================================
def prepare(config: RunConfig) -> Prepared:
    """Validate the config and build the kernel tables (see ``mcsim.games.base``).

    Raises
    ------
    ConfigError, UnknownPolicyError, UnknownVariantError, DataFileError
    """
    check_players(SPEC, config.players)
    if len(config.policies) != config.players:
        raise ConfigError(
            f"el-grande: {len(config.policies)} policies given for {config.players} seats"
        )
    variant = SPEC.resolve_variant(config.variant)
    ids, params = policy_arrays(SPEC, config.policies)
    data = load_data()
    return Prepared(
        config=config,
        policy_ids=ids,
        policy_params=params,
        variant_codes=SPEC.variant_codes(variant),
        tables={"T": build_tables(data)},
        info={"el_grande_variant": variant},
    )


def _has_mcts(prep: Prepared) -> bool:
    return bool((prep.policy_ids == K.POL_MCTS).any())


def _heuristic_defaults() -> np.ndarray:
    """The heuristic's default parameters (float64[P]): what mcts seats and rollouts use."""
    return np.array([p.default for p in HEURISTIC_PARAMS], dtype=np.float64)


def _win_share(score: np.ndarray, unplayed: np.ndarray, final_tie: int) -> np.ndarray:
    key = score.astype(np.float64)
    if final_tie == 1:
        key = key + unplayed / 1000.0
    top = key.max(axis=1, keepdims=True)
    w = (key == top).astype(np.float64)
    return w / w.sum(axis=1, keepdims=True)


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play games ``first_game_index ..`` and return result columns (see ``mcsim.games.base``).

    Columns beyond ``score``/``length``/``win_share``: ``pts_<source>`` [n, seats];
    ``power_r<k>`` [n, seats] (power value played in round k, 0 = not played);
    ``take_<card>`` / ``take_round_<card>`` for the 44 deck cards (seat / round, -1 / 0 = never);
    ``king_r<k>`` (seat that took the King's card in round k, -1 = round not played);
    ``unplayed`` [n, seats] (sum of power values left in hand); ``intake_taken`` /
    ``intake_max`` [n, seats] (caballeros taken at the court intakes / the most that could have
    been taken, §3 step 4a); ``vetoes_all`` / ``vetoes_partial`` [n] (Vetoes used with the cut
    ``all`` / ``after_K``, K >= 1: the whole special action / its remaining part, §6 2a; a cut
    past the action's end counts as partial).
    """
    npl = prep.config.players
    if _has_mcts(prep):  # a separate kernel: random/heuristic runs never compile the search
        r = K.play_batch_mcts(
            np.int64(first_game_index),
            np.int64(n_games),
            np.uint64(root_seed),
            np.int64(npl),
            prep.policy_ids.astype(np.int64),
            prep.policy_params.astype(np.float64),
            prep.policy_params[:, : K.N_MPARAMS].astype(np.float64),
            _heuristic_defaults(),
            prep.variant_codes.astype(np.int64),
            prep.tables["T"],
        )
    else:
        r = K.play_batch(
            np.int64(first_game_index),
            np.int64(n_games),
            np.uint64(root_seed),
            np.int64(npl),
            prep.policy_ids.astype(np.int64),
            prep.policy_params.astype(np.float64),
            prep.variant_codes.astype(np.int64),
            prep.tables["T"],
        )
    score, src, plies, pwr, taker, tround, kingby, unplayed, intake, vetoes = r
    out: dict[str, np.ndarray] = {
        "score": score,
        "length": plies.astype(np.int32),
        "win_share": _win_share(score, unplayed, int(prep.variant_codes[K.V_FINALTIE])),
        "unplayed": unplayed,
        "intake_taken": intake[:, :, 0],
        "intake_max": intake[:, :, 1],
        "vetoes_all": vetoes[:, 0],
        "vetoes_partial": vetoes[:, 1],
    }
    for s, name in enumerate(SOURCES):
        out[f"pts_{name}"] = src[:, :, s]
    for r in range(9):
        out[f"power_r{r + 1}"] = pwr[:, r, :].astype(np.int8)
        out[f"king_r{r + 1}"] = kingby[:, r].astype(np.int8)
    ids = load_data()["card_ids"]
    for c in range(44):
        out[f"take_{ids[c]}"] = taker[:, c].astype(np.int8)
        out[f"take_round_{ids[c]}"] = tround[:, c].astype(np.int8)
    return out


# =============================================================================================
# summary
# =============================================================================================
def _diff_obs(scores: np.ndarray, shares: np.ndarray, g: np.ndarray, seat: np.ndarray):
    """Per observation (game g, taker seat): taker minus mean of the other seats."""
    n = scores.shape[1]
    s_t = scores[g, seat]
    w_t = shares[g, seat]
    s_o = (scores[g].sum(axis=1) - s_t) / (n - 1)
    w_o = (shares[g].sum(axis=1) - w_t) / (n - 1)
    return s_t - s_o, w_t - w_o


def _card_types() -> list[str]:
    return [c["id"] for c in load_data()["cards"]["cards"]]


def _first_round(prep: Prepared) -> int:
    return 2 if int(prep.variant_codes[K.V_ROUNDS]) == 1 else 1


def partial_summary(games, prep: Prepared) -> dict:
    """Additive sums over a chunk of games (merged across chunks by addition, see
    ``mcsim.aggregate``); ``finalize_summary`` turns them into the ``"el_grande"`` block.

    The table is read once as a float64 matrix (every column is numeric and exact in float64):
    pandas column selection per card would cost more than playing the games."""
    npl = prep.config.players
    data = load_data()
    A = games.to_numpy(dtype=np.float64)
    pos = {c: i for i, c in enumerate(games.columns)}

    def cols(names):
        return A[:, [pos[c] for c in names]]

    def icols(names):
        return cols(names).astype(np.int64)

    def seat_cols(prefix):
        return cols([f"{prefix}_{k}" for k in range(npl)])

    scores = seat_cols("score")
    shares = seat_cols("win_share")
    taker = icols([f"take_{cid}" for cid in data["card_ids"][:44]])
    tround = icols([f"take_round_{cid}" for cid in data["card_ids"][:44]])
    kingby = icols([f"king_r{r}" for r in range(1, 10)])
    cards = {}
    for t in _card_types():
        gs, seats, rounds = [], [], []
        if t == "K":
            for r in range(1, 10):
                col = kingby[:, r - 1]
                m = col >= 0
                gs.append(np.nonzero(m)[0])
                seats.append(col[m])
                rounds.append(np.full(int(m.sum()), r, dtype=np.int64))
        else:
            for c, ct in enumerate(data["card_types"][:44]):
                if ct == t:
                    col = taker[:, c]
                    m = col >= 0
                    gs.append(np.nonzero(m)[0])
                    seats.append(col[m])
                    rounds.append(tround[m, c])
        g, st, rd = np.concatenate(gs), np.concatenate(seats), np.concatenate(rounds)
        sd, wd = _diff_obs(scores, shares, g, st) if g.size else (np.zeros(0), np.zeros(0))
        cards[t] = {
            "taken": int(g.size),
            "seat": np.bincount(st, minlength=npl)[:npl].tolist(),
            "round": np.bincount(rd, minlength=10)[1:10].tolist(),
            "sd": [float(sd.sum()), float((sd * sd).sum())],
            "wd": [float(wd.sum()), float((wd * wd).sum())],
        }
    by_round = []
    for r in range(1, 10):
        vals = seat_cols(f"power_r{r}").astype(np.int64).ravel()
        by_round.append(np.bincount(vals, minlength=14)[1:14].tolist())
    fr = _first_round(prep)
    vals = seat_cols(f"power_r{fr}").astype(np.int64).ravel()
    first_n = np.bincount(vals, minlength=14)[1:14].tolist()
    first_w = np.bincount(vals, weights=shares.ravel(), minlength=14)[1:14].tolist()
    src = {}
    for name in SOURCES:
        arr = seat_cols(f"pts_{name}")
        src[name] = {
            "sum": float(arr.sum()),
            "sumsq": float((arr * arr).sum()),
            "n": int(arr.size),
            "by_seat": arr.sum(axis=0).tolist(),
        }
    taken = seat_cols("intake_taken")
    allowed = seat_cols("intake_max")
    vetoes = icols(["vetoes_all", "vetoes_partial"]).sum(axis=0)
    return {
        "n": len(games),
        "cards": cards,
        "power_by_round": by_round,
        "first_n": first_n,
        "first_w": first_w,
        "src": src,
        "total": float(scores.sum()),
        "intake": [float(taken.sum()), float((taken * taken).sum()), float(allowed.sum())],
        "vetoes": [int(vetoes[0]), int(vetoes[1])],
    }


def _mi(s: float, ss: float, n: int) -> dict:
    """Mean with a Student-t 95% interval from a sum and a sum of squares."""
    from mcsim import stats

    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "sd": math.nan, "n": 0}
    m = s / n
    sd = math.sqrt(max(0.0, (ss - s * s / n) / (n - 1))) if n > 1 else 0.0
    half = stats.t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
    return {"mean": m, "low": m - half, "high": m + half, "sd": sd, "n": int(n)}


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"el_grande"`` summary block (issue 4 §4) from the summed partials.

    Returns
    -------
    dict
        ``action_cards``: per card type (copies merged; ``K`` = the King's card, one observation
        per round): ``deck``, ``copies``, ``text``, ``taken`` (count), ``taken_per_game``,
        ``by_seat`` and ``by_round`` (fractions of the takes), ``score_diff`` (taker's final
        points minus the mean of the other seats: mean with 95% t interval) and ``win_diff``
        (the same for the win share). ``power_cards``: ``by_round`` {round: {value: fraction of
        plays}}, ``first_round``, ``win_rate_by_first_value`` {value: Wilson interval of the win
        rate of the seats that played it in the first round played, plus ``n``}.
        ``points_by_source``: per source, mean points per seat-game with 95% interval, ``share``
        of all points, ``by_seat`` means. ``court_intake``: ``taken`` (mean caballeros taken at
        the court intakes per seat-game, 95% interval), ``allowed`` (mean of the most that could
        have been taken), ``share`` (taken / allowed). ``vetoes``: ``per_game``, ``all`` and
        ``partial`` (counts of Vetoes used with the cut ``all`` / ``after_K``).
        ``players``, ``games``.
    """
    from mcsim import stats

    npl = prep.config.players
    n = t["n"]
    rows = {c["id"]: c for c in load_data()["cards"]["cards"]}
    out: dict[str, Any] = {"players": npl, "games": n}
    cards = {}
    for ct, e in t["cards"].items():
        k = e["taken"]
        entry: dict[str, Any] = {
            "deck": rows[ct]["deck"],
            "copies": rows[ct]["copies"],
            "text": rows[ct]["text"],
            "taken": k,
            "taken_per_game": k / n if n else math.nan,
        }
        if k:
            entry["by_seat"] = {s: c / k for s, c in enumerate(e["seat"])}
            entry["by_round"] = {r + 1: c / k for r, c in enumerate(e["round"]) if c}
            entry["score_diff"] = _mi(e["sd"][0], e["sd"][1], k)
            entry["win_diff"] = _mi(e["wd"][0], e["wd"][1], k)
        cards[ct] = entry
    out["action_cards"] = cards
    by_round = {}
    for r, cnt in enumerate(t["power_by_round"]):
        tot = sum(cnt)
        if tot:
            by_round[r + 1] = {v + 1: c / tot for v, c in enumerate(cnt) if c}
    fr = _first_round(prep)
    wr = {}
    for v in range(13):
        m = int(t["first_n"][v])
        if m:
            wr[v + 1] = dict(stats.proportion(float(t["first_w"][v]), m), n=m)
    out["power_cards"] = {"by_round": by_round, "first_round": fr, "win_rate_by_first_value": wr}
    src = {}
    for name in SOURCES:
        d = t["src"][name]
        x = _mi(d["sum"], d["sumsq"], d["n"])
        x["share"] = d["sum"] / t["total"] if t["total"] else math.nan
        x["by_seat"] = [v / n for v in d["by_seat"]] if n else []
        src[name] = x
    out["points_by_source"] = src
    tk, tk2, al = t["intake"]
    m = n * npl
    out["court_intake"] = {
        "taken": _mi(tk, tk2, m),
        "allowed": al / m if m else math.nan,
        "share": tk / al if al else math.nan,
    }
    va, vp = t["vetoes"]
    out["vetoes"] = {"per_game": (va + vp) / n if n else math.nan, "all": va, "partial": vp}
    return out


def summarize(games, prep: Prepared) -> dict:
    """The ``"el_grande"`` block from the full per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


# =============================================================================================
# positions (tests, examples) and one-card application
# =============================================================================================
def place_index(name: str) -> int:
    """Place index of a region/Castillo id or name (``"AR"``, ``"Aragón"``, ``"Castillo"``).

    Raises
    ------
    InvalidRecordError
    """
    data = load_data()
    key = str(name).strip().lower()
    for k, (pid, pname) in enumerate(zip(data["place_ids"], data["place_names"])):
        eng = (
            data["board"]["regions"][k]["english"]
            if k < 9
            else data["board"]["castillo"]["english"]
        )
        if key in (pid.lower(), pname.lower(), eng.lower()):
            return k
    raise InvalidRecordError(f"unknown region {name!r}; use one of {', '.join(data['place_ids'])}")


def card_index(card_id: str) -> int:
    """Kernel index (0..44) of a card id such as ``"1d#2"``, ``"2b"`` or ``"K"``."""
    ids = load_data()["card_ids"]
    if card_id in ids:
        return ids.index(card_id)
    types = load_data()["card_types"]
    if card_id in types:
        return types.index(card_id)
    raise InvalidRecordError(f"unknown action card {card_id!r}")


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


def _log_array(decisions: list, cap_extra: int = 0, players: int = 5) -> np.ndarray:
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


def _buffers(log: np.ndarray, mode: int, legacy: bool = False):
    D = K.make_buffers(1, 64, len(HEURISTIC_PARAMS))
    D = D[: K.D_LOG] + (log,) + D[K.D_LOG + 1 :]
    D[K.D_CTX][K.C_MODE] = mode
    D[K.D_CTX][K.C_LOGCAP] = log.shape[0]
    D[K.D_CTX][K.C_FLAGS] = K.FLAG_V1 if legacy else 0
    return D


def _legal_strings(errbuf: np.ndarray, nerr: int) -> list[str]:
    kind, seat = int(errbuf[0]), int(errbuf[1])
    return [
        f"seat {seat} {KIND_NAMES[kind]} {format_value(kind, int(v))}"
        for v in errbuf[2 : 2 + min(nerr, 62)]
    ]


def apply_card(
    st: np.ndarray,
    seat: int,
    card: str,
    decisions: list,
    variant: dict | None = None,
    placement: str | None = None,
    legacy: bool = False,
) -> np.ndarray:
    """Execute the special action of ``card`` (and the Veto check) for ``seat`` on ``st`` in place,
    with the scripted ``decisions`` ``[(kind, seat, value), ...]`` (record notation; the first is
    normally ``("execute", seat, "yes")``). ``placement="first"`` / ``"after"`` also runs the
    card's placement step before / after the special action. ``legacy=True``: the rules of
    format-1 records (a Veto cancels the whole action, no ``veto_cut``). Returns ``st``.

    Raises
    ------
    IllegalMoveError
        A scripted decision is not legal, or the script ends early / is too long.
    """
    var = SPEC.variant_codes(SPEC.resolve_variant(variant))
    T = build_tables()
    log = _log_array(decisions, players=int(st[K.O_NP]))
    D = _buffers(log, K.MODE_REPLAY, legacy)
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
        raise IllegalMoveError(ply, str(move), _legal_strings(D[K.D_ERRBUF], int(ctx[K.C_NERR])))
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
    D = _buffers(_log_array(decisions, players=int(st[K.O_NP])), K.MODE_REPLAY)
    K.step(st, build_tables(), var, D, K.STEP_GENERAL_SCORING, 0, 0)
    if D[K.D_CTX][K.C_ERR] >= 0:
        ply = int(D[K.D_CTX][K.C_ERR])
        raise IllegalMoveError(
            ply,
            str(decisions[ply]) if ply < len(decisions) else "(end)",
            _legal_strings(D[K.D_ERRBUF], int(D[K.D_CTX][K.C_NERR])),
        )
    return st


# =============================================================================================
# records and replay (issue 4 §5)
# =============================================================================================
RECORD_FORMAT = 2
_LOG_CAP = 8000
#: decision kinds that exist only in format-2 records
_V2_KINDS = ("intake", "veto_cut")


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
    (seed and policies are informative).

    Format-1 records (written before the intake and veto-cut decisions existed; also a record
    without ``"format"`` and without any ``intake``/``veto_cut`` decision) replay with their
    rules: the maximum intake from the province, shortfall caballeros decided one by one with
    ``stop``, and ``veto yes`` cancelling the whole action.
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
        if _has_mcts(prep):
            # play with the search, then replay the logged decisions for the scoring events
            # (the replay kernel is the random/heuristic one: the search is not needed)
            nd, fixed = K.record_mcts(
                np.uint64(root_seed),
                np.int64(gi),
                np.int64(npl),
                prep.policy_ids.astype(np.int64),
                prep.policy_params.astype(np.float64),
                prep.policy_params[:, : K.N_MPARAMS].astype(np.float64),
                _heuristic_defaults(),
                prep.variant_codes.astype(np.int64),
                prep.tables["T"],
                log,
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


def _parse_setup(setup: Any, npl: int, veto_off: bool = False) -> np.ndarray:
    """``fixed`` setup array of a record; ``veto_off``: deck 2 may not list the Veto cards, which
    go below its other cards (out of the game, A2)."""
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
        if not isinstance(lst, list) or len(lst) > 11:
            raise InvalidRecordError(f"setup: deck {d + 1} must list up to 11 card ids (top first)")
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
        # unrevealed cards: fill in file order (with veto=off the Vetoes last, never revealed)
        idx += [
            c
            for c in own
            if c not in idx and not (veto_off and _is_veto(data, data["card_ids"].index(c)))
        ]
        idx += [c for c in own if c not in idx]
        fixed[K.F_DECKS + 11 * d : K.F_DECKS + 11 * d + 11] = [
            data["card_ids"].index(c) for c in idx
        ]
    return fixed


def replay(record: dict) -> dict:
    """Validate a record decision by decision and report the scores after every scoring.

    Returns
    -------
    dict
        ``{"finished": True, "players", "points": [...], "winner": seat or None (shared),
        "points_by_source": {source: [...]}, "scorings": [...], "plies"}``. A record that
        stops before the game ends gives ``"finished": False``, the points after the last
        scoring completed within it, ``"winner": None`` and ``"points_by_source": None``.

    Raises
    ------
    InvalidRecordError
        Not an El Grande record, bad setup, unknown kind/value notation, or too many decisions.
    IllegalMoveError
        A decision that is not legal in the position reached (index, decision, legal options).
    """
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        raise InvalidRecordError('not an el-grande record (expected {"game": "el-grande", ...})')
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
    fmt = record.get("format")
    if fmt is None:
        fmt = 2 if any(isinstance(d, dict) and d.get("kind") in _V2_KINDS for d in decisions) else 1
    if isinstance(fmt, bool) or fmt not in (1, 2):
        raise InvalidRecordError(f'"format" must be 1 or 2, got {json.dumps(fmt)}')
    if fmt == 1:
        for i, d in enumerate(decisions):
            if isinstance(d, dict) and d.get("kind") in _V2_KINDS:
                raise InvalidRecordError(
                    f'decision {i}: "format" 1 records have no intake/veto_cut decisions '
                    f"(format 2 has them)"
                )
    fixed = _parse_setup(record.get("setup"), npl, variant.get("veto") == "off")
    log = _log_array(decisions, players=npl)
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
        legacy=fmt == 1,
    )
    if err >= 0 and err == len(decisions):
        # the record stops before the game ends: unfinished, with the points of the scorings
        # completed before its end (the kernel played on from there with stand-in choices)
        events = [e for e in _events(ev, nev, npl) if e["after_decision"] <= err]
        return {
            "finished": False,
            "players": npl,
            "points": list(events[-1]["scores"]) if events else [0] * npl,
            "winner": None,
            "points_by_source": None,
            "scorings": events,
            "plies": int(err),
        }
    if err >= 0:
        move = decisions[err] if err < len(decisions) else "(end of record)"
        if isinstance(move, dict):
            move = f"seat {move.get('seat')} {move.get('kind')} {move.get('value')}"
        raise IllegalMoveError(int(err), str(move), _legal_strings(eb, int(ne)))
    if nd != len(decisions):
        raise InvalidRecordError(
            f"record has {len(decisions)} decisions but the game ended after {nd}"
        )
    points = [int(st[K.O_SCORE + p]) for p in range(npl)]
    share = _win_share(
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
    check_recorded_points(record, result)
    return result


def format_replay(result: dict) -> str:
    """Readable replay report: scores after each scoring, final points by source, winner."""
    lines = (
        []
        if result["finished"]
        else [f"not finished: the record ends after {result['plies']} decisions"]
    )
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


def court_intake(
    st: np.ndarray,
    seat: int,
    power_value: int,
    decisions: list,
    variant: dict | None = None,
    legacy: bool = False,
) -> np.ndarray:
    """Court intake for a played power card (§3 step 4a, §3.1, A13) on ``st`` in place, with the
    scripted decisions: ``("intake", seat, N)`` (none when nothing can be taken), then one
    ``("shortfall", seat, REGION)`` per caballero beyond the province. ``legacy=True``: format-1
    rules (the province's maximum, then ``("shortfall", seat, REGION | "stop")`` decisions)."""
    var = SPEC.variant_codes(SPEC.resolve_variant(variant))
    T = build_tables()
    D = _buffers(_log_array(decisions, players=int(st[K.O_NP])), K.MODE_REPLAY, legacy)
    K.step(st, T, var, D, K.STEP_COURT_INTAKE, seat, T[K.T_PCAB + power_value])
    if D[K.D_CTX][K.C_ERR] >= 0 or D[K.D_CTX][K.C_PTR] != len(decisions):
        ply = int(D[K.D_CTX][K.C_ERR]) if D[K.D_CTX][K.C_ERR] >= 0 else int(D[K.D_CTX][K.C_PTR])
        raise IllegalMoveError(
            ply,
            str(decisions[ply]) if ply < len(decisions) else "(end)",
            _legal_strings(D[K.D_ERRBUF], int(D[K.D_CTX][K.C_NERR])),
        )
    return st


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable tables of the ``"el_grande"`` block: action cards, power cards, point sources."""
    lines = [
        "action cards (taker minus mean of the others; 95% CI)",
        f"{'card':5s} {'taken/game':>10s}  {'score diff':>26s}  {'win-share diff':>28s}  text",
    ]
    for cid, e in block["action_cards"].items():
        if e["taken"]:
            sd, wd = e["score_diff"], e["win_diff"]
            lines.append(
                f"{cid:5s} {e['taken_per_game']:10.3f}  {sd['mean']:+7.2f} [{sd['low']:+7.2f}, {sd['high']:+7.2f}]"
                f"  {wd['mean']:+7.3f} [{wd['low']:+7.3f}, {wd['high']:+7.3f}]  {e['text'][:50]}"
            )
        else:
            lines.append(f"{cid:5s} {0.0:10.3f}  (never taken)")
    pc = block["power_cards"]
    if pc.get("win_rate_by_first_value"):
        lines.append(f"win rate by the power card played in round {pc['first_round']}")
        for v, w in pc["win_rate_by_first_value"].items():
            lines.append(
                f"  {int(v):2d}: {w['estimate']:.4f} [{w['low']:.4f}, {w['high']:.4f}]  n={w['n']}"
            )
    lines.append("points by source (mean per seat-game, share of all points)")
    for name, d in block["points_by_source"].items():
        lines.append(
            f"  {name:9s} {d['mean']:7.2f} [{d['low']:7.2f}, {d['high']:7.2f}]  {100 * d['share']:5.1f}%"
        )
    ci, v = block.get("court_intake"), block.get("vetoes")
    if ci:
        tk = ci["taken"]
        lines.append(
            f"court intake per seat-game: {tk['mean']:.2f} [{tk['low']:.2f}, {tk['high']:.2f}] taken of "
            f"{ci['allowed']:.2f} allowed ({100 * ci['share']:.1f}%)"
        )
    if v:
        lines.append(
            f"vetoes per game: {v['per_game']:.3f} (whole action {v['all']}, remaining part {v['partial']})"
        )
    return "\n".join(lines)
