"""The exact solver of ``method="dual"``: best-first branch and bound on the dual bound.

Jaakkola, Sontag, Globerson & Meila, "Learning Bayesian network structure using LP
relaxations", AISTATS 2010, §6: every node solves the cluster LP relaxation (eq. 7) in the
dual (eq. 8) by coordinate descent (§5.1, eqs. 9-11), subgradient steps (eqs. 12-13) and
separation (§5.3) — :func:`lpbn.dual.relax.relax` — and decodes DAGs from it (§5.2, eqs.
15-16).  The dual objective at any λ >= 0 bounds every DAG of the node, so a node whose bound
does not exceed the best decoded score is pruned; the open node with the highest bound is
split next, its two children starting from the parent's clusters and λ (§6).  The search ends
when the best decoded score meets the highest open bound.

:class:`BranchAndBound` holds the state of one such search, built from a cache, a
:class:`~lpbn.control.SolveControl` and :class:`~lpbn.dual.options.DualOptions`;
:meth:`BranchAndBound.run` returns the :class:`~lpbn.result.SolveResult`.  Beyond the paper,
and each switched off by an option: the exact LP polish (``lp_polish``), edge branching at
the LP point (``branching``, :mod:`lpbn.dual.branching`), k-cluster constraints (``k_max``),
{0, 1/2}-cuts and local cuts in the root as Lagrangian terms (``zero_half``, ``local_cuts``,
:meth:`DualState.add_cuts`), the
ordering-based incumbent search (``local_search``, :mod:`lpbn.dual.incumbent`) and
reduced-cost fixing from the root's λ (``fixing``, :mod:`lpbn.dual.fixing`).
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
import time
import warnings
from typing import Any

import numpy as np

from ..bound import tree_bound
from ..cache import ScoreCache
from ..control import SolveControl
from ..errors import InputError, LpbnWarning
from ..incumbent import Incumbent, dag_of
from ..lp.separation import SUPPORT_TOL
from ..result import DAG, OPTIMAL, SolveResult
from ..signals import pending
from ..support_ilp import support_ilp
from .branching import (
    Node,
    Pseudocosts,
    allowed_mask,
    choose_branch,
    choose_branch_eta,
    choose_branch_strong,
    fixed_structure,
)
from ..tuning import POLISH_MAX_ROWS
from .fixing import RootFixing
from .incumbent import OrderSearch, dag_order
from .options import DualOptions
from .parallel import SubtreeExchange, can_fork, second_best, stop_code
from .polish import polish
from .relax import closed, relax
from .state import DualState
from ..tuning import (OBS_CLIMBS_PER_SWEEP, OBS_ROUND_SWEEPS, OBS_CLIMB_N2, OBS_FIRST_CLIMBS,
                      OBS_IDLE_CLIMBS, OBS_IDLE_SHARE, FIXING_REBUILD_FRACTION, ROOT_FIXING_FRACTION,
                      DUAL_SUPPORT_MIP_FREE as SUPPORT_MIP_FREE,
                      DUAL_SUPPORT_MIP_PER_NODE as SUPPORT_MIP_PER_NODE,
                      DUAL_SUPPORT_MIP_NODE_SECONDS as SUPPORT_MIP_NODE_SECONDS,
                      DUAL_SUPPORT_MIP_SHARE as SUPPORT_MIP_SHARE)


def choice_of(cache: ScoreCache, dag: Any) -> np.ndarray:
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


class BranchAndBound:
    """One best-first branch and bound on the dual bound (Jaakkola et al. 2010, §6).

    ``options`` are validated and their ``None`` defaults resolved for the cache the search
    runs on (after ``prune``).  The global upper bound at any time is the largest of the open
    nodes' bounds, the bounds of nodes pruned as closed and the incumbent's score; every node
    bound is the dual objective (eq. 8) at a λ >= 0, so it is valid however far CD got.
    """

    def __init__(self, cache: ScoreCache, control: SolveControl, options: DualOptions | None = None):
        options = (options or DualOptions()).validate()
        self.orig = cache
        self.cache = cache = cache.prune_dominated() if options.prune else cache
        self.control = control
        self.opts = opts = options.resolved(cache)
        self.tol = control.tolerance
        self.deadline = math.inf if control.time_limit is None else control.start + control.time_limit
        self.state = state = DualState(cache)
        state.max_new = opts.separation_batch
        state.round_sweeps = opts.round_sweeps
        state.primal_first = opts.primal_first
        if opts.grow_seeds is not None:
            state.grow_seeds = int(opts.grow_seeds)
        self.k_max = int(opts.k_max)
        state.kcluster_rounds = opts.kcluster_rounds
        self.zero_half = (opts.zero_half == "auto" and opts.lp_polish != "off" and opts.primal_first
                          and not opts.certificate)
        self.local_k = (int(opts.local_cuts) if opts.lp_polish != "off" and opts.primal_first
                        and not opts.certificate else 0)
        self.pseudo = Pseudocosts(opts.strong_reliable) if opts.strong_reliable > 0 else None
        self.stats: dict[str, Any] = {"nodes": 0, "clusters": 0, "iterations": 0, "subgradient_steps": 0,
                                      "decodes": 0, "max_depth": 0, "pruned_candidates": self.orig.m - cache.m,
                                      "root_bound": None}
        self.heap: list[Node] = []
        self.seq = itertools.count()
        self.pruned = -math.inf          # largest bound of a node discarded as closed (<= best + tol)
        self.inc = Incumbent(on_improve=self._improved)
        # certificate tree: id -> (parent id, (i, row bytes, v) or None); evaluated nodes' λ
        self.tree_nodes: dict[int, tuple] = {0: (None, None)}
        self.tree_lam: dict[int, np.ndarray] = {}
        self.next_id = itertools.count(1)
        self.initial_bound = -math.inf
        self.root_clusters = None        # the cluster family and dual value after the root
        self.root_value = -math.inf
        # ordering-based incumbent search (lpbn.dual.incumbent), paid in climbs per sweep
        self.searcher = OrderSearch(cache, opts.seed) if opts.local_search > 0 and cache.n >= 2 else None
        self.searched = -math.inf        # incumbent score at the last search start
        self.rounds_seen = 0
        self.search_credit = 0.0         # climbs the local search may still spend
        self.search_work = 0.0           # relaxation work (sweeps) credited so far
        self.search_idle = 0             # climbs since the local search last improved the incumbent
        self.climb_cost = max(1.0, cache.n ** 2 / OBS_CLIMB_N2)
        # reduced-cost fixing (lpbn.dual.fixing): the root's bounds, the mask of the candidates
        # still in play (None: all of the current cache) and the map from the first cache's
        # candidate indices (those an incumbent_feed gives) to the current cache's (-1: fixed)
        self.fixing: RootFixing | None = None
        self.fixed_at = -math.inf        # incumbent score of the last fixing
        self.keep: np.ndarray | None = None
        self.base_to_cur: np.ndarray | None = None
        self.rebuilt_away = 0            # candidates removed by rebuilds (the masked ones aside)
        self.stats["fixed_candidates"] = 0
        # fixing inside the root (from an intermediate λ, ROOT_FIXING_FRACTION): the certificate
        # entries of those done, and the one due at the end of the current round
        self.root_fixings: list[dict[str, Any]] = []
        self.fix_due: tuple[RootFixing, np.ndarray] | None = None
        self.in_root = False
        # parallel subtrees (lpbn.dual.parallel): forked after the root when workers > 1
        self.workers = 1 if opts.certificate or not can_fork() else int(opts.workers)
        self.first_cache = cache
        self.exchange: SubtreeExchange | None = None
        self.shared_best: tuple[float, np.ndarray] | None = None   # a better DAG this cache lacks
        self.at_fork: dict[str, int] = {}
        self.supports_tried: set[bytes] = set()   # LP supports whose ILP ran (support_mip)
        self.support_seconds = 0.0                # time those ILPs took

    # ------------------------------------------------------------------ driver
    def run(self) -> SolveResult:
        """Search until the gap closes (``"optimal"``) or the control stops it; the result holds
        the best DAG, the global upper bound and, with ``certificate``, the tree that proves it."""
        self._start()
        try:
            status = self._search()
        except BaseException:
            if self.exchange is not None:        # no worker outlives a failed search
                self.exchange.request_stop(stop_code("interrupted"))
                self.exchange.collect()
            raise
        if self.exchange is not None:
            status = self._join_workers(status)
        return self._result(status)

    def _start(self) -> None:
        """Incumbent from the greedy order (and the given DAG), the first local search, and the
        root node with the dual value at λ = 0 as its bound."""
        cache, state, inc = self.cache, self.state, self.inc
        choice, score, order0 = state.decode()
        inc.offer(choice, score)
        if self.opts.incumbent is not None:
            given = choice_of(cache, self.opts.incumbent)
            inc.offer(given, float(cache.scores[given].sum()))
        if self.searcher is not None:
            first = max(2, int(OBS_FIRST_CLIMBS / self.climb_cost))
            self._local_search([order0], climbs=first, patience=first)
        self.initial_bound = state.value()
        self.control.improved(bound=self.initial_bound)
        if self.opts.on_sweep is not None:
            self._on_sweep(self.initial_bound)
        heapq.heappush(self.heap, Node(-self.initial_bound, next(self.seq), self.initial_bound, (),
                                       np.zeros(0), 0))

    def _search(self) -> str:
        """Best-first: pop the open node with the highest bound until none is left (§6); with
        parallel workers, until none is left anywhere (:mod:`lpbn.dual.parallel`)."""
        control = self.control
        while True:
            if not self.heap:
                if self.exchange is None:
                    return OPTIMAL
                node, status = self._wait_for_work()
                if node is None:
                    return status
                heapq.heappush(self.heap, node)
            stop = control.should_stop(nodes=self.stats["nodes"])
            if stop:
                return stop
            self._take_feed()
            if self.exchange is not None:
                self._exchange()
            self._refix()
            node = heapq.heappop(self.heap)
            if self._closed(node.bound):
                continue
            self._publish(node.bound)
            status = self._process(node)
            self._publish()
            if status is not None:
                return status
            if self.exchange is None and self.workers > 1 and self.heap and not self.at_fork \
                    and (self.opts.spare_core is None or self.opts.spare_core()):
                self._fork()

    # ------------------------------------------------------------------ parallel subtrees
    def _improved(self, score: float) -> None:
        """The incumbent improved: report it, and share it with the other workers."""
        self.control.improved(best=score, nodes=self.stats["nodes"])
        if self.exchange is not None and self.inc.choice is not None:
            self.exchange.publish(score, self._base_choice(self.inc.choice))

    def _base_choice(self, choice: np.ndarray) -> np.ndarray:
        """A choice over the current cache as one over the first (undoing rebuilds)."""
        if self.base_to_cur is None:
            return np.asarray(choice, dtype=np.int64)
        return np.flatnonzero(self.base_to_cur >= 0)[choice]

    def _take_shared(self) -> None:
        """Offer the DAG another worker shared (kept aside if this cache no longer has it)."""
        got = self.exchange.take()
        if got is None or not got[0] > self.inc.score:
            return
        cur = self._current_choice(got[1])
        if cur is not None:
            self.inc.offer(cur, got[0])
        elif self.shared_best is None or got[0] > self.shared_best[0]:
            self.shared_best = got

    def _publish(self, node_bound: float = -math.inf) -> None:
        """Publish the highest bound this worker holds (open nodes, pruned, the node in hand)."""
        if self.exchange is not None:
            top = self.heap[0].bound if self.heap else -math.inf
            self.exchange.set_bound(max(node_bound, top, self.pruned))

    def _exchange(self) -> None:
        """Between nodes: take the shared incumbent, hand the second-best node to an idle worker."""
        ex = self.exchange
        self._take_shared()
        w = ex.hungry()
        if w is not None and len(self.heap) >= 2:
            node = second_best(self.heap)
            if ex.give(w, node, self.state):
                self.stats["nodes_given"] = self.stats.get("nodes_given", 0) + 1
            else:
                heapq.heappush(self.heap, node)
            self._publish()

    def _wait_for_work(self) -> tuple[Node | None, str]:
        """Idle: wait for a node from another worker; (None, status) when the search is over
        everywhere (``"optimal"``) or stopped."""
        ex, control = self.exchange, self.control
        ex.go_idle(self.pruned)
        while True:
            stop = control.should_stop()
            if stop:
                ex.request_stop(stop_code(stop))
                return None, stop
            node = ex.receive(self.state, next(self.seq), self.pruned)
            if node is not None:
                self.stats["nodes_received"] = self.stats.get("nodes_received", 0) + 1
                return node, ""
            self._take_shared()
            if ex.finished():
                return None, OPTIMAL
            if ex.me == 0:
                control.improved(bound=self.global_bound())
                if ex.lost_worker() and not ex.finished():      # it may have ended as it finished
                    ex.request_stop(stop_code("interrupted"))

    def _fork(self) -> None:
        """After the root: fork ``workers - 1`` processes that search beside this one."""
        ex = SubtreeExchange(self.workers, self.cache.n, self.state.K)
        self.exchange = ex
        self.at_fork = {"nodes": self.stats["nodes"], "iterations": self.state.sweeps}
        if self.inc.choice is not None:
            ex.publish(self.inc.score, self._base_choice(self.inc.choice))
        watch = self.control.watch
        self.control.watch = lambda: ex.watch() or (watch() if watch is not None else None)
        ex.start(self._worker)
        self._publish()

    def _worker(self, w: int) -> dict[str, Any]:
        """The search of forked worker ``w`` (starts idle); its report for the first process."""
        control = self.control
        control.callback, control.progress, control.runner = None, False, None
        control.watch = self.exchange.watch
        self.opts = dataclasses.replace(self.opts, on_sweep=None, incumbent_feed=None, spare_core=None)
        if self.searcher is not None:
            self.searcher.rng = np.random.default_rng([int(self.opts.seed), w])
        self.heap = []
        status = self._search()
        if status != OPTIMAL:
            self.exchange.request_stop(stop_code(status))
        held = max([self.pruned] + [nd.bound for nd in self.heap])
        self.exchange.set_bound(held)
        return {"worker": w, "status": status, "bound": held, "score": self.inc.score,
                "nodes": self.stats["nodes"] - self.at_fork["nodes"],
                "iterations": self.state.sweeps - self.at_fork["iterations"]}

    def _join_workers(self, status: str) -> str:
        """End the parallel search: stop the workers unless it is over, collect their reports,
        take the best shared DAG; the status is optimal only when every node was searched."""
        ex = self.exchange
        if status != OPTIMAL:
            ex.request_stop(stop_code(status))
        reports = ex.collect()
        self._take_shared()
        errors = [r for r in reports if "error" in r]
        mine = self.stats["nodes"] - self.at_fork["nodes"]
        self.stats["workers"] = self.workers
        self.stats["worker_nodes"] = [mine] + [int(r.get("nodes", 0)) for r in reports]
        self.stats["nodes"] += sum(int(r.get("nodes", 0)) for r in reports)
        self.stats["iterations_workers"] = sum(int(r.get("iterations", 0)) for r in reports)
        if errors:          # optimal still stands when it does: every node was searched
            self.stats["worker_errors"] = [f"worker {r['worker']}: {r['error']}" for r in errors]
            warnings.warn(f"method 'dual': {'; '.join(self.stats['worker_errors'])} (status {status}, "
                          "the bound stays valid)", LpbnWarning, stacklevel=2)
        return status

    # ------------------------------------------------------------------ bounds
    def global_bound(self, node_bound: float = -math.inf) -> float:
        """Upper bound on every DAG: the open nodes, the pruned ones and the incumbent (and the
        other workers' open nodes, in parallel)."""
        held = -math.inf if self.exchange is None else self.exchange.others_bound()
        return tree_bound(self.inc.score, node_bound, held, self.pruned, *(nd.bound for nd in self.heap))

    def _closed(self, value: float) -> bool:
        """Prune a bound that meets the incumbent (within ``tolerance``), keeping it in the
        global bound."""
        if closed(value, self.inc.score, self.tol):
            self.pruned = max(self.pruned, value)
            return True
        return False

    def _on_sweep(self, v: float) -> None:
        self.opts.on_sweep({"node_bound": v, "bound": self.global_bound(v), "best": self.inc.score,
                            "nodes": self.stats["nodes"]})

    def _stopped(self) -> bool:
        """A stop from the control within a node (time, signal, gap limit, a race's rival; the
        node limit waits for the node's end); polled by :func:`relax` so a long root notices it.
        A root fixing that is due ends the relaxation too (it goes on over the smaller cache)."""
        return self.fix_due is not None or self.control.should_stop() is not None

    def _on_bound(self, v: float) -> None:
        self.control.improved(bound=self.global_bound(v))

    # ------------------------------------------------------------------ one node
    def _process(self, node: Node) -> str | None:
        """Evaluate ``node``: bound it, prune it or split it; a stop status or None."""
        stats, state = self.stats, self.state
        stats["nodes"] += 1
        stats["max_depth"] = max(stats["max_depth"], node.depth)
        self._enter(node)
        fixed = fixed_structure(state)
        if fixed is not None:
            self._leaf(fixed)
            return None
        value, lam = self._bound(node)
        self.control.improved(bound=self.global_bound(value))
        if self.control.stop_reason not in (None, "time_limit"):     # a gap limit, a race won
            self._reopen(node, value, lam)
            return self.control.stop_reason
        if value == -math.inf or self._closed(value):
            return None
        if node.depth == 0 and self.opts.fixing:
            self._start_fixing()
        if self._support_mip() and self._closed(value):
            return None
        if self.searcher is not None:
            self._local_search()
            if self._closed(value):
                return None
        if time.perf_counter() > self.deadline or pending() is not None or self.control.stop_reason:
            # the node's bound stays in the heap (it is part of the global bound)
            self._reopen(node, value, lam)
            return self.control.stop_reason or ("time_limit" if pending() is None else "interrupted")
        br = self._choose_branch(value)
        if br is None:  # cannot happen unless every variable is fixed; keep bound valid
            self._reopen(node, value, lam)
            return "node_limit"
        self._branch(node, br, value, lam)
        if self.control.should_stop(nodes=stats["nodes"]):
            return self.control.stop_reason
        return None

    def _enter(self, node: Node) -> None:
        """Restrict the state to the node: its allowed candidates, λ, and which separation
        it runs (k-clusters and exact separation may be root-only)."""
        opts, state = self.opts, self.state
        is_root = node.depth == 0
        allowed = allowed_mask(self.cache, node.decisions)
        state.set_allowed(allowed if self.keep is None else allowed & self.keep)
        state.set_lambda(node.lam)
        state.flips[:] = 0
        state.exact_separation = opts.exact_separation == "all" or (opts.exact_separation == "root" and is_root)
        state.k_max = self.k_max if is_root or opts.kcluster_nodes != "root" else 1
        state.kcluster_growth = is_root or opts.kcluster_nodes == "all"
        state.zero_half = self.zero_half and is_root
        state.local_k = self.local_k if is_root else 0
        lp = getattr(state, "_lp", None)
        if node.basis is not None and lp is not None and hasattr(lp, "set_basis"):
            lp.set_basis(node.basis)

    def _leaf(self, fixed: np.ndarray) -> None:
        """A node with one parent set left per variable: its DAG (if acyclic) is the incumbent
        candidate, and the node is done."""
        cache = self.cache
        dag = dag_of(cache, fixed)
        if dag.is_acyclic():
            self.inc.offer(fixed, float(cache.scores[fixed].sum()))
        self.control.improved(bound=self.global_bound())

    def _bound(self, node: Node) -> tuple[float, np.ndarray]:
        """The node's relaxation (§5: CD, subgradient, separation; with ``lp_polish="nodes"``
        an exact LP polish after each stalled CD phase), with ``lp_polish="root"`` one exact
        polish after the root's; returns its certified dual value (eq. 8, at most the
        parent's) and λ.  The root may stop its rounds to fix candidates (``fixing``;
        :meth:`_check_root_fixing`) and go on over the smaller cache from the same λ."""
        opts, inc = self.opts, self.inc
        is_root = node.depth == 0
        self.in_root = is_root and opts.fixing
        value, polishes = math.inf, 0
        while True:
            self.fix_due = None
            v, lam, st = relax(self.state, inc, separate=True, tol=self.tol, deadline=self.deadline,
                               max_sweeps=None if is_root else opts.node_sweeps,
                               on_sweep=self._on_sweep if opts.on_sweep is not None else None,
                               on_bound=self._on_bound, lp_polish=opts.lp_polish == "nodes",
                               stall_rounds=2 if is_root else opts.node_stall_rounds,
                               on_round=self._on_round if self.searcher is not None or self.in_root or
                               opts.incumbent_feed is not None else None,
                               tail_rounds=opts.root_tail_rounds if is_root else opts.tail_rounds,
                               tail_gain=opts.root_tail_gain if is_root else opts.tail_gain,
                               stop=self._stopped)
            value, polishes = min(value, v), polishes + st.polishes
            if self.fix_due is None or self.control.stop_reason is not None:
                break
            # the root goes on over the candidates that can still beat the incumbent, from the
            # same λ; every value so far bounds the DAGs left
            self._fix_in_root()
        self.in_root, self.fix_due = False, None
        state = self.state
        self.stats["polishes"] = self.stats.get("polishes", 0) + polishes
        cert_lam = lam
        if is_root and opts.lp_polish == "root" and self.cache.m <= POLISH_MAX_ROWS \
                and not closed(value, inc.score, self.tol) and self.control.stop_reason in (None, "time_limit"):
            polish(state, None if not math.isfinite(self.deadline)
                   else max(0.5, self.deadline - time.perf_counter()))
            if state.value() <= value:
                cert_lam = state.lam.copy()
            value = min(value, state.value())
            lam = state.lam.copy()
            c2, s2, _ = state.decode()
            inc.offer(c2, s2)
        value = min(value, node.bound)
        if opts.certificate:
            self.tree_lam[node.nid] = np.array(cert_lam, dtype=np.float64)
        if is_root:
            self.stats["root_bound"] = value
            self.root_clusters = state.family_of_clusters()
            self.root_value = value
        return value, lam

    # ------------------------------------------------------------------ reduced-cost fixing
    def _start_fixing(self) -> None:
        """Fix from the root's λ (valid for the whole search, lpbn.dual.fixing); when that
        rebuilt the cache, re-solve the root LP on it so branching has its LP point again."""
        self.fixing = RootFixing(self.state)
        if self._refix() and self.opts.lp_polish != "off":
            polish(self.state, None if not math.isfinite(self.deadline)
                   else max(0.2, self.deadline - time.perf_counter()))

    def _refix(self) -> bool:
        """Drop the candidates that cannot beat the (improved) incumbent; True when the cache
        was rebuilt without them."""
        inc = self.inc
        if self.fixing is None or not inc.score > self.fixed_at:
            return False
        self.fixed_at = inc.score
        keep = self.fixing.keep(inc.score)
        if inc.choice is not None:
            keep[inc.choice] = True      # their bound is at least the score (rounding aside)
        gone = int(np.count_nonzero(~keep))
        if gone == 0:
            return False
        counts = np.bincount(self.cache.family[keep], minlength=self.cache.n)
        if gone < FIXING_REBUILD_FRACTION * len(keep) or np.any(counts == 0):
            self.keep = keep
            self.stats["fixed_candidates"] = self.rebuilt_away + gone
            return False
        self._rebuild(keep)
        self.rebuilt_away += gone
        self.stats["fixed_candidates"] = self.rebuilt_away
        return True

    def _check_root_fixing(self) -> None:
        """Inside the root, after a round: when the λ of that round already fixes at least
        ROOT_FIXING_FRACTION of the candidates against the incumbent, mark the fixing due (the
        relaxation then stops and resumes on the smaller cache).  The root's cut loop re-solves
        its LP after every round (wdbc: ~170 HiGHS re-solves of 14,301 columns, 12.5 s; the same
        rounds over the 3,620 candidates left after fixing: 3.4 s)."""
        inc = self.inc
        if inc.choice is None or not math.isfinite(inc.score) or self.keep is not None:
            return
        fx = RootFixing(self.state)
        keep = fx.keep(inc.score)
        keep[inc.choice] = True
        gone = int(np.count_nonzero(~keep))
        if gone > 0 and gone >= ROOT_FIXING_FRACTION * len(keep):
            self.fix_due = (fx, keep)

    def _fix_in_root(self) -> None:
        """Apply the due root fixing: continue on the sub-cache without the fixed candidates;
        its λ and threshold join the certificate's chain of fixings."""
        fx, keep = self.fix_due
        self.fix_due = None
        self.root_fixings.append(fx.certificate())
        self._rebuild(keep)
        self.rebuilt_away += int(np.count_nonzero(~keep))
        self.stats["fixed_candidates"] = self.rebuilt_away
        self.stats["root_fixings"] = len(self.root_fixings)

    def _rebuild(self, keep: np.ndarray) -> None:
        """Continue on the sub-cache of the ``keep`` candidates: the state (same clusters and
        λ), the incumbent's and the feed's candidate indices, the local search; open nodes
        lose their LP bases (the columns changed) but keep their decisions and λ."""
        to_new = np.cumsum(keep) - 1
        to_new[~keep] = -1
        self.state = self.state.restricted(keep)
        self.cache = self.state.cache
        if self.fixing is not None:      # the root's own fixings are done with once applied
            self.fixing.remap(keep)
        self.keep = None
        self.base_to_cur = to_new if self.base_to_cur is None else \
            np.where(self.base_to_cur >= 0, to_new[np.maximum(self.base_to_cur, 0)], -1)
        if self.inc.choice is not None:
            self.inc.choice = to_new[self.inc.choice]
        if self.searcher is not None:
            self.searcher = self.searcher.on_cache(self.cache)
        for nd in self.heap:
            nd.basis = None

    def _current_choice(self, choice: Any) -> np.ndarray | None:
        """A choice over the first cache as one over the current cache (None when it uses a
        fixed candidate: it cannot beat the incumbent)."""
        if choice is None or self.base_to_cur is None:
            return choice
        cur = self.base_to_cur[np.asarray(choice, dtype=np.int64)]
        return None if np.any(cur < 0) else cur

    # ------------------------------------------------------------------ branching
    def _choose_branch(self, value: float) -> tuple[int, np.ndarray] | None:
        """(i, cluster C) to split on: strong branching, else the edge nearest 1/2 at η, else
        the §6 key-node rule (:mod:`lpbn.dual.branching`)."""
        opts, state = self.opts, self.state
        br = None
        if opts.branching == "strong":
            br = choose_branch_strong(state, value, self.inc.score, k=opts.strong_candidates,
                                      iterations=opts.strong_iterations, pseudo=self.pseudo,
                                      lookahead=opts.strong_lookahead,
                                      time_limit=None if not math.isfinite(self.deadline)
                                      else max(0.05, self.deadline - time.perf_counter()))
        if br is None and opts.branching in ("eta", "strong"):
            br = choose_branch_eta(state)
        return br or choose_branch(state)

    def _branch(self, node: Node, br: tuple[int, np.ndarray], value: float, lam: np.ndarray) -> None:
        """Push the children I_C(s_i) = 1 and 0 with the node's bound, λ and LP basis (§6)."""
        i, row = br
        lp = getattr(self.state, "_lp", None)
        basis = lp.get_basis() if lp is not None and hasattr(lp, "get_basis") else None
        for v in (1, 0):
            child = node.decisions + ((i, row.tobytes(), v),)
            cid = next(self.next_id)
            if self.opts.certificate:
                self.tree_nodes[cid] = (node.nid, (i, row.tobytes(), v))
            heapq.heappush(self.heap, Node(-value, next(self.seq), value, child, lam.copy(), node.depth + 1,
                                           basis, cid))

    def _reopen(self, node: Node, value: float, lam: np.ndarray) -> None:
        """Put an evaluated but unsplit node back (its bound stays part of the global bound)."""
        heapq.heappush(self.heap, Node(-value, next(self.seq), value, node.decisions, lam, node.depth,
                                       nid=node.nid))

    # ------------------------------------------------------------------ incumbent search
    def _take_feed(self) -> None:
        """Offer the DAG the ``incumbent_feed`` gives (a search beside the dual), if any."""
        feed = self.opts.incumbent_feed
        if feed is not None:
            fed = self._current_choice(feed())
            if fed is not None:
                self.inc.offer(fed, float(self.cache.scores[fed].sum()))

    def _on_round(self, order: np.ndarray) -> None:
        # every round, not only between nodes: the root's tailing rules (k-clusters, cuts)
        # and fixing measure the gap against the incumbent, which the search beside supplies
        self._take_feed()
        if self.searcher is not None:
            self.rounds_seen += 1
            self._local_search([order])
        if self.in_root:
            self._check_root_fixing()

    def _local_search(self, starts=(), climbs: int | None = None, patience: int | None = None) -> None:
        """OBS from ``starts`` (+ the incumbent's order when it changed), then perturbation
        climbs.  Without ``climbs``, every climb (starts included) is paid from the credit of
        ``local_search`` x OBS_CLIMBS_PER_SWEEP climbs per unit of relaxation work divided by
        the estimated climb cost (a tenth of that after OBS_IDLE_CLIMBS fruitless climbs): a
        deterministic work budget, not a time share."""
        searcher, inc = self.searcher, self.inc
        if searcher is None:
            return
        starts = [o for o in starts if o is not None]
        if inc.choice is not None and inc.score > self.searched:
            starts.append(dag_order(self.cache, inc.choice))
        paid = climbs is None
        if paid:
            work = self.state.sweeps + OBS_ROUND_SWEEPS * self.rounds_seen
            rate = self.opts.local_search * (OBS_IDLE_SHARE if self.search_idle >= OBS_IDLE_CLIMBS else 1.0)
            self.search_credit += rate * OBS_CLIMBS_PER_SWEEP * (work - self.search_work) / self.climb_cost
            self.search_work = work
            credit = int(self.search_credit)
            if credit <= 0:
                return
            starts = starts[-credit:]
            climbs = credit - len(starts)
        if not starts and climbs <= 0:
            return
        self.searched = before = inc.score
        spent = searcher.climbs
        deadline = self.deadline
        guard = math.inf if not math.isfinite(deadline) else \
            time.perf_counter() + 0.5 * max(0.0, deadline - time.perf_counter())
        res = searcher.run(climbs, starts, patience, guard)
        if res is not None:
            inc.offer(res[0], res[1])
        spent = searcher.climbs - spent
        if paid:
            self.search_credit -= spent
        self.search_idle = 0 if inc.score > before else self.search_idle + spent
        self.stats["local_search_seconds"] = searcher.seconds
        self.stats["local_search_climbs"] = searcher.climbs

    def _support_mip(self) -> bool:
        """The ILP over the support of the node's LP point η and the incumbent's sets
        (:func:`lpbn.support_ilp.support_ilp`) when that support has at most ``support_mip`` x n
        candidates, once per support, while the count allows one (SUPPORT_MIP_FREE +
        SUPPORT_MIP_PER_NODE per node); True when it improved the incumbent.  The node's bound
        is not touched: this only offers a DAG."""
        eta, ratio = self.state.last_eta, self.opts.support_mip
        if not ratio or eta is None:
            return False
        runs = self.stats.get("support_mips", 0)
        if runs >= SUPPORT_MIP_FREE + SUPPORT_MIP_PER_NODE * self.stats["nodes"]:
            return False
        support = eta > SUPPORT_TOL
        if np.count_nonzero(support) > ratio * self.cache.n:
            return False
        key = np.flatnonzero(support).tobytes()
        now = time.perf_counter()
        budget = min(SUPPORT_MIP_NODE_SECONDS, SUPPORT_MIP_SHARE * (self.deadline - now))
        guard = self.support_seconds > SUPPORT_MIP_SHARE * (now - self.control.start)
        if key in self.supports_tried or guard or budget <= 0.0:
            return False
        self.supports_tried.add(key)
        choice, _ = support_ilp(self.cache, eta, self.inc.choice, budget, watch=self.control.should_stop,
                                  ilp=self.control.helper("highs"))
        self.support_seconds += time.perf_counter() - now
        self.stats["support_mips"] = runs + 1
        self.stats["support_mip_seconds"] = round(self.support_seconds, 3)
        return choice is not None and self.inc.offer(choice, float(self.cache.scores[choice].sum()))

    # ------------------------------------------------------------------ result
    def _final_bound(self) -> float:
        bound = self.global_bound()
        if math.isfinite(self.control.bound):
            bound = min(bound, self.control.bound)
        return bound

    def _result(self, status: str) -> SolveResult:
        """The SolveResult: best DAG (scored on the unpruned cache), global bound, statistics,
        the root's clusters and dual value, and with ``certificate`` the tree."""
        cache, state, inc, stats = self.cache, self.state, self.inc, self.stats
        final_bound = self._final_bound()
        self.control.improved(best=inc.score, bound=final_bound)
        if state.separation_errors:
            stats["separation_errors"] = dict(state.separation_errors)
        stats.update(clusters=state.K, iterations=state.sweeps, subip_clusters=state.subip_clusters,
                     subgradient_steps=state.subgradient_steps, decodes=inc.offers,
                     kclusters=int(np.count_nonzero(state.ck > 1)), zero_half_cuts=state.zero_half_cuts,
                     local_cuts=state.local_cuts,
                     lp_rows_pooled=int(getattr(getattr(state, "_lp", None), "dropped", 0)),
                     lp_columns_priced=int(getattr(getattr(state, "_lp", None), "priced", 0)))
        dag = None if inc.choice is None else dag_of(cache, inc.choice)
        score = inc.score
        if self.shared_best is not None and self.shared_best[0] > score:     # another worker's DAG
            dag, score = dag_of(self.first_cache, self.shared_best[1]), self.shared_best[0]
        if dag is not None:
            score = float(self.orig.dag_score(dag.parents)) if self.orig is not cache else score
        if self.root_clusters is not None:
            extra = {"clusters": self.root_clusters, "root_dual_value": self.root_value}
        else:
            extra = {"clusters": state.family_of_clusters(), "root_dual_value": self.initial_bound}
        if self.opts.certificate:
            extra["certificate_tree"] = self._certificate()
        return SolveResult(dag=dag, score=score, upper_bound=final_bound, status=status, method="dual",
                           stats=stats, message="", extra=extra)

    def _certificate(self) -> dict[str, Any]:
        """Everything a verifier needs (:mod:`lpbn.certificate`): the clusters (bitsets, k), each
        node's branching decision and each evaluated node's λ, whose eq. 8 value bounds that
        node, and the reduced-cost fixings in the order they were applied (the root's own, then
        the one from the root's final λ); dominated candidates were dropped when ``prune``."""
        state = self.state
        fixings = self.root_fixings + ([] if self.fixing is None else [self.fixing.certificate()])
        return {"clusters": state.cbits.copy(), "k": state.ck.copy(), "nodes": self.tree_nodes,
                "lambda": self.tree_lam, "candidates": "non-dominated" if self.opts.prune else "all",
                "fixing": [f for f in fixings if f is not None]}
