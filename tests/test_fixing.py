"""Reduced-cost fixing in the dual's branch and bound (lpbn.dual.fixing): the same optimum as
without it and as the subset DP, certificates that still verify, a feed across a rebuild."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.certificate import build_certificate
from lpbn.control import SolveControl
from lpbn.dual import bnb
from lpbn.dual.fixing import RootFixing, candidate_bounds
from lpbn.dual.solver import solve_dual
from lpbn.dual.state import DualState
from lpbn.testing import best_through_each_candidate, random_cache
from lpbn.verify import verify

ANCHORS = "anchors/gobnilp-bic3"


@pytest.fixture(params=["rebuild", "mask"])
def fixing_mode(request, monkeypatch):
    """Every fixing either rebuilds the cache (inside the root too, whenever the current λ
    fixes anything) or only masks the fixed candidates (none inside the root)."""
    rebuild = request.param == "rebuild"
    monkeypatch.setattr(bnb, "FIXING_REBUILD_FRACTION", 0.0 if rebuild else 2.0)
    monkeypatch.setattr(bnb, "ROOT_FIXING_FRACTION", 0.0 if rebuild else 2.0)
    return request.param


def test_candidate_bounds_bound_every_dag_through_the_candidate():
    cache = random_cache(6, seed=3, density=0.6).prune_dominated()
    state = DualState(cache)
    state.add_cluster(list(range(cache.n)))
    state.add_cluster([0, 1, 2])
    state.set_lambda(np.array([0.7, 1.3]))
    bounds = candidate_bounds(state)
    # brute force: the best DAG through each candidate, by the subset DP with that parent set forced
    forced = best_through_each_candidate(cache)
    ok = np.isinf(forced) | (forced <= bounds + 1e-9 * np.maximum(1.0, np.abs(forced)))
    assert ok.all(), np.flatnonzero(~ok)


@pytest.mark.parametrize("name", ["alarm1000.BIC.p3.jkl", "carpo500.BIC.p3.jkl", "water1000.BIC.p3.jkl"])
def test_same_optimum_with_and_without_fixing(instances, name, fixing_mode):
    cache = lpbn.read_scores(instances / ANCHORS / name)
    off = lpbn.solve(cache, method="dual", fixing=False)
    on = lpbn.solve(cache, method="dual", fixing=True, certificate=True)
    assert off.status == on.status == "optimal"
    assert on.score == pytest.approx(off.score, rel=1e-9, abs=1e-9)
    assert on.stats["fixed_candidates"] >= 0
    rep = verify(cache, on, build_certificate(cache, on))
    assert rep.bound_verified, rep.to_text()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), n=st.integers(3, 8), density=st.floats(0.2, 0.9))
def test_fixing_agrees_with_dp_on_random_caches(seed, n, density, fixing_mode):
    cache = random_cache(n, seed=seed, density=density)
    dp = lpbn.solve(cache, method="dp")
    dual = lpbn.solve(cache, method="dual", certificate=True)
    assert dual.status == "optimal"
    assert dual.score == pytest.approx(dp.score, rel=1e-9, abs=1e-9)
    rep = verify(cache, dual, build_certificate(cache, dual))
    assert rep.bound_verified, rep.to_text()


def test_fixing_certificate_is_checked(instances):
    """A certificate whose fixing threshold is raised fixes candidates that some better DAG
    needs: verify finds the bound above the reported one."""
    cache = lpbn.read_scores(instances / ANCHORS / "alarm1000.BIC.p3.jkl")
    res = lpbn.solve(cache, method="dual", certificate=True)
    cert = build_certificate(cache, res)
    assert "fixing" in cert and res.stats["fixed_candidates"] > 0
    rep = verify(cache, res, cert)
    assert rep.bound_verified and any(name == "fixing" for name, ok, _ in rep.checks), rep.to_text()
    bad = copy.deepcopy(cert)
    bad["fixing"][-1]["below"] = res.score + 1e6
    rep = verify(cache, res, bad)
    assert not rep.bound_verified and "above the reported upper bound" in rep.to_text()


def test_fixing_inside_the_root_chains_in_the_certificate(instances):
    """nltcs: the root fixes from an intermediate λ (more than ROOT_FIXING_FRACTION of the
    candidates) and again from its final λ; the certificate lists the fixings in order and
    verifies, a raised threshold in the first one is caught, and the one-object form of older
    certificates is still read."""
    cache = lpbn.read_scores(instances / ANCHORS / "nltcs.BIC.p3.jkl")
    res = lpbn.solve(cache, method="dual", certificate=True)
    assert res.status == "optimal" and res.stats["root_fixings"] >= 1
    assert res.score == pytest.approx(-20039.226, abs=1e-3)
    cert = build_certificate(cache, res)
    assert len(cert["fixing"]) >= 2
    rep = verify(cache, res, cert)
    assert rep.bound_verified, rep.to_text()
    assert sum(name == "fixing" for name, ok, _ in rep.checks) == len(cert["fixing"])
    bad = copy.deepcopy(cert)
    bad["fixing"][0]["below"] = res.score + 1e6
    assert not verify(cache, res, bad).bound_verified
    old = copy.deepcopy(cert)
    old["fixing"] = old["fixing"][-1]          # the one-object form of older certificates
    assert verify(cache, res, old).checks


def test_feed_indices_survive_a_rebuild(instances, monkeypatch):
    """An incumbent_feed speaks the first cache's indices; after a rebuild they are mapped,
    and a fed DAG through a fixed candidate is ignored."""
    monkeypatch.setattr(bnb, "FIXING_REBUILD_FRACTION", 0.0)
    cache = lpbn.read_scores(instances / ANCHORS / "carpo500.BIC.p3.jkl").prune_dominated()
    best = lpbn.solve(cache, method="dual")
    choice = cache.indices_of(best.dag.parents)
    res = solve_dual(cache, SolveControl(), prune=False, incumbent_feed=lambda: choice)
    # (the solver's optimality tolerance, not 1e-12: two DAGs of the file differ by 1e-8)
    assert res.status == "optimal" and res.score == pytest.approx(best.score, rel=1e-9)
    assert res.stats["fixed_candidates"] > 0


def test_root_fixing_keeps_what_can_beat_the_incumbent():
    cache = random_cache(7, seed=11, density=0.7).prune_dominated()
    state = DualState(cache)
    fix = RootFixing(state)
    assert fix.keep(-np.inf).all() and fix.certificate() is None
    best = lpbn.solve(cache, method="dp")
    keep = fix.keep(best.score)
    assert keep[cache.indices_of(best.dag.parents)].all()
    assert fix.certificate()["below"] == best.score
