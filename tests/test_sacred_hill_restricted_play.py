"""Sacred Hill restricted play (docs/rules/sacred_hill.md §10): a seat given ``forbid=NAME+NAME``
never takes a forbidden option while another legal move exists, and the per-game table counts
the decisions that avoided one (``forbid_avoided_<k>``) and those the rules forced
(``forbid_forced_<k>``).

Every check of a simulated run reads the recorded moves with the naive second implementation
(``tests/sacred_hill_naive.py``, the rules coded again from the rules file) and classifies each
legal move by the option definitions of §10 here, in Python, from the naive game's own hills and
neighbour masks: never from the kernel's flags. Counts are exact for the fixed seeds below.
"""

import numpy as np
import pandas as pd
import pytest

import kernels.sacred_hill as K
import mcsim
from kernels import search
from kernels.rng import new_state
from mcsim.errors import UnknownPolicyError
from mcsim.games import sacred_hill as SH
from mcsim.games.sacred_hill.records import position
from tests.conftest import one_error_line
from tests.sacred_hill_naive import INDEX, ORTH, Game

OPTIONS = [r.name for r in SH.SPEC.restrictions]
BUILDS = ("manoeuvre", "adjacent", "anywhere")


def forbidden(g: Game, option: str) -> set[str]:
    """The legal moves of the naive game ``g`` (player to move) that ``option`` forbids, by the
    definitions of docs/rules/sacred_hill.md §10 (captures and passes never)."""
    kind = g.forced()
    if kind not in BUILDS:
        return set()
    own, opp = g.forts[g.to_move], g.forts[1 - g.to_move]
    out = set()
    for name in g.moves():
        nb = ORTH[INDEX[name]]
        hit = {
            "manoeuvre-next-to-enemy": kind == "manoeuvre" and nb & opp != 0,
            "manoeuvre-on-edge": kind == "manoeuvre" and bin(nb).count("1") < 4,
            "battle-next-to-enemy": kind != "manoeuvre" and nb & opp != 0,
            "fill-safe-connection": kind != "manoeuvre" and nb & ~own == 0,
            "build-into-siege": nb & ~opp == 0,
        }[option]
        if hit:
            out.add(name)
    return out


def forbids(policy: str) -> tuple[str, ...]:
    """The option names of a policy string's ``forbid=`` (empty when it has none)."""
    for item in policy.partition(":")[2].split(","):
        key, _, val = item.partition("=")
        if key.strip() == "forbid":
            return tuple(val.split("+"))
    return ()


def audit(r, policies, variant=None):
    """Replay every record of run ``r`` with the naive rules and check restricted play.

    Returns ``(avoided, forced, uses)``: int[n_games, 2] counts of the decisions that avoided
    a forbidden option / were forced into one, and ``uses[option]`` int[n_games, 2], how often
    each seat took a move of that option (restricted or not). Asserts that a restricted seat
    never took a forbidden move while a permitted one was legal, that the naive points equal the
    record's, and that the counts equal the kernel's columns when the run has them.
    """
    variant = variant or {}
    n = len(r.records)
    masks = [forbids(p) for p in policies]
    avoided = np.zeros((n, 2), np.int64)
    forced = np.zeros((n, 2), np.int64)
    uses = {o: np.zeros((n, 2), np.int64) for o in OPTIONS}
    for i, rec in enumerate(r.records):
        g = Game(**variant)
        for ply, move in enumerate(rec["moves"]):
            p = g.to_move
            legal = set(g.moves())
            for o in OPTIONS:
                uses[o][i, p] += move in forbidden(g, o)
            bad = set().union(*(forbidden(g, o) for o in masks[p]))
            if bad == legal and bad:
                forced[i, p] += 1
            elif bad:
                avoided[i, p] += 1
                assert move not in bad, (i, ply, move, sorted(bad))
            g.play(move)  # asserts the move is legal by the naive rules
        assert g.over() and g.points() == rec["points"], i
    if any(masks):
        for k in range(2):
            assert r.games[f"forbid_avoided_{k}"].tolist() == avoided[:, k].tolist()
            assert r.games[f"forbid_forced_{k}"].tolist() == forced[:, k].tolist()
    return avoided, forced, uses


