"""method="race" (lpbn.race): the dual here, a rival method in a forked process, first proof wins."""

from __future__ import annotations

import math
import time

import pytest

import lpbn
from lpbn import race
from lpbn.portfolio import auto_method
from lpbn.result import SolveResult
from lpbn.solve import register_method
from lpbn.testing import random_cache

pytestmark = pytest.mark.skipif(not race.can_race(), reason="needs Linux and two cores")


def _slow(cache, control, **_):
    """A method that never proves anything: a quick DAG, the trivial bound, polls until stopped."""
    choice, score = lpbn.warmup.quick_dag(cache)
    dag = lpbn.DAG(cache.names, [cache.parents(int(j)) for j in choice])
    control.improved(best=score, bound=float(cache.best_unconstrained().sum()))
    while True:
        stop = control.should_stop()
        if stop:
            return SolveResult(dag, score, float(cache.best_unconstrained().sum()), stop, "slow")
        time.sleep(0.01)


register_method("slow", _slow)


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
