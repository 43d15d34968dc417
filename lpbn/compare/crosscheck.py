"""Cross-checks: LP duality between the dual solver and HiGHS, and agreement of exact methods.

An exact method is trusted only when an independent solver agrees.  Two kinds of check:

* **LP duality** (Jaakkola et al. 2010, eq. 7 and its dual, eq. 8): for the cluster family
  the dual solver ended with, the dual objective at any λ >= 0 is >= the LP optimum over
  exactly those clusters (weak duality), and equal to it at convergence (strong duality).
  HiGHS solves that primal LP independently; a disagreement beyond 1e-6 relative means a
  bug in one of the two.
* **Method agreement**: every method's answer must be an acyclic DAG whose recomputed score
  is its reported score; every proven bound must be >= every other method's score; two
  optimal answers must have equal scores (1e-6 relative).

:func:`crosscheck` runs both and returns a :class:`CrossCheckReport`; ``lpbn check FILE``
prints it and exits non-zero on any disagreement.
"""

from __future__ import annotations

import importlib
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from ..cache import ScoreCache
from ..errors import LpbnError
from ..lp.clusters import ClusterFamily
from ..lp.model import EtaLP

#: Relative tolerance of every comparison (the project's agreement standard).
CHECK_TOL = 1e-6
#: Largest n for which the subset DP joins the method comparison by default.
DP_MAX_N = 20
#: Largest n for which PuLP/CBC joins the method comparison by default.
PULP_MAX_N = 15


#: What each method's optimality proof runs on, beyond what every method shares (the score
#: reader and the subset-dominance pruning of lpbn.cache, re-derived by ``lpbn verify``).
#: Two methods' agreement is independent evidence only as far as these sets are disjoint.
PROOF_CODE = {
    "dp": ("subset DP (lpbn.dp)",),
    "brute": ("enumeration (lpbn.brute)",),
    "bfbnb": ("order-graph search (lpbn.bfbnb)",),
    # HiGHS: the dual's exact LP polish (lp_polish, on by default below 300,000 candidates),
    # whose rows come from lpbn.lp.clusters; the separation routines of lpbn.lp, which both the
    # dual and highs call, only choose which clusters enter (every bound holds for any
    # clusters), so they are not proof code
    "dual": ("eq. 8 CD kernels (lpbn.dual)", "HiGHS", "cluster rows (lpbn.lp.clusters)"),
    "highs": ("HiGHS", "cluster rows (lpbn.lp.clusters)", "eta LP model (lpbn.lp.model)"),
    "pulp-cbc": ("CBC", "cluster rows (lpbn.lp.clusters)", "eta LP model (lpbn.lp.model)"),
}


def independence(a: str, b: str, cd_only: bool = False) -> str:
    """How independent the agreement of methods ``a`` and ``b`` is (see PROOF_CODE)."""
    def code(m):
        got = PROOF_CODE.get(m)
        if got is None:
            return None
        return tuple(c for c in got if not (cd_only and m == "dual" and c == "HiGHS"))
    ca, cb = code(a), code(b)
    if ca is None or cb is None:
        return "unknown sharing"
    shared = [c for c in ca if c in cb]
    if not shared:
        return "independent (no proof code shared beyond the score reader and dominance pruning)"
    return "NOT independent: both rely on " + ", ".join(shared)


class CrossCheckError(LpbnError):
    """Raised by :meth:`CrossCheckReport.raise_if_failed` when two solvers disagree."""


@dataclass
class Check:
    """One comparison: ``ok`` is True (pass), False (disagreement) or None (not run)."""

    name: str
    ok: bool | None
    detail: str
    values: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        tag = {True: "PASS", False: "FAIL", None: "SKIP"}[self.ok]
        return f"{tag}  {self.name}: {self.detail}"


@dataclass
class CrossCheckReport:
    """All checks of one cache; ``ok`` is False when any check failed."""

    source: str | None
    n: int
    checks: list[Check] = field(default_factory=list)
    seconds: float = 0.0
    #: which comparisons are independent evidence, and which share code (see PROOF_CODE)
    independence: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok is not False for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.ok is False]

    def to_text(self) -> str:
        head = (f"lpbn check {self.source or '<cache>'} (n={self.n}): "
                + ("all checks agree" if self.ok else
                   f"DISAGREEMENT in {len(self.failures)} check(s)"))
        lines = [head] + ["  " + c.line() for c in self.checks]
        if self.independence:
            lines += ["independence of the comparisons:"] + ["  " + t for t in self.independence]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        def clean(v):
            return v if not (isinstance(v, float) and not math.isfinite(v)) else None
        return {"source": self.source, "n": self.n, "ok": self.ok, "seconds": self.seconds,
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail,
                            "values": {k: clean(v) for k, v in c.values.items()}}
                           for c in self.checks],
                "independence": list(self.independence)}

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    def raise_if_failed(self) -> None:
        if not self.ok:
            raise CrossCheckError("solvers disagree: " + "; ".join(c.line() for c in self.failures))

    def __str__(self) -> str:
        return self.to_text()


