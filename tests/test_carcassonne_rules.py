"""Carcassonne + The Gifts: one test per rule / worked example of docs/rules/carcassonne.md.

Positions are built with ``mcsim.games.carcassonne.Position`` (the kernel's own placement, merge
and scoring functions). Coordinates as in §5: start tile D at (0, 0), city north, x east, y south;
rotation r = r quarter turns clockwise from the orientation of the §2 table.
"""

import json

import numpy as np
import pytest

import kernels.carcassonne as K
from mcsim.errors import DataFileError, IllegalMoveError, InvalidRecordError
from mcsim.games import carcassonne as G
from mcsim.games.carcassonne import Position

RED, BLUE = 0, 1


# ------------------------------------------------------------------------------------- §2 data


def test_s2_tile_checksums():
    """docs/rules/carcassonne.md §2: 72 tiles, 6 cloisters, 10 pennants, 79/94/115 edges."""
    d = G.load_data()
    tiles = d["tiles"]
    assert len(tiles) == 24
    assert sum(t["count"] for t in tiles) == 72
    assert sum(t["count"] for t in tiles if t["cloister"]) == 6
    assert sum(t["count"] * sum(c["pennants"] for c in t["cities"]) for t in tiles) == 10
    assert sum(t["count"] * t["edges"].count("C") for t in tiles) == 79
    assert sum(t["count"] * t["edges"].count("R") for t in tiles) == 94
    assert sum(t["count"] * t["edges"].count("F") for t in tiles) == 115
    assert sum(t["count"] for t in tiles if "R" in t["edges"]) == 45
    assert sum(t["count"] for t in tiles if "C" in t["edges"]) == 44
    assert d["start_tile"] == "D"


def test_s2_kernel_tables_match_data():
    """docs/rules/carcassonne.md §1.1: rotation maps side s -> s+k, port p -> p+2k."""
    T = G.default_tables()
    letters = [t["letter"] for t in G.load_data()["tiles"]]
    v = letters.index("V")  # F F R R, road S-W
    assert list(T[K.TB_EDGE][v, 0]) == [K.EDGE_FIELD, K.EDGE_FIELD, K.EDGE_ROAD, K.EDGE_ROAD]
    assert list(T[K.TB_EDGE][v, 1]) == [K.EDGE_ROAD, K.EDGE_FIELD, K.EDGE_FIELD, K.EDGE_ROAD]
    # V field f0 = ports {5, 6}; after one turn {7, 0}
    assert sorted(np.flatnonzero(T[K.TB_PORT_SEG][v, 1] == T[K.TB_PORT_SEG][v, 0][5])) == [0, 7]
    # distinct rotations: B and C one, U/F/G/H/X fewer than four
    assert T[K.TB_ROT_OK][letters.index("B")] == 1 and T[K.TB_ROT_OK][letters.index("C")] == 1
    assert T[K.TB_ROT_OK][letters.index("U")] == 0b11 and T[K.TB_ROT_OK][letters.index("X")] == 1
    assert T[K.TB_ROT_OK][letters.index("V")] == 0b1111
    assert sum(T[K.TB_COUNTS]) == 72


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["tiles"][0].update(count=3), "checksums.tiles: table gives 73, declared 72"),
        (lambda d: d["tiles"][3].update(edges="CRFX"), "tile D: 'edges' must be 4 letters"),
        (
            lambda d: d["tiles"][3]["cities"][0].update(sides="E"),
            "tile D: city segment 0 uses side E",
        ),
        (
            lambda d: d["tiles"][3]["fields"][1].update(ports="345"),
            "tile D: every port of a road/field side",
        ),
        (
            lambda d: d["tiles"][5]["cities"][0].update(pennants=0),
            "checksums.pennants: table gives 8",
        ),
        (lambda d: d.update(start_tile="Z"), "start_tile: must be the letter"),
    ],
)
def test_s2_bad_tile_data_raises_one_line(tmp_path, mutate, message):
    """docs/rules/carcassonne.md §2: a malformed tile table is refused with a one-line error."""
    doc = json.loads((G.DATA_DIR / "tiles.json").read_text())
    mutate(doc)
    (tmp_path / "tiles.json").write_text(json.dumps(doc))
    for name in ("gifts.json", "scoring.json"):
        (tmp_path / name).write_text((G.DATA_DIR / name).read_text())
    with pytest.raises(DataFileError) as e:
        G.load_data(str(tmp_path))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_s4_1_gift_cards():
    """docs/rules/carcassonne.md §4.1: 25 cards, 5 of each of the five types, 2 points unopened."""
    g = G.load_data()["gifts"]
    assert [c["id"] for c in g["cards"]] == list(G.GIFT_IDS)
    assert [c["count"] for c in g["cards"]] == [5] * 5
    assert g["unopened_points"] == 2


