"""El Grande rule tests: components, the worked examples E1-E8, region scoring cross-checked
against a naive scorer, general scoring with the Castillo, every action card on a constructed
position, the King's taboo. Source: docs/rules/el_grande.md (sections in the test names)."""

import copy

import numpy as np
import pytest

from kernels import el_grande as K
from kernels.rng import STREAM_POLICY, new_state
from mcsim.errors import DataFileError, IllegalMoveError
from mcsim.games import el_grande as G
from tests import el_grande_positions as EP

T = G.build_tables()
VAR = G.SPEC.variant_codes(G.SPEC.resolve_variant({}))
P = G.place_index


def cab(st, place, seat):
    return int(st[K.O_CAB + P(place) * 5 + seat])


def score(st, seat):
    return int(st[K.O_SCORE + seat])


def _policy_buffers(pids, seed=1, **params):
    """Decision buffers in play mode: policy ids per seat, heuristic defaults with ``params``."""
    names = [p.name for p in G.HEURISTIC_PARAMS]
    D = K.make_buffers(1, 1, len(names))
    for k, pid in enumerate(pids):
        D[0][k] = pid
        D[1][k] = [params.get(n, p.default) for n, p in zip(names, G.HEURISTIC_PARAMS)]
        D[2][k] = new_state(seed, 0, STREAM_POLICY + k)
    return D


# =============================================================================================
# §1-§3 components
# =============================================================================================
class TestComponents:
    def test_s1_2_fifteen_symmetric_borders(self):
        """docs/rules/el_grande.md §1.2: 15 undirected edges, degrees GA2 PV3 AR5 CA2 OC4 NC5 VA4 SE2 GR3."""
        adj = [int(T[K.T_ADJ + r]) for r in range(9)]
        for a in range(9):
            for b in range(9):
                assert ((adj[a] >> b) & 1) == ((adj[b] >> a) & 1)
            assert not (adj[a] >> a) & 1
        assert sum(bin(x).count("1") for x in adj) == 30
        deg = {G.load_data()["region_ids"][r]: bin(adj[r]).count("1") for r in range(9)}
        assert deg == {
            "GA": 2,
            "PV": 3,
            "AR": 5,
            "CA": 2,
            "OC": 4,
            "NC": 5,
            "VA": 4,
            "SE": 2,
            "GR": 3,
        }
        assert not (adj[P("OC")] >> P("SE")) & 1  # Old Castile is not adjacent to Sevilla

    def test_s1_1_values_castillo_and_boards(self):
        """docs/rules/el_grande.md §1.1, §1.3: printed values, Castillo 5/3/1, boards 8/4/0 and 4/0/0."""
        vals = T[K.T_VAL : K.T_VAL + 30].reshape(10, 3).tolist()
        assert vals == [
            [4, 2, 0],
            [5, 3, 1],
            [5, 4, 1],
            [4, 2, 1],
            [6, 4, 2],
            [7, 4, 2],
            [5, 3, 2],
            [4, 3, 1],
            [6, 3, 1],
            [5, 3, 1],
        ]
        assert T[K.T_BVAL : K.T_BVAL + 6].tolist() == [8, 4, 0, 4, 0, 0]

    def test_s6_deck_sizes_and_card_count(self):
        """docs/rules/el_grande.md §6: 45 action cards, decks 11/11/11/11/1."""
        decks = T[K.T_CDECK : K.T_CDECK + 45].tolist()
        assert [decks.count(d) for d in range(1, 6)] == [11, 11, 11, 11, 1]
        ids = G.load_data()["card_ids"]
        assert len(ids) == 45 and len(set(ids)) == 45 and ids[44] == "K"
        types = G.load_data()["card_types"]
        assert {
            t: types.count(t) for t in ("1d", "1g", "2a", "2h", "3a", "3b", "3d", "4a", "4d", "4e")
        } == {
            "1d": 2,
            "1g": 2,
            "2a": 2,
            "2h": 3,
            "3a": 2,
            "3b": 2,
            "3d": 2,
            "4a": 3,
            "4d": 2,
            "4e": 2,
        }

    def test_s3_1_power_cards(self):
        """docs/rules/el_grande.md §3.1: 13 power cards; 12/13 give 0, 9 gives 2, 1 gives 6.

        The file says the caballeros sum to 40 but its own table sums to 36 (data keeps the table)."""
        pc = T[K.T_PCAB : K.T_PCAB + 14].tolist()
        assert pc == [0, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0]
        assert sum(pc) == 36

    def test_s2_setup_counts(self):
        """docs/rules/el_grande.md §2: 2 at home + 7 court + 21 province = 30; homes distinct, not the King's."""
        for npl in (2, 3, 4, 5):
            for gi in range(30):
                st = np.zeros(K.STATE_SIZE, np.int32)
                fixed = np.zeros(K.FIXED_SIZE, np.int32)
                K.setup(st, T, VAR, npl, new_state(7, gi, 0), fixed)
                homes = [int(st[K.O_GRANDE + p]) for p in range(npl)]
                assert len(set(homes)) == npl and int(st[K.O_KING]) not in homes
                for p in range(npl):
                    on_board = sum(int(st[K.O_CAB + pl * 5 + p]) for pl in range(10))
                    assert (on_board, st[K.O_COURT + p], st[K.O_PROV + p]) == (2, 7, 21)
                    assert st[K.O_CAB + homes[p] * 5 + p] == 2
                decks = st[K.O_DECK : K.O_DECK + 44].reshape(4, 11)
                for d in range(4):
                    assert sorted(decks[d].tolist()) == list(range(11 * d, 11 * d + 11))

    @pytest.mark.parametrize(
        "mutate, message",
        [
            (lambda d: d["borders"].pop(), "14 borders, expected 15"),
            (lambda d: d["borders"].append(["GA", "GA"]), "must join two different"),
            (lambda d: d["borders"].append(["PV", "GA"]), "listed twice"),
            (lambda d: d["regions"][2].__setitem__("values", [1, 4, 5]), "region 'AR'"),
            (
                lambda d: d["setup"].__setitem__("court_caballeros", 8),
                r"home\+court\+province = 31",
            ),
        ],
    )
    def test_s1_2_bad_board_file(self, mutate, message):
        """docs/rules/el_grande.md §1.2: a malformed board file raises DataFileError naming the rule."""
        b = copy.deepcopy(G.load_data()["board"])
        mutate(b)
        with pytest.raises(DataFileError, match=message):
            G.validate_board(b)

    def test_s6_bad_card_files(self):
        """docs/rules/el_grande.md §6, §3.1: wrong deck size, unknown effect, power sum."""
        c = copy.deepcopy(G.load_data()["cards"])
        c["cards"][0]["copies"] = 2
        with pytest.raises(DataFileError, match="deck 1 has 12 cards, expected 11"):
            G.validate_cards(c)
        c = copy.deepcopy(G.load_data()["cards"])
        c["cards"][5]["effect"] = "teleport"
        with pytest.raises(DataFileError, match="unknown effect 'teleport'"):
            G.validate_cards(c)
        p = copy.deepcopy(G.load_data()["power"])
        p["cards"][0]["caballeros"] = 7
        with pytest.raises(DataFileError, match="sum to 37"):
            G.validate_power(p)


