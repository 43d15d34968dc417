"""``method="dual"``: Jaakkola et al. 2010 cluster LP relaxation, dual CD, branch and bound.

* :func:`root_relaxation` — the LP relaxation over a cluster family (eq. 7) solved in the
  dual (eq. 8), with optional separation (§5.3) and an exact polish so ``converged`` is honest.
* :func:`solve_dual` — the exact anytime solver: root relaxation, then best-first branch
  and bound on the dual bound (§6), pruning with the best decoded DAG (§5.2).

The gap is closed when ``upper_bound <= score + tolerance * max(1, |score|)`` with
``control.tolerance`` (1e-9 relative by default).
"""

from __future__ import annotations

import dataclasses
import heapq
import inspect
import itertools
import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..cache import ScoreCache
from ..lp.clusters import ClusterFamily
from ..errors import InputError
from ..result import DAG, OPTIMAL, SolveResult
from ..signals import pending
from ..control import SolveControl
from .incumbent import OrderSearch, dag_order
from .options import DualOptions
from .polish import polish
from .relax import Incumbent, closed, relax
from .state import DualState

#: Polish the dual LP exactly (HiGHS) only below this many candidate rows.
POLISH_MAX_ROWS = 300_000
CONVERGED_RTOL = 1e-7
#: Perturbation climbs of the OBS incumbent search credited per CD sweep at ``local_search=1``.
OBS_CLIMBS_PER_SWEEP = 20
#: A relaxation round (LP polish + separation) counts as this many CD sweeps of work.
OBS_ROUND_SWEEPS = 4
#: Cost of one OBS climb in CD sweeps, estimated as max(1, n^2 / OBS_CLIMB_N2) (measured:
#: ~0.2 sweeps at n = 56, ~7 at n = 441, ~70 at n = 1041).
OBS_CLIMB_N2 = 20_000
#: ``primal_first`` by default only up to this many variables: each greedy growth at η costs
#: O(n^2 |support|), which dominates a separation round on the 400-1000-variable caches
#: (munin1-5000, n = 186, is solved faster with it).
PRIMAL_FIRST_MAX_N = 256
#: Perturbation climbs of the first OBS search (from the greedy order, before the root).
OBS_FIRST_CLIMBS = 20
#: Above this many variables the relaxation adds many clusters per round and runs few CD sweeps
#: between separations (see ``separation_batch`` in :func:`solve_dual`).
SCALE_N = 1000


@dataclass
class RootRelaxation:
    """The LP relaxation over ``clusters`` solved in the dual.

    ``value`` is a valid upper bound on the LP (and on every DAG's score); ``converged``
    says it equals the LP optimum over ``clusters`` (to ~1e-7 relative): either the bound
    met a decoded DAG's score (the LP is tight) or the exact polish confirmed it.
    """

    value: float
    clusters: ClusterFamily
    converged: bool
    best_score: float
    best_dag: DAG | None
    lam: np.ndarray = field(repr=False, default=None)
    stats: dict[str, Any] = field(default_factory=dict)


def _choice_of(cache: ScoreCache, dag: Any) -> np.ndarray:
    """Global candidate indices of a DAG's parent sets (InputError when one is not a candidate)."""
    parents = dag.parents if hasattr(dag, "parents") else dag
    if len(parents) != cache.n:
        raise InputError(f"method 'dual': the incumbent has {len(parents)} variables, the cache {cache.n}")
    choice = cache.indices_of(parents)
    for i in np.flatnonzero(choice < 0)[:1]:
        raise InputError(f"method 'dual': the incumbent's parent set {sorted(parents[i])} of {cache.names[i]} "
                         "is not a candidate")
    if DAG(cache.names, parents).find_cycle() is not None:
        raise InputError("method 'dual': the incumbent has a directed cycle")
    return choice


def _dag_from_choice(cache: ScoreCache, choice: np.ndarray | None) -> DAG | None:
    if choice is None:
        return None
    return DAG(cache.names, [cache.parents(int(j)) for j in choice])


