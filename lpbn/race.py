"""``method="race"``: two exact methods on two cores, the first proof wins.

Some caches are closed in seconds by the order-graph search and resist the LP branch and bound
for a minute, others the other way round, and neither size nor density tells them apart
(results/medium: alarm-5000, n = 37, ``bfbnb`` 3.7 s and ``dual`` 47 s; results/uci-bic3:
wdbc, n = 31, the dual 30-78 s and ``bfbnb`` still 3% away at 60 s).  With two cores both can
run: :func:`solve_race` runs the dual here and, if it has not proved optimality after
``delay`` seconds (default 0: at once), forks a process (a :class:`lpbn.workers.Worker`) running the order-graph search (a full
:func:`lpbn.solve`, through the control's runner, with the time that is left).  The dual polls the rival through
:attr:`lpbn.control.SolveControl.watch` and stops (``"superseded"``) once the rival has proved
optimality; if the dual proves first, the rival is stopped.  If neither does, the answer
combines them: the better DAG and the smaller upper bound (both bounds are valid, so their
minimum is; :func:`lpbn.portfolio.merge`).  The answer's DAG is an optimal DAG; when several
are, which one is returned depends on which method finished first.

When the rival projects its own remaining work (``bfbnb`` does, after each layer of the order
graph: :mod:`lpbn.bfbnb.projection`) and that projection stays beyond what it can finish — more
than :data:`HANDOVER_HORIZON` seconds, or more than the time left — for
:data:`HANDOVER_LAYERS` layers in a row, the rival is stopped (its DAG and bound still count)
and its core goes to the dual, which then forks a second worker for its branch-and-bound
subtrees (``workers=2``, :mod:`lpbn.dual.parallel`; option ``spare_core``).  On wdbc (n = 31)
the order-graph search projects minutes after a few seconds of layers and is still 2.8% away
after 60 s, while the dual's tree gains from a second worker; on soybean (n = 36) it projects
21-28 s on a calm machine and wins the race, 55-69 s on a slow one and yields.

**Seconds, not work counts (issue 54, item 5).**  The rival starts at once (``delay`` 0: a 2-s
delay was within the machine's noise over the whole uci-bic3 suite, 3 rounds;
results/tuning/README.md), so no clock decides whether it runs.  The handover and the graces
are wall-clock decisions, and stay so: a race is a bet on which of two processes finishes
first, which only the clock can settle; the rival's projection (``bfbnb``: :mod:`lpbn.bfbnb.projection`) is in seconds because the
horizon it is compared with is the user's time limit.  What is reproducible is the answer
whenever either method proves optimality: the same status and score whatever the machine's
speed; the DAG is then an optimal one made canonical by the front door (:mod:`lpbn.canonical`:
its Markov class's representative, then the smallest of local-score ties), so two co-optimal
DAGs of one class print the same; optima in different classes may come from either method.

Linux only (fork); elsewhere, or with one core, the dual alone runs.  A SIGINT from the
terminal reaches both processes (one process group) and each returns its best so far; a
signal to the parent alone is forwarded.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from . import signals
from .options import NONNEG, MethodOptions, Rule, opt
from .portfolio import merge
from .registry import method_function
from .workers import Worker, can_race, cores  # noqa: F401  (cores re-exported)
from .result import OPTIMAL, SolveResult
from .tuning import RIVAL_GRACE, HANDOVER_HORIZON, HANDOVER_LAYERS, YIELD_GRACE

#: the methods raced by default: the order-graph search (in the second process) and the LP
#: branch and bound (here)
RACE_METHODS = ("bfbnb", "dual")
#: options that keep a multi-threaded method on its one core of the race
ONE_CORE = {"bfbnb": {"threads": 1}, "dp": {"threads": 1}}
#: the method here and the options that let it take the rival's core once it yields
TAKES_CORE = {"dual": lambda rival: {"workers": 2, "spare_core": rival.spare_core}}


def _child(cache, method: str, control, time_limit: float | None, projected, conn) -> None:
    """The rival's process: a whole solve of ``method`` through ``control``'s runner (the front
    door's :func:`lpbn.solve`, wired by it: the race never imports the front door)."""

    def publish(info: dict[str, Any]) -> None:
        """The rival's projections, for the parent: [consecutive ones beyond what it can
        finish, the latest]."""
        if "projected_seconds" in info:
            secs = info["projected_seconds"]
            left = math.inf if time_limit is None else time_limit - info["seconds"]
            projected[1] = secs
            projected[0] = projected[0] + 1.0 if secs > min(HANDOVER_HORIZON, left) else 0.0

    try:
        if control.runner is None:
            raise RuntimeError("the race's control has no runner (call it through lpbn.solve)")
        res = control.runner(cache, method=method, time_limit=time_limit, progress=False, callback=publish,
                             **ONE_CORE.get(method, {}))
        conn.send(("ok", res))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()
        os._exit(0)              # a forked copy of the parent: no atexit handlers, no flushing


class _Rival:
    """The method raced in a forked process (a :class:`lpbn.workers.Worker`), started once the
    method here has run ``delay`` seconds without a proof (a user's option; by default at once)."""

    def __init__(self, cache, method: str, control, delay: float):
        self.cache, self.method, self.control, self.delay = cache, method, control, delay
        self.worker: Worker | None = None
        self.result: SolveResult | None = None
        self.error: str | None = None
        self.projected = None             # shared with the rival: see _child
        self.yielded_at: float | None = None
        self.yield_projection: float | None = None

    @property
    def started(self) -> bool:
        return self.worker is not None

    def watch(self) -> str | None:
        """:attr:`SolveControl.watch`: start the rival when due, stop it when its projection
        says it cannot finish (:meth:`spare_core`); "superseded" once it proved."""
        if self.worker is None:
            if self.control.elapsed() >= self.delay:
                self._start()
            return None
        self._receive()
        if self.yielded_at is None and not self.worker.done():
            self._judge()
        return "superseded" if self.result is not None and self.result.status == OPTIMAL else None

    def _judge(self) -> None:
        """Stop the rival once HANDOVER_LAYERS of its projections in a row were beyond what it
        can finish (counted in the rival, :func:`_child`)."""
        if self.projected[0] >= HANDOVER_LAYERS:
            secs = float(self.projected[1])
            self.yielded_at, self.yield_projection = self.control.elapsed(), secs
            self.worker.stop()                              # it answers with its best so far
            self.control.announce(f"{self.method} projects {secs:.0f} s more: its core goes to "
                                  f"the method here")

    def spare_core(self) -> bool:
        """True once the rival yielded its core and its process has ended (its answer kept)."""
        if self.yielded_at is None:
            return False
        if self.worker.alive():
            self._receive()
            if self.control.elapsed() - self.yielded_at < YIELD_GRACE:
                return False
            self.worker.reap()              # YIELD_GRACE is over: killed
            self._receive()
        return not self.worker.alive()

    def _start(self) -> None:
        import multiprocessing as mp
        self.projected = mp.get_context("fork").RawArray("d", 2)
        limit = self.control.remaining() if self.control.time_limit is not None else None
        self.worker = Worker(_child, self.cache, self.method, self.control, limit, self.projected,
                             name=self.method, grace=0.0).start()
        self.control.announce(f"racing {self.method} in a second process (pid {self.worker.pid})")

    def _receive(self, wait: float = 0.0) -> None:
        """The rival's answer, once it is in (waiting up to ``wait`` seconds for it)."""
        if not self.worker.poll(wait) or self.result is not None or self.error is not None:
            return
        if self.worker.error is not None:
            self.error = self.worker.error
            return
        kind, payload = self.worker.answer
        if kind == "ok":
            self.result = payload
        else:
            self.error = payload

    def finish(self, wait: float) -> None:
        """Collect the rival's answer (waiting up to ``wait`` seconds), then stop it."""
        if self.worker is None:
            return
        if not self.worker.done() and signals.pending() is not None:
            self.worker.stop()                              # a stop for us is a stop for it
        self._receive(wait)
        self.worker.reap()
        self._receive()                                     # an answer that came while reaping


@dataclass(frozen=True)
class RaceOptions(MethodOptions):
    """Options of ``method="race"`` (:func:`solve_race`), declared once (issue 55)."""

    methods: tuple[str, ...] | list[str] = opt(RACE_METHODS, (
        "The two methods raced, [rival, own]: own runs in this process, rival in a forked one "
        "after delay seconds without a proof."),
        Rule(lambda v: isinstance(v, (tuple, list)) and len(v) == 2 and all(isinstance(m, str) for m in v),
             "two method names [rival, own]"))
    delay: float = opt(0.0, (
        "Seconds own runs alone before the rival process starts (a proof within them saves the "
        "fork; default 0, at once: a 2-s delay was within the machine's noise on uci-bic3, "
        "results/tuning/README.md)."), NONNEG)


def solve_race(cache, control, **options) -> SolveResult:
    """Run ``methods[1]`` here and, after ``delay`` seconds without a proof, ``methods[0]`` in a
    forked process; the first optimal result wins, else the better DAG with the smaller bound.
    ``options``: the fields of :class:`RaceOptions`, checked and built once, here."""
    methods, delay = RaceOptions.build(options, "race").values()
    rival_method, own_method = tuple(methods)
    fn = method_function(own_method)
    if not can_race():
        return fn(cache, control)
    rival = _Rival(cache, rival_method, control, delay)
    control.watch = rival.watch
    options = dict(ONE_CORE.get(own_method, {}))
    if own_method in TAKES_CORE:
        options.update(TAKES_CORE[own_method](rival))
    try:
        own = fn(cache, control, **options)
    finally:
        control.watch = None
        # a time limit or a signal stops the rival too, which then sends its best: a moment to
        # collect it; any other end (optimal, gap or node limit) does not wait for the rival
        rival.finish(RIVAL_GRACE if own.status in ("time_limit", "interrupted") else 0.0)
    return _combine(own, rival)


def _combine(own: SolveResult, rival: _Rival) -> SolveResult:
    race: dict[str, Any] = {"methods": [rival.method, own.method], "rival_started": rival.started,
                            "rival_status": rival.result.status if rival.result is not None else None,
                            "rival_error": rival.error}
    if rival.yielded_at is not None:
        race["rival_yielded"] = {"seconds": round(rival.yielded_at, 3),
                                 "projected_seconds": round(rival.yield_projection, 1)}
    other = rival.result
    if own.status == OPTIMAL:
        race["winner"] = own.method
    elif other is not None and other.status == OPTIMAL:
        race["winner"] = rival.method
    else:
        race["winner"] = None
    res = merge([own] if other is None else [own, other])   # a proof wins, else both combined
    if res.status == "superseded":      # cannot happen with the rules above; never leak it
        res.status = "interrupted"
    res.stats = dict(res.stats or {})
    res.stats["race"] = race
    return res


solve_race.options_class = RaceOptions
