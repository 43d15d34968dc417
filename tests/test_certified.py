"""method="asobs"/"obs": ordering search plus the dual bound in one time budget (lpbn.certified)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lpbn
from lpbn.errors import InputError
from lpbn.ordering import trivial_bound
from lpbn.testing import random_cache, random_sparse_cache


@pytest.mark.parametrize("rule", ["asobs", "obs"])
@pytest.mark.parametrize("seed", range(4))
def test_bound_is_valid_and_closes_small_caches(rule, seed):
    c = random_cache(8, seed=seed, density=0.6, integer_scores=seed % 2 == 1)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, rule, time_limit=30, max_restarts=5)
    assert r.score <= opt + 1e-9 * abs(opt) <= r.upper_bound + 2e-9 * abs(opt)
    assert r.upper_bound <= trivial_bound(c.prune_dominated()) + 1e-9
    assert r.dag.is_acyclic() and c.dag_score(r.dag.parents) == pytest.approx(r.score)
    assert r.status == "optimal" and r.score == pytest.approx(opt)   # the dual's B&B closes n = 8
    for _, best, bound in r.trace:
        assert best <= opt + 1e-9 * abs(opt) and bound >= opt - 1e-9 * abs(opt)


@pytest.mark.parametrize("parallel", [False, True])
def test_time_is_shared_and_status_is_honest(parallel):
    """Sequentially the search gets half the time and the dual the rest; side by side (a forked
    dual process) both get all of it."""
    c = random_sparse_cache(400, (30, 80), 4, seed=2)
    r = lpbn.solve(c, "asobs", time_limit=4.0, parallel=parallel)
    assert r.status in ("time_limit", "optimal")
    # bound="auto" (the default) takes the HiGHS ILP at 400 variables
    assert r.stats["bound_method"] == "highs" and r.stats["dual_status"] != "failed"
    assert r.stats["search_share"] == (1.0 if parallel else 0.5)
    assert r.stats.get("parallel", False) == parallel
    assert r.upper_bound >= r.score and math.isfinite(r.gap)
    if r.status != "optimal":
        assert "proven relative gap" in r.message
    assert r.upper_bound <= r.stats["trivial_bound"]
    assert r.trace and r.trace[-1][1] == r.score and r.trace[-1][2] == r.upper_bound
    assert all(b1 <= b2 for (_, b1, _), (_, b2, _) in zip(r.trace, r.trace[1:]))


def test_side_by_side_with_dags_larger_than_a_pipe_buffer():
    """10,000 variables: the search's DAGs (80 KB each) once filled a pipe to the dual process
    while the finished dual sent its result the other way, and both waited for ever; the
    incumbent now goes through shared memory (a regression here hangs this test)."""
    c = random_sparse_cache(10_000, (2, 4), 2, seed=5)
    r = lpbn.solve(c, "asobs", time_limit=3.0, parallel=True)
    assert r.stats["parallel"] and r.stats["dual_status"] != "failed"
    assert r.upper_bound >= r.score and r.dag.is_acyclic()


def test_a_late_bound_process_is_asked_for_its_bound_so_far(monkeypatch):
    """A bound process still busy past the time limit gets a stop request and answers with
    its bound so far (before, it was given up after 10 s and only the trivial bound reported)."""
    import time

    from lpbn import certified, signals
    from lpbn.result import SolveResult
    c = random_cache(8, seed=1, density=0.6)
    ub = trivial_bound(c.prune_dominated())

    def deaf(cache, control, method, options, incumbent=None, feed=None):
        t0 = time.monotonic()
        while signals.pending() is None and time.monotonic() - t0 < 60:   # ignores its limit
            time.sleep(0.01)
        return SolveResult(dag=None, score=-math.inf, upper_bound=ub - 1e-3, status="interrupted",
                           method="dual", stats={"heard": signals.pending() is not None})

    monkeypatch.setattr(certified, "_solve_bound", deaf)
    t0 = time.monotonic()
    r = lpbn.solve(c, "asobs", time_limit=1.0, bound="dual", parallel=True)
    assert time.monotonic() - t0 < 1.0 + certified.BOUND_LATE + 5.0
    assert r.stats["dual_status"] == "interrupted" and r.stats["dual"]["heard"]
    assert r.upper_bound == pytest.approx(max(ub - 1e-3, r.score))


def test_a_bound_process_that_never_answers_still_leaves_its_bound_so_far(monkeypatch):
    """A bound process that reported bounds and then answers nothing, not even to the stop
    request (stuck in a call that does not poll): the parent reports the last bound it
    published, not the trivial one, and says so."""
    import signal
    import time

    from lpbn import certified
    c = random_cache(8, seed=1, density=0.6)
    ub = trivial_bound(c.prune_dominated())

    def stuck(cache, control, method, options, incumbent=None, feed=None):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)     # the parent's reaping ends it
        control.improved(bound=ub - 2e-3)
        control.improved(bound=ub - 1e-3)       # not lower: the slot keeps the smallest
        time.sleep(60)

    monkeypatch.setattr(certified, "_solve_bound", stuck)
    monkeypatch.setattr(certified, "STOP_GRACE", 0.5)
    t0 = time.monotonic()
    r = lpbn.solve(c, "asobs", time_limit=1.0, bound="dual", parallel=True)
    assert time.monotonic() - t0 < 1.0 + certified.BOUND_LATE + 5.0
    assert r.stats["dual_status"] == "failed" and r.stats["dual_error"] == "no answer in time"
    assert r.upper_bound == pytest.approx(max(ub - 2e-3, r.score))
    assert "its last reported bound is reported" in r.message


@pytest.mark.parametrize("parallel", [False, True])
def test_highs_bound(parallel):
    """bound="highs": the HiGHS ILP instead of the dual gives the bound (and closes small caches)."""
    c = random_cache(9, seed=4, density=0.6)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, "asobs", bound="highs", time_limit=20, parallel=parallel, max_restarts=3)
    assert r.stats["bound_method"] == "highs" and r.stats["dual_status"] == "optimal"
    assert r.status == "optimal" and r.score == pytest.approx(opt)
    big = random_sparse_cache(300, (20, 60), 4, seed=3)
    r = lpbn.solve(big, "asobs", bound="highs", time_limit=3.0, parallel=parallel,
                   dual_options={"zero_half": "slack"})
    assert r.stats["bound_method"] == "highs" and r.stats["dual_status"] != "failed"
    assert r.score <= r.upper_bound <= r.stats["trivial_bound"] and r.dag.is_acyclic()


def test_without_time_limit_it_terminates_with_a_bound():
    c = random_sparse_cache(150, (20, 40), 4, seed=5)
    r = lpbn.solve(c, "asobs", max_restarts=3)
    assert r.status in ("node_limit", "optimal")
    assert r.upper_bound >= r.score and "bound_seconds" in r.stats


def test_incumbent_is_passed_to_the_dual_and_trivial_bound_skips_it():
    c = random_cache(9, seed=3, density=0.5)
    t = lpbn.solve(c, "asobs", bound="trivial", max_restarts=3)
    assert "dual" not in t.stats and t.upper_bound == pytest.approx(trivial_bound(c))
    d = lpbn.solve(c, "asobs", max_restarts=3, time_limit=20)
    assert d.stats["dual_score"] >= d.stats["search_score"] - 1e-9


def test_dual_accepts_an_incumbent_dag():
    c = random_cache(9, seed=11, density=0.5)
    a = lpbn.solve(c, "asobs", bound="trivial", max_restarts=5)
    r = lpbn.solve(c, "dual", incumbent=a.dag, node_limit=1)
    assert r.score >= a.score - 1e-9
    bad = lpbn.DAG(c.names, [[1], [0]] + [[] for _ in range(7)])
    with pytest.raises(InputError):
        lpbn.solve(c, "dual", incumbent=bad)


def test_auto_bound_by_size():
    """bound="auto": the dual up to 100 variables and beyond 1,500 or 250,000 candidates, the
    HiGHS ILP between (lpbn.certified.AUTO_BOUND_HIGHS_*); the option names are checked against
    the method it chose."""
    from lpbn.certified import auto_bound
    assert auto_bound(random_sparse_cache(100, (2, 4), 2, seed=0)) == "dual"
    assert auto_bound(random_sparse_cache(101, (2, 4), 2, seed=0)) == "highs"
    assert auto_bound(random_sparse_cache(1501, (2, 4), 2, seed=0)) == "dual"
    c = random_sparse_cache(320, (2, 4), 2, seed=1)
    with pytest.raises(InputError, match="'highs' has no option.*local_search.*bound='auto' chose it"):
        lpbn.solve(c, "asobs", max_restarts=1, dual_options={"local_search": 0.0})
    r = lpbn.solve(c, "asobs", max_restarts=1, bound="dual", dual_options={"local_search": 0.0}, time_limit=5)
    assert r.stats["bound_method"] == "dual"


@pytest.mark.parametrize("kwargs,match", [
    ({"bound": "lp"}, "bound must be"),
    ({"search_share": 0.0}, "search_share"),
    ({"search_share": "x"}, "search_share"),
    ({"dual_options": 3}, "dual_options"),
    ({"bound": "highs", "dual_options": {"k_max": 2, "nonsense": 1}}, "no option"),
    ({"nonsense": 1}, "has no option 'nonsense'"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(InputError, match=match):
        lpbn.solve(random_cache(5, seed=0), "asobs", max_restarts=1, **kwargs)


def test_indices_of_matches_candidate_index():
    c = random_cache(7, seed=2, density=0.5)
    parents = [c.parents(int(j)) for j in c.offsets[:-1]]
    idx = c.indices_of(parents)
    assert list(idx) == [c.candidate_index(i, ps) for i, ps in enumerate(parents)]
    assert c.indices_of([(6,)] + [()] * 6)[0] in (-1, c.candidate_index(0, (6,)) or -1)
    assert np.all(idx >= 0)


@pytest.mark.parametrize("parallel", [False, True])
def test_a_bound_in_error_is_not_used(monkeypatch, parallel):
    """The bound's method ends with status error (a detected fault): its bound is ignored, as by
    every merge of results (lpbn.portfolio.merge), and the message says so."""
    from lpbn import certified
    from lpbn.result import SolveResult
    c = random_cache(8, seed=1, density=0.6)
    trivial = trivial_bound(c.prune_dominated())

    def faulty(cache, control, method, options, incumbent=None, feed=None):
        return SolveResult(dag=None, score=-math.inf, upper_bound=-1e9, status="error", method="dual",
                           message="planted fault")

    monkeypatch.setattr(certified, "_solve_bound", faulty)
    r = lpbn.solve(c, "asobs", time_limit=1.0, bound="dual", parallel=parallel)
    assert r.stats["dual_status"] == "error" and r.upper_bound >= r.score
    assert r.upper_bound == pytest.approx(trivial) and "planted fault" in r.message
