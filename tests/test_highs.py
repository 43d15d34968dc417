"""The η LP in HiGHS, cluster/cycle separation, method="highs" and method="pulp-cbc"."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn import bitsets as bs
from lpbn.lp.clusters import ClusterFamily, cluster_activity, cluster_rows_csr
from lpbn.lp.cut_loop import cut_loop
from lpbn.lp.exact_separation import exact_clusters
from lpbn.lp.model import EtaLP, choice_from_eta
from lpbn.lp.separation import (cycle_rows_csr, edge_marginals, grown_clusters, grown_kclusters,
                                incumbent_clusters, scc_labels, separate_cycles, separate_kclusters,
                                shortest_cycles)
from lpbn.testing import best_through_each_candidate, random_cache, random_dags

REL = 1e-6


def close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def all_clusters(n: int) -> np.ndarray:
    fam = ClusterFamily(n)
    for k in range(2, n + 1):
        for c in itertools.combinations(range(n), k):
            fam.add(c)
    return fam.bits


def all_cycles(n: int) -> list[tuple[int, ...]]:
    out = []
    for k in range(2, n + 1):
        for c in itertools.combinations(range(n), k):
            for perm in itertools.permutations(c[1:]):
                out.append((c[0],) + perm)
    return out


# ---------------------------------------------------------------------- LP model
def test_a_multithreaded_instance_does_not_break_later_solves():
    """HiGHS keeps one task scheduler per process, sized by the first run; an instance asking
    for another thread count used to fail silently ("Not Set") on many-core machines."""
    from lpbn.lp.highs_session import new_highs
    cache = random_cache(6, seed=1)
    for threads in (2, 1, 3, 1):
        h = new_highs(threads)
        h.addVar(0.0, 1.0)
        h.run()
        assert EtaLP(cache, threads=threads).solve_lp().status == "optimal"


def test_lp_without_clusters_is_sum_of_best_scores():
    cache = random_cache(6, seed=1)
    lp = EtaLP(cache).solve_lp()
    assert lp.status == "optimal"
    assert close(lp.value, float(cache.best_unconstrained().sum()))
    assert np.allclose(np.add.reduceat(lp.eta, cache.offsets[:-1]), 1.0)


def test_cluster_rows_match_shared_representation():
    cache = random_cache(7, seed=3)
    bits = all_clusters(7)[:40]
    model = EtaLP(cache, bits)
    lp = model.solve_lp()
    act = cluster_activity(cache, lp.eta, bits)
    assert np.all(act >= 1 - 1e-7)
    assert model.add_clusters(bits) == 0  # duplicates are ignored
    assert model.num_rows == cache.n + len(bits)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 6), seed=st.integers(0, 10_000), density=st.sampled_from([0.3, 0.6, 1.0]))
def test_exact_separation_reaches_p_cluster(n, seed, density):
    """The cut loop with the Bartlett–Cussens sub-IP equals the LP over ALL clusters (eq. 7)."""
    cache = random_cache(n, seed=seed, density=density)
    full = EtaLP(cache, all_clusters(n)).solve_lp().value
    res = cut_loop(EtaLP(cache), mode="clusters", exact=True)
    assert res.complete
    assert close(res.value, full), (res.value, full)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 5), seed=st.integers(0, 10_000))
def test_cycle_separation_reaches_p_cycle(n, seed):
    """Shortest-cycle separation equals the LP over ALL lifted cycle inequalities (eq. 5)."""
    cache = random_cache(n, seed=seed, density=0.7)
    model = EtaLP(cache)
    model.add_cycles(all_cycles(n))
    full = model.solve_lp().value
    res = cut_loop(EtaLP(cache), mode="cycles")
    assert res.complete
    assert close(res.value, full), (res.value, full)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 9), seed=st.integers(0, 10_000), grow=st.booleans())
def test_greedy_growth_finds_only_violated_clusters(n, seed, grow):
    """Greedy growth returns violated clusters only, and the loop with or without it
    reaches the same P_cluster value (the sub-IP finishes the job)."""
    cache = random_cache(n, seed=seed, density=0.8)
    rng = np.random.default_rng(seed)
    eta = rng.random(cache.m) ** 4
    eta /= np.bincount(cache.family, weights=eta, minlength=n)[cache.family]
    cuts = grown_clusters(cache, eta)
    if cuts:
        assert np.all(cluster_activity(cache, eta, np.array(cuts)) < 1 - 1e-6)
        assert all(len(bs.from_bitset(c)) >= 2 for c in cuts)
    res = cut_loop(EtaLP(cache), mode="clusters", exact=True, grow=grow)
    other = cut_loop(EtaLP(cache), mode="clusters", exact=True, grow=not grow)
    assert res.complete and other.complete and close(res.value, other.value)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(3, 6), seed=st.integers(0, 10_000))
def test_kcluster_rows_hold_for_every_optimal_dag(n, seed):
    """Σ_{i∈C} Σ_{|s∩C|<k} η_i(s) >= k for the optimal DAG, every cluster C and 1 <= k < |C|."""
    cache = random_cache(n, seed=seed, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    eta = np.zeros(cache.m)
    eta[[cache.candidate_index(i, p) for i, p in enumerate(dp.dag.parents)]] = 1.0
    clusters = all_clusters(n)
    for k in range(1, n):
        big = np.array([b for b in clusters if len(bs.from_bitset(b)) > k])
        if len(big) == 0:
            continue
        ptr, idx = cluster_rows_csr(cache, big, np.full(len(big), k))
        sums = np.add.reduceat(eta[idx], ptr[:-1]) if len(idx) else np.zeros(len(big))
        sums[np.diff(ptr) == 0] = 0.0
        assert np.all(sums >= k - 1e-9)
    bits, ks = separate_kclusters(cache, eta, clusters)
    assert len(bits) == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 7), seed=st.integers(0, 10_000))
def test_enumeration_and_sub_ip_agree(n, seed):
    """The subset enumeration and the HiGHS sub-IP separate the same thing: each finds a
    violated cluster exactly when the other does, at a random point η."""
    from lpbn.lp import exact_separation as separation
    cache = random_cache(n, seed=seed, density=0.9)
    rng = np.random.default_rng(seed)
    eta = rng.random(cache.m) ** 3
    eta /= np.bincount(cache.family, weights=eta, minlength=n)[cache.family]
    enum = exact_clusters(cache, eta)
    saved = separation.ENUM_MAX_VARIABLES
    separation.ENUM_MAX_VARIABLES = 0
    try:
        sub = exact_clusters(cache, eta)
    finally:
        separation.ENUM_MAX_VARIABLES = saved
    assert bool(enum) == bool(sub)
    full = all_clusters(n)
    act = cluster_activity(cache, eta, full)
    assert bool(enum) == bool(np.any(act < 1 - 1e-6))
    if enum:
        assert np.all(cluster_activity(cache, eta, np.array(enum)) < 1 - 1e-6)
        # the most violated cluster is found
        assert cluster_activity(cache, eta, np.array(enum)).min() <= act.min() + 1e-9


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 8), seed=st.integers(0, 10_000), k=st.integers(1, 3))
def test_grown_kclusters_are_violated(n, seed, k):
    """Greedy growth on the k-activity returns only violated k-cluster inequalities, and
    for k = 1 the same kind of clusters as grown_clusters."""
    cache = random_cache(n, seed=seed, density=0.8)
    rng = np.random.default_rng(seed)
    eta = rng.random(cache.m) ** 4
    eta /= np.bincount(cache.family, weights=eta, minlength=n)[cache.family]
    bits = grown_kclusters(cache, eta, k)
    for b in bits:
        assert len(bs.from_bitset(b)) > k
    if len(bits):
        ptr, idx = cluster_rows_csr(cache, bits, np.full(len(bits), k))
        sums = np.add.reduceat(eta[idx], ptr[:-1]) if len(idx) else np.zeros(len(bits))
        sums[np.diff(ptr) == 0] = 0.0
        assert np.all(sums < k - 1e-6)
    if k == 1:
        assert bool(len(bits)) == bool(grown_clusters(cache, eta))


def test_cycle_rows_are_eq5():
    cache = random_cache(5, seed=7, density=1.0)
    ptr, idx, rhs = cycle_rows_csr(cache, [(0, 1, 2)])
    assert rhs[0] == 2
    for j in idx:
        i = int(cache.family[j])
        pred = {1: 0, 2: 1, 0: 2}[i]
        assert pred in cache.parents(j)
    # every candidate with the predecessor is in the row
    want = [j for j in range(cache.m) if int(cache.family[j]) in (0, 1, 2)
            and {1: 0, 2: 1, 0: 2}[int(cache.family[j])] in cache.parents(j)]
    assert sorted(idx.tolist()) == want


def test_sub_ip_finds_violated_cluster_and_proves_none():
    # three variables that each prefer the other two as parents: a 3-cluster violation
    names = ["a", "b", "c"]
    fams = [[(-1.0, (1, 2)), (-10.0, ())], [(-1.0, (0, 2)), (-10.0, ())], [(-1.0, (0, 1)), (-10.0, ())]]
    cache = lpbn.ScoreCache.from_families(names, fams)
    eta = np.zeros(cache.m)
    eta[[cache.candidate_index(i, p) for i, p in [(0, (1, 2)), (1, (0, 2)), (2, (0, 1))]]] = 1.0
    cuts = exact_clusters(cache, eta)
    assert cuts and all(cluster_activity(cache, eta, np.array(cuts)) < 1 - 1e-6)
    eta2 = np.zeros(cache.m)
    eta2[[cache.candidate_index(i, ()) for i in range(3)]] = 1.0
    assert exact_clusters(cache, eta2) == []


def test_support_graph_helpers():
    cache = lpbn.ScoreCache.from_families(
        ["a", "b", "c"], [[(-1.0, (1,)), (-5.0, ())], [(-1.0, (0,)), (-5.0, ())], [(-1.0, ()), ]])
    choice = np.array([cache.candidate_index(0, (1,)), cache.candidate_index(1, (0,)),
                       cache.candidate_index(2, ())])
    eta = np.zeros(cache.m)
    eta[choice] = 1
    mu = edge_marginals(cache, eta)
    assert mu[1, 0] == 1 and mu[0, 1] == 1 and mu[:, 2].sum() == 0
    cyc = shortest_cycles(mu)
    assert [c for c, _ in cyc] == [[0, 1]]
    assert separate_cycles(cache, eta) == [[0, 1]]
    clusters = incumbent_clusters(cache, choice)
    assert [bs.from_bitset(b) for b in clusters] == [[0, 1]]
    assert choice_from_eta(cache, eta).tolist() == choice.tolist()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 100_000), p=st.sampled_from([0.02, 0.08, 0.2, 0.5]))
def test_scc_kernel_matches_scipy(n, seed, p):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    adj = np.random.default_rng(seed).random((n, n)) < p
    labels, k = scc_labels(adj)
    k2, labels2 = connected_components(csr_matrix(adj), directed=True, connection="strong")
    assert k == k2
    assert len(set(zip(labels.tolist(), labels2.tolist()))) == k   # the same partition


# ---------------------------------------------------------------------- method="highs"
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 9), seed=st.integers(0, 100_000), density=st.sampled_from([0.2, 0.5, 0.9]),
       integer=st.booleans())
def test_highs_equals_dp_on_random_caches(n, seed, density, integer):
    cache = random_cache(n, seed=seed, density=density, integer_scores=integer)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs")
    assert r.status == "optimal"
    assert close(r.score, dp.score), (r.score, dp.score)
    assert r.upper_bound >= dp.score - REL * abs(dp.score)
    assert r.dag.is_acyclic()
    assert close(cache.dag_score(r.dag.parents), r.score)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 10), seed=st.integers(0, 100_000), prune=st.booleans(), mip=st.booleans())
def test_highs_takes_the_dags_its_incumbent_feed_gives(n, seed, prune, mip):
    """incumbent_feed (a search beside the ILP): the optimum it gives first is the answer even
    when no MIP runs; the random DAGs after it (candidate indices of the cache as given, some of
    them dominated sets that pruning dropped) are refused or kept, never a crash."""
    cache = random_cache(n, seed=seed, density=0.5)
    dp = lpbn.solve(cache, method="dp")
    queue = [cache.indices_of(dp.dag.parents)] + random_dags(cache, np.random.default_rng(seed), 4)
    calls = []

    def feed():
        calls.append(1)
        return queue.pop(0) if queue else None

    r = lpbn.solve(cache, method="highs", prune=prune, incumbent_feed=feed, local_cuts=4,
                   max_mip_rounds=None if mip else 0)
    assert calls
    assert close(r.score, dp.score), (r.score, dp.score)
    assert r.upper_bound >= dp.score - REL * abs(dp.score)
    if mip:
        assert r.status == "optimal"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 6), seed=st.integers(0, 100_000), density=st.sampled_from([0.4, 0.8]),
       rounds=st.integers(0, 6), price=st.booleans(), kclusters=st.booleans())
def test_column_bounds_bound_every_dag_through_the_candidate(n, seed, density, rounds, price, kclusters):
    """EtaLP.column_bounds: at the duals of any LP of the cut loop (restricted by column
    generation or not) the Lagrangian value is at least the optimum (the LP value at an
    optimum), and each candidate's bound is at least the best DAG that takes it (the subset DP
    with that variable's parent set forced)."""
    cache = random_cache(n, seed=seed, density=density).prune_dominated()
    model = EtaLP(cache, price=price, columns=EtaLP.start_columns(cache, 1) if price else None)
    res = cut_loop(model, mode="clusters", max_rounds=rounds + 1, zero_half=True)
    if kclusters:                       # 2-cluster rows (valid for clusters of two or more)
        model.add_kclusters(all_clusters(cache.n)[-4:], np.full(4, 2))
    lp = model.solve_lp()
    assert lp.status == "optimal"
    value, bounds = model.column_bounds(lp.row_dual)
    assert close(value, lp.value), (value, lp.value, res.rounds)
    with mock.patch("lpbn.lp.model.use_numpy", return_value=True):   # the numba-free path
        twin = model.column_bounds(lp.row_dual)
    assert close(twin[0], value) and np.allclose(twin[1], bounds, rtol=1e-9, atol=1e-6)
    best = lpbn.solve(cache, method="dp").score
    assert value >= best - REL * abs(best)
    forced = best_through_each_candidate(cache)
    ok = np.isinf(forced) | (forced <= bounds + REL * np.maximum(1.0, np.abs(forced)))
    assert ok.all(), np.flatnonzero(~ok)


