"""lpbn bench as the one benchmark harness: ``auto`` everywhere, whole-process time, and the bench
methods that replaced the old scripts (``score``, ``gap``, ``check``).

Tiny instances and ``--no-warmup``; each test takes a few seconds.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lpbn.bench import BenchConfig, load_suite, run_suite
from lpbn.bench.checks import WRONG
from lpbn.bench.suite import list_suites, suites_dir
from lpbn.cli import main

IRIS_CSV = "alisterl__eBNSL/CSV/iris.csv"
IRIS_JKL = "anchors/gobnilp-bic3/iris.BIC.p3.jkl"
IRIS_OPT = -465.43502834

#: suites whose methods are not solvers, or hold the solver fixed on purpose
NOT_SOLVER_SUITES = {"scoring", "gap", "explore", "bfbnb-memory"}


def _suite(tmp_path: Path, instances: Path, methods: list[str], *, optimum: float = IRIS_OPT,
           reference: str = IRIS_JKL, extra: str = "") -> Path:
    text = f'''
    name = "t"
    base = "{instances.as_posix()}"
    methods = {json.dumps(methods)}
    time_limit = 20
    memory_limit = 4096
    {extra}

    [[instance]]
    name = "iris"
    data = "{IRIS_CSV}"
    scoring = {{ score = "bic", max_parents = 3, jobs = 1 }}
    file = "{reference}"
    n = 5
    optimum = {optimum!r}
    '''
    p = tmp_path / "t.toml"
    p.write_text(textwrap.dedent(text))
    return p


def _rows(out: Path) -> dict[str, dict]:
    with open(out / "t" / "latest" / "results.csv") as fh:
        return {r["method"]: r for r in csv.DictReader(fh)}


def test_new_suites_are_bundled_and_auto_is_in_every_solver_suite():
    names = set(list_suites())
    assert {"scoring", "gap", "crosscheck", "blip5000", "bfbnb-memory"} <= names
    for name in names - NOT_SOLVER_SUITES:
        assert "auto" in load_suite(name).methods, name
    assert load_suite("small").limits["pulp-cbc"]["max_n"] == 15
    assert load_suite("crosscheck").methods[0] == "check"


def test_auto_runs_in_any_suite_and_names_its_choice(tmp_path, instances):
    suite = _suite(tmp_path, instances, ["auto", "dp"])
    out = tmp_path / "res"
    assert main(["bench", str(suite), "--source", "cache", "--no-warmup", "--no-plots",
                 "-o", str(out), "-q"]) == 0
    rows = _rows(out)
    assert rows["auto"]["status"] == "optimal" and rows["auto"]["check"] == "ok"
    assert rows["auto"]["solver"] == "dp" and rows["dp"]["solver"] == "dp"
    summary = (out / "t" / "latest" / "summary.md").read_text()
    assert "`auto` chose: dp on iris." in summary
    # whole-process time next to solve time: per cell and per method
    assert "geomean process s" in summary
    proc, solve = float(rows["dp"]["process_seconds"]), float(rows["dp"]["seconds"])
    assert proc > solve and f"opt {solve:.3f}s ({proc:.3f}s)" in summary


def test_score_method_times_scoring_and_agrees_with_the_reference(tmp_path, instances):
    suite = _suite(tmp_path, instances, ["score"])
    run = run_suite(load_suite(suite), BenchConfig(repeat=2, warmup=False, progress=False,
                                                   command="t"))
    (row,) = run.rows
    assert row["status"] == "scored" and row["check"] == "ok", row["message"]
    assert len(row["seconds_all"]) == 2 and row["process_seconds"] > sum(row["seconds_all"])
    assert row["read_seconds"] > 0 and row["m"] == 26 and row["n"] == 5
    ref = row["stats"]["reference"]
    assert ref["sets"] == ref["common"] == 26 and ref["max_abs_diff"] < 1e-6
    assert ref["pruned_undominated"] == 0


def test_score_method_flags_a_reference_that_disagrees(tmp_path, instances):
    import lpbn
    from lpbn.cache import ScoreCache
    cache = lpbn.read_scores(instances / IRIS_JKL)
    fams = [list(cache.family_lists(i)) for i in range(cache.n)]
    k = next(k for k, (_, ps) in enumerate(fams[0]) if ps)  # a non-empty parent set of X0
    fams[0][k] = (fams[0][k][0] + 1.0, fams[0][k][1])
    bad = tmp_path / "bad.jkl"
    lpbn.write_scores(ScoreCache.from_families(cache.names, fams), bad)
    suite = _suite(tmp_path, instances, ["score"], reference=str(bad))
    out = tmp_path / "res"
    assert main(["bench", str(suite), "--no-warmup", "--no-plots", "-o", str(out), "-q"]) == 1
    row = _rows(out)["score"]
    assert row["check"] == WRONG
    assert "differs from the reference" in row["message"] or "pruned although" in row["message"]


def test_gap_and_check_methods_record_tables_and_verdicts(tmp_path, instances):
    suite = _suite(tmp_path, instances, ["gap", "check"],
                   extra='[options.check]\nmethods = ["dp", "highs"]')
    out = tmp_path / "res"
    assert main(["bench", str(suite), "--source", "cache", "--time-limit", "10", "--no-warmup",
                 "--no-plots", "-o", str(out), "-q"]) == 0
    rows = _rows(out)
    gap = rows["gap"]
    assert gap["status"] == "finished" and gap["check"] == "ok"
    table = json.loads(gap["stats"])["table"]
    assert [g["key"] for g in table][:3] == ["cycles", "dual", "clusters"]
    assert float(gap["upper_bound"]) >= IRIS_OPT - 1e-6 and float(gap["process_seconds"]) > 0
    chk = rows["check"]
    assert chk["status"] == "agree" and chk["check"] == "ok"
    assert json.loads(chk["stats"])["failed"] == 0
    summary = (out / "t" / "latest" / "summary.md").read_text()
    assert "## LP bounds (`gap`" in summary and "| iris | LP, cycle inequalities only" in summary
    assert "## Cross-checks (`check`)" in summary and "| iris | agree |" in summary


def test_gap_bound_below_the_known_optimum_is_wrong(tmp_path, instances):
    # a planted optimum above the true one: every valid bound now looks too low
    suite = _suite(tmp_path, instances, ["gap"], optimum=IRIS_OPT + 10.0)
    run = run_suite(load_suite(suite), BenchConfig(source="cache", time_limit=10, warmup=False,
                                                   progress=False, command="t"))
    (row,) = run.rows
    assert row["check"] == WRONG and run.wrong


def test_runner_does_not_import_the_test_helper():
    src = "\n".join(p.read_text() for p in (suites_dir().parent.parent / "lpbn" / "bench").glob("*.py"))
    assert "testing" not in src.replace("lpbn.testing", "")  # no `from ..testing import`
    code = ("import sys, tempfile, pathlib; import lpbn.bench.runner as r; "
            "from lpbn.synthetic import random_cache; assert random_cache(6, seed=1).n == 6; "
            "assert 'lpbn.testing' not in sys.modules")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("name", ["scoring", "gap", "crosscheck", "blip5000", "bfbnb-memory"])
def test_new_suites_point_at_existing_bundled_files(name, instances):
    for e in load_suite(name).entries:
        for p in (e.file, e.data):
            if p is not None and str(p).startswith(str(instances)):
                assert p.exists(), p
