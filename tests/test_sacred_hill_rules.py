"""Sacred Hill rules: every test vector of docs/rules/sacred_hill.md §8, plus §3.2 and §3.4."""

import numpy as np
import pandas as pd
import pytest

import kernels.sacred_hill as K
from mcsim.games import sacred_hill as SH
from mcsim.games.sacred_hill import legal_move_names, play, position
from mcsim.games.sacred_hill.summary import match_points


def names(bb):
    return {K.CELL_NAMES[i] for i in range(64) if (int(bb) >> i) & 1}


def moves(state):
    return set(legal_move_names(state))


# ---------------------------------------------------------------- §1 geometry
class TestGeometry:
    def test_s1_45_hills_without_corners(self):
        """docs/rules/sacred_hill.md §1: 7x7 minus the corners A1, G1, A7, G7 = 45 hills."""
        assert K.N_HILLS == 45
        assert not {"A1", "G1", "A7", "G7"} & set(K.CELL_NAMES.values())
        assert K.CELL_NAMES[int(SH.parse_move("D4"))] == "D4"

    def test_s1_neighbour_counts(self):
        """docs/rules/sacred_hill.md §1/§8: 25 hills with 4 neighbours, 12 with 3, 8 with 2."""
        deg = [bin(int(K.BB_ORTH[i])).count("1") for i in K.CELLS]
        assert (deg.count(4), deg.count(3), deg.count(2)) == (25, 12, 8)
        three = {K.CELL_NAMES[int(i)] for i in K.CELLS if bin(int(K.BB_ORTH[i])).count("1") == 3}
        assert three == {"C1", "D1", "E1", "C7", "D7", "E7", "A3", "A4", "A5", "G3", "G4", "G5"}

    def test_s8_76_orthogonal_and_112_knight_pairs(self):
        """docs/rules/sacred_hill.md §8: 76 orthogonal pairs, 112 knight pairs."""
        assert sum(bin(int(K.BB_ORTH[i])).count("1") for i in K.CELLS) == 2 * 76
        assert sum(bin(int(K.BB_KNIGHT[i])).count("1") for i in K.CELLS) == 2 * 112

    def test_s8_knight_degrees(self):
        """docs/rules/sacred_hill.md §8: knight degrees 9x8, 4x6, 8x5, 16x4, 8x3 (table §1)."""
        deg = [bin(int(K.BB_KNIGHT[i])).count("1") for i in K.CELLS]
        assert {d: deg.count(d) for d in set(deg)} == {8: 9, 6: 4, 5: 8, 4: 16, 3: 8}
        # the §1 table, row 7 .. row 1, corners skipped, against the kernel masks and against a
        # count of the 8 knight offsets that stay on the 45 hills (no kernel code)
        rows = {
            7: "34443",
            6: "3456543",
            5: "4588854",
            4: "4688864",
            3: "4588854",
            2: "3456543",
            1: "34443",
        }
        hills = {f"{c}{r}" for r in range(1, 8) for c in "ABCDEFG"} - {"A1", "G1", "A7", "G7"}
        offsets = [(a, b) for a in (-2, -1, 1, 2) for b in (-2, -1, 1, 2) if abs(a) != abs(b)]
        checked = 0
        for r, digits in rows.items():
            cols = "BCDEF" if r in (1, 7) else "ABCDEFG"
            assert len(digits) == len(cols)
            for c, d in zip(cols, digits):
                i = SH.parse_move(f"{c}{r}")
                assert bin(int(K.BB_KNIGHT[i])).count("1") == int(d), f"{c}{r}"
                on_board = sum(1 for a, b in offsets if f"{chr(ord(c) + a)}{r + b}" in hills)
                assert on_board == int(d), f"{c}{r}"
                checked += 1
        assert checked == 45

    def test_s8_zone_of_d4(self):
        """docs/rules/sacred_hill.md §8: the 12-hill proximity zone of D4."""
        d4 = SH.parse_move("D4")
        assert names(K.BB_ZONE_KNIGHT12[d4]) == {
            "B4",
            "C3",
            "C4",
            "C5",
            "D2",
            "D3",
            "D5",
            "D6",
            "E3",
            "E4",
            "E5",
            "F4",
        }
        assert names(K.BB_ZONE_CHEBYSHEV8[d4]) == {"C3", "C4", "C5", "D3", "D5", "E3", "E4", "E5"}

    def test_s8_knight_set_of_d4(self):
        """docs/rules/sacred_hill.md §8: knight set of D4."""
        assert names(K.BB_KNIGHT[SH.parse_move("D4")]) == {
            "B3",
            "B5",
            "C2",
            "C6",
            "E2",
            "E6",
            "F3",
            "F5",
        }

    def test_s8_zone_and_knight_set_of_a2(self):
        """docs/rules/sacred_hill.md §8: A2 knight set {B4, C3, C1}; zone {A3, A4, B1, B2, B3, C2}."""
        a2 = SH.parse_move("A2")
        assert names(K.BB_KNIGHT[a2]) == {"B4", "C3", "C1"}
        assert names(K.BB_ZONE_KNIGHT12[a2]) == {"A3", "A4", "B1", "B2", "B3", "C2"}


