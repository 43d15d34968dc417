"""Markov equivalence classes for ``k_best`` with ``classes=True``.

Two DAGs are Markov equivalent iff they have the same skeleton and the same v-structures
(Verma & Pearl 1990); :func:`lpbn.kbest.collect.class_keys` turns that into a key, and the
engines list one representative DAG per class, best first.  The class is shown as its CPDAG
(the essential graph): the v-structures oriented, then Meek's rules R1–R3 to a fixpoint (Meek
1995; Chickering 2002), every other arc undirected.

The k best classes are well defined only for a score-equivalent score (every DAG of a class
scores the same): BIC/MDL, AIC and BDeu are; :func:`check_score_equivalent` refuses caches
that say they hold another score, and caches that do not say, when two of their families
break score equivalence.
"""

from __future__ import annotations

from ..cache import ScoreCache
from ..errors import InputError

#: scores lpbn knows to be score equivalent (lower case, as in meta["score"] / pss score_type)
EQUIVALENT = {"bic", "mdl", "bdeu", "aic", "bde", "ll", "loglik"}
NOT_EQUIVALENT = {"k2", "bd", "fnml", "qnml", "bdu", "bds", "sc", "nml"}


def check_score_equivalent(cache: ScoreCache) -> str:
    """Return a note on how score equivalence was established, or raise :class:`InputError`."""
    kind = str(cache.meta.get("score") or cache.meta.get("score_type") or "").strip().lower()
    if kind in EQUIVALENT:
        return f"score {kind} is score equivalent"
    if kind in NOT_EQUIVALENT or kind:
        raise InputError(f"--classes needs a score-equivalent score (BIC, MDL, BDeu): the cache holds "
                         f"{kind!r} scores, under which Markov-equivalent DAGs score differently, so "
                         "'the k best classes' is not defined; list the k best DAGs instead")
    # unknown: test every pair a, b whose families {}, {b} (of a) and {}, {a} (of b) are present
    tested = 0
    for a in range(cache.n):
        ea = cache.local_score(a, ())
        if ea is None:
            continue
        for b in range(a + 1, cache.n):
            eb = cache.local_score(b, ())
            ab = cache.local_score(b, (a,))
            ba = cache.local_score(a, (b,))
            if eb is None or ab is None or ba is None:
                continue
            tested += 1
            lhs, rhs = ab + ea, ba + eb
            if abs(lhs - rhs) > 1e-6 * max(1.0, abs(lhs)):
                raise InputError(
                    f"--classes needs a score-equivalent score (BIC, MDL, BDeu): in this cache "
                    f"{cache.names[a]} -> {cache.names[b]} scores {lhs:.6f} but {cache.names[b]} -> "
                    f"{cache.names[a]} scores {rhs:.6f}, so Markov-equivalent DAGs score differently")
    if tested == 0:
        return "score type unknown and no pair of families to test score equivalence with; assumed"
    return f"score type unknown; score equivalence checked on {tested} variable pairs"


def cpdag(parents: list[tuple[int, ...]] | tuple[tuple[int, ...], ...]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(directed arcs (a, b) meaning a -> b, undirected edges (a, b) with a < b) of the CPDAG of
    the DAG given by its parent sets."""
    n = len(parents)
    pa = [set(ps) for ps in parents]
    adj = [set() for _ in range(n)]
    for c, ps in enumerate(pa):
        for p in ps:
            adj[c].add(p)
            adj[p].add(c)
    directed: set[tuple[int, int]] = set()
    for c in range(n):
        ps = sorted(pa[c])
        for i, a in enumerate(ps):
            for b in ps[i + 1:]:
                if b not in adj[a]:
                    directed.add((a, c))
                    directed.add((b, c))
    undirected = {(min(p, c), max(p, c)) for c in range(n) for p in pa[c]
                  if (p, c) not in directed}

    def is_dir(a, b):
        return (a, b) in directed

    def is_und(a, b):
        return (min(a, b), max(a, b)) in undirected

    def orient(a, b):
        undirected.discard((min(a, b), max(a, b)))
        directed.add((a, b))

    changed = True
    while changed:
        changed = False
        for (x, y) in sorted(undirected):
            for a, b in ((x, y), (y, x)):
                if not is_und(a, b):
                    break
                # R1: c -> a - b, c not adjacent to b  =>  a -> b
                if any(is_dir(c, a) and b not in adj[c] and c != b for c in adj[a]):
                    orient(a, b)
                    changed = True
                    break
                # R2: a -> c -> b and a - b  =>  a -> b
                if any(is_dir(a, c) and is_dir(c, b) for c in adj[a] & adj[b]):
                    orient(a, b)
                    changed = True
                    break
                # R3: a - c -> b, a - d -> b, c, d non-adjacent, a - b  =>  a -> b
                cs = [c for c in adj[a] & adj[b] if is_und(a, c) and is_dir(c, b)]
                if any(d not in adj[c] for i, c in enumerate(cs) for d in cs[i + 1:]):
                    orient(a, b)
                    changed = True
                    break
    return sorted(directed), sorted(undirected)


def class_size(parents, limit: int = 20) -> int | None:
    """Number of DAGs in the class (consistent extensions of the CPDAG), counted by trying the
    orientations of the undirected edges when there are at most ``limit`` of them; else None."""
    directed, undirected = cpdag(parents)
    if len(undirected) > limit:
        return None
    import numpy as np

    from .collect import class_keys
    n = len(parents)
    target = class_keys(_masks(parents)[None, :])[0].tobytes()
    count = 0
    for bits in range(1 << len(undirected)):
        pa = [0] * n
        for a, b in directed:
            pa[b] |= 1 << a
        for t, (a, b) in enumerate(undirected):
            if (bits >> t) & 1:
                pa[a] |= 1 << b
            else:
                pa[b] |= 1 << a
        arr = np.array(pa, dtype=np.uint64)
        if not _acyclic(pa):
            continue
        if class_keys(arr[None, :])[0].tobytes() == target:
            count += 1
    return count


def _masks(parents):
    import numpy as np
    return np.array([sum(1 << p for p in ps) for ps in parents], dtype=np.uint64)


def _acyclic(pa: list[int]) -> bool:
    n = len(pa)
    placed = 0
    for _ in range(n):
        moved = False
        for i in range(n):
            if not (placed >> i) & 1 and (pa[i] & ~placed) == 0:
                placed |= 1 << i
                moved = True
        if not moved:
            break
    return placed == (1 << n) - 1


__all__ = ["check_score_equivalent", "class_size", "cpdag"]
