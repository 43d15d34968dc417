"""``method="bfbnb"``: external-memory frontier breadth-first branch and bound over the
order graph (Malone, Yuan, Hansen & Bridges 2011, Algorithm 1).

The order graph's layer l holds the subsets U of l variables that survived pruning, in
combinadic (colex = ascending bitmask) order, each with g(U), the best score of a DAG on U
found so far.  Expanding U adds a leaf X ∉ U with its best parents inside U
(BestScore(X, U), §5.2, answered from the pruned cache's best-first lists by subset tests
on bit vectors), so g(U ∪ {X}) = max over leaves of g(U) + BestScore(X, U).  An admissible
h (eq. 3, or its static pattern-database strengthening, :mod:`lpbn.bfbnb.heuristic`) makes
f = g + h an upper bound on every completion; successors with f <= the incumbent's score
are pruned (§5.1).  Layer l+1 is built as the merge of the n sorted per-leaf successor
streams of layer l with delayed duplicate detection (§5.4, :mod:`lpbn.bfbnb.kernels`),
written sequentially to disk and kept in RAM only when it fits ``memory_limit``;
per-layer (node, candidate) records on disk reconstruct the DAG (§5.5).

Bounds (log-scores, higher is better): the incumbent (OBS, :mod:`lpbn.ordering.quick`, or a
DAG passed in) is the best score; after each complete layer, max(max f over the layer,
max f ever pruned, incumbent) is a proven upper bound on the optimum.
"""

from __future__ import annotations

import errno
import math
import os
import sys
import time
from typing import Any, Iterable, Sequence

import numpy as np

from ..cache import ScoreCache
from ..cpus import cores
from ..errors import InputError
from ..incumbent import dag_of
from ..options import parse_memory
from ..bound import tree_bound
from ..result import DAG, SolveResult
from ..signals import pending
from . import kernels as K
from .blocks import LayerBlocks, MergeScratch
from .external import LayerFiles, LayerSource, TempArea
from .options import BfbnbOptions
from .heuristic import Relabelled, choose_groups, make_groups, relabel
from .projection import remaining_seconds
from ..ordering.quick import QuickOrderingSearch
from ..tuning import (BFBNB_OBS_FIRST_SHARE as OBS_FIRST_SHARE,
                      BFBNB_OBS_NODES_PER_RESTART as OBS_NODES_PER_RESTART,
                      BFBNB_MIN_SEARCH_MEMORY as MIN_SEARCH_MEMORY)

MAX_VARIABLES = 64
#: Default pattern-database group size: SMALL_GROUP up to SMALL_GROUP_MAX_N variables (two
#: groups cover them; the 2^20-entry tables of LARGE_GROUP and the partitions tried for them
#: cost more than the nodes they save: one thread, 20 -> 16, mushroom 1.4 -> 0.5 s, sensors
#: 3.3 -> 2.2 s, steel 4.5 -> 3.8 s, autos 2.1 -> 1.3 s, flag 0.9 -> 0.3 s, parkinsons 0.56 ->
#: 0.36 s; horse 0.41 -> 0.59 s the one loss), LARGE_GROUP beyond (alarm1000: 2 s with groups
#: of 20, unsolved in 120 s with 16; spectf 3.7 -> 6.9 s).
SMALL_GROUP, LARGE_GROUP, SMALL_GROUP_MAX_N = 16, 20, 30


def _initial_solution(cache: ScoreCache, dag: DAG | Sequence[Iterable[int]]) -> tuple[DAG, float]:
    parents = dag.parents if isinstance(dag, DAG) else [tuple(ps) for ps in dag]
    if len(parents) != cache.n:
        raise InputError(f"initial_dag has {len(parents)} variables, the cache has {cache.n}")
    out = DAG(cache.names, parents)
    if not out.is_acyclic():
        raise InputError("initial_dag has a directed cycle")
    try:
        score = cache.dag_score(out.parents)
    except ValueError as exc:
        raise InputError(f"initial_dag: {exc}") from None
    return out, score


def solve_bfbnb(cache: ScoreCache, control, **options: Any) -> SolveResult:
    """Frontier BFBnB with external memory (Malone et al. 2011) for ``n <= 64``.

    ``options`` are the fields of :class:`lpbn.bfbnb.options.BfbnbOptions`, each documented
    there (``lpbn.show_options("bfbnb")``); they are checked and built once, here.  First an
    incumbent (OBS, a given DAG, optionally the dual), then the heuristic's pattern databases,
    then the order graph layer by layer (:class:`_Search`).
    """
    opts = BfbnbOptions.build(options, "bfbnb")
    if cache.n > MAX_VARIABLES:
        raise InputError(f"method 'bfbnb' handles at most {MAX_VARIABLES} variables (this cache has "
                         f"{cache.n}); use method=\"dual\" for larger instances")
    run = _Search(cache, control, opts)
    order = run.find_incumbent()
    run.build_heuristic(order)
    run.search()
    return run.result()


