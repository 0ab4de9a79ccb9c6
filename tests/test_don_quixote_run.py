"""Don Quixote integration: naive second scorer cross-check, determinism, records, bad input,
through ``mcsim.simulate`` and the CLI (docs/rules/don_quixote.md)."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import cli
import mcsim
from kernels import don_quixote as K
from kernels.don_quixote import layout as KL
from kernels.don_quixote import rules as KR
from kernels.don_quixote import search_steps as KS
from kernels.rng import seed_state
from mcsim.errors import (
    ConfigError,
    DataFileError,
    IllegalMoveError,
    InvalidRecordError,
    UnknownPolicyError,
    UnknownVariantError,
)
from mcsim.games import don_quixote as G

# ---------------------------------------------------------------- the naive scorer
ROT = {"LW": "RE", "LN": "RS", "LS": "RN", "RE": "LW", "RN": "LS", "RS": "LN"}


def naive_scores(ts, castle_cells, placements, half_only=False):
    """Scorings 1-3 (dict of category -> points per round) of an estate, recomputed the slow way
    from the TileSet objects: named ports, rows/columns arithmetic, breadth-first search."""
    board = {}  # (row, col) -> (tile, rot)
    for v, name in zip((6, 4), castle_cells):
        t = next(t for t in ts.instances if t.castle == v)
        board[divmod(K.CELL_NAMES.index(name), 3)] = (t, 0)
    for name, inst, rot in placements:
        board[divmod(K.CELL_NAMES.index(name), 3)] = (ts.instances[inst], rot)
    # node = (row, col, piece); ports as names after turning
    ports = {}
    feats = {}
    for (r, c), (t, rot) in board.items():
        for k, pc in enumerate(t.pieces):
            names = [K.PORT_NAMES[q] for q in pc.ports]
            ports[(r, c, k)] = {ROT[n] if rot else n for n in names}
            feats[(r, c, k)] = [
                (t.feature[h], t.shield[h], h ^ (1 if rot else 0)) for h in pc.features
            ]
    edges = {n: [] for n in ports}

    def piece_with(r, c, port):
        for (rr, cc, k), ps in ports.items():
            if (rr, cc) == (r, c) and port in ps:
                return (rr, cc, k)
        return None

    for r, c in board:
        for dr, dc, mine, theirs in ((0, 1, "RE", "LW"), (1, 0, "LS", "LN"), (1, 0, "RS", "RN")):
            if (r + dr, c + dc) in board:
                a = piece_with(r, c, mine)
                b = piece_with(r + dr, c + dc, theirs)
                if a and b:
                    edges[a].append(b)
                    edges[b].append(a)
    comp = {}
    for n in ports:
        if n in comp:
            continue
        stack = [n]
        comp[n] = n
        while stack:
            x = stack.pop()
            for y in edges[x]:
                if y not in comp:
                    comp[y] = n
                    stack.append(y)
    members = {}
    for n, root in comp.items():
        members.setdefault(root, []).append(n)
    stub_roots = {6: set(), 4: set()}
    for (r, c), (t, _rot) in board.items():
        if t.castle:
            for k in range(len(t.pieces)):
                stub_roots[t.castle].add(comp[(r, c, k)])

    def knights(root):
        return [s for n in members[root] for f, s, _ in feats[n] if f == "knight"]

    def count(root, kind):
        return sum(1 for n in members[root] for f, _, _ in feats[n] if f == kind)

    def group(n):
        return 0 if n < 2 else (2 if n == 2 else 2 * n)

    shields = 0
    for (r, c), (t, _rot) in board.items():
        for k in range(len(t.pieces)):
            for f, s, half in feats[(r, c, k)]:
                if f != "knight":
                    continue
                own = {p for p in ports[(r, c, k)] if p[0] == "LR"[half]}
                other = {p for p in ports[(r, c, k)] if p[0] != "LR"[half]}
                if half_only and other:
                    continue
                out = {"LW"} if c == 0 else set()
                out |= {"RE"} if c == 2 else set()
                out |= {"LN", "RN"} if r == 0 else set()
                out |= {"LS", "RS"} if r == 7 else set()
                if own & out:
                    shields += s
    res = []
    for rnd in (1, 2, 3):
        d = {}
        for v in (6, 4):
            k = sum(len(knights(x)) for x in stub_roots[v])
            d[f"castle{v}"] = v if k >= rnd and stub_roots[v] else 0
        d["churches"] = sum(group(count(x, "church")) for x in members)
        d["windmills"] = sum(group(count(x, "windmill")) for x in members)
        d["defence"] = 5 if shields >= 4 * rnd else 0
        groups = [sum(knights(x)) for x in members if len(knights(x)) >= 2]
        d["knight_bonus"] = max(groups, default=0) if rnd == 3 else 0
        res.append(d)
    return res


def random_tile_doc(rng, n_land=22):
    """A random (non-strict) tile set: several pieces per tile, features on both halves,
    roadless features, shared pieces, castles with random stub exits."""
    tiles = []
    for i in range(n_land):
        halves = {}
        for h in "LR":
            f = rng.choice(["none", "knight", "church", "windmill"], p=[0.35, 0.3, 0.2, 0.15])
            halves[h] = {"feature": str(f)}
            if f == "knight":
                halves[h]["shield"] = int(rng.integers(1, 4))
        ports = [p for p in K.PORT_NAMES if rng.random() < 0.5]
        rng.shuffle(ports)
        npieces = int(rng.integers(1, 3)) if ports else 0
        pieces = [[] for _ in range(npieces)]
        for j, p in enumerate(ports):
            pieces[j % npieces if j < npieces else int(rng.integers(0, npieces))].append(p)
        roads = [{"ports": ps, "features": []} for ps in pieces if ps]
        for h in "LR":
            if halves[h]["feature"] != "none" and roads and rng.random() < 0.85:
                roads[int(rng.integers(0, len(roads)))]["features"].append(h)
        tiles.append({"id": f"T{i}", "halves": halves, "roads": roads})
    for v in (6, 4):
        a, b = rng.choice(K.PORT_NAMES, size=2, replace=False)
        tiles.append(
            {
                "id": f"CASTLE{v}",
                "castle": v,
                "roads": [
                    {"ports": [str(a)], "castle_stub": True},
                    {"ports": [str(b)], "castle_stub": True},
                ],
            }
        )
    return {"tileset": "random", "provenance": "synthetic", "tiles": tiles}


def kernel_scores(tab, castle_cells, placements):
    S = K.setup_estate(tab, np.array([K.CELL_NAMES.index(c) for c in castle_cells]))
    log = np.zeros(K.LOGN, dtype=np.int64)
    for name, inst, rot in placements:
        K.place(S, tab, K.CELL_NAMES.index(name), inst, rot, log)
    out = []
    for rnd in (1, 2, 3):
        bd = np.zeros(K.N_CAT, dtype=np.int64)
        K.score_breakdown(S, rnd, bd)
        out.append(dict(zip(K.CAT_NAMES, bd.tolist())))
    return out


def random_estate(rng, n_land):
    cells = list(range(24))
    while True:
        a, b = rng.choice(24, size=2, replace=False)
        if not int(K.BB_NEAR[a]) >> int(b) & 1:
            break
    rest = [c for c in cells if c not in (a, b)]
    rng.shuffle(rest)
    n = int(rng.integers(0, 23))
    inst = rng.permutation(n_land)
    placements = [
        (K.CELL_NAMES[rest[i]], int(inst[i]), int(rng.integers(0, 2)))
        for i in range(min(n, n_land))
    ]
    return (K.CELL_NAMES[a], K.CELL_NAMES[b]), placements


def test_s3_4_kernel_matches_naive_scorer_on_random_estates(tmp_path):
    """docs/rules/don_quixote.md §3.3-§3.4: the union-find kernel and a naive breadth-first
    scorer agree on every category of every scoring for 3150 random estates (placeholder set
    and 20 random tile sets with multi-piece tiles, features on both halves, random castle
    exits), both defence readings (§3.7.3)."""
    rng = np.random.default_rng(20260)
    sets = [G.load_tileset()]
    for j in range(20):
        p = tmp_path / f"r{j}.json"
        p.write_text(json.dumps(random_tile_doc(rng)))
        sets.append(G.load_tileset(p, strict=False))
    n_checked = 0
    for j, ts in enumerate(sets):
        for half_only in (False, True):
            tab = G.build_tables(ts, {"defence_road": "half-only" if half_only else "own-half"})
            for _ in range(75):
                castles, placements = random_estate(rng, ts.n_land)
                want = naive_scores(ts, castles, placements, half_only)
                got = kernel_scores(tab, castles, placements)
                assert got == want, (j, castles, placements)
                n_checked += 1
    assert n_checked == 3150


def test_s3_3_place_unplace_restores_state():
    """docs/rules/don_quixote.md §3.3: a trial placement undone leaves the estate unchanged
    (the greedy/heuristic/oracle searches rely on it)."""
    rng = np.random.default_rng(3)
    ts = G.load_tileset()
    tab = G.build_tables(ts)
    for _ in range(200):
        castles, placements = random_estate(rng, 22)
        if len(placements) < 2:
            continue
        S = K.setup_estate(tab, np.array([K.CELL_NAMES.index(c) for c in castles]))
        log = np.zeros(K.LOGN, dtype=np.int64)
        for name, inst, rot in placements[:-1]:
            K.place(S, tab, K.CELL_NAMES.index(name), inst, rot, log)
        before = S.copy()
        saved = S[K.SC, : KL.SC_SAVE].copy()
        name, inst, rot = placements[-1]
        K.place(S, tab, K.CELL_NAMES.index(name), inst, rot, log)
        KR.unplace(S, tab, K.CELL_NAMES.index(name), log, saved)
        for r in (KL.PAR, KL.SIZE, KL.KN, KL.SH, KL.CH, KL.WM, K.CELLS, K.SC):
            live = before[KL.PAR] >= 0 if r not in (K.CELLS, K.SC) else slice(None)
            assert (S[r][live] == before[r][live]).all()


# ---------------------------------------------------------------- runs
def test_s3_1_determinism_and_common_deal():
    """docs/rules/don_quixote.md §3.1: same seed -> same per-game results (any worker count);
    in a 2-player game both seats share castles and cell order (greedy vs greedy is a mirror
    when their reveals coincide only by chance, so compare with solo runs instead)."""
    a = mcsim.simulate("don-quixote", games=40, seed=9, policies=["greedy"])
    b = mcsim.simulate(
        "don-quixote", games=40, seed=9, policies=["greedy"], workers=2, chunk_size=7
    )
    pd.testing.assert_frame_equal(a.games, b.games)
    c = mcsim.simulate("don-quixote", games=40, seed=10, policies=["greedy"])
    assert not a.games["score_0"].equals(c.games["score_0"])
    # seat 0 of a 2-player game sees the same deal as a solo game with the same seed
    d = mcsim.simulate("don-quixote", games=40, seed=9, policies=["greedy", "random"])
    assert (d.games["score_0"] == a.games["score_0"]).all()
    # policies that draw random numbers (rollout futures, oracle annealing) too
    for pol in ("rollout:k=2,base=0", "oracle:beam=2,iters=500"):
        e = mcsim.simulate("don-quixote", games=6, seed=9, policies=[pol])
        f = mcsim.simulate("don-quixote", games=6, seed=9, policies=[pol], workers=2, chunk_size=2)
        pd.testing.assert_frame_equal(e.games, f.games)


def test_summary_block_and_columns():
    """The summary: per-category and per-scoring breakdown under "don_quixote"; tileset named."""
    r = mcsim.simulate("don-quixote", games=300, seed=4, policies=["greedy"])
    g = r.games
    cats = g[[f"{c}_0" for c in K.CAT_NAMES]].sum(axis=1)
    scs = g[[f"scoring{k}_0" for k in (1, 2, 3)]].sum(axis=1)
    assert (cats == g["score_0"]).all() and (scs == g["score_0"]).all()
    assert (g["s1_knight_bonus_0"] == 0).all() and (g["s2_knight_bonus_0"] == 0).all()
    block = r.summary["don_quixote"]
    assert r.summary["tileset"] == {"id": "placeholder-2.3-v0", "provenance": "reconstructed"}
    assert abs(sum(block["mean_per_category"].values()) - g["score_0"].mean()) < 1e-9
    assert set(block["bands"]) == {"p_over_70", "p_over_85", "p_over_100"}


def test_s3_2_policy_order_on_common_deals():
    """On 400 common deals greedy beats random by far (paired mean difference
    > 10 points; the paired sd is about 12, so the standard error is about 0.6)."""
    a = mcsim.simulate("don-quixote", games=400, seed=2, policies=["greedy"]).games["score_0"]
    b = mcsim.simulate("don-quixote", games=400, seed=2, policies=["random"]).games["score_0"]
    d = (a - b).to_numpy(dtype=float)
    assert d.mean() - 4 * d.std(ddof=1) / np.sqrt(d.size) > 10


def test_records_round_trip_every_policy():
    """Records of every policy replay to the run's totals and breakdowns."""
    for pol in ("random", "greedy", "heuristic", "rollout:k=2,base=0", "oracle:beam=2,iters=300"):
        r = mcsim.simulate("don-quixote", games=3, seed=6, policies=[pol], record=2)
        for i, rec in enumerate(r.records):
            out = G.replay(json.loads(json.dumps(rec)))
            assert out["finished"] and out["points"] == [int(r.games["score_0"][i])]
            for k in (1, 2, 3):
                assert out["players"][0]["scorings"][k - 1]["points"] == r.games[f"scoring{k}_0"][i]


