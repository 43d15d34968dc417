"""lpbn.ordering: OBS (Teyssier & Koller 2005) and ASOBS (Scanagatta et al. 2015, §4) on the
CSR arrays: decodings, Theorem 3, incremental climbs, the anytime driver and the methods."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lpbn
from lpbn.errors import InputError
from lpbn.ordering import asobs_dag, obs_dag, ordering_search, trivial_bound
from lpbn.ordering import kernels as K
from lpbn.ordering.obs import Point
from lpbn.ordering.population import Population, order_crossover
from lpbn.ordering.workspace import Workspace
from lpbn.result import DAG
from lpbn.testing import random_cache, random_sparse_cache

caches = st.builds(lambda n, seed, density, ties: random_cache(n, seed=seed, density=density,
                                                                integer_scores=ties),
                   st.integers(1, 11), st.integers(0, 10**6), st.floats(0.1, 0.7), st.booleans())


def _dag(cache, choice) -> DAG:
    return DAG(cache.names, [cache.parents(int(j)) for j in choice])


def _check_dag(cache, choice, score):
    """Acyclic, one candidate of the right family per variable, score = cache.dag_score."""
    assert np.all(choice >= 0)
    assert np.array_equal(cache.family[choice], np.arange(cache.n))
    dag = _dag(cache, choice)
    assert dag.is_acyclic()
    assert cache.dag_score(dag.parents) == pytest.approx(score, rel=1e-12, abs=1e-9)
    assert score == float(np.sum(cache.scores[choice]))


@settings(max_examples=40, deadline=None)
@given(caches, st.integers(0, 10**6))
def test_obs_decoding_equals_best_for_order_and_asobs_dominates(cache, seed):
    order = np.random.default_rng(seed).permutation(cache.n)
    ref, ref_score = cache.best_for_order(order)
    choice, score = obs_dag(cache, order)
    assert np.array_equal(choice, ref)
    assert score == pytest.approx(ref_score, rel=1e-12)
    _check_dag(cache, choice, score)
    a_choice, a_score = asobs_dag(cache, order)
    _check_dag(cache, a_choice, a_score)
    assert a_score >= score - 1e-9 * max(1.0, abs(score))          # Theorem 3


@settings(max_examples=40, deadline=None)
@given(caches, st.integers(0, 10**6), st.sampled_from([0, 3, 100]))
def test_climb_reaches_a_swap_local_optimum_with_exact_choices(cache, seed, window):
    ws = Workspace(cache)
    ws.window = window                                  # 0: swaps only; else also insertions
    order = np.random.default_rng(seed).permutation(cache.n).astype(np.int64)
    choice = np.empty(cache.n, dtype=np.int64)
    ws.evaluate(order, choice)
    start = ws.total(choice)
    assert ws.climb(order, choice, [(0, cache.n)])
    ref, score = cache.best_for_order(order)
    assert np.array_equal(choice, ref)                  # incremental updates stay exact
    assert score >= start - 1e-9
    for i in range(cache.n - 1):                        # no adjacent swap improves
        o = order.copy()
        o[i], o[i + 1] = o[i + 1], o[i]
        assert cache.best_for_order(o)[1] <= score + 1e-9 * max(1.0, abs(score))


@settings(max_examples=40, deadline=None)
@given(caches, st.integers(0, 10**6), st.sampled_from([1, 2, 100]))
def test_insertion_gains_match_brute_force(cache, seed, window):
    ws = Workspace(cache)
    ws.window = window
    order = np.random.default_rng(seed).permutation(cache.n).astype(np.int64)
    choice = np.empty(cache.n, dtype=np.int64)
    ws.evaluate(order, choice)
    base = cache.best_for_order(order)[1]
    tol = 1e-9 * max(1.0, abs(base))
    for i in range(cache.n):
        t, gain = K.best_insertion(ws.offsets, ws.ptr, ws.items, ws.scores, order, ws.pos, choice,
                                   *ws.inverse(), ws.relations(), i, window, ws.eps, ws._buf)
        best = ws.eps
        for u in range(max(0, i - window), min(cache.n, i + window + 1)):
            o = list(order)
            o.insert(u, o.pop(i))
            best = max(best, cache.best_for_order(o)[1] - base)
        assert gain == pytest.approx(best, abs=tol)
        if t != i:
            o = list(order)
            o.insert(t, o.pop(i))
            assert cache.best_for_order(o)[1] - base == pytest.approx(gain, abs=tol)


@settings(max_examples=30, deadline=None)
@given(caches, st.integers(0, 10**6))
def test_topological_order_is_valid_and_stable(cache, seed):
    ws = Workspace(cache)
    ref = np.random.default_rng(seed).permutation(cache.n).astype(np.int64)
    g, _ = asobs_dag(cache, ref)
    topo = ws.topological(g, ref)
    where = np.empty(cache.n, dtype=np.int64)
    where[topo] = np.arange(cache.n)
    for v in range(cache.n):
        assert all(where[p] < where[v] for p in cache.parents(int(g[v])))
    obs_choice, _ = cache.best_for_order(ref)           # ref is topological for its OBS DAG
    assert np.array_equal(ws.topological(obs_choice, ref), ref)
    assert np.array_equal(cache.best_for_order(topo)[0], g)   # OBS(topo(G)) = G for ASOBS G


@pytest.mark.parametrize("rule", ["obs", "asobs"])
def test_search_never_beats_dp_and_often_matches_it(rule):
    hits = 0
    for s in range(24):
        c = random_cache(6 + s % 7, seed=100 + s, density=0.5, integer_scores=s % 3 == 0)
        opt = lpbn.solve(c, "dp").score
        r = ordering_search(c, rule, seed=s)
        _check_dag(c, r.choice, r.score)
        assert r.score <= opt + 1e-9 * max(1.0, abs(opt))
        hits += r.score >= opt - 1e-9 * max(1.0, abs(opt))
    assert hits >= (16 if rule == "asobs" else 10)


@settings(max_examples=40, deadline=None)
@given(caches, st.integers(0, 1000), st.integers(0, 30), st.sampled_from(["perturb", "random"]),
       st.sampled_from(["obs", "asobs", "both"]), st.sampled_from([0, 1, 3]), st.sampled_from([0, 3]))
def test_asobs_never_worse_than_obs_on_the_same_restart_stream(cache, seed, restarts, restart,
                                                                trail, stall, population):
    """Theorem 3 restart by restart: on OBS's trail ASOBS after r restarts is never below OBS
    after r; with both chains in turn, after 2r (whatever ASOBS's own chain does: here its
    population breeds after 2 idle restarts); on its own trail, with fresh random orderings
    (the same for both rules).  Also with fresh chains after ``stall`` restarts whose base
    did not move (on OBS's trail they come at OBS's restarts)."""
    if trail == "asobs" and (restart == "perturb" or stall):
        restart, stall = "random", 0      # only OBS's trail makes the perturbations the same
    kw = dict(seed=seed, restart=restart, stall=stall)
    a = ordering_search(cache, "asobs", trail=trail, max_restarts=2 * restarts if trail == "both"
                        else restarts, population=population, generation=2, **kw)
    o = ordering_search(cache, "obs", max_restarts=restarts, **kw)
    assert a.score >= o.score - 1e-9 * max(1.0, abs(o.score))
    _check_dag(cache, a.choice, a.score)


def test_population_breeds_from_crossover_children():
    """population: ASOBS's own chain, idle for ``generation`` restarts, joins its elite and
    climbs again (random starts until the population is full, then order-crossover children);
    reproducible for a seed, valid DAGs, options checked, 0 turns it off."""
    c = random_sparse_cache(120, (10, 30), 3, seed=5)
    kw = dict(seed=3, max_restarts=300, population=3, generation=2)
    r = ordering_search(c, "asobs", **kw)
    assert r.stats["generations"] > 3 and r.stats["restarts"] == 300
    _check_dag(c, r.choice, r.score)
    again = ordering_search(c, "asobs", **kw)
    assert again.score == r.score and np.array_equal(again.choice, r.choice)
    assert ordering_search(c, "asobs", **dict(kw, population=0)).stats["generations"] == 0
    assert ordering_search(c, "asobs", **dict(kw, restart="random")).stats["generations"] == 0
    for bad in (dict(population=-1), dict(generation=0), dict(population=1.5)):
        with pytest.raises(InputError):
            ordering_search(c, "asobs", **dict(kw, **bad))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10_000))
def test_order_crossover_keeps_a_segment_and_the_other_parents_order(n, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.permutation(n), rng.permutation(n)
    lo, width = int(rng.integers(0, n - n // 2 + 1)), n // 2
    child = order_crossover(a, b, lo, width)
    assert sorted(child) == list(range(n))
    assert np.array_equal(child[lo:lo + width], a[lo:lo + width])
    rest = np.concatenate([child[:lo], child[lo + width:]])
    assert np.array_equal(rest, [v for v in b if v not in set(a[lo:lo + width])])


def test_population_keeps_the_best_distinct_local_optima():
    c = random_sparse_cache(30, (3, 6), 2, seed=1)
    ws = Workspace(c)
    pop = Population(2)
    pts = [Point.fresh(ws, np.random.default_rng(s).permutation(c.n)) for s in range(6)]
    for p in pts:
        pop.join(ws, p)
    best = sorted({round(p.score, 6) for p in pts})[-2:]
    assert sorted(round(s, 6) for s in pop.scores) == best
    assert not pop.join(ws, max(pts, key=lambda p: p.score))       # a score it has
    for order, score in zip(pop.orders, pop.scores):                 # topological for its DAG
        pt = next(p for p in pts if abs(p.score - score) <= ws.eps)
        where = np.empty(c.n, dtype=np.int64)
        where[order] = np.arange(c.n)
        assert sorted(order) == list(range(c.n))
        assert all(where[u] < where[v] for v in range(c.n) for u in c.parents(int(pt.dag[v])))


def test_stalled_chains_climb_again_from_fresh_orderings():
    """stall: chains whose base stops moving restart from random orderings (counted as
    restarts and in stats); the DAG stays valid, 0 turns it off and the option is checked."""
    c = random_sparse_cache(120, (10, 30), 3, seed=5)
    r = ordering_search(c, "asobs", seed=1, max_restarts=200, stall=2)
    assert r.stats["fresh_chains"] > 0 and r.stats["restarts"] == 200
    _check_dag(c, r.choice, r.score)
    default = ordering_search(c, "asobs", seed=1, max_restarts=200)     # stall 5,000: not reached
    assert default.stats["stall"] == 5000 and default.stats["fresh_chains"] == 0
    off = ordering_search(c, "asobs", seed=1, max_restarts=200, stall=0)
    assert off.stats["fresh_chains"] == 0 and off.score == default.score
    for bad in (-1, 2.5, True):
        with pytest.raises(InputError, match="stall"):
            ordering_search(c, "asobs", max_restarts=2, stall=bad)
    assert lpbn.solve(c, "asobs", max_restarts=50, stall=2, bound="trivial").stats["fresh_chains"] > 0


@pytest.mark.parametrize("seed", range(4))
def test_asobs_on_obs_trail_dominates_obs_restart_by_restart_at_scale(seed):
    """Perturbation restarts (the default) on a 300-variable cache: after every restart
    budget ASOBS's best on OBS's trail is at least OBS's (and the OBS trail it follows is
    OBS's own), with both chains at least OBS's after half the restarts."""
    c = random_sparse_cache(300, (20, 60), 4, seed=10 + seed)
    for r in (0, 3, 12):
        a = ordering_search(c, "asobs", seed=seed, max_restarts=r, trail="obs")
        b = ordering_search(c, "asobs", seed=seed, max_restarts=2 * r, trail="both")
        o = ordering_search(c, "obs", seed=seed, max_restarts=r)
        assert a.score >= o.score - 1e-9 * abs(o.score)
        assert b.score >= o.score - 1e-9 * abs(o.score)
        assert a.stats["climbs"] >= o.stats["climbs"]
        assert a.stats["swaps"] >= o.stats["swaps"]
        _check_dag(c, a.choice, a.score)
        _check_dag(c, b.choice, b.score)


@pytest.mark.parametrize("rule", ["obs", "asobs"])
@pytest.mark.parametrize("restart", ["perturb", "random"])
def test_reproducible_for_a_fixed_seed_and_restart_budget(rule, restart):
    c = random_sparse_cache(300, (20, 60), 4, seed=5)
    runs = [ordering_search(c, rule, seed=7, max_restarts=15, restart=restart) for _ in range(2)]
    a, b = runs
    assert np.array_equal(a.choice, b.choice) and np.array_equal(a.order, b.order)
    assert a.score == b.score and a.stop == b.stop == "max_restarts"
    skip = {"seconds", "start_seconds"}
    assert {k: v for k, v in a.stats.items() if k not in skip} == \
        {k: v for k, v in b.stats.items() if k not in skip}
    _check_dag(c, a.choice, a.score)
    where = np.empty(c.n, dtype=np.int64)
    where[a.order] = np.arange(c.n)
    assert all(where[p] < where[v] for v in range(c.n) for p in c.parents(int(a.choice[v])))
    assert c._bits is None                               # never builds the m x W bitsets


def test_asobs_beats_obs_on_a_sparse_cache_and_truncation_by_time():
    c = random_sparse_cache(400, (30, 80), 5, seed=2)
    o = ordering_search(c, "obs", seed=1, max_restarts=20)
    a = ordering_search(c, "asobs", seed=1, max_restarts=20)
    assert a.score > o.score
    assert a.stats["asobs_decodes"] > 0 and a.stats["climbs"] > 20
    t = ordering_search(c, "asobs", seed=1, time_limit=0.0)
    assert t.stop == "time_limit" and t.stats["restarts"] == 0
    _check_dag(c, t.choice, t.score)


@pytest.mark.parametrize("rule", ["obs", "asobs"])
def test_methods_status_bound_and_options(rule):
    c = random_cache(9, seed=4, density=0.5)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, rule, bound="trivial", max_restarts=3)
    assert r.upper_bound == trivial_bound(c) > opt     # this cache's bound is not tight
    assert r.status == "node_limit" and "max_restarts=3" in r.message
    assert "not proven optimal" in r.message
    assert r.dag.is_acyclic() and c.dag_score(r.dag.parents) == pytest.approx(r.score)
    r = lpbn.solve(c, rule, bound="trivial")            # default stopping rule: patience
    assert r.status == "node_limit" and "default stopping rule" in r.message
    r = lpbn.solve(c, rule, bound="trivial", time_limit=0.05)
    assert r.status == "time_limit"
    r = lpbn.solve(c, rule, bound="trivial", node_limit=4)
    assert r.status == "node_limit" and r.stats["restarts"] == 4
    same = lpbn.solve(c, rule, bound="trivial", max_restarts=4)          # node_limit counts whole restarts
    assert same.score == r.score and same.dag == r.dag
    seen = []
    r = lpbn.solve(c, rule, seed=2, patience=300, bound=opt, callback=seen.append)
    assert r.upper_bound == opt
    assert (r.status == "optimal") == (r.score >= opt - 1e-9 * abs(opt))
    assert seen and r.trace and r.trace[-1][1] == r.score
    r = lpbn.solve(c, rule, bound=lambda cache: opt + 1.0, max_restarts=0)
    assert r.upper_bound == opt + 1.0 and r.status != "optimal"
    with pytest.raises(InputError, match="not a valid upper bound"):
        lpbn.solve(c, rule, bound=opt - 100.0, max_restarts=2)
    with pytest.raises(InputError, match="has no option"):
        lpbn.solve(c, rule, nonsense=1)
    with pytest.raises(InputError):
        lpbn.solve(c, rule, start="nowhere")
    with pytest.raises(InputError):
        lpbn.solve(c, rule, max_restarts=-1)


@pytest.mark.parametrize("rule", ["obs", "asobs"])
def test_optimal_only_when_the_trivial_bound_is_reached(rule):
    # every variable's best set points to lower-numbered variables: the bound is attainable
    fams = [[(-10.0, ())]] + [[(-1.0 * i, (i - 1,)), (-10.0 * i, ())] for i in range(1, 6)]
    c = lpbn.ScoreCache.from_families([f"V{i}" for i in range(6)], fams)
    r = lpbn.solve(c, rule, start="random", seed=3)
    assert r.status == "optimal" and r.score == pytest.approx(trivial_bound(c))
    for n in (1, 2):                                     # exhaustive: optimal
        c = random_cache(n, seed=9)
        r = lpbn.solve(c, rule)
        assert r.status == "optimal"
        assert r.score == pytest.approx(lpbn.solve(c, "dp").score)


def test_random_sparse_cache_is_valid_and_deterministic():
    c = random_sparse_cache(500, (10, 40), 6, seed=3)
    assert c.equals(random_sparse_cache(500, (10, 40), 6, seed=3))
    assert 500 * 10 <= c.m <= 500 * 40 and c.sizes.max() <= 6
    assert np.all(c.sizes[c.offsets[:-1]] >= 0)
    for i in range(0, 500, 37):
        sets = [ps for _, ps in c.family_lists(i)]
        assert () in sets and len(set(sets)) == len(sets) and all(i not in ps for ps in sets)


def test_two_thousand_variables():
    c = random_sparse_cache(2000, (100, 300), 6, seed=11)
    r = lpbn.solve(c, "asobs", max_restarts=10, seed=1, bound="trivial")
    assert r.status == "node_limit" and r.stats["rebuilds"] > 0
    assert r.score == float(np.sum(c.scores[[c.candidate_index(i, ps) for i, ps in
                                             enumerate(r.dag.parents)]]))
    assert r.dag.is_acyclic() and c._bits is None
    o = lpbn.solve(c, "obs", max_restarts=10, seed=1, bound="trivial")
    assert r.score > o.score


def _greedy_start_reference(cache):
    """The quick search's greedy start as first written: place next the variable losing least
    against its unconstrained best (a best-first scan per variable and step; lowest index on ties)."""
    best = cache.best_unconstrained()
    placed, left = [], list(range(cache.n))
    allowed = np.zeros(cache.words, dtype=np.uint64)
    while left:
        pick, loss = -1, np.inf
        for v in left:
            j, s = cache.best_parent_set(v, allowed)
            if j >= 0 and best[v] - s < loss:
                pick, loss = v, best[v] - s
        placed.append(pick)
        left.remove(pick)
        allowed[pick >> 6] |= np.uint64(1) << np.uint64(pick & 63)
    return np.array(placed)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 90), seed=st.integers(0, 10_000), sparse=st.booleans())
def test_greedy_start_matches_its_reference(n, seed, sparse):
    """The inverted-index kernel of lpbn.ordering.quick._greedy_start = the plain scan."""
    from lpbn.ordering.quick import _greedy_start
    cache = random_sparse_cache(n, seed=seed) if sparse else random_cache(min(n, 40), seed=seed)
    assert np.array_equal(_greedy_start(cache), _greedy_start_reference(cache))
