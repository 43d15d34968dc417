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

MAX_VARIABLES = 64
#: Default pattern-database group size: SMALL_GROUP up to SMALL_GROUP_MAX_N variables (two
#: groups cover them; the 2^20-entry tables of LARGE_GROUP and the partitions tried for them
#: cost more than the nodes they save: one thread, 20 -> 16, mushroom 1.4 -> 0.5 s, sensors
#: 3.3 -> 2.2 s, steel 4.5 -> 3.8 s, autos 2.1 -> 1.3 s, flag 0.9 -> 0.3 s, parkinsons 0.56 ->
#: 0.36 s; horse 0.41 -> 0.59 s the one loss), LARGE_GROUP beyond (alarm1000: 2 s with groups
#: of 20, unsolved in 120 s with 16; spectf 3.7 -> 6.9 s).
SMALL_GROUP, LARGE_GROUP, SMALL_GROUP_MAX_N = 16, 20, 30
#: The incumbent's OBS (default effort: ``patience`` = 500 + 50 n restarts in a row without
#: improvement) runs OBS_FIRST_SHARE of that patience before the search; after each layer it
#: may go on up to OBS_FIRST_SHARE x patience + (nodes expanded so far) / OBS_NODES_PER_RESTART
#: restarts in all, until the full patience runs out — so the incumbent's effort follows the
#: search's (about a tenth of its time).  Most caches need no more than the first share
#: (mushroom, parkinsons, sensors, autos, steel: the same incumbent after 1/10 of the
#: restarts, 0.03-0.2 s instead of 0.1-1.7 s), soybean needs 4,521 restarts for its optimum,
#: which its 17 M expansions pay for (counted in nodes, not seconds, so a run is reproducible).
OBS_FIRST_SHARE = 0.1
OBS_NODES_PER_RESTART = 1000




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
    there (``lpbn.show_options("bfbnb")``); they are checked and built once, here.
    """
    (memory_limit, tmp_dir, initial_dag, upper_bound_dag, obs_time, seed, dual_time, heuristic,
     group_size, threads) = BfbnbOptions.build(options, "bfbnb").values()
    n = cache.n
    if n > MAX_VARIABLES:
        raise InputError(f"method 'bfbnb' handles at most {MAX_VARIABLES} variables (this cache has "
                         f"{n}); use method=\"dual\" for larger instances")
    mem = parse_memory(memory_limit)
    workers = _workers(threads)
    if group_size is None:
        group_size = min(n, SMALL_GROUP if n <= SMALL_GROUP_MAX_N else LARGE_GROUP)
    t0 = time.perf_counter()
    pruned = cache.prune_dominated()
    scores = pruned.scores

    # ---- incumbent: OBS (+ optional given DAG / dual solver) -------------------------
    patience = None
    if obs_time is None:
        obs_time, patience = min(10.0, 0.1 + 0.005 * n * n), 500 + 50 * n
    if control.time_limit is not None:
        obs_time = min(obs_time, 0.2 * control.time_limit)
    stats: dict[str, Any] = {"candidates": cache.m, "candidates_pruned_cache": pruned.m,
                             "memory_limit": mem}
    obs = QuickOrderingSearch(pruned, seed=seed)
    obs_deadline = time.perf_counter() + obs_time
    first = None if patience is None else max(1, int(OBS_FIRST_SHARE * patience))
    obs.run(obs_time, max_restarts=first, patience=patience)
    order, lb = obs.result()
    choice, _ = pruned.best_for_order(order)
    inc_dag = dag_of(pruned, choice)   # pruned keeps cache's variables
    lb = float(np.sum(scores[choice]))
    stats["obs_score"] = lb
    ub_extra = math.inf
    given = initial_dag if initial_dag is not None else upper_bound_dag
    if given is not None:
        dag, s = _initial_solution(cache, given)
        stats["initial_score"] = s
        if s > lb:
            inc_dag, lb = dag, s
    if dual_time and dual_time > 0:
        dag, s, bound = control.borrow(cache, "dual", dual_time)
        if dag is not None:
            stats["dual_score"] = s
            if s > lb:
                inc_dag, lb = dag, s
        ub_extra = min(ub_extra, bound)
    stats["incumbent_seconds"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    used = heuristic if pending() is None else "simple"   # stopping: the cheap bound will do
    if used == "static":
        groups, rl = choose_groups(pruned, order, group_size)
    else:
        groups = make_groups(pruned, 1)
        rl = relabel(pruned, groups)
    hstart = rl.h_start()
    stats.update(heuristic=used, groups=[len(gr) for gr in groups], h_start=hstart,
                 heuristic_seconds=time.perf_counter() - t1)
    control.improved(best=lb, bound=min(hstart, ub_extra), phase="incumbent")

    eps = 0.5 * control.tolerance * max(abs(lb), 1.0)
    threshold = lb + eps
    pruned_max = -math.inf
    totals = np.zeros(4, dtype=np.int64)          # pops, generated, pruned, infeasible
    layer_sizes = [1]
    disk_layers = 0
    status = None
    message = ""
    baseline = _resident_bytes()
    stats["memory_baseline"] = baseline
    budget = _Budget(max(mem - baseline, min(mem, MIN_SEARCH_MEMORY)), n)
    files: list[LayerFiles | None] = [None] * (n + 1)
    keys, g = np.zeros(1, dtype=np.uint64), np.zeros(1)
    peak_disk = 0
    goal_g = -math.inf
    area = TempArea(tmp_dir)
    if area.reaped:
        stats["stale_tmp_dirs_removed"] = len(area.reaped)
    blocks = LayerBlocks(workers) if workers > 1 else None
    stats["threads"] = workers
    parallel_layers = 0
    projections: list[float | None] = []
    t_layers = time.perf_counter()
    try:
        for level in range(n):
            status = control.should_stop(nodes=int(totals[0]))
            if status:
                message = f"stopped before layer {level + 1} of {n}"
                break
            out = LayerFiles(area, level + 1)
            files[level + 1] = out
            if keys is not None and blocks is not None and blocks.usable(len(keys), n) \
                    and _fits(len(keys), n, level, budget):
                parallel_layers += 1
                try:
                    fstate, status = blocks.expand(keys, g, out, n, rl, scores, threshold,
                                                   budget.output, control, totals)
                finally:
                    out.close()
                keys = g = None
            else:
                src = LayerSource(n, files[level], keys, g, budget.stream_buffer) if keys is not None \
                    else LayerSource(n, files[level], buffer=budget.stream_buffer)
                keys = g = None
                try:
                    fstate, status = _build_layer(src, out, n, rl, scores, threshold, budget, control,
                                                  totals)
                finally:
                    src.close()
                    out.close()
                del src                               # free layer l before loading layer l+1
            peak_disk = max(peak_disk, area.disk_usage())
            if files[level] is not None:
                files[level].drop_scores()
            if status:
                message = f"stopped in layer {level + 1} of {n}"
                break
            pruned_max = max(pruned_max, float(fstate[1]))
            layer_sizes.append(out.count)
            if out.count == 0:
                break
            if out.count <= budget.ram_nodes:
                keys, g = out.load()
            else:
                disk_layers += 1
            if first is not None and not obs.done(patience) and time.perf_counter() < obs_deadline:
                allowed = first + int(sum(layer_sizes[:-1])) // OBS_NODES_PER_RESTART
                if obs.restarts < allowed and obs.run(obs_deadline - time.perf_counter(),
                                                      max_restarts=allowed, patience=patience):
                    o, s_obs = obs.result()
                    if s_obs > lb:
                        choice, _ = pruned.best_for_order(o)
                        inc_dag, lb = dag_of(pruned, choice), float(np.sum(scores[choice]))
                        threshold = lb + 0.5 * control.tolerance * max(abs(lb), 1.0)
                        control.improved(best=lb, layer=level + 1)
            left = remaining_seconds(layer_sizes, n, time.perf_counter() - t_layers)
            projections.append(left)
            control.improved(bound=tree_bound(lb, float(fstate[0]), pruned_max), layer=level + 1,
                             nodes=out.count, **({} if left is None else {"eta": f"{left:.0f}s"}))
            if left is not None:
                control.estimate(left, layer=level + 1)
        if status is None and len(layer_sizes) == n + 1 and layer_sizes[-1] == 1:
            goal_g = float(files[n].load()[1][0])
            if goal_g > lb:
                inc_dag = _reconstruct(pruned, rl, cache.names, files, n)
                lb = float(cache.dag_score(inc_dag.parents))
        if status is None:
            status = "optimal"
            control.improved(best=lb, bound=tree_bound(lb, pruned_max, goal_g))
    except KeyboardInterrupt:
        status, message = "interrupted", "interrupted by the user"
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        status = "memory_limit"
        message = f"temporary disk space exhausted in {tmp_dir or 'the temp dir'}: {exc}"
    finally:
        stats["disk_bytes_written"] = area.bytes_written
        stats["parallel_layers"] = parallel_layers
        if blocks is not None:
            blocks.close()
        area.cleanup()
    stats.update(expanded=int(sum(layer_sizes[:-1])) if status == "optimal" else None,
                 generated=int(totals[1]), pruned=int(totals[2]), layer_sizes=layer_sizes,
                 max_layer=max(layer_sizes), disk_layers=disk_layers, peak_disk_bytes=peak_disk,
                 projected_seconds=projections, obs_restarts=obs.restarts)
    bound = control.bound if status != "optimal" else tree_bound(lb, pruned_max, goal_g)
    return SolveResult(dag=inc_dag, score=lb, upper_bound=bound, status=status, method="bfbnb",
                       stats=stats, message=message)


def _workers(threads: Any) -> int:
    """Threads of the layer expansion (``threads`` option: None or 0, every usable core)."""
    if isinstance(threads, bool) or not (threads is None or isinstance(threads, (int, np.integer))) \
            or (threads is not None and threads < 0):
        raise InputError(f"threads must be a non-negative integer (0: every core), got {threads!r}")
    from ..workers import cores
    return cores() if not threads else int(threads)


def _fits(count: int, n: int, level: int, budget: _Budget) -> bool:
    """Whether the blocks' output, held until it is written in order, fits the RAM budget:
    at most min(C(n, l+1), count·(n-l)) nodes against the nodes an in-RAM layer may hold."""
    nxt = min(math.comb(n, level + 1), count * (n - level))
    return nxt <= budget.ram_nodes


#: the smallest RAM budget of the layer search (buffers of a few hundred nodes)
MIN_SEARCH_MEMORY = 1 << 20


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
