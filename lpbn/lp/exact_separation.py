"""Exact separation of cluster constraints (Jaakkola et al. 2010, eq. 6).

At a fractional point η*, a violated cluster is found exactly — or proved not to exist —
inside each strongly connected component of the support graph of η* (a violated cluster
lies within one: its source component is violated too):

* components of at most ENUM_MAX_VARIABLES variables by exact enumeration, a branch and
  bound over subsets (at most ENUM_MAX_NODES nodes);
* otherwise the sub-IP of Bartlett & Cussens (AIJ 2017, §5): binary I(v) per variable and
  J(W->v) per candidate with η*>0, ``max Σ η*(W->v) J(W->v) - Σ_v I(v)`` s.t.
  ``J(W->v) <= I(v)``, ``J(W->v) <= Σ_{w∈W} I(w)``, ``Σ I(v) >= 2``, objective ``> -1``.
  An optimal I is a cluster C whose eq. 6 activity is ``-objective``, so C is violated iff
  objective > -1; infeasibility proves no cluster is violated.  Solved with HiGHS MIP.

The heuristic routines (support-graph components and cycles, greedy growth, k-clusters) are
in :mod:`lpbn.lp.separation`; :func:`lpbn.lp.cut_loop.cut_loop` uses both.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np

from .. import bitsets as bs
from ..cache import ScoreCache
from ..signals import pending
from .clusters import cluster_activity
from .highs_session import new_highs, run as run_highs
from . import numpy_kernels
from .numpy_kernels import use_numpy
from .separation import SUPPORT_TOL, VIOLATION_TOL, edge_marginals, strong_components
from ..tuning import SUBIP_MAX_SOLS, ENUM_MAX_NODES, NUMPY_ENUM_MAX_NODES

#: Components up to this size are first searched by exact enumeration (branch and bound
#: over subsets, at most ENUM_MAX_NODES nodes) before the HiGHS sub-IP is used.
ENUM_MAX_VARIABLES = 63


@dataclass
class SubIPStats:
    solves: int = 0
    enumerated: int = 0
    seconds: float = 0.0
    last_status: str = ""
    timed_out: bool = False


def exact_clusters(cache: ScoreCache, eta: np.ndarray, tol: float = VIOLATION_TOL,
                   max_cuts: int = 3, time_limit: float | None = None,
                   stats: SubIPStats | None = None) -> list[np.ndarray]:
    """Violated clusters found exactly: by enumeration, else the Bartlett & Cussens (2017) sub-IP.

    The sub-IP is solved separately inside each strongly connected component of the
    support graph of η*: if C is violated, a source component K of the support graph
    induced on C satisfies Σ_{i∈K} a_i(K) = Σ_{i∈K} a_i(C) < 1 (a_i = mass of parent sets
    disjoint from the cluster), so K is violated and lies inside one SCC.  Every improving
    solution HiGHS finds is a violated cluster (the objective row demands > -1); up to
    ``max_cuts`` are returned, most violated first.  An empty list means that no cluster
    is violated by more than ``tol`` — unless ``stats.timed_out`` is set.

    Components of at most ``ENUM_MAX_VARIABLES`` variables are first searched by
    :func:`_enumerate_component` (exact branch and bound over subsets with a node budget);
    the sub-IP runs only where that search neither finds a cluster nor completes.
    """
    stats = stats if stats is not None else SubIPStats()
    t0 = time.perf_counter()
    eta = np.asarray(eta, dtype=np.float64)
    mu = edge_marginals(cache, eta)
    comps = sorted(strong_components(mu > SUPPORT_TOL), key=len)
    found: list[np.ndarray] = []
    for comp in comps:
        left = None
        if pending() is not None:       # a stop request (SIGINT/SIGTERM): no proof
            stats.timed_out = True
            break
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - t0)
            if left <= 0:
                stats.timed_out = True
                break
        cuts, complete = _enumerate_component(cache, eta, comp, tol) \
            if len(comp) <= ENUM_MAX_VARIABLES else ([], False)
        if cuts or complete:
            stats.enumerated += 1
            found += cuts
        else:
            found += _subip_component(cache, eta, comp, tol, left, stats)
    stats.seconds += time.perf_counter() - t0
    if not found:
        return []
    bits = np.array(found)
    act = cluster_activity(cache, eta, bits)
    # every sub-IP point is violated by >= tol in exact arithmetic; filter at tol/2 so that
    # rounding cannot drop it, and never read an empty result as a proof after that
    keep = [k for k in np.argsort(act, kind="stable") if act[k] < 1.0 - 0.5 * tol]
    return [bits[k] for k in keep[:max_cuts]]


def _enumerate_component(cache: ScoreCache, eta: np.ndarray, comp: np.ndarray, tol: float,
                         max_found: int = 10) -> tuple[list[np.ndarray], bool]:
    """Violated clusters inside one support-graph component by branch and bound over subsets.

    The same problem as the sub-IP (minimise the eq. 6 activity over C ⊆ comp, |C| >= 2),
    solved combinatorially: variables are decided in turn, and a partial decision with
    members IN and undecided FREE is pruned when Σ_{i∈IN} a_i(IN ∪ FREE) >= 1 - tol, a lower
    bound on the activity of every completion (a_i(C), the mass of i's parent sets
    disjoint from C, only shrinks as C grows).  Returns ``(clusters, complete)``; complete
    is False when the node budget ran out, in which case an empty list proves nothing.
    """
    k = len(comp)
    local = np.full(cache.n, -1, dtype=np.int64)
    local[comp] = np.arange(k)
    sup = np.flatnonzero((eta > SUPPORT_TOL) & (local[cache.family] >= 0))
    if len(sup) == 0 or k < 2:
        return [], True
    sizes = cache.sizes[sup].astype(np.int64)
    items = cache.pset_items[np.repeat(cache.pset_ptr[sup], sizes)
                             + (np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes))]
    lit = local[items]
    owner = np.repeat(np.arange(len(sup)), sizes)
    pmask = np.zeros(len(sup), dtype=np.uint64)
    inside = lit >= 0
    np.bitwise_or.at(pmask, owner[inside], np.left_shift(np.uint64(1), lit[inside].astype(np.uint64)))
    args = (k, local[cache.family[sup]], pmask, eta[sup], 1.0 - tol)
    if use_numpy(cache.n):
        masks, complete = numpy_kernels.enum_subsets(*args, NUMPY_ENUM_MAX_NODES, max_found)
    else:
        from .kernels import enum_subsets
        masks, complete = enum_subsets(*args, ENUM_MAX_NODES, max_found)
    out = [bs.to_bitset(comp[[v for v in range(k) if (int(mk) >> v) & 1]], cache.n) for mk in masks]
    return out, complete


def _subip_component(cache: ScoreCache, eta: np.ndarray, comp: np.ndarray, tol: float,
                     time_limit: float | None, stats: SubIPStats) -> list[np.ndarray]:
    """The sub-IP restricted to one SCC ``comp`` of the support graph (local y indices)."""
    n = cache.n
    local = np.full(n, -1, dtype=np.int64)
    local[comp] = np.arange(len(comp))
    k_y = len(comp)
    # candidates with η*>0 of a family in comp whose parent set meets comp
    cand = np.flatnonzero((eta > SUPPORT_TOL) & (cache.sizes > 0) & (local[cache.family] >= 0))
    if len(cand) == 0:
        return []
    sizes = cache.sizes[cand].astype(np.int64)
    items = cache.pset_items[np.repeat(cache.pset_ptr[cand], sizes)
                             + (np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes))]
    lit = local[items]
    inside = lit >= 0
    row_of = np.repeat(np.arange(len(cand)), sizes)
    cnt = np.bincount(row_of[inside], minlength=len(cand))
    ok = cnt > 0
    if not ok.any():
        return []
    keep_items = inside & ok[row_of]
    sel = cand[ok]
    cnt = cnt[ok]
    lit = lit[keep_items]
    k = len(sel)
    h = new_highs()
    h.setOptionValue("random_seed", 0)
    h.setOptionValue("mip_rel_gap", 1e-4)
    h.setOptionValue("mip_improving_solution_save", True)
    if SUBIP_MAX_SOLS is not None:
        h.setOptionValue("mip_max_improving_sols", int(SUBIP_MAX_SOLS))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(max(time_limit, 1e-3)))
    # columns: y (k_y), then J_t (k)
    cost = np.concatenate([-np.ones(k_y), eta[sel]])
    ncol = k_y + k
    h.addCols(ncol, cost, np.zeros(ncol), np.ones(ncol), 0, np.zeros(ncol, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                            np.full(ncol, int(highspy.HighsVarType.kInteger), dtype=np.uint8))
    h.changeObjectiveSense(highspy.ObjSense.kMaximize)
    jcol = (k_y + np.arange(k)).astype(np.int32)
    # J_t - y_{family(t)} <= 0
    ind = np.empty(2 * k, dtype=np.int32)
    ind[0::2] = jcol
    ind[1::2] = local[cache.family[sel]]
    val = np.tile([1.0, -1.0], k)
    h.addRows(k, np.full(k, -highspy.kHighsInf), np.zeros(k), 2 * k,
              np.arange(0, 2 * k, 2, dtype=np.int32), ind, val)
    # J_t - Σ_{w ∈ parents(t) ∩ comp} y_w <= 0
    lens = cnt + 1
    st = np.zeros(k, dtype=np.int64)
    np.cumsum(lens[:-1], out=st[1:])
    total = int(lens.sum())
    ind2 = np.empty(total, dtype=np.int32)
    val2 = -np.ones(total)
    ind2[st] = jcol
    val2[st] = 1.0
    pos = np.ones(total, dtype=bool)
    pos[st] = False
    ind2[pos] = lit
    h.addRows(k, np.full(k, -highspy.kHighsInf), np.zeros(k), total, st.astype(np.int32), ind2, val2)
    # Σ y >= 2, and objective >= -1 + tol (only violated clusters are feasible)
    h.addRow(2.0, highspy.kHighsInf, k_y, np.arange(k_y, dtype=np.int32), np.ones(k_y))
    h.addRow(-1.0 + tol, highspy.kHighsInf, ncol, np.arange(ncol, dtype=np.int32), cost)
    out: list[np.ndarray] = []
    for attempt in range(2):
        run_highs(h)
        stats.solves += 1
        status = h.getModelStatus()
        stats.last_status = h.modelStatusToString(status)
        points = [np.asarray(s.col_value[:k_y]) for s in h.getSavedMipSolutions()]
        if int(h.getInfo().primal_solution_status) == 2:
            points.append(np.asarray(h.getSolution().col_value[:k_y]))
        seen = set()
        for y in points:
            members = comp[y > 0.5]
            key = tuple(members.tolist())
            if len(members) >= 2 and key not in seen:
                seen.add(key)
                out.append(bs.to_bitset(members, n))
        if out:
            act = cluster_activity(cache, eta, np.array(out))
            out = [b for b, a in zip(out, act) if a < 1.0 - 0.5 * tol]
        if out or status in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible):
            return out
        if status != highspy.HighsModelStatus.kSolutionLimit or attempt:
            break
        # the solution limit stopped HiGHS on points that are not violated: solve to the end
        h.setOptionValue("mip_max_improving_sols", 2147483647)
        if time_limit is not None:  # HiGHS's clock is cumulative per object
            h.setOptionValue("time_limit", float(h.getRunTime()) + float(max(time_limit, 1e-3)))
    stats.timed_out = True  # no proof that nothing is violated in this component
    return out
