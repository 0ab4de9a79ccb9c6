"""Don Quixote rule tests: every test vector of docs/rules/don_quixote.md §7 (T1-T9) with its
exact number, plus the tile-set invariants of §6.1."""

import json

import numpy as np
import pytest

from kernels import don_quixote as K
from kernels.don_quixote import layout as KL
from kernels.don_quixote import rules as KR
from mcsim.errors import DataFileError
from mcsim.games import don_quixote as G
from mcsim.runner import resolve_config


# ---------------------------------------------------------------- helpers
def cell(name):
    return K.CELL_NAMES.index(name)


def write_set(tmp_path, tiles, name="set.json", **top):
    doc = {"tileset": "test-set", "provenance": "synthetic", "tiles": tiles}
    doc.update(top)
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def land(tid, L="none", R="none", roads=(), shieldL=None, shieldR=None):
    halves = {"L": {"feature": L}, "R": {"feature": R}}
    if L == "knight":
        halves["L"]["shield"] = shieldL
    if R == "knight":
        halves["R"]["shield"] = shieldR
    return {
        "id": tid,
        "count": 1,
        "confidence": "low",
        "halves": halves,
        "roads": [{"ports": list(p), "features": list(f)} for p, f in roads],
    }


def castle(tid, value, a, b):
    return {
        "id": tid,
        "castle": value,
        "roads": [{"ports": [a], "castle_stub": True}, {"ports": [b], "castle_stub": True}],
    }


