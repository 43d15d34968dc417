"""The local-score cache: every variable's candidate parent sets and their local scores.

Conventions
-----------
* Scores are **log-scores, higher is better**, as GOBNILP, BLIP and URLearning's ``.pss``
  files write them (BIC/BDeu values are negative).  An MDL *cost* (lower is better, as in
  Tian 2000 and Malone et al. 2011) maps onto this convention as ``score = -cost``; the
  score of a DAG is the sum of its families' local scores, so the maximum-score DAG is
  the minimum-MDL DAG.
* Storage is compact and array based (no per-parent-set Python objects):

  ``offsets`` (n+1, int64)
      candidates of variable ``i`` are the global indices ``offsets[i]:offsets[i+1]``;
  ``scores`` (m, float64)
      local score of each candidate, sorted **best first** within each variable
      (ties: smaller parent set first);
  ``pset_ptr`` (m+1, int64), ``pset_items`` (int32)
      parent set of candidate ``j`` is ``pset_items[pset_ptr[j]:pset_ptr[j+1]]`` (CSR, sorted);
  ``bits`` (m, W, uint64)
      the same parent sets as bitsets (see :mod:`lpbn.bitsets`); ``masks`` is the
      single-word view for ``n <= 64``;
  ``family`` (m, int32), ``sizes`` (m, int32)
      the child variable and the in-degree of each candidate.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numba
import numpy as np

from . import bitsets as bs
from .errors import LpbnWarning, ScoreFileError

#: the largest sum over variables of each variable's largest |local score| a cache may have:
#: beyond it a DAG's score, or a bound's sum of maxima, could overflow float64
MAX_SCORE_SUM = 1e300


@dataclass(frozen=True)
class CacheSummary:
    """Summary statistics of a :class:`ScoreCache`."""

    n: int
    candidates: int
    min_candidates: int
    max_candidates: int
    mean_candidates: float
    max_in_degree: int
    in_degree_histogram: dict[int, int]
    best_empty_gap: float
    score_min: float
    score_max: float
    bound_sum_best: float
    meta: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class ScoreCache:
    """Candidate parent sets and local scores of ``n`` variables (see module docstring).

    Build one with :meth:`from_families` or a reader (:func:`lpbn.read_scores`).  Caches are
    immutable: pruning operations return new caches.
    """

    def __init__(self, names: Sequence[str], offsets, scores, pset_ptr, pset_items, *,
                 meta: dict[str, Any] | None = None, source: str | None = None,
                 check_feasible: bool = True):
        self.names: tuple[str, ...] = tuple(str(x) for x in names)
        self.n = len(self.names)
        self.meta: dict[str, Any] = dict(meta or {})
        self.source = source
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        pset_ptr = np.ascontiguousarray(pset_ptr, dtype=np.int64)
        pset_items = np.ascontiguousarray(pset_items, dtype=np.int32)
        self._check_structure(offsets, scores, pset_ptr, pset_items)
        family = np.repeat(np.arange(self.n, dtype=np.int32), np.diff(offsets)).astype(np.int32)
        sizes = np.diff(pset_ptr).astype(np.int32)
        # Sort best first within each family; ties by size (subsets before supersets).
        order = np.lexsort((sizes, -scores, family))
        if not np.array_equal(order, np.arange(len(order))):
            scores = scores[order]
            sizes = sizes[order]
            new_ptr = np.zeros(len(order) + 1, dtype=np.int64)
            np.cumsum(sizes, out=new_ptr[1:])
            pset_items = _gather_csr(pset_ptr, pset_items, order.astype(np.int64), new_ptr)
            pset_ptr = new_ptr
        self.offsets = offsets
        self.scores = scores
        self.pset_ptr = pset_ptr
        self.pset_items = pset_items
        self.family = family
        self.sizes = sizes
        self.words = bs.n_words(self.n)
        self._bits: np.ndarray | None = None
        for a in (self.offsets, self.scores, self.pset_ptr, self.pset_items, self.family,
                  self.sizes):
            a.setflags(write=False)
        self._lookup: list[dict[tuple[int, ...], int]] | None = None
        if check_feasible:
            self.check_feasible()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_families(cls, names: Sequence[str],
                      families: Sequence[Iterable[tuple[float, Iterable[int]]]], *,
                      meta: dict[str, Any] | None = None, source: str | None = None,
                      check_feasible: bool = True) -> "ScoreCache":
        """Build a cache from ``families[i] = [(score, parents), ...]`` (parents: indices).

        Duplicate parent sets keep their best score (with a warning); every other defect
        raises :class:`ScoreFileError`.
        """
        n = len(names)
        offsets = [0]
        scores: list[float] = []
        ptr = [0]
        items: list[int] = []
        for i, fam in enumerate(families):
            seen: dict[tuple[int, ...], int] = {}
            for score, parents in fam:
                ps = tuple(sorted(int(p) for p in parents))
                key = ps
                if key in seen:
                    k = seen[key]
                    warnings.warn(f"{source or '<cache>'}: variable {names[i]}: duplicate parent set "
                                  f"{{{', '.join(names[p] for p in ps)}}}; keeping the best score",
                                  LpbnWarning, stacklevel=2)
                    scores[k] = max(scores[k], float(score))
                    continue
                seen[key] = len(scores)
                scores.append(float(score))
                items.extend(ps)
                ptr.append(len(items))
            offsets.append(len(scores))
        if len(offsets) != n + 1:
            raise ScoreFileError(f"{len(offsets) - 1} families given for {n} variables", source)
        return cls(names, np.array(offsets), np.array(scores, dtype=np.float64), np.array(ptr),
                   np.array(items, dtype=np.int32), meta=meta, source=source,
                   check_feasible=check_feasible)

    def _check_structure(self, offsets, scores, ptr, items) -> None:
        n, src = self.n, self.source
        if len(set(self.names)) != n:
            dup = sorted({x for x in self.names if self.names.count(x) > 1})
            raise ScoreFileError(f"duplicate variable name(s): {', '.join(dup[:5])}", src)
        if n == 0:
            raise ScoreFileError("no variables", src)
        if offsets.shape != (n + 1,) or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
            raise ScoreFileError("malformed family offsets", src)
        m = int(offsets[-1])
        if scores.shape != (m,) or ptr.shape != (m + 1,) or ptr[0] != 0 or ptr[-1] != len(items) \
                or np.any(np.diff(ptr) < 0):
            raise ScoreFileError("malformed parent-set arrays", src)
        empty = np.flatnonzero(np.diff(offsets) == 0)
        if len(empty):
            raise ScoreFileError(f"variable {self.names[empty[0]]} has no candidate parent sets", src)
        bad = np.flatnonzero(~np.isfinite(scores))
        if len(bad):
            j = int(bad[0])
            i = int(np.searchsorted(offsets, j, side="right") - 1)
            raise ScoreFileError(f"variable {self.names[i]}: score {scores[j]} is not finite", src)
        # every method adds n local scores (bounds add n maxima): refuse what float64 cannot sum
        with np.errstate(over="ignore"):
            span = float(np.sum(np.maximum.reduceat(np.abs(scores), offsets[:-1]))) if m else 0.0
        if not span <= MAX_SCORE_SUM:
            raise ScoreFileError(f"scores too large in magnitude: the largest |score| per variable sum to "
                                 f"{span:.3g}, beyond {MAX_SCORE_SUM:.0e} (a DAG's score would overflow); "
                                 "rescale the scores", src)
        if len(items) and (items.min() < 0 or items.max() >= n):
            raise ScoreFileError("parent index out of range", src)
        code = _check_sets(offsets, ptr, items)
        if code[0] != 0:
            kind, i, v = code
            what = "is listed as its own parent" if kind == 1 else "is repeated in a parent set"
            raise ScoreFileError(f"variable {self.names[i]}: {self.names[v]} {what}", src)

    def check_feasible(self) -> None:
        """Raise :class:`ScoreFileError` unless some DAG can be built from the candidates.

        A greedy topological construction is complete: a variable whose candidate's
        parents are all placed stays placeable, so if the greedy gets stuck, no DAG exists.
        """
        placed = _greedy_order(self.n, self.offsets, self.pset_ptr, self.pset_items)
        if placed.sum() < self.n:
            stuck = [self.names[i] for i in np.flatnonzero(~placed)]
            more = f" (and {len(stuck) - 5} more)" if len(stuck) > 5 else ""
            raise ScoreFileError(
                "instance admits no DAG: every candidate parent set of "
                f"{', '.join(stuck[:5])}{more} needs a variable from that same group", self.source)

    # ------------------------------------------------------------------ basic access
    @property
    def m(self) -> int:
        """Total number of candidate parent sets."""
        return int(self.offsets[-1])

    @property
    def bits(self) -> np.ndarray:
        """Parent sets as bitsets, shape ``(m, W)`` uint64 (built on first use).

        Methods for large caches (ordering search, exploration) work on the CSR arrays
        instead: at n = 10,000 variables (W = 157 words) a million candidates would need
        1.2 GB of bitsets.
        """
        if self._bits is None:
            bits = bs.csr_to_bitsets(self.pset_ptr, self.pset_items, self.n)
            bits.setflags(write=False)
            self._bits = bits
        return self._bits

    @property
    def masks(self) -> np.ndarray:
        """Single-word parent-set bitmasks (uint64), available for ``n <= 64``."""
        if self.n > 64:
            raise ValueError("masks need n <= 64; use .bits for larger caches")
        return self.bits[:, 0]

    def counts(self) -> np.ndarray:
        """Number of candidates of each variable."""
        return np.diff(self.offsets)

    def family_range(self, i: int) -> range:
        """Global candidate indices of variable ``i`` (best first)."""
        return range(int(self.offsets[i]), int(self.offsets[i + 1]))

    def parents(self, j: int) -> tuple[int, ...]:
        """Parent set (sorted variable indices) of global candidate ``j``."""
        return tuple(int(x) for x in self.pset_items[self.pset_ptr[j]:self.pset_ptr[j + 1]])

    def family_lists(self, i: int) -> list[tuple[float, tuple[int, ...]]]:
        """``[(score, parents), ...]`` of variable ``i``, best first (convenience, not fast)."""
        return [(float(self.scores[j]), self.parents(j)) for j in self.family_range(i)]

    def index(self, name: str) -> int:
        """Index of the variable called ``name``."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no variable named {name!r}") from None

    def candidate_index(self, i: int, parents: Iterable[int]) -> int | None:
        """Global index of variable ``i``'s candidate with exactly ``parents``, or None."""
        if self._lookup is None:
            self._lookup = [dict() for _ in range(self.n)]
            for j in range(self.m):
                self._lookup[int(self.family[j])][self.parents(j)] = j
        return self._lookup[i].get(tuple(sorted(int(p) for p in parents)))

    def indices_of(self, parents: Sequence[Iterable[int]]) -> np.ndarray:
        """Global candidate index of every variable's parent set ``parents[i]`` (-1 where it is
        not a candidate); one scan of the CSR arrays, no per-candidate Python objects."""
        sets = [sorted(int(p) for p in ps) for ps in parents]
        if len(sets) != self.n:
            raise ValueError(f"{len(sets)} parent sets for {self.n} variables")
        tptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum([len(ps) for ps in sets], out=tptr[1:])
        titems = np.array([p for ps in sets for p in ps], dtype=np.int32)
        return _find_candidates(self.offsets, self.pset_ptr, self.pset_items, tptr, titems)

    def local_score(self, i: int, parents: Iterable[int]) -> float | None:
        """Local score of ``i`` with ``parents``, or None when that set is not a candidate."""
        j = self.candidate_index(i, parents)
        return None if j is None else float(self.scores[j])

    def dag_score(self, parents: Sequence[Iterable[int]]) -> float:
        """Sum of local scores of a DAG given as parents per variable (all must be candidates)."""
        total = 0.0
        for i, ps in enumerate(parents):
            s = self.local_score(i, ps)
            if s is None:
                raise ValueError(f"parent set {sorted(ps)} of {self.names[i]} is not a candidate")
            total += s
        return total

    # ------------------------------------------------------------------ queries
    def best_parent_set(self, i: int, allowed) -> tuple[int, float]:
        """Best candidate of ``i`` whose parents all lie in ``allowed``.

        ``allowed`` is a Python-int bitmask, a bitset array or an iterable of indices.
        Returns ``(global index, score)``, or ``(-1, -inf)`` when none fits.  Cost: a scan of
        the best-first list up to the first fit (numba).
        """
        words = self._as_bitset(allowed)
        j = _best_within(self.bits, int(self.offsets[i]), int(self.offsets[i + 1]), words)
        return (j, float(self.scores[j])) if j >= 0 else (-1, -np.inf)

    def best_for_order(self, order: Sequence[int]) -> tuple[np.ndarray, float]:
        """Best parent set of every variable among its predecessors in ``order``.

        Returns (global candidate index per variable, total score); index -1 / -inf where a
        variable has no consistent candidate.  This is the decoding step of Jaakkola et al.
        2010 §5.2 and the core of ordering-based search.
        """
        order = np.asarray(order, dtype=np.int64)
        if sorted(order.tolist()) != list(range(self.n)):
            raise ValueError("order must be a permutation of 0..n-1")
        choice = best_for_order_csr(self.offsets, self.pset_ptr, self.pset_items, order)
        total = float(np.sum(self.scores[choice])) if np.all(choice >= 0) else -np.inf
        return choice, total

    def best_unconstrained(self) -> np.ndarray:
        """Score of each variable's best candidate overall (an upper bound on its family)."""
        return self.scores[self.offsets[:-1]].copy()

    def _as_bitset(self, allowed) -> np.ndarray:
        if isinstance(allowed, (int, np.integer)):
            return bs.int_to_bitset(int(allowed), self.n)
        arr = np.asarray(allowed)
        if arr.dtype == np.uint64 and arr.shape == (self.words,):
            return arr
        if arr.dtype == bool and arr.shape == (self.n,):
            return bs.to_bitset(np.flatnonzero(arr), self.n)
        return bs.to_bitset(list(allowed), self.n)

    # ------------------------------------------------------------------ pruning
    def _take(self, keep: np.ndarray, meta_update: dict[str, Any] | None = None) -> "ScoreCache":
        keep = np.asarray(keep, dtype=bool)
        idx = np.flatnonzero(keep)
        counts = np.bincount(self.family[idx], minlength=self.n)
        offsets = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        sizes = self.sizes[idx]
        ptr = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(sizes, out=ptr[1:])
        items = _gather_csr(self.pset_ptr, self.pset_items, idx.astype(np.int64), ptr)
        meta = dict(self.meta)
        meta.update(meta_update or {})
        return ScoreCache(self.names, offsets, self.scores[idx], ptr, items, meta=meta,
                          source=self.source)

    def prune_dominated(self) -> "ScoreCache":
        """Drop every candidate U of X for which some candidate U' ⊂ U scores >= U.

        Safe for optimality (Teyssier & Koller 2005; de Campos & Ji 2011; Chen et al.,
        Thm 1): any DAG using U stays acyclic, and no worse, with U' instead.
        """
        if self.words <= 2:
            keep = _dominance_keep(self.bits, self.offsets, self.scores)
        else:  # wide caches: subset tests on the CSR sets, no m x W bitsets
            keep = _dominance_keep_csr(self.offsets, self.pset_ptr, self.pset_items, self.scores, self.n)
        if keep.all():
            return self
        return self._take(keep, {"pruned_dominated": int((~keep).sum())})

    def restrict_in_degree(self, max_parents: int) -> "ScoreCache":
        """Keep only candidates with at most ``max_parents`` parents (a modelling choice)."""
        if max_parents < 0:
            raise ValueError("max_parents must be >= 0")
        keep = self.sizes <= max_parents
        if keep.all():
            return self
        return self._take(keep, {"max_parents": int(max_parents)})

    # ------------------------------------------------------------------ reporting
    def summary(self) -> CacheSummary:
        """Counts, in-degrees and score ranges (see :class:`CacheSummary`)."""
        counts = self.counts()
        hist = np.bincount(self.sizes) if self.m else np.zeros(1, int)
        best = self.best_unconstrained()
        empty_scores = np.full(self.n, -np.inf)
        empties = np.flatnonzero(self.sizes == 0)
        empty_scores[self.family[empties]] = self.scores[empties]
        gap = best - empty_scores
        return CacheSummary(
            n=self.n, candidates=self.m, min_candidates=int(counts.min()),
            max_candidates=int(counts.max()), mean_candidates=float(counts.mean()),
            max_in_degree=int(self.sizes.max()),
            in_degree_histogram={k: int(v) for k, v in enumerate(hist) if v},
            best_empty_gap=float(np.max(gap)) if np.all(np.isfinite(gap)) else float("inf"),
            score_min=float(self.scores.min()), score_max=float(self.scores.max()),
            bound_sum_best=float(best.sum()), meta=dict(self.meta))

    def __repr__(self) -> str:
        return f"ScoreCache(n={self.n}, candidates={self.m}, source={self.source!r})"

    def __len__(self) -> int:
        return self.n

    def equals(self, other: "ScoreCache", rtol: float = 0.0, atol: float = 0.0) -> bool:
        """Same names, same candidate sets and scores (within tolerances)."""
        if self.names != other.names or self.m != other.m:
            return False
        if not (np.array_equal(self.offsets, other.offsets)
                and np.array_equal(self.pset_ptr, other.pset_ptr)
                and np.array_equal(self.pset_items, other.pset_items)):
            return False
        return bool(np.allclose(self.scores, other.scores, rtol=rtol, atol=atol)) \
            if (rtol or atol) else bool(np.array_equal(self.scores, other.scores))


