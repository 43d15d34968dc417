"""{0, 1/2}-Chvátal–Gomory cuts (lpbn.lp.zero_half): violated at the LP point they come from,
satisfied by every DAG of the cache, and the 2-cluster inequality of a half-integral 3-cycle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import lpbn
from lpbn.cache import ScoreCache
from lpbn.lp.cut_loop import cut_loop
from lpbn.lp.model import EtaLP
from lpbn.lp.zero_half import zero_half_cuts
from lpbn.testing import random_cache, random_dags


@pytest.mark.parametrize("slack", [0.0, 0.25])
def test_cuts_are_violated_at_the_point_and_valid_for_every_dag(slack):
    """On 80 random caches with tied scores (where half-integral points are common): every
    cut separated is violated at its point and satisfied by 200 random DAGs and the optimum;
    with ``slack``, also the cuts from nearly tight rows and nearly integral columns."""
    checked = sum(_check_cuts(5 + seed % 6, seed, slack) for seed in range(80))
    assert checked >= 10        # the property is not vacuous


def _check_cuts(n: int, seed: int, slack: float = 0.0) -> int:
    cache = random_cache(n, seed=seed, density=0.6, integer_scores=True).prune_dominated()
    model = EtaLP(cache)
    checked = 0
    rng = np.random.default_rng(seed)
    dags = random_dags(cache, rng, 200)
    best = lpbn.solve(cache, "dp")
    dags.append(cache.indices_of(best.dag.parents))
    for _ in range(6):
        res = cut_loop(model, mode="clusters", exact=True)
        cuts = zero_half_cuts(cache, res.eta, model.clusters.bits, extra=model.cuts,    # rank >= 2 too
                              slack=slack, min_violation=0.05 if slack else 1e-6)
        if not cuts:
            break
        for cols, coef, rhs in cuts:
            assert np.all(coef == np.round(coef)) and rhs == int(rhs)
            assert float(coef @ res.eta[cols]) > rhs + (0.05 if slack else 1e-6)   # violated at η*
            for choice in dags:                                           # valid for DAGs
                x = np.zeros(cache.m)
                x[choice] = 1.0
                assert float(coef @ x[cols]) <= rhs + 1e-9
            checked += 1
        model.add_cuts(cuts)
    assert model.solve_lp().value >= best.score - 1e-6 * max(1.0, abs(best.score))
    return checked


def test_the_half_integral_three_cycle_gets_the_two_cluster_cut():
    """Each of A, B, C may take the other two as parents (score 0) or none (score -1): the
    cluster LP takes half of each (value -1.5: every cluster row holds), while a DAG has at
    most one variable with both others as parents (optimum -2).  The sum of the three pairs'
    cluster rows, halved and rounded, is Σ η_v(∅) >= 2, the 2-cluster inequality."""
    cache = ScoreCache.from_families(["A", "B", "C"], [
        [(0.0, (1, 2)), (-1.0, ())], [(0.0, (0, 2)), (-1.0, ())], [(0.0, (0, 1)), (-1.0, ())]])
    model = EtaLP(cache)
    res = cut_loop(model, mode="clusters", exact=True)
    assert abs(res.value - -1.5) < 1e-9
    cuts = zero_half_cuts(cache, res.eta, model.clusters.bits)
    empty = [j for j in range(cache.m) if not cache.parents(j)]
    assert any(sorted(cols.tolist()) == empty and np.all(coef == -1) and rhs == -2 for cols, coef, rhs in cuts)
    res = cut_loop(model, mode="clusters", exact=True, zero_half=True)
    assert abs(res.value - -2.0) < 1e-9 and res.cuts_zero_half >= 1


@settings(max_examples=20, deadline=None)
@given(st.integers(4, 12), st.integers(0, 10**6))
def test_highs_with_and_without_the_cuts_agrees_with_the_dp(n, seed):
    cache = random_cache(n, seed=seed, density=0.5)
    want = lpbn.solve(cache, "dp").score
    for zero_half in (True, False, "slack"):
        got = lpbn.solve(cache, "highs", zero_half=zero_half)
        assert got.status == "optimal"
        assert abs(got.score - want) <= 1e-6 * max(1.0, abs(want))


@settings(max_examples=15, deadline=None)
@given(st.integers(5, 11), st.integers(0, 10**6), st.sampled_from([True, "slack"]))
def test_cuts_beside_tailing_cluster_rounds_keep_the_bound_valid(n, seed, zero_half):
    """The cut loop adds {0, 1/2}-cuts beside the clusters when the rounds tail off (forced
    here in every round): the LP value stays above the optimum and the cuts are counted."""
    import lpbn.lp.cut_loop as loop
    cache = random_cache(n, seed=seed, density=0.6)
    want = lpbn.solve(cache, "dp").score
    saved = loop.tailing_off
    loop.tailing_off = lambda values, best: True
    try:
        model = EtaLP(cache)
        res = cut_loop(model, exact=True, zero_half=zero_half, k_max=3, best=lambda: want)
    finally:
        loop.tailing_off = saved
    assert res.status == "optimal"
    assert res.value >= want - 1e-6 * max(1.0, abs(want))
    assert res.cuts_zero_half == model.row_kind.count("zerohalf")
    choice = cache.indices_of(lpbn.solve(cache, "dp").dag.parents)
    for cols, coef, rhs in model.cuts:     # every cut holds at the optimal DAG
        assert float(coef[np.isin(cols, choice)].sum()) <= rhs + 1e-9


def test_highs_rejects_a_bad_zero_half_option():
    with pytest.raises(lpbn.InputError, match="zero_half"):
        lpbn.solve(random_cache(5, seed=1), "highs", zero_half="sometimes")


def test_purging_slack_cuts_keeps_the_lp_value_and_the_books():
    """EtaLP.purge_cuts drops the cuts slack at the LP point: the LP's value stays, the rows
    left are the cuts left, and a purged cut may be added again."""
    purged = 0
    for seed in range(40):
        cache = random_cache(5 + seed % 6, seed=seed, density=0.6, integer_scores=True).prune_dominated()
        model = EtaLP(cache)
        res = cut_loop(model, mode="clusters", exact=True, zero_half="slack")
        if not model.cuts:
            continue
        before = model.solve_lp()
        cuts = list(model.cuts)
        gone = model.purge_cuts(before.eta)
        purged += gone
        assert len(model.cuts) == len(cuts) - gone == model.row_kind.count("zerohalf")
        assert model.num_rows == len(model.row_kind)
        after = model.solve_lp()
        assert abs(after.value - before.value) <= 1e-7 * max(1.0, abs(before.value))
        assert abs(res.value - before.value) <= 1e-6 * max(1.0, abs(before.value))
        if gone:
            assert model.add_cuts(cuts) == gone
    assert purged >= 1          # the property is not vacuous


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 9), seed=st.integers(0, 100_000), every=st.integers(1, 3))
def test_the_cut_loop_purging_slack_cuts_keeps_a_valid_bound(n, seed, every):
    """cut_loop(purge_every=k) drops the cuts slack at every k-th LP point as it goes: the
    model's books stay consistent and the final value is still at least the optimum."""
    cache = random_cache(n, seed=seed, density=0.7, integer_scores=True).prune_dominated()
    want = lpbn.solve(cache, "dp").score
    model = EtaLP(cache)
    res = cut_loop(model, mode="clusters", exact=True, zero_half="slack", purge_every=every)
    assert res.status == "optimal"
    assert res.value >= want - 1e-6 * max(1.0, abs(want))
    assert len(model.cuts) == model.row_kind.count("zerohalf") and model.num_rows == len(model.row_kind)
    assert len(model.cuts) == res.cuts_zero_half - res.cuts_purged   # added, less purged


