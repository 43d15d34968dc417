"""Worker processes: the one place lpbn forks a process, feeds it, hears from it, stops it and
reaps it (issue 55's "one worker abstraction").

It sits with the core (standard library and :mod:`lpbn.signals` only), so the methods that
fork (the dual's parallel subtrees, parallel scoring) and the portfolio (the race's rival,
the bound beside ASOBS) use the same rules:

* :func:`cores`, :func:`can_fork`, :func:`can_race` — what this machine allows;
* :class:`Worker` — ``target(*args, conn)`` in a forked process whose one answer comes back
  over a pipe (:meth:`~Worker.poll`, :meth:`~Worker.wait`); :meth:`~Worker.stop` asks it to
  stop (a signal: a method answers with its best so far), and :meth:`~Worker.reap` ends it
  with one policy: once its answer is in or no longer awaited, SIGTERM, the worker's ``grace``
  seconds to leave (default :data:`GRACE`; 0 for a worker that forks nothing and whose answer
  is no longer wanted: the race's rival), then SIGKILL, and always a join (no zombie).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any, Callable
from .tuning import WORKER_GRACE as GRACE


def cores() -> int:
    """CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:      # not Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether processes can be forked here (not on Windows; macOS's default is spawn, but fork
    is available)."""
    import multiprocessing as mp
    return "fork" in mp.get_all_start_methods()


def can_race() -> bool:
    """Two cores and fork on Linux: what the portfolio's parallel plans need."""
    return sys.platform.startswith("linux") and cores() >= 2


class Worker:
    """A forked process running ``target(*args, conn)``, which sends one answer on ``conn``
    (anything picklable) and returns; the parent polls for it without blocking.

    ``start`` forks, ``poll``/``wait`` receive the answer (:attr:`answer`, or :attr:`error`
    when the process ended without one), ``stop`` sends a signal (SIGTERM by default: lpbn's
    methods answer it with their best so far), ``reap`` waits, then terminates and kills with
    :data:`GRACE` seconds between, and never leaves a zombie."""

    def __init__(self, target: Callable[..., Any], *args: Any, name: str = "worker", grace: float = GRACE):
        self.target, self.args, self.name, self.grace = target, args, name, grace
        self.proc = None
        self.conn = None
        self.answer: Any = None
        self.received = False
        self.error: str | None = None

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    @property
    def started(self) -> bool:
        return self.proc is not None

    def start(self) -> Worker:
        import multiprocessing as mp
        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=self.target, args=(*self.args, send), daemon=True)
        self.proc.start()
        send.close()
        self.conn = recv
        return self

    def done(self) -> bool:
        """True once the answer (or the reason there is none) is in."""
        return self.received or self.error is not None

    def poll(self, timeout: float = 0.0) -> bool:
        """Receive the answer if it arrives within ``timeout`` seconds; :meth:`done`."""
        if self.proc is None or self.done() or self.conn.closed:
            return self.done()
        if self.conn.poll(max(0.0, timeout)):
            try:
                self.answer, self.received = self.conn.recv(), True
            except EOFError:
                self.error = f"the {self.name} process ended without an answer"
        elif not self.proc.is_alive() and not self.conn.poll():
            self.error = f"the {self.name} process ended without an answer"
        return self.done()

    def stop(self, signum: int = signal.SIGTERM) -> None:
        """Ask the worker to stop (it answers with its best so far)."""
        if self.proc is not None and self.proc.is_alive():
            try:
                os.kill(self.proc.pid, signum)
            except ProcessLookupError:
                pass

    def alive(self) -> bool:
        return self.proc is not None and self.proc.is_alive()

    def reap(self, wait: float = 0.0) -> None:
        """Collect the answer (waiting up to ``wait`` seconds), then end the process: SIGTERM,
        ``grace`` seconds, SIGKILL; always joined."""
        if self.proc is None:
            return
        if not self.done():
            self.poll(wait)
        if self.proc.is_alive() and self.grace > 0:
            self.proc.terminate()
            self.proc.join(timeout=self.grace)
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        if not self.done() and self.conn.poll():
            try:                        # an answer sent while it was being stopped
                self.answer, self.received = self.conn.recv(), True
            except EOFError:            # none: it was stopped before it had one, not an error
                pass
        self.conn.close()
