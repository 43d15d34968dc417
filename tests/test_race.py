"""method="race" (lpbn.race): the dual here, a rival method in a forked process, first proof wins."""

from __future__ import annotations

import math
import time

import pytest

import lpbn
import lpbn.compiled
from lpbn import race
from lpbn.portfolio import auto_method
from lpbn.result import SolveResult
from lpbn.solve import register_method
from lpbn.testing import random_cache

pytestmark = pytest.mark.skipif(not race.can_race(), reason="needs Linux and two cores")


def _slow(cache, control, **_):
    """A method that never proves anything: a quick DAG, the trivial bound, polls until stopped."""
    choice, score = lpbn.compiled.quick_dag(cache)
    dag = lpbn.DAG(cache.names, [cache.parents(int(j)) for j in choice])
    control.improved(best=score, bound=float(cache.best_unconstrained().sum()))
    while True:
        stop = control.should_stop()
        if stop:
            return SolveResult(dag, score, float(cache.best_unconstrained().sum()), stop, "slow")
        time.sleep(0.01)


register_method("slow", _slow)


def _projecting(seconds: float):
    """A rival that never proves anything and keeps projecting ``seconds`` still to go."""
    def method(cache, control, **_):
        choice, score = lpbn.compiled.quick_dag(cache)
        dag = lpbn.DAG(cache.names, [cache.parents(int(j)) for j in choice])
        bound = float(cache.best_unconstrained().sum())
        control.improved(best=score, bound=bound)
        while True:
            control.estimate(seconds)
            stop = control.should_stop()
            if stop:
                return SolveResult(dag, score, bound, stop, "projecting")
            time.sleep(0.01)
    return method


register_method("hopeless", _projecting(1e6))
register_method("projects-30s", _projecting(30.0))


def test_race_is_exact_on_random_caches():
    for seed in range(3):
        cache = random_cache(9, seed=seed, density=0.6)
        opt = lpbn.solve(cache, method="dp").score
        res = lpbn.solve(cache, method="race", delay=0.0)
        assert res.status == "optimal" and math.isclose(res.score, opt, rel_tol=1e-9, abs_tol=1e-9)
        assert res.stats["race"]["winner"] in ("bfbnb", "dual")


def test_the_rival_proof_stops_the_method_here():
    cache = random_cache(8, seed=3, density=0.6)
    opt = lpbn.solve(cache, method="dp").score
    t0 = time.perf_counter()
    res = lpbn.solve(cache, method="race", methods=["dp", "slow"], delay=0.0, time_limit=60)
    assert time.perf_counter() - t0 < 30
    assert res.status == "optimal" and res.method == "dp" and math.isclose(res.score, opt, rel_tol=1e-9)
    assert res.stats["race"]["winner"] == "dp" and res.stats["race"]["rival_started"]


def test_no_proof_combines_the_best_dag_and_the_smaller_bound():
    cache = random_cache(8, seed=4, density=0.6)
    t0 = time.perf_counter()
    res = lpbn.solve(cache, method="race", methods=["slow", "slow"], delay=0.0, time_limit=1.0)
    assert time.perf_counter() - t0 < 1.0 + race.RIVAL_GRACE + 5
    assert res.status == "time_limit" and res.stats["race"]["rival_status"] == "time_limit"
    assert res.score <= res.upper_bound


def test_easy_caches_never_start_the_rival():
    cache = random_cache(7, seed=5, density=0.5)
    res = lpbn.solve(cache, method="race", delay=60.0)
    assert res.status == "optimal" and not res.stats["race"]["rival_started"]


def test_auto_races_between_bfbnb_and_dual_range():
    cache = random_cache(34, seed=1, max_parents=1, density=0.05)
    assert auto_method(cache) == "race"
    res = lpbn.solve(cache, method="auto", fixing=False, time_limit=30)     # options: the dual alone
    assert res.method == "dual" and "race" not in res.stats


def test_a_hopeless_rival_yields_its_core_to_the_dual(instances):
    """The rival projects beyond race.HANDOVER_HORIZON: it is stopped (its answer kept) and the
    dual forks a second worker for its subtrees, still exact."""
    from lpbn.formats import read_scores
    cache = read_scores(instances / "anchors" / "gobnilp-bic3" / "autos.BIC.p3.jkl")
    res = lpbn.solve(cache, method="race", methods=["hopeless", "dual"], delay=0.0, time_limit=120)
    assert res.status == "optimal" and math.isclose(res.score, -1585.759741, rel_tol=1e-6)
    info = res.stats["race"]
    assert info["rival_yielded"]["projected_seconds"] == 1e6
    assert info["rival_status"] == "interrupted" and info["winner"] == "dual"
    assert res.stats["workers"] == 2 and len(res.stats["worker_nodes"]) == 2


def test_a_rival_that_can_finish_keeps_its_core(instances):
    from lpbn.formats import read_scores
    cache = read_scores(instances / "anchors" / "gobnilp-bic3" / "autos.BIC.p3.jkl")
    res = lpbn.solve(cache, method="race", methods=["projects-30s", "dual"], delay=0.0)
    assert res.status == "optimal" and math.isclose(res.score, -1585.759741, rel_tol=1e-6)
    assert "rival_yielded" not in res.stats["race"] and "workers" not in res.stats


def test_a_rival_projecting_past_the_time_limit_yields(instances):
    """30 s is within the horizon, but not within a 10-s limit."""
    from lpbn.formats import read_scores
    cache = read_scores(instances / "anchors" / "gobnilp-bic3" / "autos.BIC.p3.jkl")
    res = lpbn.solve(cache, method="race", methods=["projects-30s", "dual"], delay=0.0, time_limit=10)
    assert "rival_yielded" in res.stats["race"]
    assert res.score <= res.upper_bound