def test_fixing_by_reduced_cost_keeps_the_optimum(instances, known_optima):
    """Reduced-cost fixing before the MIP (on by default) fixes candidates on a cache whose
    root LP leaves a gap, and the MIP over the rest proves the known optimum."""
    for name in ("alarm1000.BIC.p3.jkl", "carpo500.BIC.p3.jkl"):
        path = f"anchors/gobnilp-bic3/{name}"
        cache = lpbn.read_scores(instances / path)
        on = lpbn.solve(cache, method="highs")
        off = lpbn.solve(cache, method="highs", fix_columns=False)
        assert on.status == off.status == "optimal"
        assert on.stats["fixed_by_reduced_cost"] > 0 and "fixed_by_reduced_cost" not in off.stats
        assert close(on.score, off.score, 1e-9)
        assert close(on.score, known_optima["gobnilp_bic3"][path]["optimum"])
        assert close(cache.dag_score(on.dag.parents), on.score) and on.upper_bound >= on.score


@pytest.mark.parametrize("lazy", [True, False])
def test_highs_without_root_cuts_uses_incumbent_cycles(lazy):
    cache = random_cache(8, seed=11, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs", root_cuts=False, prune=False, lazy=lazy,
                   acyclicity="lazy")
    assert r.status == "optimal" and close(r.score, dp.score)
    assert r.stats["cuts_incumbent"] > 0