# =============================================================================================
# §4, §7, §8 region scoring
# =============================================================================================
class TestRegionScoring:
    def test_s8_E1_three_tied_slide_to_second(self):
        """docs/rules/el_grande.md §8 E1: 5/3/1, n=4, [4,4,4,3] -> [3,3,3,1]."""
        assert EP.score_place(EP.position(4, king="GA", cab={"PV": [4, 4, 4, 3]}), "PV") == [
            3,
            3,
            3,
            1,
        ]

    def test_s10_A1_competition_ranking_variant(self):
        """docs/rules/el_grande.md §10 A1: competition ranking gives the 3-caballero player 4th place."""
        st = EP.position(4, king="GA", cab={"PV": [4, 4, 4, 3]})
        assert EP.score_place(st, "PV", {"tie_rank": "competition"}) == [3, 3, 3, 0]

    def test_s8_E2_tied_third_slide_to_fourth(self):
        """docs/rules/el_grande.md §8 E2: 6/4/2, n=4, [4,3,2,2] -> [6,4,0,0]."""
        assert EP.score_place(EP.position(4, king="GA", cab={"OC": [4, 3, 2, 2]}), "OC") == [
            6,
            4,
            0,
            0,
        ]

    def test_s8_E3_king_and_grande_bonus(self):
        """docs/rules/el_grande.md §8 E3: New Castile King's region, P0 Grande, [5,3,3,0] -> [11,2,2,0]."""
        st = EP.position(4, king="NC", grandes=["NC", "GA", "PV", "AR"], cab={"NC": [5, 3, 3, 0]})
        assert EP.score_place(st, "NC") == [11, 2, 2, 0]

    def test_s8_E4_tie_for_first_loses_bonuses(self):
        """docs/rules/el_grande.md §8 E4: same region, [4,4,1,0] -> [4,4,2,0]."""
        st = EP.position(4, king="NC", grandes=["NC", "GA", "PV", "AR"], cab={"NC": [4, 4, 1, 0]})
        assert EP.score_place(st, "NC") == [4, 4, 2, 0]

    def test_s8_E5_two_players_first_only(self):
        """docs/rules/el_grande.md §8 E5, §7: Aragón 5/4/1, n=2: [3,2] -> [5,0]; [2,2] -> [0,0]."""
        assert EP.score_place(EP.position(2, king="GA", cab={"AR": [3, 2]}), "AR") == [5, 0]
        assert EP.score_place(EP.position(2, king="GA", cab={"AR": [2, 2]}), "AR") == [0, 0]

    def test_s8_E6_three_players_two_ranks(self):
        """docs/rules/el_grande.md §8 E6: Valencia 5/3/2, n=3 [3,3,1] -> [3,3,0]; n=4 [3,3,1,0] -> [3,3,2,0]."""
        assert EP.score_place(EP.position(3, king="GA", cab={"VA": [3, 3, 1]}), "VA") == [3, 3, 0]
        assert EP.score_place(EP.position(4, king="GA", cab={"VA": [3, 3, 1, 0]}), "VA") == [
            3,
            3,
            2,
            0,
        ]

    def test_s8_E7_mobile_scoreboard_replaces_values(self):
        """docs/rules/el_grande.md §8 E7: Galicia with the 8/4/0 board, [2,1,0,0] -> [8,4,0,0]."""
        st = EP.position(4, king="NC", cab={"GA": [2, 1, 0, 0]}, boards={0: "GA"})
        assert EP.score_place(st, "GA") == [8, 4, 0, 0]

    def test_s8_E8_castillo(self):
        """docs/rules/el_grande.md §8 E8: Castillo 5/3/1, [3,2,2,1] -> [5,1,1,0] (no bonuses there)."""
        st = EP.position(4, king="NC", cab={"CS": [3, 2, 2, 1]})
        assert EP.score_place(st, "CS") == [5, 1, 1, 0]

    def test_s1_4_bonuses_stack_and_need_sole_majority(self):
        """docs/rules/el_grande.md §1.4: King + Grande bonus stack (+4) for the sole majority only."""
        st = EP.position(3, king="AR", grandes=["AR", "AR", "GA"], cab={"AR": [2, 1, 0]})
        assert EP.score_place(st, "AR") == [9, 4, 0]
        st = EP.position(3, king="AR", grandes=["AR", "AR", "GA"], cab={"AR": [0, 0, 0]})
        assert EP.score_place(st, "AR") == [0, 0, 0]

    def test_s4_naive_scorer_cross_check(self):
        """docs/rules/el_grande.md §4, §1.4, §7: kernel vs a closed-form naive scorer on 3000 random places."""
        rng = np.random.default_rng(11)
        vals = T[K.T_VAL : K.T_VAL + 30].reshape(10, 3)
        boards = [[8, 4, 0], [4, 0, 0]]
        out = np.zeros(5, np.int32)
        for _ in range(3000):
            npl = int(rng.integers(2, 6))
            st = EP.position(npl, king=G.load_data()["place_ids"][int(rng.integers(0, 9))])
            place = int(rng.integers(0, 10))
            counts = rng.integers(0, 5, size=npl) * (rng.random(npl) < 0.8)
            for p in range(npl):
                st[K.O_CAB + place * 5 + p] = counts[p]
                st[K.O_GRANDE + p] = int(rng.integers(0, 9))
            b = int(rng.integers(-1, 2))
            if b >= 0:
                st[K.O_BOARD + b] = place
            tie = int(rng.integers(0, 2))
            firsts = bool(rng.random() < 0.2)
            var = VAR.copy()
            var[K.V_TIE] = tie
            K.score_place(st, T, var, place, firsts, K.SRC_GENERAL, False, out)
            v = boards[b] if b >= 0 else list(vals[place])
            pay = 1 if firsts else {2: 1, 3: 2, 4: 3, 5: 3}[npl]
            exp = []
            for p in range(npl):
                c = counts[p]
                if c == 0:
                    exp.append(0)
                    continue
                above = [q for q in range(npl) if counts[q] > c]
                tied = sum(1 for q in range(npl) if counts[q] == c) > 1
                if tie == 0:
                    levels = sorted({int(counts[q]) for q in above}, reverse=True)
                    rank = (
                        1
                        + sum(1 if sum(counts == lv) == 1 else 2 for lv in levels)
                        + (1 if tied else 0)
                    )
                else:
                    rank = 1 + len(above) + (1 if tied else 0)
                pts = v[rank - 1] if rank <= pay else 0
                if rank == 1 and place < 9:
                    pts += 2 * (st[K.O_KING] == place) + 2 * (st[K.O_GRANDE + p] == place)
                exp.append(pts)
            assert out[:npl].tolist() == exp, (npl, place, counts, b, tie, firsts)


