"""lpbn bench: suites, isolated runs, checks against known optima, outputs.

Runs use tiny instances and `--no-warmup`, so the whole file takes well under a minute.
Fake methods (a liar, a crasher, a hanger, a memory hog) are plugged into the worker
processes with ``--plugin file.py``.
"""

from __future__ import annotations

import csv
import json
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from lpbn.bench import BenchConfig, load_suite, run_suite, write_outputs
from lpbn.bench.checks import WRONG, check_row, cross_check
from lpbn.bench.suite import SuiteError, list_suites, suites_dir
from lpbn.cli import main

IRIS = "kkourin__mobs/tests/data/iris_BIC.txt"
ASIA = "andrewli77__MINOBS-anc/data/bic/asia_250_1.BIC"

FAKES = '''
"""Fake methods for the bench tests (plugged in with --plugin)."""
import os, time
import numpy as np
import lpbn
from lpbn.result import DAG, SolveResult


def liar(cache, control, **options):
    # the empty DAG, claimed optimal: a wrong "optimal" answer
    parents = [()] * cache.n
    s = cache.dag_score(parents)
    return SolveResult(DAG(cache.names, parents), s, s, "optimal", "liar")


def inflater(cache, control, **options):
    # the right DAG (from dp) with an inflated score: caught by re-scoring
    r = lpbn.solve(cache, method="dp")
    return SolveResult(r.dag, r.score + 5.0, r.score + 5.0, "optimal", "inflater")


def crasher(cache, control, **options):
    os.abort()


def hanger(cache, control, **options):
    time.sleep(600)


def hog(cache, control, **options):
    x = np.ones(2 ** 31, dtype=np.float64)  # 16 GiB: over any test memory limit
    return None


lpbn.register_method("liar", liar)
lpbn.register_method("inflater", inflater)
lpbn.register_method("crasher", crasher)
lpbn.register_method("hanger", hanger)
lpbn.register_method("hog", hog)
'''


@pytest.fixture
def fakes(tmp_path) -> str:
    p = tmp_path / "bench_fakes.py"
    p.write_text(FAKES)
    return str(p)


@pytest.fixture
def tiny_suite(tmp_path, instances, known_optima) -> Path:
    """Two bundled instances with their exact optima, written as a suite file."""
    opt = known_optima["exact_dp"]
    text = f'''
    name = "tiny"
    base = "{instances.as_posix()}"
    methods = ["dp"]
    time_limit = 20
    memory_limit = 2048
    trace_plots = ["iris"]

    [[instance]]
    name = "iris"
    file = "{IRIS}"
    score_type = "BIC"
    n = 5
    optimum = {opt[IRIS]["optimum"]!r}
    optimum_source = "KNOWN_OPTIMA exact_dp"
    peers = {{ gobnilp = {{ seconds = 0.02, status = "optimal" }} }}

    [[instance]]
    name = "asia"
    file = "{ASIA}"
    n = 8
    optimum = {opt[ASIA]["optimum"]!r}

    [[instance]]
    name = "absent"
    file = "no/such/file.jkl"
    n = 3
    '''
    p = tmp_path / "tiny.toml"
    p.write_text(textwrap.dedent(text))
    return p


def _rows(out: Path, suite: str) -> list[dict]:
    with open(out / suite / "latest" / "results.csv") as fh:
        return list(csv.DictReader(fh))


# ---------------------------------------------------------------- suites
def test_bundled_suites_load_and_bundled_files_exist():
    names = list_suites()
    for want in ("smoke", "small", "uci-bic3", "medium", "large"):
        assert want in names
    instances = suites_dir().parent      # the checkout's instances/ or the wheel's lpbn/instances/
    root = instances.parent
    for name in names:
        suite = load_suite(name)
        assert suite.entries
        for e in suite.entries:
            for p, raw in ((e.file, e.label), (e.data, None)):
                if p is None:
                    continue
                if str(p).startswith(str(instances)):  # bundled: must be there
                    assert p.exists(), f"{name}: {p}"
                else:  # everything else lives in the shared collection
                    assert not p.resolve().is_relative_to(root), f"{name}: {p}"


