"""Launch one worker process with limits and reap it with ``os.wait4`` (wall time, peak RSS).

Every run gets its own session (``start_new_session``), so a hung run is killed with its
whole process group (numba/HiGHS threads, an external solver's children) and the harness
goes on.  The address-space limit is set inside the child by :mod:`lpbn.bench.worker`.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lpbn

_MEMORY_HINTS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory",
                 "OutOfMemory", "Killed")


#: Runs lpbn/bench/worker.py without importing the lpbn package first (``python -m
#: lpbn.bench.worker`` would import numpy and numba), so an external command is exec'd
#: within milliseconds; ``solve`` jobs import lpbn themselves: the lpbn this process imported
#: (its folder goes first on the path; ``python -c`` puts the current directory first, so a
#: bench started inside a checkout of another lpbn measured that checkout's code).
_LAUNCH = (
    "import importlib.util as u, sys\n"
    f"sys.path.insert(0, {str(Path(lpbn.__file__).resolve().parent.parent)!r})\n"
    f"s = u.spec_from_file_location('_lpbn_bench_worker', {str(Path(__file__).with_name('worker.py'))!r})\n"
    "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
    "sys.exit(m.main(sys.argv[1:]))\n")


@dataclass
class ProcOutcome:
    """What the harness observed of one worker process."""

    returncode: int | None
    wall: float
    peak_rss_mb: float
    timed_out: bool
    result: dict[str, Any] | None
    stdout: str
    stderr: str


class Canceller:
    """Set by the harness on Ctrl-C: running processes are killed, queued ones not started."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def cancel(self) -> None:
        self.event.set()

    @property
    def cancelled(self) -> bool:
        return self.event.is_set()


def _env() -> dict[str, str]:
    env = os.environ.copy()
    root = str(Path(lpbn.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    # glibc reserves 64 MB of address space per thread arena; keep RLIMIT_AS about data.
    env.setdefault("MALLOC_ARENA_MAX", "2")
    env.setdefault("PYTHONFAULTHANDLER", "1")
    return env


def run_worker(job: dict[str, Any], workdir: Path, key: str, timeout: float,
               canceller: Canceller | None = None) -> ProcOutcome:
    """Run ``python -m lpbn.bench.worker`` on ``job``; kill its group after ``timeout`` s."""
    jobfile = workdir / f"{key}.job.json"
    outfile = workdir / f"{key}.out.json"
    errfile = workdir / f"{key}.stderr"
    logfile = workdir / f"{key}.stdout"
    jobfile.write_text(json.dumps(job), encoding="utf-8")
    if outfile.exists():
        outfile.unlink()
    cmd = [sys.executable, "-c", _LAUNCH, str(jobfile), str(outfile)]
    with open(logfile, "wb") as out, open(errfile, "wb") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True, env=_env())
    timed_out = _await_exit(proc.pid, t0, timeout, canceller)
    wall = time.monotonic() - t0
    _kill_group(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    result = None
    if outfile.exists():
        try:
            result = json.loads(outfile.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            result = None
    return ProcOutcome(returncode=proc.returncode, wall=wall,
                       peak_rss_mb=(usage.ru_maxrss / 1024.0) if usage is not None else float("nan"),
                       timed_out=timed_out, result=result, stdout=_tail(logfile, 20000),
                       stderr=_tail(errfile, 4000))


def _await_exit(pid: int, t0: float, timeout: float, canceller: Canceller | None) -> bool:
    """Wait until ``pid`` exits, ``timeout`` s after ``t0`` pass or the run is cancelled; True
    on a timeout.  The exited child stays a zombie (``WNOWAIT``), so its process-group id
    cannot be reused before the group's stragglers are killed.  The exit is seen the moment it
    happens through a pidfd (Linux 5.3+), so a sub-second run's wall time is not rounded up to
    a polling step; elsewhere a poll whose step grows to 50 ms."""
    fd = _pidfd(pid)
    delay = 0.005
    try:
        while True:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return False
            if canceller is not None and canceller.cancelled:
                return False
            left = timeout - (time.monotonic() - t0)
            if left <= 0:
                return True
            if fd is not None:
                select.select([fd], [], [], min(left, 0.25))   # readable at exit; 0.25 s: see a cancel
            else:
                time.sleep(min(delay, left))
                delay = min(0.05, delay * 1.5)
    finally:
        if fd is not None:
            os.close(fd)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path, nbytes: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - nbytes))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def classify_failure(outcome: ProcOutcome, memory_limit_mb: float | None) -> tuple[str, str]:
    """``(status, message)`` for a process that left no result: timeout, memout or crash."""
    if outcome.timed_out:
        return "timeout", f"killed after {outcome.wall:.1f} s wall (hard timeout)"
    last = _last_line(outcome.stderr)
    rc = outcome.returncode
    if rc is not None and rc < 0:
        try:
            how = f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            how = f"killed by signal {-rc}"
    else:
        how = f"exit code {rc}"
    near_limit = bool(memory_limit_mb) and outcome.peak_rss_mb >= 0.9 * float(memory_limit_mb)
    if near_limit or any(h in outcome.stderr for h in _MEMORY_HINTS):
        return "memout", f"{how}; out of memory (limit {memory_limit_mb} MB){': ' + last if last else ''}"
    return "crash", how + (f": {last}" if last else "")


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""
