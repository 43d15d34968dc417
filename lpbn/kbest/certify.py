"""A checkable proof of a k-best list: no DAG outside it scores above its K-th (issue 54).

``lpbn solve --k-best K --certificate FILE`` writes the certificate format of
:mod:`lpbn.certificate` (checked by :mod:`lpbn.verify`, plain numpy) with ``"kind": "k-best"``:
a branch-and-bound tree over parent-set fixings whose every leaf is either

(a) bounded at or below the K-th score by eq. 8 of Jaakkola et al. 2010 (with Cussens et al.
    2017's k-cluster rows) over the leaf's candidates, at one λ >= 0 stored at the root and
    referenced by the leaf (``"lambda_of"``: valid for any λ, so one λ serves every leaf), or at
    λ = 0 for a leaf fixed to one DAG (its own score), or with no DAG in its candidates; or
(b) fixed to exactly one DAG of the list (one candidate per variable).

Each split takes one variable i and one parent set s: the child ``"equals"`` keeps i's
candidates whose parent set is s, ``"differs"`` the others, so the two children partition the
node's DAGs and the leaves cover every DAG; the DAGs outside the list lie in (a)-leaves only.

How the tree is found: with the root λ of the dual's cluster LP (:func:`lpbn.dual.solver.
root_relaxation` on the dominance-pruned cache; valid for the full one) every candidate j of
variable i has the value v_j = W_i(s_j) + Σ_{C ∋ i, |s_j ∩ C| < k_C} λ_C, and a node's bound is
Σ_i max_{allowed j} v_j − Σ_C k_C λ_C.  Each variable's candidates are sorted by v, so a node is
a per-variable pointer (the "differs" children exclude a prefix) or a fixed candidate, and its
bound costs O(n).  The search splits the unfixed variable whose best and second-best values
differ most (its "differs" child is the likeliest to close at once), closes a node whose bound
is at most the K-th score (plus the one optimality tolerance), and a node whose fixed families
close a directed cycle (no DAG: the verifier checks that itself).  It is Lawler's enumeration
by reduced costs, run until every node is closed or listed.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from ..result import OPTIMALITY_TOLERANCE, SolveResult
from ..verify import FORMAT, VERSION, cache_fingerprint

ABOUT = ("K-best certificate: the 'solutions' of the result are the listed DAGs; every DAG not listed "
         "scores at most the bound. The tree's splits take one variable's candidates whose parent set "
         "equals 'branch.set' ('side': 'equals') or not ('differs'), or meets / misses it (as in the "
         "single-bound certificate). A leaf with exactly one candidate per variable whose DAG is listed "
         "is excluded; every other leaf is bounded by eq. 8 (Jaakkola et al. 2010) at the lambda of "
         "node 'lambda_of' (or its own 'lambda'; none: lambda = 0) over the leaf's candidates, or -inf "
         "if they admit no DAG.")


def _lambda(cache: ScoreCache, time_limit: float | None):
    """The root λ of the dual's cluster LP (clusters with λ > 0 as bitsets, k and λ), and the
    value v_j of every candidate and the constant Σ k_C λ_C of eq. 8."""
    from ..dual.solver import root_relaxation
    from ..lp.clusters import cluster_rows_csr
    rr = root_relaxation(cache.prune_dominated(), time_limit=time_limit)
    pos = np.asarray(rr.lam) > 0
    bits = np.asarray(rr.cluster_bits, dtype=np.uint64).reshape(len(pos), cache.words)[pos]
    ks, lam = np.asarray(rr.cluster_k, dtype=np.int64)[pos], np.asarray(rr.lam, dtype=np.float64)[pos]
    adj = np.zeros(cache.m)
    if len(lam):
        ptr, idx = cluster_rows_csr(cache, bits, ks)
        np.add.at(adj, idx, np.repeat(lam, np.diff(ptr)))
    return bits, ks, lam, cache.scores + adj, math.fsum((ks * lam).tolist())


def _listed_choices(cache: ScoreCache, solutions: list[dict]) -> tuple[set[tuple[int, ...]], float]:
    """The listed DAGs as tuples of candidate indices, and the smallest listed score."""
    where = {}
    for j in range(cache.m):
        where[(int(cache.family[j]), tuple(sorted(cache.parents(j))))] = j
    index = {v: i for i, v in enumerate(cache.names)}
    listed, kth = set(), math.inf
    for sol in solutions:
        choice = tuple(where[(i, tuple(sorted(index[p] for p in sol["parents"][v])))]
                       for i, v in enumerate(cache.names))
        listed.add(choice)
        kth = min(kth, float(sol["score"]))
    return listed, kth


def _cyclic(cache: ScoreCache, fixed: np.ndarray) -> bool:
    """Whether the fixed families (fixed[i] >= 0) close a directed cycle among themselves."""
    parents = {i: [p for p in cache.parents(int(fixed[i])) if fixed[p] >= 0]
               for i in range(cache.n) if fixed[i] >= 0}
    indeg = {i: len(ps) for i, ps in parents.items()}
    children: dict[int, list[int]] = {i: [] for i in parents}
    for i, ps in parents.items():
        for p in ps:
            children[p].append(i)
    ready = [i for i, d in indeg.items() if d == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    return seen < len(parents)


class _Search:
    """The enumeration of the module docstring, recording the tree."""

    def __init__(self, cache: ScoreCache, vals: np.ndarray, const: float, listed: set, threshold: float):
        self.cache, self.vals, self.const = cache, vals, const
        self.listed, self.threshold = listed, threshold
        self.order = [int(cache.offsets[i]) + np.argsort(-vals[cache.offsets[i]:cache.offsets[i + 1]],
                                                         kind="stable")
                      for i in range(cache.n)]
        self.nodes: list[dict[str, Any]] = []
        self.open_bound = -math.inf

    def bound(self, ptr: np.ndarray, fixed: np.ndarray) -> float:
        tops = []
        for i in range(self.cache.n):
            if fixed[i] >= 0:
                tops.append(self.vals[fixed[i]])
            elif ptr[i] >= len(self.order[i]):
                return -math.inf
            else:
                tops.append(self.vals[self.order[i][ptr[i]]])
        return math.fsum(tops) - self.const

    def _split_variable(self, ptr: np.ndarray, fixed: np.ndarray) -> int:
        best, gap_best = -1, -math.inf
        for i in range(self.cache.n):
            if fixed[i] >= 0:
                continue
            o, p = self.order[i], ptr[i]
            gap = math.inf if p + 1 >= len(o) else self.vals[o[p]] - self.vals[o[p + 1]]
            if gap > gap_best:
                best, gap_best = i, gap
        return best

    def _branch(self, i: int, j: int, side: str) -> dict:
        cache = self.cache
        return {"variable": cache.names[i], "set": [cache.names[p] for p in sorted(cache.parents(j))],
                "side": side}

    def _leaf(self, node: dict, ptr: np.ndarray, fixed: np.ndarray) -> bool:
        """Close ``node`` if it is a leaf (recording how); False when it must split."""
        cache = self.cache
        if (fixed >= 0).all():
            choice = tuple(int(j) for j in fixed)
            if choice in self.listed:
                node["listed"] = True
                return True
            node["lambda"] = {"clusters": [], "values": []}       # λ = 0: the DAG's own score
            score = math.fsum(cache.scores[list(choice)].tolist())
            if score > self.threshold and not _cyclic(cache, fixed):
                raise InputError(f"the k-best list is not the K best: an unlisted DAG scores {score!r}, above "
                                 f"the K-th ({self.threshold!r})")
            return True
        u = self.bound(ptr, fixed)
        if u <= self.threshold or _cyclic(cache, fixed):
            node["lambda_of"] = 0
            return True
        return False

    def run(self, deadline: float) -> bool:
        n = self.cache.n
        stack = [(None, None, np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int64))]
        complete = True
        while stack:
            parent, branch, ptr, fixed = stack.pop()
            nid = len(self.nodes)
            node: dict[str, Any] = {"id": nid, "parent": parent}
            if branch is not None:
                node["branch"] = branch
            self.nodes.append(node)
            if self._leaf(node, ptr, fixed):
                continue
            if time.perf_counter() >= deadline:
                complete = False
                node["lambda_of"] = 0
                self.open_bound = max(self.open_bound, self.bound(ptr, fixed))
                continue
            i = self._split_variable(ptr, fixed)
            j = int(self.order[i][ptr[i]])
            differs = ptr.copy()
            differs[i] += 1
            equals = fixed.copy()
            equals[i] = j
            stack.append((nid, self._branch(i, j, "differs"), differs, fixed))
            stack.append((nid, self._branch(i, j, "equals"), ptr, equals))
        return complete


def kbest_certificate(cache: ScoreCache, result: SolveResult, time_limit: float | None = None) -> dict[str, Any]:
    """The k-best certificate of ``result`` (``lpbn.solve(cache, k_best=K)``, status
    ``optimal``, DAGs not classes) over ``cache`` as the user has it; ``covers: "partial"``
    when the search did not finish within ``time_limit`` (verify then names the open leaves'
    bound and fails).  Also kept as ``result.extra["certificate_kbest"]`` for
    :func:`lpbn.certificate.write_certificate`."""
    sols = getattr(result, "solutions", None)
    if not sols:
        raise InputError("no k-best list to certify (solve with k_best=K)")
    if result.stats.get("classes"):
        raise InputError("k-best certificates cover lists of DAGs, not of equivalence classes")
    if result.status != "optimal":
        raise InputError(f"the k-best list is not proven (status {result.status}): nothing to certify")
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + float(time_limit)
    listed, kth = _listed_choices(cache, sols)
    k = int(result.stats.get("k", len(sols)))
    target = kth if len(sols) >= k else -math.inf    # fewer than K DAGs: no other DAG exists
    threshold = target + OPTIMALITY_TOLERANCE * max(1.0, abs(target)) if math.isfinite(target) else target
    lp_time = None if time_limit is None else max(1.0, 0.2 * float(time_limit))
    bits, ks, lam, vals, const = _lambda(cache, lp_time)
    search = _Search(cache, vals, const, listed, threshold)
    complete = search.run(deadline)
    search.nodes[0]["lambda"] = {"clusters": list(range(len(lam))), "values": [float(x) for x in lam]}
    clusters = [{"members": [cache.names[v] for v in range(cache.n)
                             if int(row[v >> 6]) >> (v & 63) & 1], "k": int(kk)} for row, kk in zip(bits, ks)]
    cert = {"format": FORMAT, "version": VERSION, "kind": "k-best", "about": ABOUT, "method": result.method,
            "cache": cache_fingerprint(cache), "candidates": "all",
            "kbest": {"k": k, "listed": len(sols), "kth_score": kth},
            "bound": (target if complete else max(target, search.open_bound)) if math.isfinite(target) else None,
            "covers": "tree" if complete else "partial", "status": result.status,
            "score": float(result.score), "clusters": clusters, "nodes": search.nodes}
    result.extra = dict(result.extra or {}, certificate_kbest=cert)
    result.stats = dict(result.stats or {})
    result.stats["certificate_by"] = {"method": "k-best tree", "nodes": len(search.nodes), "complete": complete,
                                      "seconds": round(time.perf_counter() - t0, 3)}
    return cert


__all__ = ["kbest_certificate"]