def recorded(policies, games, seed=7, variant=None, **kw):
    return mcsim.simulate(
        "sacred-hill",
        games=games,
        seed=seed,
        policies=policies,
        variant=variant or {},
        record=games,
        workers=1,
        **kw,
    )


# ---------------------------------------------------------------- each option, random play
#: per option, random vs random with seat 0 restricted (seed 7, 150 games): the totals of
#: (avoided, forced) decisions of seat 0, and seat 0's uses of the option unrestricted
EACH_OPTION = {
    "manoeuvre-next-to-enemy": (580, 286, 422),
    "manoeuvre-on-edge": (718, 437, 625),
    "battle-next-to-enemy": (904, 1303, 1630),
    "fill-safe-connection": (653, 54, 111),
    # under random play a hill the opponent besieges is legal only when nothing else is
    "build-into-siege": (0, 9, 9),
}


@pytest.fixture(scope="module")
def unrestricted_random():
    r = recorded(["random"], 150)
    return r, audit(r, ["random", "random"])


@pytest.mark.parametrize("option", OPTIONS)
def test_s10_each_option_under_random_play(option, unrestricted_random):
    """docs/rules/sacred_hill.md §10: with one option forbidden, seat 0 never takes it unless
    forced; its uses of the option drop to the forced count (every forced decision takes one),
    from the unrestricted run's count; the kernel's columns equal the naive counts."""
    pol = [f"random:forbid={option}", "random"]
    r = recorded(pol, 150)
    avoided, forced, uses = audit(r, pol)
    base_uses = unrestricted_random[1][2][option][:, 0].sum()
    assert uses[option][:, 0].sum() == forced[:, 0].sum()
    assert avoided[:, 1].sum() == forced[:, 1].sum() == 0
    assert (int(avoided[:, 0].sum()), int(forced[:, 0].sum()), int(base_uses)) == EACH_OPTION[
        option
    ]


# ---------------------------------------------------------------- every policy kind
#: (policies, games, variant, expected totals per seat: avoided, forced)
LINEUPS = {
    "greedy": (
        ["tactician", "greedy:forbid=battle-next-to-enemy+build-into-siege"],
        60,
        {},
        [(0, 0), (424, 462)],
    ),
    "tactician": (
        ["tactician:forbid=manoeuvre-on-edge+fill-safe-connection+build-into-siege", "greedy"],
        60,
        {},
        [(506, 154), (0, 0)],
    ),
    "both-web2014": (
        [
            "tactician:eps=0.2,forbid=manoeuvre-next-to-enemy",
            "random:forbid=fill-safe-connection+build-into-siege",
        ],
        60,
        {"transition": "web2014"},
        [(197, 108), (271, 52)],
    ),
    # plain UCT (mcts1, the mcts of 2026-12-02: kernels.search.search) and RAVE with a kept
    # tree (mcts: search_steps.search_rave), each filtering its own moves in tree and rollouts
    "mcts": (
        ["mcts1:iterations=40,forbid=manoeuvre-next-to-enemy+battle-next-to-enemy", "random"],
        6,
        {},
        [(47, 73), (0, 0)],
    ),
    "mcts-seat1": (
        ["greedy", "mcts1:iterations=40,rollout=2,forbid=manoeuvre-on-edge+build-into-siege"],
        4,
        {"zone": "chebyshev8"},
        [(0, 0), (26, 13)],
    ),
    "mcts-rave": (
        ["mcts:iterations=40,forbid=manoeuvre-next-to-enemy+battle-next-to-enemy", "random"],
        6,
        {},
        [(61, 65), (0, 0)],
    ),
    "mcts-rave-seat1": (
        ["greedy", "mcts:iterations=40,rollout=2,forbid=manoeuvre-on-edge+build-into-siege"],
        4,
        {"zone": "chebyshev8"},
        [(0, 0), (25, 16)],
    ),
    # a hill the opponent besieges is rarely legal beside another move (random play: never in
    # the 150 games above); greedy against tactician reaches that choice
    "greedy-sacrifice": (
        ["greedy:forbid=build-into-siege", "tactician"],
        200,
        {},
        [(21, 125), (0, 0)],
    ),
}