def _scale(*vals: float) -> float:
    return max([1.0] + [abs(v) for v in vals if math.isfinite(v)])


def load_root_relaxation():
    """``lpbn.dual.solver.root_relaxation`` or None when the dual solver is not available."""
    try:
        mod = importlib.import_module("lpbn.dual.solver")
    except ImportError:
        return None
    return getattr(mod, "root_relaxation", None)


def _cluster_bits(clusters, n: int) -> np.ndarray:
    if isinstance(clusters, ClusterFamily):
        return clusters.bits
    if clusters is None:
        return np.zeros((0, ClusterFamily(n).words), dtype=np.uint64)
    return np.asarray(clusters, dtype=np.uint64)


def duality_checks(cache: ScoreCache, root, tol: float = CHECK_TOL) -> list[Check]:
    """Compare a dual root relaxation (RootRelaxation-like) with the HiGHS LP over its clusters.

    ``root`` needs ``value``, ``clusters`` and ``converged``; ``best_score``/``best_dag``
    are checked when present.
    """
    checks: list[Check] = []
    bits = _cluster_bits(getattr(root, "clusters", None), cache.n)
    lp = EtaLP(cache, bits).solve_lp()
    dual = float(root.value)
    vals = {"dual_value": dual, "highs_lp_value": lp.value, "clusters": int(len(bits)),
            "converged": bool(getattr(root, "converged", False))}
    if lp.status != "optimal":
        checks.append(Check("highs-lp", False, f"HiGHS could not solve the LP over the dual's "
                            f"{len(bits)} clusters (status {lp.status})", vals))
        return checks
    scale = _scale(dual, lp.value)
    diff = dual - lp.value
    vals["difference"] = diff
    ok_weak = diff >= -tol * scale
    checks.append(Check(
        "weak-duality", ok_weak,
        f"dual value {dual:.10g} {'>=' if ok_weak else '<'} HiGHS LP value {lp.value:.10g} over the "
        f"same {len(bits)} clusters (difference {diff:.3g})", vals))
    if getattr(root, "converged", False):
        ok = abs(diff) <= tol * scale
        checks.append(Check(
            "strong-duality", ok,
            f"converged dual value {dual:.10g} {'==' if ok else '!='} HiGHS LP value {lp.value:.10g} "
            f"(|difference| {abs(diff):.3g}, tolerance {tol * scale:.3g})", vals))
    else:
        checks.append(Check("strong-duality", None,
                            "dual did not report convergence; only weak duality checked", vals))
    dag = getattr(root, "best_dag", None)
    best = getattr(root, "best_score", None)
    if dag is not None and best is not None and math.isfinite(float(best)):
        checks.extend(_answer_checks(cache, "dual-root", dag, float(best), tol))
        ok = dual >= float(best) - tol * _scale(dual, float(best))
        checks.append(Check("dual-root bound >= its DAG", ok,
                            f"bound {dual:.10g} vs decoded score {float(best):.10g}",
                            {"bound": dual, "score": float(best)}))
    return checks


def _answer_checks(cache: ScoreCache, label: str, dag, score: float, tol: float) -> list[Check]:
    """The DAG is acyclic, uses candidate parent sets and scores what was reported."""
    if dag is None:
        return [Check(f"{label} answer", False, "no DAG returned", {})]
    if not dag.is_acyclic():
        return [Check(f"{label} answer", False, f"returned DAG has a cycle {dag.find_cycle()}", {})]
    try:
        real = cache.dag_score(dag.parents)
    except ValueError as exc:
        return [Check(f"{label} answer", False, str(exc), {})]
    ok = abs(real - score) <= tol * _scale(real)
    return [Check(f"{label} answer", ok,
                  f"acyclic; recomputed score {real:.10g} {'==' if ok else '!='} reported {score:.10g}",
                  {"reported": score, "recomputed": real})]


def method_checks(cache: ScoreCache, results: dict[str, Any], tol: float = CHECK_TOL) -> list[Check]:
    """Pairwise agreement of SolveResults: answers valid, bounds >= scores, optima equal."""
    checks: list[Check] = []
    for name, r in results.items():
        if r.dag is not None and name != "dual-root":  # dual-root: checked in duality_checks
            checks.extend(_answer_checks(cache, name, r.dag, r.score, tol))
        if r.upper_bound < r.score - tol * _scale(r.score):
            checks.append(Check(f"{name} bound", False,
                                f"upper bound {r.upper_bound:.10g} below its own score {r.score:.10g}"))
    names = list(results)
    for a in names:
        for b in names:
            if a == b:
                continue
            ra, rb = results[a], results[b]
            if math.isfinite(rb.score) and math.isfinite(ra.upper_bound):
                ok = ra.upper_bound >= rb.score - tol * _scale(ra.upper_bound, rb.score)
                if not ok:
                    checks.append(Check(f"{a} bound vs {b} score", False,
                                        f"{a}'s bound {ra.upper_bound:.10g} < {b}'s DAG score "
                                        f"{rb.score:.10g}: an invalid bound",
                                        {"bound": ra.upper_bound, "score": rb.score}))
            if a < b and ra.optimal and rb.optimal:
                ok = abs(ra.score - rb.score) <= tol * _scale(ra.score, rb.score)
                checks.append(Check(f"{a} == {b}", ok,
                                    f"optimal scores {ra.score:.10g} and {rb.score:.10g}",
                                    {a: ra.score, b: rb.score}))
    for name, r in results.items():
        if not r.optimal and name != "dual-root":
            checks.append(Check(f"{name} status", None,
                                f"{name} stopped with status {r.status} (score {r.score:.10g}, "
                                f"bound {r.upper_bound:.10g}); only bounds compared"))
    return checks


