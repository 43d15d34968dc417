"""Side-by-side bounds of the relaxations, as in Jaakkola et al. 2010, §7.

Their phenotype example: cycle inequalities only give −5993, cycles plus the clusters the
heuristic found −6064, and the optimum is −6071.  :func:`bound_gap_table` gives the same
comparison for any cache:

1. the LP bound with lifted cycle inequalities only (P_cycle, eq. 5, exact separation);
2. the dual bound with the clusters the dual's heuristics found (eq. 8, ``lpbn.dual``);
3. the HiGHS LP bound with exact cluster separation (P_cluster over all clusters, eq. 6);
4. the same LP with {0, 1/2}-Chvátal–Gomory cuts too (:mod:`lpbn.lp.zero_half`, as the HiGHS
   ILP adds them), which cut the half-integral points of P_cluster: the zero-cost cuts, then
   also those from nearly tight rows (``zero_half="slack"``, the ILP's default beyond 40
   variables);
5. the best integral score found (``method="highs"`` within the time limit);
6. the known optimum, when given.

Every bound is an upper bound on the optimum; gaps are relative to the known optimum when
given, else to the best integral score.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

from ..cache import ScoreCache
from .crosscheck import load_root_relaxation
from ..highs.ilp import decode_choice
from ..lp.cut_loop import cut_loop
from ..lp.model import EtaLP
from ..result import relative_gap


@dataclass
class GapRow:
    key: str
    label: str
    value: float | None
    seconds: float | None = None
    rows: int | None = None
    complete: bool | None = None
    note: str = ""


@dataclass
class BoundGapTable:
    """Rows of bounds and scores of one cache; ``to_text()`` / ``to_json()``."""

    source: str | None
    n: int
    candidates: int
    rows: list[GapRow] = field(default_factory=list)
    reference: float | None = None
    reference_label: str = ""

    def row(self, key: str) -> GapRow | None:
        return next((r for r in self.rows if r.key == key), None)

    def gap(self, row: GapRow) -> float | None:
        if row.value is None or self.reference is None:
            return None
        if abs(row.value - self.reference) <= 1e-9 * max(1.0, abs(self.reference)):
            return 0.0
        return relative_gap(self.reference, row.value) if row.value >= self.reference else \
            -relative_gap(row.value, self.reference)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "n": self.n, "candidates": self.candidates,
            "reference": self.reference, "reference_label": self.reference_label,
            "rows": [{"key": r.key, "label": r.label, "value": r.value, "gap": self.gap(r),
                      "absolute_gap": (None if r.value is None or self.reference is None
                                       else r.value - self.reference),
                      "seconds": r.seconds, "rows": r.rows, "complete": r.complete, "note": r.note}
                     for r in self.rows],
        }

    def to_json(self, **kw) -> str:
        kw.setdefault("indent", 2)
        return json.dumps(self.to_dict(), **kw) + "\n"

    def to_text(self) -> str:
        head = f"bound gaps: {self.source or '<cache>'}  (n={self.n}, candidate parent sets={self.candidates})"
        cols = ("", "value", "vs " + (self.reference_label or "ref"), "rel. gap", "rows", "seconds", "note")
        body = []
        for r in self.rows:
            g = self.gap(r)
            body.append((
                r.label,
                "n/a" if r.value is None else f"{r.value:.4f}",
                "" if r.value is None or self.reference is None else
                f"{0.0 if g == 0.0 else r.value - self.reference:+.4f}",
                "" if g is None else f"{g:.4%}",
                "" if r.rows is None else str(r.rows),
                "" if r.seconds is None else f"{r.seconds:.2f}",
                r.note))
        widths = [max(len(x[k]) for x in [cols] + body) for k in range(len(cols))]

        def fmt(x):
            return "  ".join(x[k].ljust(widths[k]) if k in (0, 6) else x[k].rjust(widths[k])
                             for k in range(len(cols))).rstrip()
        return "\n".join([head, fmt(cols), fmt(tuple("-" * w for w in widths))]
                         + [fmt(b) for b in body]) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def bound_gap_table(cache: ScoreCache | str, known_optimum: float | None = None, *,
                    time_limit: float | None = 300.0, solve: bool = True,
                    dual: bool = True) -> BoundGapTable:
    """Compare the bounds of the cycle, dual-cluster and exact-cluster relaxations.

    Parameters
    ----------
    cache : ScoreCache or path
    known_optimum : float, optional
        Adds the last row and is the reference of the gaps.
    time_limit : float, optional
        For each stage (LP loops, dual root relaxation, the ILP for the best score).
    solve : bool
        Run ``method="highs"`` for the best integral score (else the best decoded DAG).
    dual : bool
        Include the dual solver's row (``n/a`` when ``lpbn.dual`` is not available).
    """
    from ..solve import solve as run_solve
    if not isinstance(cache, ScoreCache):
        from ..formats import read_scores
        cache = read_scores(cache)
    table = BoundGapTable(cache.source, cache.n, cache.m)
    best = {"score": -math.inf, "how": ""}

    def offer(eta, how):
        if eta is None:
            return
        choice = decode_choice(cache, eta)
        if choice is not None:
            s = float(cache.scores[choice].sum())
            if s > best["score"]:
                best.update(score=s, how=how)

    # 1. cycle inequalities only
    t = time.perf_counter()
    model = EtaLP(cache)
    cyc = cut_loop(model, mode="cycles", time_limit=time_limit)
    offer(cyc.eta, "decoded from the cycle LP")
    table.rows.append(GapRow("cycles", "LP, cycle inequalities only (eq. 5)",
                             cyc.value if cyc.status == "optimal" else None,
                             time.perf_counter() - t, len(model.cycles), cyc.complete,
                             "" if cyc.complete else f"separation incomplete ({cyc.status})"))
    # 2. dual with heuristic clusters
    root_fn = load_root_relaxation() if dual else None
    if root_fn is None:
        table.rows.append(GapRow("dual", "dual, heuristic clusters (eq. 8)", None,
                                 note="dual solver not available" if dual else "not run"))
    else:
        t = time.perf_counter()
        root = root_fn(cache, time_limit=time_limit)
        bs = getattr(root, "best_score", None)
        if bs is not None and math.isfinite(float(bs)) and float(bs) > best["score"]:
            best.update(score=float(bs), how="dual decoding")
        table.rows.append(GapRow("dual", "dual, heuristic clusters (eq. 8)", float(root.value),
                                 time.perf_counter() - t, len(root.clusters), bool(root.converged),
                                 "converged" if root.converged else "not converged"))
    # 3. exact cluster separation
    t = time.perf_counter()
    model = EtaLP(cache)
    clu = cut_loop(model, mode="clusters", exact=True, time_limit=time_limit)
    offer(clu.eta, "decoded from the cluster LP")
    table.rows.append(GapRow("clusters", "HiGHS LP, exact cluster separation (eq. 6)",
                             clu.value if clu.status == "optimal" else None,
                             time.perf_counter() - t, len(model.clusters), clu.complete,
                             "P_cluster value" if clu.complete else
                             f"separation incomplete ({clu.status}); still a valid bound"))
    # 4. the same LP with {0,1/2}-Chvátal-Gomory cuts: zero-cost, then of nearly tight rows
    for key, zero_half, label, done in (
            ("zero_half", True, "HiGHS LP, clusters and {0,1/2}-CG cuts", "no zero-cost {0,1/2}-cut left"),
            ("zero_half_slack", "slack", "HiGHS LP, also {0,1/2}-cuts of nearly tight rows",
             "no {0,1/2}-cut left within the slacks")):
        t = time.perf_counter()
        zh = cut_loop(model, mode="clusters", exact=True, time_limit=time_limit, zero_half=zero_half)
        offer(zh.eta, "decoded from the cluster and {0,1/2} LP")
        table.rows.append(GapRow(key, label, zh.value if zh.status == "optimal" else None,
                                 time.perf_counter() - t, model.row_kind.count("zerohalf"), zh.complete,
                                 done if zh.complete else f"stopped ({zh.status}); still a valid bound"))
    # 5. best integral score
    t = time.perf_counter()
    note = best["how"]
    if solve:
        res = run_solve(cache, method="highs", time_limit=time_limit)
        if res.score >= best["score"]:
            best.update(score=res.score, how=f"method=highs, {res.status}")
        note = best["how"]
        if res.optimal:
            note = f"method=highs, optimal (bound {res.upper_bound:.4f})"
    table.rows.append(GapRow("best", "best integral score",
                             best["score"] if math.isfinite(best["score"]) else None,
                             time.perf_counter() - t, None, None, note))
    # 6. known optimum
    if known_optimum is not None:
        table.rows.append(GapRow("optimum", "known optimum", float(known_optimum), note="given"))
        table.reference, table.reference_label = float(known_optimum), "optimum"
    elif math.isfinite(best["score"]):
        table.reference, table.reference_label = best["score"], "best"
    return table