def test_small_suite_matches_known_optima(known_optima):
    suite = load_suite("small")
    instances = suites_dir().parent      # the checkout's instances/ or the wheel's lpbn/instances/
    exact = known_optima["exact_dp"]
    bundled = {e.file.resolve().relative_to(instances.resolve()).as_posix(): e
               for e in suite.entries if e.file.resolve().is_relative_to(instances.resolve())}
    assert set(exact) <= set(bundled)
    for key, v in exact.items():
        assert bundled[key].optimum == pytest.approx(v["optimum"], rel=1e-12)
        assert bundled[key].n == v["n"] <= 20


def test_uci_suite_has_peer_numbers():
    suite = load_suite("uci-bic3")
    wine = suite.entry("wine")
    assert wine.data is not None and wine.file is not None
    assert wine.scoring == {"score": "bic", "max_parents": 3}
    assert wine.peers["gobnilp"]["status"] == "optimal"
    assert wine.optimum == pytest.approx(-1258.44590861)


@pytest.mark.parametrize("body, msg", [
    ("name = 1\n[[instance]\n", "invalid TOML"),
    ("[[instance]]\nname = 'x'\n", "give 'file'"),
    ("bogus = 1\n[[instance]]\nfile = 'a'\n", "unknown key"),
    ("[[instance]]\nfile = 'a'\noptimum = 'high'\n", "optimum must be"),
    ("[[instance]]\ndata = 'a.csv'\n", "scoring.score"),
    ("time_limit = -1\n[[instance]]\nfile = 'a'\n", "time_limit"),
])
def test_bad_suites_are_one_line_input_errors(tmp_path, body, msg, capsys):
    p = tmp_path / "bad.toml"
    p.write_text(body)
    with pytest.raises(SuiteError, match=msg):
        load_suite(p)
    assert main(["bench", str(p), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lpbn: error:") and len(err.strip().splitlines()) == 1


def test_unknown_suite_and_method(tiny_suite, capsys):
    assert main(["bench", "no-such-suite"]) == 2
    assert main(["bench", str(tiny_suite), "--methods", "nonesuch", "-q"]) == 2
    assert "not available" in capsys.readouterr().err


# ---------------------------------------------------------------- checks
def _row(**kw):
    base = {"method": "m", "kind": "lpbn", "status": "optimal", "score": -10.0,
            "upper_bound": -10.0, "problems": []}
    base.update(kw)
    return base


def test_check_row_cases():
    r = _row()
    check_row(r, -10.0 + 5e-6, 1e-6)
    assert r["check"] == "ok"
    r = _row(score=-11.0, upper_bound=-11.0)
    check_row(r, -10.0, 1e-6)
    assert r["check"] == WRONG and "differs from the known optimum" in r["problems"][0]
    r = _row(status="time_limit", score=-12.0, upper_bound=-10.5)
    check_row(r, -10.0, 1e-6)
    assert r["check"] == WRONG and "bound" in r["problems"][0]
    r = _row(status="time_limit", score=-12.0, upper_bound=-9.0)
    check_row(r, -10.0, 1e-6)
    assert r["check"] == "consistent"
    r = _row(upper_bound=-9.0)
    check_row(r, None, 1e-6)
    assert r["check"] == WRONG and "gap is open" in r["problems"][0]
    r = _row(dag_problem="DAG has a directed cycle through a -> b")
    check_row(r, None, 1e-6)
    assert r["check"] == WRONG
    r = _row(status="crash", score=None, upper_bound=None)
    check_row(r, -10.0, 1e-6)
    assert r["check"] == ""


def test_cross_check_flags_disagreeing_optima():
    a, b = _row(method="a"), _row(method="b", score=-10.5, upper_bound=-10.5)
    c = _row(method="c", status="time_limit", score=-12.0, upper_bound=-10.2)
    for r in (a, b, c):
        check_row(r, None, 1e-6)
    cross_check([a, b, c], 1e-6)
    assert a["check"] == b["check"] == WRONG
    assert c["check"] == WRONG  # its bound is below a's proven optimum


# ---------------------------------------------------------------- runs
def test_tiny_suite_with_dp_writes_tables(tiny_suite, tmp_path, monkeypatch):
    from lpbn.bench import plots
    monkeypatch.setattr(plots, "have_matplotlib", lambda: False)  # tables without matplotlib
    out = tmp_path / "res"
    rc = main(["bench", str(tiny_suite), "--methods", "dp", "--repeat", "2", "--no-warmup",
               "-o", str(out), "-q"])
    assert rc == 0
    rows = {(r["instance"], r["method"]): r for r in _rows(out, "tiny")}
    for inst in ("iris", "asia"):
        r = rows[(inst, "dp")]
        assert r["status"] == "optimal" and r["check"] == "ok"
        assert len(r["seconds_all"].split(";")) == 2
        assert float(r["peak_rss_mb"]) > 10
        assert float(r["process_seconds"]) >= float(r["seconds"])
    assert rows[("absent", "dp")]["status"] == "absent"
    latest = out / "tiny" / "latest"
    summary = (latest / "summary.md").read_text()
    assert "| dp | 2 | 2 | 0 |" in summary and "gobnilp" in summary
    assert "lpbn bench" in summary and "No wrong result" in summary
    assert not list(latest.glob("*.png"))
    stamped = [d for d in (out / "tiny").iterdir() if d.name != "latest"]
    assert len(stamped) == 1 and (stamped[0] / "results.json.gz").exists()
    (stamped[0] / "summary.md").unlink()
    assert main(["bench", "--report", str(stamped[0]), "--no-plots"]) == 0
    # an older run's plain results.json re-renders too
    from lpbn.bench.report import read_record
    (stamped[0] / "results.json").write_text(json.dumps(read_record(stamped[0])))
    (stamped[0] / "results.json.gz").unlink()
    assert main(["bench", "--report", str(stamped[0]), "--no-plots"]) == 0
    assert (stamped[0] / "summary.md").read_text() == summary


def test_workers_run_the_lpbn_of_the_harness_not_one_in_the_current_folder(tiny_suite, tmp_path, monkeypatch):
    """A bench started inside another checkout (an ``lpbn`` folder in the current directory)
    still measures the lpbn that runs the bench."""
    (tmp_path / "lpbn").mkdir()
    (tmp_path / "lpbn" / "__init__.py").write_text("raise ImportError('the wrong lpbn')\n")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "res"
    assert main(["bench", str(tiny_suite), "--methods", "dp", "--instances", "iris", "--no-warmup",
                 "--no-plots", "-o", str(out), "-q"]) == 0
    assert {r["status"] for r in _rows(out, "tiny")} == {"optimal"}


def test_planted_wrong_optimum_fails_loudly(tiny_suite, tmp_path, fakes, capsys):
    out = tmp_path / "res"
    rc = main(["bench", str(tiny_suite), "--methods", "dp,liar,inflater", "--plugin", fakes,
               "--no-warmup", "--jobs", "2", "-o", str(out), "-q"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "WRONG liar on iris" in err and "WRONG inflater on asia" in err
    rows = {(r["instance"], r["method"]): r for r in _rows(out, "tiny")}
    assert rows[("iris", "liar")]["check"] == WRONG
    assert "differs from the known optimum" in rows[("iris", "liar")]["message"]
    assert "the DAG scores" in rows[("asia", "inflater")]["message"]
    assert rows[("iris", "dp")]["check"] == "ok"
    summary = (out / "tiny" / "latest" / "summary.md").read_text()
    assert "## WRONG results: 4" in summary and "**WRONG**" in summary


def test_crash_hang_and_memout_keep_the_other_rows(tiny_suite, tmp_path, fakes, capsys):
    out = tmp_path / "res"
    args = ["bench", str(tiny_suite), "--methods", "crasher,hanger,hog,dp", "--plugin", fakes,
            "--time-limit", "3", "--grace", "1.5", "--memory-limit", "1500", "--instances",
            "iris", "--no-warmup", "--jobs", "2", "-o", str(out), "-q"]
    assert main(args) == 0  # failures are rows, not fatal
    rows = {r["method"]: r for r in _rows(out, "tiny")}
    assert rows["dp"]["status"] == "optimal" and rows["dp"]["check"] == "ok"
    assert rows["crasher"]["status"] == "crash" and "SIGABRT" in rows["crasher"]["message"]
    assert rows["hanger"]["status"] == "timeout"
    assert float(rows["hanger"]["process_seconds"]) < 12
    assert rows["hog"]["status"] == "memout"
    summary = (out / "tiny" / "latest" / "summary.md").read_text()
    assert "## Failed or refused runs" in summary
    capsys.readouterr()
    assert main(args[:-3] + ["--strict", "-o", str(out), "-q"]) == 1
    assert "failed (--strict)" in capsys.readouterr().err


PROBE = '''
"""A method that reports the tuning constants its worker process sees (plugged in with --plugin)."""
import lpbn
import lpbn.race
from lpbn import tuning
from lpbn.lp.model import EtaLP


def probe(cache, control, **options):
    r = lpbn.solve(cache, method="dp")
    # bound at import (race.py's `from .tuning import`, a class attribute) and read at call time
    r.stats.update(rival_grace=lpbn.race.RIVAL_GRACE, eta_start=EtaLP.START_COLUMNS,
                   stall=list(tuning.ROOT_STALL))
    return r


lpbn.register_method("probe", probe)
'''


def test_tune_overrides_reach_every_worker_and_are_recorded(tiny_suite, tmp_path, capsys):
    """``--tune`` changes what a worker's lpbn does (auto leaves the DP for the numba-free HiGHS
    on iris once AUTO_LIGHT_MIN_DP_N is 1), before lpbn is imported there (values bound at
    import time change too), and the run's record says so."""
    from lpbn.bench.report import read_record
    plugin = tmp_path / "probe.py"
    plugin.write_text(PROBE)
    out = tmp_path / "res"
    tune = ["--tune", "AUTO_LIGHT_MIN_DP_N=1", "--tune", "RIVAL_GRACE=7", "--tune", "ETA_LP_START_COLUMNS=3",
            "--tune", "ROOT_STALL=(9, 0.5)"]
    assert main(["bench", str(tiny_suite), "--methods", "auto,probe", "--plugin", str(plugin), "--instances",
                 "iris", "--no-warmup", "--no-plots", "-o", str(out), "-q", *tune]) == 0
    rows = {r["method"]: r for r in _rows(out, "tiny")}
    assert rows["auto"]["solver"] == "highs" and rows["auto"]["check"] == "ok"
    run_dir = next(d for d in (out / "tiny").iterdir() if d.name != "latest")
    record = read_record(run_dir)
    assert record["tune"] == {"AUTO_LIGHT_MIN_DP_N": 1, "RIVAL_GRACE": 7.0, "ETA_LP_START_COLUMNS": 3,
                              "ROOT_STALL": [9, 0.5]}
    stats = next(r["stats"] for r in record["rows"] if r["method"] == "probe")
    assert stats["rival_grace"] == 7.0 and stats["eta_start"] == 3 and stats["stall"] == [9, 0.5]
    summary = (run_dir / "summary.md").read_text()
    assert "`--tune` `AUTO_LIGHT_MIN_DP_N=1`" in summary and "--tune RIVAL_GRACE=7" in summary
    assert "`ROOT_STALL=(9, 0.5)`" in summary
    (run_dir / "summary.md").unlink()
    assert main(["bench", "--report", str(run_dir), "--no-plots"]) == 0
    assert (run_dir / "summary.md").read_text() == summary
    # without --tune the same run keeps the DP and the module's values
    out2 = tmp_path / "res2"
    assert main(["bench", str(tiny_suite), "--methods", "auto", "--instances", "iris", "--no-warmup",
                 "--no-plots", "-o", str(out2), "-q"]) == 0
    assert _rows(out2, "tiny")[0]["solver"] == "dp"
    assert "no `--tune`" in (out2 / "tiny" / "latest" / "summary.md").read_text()


@pytest.mark.parametrize("item, msg", [
    ("NOPE=1", "no tuning constant NOPE"), ("RIVAL_GRACE", "expected NAME=VALUE"),
    ("RIVAL_GRACE=fast", "not a number"), ("AUTO_DP_MAX_N=2.5", "type int"),
    ("AUTO_DP_MAX_N=True", "type int"), ("ROOT_STALL=3", "tuple of 2"),
    ("DENSE_CELLS=64", "compiled into cached numba kernels")])
def test_bad_tune_is_one_line_and_exit_2(tiny_suite, tmp_path, item, msg, capsys):
    assert main(["bench", str(tiny_suite), "--tune", item, "-o", str(tmp_path), "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert msg in err and len(err.splitlines()) == 1
    assert not (tmp_path / "tiny").exists()


def test_warmup_jobs_carry_the_overrides(tmp_path):
    import concurrent.futures as cf
    from types import SimpleNamespace

    from lpbn.bench import runner
    jobs = []

    class Pool:
        def submit(self, fn, job, *args):
            jobs.append(job)
            done = cf.Future()
            done.set_result(None)
            return done

    config = BenchConfig(tune={"RIVAL_GRACE": 3.0})
    runner._warmup(["auto", "dp", "gap"], Pool(), tmp_path, 1000, config, None, SimpleNamespace(note=print))
    assert len(jobs) == 3 and all(j["tune"] == {"RIVAL_GRACE": 3.0} for j in jobs)


def test_apply_tuning_refuses_once_lpbn_is_imported():
    from lpbn.bench.worker import apply_tuning
    apply_tuning({})  # nothing to do
    with pytest.raises(RuntimeError, match="before the overrides"):
        apply_tuning({"RIVAL_GRACE": 3.0})


def test_external_peer_is_timed_and_checked(tiny_suite, tmp_path, known_optima):
    opt = known_optima["exact_dp"][IRIS]["optimum"]
    good = f"python3 -c \"import sys; open(sys.argv[1]); print('BN score is {opt!r}')\" {{cache}}"
    bad = "python3 -c \"print('score: -1.0')\" {name}"
    config = BenchConfig(methods=["dp"], externals={"good": good, "bad": bad},
                         external_regex={"bad": r"score: (\S+)"}, instances=["iris"],
                         warmup=False, progress=False, command="test")
    run = run_suite(load_suite(tiny_suite), config)
    rows = {r["method"]: r for r in run.rows}
    assert rows["good"]["status"] == "finished" and rows["good"]["check"] == "ok"
    assert rows["good"]["seconds"] > 0 and rows["good"]["peak_rss_mb"] > 0
    assert rows["bad"]["check"] == WRONG  # a peer's wrong score is shown ...
    assert not run.wrong  # ... but only lpbn's own answers fail the run
    out = write_outputs(run, tmp_path / "res", plot=False)
    assert "good" in (out / "summary.md").read_text()


def test_plots_when_matplotlib_is_installed(tiny_suite, tmp_path):
    pytest.importorskip("matplotlib")
    run = run_suite(load_suite(tiny_suite),
                    BenchConfig(methods=["dp"], warmup=False, progress=False, command="t"))
    out = write_outputs(run, tmp_path / "res")
    assert (out / "profile.png").stat().st_size < 200_000
    assert (out / "trace-iris.png").exists()
    assert "![profile.png](profile.png)" in (out / "summary.md").read_text()
    from lpbn.bench.report import read_record
    data = read_record(out)
    assert data["rows"][0]["trace"] and math.isfinite(data["rows"][0]["trace"][-1][1])


def test_synthetic_and_data_instances_report_networks(tmp_path):
    """Instances learned from data: exploration, network score, bound, gap, RSS; synthetic ones
    also the structural Hamming distance to the true network and its score."""
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(300, 6))
    X[:, 1] = X[:, 0] ^ (rng.random(300) < 0.1)
    np.savetxt(data, X, fmt="%d", delimiter=",")
    suite = tmp_path / "s.toml"
    suite.write_text(f'''name = "syn"
methods = ["asobs"]
time_limit = 5

[[instance]]
name = "syn-25"
synthetic = {{ variables = 25, rows = 400, seed = 3 }}
scoring = {{ score = "bic", explore = "independence", max_evaluations = 200, jobs = 1 }}
time_limit = 8

[[instance]]
name = "csv"
data = "{data}"
scoring = {{ score = "bic", explore = "independence", max_evaluations = 50, jobs = 1 }}
''')
    out = tmp_path / "res"
    peer = f"{sys.executable} -c \"print('BN score is -1.5')\" {{data}}"
    # a peer of generated data: gets the rows ({data}, written by the bench) and the true network
    # ({truth}) and reports its distance to it, which goes to the row's truth
    shd = (f"{sys.executable} -c \"import sys, lpbn; lpbn.read_data(sys.argv[1]); open(sys.argv[2]); "
           f"print('BN score is -2.5'); print('SHD is 4 (moral 3)'); print('upper bound:  -2.0'); "
           f"print('gap:          2.000e-01 (over the cache)')\" {{data}} {{truth}}")
    assert main(["bench", str(suite), "--no-warmup", "-o", str(out), "-q", "--external", f"peer={peer}",
                 "--external", f"shd={shd}"]) == 0
    rows = {(r["instance"], r["method"]): r for r in _rows(out, "syn")}
    syn = rows[("syn-25", "asobs")]
    truth = json.loads(syn["truth"])
    assert syn["source"] == "synthetic" and int(truth["shd"]) >= 0 and truth["true_edges"] > 0
    explore = json.loads(syn["explore"])
    assert explore["strategy"] == "independence" and explore["truth_score"] < 0
    assert float(syn["upper_bound"]) >= float(syn["score"]) and float(syn["score_peak_rss_mb"]) > 10
    assert float(syn["time_limit"]) == 8.0 and float(rows[("csv", "asobs")]["time_limit"]) == 5.0
    assert rows[("syn-25", "peer")]["status"] == "finished"      # the generated rows as {data}
    peer_truth = json.loads(rows[("syn-25", "shd")]["truth"])
    assert rows[("syn-25", "shd")]["status"] == "finished" and peer_truth == {"shd": 4, "moral_hd": 3}
    assert float(rows[("syn-25", "shd")]["upper_bound"]) == -2.0 and float(rows[("syn-25", "shd")]["gap"]) == 0.2
    assert rows[("syn-25", "shd")]["message"] == "gap over the cache"    # a peer's bound and its scope
    assert rows[("csv", "shd")]["status"] == "absent"            # no true network for {truth}
    assert rows[("csv", "peer")]["status"] == "finished" and float(rows[("csv", "peer")]["score"]) == -1.5
    summary = (out / "syn" / "latest" / "summary.md").read_text()
    assert "## Networks learned from data" in summary and "| syn-25 | asobs | independence |" in summary


def test_pgmpy_hill_climbing_peer_scores_its_dag_with_lpbn_bic(tmp_path, capsys):
    """The pgmpy peer learns a DAG and prints its BIC under lpbn's formula; lpbn's exact answer on
    the exhaustive cache of the same data is at least as good."""
    pytest.importorskip("pgmpy")
    pytest.importorskip("pandas")
    import lpbn
    from lpbn.bench.peers.pgmpy_hc import main as peer_main
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(400, 5))
    X[:, 1] = X[:, 0] ^ (rng.random(400) < 0.1)
    X[:, 2] = X[:, 1] & X[:, 3]
    data = tmp_path / "d.csv"
    np.savetxt(data, X, fmt="%d", delimiter=",")
    assert peer_main([str(data)]) == 0
    out = capsys.readouterr().out
    peer_score = float(out.strip().splitlines()[-1].split()[-1])
    best = lpbn.solve(lpbn.score_data(str(data), score="bic", jobs=1), method="dp")
    assert best.score >= peer_score - 1e-6 * abs(peer_score)


def test_the_recorded_command_reproduces_the_limits_of_the_run():
    """The command written into summary.md carries every option that changes a row's outcome:
    the grace before a run is killed and a skipped warm-up included."""
    import argparse
    import shlex
    from lpbn.commands.bench import add_arguments, command_line
    p = argparse.ArgumentParser()
    add_arguments(p)
    argv = ["scale", "--methods", "none", "--time-limit", "640", "--grace", "60", "--no-warmup",
            "--external", "x=echo {data}", "-o", "DIR"]
    line = command_line(p.parse_args(argv))
    assert shlex.split(line)[2:] == ["scale", "--methods", "none", "--time-limit", "640", "--grace", "60",
                                     "--external", "x=echo {data}", "--no-warmup", "-o", "DIR"]


FAKE_GOBNILP = """#!/bin/sh
# stands in for GOBNILP: checks the settings it is given and prints its output format
[ "$1" = "-f=dat" ] || exit 3
grep -q 'score_type = "BGe"' "${2#-g=}" || exit 3
grep -q 'palim = 2' "${2#-g=}" || exit 3
head -1 "$3" | grep -q '^a,b,c$' || exit 3
printf 'a<- -10.0\\nb<-a, -20.0\\nc<-a,b, -30.0\\nBN score is -60.0\\n'
printf 'SCIP Status        : solving was interrupted [time limit reached]\\n'
printf 'Primal Bound       : -6.00000000000000e+01\\nDual Bound         : -5.50000000000000e+01\\n'
"""


def test_gobnilp_peer_rescores_the_network_and_reports_scips_bound(tmp_path, capsys):
    """The GOBNILP peer writes the data and settings GOBNILP reads, reads the network it prints
    and SCIP's dual bound, and prints the network's BGe under lpbn's definition with the bound
    and its scope (here a stand-in binary with GOBNILP's output format)."""
    from lpbn.bench.peers.gobnilp import main as peer_main
    from lpbn.scoring.continuous import dag_score
    from lpbn.scoring.typed import read_typed
    binary = tmp_path / "gobnilp"
    binary.write_text(FAKE_GOBNILP)
    binary.chmod(0o755)
    rng = np.random.default_rng(3)
    a = rng.normal(size=300)
    b = 0.8 * a + rng.normal(size=300)
    c = a - b + rng.normal(size=300)
    data = tmp_path / "d.csv"
    data.write_text("a,b,c\n" + "\n".join(f"{x:.17g},{y:.17g},{z:.17g}" for x, y, z in zip(a, b, c)) + "\n")
    assert peer_main([str(data), "--max-parents", "2", "--binary", str(binary)]) == 0
    out = capsys.readouterr().out.splitlines()
    want = dag_score(read_typed(str(data)), "bge", [(), (0,), (0, 1)])
    assert out[-3] == f"BN score is {want:.10f}"
    assert out[-2] == "upper bound: -55.0000000000"
    assert out[-1].startswith("gap: ") and out[-1].endswith("(over every DAG with at most 2 parents per variable)")
    assert peer_main([str(data), "--binary", str(tmp_path / "missing")]) == 2


def test_generated_continuous_data_reach_external_peers(tmp_path):
    """A generated linear-Gaussian data set is written for ``{data}`` (17 significant digits):
    a peer that scores the true network (``{truth}``) on those rows gets the BGe score the bench
    computed on the rows it generated."""
    suite = tmp_path / "c.toml"
    suite.write_text('''name = "cont"
methods = ["dp"]
time_limit = 5

[[instance]]
name = "lg6"
synthetic = { model = "linear-gaussian", variables = 6, rows = 300, seed = 6 }
scoring = { score = "bge", max_parents = 2 }
''')
    peer = (f"{sys.executable} -c \"import sys; from lpbn.scoring.typed import read_typed; "
            f"from lpbn.scoring.continuous import dag_score; from lpbn.gaussian_network import load_dag; "
            f"t = read_typed(sys.argv[1]); assert t.kind == 'continuous' and t.N == 300; "
            f"print('BN score is %r' % dag_score(t, 'bge', load_dag(sys.argv[2]).parents))\" {{data}} {{truth}}")
    out = tmp_path / "res"
    assert main(["bench", str(suite), "--no-warmup", "-o", str(out), "-q", "--external", f"peer={peer}"]) == 0
    rows = {(r["instance"], r["method"]): r for r in _rows(out, "cont")}
    want = json.loads(rows[("lg6", "dp")]["explore"])["truth_score"]
    assert rows[("lg6", "peer")]["status"] == "finished"
    assert float(rows[("lg6", "peer")]["score"]) == pytest.approx(want, rel=1e-12)
