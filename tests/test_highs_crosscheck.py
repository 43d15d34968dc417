"""LP-duality cross-check, method agreement, the bound-gap table and the CLI commands."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pytest

import lpbn
from lpbn.cli import main
from lpbn.lp.clusters import ClusterFamily
from lpbn.compare.crosscheck import crosscheck, duality_checks, method_checks
from lpbn.lp.model import EtaLP
from lpbn.lp.cut_loop import cut_loop
from lpbn.result import DAG, SolveResult
from lpbn.testing import random_cache

WINE = "alisterl__eBNSL/scores/wine.BIC.3"




@dataclass
class FakeRoot:
    """A RootRelaxation-like object (value, clusters, converged, best_score, best_dag)."""

    value: float
    clusters: ClusterFamily
    converged: bool = True
    best_score: float | None = None
    best_dag: DAG | None = None


def exact_root(cache):
    model = EtaLP(cache)
    res = cut_loop(model, mode="clusters", exact=True)
    return model, res


def test_planted_wrong_dual_value_is_caught():
    cache = random_cache(7, seed=21, density=0.8)
    model, res = exact_root(cache)
    good = FakeRoot(res.value, model.clusters)
    assert all(c.ok is not False for c in duality_checks(cache, good))
    # a "converged" dual value that is off by 1e-3 relative: strong duality fails
    wrong = FakeRoot(res.value + 1e-3 * max(1.0, abs(res.value)), model.clusters)
    failed = [c for c in duality_checks(cache, wrong) if c.ok is False]
    assert [c.name for c in failed] == ["strong-duality"]
    # a dual value below the LP optimum violates weak duality even without convergence
    low = FakeRoot(res.value - 1.0, model.clusters, converged=False)
    assert "weak-duality" in [c.name for c in duality_checks(cache, low) if c.ok is False]
    report = crosscheck(cache, root=wrong, methods=["dp"])
    assert not report.ok and "DISAGREEMENT" in report.to_text()
    with pytest.raises(lpbn.LpbnError):
        report.raise_if_failed()


def test_planted_wrong_method_answer_is_caught():
    cache = random_cache(6, seed=4)
    dp = lpbn.solve(cache, method="dp")
    bad_bound = SolveResult(dp.dag, dp.score, dp.score - 5.0, "optimal", "fake")
    checks = method_checks(cache, {"dp": dp, "fake": bad_bound})
    assert any(c.ok is False for c in checks)
    wrong_score = SolveResult(dp.dag, dp.score + 1.0, dp.score + 1.0, "optimal", "fake")
    checks = method_checks(cache, {"dp": dp, "fake": wrong_score})
    names = [c.name for c in checks if c.ok is False]
    assert "fake answer" in names and "dp == fake" in names


def test_crosscheck_without_dual_agrees():
    cache = random_cache(8, seed=2, density=0.7)
    report = crosscheck(cache, dual=False)
    assert report.ok, report.to_text()
    assert {"highs == pulp-cbc", "dp == highs", "dp == pulp-cbc"} <= {c.name for c in report.checks}
    json.loads(report.to_json())


def test_crosscheck_with_dual_passes_on_wine(instances):
    report = crosscheck(lpbn.read_scores(instances / WINE), time_limit=120)
    assert report.ok, report.to_text()
    assert any(c.name == "weak-duality" and c.ok for c in report.checks)


def test_dual_root_relaxation_matches_highs_on_random_caches():
    from lpbn.dual.solver import root_relaxation
    for seed in range(4):
        cache = random_cache(7, seed=100 + seed, density=0.7)
        root = root_relaxation(cache)
        checks = duality_checks(cache, root)
        assert all(c.ok is not False for c in checks), [c.line() for c in checks]


# ---------------------------------------------------------------------- gap table
def test_gap_table_orders_bounds(instances, known_optima):
    opt = known_optima["exact_dp"][WINE]["optimum"]
    t = lpbn.bound_gap_table(lpbn.read_scores(instances / WINE), opt, time_limit=60)
    rows = {r.key: r for r in t.rows}
    assert set(rows) == {"cycles", "dual", "clusters", "zero_half", "zero_half_slack", "best", "optimum"}
    assert rows["cycles"].value >= rows["clusters"].value - 1e-6
    assert rows["clusters"].value >= rows["zero_half"].value - 1e-6 * abs(opt)
    assert rows["zero_half"].value >= opt - 1e-6 * abs(opt)
    assert rows["zero_half"].value >= rows["zero_half_slack"].value - 1e-6 * abs(opt)
    assert rows["zero_half_slack"].value >= opt - 1e-6 * abs(opt)
    assert rows["clusters"].value >= opt - 1e-6 * abs(opt)
    assert rows["clusters"].complete
    assert math.isclose(rows["best"].value, opt, rel_tol=1e-9)
    if rows["dual"].value is not None:
        assert rows["dual"].value >= rows["clusters"].value - 1e-6 * abs(opt)
    d = json.loads(t.to_json())
    assert [r["key"] for r in d["rows"]] == ["cycles", "dual", "clusters", "zero_half", "zero_half_slack", "best",
                                            "optimum"]
    text = t.to_text()
    assert "cycle inequalities only" in text and "known optimum" in text


# ---------------------------------------------------------------------- CLI
def test_cli_check_gap_export(instances, tmp_path, capsys):
    f = str(instances / WINE)
    assert main(["check", f, "--no-dual", "--methods", "highs,dp"]) == 0
    assert "all checks agree" in capsys.readouterr().out
    out = tmp_path / "gap.json"
    assert main(["gap", f, "--no-dual", "--no-solve", "--format", "json", "-o", str(out),
                 "--optimum", "-1258.4459086099996"]) == 0
    assert json.loads(out.read_text())["rows"][-1]["key"] == "optimum"
    assert main(["export", f, "--mps", str(tmp_path / "w.mps"), "--cheap-cuts"]) == 0
    assert (tmp_path / "w.mps").read_text().count("OBJSENSE") == 1
    assert main(["export", f, "--lp", str(tmp_path / "w.lp"), "--no-cuts"]) == 0


def test_cli_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.jkl"
    bad.write_text("not a score file\n")
    assert main(["gap", str(bad)]) == 2
    assert main(["check", str(tmp_path / "missing.jkl")]) == 2
    assert main(["export", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err


def test_cli_check_exits_nonzero_on_disagreement(monkeypatch, instances, capsys):
    import lpbn.compare.crosscheck as cc
    real = cc.duality_checks

    def planted(cache, root, tol=cc.CHECK_TOL):
        fake = FakeRoot(root.value + 1.0, root.clusters, True)
        return real(cache, fake, tol)

    class Root:
        pass

    def fake_root(cache, **kw):
        model, res = exact_root(cache)
        r = Root()
        r.value, r.clusters, r.converged = res.value, model.clusters, True
        r.best_score, r.best_dag = None, None
        return r

    monkeypatch.setattr(cc, "duality_checks", planted)
    monkeypatch.setattr(cc, "load_root_relaxation", lambda: fake_root)
    assert main(["check", str(instances / WINE), "--methods", "highs"]) == 1
    assert "DISAGREEMENT" in capsys.readouterr().err


def test_shared_sweep_small_files(shared):
    """Opt-in: method=highs on every shared exact-optimum file with n <= 11 (bounded)."""
    known = json.loads((shared / "instances" / "KNOWN_OPTIMA.json").read_text())["computed_exact_dp"]
    items = [(k, v) for k, v in known.items() if v["n"] <= 11]
    for rel, info in items:
        r = lpbn.solve(lpbn.read_scores(shared / "instances" / rel), method="highs", time_limit=60)
        assert r.status == "optimal", rel
        assert math.isclose(r.score, info["optimum"], rel_tol=1e-6), rel