@pytest.mark.parametrize("name", list(LINEUPS))
def test_s10_every_policy_kind_keeps_its_restriction(name):
    """docs/rules/sacred_hill.md §10: heuristics and mcts (tree and rollouts filtered) with a
    restricted seat; the naive rules read the records: no forbidden move unless forced, the
    counts equal the kernel's columns, the records replay (points checked)."""
    pol, games, variant, expected = LINEUPS[name]
    r = recorded(pol, games, variant=variant)
    avoided, forced, _ = audit(r, pol, variant)
    for rec in r.records:
        assert SH.replay(rec)["points"] == rec["points"]
    got = [(int(avoided[:, k].sum()), int(forced[:, k].sum())) for k in range(2)]
    assert got == expected


# ---------------------------------------------------------------- unrestricted runs unchanged
@pytest.mark.parametrize(
    "policy", ["random", "tactician", "mcts:iterations=30", "mcts1:iterations=30"]
)
def test_a_zero_mask_is_the_unrestricted_game(policy):
    """The mask-0 path of every policy plays the game of a run without restricted play (same
    random numbers; the golden tables, tests/test_golden_tables.py, pin those), and its table
    has no forbid columns."""
    zero = policy + (",forbid_mask=0" if ":" in policy else ":forbid_mask=0")
    a = mcsim.simulate("sacred-hill", games=40, seed=3, policies=[policy, "greedy"])
    b = mcsim.simulate("sacred-hill", games=40, seed=3, policies=[zero, "greedy"])
    pd.testing.assert_frame_equal(a.games, b.games)
    assert not [c for c in a.games.columns if c.startswith("forbid")]


def test_restricted_run_is_deterministic_for_any_worker_count_and_chunk_size():
    """shared/DESIGN.md, Seeding: a restricted game i depends only on (seed, i) too."""
    pol = ["tactician:forbid=manoeuvre-on-edge", "random:forbid=battle-next-to-enemy"]
    a = mcsim.simulate("sacred-hill", games=600, seed=4, policies=pol, workers=1)
    b = mcsim.simulate("sacred-hill", games=600, seed=4, policies=pol, workers=2, chunk_size=64)
    pd.testing.assert_frame_equal(a.games, b.games)
    assert int(a.games["forbid_avoided_0"].sum()) > 0 < int(a.games["forbid_avoided_1"].sum())


# ---------------------------------------------------------------- common random numbers
@pytest.mark.parametrize("seat", [0, 1])
def test_s10_restriction_touches_only_the_restricted_seats_choices(seat):
    """The deal of random numbers is common: each game's moves are those of the unrestricted
    game up to the restricted seat's first decision that avoided a forbidden option (the
    opponent's and the seat's own earlier choices are the same functions of (seed, game)), and
    a game where the restriction never bit is the unrestricted game move for move."""
    pol = ["random", "random"]
    pol[seat] = "random:forbid=fill-safe-connection"
    free = recorded(["random"], 150)
    restricted = recorded(pol, 150)
    avoided, _, _ = audit(restricted, pol)
    same = 0
    for i, (a, b) in enumerate(zip(free.records, restricted.records)):
        g = Game()
        first = len(b["moves"])
        for ply, move in enumerate(b["moves"]):
            if g.to_move == seat and forbidden(g, "fill-safe-connection") not in (
                set(),
                set(g.moves()),
            ):
                first = ply
                break
            g.play(move)
        assert a["moves"][:first] == b["moves"][:first], i
        if avoided[i, seat] == 0:
            assert a["moves"] == b["moves"], i
            same += 1
    assert same == {0: 59, 1: 70}[seat]  # of 150 games


# ---------------------------------------------------------------- the search's own filter
def _two_hills_left():
    """Red (seat 0) to move in Battle with two empty hills, both next to red forts: A5 touches
    Blue's kingdom A3-A4 (a kingdom of 2, never besieged, §2), G4 only red forts."""
    blue = ["A3", "A4"]
    red = [h for h in K.CELL_NAMES.values() if h not in blue + ["A5", "G4"]]
    return position(red=red, blue=blue, to_move=0)