# ---------------------------------------------------------------------- numba kernels
@numba.njit(cache=True)
def _find_candidates(offsets, ptr, items, tptr, titems):
    n = offsets.shape[0] - 1
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        k = tptr[i + 1] - tptr[i]
        for j in range(offsets[i], offsets[i + 1]):
            if ptr[j + 1] - ptr[j] != k:
                continue
            same = True
            for a in range(k):
                if items[ptr[j] + a] != titems[tptr[i] + a]:
                    same = False
                    break
            if same:
                out[i] = j
                break
    return out


@numba.njit(cache=True)
def _gather_csr(ptr, items, order, new_ptr):
    out = np.empty(new_ptr[-1], dtype=np.int32)
    for k in range(order.shape[0]):
        j = order[k]
        a = ptr[j]
        b = new_ptr[k]
        for t in range(ptr[j + 1] - a):
            out[b + t] = items[a + t]
    return out


@numba.njit(cache=True)
def _check_sets(offsets, ptr, items):
    """(0,0,0) if fine; (1, i, v) self-parent; (2, i, v) repeated parent."""
    n = offsets.shape[0] - 1
    for i in range(n):
        for j in range(offsets[i], offsets[i + 1]):
            for a in range(ptr[j], ptr[j + 1]):
                if items[a] == i:
                    return (1, i, i)
                for b in range(ptr[j], a):
                    if items[b] == items[a]:
                        return (2, i, items[a])
    return (0, 0, 0)


