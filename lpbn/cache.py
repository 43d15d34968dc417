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

import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from .errors import InputError, LpbnWarning, ScoreFileError
from .tuning import SMALL_FAMILY, SMALL_PAIRS, COLD_PAIRS, PAIR_BLOCK

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
            pset_items = gather_csr(pset_ptr, pset_items, order.astype(np.int64), new_ptr)
            pset_ptr = new_ptr
        self.offsets = offsets
        self.scores = scores
        self.pset_ptr = pset_ptr
        self.pset_items = pset_items
        self.family = family
        self.sizes = sizes
        self.words = (self.n + 63) // 64
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
        code = check_sets(offsets, ptr, items)
        if code[0] != 0:
            kind, i, v = code
            what = "is listed as its own parent" if kind == 1 else "is repeated in a parent set"
            raise ScoreFileError(f"variable {self.names[i]}: {self.names[v]} {what}", src)

    def check_feasible(self) -> None:
        """Raise :class:`ScoreFileError` unless some DAG can be built from the candidates.

        A greedy topological construction is complete: a variable whose candidate's
        parents are all placed stays placeable, so if the greedy gets stuck, no DAG exists.
        """
        placed = greedy_order(self.n, self.offsets, self.pset_ptr, self.pset_items)
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
            bits = csr_to_bitsets(self.pset_ptr, self.pset_items, self.n)
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
        from .cache_kernels import find_candidates
        return find_candidates(self.offsets, self.pset_ptr, self.pset_items, tptr, titems)

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
        the best-first list up to the first fit.
        """
        words = self._as_bitset(allowed)
        start, stop = int(self.offsets[i]), int(self.offsets[i + 1])
        if self.n <= 64 and stop - start <= SMALL_FAMILY:
            fits = np.flatnonzero((self.masks[start:stop] & ~words[0]) == 0)
            j = start + int(fits[0]) if fits.size else -1
        else:
            from .cache_kernels import best_within
            j = best_within(self.bits, start, stop, words)
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
        if self.n <= 64 and "numba" not in sys.modules:
            choice = best_for_order_masks(self.masks, self.family, order)
        else:
            from .cache_kernels import best_for_order_csr
            choice = best_for_order_csr(self.offsets, self.pset_ptr, self.pset_items, order)
        total = float(np.sum(self.scores[choice])) if np.all(choice >= 0) else -np.inf
        return choice, total

    def best_unconstrained(self) -> np.ndarray:
        """Score of each variable's best candidate overall (an upper bound on its family)."""
        return self.scores[self.offsets[:-1]].copy()

    def _as_bitset(self, allowed) -> np.ndarray:
        if isinstance(allowed, (int, np.integer)):
            mask = int(allowed)
            return np.array([(mask >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for w in range(self.words)],
                            dtype=np.uint64)
        arr = np.asarray(allowed)
        if arr.dtype == np.uint64 and arr.shape == (self.words,):
            return arr
        idx = np.flatnonzero(arr) if arr.dtype == bool and arr.shape == (self.n,) else \
            np.asarray(list(allowed), dtype=np.int64)
        out = np.zeros(self.words, dtype=np.uint64)
        np.bitwise_or.at(out, idx // 64, np.left_shift(np.uint64(1), (idx % 64).astype(np.uint64)))
        return out

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
        items = gather_csr(self.pset_ptr, self.pset_items, idx.astype(np.int64), ptr)
        meta = dict(self.meta)
        meta.update(meta_update or {})
        return ScoreCache(self.names, offsets, self.scores[idx], ptr, items, meta=meta,
                          source=self.source)

    def select(self, keep: np.ndarray) -> "ScoreCache":
        """The cache with only the candidates where the boolean mask ``keep`` is True (in the
        same order); every variable must keep at least one."""
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.m,):
            raise ValueError(f"keep must be a boolean mask of the {self.m} candidates")
        if np.any(np.bincount(self.family[keep], minlength=self.n) == 0):
            raise ValueError("select would leave a variable without candidates")
        return self._take(keep)

    def prunes_with_numpy(self, cold: bool | None = None) -> bool:
        """Whether :meth:`prune_dominated` runs in numpy (n <= 64 and few candidate pairs, or
        more pairs while numba is not loaded) rather than a numba kernel.  The two give the
        same cache; ``cold=True`` asks the question for a process without numba whatever this
        one has loaded (a decision must not depend on import state, issue 54)."""
        pairs = float(np.sum(np.diff(self.offsets).astype(np.float64) ** 2))
        cold = "numba" not in sys.modules if cold is None else cold
        return self.n <= 64 and (pairs <= SMALL_PAIRS or (pairs <= COLD_PAIRS and cold))

    def prune_dominated(self) -> "ScoreCache":
        """Drop every candidate U of X for which some candidate U' ⊂ U scores >= U.

        Safe for optimality (Teyssier & Koller 2005; de Campos & Ji 2011; Chen et al.,
        Thm 1): any DAG using U stays acyclic, and no worse, with U' instead.
        """
        if self.prunes_with_numpy():
            keep = _dominance_keep_numpy(self.masks, self.offsets)
        elif self.words <= 2:
            from .cache_kernels import dominance_keep
            keep = dominance_keep(self.bits, self.offsets, self.scores)
        else:  # wide caches: subset tests on the CSR sets, no m x W bitsets
            from .cache_kernels import dominance_keep_csr
            keep = dominance_keep_csr(self.offsets, self.pset_ptr, self.pset_items, self.scores, self.n)
        if keep.all():
            return self
        return self._take(keep, {"pruned_dominated": int((~keep).sum())})

    def restrict_in_degree(self, max_parents: int) -> "ScoreCache":
        """Keep only candidates with at most ``max_parents`` parents (a modelling choice)."""
        if not max_parents >= 0:
            raise InputError(f"max_parents must be >= 0, got {max_parents}")
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


# ---------------------------------------------------------------------- array helpers
# Small caches (n <= 64, the families' pairwise work below SMALL_PAIRS) are read, checked and
# pruned with numpy alone, so that solving them never imports numba; larger ones use the
# kernels of lpbn.cache_kernels.  Both give identical results.


def gather_csr(ptr: np.ndarray, items: np.ndarray, order: np.ndarray, new_ptr: np.ndarray) -> np.ndarray:
    """The sets ``order[k]`` of the CSR ``(ptr, items)``, concatenated (new offsets ``new_ptr``)."""
    lengths = ptr[order + 1] - ptr[order]
    total = int(new_ptr[-1])
    if total == 0:
        return np.empty(0, dtype=np.int32)
    shift = np.repeat(ptr[order] - new_ptr[:-1], lengths)
    return np.ascontiguousarray(items[np.arange(total, dtype=np.int64) + shift], dtype=np.int32)


def increasing_within_sets(ptr: np.ndarray, items: np.ndarray) -> bool:
    """Whether every set of the CSR ``(ptr, items)`` lists its members in increasing order
    (so none twice): one pass over adjacent pairs, those across a set boundary excused."""
    if items.size < 2:
        return True
    ok = items[1:] > items[:-1]
    starts = ptr[1:-1]
    ok[starts[(starts > 0) & (starts < items.size)] - 1] = True
    return bool(ok.all())


def check_sets(offsets: np.ndarray, ptr: np.ndarray, items: np.ndarray) -> tuple[int, int, int]:
    """(0, 0, 0) if every parent set is fine, (1, i, i) if variable i is its own parent,
    (2, i, v) if v is repeated in a parent set of i (the first offender in file order)."""
    if items.size == 0:
        return (0, 0, 0)
    m = ptr.shape[0] - 1
    per_set = np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int32), np.diff(offsets))
    if increasing_within_sets(ptr, items) and not (items == np.repeat(per_set, np.diff(ptr))).any():
        return (0, 0, 0)
    owner = np.repeat(np.arange(m, dtype=np.int64), np.diff(ptr))            # set of each item
    child = np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))[owner]
    own = np.flatnonzero(items == child)
    srt = np.lexsort((items, owner))
    same = (owner[srt][1:] == owner[srt][:-1]) & (items[srt][1:] == items[srt][:-1])
    rep = srt[1:][same]
    first_own = int(owner[own[0]]) if own.size else m
    first_rep = int(owner[rep].min()) if rep.size else m
    if first_own == m and first_rep == m:
        return (0, 0, 0)
    if first_own <= first_rep:
        i = int(child[own[0]])
        return (1, i, i)
    j = first_rep
    k = rep[owner[rep] == j]
    return (2, int(child[k[0]]), int(items[k[0]]))


