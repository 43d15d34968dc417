"""method="dual" (Jaakkola et al. 2010): exactness, bound validity, anytime limits, root LP."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.certificate import build_certificate
from lpbn.lp.clusters import ClusterFamily
from lpbn.dual.solver import root_relaxation
from lpbn.dual.state import DualState
from lpbn.formats import read_scores
from lpbn.testing import random_cache
from lpbn.verify import verify
from lpbn.control import SolveControl
from lpbn.registry import helper, method_function

TOL = 1e-6


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def optimum(cache):
    return lpbn.solve(cache, method="dp").score


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 8), seed=st.integers(0, 10_000), ints=st.booleans(),
       density=st.sampled_from([0.3, 0.6, 0.9]), polish=st.booleans())
def test_bounds_valid_after_every_sweep_and_optimal(n, seed, ints, density, polish):
    cache = random_cache(n, seed=seed, max_parents=3, density=density, integer_scores=ints)
    opt = optimum(cache)
    seen = []

    def hook(info):
        seen.append(info)
        assert info["bound"] >= opt - TOL * max(1, abs(opt)), info
        assert info["best"] <= opt + TOL * max(1, abs(opt)), info

    trace = []
    r = lpbn.solve(cache, method="dual", on_sweep=hook, lp_polish=polish, callback=trace.append)
    assert r.status == "optimal"
    assert rel(r.score, opt) <= TOL
    # the bound may sit within the summation rounding of the DAG's own score (a Markov-class
    # member's local scores add up differently in the last digit): the documented slack,
    # lpbn.bound.rounding_margin; never further below
    assert r.upper_bound >= r.score - 1e-14 * max(1.0, abs(r.score))
    assert rel(r.upper_bound, opt) <= 1e-8
    assert r.dag.is_acyclic()
    assert rel(cache.dag_score(r.dag.parents), r.score) <= 1e-12
    for _, best, bound in r.trace:
        assert best <= opt + TOL * max(1, abs(opt))
        assert bound >= opt - TOL * max(1, abs(opt))
    for k in ("nodes", "clusters", "iterations"):
        assert k in r.stats


def test_pure_cd_mode_is_exact():
    """Without the LP polish the solver is the paper's CD + subgradient + B&B alone."""
    for seed in range(6):
        cache = random_cache(7, seed=seed, density=0.6)
        r = lpbn.solve(cache, method="dual", lp_polish=False)
        assert r.status == "optimal" and rel(r.score, optimum(cache)) <= TOL


def test_bundled_exact_files(instances, known_optima):
    done = 0
    for relpath, v in sorted(known_optima["exact_dp"].items(), key=lambda kv: kv[1]["n"]):
        cache = read_scores(instances / relpath)
        if cache.m > 600 or cache.n > 14:
            continue
        r = lpbn.solve(cache, method="dual", time_limit=60)
        assert r.status == "optimal", relpath
        assert rel(r.score, v["optimum"]) <= TOL, relpath
        done += 1
        if done >= 40:
            break
    assert done >= 10


@pytest.mark.parametrize("name", ["iris", "wine", "voting", "hepatitis", "insurance1000", "water1000",
                                  "mildew1000", "barley1000"])
def test_gobnilp_anchor_optima(instances, known_optima, name):
    key = f"anchors/gobnilp-bic3/{name}.BIC.p3.jkl"
    v = known_optima["gobnilp_bic3"][key]
    r = lpbn.solve(read_scores(instances / key), method="dual", time_limit=120)
    assert r.status == "optimal"
    assert rel(r.score, v["optimum"]) <= TOL
    assert r.upper_bound >= v["optimum"] - TOL * abs(v["optimum"])
    assert isinstance(r.extra["clusters"], ClusterFamily)
    assert r.extra["root_dual_value"] >= v["optimum"] - TOL * abs(v["optimum"])


def test_limits_return_dag_and_valid_bound(instances, known_optima):
    key = "anchors/gobnilp-bic3/alarm1000.BIC.p3.jkl"
    opt = known_optima["gobnilp_bic3"][key]["optimum"]
    cache = read_scores(instances / key)
    r = lpbn.solve(cache, method="dual", time_limit=0.5)
    assert r.status in ("time_limit", "optimal")
    assert r.dag is not None and r.dag.is_acyclic() and math.isfinite(r.gap)
    assert r.score <= opt + TOL * abs(opt) <= r.upper_bound + 2 * TOL * abs(opt)
    r = lpbn.solve(cache, method="dual", node_limit=1)
    assert r.status in ("node_limit", "optimal") and r.dag is not None
    assert r.upper_bound >= opt - TOL * abs(opt)
    r = lpbn.solve(cache, method="dual", gap_limit=0.05)
    assert r.status in ("gap_limit", "optimal") and r.gap <= 0.05
    assert r.upper_bound >= opt - TOL * abs(opt)