class Board:
    """A synthetic estate built from a small tile set through the real loader and tables."""

    def __init__(self, tmp_path, tiles, variant=None):
        self.ts = G.load_tileset(write_set(tmp_path, tiles), strict=False)
        self.tab = G.build_tables(self.ts, variant)
        self.ids = [t.id for t in self.ts.instances]
        self.S = KR.new_estate()
        self.log = np.zeros(K.LOGN, dtype=np.int64)

    def put(self, name, tid, rot=0):
        K.place(self.S, self.tab, cell(name), self.ids.index(tid), rot // 180, self.log)
        return self

    def node(self, name, piece=0):
        return KR.find(self.S, cell(name) * K.MAXP + piece)

    def bd(self, rnd):
        out = np.zeros(K.N_CAT, dtype=np.int64)
        total = K.score_breakdown(self.S, rnd, out)
        return dict(zip(K.CAT_NAMES, out.tolist())), int(total)

    @property
    def shields(self):
        return int(self.S[K.SC, KL.SC_DEF])


def network_estate(networks, defence=0):
    """An estate given directly as networks (rules §7 notation): items ("K", s), ("C",),
    ("W",), ("stub", castle_id, value). Nodes are joined with the kernel's union-find."""
    S = KR.new_estate()
    log = np.zeros(K.LOGN, dtype=np.int64)
    nd = 0
    for net in networks:
        first = -1
        for item in net:
            S[KL.PAR, nd] = nd
            S[KL.SIZE, nd] = 1
            if item[0] == "K":
                S[KL.KN, nd] = 1
                S[KL.SH, nd] = item[1]
            elif item[0] == "C":
                S[KL.CH, nd] = 1
            elif item[0] == "W":
                S[KL.WM, nd] = 1
            elif item[0] == "stub":
                c, v = item[1], item[2]
                slot = KL.SC_STUB + 2 * c + (S[K.SC, KL.SC_STUB + 2 * c] >= 0)
                S[K.SC, slot] = nd
                S[K.SC, KL.SC_CVAL + c] = v
            if first < 0:
                first = nd
            else:
                KR.union(S, first, nd, log)
            nd += 1
    S[K.SC, KL.SC_DEF] = defence
    return S


def breakdown(S, rnd):
    out = np.zeros(K.N_CAT, dtype=np.int64)
    total = K.score_breakdown(S, rnd, out)
    assert total == K.score_round(S, rnd)
    return dict(zip(K.CAT_NAMES, out.tolist())), int(total)


# ---------------------------------------------------------------- T1-T4 formulas
@pytest.mark.parametrize("n,pts", list(enumerate([0, 0, 2, 6, 8, 10, 12, 14])))
def test_s3_5_t1_group_formula(n, pts):
    """docs/rules/don_quixote.md §3.5 T1: group(n) for n = 0..7 is 0,0,2,6,8,10,12,14."""
    assert KR.group_points(n) == pts


@pytest.mark.parametrize(
    "v,r,k,pts",
    [(6, 1, 1, 6), (6, 1, 0, 0), (6, 2, 1, 0), (6, 2, 2, 6), (4, 3, 2, 0), (4, 3, 4, 4)],
)
def test_s3_5_t2_castle_formula(v, r, k, pts):
    """docs/rules/don_quixote.md §3.5 T2: castle(V, r, k) = V if k >= r else 0."""
    assert KR.castle_points(v, r, k) == pts


@pytest.mark.parametrize(
    "r,s,pts", [(1, 3, 0), (1, 4, 5), (2, 7, 0), (2, 8, 5), (3, 11, 0), (3, 12, 5)]
)
def test_s3_5_t3_defence_formula(r, s, pts):
    """docs/rules/don_quixote.md §3.5 T3: defence(r, S) = 5 if S >= 4r else 0."""
    assert KR.defence_points(r, s) == pts


@pytest.mark.parametrize(
    "groups,bonus",
    [([[3], [2, 1], [1, 1, 1]], 3), ([[3], [3]], 0), ([[3, 3], [1] * 7], 7), ([], 0)],
)
def test_s3_4_t4_knight_bonus(groups, bonus):
    """docs/rules/don_quixote.md §3.4 T4: best group of >= 2 connected knights, scoring 3
    only."""
    S = network_estate([[("K", s) for s in g] for g in groups])
    assert breakdown(S, 3)[0]["knight_bonus"] == bonus
    assert breakdown(S, 2)[0]["knight_bonus"] == 0


def test_s3_4_castle_knight_counts_once_for_both_stubs():
    """docs/rules/don_quixote.md §3.3: two stubs of one castle joined around it count each
    knight once; one knight may count for both castles (§3.4)."""
    S = network_estate(
        [[("stub", 0, 6), ("stub", 0, 6), ("K", 1), ("stub", 1, 4)], [("stub", 1, 4)]]
    )
    assert KR.castle_knights(S, 0) == 1 and KR.castle_knights(S, 1) == 1
    assert breakdown(S, 1)[0]["castle6"] == 6 and breakdown(S, 1)[0]["castle4"] == 4
    assert breakdown(S, 2)[0]["castle6"] == 0


# ---------------------------------------------------------------- T5 (round-1 example)
T5_TILES = [
    land("KB2", L="knight", shieldL=3, roads=[(["LS", "LW"], ["L"])]),
    land("WB1", L="windmill", roads=[(["RE"], ["L"])]),
    land("WD2", L="windmill", roads=[(["RN", "RE"], ["L"])]),
    land("KD3", R="knight", shieldR=1, roads=[(["LW", "LN", "RE"], ["R"])]),
    land("WC3", L="windmill", roads=[(["LS"], ["L"])]),
    land("KG3", R="knight", shieldR=2, roads=[(["RE"], ["R"])]),
    land("KG2", L="knight", shieldL=1),
    land("KH2", L="knight", shieldL=2, roads=[(["RS"], ["L"])]),
    land("CE3", L="church", roads=[(["LW"], ["L"])]),
    castle("CASTLE6", 6, "LN", "RS"),
    castle("CASTLE4", 4, "LN", "RS"),
]


def t5_board(tmp_path):
    b = Board(tmp_path, T5_TILES)
    b.put("F1", "CASTLE6").put("C2", "CASTLE4")
    for name, tid in [
        ("B2", "KB2"),
        ("B1", "WB1"),
        ("D2", "WD2"),
        ("D3", "KD3"),
        ("C3", "WC3"),
        ("G3", "KG3"),
        ("G2", "KG2"),
        ("H2", "KH2"),
        ("E3", "CE3"),
    ]:
        b.put(name, tid)
    return b


def test_s7_t5_round1_example_scores_6(tmp_path):
    """docs/rules/don_quixote.md §7 T5: Jiří's round-1 estate (castles 6 @ F1, 4 @ C2) scores
    castle6 0 + castle4 4 + churches 0 + windmills 2 + defence 0 (S = 3) = 6."""
    b = t5_board(tmp_path)
    assert b.bd(1) == (
        {
            "castle6": 0,
            "castle4": 4,
            "churches": 0,
            "windmills": 2,
            "defence": 0,
            "knight_bonus": 0,
        },
        6,
    )
    assert b.shields == 3  # D3 (1) and G3 (2); H2's road leaves through the other half


def test_s7_t5_networks(tmp_path):
    """docs/rules/don_quixote.md §7 T5: N1 = {stub(4), K(B2), W(B1)}, N2 = {stub(4)', K(D3),
    W(D2), W(C3)}; B2 and D3 are not one knight group (the castle separates them)."""
    b = t5_board(tmp_path)
    c2 = cell("C2") * K.MAXP
    n1, n2 = KR.find(b.S, c2), KR.find(b.S, c2 + 1)
    assert n1 != n2
    assert b.node("B2") == n1 == b.node("B1")
    assert b.node("D3") == n2 == b.node("D2") == b.node("C3")
    assert KR.castle_knights(b.S, 1) == 2 and KR.castle_knights(b.S, 0) == 0
    for name in ("G2", "G3", "H2"):
        assert b.node(name) not in (KR.find(b.S, cell("F1") * 4), KR.find(b.S, cell("F1") * 4 + 1))
    assert b.S[KL.CH, b.node("E3")] == 1 and b.S[KL.SIZE, b.node("E3")] == 1  # church alone
    assert b.bd(3)[0]["knight_bonus"] == 0


# ---------------------------------------------------------------- T6, T7 (network level)
def _t6_estate():
    return network_estate(
        [
            [("stub", 0, 6), ("K", 1)],
            [("stub", 0, 6)],
            [("stub", 1, 4), ("K", 2), ("K", 3), ("K", 1), ("K", 3)],
            [("stub", 1, 4)],
            [("C",)] * 4,
            [("C",)],
            [("C",)],
            [("C",)],
            [("W",)] * 2,
            [("W",)] * 5,
            [("K", 2)],
            [("K", 1)],
        ],
        defence=3,
    )


def test_s7_t6_final_scoring_33():
    """docs/rules/don_quixote.md §7 T6: final scoring 0 + 4 + 8 + 12 + 0 + 9 = 33."""
    S = _t6_estate()
    assert breakdown(S, 3) == (
        {
            "castle6": 0,
            "castle4": 4,
            "churches": 8,
            "windmills": 12,
            "defence": 0,
            "knight_bonus": 9,
        },
        33,
    )


def test_s7_t5_t6_t7_game_total_57(tmp_path):
    """docs/rules/don_quixote.md §7 T6: the game total is 6 + 18 + 33 = 57, each scoring
    computed by the engine on its own estate (T5 board at scoring 1, T7 at 2, T6 at 3)."""
    totals = [
        t5_board(tmp_path).bd(1)[1],
        breakdown(_t7_estate(), 2)[1],
        breakdown(_t6_estate(), 3)[1],
    ]
    assert totals == [6, 18, 33] and sum(totals) == 57


def _t7_estate():
    return network_estate(
        [
            [("stub", 0, 6), ("K", 1)],
            [("stub", 0, 6)],
            [("stub", 1, 4), ("K", 3), ("W",)],
            [("stub", 1, 4), ("K", 1), ("W",), ("W",)],
            [("C",)] * 3,
            [("W",)] * 3,
            [("C",)],
        ],
        defence=3,
    )


def test_s7_t7_derived_scoring2_18():
    """docs/rules/don_quixote.md §7 T7: scoring 2 = 4 + 0 + 0 + 2 + 12 = 18 (castle 4 via B2
    and D3, windmill pair D2/C3, the other groups 12). In this estate the other groups are 3
    churches and 3 windmills (plus a lone church): by §3.5 group(3) = 6 each, so churches
    6 + 0 = 6 and windmills 2 (the pair D2/C3) + 0 (B2's lone windmill) + 6 = 8."""
    bd, total = breakdown(_t7_estate(), 2)
    assert total == 18
    assert bd == {
        "castle6": 0,
        "castle4": 4,
        "churches": 6,
        "windmills": 8,
        "defence": 0,
        "knight_bonus": 0,
    }


# ---------------------------------------------------------------- T8 geometry
T8_TILES = [
    land("KR2_RE", R="knight", shieldR=2, roads=[(["RE"], ["R"])]),
    land("KL1_RS", L="knight", shieldL=1, roads=[(["RS"], ["L"])]),
    land("KL3_LN", L="knight", shieldL=3, roads=[(["LN"], ["L"])]),
    land("KR1_RE", R="knight", shieldR=1, roads=[(["RE"], ["R"])]),
    land("KL2_LW", L="knight", shieldL=2, roads=[(["LW"], ["L"])]),
    land("KR1_RE_RN", R="knight", shieldR=1, roads=[(["RE", "RN"], ["R"])]),
    land("KL2_LW_LN", L="knight", shieldL=2, roads=[(["LW", "LN"], ["L"])]),
    land("B1", roads=[(["RS", "RE"], [])]),
    land("B2", roads=[(["LW", "RE"], [])]),
    land("B3", roads=[(["LW", "LS"], [])]),
    land("CR_RE", R="church", roads=[(["RE"], ["R"])]),
    land("CL_LW", L="church", roads=[(["LW"], ["L"])]),
    land("CR_RE_RN", R="church", roads=[(["RE", "RN"], ["R"])]),
    land("CL_LW_LN", L="church", roads=[(["LW", "LN"], ["L"])]),
    castle("CASTLE6", 6, "LN", "RS"),
    castle("CASTLE4", 4, "LW", "RE"),  # synthetic LW|RE castle of T8 (d)-(f), not the default
]


@pytest.mark.parametrize("rot,shields", [(0, 2), (180, 0)])
def test_s7_t8a_d3_knight_defends_only_facing_out(tmp_path, rot, shields):
    """docs/rules/don_quixote.md §7 T8 (a): D3, knight on R with RE: S = 2; turned 180° the
    knight's LW faces D2: S = 0."""
    assert Board(tmp_path, T8_TILES).put("D3", "KR2_RE", rot).shields == shields


@pytest.mark.parametrize("variant", [None, {"defence_road": "half-only"}])
def test_s7_t8b_h2_road_through_other_half_does_not_defend(tmp_path, variant):
    """docs/rules/don_quixote.md §7 T8 (b): H2, knight on L whose road leaves by RS: S = 0
    under both readings (no boundary port in the knight's own half)."""
    assert Board(tmp_path, T8_TILES, variant).put("H2", "KL1_RS").shields == 0


@pytest.mark.parametrize("variant, shields", [(None, 1), ({"defence_road": "half-only"}, 0)])
def test_s3_7_3_defence_road_variant_own_port_and_other_half(tmp_path, variant, shields):
    """docs/rules/don_quixote.md §3.7.3: H2, knight 1 on L whose road piece has
    the boundary port LS in its own half and also RS in the other half: it defends with the
    default own-half (S = 1), not with half-only (S = 0)."""
    tiles = T8_TILES + [land("KL1_LS_RS", L="knight", shieldL=1, roads=[(["LS", "RS"], ["L"])])]
    assert Board(tmp_path, tiles, variant).put("H2", "KL1_LS_RS").shields == shields


@pytest.mark.parametrize("where,rot,shields", [("A1", 0, 3), ("B1", 0, 0), ("B1", 180, 0)])
def test_s7_t8c_a1_top_edge(tmp_path, where, rot, shields):
    """docs/rules/don_quixote.md §7 T8 (c): knight 3 with LN on A1 defends (S = 3); on B1
    (either way round) S = 0."""
    assert Board(tmp_path, T8_TILES).put(where, "KL3_LN", rot).shields == shields


def test_s7_t8d_castle_separates_knights(tmp_path):
    """docs/rules/don_quixote.md §7 T8 (d): row C knights either side of an LW|RE castle 4:
    castle 4 gives 4, 4, 0 at scorings 1-3, knight bonus 0, S = 0."""
    b = Board(tmp_path, T8_TILES).put("C2", "CASTLE4").put("C1", "KR1_RE").put("C3", "KL2_LW")
    assert KR.castle_knights(b.S, 1) == 2
    assert [b.bd(r)[0]["castle4"] for r in (1, 2, 3)] == [4, 4, 0]
    assert b.bd(3)[0]["knight_bonus"] == 0
    assert b.shields == 0


def test_s7_t8e_knights_join_around_castle(tmp_path):
    """docs/rules/don_quixote.md §7 T8 (e): the row-B loop joins both stubs and both knights
    in one network: bonus 1 + 2 = 3, castle 4 still has 2 knights (4, 4, 0), S = 0."""
    b = Board(tmp_path, T8_TILES).put("C2", "CASTLE4").put("C1", "KR1_RE_RN")
    b.put("C3", "KL2_LW_LN").put("B1", "B1").put("B2", "B2").put("B3", "B3")
    c2 = cell("C2") * K.MAXP
    assert KR.find(b.S, c2) == KR.find(b.S, c2 + 1) == b.node("C1") == b.node("C3")
    assert b.bd(3)[0]["knight_bonus"] == 3
    assert KR.castle_knights(b.S, 1) == 2
    assert [b.bd(r)[0]["castle4"] for r in (1, 2, 3)] == [4, 4, 0]
    assert b.shields == 0


def test_s7_t8f_churches_split_by_castle_then_joined(tmp_path):
    """docs/rules/don_quixote.md §7 T8 (f): churches either side of a castle score 0; with the
    row-B loop they form one network of 2 churches: 2."""
    b = Board(tmp_path, T8_TILES).put("C2", "CASTLE4").put("C1", "CR_RE").put("C3", "CL_LW")
    assert b.bd(1)[0]["churches"] == 0
    b = Board(tmp_path, T8_TILES).put("C2", "CASTLE4").put("C1", "CR_RE_RN")
    b.put("C3", "CL_LW_LN").put("B1", "B1").put("B2", "B2").put("B3", "B3")
    assert b.bd(1)[0]["churches"] == 2


@pytest.mark.parametrize(
    "other,adjacent",
    [
        ("E1", True),
        ("E2", True),
        ("F2", True),
        ("G1", True),
        ("G2", True),
        ("C2", False),
        ("F3", False),
        ("D1", False),
    ],
)
def test_s7_t8g_castle_adjacency(other, adjacent):
    """docs/rules/don_quixote.md §7 T8 (g) / §3.1: with the 6-castle at F1, a 4-castle card
    for E1, E2, F2, G1 or G2 is rejected; C2 is accepted."""
    assert bool(int(K.BB_NEAR[cell("F1")]) >> cell(other) & 1) == adjacent


def test_s3_1_deal_never_puts_castles_adjacent():
    """docs/rules/don_quixote.md §3.1: over 3000 deals the castles are distinct, never
    8-adjacent, and the 22 placement cards are the other cells."""
    castles = np.zeros(2, dtype=np.int64)
    cells = np.zeros(22, dtype=np.int64)
    seq = np.zeros((2, 22), dtype=np.int64)
    lr = np.zeros(2, dtype=np.int64)
    seen4 = set()
    for gi in range(3000):
        K.deal(np.uint64(5), np.int64(gi), 2, 22, castles, cells, seq, lr)
        a, b = castles
        assert a != b and not int(K.BB_NEAR[a]) >> int(b) & 1
        assert sorted(cells.tolist() + [a, b]) == list(range(24))
        assert sorted(seq[0].tolist()) == list(range(22)) == sorted(seq[1].tolist())
        if a == cell("F1"):
            seen4.add(int(b))
    assert cell("C2") in seen4 and not seen4 & {cell(n) for n in ("E1", "E2", "F2", "G1", "G2")}


# ---------------------------------------------------------------- T9 round structure
def test_s7_t9_round_structure():
    """docs/rules/don_quixote.md §7 T9: after scorings 1/2/3 the board holds 11/18/24 tiles;
    the set-aside tile is always placed on the 22nd placement card's cell."""
    prep = G.prepare(resolve_config("don-quixote", 2, ["greedy", "random"])[1])
    for rec in G.record_games(prep, 11, range(6)):
        res = G.replay(rec)
        for pl, rp in zip(rec["players"], res["players"]):
            assert [s["tiles_on_board"] for s in rp["scorings"]] == [11, 18, 24]
            assert [s["placements"] for s in rp["scorings"]] == [9, 16, 22]
            assert pl["placements"][21]["tile"] == pl["reveals"]["set_aside"]
            r1 = set(pl["reveals"]["round1"])
            assert {m["tile"] for m in pl["placements"][:9]} == r1
            assert {m["tile"] for m in pl["placements"][9:16]} == set(pl["reveals"]["round2"])
        last = [p["placements"][21]["cell"] for p in rec["players"]]
        assert last[0] == last[1]


# ---------------------------------------------------------------- §6.1 tile file
def placeholder_doc():
    return json.loads(G.default_tiles_path().read_text())


def test_s6_1_placeholder_loads_strict():
    """docs/rules/don_quixote.md §2.3/§6.1: the shipped placeholder passes every invariant,
    has 22 landscape tiles + castles 6, 4 and is labelled reconstructed."""
    ts = G.load_tileset()
    assert ts.n_land == 22 and [t.castle for t in ts.instances[22:]] == [6, 4]
    assert ts.provenance == "reconstructed"
    feats = [f for t in ts.instances for f in t.feature if f != "none"]
    assert feats.count("church") == 7 and feats.count("windmill") == 7
    assert sorted(s for t in ts.instances for s in t.shield if s) == [1, 1, 1, 2, 2, 2, 3, 3]


def _tile(doc, tid):
    return next(t for t in doc["tiles"] if t["id"] == tid)


def _mut_remove(doc):
    doc["tiles"] = [t for t in doc["tiles"] if t["id"] != "W7"]


def _mut_nofeature(doc):
    _tile(doc, "W7")["halves"]["L"] = {"feature": "none"}
    _tile(doc, "W7")["roads"][0]["features"] = []


def _mut_ports(doc):
    _tile(doc, "C4")["roads"][0]["ports"] = ["LN", "LS", "RE", "RN", "LW"]


def _mut_shield(doc):
    _tile(doc, "K3a")["halves"]["L"]["shield"] = 4


def _mut_church(doc):
    t = _tile(doc, "C7")
    t["halves"]["L"]["feature"] = "windmill"


def _mut_shields_superset(doc):
    _tile(doc, "K3b")["halves"]["L"]["shield"] = 2


def _mut_feature_two_pieces(doc):
    t = _tile(doc, "K2b")
    t["roads"] = [{"ports": ["LN"], "features": ["L"]}, {"ports": ["LS"], "features": ["L"]}]


def _mut_port_twice(doc):
    t = _tile(doc, "K2b")
    t["roads"] = [{"ports": ["LN"], "features": ["L"]}, {"ports": ["LN"], "features": []}]


def _mut_bad_port(doc):
    _tile(doc, "C1")["roads"][0]["ports"] = ["LW", "XX"]


def _mut_dup(doc):
    _tile(doc, "C1")["id"] = "C2"


def _mut_castle_stubs(doc):
    _tile(doc, "CASTLE4")["roads"].append({"ports": ["LW"], "castle_stub": True})


def _mut_no_castle4(doc):
    doc["tiles"] = [t for t in doc["tiles"] if t["id"] != "CASTLE4"]


def _mut_confidence(doc):
    _tile(doc, "C1")["confidence"] = "sure"


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (_mut_remove, "needs 22 landscape tiles, found 21"),
        (_mut_nofeature, "tile 'W7': a landscape tile needs at least one"),
        (_mut_ports, "tile 'C4': 5 exit ports, at most 4"),
        (_mut_shield, "tile 'K3a': half L: knight shield must be one of (1, 2, 3)"),
        (_mut_church, "needs 7 churches, found 6"),
        (_mut_shields_superset, "only 1 knight(s) with shield 3"),
        (
            _mut_feature_two_pieces,
            "tile 'K2b': the feature of half L lies on more than one road piece",
        ),
        (_mut_port_twice, "tile 'K2b': port LN belongs to more than one road piece"),
        (_mut_bad_port, "tile 'C1': road piece #0: unknown port 'XX'"),
        (_mut_dup, "tile 'C2': duplicate id"),
        (_mut_castle_stubs, "tile 'CASTLE4': a castle has exactly 2 road stubs"),
        (_mut_no_castle4, "needs exactly the castles (6, 4)"),
        (_mut_confidence, "tile 'C1': 'confidence' must be one of low|medium|high"),
    ],
)
def test_s6_1_broken_tile_file_one_line_error(tmp_path, mutate, needle):
    """docs/rules/don_quixote.md §6.1: every invariant is checked on load; a broken file gives
    one line naming the tile and the broken rule."""
    doc = placeholder_doc()
    mutate(doc)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(DataFileError) as e:
        G.load_tileset(p)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg and msg.startswith(f"{p}: ")  # the path as given


