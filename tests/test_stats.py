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
    d = stats.paired_difference([3, 4, 5], [1, 1, 1])
    assert d["mean"] == 3.0 and d["low"] < 3.0 < d["high"]
