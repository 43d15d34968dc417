"""The plan table (lpbn.portfolio.PLANS) reproduces auto's choices before it (issue 55): the
same method, the same options, the same method alone with the caller's options, the same
light-first rule, on a grid of sizes, densities and core counts; and the one merge rule."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpbn import portfolio as P
from lpbn.portfolio import PLANS, Shape, choose_plan, merge
from lpbn.result import DAG, SolveResult


def _before(n: int, m: int, parallel: bool) -> tuple[str, dict, str, bool]:
    """auto's rules as they were written before the table (commit 1a786c8: auto_method,
    auto_options, race_alone and the size part of light_first): (method, its options, the
    method run alone when the caller passes options, whether the light stage may run)."""
    if n <= P.AUTO_DP_MAX_N:
        method = "dp"
    elif n <= P.AUTO_BFBNB_MAX_N and m >= P.AUTO_BFBNB_MIN_DENSITY * n:
        method = "bfbnb"
    elif n <= P.AUTO_RACE_MAX_N and m <= P.AUTO_DUAL_MAX_DENSITY * n and parallel:
        method = "race"
    elif n <= P.AUTO_DUAL_MAX_N and m <= P.AUTO_DUAL_MAX_DENSITY * n:
        method = "race" if parallel else "dual"
    elif P.AUTO_DUAL_MAX_N < n <= P.AUTO_HIGHS_MAX_N and m <= P.AUTO_HIGHS_MAX_DENSITY * n \
            and m <= P.AUTO_HIGHS_MAX_M:
        if not parallel:
            method = P.AUTO_LARGE_METHOD
        else:
            method = P.AUTO_SCALE_METHOD if n >= P.AUTO_SEARCH_HIGHS_MIN_N else "race"
    else:
        method = P.AUTO_SCALE_METHOD
    options = {"methods": P.AUTO_WIDE_RACE_METHODS} if method == "race" and n > P.AUTO_RACE_MAX_N else {}
    alone = (P.AUTO_LARGE_METHOD if n > P.AUTO_DUAL_MAX_N else "dual") if method == "race" else method
    light = not (method == "highs" or (method == "dp" and n < P.AUTO_LIGHT_MIN_DP_N))
    return method, options, alone, light


SIZES = sorted({1, 2, 5, 18, 19, 20, 21, 29, 30, 31, 39, 40, 41, 64, 99, 100, 101, 150, 299, 300, 301,
                1000, 1249, 1250, 1251, 1499, 1500, 1501, 3000})
DENSITIES = (1, 10, 40, 41, 49, 50, 51, 166, 199, 200, 201, 499, 500, 501, 1000)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("n", SIZES)
def test_the_table_makes_the_choices_auto_made_before(n, parallel):
    for per in DENSITIES:
        for m in (per * n - 1, per * n, per * n + 1):
            if m < n:
                continue
            method, options, alone, light = _before(n, m, parallel)
            plan = choose_plan(Shape(n, m, parallel))
            assert plan.method == method, (n, m, parallel, plan.name)
            assert plan.options_for(plan.method, {}) == options, (n, m, parallel, plan.name)
            assert plan.method_for({"x": 1}) == alone, (n, m, parallel, plan.name)
            assert plan.light == light, (n, m, parallel, plan.name)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 4000), per=st.floats(1.0, 2000.0), parallel=st.booleans())
def test_the_table_agrees_everywhere(n, per, parallel):
    m = max(n, int(per * n))
    method, options, alone, _ = _before(n, m, parallel)
    plan = choose_plan(Shape(n, m, parallel))
    assert (plan.method, plan.options_for(plan.method, {}), plan.method_for({"x": 1})) == (method, options, alone)


def test_every_plan_is_reachable_and_the_last_always_applies():
    names = {choose_plan(Shape(n, max(n, int(per * n)), par)).name
             for n in SIZES for per in DENSITIES for par in (False, True)}
    assert names == {p.name for p in PLANS}
    assert PLANS[-1].when(Shape(10**6, 10**9, True))


def _result(score, bound, status, method="m"):
    dag = DAG(["a", "b"], [(), ()])
    return SolveResult(dag, score, bound, status, method)


def test_merge_a_proof_wins_else_the_best_dag_and_the_lowest_bound():
    own, other = _result(-10.0, -5.0, "time_limit", "own"), _result(-8.0, -7.0, "optimal", "other")
    assert merge([own, other]) is other
    own, other = _result(-10.0, -5.0, "time_limit", "own"), _result(-8.0, -6.0, "time_limit", "other")
    res = merge([own, other])
    assert res is own and res.score == -8.0 and res.upper_bound == -6.0 and res.status == "time_limit"
    # the two together close the gap: a proof
    own, other = _result(-10.0, -8.0, "time_limit", "own"), _result(-8.0, -7.0, "time_limit", "other")
    assert merge([own, other]).status == "optimal" and math.isclose(own.score, -8.0)


def test_merge_takes_no_bound_from_a_faulty_answer():
    own, bad = _result(-10.0, -5.0, "time_limit"), _result(-9.0, -20.0, "error")
    res = merge([own, bad])
    assert res.upper_bound == -5.0 and res.score == -9.0 and res.status == "time_limit"


def test_the_answer_names_the_plan_that_fired():
    import lpbn
    from lpbn.testing import random_cache
    cache = random_cache(8, seed=1, density=0.5)
    res = lpbn.solve(cache, method="auto")
    assert res.stats["plan"] == choose_plan(cache).name == "dp-numpy" and res.status == "optimal"
    assert lpbn.solve(cache, method="dp").stats.get("plan") is None       # a named method: no plan


def test_options_run_the_plan_alone_method():
    plan = choose_plan(Shape(35, 35 * 10, True))
    assert plan.name == "race-order-graph"
    assert plan.method_for({}) == "race" and plan.method_for({"fixing": False}) == "dual"
    assert plan.options_for("dual", {"fixing": False}) == {"fixing": False}
