"""Pricing against the data (lpbn.pricing): the exact maximum of the reduced score over every
parent set within K, and the bound over every DAG within K that column generation proves."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lpbn import bitsets as bs
from lpbn.cache import ScoreCache
from lpbn.lp.model import EtaLP
from lpbn.pricing import TOLERANCE, ClusterLP, Duals, cache_maxima, column_generation, enlarged, price
from lpbn.scoring import read_data, score_data
from lpbn.scoring import hillclimb_kernels as HK
from lpbn.scoring.hillclimb import Climber, to_units
from lpbn.scoring.scores import kind_of
from lpbn.solve import solve
from lpbn.synthetic import random_cache


def _data(seed: int, n: int, N: int) -> np.ndarray:
    """Random discrete data with some structure (a noisy XOR and copies) so that large parent
    sets matter."""
    rng = np.random.default_rng(seed)
    ar = rng.integers(2, 4, size=n)
    X = np.stack([rng.integers(0, a, size=N) for a in ar], axis=1)
    if n >= 3:
        X[:, 2] = ((X[:, 0] + X[:, 1]) % ar[2]) * (rng.random(N) > 0.1) + X[:, 2] * (rng.random(N) <= 0.1)
        X[:, 2] %= ar[2]
    if n >= 5:
        X[:, 4] = np.where(rng.random(N) < 0.8, X[:, 3] % ar[4], X[:, 4])
    return X


def _brute(ds, score: str, duals: Duals, K: int) -> list[float]:
    """Max over every |S| <= K of s(i, S) + Σ_{C ∋ i} λ_C [|S ∩ C| < k_C], by enumeration."""
    cl = Climber(ds, kind_of(score), 1.0, None, 1)
    members = [set(bs.from_bitset(row)) for row in duals.bits]
    out = []
    for x in range(ds.n):
        others = [v for v in range(ds.n) if v != x]
        best = -math.inf
        for k in range(K + 1):
            for S in itertools.combinations(others, k):
                s = to_units(cl.kind, HK.family_score(cl.cols, cl.ar, x, np.array(S, dtype=np.int64), cl.kind, cl.ess,
                                                      cl.lgt, cl.limit, cl.cnt, cl.pac, cl.mapbuf, *cl.scr[:2]))
                b = sum(lam for C, k_, lam in zip(members, duals.k, duals.lam)
                        if x in C and len(C & set(S)) < k_)
                b -= sum(mu * _cut_coef(d, x, S) for d, mu in zip(duals.cuts, duals.mu))
                best = max(best, s + b)
        out.append(best)
    return out


def _cut_coef(d, x: int, S) -> int:
    """A {0, 1/2}-cut's a(x, S) by its definition (lpbn.lp.zero_half.Derivation)."""
    missed = sum(1 for row in d.clusters if x in bs.from_bitset(row) and not set(bs.from_bitset(row)) & set(S))
    return math.floor(((x in d.conv.tolist()) - missed) / 2)


def _with_cuts(rng, duals: Duals, n: int, count: int) -> Duals:
    """``duals`` with ``count`` random rank-one cut derivations (any combination: pricing's
    maximum does not need the cut to be valid) and multipliers."""
    from lpbn.lp.zero_half import Derivation
    cuts = []
    for _ in range(count):
        conv = np.flatnonzero(rng.random(n) < 0.5).astype(np.int64)
        rows = [bs.to_bitset(sorted(rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False).tolist()), n)
                for _ in range(int(rng.integers(0, 4)))]
        W = (n + 63) // 64
        cuts.append(Derivation(conv, np.array(rows, dtype=np.uint64).reshape(len(rows), W), float(rng.integers(-3, 2))))
    return Duals(duals.bits, duals.k, duals.lam, cuts, rng.uniform(0, 20, size=count))


