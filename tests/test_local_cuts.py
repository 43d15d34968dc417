"""Local cuts (lpbn.lp.local_cuts): rows of the k-variable family polytope lifted to the cache —
violated at the LP point they come from, satisfied by every DAG, a valid bound in the cut loop,
and never combined by the {0, 1/2}-cut separation (whose parity needs integral rows)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import lpbn
from lpbn.cache import ScoreCache
from lpbn.lp.cut_loop import cut_loop
from lpbn.lp.local_cuts import TargetLP, dag_vertices, local_cuts
from lpbn.lp.model import EtaLP
from lpbn.lp.zero_half import zero_half_cuts
from lpbn.testing import random_cache, random_dags


def test_the_small_polytopes_have_every_dag_as_a_vertex():
    """25 DAGs on 3 nodes, 543 on 4 and 29,281 on 5 (OEIS A003024), each choosing one parent
    set per node."""
    for k, count in ((2, 3), (3, 25), (4, 543), (5, 29281)):
        A, coord = dag_vertices(k)
        assert A.shape == (count, k << (k - 1)) and len(coord) == k << (k - 1)
        assert np.all(A.sum(axis=1) == k) and len({tuple(r) for r in A}) == count


def test_the_target_lp_cuts_a_half_integral_three_cycle_and_no_dag():
    """Nodes 0, 1, 2 each take half of either other node as parent (every pair's 2-cycle is
    half there, the three-node cluster gets no parent from outside): violated by 2 in the box
    normalisation; an integral DAG point is not cut."""
    target = TargetLP(4)
    q = np.zeros(64)
    for i, (a, b) in enumerate(((1, 2), (2, 0), (0, 1))):
        q[i * 16 + (1 << a)] = q[i * 16 + (1 << b)] = 0.5
    q[3 * 16] = 1.0
    violation, y, z = target.separate(q)
    assert violation == pytest.approx(2.0) and float(y @ q) - z == pytest.approx(2.0)
    dag = np.zeros(64)
    dag[[0, 16 + 1, 32 + 3, 48 + 7]] = 1.0
    assert target.separate(dag)[0] <= 1e-9


@settings(max_examples=30, deadline=None)
@given(k=st.sampled_from([3, 4]), seed=st.integers(0, 10**6), spread=st.integers(1, 4))
def test_the_reduced_target_lp_has_the_full_lps_optimum(k, seed, spread):
    """The target LP over the projection's support (TargetLP) against the full LP over every
    DAG on k nodes (scipy's linprog): the same optimum, and the lifted row is valid for every
    DAG and in the box."""
    from scipy.optimize import linprog
    rng = np.random.default_rng(seed)
    A, coord = dag_vertices(k)
    q = np.zeros(k << k)
    for i in range(k):
        sets = [t for t in range(1 << k) if not t >> i & 1]
        pick = rng.choice(sets, size=min(spread, len(sets)), replace=False)
        q[i * (1 << k) + pick] = rng.dirichlet(np.ones(len(pick)))
    d = len(coord)
    full = linprog(np.r_[-q[coord], 1.0], A_ub=np.hstack([A, -np.ones((len(A), 1))]), b_ub=np.zeros(len(A)),
                   bounds=[(-1, 1)] * d + [(None, None)], method="highs")
    violation, y, z = TargetLP(k).separate(q)
    assert violation == pytest.approx(-full.fun, abs=1e-7)
    assert float(y @ q) - z == pytest.approx(violation)
    assert np.all(np.abs(y[coord]) <= 1 + 1e-9) and (A @ y[coord]).max() <= z + 1e-9


@pytest.mark.parametrize("k", [3, 4, 5])
def test_cuts_are_violated_at_the_point_and_valid_for_every_dag(k):
    """On random caches, at the LP point of the cycle inequalities or of exact cluster
    separation (with {0, 1/2}-cuts on some): every local cut is violated there and satisfied
    by 150 random DAGs and the optimum; adding them keeps the LP above the optimum."""
    checked = 0
    for seed in range(30):
        cache = random_cache(6 + seed % 5, seed=seed, density=0.6, integer_scores=seed % 2 == 0).prune_dominated()
        best = lpbn.solve(cache, "dp")
        dags = random_dags(cache, np.random.default_rng(seed), 150)
        dags.append(cache.indices_of(best.dag.parents))
        model = EtaLP(cache)
        if seed % 2:
            res = cut_loop(model, mode="clusters", exact=True, zero_half=seed % 3 == 0)
        else:
            res = cut_loop(model, mode="cycles")
        cuts = local_cuts(cache, res.eta, k)
        for cols, coef, rhs in cuts:
            assert float(coef @ res.eta[cols]) > rhs + 1e-4          # violated at η*
            for choice in dags:
                x = np.zeros(cache.m)
                x[choice] = 1.0
                assert float(coef @ x[cols]) <= rhs + 1e-9            # valid for DAGs
            checked += 1
        model.add_cuts(cuts, kind="local")
        assert model.solve_lp().value >= best.score - 1e-6 * max(1.0, abs(best.score))
    assert checked >= 10          # the property is not vacuous


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(5, 10), seed=st.integers(0, 100_000), tail=st.sampled_from(["no", "local", "wide"]),
       share=st.sampled_from([0.0, 0.25, math.inf]))
def test_the_cut_loop_with_local_cuts_keeps_a_valid_bound(n, seed, tail, share):
    """cut_loop(local=4), with the cuts beside every round (the tail rule forced to see a gap
    below 1%) as far as their time share allows, or only when nothing else is violated (no
    tail, or a gap above 1%, where the k-clusters and {0, 1/2}-cuts go instead), with the
    purge: the value stays above the optimum, the books agree, and the {0, 1/2}-cuts never take
    a local cut's fractional row."""
    import lpbn.lp.cut_loop as loop
    cache = random_cache(n, seed=seed, density=0.7, integer_scores=True).prune_dominated()
    want = lpbn.solve(cache, "dp").score
    saved = loop.tailing_off, loop.LOCAL_TIME_SHARE
    if tail == "local":
        loop.tailing_off = lambda values, best, **kw: "min_gap" in kw
    elif tail == "wide":
        loop.tailing_off = lambda values, best, **kw: True
    loop.LOCAL_TIME_SHARE = share
    try:
        model = EtaLP(cache)
        res = cut_loop(model, exact=True, zero_half="slack", k_max=3, best=lambda: want, local=4,
                       purge_every=2)
    finally:
        loop.tailing_off, loop.LOCAL_TIME_SHARE = saved
    assert res.status == "optimal"
    assert res.local_seconds > 0 or res.cuts_local == 0
    assert res.value >= want - 1e-6 * max(1.0, abs(want))
    assert len(model.cuts) == model.row_kind.count("local") + model.row_kind.count("zerohalf")
    for cols, coef, rhs in zero_half_cuts(cache, res.eta, model.clusters.bits, extra=model.cuts, slack=0.25):
        assert np.all(coef == np.round(coef)) and rhs == int(rhs)


@settings(max_examples=10, deadline=None)
@given(st.integers(4, 11), st.integers(0, 10**6), st.sampled_from([4, 5]))
def test_highs_with_local_cuts_agrees_with_the_dp(n, seed, k):
    cache = random_cache(n, seed=seed, density=0.5)
    want = lpbn.solve(cache, "dp").score
    got = lpbn.solve(cache, "highs", local_cuts=k, zero_half="slack")
    assert got.status == "optimal"
    assert abs(got.score - want) <= 1e-6 * max(1.0, abs(want))


def _forced_local_tail(values, best, rounds=3, min_gap=0.01):
    """tailing_off that reports every round as tailing below the 1% gap: local cuts are due,
    the k-clusters' and {0, 1/2}-cuts' rule is not."""
    return min_gap < 0.01


def test_the_dual_takes_local_cuts_with_their_lp_multiplier(monkeypatch):
    """The dual's root on the half-integral 3-cycle (clusters alone stop at the LP's -1.5): a
    local cut of the 3 variables enters with the polish LP's dual as a fixed Lagrangian
    multiplier, and the dual value itself reaches the optimum -2."""
    import lpbn.dual.relax as relax_mod
    from lpbn.dual.state import DualState
    from lpbn.incumbent import Incumbent
    monkeypatch.setattr(relax_mod, "tailing_off", _forced_local_tail)
    state = DualState(ScoreCache.from_families(["A", "B", "C"], [
        [(0.0, (1, 2)), (-1.0, ())], [(0.0, (0, 2)), (-1.0, ())], [(0.0, (0, 1)), (-1.0, ())]]))
    state.primal_first = True
    state.local_k = 3
    inc = Incumbent()
    v, _, _ = relax_mod.relax(state, inc, lp_polish=True, max_rounds=20)
    assert abs(inc.score - -2.0) < 1e-9
    assert state.local_cuts >= 1 and state.zero_half_cuts == 0 and np.any(state.mu > 0)
    assert abs(v - -2.0) < 1e-7
    assert abs(state.exact_value() - v) < 1e-9          # the folded scores carry the bound


# the dual with local cuts in every root round against the DP: tests/test_zero_half.py
def test_the_dual_rejects_a_bad_local_cuts_option():
    cache = random_cache(5, seed=1)
    for bad in (2, 6, True, "4"):
        with pytest.raises(lpbn.InputError, match="local_cuts"):
            lpbn.solve(cache, "dual", local_cuts=bad)
