"""The η ILP as a PuLP model: export (LP/MPS) for any solver, and ``method="pulp-cbc"``.

The model is the one of :mod:`lpbn.lp.model` (Jaakkola et al. 2010, eqs. 2 and 6):
binary ``eta_<i>_<k>`` = 1 when variable i takes its k-th candidate parent set (the
cache's best-first order), one convexity row per variable and one cluster row (eq. 6)
per cluster.  The exported model carries the root cuts (the clusters the HiGHS
cutting-plane loop found), so CBC, Gurobi or CPLEX start from the P_cluster bound, and by
default the generation-number rows of :meth:`lpbn.lp.model.EtaLP.add_generation_rows`
(continuous ``gen_<i>``), which make the exported ILP exact by itself: any solver's optimum
is an optimal DAG.  Without them (``generation=False``) the model is a relaxation and a
solver's answer must be checked for cycles.

``method="pulp-cbc"`` solves it with PuLP's bundled CBC using the same
solve–separate–resolve loop as ``method="highs"``: a third independent solver for tests.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np

from .. import signals
from ..atomic import atomic_write
from ..cache import ScoreCache
from ..lp.clusters import ClusterFamily, cluster_rows_csr
from ..errors import InputError
from ..bound import rounding_margin
from ..result import ERROR, OPTIMAL, SolveResult
from ..incumbent import Incumbent, choice_is_acyclic
from .ilp import decode_choice
from .options import PulpCbcOptions
from ..lp.cut_loop import cut_loop
from ..lp.model import EtaLP
from ..lp.separation import incumbent_clusters
from ..tuning import CBC_START_SECONDS, CBC_MIN_SECONDS, PULP_SECONDS_PER_SET


class _TrackedSubprocess:
    """The ``subprocess`` module as PuLP's CBC driver sees it, with a ``Popen`` that registers
    the CBC process with :func:`lpbn.signals.forward`."""

    def __init__(self, real, stack: contextlib.ExitStack, timeout: float | None = None):
        self._real = real

        class Popen(real.Popen):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                stack.enter_context(signals.forward(self.pid, signal.SIGINT,
                                                    alive=lambda: self.returncode is None))
                if timeout is not None:       # CBC overran its own time limit: stop it
                    timer = threading.Timer(timeout, self._stop)
                    timer.daemon = True
                    timer.start()
                    stack.callback(timer.cancel)

            def _stop(self):
                if self.returncode is None:
                    try:
                        self.send_signal(signal.SIGINT)
                    except OSError:
                        pass
        self.Popen = Popen

    def __getattr__(self, name):
        return getattr(self._real, name)


@contextlib.contextmanager
def _cbc_stops_on_request(timeout: float | None = None):
    """PuLP runs CBC with ``subprocess.Popen`` and blocks until it exits.  CBC stops on SIGINT
    with its best solution so far, so a stop request (SIGINT or SIGTERM to lpbn alone,
    :mod:`lpbn.signals`) is forwarded to it as SIGINT: otherwise SIGTERM would wait for
    CBC's time limit.  (A terminal's Ctrl-C reaches CBC directly as well.)  CBC checks its
    own ``timeLimit`` only between phases (steel: 2 s late), so with ``timeout`` it also gets
    SIGINT that many seconds after it started."""
    from pulp.apis import coin_api
    real = getattr(coin_api, "subprocess", None)
    if real is not subprocess:          # another PuLP layout: no forwarding
        yield
        return
    with contextlib.ExitStack() as stack:
        coin_api.subprocess = _TrackedSubprocess(real, stack, timeout)
        try:
            yield
        finally:
            coin_api.subprocess = real


def _pulp():
    try:
        import pulp
    except ImportError as exc:  # pragma: no cover - pulp is a runtime dependency
        raise InputError("PuLP is not installed (pip install pulp)") from exc
    return pulp


def root_clusters(cache: ScoreCache, *, exact: bool = True, time_limit: float | None = None):
    """The clusters of the HiGHS root cutting-plane loop and its LP bound (see lpbn.lp.cut_loop.cut_loop)."""
    model = EtaLP(cache)
    res = cut_loop(model, mode="clusters", exact=exact, time_limit=time_limit)
    return model.clusters, res


class PulpModel:
    """A PuLP ``LpProblem`` of the η ILP with cluster rows that can be extended."""

    def __init__(self, cache: ScoreCache, clusters: ClusterFamily | None = None, *,
                 integer: bool = True, name: str = "lpbn"):
        pulp = _pulp()
        self.cache = cache
        self.prob = pulp.LpProblem(name, pulp.LpMaximize)
        cat = pulp.LpBinary if integer else pulp.LpContinuous
        local = np.arange(cache.m) - cache.offsets[cache.family]
        self.x = [pulp.LpVariable(f"eta_{int(i)}_{int(k)}", lowBound=0, upBound=1, cat=cat)
                  for i, k in zip(cache.family, local)]
        self.prob += pulp.LpAffineExpression(zip(self.x, cache.scores.tolist())), "score"
        for i in range(cache.n):
            a, b = int(cache.offsets[i]), int(cache.offsets[i + 1])
            expr = pulp.LpAffineExpression((v, 1.0) for v in self.x[a:b])
            self.prob += pulp.LpConstraint(expr, pulp.LpConstraintEQ, f"convex_{i}", 1.0)
        self.clusters = ClusterFamily(cache.n)
        self.generation = False
        if clusters is not None:
            self.add_clusters(clusters.bits)

    def add_generation_rows(self) -> int:
        """Generation columns g_i in [0, n-1] and g_v - g_u - n Σ_{s∋u} η_v(s) >= 1 - n for
        every possible edge u -> v (exact acyclicity for integral η; see lp_model)."""
        if self.generation:
            return 0
        pulp = _pulp()
        cache, n = self.cache, self.cache.n
        g = [pulp.LpVariable(f"gen_{i}", lowBound=0, upBound=max(n - 1, 0)) for i in range(n)]
        edges: dict[tuple[int, int], list[int]] = {}
        for j in range(cache.m):
            v = int(cache.family[j])
            for u in cache.parents(j):
                edges.setdefault((u, v), []).append(j)
        for (u, v), js in sorted(edges.items()):
            expr = pulp.LpAffineExpression([(g[v], 1.0), (g[u], -1.0)]
                                           + [(self.x[j], -float(n)) for j in js])
            self.prob += pulp.LpConstraint(expr, pulp.LpConstraintGE, f"gen_{u}_{v}", 1.0 - n)
        self.generation = True
        return len(edges)

    def add_clusters(self, bits: np.ndarray) -> int:
        """Add the eq. 6 rows of clusters not yet present; returns how many were added."""
        pulp = _pulp()
        bits = np.asarray(bits, dtype=np.uint64).reshape(-1, self.clusters.words)
        fresh = [b for b in bits if self.clusters.add_bitset(b)]
        if not fresh:
            return 0
        ptr, idx = cluster_rows_csr(self.cache, np.array(fresh))
        base = len(self.clusters) - len(fresh)
        for r in range(len(fresh)):
            expr = pulp.LpAffineExpression((self.x[int(j)], 1.0) for j in idx[ptr[r]:ptr[r + 1]])
            self.prob += pulp.LpConstraint(expr, pulp.LpConstraintGE, f"cluster_{base + r}", 1.0)
        return len(fresh)

    def values(self) -> np.ndarray:
        return np.array([v.varValue or 0.0 for v in self.x], dtype=np.float64)


def _header(cache: ScoreCache, comment: str, n_clusters: int, bound: float,
            generation: bool) -> str:
    lines = [
        "lpbn η ILP (Jaakkola et al. 2010, eqs. 2 and 6); maximise the total log-score.",
        f"source: {cache.source or '<cache>'}; n={cache.n}; candidates={cache.m}; "
        f"root cluster rows={n_clusters}; root LP bound={bound!r}",
        "eta_<i>_<k> = 1: variable i takes its k-th candidate parent set (best-first order).",
        ("gen_<i>: generation numbers; their rows exclude every directed cycle, so the ILP is exact."
         if generation else
         "The cluster rows are a subset of eq. 6: check a solution for cycles and add rows."),
        "variables: " + " ".join(f"{i}={name}" for i, name in enumerate(cache.names[:200]))
        + (" ..." if cache.n > 200 else ""),
    ]
    return "".join(f"{comment} {line}\n" for line in lines)


def export_model(cache: ScoreCache, path: str | os.PathLike, fmt: str = "lp", *,
                 root_cuts: bool = True, exact: bool = True, time_limit: float | None = None,
                 clusters: ClusterFamily | None = None, generation: bool = True) -> dict:
    """Write the η ILP with the root cluster cuts to ``path`` in LP or MPS format (atomically).

    ``generation`` adds the generation-number rows, so the file is an exact ILP for any
    MILP solver (otherwise a relaxation whose answers must be checked for cycles).

    Returns a dict with the number of clusters and the root LP bound.
    """
    if fmt not in ("lp", "mps"):
        raise InputError(f"unknown model format {fmt!r}; choose lp or mps")
    bound = math.inf
    if clusters is None:
        clusters = ClusterFamily(cache.n)
        if root_cuts:
            clusters, res = root_clusters(cache, exact=exact, time_limit=time_limit)
            bound = res.value
    model = PulpModel(cache, clusters)
    n_gen = model.add_generation_rows() if generation else 0
    tmpdir = tempfile.mkdtemp(prefix="lpbn-export-")
    try:
        tmp = Path(tmpdir) / f"model.{fmt}"
        if fmt == "lp":
            model.prob.writeLP(str(tmp))
            header = _header(cache, "\\", len(clusters), bound, generation)
        else:
            model.prob.writeMPS(str(tmp), with_objsense=True)
            header = _header(cache, "*", len(clusters), bound, generation)
        body = tmp.read_text()
        with atomic_write(path) as fh:
            fh.write(header)
            fh.write(body)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return {"path": str(path), "format": fmt, "clusters": len(clusters), "root_bound": bound,
            "columns": cache.m + (cache.n if generation else 0),
            "rows": cache.n + len(clusters) + n_gen, "generation_rows": n_gen}


def solve_pulp_cbc(cache: ScoreCache, control, **options) -> SolveResult:
    """``method="pulp-cbc"``: root cuts (HiGHS LP), then CBC solve–separate–resolve.

    ``acyclicity="generation"`` (default) adds the generation-number rows, so the first CBC
    solve is exact; ``"lazy"`` relies on cluster rows added after cyclic incumbents only.

    A CBC optimum whose incumbent is acyclic is optimal for the whole problem (its rows
    are valid for every DAG).  At a time limit the best DAG and the best bound so far
    (root LP or last proven MIP value) are returned.  ``options``: the fields of
    :class:`lpbn.highs.options.PulpCbcOptions`, checked and built once, here.
    """
    root_cuts, exact_root, prune, threads, msg, memory_limit, acyclicity = \
        PulpCbcOptions.build(options, "pulp-cbc").values()
    pulp = _pulp()
    if prune:  # safe for the optimum (ScoreCache.prune_dominated)
        cache = cache.prune_dominated()
    incumbent = Incumbent(cache, lambda score: control.improved(best=score), check_acyclic=True)
    offer = incumbent.offer
    stats = {"mip_rounds": 0, "cuts_incumbent": 0, "root_bound": None}

    offer(cache.best_for_order(np.arange(cache.n))[0])
    clusters = ClusterFamily(cache.n)
    if root_cuts:
        lp = EtaLP(cache)
        res = cut_loop(lp, mode="clusters", exact=exact_root, time_limit=control.remaining(),
                       on_bound=lambda v, eta: (control.improved(bound=v), offer(decode_choice(cache, eta))))
        clusters = lp.clusters
        stats["root_bound"] = res.value
        # building the PuLP model takes about PULP_SECONDS_PER_SET per candidate (steel,
        # 37,015 sets: 0.6 s): not when the limit would pass before CBC could start
        stop = control.should_stop()
        if not stop and control.remaining() < cache.m * PULP_SECONDS_PER_SET + CBC_MIN_SECONDS:
            stop = "time_limit"
        if stop:
            stats["clusters"] = len(clusters)
            return incumbent.result(control, stop, "pulp-cbc", stats, "stopped after the root cutting-plane loop")
    model = PulpModel(cache, clusters)
    if acyclicity == "generation":
        stats["generation_rows"] = model.add_generation_rows()

    def finish(status: str, message: str = "") -> SolveResult:
        stats["clusters"] = len(model.clusters)
        return incumbent.result(control, status, "pulp-cbc", stats, message)

    while True:
        if control.closed():
            return finish(OPTIMAL)
        stop = control.should_stop()
        if stop:
            return finish(stop)
        left = control.remaining()
        if math.isfinite(left) and left < CBC_MIN_SECONDS:
            return finish("time_limit")       # too little left to start CBC and read its answer
        kw = {"timeLimit": max(CBC_MIN_SECONDS, left - CBC_START_SECONDS)} if math.isfinite(left) else {}
        solver = pulp.PULP_CBC_CMD(msg=msg, threads=threads, gapRel=1e-10, **kw)
        try:
            with _cbc_stops_on_request(left if math.isfinite(left) else None):
                model.prob.solve(solver)
        except pulp.PulpSolverError as exc:
            stop = control.should_stop()
            if stop not in ("interrupted", "time_limit"):
                raise
            stats["cbc_error"] = str(exc)       # CBC ended by the stop request, no solution
            return finish(stop)
        stats["mip_rounds"] += 1
        status = pulp.LpStatus[model.prob.status]
        sol_status = getattr(model.prob, "sol_status", None)
        x = model.values()
        if status == "Infeasible":
            return finish("infeasible", "CBC reports the ILP infeasible")
        has_point = status == "Optimal" or sol_status in (pulp.LpSolutionIntegerFeasible,
                                                          pulp.LpSolutionOptimal)
        if not has_point:
            return finish(control.should_stop() or "time_limit", f"CBC status {status}")
        from ..lp.model import choice_from_eta
        choice = choice_from_eta(cache, x)
        proved = status == "Optimal" and sol_status in (None, pulp.LpSolutionOptimal)
        if choice_is_acyclic(cache, choice):
            offer(choice)
            if proved:
                # CBC reports no dual bound, only that it proved its point optimal within its
                # own tolerances: not a bound lpbn reports.  lpbn proves it again from duals
                # it recomputes itself (_prove_cbc_point) and reports what that proves
                return _prove_cbc_point(cache, control, model, choice, stats, prune, finish)
            continue
        cuts = incumbent_clusters(cache, choice)
        added = model.add_clusters(np.array(cuts)) if cuts else 0
        stats["cuts_incumbent"] += added
        offer(decode_choice(cache, x))
        if not added:
            return finish(ERROR, "a cyclic incumbent violates no new cluster (numerical trouble)")


def _prove_cbc_point(cache: ScoreCache, control, model: PulpModel, choice: np.ndarray, stats: dict,
                     prune: bool, finish) -> SolveResult:
    """The bound after CBC proved ``choice`` (acyclic) optimal: CBC's claim rests on its own
    tolerances, presolve and cuts, none of which lpbn can check, so the bound is proved again
    by :func:`lpbn.highs.certify.certify_tree` (an LP branch and bound over the model's
    cluster rows whose every node's bound is eq. 8 of Jaakkola et al. 2010 recomputed with
    ``math.fsum`` from the node LP's sign-corrected row duals, valid for any duals), seeded
    with the point's score as the target.  A complete tree bounds every DAG by its largest
    leaf bound (at most the target plus the closing tolerance) plus the rounding of the eq. 8
    sums (the margin); an unfinished one (time ran out) by its largest open leaf's bound, status
    ``time_limit``.  The tree is kept as the answer's certificate (``extra["certificate_tree"]``,
    checked by ``lpbn verify``)."""
    from .certify import certify_tree
    target = math.fsum(cache.scores[choice].tolist())
    bits = np.asarray(model.clusters.bits, dtype=np.uint64).reshape(-1, cache.words)
    proof = certify_tree(cache, bits, np.ones(len(bits), dtype=np.int64), target,
                         time_limit=control.remaining(), candidates="non-dominated" if prune else "all")
    lams = proof.tree["lambda"].values()
    scale = float(np.abs(cache.scores).max()) * cache.n + max((float(np.sum(lam)) for lam in lams), default=0.0)
    rounding = rounding_margin(2.0 * scale, cache.n + len(proof.tree["k"]))
    stats.update(proof.stats, bound_source="lpbn-tree-after-cbc", proof_seconds=round(proof.seconds, 3),
                 proof_complete=proof.complete)
    tree = proof.tree
    if proof.complete:    # every leaf closed: the largest leaf bound (<= target + closing tolerance)
        control.improved(bound=proof.closed_bound + rounding, margin=rounding)
    else:
        control.improved(bound=proof.bound + rounding, margin=rounding)
        tree.update(covers="partial", bound=proof.bound + rounding)
    res = finish(OPTIMAL if control.closed() else control.should_stop() or "time_limit",
                 "" if proof.complete else "CBC proved its DAG optimal; lpbn's own proof of that ran "
                 f"out of time after {proof.nodes} LP nodes (the bound is what it proved)")
    res.extra["certificate_tree"] = tree
    return res


solve_pulp_cbc.options_class = PulpCbcOptions