def _random_duals(rng, n: int, count: int) -> Duals:
    rows, ks, lams = [], [], []
    seen = set()
    for _ in range(count):
        size = int(rng.integers(2, n + 1))
        members = tuple(sorted(rng.choice(n, size=size, replace=False).tolist()))
        k = int(rng.integers(1, size))
        if (members, k) in seen:
            continue
        seen.add((members, k))
        rows.append(bs.to_bitset(list(members), n))
        ks.append(k)
        lams.append(float(rng.uniform(0, 30)))
    W = (n + 63) // 64
    bits = np.array(rows, dtype=np.uint64).reshape(len(rows), W)
    return Duals(bits, np.array(ks, dtype=np.int64), np.array(lams))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), K=st.integers(0, 3),
       score=st.sampled_from(["bic", "bdeu", "mdl", "aic"]), clusters=st.integers(0, 6), cuts=st.integers(0, 3))
def test_pricing_max_equals_brute_force(seed, n, K, score, clusters, cuts):
    """With an empty-set cache (nothing to beat) and one set kept per variable, pricing's
    maximum per variable is the brute-force maximum of the reduced score over |S| <= K
    ({0, 1/2}-cuts' terms included)."""
    rng = np.random.default_rng(seed)
    ds = read_data(_data(seed, n, int(rng.integers(20, 200))))
    cache = score_data(ds, score=score, max_parents=0, explore="exhaustive")
    duals = _with_cuts(rng, _random_duals(rng, n, clusters), n, cuts)
    pr = price(ds, cache, duals, K)
    assert pr.finished and pr.bound is not None
    want = _brute(ds, score, duals, K)
    for x in range(n):
        assert pr.best[x] == pytest.approx(want[x], rel=2 * TOLERANCE, abs=1e-9)
    assert pr.bound == pytest.approx(math.fsum(want) - duals.constant(), rel=1e-8, abs=1e-8)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(3, 7), K=st.integers(1, 3),
       score=st.sampled_from(["bic", "bdeu"]), binary=st.booleans())
def test_column_generation_bound_covers_every_dag_within_K(seed, n, K, score, binary):
    """From a cache of single-parent sets, column generation ends with scope parent_limit:K and
    a bound at least the true optimum over every DAG within K (exact DP on the exhaustive
    K-cache), and the sets it added are scored as the data score them (binary data are
    priced by enumeration, the others by branch and bound; the LP has {0, 1/2}-cuts)."""
    rng = np.random.default_rng(seed)
    ds = read_data((_binary if binary else _data)(seed, n, int(rng.integers(50, 300))))
    start = score_data(ds, score=score, max_parents=min(1, K), explore="exhaustive")
    full = score_data(ds, score=score, max_parents=K, explore="exhaustive")
    opt = solve(full, "dp")
    assert opt.status == "optimal"
    cg = column_generation(ds, start, K)
    assert cg.scope == f"parent_limit:{min(K, n - 1)}"
    assert cg.converged
    assert cg.bound >= opt.score - 1e-9 * abs(opt.score)
    for i in range(n):
        for c in cg.cache.family_range(i):
            ps = cg.cache.parents(c)
            assert len(ps) <= K
            assert cg.cache.scores[c] == pytest.approx(_score(ds, score, i, ps), rel=1e-12)


def _score(ds, score, i, ps):
    cl = Climber(ds, kind_of(score), 1.0, None, 1)
    return to_units(cl.kind, HK.family_score(cl.cols, cl.ar, i, np.array(ps, dtype=np.int64), cl.kind, cl.ess, cl.lgt,
                                             cl.limit, cl.cnt, cl.pac, cl.mapbuf, *cl.scr[:2]))