# ---------------------------------------------------------------- §3.1 Manoeuvres
M = ("manoeuvre", "manoeuvre")


class TestManoeuvres:
    def test_s8_empty_board_45_then_44(self):
        """docs/rules/sacred_hill.md §8: 45 first moves; the second player then has 44."""
        s = np.zeros(K.S_SIZE, np.uint64)
        assert len(moves(s)) == 45
        play(s, "D4")
        assert len(moves(s)) == 44

    def test_s8_red_d4_only_8_moves(self):
        """docs/rules/sacred_hill.md §8: Red D4 only: C2, E2, B3, F3, B5, F5, C6, E6."""
        s = position(red=["D4"], phases=M)
        assert moves(s) == {"C2", "E2", "B3", "F3", "B5", "F5", "C6", "E6"}

    def test_s8_red_d4_blue_c2_7_moves(self):
        """docs/rules/sacred_hill.md §8: Red D4, Blue C2: Red has 7 (C2 is gone)."""
        s = position(red=["D4"], blue=["C2"], phases=M)
        assert moves(s) == {"E2", "B3", "F3", "B5", "F5", "C6", "E6"}

    def test_s8_red_d4_b3_7_moves(self):
        """docs/rules/sacred_hill.md §8: Red D4 + B3: C1, E2, F3, A5, F5, C6, E6."""
        assert moves(position(red=["D4", "B3"], phases=M)) == {
            "C1",
            "E2",
            "F3",
            "A5",
            "F5",
            "C6",
            "E6",
        }

    def test_s8_red_d4_f5_7_moves(self):
        """docs/rules/sacred_hill.md §8: Red D4 + F5: C2, E2, B3, G3, B5, C6, E7."""
        assert moves(position(red=["D4", "F5"], phases=M)) == {
            "C2",
            "E2",
            "B3",
            "G3",
            "B5",
            "C6",
            "E7",
        }

    def test_s8_red_d4_b5_f3_6_moves(self):
        """docs/rules/sacred_hill.md §8: Red D4 + B5 + F3: E1, C2, A3, G5, E6, C7."""
        assert moves(position(red=["D4", "B5", "F3"], phases=M)) == {
            "E1",
            "C2",
            "A3",
            "G5",
            "E6",
            "C7",
        }

    @pytest.mark.parametrize(
        "cell,expected",
        [("A2", {"C1", "C3", "B4"}), ("B1", {"D2", "A3", "C3"}), ("D1", {"B2", "F2", "C3", "E3"})],
    )
    def test_s8_lone_edge_forts(self, cell, expected):
        """docs/rules/sacred_hill.md §8: a lone fort on A2 / B1 / D1 and its Manoeuvres."""
        assert moves(position(red=[cell], phases=M)) == expected

    def test_s8_second_fort_count_equals_knight_degree(self):
        """docs/rules/sacred_hill.md §8: second-fort Manoeuvres = knight degree of the first."""
        for i in K.CELLS:
            s = position(red=[K.CELL_NAMES[int(i)]], phases=M)
            assert len(moves(s)) == bin(int(K.BB_KNIGHT[i])).count("1")

    def test_s3_1_enemy_forts_do_not_restrict(self):
        """docs/rules/sacred_hill.md §3.1: a Manoeuvre may sit next to enemy forts."""
        s = position(red=["D4"], blue=["C3", "E3", "D3"], phases=M)
        assert "C2" in moves(s) and "E2" in moves(s)

    def test_s2_chebyshev8_allows_straight_two_steps(self):
        """docs/rules/sacred_hill.md §2, §7 A2: chebyshev8 forbids only the 8 hills around."""
        v = {"zone": "chebyshev8"}
        s = position(red=["D4", "B3"], phases=M, variant=v)
        # B5 (two straight steps from B3) is allowed now; D2/C5-style hills stay excluded
        assert "B5" in moves(s)
        assert "B5" not in moves(position(red=["D4", "B3"], phases=M))


