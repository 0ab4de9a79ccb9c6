"""Property tests (hypothesis): interval properties, variant parsing, record round trips.

Each property below holds for every input hypothesis draws (fixed example counts, no deadline: kernels compile on first use).
"""

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from scipy import stats as st

from mcsim import stats
from mcsim.compare_variants import parse_arm
from mcsim.errors import UnknownVariantError
from mcsim.games import all_games


@settings(max_examples=200, deadline=None)
@given(n=hs.integers(1, 10**6), frac=hs.floats(0.0, 1.0))
def test_wilson_interval_brackets_the_estimate_and_is_symmetric(n, frac):
    """0 <= low <= k/n <= high <= 1; the interval of n - k mirrors that of k; it agrees with
    scipy's Wilson interval."""
    k = round(frac * n)
    lo, hi = stats.wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    lo2, hi2 = stats.wilson_interval(n - k, n)
    assert lo == pytest.approx(1.0 - hi2, abs=1e-12) and hi == pytest.approx(1.0 - lo2, abs=1e-12)
    ci = st.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(n=hs.integers(1, 5000), k=hs.integers(1, 5000), shared=hs.integers(2, 5))
def test_wilson_interval_narrows_with_more_games_and_takes_shared_wins(n, k, shared):
    """A shared win (1/k) is a fractional success inside [0, 1]; at the same estimate, more games
    give a narrower interval."""
    k = min(k, n)
    lo, hi = stats.wilson_interval(k / shared, n)
    assert 0.0 <= lo <= k / shared / n <= hi <= 1.0
    lo4, hi4 = stats.wilson_interval(4 * k, 4 * n)
    lo1, hi1 = stats.wilson_interval(k, n)
    assert hi4 - lo4 < hi1 - lo1


finite = hs.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=100, deadline=None)
@given(pairs=hs.lists(hs.tuples(finite, finite), min_size=2, max_size=50), shift=finite)
def test_paired_difference_is_the_t_interval_of_the_differences(pairs, shift):
    """mean(a - b) with the t interval of the differences, centred on the mean; adding a constant
    to ``a`` moves it by that constant."""
    a = np.array([x for x, _ in pairs])
    b = np.array([y for _, y in pairs])
    d = stats.paired_difference(a, b)
    diff = a - b
    assert d["mean"] == pytest.approx(diff.mean(), abs=1e-6)
    assert d["high"] - d["mean"] == pytest.approx(d["mean"] - d["low"], abs=1e-6)
    half = st.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / math.sqrt(len(diff))
    assert d["high"] - d["mean"] == pytest.approx(half, rel=1e-9, abs=1e-6)
    e = stats.paired_difference(a + shift, b)
    assert e["low"] == pytest.approx(d["low"] + shift, abs=1e-4)


GAMES = all_games()
VARIANTS = [(g.SPEC, v) for g in GAMES for v in g.SPEC.variants]


@settings(max_examples=200, deadline=None)
@given(data=hs.data())
def test_variant_parsing_round_trip(data):
    """Any choice of variant values, written as ``name=value,...``, parses (``parse_arm``) and
    resolves (``resolve_variant``) to itself with every other variant at its default; a value
    outside the choices raises ``UnknownVariantError``."""
    game = data.draw(hs.sampled_from(GAMES))
    spec = game.SPEC
    if not spec.variants:
        return
    chosen = data.draw(hs.lists(hs.sampled_from(spec.variants), unique_by=lambda v: v.name))
    given_ = {v.name: data.draw(hs.sampled_from(v.choices)) for v in chosen}
    text = ",".join(f"{k}={v}" for k, v in given_.items())
    assert parse_arm(text) == given_
    resolved = spec.resolve_variant(parse_arm(text))
    assert resolved == {v.name: given_.get(v.name, v.default) for v in spec.variants}
    assert spec.variant_codes(resolved).tolist() == [
        v.choices.index(resolved[v.name]) for v in spec.variants
    ]
    v = data.draw(hs.sampled_from(spec.variants))
    bad = data.draw(
        hs.text("abcxyz_-0123456789", min_size=1, max_size=8).filter(lambda s: s not in v.choices)
    )
    with pytest.raises(UnknownVariantError):
        spec.resolve_variant({v.name: bad})


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=hs.integers(0, 2**64 - 1),
    index=hs.integers(0, 10**6),
    players=hs.integers(2, 4),
    policy=hs.sampled_from(["random", "route"]),
)
def test_thurn_and_taxis_record_round_trip(seed, index, players, policy):
    """A Thurn and Taxis record survives JSON, replays to its own scores, winner and end, and
    agrees with the rules-file readings (``naive_turns``, naive scorer)."""
    from mcsim.games import thurn_and_taxis as T
    from mcsim.runner import resolve_config
    from tests.test_thurn_and_taxis_rare_paths import naive_turns
    from tests.thurn_and_taxis_naive import naive_score_record

    prep = T.prepare(resolve_config("thurn-and-taxis", players, [policy])[1])
    rec = json.loads(json.dumps(T.record_games(prep, seed, [index])[0]))
    out = T.replay(rec)
    assert out["finished"] and out["scores"] == rec["scores"] and out["winner"] == rec["winner"]
    assert out["end_reason"] == rec["end_reason"]
    naive_turns(rec)
    assert naive_score_record(rec)["scores"] == rec["scores"]