# ------------------------------------------------------------------------------------- §3 base


def test_s5_1_two_tile_city_scores_4():
    """docs/rules/carcassonne.md §5 #1: D + E closing the start city = 4 (tiny_city=true: 2)."""
    pos = Position()
    pos.place("E", 0, -1, rot=2, meeple="city0", player=RED)
    assert pos.scores == [4, 0]
    assert pos.supply(RED) == 7  # the knight returned
    old = Position(variant={"tiny_city": "true"})
    old.place("E", 0, -1, rot=2, meeple="city0", player=RED)
    assert old.scores == [2, 0]


def test_s5_2_city_with_pennant_complete_8_incomplete_4():
    """docs/rules/carcassonne.md §5 #2: M + two E caps = 2*3 + 2*1 = 8; incomplete 3 + 1 = 4."""
    pos = Position(start=False)
    pos.place("M", 10, 0, 0, meeple="city0", player=RED, check=False)
    pos.place("E", 10, -1, 2, check=False)
    assert pos.scores == [0, 0]
    pos.place("E", 11, 0, 3, check=False)
    assert pos.scores == [8, 0]
    inc = Position(start=False)
    inc.place("M", 10, 0, 0, meeple="city0", player=RED, check=False)
    inc.place("E", 10, -1, 2, check=False)
    inc.place("N", 11, 0, 3, check=False)  # city W + N: still open to the north
    assert inc.feature(10, 0, "city0") == {
        "tiles": 3,
        "open": 1,
        "pennants": 1,
        "meeples": [1, 0],
        "complete": False,
    }
    assert inc.finish() == [4, 0]


def test_s5_3_incomplete_big_city_12_tiles_5_pennants_is_17():
    """docs/rules/carcassonne.md §5 #3 (JCZ #198): 12 tiles + 5 pennants incomplete = 17."""
    pos = Position(start=False)
    row = [
        ("E", 1),
        ("F", 0),
        ("F", 0),
        ("G", 0),
        ("R", 0),
        ("R", 0),
        ("R", 0),
        ("T", 0),
        ("Q", 0),
        ("S", 0),
        ("S", 0),
        ("E", 3),
    ]
    for x, (letter, rot) in enumerate(row):
        pos.place(letter, x, 10, rot, check=False)
    pos.add_meeple(0, 10, "city0", RED)
    f = pos.feature(5, 10, "city0")
    assert (f["tiles"], f["pennants"], f["complete"]) == (12, 5, False)
    assert pos.finish() == [17, 0]


def test_s5_4_road_between_two_villages_is_3():
    """docs/rules/carcassonne.md §5 #4: L - U - W in a row, road complete over 3 tiles = 3."""
    pos = Position(start=False)
    pos.place("L", 0, 20, 0, check=False)
    pos.place("U", 1, 20, 1, meeple="road0", player=BLUE, check=False)
    assert pos.scores == [0, 0]
    pos.place("W", 2, 20, 0, check=False)
    assert pos.scores == [0, 3]
    assert pos.points("road") == [0, 3]


def test_s5_4_loop_closing_road_completes():
    """docs/rules/carcassonne.md §5 #4 (JCZ #60): four curves closing a loop complete the road."""
    pos = Position(start=False)
    pos.place("V", 0, 30, 3, meeple="road0", player=RED, check=False)
    pos.place("V", 1, 30, 0, check=False)
    pos.place("V", 1, 31, 1, check=False)
    assert pos.feature(0, 30, "road0")["open"] == 2
    pos.place("V", 0, 31, 2, check=False)
    assert pos.feature(0, 30, "road0")["complete"]
    assert pos.scores == [4, 0]


