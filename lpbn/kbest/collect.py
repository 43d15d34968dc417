"""The running list of the best DAGs (or Markov equivalence classes) an engine has found.

Both engines (:mod:`lpbn.kbest.bnb`, :mod:`lpbn.kbest.ilp`) feed every DAG they meet above
the current threshold here; the threshold is the score of the K-th best entry so far, and
every entry tied with the K-th (within :func:`tie_tol`) is kept: ties are listed, never
dropped.  Dropped entries are remembered in ``next_bound`` (the best score of a DAG not
listed) and ``log_rest`` (log of an upper bound on the summed ``exp(score)`` of DAGs not
listed), which :mod:`lpbn.kbest.posterior` turns into the share of the mass the list covers.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: relative tolerance under which two DAG scores are a tie (float sums of equal scores of
#: Markov-equivalent DAGs differ in the last bits)
TIE_RTOL = 1e-9


def tie_tol(score: float) -> float:
    return TIE_RTOL * max(1.0, abs(score))


@numba.njit(cache=True)
def class_keys(pmasks):
    """Markov-equivalence keys of DAGs given as parent masks (rows; n <= 64): the skeleton
    (adjacency masks) and, per child, the parents that are in a v-structure there (Verma &
    Pearl 1990: same skeleton and v-structures <=> equivalent; given the skeleton, the
    v-structures at c are the non-adjacent pairs among those parents)."""
    r, n = pmasks.shape
    out = np.zeros((r, 2 * n), dtype=np.uint64)
    one = np.uint64(1)
    for t in range(r):
        for c in range(n):
            pm = pmasks[t, c]
            out[t, c] |= pm
            for p in range(n):
                if (pm >> np.uint64(p)) & one:
                    out[t, p] |= one << np.uint64(c)
        for c in range(n):
            pm = pmasks[t, c]
            inv = np.uint64(0)
            for a in range(n):
                if (pm >> np.uint64(a)) & one:
                    # a is in a v-structure at c if some other parent b is not adjacent to a
                    others = pm & ~(one << np.uint64(a)) & ~out[t, a]
                    if others != 0:
                        inv |= one << np.uint64(a)
            out[t, n + c] = inv
    return out


class Collector:
    """Best-first list of DAGs (``classes=False``) or of equivalence classes (one
    representative DAG each, with the number of member DAGs met)."""

    def __init__(self, masks: np.ndarray, scores: np.ndarray, k: int, classes: bool = False):
        self.masks = masks              # cache.masks (parent mask per candidate)
        self.cand_scores = scores
        self.k = int(k)
        self.classes = classes
        self.scores = np.empty(0)
        self.choices = np.empty((0, 0), dtype=np.int64)
        self.counts = np.empty(0, dtype=np.int64)
        self.keys: dict[bytes, int] = {}
        self.next_bound = -math.inf
        self.log_rest = -math.inf
        self.seen = 0

    def __len__(self) -> int:
        return len(self.scores)

    def drop(self, bound: float, log_count: float = 0.0) -> None:
        """Record DAGs not listed: ``exp(log_count)`` of them, each scoring at most ``bound``."""
        self.next_bound = max(self.next_bound, bound)
        if log_count > -math.inf and bound > -math.inf:
            self.log_rest = float(np.logaddexp(self.log_rest, bound + log_count))

    def threshold(self) -> float:
        """The K-th best score listed (-inf while fewer than K)."""
        if len(self.scores) < self.k:
            return -math.inf
        return float(-np.partition(-self.scores, self.k - 1)[self.k - 1])

    def add(self, scores: np.ndarray, choices: np.ndarray) -> None:
        """Add DAGs (candidate index per variable, one row each) with their scores."""
        if len(scores) == 0:
            return
        self.seen += len(scores)
        choices = np.asarray(choices, dtype=np.int64)
        scores = np.asarray(scores, dtype=np.float64)
        if self.scores.size == 0:
            self.choices = np.empty((0, choices.shape[1]), dtype=np.int64)
        if not self.classes:
            self.scores = np.concatenate([self.scores, scores])
            self.choices = np.concatenate([self.choices, choices])
            self.counts = np.ones(len(self.scores), dtype=np.int64)
            if len(self.scores) > 2 * self.k + 1024:
                self.compact()
            return
        keys = class_keys(self.masks[choices])
        base = len(self.scores)
        new_s: list[float] = []
        new_c: list[np.ndarray] = []
        new_n: list[int] = []
        for t in range(len(scores)):
            key = keys[t].tobytes()
            at = self.keys.get(key)
            if at is None:
                self.keys[key] = base + len(new_s)
                new_s.append(float(scores[t]))
                new_c.append(choices[t])
                new_n.append(1)
            elif at >= base:
                new_s[at - base] = max(new_s[at - base], float(scores[t]))
                new_n[at - base] += 1
            else:
                self.counts[at] += 1
                self.scores[at] = max(self.scores[at], scores[t])
        if new_s:
            self.scores = np.concatenate([self.scores, np.array(new_s)])
            self.choices = np.concatenate([self.choices, np.array(new_c, dtype=np.int64)])
            self.counts = np.concatenate([self.counts, np.array(new_n, dtype=np.int64)])
        if len(self.scores) > 2 * self.k + 1024:
            self.compact()

    def compact(self) -> None:
        """Drop entries below the K-th best score (ties kept)."""
        if len(self.scores) <= self.k:
            return
        kth = self.threshold()
        keep = self.scores >= kth - tie_tol(kth)
        if keep.all():
            return
        gone = ~keep
        for s, c in zip(self.scores[gone], self.counts[gone]):
            self.drop(float(s), math.log(c))
        self.scores, self.choices, self.counts = self.scores[keep], self.choices[keep], self.counts[keep]
        if self.classes:
            idx = np.flatnonzero(keep)
            remap = {int(old): new for new, old in enumerate(idx)}
            self.keys = {k: remap[v] for k, v in self.keys.items() if v in remap}

    def final(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scores, choices, counts) best first: the K best and every tie of the K-th."""
        self.compact()
        order = np.lexsort((np.arange(len(self.scores)), -self.scores))
        return self.scores[order], self.choices[order], self.counts[order]