@given(n=st.integers(2, 8), seed=st.integers(0, 100_000), density=st.sampled_from([0.5, 0.9]))
@settings(max_examples=25, deadline=None)
def test_generation_rows_alone_make_the_ilp_exact(n, seed, density):
    """Without any cluster row the MIP must still reject every cyclic point (one solve)."""
    cache = random_cache(n, seed=seed, density=density)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs", root_cuts=False, prune=False)
    assert r.status == "optimal" and close(r.score, dp.score)
    assert r.dag.is_acyclic() and r.stats["mip_rounds"] == 1 and r.stats["cuts_incumbent"] == 0


def test_unknown_option_is_an_input_error():
    with pytest.raises(lpbn.InputError):
        lpbn.solve(random_cache(4), method="highs", no_such_option=1)
    with pytest.raises(lpbn.InputError, match="bad HiGHS option"):
        lpbn.solve(random_cache(4), method="highs", highs_options={"no_such_highs_option": 1})
    with pytest.raises(lpbn.InputError, match="acyclicity"):
        lpbn.solve(random_cache(4), method="highs", acyclicity="sometimes")
    with pytest.raises(lpbn.InputError):
        lpbn.solve(random_cache(4), method="pulp-cbc", no_such_option=1)


def test_highs_time_limit_returns_valid_bound(instances, known_optima):
    path = instances / "anchors/gobnilp-bic3/carpo500.BIC.p3.jkl"
    opt = known_optima["gobnilp_bic3"]["anchors/gobnilp-bic3/carpo500.BIC.p3.jkl"]["optimum"]
    r = lpbn.solve(lpbn.read_scores(path), method="highs", time_limit=0.3)
    assert r.status in ("time_limit", "optimal")
    assert r.upper_bound >= opt - 1e-6 * abs(opt)
    assert r.dag is not None and r.dag.is_acyclic() and r.score <= opt + 1e-6 * abs(opt)
    r0 = lpbn.solve(lpbn.read_scores(path), method="highs", max_mip_rounds=0)
    assert r0.status in ("node_limit", "optimal") and r0.upper_bound >= opt - 1e-6 * abs(opt)