# =============================================================================================
# §5 general scoring, Castillo and secret discs
# =============================================================================================
class TestGeneralScoring:
    def test_s5_castillo_scored_then_discs_move_caballeros(self):
        """docs/rules/el_grande.md §5: Castillo scored first, then every disc moves all its caballeros."""
        st = EP.position(3, king="NC", cab={"CS": [2, 1, 0], "AR": [0, 2, 0], "GA": [1, 0, 0]})
        EP.general_scoring(st, [(0, "AR"), (1, "NC")])
        # Castillo: seat0 5, seat1 3. Then seat0's 2 go to Aragón (2 vs 2: tie -> 4 each),
        # seat1's 1 goes to court (King's region). Galicia: seat0 4.
        assert cab(st, "CS", 0) == 0 and cab(st, "CS", 1) == 0
        assert cab(st, "AR", 0) == 2 and st[K.O_COURT + 1] == 8
        assert [score(st, p) for p in range(3)] == [5 + 4 + 4, 3 + 4, 0]
        assert (
            st[K.O_SRC + 0 * 5 + K.SRC_CASTILLO] == 5 and st[K.O_SRC + 0 * 5 + K.SRC_GENERAL] == 8
        )

    def test_s5_disc_needed_only_with_castillo_caballeros(self):
        """docs/rules/el_grande.md §5 step 1: only players with caballeros in the Castillo set a disc."""
        st = EP.position(2, king="NC", cab={"CS": [0, 1]})
        with pytest.raises(IllegalMoveError):
            EP.general_scoring(st, [(0, "AR")])
        EP.general_scoring(EP.position(2, king="NC", cab={"CS": [0, 1]}), [(1, "GA")])


# =============================================================================================
# §3 turn pieces
# =============================================================================================
class TestTurn:
    def test_s3_1_court_intake_from_province(self):
        """docs/rules/el_grande.md §3.1: power card 1 brings up to 6 caballeros from the province."""
        st = EP.position(3, king="NC", court=[0, 0, 0], prov=[21, 21, 21])
        EP.court_intake(st, 0, 1, [("intake", 0, "6")])
        assert (st[K.O_COURT], st[K.O_PROV]) == (6, 15)
        assert (st[K.O_ITAKE], st[K.O_IMAX]) == (6, 6)

    @pytest.mark.parametrize("n", [0, 1, 4])
    def test_s3_4a_intake_fewer_allowed(self, n):
        """docs/rules/el_grande.md §3 step 4a: "up to P(card) ... (fewer allowed)": any count 0..P."""
        st = EP.position(3, king="NC", court=[2, 0, 0], prov=[21, 21, 21], cab={"AR": [3, 0, 0]})
        before = st.copy()
        EP.court_intake(st, 0, 1, [("intake", 0, str(n))])
        exp = before.copy()
        exp[K.O_COURT] += n
        exp[K.O_PROV] -= n
        exp[K.O_ITAKE] = n
        exp[K.O_IMAX] = 6
        assert st.tolist() == exp.tolist()  # nothing else changes (regions untouched)

    def test_s3_4a_intake_count_is_checked(self):
        """docs/rules/el_grande.md §3.1: power card 2 allows 5; 6 is illegal and the legal counts are listed."""
        st = EP.position(3, king="NC", court=[0, 0, 0], prov=[21, 21, 21])
        with pytest.raises(IllegalMoveError) as e:
            EP.court_intake(st, 1, 2, [("intake", 1, "6")])
        assert e.value.ply == 0
        assert e.value.legal == [f"seat 1 intake {k}" for k in range(6)]

    def test_s3_4a_no_intake_decision_when_nothing_can_be_taken(self):
        """docs/rules/el_grande.md §3.1: cards 12/13 bring nobody; an empty province and no region caballeros neither."""
        st = EP.position(3, king="NC", court=[0, 0, 0], prov=[21, 21, 21])
        EP.court_intake(st, 0, 12, [])
        assert (st[K.O_COURT], st[K.O_PROV], st[K.O_IMAX]) == (0, 21, 0)
        st = EP.position(
            3, king="NC", court=[0, 0, 0], prov=[0, 21, 21], cab={"NC": [3, 0, 0], "CS": [2, 0, 0]}
        )
        EP.court_intake(st, 0, 1, [])  # only the King's region and the Castillo hold caballeros
        assert st[K.O_COURT] == 0
        with pytest.raises(IllegalMoveError):
            EP.court_intake(st, 0, 1, [("intake", 0, "0")])

    def test_s3_4a_shortfall_from_regions_not_kings_region(self):
        """docs/rules/el_grande.md §3 step 4a, A13: shortfall taken from own regions, never the King's or the Castillo."""
        pos = dict(
            players=3,
            king="NC",
            court=[0, 0, 0],
            prov=[2, 21, 21],
            cab={"AR": [2, 0, 0], "GA": [1, 0, 0], "NC": [3, 0, 0], "CS": [4, 0, 0]},
        )
        st = EP.position(**pos)
        EP.court_intake(
            st, 0, 2, [("intake", 0, "4"), ("shortfall", 0, "AR"), ("shortfall", 0, "GA")]
        )
        assert (st[K.O_COURT], st[K.O_PROV], cab(st, "AR", 0), cab(st, "GA", 0)) == (4, 0, 1, 0)
        assert (cab(st, "NC", 0), cab(st, "CS", 0)) == (3, 4)
        # fewer than the province holds: no shortfall at all
        st = EP.position(**pos)
        EP.court_intake(st, 0, 2, [("intake", 0, "1")])
        assert (st[K.O_COURT], st[K.O_PROV], cab(st, "AR", 0)) == (1, 1, 2)
        # allowance 5 but only 2 + 3 available outside the King's region and Castillo -> 0..5
        with pytest.raises(IllegalMoveError) as e:
            EP.court_intake(EP.position(**pos), 0, 1, [("intake", 0, "6")])
        assert e.value.legal[-1] == "seat 0 intake 5"
        # shortfall caballeros come from a region (no stop: the count was chosen), never NC/CS
        for bad in ("stop", "NC", "CS"):
            with pytest.raises(IllegalMoveError) as e:
                EP.court_intake(
                    EP.position(**pos), 0, 2, [("intake", 0, "3"), ("shortfall", 0, bad)]
                )
            assert e.value.ply == 1 and e.value.legal == [
                "seat 0 shortfall GA",
                "seat 0 shortfall AR",
            ]

    def test_s3_4a_heuristic_intake(self):
        """docs/rules/el_grande.md §3 step 4a: heuristic takes the maximum by default, up to court_target if set,
        and shortfall caballeros from regions only while the court is below short_min_court."""

        def run(st, power, **params):
            D = _policy_buffers([K.POL_HEURISTIC] * 3, **params)
            K.step(st, T, VAR, D, K.STEP_COURT_INTAKE, 0, int(T[K.T_PCAB + power]))
            return int(st[K.O_COURT]), int(st[K.O_PROV])

        assert run(EP.position(3, king="NC", court=[7, 0, 0]), 1) == (13, 15)
        assert run(EP.position(3, king="NC", court=[7, 0, 0]), 1, court_target=9) == (9, 19)
        assert run(EP.position(3, king="NC", court=[12, 0, 0]), 1, court_target=9) == (12, 21)
        st = EP.position(3, king="NC", court=[0, 0, 0], prov=[1, 21, 21], cab={"AR": [4, 0, 0]})
        assert run(st, 1) == (2, 0) and cab(st, "AR", 0) == 3  # 1 + 1 shortfall: court reaches 2

    def test_s3_2a_placement_only_adjacent_or_castillo(self):
        """docs/rules/el_grande.md §3.2a: placement only next to the King's region or into the Castillo."""
        st = EP.position(4, king="GA")
        EP.apply_card(
            st,
            0,
            "4e#1",
            [
                ("execute", 0, "no"),
                ("place", 0, "OC"),
                ("place", 0, "PV"),
                ("place", 0, "CS"),
                ("place", 0, "stop"),
            ],
            placement="after",
        )
        assert (cab(st, "OC", 0), cab(st, "PV", 0), cab(st, "CS", 0), st[K.O_COURT]) == (1, 1, 1, 4)
        for bad in ("AR", "GA"):
            with pytest.raises(IllegalMoveError):
                EP.apply_card(
                    EP.position(4, king="GA"), 0, "1a", [("place", 0, bad)], placement="first"
                )

    def test_s3_4c_placement_limit_is_deck_number(self):
        """docs/rules/el_grande.md §3 step 4c: a deck-1 card places at most 1 caballero."""
        st = EP.position(4, king="GA")
        with pytest.raises(IllegalMoveError):
            EP.apply_card(
                st,
                0,
                "1a",
                [("place", 0, "OC"), ("place", 0, "OC"), ("execute", 0, "no")],
                placement="first",
            )

    def test_s6_king_card_moves_king_before_placement(self):
        """docs/rules/el_grande.md §6 deck 5, §3 4c: King's card, action first: placement uses the new adjacency."""
        st = EP.position(4, king="GA")
        EP.apply_card(
            st,
            0,
            "K",
            [
                ("execute", 0, "yes"),
                ("king_to", 0, "SE"),
                ("place", 0, "NC"),
                ("place", 0, "GR"),
                ("place", 0, "CS"),
                ("place", 0, "NC"),
                ("place", 0, "GR"),
            ],
            placement="after",
        )
        assert st[K.O_KING] == P("SE")
        assert (cab(st, "NC", 0), cab(st, "GR", 0), cab(st, "CS", 0)) == (2, 2, 1)
        with pytest.raises(IllegalMoveError):
            EP.apply_card(
                EP.position(4, king="GA"), 0, "K", [("execute", 0, "yes"), ("king_to", 0, "CS")]
            )


