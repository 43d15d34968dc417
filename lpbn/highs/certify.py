"""A checkable proof of the ``highs`` method's bound: an LP branch and bound that records it.

HiGHS proves its MIP bound with its own search tree, cuts and presolve, none of which it
exports, so the row duals of one LP (:func:`lpbn.highs.ilp._lp_certificate`) prove only the
LP's bound.  When that is not enough, :func:`certify_tree` proves the reported bound again,
with nothing but LPs whose duals give eq. 8 bounds (Jaakkola et al. 2010; with the k-cluster
rows of Cussens et al. 2017), and records the proof in the format
:mod:`lpbn.certificate` writes and :mod:`lpbn.verify` checks:

* a node is a restriction of the candidates (the root: all of them); its LP is the η LP
  (eq. 7) over the model's cluster and k-cluster rows, with the excluded candidates fixed
  to 0.  Its cluster-row duals λ >= 0 give U(λ) (eq. 8 over the node's candidates), a bound
  on every DAG of the node, evaluated here from λ alone (not from the LP's value);
* while U(λ) is above the bound to prove, violated clusters at the LP point are separated
  (support-graph components and cycles, greedy growth; they are valid for every DAG, so
  they join the one cluster list that every node's λ refers to) and the LP is re-solved;
* then the node splits on one variable i and one parent p whose LP mass over i's parent
  sets is the most fractional: the parent sets of i that contain p, and those that do not
  (both sides non-empty, so the search is finite).  An infeasible node LP means that no DAG
  lies in the node (every DAG satisfies every cluster row); the verifier checks that.

The search is depth first (the bound to prove is known, so the order only affects memory)
and stops at ``time_limit`` (the root is always solved); an unfinished tree still bounds every DAG by the largest
bound of its open leaves (reported, never claimed as the solver's bound).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import highspy
import numpy as np

from ..cache import ScoreCache
from ..lp.clusters import cluster_rows_csr, unseen_rows
from ..lp.model import EtaLP
from ..lp.separation import cheap_clusters, grown_clusters
from ..result import OPTIMALITY_TOLERANCE
from .branching import meets_parent, strong_edge_split
from ..tuning import CERTIFY_ROUNDS_PER_NODE as ROUNDS_PER_NODE

#: a node is closed when U(λ) <= target + CLOSE_RTOL * max(1, |target|) (verify allows 2e-9):
#: the one optimality tolerance (lpbn.bound, docs/trust.md)
CLOSE_RTOL = OPTIMALITY_TOLERANCE


@dataclass
class TreeProof:
    """The recorded search: ``tree`` in :mod:`lpbn.certificate`'s ``certificate_tree`` form;
    ``complete`` when every leaf is closed; ``bound`` the largest open-leaf bound (−inf when
    complete: the target is then what it proves); ``closed_bound`` the largest bound of a
    closed leaf (at most the target's closing threshold; what a complete tree proves exactly);
    ``nodes`` evaluated, ``seconds``."""

    tree: dict
    complete: bool
    bound: float
    closed_bound: float = -math.inf
    nodes: int = 0
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)


class _Rows:
    """The cluster list (bits, k) in model-row order, with each row's candidates (CSR)."""

    def __init__(self, cache: ScoreCache, lp: EtaLP):
        self.cache, self.lp = cache, lp
        self.bits = np.zeros((0, cache.words), dtype=np.uint64)
        self.k = np.zeros(0, dtype=np.int64)
        self.ptr = np.zeros(1, dtype=np.int64)
        self.idx = np.zeros(0, dtype=np.int64)
        self.seen: set[tuple[bytes, int]] = set()

    def add(self, bits: np.ndarray, ks: np.ndarray) -> int:
        bits = np.asarray(bits, dtype=np.uint64).reshape(-1, self.cache.words)
        keep = unseen_rows(bits, ks, self.seen)
        if not keep:
            return 0
        bits, ks = bits[keep], np.asarray(ks, dtype=np.int64)[keep]
        ptr, idx = cluster_rows_csr(self.cache, bits, ks)
        self.lp.add_rows(ptr, idx, ks, kind="cluster")
        self.bits = np.vstack([self.bits, bits])
        self.k = np.concatenate([self.k, ks])
        self.ptr = np.concatenate([self.ptr, self.ptr[-1] + ptr[1:]])
        self.idx = np.concatenate([self.idx, idx])
        return len(keep)

    def bound(self, lam: np.ndarray, allowed: np.ndarray) -> float:
        """U(λ) of eq. 8 over the ``allowed`` candidates (−inf when a variable has none)."""
        cache = self.cache
        adj = np.zeros(cache.m)
        if len(lam):
            np.add.at(adj, self.idx, np.repeat(lam, np.diff(self.ptr)))
        vals = np.where(allowed, cache.scores + adj, -np.inf)
        best = np.maximum.reduceat(vals, cache.offsets[:-1])
        if not np.all(np.isfinite(best)):
            return -math.inf
        return float(math.fsum(best.tolist()) - math.fsum((self.k * lam).tolist()))


def certify_tree(cache: ScoreCache, bits: np.ndarray, ks: np.ndarray, target: float, *,
                 time_limit: float | None = None, threads: int = 1,
                 candidates: str = "non-dominated") -> TreeProof:
    """Prove that no DAG over ``cache`` scores above ``target`` by an LP branch and bound
    over the cluster rows ``bits`` (k-cluster orders ``ks``), recording every node's λ."""
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + max(0.0, float(time_limit))
    lp = EtaLP(cache, threads=threads, presolve=False, column_upper=highspy.kHighsInf)
    rows = _Rows(cache, lp)
    rows.add(bits, ks)
    n, m = cache.n, cache.m
    threshold = target + CLOSE_RTOL * max(1.0, abs(target))
    nodes: dict[int, tuple] = {}
    lams: dict[int, np.ndarray] = {}
    stack: list[tuple[int, int | None, tuple | None, np.ndarray, float]] = [
        (0, None, None, np.ones(m, dtype=np.bool_), math.inf)]
    next_id, evaluated, open_bound, closed_bound, cuts = 1, 0, -math.inf, -math.inf, 0
    while stack:
        nid, parent, branch, allowed, inherited = stack.pop()
        nodes[nid] = (parent, branch)
        if nid and time.perf_counter() >= deadline:    # the root is always evaluated
            open_bound = max(open_bound, inherited)
            continue
        lp.restrict(allowed)
        evaluated += 1
        u, eta = math.inf, None
        for _ in range(ROUNDS_PER_NODE):
            left = deadline - time.perf_counter()
            sol = lp.solve_lp(max(0.0, left) if nid and math.isfinite(left) else None)
            if sol.status == "infeasible":
                u, eta = -math.inf, None
                break
            if sol.status != "optimal":
                break
            lam = np.maximum(0.0, -sol.row_dual[n:])     # a >= row's dual is <= 0 (maximisation)
            b = rows.bound(lam, allowed)
            if b < u:
                u, lams[nid] = b, lam
            eta = np.where(allowed, np.maximum(sol.eta, 0.0), 0.0)
            if u <= threshold:
                break
            found = cheap_clusters(cache, eta) or grown_clusters(cache, eta)
            added = rows.add(np.array(found), np.ones(len(found), dtype=np.int64)) if found else 0
            cuts += added
            if not added:
                break
        u = min(u, inherited)
        if u <= threshold:
            closed_bound = max(closed_bound, u)
            continue
        split = strong_edge_split(cache, lp, eta, allowed, u, threshold) if eta is not None else None
        if split is None or time.perf_counter() >= deadline:   # out of time, or integral above the target
            open_bound = max(open_bound, u)
            continue
        i, p = split
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        has = meets_parent(cache, i, p)
        row = np.zeros(cache.words, dtype=np.uint64)
        row[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        for disjoint in (True, False):
            sub = allowed.copy()
            sub[lo:hi] &= ~has if disjoint else has
            stack.append((next_id, nid, (i, row.tobytes(), 1 if disjoint else 0), sub, u))
            next_id += 1
    # pad λ to the final cluster list (rows added after a node was solved have λ = 0 there)
    K = len(rows.k)
    lams = {nid: np.concatenate([lam, np.zeros(K - len(lam))]) for nid, lam in lams.items()}
    tree = {"clusters": rows.bits, "k": rows.k, "nodes": nodes, "lambda": lams, "candidates": candidates}
    complete = open_bound == -math.inf
    return TreeProof(tree, complete, open_bound, closed_bound, evaluated, time.perf_counter() - t0,
                     {"certificate_nodes": evaluated, "certificate_clusters_added": cuts})


#: the cluster rows with their eq. 8 evaluator, for other recorded LP trees (lpbn.kbest.certify)
Rows = _Rows