def test_oracle_stages_and_bound():
    """The oracle's stages never lose points (beam + exact round 3 <= annealed
    plan <= final plan) and the played total equals the plan's total; on 8 deals the oracle
    beats the heuristic by more than 15 points on average (expected about 35; paired sd about
    10, standard error about 3.5)."""
    prep = G.prepare(mcsim.runner.resolve_config("don-quixote", 1, ["oracle"])[1])
    tab = prep.tables["tiles"]
    castles = np.zeros(2, dtype=np.int64)
    cells = np.zeros(22, dtype=np.int64)
    seq = np.zeros((1, 22), dtype=np.int64)
    lr = np.zeros(1, dtype=np.int64)
    for gi in range(3):
        K.deal(np.uint64(1), np.int64(gi), 1, 22, castles, cells, seq, lr)
        S = K.setup_estate(tab, castles)
        plan = np.zeros((22, 2), dtype=np.int64)
        beam = KS.oracle_plan(S, tab, cells, seq[0], 3, 4, plan)
        scratch = np.empty_like(S)
        log = np.zeros(K.LOGN, dtype=np.int64)
        assert KS.plan_total(S, tab, cells, plan, scratch, log) == beam
        rng = np.zeros(4, dtype=np.uint64)
        seed_state(rng, np.uint64(gi + 1))
        annealed = KS.improve_plan(S, tab, cells, 3, plan, 3000, rng)
        assert annealed >= beam
        assert KS.plan_total(S, tab, cells, plan, scratch, log) == annealed
        assert sorted(plan[:9, 0]) == sorted(seq[0, :9]) and plan[21, 0] == seq[0, 21]
    o = mcsim.simulate("don-quixote", games=8, seed=1, policies=["oracle:beam=4,iters=5000"]).games[
        "score_0"
    ]
    h = mcsim.simulate("don-quixote", games=8, seed=1, policies=["heuristic"]).games["score_0"]
    assert (o - h).mean() > 15


