"""Explore every variable in parallel: local processes by default, or an existing Dask cluster.

Exploration is independent per variable (Scanagatta et al. 2015, §3.2: "The procedure is
repeated for every variable and can be easily parallelized"), so the variables are mapped
over workers and the results put back in variable order.  The result does not depend on the
scheduler: each variable's exploration reads only the shared context.  (Time budgets make a
run depend on the machine's speed; evaluation budgets do not.)  With a planned total
(``time_per_variable="auto"``) the local processes and the serial loop hand each variable its
share of the time left as it starts (:class:`BudgetSchedule`); a Dask cluster gets the fixed
``time_per_variable``.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any, Callable

from ..workers import cores
from .explore import explore_variable

_CTX = None


def default_jobs() -> int:
    """Cores this process may use (:func:`lpbn.workers.cores`)."""
    return cores()


def _init_worker(ctx) -> None:
    global _CTX
    _CTX = ctx
    # signals are the parent's business: a terminal's Ctrl-C reaches the whole process group,
    # and the parent stops the pool (_map_processes); SIGTERM (from the parent) ends a worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _work(x: int, seconds: float | None = None) -> dict[str, Any]:
    return explore_variable(_CTX, x, seconds)


class BudgetSchedule:
    """Keeps a time-budgeted exploration to its planned total (``options.total_seconds``).

    A variable that starts gets b = T_left * workers / (V_left + (workers - 1) / 2) seconds:
    the time left shared among the variables not started yet and the half budget, on average,
    that each of the other workers still has to go on the variable it holds.  So overruns
    (a variable's first pushes may take up to two budgets, see
    :mod:`lpbn.scoring.explore.budgeted`; the final phase and result hand-over take time too)
    shorten the later budgets, and variables that finish early (an exhausted pool) lend theirs.
    b stays within [LOW, HIGH] times ``time_per_variable``.  Without a planned total every
    variable gets ``time_per_variable`` (None: no time budget).
    """

    LOW, HIGH = 0.25, 2.0

    def __init__(self, options, n: int, workers: int):
        self.base = options.time_per_variable
        total = options.total_seconds
        self.end = None if total is None or self.base is None else time.perf_counter() + float(total)
        self.left = n
        self.workers = max(1, int(workers))

    def next(self) -> float | None:
        """The budget of the variable starting now."""
        self.left -= 1
        if self.end is None:
            return self.base
        share = (self.end - time.perf_counter()) * self.workers / (self.left + 1 + (self.workers - 1) / 2)
        return min(self.HIGH * self.base, max(self.LOW * self.base, share))


def dask_task(x: int, ctx) -> dict[str, Any]:
    """The task a Dask worker runs for variable ``x`` (importable by name on the workers)."""
    return explore_variable(ctx, x)


def explore_all(ctx, jobs: int = 1, scheduler: Any = None,
                progress: Callable[[int, int, str], None] | None = None,
                isolate: bool = False) -> list[dict[str, Any]]:
    """Per-variable exploration results in variable order (see the module docstring).
    ``isolate``: with one job, explore in one worker process all the same (long explorations:
    this process then stays able to stop on a signal, see :data:`lpbn.scoring.api.ISOLATE_MIN_SETS`)."""
    n = ctx.n
    names = ctx.dataset.names
    results: list[dict[str, Any] | None] = [None] * n
    done = 0

    def finished(r: dict[str, Any]) -> None:
        nonlocal done
        results[r["x"]] = r
        done += 1
        if progress:
            progress(done, n, names[r["x"]])

    if scheduler is not None:
        _map_dask(ctx, scheduler, finished)
    elif (jobs <= 1 or n == 1) and not isolate:
        schedule = BudgetSchedule(ctx.options, n, 1)
        for x in range(n):
            finished(explore_variable(ctx, x, schedule.next()))
    else:
        _map_processes(ctx, jobs, finished)
    return results  # type: ignore[return-value]


def _map_processes(ctx, jobs: int, finished) -> None:
    """A process pool; forked workers inherit the context and the compiled kernels."""
    _warm_up(ctx.explore)
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else None)
    workers = min(jobs, ctx.n)
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=mp, initializer=_init_worker, initargs=(ctx,))
    schedule = BudgetSchedule(ctx.options, ctx.n, workers)
    todo = iter(_largest_first(ctx))
    try:
        # at most one variable queued beyond the busy workers, so each budget is set as its
        # variable is about to start
        running = {ex.submit(_work, x, schedule.next()) for x in islice(todo, workers + 1)}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                finished(f.result())
                x = next(todo, None)
                if x is not None:
                    running.add(ex.submit(_work, x, schedule.next()))
    except BaseException:       # Ctrl-C, SIGTERM (lpbn.signals.Interrupted), a worker's error
        _stop_pool(ex)
        raise
    ex.shutdown(wait=True)


def _stop_pool(ex: ProcessPoolExecutor) -> None:
    """Terminate the workers now (not after their current variables) and reap them."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    for p in procs:
        if p.is_alive():
            p.terminate()
    ex.shutdown(wait=True, cancel_futures=True)
    for p in procs:
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join()