def test_root_relaxation_interface():
    cache = random_cache(8, seed=3, density=0.7)
    opt = optimum(cache)
    # no clusters, no separation: the dual is sum_i max_s W_i(s), exactly the LP
    rr = root_relaxation(cache, None, separate=False)
    assert len(rr.clusters) == 0 and rr.converged
    assert rel(rr.value, float(cache.best_unconstrained().sum())) <= 1e-12
    # given clusters only
    fam = ClusterFamily(cache.n, [[0, 1], [1, 2, 3], list(range(cache.n))])
    rr = root_relaxation(cache, fam, separate=False)
    assert len(rr.clusters) == 3 and np.array_equal(rr.clusters.bits, fam.bits)
    assert rr.converged and rr.value >= opt - TOL * abs(opt)
    assert rr.best_dag is not None and rr.best_score <= opt + TOL * abs(opt)
    # with separation the bound can only get tighter
    rs = root_relaxation(cache, fam, separate=True)
    assert rs.converged and rs.value <= rr.value + 1e-7 * abs(rr.value)
    assert rs.value >= opt - TOL * abs(opt)
    assert rs.best_score <= opt + TOL * abs(opt)


def test_root_relaxation_matches_exact_lp():
    """The CD + polish value equals an independently assembled primal LP (scipy)."""
    from scipy.optimize import linprog
    from lpbn.lp.clusters import cluster_rows_csr
    cache = random_cache(7, seed=11, density=0.8)
    rr = root_relaxation(cache, None, separate=True)
    assert rr.converged
    ptr, idx = cluster_rows_csr(cache, rr.clusters.bits)
    m, n, K = cache.m, cache.n, len(rr.clusters)
    A_eq = np.zeros((n, m))
    A_eq[cache.family, np.arange(m)] = 1
    A_ub = np.zeros((K, m))
    for c in range(K):
        A_ub[c, idx[ptr[c]:ptr[c + 1]]] = -1
    res = linprog(-cache.scores, A_ub=A_ub if K else None, b_ub=-np.ones(K) if K else None, A_eq=A_eq,
                  b_eq=np.ones(n), bounds=(0, 1), method="highs")
    assert res.status == 0
    assert rel(rr.value, -res.fun) <= 1e-6


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_root_relaxation_warm_start_over_a_grown_cache(seed):
    """The λ and clusters of the LP over part of a cache start the LP over all of it (as column
    generation does): the value stays a bound on the optimum and, both converged, equals the
    LP solved from scratch."""
    cache = random_cache(8, seed=seed, density=0.7)
    keep = np.random.default_rng(seed).random(cache.m) < 0.5
    keep[cache.offsets[:-1]] = True
    part = root_relaxation(cache.select(keep))
    warm = root_relaxation(cache, start=(part.cluster_bits, part.cluster_k, part.lam))
    cold = root_relaxation(cache)
    opt = optimum(cache)
    assert warm.value >= opt - TOL * abs(opt)
    assert warm.stats["clusters"] >= len(part.lam)
    if warm.converged and cold.converged:
        assert rel(warm.value, cold.value) <= 1e-6


def test_cd_sweep_monotone_and_decode_valid():
    cache = random_cache(9, seed=5, density=0.7)
    st_ = DualState(cache)
    st_.add_cluster(range(cache.n))
    st_.add_cluster([0, 1, 2])
    vals = [st_.value()]
    for _ in range(5):
        vals.append(st_.sweep())
    assert all(b <= a + 1e-9 for a, b in zip(vals, vals[1:]))
    exact = st_.exact_value()
    assert abs(exact - vals[-1]) <= 1e-9 * abs(exact)
    choice, score, order = st_.decode()
    assert np.all(choice >= 0) and score <= optimum(cache) + 1e-9


def test_shared_exact_sample(shared):
    """A bounded sample of the shared exact-optimum files (full sweep: lpbn bench small --methods dual)."""
    known = json.loads((shared / "instances" / "KNOWN_OPTIMA.json").read_text())["computed_exact_dp"]
    items = sorted(known.items(), key=lambda kv: kv[1]["n"])
    picked = items[::max(1, len(items) // 15)]
    for relpath, v in picked:
        cache = read_scores(shared / "instances" / relpath)
        if cache.m > 1500:
            continue
        r = lpbn.solve(cache, method="dual", time_limit=20)
        assert r.upper_bound >= v["optimum"] - TOL * max(1, abs(v["optimum"])), relpath
        assert r.score <= v["optimum"] + TOL * max(1, abs(v["optimum"])), relpath
        if r.status == "optimal":
            assert rel(r.score, v["optimum"]) <= TOL, relpath


def test_local_search_defaults_by_size_and_is_checked():
    """local_search: 0.05 up to LOCAL_SEARCH_MAX_N variables, off beyond (its climbs over
    bitsets do not scale); a value given is kept; a bad one is one clear error."""
    from types import SimpleNamespace
    from lpbn.tuning import LOCAL_SEARCH_MAX_N
    from lpbn.dual.options import DualOptions
    small = SimpleNamespace(n=LOCAL_SEARCH_MAX_N, m=10 * LOCAL_SEARCH_MAX_N)
    big = SimpleNamespace(n=LOCAL_SEARCH_MAX_N + 1, m=10 * LOCAL_SEARCH_MAX_N)
    assert DualOptions().resolved(small).local_search == 0.05
    assert DualOptions().resolved(big).local_search == 0.0
    assert DualOptions(local_search=0.2).resolved(big).local_search == 0.2
    for bad in (-1.0, True, "x", float("inf")):
        with pytest.raises(lpbn.InputError, match="local_search"):
            lpbn.solve(random_cache(5, seed=1), "dual", local_search=bad)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 9), seed=st.integers(0, 10_000), share=st.sampled_from([0.0, 0.2, 1.0]))