class _Search:
    """One :func:`solve_bfbnb` run: the incumbent, the heuristic and the layers' state."""

    def __init__(self, cache: ScoreCache, control, opts: BfbnbOptions):
        self.cache, self.control, self.opts = cache, control, opts
        self.n = n = cache.n
        self.mem = parse_memory(opts.memory_limit)
        self.workers = _workers(opts.threads)
        self.group_size = opts.group_size if opts.group_size is not None else \
            min(n, SMALL_GROUP if n <= SMALL_GROUP_MAX_N else LARGE_GROUP)
        self.t0 = time.perf_counter()
        self.pruned = cache.prune_dominated()
        self.scores = self.pruned.scores
        self.stats: dict[str, Any] = {"candidates": cache.m, "candidates_pruned_cache": self.pruned.m,
                                      "memory_limit": self.mem}
        self.status: str | None = None
        self.message = ""

    # ---- incumbent: OBS (+ optional given DAG / dual solver) -----------------------------
    def find_incumbent(self) -> np.ndarray:
        """The first incumbent; returns OBS's ordering (the static heuristic's groups use it)."""
        n, opts, control, pruned, stats = self.n, self.opts, self.control, self.pruned, self.stats
        obs_time, patience = opts.obs_time, None
        if obs_time is None:
            obs_time, patience = min(10.0, 0.1 + 0.005 * n * n), 500 + 50 * n
        if control.time_limit is not None:
            obs_time = min(obs_time, 0.2 * control.time_limit)
        self.obs = QuickOrderingSearch(pruned, seed=opts.seed)
        self.obs_deadline = time.perf_counter() + obs_time
        self.patience = patience
        self.first = None if patience is None else max(1, int(OBS_FIRST_SHARE * patience))
        self.obs.run(obs_time, max_restarts=self.first, patience=patience)
        order, _ = self.obs.result()
        choice, _ = pruned.best_for_order(order)
        self.inc_dag = dag_of(pruned, choice)   # pruned keeps cache's variables
        self.lb = float(np.sum(self.scores[choice]))
        stats["obs_score"] = self.lb
        self.ub_extra = math.inf
        given = opts.initial_dag if opts.initial_dag is not None else opts.upper_bound_dag
        if given is not None:
            dag, s = _initial_solution(self.cache, given)
            stats["initial_score"] = s
            if s > self.lb:
                self.inc_dag, self.lb = dag, s
        if opts.dual_time and opts.dual_time > 0:
            dag, s, bound = control.borrow(self.cache, "dual", opts.dual_time)
            if dag is not None:
                stats["dual_score"] = s
                if s > self.lb:
                    self.inc_dag, self.lb = dag, s
            self.ub_extra = min(self.ub_extra, bound)
        stats["incumbent_seconds"] = time.perf_counter() - self.t0
        return order

    def build_heuristic(self, order: np.ndarray) -> None:
        """The pattern databases (static groups from OBS's ordering, or the simple bound)."""
        t1 = time.perf_counter()
        used = self.opts.heuristic if pending() is None else "simple"   # stopping: the cheap bound will do
        if used == "static":
            groups, self.rl = choose_groups(self.pruned, order, self.group_size)
        else:
            groups = make_groups(self.pruned, 1)
            self.rl = relabel(self.pruned, groups)
        hstart = self.rl.h_start()
        self.stats.update(heuristic=used, groups=[len(gr) for gr in groups], h_start=hstart,
                          heuristic_seconds=time.perf_counter() - t1)
        self.control.improved(best=self.lb, bound=min(hstart, self.ub_extra), phase="incumbent")

    # ---- the layers -----------------------------------------------------------------------
    def search(self) -> None:
        n, stats = self.n, self.stats
        self.threshold = self.lb + 0.5 * self.control.tolerance * max(abs(self.lb), 1.0)
        self.pruned_max = -math.inf
        self.totals = np.zeros(4, dtype=np.int64)          # pops, generated, pruned, infeasible
        self.layer_sizes = [1]
        self.disk_layers = 0
        baseline = _resident_bytes()
        stats["memory_baseline"] = baseline
        self.budget = _Budget(max(self.mem - baseline, min(self.mem, MIN_SEARCH_MEMORY)), n)
        self.files: list[LayerFiles | None] = [None] * (n + 1)
        self.keys, self.g = np.zeros(1, dtype=np.uint64), np.zeros(1)
        self.peak_disk = 0
        self.goal_g = -math.inf
        self.area = area = TempArea(self.opts.tmp_dir)
        if area.reaped:
            stats["stale_tmp_dirs_removed"] = len(area.reaped)
        self.blocks = LayerBlocks(self.workers) if self.workers > 1 else None
        stats["threads"] = self.workers
        self.parallel_layers = 0
        self.projections: list[float | None] = []
        self.t_layers = time.perf_counter()
        try:
            for level in range(n):
                if not self.layer(level):
                    break
            self.reach_goal()
        except KeyboardInterrupt:
            self.status, self.message = "interrupted", "interrupted by the user"
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            self.status = "memory_limit"
            self.message = f"temporary disk space exhausted in {self.opts.tmp_dir or 'the temp dir'}: {exc}"
        finally:
            stats["disk_bytes_written"] = area.bytes_written
            stats["parallel_layers"] = self.parallel_layers
            if self.blocks is not None:
                self.blocks.close()
            area.cleanup()

    def layer(self, level: int) -> bool:
        """Expand layer ``level`` into layer ``level + 1``; False when the search stops."""
        n, control = self.n, self.control
        self.status = control.should_stop(nodes=int(self.totals[0]))
        if self.status:
            self.message = f"stopped before layer {level + 1} of {n}"
            return False
        out = LayerFiles(self.area, level + 1)
        self.files[level + 1] = out
        fstate, self.status = self.expand(level, out)
        self.peak_disk = max(self.peak_disk, self.area.disk_usage())
        if self.files[level] is not None:
            self.files[level].drop_scores()
        if self.status:
            self.message = f"stopped in layer {level + 1} of {n}"
            return False
        self.pruned_max = max(self.pruned_max, float(fstate[1]))
        self.layer_sizes.append(out.count)
        if out.count == 0:
            return False
        if out.count <= self.budget.ram_nodes:
            self.keys, self.g = out.load()
        else:
            self.disk_layers += 1
        self.more_obs(level)
        left = remaining_seconds(self.layer_sizes, n, time.perf_counter() - self.t_layers)
        self.projections.append(left)
        control.improved(bound=tree_bound(self.lb, float(fstate[0]), self.pruned_max), layer=level + 1,
                         nodes=out.count, **({} if left is None else {"eta": f"{left:.0f}s"}))
        if left is not None:
            control.estimate(left, layer=level + 1)
        return True

    def expand(self, level: int, out: LayerFiles):
        """Layer ``level`` (in RAM or on disk) expanded into ``out``, by the threads' blocks
        when the layer is in RAM and its output fits, else streamed; (frontier state, status)."""
        n, keys, blocks, budget = self.n, self.keys, self.blocks, self.budget
        if keys is not None and blocks is not None and blocks.usable(len(keys), n) \
                and _fits(len(keys), n, level, budget):
            self.parallel_layers += 1
            try:
                return blocks.expand(keys, self.g, out, n, self.rl, self.scores, self.threshold,
                                     budget.output, self.control, self.totals)
            finally:
                out.close()
                self.keys = self.g = None
        src = LayerSource(n, self.files[level], keys, self.g, budget.stream_buffer) if keys is not None \
            else LayerSource(n, self.files[level], buffer=budget.stream_buffer)
        self.keys = self.g = None
        try:
            return _build_layer(src, out, n, self.rl, self.scores, self.threshold, budget, self.control,
                                self.totals)
        finally:
            src.close()
            out.close()
            del src                               # free layer l before loading layer l+1

    def more_obs(self, level: int) -> None:
        """OBS restarts earned by the nodes expanded so far (while its time lasts); a better
        ordering raises the incumbent and the pruning threshold."""
        obs, first, patience = self.obs, self.first, self.patience
        if first is None or obs.done(patience) or time.perf_counter() >= self.obs_deadline:
            return
        allowed = first + int(sum(self.layer_sizes[:-1])) // OBS_NODES_PER_RESTART
        if obs.restarts < allowed and obs.run(self.obs_deadline - time.perf_counter(),
                                              max_restarts=allowed, patience=patience):
            o, s_obs = obs.result()
            if s_obs > self.lb:
                choice, _ = self.pruned.best_for_order(o)
                self.inc_dag, self.lb = dag_of(self.pruned, choice), float(np.sum(self.scores[choice]))
                self.threshold = self.lb + 0.5 * self.control.tolerance * max(abs(self.lb), 1.0)
                self.control.improved(best=self.lb, layer=level + 1)

    def reach_goal(self) -> None:
        """After the last layer: the goal's DAG when it beats the incumbent, status optimal."""
        n = self.n
        if self.status is None and len(self.layer_sizes) == n + 1 and self.layer_sizes[-1] == 1:
            self.goal_g = float(self.files[n].load()[1][0])
            if self.goal_g > self.lb:
                self.inc_dag = _reconstruct(self.pruned, self.rl, self.cache.names, self.files, n)
                self.lb = float(self.cache.dag_score(self.inc_dag.parents))
        if self.status is None:
            self.status = "optimal"
            self.control.improved(best=self.lb, bound=tree_bound(self.lb, self.pruned_max, self.goal_g))

    def result(self) -> SolveResult:
        status, sizes = self.status, self.layer_sizes
        self.stats.update(expanded=int(sum(sizes[:-1])) if status == "optimal" else None,
                          generated=int(self.totals[1]), pruned=int(self.totals[2]), layer_sizes=sizes,
                          max_layer=max(sizes), disk_layers=self.disk_layers, peak_disk_bytes=self.peak_disk,
                          projected_seconds=self.projections, obs_restarts=self.obs.restarts)
        bound = self.control.bound if status != "optimal" else tree_bound(self.lb, self.pruned_max, self.goal_g)
        return SolveResult(dag=self.inc_dag, score=self.lb, upper_bound=bound, status=status, method="bfbnb",
                           stats=self.stats, message=self.message)