def test_highs_on_bundled_exact_optima(instances, known_optima):
    """Every bundled file with a DP optimum and n <= 14 (wine, asia, sachs, ...)."""
    items = [(k, v) for k, v in known_optima["exact_dp"].items() if v["n"] <= 14]
    assert len(items) > 50
    for rel, info in items:
        r = lpbn.solve(lpbn.read_scores(instances / rel), method="highs")
        assert r.status == "optimal", rel
        assert close(r.score, info["optimum"]), (rel, r.score, info["optimum"])


FAST_ANCHORS = ["iris", "wine", "voting", "hepatitis", "insurance1000", "water1000", "mildew1000",
                "barley1000", "hailfinder500", "alarm1000"]


@pytest.mark.parametrize("name", FAST_ANCHORS)
def test_highs_equals_gobnilp(name, instances, known_optima):
    key = f"anchors/gobnilp-bic3/{name}.BIC.p3.jkl"
    opt = known_optima["gobnilp_bic3"][key]["optimum"]
    r = lpbn.solve(lpbn.read_scores(instances / key), method="highs", time_limit=120)
    assert r.status == "optimal"
    assert close(r.score, opt), (r.score, opt)


# ---------------------------------------------------------------------- method="pulp-cbc"
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 8), seed=st.integers(0, 100_000))
def test_pulp_cbc_equals_dp(n, seed):
    cache = random_cache(n, seed=seed, density=0.6)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="pulp-cbc")
    assert r.status == "optimal" and close(r.score, dp.score)
    assert r.upper_bound >= dp.score - REL * abs(dp.score)