def test_local_search_share_keeps_exactness(n, seed, share):
    """The OBS incumbent search (any share of the time, or none) never changes the optimum."""
    cache = random_cache(n, seed=seed, max_parents=3, density=0.6)
    opt = optimum(cache)
    r = lpbn.solve(cache, method="dual", local_search=share, seed=seed)
    assert r.status == "optimal" and rel(r.score, opt) <= TOL
    assert r.upper_bound >= opt - TOL * max(1, abs(opt))


def test_order_search_improves_on_decoded_order():
    from lpbn.dual.incumbent import OrderSearch, dag_order
    cache = random_cache(12, seed=3, max_parents=3, density=0.7)
    state = DualState(cache)
    choice, score, order = state.decode()
    res = OrderSearch(cache, seed=1).run(50, [order, dag_order(cache, choice)])
    assert res is not None
    ch, sc = res
    assert sc >= score - 1e-9
    assert rel(sc, cache.dag_score([cache.parents(int(j)) for j in ch])) <= 1e-12
    assert rel(sc, optimum(cache)) <= TOL or sc < optimum(cache)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 16), seed=st.integers(0, 10_000), density=st.sampled_from([0.4, 0.9]),
       climbs=st.sampled_from([0, 20]))
def test_order_search_answers_the_acyclic_selection_of_its_best_order(n, seed, density, climbs):
    """The incumbent search returns the ASOBS DAG of its best order (Scanagatta et al. 2015,
    Theorem 3): acyclic, scored exactly, and never below the order's OBS DAG (from one random
    start, the ASOBS DAG is often strictly better: 10 of 30 random caches of 20 variables)."""
    from lpbn.dual.incumbent import OrderSearch
    cache = random_cache(n, seed=seed, max_parents=3, density=density)
    search = OrderSearch(cache, seed=seed)
    ch, sc = search.run(climbs, [np.random.default_rng(seed).permutation(n)])
    _, obs_score = cache.best_for_order(search.best_order)
    assert sc >= obs_score - 1e-9 * max(1.0, abs(obs_score))
    parents = [cache.parents(int(j)) for j in ch]
    assert lpbn.DAG(cache.names, parents).is_acyclic()
    assert rel(sc, cache.dag_score(parents)) <= 1e-12
    assert sc <= optimum(cache) + TOL * max(1.0, abs(sc))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 12), seed=st.integers(0, 10_000), noise=st.booleans())
def test_incremental_growth_matches_reference(n, seed, noise):
    """grow_cluster_fast (incremental eq. 20 gains) returns exactly grow_cluster's clusters."""
    from lpbn.dual import kernels as K
    cache = random_cache(n, seed=seed, max_parents=3, density=0.7)
    state = DualState(cache)
    state.optimise(max_sweeps=5)
    state.separate()
    state.optimise(max_sweeps=5)
    if noise:
        state.adj[:] += np.random.default_rng(seed).normal(size=cache.m) * 0.3
        K.node_maxima(state.scores, state.adj, state.allowed, state.offsets, state.M, state.arg)
    args = (state.scores, state.adj, state.allowed, state.offsets, state.pset_ptr, state.pset_items,
            state.arg, state.inv_ptr, state.inv_items, state.family, n)
    for s in range(n):
        a, ga = K.grow_cluster(s, *args)
        b, gb = K.grow_cluster_fast(s, *args)
        assert np.array_equal(a, b) and ga == gb


@pytest.mark.parametrize("source", ["random", "anchors/gobnilp-bic3/flag.BIC.p3.jkl"])
def test_runs_are_reproducible(instances, source):
    """The OBS effort is counted in climbs and the support ILPs in nodes, not seconds: two runs
    give the same search (flag: its one node's support ILP gives the optimum)."""
    cache = random_cache(14, seed=11, max_parents=3, density=0.7) if source == "random" \
        else read_scores(instances / source)
    a = lpbn.solve(cache, method="dual")
    b = lpbn.solve(cache, method="dual")
    assert a.status == b.status == "optimal"
    for k in ("nodes", "clusters", "iterations", "local_search_climbs", "support_mips"):
        assert a.stats.get(k) == b.stats.get(k), k
    assert a.score == b.score and a.upper_bound == b.upper_bound
    assert source == "random" or a.stats["support_mips"] >= 1


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 10), seed=st.integers(0, 10_000),
       branching=st.sampled_from(["strong", "eta", "flips"]),
       exact=st.sampled_from(["none", "root", "all"]), primal_first=st.booleans(),
       lookahead=st.sampled_from([0, 1, 3]))