def test_s1_2_road_looping_back_to_one_crossroads_counts_it_once():
    """docs/rules/carcassonne.md §1.2, §6 #16: a road leaving and re-entering X counts X once."""
    pos = Position(start=False)
    pos.place("X", 0, 40, 0, check=False)
    pos.add_meeple(0, 40, "road1", RED)  # the east road
    pos.place("V", 1, 40, 0, check=False)
    pos.place("V", 1, 41, 1, check=False)
    pos.place("V", 0, 41, 2, check=False)  # joins X's south road: both ends at the crossroads
    f = pos.feature(0, 40, "road2")
    assert f["complete"] and f["tiles"] == 4
    assert pos.scores == [4, 0]


def test_s1_2_city_passing_twice_through_one_tile_counts_it_once():
    """docs/rules/carcassonne.md §1.2: both caps of H in one city: 6 distinct tiles, 2*6 = 12."""
    pos = Position(start=False)
    pos.place("H", 0, 50, 0, check=False)
    pos.add_meeple(0, 50, "city0", BLUE)
    pos.place("N", 1, 50, 3, check=False)
    pos.place("N", 1, 49, 2, check=False)
    pos.place("G", 0, 49, 0, check=False)
    pos.place("N", -1, 49, 1, check=False)
    assert pos.scores == [0, 0]
    pos.place("N", -1, 50, 0, check=False)
    f = pos.feature(0, 50, "city1")
    assert f["complete"] and f["tiles"] == 6
    assert pos.scores == [0, 12]


def test_s5_5_road_ending_at_monastery_and_village_is_3():
    """docs/rules/carcassonne.md §5 #5: A (stub S) - V (N-E curve) - L (W road) complete = 3."""
    pos = Position(start=False)
    pos.place("A", 0, 60, 0, check=False)
    pos.place("V", 0, 61, 2, meeple="road0", player=RED, check=False)
    pos.place("L", 1, 61, 0, check=False)
    assert pos.scores == [3, 0]
    gate = Position(start=False)  # same with the road ending at the city gate of S
    gate.place("S", 0, 60, 0, check=False)
    gate.place("V", 0, 61, 2, meeple="road0", player=RED, check=False)
    gate.place("W", 1, 61, 0, check=False)
    assert gate.scores == [3, 0]


def _ring(pos, cx, cy, k):
    offs = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
    for dx, dy in offs[:k]:
        pos.place("B", cx + dx, cy + dy, 0, check=False)


def test_s5_6_monastery_complete_9_incomplete_6_and_1():
    """docs/rules/carcassonne.md §5 #6: complete 9; at the end 1 + 5 neighbours = 6; alone 1."""
    pos = Position(start=False)
    pos.place("B", 20, 20, 0, meeple="cloister", player=RED, check=False)
    _ring(pos, 20, 20, 7)
    assert pos.scores == [0, 0]
    _ring_last = (1, 1)
    pos.place("B", 20 + _ring_last[0], 20 + _ring_last[1], 0, check=False)
    assert pos.scores == [9, 0] and pos.points("monastery") == [9, 0]
    five = Position(start=False)
    five.place("B", 20, 20, 0, meeple="cloister", player=BLUE, check=False)
    _ring(five, 20, 20, 5)
    assert five.finish() == [0, 6]
    alone = Position(start=False)
    alone.place("A", 20, 20, 0, meeple="cloister", player=RED, check=False)
    assert alone.finish() == [1, 0]


def _pennant_city(pos, red, blue):
    pos.place("M", 10, 0, 0, check=False)
    for _ in range(red):
        pos.add_meeple(10, 0, "city0", RED)
    for _ in range(blue):
        pos.add_meeple(10, 0, "city0", BLUE)
    pos.place("E", 10, -1, 2, check=False)
    pos.place("E", 11, 0, 3, check=False)


