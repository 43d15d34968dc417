"""Variable sets as multi-word uint64 bitsets.

A set over ``n`` variables is ``W = max(1, ceil(n / 64))`` uint64 words; variable ``v``
is bit ``v % 64`` of word ``v // 64``.  For ``n <= 64`` a set is a single word, which
the order-graph searches use directly as a Python/numba integer.
"""

from __future__ import annotations

from typing import Iterable

import numba
import numpy as np


def n_words(n: int) -> int:
    """Number of uint64 words needed for sets over ``n`` variables."""
    return max(1, (n + 63) // 64)


def to_bitset(variables: Iterable[int], n: int) -> np.ndarray:
    """The bitset (array of ``n_words(n)`` uint64) of an iterable of variable indices."""
    words = np.zeros(n_words(n), dtype=np.uint64)
    for v in variables:
        v = int(v)
        if not 0 <= v < n:
            raise ValueError(f"variable index {v} out of range 0..{n - 1}")
        words[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return words


def from_bitset(words: np.ndarray) -> list[int]:
    """The sorted variable indices of a bitset."""
    out = []
    for w, word in enumerate(np.asarray(words, dtype=np.uint64)):
        word = int(word)
        while word:
            low = word & -word
            out.append(w * 64 + low.bit_length() - 1)
            word ^= low
    return out


def to_int(variables: Iterable[int]) -> int:
    """A Python-int bitmask of a set of variable indices (any n)."""
    mask = 0
    for v in variables:
        mask |= 1 << int(v)
    return mask


def popcounts(rows: np.ndarray) -> np.ndarray:
    """Number of set bits of each row of a (K, W) uint64 bitset array, as int64 (K,)."""
    rows = np.ascontiguousarray(rows, dtype=np.uint64)
    if rows.size == 0:
        return np.zeros(rows.shape[0] if rows.ndim == 2 else 0, dtype=np.int64)
    return np.unpackbits(rows.view(np.uint8), axis=-1).sum(axis=-1).astype(np.int64)


def csr_to_bitsets(ptr: np.ndarray, items: np.ndarray, n: int) -> np.ndarray:
    """Bitsets (m, W) of the m sets stored as CSR (``items[ptr[j]:ptr[j+1]]``)."""
    return _csr_to_bitsets(np.asarray(ptr, np.int64), np.asarray(items, np.int32), n_words(n))


@numba.njit(cache=True)
def _csr_to_bitsets(ptr, items, words):
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