def test_branching_and_separation_options_stay_exact(n, seed, branching, exact, primal_first, lookahead):
    cache = random_cache(n, seed=seed, max_parents=3, density=0.6)
    opt = optimum(cache)
    r = lpbn.solve(cache, method="dual", branching=branching, exact_separation=exact,
                   primal_first=primal_first, strong_candidates=4, strong_lookahead=lookahead)
    assert r.status == "optimal" and rel(r.score, opt) <= TOL
    assert r.upper_bound >= opt - TOL * max(1, abs(opt))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 10), seed=st.integers(0, 10_000))
def test_primal_and_dual_lp_forms_agree(n, seed):
    """The η-form polish LP (PolishLP over EtaLP) and the epigraph form of eq. 8 (solved here by scipy's
    HiGHS from its own sparse matrix) have the same optimum, and the λ read from the η-form
    row duals certifies it (eq. 8)."""
    import scipy.sparse as sp
    from scipy.optimize import linprog
    from lpbn.dual import polish as P
    from lpbn.dual.relax import Incumbent, relax
    from lpbn.lp.clusters import cluster_rows_csr
    cache = random_cache(n, seed=seed, max_parents=3, density=0.7)
    state = DualState(cache)
    relax(state, Incumbent(), separate=True, max_rounds=3, lp_polish=False)
    ok, obj, lam, _, _ = P.PolishLP(state).solve(None)
    assert ok
    state.set_lambda(np.maximum(lam, 0.0))
    assert state.value() >= obj - 1e-7 * max(1.0, abs(obj))
    assert state.value() <= obj + 1e-6 * max(1.0, abs(obj))
    # epigraph of eq. 8: min Σ u_i - Σ k_C λ_C  s.t.  -u_i + Σ_{C: j in row C} λ_C <= -W_j, λ >= 0
    m, K = cache.m, state.K
    ptr, idx = cluster_rows_csr(cache, state.cbits, state.ck)
    rows = np.concatenate([np.arange(m), idx])
    cols = np.concatenate([cache.family.astype(np.int64), n + np.repeat(np.arange(K), np.diff(ptr))])
    vals = np.concatenate([-np.ones(m), np.ones(len(idx))])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(m, n + K))
    res = linprog(np.concatenate([np.ones(n), -state.ck.astype(np.float64)]), A_ub=A, b_ub=-cache.scores,
                  bounds=[(None, None)] * n + [(0, None)] * K, method="highs")
    assert res.status == 0
    assert abs(res.fun - obj) <= 1e-7 * max(1.0, abs(obj))


def _kcluster_lp(cache, rows, ks):
    """max Σ s_j η_j over the simplex rows and the k-cluster rows (scipy, dense)."""
    from scipy.optimize import linprog
    from lpbn.lp.clusters import cluster_rows_csr
    n, m = cache.n, cache.m
    A_eq = np.zeros((n, m))
    A_eq[cache.family, np.arange(m)] = 1
    ptr, idx = cluster_rows_csr(cache, rows, ks)
    A_ub = np.zeros((len(ks), m))
    for c in range(len(ks)):
        A_ub[c, idx[ptr[c]:ptr[c + 1]]] = -1
    res = linprog(-cache.scores, A_ub=A_ub, b_ub=-np.asarray(ks, float), A_eq=A_eq, b_eq=np.ones(n),
                  bounds=(0, 1), method="highs")
    assert res.status == 0
    return -res.fun


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 9), seed=st.integers(0, 10_000))
def test_kcluster_dual_bounds_and_lp(n, seed):
    """k-cluster constraints in the dual (constant k λ_C, I_C(s) = [|s∩C| < k]): every CD
    sweep and subgradient step keeps a valid bound, and the polished λ certifies the LP with
    the k-cluster rows (checked against an independent scipy LP)."""
    from lpbn import bitsets as bs
    from lpbn.dual import polish as P
    cache = random_cache(n, seed=seed, max_parents=3, density=0.8)
    opt = optimum(cache)
    rng = np.random.default_rng(seed)
    state = DualState(cache)
    rows, ks = [], []
    for _ in range(6):
        size = int(rng.integers(2, n + 1))
        members = sorted(rng.choice(n, size=size, replace=False).tolist())
        k = int(rng.integers(1, min(3, size - 1) + 1))
        if state.add_cluster_bits(bs.to_bitset(members, n), k):
            rows.append(bs.to_bitset(members, n))
            ks.append(k)
    for step in range(12):
        v = state.sweep() if step % 3 else (state.subgradient(0.5), state.exact_value())[1]
        assert v >= opt - TOL * max(1, abs(opt))
        assert abs(state.exact_value() - v) <= 1e-8 * max(1, abs(v))
    ok, obj, lam, _, _ = P.PolishLP(state).solve(None)
    assert ok
    state.set_lambda(np.maximum(lam, 0.0))
    assert abs(state.value() - obj) <= 1e-6 * max(1.0, abs(obj))
    assert abs(obj - _kcluster_lp(cache, np.array(rows), np.array(ks))) <= 1e-6 * max(1.0, abs(obj))
    assert obj >= opt - TOL * max(1, abs(opt))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 10), seed=st.integers(0, 10_000), k_max=st.sampled_from([1, 2, 3]),
       where=st.sampled_from(["root", "binding", "all"]), rounds=st.sampled_from(["auto", "every", "stalled"]))