def test_s5_7_majority_and_ties():
    """docs/rules/carcassonne.md §5 #7: Red 2 / Blue 1 -> Red 8, Blue 0, all 3 return; 1/1 both 8."""
    pos = Position(start=False)
    _pennant_city(pos, 2, 1)
    assert pos.scores == [8, 0]
    assert pos.supply(RED) == 7 and pos.supply(BLUE) == 7
    tie = Position(start=False)
    _pennant_city(tie, 1, 1)
    assert tie.scores == [8, 8]


def test_s3_2_occupied_feature_refuses_a_meeple():
    """docs/rules/carcassonne.md §3.2 step 2: no meeple on a feature that already holds one."""
    pos = Position()
    pos.add_meeple(0, 0, "road0", BLUE)
    with pytest.raises(IllegalMoveError):
        pos.place("U", 1, 0, 1, meeple="road0", player=RED)
    pos2 = Position()
    pos2.add_meeple(0, 0, "road0", RED)
    with pytest.raises(IllegalMoveError):  # own meeple blocks too
        pos2.place("U", 1, 0, 1, meeple="road0", player=RED)
    pos3 = Position()
    pos3.add_meeple(0, 0, "road0", RED)
    pos3.place("U", 1, 0, 1, meeple="field0", player=RED)  # the field north of the road is free


def test_s3_2_completed_unoccupied_feature_scores_nobody_and_meeples_run_out():
    """docs/rules/carcassonne.md §3.2: no meeple -> nobody scores; 7 meeples, then none to place."""
    pos = Position()
    pos.place("E", 0, -1, rot=2)
    assert pos.scores == [0, 0]
    T = pos.T
    for _k in range(7):
        pos.add_meeple(0, 0, "field1", RED)
    assert pos.supply(RED) == 0
    opts = np.zeros(16, dtype=np.int64)
    pos.place("U", 1, 0, 1, check=False)
    assert K.meeple_options(pos.S, T, int(pos.S.sc[K.S_NPLACED]) - 1, RED, opts) == 1  # only "none"


def test_s5_8_field_majority_and_tie():
    """docs/rules/carcassonne.md §5 #8: field by completed X, Y and open Z: Red 2/Blue 1 -> 6/0."""

    def build(red, blue):
        pos = Position(start=False)
        pos.place("I", 5, 5, 0, check=False)  # caps N and E, field S/W touches both
        pos.place("E", 5, 4, 2, check=False)  # closes X
        pos.place("E", 6, 5, 3, check=False)  # closes Y
        pos.place("E", 5, 6, 2, check=False)  # its open cap (Z) touches the same field
        for _ in range(red):
            pos.add_meeple(5, 5, "field0", RED)
        for _ in range(blue):
            pos.add_meeple(5, 5, "field0", BLUE)
        return pos

    pos = build(2, 1)
    assert pos.finish() == [6, 0] and pos.points("farm") == [6, 0]
    tie = build(1, 1)
    assert tie.finish() == [6, 6]


def test_s3_3_field_touching_one_city_twice_counts_it_once():
    """docs/rules/carcassonne.md §3.3: a field bordering one completed city in two places gets 3."""
    pos = Position()
    pos.place("E", 0, -1, 2)  # city {D, E} complete
    pos.place("B", 1, -1, 0)  # field tile east of E
    pos.place("V", 1, 0, 0)  # joins B's field to D's north strip
    pos.add_meeple(1, -1, "field0", RED)
    assert pos.finish() == [3, 0]


def test_s3_3_each_field_scores_a_city_independently():
    """docs/rules/carcassonne.md §3.3 (v3): one city scores for two separate fields; v2: once."""

    def build(variant):
        pos = Position(variant=variant)
        pos.place("E", 0, -1, 2)  # city {D, E}; E's field and D's north strip are separate fields
        pos.add_meeple(0, -1, "field0", RED)
        pos.add_meeple(0, 0, "field0", RED)
        return pos

    assert build({}).finish() == [6, 0]
    assert build({"farms": "v2"}).finish() == [3, 0]
    assert build({"farms": "v1"}).finish() == [4, 0]
    assert build({"farms": "none"}).finish() == [0, 0]