@numba.njit(cache=True)
def inverse_index(n, pset_ptr, pset_items):
    """CSR (ptr, candidates): for each variable v, the candidates whose parent set contains v."""
    m = pset_ptr.shape[0] - 1
    cnt = np.zeros(n + 1, dtype=np.int64)
    for k in range(pset_items.shape[0]):
        cnt[pset_items[k] + 1] += 1
    for v in range(n):
        cnt[v + 1] += cnt[v]
    inv = np.empty(pset_items.shape[0], dtype=np.int64)
    fill = cnt[:-1].copy()
    for j in range(m):
        for a in range(pset_ptr[j], pset_ptr[j + 1]):
            v = pset_items[a]
            inv[fill[v]] = j
            fill[v] += 1
    return cnt, inv


@numba.njit(cache=True)
def _greedy_order(n, offsets, ptr, items):
    """Places variables greedily; returns which variables could be placed."""
    m = ptr.shape[0] - 1
    missing = np.empty(m, dtype=np.int64)
    for j in range(m):
        missing[j] = ptr[j + 1] - ptr[j]
    cnt, inv = inverse_index(n, ptr, items)
    fam = np.empty(m, dtype=np.int64)
    for i in range(n):
        for j in range(offsets[i], offsets[i + 1]):
            fam[j] = i
    placed = np.zeros(n, dtype=np.bool_)
    queued = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    top = 0
    for j in range(m):
        if missing[j] == 0 and not queued[fam[j]]:
            queued[fam[j]] = True
            stack[top] = fam[j]
            top += 1
    while top > 0:
        top -= 1
        v = stack[top]
        placed[v] = True
        for k in range(cnt[v], cnt[v + 1]):
            j = inv[k]
            missing[j] -= 1
            if missing[j] == 0 and not queued[fam[j]]:
                queued[fam[j]] = True
                stack[top] = fam[j]
                top += 1
    return placed