def test_s6_1_not_json_and_missing(tmp_path):
    """docs/rules/don_quixote.md §6.1: unreadable files are DataFileError too."""
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(DataFileError, match="tile file is not valid JSON"):
        G.load_tileset(p)
    with pytest.raises(DataFileError, match="missing.json: tile file does not exist"):
        G.load_tileset(tmp_path / "missing.json")


def test_s6_1_tiles_option_and_provenance(tmp_path):
    """docs/rules/don_quixote.md §6.1: ``options["tiles"]`` loads another set; the
    summary info names it; the reconstruction notice appears only for unverified sets."""
    prep = G.prepare(resolve_config("don-quixote", 1, ["random"])[1])
    assert prep.info["tileset"] == {"id": "placeholder-2.3-v0", "provenance": "reconstructed"}
    assert len(prep.notices) == 1 and "reconstructed" in prep.notices[0]
    doc = placeholder_doc()
    doc["tileset"], doc["provenance"] = "physical-v1", "verified"
    p = tmp_path / "real.json"
    p.write_text(json.dumps(doc))
    prep = G.prepare(resolve_config("don-quixote", 1, ["random"], options={"tiles": str(p)})[1])
    assert prep.info["tileset"] == {"id": "physical-v1", "provenance": "verified"}
    assert prep.notices == []


