"""Variable sets as multi-word uint64 bitsets.

A set over ``n`` variables is ``W = max(1, ceil(n / 64))`` uint64 words; variable ``v``
is bit ``v % 64`` of word ``v // 64``.  For ``n <= 64`` a set is a single word, which
the order-graph searches use directly as a Python/numba integer.

The helpers here are plain numpy; the numba helpers that kernels inline (``is_subset``,
``has_bit``) live in :mod:`lpbn.bitset_kernels` and are reached as attributes of this module
(``bs.is_subset`` inside a kernel), loaded on first use, so that importing this module does
not import numba (small solves never load it; see :mod:`lpbn.lp.numpy_kernels`).
"""

from __future__ import annotations

from typing import Iterable

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
    from .bitset_kernels import csr_to_bitsets_kernel
    return csr_to_bitsets_kernel(np.asarray(ptr, np.int64), np.asarray(items, np.int32), n_words(n))


_KERNELS = ("is_subset", "has_bit")


def __getattr__(name: str):
    """``is_subset`` and ``has_bit`` (numba helpers) from :mod:`lpbn.bitset_kernels`, on first use."""
    if name in _KERNELS:
        from . import bitset_kernels
        return getattr(bitset_kernels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


