"""The reference DP against brute force, bundled exact optima and the published wine optimum."""

import pytest
from hypothesis import given, settings, strategies as st

import lpbn
from lpbn.errors import ResourceLimitError
from lpbn.testing import random_cache


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 10**6), st.floats(0.05, 0.5), st.booleans())
def test_dp_equals_brute_force(n, seed, density, ties):
    c = random_cache(n, seed=seed, density=density, max_parents=2, integer_scores=ties)
    a = lpbn.solve(c, "dp")
    b = lpbn.solve(c, "brute")
    assert a.status == b.status == "optimal"
    assert a.score == pytest.approx(b.score, rel=1e-12, abs=1e-9)
    assert a.dag.is_acyclic()
    assert c.dag_score(a.dag.parents) == pytest.approx(a.score)


def test_wine_published_optimum(instances):
    r = lpbn.solve(instances / "alisterl__eBNSL/scores/wine.BIC.3", "dp")
    assert r.status == "optimal"
    assert r.score == pytest.approx(-1258.44590861, rel=1e-10)
    assert r.upper_bound >= r.score and r.gap < 1e-9


def test_bundled_exact_optima(instances, known_optima):
    for path, entry in known_optima["exact_dp"].items():
        r = lpbn.solve(instances / path, "dp")
        assert r.score == pytest.approx(entry["optimum"], rel=1e-6), path


def test_auto_uses_dp_for_small(instances):
    r = lpbn.solve(instances / "kkourin__mobs/tests/data/iris_BIC.txt")
    assert r.method == "dp" and r.optimal


def test_auto_portfolio_by_size_and_density(instances, known_optima):
    from lpbn.solve import auto_method
    anchors = instances / "anchors/gobnilp-bic3"
    # dense and small enough for the order graph; sparse: the dual LP solver; very wide: the ILP
    assert auto_method(lpbn.read_scores(anchors / "parkinsons.BIC.p3.jkl")) == "bfbnb"
    from lpbn.race import can_race
    horse = lpbn.read_scores(anchors / "horse.BIC.p3.jkl")          # sparse, 28 variables
    assert auto_method(horse) == ("race" if can_race() else "dual")
    wide = lpbn.ScoreCache.from_families([f"v{i}" for i in range(120)], [[(-1.0, ())]] * 120)
    assert auto_method(wide) == "highs"
    # thousands of variables, or many candidates per variable (independence selection): ASOBS
    # beside the dual bound
    from lpbn.testing import random_sparse_cache
    assert auto_method(random_sparse_cache(1500, (200, 300), 4, seed=1)) == "asobs"
    assert auto_method(random_sparse_cache(90, (600, 700), 4, seed=1)) == "asobs"
    path = "anchors/gobnilp-bic3/hailfinder500.BIC.p3.jkl"
    r = lpbn.solve(instances / path)
    assert r.method == "dual" and r.optimal
    assert r.score == pytest.approx(known_optima["gobnilp_bic3"][path]["optimum"], rel=1e-6)


def test_memory_refusal():
    c = random_cache(12, seed=0, max_parents=1, density=0.1)
    with pytest.raises(ResourceLimitError, match="needs about"):
        lpbn.solve(c, "dp", memory_limit=1000)


def test_time_limit_returns_best_so_far():
    c = random_cache(18, seed=0, max_parents=2, density=0.05)
    r = lpbn.solve(c, "dp", time_limit=0.0)
    assert r.status == "time_limit"
    opt = lpbn.solve(c, "dp").score
    assert r.score <= opt + 1e-9 <= r.upper_bound + 2e-9
    assert r.dag is not None and r.dag.is_acyclic()


def test_trace_and_callback():
    seen = []
    r = lpbn.solve(random_cache(6, seed=1), "dp", callback=seen.append)
    assert seen and r.trace and r.trace[-1][1] == r.score