# =============================================================================================
# §6 action cards, one constructed position each
# =============================================================================================
BASE = {
    "AR": [3, 2, 1, 0],
    "VA": [1, 1, 0, 2],
    "GA": [2, 0, 1, 0],
    "NC": [2, 2, 2, 2],
    "CS": [1, 0, 0, 0],
}


def base(**kw):
    args = dict(players=4, king="NC", cab=copy.deepcopy(BASE))
    args.update(kw)
    return EP.position(**args)


class TestDeck1:
    def test_s6_1a_move_own_out_of_one_region(self):
        """docs/rules/el_grande.md §6 1a: all own caballeros of one region redistributed, some may stay."""
        st = base()
        EP.apply_card(
            st,
            0,
            "1a",
            [
                ("execute", 0, "yes"),
                ("source_region", 0, "AR"),
                ("move_to", 0, "GA"),
                ("move_to", 0, "CS"),
                ("move_to", 0, "AR"),
            ],
        )
        assert (cab(st, "AR", 0), cab(st, "GA", 0), cab(st, "CS", 0)) == (1, 3, 2)

    def test_s6_1b_place_two_anywhere(self):
        """docs/rules/el_grande.md §6 1b: 2 more from court into any region (not the King's) or Castillo."""
        st = base()
        EP.apply_card(
            st, 0, "1b", [("execute", 0, "yes"), ("place_any", 0, "SE"), ("place_any", 0, "CS")]
        )
        assert (cab(st, "SE", 0), cab(st, "CS", 0), st[K.O_COURT]) == (1, 2, 5)
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "1b", [("execute", 0, "yes"), ("place_any", 0, "NC")])

    def test_s6_1c_either_1a_or_1b(self):
        """docs/rules/el_grande.md §6 1c: either alternative."""
        st = base()
        EP.apply_card(
            st,
            0,
            "1c",
            [
                ("execute", 0, "yes"),
                ("choice", 0, "1b"),
                ("place_any", 0, "GR"),
                ("place_any", 0, "GR"),
            ],
        )
        assert cab(st, "GR", 0) == 2
        st = base()
        EP.apply_card(
            st,
            0,
            "1c",
            [
                ("execute", 0, "yes"),
                ("choice", 0, "1a"),
                ("source_region", 0, "GA"),
                ("move_to", 0, "SE"),
                ("move_to", 0, "SE"),
            ],
        )
        assert (cab(st, "GA", 0), cab(st, "SE", 0)) == (0, 2)

    def test_s6_1d_five_from_one_region_fully(self):
        """docs/rules/el_grande.md §6 1d: up to 5 of any colour from one region, executed as fully as possible."""
        st = base()
        moves = [
            ("move_from", 0, "AR:0"),
            ("move_to", 0, "CS"),
            ("move_from", 0, "AR:1"),
            ("move_to", 0, "GA"),
            ("move_from", 0, "AR:1"),
            ("move_to", 0, "GA"),
            ("move_from", 0, "AR:2"),
            ("move_to", 0, "SE"),
            ("move_from", 0, "AR:0"),
            ("move_to", 0, "VA"),
        ]
        EP.apply_card(st, 0, "1d#1", [("execute", 0, "yes"), ("source_region", 0, "AR")] + moves)
        assert [cab(st, "AR", p) for p in range(4)] == [1, 0, 0, 0]
        assert (cab(st, "GA", 1), cab(st, "SE", 2), cab(st, "VA", 0), cab(st, "CS", 0)) == (
            2,
            1,
            2,
            2,
        )
        with pytest.raises(IllegalMoveError):  # stopping after 2 of 5 possible moves
            EP.apply_card(
                base(), 0, "1d#2", [("execute", 0, "yes"), ("source_region", 0, "AR")] + moves[:4]
            )
        with pytest.raises(IllegalMoveError):  # other region
            EP.apply_card(
                base(),
                0,
                "1d#2",
                [("execute", 0, "yes"), ("source_region", 0, "AR"), ("move_from", 0, "VA:3")],
            )

    def test_s6_1e_three_opponents(self):
        """docs/rules/el_grande.md §6 1e: up to 3 opponents' caballeros; own ones are not allowed."""
        st = base()
        EP.apply_card(
            st,
            0,
            "1e",
            [
                ("execute", 0, "yes"),
                ("move_from", 0, "AR:1"),
                ("move_to", 0, "CS"),
                ("move_from", 0, "VA:3"),
                ("move_to", 0, "GR"),
                ("move_from", 0, "GA:2"),
                ("move_to", 0, "CA"),
            ],
        )
        assert (cab(st, "AR", 1), cab(st, "CS", 1), cab(st, "GR", 3), cab(st, "CA", 2)) == (
            1,
            1,
            1,
            1,
        )
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "1e", [("execute", 0, "yes"), ("move_from", 0, "AR:0")])

    @pytest.mark.parametrize("card, n", [("1f", 3), ("1i", 4)])
    def test_s6_1f_1i_any_colour(self, card, n):
        """docs/rules/el_grande.md §6 1f/1i: up to 3 / 4 caballeros of any colour."""
        seq = [
            ("move_from", 0, "AR:0"),
            ("move_to", 0, "PV"),
            ("move_from", 0, "VA:3"),
            ("move_to", 0, "PV"),
            ("move_from", 0, "GA:2"),
            ("move_to", 0, "PV"),
            ("move_from", 0, "AR:1"),
            ("move_to", 0, "PV"),
        ]
        st = base()
        EP.apply_card(st, 0, card, [("execute", 0, "yes")] + seq[: 2 * n])
        assert sum(cab(st, "PV", p) for p in range(4)) == n

    def test_s6_1g_two_own_two_opponents(self):
        """docs/rules/el_grande.md §6 1g: 2 own and 2 opponents' in any order; a 3rd own is illegal."""
        st = base()
        seq = [
            ("move_from", 0, "AR:1"),
            ("move_to", 0, "SE"),
            ("move_from", 0, "AR:0"),
            ("move_to", 0, "SE"),
            ("move_from", 0, "GA:0"),
            ("move_to", 0, "SE"),
            ("move_from", 0, "VA:3"),
            ("move_to", 0, "SE"),
        ]
        EP.apply_card(st, 0, "1g#1", [("execute", 0, "yes")] + seq)
        assert [cab(st, "SE", p) for p in range(4)] == [2, 1, 0, 1]
        with pytest.raises(IllegalMoveError):
            EP.apply_card(
                base(), 0, "1g#2", [("execute", 0, "yes")] + seq[2:6] + [("move_from", 0, "AR:0")]
            )

    def test_s6_1h_four_own(self):
        """docs/rules/el_grande.md §6 1h: up to 4 own caballeros."""
        st = base()
        seq = []
        for src in ("AR", "AR", "GA", "VA"):
            seq += [("move_from", 0, f"{src}:0"), ("move_to", 0, "OC")]
        EP.apply_card(st, 0, "1h", [("execute", 0, "yes")] + seq)
        assert cab(st, "OC", 0) == 4
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "1h", [("execute", 0, "yes"), ("move_from", 0, "AR:1")])