@numba.njit(cache=True)
def _best_within(bits, start, stop, allowed):
    for j in range(start, stop):
        ok = True
        for w in range(bits.shape[1]):
            if bits[j, w] & ~allowed[w]:
                ok = False
                break
        if ok:
            return j
    return -1


@numba.njit(cache=True)
def best_for_order_csr(offsets, pset_ptr, pset_items, order):
    """Best-first scan per variable for the first candidate whose parents all precede it in
    ``order`` (CSR sets, positions instead of bitsets); -1 where none does."""
    n = order.shape[0]
    pos = np.empty(n, dtype=np.int64)
    for k in range(n):
        pos[order[k]] = k
    choice = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        for j in range(offsets[i], offsets[i + 1]):
            ok = True
            for a in range(pset_ptr[j], pset_ptr[j + 1]):
                if pos[pset_items[a]] > pos[i]:
                    ok = False
                    break
            if ok:
                choice[i] = j
                break
    return choice


@numba.njit(cache=True)
def _dominance_keep_csr(offsets, ptr, items, scores, n):
    """:func:`_dominance_keep` with subset tests on CSR sets (a stamp array per candidate)."""
    m = ptr.shape[0] - 1
    keep = np.ones(m, dtype=np.bool_)
    kept = np.empty(m, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    for i in range(offsets.shape[0] - 1):
        nk = 0
        for j in range(offsets[i], offsets[i + 1]):
            for a in range(ptr[j], ptr[j + 1]):
                stamp[items[a]] = j
            size_j = ptr[j + 1] - ptr[j]
            dominated = False
            for t in range(nk):
                k = kept[t]
                if scores[k] < scores[j] or ptr[k + 1] - ptr[k] >= size_j:
                    continue
                sub = True
                for a in range(ptr[k], ptr[k + 1]):
                    if stamp[items[a]] != j:
                        sub = False
                        break
                if sub:
                    dominated = True
                    break
            if dominated:
                keep[j] = False
            else:
                kept[nk] = j
                nk += 1
    return keep


@numba.njit(cache=True)
def _dominance_keep(bits, offsets, scores):
    """Candidates are best first (ties: smaller first); keep j unless a kept subset scores >= j."""
    m = bits.shape[0]
    W = bits.shape[1]
    keep = np.ones(m, dtype=np.bool_)
    kept = np.empty(m, dtype=np.int64)
    for i in range(offsets.shape[0] - 1):
        nk = 0
        for j in range(offsets[i], offsets[i + 1]):
            dominated = False
            for t in range(nk):
                k = kept[t]
                if scores[k] < scores[j]:
                    continue
                sub = True
                for w in range(W):
                    if bits[k, w] & ~bits[j, w]:
                        sub = False
                        break
                if sub:
                    dominated = True
                    break
            if dominated:
                keep[j] = False
            else:
                kept[nk] = j
                nk += 1
    return keep
