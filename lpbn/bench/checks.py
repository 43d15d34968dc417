"""Checking benchmark rows against known optima and against each other.

A wrong "optimal" answer is the loudest failure lpbn can have, so every row is checked:

* the worker re-scored the returned DAG against the cache (acyclic, candidate parent sets,
  score as reported) — ``dag_problem``;
* the reported bound is not below the reported score (``score <= optimum <= bound``);
* ``status == "optimal"`` means a closed gap;
* against the suite's known optimum ``f*`` (relative tolerance ``rtol``, 1e-6 by default):
  an optimal score must equal ``f*``, no score may exceed it, no bound may be below it;
* across methods on the same instance: two "optimal" answers must agree, and no bound may
  be below another method's proven optimum.

Rows of the bench methods that are not solvers carry their own verdict: ``score`` rows
(status ``scored``) list differences from the reference cache, ``check`` rows (``agree`` /
``disagree``) the failed checks of ``lpbn check``, both in ``problems``; ``gap`` rows
(``finished``) carry the best integral score and the tightest complete LP bound as score and
bound, so the checks above apply to them.

``check`` is ``ok`` (agrees with the known optimum), ``consistent`` (no optimum known, no
contradiction found), ``WRONG`` or empty (no answer to check: crash, timeout, skipped ...).
"""

from __future__ import annotations

import math
from typing import Any

WRONG = "WRONG"

#: statuses that carry a score/bound from the method
ANSWER_STATUSES = {"optimal", "time_limit", "gap_limit", "node_limit", "memory_limit",
                   "interrupted", "infeasible", "error", "finished"}

#: verdicts of the ``score`` and ``check`` bench methods: ``ok`` unless problems were found
TOOL_STATUSES = {"scored", "agree", "disagree"}

#: gap under which "optimal" counts as closed for the consistency check
CLOSED_GAP = 1e-6


def _tol(value: float, rtol: float) -> float:
    return rtol * max(1.0, abs(value))


def check_row(row: dict[str, Any], optimum: float | None, rtol: float) -> None:
    """Set ``row["check"]`` and append reasons to ``row["problems"]`` (see module doc)."""
    problems: list[str] = row.setdefault("problems", [])
    status = row.get("status")
    if status in TOOL_STATUSES:
        row["check"] = WRONG if problems or status == "disagree" else "ok"
        return
    if status not in ANSWER_STATUSES:
        row["check"] = WRONG if problems else ""
        return
    score, bound = _f(row.get("score")), _f(row.get("upper_bound"))
    if status == "finished" and score is None:  # an external run with no parsed score
        row["check"] = ""
        return
    if row.get("dag_problem"):
        problems.append(row["dag_problem"])
    if score is not None and bound is not None and bound < score - _tol(score, 1e-9):
        problems.append(f"upper bound {bound!r} below its own score {score!r}")
    if status == "optimal":
        if score is None:
            problems.append("status optimal without a score")
        elif bound is not None and bound - score > _tol(score, CLOSED_GAP):
            problems.append(f"status optimal but the gap is open ({score!r} .. {bound!r})")
    if optimum is not None:
        t = _tol(optimum, rtol)
        if status == "optimal" and score is not None and abs(score - optimum) > t:
            problems.append(f"'optimal' score {score!r} differs from the known optimum {optimum!r}")
        elif score is not None and score > optimum + t:
            problems.append(f"score {score!r} above the known optimum {optimum!r}")
        if bound is not None and bound < optimum - t:
            problems.append(f"upper bound {bound!r} below the known optimum {optimum!r}")
        if status == "infeasible":
            problems.append("reported infeasible but an optimum is known")
    if problems:
        row["check"] = WRONG
    elif optimum is not None and status in ("optimal", "finished") and score is not None:
        row["check"] = "ok"
    else:
        row["check"] = "consistent"


def cross_check(rows: list[dict[str, Any]], rtol: float) -> None:
    """Mark disagreeing rows of one instance WRONG (the optimum may be unknown)."""
    proven = [r for r in rows if r.get("status") == "optimal" and r.get("check") != WRONG
              and _f(r.get("score")) is not None and r.get("kind") == "lpbn"]
    for r in rows:
        if r.get("status") not in ANSWER_STATUSES or r.get("kind") != "lpbn":
            continue
        score, bound = _f(r.get("score")), _f(r.get("upper_bound"))
        for p in proven:
            if p is r:
                continue
            opt = float(p["score"])
            t = _tol(opt, rtol)
            if r.get("status") == "optimal" and score is not None and abs(score - opt) > t:
                r["problems"].append(f"'optimal' score {score!r} disagrees with {p['method']}'s {opt!r}")
            elif bound is not None and bound < opt - t:
                r["problems"].append(f"upper bound {bound!r} below {p['method']}'s optimum {opt!r}")
            elif score is not None and score > opt + t and r.get("status") != "optimal":
                r["problems"].append(f"score {score!r} above {p['method']}'s optimum {opt!r}")
        if r["problems"]:
            r["check"] = WRONG


def _f(x: Any) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


#: statuses of the bench methods that are not solvers (score, gap, check) that count as done
TOOL_DONE = {"score": ("scored",), "gap": ("finished",), "check": ("agree",)}


def solved(row: dict[str, Any]) -> bool:
    """A run that proved optimality (lpbn), finished with a verified score (external), or a
    ``score``/``gap``/``check`` run that completed without a WRONG verdict."""
    if row.get("check") == WRONG:
        return False
    if row["kind"] == "external":
        return row.get("status") == "finished" and row.get("check") == "ok"
    if row["method"] in TOOL_DONE:
        return row.get("status") in TOOL_DONE[row["method"]]
    return row.get("status") == "optimal"