def root_relaxation(cache: ScoreCache, clusters: ClusterFamily | None = None, *, separate: bool = True,
                    time_limit: float | None = None, max_iters: int | None = None,
                    lp_polish: bool = True, polish_lp: bool | None = None) -> RootRelaxation:
    """Solve the cluster LP relaxation (Jaakkola 2010 eq. 7) in the dual (eq. 8).

    With ``separate=False`` only the given clusters (plus the simplex constraints) are
    used.  ``max_iters`` caps the number of CD sweeps.  Unless the bound already meets a
    decoded DAG, the dual LP over the final clusters is solved exactly (``lp_polish``, as in
    :class:`~lpbn.dual.options.DualOptions`), so ``converged`` is True only when ``value`` is
    the LP optimum.  With ``separate=True`` the rounds also polish, so primal (LP-point)
    separation can add clusters.  ``polish_lp`` is a deprecated alias of ``lp_polish``.
    """
    if polish_lp is not None:
        warnings.warn("root_relaxation(polish_lp=...) is deprecated; use lp_polish", DeprecationWarning,
                      stacklevel=2)
        lp_polish = polish_lp
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + time_limit
    state = DualState(cache, clusters)
    inc = Incumbent()
    value, lam, st = relax(state, inc, separate=separate, deadline=deadline, max_sweeps=max_iters,
                           tol=1e-12, lp_polish=separate and lp_polish and cache.m <= POLISH_MAX_ROWS)
    converged = closed(value, inc.score, 1e-12)
    lp_value = math.nan
    polished = False
    if not converged and lp_polish and cache.m <= POLISH_MAX_ROWS:
        remaining = None if time_limit is None else max(0.5, deadline - time.perf_counter())
        ok, lp_value = polish(state, remaining)
        polished = True
        value = min(value, state.value())
        if ok and abs(value - lp_value) <= CONVERGED_RTOL * max(1.0, abs(lp_value)):
            converged = True
        choice, score, _ = state.decode()
        inc.offer(choice, score)
    return RootRelaxation(value=float(value), clusters=state.family_of_clusters(), converged=bool(converged),
                          best_score=inc.score, best_dag=_dag_from_choice(cache, inc.choice),
                          lam=state.lam.copy(),
                          stats={"sweeps": state.sweeps, "rounds": st.rounds, "clusters": state.K,
                                 **({"separation_errors": dict(state.separation_errors)}
                                    if state.separation_errors else {}),
                                 "polished": polished, "lp_value": lp_value,
                                 "seconds": time.perf_counter() - t0})


# ---------------------------------------------------------------------- branch and bound (§6)
@dataclass(order=True)
class _Node:
    key: float                       # -bound (heapq is a min-heap)
    seq: int
    bound: float = field(compare=False)
    decisions: tuple = field(compare=False)   # ((i, cluster row bytes, value), ...)
    lam: np.ndarray = field(compare=False, repr=False)
    depth: int = field(compare=False, default=0)
    basis: Any = field(compare=False, repr=False, default=None)   # parent's LP basis (warm start)
    nid: int = field(compare=False, default=0)                    # id in the certificate tree


def _mask(cache: ScoreCache, decisions: tuple) -> np.ndarray:
    allowed = np.ones(cache.m, dtype=np.bool_)
    for i, row, v in decisions:
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        r = np.frombuffer(row, dtype=np.uint64)
        disjoint = ~np.any(cache.bits[lo:hi] & r, axis=1)
        allowed[lo:hi] &= disjoint if v else ~disjoint
    return allowed


def _split_ok(cache: ScoreCache, allowed: np.ndarray, i: int, row: np.ndarray) -> bool:
    lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
    a = allowed[lo:hi]
    disjoint = ~np.any(cache.bits[lo:hi] & row, axis=1)
    return bool(np.any(a & disjoint) and np.any(a & ~disjoint))


def choose_branch_eta(state: DualState) -> tuple[int, np.ndarray] | None:
    """Edge branching at the polished LP point: the edge p -> i whose marginal μ_pi
    (eq. 3) is closest to 1/2, as the cluster C = {i, p} (I_C(s) = [p ∉ s])."""
    mu = _edge_marginals(state)
    if mu is None:
        return None
    from .. import bitsets as bs
    p_idx, i_idx = np.nonzero((mu > 0.0) & (mu < 1 - 1e-6))
    keys = np.abs(mu[p_idx, i_idx] - 0.5)
    for t in np.argsort(keys, kind="stable"):
        p, i = int(p_idx[t]), int(i_idx[t])
        row = bs.to_bitset([i, p], state.n)
        if _split_ok(state.cache, state.allowed, i, row):
            return i, row
    return None