def test_s5_11_start_tile_south_field_does_not_touch_the_city():
    """docs/rules/carcassonne.md §5 #11: D's south field (ports 3-6) gets 0 from D's city."""
    south = Position()
    south.place("E", 0, -1, 2)
    south.add_meeple(0, 0, "field1", BLUE)
    assert south.finish() == [0, 0]
    north = Position()
    north.place("E", 0, -1, 2)
    north.add_meeple(0, 0, "field0", BLUE)
    assert north.finish() == [0, 3]


def test_s5_13_unplaceable_tile():
    """docs/rules/carcassonne.md §5 #13: C (all city) has no legal spot next to a closed D city."""
    pos = Position()
    T = pos.T
    c = [t["letter"] for t in G.load_data()["tiles"]].index("C")
    assert K.placeable(pos.S, T, c)
    pos.place("E", 0, -1, 2)
    assert not K.placeable(pos.S, T, c)


def test_s3_2_placement_must_match_every_edge():
    """docs/rules/carcassonne.md §3.2 step 1: all shared edges equal; adjacency required."""
    pos = Position()
    with pytest.raises(IllegalMoveError):
        pos.place("E", 0, -1, 0)  # field facing D's city
    with pytest.raises(IllegalMoveError):
        pos.place("E", 5, 5, 0)  # not adjacent
    pos.place("E", 0, -1, 2)


# ------------------------------------------------------------------------------------- §4 gifts


def _road_with(red, blue, variant=None):
    pos = Position(variant=variant)
    pos.place("U", -1, 0, 1, check=False)  # road D + U: 2 tiles
    for _ in range(red):
        pos.add_meeple(0, 0, "road0", RED)
    for _ in range(blue):
        pos.add_meeple(0, 0, "road0", BLUE)
    return pos


def test_s5_14_extending_an_opponents_road_earns_a_gift():
    """docs/rules/carcassonne.md §5 #14, §4.2: Red extends Blue's road -> a gift."""
    pos = _road_with(0, 1)
    pos.place("U", 1, 0, 1, player=RED)
    assert pos.last_gift


def test_s5_14_one_gift_even_when_extending_own_city_too():
    """docs/rules/carcassonne.md §5 #14: the same tile also extends Red's city -> still a gift."""
    pos = _road_with(0, 1)
    pos.place("E", 1, -1, 2, check=False)
    pos.add_meeple(1, -1, "city0", RED)
    pos.place("L", 1, 0, 0, player=RED)  # road W joins Blue's road, city N joins Red's city
    assert pos.last_gift


def test_s5_15_shared_majority_gives_no_gift():
    """docs/rules/carcassonne.md §5 #15, §6 #1: Red 1 + Blue 1, Red extends -> no gift."""
    pos = _road_with(1, 1)
    pos.place("U", 1, 0, 1, player=RED)
    assert not pos.last_gift
    alt = _road_with(1, 1, {"gift_shared_majority": "gift"})
    alt.place("U", 1, 0, 1, player=RED)
    assert alt.last_gift


def test_s5_16_empty_feature_gives_no_gift():
    """docs/rules/carcassonne.md §5 #16: extending an unoccupied road or city -> no gift."""
    pos = _road_with(0, 0)
    pos.place("U", 1, 0, 1, player=RED)
    assert not pos.last_gift


def test_s4_2_connecting_into_a_tie_or_lead_gives_no_gift():
    """docs/rules/carcassonne.md §4.2 (c), §6 #2: joining the opponent's road into a tie: no gift."""
    pos = Position()
    pos.add_meeple(0, 0, "road0", BLUE)  # Blue on D's road (open E and W)
    pos.place("U", 2, 0, 1, check=False)
    pos.add_meeple(2, 0, "road0", RED)  # Red on a separate road two cells east
    pos.place("U", 1, 0, 1, player=RED)  # joins both: Red 1, Blue 1
    assert not pos.last_gift
    lead = Position()
    lead.add_meeple(0, 0, "road0", BLUE)
    lead.place("U", 2, 0, 1, check=False)
    lead.add_meeple(2, 0, "road0", RED)
    lead.add_meeple(2, 0, "road0", RED)
    lead.place("U", 1, 0, 1, player=BLUE)  # Blue joins into Red's lead -> Blue gets a gift
    assert lead.last_gift