def _three_cycle() -> ScoreCache:
    return ScoreCache.from_families(["A", "B", "C"], [
        [(0.0, (1, 2)), (-1.0, ())], [(0.0, (0, 2)), (-1.0, ())], [(0.0, (0, 1)), (-1.0, ())]])


@pytest.mark.parametrize("zero_half", [False, True])
def test_the_dual_takes_the_cut_with_its_lp_multiplier(zero_half, monkeypatch):
    """The dual's root on the half-integral 3-cycle: clusters alone stop at the LP's -1.5; with
    {0, 1/2}-cuts (tailing forced) the cut enters with the polish LP's dual as a fixed
    Lagrangian multiplier, and the dual value itself (eq. 8 over the folded scores, plus
    μ·rhs) reaches the optimum -2."""
    import lpbn.dual.relax as relax_mod
    from lpbn.dual.state import DualState
    from lpbn.incumbent import Incumbent
    monkeypatch.setattr(relax_mod, "tailing_off", lambda values, best, rounds=3, min_gap=0.01: True)
    state = DualState(_three_cycle())
    state.primal_first = True
    state.zero_half = zero_half
    inc = Incumbent()
    v, _, _ = relax_mod.relax(state, inc, lp_polish=True, max_rounds=20)
    assert abs(inc.score - -2.0) < 1e-9
    if zero_half:
        assert state.zero_half_cuts >= 1 and np.any(state.mu > 0)
        assert abs(v - -2.0) < 1e-7
        assert abs(state.exact_value() - v) < 1e-9          # the folded scores carry the bound
    else:
        assert abs(v - -1.5) < 1e-7 and not state.cuts


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 11), st.integers(0, 10**6), st.sampled_from([0, 3, 4]))
def test_dual_with_cuts_in_every_round_agrees_with_the_dp(n, seed, local):
    """The dual branch and bound with {0, 1/2}-cuts (``local`` 0) or local cuts of ``local``
    variables (lpbn.lp.local_cuts) separated in every root round (tailing forced, above or
    below the 1% gap that separates the two): the same optimum as the DP, and the bound never
    below it."""
    import lpbn.dual.relax as relax_mod
    cache = random_cache(n, seed=seed, density=0.6, integer_scores=seed % 2 == 0)
    want = lpbn.solve(cache, "dp").score
    saved = relax_mod.tailing_off
    relax_mod.tailing_off = lambda values, best, rounds=3, min_gap=0.01: not local or min_gap < 0.01
    try:
        got = lpbn.solve(cache, "dual", local_cuts=local)
    finally:
        relax_mod.tailing_off = saved
    assert got.status == "optimal"
    assert abs(got.score - want) <= 1e-6 * max(1.0, abs(want))
    root = got.stats.get("root_bound")
    assert root is None or root >= want - 1e-6 * max(1.0, abs(want))