def _edge_marginals(state: DualState) -> np.ndarray | None:
    """μ[p, i] = Σ_{s∋p} η_i(s) at the polished LP point (eq. 3), or None without one."""
    if state.last_eta is None:
        return None
    from ..lp.separation import edge_marginals
    return edge_marginals(state.cache, state.last_eta)


def _edge_candidates(state: DualState) -> list[tuple[float, int, int, float]]:
    """Fractional edges p -> i of the polished LP point η: (|μ_pi - 1/2|, i, p, μ_pi), μ of eq. 3."""
    mu = _edge_marginals(state)
    if mu is None:
        return []
    p_idx, i_idx = np.nonzero((mu > 1e-6) & (mu < 1 - 1e-6))
    return sorted((abs(float(mu[p, i]) - 0.5), int(i), int(p), float(mu[p, i]))
                  for p, i in zip(p_idx, i_idx))


class Pseudocosts:
    """Per-edge bound decrease per unit of LP marginal moved, for each branch direction
    (reliability branching, Achterberg et al. 2005): learnt from strong-branching probes;
    an edge probed ``reliable`` times is scored from these averages instead of probing."""

    def __init__(self, reliable: int = 2):
        self.reliable = reliable
        self.data: dict[tuple[int, int], list[float]] = {}

    def update(self, key: tuple[int, int], mu: float, d1: float, d0: float) -> None:
        r = self.data.setdefault(key, [0.0, 0, 0.0, 0])
        if math.isfinite(d1) and mu > 1e-6:
            r[0] += d1 / mu
            r[1] += 1
        if math.isfinite(d0) and mu < 1 - 1e-6:
            r[2] += d0 / (1 - mu)
            r[3] += 1

    def estimate(self, key: tuple[int, int], mu: float) -> tuple[float, float] | None:
        r = self.data.get(key)
        if r is None or min(r[1], r[3]) < self.reliable:
            return None
        return r[0] / r[1] * mu, r[2] / r[3] * (1 - mu)


def choose_branch_strong(state: DualState, value: float, best: float, k: int = 8,
                         time_limit: float | None = None, iterations: int = 2000,
                         pseudo: Pseudocosts | None = None,
                         lookahead: int = 0) -> tuple[int, np.ndarray] | None:
    """Reliability branching (Achterberg et al. 2005) over the ``k`` most fractional edges of η.

    Each candidate edge p -> i is the §6 branch on the cluster C = {i, p}
    (I_C(s) = [p ∉ s] versus [p ∈ s]).  Unless its pseudocosts are reliable, both children's
    LPs over the current clusters are probed from the node's optimal basis (strong
    branching, at most ``iterations`` dual-simplex pivots each); the edge with the largest
    product of bound decreases (floored at 1e-6 of the gap) wins.  Candidates are probed one
    at a time, most fractional first; a child found infeasible or closed on its LP ends the
    search at once, and with ``lookahead`` it also ends once that many candidates in a row did
    not beat the best (Achterberg et al. 2005).  Only the choice depends on these estimates:
    every child still gets its own certified dual bound.  Returns None without a polished LP
    (the caller falls back to :func:`choose_branch_eta`).
    """
    lp = getattr(state, "_lp", None)
    if lp is None or not hasattr(lp, "trial_bounds") or state.last_eta is None:
        return None
    from .. import bitsets as bs
    cache = state.cache
    cands = []
    for _, i, p, mu in _edge_candidates(state):
        row = bs.to_bitset([i, p], state.n)
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        a = state.allowed[lo:hi]
        disjoint = ~np.any(cache.bits[lo:hi] & row, axis=1)
        if not (np.any(a & disjoint) and np.any(a & ~disjoint)):
            continue
        cands.append((i, p, mu, row, lo + np.flatnonzero(a & ~disjoint), lo + np.flatnonzero(a & disjoint)))
        if len(cands) >= k:
            break
    if not cands:
        return None
    if len(cands) == 1:
        return cands[0][0], cands[0][3]
    eps = 1e-6 * max(1e-9, value - best) if math.isfinite(best) else 1e-6
    bestkey, choice = None, None
    since, synced = 0, False
    for i, p, mu, row, cols1, cols0 in cands:
        est = pseudo.estimate((i, p), mu) if pseudo is not None else None
        if est is None:
            if not synced:
                lp.sync()
                synced = True
            v1, v0 = lp.trial_bounds([cols1, cols0], time_limit, iterations)
            if v1 == -math.inf or v0 == -math.inf or (math.isfinite(best) and min(v1, v0) <= best):
                # a child that is infeasible or closed on its LP prunes at once: best split
                return i, row
            d1, d0 = value - min(value, v1), value - min(value, v0)
            if pseudo is not None:
                pseudo.update((i, p), mu, d1 if math.isfinite(v1) else math.nan,
                              d0 if math.isfinite(v0) else math.nan)
        else:
            d1, d0 = est
        key = max(d1, eps) * max(d0, eps)
        if bestkey is None or key > bestkey:
            bestkey, choice, since = key, (i, row), 0
        else:
            since += 1
            if lookahead and since >= lookahead:
                break
    return choice


