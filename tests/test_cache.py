"""ScoreCache: storage invariants, queries against naive versions, pruning safety."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lpbn
from lpbn import ScoreCache, ScoreFileError
from lpbn.testing import random_cache


def naive_best(cache, i, allowed):
    best = (-1, -np.inf)
    for j in cache.family_range(i):
        if set(cache.parents(j)) <= allowed and cache.scores[j] > best[1]:
            best = (j, cache.scores[j])
    return best


def test_sorted_best_first_and_csr_consistent():
    c = random_cache(7, seed=1)
    for i in range(c.n):
        r = c.family_range(i)
        s = c.scores[r.start:r.stop]
        assert np.all(np.diff(s) <= 0)
        for j in r:
            ps = c.parents(j)
            assert c.family[j] == i and len(ps) == c.sizes[j]
            assert int(c.masks[j]) == sum(1 << p for p in ps)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 9), st.integers(0, 10**6), st.integers(0, 2**9 - 1))
def test_best_parent_set_matches_naive(n, seed, allowed_bits):
    c = random_cache(n, seed=seed, density=0.4)
    allowed = {v for v in range(n) if allowed_bits >> v & 1}
    for i in range(n):
        j, s = c.best_parent_set(i, allowed - {i})
        nj, ns = naive_best(c, i, allowed - {i})
        assert s == ns


def test_best_for_order_is_consistent_with_order():
    c = random_cache(8, seed=5)
    order = list(np.random.default_rng(0).permutation(8))
    choice, total = c.best_for_order(order)
    pos = {v: k for k, v in enumerate(order)}
    for i in range(8):
        assert all(pos[p] < pos[i] for p in c.parents(choice[i]))
        assert c.scores[choice[i]] == naive_best(c, i, set(order[:pos[i]]))[1]
    assert total == pytest.approx(sum(c.scores[choice]))


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 8), st.integers(0, 10**6), st.booleans())
def test_prune_dominated_is_safe_and_complete(n, seed, ties):
    c = random_cache(n, seed=seed, density=0.6, integer_scores=ties)
    p = c.prune_dominated()
    # no kept set is dominated by a kept subset
    for i in range(n):
        fam = p.family_lists(i)
        for (s1, a), (s2, b) in itertools.permutations(fam, 2):
            assert not (set(a) < set(b) and s1 >= s2)
    # every dropped set is dominated by a kept one
    for i in range(n):
        kept = p.family_lists(i)
        for s, ps in c.family_lists(i):
            if p.local_score(i, ps) is None:
                assert any(set(q) < set(ps) and t >= s for t, q in kept)
    assert lpbn.solve(p, "dp").score == pytest.approx(lpbn.solve(c, "dp").score, rel=1e-12)


def test_restrict_in_degree():
    c = random_cache(7, seed=2, max_parents=3)
    r = c.restrict_in_degree(1)
    assert r.sizes.max() <= 1 and r.m == int((c.sizes <= 1).sum())


def test_infeasible_instance_is_rejected():
    # every variable needs another one as parent: no DAG exists
    fams = [[(-1.0, (1,))], [(-1.0, (2,))], [(-1.0, (0,))]]
    with pytest.raises(ScoreFileError, match="admits no DAG"):
        ScoreCache.from_families(["a", "b", "c"], fams)
    # a chain is fine
    ScoreCache.from_families(["a", "b", "c"], [[(-1.0, ())], [(-1.0, (0,))], [(-1.0, (1,))]])


@pytest.mark.parametrize("fams, match", [
    ([[(-1.0, (0,))], [(-1.0, ())]], "own parent"),
    ([[(-1.0, (1, 1))], [(-1.0, ())]], "repeated"),
    ([[(float("nan"), ())], [(-1.0, ())]], "not finite"),
    ([[], [(-1.0, ())]], "no candidate"),
])
def test_structural_errors(fams, match):
    with pytest.raises(ScoreFileError, match=match):
        ScoreCache.from_families(["a", "b"], fams)


def test_duplicate_parent_set_keeps_best_and_warns():
    with pytest.warns(lpbn.LpbnWarning, match="duplicate"):
        c = ScoreCache.from_families(["a", "b"], [[(-5.0, ()), (-3.0, ())], [(-1.0, ())]])
    assert c.local_score(0, ()) == -3.0 and c.m == 2


def test_large_cache_arrays_multiword():
    c = random_cache(70, seed=0, max_parents=1, density=0.05)
    assert c.words == 2 and c.bits.shape == (c.m, 2)
    with pytest.raises(ValueError):
        c.masks
    j, s = c.best_parent_set(69, set(range(69)))
    assert s == naive_best(c, 69, set(range(69)))[1]


def test_summary():
    c = random_cache(6, seed=3)
    s = c.summary()
    assert s.n == 6 and s.candidates == c.m and s.max_in_degree <= 3
    assert s.bound_sum_best >= lpbn.solve(c, "dp").score