@pytest.mark.parametrize("acyclicity", ["generation", "lazy"])
def test_pulp_cbc_without_root_cuts(acyclicity):
    cache = random_cache(7, seed=5, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="pulp-cbc", root_cuts=False, acyclicity=acyclicity)
    assert r.status == "optimal" and close(r.score, dp.score)
    assert (r.stats["mip_rounds"] == 1) == (acyclicity == "generation") or acyclicity == "lazy"


def test_pulp_cbc_on_wine(instances, known_optima):
    rel = "alisterl__eBNSL/scores/wine.BIC.3"
    r = lpbn.solve(lpbn.read_scores(instances / rel), method="pulp-cbc")
    assert r.status == "optimal" and close(r.score, known_optima["exact_dp"][rel]["optimum"])


# ---------------------------------------------------------------------- export
@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_export_model_is_readable_and_carries_root_cuts(tmp_path, fmt, instances):
    import highspy
    from lpbn.highs.pulp_model import export_model
    cache = lpbn.read_scores(instances / "alisterl__eBNSL/scores/wine.BIC.3")
    out = tmp_path / f"wine.{fmt}"
    info = export_model(cache, out, fmt)
    assert info["clusters"] > 0 and out.exists()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(out))
    assert h.getNumCol() == cache.m + cache.n
    assert h.getNumRow() == cache.n + info["clusters"] + info["generation_rows"]
    h.run()
    opt = lpbn.solve(cache, method="dp").score
    assert close(h.getInfo().objective_function_value, opt, 1e-8)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exported_model_without_cuts_is_exact(tmp_path, seed):
    """Generation rows alone make the exported file an exact ILP for any MILP solver."""
    import highspy
    from lpbn.highs.pulp_model import export_model
    cache = random_cache(7, seed=seed, density=0.9)
    out = tmp_path / "m.mps"
    export_model(cache, out, "mps", root_cuts=False)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(out))
    h.run()
    assert close(h.getInfo().objective_function_value, lpbn.solve(cache, method="dp").score, 1e-8)


def test_export_bad_format(tmp_path):
    from lpbn.highs.pulp_model import export_model
    with pytest.raises(lpbn.InputError):
        export_model(random_cache(3), tmp_path / "x.txt", "txt")


# ---------------------------------------------------------------------- column generation
def _model_with_every_row_family(cache, columns=None):
    """An EtaLP with cluster, k-cluster, {0, 1/2}-cut and cycle rows, from a short cut loop."""
    from lpbn.lp.cut_loop import _add_zero_half, add_kclusters
    model = EtaLP(cache, columns=columns, price=columns is not None)
    cut_loop(model, mode="clusters", exact=False, max_rounds=30)
    eta = model.solve_lp().eta
    add_kclusters(model, eta, 3)
    _add_zero_half(model, eta, "slack")
    cycles = separate_cycles(cache, eta, 1e-6)
    model.add_cycles(cycles[:5] or [list(range(min(3, cache.n)))])
    return model


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 9), seed=st.integers(0, 100_000))
def test_reduced_costs_are_highs_column_duals(n, seed):
    """EtaLP.reduced_costs (every row family's entries rebuilt from the cache) = HiGHS's
    column duals on a model with every column."""
    cache = random_cache(n, seed=seed, density=0.9).prune_dominated()
    model = _model_with_every_row_family(cache)
    sol = model.solve_lp()
    assert sol.status == "optimal"
    col_dual = np.asarray(model.h.getSolution().col_dual)[:cache.m]
    assert np.allclose(model.reduced_costs(sol.row_dual), col_dual, atol=1e-7)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 9), seed=st.integers(0, 100_000), start=st.integers(1, 3))
