"""uint64 bitboard helpers shared by the kernels.

All arithmetic stays in ``np.uint64``: Numba follows NumPy's promotion rules, where uint64 mixed
with int64 gives float64, so constants are written ``np.uint64(...)``.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

BB_EMPTY = np.uint64(0)
_ONE = np.uint64(1)
_M1 = np.uint64(0x5555_5555_5555_5555)
_M2 = np.uint64(0x3333_3333_3333_3333)
_M4 = np.uint64(0x0F0F_0F0F_0F0F_0F0F)
_H01 = np.uint64(0x0101_0101_0101_0101)


@njit("i8(u8)", cache=True)
def popcount(x):
    """Number of set bits (SWAR popcount,
    https://en.wikipedia.org/wiki/Hamming_weight#Efficient_implementation)."""
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit("i8(u8)", cache=True)
def lsb(x):
    """Index of the lowest set bit of a non-zero bitboard."""
    return popcount((x & (~x + _ONE)) - _ONE)


@njit("u8(u8)", cache=True)
def clear_lsb(x):
    """The bitboard with its lowest set bit cleared."""
    return x & (x - _ONE)


@njit("i8(u8, i8)", cache=True)
def kth_set_bit(x, k):
    """Index of the k-th (0-based, from the lowest) set bit; -1 if x has <= k bits."""
    for _ in range(k):
        if x == BB_EMPTY:
            return -1
        x = x & (x - _ONE)
    if x == BB_EMPTY:
        return -1
    return lsb(x)


@njit("u8(i8)", cache=True)
def bit(i):
    """The bitboard with only bit ``i`` set."""
    return _ONE << np.uint64(i)


@intrinsic
def ctpop(typingctx, x):
    """Number of set bits of an integer (LLVM ``ctpop``: one ``popcnt`` instruction); int64.

    Usable only inside jit-compiled code; for a negative signed ``x`` it counts the bits of
    its two's complement.
    """
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        n = builder.ctpop(args[0])
        return builder.sext(n, ir.IntType(64)) if x.bitwidth < 64 else n

    return types.int64(x), codegen


@intrinsic
def cttz(typingctx, x):
    """Index of the lowest set bit of a non-zero integer (LLVM ``cttz``: one ``tzcnt``); int64.

    Usable only inside jit-compiled code; undefined for ``x == 0``.
    """
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        n = builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return builder.sext(n, ir.IntType(64)) if x.bitwidth < 64 else n

    return types.int64(x), codegen
