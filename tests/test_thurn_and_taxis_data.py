"""Thurn and Taxis component data: graph facts and load-time validation.

Rule source: docs/rules/thurn_und_taxis.md §1-§2.
"""

import json

import pytest

from mcsim.errors import DataFileError
from mcsim.games import thurn_and_taxis as T


@pytest.fixture(scope="module")
def data():
    return T.load_data()


def _deg(data, name):
    return len(data["adj"][data["names"][name]])


def test_s1_1_twenty_two_cities_in_nine_regions(data):
    """docs/rules/thurn_und_taxis.md §1: 22 cities, 9 regions, Baiern has 8 cities."""
    assert len(data["cities"]) == 22
    assert len(data["regions"]) == 9
    counts = {r: sum(c["region"] == r for c in data["cities"]) for r in data["regions"]}
    assert counts == {
        "Baden": 3,
        "Wuerttemberg": 2,
        "Hohenzollern": 1,
        "Schweiz": 2,
        "Tyrol": 1,
        "Baiern": 8,
        "Salzburg": 2,
        "Boehmen": 2,
        "Polen": 1,
    }


def test_s1_2_forty_five_roads_and_degrees(data):
    """docs/rules/thurn_und_taxis.md §1.2: 45 roads; Stuttgart 7, Ingolstadt 6, Muenchen 6,
    Lodz 1, Basel 2, Budweis 2; the only neighbour of Lodz is Pilsen."""
    assert len(data["edges"]) == 45
    assert sum(len(a) for a in data["adj"]) == 90
    for name, d in [
        ("Stuttgart", 7),
        ("Ingolstadt", 6),
        ("Muenchen", 6),
        ("Lodz", 1),
        ("Basel", 2),
        ("Budweis", 2),
    ]:
        assert _deg(data, name) == d, name
    assert data["adj"][data["names"]["Lodz"]] == {data["names"]["Pilsen"]}
    # every degree of the §1.1 table
    for c in data["cities"]:
        assert len(data["adj"][c["id"]]) == c["degree"]


def test_s1_2_graph_connected_and_hamiltonian_path_exists(data):
    """docs/rules/thurn_und_taxis.md §1.2: the map is connected and has a Hamiltonian path."""
    adj = data["adj"]
    n = 22
    # DP over subsets would be 2^22 * 22; a DFS from Lodz (degree 1, must be an end) is instant.
    start = data["names"]["Lodz"]

    def dfs(v, seen):
        if len(seen) == n:
            return True
        return any(dfs(w, seen | {w}) for w in sorted(adj[v] - seen, key=lambda w: len(adj[w])))

    assert dfs(start, {start})


def test_s2_components(data):
    """docs/rules/thurn_und_taxis.md §2: carriage points (medium), 30 bonus tiles by stack."""
    assert data["carriage_vp"] == {3: 2, 4: 3, 5: 5, 6: 7, 7: 10}
    assert [len(s["values"]) for s in data["stacks"]] == [2, 3, 4, 4, 3, 3, 3, 3, 4, 1]
    assert sum(len(s["values"]) for s in data["stacks"]) == 30
    assert data["stacks"][8]["values"] == [6, 5, 4, 3]
    assert data["stacks"][3]["values"] == [5, 4, 3, 2]


def test_s1_region_groups(data):
    """docs/rules/thurn_und_taxis.md §1: groups Baden, W+H, S+T, B+S, Baiern (sizes 3,3,3,4,8)."""
    tab = T.build_tables(data)
    import kernels.thurn_and_taxis as K

    sizes = {T.STACK_IDS[s]: bin(int(tab[K.T_GROUP + s])).count("1") for s in range(3, 8)}
    assert sizes == {
        "baiern": 8,
        "boehmen_salzburg": 4,
        "baden": 3,
        "wuerttemberg_hohenzollern": 3,
        "schweiz_tyrol": 3,
    }


def _write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return p


def _map_json():
    return json.loads((T.DATA_DIR / "map.json").read_text())


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda m: m["roads"].pop(), "44 roads, expected 45"),
        (lambda m: m["roads"].append(["Lodz", "Lodz"]), "two different cities"),
        (lambda m: m["roads"].__setitem__(0, ["Carlsruhe", "Atlantis"]), "unknown city 'Atlantis'"),
        (lambda m: m["roads"].__setitem__(0, list(m["roads"][1])), "duplicate road"),
        (lambda m: m["cities"][21].__setitem__("degree", 2), "city Lodz: 1 roads, listed degree 2"),
        (lambda m: m["cities"][3].__setitem__("region", "Sachsen"), "unknown region 'Sachsen'"),
        (lambda m: m.__setitem__("city_cards_per_city", 2), "expected 66"),
    ],
)
def test_s1_bad_map_raises_data_file_error(tmp_path, mutate, message):
    """docs/rules/thurn_und_taxis.md §1.2: a broken map names the entry and the rule."""
    m = _map_json()
    mutate(m)
    with pytest.raises(DataFileError, match=message):
        T.load_map(_write(tmp_path, "map.json", m))


def test_s1_2_disconnected_map_raises(tmp_path):
    """docs/rules/thurn_und_taxis.md §1.2: the graph must be connected."""
    m = _map_json()
    m["roads"] = [r for r in m["roads"] if "Lodz" not in r] + [["Carlsruhe", "Budweis"]]
    for c in m["cities"]:
        c.pop("degree")
    with pytest.raises(DataFileError, match="not connected .*Lodz"):
        T.load_map(_write(tmp_path, "map.json", m))


def test_s2_1_carriage_points_overridable(tmp_path):
    """docs/rules/thurn_und_taxis.md §2.1 (medium confidence): points come from data."""
    c = {
        "carriages": [
            {"value": v, "points": p} for v, p in [(3, 1), (4, 2), (5, 4), (6, 6), (7, 9)]
        ]
    }
    assert T.load_carriages(_write(tmp_path, "c.json", c)) == {3: 1, 4: 2, 5: 4, 6: 6, 7: 9}
    c["carriages"].pop()
    with pytest.raises(DataFileError, match="carriage value 7 is missing"):
        T.load_carriages(_write(tmp_path, "c.json", c))


def test_s2_2_bad_bonus_tiles(tmp_path, data):
    """docs/rules/thurn_und_taxis.md §2.2: tile counts per stack, highest on top."""
    b = json.loads((T.DATA_DIR / "bonus_tiles.json").read_text())
    b["stacks"][2]["values"] = [4, 3, 2]
    with pytest.raises(DataFileError, match="'route7': 3 tiles, expected 4"):
        T.load_bonus_tiles(data["regions"], _write(tmp_path, "b.json", b))
    b = json.loads((T.DATA_DIR / "bonus_tiles.json").read_text())
    b["stacks"][3]["values"] = [2, 3, 4, 5]
    with pytest.raises(DataFileError, match="highest on top"):
        T.load_bonus_tiles(data["regions"], _write(tmp_path, "b.json", b))
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(DataFileError, match="not valid JSON"):
        T.load_bonus_tiles(data["regions"], tmp_path / "x.json")
