"""Limits, trace and progress of one solve: :class:`SolveControl`, shared by every method.

It sits below the methods (they import it from here) and below the front door
:mod:`lpbn.solve`, which creates one per call and re-exports it; so a method never imports
:mod:`lpbn.solve`, and the import graph has no cycle.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Callable

from . import bound as bound_safety
from . import signals
from .errors import InputError
from .result import ERROR, INTERRUPTED, OPTIMALITY_TOLERANCE, relative_gap


class SolveControl:
    """Limits, trace and progress shared by every method.

    Methods call :meth:`improved` whenever their best score or bound changes (every bound
    passes :func:`lpbn.bound.crossing` there: a bound below the best score is a detected
    fault, :attr:`fault`, and the run stops with status ``error``), and poll
    :meth:`should_stop` in their loops; a stop returns the best so far, never raises.
    SIGINT and SIGTERM during :func:`solve` are such a stop (``"interrupted"``, see
    :mod:`lpbn.signals`): poll at least about once a second, and check
    :func:`lpbn.signals.pending` in loops that have no control.
    """

    def __init__(self, time_limit: float | None = None, gap_limit: float | None = None,
                 node_limit: int | None = None, callback: Callable[[dict[str, Any]], Any] | None = None,
                 progress: bool | None = None, tolerance: float = OPTIMALITY_TOLERANCE):
        for label, v in (("time_limit", time_limit), ("gap_limit", gap_limit), ("node_limit", node_limit)):
            if v is not None and not (isinstance(v, (int, float)) and v >= 0 and not math.isnan(v)):
                raise InputError(f"{label} must be a non-negative number, got {v!r}")
        self.time_limit = time_limit
        self.gap_limit = gap_limit
        self.node_limit = node_limit
        self.callback = callback
        self.progress = progress
        self.tolerance = tolerance
        self.start = time.perf_counter()
        self.best = -math.inf
        self.bound = math.inf
        #: the error the current bound's computation carries (:mod:`lpbn.bound`), allowed in
        #: :meth:`closed` and in the crossing check
        self.margin = 0.0
        #: the method named in fault messages (the front door sets it)
        self.method = "?"
        #: a detected fault (:func:`lpbn.bound.crossing`'s message), or None
        self.fault: str | None = None
        #: ``fn(value) -> value`` mapping reported scores and bounds to the caller's units (a
        #: normalised solve, :mod:`lpbn.normalise`); None: identity
        self.report_map: Callable[[float], float] | None = None
        self.trace: list[tuple[float, float, float]] = []
        self.stop_reason: str | None = None
        self._last_progress = self.start
        #: ``fn(cache, method, **limits) -> SolveResult``: a whole solve of another method,
        #: behind :meth:`borrow` and the race's rival (:mod:`lpbn.race`); the front door sets
        #: it to :func:`lpbn.solve`, a bare control has none
        self.runner: Callable[..., Any] | None = None
        #: ``fn(name) -> method function or None``, behind :meth:`helper`; the front door sets
        #: it to :func:`lpbn.registry.helper`, a bare control has none
        self.helpers: Callable[[str], Callable[..., Any] | None] | None = None
        #: ``fn() -> status or None``, polled by :meth:`should_stop`: a stop from outside the
        #: method (:mod:`lpbn.race` stops the dual with ``"superseded"`` once a parallel
        #: method has proved optimality)
        self.watch: Callable[[], str | None] | None = None
        #: the method's latest projection of the seconds it still needs (None: it makes none)
        self.projected: float | None = None

    def borrow(self, cache: Any, method: str, seconds: float) -> tuple[Any, float, float]:
        """An incumbent from another ``method`` run for ``seconds`` (a whole solve through
        :attr:`runner`): its DAG, score and upper bound, or ``(None, -inf, inf)`` without a
        runner (a control made outside :func:`lpbn.solve`) or when that method is unavailable
        or refuses the cache (:class:`~lpbn.errors.InputError`)."""
        if self.runner is None:
            return None, -math.inf, math.inf
        try:
            res = self.runner(cache, method=method, time_limit=seconds)
        except InputError:
            return None, -math.inf, math.inf
        return res.dag, res.score, res.upper_bound

    def helper(self, method: str) -> Callable[..., Any] | None:
        """The function of another ``method`` (``fn(cache, control, **options)``) for a method
        that uses it inside its own run (the dual's support ILP takes the HiGHS ILP,
        :mod:`lpbn.support_ilp`), or None without :attr:`helpers` (a control made outside
        :func:`lpbn.solve`) or when that method is unavailable: no method imports another's
        package or the registry."""
        return None if self.helpers is None else self.helpers(method)

    def derive(self, cls: type | None = None, **kw) -> SolveControl:
        """A new control (of ``cls``, default this class) with the limits ``kw`` and this one's
        :attr:`runner` and :attr:`helpers`: a sub-solve keeps its access to other methods."""
        sub = (cls or SolveControl)(**kw)
        sub.runner, sub.helpers = self.runner, self.helpers
        return sub

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        """Seconds left before the time limit (inf without one)."""
        return math.inf if self.time_limit is None else max(0.0, self.time_limit - self.elapsed())

    def improved(self, best: float | None = None, bound: float | None = None, margin: float = 0.0,
                 **info) -> None:
        """Record a new best score and/or upper bound (kept monotone), trace it, report it.

        ``margin`` is the error the bound's computation carries (:mod:`lpbn.bound`: rounding
        for a bound from duals, the solver's tolerance for a MIP's dual bound).  Every change
        is checked: a bound below the best score by more than :func:`lpbn.bound.slack` is a
        fault (:attr:`fault`; the run stops with status ``error``), never clamped."""
        changed = False
        if best is not None and best > self.best:
            self.best = float(best)
            changed = True
        if bound is not None and bound < self.bound:
            self.bound = float(bound)
            self.margin = float(margin)
            changed = True
        if changed:
            if self.fault is None:
                self.fault = bound_safety.crossing(self.method, self.best, self.bound, self.margin,
                                                   self.tolerance)
                if self.fault is not None:
                    self.stop_reason = ERROR
            self.trace.append((self.elapsed(), self.best, self.bound))
            if self.callback is not None:
                self._call({"seconds": self.elapsed(), "best": self._out(self.best),
                               "bound": self._out(self.bound), "gap": self.reported_gap, **info})
        self._maybe_progress(info)

    def _call(self, info: dict[str, Any]) -> None:
        """The user's callback; an exception it raises is the caller's own, tagged so the front
        door lets it through (a method's own failure becomes status ``error`` instead)."""
        try:
            self.callback(info)
        except Exception as exc:
            exc.lpbn_from_callback = True
            raise

    def _out(self, value: float) -> float:
        return value if self.report_map is None else self.report_map(value)

    @property
    def reported_gap(self) -> float:
        """The gap in the caller's units (:attr:`report_map`)."""
        return relative_gap(self._out(self.best), self._out(self.bound))

    def estimate(self, seconds_left: float, **info) -> None:
        """Record the method's projection of the seconds it still needs (``inf``: more than it
        can tell); the callback gets it as ``projected_seconds`` beside the usual keys (a method
        shows it in its progress lines through :meth:`improved`'s info, e.g. ``eta=``).  A
        projection, not a promise: :mod:`lpbn.race` uses it to give a hopeless rival's core to
        the method beside it."""
        self.projected = float(seconds_left)
        if self.callback is not None:
            self._call({"seconds": self.elapsed(), "best": self._out(self.best),
                           "bound": self._out(self.bound), "gap": self.reported_gap,
                           "projected_seconds": self.projected, **info})

    @property
    def gap(self) -> float:
        return relative_gap(self.best, self.bound)

    def closed(self) -> bool:
        """True when the best score meets the bound within the tolerance policy
        (:func:`lpbn.bound.closed`: the optimality tolerance plus the bound's own margin);
        never after a fault."""
        return self.fault is None and bound_safety.closed(self.best, self.bound, self.margin, self.tolerance)

    def should_stop(self, nodes: int | None = None) -> str | None:
        """The status to stop with (``interrupted``/``time_limit``/``gap_limit``/``node_limit``)
        or None."""
        if self.fault is not None:
            self.stop_reason = ERROR
        elif self.stop_reason is None and signals.pending() is not None:
            self.stop_reason = INTERRUPTED
        elif self.time_limit is not None and self.elapsed() >= self.time_limit:
            self.stop_reason = "time_limit"
        elif self.gap_limit is not None and self.reported_gap <= self.gap_limit and math.isfinite(self.best):
            self.stop_reason = "gap_limit"
        elif self.node_limit is not None and nodes is not None and nodes >= self.node_limit:
            self.stop_reason = "node_limit"
        if self.stop_reason is None and self.watch is not None:
            self.stop_reason = self.watch()
        return self.stop_reason

    def announce(self, text: str) -> None:
        """A progress line (when progress is on) that is not about the bounds."""
        if self.progress:
            print(f"[{self.elapsed():8.1f}s] {text}", file=sys.stderr, flush=True)

    def _maybe_progress(self, info: dict[str, Any]) -> None:
        show = self.progress if self.progress is not None else False
        now = time.perf_counter()
        if not show or now - self._last_progress < 1.0:
            return
        self._last_progress = now
        extra = " ".join(f"{k}={v}" for k, v in info.items())
        print(f"[{self.elapsed():8.1f}s] best {self._out(self.best):.6f}  bound {self._out(self.bound):.6f}  "
              f"gap {self.reported_gap:.3%} {extra}", file=sys.stderr, flush=True)
