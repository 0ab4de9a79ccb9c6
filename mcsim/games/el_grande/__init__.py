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
  single-step actions). Steps (``kernels.el_grande.rules.nominal_steps``): one per caballero moved or
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

``mcts`` policy (parameters in ``MCTS_PARAMS``): information-set Monte Carlo tree
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

Restricted play (docs/rules/el_grande.md §11; ``-p "heuristic:forbid=castillo+power-13"``): a
seat can be forbidden action-card types (``1a`` .. ``4g``, ``king``; ``CARD_TYPES``), the Castillo
as the destination of its placements and moves (``castillo``) and power values (``power-1`` ..
``power-13``), in ``forbid_mask`` (card types, Castillo) and ``forbid_mask2`` (bit v: power v),
the last two parameters of every policy. The kernel filters the seat's options at each decision
(``kernels.el_grande.rules.restrict``; the heuristic's look-aheads also skip a forbidden Castillo)
and counts ``forbid_avoided`` / ``forbid_forced`` per seat (columns only in restricted runs).

Points by source: ``general`` (region points at general scorings), ``special`` (region points at
special scorings), ``king`` (+2 King bonus), ``grande`` (+2 Grande bonus), ``castillo`` (points
for scoring the Castillo, general or special).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from kernels import el_grande as K
from kernels.rng import STREAM_DEAL, new_state
from mcsim.errors import DataFileError, InvalidRecordError
from mcsim.files import read_json
from mcsim.games.base import (
    GameSpec,
    ParamSpec,
    PolicySpec,
    Prepared,
    RestrictionSpec,
    RunConfig,
    VariantSpec,
    forbid_mask_param,
    kept_mcts,
    no_ensemble,
    policy_arrays,
    restricted_seats,
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

#: restricted play (docs/rules/el_grande.md "Restricted play"): the action-card types in the
#: order of action_cards.json, as the summary's card table groups the 45 cards (identical
#: copies are one type; ``K`` the King's card): (card id, option name, help). Type k is bit k of
#: ``forbid_mask`` (``kernels.el_grande`` ``T_CTYPE``); ``build_tables`` refuses a data file
#: whose card ids differ
CARD_TYPES = (
    ("1a", "1a", "move own caballeros out of one region"),
    ("1b", "1b", "place 2 more caballeros into any regions / the Castillo"),
    ("1c", "1c", "either 1a or 1b"),
    ("1d", "1d", "move up to 5 caballeros out of one region (2 copies)"),
    ("1e", "1e", "move up to 3 opponents' caballeros"),
    ("1f", "1f", "move up to 3 caballeros of any colour"),
    ("1g", "1g", "move up to 2 own and 2 opponents' caballeros (2 copies)"),
    ("1h", "1h", "move up to 4 own caballeros"),
    ("1i", "1i", "move up to 4 caballeros of any colour"),
    ("2a", "2a", "Veto (2 copies)"),
    ("2b", "2b", "decay of authority: opponents return their whole court"),
    ("2c", "2c", "decay of authority: opponents return 3 court caballeros"),
    ("2d", "2d", "the angry King: opponents return 3 caballeros each"),
    ("2e", "2e", "return 1 caballero of each opponent"),
    ("2f", "2f", "opponents secretly lose 2 caballeros of one region"),
    ("2g", "2g", "opponents secretly lose all caballeros of one region"),
    ("2h", "2h", "special scoring: a region of your choice (3 copies)"),
    ("3a", "3a", "special scoring: the 4-regions (2 copies)"),
    ("3b", "3b", "special scoring: the 5-regions (2 copies)"),
    ("3c", "3c", "special scoring: the 6- and 7-regions"),
    ("3d", "3d", "special scoring: the Castillo (2 copies)"),
    ("3e", "3e", "special scoring: first places only"),
    ("3f", "3f", "special scoring: the region(s) with the most caballeros"),
    ("3g", "3g", "special scoring: the region(s) with the fewest caballeros"),
    ("3h", "3h", "special scoring: a region of your choice"),
    ("4a", "4a", "mobile scoreboard (3 copies)"),
    ("4b", "4b", "Royal Advisor: the King to an adjacent region"),
    ("4c", "4c", "Eviction"),
    ("4d", "4d", "move your Grande (2 copies)"),
    ("4e", "4e", "take a played power card back (2 copies)"),
    ("4f", "4f", "the Court: 2 caballeros province -> court"),
    ("4g", "4g", "secret special scoring"),
    ("K", "king", "the King's card (every round): the King anywhere, place up to 5"),
)
#: restricted play: the bit of ``forbid_mask`` that forbids the Castillo as a destination
CASTILLO_BIT = K.FB_CASTILLO
RESTRICTIONS = (
    tuple(
        RestrictionSpec(
            name,
            f"never take action card {cid}: {text}",
            "action card",
            k,
            source=RULES + (" §6 Deck 5" if cid == "K" else f" §6 Deck {cid[0]}"),
        )
        for k, (cid, name, text) in enumerate(CARD_TYPES)
    )
    + (
        RestrictionSpec(
            "castillo",
            "never put a caballero into the Castillo: placements, card 1b, the destination of "
            "every move (own and opponents' caballeros)",
            "Castillo",
            CASTILLO_BIT,
            source=RULES + " §3 step 4c, §3.3, §6 deck 1",
        ),
    )
    + tuple(
        RestrictionSpec(
            f"power-{v}",
            f"never bid power card {v}",
            "power card",
            v,
            param="forbid_mask2",
            source=RULES + " §3 step 3, §3.1",
        )
        for v in range(1, 14)
    )
)
#: the restricted-play mask parameters, appended to every policy's parameters
FORBID_PARAMS = (forbid_mask_param(), forbid_mask_param("forbid_mask2"))

#: game-specific options (``--option KEY=VALUE``): none
OPTIONS: dict[str, str] = {}

#: the ``mcts`` policy (also the parameters of ``mcts1``, ``kept_mcts``, while they agree)
MCTS_POLICY = PolicySpec(
    "mcts",
    K.POL_MCTS,
    "information-set Monte Carlo tree search (kernels/search.py) over its own decisions; "
    "each iteration reshuffles the unrevealed action cards and redraws the others' "
    "secret choices; other seats and rollouts play the heuristic",
    MCTS_PARAMS + FORBID_PARAMS,
)


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
        PolicySpec(
            "random",
            K.POL_RANDOM,
            "uniform over the legal options of every decision",
            FORBID_PARAMS,
        ),
        PolicySpec(
            "heuristic",
            K.POL_HEURISTIC,
            "bids for caballeros/turn order, takes the card with the best look-ahead, places and "
            "moves by one-step evaluation of majorities, scores where ahead, vetoes big swings",
            HEURISTIC_PARAMS + FORBID_PARAMS,
        ),
        MCTS_POLICY,
        kept_mcts(MCTS_POLICY),  # mcts1: today's mcts, kept (base.kept_mcts)
    ),
    summary_key="el_grande",
    max_plies=4000,
    description="majorities in nine Spanish regions; power-card bidding, 45 action cards, Castillo",
    score_bounds=(0, None),  # points are only ever added
    restrictions=RESTRICTIONS,
    exhaustive_groups=("action card", "power card"),
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
    types = [cid for cid, _, _ in CARD_TYPES]
    for i, c in enumerate(data["card_rows"]):
        if c["id"] not in types:
            raise DataFileError(
                f"el_grande/action_cards.json: card {c['id']!r} is not one of the action-card "
                f"types restricted play names ({', '.join(types)})"
            )
        T[K.T_CTYPE + i] = types.index(c["id"])
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
def check_config(config: RunConfig) -> RunConfig:
    """Nothing beyond ``resolve_config``'s checks (see ``mcsim.games.base.GameModule``)."""
    return config


def prepare(config: RunConfig) -> Prepared:
    """Build the kernel tables (``config`` from ``resolve_config``; see ``mcsim.games.base``).

    Raises
    ------
    DataFileError
    """
    variant = config.variant
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


def has_mcts_seat(prep: Prepared) -> bool:
    """Whether a seat of the lineup plays mcts (then the search's own batch kernel runs)."""
    return bool((prep.policy_ids == K.POL_MCTS).any())


def heuristic_defaults() -> np.ndarray:
    """The heuristic's default parameters (float64[P]): what mcts seats and rollouts use."""
    return np.array([p.default for p in HEURISTIC_PARAMS], dtype=np.float64)


def win_shares(score: np.ndarray, unplayed: np.ndarray, final_tie: int) -> np.ndarray:
    """Each seat's share of the win (float64[n, seats]): the top scores share it equally;
    ``final_tie`` 1 breaks score ties by the higher sum of unplayed power cards (A6)."""
    key = score.astype(np.float64)
    if final_tie == 1:
        key = key + unplayed / 1000.0
    top = key.max(axis=1, keepdims=True)
    w = (key == top).astype(np.float64)
    return w / w.sum(axis=1, keepdims=True)


def forbid_words(prep: Prepared) -> np.ndarray:
    """Each seat's forbidden options as the kernel reads them (int64[seats], bits
    ``kernels.el_grande.FB_*``): ``forbid_mask | forbid_mask2 << FB_POWER`` from the seat's
    policy parameters (set by ``forbid=NAME+NAME``; 0 = unrestricted), each mask cut to the bits
    ``RESTRICTIONS`` declare (a mask typed by number cannot reach another mask's options).
    Restricted play, docs/rules/el_grande.md §11."""
    out = np.zeros(prep.config.players, dtype=np.int64)
    for k, choice in enumerate(prep.config.policies):
        names = [p.name for p in SPEC.policy(choice.name).params]
        m1 = int(prep.policy_params[k, names.index("forbid_mask")]) & _DECLARED["forbid_mask"]
        m2 = int(prep.policy_params[k, names.index("forbid_mask2")]) & _DECLARED["forbid_mask2"]
        out[k] = m1 | (m2 << K.FB_POWER)
    return out


#: the bits each mask parameter's restrictions use
_DECLARED = {
    param: sum(1 << r.bit for r in RESTRICTIONS if r.param == param)
    for param in ("forbid_mask", "forbid_mask2")
}


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
    past the action's end counts as partial). When a seat is restricted
    (``mcsim.games.base.restricted_seats``): ``forbid_avoided`` / ``forbid_forced`` [n, seats]
    int64 (each seat's decisions where a forbidden option was legal and it chose a permitted one /
    where every legal option was forbidden; 0 for unrestricted seats); also when a mask parameter
    was typed by number (``forbid_mask=...``) instead of ``forbid=``.
    """
    npl = prep.config.players
    forbid = forbid_words(prep)
    if has_mcts_seat(prep):  # a separate kernel: random/heuristic runs never compile the search
        r = K.play_batch_mcts(
            np.int64(first_game_index),
            np.int64(n_games),
            np.uint64(root_seed),
            np.int64(npl),
            prep.policy_ids.astype(np.int64),
            prep.policy_params.astype(np.float64),
            prep.policy_params[:, : K.N_MPARAMS].astype(np.float64),
            heuristic_defaults(),
            prep.variant_codes.astype(np.int64),
            prep.tables["T"],
            forbid,
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
            forbid,
        )
    score, src, plies, pwr, taker, tround, kingby, unplayed, intake, vetoes, fb = r
    out: dict[str, np.ndarray] = {
        "score": score,
        "length": plies.astype(np.int32),
        "win_share": win_shares(score, unplayed, int(prep.variant_codes[K.V_FINALTIE])),
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
    if restricted_seats(prep.config) or forbid.any():  # forbid= names, or a mask typed by number
        out["forbid_avoided"] = fb[:, :, 0].astype(np.int64)
        out["forbid_forced"] = fb[:, :, 1].astype(np.int64)
    return out


def search_start(prep: Prepared, seed: int, game_index: int) -> tuple:
    """The first decision of game ``game_index`` of ``seed`` as ``kernels.search``'s steps see
    it: ``(state, ctx)`` (used by the kernel test battery, ``tests/test_kernel_battery.py``).

    The game's first decision is the power bid of the start seat in the first round played
    (§3; round 2 with ``rounds=6``), a searched decision of an ``mcts`` seat, so this is the
    root that ``play._drive_game`` gives ``choose_mcts`` there: ``search_root`` of the state
    after ``setup`` (the deal of ``(seed, game_index)``, as ``start_game`` draws it), no
    decisions since the round start, seat ``O_START``, kind ``K_POWER``. The context is
    ``choose_mcts``'s: an ``ElGrandeSearchContext`` of the run's tables and variant codes, the
    engine buffers ``Ds``, state row, config and deck-position scratch of ``search_scratch``
    (heuristic defaults as ``play_mcts`` passes them), the game buffers of
    ``play.game_buffers`` (their ``special_action`` cfunc), random rollouts (``CF_ROLLOUT``),
    the default ``scope`` and horizon 0 (the steps play the game to its end)."""
    T = prep.tables["T"]
    var = np.ascontiguousarray(prep.variant_codes, dtype=np.int64)
    npl = prep.config.players
    hpar = heuristic_defaults()
    scr = K.search_steps.search_scratch(npl, 66, hpar)
    root, pos, cf, Ds, st = scr[0], scr[11], scr[12], scr[13], scr[14]
    G = K.game_buffers(1, npl, np.uint64(seed), np.zeros(K.FIXED_SIZE, np.int32))
    ck = np.zeros(K.STATE_SIZE, np.int32)
    deal = new_state(np.uint64(seed), np.uint64(game_index), np.uint64(STREAM_DEAL))
    K.setup(ck, T, var, np.int64(npl), deal, G[K.G_FIXED])
    r0 = 2 if var[K.V_ROUNDS] == 1 else 1  # rounds=6 skips round 1
    seat = int(ck[K.O_START])
    log = np.zeros((1, 4), np.int32)
    ok = K.search_root(root, ck, r0, log, 0, 0, seat, K.K_POWER, T, var, pos)
    assert ok
    defaults = {p.name: p.default for p in MCTS_PARAMS}
    cf[K.CF_ROLLOUT] = K.POL_RANDOM
    cf[K.CF_SCOPE] = int(defaults["scope"])
    cf[K.CF_HORIZON] = 0
    Ds[K.D_POL][:] = cf[K.CF_ROLLOUT]
    ctx = K.search_steps.ElGrandeSearchContext(T, var, Ds, st, cf, pos, G)
    return root.copy(), ctx


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


# ---------------------------------------------------------------- the rest of the game protocol
CHUNK_SIZE = 20_000
CHUNK_MULTIPLE = 1
EVALUATE_BANDS: tuple = ()
EVALUATE_GROUPS: dict = {}
ORACLE_POLICY: str | None = None


ensemble_options = no_ensemble(SPEC)


# ---------------------------------------------------------------- the other roles
# imported last: records and summary use the names above
from mcsim.games.el_grande import charts, records, summary  # noqa: E402

CHARTS = charts.CHARTS  # the report's figures of the game (``mcsim.games.el_grande.charts``)
finalize_summary = summary.finalize_summary
format_summary = summary.format_summary
partial_summary = summary.partial_summary
summarize = summary.summarize
format_replay = records.format_replay
perft = records.perft
record_games = records.record_games
replay = records.replay

# the drawer of ``mcsim show`` (imported after the re-exports above, which it reads)
from mcsim.games.el_grande import show  # noqa: E402

show_frames = show.frames  # one frame per ply (``mcsim.games.el_grande.show``)