def vetoed(holders=(2,), **kw):
    """``base()`` with the Veto cards held by ``holders`` (taken this round)."""
    st = base(**kw)
    for k, h in enumerate(holders):
        st[K.O_VETO_HOLDER + k] = h
        st[K.O_VETO_EXP + k] = 2
    return st


def spent(st, k=0, partial=False):
    """Expected state change of a used Veto card ``k``."""
    st[K.O_VETO_HOLDER + k] = -1
    st[K.O_VETO_EXP + k] = 0
    st[K.O_VCOUNT + int(partial)] += 1
    return st


class TestDeck2:
    def test_s6_2a_veto_cancels_and_is_discarded(self):
        """docs/rules/el_grande.md §6 2a, A2: a held Veto cancels another player's special action."""
        st = vetoed()
        EP.apply_card(
            st, 0, "2b", [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, "all")]
        )
        assert st.tolist() == spent(vetoed()).tolist()
        st = vetoed()
        EP.apply_card(st, 0, "2b", [("execute", 0, "yes"), ("veto", 2, "no")])
        assert [st[K.O_COURT + p] for p in range(4)] == [7, 0, 0, 0] and st[K.O_VETO_HOLDER] == 2

    @pytest.mark.parametrize("cut", [1, 2])
    def test_s6_2a_partial_veto_cancels_the_remaining_moves(self, cut):
        """docs/rules/el_grande.md §6 2a: "cancel ... the remaining part": 1f after k of its 3 moves."""
        moves = [
            ("move_from", 0, "AR:1"),
            ("move_to", 0, "CS"),
            ("move_from", 0, "VA:3"),
            ("move_to", 0, "GR"),
        ]
        st = vetoed()
        EP.apply_card(
            st,
            0,
            "1f",
            [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, f"after_{cut}")]
            + moves[: 2 * cut],
        )
        exp = spent(vetoed(), partial=True)
        exp[K.O_CAB + P("AR") * 5 + 1] -= 1
        exp[K.O_CAB + P("CS") * 5 + 1] += 1
        if cut == 2:
            exp[K.O_CAB + P("VA") * 5 + 3] -= 1
            exp[K.O_CAB + P("GR") * 5 + 3] += 1
        assert st.tolist() == exp.tolist() and st[K.O_VPEND] == 0
        with pytest.raises(
            IllegalMoveError, match="action finished"
        ):  # no further move after the cut
            EP.apply_card(
                vetoed(),
                0,
                "1f",
                [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, f"after_{cut}")]
                + moves[: 2 * cut]
                + [("move_from", 0, "GA:2"), ("move_to", 0, "PV")],
            )

    def test_s6_2a_cut_points_are_checked(self):
        """docs/rules/el_grande.md §6 2a: the cut is one of 0..n-1 steps (1f: 3 moves); after_3 is no veto."""
        with pytest.raises(IllegalMoveError) as e:
            EP.apply_card(
                vetoed(),
                0,
                "1f",
                [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, "after_3")],
            )
        assert e.value.ply == 2
        assert e.value.legal == [
            "seat 2 veto_cut all",
            "seat 2 veto_cut after_1",
            "seat 2 veto_cut after_2",
        ]
        with pytest.raises(IllegalMoveError) as e:  # 1g: 2 own + 2 opponents' = 4 steps
            EP.apply_card(
                vetoed(),
                0,
                "1g#1",
                [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, "after_4")],
            )
        assert e.value.legal[-1] == "seat 2 veto_cut after_3"
        with pytest.raises(IllegalMoveError) as e:  # 1a: seat 0 has at most 3 in one region (AR)
            EP.apply_card(
                vetoed(),
                0,
                "1a",
                [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, "after_3")],
            )
        assert e.value.legal[-1] == "seat 2 veto_cut after_2"

    def test_s6_2a_partial_veto_per_opponent_from_the_left(self):
        """docs/rules/el_grande.md §6 2a, 2b, 2d: per-opponent actions are cut between opponents (clockwise from the left)."""
        st = vetoed(holders=(1, 3))
        EP.apply_card(
            st,
            0,
            "2b",
            [
                ("execute", 0, "yes"),
                ("veto", 1, "no"),
                ("veto", 3, "yes"),
                ("veto_cut", 3, "after_2"),
            ],
        )
        assert [st[K.O_COURT + p] for p in range(4)] == [7, 0, 0, 7]
        assert [st[K.O_PROV + p] for p in range(4)] == [21, 28, 28, 21]
        assert (st[K.O_VETO_HOLDER], st[K.O_VETO_HOLDER + 1], st[K.O_VCOUNT + 1]) == (1, -1, 1)
        st = vetoed(holders=(3,), court=[7, 1, 0, 7])
        EP.apply_card(
            st,
            0,
            "2d",
            [
                ("execute", 0, "yes"),
                ("veto", 3, "yes"),
                ("veto_cut", 3, "after_1"),
                ("angry_king", 1, "court"),
                ("angry_king", 1, "AR"),
                ("angry_king", 1, "VA"),
            ],
        )
        assert (st[K.O_COURT + 1], cab(st, "AR", 1), cab(st, "VA", 1), st[K.O_PROV + 1]) == (
            0,
            1,
            0,
            24,
        )
        assert (cab(st, "AR", 2), cab(st, "GA", 2), st[K.O_COURT + 3], st[K.O_PROV + 3]) == (
            1,
            1,
            7,
            21,
        )

    def test_s6_2a_partial_veto_after_the_actors_choices(self):
        """docs/rules/el_grande.md §6 2a, 1a/1d: region choices are not steps; a cut past the action's end spends the Veto."""
        st = vetoed()
        EP.apply_card(
            st,
            0,
            "1a",
            [
                ("execute", 0, "yes"),
                ("veto", 2, "yes"),
                ("veto_cut", 2, "after_1"),
                ("source_region", 0, "AR"),
                ("move_to", 0, "GA"),
            ],
        )
        assert (cab(st, "AR", 0), cab(st, "GA", 0), st[K.O_VETO_HOLDER]) == (2, 3, -1)
        st = (
            vetoed()
        )  # 1d from Galicia: only 3 caballeros there, cut after 4 -> all 3 move, Veto gone
        EP.apply_card(
            st,
            0,
            "1d#1",
            [
                ("execute", 0, "yes"),
                ("veto", 2, "yes"),
                ("veto_cut", 2, "after_4"),
                ("source_region", 0, "GA"),
                ("move_from", 0, "GA:0"),
                ("move_to", 0, "PV"),
                ("move_from", 0, "GA:0"),
                ("move_to", 0, "PV"),
                ("move_from", 0, "GA:2"),
                ("move_to", 0, "PV"),
            ],
        )
        assert ([cab(st, "GA", p) for p in range(4)], cab(st, "PV", 0), cab(st, "PV", 2)) == (
            [0, 0, 0, 0],
            2,
            1,
        )
        assert st[K.O_VETO_HOLDER] == -1 and st[K.O_VPEND] == 0

    def test_s6_2a_single_step_actions_have_no_cut(self):
        """docs/rules/el_grande.md §6 2a: a scoring (and 2b in a 2-player game) is cancelled whole, no cut decision."""
        st = vetoed()
        EP.apply_card(st, 0, "3h", [("execute", 0, "yes"), ("veto", 2, "yes")])
        assert st.tolist() == spent(vetoed()).tolist()
        with pytest.raises(IllegalMoveError):
            EP.apply_card(
                vetoed(),
                0,
                "3h",
                [("execute", 0, "yes"), ("veto", 2, "yes"), ("veto_cut", 2, "all")],
            )
        st = EP.position(2, king="NC", court=[7, 5])
        st[K.O_VETO_HOLDER] = 1
        EP.apply_card(st, 0, "2b", [("execute", 0, "yes"), ("veto", 1, "yes")])
        assert (st[K.O_COURT + 1], st[K.O_VETO_HOLDER], st[K.O_VCOUNT]) == (5, -1, 1)

    def test_s10_A2_random_holder_vetoes_half_and_cuts_uniformly(self):
        """docs/rules/el_grande.md §10 A2: a random holder vetoes with p = 1/2, then cuts uniformly among 0..n-1.

        2b in a 4-player game (n = 3), 6000 trials: tolerance 4 standard errors (0.026 for p = 1/2,
        0.019 for p = 1/6)."""
        D = _policy_buffers([K.POL_HEURISTIC, K.POL_RANDOM, K.POL_RANDOM, K.POL_RANDOM], seed=5)
        c = G.card_index("2b")
        outcome = {(7, 0, 0, 0): 0, (7, 7, 7, 7): 0, (7, 0, 7, 7): 0, (7, 0, 0, 7): 0}
        n = 6000
        for _ in range(n):
            st = vetoed(holders=(3,))
            K.step(st, T, VAR, D, K.STEP_SPECIAL, 0, c)  # the heuristic actor always executes 2b
            outcome[tuple(int(st[K.O_COURT + p]) for p in range(4))] += 1
        freq = [v / n for v in outcome.values()]
        assert abs(freq[0] - 0.5) < 4 * (0.25 / n) ** 0.5
        for f in freq[1:]:
            assert abs(f - 1 / 6) < 4 * (5 / 36 / n) ** 0.5

    def test_s10_A2_heuristic_cuts_before_its_own_step(self):
        """docs/rules/el_grande.md §10 A2: the heuristic vetoes 2b/2c that cost it >= veto_harm caballeros,
        letting the steps on the players before it happen."""

        def run(card, holder, court=None, **params):
            D = _policy_buffers([K.POL_HEURISTIC] * 4, **params)
            st = vetoed(holders=(holder,), court=court or [7, 7, 7, 7])
            K.step(st, T, VAR, D, K.STEP_SPECIAL, 0, G.card_index(card))
            return [int(st[K.O_COURT + p]) for p in range(4)], int(st[K.O_VETO_HOLDER])

        assert run("2b", 3) == ([7, 0, 0, 7], -1)
        assert run("2b", 2) == ([7, 0, 7, 7], -1)  # the rest, seat 3 included, is cancelled
        assert run("2b", 1) == ([7, 7, 7, 7], -1)
        assert run("2b", 3, veto_harm=8) == ([7, 0, 0, 0], 3)
        assert run("2c", 3, court=[7, 7, 7, 2]) == ([7, 4, 4, 0], 3)  # would lose only 2 < 3

    def test_s6_2a_veto_off_variant_and_own_action(self):
        """docs/rules/el_grande.md §10 A2: veto=off never asks; the holder cannot veto himself."""
        st = base()
        st[K.O_VETO_HOLDER] = 2
        EP.apply_card(st, 0, "2b", [("execute", 0, "yes")], variant={"veto": "off"})
        assert st[K.O_COURT + 2] == 0
        st = base()
        st[K.O_VETO_HOLDER] = 0
        EP.apply_card(st, 0, "2b", [("execute", 0, "yes")])
        assert st[K.O_COURT + 1] == 0

    def test_s6_2a_veto_expires_after_next_round(self):
        """docs/rules/el_grande.md §6 2a: an unused Veto is discarded at the end of the next round."""
        st = np.zeros(K.STATE_SIZE, np.int32)
        var = G.SPEC.variant_codes(G.SPEC.resolve_variant({"veto": "off"}))
        K.setup(st, T, var, 3, new_state(3, 0, 0), np.zeros(K.FIXED_SIZE, np.int32))
        st[K.O_VETO_HOLDER] = 1
        st[K.O_VETO_EXP] = 2  # taken in round 1
        D = K.make_buffers(1, 1, 8)
        D[4][K.C_LOGCAP] = 0
        K.step(st, T, var, D, K.STEP_ROUND, 0, 1)
        assert st[K.O_VETO_HOLDER] == 1
        K.step(st, T, var, D, K.STEP_ROUND, 0, 2)
        assert st[K.O_VETO_HOLDER] == -1

    def test_s6_2b_2c_decay_of_authority(self):
        """docs/rules/el_grande.md §6 2b/2c: opponents return all / 3 (all if fewer) court caballeros."""
        st = base(court=[7, 5, 2, 0])
        EP.apply_card(st, 0, "2b", [("execute", 0, "yes")])
        assert [st[K.O_COURT + p] for p in range(4)] == [7, 0, 0, 0]
        assert [st[K.O_PROV + p] for p in range(4)] == [21, 26, 23, 21]
        st = base(court=[7, 5, 2, 0])
        EP.apply_card(st, 0, "2c", [("execute", 0, "yes")])
        assert [st[K.O_COURT + p] for p in range(4)] == [7, 2, 0, 0]

    def test_s6_2d_angry_king_from_the_left(self):
        """docs/rules/el_grande.md §6 2d: each opponent from the left returns 3 from court/regions, not the King's."""
        st = base(court=[7, 1, 0, 7])
        EP.apply_card(
            st,
            0,
            "2d",
            [
                ("execute", 0, "yes"),
                ("angry_king", 1, "court"),
                ("angry_king", 1, "AR"),
                ("angry_king", 1, "VA"),
                ("angry_king", 2, "AR"),
                ("angry_king", 2, "GA"),  # seat 2 has only 2 outside the King's region
                ("angry_king", 3, "court"),
                ("angry_king", 3, "court"),
                ("angry_king", 3, "VA"),
            ],
        )
        assert (st[K.O_COURT + 1], cab(st, "AR", 1), cab(st, "VA", 1)) == (0, 1, 0)
        assert (cab(st, "AR", 2), cab(st, "GA", 2), cab(st, "NC", 2)) == (0, 0, 2)
        assert (st[K.O_COURT + 3], cab(st, "VA", 3)) == (5, 1)
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "2d", [("execute", 0, "yes"), ("angry_king", 1, "NC")])

    def test_s6_2e_one_of_each_opponent(self):
        """docs/rules/el_grande.md §6 2e: the actor removes 1 caballero of each opponent, region of his choice."""
        st = base()
        EP.apply_card(
            st,
            0,
            "2e",
            [("execute", 0, "yes"), ("remove", 0, "AR"), ("remove", 0, "GA"), ("remove", 0, "VA")],
        )
        assert (cab(st, "AR", 1), cab(st, "GA", 2), cab(st, "VA", 3)) == (1, 0, 1)
        assert [st[K.O_PROV + p] for p in range(4)] == [21, 22, 22, 22]

    def test_s6_2f_secret_two_from_one_region(self):
        """docs/rules/el_grande.md §6 2f, A8: a region with >= 2 if any (else one with 1); secret, opponents only."""
        st = base()
        with pytest.raises(
            IllegalMoveError
        ):  # seat 1 has >= 2 in Aragón, so Valencia (1) is not allowed
            EP.apply_card(base(), 0, "2f", [("execute", 0, "yes"), ("secret_remove", 1, "VA")])
        EP.apply_card(
            st,
            0,
            "2f",
            [
                ("execute", 0, "yes"),
                ("secret_remove", 1, "AR"),
                ("secret_remove", 2, "GA"),
                ("secret_remove", 3, "VA"),
            ],
        )
        assert (cab(st, "AR", 1), cab(st, "GA", 2), cab(st, "AR", 2), cab(st, "VA", 3)) == (
            0,
            0,
            1,
            0,
        )
        assert cab(st, "AR", 0) == 3

    def test_s6_2g_secret_all_of_one_region(self):
        """docs/rules/el_grande.md §6 2g: each opponent returns all his caballeros of one region."""
        st = base()
        EP.apply_card(
            st,
            0,
            "2g",
            [
                ("execute", 0, "yes"),
                ("secret_remove", 1, "VA"),
                ("secret_remove", 2, "AR"),
                ("secret_remove", 3, "VA"),
            ],
        )
        assert (cab(st, "VA", 1), cab(st, "AR", 2), cab(st, "VA", 3), cab(st, "AR", 1)) == (
            0,
            0,
            0,
            2,
        )

    def test_s6_2h_score_any_place_incl_kings_and_castillo(self):
        """docs/rules/el_grande.md §6 2h: special scoring of one place, the King's region and Castillo allowed."""
        st = base(grandes=["GA", "AR", "VA", "SE"])
        EP.apply_card(st, 0, "2h#1", [("execute", 0, "yes"), ("score", 0, "NC")])
        assert [score(st, p) for p in range(4)] == [4, 4, 4, 4]  # 4-way tie: rank 2 -> 4 each
        st = base(grandes=["GA", "AR", "VA", "SE"])
        EP.apply_card(st, 0, "2h#2", [("execute", 0, "yes"), ("score", 0, "CS")])
        assert [score(st, p) for p in range(4)] == [5, 0, 0, 0] and cab(st, "CS", 0) == 1
        assert st[K.O_SRC + K.SRC_CASTILLO] == 5


