"""SIGINT and SIGTERM during a solve: a stop request, never an exception.

While :func:`lpbn.solve` runs (in the main thread), :func:`stop_on_signals` replaces the
handlers of SIGINT and SIGTERM by one that only records the signal; the previous handlers
come back when the (outermost) solve returns.  Every method polls
:meth:`lpbn.solve.SolveControl.should_stop`, which then says ``"interrupted"``, and returns
its best DAG and bound as an ordinary :class:`~lpbn.result.SolveResult` with that status.
Code that cannot poll a control sees the request through :func:`pending`: the HiGHS runs
(:func:`lpbn.lp.highs_session.run`, through HiGHS's interrupt callbacks) and the numba
kernels' Python loops, which check it between kernel calls.  Child processes registered
with :func:`forward` (the forked dual of ``asobs``/``obs``, PuLP's CBC) get SIGINT, on which
they stop with their best so far too.

A signal is never turned into an exception inside a solve: a KeyboardInterrupt raised in or
around a numba-compiled call surfaces as ``SystemError``, and it would skip the result.
Further signals after the first are ignored (the stop is already under way, within about a
second); SIGKILL or SIGQUIT end the process at once.

Outside a solve the command line (:mod:`lpbn.cli`) installs :func:`raise_interrupted` for
both signals: it raises :class:`Interrupted`, a KeyboardInterrupt, so output files and
temporary files are cleaned up as for Ctrl-C, and the CLI exits 128 + the signal number (130
for SIGINT, 143 for SIGTERM).  It never raises while Python code runs on behalf of numba
(its dispatcher, or compiled code calling back into Python): an exception there is not
propagated properly, and the process ends with ``SystemError: CPUDispatcher(...) returned a
result with an exception set`` or a segmentation fault (measured: ``lpbn score`` on
letter.csv with ``--jobs 1``, Ctrl-C about 2 s in).  The signal is delivered again 50 ms
later instead, until it lands in ordinary Python code.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import Iterator
from .tuning import STOP_KILL_AFTER as KILL_AFTER, STOP_REPEAT_EVERY as REPEAT_EVERY

#: The signals that stop a solve.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_received: int | None = None          # first stop signal of the current (outermost) solve
_depth = 0                            # nesting of stop_on_signals in the main thread
_children: dict[int, int] = {}        # pid -> signal to send it on a stop request


class Interrupted(KeyboardInterrupt):
    """The run was ended by signal ``signum`` (the command line exits 128 + signum)."""

    def __init__(self, signum: int = signal.SIGINT, message: str = ""):
        super().__init__(message or f"interrupted by {signal_name(signum)}")
        self.signum = int(signum)
        self.message = message


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def pending() -> int | None:
    """The stop signal received during the current solve, or None."""
    return _received


def request_stop(signum: int = signal.SIGINT) -> None:
    """Record a stop request as if ``signum`` had arrived (also forwarded to children)."""
    global _received
    if _received is None:
        _received = int(signum)
    for pid, sig in list(_children.items()):
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def _handler(signum, frame) -> None:
    request_stop(signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM only record a stop request (see the module
    docstring).  Nests; only the outermost block (in the main thread) installs the handlers,
    and it restores the previous ones and forgets the request on the way out.  A signal the
    process ignores (``SIG_IGN``, e.g. SIGINT in a background job) stays ignored."""
    global _depth, _received
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {}
    if _depth == 0:
        _received = None
        for sig in STOP_SIGNALS:
            prev = signal.getsignal(sig)
            if prev is signal.SIG_IGN or prev is None:   # None: installed outside Python
                continue
            saved[sig] = prev
            signal.signal(sig, _handler)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            for sig, prev in saved.items():
                signal.signal(sig, prev)
            _received = None
            _children.clear()


def raise_interrupted(signum, frame) -> None:
    """A handler for SIGINT/SIGTERM outside a solve: raise :class:`Interrupted` -- unless
    numba is running Python code (see the module docstring), then try again shortly."""
    if _in_numba(frame):
        timer = threading.Timer(0.05, _deliver, (signum,))
        timer.daemon = True
        timer.start()
        return
    raise Interrupted(signum)


def _deliver(signum: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), signum)


def _in_numba(frame, depth: int = 16) -> bool:
    numba = sys.modules.get("numba")
    if numba is None or not getattr(numba, "__file__", None):
        return False
    root = os.path.dirname(numba.__file__) + os.sep
    while frame is not None and depth > 0:
        if frame.f_code.co_filename.startswith(root):
            return True
        frame = frame.f_back
        depth -= 1
    return False


@contextlib.contextmanager
def forward(pid: int, sig: int = signal.SIGINT, alive=None) -> Iterator[None]:
    """Send ``sig`` to the child process ``pid`` on a stop request during the block (at once
    if one is already pending), again every REPEAT_EVERY seconds while it runs, and SIGKILL
    after KILL_AFTER seconds.  The repeats come from a thread that polls :func:`pending`, so
    nothing but a flag is touched in the signal handler; ``alive()``, if given, says whether
    the child still runs (not yet reaped: its pid cannot have been reused)."""
    _children[pid] = sig
    done = threading.Event()

    def repeat():
        first = None
        while not done.wait(0.2):
            if _received is None or pid not in _children:
                continue
            if alive is not None and not alive():
                return
            now = time.monotonic()
            first = now if first is None else first
            try:
                if now - first >= KILL_AFTER:
                    os.kill(pid, signal.SIGKILL)
                    return
                os.kill(pid, sig)
            except OSError:         # gone
                return
            done.wait(REPEAT_EVERY)

    helper = threading.Thread(target=repeat, name=f"lpbn-stop-{pid}", daemon=True)
    try:
        if _received is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        helper.start()
        yield
    finally:
        _children.pop(pid, None)
        done.set()
        if helper.is_alive():
            helper.join()