def test_priced_restricted_lp_is_the_full_lp(n, seed, start):
    """A restricted model with pricing reaches the LP optimum over every column, whatever rows
    it carries (added while it was restricted), and its full_model() has the same LP."""
    cache = random_cache(n, seed=seed, density=0.9).prune_dominated()
    model = _model_with_every_row_family(cache, columns=EtaLP.start_columns(cache, start))
    sol = model.solve_lp()
    full = model.full_model()
    ref = full.solve_lp()
    assert sol.status == ref.status == "optimal"
    assert close(sol.value, ref.value, 1e-7), (sol.value, ref.value)
    assert full.num_cols == cache.m and len(full.cuts) == len(model.cuts)
    assert model.reduced_costs(sol.row_dual)[model.pos < 0].max(initial=-1.0) <= 1e-7 * (1 + abs(sol.value))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 9), seed=st.integers(0, 100_000), density=st.sampled_from([0.5, 0.9]))
def test_highs_with_column_generation_equals_dp(n, seed, density):
    cache = random_cache(n, seed=seed, density=density)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs", column_generation=True)
    assert r.status == "optimal" and close(r.score, dp.score), (r.score, dp.score)
    assert close(cache.dag_score(r.dag.parents), r.score)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 8), seed=st.integers(0, 100_000), density=st.sampled_from([0.5, 0.9]),
       max_pricing=st.sampled_from([0, 1]))
def test_cut_loop_that_separates_before_pricing_out_still_ends_at_p_cluster(n, seed, density, max_pricing):
    """solve_lp(max_pricing=k) on a restricted model: the columns that still price wait for
    the next solve, and the solution's bound is the Lagrangian bound of its duals (that of
    column_bounds, computed over every candidate); the cut loop separating at those points
    keeps a valid bound in every round and, run to the end, reaches the value of P_cluster."""
    cache = random_cache(n, seed=seed, density=density).prune_dominated()
    full = EtaLP(cache, all_clusters(n)).solve_lp().value
    best = lpbn.solve(cache, method="dp").score
    probe = EtaLP(cache, price=True, columns=EtaLP.start_columns(cache, 1))
    lp = probe.solve_lp(max_pricing=max_pricing)
    assert lp.status == "optimal"
    if lp.lagrangian is None:
        assert len(probe.pending) == 0
    else:
        assert len(probe.pending) and close(lp.lagrangian, probe.column_bounds(lp.row_dual)[0], 1e-7)
        assert lp.upper >= lp.value - 1e-7 * abs(lp.value)
    assert lp.upper >= best - REL * abs(best)
    model = EtaLP(cache, price=True, columns=EtaLP.start_columns(cache, 1))
    res = cut_loop(model, mode="clusters", exact=True, max_pricing=max_pricing)
    assert res.complete and close(res.value, full), (res.value, full)
    assert all(v >= full - REL * abs(full) for v in res.values)
    assert len(model.pending) == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 7), seed=st.integers(0, 100_000), price=st.booleans())
def test_purged_cluster_rows_leave_p_cluster_and_come_back(n, seed, price):
    """Deleting the (k-)cluster rows slack at every LP point (purge_clusters=1, one check)
    still ends the exact cut loop at P_cluster; the model's books follow its rows, and
    restore_purged puts every purged row back."""
    cache = random_cache(n, seed=seed, density=0.9).prune_dominated()
    full = EtaLP(cache, all_clusters(n)).solve_lp().value
    model = EtaLP(cache, price=price, columns=EtaLP.start_columns(cache, 2) if price else None)
    purged = []
    real = model.purge_clusters
    model.purge_clusters = lambda: purged.append(real(checks=1)) or purged[-1]
    model.add_kclusters(all_clusters(n)[:3], np.full(3, 2))
    res = cut_loop(model, mode="clusters", exact=True, purge_clusters=1)
    assert res.complete and close(res.value, full), (res.value, full)
    assert res.clusters_purged == sum(purged)
    kinds = np.array(model.row_kind)
    assert np.count_nonzero(kinds == "cluster") == len(model.clusters)
    assert np.count_nonzero(kinds == "kcluster") == len(model.kclusters) == sum(len(k) for k in model._ks)
    before = len(model.clusters) + len(model.kclusters)
    back = model.restore_purged()
    assert len(model.clusters) + len(model.kclusters) == before + back
    assert back <= res.clusters_purged
    assert close(model.solve_lp().value, full)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 9), seed=st.integers(0, 100_000))
