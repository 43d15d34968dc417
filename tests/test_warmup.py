"""Time limits hold on a fresh install: a cold method compiles in a child process while the
clock runs, and a quick answer with valid bounds comes back at the limit (lpbn.warmup)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import lpbn
from lpbn.warmup import is_warm, quick_dag, quick_result

WINE = "anchors/gobnilp-bic3/wine.BIC.p3.jkl"


def test_quick_dag_is_a_valid_dag_of_the_cache(instances):
    cache = lpbn.read_scores(instances / WINE)
    choice, score = quick_dag(cache)
    parents = [cache.parents(int(j)) for j in choice]
    assert lpbn.DAG(cache.names, parents).is_acyclic()
    assert np.isclose(cache.dag_score(parents), score)
    res = quick_result(cache, "dual", "time_limit", "m")
    assert res.score <= res.upper_bound and res.status == "time_limit"


def test_methods_are_warm_after_session_start():
    assert all(is_warm(m) for m in ("dp", "dual", "highs", "bfbnb", "asobs", "score"))


def test_cold_timed_solve_returns_at_the_limit(instances, tmp_path):
    """An empty numba cache: `--time-limit 1` returns within the limit plus start-up, with a
    valid DAG and bound, and says why."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    root = instances.parent
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(instances / WINE), "--method", "dual",
                          "--time-limit", "1", "--format", "json", "--quiet"], cwd=root, env=env,
                         capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - t0
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["status"] in ("time_limit", "optimal")
    assert res["score"] <= res["upper_bound"] + 1e-9
    assert wall < 60     # generous: a loaded CI machine; the point is no 20-s compile first
    if res["status"] == "time_limit":
        assert "lpbn warmup" in res.get("message", "")


def test_failed_warmup_child_is_not_reported_as_a_time_limit(instances, monkeypatch):
    """A warm-up child that exits with an error (not a time limit): the method compiles and
    runs in the process instead of answering "time limit reached while compiling"."""
    import subprocess as sp

    import lpbn.compiled as W          # the part of the warm-up that the front door uses
    real = sp.Popen
    monkeypatch.setattr(W, "is_warm", lambda method: False)
    monkeypatch.setattr(W.subprocess, "Popen",
                        lambda args, **kw: real([sys.executable, "-c", "raise SystemExit(3)"], **kw))
    cache = lpbn.read_scores(instances / WINE)
    res = lpbn.solve(cache, method="dual", time_limit=60)
    assert res.status == "optimal" and not res.stats.get("compiling")


def test_parallel_warmup_waits_for_the_kernels_it_shares(monkeypatch):
    """warm_all runs every cold unit once, each after the units of AFTER it needs, on at most
    ``jobs`` processes at a time; obs brings the ordering kernels along."""
    import threading
    import types

    import lpbn.warmup as W
    log, running, lock = {}, [], threading.Lock()
    peak = [0]

    def fake_run(cmd, cwd=None, **_):
        # the child imports the lpbn this process runs, not one in the caller's directory
        assert Path(cwd, "lpbn", "warmup.py").resolve() == Path(W.__file__).resolve()
        unit = cmd[-1]
        with lock:
            running.append(unit)
            peak[0] = max(peak[0], len(running))
        start = time.perf_counter()
        time.sleep(0.2 if unit in ("dual", W.ORDERING) else 0.05)
        with lock:
            running.remove(unit)
        log[unit] = (start, time.perf_counter())
        return types.SimpleNamespace(returncode=1 if unit == "dp" else 0, stderr="boom\nlast line")

    monkeypatch.setattr(W, "is_warm", lambda method: False)
    monkeypatch.setattr(W.subprocess, "run", fake_run)
    reports = []
    failed = W.warm_all(["dp", "dual", "highs", "obs", "asobs", "bfbnb"], 2,
                        lambda unit, state: reports.append((unit, state)))
    assert sorted(log) == sorted(["dp", "dual", "highs", "obs", "asobs", "bfbnb", W.ORDERING])
    for unit, deps in W.AFTER.items():
        for d in deps:
            if unit in log:
                assert log[unit][0] >= log[d][1]
    assert peak[0] == 2
    assert failed == ["dp"] and ("dp", "failed (exit 1): last line") in reports


def test_lpbn_warmup_jobs_compiles_in_children(tmp_path, monkeypatch):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    out = subprocess.run([sys.executable, "-m", "lpbn", "warmup", "dp", "bfbnb", "--jobs", "2"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "bfbnb     compiled in" in out.stderr and "dp        compiled in" in out.stderr
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert is_warm("dp") and is_warm("bfbnb") and not is_warm("dual")
    again = subprocess.run([sys.executable, "-m", "lpbn", "warmup", "dp", "--jobs", "2"], env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "already compiled" in again.stderr and "compiling" not in again.stderr
    bad = subprocess.run([sys.executable, "-m", "lpbn", "warmup", "--jobs", "0"], env=env,
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "--jobs" in bad.stderr


def test_cli_processes_skip_numbas_blas_probe(instances):
    """lpbn.startup: a process that runs the CLI loads numba kernels from the cache without
    numba's full context refresh (no linalg lowering imported) and without its BLAS probe
    (no scipy.linalg); arraymath, when a kernel or the user imports it, skips the probe, and
    scipy.linalg still imports afterwards."""
    code = ("import sys\n"
            "from lpbn.cli import main\n"
            f"rc = main(['solve', {str(instances / WINE)!r}, '--method', 'bfbnb'])\n"
            "assert rc == 0, rc\n"
            "import numba.core.caching as caching\n"
            "assert caching.Cache.load_overload.lpbn_light\n"
            "from lpbn.bfbnb import kernels\n"
            "assert any(f.stats.cache_hits for f in vars(kernels).values() if hasattr(f, 'stats')), 'no kernel loaded'\n"
            "assert 'numba.np.linalg' not in sys.modules, 'a cache load refreshed the context'\n"
            "assert 'scipy.linalg' not in sys.modules, 'numba probed scipy.linalg'\n"
            "import numba.np.arraymath as am\n"
            "assert am._HAVE_BLAS is False\n"
            "import scipy.linalg\n"
            "assert not any(type(f).__name__ == '_SkipBlasProbe' for f in sys.meta_path)\n")
    first = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(instances / WINE), "--method", "bfbnb"],
                           capture_output=True, text=True, timeout=600)   # the kernels in the cache
    assert first.returncode == 0, first.stderr
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr


def test_light_cache_loads_leave_compiling_intact(instances):
    """After a light cache load (lpbn.startup.light_numba_cache_loads), a function numba has
    not cached compiles with the full context, and cached and fresh kernels give the same
    answers as a process without the hook."""
    code = ("import sys, numpy as np\n"
            "from lpbn.startup import light_numba_cache_loads\n"
            "if sys.argv[1] == 'light':\n"
            "    light_numba_cache_loads()\n"
            "import numba, lpbn\n"
            f"cache = lpbn.read_scores({str(instances / WINE)!r})\n"
            "scores = [lpbn.solve(cache, m).score for m in ('bfbnb', 'dp', 'dual', 'highs', 'asobs')]\n"
            "@numba.njit\n"
            "def fresh(a):\n"
            "    return np.linalg.norm(a) + np.sort(a)[0]\n"
            "print(repr(scores), fresh(np.arange(3.0)), 'numba.np.linalg' in sys.modules)\n")
    runs = [subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True, timeout=600)
            for mode in ("light", "full")]
    for out in runs:
        assert out.returncode == 0, out.stderr
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.split()[-1] == "True"