class TestPerft:
    @pytest.mark.parametrize("zone", ["knight12", "chebyshev8"])
    def test_s8_perft_plies_1_to_3(self, zone):
        """docs/rules/sacred_hill.md §8: perft 45, 1 980, 9 632 (ply 3 = 43 x 224)."""
        assert [SH.perft(d, {"zone": zone}) for d in (1, 2, 3)] == [45, 1980, 9632]

    def test_perft_zero_is_one(self):
        assert SH.perft(0) == 1


# ---------------------------------------------------------------- §3.2 the phase switch
class TestTransition:
    # Red's lone A2 has its three knight hills (B4, C3, C1) taken by Blue: no Manoeuvre left.
    def _red_stuck(self, variant):
        s = position(red=["A2"], blue=["B4", "C3", "C1"], phases=M, variant=variant)
        assert K.legal_moves(s)[1] == K.KIND_BUILD_ADJACENT  # Red announces Battle
        assert moves(s) == {"B2", "A3"}
        play(s, "B2", variant)
        return s

    def test_s3_2_box_grace_manoeuvre(self):
        """docs/rules/sacred_hill.md §3.2 box: the opponent makes exactly one more Manoeuvre."""
        v = {"transition": "box"}
        s = self._red_stuck(v)
        assert s[K.S_PHASE + 1] == K.PHASE_GRACE
        assert K.legal_moves(s)[1] == K.KIND_MANOEUVRE
        assert moves(s) == {"E2", "E4", "D5", "A6", "C6"}
        play(s, "E2", v)
        assert s[K.S_PHASE + 1] == K.PHASE_BATTLE
        play(s, "A3", v)  # Red builds adjacent
        # Blue is in Battle now although Manoeuvres (e.g. A6) would still fit the knight rule
        assert K.legal_moves(s)[1] == K.KIND_BUILD_ADJACENT
        assert "A6" not in moves(s)

    def test_s3_2_web2014_no_grace(self):
        """docs/rules/sacred_hill.md §3.2 web2014: the opponent advances at once."""
        v = {"transition": "web2014"}
        s = self._red_stuck(v)
        assert s[K.S_PHASE + 1] == K.PHASE_BATTLE
        assert K.legal_moves(s)[1] == K.KIND_BUILD_ADJACENT

    def test_s3_2_transitions_differ_in_random_play(self):
        """docs/rules/sacred_hill.md §3.2: the two readings give different game records."""
        import mcsim

        a = mcsim.simulate("sacred-hill", games=2000, seed=3, variant={"transition": "box"})
        b = mcsim.simulate("sacred-hill", games=2000, seed=3, variant={"transition": "web2014"})
        assert (a.games["manoeuvre_forts_1"] != b.games["manoeuvre_forts_1"]).any()

    def test_s3_2_grace_player_without_manoeuvre_battles(self):
        """docs/rules/sacred_hill.md §3.2 box: with no Manoeuvre the opponent goes to Battle."""
        s = position(red=["D4"], blue=["A2"], to_move=1, phases=("battle", "grace"))
        s[K.S_FORTS] |= np.uint64(int(K.BB_KNIGHT[SH.parse_move("A2")]))  # take Blue's knights
        assert K.legal_moves(s)[1] == K.KIND_BUILD_ADJACENT


