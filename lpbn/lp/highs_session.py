"""One way to make a HiGHS instance, so that every instance in a process agrees on threads.

HiGHS runs its parallel parts on one *global* task scheduler per process, created by the
first ``run()`` with the thread count of that instance's ``threads`` option (0 = half the
hardware threads).  Any later instance that asks for a different count fails at once:
``run()`` returns an error and the model status stays "Not Set".  So an instance built with
default options on a many-core machine silently broke every later ``threads=1`` solve.

:func:`new_highs` sets ``threads`` explicitly, and resets the global scheduler when a caller
asks for a different count than the last one.  (Forked children inherit the parent's
scheduler; lpbn's forked workers use one thread, which has no worker threads to lose.)  :func:`run` turns a HiGHS error into an exception
instead of a status nobody reads.
"""
from __future__ import annotations

import highspy

from ..signals import pending

_scheduler_threads: int | None = None   # threads of the last instance made in this process


class HighsError(RuntimeError):
    """HiGHS refused to run a model (not a solver outcome such as infeasible or time limit)."""


def new_highs(threads: int | None = None, log: bool = False) -> highspy.Highs:
    """A fresh ``highspy.Highs`` with ``threads`` set and the process scheduler matching it;
    ``None``: the thread count of the last instance made (1 if none), for helper instances (the
    exact separation's sub-IP, option probes) made while a model with ``threads > 1`` lives,
    which a reset scheduler would break."""
    global _scheduler_threads
    threads = max(1, int(threads if threads is not None else (_scheduler_threads or 1)))
    if _scheduler_threads is not None and _scheduler_threads != threads:
        highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads = threads
    h = _construct(log)
    h.setOptionValue("output_flag", bool(log))
    h.setOptionValue("threads", threads)
    return h


def _stop_requested(e) -> None:
    if pending() is not None:
        e.interrupt(True)


_constructed = False


def _construct(log: bool) -> highspy.Highs:
    """``highspy.Highs()``; the first one in a process prints a banner on file descriptor 1
    (before any option can be set), which would corrupt a JSON result written to stdout, so
    that one is made with fd 1 pointed at /dev/null (C stdio flushed before it is restored)."""
    global _constructed
    if _constructed or log:
        _constructed = True
        return highspy.Highs()
    import ctypes
    import os
    import sys
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        try:
            h = highspy.Highs()
        finally:
            ctypes.CDLL(None).fflush(None)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    _constructed = True
    return h


def run(h: highspy.Highs) -> None:
    """``h.run()``; raise :class:`HighsError` when HiGHS reports an error instead of solving.

    A stop request (SIGINT/SIGTERM during a solve, :mod:`lpbn.signals`) interrupts the run
    through HiGHS's simplex, IPM and MIP interrupt callbacks, which HiGHS polls between
    iterations.  An interrupt or time limit is not an error (HiGHS returns a warning for
    those; the model status says ``Interrupt by user``)."""
    events = (h.cbSimplexInterrupt, h.cbIpmInterrupt, h.cbMipInterrupt)
    for event in events:
        event.subscribe(_stop_requested)
    try:
        status = h.run()
    finally:
        for event in events:
            event.unsubscribe(_stop_requested)
    if status == highspy.HighsStatus.kError and \
            h.getModelStatus() in (highspy.HighsModelStatus.kNotset,
                                   highspy.HighsModelStatus.kModelError,
                                   highspy.HighsModelStatus.kSolveError):
        raise HighsError(f"HiGHS failed to solve the model "
                         f"({h.modelStatusToString(h.getModelStatus())})")
