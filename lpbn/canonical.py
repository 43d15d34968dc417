"""A canonical choice among co-optimal DAGs, so the answer does not depend on which method or
process found it first.

:func:`canonical_dag` rewrites a DAG in two steps, each deterministic:

1. **its Markov equivalence class's representative** (:func:`_class_representative`): under a
   score-equivalent score (BIC, BDeu) every member of the class scores the same, and methods
   return whichever member they met first (wine: 0 -> 7 -> 6 from the DP, 6 -> 7 -> 0 from the
   ILP).  The representative is the CPDAG with its undirected edges oriented along a maximum
   cardinality search (ties to the smallest index), applied when every parent set it needs is
   a candidate and the total does not drop beyond the cache's printed precision
   (COVERED_RTOL); otherwise covered edges (Chickering 1995) are reversed towards the index
   order where the same holds (:func:`_reverse_covered`);
2. **local ties** (:func:`_local_ties`): variable by variable until nothing changes, each takes,
   among the candidates with exactly its local score (the same float) that keep the graph
   acyclic, the lexicographically smallest parent set.

Two methods that return members of one class, or DAGs differing in local ties, then print the
same DAG.  Different classes that tie in score are left as they are (choosing among them
would take the whole list of optima).
"""

from __future__ import annotations

import numpy as np

from .cache import ScoreCache
from .result import DAG

#: a covered edge is reversed when the two families' total drops by at most this, relative:
#: a score-equivalent score (BIC, BDeu) gives both orientations the same total in exact
#: arithmetic, and a cache file prints scores to 8-10 significant digits
COVERED_RTOL = 1e-10


def _reaches(children: list[set[int]], start: int, targets: set[int]) -> bool:
    """Whether a directed path leads from ``start`` to any of ``targets``."""
    if not targets:
        return False
    seen, stack = {start}, [start]
    while stack:
        v = stack.pop()
        for c in children[v]:
            if c in targets:
                return True
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return False


def _index_of(cache: ScoreCache, i: int, parents: tuple[int, ...]) -> int:
    """The candidate of variable ``i`` with exactly ``parents`` (sorted), or -1 (numpy only:
    the front door runs this after every solve, also in processes that never load numba)."""
    lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
    cand = lo + np.flatnonzero(np.asarray(cache.sizes[lo:hi]) == len(parents))
    if len(parents) and len(cand):
        at = np.asarray(cache.pset_ptr)[cand][:, None] + np.arange(len(parents))
        cand = cand[np.all(np.asarray(cache.pset_items)[at] == np.asarray(parents), axis=1)]
    return int(cand[0]) if len(cand) else -1


def dag_score(cache: ScoreCache, parents) -> float:
    """:meth:`ScoreCache.dag_score` (the same sequential sum, so the same float) by the numpy
    lookup :func:`_index_of`: the front door scores every canonical DAG, and the cache's own
    lookup first builds a dict over every candidate (tens of milliseconds on a cache of 10^4
    sets, more than many whole solves)."""
    total = 0.0
    scores = cache.scores
    for i, ps in enumerate(parents):
        j = _index_of(cache, i, tuple(sorted(int(p) for p in ps)))
        if j < 0:
            raise ValueError(f"parent set {sorted(ps)} of {cache.names[i]} is not a candidate")
        total += float(scores[j])
    return total


def canonical_dag(cache: ScoreCache, dag: DAG, tolerance: float = COVERED_RTOL) -> DAG:
    """The canonical DAG of ``dag`` in ``cache`` (module docstring): covered edges turned to
    point from the smaller index to the larger where the score allows, then the smallest of
    each variable's local-score ties; ``dag`` itself when nothing changes (or a parent set is
    not a candidate)."""
    parents = [tuple(ps) for ps in dag.parents]
    if len(parents) != cache.n:
        return dag
    idx = np.array([_index_of(cache, v, ps) for v, ps in enumerate(parents)], dtype=np.int64)
    if np.any(idx < 0):
        return dag
    if not _class_representative(cache, parents, idx, tolerance):
        _reverse_covered(cache, parents, idx, tolerance)
    _local_ties(cache, parents, idx)
    return dag if [tuple(p) for p in dag.parents] == parents else DAG(dag.names, parents)


def _mcs_order(nodes: list[int], nbrs: dict[int, set[int]]) -> dict[int, int]:
    """Maximum cardinality search (Tarjan & Yannakakis 1984) over an undirected graph, ties
    to the smallest index: position of each node.  On a chordal graph its reverse is a perfect
    elimination ordering, so orienting every edge from the earlier node to the later one makes
    no v-structure and no cycle."""
    weight = {v: 0 for v in nodes}
    buckets: dict[int, set[int]] = {0: set(nodes)}
    pos: dict[int, int] = {}
    top = 0
    while len(pos) < len(nodes):
        while not buckets.get(top):
            top -= 1
        v = min(buckets[top])
        buckets[top].discard(v)
        pos[v] = len(pos)
        for u in nbrs[v]:
            if u not in pos:
                buckets[weight[u]].discard(u)
                weight[u] += 1
                buckets.setdefault(weight[u], set()).add(u)
                top = max(top, weight[u])
    return pos