# ---------------------------------------------------------------- §3.3 sieges and captures
B = ("battle", "battle")


class TestSieges:
    def test_s8_capture_a2_merges_a3_b2(self):
        """docs/rules/sacred_hill.md §8: Blue lone A2, Red A3 + B2: Red must capture A2."""
        s = position(red=["A3", "B2"], blue=["A2", "F6"], phases=B)
        assert moves(s) == {"A2"}
        assert K.legal_moves(s)[1] == K.KIND_CAPTURE
        assert K.count_kingdoms(s[K.S_FORTS]) == 2
        play(s, "A2")
        assert K.count_kingdoms(s[K.S_FORTS]) == 1
        assert names(s[K.S_FORTS + 1]) == {"F6"}

    def test_s8_d1_needs_all_three_neighbours(self):
        """docs/rules/sacred_hill.md §8: Blue lone D1 with Red C1, E1 only is not besieged."""
        s = position(red=["C1", "E1"], blue=["D1"], phases=B)
        assert K.legal_moves(s)[1] != K.KIND_CAPTURE
        s = position(red=["C1", "E1", "D2"], blue=["D1"], phases=B)
        assert moves(s) == {"D1"}

    def test_s8_d4_needs_four(self):
        """docs/rules/sacred_hill.md §8: Blue lone D4 with 3 of 4 Red neighbours: no siege."""
        assert (
            K.legal_moves(position(red=["C4", "E4", "D3"], blue=["D4"], phases=B))[1]
            != K.KIND_CAPTURE
        )
        assert moves(position(red=["C4", "E4", "D3", "D5"], blue=["D4"], phases=B)) == {"D4"}

    def test_s8_unlinked_d4_d6(self):
        """docs/rules/sacred_hill.md §8: Blue D4 and D6 unlinked; Red C4 E4 D3 D5: D4 besieged."""
        s = position(red=["C4", "E4", "D3", "D5"], blue=["D4", "D6"], phases=B)
        assert moves(s) == {"D4"}

    def test_s8_kingdom_of_two_not_capturable(self):
        """docs/rules/sacred_hill.md §8: Blue D4-D5 surrounded by Red is not capturable."""
        s = position(red=["C4", "E4", "D3", "C5", "E5", "D6"], blue=["D4", "D5"], phases=B)
        assert K.legal_moves(s)[1] == K.KIND_BUILD_ADJACENT

    def test_s3_3_several_captures_choose_one(self):
        """docs/rules/sacred_hill.md §3.3, §4: several pending captures: one per turn, any."""
        s = position(red=["A3", "B2", "F2", "G3"], blue=["A2", "G2", "D4"], phases=B)
        assert moves(s) == {"A2", "G2"}
        play(s, "G2")
        play(s, "D5")  # Blue builds
        assert moves(s) == {"A2"}  # the other capture is still mandatory

    def test_s8_fig11e_build_anywhere_then_capture(self):
        """docs/rules/sacred_hill.md §8 (seed fig. 11e): Red forced onto a Blue-besieged hill
        is captured on Blue's next move."""
        # Red's only fort A2 is walled in by Blue; the only empty hills: E5 (all neighbours
        # Blue) plus others not touching Red.
        blue = ["A3", "B2", "D5", "F5", "E4", "E6"]
        s = position(red=["A2"], blue=blue, phases=B)
        legal, kind = K.legal_moves(s)
        assert kind == K.KIND_BUILD_ANYWHERE
        play(s, "E5")
        assert K.legal_moves(s)[1] == K.KIND_CAPTURE
        assert moves(s) == {"E5", "A2"}  # A2 is lone and besieged too

    def test_s3_3_battle_must_build_adjacent(self):
        """docs/rules/sacred_hill.md §3.3.2: build next to own forts when possible."""
        s = position(red=["D4"], blue=["A2"], phases=B)
        assert moves(s) == {"C4", "E4", "D3", "D5"}


