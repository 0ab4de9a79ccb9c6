"""mcsim.stats: intervals checked against scipy and by hand."""

import math

import numpy as np
import pytest
from scipy import stats as st

from mcsim import stats


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (50, 100), (999, 1000), (5549, 10000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = stats.wilson_interval(k, n)
    ci = st.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


def test_wilson_fractional_and_empty():
    lo, hi = stats.wilson_interval(2.5, 5)
    assert lo < 0.5 < hi and hi - 0.5 == pytest.approx(0.5 - lo)
    assert all(math.isnan(x) for x in stats.wilson_interval(0, 0))


def test_mean_interval_matches_scipy():
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    m = stats.mean_interval(x)
    lo, hi = st.t.interval(0.95, 4, loc=x.mean(), scale=st.sem(x))
    assert (m["mean"], m["low"], m["high"]) == pytest.approx((6.2, lo, hi))
    assert m["sd"] == pytest.approx(x.std(ddof=1))


def test_ranks_and_shares_ties():
    scores = np.array([[5, 3, 5], [1, 2, 3], [0, 0, 0]])
    rank, share, winner = stats.ranks_and_shares(scores)
    assert rank.tolist() == [[1, 3, 1], [3, 2, 1], [1, 1, 1]]
    assert share.tolist() == [[0.5, 0, 0.5], [0, 0, 1], [1 / 3, 1 / 3, 1 / 3]]
    assert winner.tolist() == [-1, 2, -1]


def test_paired_difference():
    """Differences 2, 3, 4: mean 3, sd 1, n 3; t interval 3 -+ t(0.975, 2) / sqrt(3), where for 2
    degrees of freedom t_p = (2p - 1) / sqrt(2 p (1 - p)) in closed form, so the half width is
    0.95 / sqrt(3 * 2 * 0.975 * 0.025) = 0.95 / sqrt(0.14625) = 2.48414..."""
    d = stats.paired_difference([3, 4, 5], [1, 1, 1])
    half = 0.95 / math.sqrt(0.14625)
    assert half == pytest.approx(2.484138, abs=1e-6)
    assert d["mean"] == 3.0 and d["sd"] == 1.0 and d["n"] == 3
    assert d["low"] == pytest.approx(3.0 - half, rel=1e-12)
    assert d["high"] == pytest.approx(3.0 + half, rel=1e-12)
    # the order of the pair is the sign of the difference
    e = stats.paired_difference([1, 1, 1], [3, 4, 5])
    assert (e["mean"], e["low"], e["high"]) == pytest.approx(
        (-3.0, -3.0 - half, -3.0 + half), rel=1e-12
    )