def test_kcluster_separation_stays_exact(n, seed, k_max, where, rounds):
    cache = random_cache(n, seed=seed, max_parents=3, density=0.7)
    opt = optimum(cache)
    r = lpbn.solve(cache, method="dual", k_max=k_max, kcluster_nodes=where, kcluster_rounds=rounds,
                   certificate=True)
    assert r.status == "optimal" and rel(r.score, opt) <= TOL
    rep = verify(cache, r, build_certificate(cache, r))
    assert rep.bound_verified, rep.to_text()


def test_kclusters_join_tailing_cluster_rounds(instances):
    """kcluster_rounds="auto" adds k-clusters beside the clusters once the bound tails off:
    three rounds that gained less than 1% of a gap above 1% (lpbn.lp.separation.TAIL_*)."""
    from lpbn.lp.separation import tailing_off
    assert not tailing_off([-90.0, -95.0, -96.0], -100.0)                 # too few rounds
    assert not tailing_off([-80.0, -81.0, -82.0, -90.0], -100.0)          # 10 of a gap of 10
    assert tailing_off([-90.0, -90.01, -90.02, -90.03], -100.0)           # 0.03 of 9.97
    assert not tailing_off([-90.0, -90.0, -90.0, -90.0], -math.inf)       # no incumbent yet
    assert not tailing_off([-99.5, -99.5, -99.5, -99.5], -100.0)          # a gap of 0.5%: branching's
    from lpbn.lp.separation import TailBackoff
    b = TailBackoff()
    pattern = []
    for found in (0, 0, 0, 5, 0):
        while not b.due():
            pattern.append("skip")
        pattern.append("try")
        b.found(found)
    # nothing, skip 1; nothing, skip 2; nothing, skip 4; rows found: try at once; nothing, skip 1
    assert pattern == ["try", "skip", "try", "skip", "skip", "try"] + ["skip"] * 4 + ["try", "try"]
    assert not b.due() and b.due()
    cache = read_scores(instances / "anchors/gobnilp-bic3/nltcs.BIC.p3.jkl")
    every = lpbn.solve(cache, method="dual", kcluster_rounds="every")
    stalled = lpbn.solve(cache, method="dual", kcluster_rounds="stalled")
    assert every.stats["kclusters"] > stalled.stats["kclusters"]
    assert every.status == stalled.status == "optimal"
    assert rel(every.score, stalled.score) <= TOL


def test_bad_k_max_is_an_input_error():
    with pytest.raises(lpbn.errors.InputError):
        lpbn.solve(random_cache(4, seed=0), method="dual", k_max=0)


def _random_restriction(cache, rng) -> np.ndarray:
    """A branch-like mask: a random share of each family forbidden, one candidate kept."""
    allowed = np.ones(cache.m, dtype=np.bool_)
    for i in range(cache.n):
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        allowed[lo:hi] = rng.random(hi - lo) < 0.7
        allowed[lo + int(rng.integers(hi - lo))] = True
    return allowed


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 10), seed=st.integers(0, 10_000))
def test_cut_pool_keeps_the_lp_over_all_clusters(n, seed):
    """Rows moved to the pool (here after one slack solve, in batches of one) come back when
    violated: under changing branch restrictions and restored bases the pooled model's value
    equals that of a model that keeps every row."""
    import highspy
    from lpbn.dual import polish as P
    from lpbn.dual.relax import Incumbent, relax
    cache = random_cache(n, seed=seed, max_parents=3, density=0.7)
    state = DualState(cache)
    relax(state, Incumbent(), separate=True, max_rounds=4, lp_polish=False)
    pooled, full = P.PolishLP(state), P.PolishLP(state)
    pooled.DROP_IDLE, pooled.DROP_MIN = 1, 1
    full.DROP_MIN = 10 ** 9
    rng = np.random.default_rng(seed)
    saved = None
    for step in range(8):
        state.allowed = _random_restriction(cache, rng)
        if saved is not None and step % 3 == 0:
            pooled.set_basis(saved)
        ok1, v1, lam1, _, _ = pooled.solve(None)
        ok2, v2, _, _, _ = full.solve(None)
        assert ok1 == ok2 == (full.lp.h.getModelStatus() == highspy.HighsModelStatus.kOptimal)
        if not ok2:   # the restrictions made the LP infeasible (no DAG either)
            continue
        assert abs(v1 - v2) <= 1e-7 * max(1.0, abs(v2))
        assert len(lam1) == state.K and np.all(lam1[~pooled.in_lp] == 0)
        saved = pooled.get_basis()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 10), seed=st.integers(0, 10_000), start=st.integers(1, 3))