# ---------------------------------------------------------------- §3.4 end, §3.5 scoring
class TestEndAndScoring:
    @pytest.mark.parametrize(
        "k0,k1,t0,t1,expected",
        [
            (2, 3, 23, 22, [3, 0]),  # seed fig. 11f: Red 2 kingdoms, Blue 3 -> Red wins 3
            (1, 4, 20, 25, [5, 0]),  # Red 1 kingdom, Blue 4 -> Red wins 5
            (3, 3, 24, 21, [5, 0]),  # kingdoms 3-3, territory 24/21 -> Red wins 5
            (2, 2, 22, 23, [0, 3]),  # kingdoms 2-2, territory 22/23 -> Blue wins 3
        ],
    )
    def test_s8_scoring_examples(self, k0, k1, t0, t1, expected):
        """docs/rules/sacred_hill.md §8 / §3.5: scoring examples with exact points."""
        out = np.zeros(2, np.int64)
        K.points_from(k0, k1, t0, t1, out)
        assert list(out) == expected

    def test_s3_5_full_board_scored(self):
        """docs/rules/sacred_hill.md §3.5: a full board, Red rows 1-3 + A4..C4, Blue the rest."""
        all_names = list(K.CELL_NAMES.values())
        red = [n for n in all_names if int(n[1]) <= 3] + ["A4", "B4", "C4"]
        blue = [n for n in all_names if n not in red]
        s = position(red=red, blue=blue, phases=B)
        assert K.is_terminal(s)  # full, no lone forts
        out = np.zeros(2, np.int64)
        assert K.score_final(s, out) == 0  # 1 kingdom each: territory decides
        assert (len(red), len(blue)) == (22, 23)
        assert list(out) == [0, 3]

    def test_s3_4_full_board_with_lone_fort_is_not_over(self):
        """docs/rules/sacred_hill.md §3.4: besieged forts left at the end must be captured;
        the player with nothing to capture passes."""
        all_names = list(K.CELL_NAMES.values())
        red = [n for n in all_names if n != "D4"]
        s = position(red=red, blue=["D4"], to_move=1, phases=B)
        assert not K.is_terminal(s)
        assert legal_move_names(s) == ["pass"]
        play(s, "pass")
        assert moves(s) == {"D4"}
        play(s, "D4")
        assert K.is_terminal(s)
        assert legal_move_names(s) == []

    def test_s8_match_example(self):
        """docs/rules/sacred_hill.md §8 / §3.6: Red +3 then Blue +5: Blue wins the match 5-3."""
        # Red starts game 1 (seat 0) and sits in seat 1 in game 2.
        games = pd.DataFrame({"score_0": [3, 5], "score_1": [0, 0]})
        assert match_points(games).tolist() == [[3, 5]]

    def test_s3_4_random_game_lengths(self):
        """docs/rules/sacred_hill.md §3.4: random play lasts 45-54ish plies, mean about 47.4.

        20 000 games: the sd of the length is about 1.6 plies, so the standard error of the mean
        is about 0.011; we allow 0.1 (9 standard errors) around 47.4, which the file rounds."""
        import mcsim

        r = mcsim.simulate("sacred-hill", games=20_000, seed=7)
        assert r.games["length_plies"].min() >= 45
        assert abs(r.games["length_plies"].mean() - 47.4) < 0.1
        # every game ends on a full board with 45 forts
        assert ((r.games["territory_0"] + r.games["territory_1"]) == 45).all()
