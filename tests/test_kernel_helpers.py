"""Shared kernel helpers: bit intrinsics (kernels/bitboard.py) and shuffles (kernels/rng.py).

Rule source: none (infrastructure); shared/DESIGN.md, Seeding and determinism.
"""

import numpy as np
from numba import njit

from kernels import bitboard as B
from kernels import rng as R


@njit(cache=True)
def _bits_of(xs):  # [n] -> [n, 2]: ctpop, cttz
    out = np.empty((xs.shape[0], 2), dtype=np.int64)
    for i in range(xs.shape[0]):
        out[i, 0] = B.ctpop(xs[i])
        out[i, 1] = B.cttz(xs[i])
    return out


def test_ctpop_and_cttz_match_python_on_int64_and_uint64():
    """ctpop = bin(x).count("1"), cttz = index of the lowest set bit, for signed and unsigned."""
    gen = np.random.default_rng(5)
    xs = gen.integers(1, 2**62, size=2000, dtype=np.int64)
    xs[:4] = [1, 2**22 - 1, 2**21, 3 << 40]
    got = _bits_of(xs)
    assert got[:, 0].tolist() == [bin(int(x)).count("1") for x in xs]
    assert got[:, 1].tolist() == [(int(x) & -int(x)).bit_length() - 1 for x in xs]
    us = xs.astype(np.uint64) | np.uint64(1 << 63)
    got = _bits_of(us)  # a second specialisation: uint64
    assert got[:, 0].tolist() == [bin(int(x)).count("1") for x in us]
    assert got[:, 1].tolist() == [(int(x) & -int(x)).bit_length() - 1 for x in us]
    assert B.popcount(np.uint64(0xF0F0)) == 8  # the SWAR version agrees on a fixed value


@njit(cache=True)
def _position_counts(n, k, trials, fast):
    counts = np.zeros((n, n), dtype=np.int64)  # counts[value, position]
    state = R.new_state(9, 0, 0)
    arr = np.empty(n, dtype=np.int64)
    for _ in range(trials):
        for i in range(n):
            arr[i] = i
        if fast:
            R.shuffle_fast(state, arr[:k])
        else:
            R.shuffle(state, arr[:k])
        for i in range(n):
            counts[arr[i], i] += 1
    return counts


def test_shuffle_fast_is_a_uniform_permutation_of_the_slice():
    """Every value lands in every position of the shuffled slice with probability 1/k; the rest
    of the array is untouched. 40,000 shuffles of 7 items: each cell count is Binomial(40000,
    1/7), sd = 70; the tolerance is 5 sd = 350 (a false alarm has probability < 1e-5 over the
    49 cells)."""
    trials, k, n = 40_000, 7, 9
    counts = _position_counts(n, k, trials, True)
    expected = trials / k
    sd = np.sqrt(trials * (1 / k) * (1 - 1 / k))
    assert np.abs(counts[:k, :k] - expected).max() < 5 * sd
    assert counts[:k, :k].sum() == trials * k
    assert counts[k, k] == counts[k + 1, k + 1] == trials  # outside the slice: fixed
    # a different permutation from shuffle's for the same state (half the generator calls)
    assert not np.array_equal(counts, _position_counts(n, k, trials, False))


def test_shuffle_fast_handles_short_arrays():
    """Lengths 0, 1 and 2 (the odd/even tail of the two-per-draw loop)."""
    state = R.new_state(1, 2, 3)
    for n in range(0, 6):
        a = np.arange(n, dtype=np.int64)
        R.shuffle_fast(state, a)
        assert sorted(a.tolist()) == list(range(n))


def test_state_layout_assigns_consecutive_offsets_and_documents_them():
    from kernels.state_layout import StateLayout

    layout = StateLayout("state", "a test array")
    a = layout.field("A", 2, "two slots")
    b = layout.field("B", 1, "one slot")
    c = layout.field("C", 3)
    assert (a, b, c, layout.size) == (0, 2, 3, 6)
    assert layout.offsets() == {"A": 0, "B": 2, "C": 3}
    layout.verify({"A": 0, "B": 2, "C": 3})
    table = layout.table()
    assert "``state`` (6 slots): a test array" in table
    assert "2       1      B     one slot" in table


def test_state_layout_refuses_repeats_bad_widths_and_misbound_names():
    import pytest

    from kernels.state_layout import StateLayout

    layout = StateLayout("state")
    layout.field("A", 1)
    with pytest.raises(ValueError, match="declared twice"):
        layout.field("A", 1)
    with pytest.raises(ValueError, match="width 0"):
        layout.field("B", 0)
    with pytest.raises(ValueError, match="A is bound to 5, declared at 0"):
        layout.verify({"A": 5})


def test_search_register_refuses_a_context_class_registered_twice_or_not_a_namedtuple():
    """The search picks a game's steps by the class of its context (kernels/search.py, "Game
    interface"): a second game with an already registered class would share its match, so
    ``register`` refuses it, and a plain tuple type (which two games could share) is no class
    to match by."""
    from collections import namedtuple

    import pytest

    from kernels import search

    steps = {name: (lambda *a: None) for name in search.STEP_NAMES}
    Context = namedtuple("ProbeSearchContext", ["tables"])
    search.register(Context, **steps)
    try:
        assert search.steps_for(Context) == steps
        with pytest.raises(ValueError, match="ProbeSearchContext is registered already"):
            search.register(Context, **steps)
        Other = namedtuple("ProbeSearchContext", ["tables"])  # same name, another class
        search.register(Other, **steps)
        del search._GAMES[Other]
        with pytest.raises(TypeError, match="needs a namedtuple class"):
            search.register(tuple, **steps)
        with pytest.raises(ValueError, match="needs exactly"):
            search.register(namedtuple("Partial", ["x"]), copy=steps["copy"])
    finally:
        search._GAMES.pop(Context, None)


def test_every_game_registers_its_own_search_context():
    """Each game kernel registers one context class of its own (no two games share a match)."""
    import kernels.carcassonne  # noqa: F401
    import kernels.don_quixote  # noqa: F401
    import kernels.el_grande  # noqa: F401
    import kernels.sacred_hill  # noqa: F401
    import kernels.thurn_and_taxis  # noqa: F401
    from kernels import search

    names = sorted(c.__name__ for c in search._GAMES)
    assert names == [
        "CarcassonneSearchContext",
        "DonQuixoteSearchContext",
        "ElGrandeSearchContext",
        "SacredHillSearchContext",
        "ThurnAndTaxisSearchContext",
    ]


def test_no_public_kernel_name_lacks_its_python_wrapper():
    """A kernel function compiled without a CPython wrapper (``no_cpython_wrapper``, for compile
    time) crashes the interpreter when Python calls it, so none may be in a package's public
    names (``__all__``)."""
    import importlib

    for game in ("carcassonne", "don_quixote", "el_grande", "sacred_hill", "thurn_and_taxis"):
        package = importlib.import_module(f"kernels.{game}")
        unwrapped = [
            name
            for name in package.__all__
            if getattr(getattr(package, name), "targetoptions", {}).get("no_cpython_wrapper")
        ]
        assert unwrapped == [], (game, unwrapped)
