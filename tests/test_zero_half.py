"""{0, 1/2}-Chvátal–Gomory cuts (lpbn.lp.zero_half): violated at the LP point they come from,
satisfied by every DAG of the cache, and the 2-cluster inequality of a half-integral 3-cycle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lpbn
from lpbn.cache import ScoreCache
from lpbn.lp.cut_loop import cut_loop
from lpbn.lp.model import EtaLP
from lpbn.lp.zero_half import zero_half_cuts
from lpbn.testing import random_cache


def _random_dags(cache: ScoreCache, rng, count: int) -> list[np.ndarray]:
    """Candidate choices of random DAGs: a random order, then for each variable a random
    candidate whose parents all precede it."""
    out = []
    pos = np.empty(cache.n, dtype=np.int64)
    for _ in range(count):
        order = rng.permutation(cache.n)
        pos[order] = np.arange(cache.n)
        choice = []
        for i in range(cache.n):
            ok = [j for j in cache.family_range(i) if all(pos[p] < pos[i] for p in cache.parents(j))]
            choice.append(ok[int(rng.integers(len(ok)))])
        out.append(np.array(choice))
    return out


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
    dags = _random_dags(cache, rng, 200)
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