@example(n=8, seed=39, start=1)     # three cuts, two of them pooled
@example(n=8, seed=11, start=2)
def test_column_generation_keeps_the_lp_over_all_columns(n, seed, start):
    """A restricted polish model (a few columns per variable, the others priced in) whose
    slack cluster and cut rows go to the pool has the value of the model with every column
    and row, with {0, 1/2}-cuts among its rows, under changing
    branch restrictions (some make the restricted model infeasible: every allowed column then
    comes in) and restored bases; its λ and μ certify that value through eq. 8."""
    import highspy
    from lpbn.dual import polish as P
    from lpbn.dual.relax import Incumbent, relax
    cache = random_cache(n, seed=seed, max_parents=3, density=0.8)
    state = DualState(cache)
    relax(state, Incumbent(), separate=True, max_rounds=4, lp_polish=False)
    full = P.PolishLP(state)
    ok, _, _, _, eta = full.solve(None)
    if ok:
        from lpbn.lp.cut_loop import separate_zero_half
        separate_zero_half(cache, eta, state.cbits[state.ck == 1], [], state.add_cuts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P.PolishLP, "RESTRICT_ABOVE", 0)
        mp.setattr(P.PolishLP, "START_COLUMNS", start)
        mp.setattr(P.PolishLP, "PRICE_COLUMNS", 1)
        priced = P.PolishLP(state)
    priced.DROP_IDLE, priced.DROP_MIN = 1, 1        # cluster and cut rows go to the pool and back
    assert priced.lp.pos is not None and priced.lp.num_cols < cache.m
    rng = np.random.default_rng(seed)
    saved = None
    for step in range(6):
        allowed = _random_restriction(cache, rng) if step else np.ones(cache.m, dtype=np.bool_)
        state.allowed = allowed
        if saved is not None and step % 2 == 0:
            priced.set_basis(saved)
        ok1, v1, lam, mu, eta1 = priced.solve(None)
        ok2, v2, _, _, _ = full.solve(None)
        assert ok1 == ok2 == (full.lp.h.getModelStatus() == highspy.HighsModelStatus.kOptimal)
        if not ok2:
            continue
        assert abs(v1 - v2) <= 1e-7 * max(1.0, abs(v2))
        assert np.all(eta1[~allowed] == 0) and np.allclose(np.bincount(cache.family, eta1, n), 1.0)
        state.set_duals(np.maximum(lam, 0.0), mu)
        assert abs(state.value() - v2) <= 1e-6 * max(1.0, abs(v2))
        saved = priced.get_basis()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 9), seed=st.integers(0, 10_000))
def test_dual_with_column_generation_is_exact(n, seed):
    """The dual B&B whose polish LPs start from one column per variable agrees with the DP."""
    from lpbn.dual import polish as P
    cache = random_cache(n, seed=seed, max_parents=3, density=0.8)
    opt = lpbn.solve(cache, method="dp").score
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P.PolishLP, "RESTRICT_ABOVE", 0)
        mp.setattr(P.PolishLP, "START_COLUMNS", 1)
        r = lpbn.solve(cache, method="dual")
    assert r.status == "optimal"
    assert abs(r.score - opt) <= TOL * max(1, abs(opt))


@pytest.mark.parametrize("n,seed,polish", [(7, 1, True), (8, 4, False), (9, 6, True), (8, 9, False)])
def test_csr_membership_tests_match_bitsets(monkeypatch, n, seed, polish):
    """Wide caches test cluster membership on CSR parent lists: same sweeps, same optimum."""
    import lpbn.dual.state as state_mod
    cache = random_cache(n, seed=seed, density=0.5, integer_scores=seed % 2 == 0)
    exact = lpbn.solve(cache, method="dp").score
    a = DualState(cache)
    monkeypatch.setattr(state_mod, "CSR_MIN_WORDS", 1)
    b = DualState(cache)
    assert b.bits.shape[0] == 0 and a.bits.shape[0] == cache.m
    for members in ([0, 1], [1, 2, 3], list(range(n))):
        a.add_cluster(members)
        b.add_cluster(members)
    a.set_lambda(np.array([0.3, 1.2, 0.7]))
    b.set_lambda(np.array([0.3, 1.2, 0.7]))
    np.testing.assert_array_equal(a.adj, b.adj)
    for _ in range(3):
        assert a.sweep(np.arange(a.K)) == b.sweep(np.arange(b.K))
    res = lpbn.solve(cache, method="dual", lp_polish=polish)
    assert res.status == "optimal" and math.isclose(res.score, exact, rel_tol=1e-9)