def choose_branch(state: DualState) -> tuple[int, np.ndarray] | None:
    """§6 key node (most I_C flips) and its cluster; falls back to any split.

    The chosen (i, C) must split i's allowed parent sets into two non-empty parts, so
    both children are strictly smaller and the search is finite.
    """
    cache = state.cache
    allowed = state.allowed
    lam = state.lam
    cand_nodes = np.argsort(-state.flips, kind="stable")
    if state.K:
        for i in cand_nodes[:max(1, min(len(cand_nodes), 50))]:
            i = int(i)
            if state.flips[i] == 0:
                break
            best = None
            for c in range(state.K):
                if lam[c] <= 0 or state.ck[c] != 1 or not _has(state.cbits[c], i):
                    continue
                row = state.cbits[c]
                if not _split_ok(cache, allowed, i, row):
                    continue
                a = state.arg[i]
                uses = a >= 0 and not np.any(cache.bits[a] & row)
                key = (uses, lam[c])
                if best is None or key > best[0]:
                    best = (key, c)
            if best is not None:
                return i, state.cbits[best[1]].copy()
        # clusters with positive λ: members whose maximiser satisfies C
        order = np.argsort(-lam, kind="stable")
        for c in order:
            if lam[c] <= 0:
                break
            if state.ck[c] != 1:
                continue
            row = state.cbits[c]
            for i in state.members(int(c)):
                if _split_ok(cache, allowed, int(i), row):
                    return int(i), row.copy()
    # fallback: split a node on one parent of its maximiser, C = {i, p}: I_C(s) = [p ∉ s]
    from .. import bitsets as bs
    for i in range(state.n):
        a = state.arg[i]
        if a < 0:
            continue
        for p in cache.parents(int(a)):
            row = bs.to_bitset([i, p], state.n)
            if _split_ok(cache, allowed, i, row):
                return i, row
    for i in range(state.n):
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        idx = np.flatnonzero(allowed[lo:hi]) + lo
        if len(idx) >= 2:
            for p in set().union(*[set(cache.parents(int(j))) for j in idx]):
                row = bs.to_bitset([i, p], state.n)
                if _split_ok(cache, allowed, i, row):
                    return i, row
    return None


def _has(row: np.ndarray, v: int) -> bool:
    return bool((int(row[v >> 6]) >> (v & 63)) & 1)


def _fixed_structure(state: DualState) -> np.ndarray | None:
    """Candidate per variable when every variable has exactly one allowed parent set."""
    counts = np.add.reduceat(state.allowed.astype(np.int64), state.offsets[:-1])
    if np.all(counts == 1):
        return np.flatnonzero(state.allowed)
    return None


def solve_dual(cache: ScoreCache, control: SolveControl, **options: Any) -> SolveResult:
    """Exact anytime structure learning by the cluster LP dual and branch and bound (§5-6).

    ``options`` are the fields of :class:`~lpbn.dual.options.DualOptions` (each documented
    there; ``lpbn.solve.show_options("dual")`` lists them with their defaults), checked by
    :meth:`DualOptions.validate` before the solver starts.  ``lp_polish=False`` is the paper's
    pure coordinate descent + subgradient algorithm.
    """
    names = {f.name for f in dataclasses.fields(DualOptions)}
    unknown = set(options) - names
    if unknown:
        raise InputError(f"method 'dual' got unknown option(s): {', '.join(sorted(unknown))}")
    opts = DualOptions(**options).validate()
    return _branch_and_bound(cache, control, **{name: getattr(opts, name) for name in names})


solve_dual.__signature__ = inspect.Signature(
    [inspect.Parameter("cache", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="ScoreCache"),
     inspect.Parameter("control", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="SolveControl")]
    + [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default)
       for f in dataclasses.fields(DualOptions)],
    return_annotation="SolveResult")