def _workers(threads: Any) -> int:
    """Threads of the layer expansion (``threads`` option: None or 0, every usable core)."""
    if isinstance(threads, bool) or not (threads is None or isinstance(threads, (int, np.integer))) \
            or (threads is not None and threads < 0):
        raise InputError(f"threads must be a non-negative integer (0: every core), got {threads!r}")
    return cores() if not threads else int(threads)


def _fits(count: int, n: int, level: int, budget: _Budget) -> bool:
    """Whether the blocks' output, held until it is written in order, fits the RAM budget:
    at most min(C(n, l+1), count·(n-l)) nodes against the nodes an in-RAM layer may hold."""
    nxt = min(math.comb(n, level + 1), count * (n - level))
    return nxt <= budget.ram_nodes


def _resident_bytes() -> int:
    """The process's resident set size now (Linux /proc; else its peak, from getrusage)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak) * (1 if sys.platform == "darwin" else 1024)


class _Budget:
    """How ``memory_limit`` is shared (see :mod:`lpbn.bfbnb.external`)."""

    def __init__(self, mem: int, n: int):
        widest = math.comb(n, n // 2)       # no layer of the order graph holds more nodes
        self.ram_nodes = min(int(0.4 * mem / 16), widest)
        self.stream_buffer = min(max(64, int(0.2 * mem / (16 * n))), max(64, widest))
        self.output = min(max(64, int(0.1 * mem / 20)), max(64, widest))


def _build_layer(src: LayerSource, out: LayerFiles, n: int, rl: Relabelled, scores, threshold,
                 budget: _Budget, control, totals):
    """Run the merge kernel over one layer, writing the next; returns (fstate, stop status)."""
    sc = MergeScratch(n, budget.output)
    ok, og, oc, ocount, state, fstate = sc.ok, sc.og, sc.oc, sc.ocount, sc.state, sc.fstate
    out.open_write()
    status = None
    while True:
        r = K.merge_expand(src.bk, src.bg, src.blen, src.bpos, src.bdone, n, rl.woff, rl.bv,
                           rl.starts, scores, rl.group_lo, rl.group_mask, rl.table_off, rl.tables,
                           threshold, *sc.args())
        if r >= 0:
            src.refill(r)
        elif r == K.OUTPUT_FULL:
            c = int(ocount[0]) - 1
            out.append(ok[:c], og[:c], oc[:c])
            ok[0], og[0], oc[0] = ok[c], og[c], oc[c]
            ocount[0] = 1
        elif r == K.DONE:
            c = int(ocount[0])
            out.append(ok[:c], og[:c], oc[:c])
            break
        status = control.should_stop(nodes=int(totals[0] + state[0]))
        if status:
            break
    totals += state
    return fstate, status


def _reconstruct(pruned: ScoreCache, rl: Relabelled, names, files, n: int) -> DAG:
    """Walk back from the goal through the per-layer records (§5.5); keys use rl's labels."""
    parents: list[tuple[int, ...]] = [()] * n
    key = (1 << n) - 1
    for level in range(n, 0, -1):
        c = files[level].lookup(key)
        x = int(pruned.family[c])
        parents[x] = pruned.parents(c)
        key &= ~(1 << int(rl.new_of_old[x]))
    return DAG(names, parents)


solve_bfbnb.options_class = BfbnbOptions