def _class_representative(cache: ScoreCache, parents: list, idx: np.ndarray, tolerance: float) -> bool:
    """Replace the DAG by its Markov equivalence class's representative: the class's CPDAG
    (v-structures and Meek's rules, :func:`lpbn.kbest.classes.cpdag`) with every undirected
    edge oriented along a maximum cardinality search of its chain component (ties to the
    smallest index), a member of the class whatever member the method returned (the chain
    components are chordal; Meek 1995, Andersson et al. 1997).  Only when every new parent set
    is a candidate and the total drops by at most ``tolerance`` (a score-equivalent score gives
    every member the same total); True when it was applied."""
    from .kbest.classes import cpdag
    directed, undirected = cpdag(parents)
    if not undirected:
        return False
    nbrs: dict[int, set[int]] = {}
    for a, b in undirected:
        nbrs.setdefault(a, set()).add(b)
        nbrs.setdefault(b, set()).add(a)
    pos = _mcs_order(sorted(nbrs), nbrs)
    new = [set() for _ in range(cache.n)]
    for a, b in directed:
        new[b].add(a)
    for a, b in undirected:
        if pos[a] < pos[b]:
            new[b].add(a)
        else:
            new[a].add(b)
    sets = [tuple(sorted(ps)) for ps in new]
    if sets == parents:
        return False
    cand = np.array([_index_of(cache, v, ps) for v, ps in enumerate(sets)], dtype=np.int64)
    if np.any(cand < 0):
        return False
    scores = np.asarray(cache.scores)
    old, fresh = float(np.sum(scores[idx])), float(np.sum(scores[cand]))
    if fresh < old - tolerance * max(1.0, abs(old)):
        return False
    parents[:] = sets
    idx[:] = cand
    return True


def _reverse_covered(cache: ScoreCache, parents: list, idx: np.ndarray, tolerance: float) -> None:
    """Reverse every covered edge p -> c with p > c (pa(c) = pa(p) + {p}; Chickering 1995,
    Lemma 1: the reversal keeps the graph acyclic and, under a score-equivalent score, the
    total) when both new parent sets are candidates and the total does not drop by more than
    ``tolerance`` relative to the two families' scores (the cache's printed precision): each
    reversal removes one edge against the index order, so the pass ends."""
    scores = np.asarray(cache.scores)
    changed = True
    while changed:
        changed = False
        for c in range(cache.n):
            for p in sorted(parents[c], reverse=True):
                if p < c or set(parents[c]) != set(parents[p]) | {p}:
                    continue
                new_p = tuple(sorted(set(parents[p]) | {c}))
                jp, jc = _index_of(cache, p, new_p), _index_of(cache, c, parents[p])
                if jp < 0 or jc < 0:
                    continue
                old = float(scores[idx[p]]) + float(scores[idx[c]])
                new = float(scores[jp]) + float(scores[jc])
                if new < old - tolerance * max(1.0, abs(old)):
                    continue
                parents[c], parents[p] = tuple(parents[p]), new_p
                idx[c], idx[p] = jc, jp
                changed = True
                break


def _local_ties(cache: ScoreCache, parents: list, idx: np.ndarray) -> None:
    """Each variable's smallest parent set among those with exactly its local score that keep
    the graph acyclic, until nothing changes (each change makes a set lexicographically
    smaller, so the pass ends)."""
    scores = np.asarray(cache.scores)
    offsets = np.asarray(cache.offsets)
    children: list[set[int]] = [set() for _ in range(cache.n)]
    for v, ps in enumerate(parents):
        for p in ps:
            children[p].add(v)
    changed = True
    while changed:
        changed = False
        for v in range(cache.n):
            lo, hi = int(offsets[v]), int(offsets[v + 1])
            ties = lo + np.flatnonzero(scores[lo:hi] == scores[idx[v]])
            if len(ties) < 2:
                continue
            for ps in sorted(cache.parents(int(j)) for j in ties):
                if ps == parents[v]:
                    break                      # the current set is the smallest that fits
                if _reaches(children, v, set(ps) - set(parents[v])):
                    continue                   # a new parent below v: a cycle
                for p in parents[v]:
                    children[p].discard(v)
                for p in ps:
                    children[p].add(v)
                parents[v] = ps
                idx[v] = _index_of(cache, v, ps)
                changed = True
                break


__all__ = ["COVERED_RTOL", "canonical_dag"]
