"""The arrays of one ordering search: the cache's CSR arrays and reusable work buffers.

Memory is O(m) for the cache (shared, never copied) plus O(n) per buffer, plus up to three
n x ceil(n/64) uint64 bitset matrices allocated on first use (12.5 MB each at n = 10,000):
ASOBS's descendant sets, and the potential parents and children that prune insertion moves.
Never touches ``cache.bits`` (an m x W array: gigabytes at n = 10,000).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..cache import ScoreCache
from . import kernels as K
from ..tuning import ORDERING_CLIMB_CHUNK as CLIMB_CHUNK


class Workspace:
    """CSR arrays of ``cache`` and the buffers the kernels share (one search at a time)."""

    def __init__(self, cache: ScoreCache, window: int = 0):
        self.cache = cache
        self.n = n = cache.n
        self.offsets, self.scores = cache.offsets, cache.scores
        self.ptr, self.items = cache.pset_ptr, cache.pset_items
        self.eps = 1e-12 * max(1.0, float(np.abs(self.scores).max()) if len(self.scores) else 1.0)
        self.max_k = int(cache.sizes.max()) if cache.m else 0
        self.pos = np.empty(n, dtype=np.int64)
        self.stack = np.empty(max(n, 1), dtype=np.int64)
        self.onstack = np.zeros(max(n, 1), dtype=np.bool_)
        self.istack = np.empty(max(n, 1), dtype=np.int64)
        self.ionstack = np.zeros(max(n, 1), dtype=np.bool_)
        # swap worklist size, swaps, evaluations, insertion worklist size, insertions
        self.state = np.zeros(5, dtype=np.int64)
        self.window = window          # insertion moves reach this far (0: swaps only)
        self._desc: np.ndarray | None = None
        self._rel: tuple | None = None
        self._buf = np.zeros(1, dtype=np.int64)
        self._dummy = np.zeros((1, 1), dtype=np.uint64)
        self._stamp = np.empty(n, dtype=np.int64)
        self._dpos = np.empty(n, dtype=np.int64)
        self._astack = np.empty(n * max(1, self.max_k) + self.max_k + 1, dtype=np.int64)
        self._inv: tuple[np.ndarray, np.ndarray] | None = None
        self.decodes = 0

    # ------------------------------------------------------------------ scores
    def total(self, choice: np.ndarray) -> float:
        """Exact score of a DAG given by candidate indices (numpy sum, as reported)."""
        return float(np.sum(self.scores[choice])) if np.all(choice >= 0) else -np.inf

    def delta(self, new: np.ndarray, old: np.ndarray) -> float:
        """score(new) - score(old) over the variables whose candidate differs."""
        return float(K.choice_delta(self.scores, new, old))

    # ------------------------------------------------------------------ OBS
    def evaluate(self, order: np.ndarray, choice: np.ndarray) -> None:
        """OBS decoding of ``order`` into ``choice``; sets ``self.pos``."""
        K.obs_evaluate(self.offsets, self.ptr, self.items, order, self.pos, choice)

    def climb(self, order: np.ndarray, choice: np.ndarray, ranges,
              stop: Callable[[], bool] | None = None) -> bool:
        """Climb ``order`` (``self.pos``/``choice`` current) by adjacent swaps and insertions
        within ``self.window`` positions (:func:`kernels.local_climb`), first checking the
        moves at the positions in ``ranges`` (``(lo, hi)`` pairs: swap i exchanges positions
        i and i+1, insertions move the variables at positions lo..hi); polls ``stop`` between
        chunks.  Returns True when converged, False when stopped."""
        n, L = self.n, self.window
        if n < 2:
            return True
        top = itop = 0
        for lo, hi in reversed(ranges):
            top = K.push_range(self.stack, top, self.onstack, max(0, lo), min(n - 1, hi))
            if L > 0:
                itop = K.push_range(self.istack, itop, self.ionstack, max(0, lo), min(n, hi + 1))
        self.state[0], self.state[3] = top, itop
        inv, rel = self.inverse(), self.relations()
        while True:
            if K.local_climb(self.offsets, self.ptr, self.items, self.scores, order, self.pos,
                             choice, *inv, self.stack, self.onstack, self.istack, self.ionstack,
                             self.state, rel, L, self.eps, CLIMB_CHUNK, self._buf):
                return True
            if stop is not None and stop():
                self.onstack[self.stack[:self.state[0]]] = False
                self.ionstack[self.istack[:self.state[3]]] = False
                self.state[0] = self.state[3] = 0
                return False

    def relations(self) -> tuple:
        """Potential parent and child bitsets (two n x ceil(n/64) uint64 arrays,
        :func:`kernels.potential_parents`) and lists (:func:`kernels.relation_lists`) that
        prune insertion moves; small dummies when ``window`` is 0."""
        if self.window <= 0:
            z = np.zeros(1, dtype=np.int64)
            return (self._dummy, self._dummy, z, z.astype(np.int32), z, z.astype(np.int32))
        if self._rel is None:
            W = (self.n + 63) // 64
            pp, pc = np.empty((self.n, W), dtype=np.uint64), np.empty((self.n, W), dtype=np.uint64)
            K.potential_parents(self.offsets, self.ptr, self.items, pp, pc)
            self._rel = (pp, pc, *K.relation_lists(self.offsets, self.ptr, self.items))
            pptr, cptr = self._rel[2], self._rel[4]
            self._buf = np.empty(int(np.max(np.diff(pptr) + np.diff(cptr))) + 1, dtype=np.int64)
        return self._rel

    # ------------------------------------------------------------------ ASOBS
    def decode_asobs(self, order: np.ndarray, choice: np.ndarray) -> None:
        """ASOBS decoding of ``order`` into ``choice`` (descendant bitsets allocated once)."""
        if self._desc is None:
            self._desc = np.zeros((self.n, (self.n + 63) // 64), dtype=np.uint64)
        K.asobs_decode(self.offsets, self.ptr, self.items, order, choice, self._desc,
                       self._dpos, self._stamp, self._astack)
        self.decodes += 1

    def topological(self, choice: np.ndarray, ref_order: np.ndarray) -> np.ndarray:
        """Topological order of the DAG ``choice`` closest to ``ref_order``."""
        out = np.empty(self.n, dtype=np.int64)
        placed = K.topological_order(self.ptr, self.items, choice, ref_order, out)
        if placed != self.n:
            raise AssertionError("decoded graph has a directed cycle")
        return out

    # ------------------------------------------------------------------ greedy starts
    def inverse(self) -> tuple[np.ndarray, np.ndarray]:
        """Inverse index: the candidates containing each variable, ascending (CSR; int32
        entries while m < 2^31), built once: O(total parent-set size) memory."""
        if self._inv is None:
            inv_ptr = np.zeros(self.n + 1, dtype=np.int64)
            dt = np.int32 if self.cache.m < 2**31 - 1 else np.int64
            inv = np.empty(len(self.items), dtype=dt)
            K.inverse_index(self.n, self.ptr, self.items, inv_ptr, inv)
            self._inv = (inv_ptr, inv)
        return self._inv

    def greedy(self) -> np.ndarray:
        """Min-loss greedy ordering (:func:`kernels.greedy_order`; ties by variable index)."""
        n = self.n
        out = np.empty(n, dtype=np.int64)
        placed = K.greedy_order(self.offsets, self.ptr, self.items, self.scores, *self.inverse(),
                                np.ones(n), np.arange(n, dtype=np.int64), out)
        if placed != n:   # infeasible caches are rejected by ScoreCache; keep a valid order
            out[placed:] = np.setdiff1d(np.arange(n), out[:placed])
        return out
