"""A checkable proof of a k-best list: no DAG outside it scores above its K-th (issue 54).

``lpbn solve --k-best K --certificate FILE`` writes the certificate format of
:mod:`lpbn.certificate` (checked by :mod:`lpbn.verify`, plain numpy) with ``"kind": "k-best"``:
a branch-and-bound tree over parent-set fixings whose every leaf is either

(a) bounded at or below the K-th score by eq. 8 of Jaakkola et al. 2010 (with Cussens et al.
    2017's k-cluster rows) over the leaf's candidates, at the root's λ referenced by the leaf
    (``"lambda_of"``: eq. 8 is valid for any λ >= 0, so one λ serves many leaves), at the leaf's
    own λ, at λ = 0 for a leaf fixed to one DAG (its own score), or with no DAG in its
    candidates; the candidates that the root's reduced-cost ``"fixing"`` removes are in no DAG
    above the K-th score; or
(b) fixed to exactly one DAG of the list (one candidate per variable).

Each split takes one variable i and one parent set s: the child ``"equals"`` keeps i's
candidates whose parent set is s, ``"differs"`` the others, so the two children partition the
node's DAGs and the leaves cover every DAG; the DAGs outside the list lie in (a)-leaves only.

How the tree is found: every node first tries the root λ of the dual's cluster LP
(:func:`lpbn.dual.solver.root_relaxation` on the dominance-pruned cache; valid for the full one)
over its candidates, O(m); if that does not close it, its own LP — the η LP over the node's
candidates with the cluster rows found so far, separated further at its point, as in
:func:`lpbn.highs.certify.certify_tree` — gives the node's λ from its sign-corrected row duals,
and the node's bound is eq. 8 recomputed from λ (never the LP's value).  A node still open
splits on its most fractional candidate; at an integral point (a listed DAG) the split isolates
that DAG one variable at a time, so each listed DAG costs about n nodes.  A node closes when its
bound is at most the K-th score plus the one optimality tolerance, when its LP is infeasible
(no DAG: the verifier checks that itself), or when it holds one listed DAG.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from ..result import OPTIMALITY_TOLERANCE, SolveResult, smallest_topological_order
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
    parents = [[p for p in cache.parents(int(fixed[i])) if fixed[p] >= 0] if fixed[i] >= 0 else []
               for i in range(cache.n)]
    return smallest_topological_order(parents) is None


def _rows(cache: ScoreCache, bits: np.ndarray, ks: np.ndarray):
    """The node LPs' model: the η LP over every candidate with the dual's clusters as rows."""
    import highspy

    from ..highs.certify import Rows
    from ..lp.model import EtaLP
    lp = EtaLP(cache, threads=1, presolve=False, column_upper=highspy.kHighsInf)
    rows = Rows(cache, lp)
    rows.add(bits, ks)
    return rows


def _fixing(cache: ScoreCache, vals: np.ndarray, const: float, target: float) -> tuple[np.ndarray, float]:
    """Reduced-cost fixing at the root λ (the certificate's ``"fixing"``, as in the dual's): a
    DAG that uses candidate j of variable i scores at most U(λ) - (max_s v_i(s) - v_j); the
    candidates whose such bound is below the K-th score leave every node (verify fixes them
    itself, at ``"below"`` = the K-th score less the optimality tolerance, so that rounding
    never fixes a listed DAG's candidate); the search keeps a candidate unless its bound is
    below by twice that, so verify fixes at least what the search left out.  Returns (the kept
    candidates, ``below``)."""
    best = np.maximum.reduceat(vals, cache.offsets[:-1])
    u = math.fsum(best.tolist()) - const
    if not (math.isfinite(u) and math.isfinite(target)):
        return np.ones(cache.m, dtype=bool), -math.inf
    per = u - (best[cache.family] - vals)
    tol = OPTIMALITY_TOLERANCE * max(1.0, abs(target))
    return ~(per < target - 2.0 * tol), target - tol


def _sparse(lam: np.ndarray, offset: int) -> dict[str, list]:
    idx = np.flatnonzero(np.asarray(lam) > 0)
    return {"clusters": [int(c) + offset for c in idx], "values": [float(x) for x in np.asarray(lam)[idx]]}


class _Search:
    """The search of the module docstring, recording the tree: each node first tries the root
    λ over its candidates (O(m)), then its own LP (η LP over the node's candidates with the
    cluster rows found so far, separated further at the node's point), whose sign-corrected
    row duals give the node's λ; the bound is eq. 8 recomputed from λ (never the LP value)."""

    def __init__(self, cache: ScoreCache, root_vals: np.ndarray, root_const: float, listed: set,
                 threshold: float, rows):
        self.cache, self.root_vals, self.root_const = cache, root_vals, root_const
        self.listed, self.threshold, self.rows = listed, threshold, rows
        self.nodes: list[dict[str, Any]] = []
        self.lams: dict[int, np.ndarray] = {}
        self.open_bound = -math.inf
        self.lp_nodes = 0

    def root_bound(self, allowed: np.ndarray) -> float:
        vals = np.where(allowed, self.root_vals, -np.inf)
        best = np.maximum.reduceat(vals, self.cache.offsets[:-1])
        if not np.all(np.isfinite(best)):
            return -math.inf
        return math.fsum(best.tolist()) - self.root_const

    def _branch(self, i: int, j: int, side: str) -> dict:
        cache = self.cache
        return {"variable": cache.names[i], "set": [cache.names[p] for p in sorted(cache.parents(j))],
                "side": side}

    def _fixed_leaf(self, node: dict, allowed: np.ndarray) -> None:
        """A node with one candidate per variable: listed, or bounded by its own score."""
        cache = self.cache
        choice = tuple(int(j) for j in np.flatnonzero(allowed))
        if choice in self.listed:
            node["listed"] = True
            return
        node["lambda"] = {"clusters": [], "values": []}       # λ = 0: the DAG's own score
        score = math.fsum(cache.scores[list(choice)].tolist())
        fixed = np.array(choice, dtype=np.int64)
        if score > self.threshold and not _cyclic(cache, fixed):
            raise InputError(f"the k-best list is not the K best: an unlisted DAG scores {score!r}, above "
                             f"the K-th ({self.threshold!r})")

    def _lp(self, nid: int, allowed: np.ndarray, deadline: float):
        """The node's LP rounds (as :func:`lpbn.highs.certify.certify_tree`): its best eq. 8
        bound and λ, and the LP point (None when infeasible or unsolved)."""
        from ..lp.separation import cheap_clusters, grown_clusters
        from ..highs.certify import ROUNDS_PER_NODE
        cache, rows, lp = self.cache, self.rows, self.rows.lp
        lp.restrict(allowed)
        self.lp_nodes += 1
        u, eta = math.inf, None
        for _ in range(ROUNDS_PER_NODE):
            left = deadline - time.perf_counter()
            sol = lp.solve_lp(max(0.0, left) if math.isfinite(left) else None)
            if sol.status == "infeasible":
                return -math.inf, None
            if sol.status != "optimal":
                break
            lam = np.maximum(0.0, -sol.row_dual[cache.n:])     # a >= row's dual is <= 0 (maximisation)
            b = rows.bound(lam, allowed)
            if b < u:
                u, self.lams[nid] = b, lam
            eta = np.where(allowed, np.maximum(sol.eta, 0.0), 0.0)
            if u <= self.threshold:
                break
            found = cheap_clusters(cache, eta) or grown_clusters(cache, eta)
            if not found or not rows.add(np.array(found), np.ones(len(found), dtype=np.int64)):
                break
        return u, eta

    def _split(self, allowed: np.ndarray, eta: np.ndarray | None) -> tuple[int, int]:
        """(variable, candidate) to split on: the most fractional LP value among variables with
        more than one candidate left; at an integral point (a DAG of the list, or cyclic) the
        first such variable's chosen candidate, which isolates that DAG step by step."""
        cache = self.cache
        counts = np.add.reduceat(allowed.astype(np.int64), cache.offsets[:-1])
        open_vars = np.flatnonzero(counts > 1)
        if eta is None:
            i = int(open_vars[0])
            lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
            return i, lo + int(np.argmax(np.where(allowed[lo:hi], self.root_vals[lo:hi], -np.inf)))
        frac = np.abs(eta - 0.5)
        frac[~allowed] = np.inf
        frac[np.isin(cache.family, open_vars, invert=True)] = np.inf
        j = int(np.argmin(frac))
        return int(cache.family[j]), j

    def run(self, deadline: float, domain: np.ndarray) -> bool:
        cache = self.cache
        stack: list[tuple] = [(None, None, domain.copy())]
        complete = True
        while stack:
            parent, branch, allowed = stack.pop()
            nid = len(self.nodes)
            node: dict[str, Any] = {"id": nid, "parent": parent}
            if branch is not None:
                node["branch"] = branch
            self.nodes.append(node)
            counts = np.add.reduceat(allowed.astype(np.int64), cache.offsets[:-1])
            if (counts == 1).all():
                self._fixed_leaf(node, allowed)
                continue
            if nid and self.root_bound(allowed) <= self.threshold:
                node["lambda_of"] = 0
                continue
            u, eta = self._lp(nid, allowed, deadline) if time.perf_counter() < deadline else (math.inf, None)
            if u <= self.threshold:
                continue
            if time.perf_counter() >= deadline:
                complete = False
                self.open_bound = max(self.open_bound, min(u, self.root_bound(allowed)))
                node["lambda_of"] = 0          # an open leaf: verify takes the least of both bounds
                continue
            i, j = self._split(allowed, eta)
            lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
            same = np.zeros(cache.m, dtype=bool)
            same[lo:hi] = cache.masks[lo:hi] == cache.masks[j]
            stack.append((nid, self._branch(i, j, "differs"), allowed & ~same))
            stack.append((nid, self._branch(i, j, "equals"), allowed & (same | (cache.family != i))))
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
    search = _Search(cache, vals, const, listed, threshold, _rows(cache, bits, ks))
    kept, below = _fixing(cache, vals, const, target)
    complete = search.run(deadline, kept)
    rows = search.rows
    all_bits, all_k = np.vstack([bits, rows.bits]), np.concatenate([ks, rows.k])
    offset = len(lam)            # the root's λ refers to the dual's clusters, the LP nodes' to the rows after
    search.nodes[0]["lambda"] = _sparse(lam, 0)
    for nid, node_lam in search.lams.items():
        if nid:
            search.nodes[nid]["lambda"] = _sparse(node_lam, offset)
    # (the root keeps the dual's λ: the leaves marked "lambda_of": 0 were closed with it)
    clusters = [{"members": [cache.names[v] for v in range(cache.n)
                             if int(row[v >> 6]) >> (v & 63) & 1], "k": int(kk)} for row, kk in zip(all_bits, all_k)]
    cert = {"format": FORMAT, "version": VERSION, "kind": "k-best", "about": ABOUT, "method": result.method,
            "cache": cache_fingerprint(cache), "candidates": "all",
            "kbest": {"k": k, "listed": len(sols), "kth_score": kth},
            "bound": (target if complete else max(target, search.open_bound)) if math.isfinite(target) else None,
            "covers": "tree" if complete else "partial", "status": result.status,
            "score": float(result.score), "clusters": clusters, "nodes": search.nodes,
            **({"fixing": [{"lambda": _sparse(lam, 0), "below": below}]} if math.isfinite(below) else {})}
    result.extra = dict(result.extra or {}, certificate_kbest=cert)
    result.stats = dict(result.stats or {})
    result.stats["certificate_by"] = {"method": "k-best tree", "nodes": len(search.nodes), "complete": complete,
                                      "lp_nodes": search.lp_nodes, "fixed": int((~kept).sum()),
                                      "seconds": round(time.perf_counter() - t0, 3)}
    return cert


__all__ = ["kbest_certificate"]