def _ctx(forbid_seat, option):
    return K.search_steps.SacredHillSearchContext(
        np.int64(K.TRANSITION_BOX),
        K.BB_ZONE_KNIGHT12,
        np.int64(K.POLICY_RANDOM),
        np.zeros(K.N_HEURISTIC_PARAMS),
        np.zeros(2, np.int64),
        np.int64(forbid_seat),
        np.uint64(1 << SH.SPEC.restriction(option).bit),
    )


def test_s10_search_tree_filters_only_the_searching_seat():
    """docs/rules/sacred_hill.md §10, §3.3.2: the tree's legal step drops the searching seat's
    forbidden moves (A5 is next to an enemy fort) and leaves the other seat's alone."""
    legal = search.steps_for(K.search_steps.SacredHillSearchContext)["legal"]
    moves = np.zeros(64, np.int64)
    names = {}
    for seat in (0, 1):
        n = legal(_two_hills_left(), _ctx(seat, "battle-next-to-enemy"), moves)
        names[seat] = sorted(K.CELL_NAMES[int(m)] for m in moves[:n])
    assert names == {0: ["G4"], 1: ["A5", "G4"]}


def test_s10_rollouts_filter_only_the_searching_seat():
    """docs/rules/sacred_hill.md §10, §3.3-3.5: from the two-hills position a random rollout
    that may not build next to Blue plays G4, Blue then A5: red 42 forts, blue 3, one kingdom
    each, red wins 2 + 39 = 41 every time. Unfiltered (the restriction belongs to Blue, who
    never meets it), red plays A5 in about half the rollouts, Blue must build on G4, which red
    besieges, and red captures it: 43 forts to 2, red wins 43."""
    rollout = search.steps_for(K.search_steps.SacredHillSearchContext)["rollout"]
    got = {}
    for seat in (0, 1):
        scores = np.zeros(2)
        out = []
        for k in range(40):
            rollout(
                _two_hills_left(), _ctx(seat, "battle-next-to-enemy"), new_state(1, k, 9), scores
            )
            out.append(tuple(int(x) for x in scores))
        got[seat] = sorted(set(out))
    assert got == {0: [(41, 0)], 1: [(41, 0), (43, 0)]}


# ---------------------------------------------------------------- bad specs
@pytest.mark.parametrize(
    "policy, text",
    [
        ("random:forbid=capture", "forbid='capture': sacred-hill has no such option; choose from:"),
        (
            "tactician:forbid=" + "+".join(OPTIONS),
            "forbids every option restricted play knows",
        ),
        ("random:forbid=", "forbid='' must be option names joined by +"),
        ("greedy:forbid=manoeuvre-on-edge++build-into-siege", "must be option names joined by +"),
        ("random:forbid=manoeuvre-on-edge+manoeuvre-on-edge", "'manoeuvre-on-edge' given twice"),
    ],
)
def test_bad_restriction_specs_are_one_line_errors_before_play(policy, text, run):
    """Unknown option (captures are not options, §10), every option at once, an empty or
    malformed name list: one line, from the API and the command line, before any game."""
    with pytest.raises(UnknownPolicyError) as e:
        mcsim.simulate("sacred-hill", games=1, policies=[policy])
    assert text in str(e.value) and "\n" not in str(e.value)
    one_error_line(run("simulate", "sacred-hill", "-n", "1", "-p", policy), 2, text)


def test_no_group_covers_a_whole_decision():
    """docs/rules/sacred_hill.md §10: every option forbids some hills of a build, never a whole
    decision, so there is no exhaustive group and both Battle options together are accepted."""
    assert SH.SPEC.exhaustive_groups == ()
    assert [(r.name, r.group, r.bit) for r in SH.SPEC.restrictions] == [
        ("manoeuvre-next-to-enemy", "manoeuvre", 0),
        ("manoeuvre-on-edge", "manoeuvre", 1),
        ("battle-next-to-enemy", "battle", 2),
        ("fill-safe-connection", "battle", 3),
        ("build-into-siege", "sacrifice", 4),
    ]
    pol = "random:forbid=battle-next-to-enemy+fill-safe-connection"
    r = mcsim.simulate("sacred-hill", games=5, seed=1, policies=[pol])
    assert r.games["forbid_forced_0"].sum() > 0