# ---------------------------------------------------------------- bad input
def _record():
    r = mcsim.simulate("don-quixote", games=1, seed=3, policies=["greedy"], record=1)
    return r.records[0]


def test_bad_records_raise_the_right_error():
    """Replay checks empty cell, unused tile, legal castles, face-up tiles."""
    rec = _record()
    pl = rec["players"][0]["placements"]
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["placements"][3]["tile"] = pl[0]["tile"]
    with pytest.raises(IllegalMoveError) as e:
        G.replay(bad)
    assert e.value.ply == 3 and e.value.legal
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["placements"][5]["cell"] = pl[1]["cell"]
    with pytest.raises(IllegalMoveError, match="at ply 5"):
        G.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["placements"][2]["cell"] = rec["castles"]["6"]
    with pytest.raises(IllegalMoveError, match="at ply 2"):
        G.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["placements"][0]["rot"] = 90
    with pytest.raises(IllegalMoveError, match="at ply 0"):
        G.replay(bad)
    # a round-2 tile played in round 1 is not face up yet
    bad = json.loads(json.dumps(rec))
    r2 = bad["players"][0]["reveals"]["round2"][0]
    j = next(i for i, m in enumerate(pl) if m["tile"] == r2)
    bad["players"][0]["placements"][0]["tile"], bad["players"][0]["placements"][j]["tile"] = (
        r2,
        pl[0]["tile"],
    )
    with pytest.raises(IllegalMoveError, match="at ply 0"):
        G.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["castles"] = {"6": "F1", "4": "G2"}
    with pytest.raises(InvalidRecordError, match="touches the 6-castle at F1"):
        G.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["reveals"]["round1"] = bad["players"][0]["reveals"]["round1"][:8]
    with pytest.raises(InvalidRecordError, match="reveals.round1 must list 9"):
        G.replay(bad)
    with pytest.raises(InvalidRecordError):
        G.replay([1, 2])
    bad = json.loads(json.dumps(rec))
    bad["tileset"] = {"id": "other"}
    with pytest.raises(InvalidRecordError, match="tile set 'other'"):
        G.replay(bad)