class TestDeck3:
    def test_s6_3a_3b_3c_region_classes(self):
        """docs/rules/el_grande.md §6 3a-3c, §1.1: classes by current first value; boards change the class."""
        st = EP.position(
            4,
            king="NC",
            cab={"GA": [1, 0, 0, 0], "CA": [0, 1, 0, 0], "SE": [0, 0, 1, 0], "AR": [0, 0, 0, 1]},
            boards={0: "GA", 1: "AR"},
        )
        EP.apply_card(st, 0, "3a#1", [("execute", 0, "yes")])
        # GA carries 8/4/0 (no class); CA 4, SE 4, AR carries 4/0/0 -> 4-region
        assert [score(st, p) for p in range(4)] == [0, 4, 4, 4]
        st = EP.position(
            4,
            king="GA",
            cab={"PV": [1, 0, 0, 0], "AR": [0, 2, 0, 0], "VA": [0, 0, 1, 0], "OC": [0, 0, 0, 1]},
        )
        EP.apply_card(st, 0, "3b#2", [("execute", 0, "yes")])
        assert [score(st, p) for p in range(4)] == [5, 5, 5, 0]
        st = EP.position(
            4,
            king="GA",
            cab={"OC": [1, 0, 0, 0], "NC": [0, 1, 0, 0], "GR": [0, 0, 1, 0], "VA": [0, 0, 0, 1]},
        )
        EP.apply_card(st, 0, "3c", [("execute", 0, "yes")])
        assert [score(st, p) for p in range(4)] == [6, 7, 6, 0]

    def test_s6_3d_castillo_contents_stay(self):
        """docs/rules/el_grande.md §6 3d: the Castillo is scored and its caballeros stay inside."""
        st = base(cab={"CS": [2, 3, 0, 0]})
        EP.apply_card(st, 0, "3d#1", [("execute", 0, "yes")])
        assert [score(st, p) for p in range(4)] == [3, 5, 0, 0] and cab(st, "CS", 1) == 3

    def test_s6_3e_first_places_only(self):
        """docs/rules/el_grande.md §6 3e: only sole first places pay (with bonuses); no Castillo."""
        st = base(grandes=["AR", "GA", "VA", "SE"])
        EP.apply_card(st, 0, "3e", [("execute", 0, "yes")])
        # AR: seat0 5+2 (Grande); VA: seat3 5; GA: seat0 4; NC 4-way tie: nothing; CS not scored
        assert [score(st, p) for p in range(4)] == [11, 0, 0, 5]

    def test_s6_3f_3g_most_and_fewest(self):
        """docs/rules/el_grande.md §6 3f/3g, A14: region(s) with most / fewest caballeros (empty ignored, ties all)."""
        st = base()
        EP.apply_card(st, 0, "3f", [("execute", 0, "yes")])  # NC has 8
        assert [score(st, p) for p in range(4)] == [4, 4, 4, 4]
        st = base()
        EP.apply_card(st, 0, "3g", [("execute", 0, "yes")])  # GA 3 and VA 4 -> GA only (3)
        assert [score(st, p) for p in range(4)] == [4, 0, 2, 0]
        st = base(cab={"GA": [1, 0, 0, 0], "SE": [0, 1, 0, 0], "AR": [3, 0, 0, 0]})
        EP.apply_card(st, 0, "3g", [("execute", 0, "yes")])
        assert [score(st, p) for p in range(4)] == [4, 4, 0, 0]

    def test_s6_3h_choice(self):
        """docs/rules/el_grande.md §6 3h: one place of the actor's choice."""
        st = base()
        EP.apply_card(st, 0, "3h", [("execute", 0, "yes"), ("score", 0, "AR")])
        assert [score(st, p) for p in range(4)] == [5, 4, 1, 0]