def _largest_first(ctx) -> list[int]:
    return list(range(ctx.n))


def _map_dask(ctx, scheduler: Any, finished) -> None:
    """Tasks on an existing Dask cluster (``scheduler``: an address or a ``distributed.Client``)."""
    try:
        import distributed
    except ImportError:
        from ..errors import InputError
        raise InputError("scheduler= needs Dask's distributed package: pip install 'lpbn[dask]'") from None
    client = scheduler if isinstance(scheduler, distributed.Client) else _connect(distributed, scheduler)
    own = client is not scheduler
    try:
        remote = client.scatter(ctx, broadcast=True)
        futures = client.map(dask_task, list(range(ctx.n)), ctx=remote, pure=False)
        for fut in distributed.as_completed(futures):
            finished(fut.result())
    finally:
        if own:
            client.close()


def _connect(distributed, address: str):
    from ..errors import InputError
    try:
        return distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot connect to the Dask scheduler {address!r}: {exc}") from None


_WARM: set[str] = set()


def _warm_up(strategy: str) -> None:
    """Compile (or load) the strategy's kernels once in this process before forking."""
    if strategy in _WARM:
        return
    import numpy as np

    from .context import ExploreOptions, ScoringContext
    from .data import Dataset
    from .scores import BIC
    cols = np.array([[0, 1, 0, 1, 1, 0], [0, 1, 1, 1, 0, 0], [1, 1, 0, 1, 0, 0]], dtype=np.int32)
    ds = Dataset(("a", "b", "c"), cols, np.array([2, 2, 2]))
    ctx = ScoringContext(ds, BIC, 1.0, explore=strategy, options=ExploreOptions(time_per_variable=None,
                                                                                 max_evaluations=20))
    for x in range(3):
        explore_variable(ctx, x)
    _WARM.add(strategy)


def progress_bar(label: str = "scoring") -> Callable[[int, int, str], None]:
    """Progress on stderr: variables done, elapsed time and an ETA.

    tqdm draws the live bar on a terminal; elsewhere (CI logs, files) tqdm's meter is printed
    as a plain line every 5 s and at the end, since a redrawn bar would fill a log with
    carriage returns.
    """
    from tqdm import tqdm

    if sys.stderr.isatty():
        live: list[Any] = []

        def bar(done: int, total: int, name: str) -> None:
            if not live:
                live.append(tqdm(total=total, desc=label, unit="var", file=sys.stderr,
                                 dynamic_ncols=True, leave=True))
            t = live[0]
            t.set_postfix_str(name[:20], refresh=False)
            t.update(done - t.n)
            if done >= total:
                t.close()
        return bar

    start = time.perf_counter()
    last = [start]

    def line(done: int, total: int, name: str) -> None:
        now = time.perf_counter()
        if done != total and now - last[0] < 5.0:
            return
        last[0] = now
        meter = tqdm.format_meter(done, total, now - start, prefix=label, unit="var", ascii=True,
                                  postfix=name[:20])
        sys.stderr.write(meter + "\n")
        sys.stderr.flush()
    return line
