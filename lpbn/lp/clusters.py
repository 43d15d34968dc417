"""Cluster and k-cluster constraints of the η polytope, shared by the dual solver and the HiGHS model.

Jaakkola et al. 2010, eq. 6: for every cluster C ⊆ V with |C| >= 2, some member of C has
all its parents outside C::

    sum_{i in C} sum_{s : s ∩ C = ∅} η_i(s) >= 1,       I_C(s) = [s ∩ C = ∅].

A family of clusters is a ``(K, W)`` uint64 array of bitsets (see :mod:`lpbn.bitsets`),
so the same object can be passed between back ends.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .. import bitsets as bs
from ..cache import ScoreCache
from . import numpy_kernels
from .numpy_kernels import use_numpy


class ClusterFamily:
    """A growable list of cluster bitsets over ``n`` variables (duplicates are ignored)."""

    def __init__(self, n: int, clusters: Iterable[Iterable[int]] | np.ndarray | None = None):
        self.n = n
        self.words = bs.n_words(n)
        self._bits = np.zeros((0, self.words), dtype=np.uint64)
        self._keys: set[bytes] = set()
        if clusters is not None:
            if isinstance(clusters, np.ndarray) and clusters.dtype == np.uint64:
                for row in clusters:
                    self.add_bitset(row)
            else:
                for c in clusters:
                    self.add(c)

    @property
    def bits(self) -> np.ndarray:
        """The clusters as a (K, W) uint64 array."""
        return self._bits

    def __len__(self) -> int:
        return self._bits.shape[0]

    def add(self, members: Iterable[int]) -> bool:
        """Add the cluster with these variables; False when already present or too small."""
        return self.add_bitset(bs.to_bitset(members, self.n))

    def add_bitset(self, words: np.ndarray) -> bool:
        words = np.asarray(words, dtype=np.uint64).reshape(self.words)
        if sum(bin(int(w)).count("1") for w in words) < 2:
            return False
        key = words.tobytes()
        if key in self._keys:
            return False
        self._keys.add(key)
        self._bits = np.vstack([self._bits, words[None, :]])
        return True

    def drop(self, gone: np.ndarray) -> np.ndarray:
        """Remove the clusters at positions ``gone`` (the others keep their order); they may be
        added again later.  Returns their bitsets."""
        gone = np.asarray(gone, dtype=np.int64)
        out = self._bits[gone]
        for row in out:
            self._keys.discard(row.tobytes())
        keep = np.ones(len(self), dtype=bool)
        keep[gone] = False
        self._bits = self._bits[keep]
        return out

    def members(self, k: int) -> list[int]:
        return bs.from_bitset(self._bits[k])

    def copy(self) -> "ClusterFamily":
        out = ClusterFamily(self.n)
        out._bits = self._bits.copy()
        out._keys = set(self._keys)
        return out


def cluster_rows_csr(cache: ScoreCache, clusters: np.ndarray,
                     ks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All rows of eq. 6 for a (K, W) cluster array, as CSR (ptr, candidate indices).

    With ``ks`` row c holds the candidates with |parents ∩ C_c| < ks[c] instead: the rows of
    the k-cluster inequalities Σ_{i∈C} Σ_{s: |s∩C| < k} η_i(s) >= k, valid for every DAG and
    1 <= k < |C| (the first k members of C in a topological order have fewer than k parents
    in C; Cussens, Järvisalo, Korhonen & Bartlett, JAIR 2017); ks = 1 is eq. 6."""
    clusters = np.asarray(clusters, dtype=np.uint64)
    ks = np.ones(len(clusters), dtype=np.int64) if ks is None else np.asarray(ks, dtype=np.int64)
    if use_numpy(cache.n):
        return numpy_kernels.cluster_rows_csr(cache.masks, cache.family, clusters, ks)
    from .kernels import cluster_rows_by_variable
    return cluster_rows_by_variable(cache.bits, cache.offsets, clusters, ks)


def cluster_rows_on(cache: ScoreCache, clusters: np.ndarray, cols: np.ndarray,
                    ks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`cluster_rows_csr` restricted to the candidates ``cols`` (CSR of
    candidate indices, in the order of ``cols``): the part of each row an LP point's support
    sees, at the cost of |cols| instead of m per row."""
    clusters = np.asarray(clusters, dtype=np.uint64)
    cols = np.asarray(cols, dtype=np.int64)
    ks = np.ones(len(clusters), dtype=np.int64) if ks is None else np.asarray(ks, dtype=np.int64)
    if use_numpy(cache.n):
        ptr, idx = numpy_kernels.cluster_rows_csr(cache.masks[cols], cache.family[cols], clusters, ks)
    else:
        from .kernels import cluster_rows_csr as kernel
        ptr, idx = kernel(cache.bits[cols], cache.family[cols], clusters, ks)
    return ptr, cols[idx]


def unseen_rows(clusters: np.ndarray, ks, seen: set[tuple[bytes, int]]) -> list[int]:
    """Indices of the (cluster, k) pairs not in ``seen`` (duplicates within the batch count
    once), which are added to ``seen``: the rows a model does not have yet."""
    keep = []
    for r, (b, k) in enumerate(zip(np.asarray(clusters, dtype=np.uint64), ks)):
        key = (b.tobytes(), int(k))
        if key not in seen:
            seen.add(key)
            keep.append(r)
    return keep


def cluster_activity(cache: ScoreCache, eta: np.ndarray, clusters: np.ndarray,
                     ks: np.ndarray | None = None) -> np.ndarray:
    """Left-hand sides of eq. 6 (with ``ks``: of the k-cluster rows) at a point ``eta`` (m,)
    for each cluster.  An LP point is sparse (a basic solution has at most one nonzero per
    row), so the kernel looks at its support only instead of every row's candidates."""
    clusters = np.asarray(clusters, dtype=np.uint64)
    ks = np.ones(len(clusters), dtype=np.int64) if ks is None else np.asarray(ks, dtype=np.int64)
    eta = np.asarray(eta, dtype=np.float64)
    if use_numpy(cache.n):
        ptr, idx = cluster_rows_csr(cache, clusters, ks)
        sums = np.add.reduceat(eta[idx], ptr[:-1]) if len(idx) else np.zeros(len(ptr) - 1)
        sums[np.diff(ptr) == 0] = 0.0
        return sums
    from .kernels import sparse_activity
    sup = np.flatnonzero(eta)
    return sparse_activity(cache.bits[sup], cache.family[sup], eta[sup], clusters, ks)