@pytest.mark.parametrize("name", ["insurance1000.BIC.p3.jkl", "water1000.BIC.p3.jkl", "barley1000.BIC.p3.jkl"])
def test_pure_cd_mode_is_exact_on_anchors(instances, known_optima, name):
    """The paper's algorithm alone (CD + subgradient + separation + B&B, no LP polish, no
    HiGHS) on bundled anchors with 27-48 variables: GOBNILP's optimum, with a tree
    certificate the plain verifier accepts.  (On zoo, alarm1000 and hailfinder500 pure CD
    does not close the gap within minutes; the polish is what closes those.)"""
    from lpbn.certificate import build_certificate
    from lpbn.verify import verify
    cache = read_scores(instances / "anchors/gobnilp-bic3" / name)
    r = lpbn.solve(cache, method="dual", lp_polish=False, certificate=True, time_limit=120)
    opt = known_optima["gobnilp_bic3"]["anchors/gobnilp-bic3/" + name]["optimum"]
    assert r.status == "optimal" and r.stats.get("polishes", 0) == 0
    assert rel(r.score, opt) <= 1e-9
    assert verify(cache, r, build_certificate(cache, r)).bound_verified


def test_dual_options_are_documented_validated_and_listed():
    """Every dual option is a DualOptions field with a doc; solve_dual declares it as its
    options (what lpbn.options.check_options reads), the branch and bound reads every field
    and resolves every None default; bad values are refused."""
    import inspect
    import sys

    from lpbn.dual.bnb import BranchAndBound
    from lpbn.dual.options import DualOptions
    from lpbn.dual.solver import solve_dual
    from lpbn.errors import InputError
    fields = DualOptions.fields()
    assert all(doc for _, _, doc in fields)
    assert solve_dual.options_class is DualOptions
    source = inspect.getsource(sys.modules[BranchAndBound.__module__])
    assert all(f"opts.{name}" in source for name, _, _ in fields)
    text = sys.modules["lpbn.solve"].show_options("dual", disp=False)
    assert all(f"{name} : {kind}, default {default!r}" in text for name, kind, default, _ in DualOptions.rows())
    assert "lp_polish" in lpbn.solve.show_options(disp=False)
    cache = random_cache(5, seed=1)
    resolved = DualOptions().resolved(cache)
    assert None not in (resolved.lp_polish, resolved.branching, resolved.primal_first,
                        resolved.root_tail_rounds, resolved.separation_batch, resolved.round_sweeps)
    for bad in ({"branching": "best"}, {"exact_separation": "some"}, {"k_max": 0},
                {"kcluster_nodes": "x"}, {"kcluster_rounds": "often"}, {"round_sweeps": 0}, {"no_such_option": 1},
                {"support_mip": -1}, {"support_mip": True}, {"support_mip": "x"}):
        with pytest.raises(InputError):
            lpbn.solve(cache, method="dual", **bad)
    assert lpbn.solve(cache, method="dual", lp_polish=False).status == "optimal"


def test_dual_lp_polish_is_one_option():
    """lp_polish: 'off' (False, the paper's pure CD), 'root' (one exact polish after the root's
    relaxation) or 'nodes' (True); the bool and string spellings are the same run."""
    from lpbn.dual.options import DualOptions
    from lpbn.errors import InputError
    cache = random_cache(9, seed=4)
    assert DualOptions(lp_polish=True).resolved(cache).lp_polish == "nodes"
    assert DualOptions(lp_polish=False).resolved(cache).lp_polish == "off"
    assert DualOptions(lp_polish="auto").resolved(cache).lp_polish == "nodes"
    assert DualOptions(lp_polish="root").resolved(cache).branching == "flips"
    runs = {}
    for value in (False, "off", True, "nodes", "root"):
        r = lpbn.solve(cache, method="dual", lp_polish=value)
        assert r.status == "optimal"
        runs[value] = (r.score, r.upper_bound, r.stats["nodes"], r.stats.get("polishes", 0))
    assert runs[False] == runs["off"] and runs[True] == runs["nodes"]
    assert runs["off"][3] == 0 and runs["root"][3] == 0    # the root polish is not a round's
    for bad in ("sometimes", 1.5):
        with pytest.raises(InputError):
            lpbn.solve(cache, method="dual", lp_polish=bad)
    with pytest.raises(InputError):
        lpbn.solve(cache, method="dual", root_polish=True)   # folded into lp_polish="root"


def test_relax_stops_when_told_from_outside():
    """relax polls ``stop`` beside its deadline: a stop ends the rounds after the first."""
    from lpbn.dual.relax import Incumbent, relax
    cache = random_cache(12, seed=7, max_parents=3, density=0.7)
    _, _, st = relax(DualState(cache), Incumbent(), separate=True, stop=lambda: True)
    assert st.rounds == 1
    _, _, st = relax(DualState(cache), Incumbent(), separate=True)
    assert st.rounds > 1