solve_dual.options_class = DualOptions


def _branch_and_bound(cache: ScoreCache, control: SolveControl, *, prune: bool = True,
               node_sweeps: int = 2000, root_polish: bool = False, lp_polish: bool | None = None,
               on_sweep: Callable[[dict[str, Any]], None] | None = None,
               branching: str | None = None, node_stall_rounds: int = 1, grow_seeds: int | None = None,
               local_search: float = 0.05, seed: int = 0, exact_separation: str = "none",
               primal_first: bool | None = None, strong_candidates: int = 24,
               strong_iterations: int = 50, strong_reliable: int = 1, strong_lookahead: int = 0,
               k_max: int = 3,
               tail_rounds: int = 3, tail_gain: float = 0.01, root_tail_rounds: int | None = None,
               root_tail_gain: float = 0.001, kcluster_nodes: str = "binding",
               incumbent: Any = None, incumbent_feed: Callable[[], Any] | None = None,
               separation_batch: int | None = None, round_sweeps: int | None = None,
               certificate: bool = False) -> SolveResult:
    """The body of :func:`solve_dual`, with every option of
    :class:`~lpbn.dual.options.DualOptions` (same names and defaults; validated there)."""
    orig = cache
    if prune:
        cache = cache.prune_dominated()
    tol = control.tolerance
    if lp_polish is None:
        lp_polish = cache.m <= POLISH_MAX_ROWS
    if branching is None:
        branching = "strong" if lp_polish else "flips"
    state = DualState(cache)
    big = cache.n > SCALE_N
    state.max_new = int(separation_batch if separation_batch is not None else (cache.n // 2 if big else 200))
    state.round_sweeps = int(round_sweeps if round_sweeps is not None else (10 if big else 200))
    if state.max_new < 1 or state.round_sweeps < 1:
        raise InputError("method 'dual': separation_batch and round_sweeps must be >= 1")
    if primal_first is None:
        primal_first = cache.n <= PRIMAL_FIRST_MAX_N
    state.primal_first = bool(primal_first)
    if root_tail_rounds is None:
        root_tail_rounds = 0 if primal_first else 5
    from .kernels import MAX_K
    if not 1 <= int(k_max) <= MAX_K:
        raise InputError(f"method 'dual': k_max must be between 1 and {MAX_K}, got {k_max!r}")
    k_max = int(k_max)
    if kcluster_nodes not in ("root", "binding", "all"):
        raise InputError(f"method 'dual': kcluster_nodes must be 'root', 'binding' or 'all', "
                         f"got {kcluster_nodes!r}")
    pseudo = Pseudocosts(strong_reliable) if strong_reliable > 0 else None
    if grow_seeds is not None:
        state.grow_seeds = int(grow_seeds)
    stats = {"nodes": 0, "clusters": 0, "iterations": 0, "subgradient_steps": 0, "decodes": 0,
             "max_depth": 0, "pruned_candidates": orig.m - cache.m, "root_bound": None}
    heap: list[_Node] = []
    seq = itertools.count()
    status: str | None = None

    pruned = [-math.inf]   # largest bound of a node discarded as closed (<= best + tol)

    def global_bound(node_bound: float) -> float:
        return max([node_bound, pruned[0], inc.score] + [nd.bound for nd in heap])

    def improved_best(score: float) -> None:
        control.improved(best=score, nodes=stats["nodes"])

    inc = Incumbent(on_improve=improved_best)

    def sweep_hook(v: float) -> None:
        if on_sweep is not None:
            on_sweep({"node_bound": v, "bound": global_bound(v) if v > -math.inf else global_bound(-math.inf),
                      "best": inc.score, "nodes": stats["nodes"]})

    def bound_hook(v: float) -> None:
        control.improved(bound=global_bound(v))

    deadline = math.inf if control.time_limit is None else control.start + control.time_limit
    # initial incumbent: any DAG (greedy order from the cache)
    choice, score, order0 = state.decode()
    inc.offer(choice, score)
    if incumbent is not None:
        given = _choice_of(cache, incumbent)
        inc.offer(given, float(cache.scores[given].sum()))
    searcher = OrderSearch(cache, seed) if local_search > 0 and cache.n >= 2 else None
    searched = [-math.inf]   # incumbent score at the last search start
    rounds_seen = [0]
    first_climbs = [0]
    climb_cost = max(1.0, cache.n ** 2 / OBS_CLIMB_N2)

    def on_round(order) -> None:
        rounds_seen[0] += 1
        search([order])

    def search(starts=(), climbs: int | None = None, patience: int | None = None) -> None:
        """OBS from ``starts`` (+ the incumbent's order when it changed), then perturbation
        climbs.  Without ``climbs``, every climb (starts included) is paid from the credit of
        ``local_search`` x OBS_CLIMBS_PER_SWEEP climbs per unit of relaxation work divided by
        the estimated climb cost: a deterministic work budget, not a time share."""
        if searcher is None:
            return
        starts = [o for o in starts if o is not None]
        if inc.choice is not None and inc.score > searched[0]:
            starts.append(dag_order(cache, inc.choice))
        if climbs is None:
            work = state.sweeps + OBS_ROUND_SWEEPS * rounds_seen[0]
            credit = int(local_search * OBS_CLIMBS_PER_SWEEP * work / climb_cost) - \
                (searcher.climbs - first_climbs[0])
            if credit <= 0:
                return
            starts = starts[-credit:]
            climbs = credit - len(starts)
        if not starts and climbs <= 0:
            return
        searched[0] = inc.score
        guard = math.inf if not math.isfinite(deadline) else \
            time.perf_counter() + 0.5 * max(0.0, deadline - time.perf_counter())
        res = searcher.run(climbs, starts, patience, guard)
        if res is not None:
            inc.offer(res[0], res[1])
        stats["local_search_seconds"] = searcher.seconds
        stats["local_search_climbs"] = searcher.climbs

    if searcher is not None:
        first = max(2, int(OBS_FIRST_CLIMBS / climb_cost))
        search([order0], climbs=first, patience=first)
        first_climbs[0] = searcher.climbs
    initial_bound = state.value()
    control.improved(bound=initial_bound)
    if on_sweep is not None:
        sweep_hook(initial_bound)

    # certificate tree: id -> (parent id, (i, row bytes, v) or None); evaluated nodes' λ
    tree_nodes: dict[int, tuple] = {0: (None, None)}
    tree_lam: dict[int, np.ndarray] = {}
    next_id = itertools.count(1)
    root = _Node(-initial_bound, next(seq), initial_bound, (), np.zeros(0), 0)
    heapq.heappush(heap, root)
    while heap:
        stop = control.should_stop(nodes=stats["nodes"])
        if stop:
            status = stop
            break
        if incumbent_feed is not None:
            fed = incumbent_feed()
            if fed is not None:
                inc.offer(fed, float(cache.scores[fed].sum()))
        node = heapq.heappop(heap)
        if closed(node.bound, inc.score, tol):
            pruned[0] = max(pruned[0], node.bound)
            continue
        stats["nodes"] += 1
        stats["max_depth"] = max(stats["max_depth"], node.depth)
        is_root = node.depth == 0
        cert_lam = None
        state.set_allowed(_mask(cache, node.decisions))
        state.set_lambda(node.lam)
        state.flips[:] = 0
        state.exact_separation = exact_separation == "all" or (exact_separation == "root" and is_root)
        state.k_max = k_max if is_root or kcluster_nodes != "root" else 1
        state.kcluster_growth = is_root or kcluster_nodes == "all"
        if node.basis is not None and getattr(state, "_lp", None) is not None and hasattr(state._lp, "set_basis"):
            state._lp.set_basis(node.basis)
        fixed = _fixed_structure(state)
        if fixed is not None:
            dag = DAG(cache.names, [cache.parents(int(j)) for j in fixed])
            if dag.is_acyclic():
                inc.offer(fixed, float(cache.scores[fixed].sum()))
            control.improved(bound=global_bound(-math.inf))
            continue
        value, lam, st = relax(state, inc, separate=True, tol=tol, deadline=deadline,
                               max_sweeps=None if is_root else node_sweeps,
                               on_sweep=sweep_hook if on_sweep is not None else None,
                               on_bound=bound_hook, lp_polish=lp_polish,
                               stall_rounds=2 if is_root else node_stall_rounds,
                               on_round=on_round if searcher is not None else None,
                               tail_rounds=root_tail_rounds if is_root else tail_rounds,
                               tail_gain=root_tail_gain if is_root else tail_gain)
        stats["polishes"] = stats.get("polishes", 0) + st.polishes
        cert_lam = lam
        if is_root and root_polish and cache.m <= POLISH_MAX_ROWS and not closed(value, inc.score, tol):
            polish(state, None if not math.isfinite(deadline) else max(0.5, deadline - time.perf_counter()))
            if state.value() <= value:
                cert_lam = state.lam.copy()
            value = min(value, state.value())
            lam = state.lam.copy()
            c2, s2, _ = state.decode()
            inc.offer(c2, s2)
        value = min(value, node.bound)
        if certificate:
            tree_lam[node.nid] = np.array(cert_lam, dtype=np.float64)
        if is_root:
            stats["root_bound"] = value
            root_clusters = state.family_of_clusters()
            root_value = value
        control.improved(bound=global_bound(value))
        if value == -math.inf or closed(value, inc.score, tol):
            pruned[0] = max(pruned[0], value)
            continue
        if searcher is not None:
            search()
            if closed(value, inc.score, tol):
                pruned[0] = max(pruned[0], value)
                continue
        if time.perf_counter() > deadline or pending() is not None:
            # the node's bound stays in the heap (it is part of the global bound)
            heapq.heappush(heap, _Node(-value, next(seq), value, node.decisions, lam, node.depth, nid=node.nid))
            status = "time_limit" if pending() is None else "interrupted"
            break
        br = None
        if branching == "strong":
            br = choose_branch_strong(state, value, inc.score, k=strong_candidates, iterations=strong_iterations,
                                      pseudo=pseudo, lookahead=strong_lookahead,
                                      time_limit=None if not math.isfinite(deadline)
                                      else max(0.05, deadline - time.perf_counter()))
        if br is None and branching in ("eta", "strong"):
            br = choose_branch_eta(state)
        br = br or choose_branch(state)
        if br is None:  # cannot happen unless every variable is fixed; keep bound valid
            heapq.heappush(heap, _Node(-value, next(seq), value, node.decisions, lam, node.depth, nid=node.nid))
            status = "node_limit"
            break
        i, row = br
        lp = getattr(state, "_lp", None)
        basis = lp.get_basis() if lp is not None and hasattr(lp, "get_basis") else None
        for v in (1, 0):
            child = node.decisions + ((i, row.tobytes(), v),)
            cid = next(next_id)
            if certificate:
                tree_nodes[cid] = (node.nid, (i, row.tobytes(), v))
            heapq.heappush(heap, _Node(-value, next(seq), value, child, lam.copy(), node.depth + 1, basis, cid))
        if control.should_stop(nodes=stats["nodes"]):
            status = control.stop_reason
            break
    final_bound = global_bound(-math.inf)
    if math.isfinite(control.bound):
        final_bound = min(final_bound, control.bound)
    final_bound = max(final_bound, inc.score)
    if status is None:
        status = OPTIMAL
    control.improved(best=inc.score, bound=final_bound)
    if state.separation_errors:
        stats["separation_errors"] = dict(state.separation_errors)
    stats.update(clusters=state.K, iterations=state.sweeps, subip_clusters=state.subip_clusters,
                 subgradient_steps=state.subgradient_steps, decodes=inc.decodes,
                 kclusters=int(np.count_nonzero(state.ck > 1)),
                 lp_rows_pooled=int(getattr(getattr(state, "_lp", None), "dropped", 0)))
    dag = _dag_from_choice(cache, inc.choice)
    score = inc.score
    if dag is not None:
        score = float(orig.dag_score(dag.parents)) if orig is not cache else score
        final_bound = max(final_bound, score)   # summation-order rounding only
    extra = {}
    if "root_clusters" in locals():
        extra["clusters"] = root_clusters
        extra["root_dual_value"] = root_value
    else:
        extra["clusters"] = state.family_of_clusters()
        extra["root_dual_value"] = initial_bound
    if certificate:
        # everything a verifier needs: the clusters (bitsets, k), each node's branching decision
        # and each evaluated node's λ; dominated candidates were dropped when ``prune``
        extra["certificate_tree"] = {"clusters": state.cbits.copy(), "k": state.ck.copy(),
                                     "nodes": tree_nodes, "lambda": tree_lam,
                                     "candidates": "non-dominated" if prune else "all"}
    return SolveResult(dag=dag, score=score, upper_bound=final_bound, status=status, method="dual",
                       stats=stats, message="", extra=extra)