def test_replay_checks_recorded_total_and_scorings(tmp_path):
    """A recorded total or per-scoring points that differ from the replay are an
    InvalidRecordError (one line), also through ``mcsim replay``; a partial record's total is
    not checked, its completed scorings are."""
    rec = _record()
    pl = rec["players"][0]
    total, sc = pl["total"], pl["scorings"]
    assert G.replay(json.loads(json.dumps(rec)))["players"][0]["matches_record"] is True
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["total"] = total + 1
    with pytest.raises(InvalidRecordError) as e:
        G.replay(bad)
    assert str(e.value) == f"player 0: record says total {total + 1}, replay gives {total}"
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["scorings"] = [sc[0], sc[1] + 1, sc[2]]
    with pytest.raises(InvalidRecordError) as e:
        G.replay(bad)
    assert str(e.value) == (
        f"player 0: record says scorings {[sc[0], sc[1] + 1, sc[2]]}, replay gives {sc}"
    )
    bad = json.loads(json.dumps(rec))
    bad["players"][0]["scorings"] = sc[:2]
    with pytest.raises(InvalidRecordError, match="record says scorings"):
        G.replay(bad)
    bad["players"][0]["scorings"] = "many"
    with pytest.raises(InvalidRecordError, match='"scorings" must list'):
        G.replay(bad)
    # partial (12 placements: scoring 1 done): total unchecked, scoring 1 checked
    solo = {
        "castles": rec["castles"],
        "placements": pl["placements"][:12],
        "total": total + 5,
        "scorings": sc,
    }
    out = G.replay(solo)
    assert out["players"][0]["matches_record"] is False
    solo["scorings"] = [sc[0] - 1]
    with pytest.raises(InvalidRecordError, match=f"replay gives \\[{sc[0]}\\]"):
        G.replay(solo)
    from cli import mcsim_cli

    f = tmp_path / "bad.json"
    rec["players"][0]["total"] = total - 1
    f.write_text(json.dumps(rec))
    res = CliRunner().invoke(mcsim_cli, ["replay", "don-quixote", str(f)])
    assert res.exit_code == 1
    assert res.output.strip() == (
        f"Error: {f}: player 0: record says total {total - 1}, replay gives {total}"
    )