def test_a_stop_from_outside_reaches_the_root():
    """A race's rival that proved (the control's watch) stops the dual inside its root node, not
    only between nodes (a root of minutes never polled it: the rival never started); the answer
    keeps a valid bound."""
    from lpbn.control import SolveControl
    from lpbn.dual.bnb import BranchAndBound
    cache = random_cache(12, seed=7, max_parents=3, density=0.7)
    opt = lpbn.solve(cache, method="dp").score
    control = SolveControl()
    polls = []

    def watch():
        polls.append(1)
        return "superseded" if len(polls) > 1 else None   # the first poll is before the root

    control.watch = watch
    res = BranchAndBound(cache, control).run()
    assert res.status == "superseded" and res.stats["nodes"] == 1
    assert res.upper_bound >= opt - 1e-9 * abs(opt) and res.score <= opt + 1e-9 * abs(opt)


def _wired() -> SolveControl:
    """A control with the registry's helpers, as :func:`lpbn.solve` wires it (the dual's support
    ILP asks it for the HiGHS ILP)."""
    control = SolveControl()
    control.helpers = helper
    return control


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 8), seed=st.integers(0, 10_000), density=st.sampled_from([0.5, 0.9]),
       rounds=st.integers(0, 3))
def test_support_mip_offers_the_best_dag_over_the_node_lp_support(n, seed, density, rounds):
    """BranchAndBound._support_mip: the incumbent becomes the best DAG over the candidates in
    the LP point's support and the incumbent's own (the DP over that sub-cache), never worse;
    the same support is not solved twice; a support above support_mip x n, or one found when
    the count of ILPs (five, and one per ten nodes) is spent, is skipped."""
    from lpbn.dual.bnb import BranchAndBound
    from lpbn.dual.options import DualOptions
    from lpbn.lp.cut_loop import cut_loop
    from lpbn.lp.model import EtaLP
    cache = random_cache(n, seed=seed, density=density).prune_dominated()
    model = EtaLP(cache)
    cut_loop(model, mode="clusters", max_rounds=rounds)
    eta = np.maximum(model.solve_lp().eta, 0.0)
    keep = eta > 1e-9
    bb = BranchAndBound(cache, _wired(), DualOptions(prune=False, support_mip=1000.0))
    greedy = cache.best_for_order(np.arange(n))[0]
    bb.inc.offer(greedy, float(cache.scores[greedy].sum()))
    before = bb.inc.score
    keep[greedy] = True
    sub_best = lpbn.solve(cache.select(keep), method="dp").score
    bb.state.last_eta = eta
    improved = bb._support_mip()
    assert bb.stats["support_mips"] == 1 and improved == (bb.inc.score > before)
    assert bb.inc.score >= before and rel(bb.inc.score, max(before, sub_best)) <= 1e-9
    assert keep[bb.inc.choice].all() and rel(cache.scores[bb.inc.choice].sum(), bb.inc.score) <= 1e-12
    assert not bb._support_mip() and bb.stats["support_mips"] == 1        # solved once per support
    small = BranchAndBound(cache, _wired(), DualOptions(prune=False, support_mip=0.5))
    small.state.last_eta = np.ones(cache.m)
    assert not small._support_mip() and "support_mips" not in small.stats
    spent = BranchAndBound(cache, _wired(), DualOptions(prune=False, support_mip=1000.0))
    spent.inc.offer(greedy, before)
    spent.state.last_eta, spent.stats["support_mips"] = eta, 5     # the count allows none yet
    assert not spent._support_mip() and spent.stats["support_mips"] == 5
    spent.stats["nodes"] = 10                                       # ten nodes credit one more
    spent._support_mip()
    assert spent.stats["support_mips"] == 6 and rel(spent.inc.score, bb.inc.score) <= 1e-9
    # without an incumbent the support alone may admit no DAG: then no answer, not an error
    from lpbn.support_ilp import support_ilp
    alone, _ = support_ilp(cache, eta, None, 60.0, ilp=method_function("highs"))
    try:
        feasible = cache.select(eta > 1e-9).n == n
    except lpbn.errors.ScoreFileError:
        feasible = False
    assert (alone is not None) == feasible


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 10), seed=st.integers(0, 10_000), ratio=st.sampled_from([0.0, 3.0, 1000.0]))
def test_support_mip_keeps_the_dual_exact(n, seed, ratio):
    """The support ILP whatever the support's size (1000), on small supports (3, the default)
    or never (0): the DP's optimum, proved, with every bound of the trace at or above it."""
    cache = random_cache(n, seed=seed, density=0.8)
    opt = optimum(cache)
    r = lpbn.solve(cache, method="dual", support_mip=ratio)
    assert r.status == "optimal" and rel(r.score, opt) <= TOL and r.dag.is_acyclic()
    assert all(bound >= opt - TOL * max(1, abs(opt)) for _, _, bound in r.trace)
    assert (ratio == 0.0) <= ("support_mips" not in r.stats)
