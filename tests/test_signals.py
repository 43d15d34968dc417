"""SIGINT and SIGTERM: every solve method stops with its best DAG and a valid bound (status
``interrupted``), the CLI writes that result and exits 130/143, and no temporary file or
child process is left behind (lpbn.signals).

The CLI runs wait for the solve to have started (its first progress line) and, where the
method runs a child process (CBC, the forked dual, scoring workers), for that child; no
assertion depends on how fast anything runs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import lpbn
from lpbn import signals
from lpbn.bfbnb.external import TempArea, reap_stale
from lpbn.formats import read_scores
from lpbn.registry import _METHODS
from lpbn.solve import SolveControl, register_method

ROOT = Path(__file__).resolve().parent.parent
ANCHORS = ROOT / "instances" / "anchors" / "gobnilp-bic3"
SOYBEAN = ANCHORS / "soybean.BIC.p3.jkl"     # n = 36: every method needs many seconds
READY = "stops with the best so far"         # lpbn.solve's first progress line
WAIT = 180                                   # generous: a cold numba cache compiles first
LINUX = Path("/proc/self/task").is_dir()


# ---------------------------------------------------------------------- in-process
def test_handlers_installed_for_the_solve_and_restored():
    def mine(signum, frame):
        pass
    old_int, old_term = signal.signal(signal.SIGINT, mine), signal.signal(signal.SIGTERM, mine)
    try:
        with signals.stop_on_signals():
            assert signal.getsignal(signal.SIGINT) is signals._handler
            assert signal.getsignal(signal.SIGTERM) is signals._handler
            with signals.stop_on_signals():          # nested (a method calling lpbn.solve)
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.01)
                assert signals.pending() == signal.SIGTERM
            assert signal.getsignal(signal.SIGINT) is signals._handler
            assert signals.pending() == signal.SIGTERM   # the outer solve stops too
            assert SolveControl().should_stop() == "interrupted"
        assert signal.getsignal(signal.SIGINT) is mine
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signals.pending() is None
        assert SolveControl().should_stop() is None
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def test_handlers_only_in_the_main_thread_and_ignored_signals_stay_ignored():
    seen = []

    def other():
        with signals.stop_on_signals():
            seen.append(signal.getsignal(signal.SIGINT))
    before = signal.getsignal(signal.SIGINT)
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen == [before]
    old = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with signals.stop_on_signals():
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, old)


def test_solve_returns_interrupted_result_instead_of_raising():
    cache = read_scores(SOYBEAN).prune_dominated()
    before = signal.getsignal(signal.SIGINT)
    sent = []

    def on_improvement(info):
        if not sent:
            sent.append(info)
            os.kill(os.getpid(), signal.SIGINT)
    res = lpbn.solve(cache, "obs", bound="trivial", callback=on_improvement, time_limit=60)
    assert sent
    assert res.status == "interrupted"
    assert res.stats["interrupted_by"] == "SIGINT"
    assert res.dag is not None and res.dag.is_acyclic()
    assert res.score <= res.upper_bound
    assert signal.getsignal(signal.SIGINT) is before


def test_stale_bfbnb_directories_are_reaped(tmp_path):
    live = TempArea(tmp_path)                                  # holds its lock
    dead = tmp_path / "lpbn-bfbnb-killed"                      # a SIGKILLed run's leftovers
    dead.mkdir()
    (dead / ".lock").touch()
    (dead / "layer01.keys").write_bytes(b"x" * 100)
    old = tmp_path / "lpbn-bfbnb-old"                          # no lock file: stale after a day
    old.mkdir()
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    fresh = tmp_path / "lpbn-bfbnb-fresh"                      # no lock file yet: being created
    fresh.mkdir()
    removed = reap_stale(tmp_path)
    assert sorted(Path(p).name for p in removed) == ["lpbn-bfbnb-killed", "lpbn-bfbnb-old"]
    assert Path(live.path).is_dir() and fresh.is_dir()
    live.cleanup()
    assert not Path(live.path).exists()


# ---------------------------------------------------------------------- the command line
def _descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            out.update(kids)
            todo += kids
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class _Run:
    """``python -m lpbn ARGS`` with stderr collected in a thread."""

    def __init__(self, args, cwd):
        env = dict(os.environ)
        env.pop("LPBN_DEBUG", None)
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lpbn", *map(str, args)], cwd=cwd, env=env, text=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            # as from a shell: SIGINT not ignored even when pytest runs in the background
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            if READY in line:
                self.ready.set()

    def wait_for_child(self) -> None:
        end = time.monotonic() + WAIT
        while not _descendants(self.proc.pid):
            assert self.proc.poll() is None, f"finished first: {self.lines[-3:]}"
            assert time.monotonic() < end, "no child process appeared"
            time.sleep(0.1)

    def signal(self, sig) -> set[int]:
        assert self.proc.poll() is None, f"the run finished before the signal: {self.lines[-3:]}"
        kids = _descendants(self.proc.pid) if LINUX else set()
        self.proc.send_signal(sig)
        return kids

    def finish(self) -> int:
        try:
            return self.proc.wait(WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def _check_no_children(kids: set[int]) -> None:
    end = time.monotonic() + 10
    while any(_alive(k) for k in kids) and time.monotonic() < end:
        time.sleep(0.1)
    assert not [k for k in kids if _alive(k)], "child processes left behind"


CASES = [
    # method, instance, signal, extra arguments, wait for a child process
    ("dp", ANCHORS / "mushroom.BIC.p3.jkl", signal.SIGINT, [], False),
    ("dual", SOYBEAN, signal.SIGTERM, [], False),
    ("dual", SOYBEAN, signal.SIGINT, ["--option", "workers=2"], True),             # forked subtree worker
    ("highs", SOYBEAN, signal.SIGINT, [], False),
    ("highs", SOYBEAN, signal.SIGTERM, [], False),
    ("pulp-cbc", SOYBEAN, signal.SIGTERM, ["--option", "root_cuts=false"], True),   # in CBC
    ("bfbnb", ANCHORS / "wdbc.BIC.p3.jkl", signal.SIGINT, [], False),
    ("bfbnb", ANCHORS / "wdbc.BIC.p3.jkl", signal.SIGTERM, [], False),
    ("asobs", SOYBEAN, signal.SIGINT, ["--time-limit", "120"], True),               # forked dual
    ("obs", SOYBEAN, signal.SIGTERM, ["--time-limit", "120", "--option", "parallel=false"], False),
    ("auto", SOYBEAN, signal.SIGINT, [], False),
    ("race", SOYBEAN, signal.SIGTERM, ["--option", "delay=0"], True),              # forked bfbnb
]


@pytest.mark.parametrize("method,path,sig,extra,child", CASES,
                         ids=[f"{c[0]}-{signal.Signals(c[2]).name}" + ("-workers" if "workers=2" in c[3] else "")
                              for c in CASES])
def test_cli_solve_interrupted_writes_result(tmp_path, method, path, sig, extra, child):
    tmp = tmp_path / "bfbnb-tmp"
    out = tmp_path / "out.json"
    args = ["solve", path, "--method", method, "--progress", "-o", out, "--format", "json", *extra]
    if method == "bfbnb":
        args += ["--option", f"tmp_dir={tmp}"]
    run = _Run(args, tmp_path)
    try:
        assert run.ready.wait(WAIT), f"the solve did not start: {run.lines[-3:]}"
        if child and LINUX:
            run.wait_for_child()
        time.sleep(0.5)                              # let it work a little
        kids = run.signal(sig)
        rc = run.finish()
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    name = signal.Signals(sig).name
    assert rc == 128 + sig, run.lines[-5:]
    assert run.lines[-1].startswith(f"lpbn: interrupted by {name}"), run.lines[-5:]
    res = json.loads(out.read_text())
    assert res["status"] == "interrupted"
    assert res["stats"]["interrupted_by"] == name
    assert res["parents"] is not None
    assert res["score"] is not None and res["upper_bound"] is not None
    assert res["score"] <= res["upper_bound"] + 1e-9 * abs(res["score"])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["out.json"] + (["bfbnb-tmp"] if tmp.exists() else []))      # no stray temporary files
    if tmp.exists():
        assert list(tmp.iterdir()) == [], "bfbnb left temporary files"
    _check_no_children(kids)


@pytest.mark.skipif(not LINUX, reason="finds the worker processes in /proc")
def test_cli_score_interrupted_leaves_nothing(tmp_path):
    out = tmp_path / "letter.jkl"
    run = _Run(["score", ROOT / "instances" / "alisterl__eBNSL" / "CSV" / "letter.csv", "--jobs", "2",
                "--quiet", "-o", out], tmp_path)
    try:
        run.wait_for_child()                 # the worker processes: scoring has begun
        time.sleep(0.5)
        kids = run.signal(signal.SIGTERM)
        rc = run.finish()
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    assert rc == 143
    assert run.lines == ["lpbn: interrupted by SIGTERM"]
    assert list(tmp_path.iterdir()) == []    # no partial output
    _check_no_children(kids)


@pytest.mark.skipif(not LINUX, reason="finds the worker processes in /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_cli_score_with_one_job_stops_within_a_long_variable(tmp_path, sig):
    """Exhaustive scoring for the 1,000 best without a parent limit (8 minutes in all): one
    variable's DFBnB is a single numba call of tens of seconds.  With --jobs 1 it runs in one worker process (ISOLATE_MIN_SETS), so the
    command still stops at once (it used to finish the variable first)."""
    out = tmp_path / "h.jkl"
    run = _Run(["score", ROOT / "instances" / "alisterl__eBNSL" / "CSV" / "hepatitis.csv", "--jobs", "1",
                "--explore", "exhaustive", "--k-best", "1000", "--quiet", "-o", out], tmp_path)
    try:
        run.wait_for_child()                 # the worker process: scoring has begun
        time.sleep(1.0)
        kids = run.signal(sig)
        t0 = time.monotonic()
        rc = run.finish()
        waited = time.monotonic() - t0
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    name = signal.Signals(sig).name
    assert rc == 128 + sig, run.lines[-3:]
    assert run.lines == [f"lpbn: interrupted by {name}"]
    assert waited < 10, waited
    assert list(tmp_path.iterdir()) == []    # no partial output
    _check_no_children(kids)


def test_trivial_bound_fills_a_missing_one():
    """A method stopped before it had any bound still reports a finite, valid one."""
    cache = read_scores(ANCHORS / "iris.BIC.p3.jkl")

    def no_bound(cache, control):
        choice, score = cache.best_for_order(np.arange(cache.n))
        dag = lpbn.DAG(cache.names, [cache.parents(int(j)) for j in choice])
        return lpbn.SolveResult(dag, score, float("inf"), "time_limit", "stub")
    register_method("stub-no-bound", no_bound)
    try:
        res = lpbn.solve(cache, "stub-no-bound")
    finally:
        _METHODS.pop("stub-no-bound")
    assert res.upper_bound == pytest.approx(float(cache.best_unconstrained().sum()))
    assert res.score <= res.upper_bound