class TestDeck4:
    def test_s6_4a_scoreboard_rules(self):
        """docs/rules/el_grande.md §6 4a, §1.3: into play or moved; not the King's region; no stacking."""
        st = base()
        EP.apply_card(st, 0, "4a#1", [("execute", 0, "yes"), ("scoreboard", 0, "B840@CS")])
        assert st[K.O_BOARD] == P("CS")
        EP.apply_card(st, 0, "4a#2", [("execute", 0, "yes"), ("scoreboard", 0, "B840@AR")])
        assert st[K.O_BOARD] == P("AR")
        for bad in ("B400@AR", "B400@NC"):
            with pytest.raises(IllegalMoveError):
                EP.apply_card(st.copy(), 0, "4a#3", [("execute", 0, "yes"), ("scoreboard", 0, bad)])
        st2 = base(boards={1: "NC"})
        with pytest.raises(IllegalMoveError):  # a board in the King's region cannot leave
            EP.apply_card(st2, 0, "4a#3", [("execute", 0, "yes"), ("scoreboard", 0, "B400@GA")])

    def test_s6_4b_royal_advisor_adjacent_only(self):
        """docs/rules/el_grande.md §6 4b: the King moves to an adjacent region."""
        st = base()
        EP.apply_card(st, 0, "4b", [("execute", 0, "yes"), ("king_to", 0, "SE")])
        assert st[K.O_KING] == P("SE")
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "4b", [("execute", 0, "yes"), ("king_to", 0, "GA")])

    def test_s6_4c_eviction_secret_destinations(self):
        """docs/rules/el_grande.md §6 4c, A9: opponents there move all to a secret region; King's region -> court."""
        st = base()
        EP.apply_card(
            st,
            0,
            "4c",
            [
                ("execute", 0, "yes"),
                ("evict_region", 0, "AR"),
                ("evict_to", 1, "GA"),
                ("evict_to", 2, "NC"),
            ],
        )
        assert (cab(st, "AR", 0), cab(st, "AR", 1), cab(st, "AR", 2)) == (3, 0, 0)
        assert (cab(st, "GA", 1), st[K.O_COURT + 2], cab(st, "NC", 2)) == (2, 8, 2)
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "4c", [("execute", 0, "yes"), ("evict_region", 0, "NC")])

    def test_s6_4d_grande_move(self):
        """docs/rules/el_grande.md §6 4d: Grande to another region, not the King's, never out of it."""
        st = base(grandes=["AR", "GA", "VA", "NC"])
        EP.apply_card(st, 0, "4d#1", [("execute", 0, "yes"), ("grande_to", 0, "SE")])
        assert st[K.O_GRANDE] == P("SE")
        with pytest.raises(IllegalMoveError):
            EP.apply_card(
                base(grandes=["AR"]), 0, "4d#1", [("execute", 0, "yes"), ("grande_to", 0, "NC")]
            )
        st = base(grandes=["AR", "GA", "VA", "NC"])
        EP.apply_card(
            st, 3, "4d#2", [("execute", 3, "yes")]
        )  # Grande in the King's region: no move
        assert st[K.O_GRANDE + 3] == P("NC")

    def test_s6_4e_power_card_back(self):
        """docs/rules/el_grande.md §6 4e, A3: any played power card, this round's included, back to hand."""
        st = base(hands=[0x3FFE & ~(1 << 13) & ~(1 << 5)] * 4)
        EP.apply_card(st, 0, "4e#1", [("execute", 0, "yes"), ("power_back", 0, "13")])
        assert (st[K.O_HAND] >> 13) & 1 == 1 and (st[K.O_HAND] >> 5) & 1 == 0
        with pytest.raises(IllegalMoveError):
            EP.apply_card(
                base(hands=[0x3FFE & ~(1 << 13)] * 4),
                0,
                "4e#2",
                [("execute", 0, "yes"), ("power_back", 0, "7")],
            )

    def test_s6_4f_court_with_shortfall(self):
        """docs/rules/el_grande.md §6 4f: 2 from the province; shortfall from regions as in §3 4a."""
        st = base(prov=[1, 21, 21, 21])
        EP.apply_card(st, 0, "4f", [("execute", 0, "yes"), ("shortfall", 0, "GA")])
        assert (st[K.O_COURT], st[K.O_PROV], cab(st, "GA", 0)) == (9, 0, 1)

    def test_s6_4g_secret_scoring_duplicates_void(self):
        """docs/rules/el_grande.md §6 4g: regions chosen by exactly one player are scored."""
        st = base()
        EP.apply_card(
            st,
            0,
            "4g",
            [
                ("execute", 0, "yes"),
                ("secret_score", 0, "AR"),
                ("secret_score", 1, "GA"),
                ("secret_score", 2, "GA"),
                ("secret_score", 3, "VA"),
            ],
        )
        # AR: 5/4/1 -> [5,4,1,0]; GA twice: void; VA 5/3/2 [1,1,0,2] -> seat3 5, seats 0,1 tie rank 3 -> 2
        assert [score(st, p) for p in range(4)] == [7, 6, 1, 5]