def greedy_order(n: int, offsets: np.ndarray, ptr: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Which variables a greedy topological construction can place (all of them iff some DAG
    exists): rounds of numpy for n <= 64, the kernel beyond."""
    if n > 64:
        from .cache_kernels import greedy_order as kernel
        return kernel(n, offsets, ptr, items)
    m = ptr.shape[0] - 1
    family = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    nonempty = np.diff(ptr) > 0
    starts = ptr[:-1][nonempty]
    placed = np.zeros(n, dtype=bool)
    while True:
        ready = np.ones(m, dtype=bool)
        if items.size:
            ready[nonempty] = np.logical_and.reduceat(placed[items], starts)
        now = np.zeros(n, dtype=bool)
        now[family[ready]] = True
        if np.array_equal(now, placed):
            return placed
        placed = now


def best_for_order_masks(masks: np.ndarray, family: np.ndarray, order: np.ndarray) -> np.ndarray:
    """:func:`lpbn.cache_kernels.best_for_order_csr` for single-word sets: per variable the
    first (best) candidate whose parents all precede it in ``order``; -1 where none does."""
    n = len(order)
    bit = np.left_shift(np.uint64(1), np.asarray(order, dtype=np.uint64))
    before = np.zeros(n, dtype=np.uint64)
    if n > 1:
        before[1:] = np.bitwise_or.accumulate(bit)[:-1]
    pred = np.empty(n, dtype=np.uint64)
    pred[np.asarray(order, dtype=np.int64)] = before
    fits = np.flatnonzero((masks & ~pred[family]) == 0)
    choice = np.full(n, -1, dtype=np.int64)
    fam = family[fits]
    first = np.unique(fam, return_index=True)[1]
    choice[fam[first]] = fits[first]
    return choice


def csr_to_bitsets(ptr: np.ndarray, items: np.ndarray, n: int) -> np.ndarray:
    """Parent sets as ``(m, W)`` uint64 bitsets (numpy for n <= 64)."""
    if n > 64:
        from .bitsets import csr_to_bitsets as kernel
        return kernel(ptr, items, n)
    m = ptr.shape[0] - 1
    out = np.zeros((m, 1), dtype=np.uint64)
    nonempty = np.diff(ptr) > 0
    if items.size:
        bits = np.left_shift(np.uint64(1), items.astype(np.uint64))
        out[nonempty, 0] = np.bitwise_or.reduceat(bits, ptr[:-1][nonempty])
    return out


def _dominance_keep_numpy(masks: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """:func:`lpbn.cache_kernels.dominance_keep` for single-word masks: candidates are best
    first (ties: smaller first), so j is dominated iff an earlier candidate's set is a subset of
    j's (an earlier dropped one has a kept subset that is earlier still)."""
    keep = np.ones(masks.shape[0], dtype=bool)
    for i in range(offsets.shape[0] - 1):
        a, b = int(offsets[i]), int(offsets[i + 1])
        if b - a < 2:
            continue
        fam = masks[a:b]
        rows = max(1, PAIR_BLOCK // (b - a))
        for r in range(0, b - a - 1, rows):          # earlier candidates r..r+rows against all
            sub = (fam[r:r + rows, None] & ~fam[None, :]) == 0     # set r+k within set j
            keep[a:b] &= ~np.triu(sub, r + 1).any(axis=0)          # ... and r+k < j
    return keep


#: names the kernels had when they lived in this module
_MOVED = {"inverse_index": "inverse_index", "best_for_order_csr": "best_for_order_csr",
          "_best_within": "best_within", "_greedy_order": "greedy_order",
          "_gather_csr": "gather_csr", "_dominance_keep": "dominance_keep",
          "_dominance_keep_csr": "dominance_keep_csr", "_find_candidates": "find_candidates",
          "_check_sets": "check_sets"}


def __getattr__(name: str):
    """``from lpbn.cache import inverse_index`` (and the old private kernel names) still work:
    they load :mod:`lpbn.cache_kernels` on first use."""
    target = _MOVED.get(name)
    if target is None:
        raise AttributeError(f"module 'lpbn.cache' has no attribute {name!r}")
    from . import cache_kernels
    return getattr(cache_kernels, target)