def test_highs_purging_at_every_point_equals_dp(n, seed):
    """The ILP whose priced root purges slack cluster rows at every LP point (and restores
    them before the MIP) still proves the DP's optimum."""
    import lpbn.highs.ilp as ilp
    cache = random_cache(n, seed=seed, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    with mock.patch.object(ilp, "PURGE_CLUSTERS_EVERY", 1), mock.patch.object(ilp, "PURGE_CLUSTERS_MIN_DENSITY", 0):
        r = lpbn.solve(cache, method="highs", column_generation=True)
    assert r.stats["clusters_root_purged"] >= 0
    assert r.status == "optimal" and close(r.score, dp.score), (r.score, dp.score)
    assert close(cache.dag_score(r.dag.parents), r.score)


def test_highs_out_of_memory_in_the_mip_is_stated(monkeypatch):
    """HiGHS's memory-limit status in the MIP ends the solve as ``memory_limit`` with the best
    DAG and a valid bound so far (not as an interruption)."""
    from lpbn.lp.model import MIPSolution
    cache = random_cache(8, seed=5, density=0.9)
    monkeypatch.setattr(EtaLP, "solve_mip", lambda self, *a, **k: MIPSolution("memory_limit", float("inf"),
                                                                           float("-inf"), None))
    r = lpbn.solve(cache, method="highs", root_cuts=False)
    dp = lpbn.solve(cache, method="dp")
    assert r.status == "memory_limit" and "memory" in r.message
    assert r.score <= dp.score + 1e-9 <= r.upper_bound + 2e-9 and r.dag.is_acyclic()


def test_helper_instances_keep_a_models_thread_count():
    """``threads=2`` crashed the ILP ("HiGHS failed to solve the model") once the exact
    separation had made its sub-IP: a helper instance with the default one thread reset HiGHS's
    process scheduler under the model's two-thread instance.  Helpers now take the thread count
    of the last instance made."""
    from lpbn.lp.highs_session import new_highs
    cache = random_cache(14, seed=4, density=0.5)
    model = EtaLP(cache, threads=2)
    assert model.solve_lp().status == "optimal"
    helper = new_highs()                    # what the sub-IP and the option probe make
    assert helper.getOptionValue("threads")[1] == 2
    helper.run()
    res = cut_loop(model, mode="clusters", exact=True)
    assert res.status == "optimal"
    assert res.value == pytest.approx(cut_loop(EtaLP(cache), mode="clusters", exact=True).value, rel=1e-9)
    assert new_highs().getOptionValue("threads")[1] == 1     # an explicit count still applies


@pytest.mark.parametrize("acyclicity", ["generation", "lazy"])
def test_a_mip_answer_highs_contradicts_is_solved_again_without_presolve(acyclicity):
    """EtaLP.solve_mip: when HiGHS reports an optimal MIP whose objective is not that of its
    own point (HiGHS 1.16's presolve with a start solution did so on hailfinder at N = 20,000),
    the MIP is solved again without presolve; the answer is the optimum all the same."""
    cache = random_cache(8, seed=11, density=0.8)
    dp = lpbn.solve(cache, method="dp")
    real_check, real_run = EtaLP._mip_objective_consistent, EtaLP._run_mip
    seen, checks = [], []

    def run(self, *args):
        seen.append(self.h.getOptionValue("presolve")[1])
        return real_run(self, *args)

    def first_one_wrong(self, rtol=1e-7):
        checks.append(1)
        return real_check(self, rtol) and len(checks) > 1

    with mock.patch.object(EtaLP, "_mip_objective_consistent", first_one_wrong), \
            mock.patch.object(EtaLP, "_run_mip", run):
        r = lpbn.solve(cache, method="highs", acyclicity=acyclicity, root_cuts=False)
    assert seen[:2] == ["choose", "off"]
    assert r.status == "optimal" and close(r.score, dp.score)
    assert r.stats["mip_presolve_retries"] >= 1


def test_an_answer_highs_contradicts_twice_is_not_called_optimal():
    """Without presolve too: the ILP stops with the best DAG and bound so far, never 'optimal'
    on HiGHS's word alone."""
    cache = random_cache(8, seed=11, density=0.8)
    dp = lpbn.solve(cache, method="dp")
    with mock.patch.object(EtaLP, "_mip_objective_consistent", lambda self, rtol=1e-7: False):
        r = lpbn.solve(cache, method="highs", root_cuts=False)
    assert r.status == "error" and "objective" in r.message   # a solver fault (issue 54)
    assert r.upper_bound >= dp.score - REL * abs(dp.score) and r.score <= dp.score + REL * abs(dp.score)


def test_a_mip_stopped_within_a_users_gap_is_not_called_optimal():
    """highs_options={"mip_rel_gap": ...}: HiGHS calls its MIP optimal within that gap; lpbn
    reports gap_limit unless the bound meets the DAG within its own tolerance."""
    cache = random_cache(10, seed=5, density=0.8)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs", root_cuts=False, highs_options={"mip_rel_gap": 0.5})
    assert r.status in ("optimal", "gap_limit")
    if r.status == "optimal":
        assert close(r.score, dp.score) and close(r.upper_bound, r.score)
    else:
        assert r.upper_bound > r.score and r.upper_bound >= dp.score - REL * abs(dp.score)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 8), seed=st.integers(0, 100_000), density=st.sampled_from([0.5, 0.9]),
       rounds=st.integers(1, 4))