def test_a_planted_set_prices_out():
    """Variable 2 is a noisy XOR of 0 and 1: from a cache of single-parent sets, {0, 1} prices
    out for it (λ = 0), scored as the data score it."""
    rng = np.random.default_rng(7)
    N = 500
    X = rng.integers(0, 2, size=(N, 4))
    X[:, 2] = (X[:, 0] ^ X[:, 1]) ^ (rng.random(N) < 0.05)
    ds = read_data(X)
    cache = score_data(ds, score="bic", max_parents=1, explore="exhaustive")
    pr = price(ds, cache, None, 2)
    assert pr.finished
    assert (2, (0, 1)) in pr.families
    assert pr.families[(2, (0, 1))] == pytest.approx(_score(ds, "bic", 2, (0, 1)), rel=1e-12)
    assert pr.best[2] > pr.cache_max[2]


def test_pricing_that_does_not_finish_claims_nothing():
    ds = read_data(_data(3, 6, 200))
    cache = score_data(ds, score="bic", max_parents=1, explore="exhaustive")
    pr = price(ds, cache, None, 3, time_limit=0.0)
    assert not pr.finished and pr.bound is None
    cg = column_generation(ds, cache, 3, time_limit=0.0)
    assert cg.bound is None and cg.scope == "cache" and cg.message == "pricing did not finish"


def test_learn_with_price_states_the_wider_scope():
    """learn(price=K) on the search path: the bound holds over every DAG within K (checked
    against the exact optimum), and the certificate says so."""
    import lpbn
    X = _data(11, 6, 300)
    res = lpbn.learn(X, explore="search", time_limit=30, price=2)
    opt = solve(score_data(X, max_parents=2, explore="exhaustive"), "dp")
    assert res.bound_scope == "parent_limit:2"
    assert res.pricing["finished"] and res.upper_bound >= opt.score - 1e-9 * abs(opt.score)
    assert res.score <= opt.score + 1e-9 * abs(opt.score)
    assert all(len(p) <= 2 for p in res.dag.parents)
    cert = res.certificate()
    assert cert["bound_scope"] == "parent_limit:2" and "at most 2 parents" in cert["optimal_over"]
    assert cert["pricing"]["cache_upper_bound"] <= res.upper_bound + 1e-9 * abs(res.upper_bound)


def test_learn_with_price_solves_the_enlarged_cache(monkeypatch):
    """On the search path, learn(price=K) prices first and then solves once, over the cache
    with the sets that priced out: the network may use them."""
    import sys
    import lpbn
    learn_module, solve_module = sys.modules["lpbn.learn"], sys.modules["lpbn.solve"]   # (the names are functions)
    events = []
    real_solve, real_pricing = solve_module.solve, learn_module.run_pricing

    def solve_spy(cache, method="auto", **kw):
        events.append(("solve", cache.m))
        return real_solve(cache, method, **kw)

    def pricing_spy(cache, *args, **kw):
        events.append(("price", cache.m))
        return real_pricing(cache, *args, **kw)
    monkeypatch.setattr(solve_module, "solve", solve_spy)
    monkeypatch.setattr(learn_module, "run_pricing", pricing_spy)
    res = lpbn.learn(_data(11, 6, 300), explore="search", time_limit=30, price=2)
    kinds = [e[0] for e in events]
    assert kinds.count("price") == 1
    after = events[kinds.index("price") + 1:]      # ``auto`` calls solve again for its method
    assert after and all(e == ("solve", res.cache.prune_dominated().m) for e in after), events
    assert res.pricing["finished"]


def test_learn_price_refuses_a_looser_parent_limit():
    import lpbn
    from lpbn.errors import InputError
    with pytest.raises(InputError, match="max_parents=3"):
        lpbn.learn(_data(1, 4, 50), price=2, max_parents=3)
    with pytest.raises(InputError, match="K >= 0"):
        lpbn.learn(_data(1, 4, 50), price=-1)


