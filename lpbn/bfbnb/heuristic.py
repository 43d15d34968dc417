"""Admissible heuristics h(U) for the order graph, as static pattern databases.

The remaining variables R = V∖U of an order-graph node are split over fixed groups
G_1..G_p; acyclicity is only enforced *within* each group (Yuan & Malone 2012, "An
improved admissible heuristic for learning optimal Bayesian networks", static k-cycle
pattern databases).  For a group G and A ⊆ G,

    T_G(A) = max_{X ∈ A} [ BestScore(X, V∖A) + T_G(A∖{X}) ],   T_G(∅) = 0,

(the first variable of A in the order may only use parents outside A), and
h(U) = Σ_i T_{G_i}((V∖U) ∩ G_i) is an upper bound on the score of any completion (log-score
convention; a lower bound on cost in the paper's MDL terms).  With singleton groups it is
exactly Malone et al. 2011, eq. 3: h(U) = Σ_{X ∉ U} BestScore(X, V∖{X}).

Variables are relabelled so every group is a contiguous bit range; a group's table is
indexed by ``(~U >> lo) & ((1 << size) - 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ..cache import ScoreCache
from ..signals import pending
from .kernels import best_within, build_bitvectors


@dataclass
class Relabelled:
    """The pruned cache's candidates in the search's variable labels (groups contiguous)."""

    new_of_old: np.ndarray      # (n,) new label of each variable
    old_of_new: np.ndarray      # (n,)
    masks: np.ndarray           # (m,) uint64 parent masks in new labels
    starts: np.ndarray          # (n,) first candidate of each new label (global index)
    stops: np.ndarray           # (n,)
    scores: np.ndarray          # (m,) best first within each variable
    group_lo: np.ndarray        # (p,) int64 first bit of each group
    group_mask: np.ndarray      # (p,) uint64 (1 << size) - 1
    table_off: np.ndarray       # (p,) int64 offset of each group's table in ``tables``
    tables: np.ndarray          # concatenated T_G arrays (float64)
    group_of: np.ndarray        # (n,) group of each new label
    woff: np.ndarray            # (n+1,) first bit-vector word of each new label
    bv: np.ndarray              # (words, n) candidate bit vectors (kernels.best_bits)

    def h_start(self) -> float:
        """h(∅): the initial upper bound on the optimum."""
        return float(sum(self.tables[self.table_off[i] + int(self.group_mask[i])]
                         for i in range(len(self.group_lo))))


def coupling(pruned: ScoreCache) -> np.ndarray:
    """w[X, Y]: score lost by X when Y may not be its parent, plus the reverse (symmetric)."""
    n = pruned.n
    masks = np.ascontiguousarray(pruned.masks)
    return _coupling(n, masks, pruned.offsets, pruned.scores)


@numba.njit(cache=True)
def _coupling(n, masks, offsets, scores):
    full = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - n)
    w = np.zeros((n, n))
    for x in range(n):
        bx = scores[offsets[x]]
        for y in range(n):
            if y == x:
                continue
            notu = ~(full & ~(np.uint64(1) << np.uint64(y)))
            j = best_within(masks, offsets[x], offsets[x + 1], notu)
            loss = bx - scores[j] if j >= 0 else 1e300
            w[x, y] += loss
            w[y, x] += loss
    return w


def make_groups(pruned: ScoreCache, max_group: int) -> list[list[int]]:
    """Partition the variables into groups of at most ``max_group``, strongly coupled together.

    Kruskal-style: merge the two groups joined by the heaviest coupling (:func:`coupling`)
    while the union fits, then pack the components first-fit decreasing.
    """
    n = pruned.n
    if max_group <= 1:
        return [[v] for v in range(n)]
    if n <= max_group:
        return [list(range(n))]
    w = coupling(pruned)
    parent = list(range(n))
    size = [1] * n

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    iu = np.triu_indices(n, 1)
    order = np.argsort(-w[iu], kind="stable")
    for k in order:
        if w[iu[0][k], iu[1][k]] <= 0:
            break
        a, b = find(int(iu[0][k])), find(int(iu[1][k]))
        if a != b and size[a] + size[b] <= max_group:
            parent[b] = a
            size[a] += size[b]
    comps: dict[int, list[int]] = {}
    for v in range(n):
        comps.setdefault(find(v), []).append(v)
    # pack components into as few groups as possible (first-fit decreasing)
    groups: list[list[int]] = []
    for comp in sorted(comps.values(), key=len, reverse=True):
        for g in groups:
            if len(g) + len(comp) <= max_group:
                g.extend(comp)
                break
        else:
            groups.append(list(comp))
    return [sorted(g) for g in groups]


def relabel(pruned: ScoreCache, groups: list[list[int]]) -> Relabelled:
    """Relabel variables group by group and build the pattern-database tables."""
    n = pruned.n
    old_of_new = np.array([v for g in groups for v in g], dtype=np.int64)
    new_of_old = np.empty(n, dtype=np.int64)
    new_of_old[old_of_new] = np.arange(n)
    masks = _remap_masks(np.ascontiguousarray(pruned.masks), new_of_old)
    starts = pruned.offsets[:-1][old_of_new].astype(np.int64)
    stops = pruned.offsets[1:][old_of_new].astype(np.int64)
    lo, gmask, toff, group_of = [], [], [], np.empty(n, dtype=np.int64)
    pos = off = 0
    for gi, g in enumerate(groups):
        lo.append(pos)
        gmask.append((1 << len(g)) - 1)
        toff.append(off)
        group_of[pos:pos + len(g)] = gi
        pos += len(g)
        off += 1 << len(g)
    tables = np.empty(off, dtype=np.float64)
    for gi, g in enumerate(groups):
        _fill_table(tables[toff[gi]:toff[gi] + (1 << len(g))], lo[gi], len(g), n, masks, starts,
                    stops, pruned.scores)
    woff, bv = build_bitvectors(masks, starts, stops, n)
    return Relabelled(new_of_old, old_of_new, masks, starts, stops, pruned.scores,
                      np.array(lo, dtype=np.int64), np.array(gmask, dtype=np.uint64),
                      np.array(toff, dtype=np.int64), tables, group_of, woff, bv)


@numba.njit(cache=True)
def _remap_masks(masks, new_of_old):
    out = np.zeros_like(masks)
    n = new_of_old.shape[0]
    for j in range(masks.shape[0]):
        m = masks[j]
        r = np.uint64(0)
        for v in range(n):
            if (m >> np.uint64(v)) & np.uint64(1):
                r |= np.uint64(1) << np.uint64(new_of_old[v])
        out[j] = r
    return out


@numba.njit(cache=True)
def _fill_table(table, lo, k, n, masks, starts, stops, scores):
    """T(A) = max_{X∈A} BestScore(X, V∖A) + T(A∖{X}) over subsets A of one group (DP)."""
    full = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - n)
    table[0] = 0.0
    for a in range(1, 1 << k):
        amask = np.uint64(a) << np.uint64(lo)
        notallowed = amask | ~full
        best = -np.inf
        for b in range(k):
            if (a >> b) & 1:
                rest = table[a ^ (1 << b)]
                if rest == -np.inf:
                    continue
                x = lo + b
                j = best_within(masks, starts[x], stops[x], notallowed)
                if j >= 0:
                    v = scores[j] + rest
                    if v > best:
                        best = v
        table[a] = best


def order_groups(order, max_group: int) -> list[list[int]]:
    """Contiguous chunks of ``max_group`` variables of a good ordering (e.g. OBS's)."""
    order = [int(v) for v in order]
    return [sorted(order[i:i + max_group]) for i in range(0, len(order), max_group)]


def choose_groups(pruned: ScoreCache, order, max_group: int) -> tuple[list[list[int]], Relabelled]:
    """The tightest of a few static partitions, judged by h(∅) (smaller = tighter bound).

    Candidates: :func:`make_groups` (coupling-based) and :func:`order_groups` (chunks of the
    incumbent's ordering) with group sizes ``max_group`` and ``max_group - 4``.  With
    ``n <= max_group`` the single group (the exact DP) is used.
    """
    n = pruned.n
    if n <= max_group or max_group <= 1:
        groups = make_groups(pruned, max_group)
        return groups, relabel(pruned, groups)
    best = None
    seen = set()
    for size in sorted({max_group, max(2, max_group - 4)}, reverse=True):
        for groups in (make_groups(pruned, size), order_groups(order, size)):
            key = tuple(tuple(g) for g in sorted(groups))
            if key in seen:
                continue
            seen.add(key)
            rl = relabel(pruned, groups)
            if best is None or rl.h_start() < best[1].h_start():
                best = (groups, rl)
            if pending() is not None:    # a stop request (lpbn.signals): the best so far
                return best
    return best
