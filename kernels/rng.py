"""Per-game random numbers for the kernels: splitmix64 seeding and xoshiro256**.

Game *i* of a run with root seed *s* draws only from generators seeded by
``game_seed(s, i, stream)``, so its result depends on (s, i) alone: never on the worker
count, the chunk size or the backend (``shared/DESIGN.md``, Seeding and determinism).

Streams separate what must be common across compared policies (the deal: stream
``STREAM_DEAL``) from what the policies draw (``STREAM_POLICY + seat``), so two policies
evaluated on game *i* see the same cards, tiles and cell order (common random numbers).

A generator state is a ``uint64[4]`` array (xoshiro256**, Blackman & Vigna,
https://prng.di.unimi.it/xoshiro256starstar.c). All arithmetic stays in ``np.uint64``.
"""

import numpy as np
from numba import njit

STREAM_DEAL = 0
STREAM_POLICY = 16  # seat k draws from STREAM_POLICY + k

_GOLDEN = np.uint64(0x9E37_79B9_7F4A_7C15)
_MIX1 = np.uint64(0xBF58_476D_1CE4_E5B9)
_MIX2 = np.uint64(0x94D0_49BB_1331_11EB)


@njit("u8(u8)", cache=True)
def splitmix64(x):
    """One splitmix64 output for input ``x`` (a bijective mix of a uint64)."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit("u8(u8, u8, u8)", cache=True)
def game_seed(root_seed, game_index, stream):
    """Seed of one stream of one game: a hash of (root seed, game index, stream).

    Parameters
    ----------
    root_seed, game_index, stream : uint64

    Returns
    -------
    uint64
    """
    h = splitmix64(root_seed)
    h = splitmix64(h ^ game_index)
    return splitmix64(h ^ (stream * _GOLDEN))


@njit(cache=True)
def seed_state(state, seed):
    """Fill a xoshiro256** ``state`` (uint64[4]) from one uint64 ``seed`` via splitmix64."""
    x = np.uint64(seed)
    for k in range(4):
        x = x + _GOLDEN
        state[k] = splitmix64(x)


@njit(cache=True)
def new_state(root_seed, game_index, stream):
    """A fresh xoshiro256** state (uint64[4]) for (root seed, game index, stream)."""
    st = np.empty(4, dtype=np.uint64)
    seed_state(st, game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(stream)))
    return st


@njit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit("u8(u8[::1])", cache=True)
def next_u64(state):
    """Next 64 random bits from a xoshiro256** ``state`` (uint64[4], updated in place)."""
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@njit("i8(u8[::1], i8)", cache=True)
def randint(state, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (Lemire's multiply-shift).

    The bias is below n / 2**32, far under any Monte Carlo error here.
    """
    x = next_u64(state) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@njit("f8(u8[::1])", cache=True)
def random_float(state):
    """Uniform float64 in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def shuffle(state, arr):
    """Shuffle a 1-D array in place (Fisher-Yates) with the xoshiro256** ``state``."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = randint(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True)
def shuffle_fast(state, arr):
    """Shuffle a 1-D array in place (Fisher-Yates), two swaps per 64-bit output.

    Each output of the xoshiro256** ``state`` gives two indices (its high and low 32 bits,
    Lemire's multiply-shift as in ``randint``), so it takes half the generator calls of
    ``shuffle``; the permutation differs from ``shuffle``'s for the same state.
    """
    i = arr.shape[0] - 1
    while i > 0:
        x = next_u64(state)
        j = np.int64(((x >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
        i -= 1
        if i > 0:
            j = np.int64(((x & np.uint64(0xFFFF_FFFF)) * np.uint64(i + 1)) >> np.uint64(32))
            tmp = arr[i]
            arr[i] = arr[j]
            arr[j] = tmp
            i -= 1