def test_cli_learn_price(tmp_path):
    import json
    from lpbn.cli import main
    data = tmp_path / "d.csv"
    np.savetxt(data, _data(5, 5, 200), fmt="%d", delimiter=",",
               header=",".join(f"v{i}" for i in range(5)), comments="")
    out = tmp_path / "net.json"
    assert main(["learn", str(data), "--price", "2", "--time-limit", "20", "-o", str(out), "--quiet"]) == 0
    cert = json.loads(out.read_text())["certificate"]
    assert cert["bound_scope"] == "parent_limit:2"


def test_pricing_covers_the_empty_set_a_cache_lacks():
    """A cache that holds only {1} for variable 0 (independent data): within K = 0 and K = 1
    the empty set beats it, and pricing finds it."""
    from lpbn.cache import ScoreCache
    rng = np.random.default_rng(2)
    ds = read_data(rng.integers(0, 2, size=(300, 2)))
    s01 = _score(ds, "bic", 0, (1,))
    cache = ScoreCache.from_families(ds.names, [[(s01, (1,))], [(_score(ds, "bic", 1, ()), ())]],
                                     meta={"score": "bic"})
    for K in (0, 1):
        pr = price(ds, cache, None, K)
        assert (0, ()) in pr.families and pr.best[0] == pytest.approx(_score(ds, "bic", 0, ()), rel=1e-12)


def test_leaves_on_bit_planes_score_as_the_rows_do():
    """Binary data with enough rows, in the branch and bound (which binary data take beyond
    K = 4): the K-parent sets are counted on bit planes, and the maxima still equal brute
    force (BIC and BDeu)."""
    from lpbn import pricing as P
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(2000, 6))
    X[:, 5] = (X[:, 0] ^ X[:, 1] ^ X[:, 2]) ^ (rng.random(2000) < 0.1)
    ds = read_data(X)
    duals = _random_duals(rng, 6, 4)
    for score in ("bic", "bdeu"):
        cache = score_data(ds, score=score, max_parents=0, explore="exhaustive")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(P.PI, "applicable", lambda ds, K: False)
            pr = price(ds, cache, duals, 3)
        assert pr.stats["on_planes"] > 0
        want = _brute(ds, score, duals, 3)
        for x in range(6):
            assert pr.best[x] == pytest.approx(want[x], rel=2 * TOLERANCE, abs=1e-9)