class TestKingTaboo:
    @pytest.mark.parametrize(
        "card, script",
        [
            ("1f", [("move_from", 0, "NC:1")]),  # out of the King's region
            ("1f", [("move_from", 0, "AR:1"), ("move_to", 0, "NC")]),  # into the King's region
            ("1a", [("source_region", 0, "NC")]),
            ("1d#1", [("source_region", 0, "NC")]),
            ("1b", [("place_any", 0, "NC")]),
            ("2e", [("remove", 0, "NC")]),
            ("2g", [("secret_remove", 1, "NC")]),
            ("4c", [("evict_region", 0, "NC")]),
            ("4a#1", [("scoreboard", 0, "B840@NC")]),
            ("4d#1", [("grande_to", 0, "NC")]),
        ],
    )
    def test_s3_2b_kings_region_is_taboo(self, card, script):
        """docs/rules/el_grande.md §3.2b: nothing enters or leaves the King's region by any move."""
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(grandes=["AR"]), 0, card, [("execute", 0, "yes")] + script)

    def test_s3_2b_castillo_is_never_a_move_source(self):
        """docs/rules/el_grande.md §3.3: caballeros never leave the Castillo except at general scoring."""
        with pytest.raises(IllegalMoveError):
            EP.apply_card(base(), 0, "1h", [("execute", 0, "yes"), ("move_from", 0, "CS:0")])
