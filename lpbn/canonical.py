"""A canonical choice among co-optimal DAGs, so the answer does not depend on which method or
process found it first.

:func:`canonical_dag` rewrites a DAG variable by variable (in index order, repeated until
nothing changes): each variable takes, among the cache's candidate parent sets with exactly
the same local score as its current one (the same float, so the total is unchanged) that keep
the graph acyclic, the lexicographically smallest (by parent indices; the empty set first).
The map is deterministic and idempotent, and it never lowers the score, so two methods that
return DAGs differing only in such ties print the same DAG.  Ties between whole graphs with
different local scores (e.g. Markov-equivalent DAGs under a score-equivalent score) are left as
they are: a rule over them would need the whole equivalence class.
"""

from __future__ import annotations

import numpy as np

from .cache import ScoreCache
from .result import DAG


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


def canonical_dag(cache: ScoreCache, dag: DAG) -> DAG:
    """The canonical DAG of ``dag``'s local-score ties in ``cache`` (module docstring); ``dag``
    itself when no variable has a tie (or a parent set is not a candidate)."""
    parents = [tuple(ps) for ps in dag.parents]
    if len(parents) != cache.n:
        return dag
    idx = np.array([_index_of(cache, v, ps) for v, ps in enumerate(parents)], dtype=np.int64)
    if np.any(idx < 0):
        return dag
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
    return dag if [tuple(p) for p in dag.parents] == parents else DAG(dag.names, parents)


__all__ = ["canonical_dag"]