def test_a_restricted_state_keeps_its_cuts_and_bound():
    """DualState.restricted carries the cuts (columns renumbered, dropped ones left out) and
    their μ: over every candidate the value is unchanged, over a sub-cache it still bounds
    the sub-cache's optimum."""
    from lpbn.dual.state import DualState
    cache = _three_cycle()
    state = DualState(cache)
    empty = np.array([j for j in range(cache.m) if not cache.parents(j)])
    state.add_cluster_bits(np.array([0b111], dtype=np.uint64))
    state.add_cuts([(empty, -np.ones(3), -2.0)])
    state.set_duals(np.array([0.25]), np.array([0.5]))
    v = state.exact_value()
    assert v >= -2.0
    same = state.restricted(np.ones(cache.m, dtype=bool))
    assert abs(same.exact_value() - v) < 1e-12 and len(same.cuts) == 1
    keep = np.ones(cache.m, dtype=bool)
    keep[cache.family_range(0).start] = False        # A loses {B, C}: optimum -2 still
    sub = state.restricted(keep)
    assert sub.cache.m == cache.m - 1 and abs(sub.mu[0] - 0.5) < 1e-12
    assert sub.exact_value() >= lpbn.solve(sub.cache, "dp").score - 1e-9


def _reference_cuts(cache, eta, clusters, extra, slack):
    """The separation over whole rows (as before the rows were restricted to η's support):
    the same combinations, so the same cuts in the same order."""
    from lpbn.lp.clusters import cluster_activity, cluster_rows_csr
    from lpbn.lp.zero_half import INTEGRAL_TOL, MIN_VIOLATION, _left_null_space_gf2
    near = max(slack, INTEGRAL_TOL)
    off = cache.offsets
    rows = [(np.arange(off[i], off[i + 1]), np.ones(off[i + 1] - off[i], dtype=np.int64), 1) for i in range(cache.n)]
    if len(clusters):
        tight = clusters[cluster_activity(cache, eta, clusters) <= 1.0 + near]
        ptr, idx = cluster_rows_csr(cache, tight)
        rows += [(idx[ptr[c]:ptr[c + 1]], -np.ones(ptr[c + 1] - ptr[c], dtype=np.int64), -1) for c in range(len(tight))]
    rows += [(c, np.rint(v).astype(np.int64), int(round(r))) for c, v, r in extra if float(v @ eta[c]) >= r - near]
    frac = np.flatnonzero((eta > near) & (eta < 1.0 - near))
    at_one = eta >= 1.0 - near
    M = np.zeros((len(rows), len(frac)), dtype=bool)
    parity = np.zeros(len(rows), dtype=bool)
    for r, (c, v, b) in enumerate(rows):
        dense = np.zeros(cache.m, dtype=np.int64)
        np.add.at(dense, c, v)
        M[r] = dense[frac] % 2 != 0
        parity[r] = (b + int(np.count_nonzero(dense[at_one] % 2))) % 2 == 1
    null = _left_null_space_gf2(M)
    combos = null[(null & parity[None, :]).sum(axis=1) % 2 == 1]
    out = []
    for combo in combos[np.argsort(combos.sum(axis=1), kind="stable")]:
        coef = np.zeros(cache.m, dtype=np.int64)
        rhs = 0
        for r in np.flatnonzero(combo):
            np.add.at(coef, rows[r][0], rows[r][1])
            rhs += rows[r][2]
        odd_one = np.flatnonzero(at_one & (coef % 2 != 0))
        coef[odd_one] += 1
        coef = np.floor_divide(coef, 2)
        cols = np.flatnonzero(coef)
        cut = (cols, coef[cols].astype(np.float64), float((rhs + len(odd_one)) // 2))
        if float(cut[1] @ eta[cols]) > cut[2] + (0.05 if slack else MIN_VIOLATION):
            out.append(cut)
    return out[:200]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(5, 9), seed=st.integers(0, 10_000), slack=st.sampled_from([0.0, 0.25]))
def test_separation_over_the_support_equals_the_whole_rows(n, seed, slack):
    """zero_half_cuts looks at each row over η's support only and builds whole rows for the
    chosen combinations: the cuts (rank one and two) are the whole-row separation's."""
    cache = random_cache(n, seed=seed, density=0.6, integer_scores=True).prune_dominated()
    model = EtaLP(cache)
    for _ in range(3):
        res = cut_loop(model, mode="clusters", exact=True)
        kw = dict(slack=slack, min_violation=0.05 if slack else 1e-6)
        got = zero_half_cuts(cache, res.eta, model.clusters.bits, extra=model.cuts, **kw)
        want = _reference_cuts(cache, res.eta, model.clusters.bits, model.cuts, slack)
        assert len(got) == len(want)
        for (c1, v1, r1), (c2, v2, r2) in zip(got, want):
            assert np.array_equal(c1, c2) and np.array_equal(v1, v2) and r1 == r2
        if not got:
            break
        model.add_cuts(got)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_general_rows_activity_is_the_dense_product(seed):
    """GeneralRows keeps rows sorted with one entry per column and sums any subset of them at
    a sparse point as the dense rows would (kernel and numpy paths)."""
    from lpbn.lp import numpy_kernels
    from lpbn.lp.general_rows import GeneralRows
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 2000))
    rows, dense = GeneralRows(), []
    for _ in range(int(rng.integers(0, 30))):
        cols = rng.integers(0, m, size=int(rng.integers(0, min(m, 1500) + 1)))
        coef = rng.normal(size=len(cols))
        rows.append(cols, coef, 1.0)
        d = np.zeros(m)
        np.add.at(d, cols, coef)
        dense.append(d)
    eta = np.zeros(m)
    on = rng.choice(m, size=int(rng.integers(0, min(m, 40) + 1)), replace=False)
    eta[on] = rng.random(len(on))
    pick = rng.permutation(len(rows))[:int(rng.integers(0, len(rows) + 1))]
    want = np.array([dense[r] @ eta for r in pick])
    assert np.allclose(rows.activity(eta, pick), want)
    real = numpy_kernels.numba_loaded
    try:
        numpy_kernels.numba_loaded = lambda: False
        assert np.allclose(rows.activity(eta, pick), want)
    finally:
        numpy_kernels.numba_loaded = real
    for r, d in enumerate(dense):
        cols, coef, rhs = rows[r]
        assert np.all(np.diff(cols) > 0) and np.allclose(d[cols], coef) and rhs == 1.0