def _binary(seed: int, n: int, N: int) -> np.ndarray:
    """Binary data with a noisy XOR, a copy, a constant column and skewed columns (the
    co-occurrence enumeration's indicator state is each column's rarer state)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((N, n)) < rng.uniform(0.05, 0.95, size=n)).astype(np.int64)
    if n >= 3:
        X[:, 2] = (X[:, 0] ^ X[:, 1]) ^ (rng.random(N) < 0.1)
    if n >= 5:
        X[:, 4] = np.where(rng.random(N) < 0.8, X[:, 3], X[:, 4])
    if n >= 6:
        X[:, 5] = 1
    return X


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(seed=1, n=7, K=4, score="bic", clusters=5)
@example(seed=2, n=6, K=4, score="bdeu", clusters=3)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 7), K=st.integers(1, 4),
       score=st.sampled_from(["bic", "bdeu", "mdl", "aic"]), clusters=st.integers(0, 6))
def test_binary_enumeration_equals_brute_force_and_branch_and_bound(seed, n, K, score, clusters):
    """Binary data take the co-occurrence enumeration (lpbn.pricing_itemsets): its maximum per
    variable is the brute force's, its bound the branch and bound's (1e-12 relative) and the
    scores of the sets both price out equal to the last bit."""
    from lpbn import pricing as P
    rng = np.random.default_rng(seed)
    ds = read_data(_binary(seed, n, int(rng.integers(20, 300))))
    cache = score_data(ds, score=score, max_parents=0, explore="exhaustive")
    duals = _random_duals(rng, n, clusters)
    assert P.PI.applicable(ds, K)
    fast = price(ds, cache, duals, K, per_variable=2)
    assert fast.finished and fast.stats["itemsets"]
    want = _brute(ds, score, duals, K)
    for x in range(n):
        assert fast.best[x] == pytest.approx(want[x], rel=2 * TOLERANCE, abs=1e-9)
    for (x, ps), s in fast.families.items():
        assert len(ps) <= K and x not in ps
        assert s == pytest.approx(_score(ds, score, x, ps), rel=1e-12)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P.PI, "applicable", lambda ds, K: False)
        slow = price(ds, cache, duals, K, per_variable=2)
    assert "itemsets" not in slow.stats
    assert fast.bound == pytest.approx(slow.bound, rel=1e-12, abs=1e-9)
    for key in set(fast.families) & set(slow.families):
        assert fast.families[key] == slow.families[key]       # the same fixed-point sums


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(seed=3, n=7, K=4, score="bic")
@given(seed=st.integers(0, 10_000), n=st.integers(2, 7), K=st.integers(1, 4),
       score=st.sampled_from(["bic", "bdeu", "mdl"]))
def test_store_scan_equals_enumeration(seed, n, K, score):
    """A pass that scans the family store of an earlier pass (other duals, same tables)
    proves what a fresh enumeration proves: the same maxima, bound and sets, to the bit."""
    from lpbn import pricing as P
    rng = np.random.default_rng(seed)
    ds = read_data(_binary(seed, n, int(rng.integers(20, 300))))
    cache = score_data(ds, score=score, max_parents=0, explore="exhaustive")
    its = P.PI.prepare(ds, K)
    first = price(ds, cache, _random_duals(rng, n, 4), K, per_variable=3, itemsets=its)
    assert first.finished and not first.stats["stored"] and its.store is not None
    x, k, parents, stored = its.store.families()
    held = {(int(x[i]), tuple(sorted(int(v) for v in parents[i, :k[i]]))): stored[i] for i in range(len(x))}
    assert len(held) == its.store.m == len(x)
    cl = Climber(ds, kind_of(score), 1.0, None, 1)

    def s(i, ps):
        return to_units(cl.kind, HK.family_score(cl.cols, cl.ar, i, np.array(ps, dtype=np.int64), cl.kind, cl.ess,
                                                 cl.lgt, cl.limit, cl.cnt, cl.pac, cl.mapbuf, *cl.scr[:2]))
    for i in range(n):                # held: exactly the families neither ∅ nor a smaller one beats
        others = [v for v in range(n) if v != i]
        for size in range(1, K + 1):
            for ps in itertools.combinations(others, size):
                own = s(i, ps)
                beaten = own <= its.store.floor[i] or any(s(i, tuple(q for q in ps if q != p)) >= own for p in ps)
                assert ((i, ps) in held) != beaten
                if not beaten:
                    assert held[(i, ps)] == pytest.approx(own, rel=1e-12)
    duals = _random_duals(rng, n, 6)
    scan = price(ds, cache, duals, K, per_variable=3, itemsets=its)
    fresh = price(ds, cache, duals, K, per_variable=3)
    assert scan.stats["stored"] and not fresh.stats["stored"]
    assert scan.bound == fresh.bound and np.array_equal(scan.best, fresh.best)
    assert scan.families == fresh.families
    want = _brute(ds, score, duals, K)
    for x in range(n):
        assert scan.best[x] == pytest.approx(want[x], rel=2 * TOLERANCE, abs=1e-9)


def test_store_that_does_not_cover_the_thresholds_is_not_scanned():
    """Thresholds below ``floor + maxbonus`` (a cache without the empty sets could give them)
    make the pass enumerate again."""
    from lpbn import pricing_itemsets as PI
    ds = read_data(_binary(5, 6, 200))
    its = PI.prepare(ds, 3)
    duals = _random_duals(np.random.default_rng(5), 6, 3)
    kind = kind_of("bic")
    high = np.full(6, 1e9)
    assert PI.run(its, 3, kind, 1.0, high, duals, 2, math.inf)[4] is False and its.store is not None
    assert PI.run(its, 3, kind, 1.0, its.store.floor + 1e6, duals, 2, math.inf)[4] is True
    low = np.full(6, -1e9)
    finished, top, found, counted, scanned = PI.run(its, 3, kind, 1.0, low, duals, 2, math.inf)
    assert finished and not scanned and counted == sum(6 * math.comb(5, k) for k in range(4))
    assert all(len(ps) <= 3 for _, ps, _ in found)


def test_binary_enumeration_that_does_not_finish_claims_nothing():
    ds = read_data(_binary(4, 7, 200))
    cache = score_data(ds, score="bic", max_parents=1, explore="exhaustive")
    pr = price(ds, cache, None, 4, time_limit=0.0)
    assert pr.stats["itemsets"] and not pr.finished and pr.bound is None


def test_binary_enumeration_only_where_its_tables_fit():
    """The count tables grow as n^4 at K = 4: beyond MAX_TABLE_BYTES pricing takes the branch
    and bound (nips, 500 variables: 41 GB of tables at K = 4, 250 MB at K = 2)."""
    from types import SimpleNamespace

    from lpbn import pricing_itemsets as PI
    big = SimpleNamespace(n=500, arities=np.full(500, 2))
    assert PI.table_bytes(500, 4) > PI.MAX_TABLE_BYTES and not PI.applicable(big, 4)
    assert PI.applicable(big, 2)
    assert PI.applicable(SimpleNamespace(n=126, arities=np.full(126, 2)), 4)
    assert not PI.applicable(SimpleNamespace(n=5, arities=np.array([2, 3, 2, 2, 2])), 2)


def _split(cache, rng):
    """``cache`` without a random third of its non-empty sets (the part column generation has
    not found yet), and those sets as ``(i, parents) -> score``."""
    out = {}
    keep = []
    for j in range(cache.m):
        ps = cache.parents(j)
        if ps and rng.random() < 1 / 3:
            out[(int(cache.family[j]), ps)] = float(cache.scores[j])
        else:
            keep.append((int(cache.family[j]), float(cache.scores[j]), ps))
    fams = [[(s, ps) for i, s, ps in keep if i == v] for v in range(cache.n)]
    return ScoreCache.from_families(cache.names, fams), out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(3, 7))
def test_cluster_lp_grows_with_the_cache_as_a_fresh_one_would(seed, n):
    """ClusterLP goes on over an enlarged cache to the value a model built over that cache with
    the same rows has; its λ give eq. 8's bound over the cache at that value (the columns have
    no upper bound, so the cluster duals carry it all), and that bound holds for the optimum
    (DP)."""
    rng = np.random.default_rng(seed)
    full = random_cache(n, seed=seed, max_parents=min(3, n - 1), density=0.6)
    part, rest = _split(full, rng)
    lp = ClusterLP(part)
    lp.run(None)
    big = enlarged(part, rest)
    assert big.m == full.m
    res = lp.grow(big).run(None)
    assert res.complete
    opt = solve(big, "dp").score
    assert res.value >= opt - 1e-9 * (1 + abs(opt))
    fresh = EtaLP(big, column_upper=math.inf)
    bits, ks = res.duals.bits, res.duals.k
    fresh.add_clusters(bits[ks == 1])
    fresh.add_kclusters(bits[ks > 1], ks[ks > 1])
    sol = fresh.solve_lp()
    assert sol.value == pytest.approx(res.value, rel=1e-9, abs=1e-7)
    eq8 = math.fsum(cache_maxima(big, res.duals).tolist()) - res.duals.constant()
    assert eq8 == pytest.approx(res.value, rel=1e-7, abs=1e-6)
    assert eq8 >= opt - 1e-9 * (1 + abs(opt))



@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(seed=5, n=7, K=4, score="bic", cuts=4)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 7), K=st.integers(1, 4),
       score=st.sampled_from(["bic", "bdeu", "mdl"]), cuts=st.integers(1, 5))
def test_priced_cuts_equal_brute_force(seed, n, K, score, cuts):
    """With {0, 1/2}-cuts among the duals, the enumeration (fresh and from the store) gives
    every variable the brute-force maximum of s + cluster bonus - Σ μ a(x, S) over |S| <= K,
    and eq. 8's bound with the cuts' constant; so does the branch and bound path."""
    from lpbn import pricing as P
    rng = np.random.default_rng(seed)
    ds = read_data(_binary(seed, n, int(rng.integers(20, 300))))
    cache = score_data(ds, score=score, max_parents=0, explore="exhaustive")
    duals = _with_cuts(rng, _random_duals(rng, n, 3), n, cuts)
    its = P.PI.prepare(ds, K)
    fresh = price(ds, cache, duals, K, per_variable=2, itemsets=its)
    scan = price(ds, cache, duals, K, per_variable=2, itemsets=its)
    assert fresh.finished and scan.finished and scan.stats["stored"] in (True, False)
    want = _brute(ds, score, duals, K)
    for pr in (fresh, scan):
        for x in range(n):
            assert pr.best[x] == pytest.approx(want[x], rel=2 * TOLERANCE, abs=1e-9)
        assert pr.bound == pytest.approx(math.fsum(want) - duals.constant(), rel=1e-8, abs=1e-8)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P.PI, "applicable", lambda ds, K: False)
        slow = price(ds, cache, duals, K)
    assert slow.bound == pytest.approx(fresh.bound, rel=1e-12, abs=1e-9)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(4, 7))
def test_cluster_lp_with_cuts_prices_its_whole_value(seed, n):
    """ClusterLP with {0, 1/2}-cuts: eq. 8 with the cuts' terms at the duals it reads equals
    its LP value over the cache (so μ has the right sign and the derivations reproduce the
    rows), holds for the optimum (DP), and the model grown over a larger cache keeps them."""
    rng = np.random.default_rng(seed)
    full = random_cache(n, seed=seed, max_parents=min(3, n - 1), density=0.6)
    part, rest = _split(full, rng)
    lp = ClusterLP(part, cuts=True)
    first = lp.run(None)
    eq8 = math.fsum(cache_maxima(part, first.duals).tolist()) - first.duals.constant()
    assert eq8 == pytest.approx(first.value, rel=1e-7, abs=1e-6)
    big = enlarged(part, rest)
    res = lp.grow(big).run(None)
    opt = solve(big, "dp").score
    eq8 = math.fsum(cache_maxima(big, res.duals).tolist()) - res.duals.constant()
    assert eq8 == pytest.approx(res.value, rel=1e-7, abs=1e-6)
    assert eq8 >= opt - 1e-9 * (1 + abs(opt))


def test_cuts_close_the_half_integral_triangle():
    """Three variables that each score best with the other two as parents: the cluster LP's
    optimum is half-integral, a {0, 1/2}-cut removes it, and eq. 8 with the cut's μ at the
    duals ClusterLP reads is the LP's value (below the clusters-only one, at least the DP
    optimum)."""
    fams = [[(0.0, ()), (1.0, ((i + 1) % 3,)), (1.0, ((i + 2) % 3,)), (3.0, ((i + 1) % 3, (i + 2) % 3))]
            for i in range(3)]
    cache = ScoreCache.from_families(["a", "b", "c"], fams)
    opt = solve(cache, "dp").score
    plain = ClusterLP(cache).run(None)
    cut = ClusterLP(cache, cuts=True).run(None)
    assert len(cut.duals.cuts) >= 1 and np.all(cut.duals.mu > 0)
    assert opt - 1e-9 <= cut.value < plain.value - 0.1
    eq8 = math.fsum(cache_maxima(cache, cut.duals).tolist()) - cut.duals.constant()
    assert eq8 == pytest.approx(cut.value, abs=1e-7)
