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
    assert auto_method(wide) == ("race" if can_race() else "highs")     # the ILP beside the dual
    # thousands of variables, or many candidates per variable (independence selection): ASOBS
    # beside the dual bound
    from lpbn.testing import random_sparse_cache
    assert auto_method(random_sparse_cache(1500, (200, 300), 4, seed=1)) == "asobs"
    assert auto_method(random_sparse_cache(90, (600, 700), 4, seed=1)) == "asobs"
    # sparse, but beyond the 1,500 variables where the race was measured ahead
    assert auto_method(random_sparse_cache(2000, (60, 100), 4, seed=1)) == "asobs"
    # sparse, from 300 variables: ASOBS beside the ILP (two cores), the ILP alone (one)
    from lpbn.certified import auto_bound
    mid = random_sparse_cache(400, (20, 40), 4, seed=1)
    assert auto_method(mid) == ("asobs" if can_race() else "highs") and auto_bound(mid.prune_dominated()) == "highs"
    assert auto_method(random_sparse_cache(299, (20, 40), 4, seed=1)) == ("race" if can_race() else "highs")
    path = "anchors/gobnilp-bic3/hailfinder500.BIC.p3.jkl"
    r = lpbn.solve(instances / path)
    # the numba-free ILP first for 1.5 s (auto's light-first rule, whatever this process has
    # imported: issue 54), then the race, whose dual proves it
    assert r.method in ("highs", "dual") and r.optimal
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


@settings(max_examples=12, deadline=None)
@given(st.integers(12, 15), st.integers(0, 10**6), st.booleans())
def test_parallel_dp_tables_equal_the_serial_ones(n, seed, ties):
    """The block-parallel order DP (lpbn.dp_kernels) gives the same tables for 1 and 2 threads,
    and the same as the numpy DP (n >= 13 splits the subsets into several blocks; the parallel
    kernels are forced below their usual PARALLEL_MIN_N)."""
    import numpy as np

    from lpbn import dp, dp_kernels
    from lpbn.control import SolveControl
    c = random_cache(n, seed=seed, density=0.3, integer_scores=ties).prune_dominated()
    f0, leaf0 = dp._solve_numpy(c)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dp_kernels, "PARALLEL_MIN_N", 1)
        for threads in (1, 2):
            f, leaf = dp._solve_numba(c, SolveControl(), threads)
            assert np.allclose(f, f0, rtol=0, atol=1e-9) and np.array_equal(leaf, leaf0)


def test_dp_threads_option(instances):
    c = lpbn.read_scores(instances / "anchors" / "gobnilp-bic3" / "hepatitis.BIC.p3.jkl")
    import numba  # noqa: F401  (loaded: the numba path runs at 20 variables)
    a = lpbn.solve(c, "dp", threads=1)
    b = lpbn.solve(c, "dp", threads=2)
    assert a.status == b.status == "optimal" and a.score == b.score == pytest.approx(-1322.58422, abs=1e-4)
    assert a.dag.parents == b.dag.parents
    with pytest.raises(lpbn.InputError, match="threads"):
        lpbn.solve(c, "dp", threads=-1)
