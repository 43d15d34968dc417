"""numba helpers over multi-word uint64 bitsets (see :mod:`lpbn.bitsets`).

``is_subset`` and ``has_bit`` are inlined into other kernels, which reach them as
``bs.is_subset``/``bs.has_bit`` through :mod:`lpbn.bitsets` (loaded on first use there).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def csr_to_bitsets_kernel(ptr, items, words):
    m = ptr.shape[0] - 1
    out = np.zeros((m, words), dtype=np.uint64)
    for j in range(m):
        for k in range(ptr[j], ptr[j + 1]):
            v = items[k]
            out[j, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return out


@numba.njit(cache=True, inline="always")
def is_subset(bits, j, allowed):
    """True when row ``j`` of ``bits`` is a subset of the bitset ``allowed``."""
    for w in range(bits.shape[1]):
        if bits[j, w] & ~allowed[w]:
            return False
    return True


@numba.njit(cache=True, inline="always")
def has_bit(words, v):
    """True when variable ``v`` is in the bitset ``words``."""
    return (words[v >> 6] >> np.uint64(v & 63)) & np.uint64(1) != 0