def test_s6_2_majority_judged_before_placement_variant():
    """docs/rules/carcassonne.md §4.2 (c), §6 #2: joining into a tie: a gift when judged before."""
    for variant, want in (({}, False), ({"gift_majority_judged": "before_placement"}, True)):
        pos = Position(variant=variant)
        pos.add_meeple(0, 0, "road0", BLUE)
        pos.place("U", 2, 0, 1, check=False)
        pos.add_meeple(2, 0, "road0", RED)
        pos.place("U", 1, 0, 1, player=RED)  # Blue's road was Blue's before the tile joined it
        assert pos.last_gift is want
    pos = Position(variant={"gift_majority_judged": "before_placement"})
    pos.add_meeple(0, 0, "road0", RED)
    pos.add_meeple(0, 0, "road0", BLUE)
    pos.place("U", 1, 0, 1, player=RED)  # shared before: no gift unless shared counts
    assert not pos.last_gift
    pos = Position(
        variant={"gift_majority_judged": "before_placement", "gift_shared_majority": "gift"}
    )
    pos.add_meeple(0, 0, "road0", RED)
    pos.add_meeple(0, 0, "road0", BLUE)
    pos.place("U", 1, 0, 1, player=RED)
    assert pos.last_gift


def test_s6_3_completed_feature_still_gives_a_gift_by_default():
    """docs/rules/carcassonne.md §6 #3: gift decided before scoring; variant no_gift."""
    for variant, want in (({}, True), ({"gift_on_completion": "no_gift"}, False)):
        pos = Position(variant=variant)
        pos.add_meeple(0, 0, "city0", BLUE)
        pos.place("E", 0, -1, 2, player=RED)  # completes Blue's city
        assert pos.last_gift is want
        assert pos.scores == [0, 4]


def test_s4_2_monasteries_and_fields_never_give_gifts():
    """docs/rules/carcassonne.md §4.2: only roads and cities count."""
    pos = Position()
    pos.add_meeple(0, 0, "field1", BLUE)
    pos.place("B", 0, 1, 0, player=RED)  # extends Blue's field
    assert not pos.last_gift


def test_s5_17_cash_out():
    """docs/rules/carcassonne.md §5 #17, §6 #7: city Red 1, Blue 2: Red +6, Blue's stay, no score."""
    pos = Position()
    pos.add_meeple(0, 0, "city0", RED)
    pos.add_meeple(0, 0, "city0", BLUE)
    pos.add_meeple(0, 0, "city0", BLUE)
    assert pos.cash_out(RED, 0, 0, "city0") == 6
    assert pos.scores == [6, 0] and pos.supply(RED) == 7
    assert pos.feature(0, 0, "city0")["meeples"] == [0, 2]
    own = Position(variant={"cash_out_counts": "own"})
    own.add_meeple(0, 0, "city0", RED)
    own.add_meeple(0, 0, "city0", BLUE)
    assert own.cash_out(RED, 0, 0, "city0") == 2


def test_s5_19_road_sweeper():
    """docs/rules/carcassonne.md §5 #19: 4-tile road Red 1/Blue 1 -> both +4, all return, reusable."""
    pos = Position()
    pos.place("U", -1, 0, 1)
    pos.place("U", 1, 0, 1)
    pos.place("U", 2, 0, 1)
    pos.add_meeple(0, 0, "road0", RED)
    pos.add_meeple(0, 0, "road0", BLUE)
    pos.road_sweeper(1, 0, "road0")
    assert pos.scores == [4, 4] and pos.points("gift") == [4, 4]
    assert pos.supply(RED) == 7 and pos.supply(BLUE) == 7
    f = pos.feature(0, 0, "road0")
    assert f["meeples"] == [0, 0] and not f["complete"]
    pos.place("U", 3, 0, 1, meeple="road0", player=RED)  # can be occupied again
    maj = _road_with(1, 2)
    maj.place("U", 1, 0, 1, check=False)
    maj.place("U", 2, 0, 1, check=False)
    maj.road_sweeper(0, 0, "road0")
    assert maj.scores == [0, 4] and maj.supply(RED) == 7 and maj.supply(BLUE) == 7
    empty = _road_with(0, 0)
    empty.road_sweeper(0, 0, "road0")
    assert empty.scores == [0, 0]