def test_partial_record_and_solo_shape():
    """A solo record may list placements at top level; a partial game prints the
    completed scorings only."""
    rec = _record()
    solo = {"castles": rec["castles"], "placements": rec["players"][0]["placements"][:12]}
    out = G.replay(solo)
    assert not out["finished"] and len(out["players"][0]["scorings"]) == 1
    assert "scoring 1 (11 tiles on the board)" in G.format_replay(out)


def test_bad_config_errors(tmp_path):
    """Bad policies, variants, player counts and tile files raise mcsim.errors classes."""
    with pytest.raises(UnknownPolicyError):
        mcsim.simulate("don-quixote", games=1, policies=["nope"])
    with pytest.raises(UnknownPolicyError):
        mcsim.simulate("don-quixote", games=1, policies=["heuristic:zz=1"])
    with pytest.raises(UnknownVariantError):
        mcsim.simulate("don-quixote", games=1, variant={"last_tile_rotation": "sideways"})
    with pytest.raises(ConfigError):
        mcsim.simulate("don-quixote", games=1, players=5)
    p = tmp_path / "t.json"
    p.write_text("[]")
    with pytest.raises(DataFileError):
        mcsim.simulate("don-quixote", games=1, options={"tiles": str(p)})


def test_cli_simulate_tiles_and_replay(tmp_path):
    """Through the CLI: --option tiles=FILE, the reconstruction notice, --json tileset,
    replay."""
    from cli import mcsim_cli

    runner = CliRunner()
    res = runner.invoke(
        mcsim_cli,
        [
            "simulate",
            "don-quixote",
            "-n",
            "50",
            "--seed",
            "1",
            "--json",
            "--record",
            "1",
            "--record-out",
            str(tmp_path / "r.json"),
        ],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["tileset"]["provenance"] == "reconstructed"
    assert "don_quixote" in summary
    res = runner.invoke(mcsim_cli, ["replay", "don-quixote", str(tmp_path / "r.json")])
    assert res.exit_code == 0 and "total" in res.output
    bad = tmp_path / "bad.json"
    doc = json.loads(G.default_tiles_path().read_text())
    doc["tiles"] = doc["tiles"][1:]
    bad.write_text(json.dumps(doc))
    res = runner.invoke(
        mcsim_cli, ["simulate", "don-quixote", "-n", "5", "--option", f"tiles={bad}"]
    )
    assert res.exit_code == 1
    assert "needs 22 landscape tiles" in res.output and "Traceback" not in res.output


# ---------------------------------------------------------------- evaluate (common deals, ensemble)
def test_evaluate_common_deals_and_blocks():
    """Every policy plays the same deals (a policy against itself differs by exactly
    0 in every game); the result carries bands, per-category/per-scoring means and regret."""
    from mcsim.evaluate import evaluate, format_evaluation

    ev = evaluate(
        "don-quixote", ["greedy", "greedy", "random", "oracle:beam=2,iters=300"], games=30, seed=4
    )
    g0, g1, r, o = ev["policies"]
    assert g1["diff_vs_first"]["mean"] == 0 and g1["diff_vs_first"]["sd"] == 0
    assert r["diff_vs_first"]["mean"] < 0
    assert set(g0["bands"]) == {"p_over_70", "p_over_85", "p_over_100"}
    assert abs(sum(g0["mean_per_category"].values()) - g0["total"]["mean"]) < 1e-9
    assert abs(sum(g0["mean_per_scoring"].values()) - g0["total"]["mean"]) < 1e-9
    assert o["regret_vs_oracle"]["mean"] == 0
    assert g0["regret_vs_oracle"]["mean"] == pytest.approx(o["total"]["mean"] - g0["total"]["mean"])
    assert ev["tileset"]["provenance"] == "reconstructed" and ev["notices"]
    assert "diff vs greedy" in format_evaluation(ev)


def test_s6_3_tileset_ensemble(tmp_path):
    """docs/rules/don_quixote.md §6.3: the ensemble's sets pass the strict §6.1
    checks, are reproducible from the seed, are written out for --option tiles=FILE, and the report gives
    the spread per policy and the share of sets where each pair's order holds."""
    from mcsim.evaluate import evaluate_ensemble, format_ensemble

    res = evaluate_ensemble(
        "don-quixote",
        ["random", "greedy"],
        3,
        games=40,
        seed=1,
        ensemble_seed=7,
        out_dir=str(tmp_path / "ens"),
    )
    files = sorted((tmp_path / "ens").glob("*.json"))
    assert [f.stem for f in files] == [s["label"] for s in res["sets"]]
    for f in files:
        ts = G.load_tileset(f)  # strict
        sh = sorted(s for t in ts.instances for s in t.shield if s)
        assert len(sh) == 8 and 14 <= sum(sh) <= 17
    again = G.random_tileset_doc(7, 1)
    assert json.loads(files[1].read_text()) == again
    assert G.random_tileset_doc(8, 1) != again
    (pair,) = res["pairs"]
    assert pair["better"] == "greedy" and pair["holds_in"] + len(pair["flips"]) == 3
    assert set(res["spread"]) == {"random", "greedy"}
    assert "holds in" in format_ensemble(res)


def test_cli_evaluate_json():
    """``mcsim evaluate don-quixote --policy A --policy B --games N --seed S
    --json``."""
    from cli import mcsim_cli

    res = CliRunner().invoke(
        mcsim_cli,
        [
            "evaluate",
            "don-quixote",
            "--policy",
            "random",
            "--policy",
            "heuristic",
            "--games",
            "60",
            "--seed",
            "2",
            "--workers",
            "1",
            "--json",
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    ev = json.loads(res.stdout)
    assert [p["policy"] for p in ev["policies"]] == ["random", "heuristic"]
    assert ev["policies"][1]["diff_vs_first"]["low"] > 0
    res = CliRunner().invoke(mcsim_cli, ["evaluate", "don-quixote", "-p", "nope", "-n", "5"])
    assert res.exit_code == 2


def test_s3_1_multiplayer_shares_castles_and_cells_not_reveals():
    """docs/rules/don_quixote.md §3.1.5: in a 4-player game the castle cells and the position
    card order are common, each player's reveals are their own; ties share the win."""
    r = mcsim.simulate("don-quixote", games=30, seed=12, policies=["random"] * 4, record=3)
    for rec in r.records:
        cells = [[m["cell"] for m in p["placements"]] for p in rec["players"]]
        assert all(c == cells[0] for c in cells)
        reveals = [tuple(p["reveals"]["round1"]) for p in rec["players"]]
        assert len(set(reveals)) > 1
    shares = r.games[[f"win_share_{k}" for k in range(4)]].to_numpy()
    assert np.allclose(shares.sum(axis=1), 1)


def test_s3_7_variants_change_what_they_say():
    """docs/rules/don_quixote.md §3.7.4 / §3.7.1: last_tile_rotation=random fixes the last
    tile's orientation to the dealt one; castle_roads=lw-re turns the castle stubs."""
    a = mcsim.simulate(
        "don-quixote",
        games=20,
        seed=3,
        policies=["greedy"],
        record=20,
        variant={"last_tile_rotation": "random"},
    )
    n_land = 22
    castles = np.zeros(2, dtype=np.int64)
    cells = np.zeros(22, dtype=np.int64)
    seq = np.zeros((1, n_land), dtype=np.int64)
    lr = np.zeros(1, dtype=np.int64)
    for i, rec in enumerate(a.records):
        K.deal(np.uint64(3), np.int64(i), 1, n_land, castles, cells, seq, lr)
        assert rec["players"][0]["placements"][21]["rot"] == 180 * int(lr[0])
    ts = G.load_tileset()
    tab = G.build_tables(ts, {"castle_roads": "lw-re"})
    pm = tab[-1, 0, K.T_PORTS : K.T_PORTS + 2].tolist()
    assert pm == [1 << K.P_LW, 1 << K.P_RE]
    assert G.build_tables(ts)[-1, 0, K.T_PORTS : K.T_PORTS + 2].tolist() == [
        1 << K.P_LN,
        1 << K.P_RS,
    ]


def test_s2_1_castle_roads_ln_rs_is_the_shipped_file():
    """docs/rules/don_quixote.md §2.1, §3.7.1: the shipped castles are LN|RS, so
    castle_roads=ln-rs builds the same tables and plays the same games as the default file;
    `mcsim games` says so."""
    ts = G.load_tileset()
    assert [t.id for t in ts.instances if t.castle] == ["CASTLE6", "CASTLE4"]
    assert np.array_equal(G.build_tables(ts, {"castle_roads": "ln-rs"}), G.build_tables(ts))
    kw = dict(games=30, seed=4, players=2, policies=["greedy"])
    pd.testing.assert_frame_equal(
        mcsim.simulate("don-quixote", variant={"castle_roads": "ln-rs"}, **kw).games,
        mcsim.simulate("don-quixote", **kw).games,
    )
    spec = G.SPEC.variant_spec("castle_roads")
    assert "castles are LN|RS, so ln-rs gives the same results as file" in spec.help
    out = CliRunner().invoke(cli.mcsim_cli, ["games"]).output
    assert "ln-rs gives the same results as file" in out


def test_s3_3_connectivity_only_grows(tmp_path):
    """docs/rules/don_quixote.md §3.3: adding tiles never disconnects anything: castle knight
    counts, the defence sum, church/windmill points and the best knight group never drop,
    over 300 random placement sequences on random tile sets."""
    rng = np.random.default_rng(77)
    for j in range(6):
        p = tmp_path / f"g{j}.json"
        p.write_text(json.dumps(random_tile_doc(rng)))
        ts = G.load_tileset(p, strict=False)
        tab = G.build_tables(ts)
        for _ in range(50):
            castles, placements = random_estate(rng, ts.n_land)
            S = K.setup_estate(tab, np.array([K.CELL_NAMES.index(c) for c in castles]))
            log = np.zeros(K.LOGN, dtype=np.int64)
            prev = None
            for name, inst, rot in placements:
                K.place(S, tab, K.CELL_NAMES.index(name), inst, rot, log)
                now = (
                    KR.castle_knights(S, 0),
                    KR.castle_knights(S, 1),
                    S[K.SC, KL.SC_DEF],
                    S[K.SC, KL.SC_CHURCH],
                    S[K.SC, KL.SC_MILL],
                    S[K.SC, KL.SC_BONUS],
                )
                if prev is not None:
                    assert all(a >= b for a, b in zip(now, prev))
                prev = now


def test_simple_kernel_matches_general_kernel():
    """The simple-policy kernel gives exactly the general kernel's results (random, greedy and
    heuristic seats mixed, 2 players, 200 games)."""
    for pols in (["random", "heuristic:open=0.5"], ["greedy", "random"]):
        prep = G.prepare(mcsim.runner.resolve_config("don-quixote", 2, pols)[1])
        a, abd = G.new_outputs(200, 2)
        b, bbd = G.new_outputs(200, 2)
        args = (
            np.int64(5),
            np.int64(200),
            np.uint64(17),
            prep.policy_ids,
            prep.policy_params,
            prep.variant_codes,
            prep.tables["tiles"],
        )
        none = G.empty_record(0, 2, prep.tables["tiles"].shape[0] - 2)
        K.play_batch_search(*args, a, abd, none)
        K.play_batch_simple(*args, b, bbd, none)
        assert (a == b).all() and (abd == bbd).all()


def test_s3_6_band_shares_match_the_games():
    """docs/rules/don_quixote.md §3.6: the summary's P(total > 70/85/100) are the shares of
    games over each band, with Wilson 95% intervals from mcsim.stats."""
    from mcsim import stats

    r = mcsim.simulate("don-quixote", games=500, seed=8, policies=["heuristic"])
    s = r.games["score_0"]
    for b in (70, 85, 100):
        got = r.summary["don_quixote"]["bands"][f"p_over_{b}"]
        assert got == stats.proportion(float((s > b).sum()), 500)


# ---------------------------------------------------------------- perft
def test_perft_counts_replay_accepted_placements():
    """perft from the unshuffled deal: depths 1-2 equal a naive count of the placement
    sequences ``replay`` accepts (every tile id of the set x rotations 0/90/180 at the dealt
    cells), depth 3 and the full game equal the product over the face-up tiles (22 different
    ids: 2 x 9 x 2 x 8 x 2 x 7; 9! 7! 5! 2^22)."""
    import math

    deal = G.perft_deal()
    assert deal["castles"] == [G.cell_index("A1"), G.cell_index("A3")]
    assert [G.K.CELL_NAMES[c] for c in deal["cells"][:3]] == ["A2", "B1", "B2"]
    cells = [G.K.CELL_NAMES[c] for c in deal["cells"]]
    ids = sorted({t.id for t in G.load_tileset().instances if not t.castle})
    base = {"castles": {"6": "A1", "4": "A3"}, "reveals": deal["reveals"]}

    def accepted(prefix):
        out = []
        for tid in ids:
            for rot in (0, 90, 180):
                moves = prefix + [{"cell": cells[len(prefix)], "tile": tid, "rot": rot}]
                try:
                    G.replay(dict(base, placements=moves))
                except IllegalMoveError:
                    continue
                out.append(moves)
        return out

    depth1 = accepted([])
    assert len(depth1) == G.perft(1) == 18
    assert sum(len(accepted(m)) for m in depth1) == G.perft(2) == 288
    assert G.perft(3) == 2 * 9 * 2 * 8 * 2 * 7 == 4032
    full = math.factorial(9) * math.factorial(7) * math.factorial(5) * 2**22
    assert G.perft(22) == full == 920523160682496000
    assert G.perft(22, {"last_tile_rotation": "random"}) == full // 2
    assert G.perft(0) == 1
    with pytest.raises(ConfigError, match="depth"):
        G.perft(23)