def test_s1_3_rotation_maps_ports_and_swaps_halves():
    """docs/rules/don_quixote.md §1.3: 180° maps LW<->RE, LN<->RS, LS<->RN and swaps halves."""
    names = K.PORT_NAMES
    assert {names[i]: names[K.ROT_PORT[i]] for i in range(6)} == {
        "LW": "RE",
        "LN": "RS",
        "LS": "RN",
        "RE": "LW",
        "RN": "LS",
        "RS": "LN",
    }
    ts = G.load_tileset()
    tab = G.build_tables(ts)
    k3a = [t.id for t in ts.instances].index("K3a")
    # K3a: knight 3 on L, road LW-RE; on H1 (LW, LS, RS on the boundary) turned 180° the
    # knight is on R with RE, which faces H2; on B3 turned 180° RE is the east edge
    assert tab[k3a, 0, K.T_DEF + cell("H1")] == 3 and tab[k3a, 1, K.T_DEF + cell("H1")] == 0
    assert tab[k3a, 0, K.T_DEF + cell("B3")] == 0 and tab[k3a, 1, K.T_DEF + cell("B3")] == 3


def test_s1_1_border_cells():
    """docs/rules/don_quixote.md §1.1: 18 border cells; B2..G2 interior; D3, G3, H2 border."""
    border = [n for i, n in enumerate(K.CELL_NAMES) if K.BOUNDARY[i]]
    assert len(border) == 18
    assert set(K.CELL_NAMES) - set(border) == {"B2", "C2", "D2", "E2", "F2", "G2"}
    assert bin(int(KL.BB_BORDER)).count("1") == 18
    # 16 horizontal + 21 vertical adjacent pairs, 58 port pairs (§6.2)
    pairs = {(c, p) for c in range(24) for p in range(6) if KL.NB_CELL[c, p] >= 0}
    assert len(pairs) == 2 * 58