def _independence_notes(names: list[str], duality: bool, dual_options: dict) -> list[str]:
    cd_only = dual_options.get("lp_polish") in (False, "off")
    notes = ["answers: every DAG is re-scored with lpbn.cache (shared by all methods); `lpbn verify` "
             "re-scores in plain numpy"]
    if duality:
        notes.append("weak duality (dual value >= HiGHS LP): independent — the dual evaluates eq. 8 in its own "
                      "kernels, HiGHS solves the primal LP built by lpbn.lp.clusters" if cd_only else
                      "weak/strong duality: NOT independent by default — the dual's root value comes from its exact "
                      "LP polish, itself a HiGHS solve over lpbn.lp.clusters rows; --dual-cd-only compares the "
                      "coordinate-descent value alone (independent, weak duality only)")
    methods = [m for m in names if m != "dual-root"]
    for i, a in enumerate(methods):
        for b in methods[i + 1:]:
            notes.append(f"{a} vs {b}: {independence(a, b, cd_only=False)}")
    if "dual" in methods or "highs" in methods:
        notes.append("`lpbn solve --certificate` + `lpbn verify` re-checks a dual or highs bound in plain numpy "
                     "with no solver code (the dual's whole B&B tree; HiGHS's root LP only)")
    return notes


def default_methods(cache: ScoreCache, dual_available: bool) -> list[str]:
    methods = ["highs"]
    if cache.n <= DP_MAX_N:
        methods.append("dp")
    if cache.n <= PULP_MAX_N:
        methods.append("pulp-cbc")
    if dual_available:
        methods.append("dual")
    return methods


def crosscheck(cache: ScoreCache | str, *, methods: Iterable[str] | None = None,
               time_limit: float | None = None, tol: float = CHECK_TOL, root=None,
               dual: bool = True, dual_options: dict | None = None) -> CrossCheckReport:
    """Run the LP duality check and the method-agreement check on one cache.

    Parameters
    ----------
    cache : ScoreCache or path
    methods : names, optional
        Methods to compare (default: highs; dp for n <= 20; pulp-cbc for n <= 15; dual when
        available).
    time_limit : float, optional
        Per solver run.
    root : RootRelaxation-like, optional
        Use this dual root relaxation instead of computing one (``value``, ``clusters``,
        ``converged``, optionally ``best_score``/``best_dag``) — lets a test plant a value.
    dual : bool
        Run the dual's root relaxation (when ``root`` is not given).
    dual_options : dict, optional
        Extra keyword arguments of ``root_relaxation`` (e.g. ``{"lp_polish": False}`` to
        check the coordinate-descent value alone, which is then only weakly dual).

    Returns
    -------
    CrossCheckReport — ``report.ok`` is False on any disagreement.
    """
    from ..solve import available_methods, solve
    if not isinstance(cache, ScoreCache):
        from ..formats import read_scores
        cache = read_scores(cache)
    t0 = time.perf_counter()
    report = CrossCheckReport(cache.source, cache.n)
    root_fn = load_root_relaxation()
    if root is None and dual:
        if root_fn is None:
            report.checks.append(Check("lp-duality", None,
                                       "dual solver (lpbn.dual.solver.root_relaxation) not available"))
        else:
            root = root_fn(cache, time_limit=time_limit, **(dual_options or {}))
    if root is not None:
        report.checks.extend(duality_checks(cache, root, tol))
    avail = set(available_methods())
    names = list(methods) if methods is not None else default_methods(cache, "dual" in avail
                                                                      and root_fn is not None)
    results = {}
    for name in names:
        if name not in avail:
            report.checks.append(Check(f"{name} run", None, f"method {name!r} not available"))
            continue
        results[name] = solve(cache, method=name, time_limit=time_limit)
    if root is not None and getattr(root, "best_dag", None) is not None:
        from ..result import SolveResult
        best = float(root.best_score)
        results["dual-root"] = SolveResult(root.best_dag, best, float(root.value), "time_limit",
                                           "dual-root")
    report.checks.extend(method_checks(cache, results, tol))
    report.independence = _independence_notes(list(results), root is not None, dual_options or {})
    report.seconds = time.perf_counter() - t0
    return report