def test_support_mip_offers_the_best_dag_over_the_lp_support(n, seed, density, rounds):
    """_support_mip: the incumbent becomes the optimum over the candidates in the LP point's
    support and the incumbent's own (the DP over that sub-cache), never worse than before."""
    from lpbn.control import SolveControl
    from lpbn.highs.ilp import _support_mip
    from lpbn.incumbent import Incumbent
    cache = random_cache(n, seed=seed, density=density).prune_dominated()
    model = EtaLP(cache)
    cut_loop(model, mode="clusters", max_rounds=rounds)
    lp = model.solve_lp()
    incumbent = Incumbent(cache, check_acyclic=True)
    incumbent.offer(cache.best_for_order(np.arange(n))[0])
    before, stats = incumbent.score, {}
    _support_mip(cache, SolveControl(time_limit=60), lp.eta, incumbent, stats)
    keep = lp.eta > 1e-9
    keep[cache.best_for_order(np.arange(n))[0]] = True
    sub_best = lpbn.solve(cache.select(keep), method="dp").score
    assert stats["support_mip_status"] == "optimal" and stats["support_mip_columns"] == keep.sum()
    assert incumbent.score >= before and close(incumbent.score, max(before, sub_best))
    assert keep[incumbent.choice].all()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 9), seed=st.integers(0, 100_000), density=st.sampled_from([0.5, 0.9]))
def test_highs_with_slack_cuts_equals_dp(n, seed, density):
    """zero_half="slack" (the default beyond 40 variables: cuts purged as the root goes, the
    sub-ILP over the root's support, the root-order climb) proves the DP's optimum."""
    cache = random_cache(n, seed=seed, density=density)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs", zero_half="slack")
    assert r.status == "optimal" and close(r.score, dp.score), (r.score, dp.score)
    assert r.dag.is_acyclic() and close(cache.dag_score(r.dag.parents), r.score)


def test_support_mip_runs_with_slack_cuts_and_keeps_the_optimum(instances, known_optima):
    """With zero_half="slack" (the default beyond 40 variables) the sub-ILP runs before the
    MIP; with or without it the ILP proves the known optimum."""
    path = "anchors/gobnilp-bic3/alarm1000.BIC.p3.jkl"
    cache = lpbn.read_scores(instances / path)
    on = lpbn.solve(cache, method="highs", zero_half="slack")
    off = lpbn.solve(cache, method="highs", zero_half="slack", support_mip=False)
    assert on.status == off.status == "optimal" and close(on.score, off.score, 1e-9)
    assert close(on.score, known_optima["gobnilp_bic3"][path]["optimum"])
    assert on.stats["support_mip_columns"] > 0 and "support_mip_columns" not in off.stats


def test_start_dag_is_the_first_incumbent():
    """``start``: a DAG (or parents per variable) whose parent sets are candidates is the
    first incumbent (a MIP with no time left returns it); one that is not is ignored."""
    cache = random_cache(7, seed=5, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    r = lpbn.solve(cache, method="highs", start=dp.dag, root_cuts=False, max_mip_rounds=0)
    assert r.status == "node_limit" and close(r.score, dp.score)
    r = lpbn.solve(cache, method="highs", start=list(dp.dag.parents), root_cuts=False, max_mip_rounds=0)
    assert close(r.score, dp.score)
    bad = [tuple(range(7)) for _ in range(7)]          # not candidates: ignored
    r = lpbn.solve(cache, method="highs", start=bad, root_cuts=False, max_mip_rounds=0)
    assert r.score <= dp.score and r.dag.is_acyclic()
    assert lpbn.solve(cache, method="highs", start=bad[:3]).status == "optimal"   # wrong length: ignored