def test_s4_4_synod_adds_a_monk_and_majority_scores():
    """docs/rules/carcassonne.md §4.4.1, §6 #19: a second monk ties the monastery: both score 9."""
    pos = Position(start=False)
    pos.place("B", 20, 20, 0, meeple="cloister", player=RED, check=False)
    pos.synod(BLUE, 20, 20)
    _ring(pos, 20, 20, 8)
    assert pos.scores == [9, 9]
    # Blue scored only thanks to the Synod monk: credited to Synod; Red's points are not
    assert (
        pos.S.gst[BLUE, K.G_POINTS + K.GIFT_SYNOD] == 9
        and pos.S.gst[RED, K.G_POINTS + K.GIFT_SYNOD] == 0
    )
    pos2 = Position(start=False)
    pos2.place("B", 20, 20, 0, meeple="cloister", player=RED, check=False)
    pos2.synod(BLUE, 20, 20)
    pos2.synod(BLUE, 20, 20)
    _ring(pos2, 20, 20, 3)
    assert pos2.finish() == [0, 4]


def test_s4_4_synod_targets_are_unfinished_monasteries():
    """docs/rules/carcassonne.md §4.4.1, §6 #5: completed monasteries are not targets."""
    pos = Position(start=False)
    pos.place("B", 20, 20, 0, check=False)
    pos.place("A", 30, 30, 0, check=False)
    _ring(pos, 20, 20, 8)
    out = np.zeros(16, dtype=np.int64)
    n = K.unfinished_monasteries(pos.S, pos.T, out)
    assert n == 9  # the ring's 8 monasteries + A; the completed centre one is not a target
    assert pos.node(20, 20, "cloister") not in out[:n]
    assert pos.node(30, 30, "cloister") in out[:n]


def test_s4_4_change_position():
    """docs/rules/carcassonne.md §4.4.4, §6 #8, #9: standing <-> lying on the same tile only."""
    pos = Position()
    pos.add_meeple(0, 0, "road0", RED)
    assert pos.change_targets(0, 0, "road0") == ["field0", "field1"]
    pos.change_position(RED, 0, 0, "road0", "field1")
    assert pos.feature(0, 0, "road0")["meeples"] == [0, 0]
    assert pos.feature(0, 0, "field1")["meeples"] == [1, 0]
    # lying -> standing, onto an occupied road (occupancy waived)
    pos.add_meeple(0, 0, "road0", BLUE)
    assert pos.change_targets(0, 0, "field1") == ["city0", "road0"]
    pos.change_position(RED, 0, 0, "field1", "road0")
    assert pos.feature(0, 0, "road0")["meeples"] == [1, 1]
    assert pos.finish() == [1, 1]  # the road D: 1 tile, shared
    assert (
        pos.S.gst[RED, K.G_POINTS + K.GIFT_CHANGE] == 1
    )  # Red scored only thanks to the moved meeple
    # a completed city on the tile is not a target (default) unless allowed
    done = Position()
    done.place("E", 0, -1, 2)
    done.add_meeple(0, 0, "field0", RED)
    assert done.change_targets(0, 0, "field0") == ["road0"]
    allow = Position(variant={"change_to_completed": "allow"})
    allow.place("E", 0, -1, 2)
    allow.add_meeple(0, 0, "field0", RED)
    assert allow.change_targets(0, 0, "field0") == ["city0", "road0"]


