"""The dual branch and bound with parallel subtrees (``workers``, lpbn.dual.parallel)."""

from __future__ import annotations

import sys
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.dual.bnb import BranchAndBound
from lpbn.formats import read_scores
from lpbn.testing import random_cache
from lpbn.verify import verify

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parallel subtrees fork (Linux)")

TOL = 1e-6


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 11), seed=st.integers(0, 10_000), workers=st.sampled_from([2, 3]),
       polish=st.sampled_from([False, "nodes"]))
def test_parallel_subtrees_prove_the_serial_optimum(n, seed, workers, polish):
    cache = random_cache(n, seed=seed, max_parents=3, density=0.9)
    opt = lpbn.solve(cache, method="dp").score
    trace = []
    r = lpbn.solve(cache, method="dual", workers=workers, lp_polish=polish, callback=trace.append)
    assert r.status == "optimal"
    assert rel(r.score, opt) <= TOL and rel(r.upper_bound, opt) <= 1e-8
    assert r.dag.is_acyclic() and rel(cache.dag_score(r.dag.parents), r.score) <= 1e-12
    for info in trace:                       # the bound reported while workers run is valid
        assert info["bound"] >= opt - TOL * max(1, abs(opt))
        assert info["best"] <= opt + TOL * max(1, abs(opt))
    if "worker_nodes" in r.stats:
        assert len(r.stats["worker_nodes"]) == workers
        assert sum(r.stats["worker_nodes"]) + 1 == r.stats["nodes"]      # + the root
        assert "worker_errors" not in r.stats


def test_two_workers_share_the_tree_of_a_real_cache(instances, known_optima):
    key = "anchors/gobnilp-bic3/autos.BIC.p3.jkl"
    opt = known_optima["gobnilp_bic3"][key]["optimum"]
    cache = read_scores(instances / key)
    r = lpbn.solve(cache, method="dual", workers=2)
    assert r.status == "optimal" and rel(r.score, opt) <= TOL
    nodes = r.stats["worker_nodes"]
    assert len(nodes) == 2 and min(nodes) >= 1                # both searched part of the tree


def test_time_limit_stops_every_worker_with_a_valid_bound(instances, known_optima):
    """soybean: the root ends after a few seconds, the two workers share the tree, and the time
    limit stops both with the bound of the nodes they still hold."""
    key = "anchors/gobnilp-bic3/soybean.BIC.p3.jkl"
    opt = known_optima["gobnilp_bic3"][key]["optimum"]
    cache = read_scores(instances / key)
    r = lpbn.solve(cache, method="dual", workers=2, time_limit=12)
    assert r.status in ("time_limit", "optimal")
    assert r.dag is not None and r.dag.is_acyclic()
    assert r.score <= opt + TOL * abs(opt) <= r.upper_bound + 2 * TOL * abs(opt)
    if r.status == "time_limit" and r.stats["nodes"] > 1:    # (on a loaded machine the root
        assert "worker_nodes" in r.stats and "worker_errors" not in r.stats  # may take it all)


def test_node_limit_and_gap_limit_in_parallel():
    cache = random_cache(11, seed=2, max_parents=3, density=0.9)
    opt = lpbn.solve(cache, method="dp").score
    r = lpbn.solve(cache, method="dual", workers=2, lp_polish=False, node_limit=4)
    assert r.status in ("node_limit", "optimal")
    assert r.upper_bound >= opt - TOL * abs(opt) and r.score <= opt + TOL * abs(opt)
    r = lpbn.solve(cache, method="dual", workers=2, lp_polish=False, gap_limit=0.5)
    assert r.status in ("gap_limit", "optimal") and r.gap <= 0.5
    assert r.upper_bound >= opt - TOL * abs(opt)


def test_certificate_keeps_the_search_serial_and_verifiable(instances, tmp_path):
    cache = read_scores(instances / "anchors/gobnilp-bic3/autos.BIC.p3.jkl")
    r = lpbn.solve(cache, method="dual", workers=2, certificate=True)
    assert r.status == "optimal" and "worker_nodes" not in r.stats
    assert verify(cache, r).ok


def test_a_failing_worker_leaves_a_valid_answer(monkeypatch):
    """A worker that dies: the search stops (or finishes, if it held nothing) with a valid bound
    and the worker's error in the stats, never a hang or a wrong 'optimal'."""
    cache = random_cache(11, seed=2, max_parents=3, density=0.9)
    opt = lpbn.solve(cache, method="dp").score

    def broken(self, w):
        raise RuntimeError("boom")

    monkeypatch.setattr(BranchAndBound, "_worker", broken)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lpbn.LpbnWarning)
        r = lpbn.solve(cache, method="dual", workers=2, lp_polish=False, time_limit=60)
    assert r.upper_bound >= opt - TOL * abs(opt) and r.score <= opt + TOL * abs(opt)
    assert r.status in ("optimal", "interrupted")
    if r.status == "optimal":
        assert rel(r.score, opt) <= TOL
    if "worker_nodes" in r.stats:                  # the tree was split: the error is reported
        assert any("boom" in e for e in r.stats["worker_errors"])


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_workers_is_an_input_error(bad):
    cache = random_cache(5, seed=1)
    with pytest.raises(lpbn.InputError, match="workers"):
        lpbn.solve(cache, method="dual", workers=bad)


def test_workers_option_is_listed():
    assert "workers" in lpbn.show_options("dual", disp=False)