def test_s5_21_unopened_gifts_score_2_each():
    """docs/rules/carcassonne.md §5 #21, §4.5: 3 unopened gifts -> +6 at the end."""
    pos = Position(variant={"gifts": "true"})
    pos.S.hand[RED, K.GIFT_SYNOD] = 2
    pos.S.hand[RED, K.GIFT_TAKE2] = 1
    assert pos.finish() == [6, 0] and pos.points("gift") == [6, 0]
    off = Position()
    off.S.hand[RED, K.GIFT_SYNOD] = 2
    assert off.finish() == [0, 0]


def test_s4_2_gift_deck_reshuffles_discards_and_can_run_dry():
    """docs/rules/carcassonne.md §4.2, §6 #12: empty deck: reshuffle discards; both empty: none."""
    from kernels.carcassonne.rules import _draw_gift_card
    from kernels.rng import new_state

    pos = Position(variant={"gifts": "true"})
    rng = new_state(1, 0, 1)
    e = np.zeros(1, dtype=np.int32)
    pos.S.gdisc[K.GIFT_CASHOUT] = 1
    assert _draw_gift_card(pos.S, rng, K.MODE_PLAY, e, 0) == K.GIFT_CASHOUT
    assert pos.S.gdisc.sum() == 0 and pos.S.gdeck.sum() == 0
    assert _draw_gift_card(pos.S, rng, K.MODE_PLAY, e, 0) == -1


def _take2_record(take2_other="shuffle", keep="W"):
    """Red's road D+U; Blue extends it twice (two gifts, the deck holds only Take 2 cards); Blue
    holds X, opens Take 2, draws C (unplaceable: no open city edge), then W, keeps W; Red then
    draws the returned X."""

    def turn(p, tile, place, meeple=None, gift=None, received=None):
        return {
            "player": p,
            "tile": tile,
            "place": place,
            "meeple": meeple,
            "gift": gift,
            "received": received,
        }

    return {
        "game": "carcassonne",
        "players": 2,
        "variant": {"gifts": "true", "gift_deck": "take_2", "take2_other": take2_other},
        "tiles": ["U", "U", "E", "X", "C", "W", "X"],
        "gift_cards": ["take_2", "take_2"],
        "turns": [
            turn(0, "U", [1, 0, 1], meeple="road0"),
            turn(1, "U", [2, 0, 1], received="take_2"),
            turn(0, "E", [0, -1, 2]),
            turn(1, keep, [3, 0, 0], gift={"open": "take_2", "keep": keep}, received="take_2"),
            turn(0, "X", [-1, 0, 0]),
        ],
    }


def test_s5_22_take_2_constructed_record():
    """docs/rules/carcassonne.md §5 #22, §6 #10-#11: unplaceable extra draw removed, other tile
    shuffled back (and drawn again later); with take2_other=discard it is gone."""
    out = G.replay(_take2_record())
    assert out["finished"] is False and out["turns"] == 5
    assert out["gifts_held"] == [0, 1]  # Blue: +1, opened it, +1 again
    with pytest.raises(InvalidRecordError) as e:  # X was discarded, so it cannot be drawn again
        G.replay(_take2_record("discard"))
    assert "draw 6 (X) is not left in the draw pile" in str(e.value)
    rec = _take2_record()
    rec["turns"][3]["gift"]["keep"] = "C"  # C was unplaceable and removed
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 3
    assert e.value.legal == ['{"open": "take_2", "keep": "X"}', '{"open": "take_2", "keep": "W"}']


def test_s5_13_unplaceable_draw_is_removed_and_the_same_player_draws_again():
    """docs/rules/carcassonne.md §5 #13, §3.2 step 1: C is removed, Blue goes on with the next draw."""
    rec = {
        "game": "carcassonne",
        "players": 2,
        "tiles": ["E", "C", "U"],
        "turns": [
            {"tile": "E", "place": [0, -1, 2], "meeple": None},
            {"tile": "U", "place": [1, 0, 1], "meeple": "road0"},
        ],
    }
    out = G.replay(rec)
    assert out["turns"] == 2 and out["finished"] is False
    rec["turns"][1] = {"tile": "C", "place": [0, -2, 0], "meeple": None}
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 1 and e.value.legal == ["tile U"]
