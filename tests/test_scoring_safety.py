"""Safety of every pruning rule of the scorer, property-tested against an independent scorer.

Random discrete data (n <= 8, N 20..5000, arities 2-4): the optimum from the pruned cache
equals the optimum over ALL parent sets (an unpruned cache scored by the plain numpy
reference below, solved by DP); for k-best, the K best DAG scores over all DAGs (brute force)
are all achievable in the pruned cache.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

import lpbn
from lpbn.cache import ScoreCache


# ----------------------------------------------------------------------------- reference
def ref_score(data: np.ndarray, ar: np.ndarray, x: int, ps: tuple[int, ...], score: str,
              ess: float = 1.0) -> float:
    """Plain numpy local score (independent of lpbn.scoring's kernels)."""
    N = data.shape[0]
    rx = int(ar[x])
    q = int(np.prod([ar[p] for p in ps])) if ps else 1
    cfg = np.zeros(N, dtype=np.int64)
    for p in ps:
        cfg = cfg * int(ar[p]) + data[:, p]
    table = np.zeros((q, rx))
    np.add.at(table, (cfg, data[:, x]), 1)
    npa = table.sum(axis=1)
    if score == "bdeu":
        a = ess / q
        return float(np.sum(gammaln(a) - gammaln(a + npa))
                     + np.sum(gammaln(a / rx + table) - gammaln(a / rx)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = float(np.nansum(np.where(table > 0, table * np.log(table / npa[:, None]), 0.0)))
    if score == "aic":
        return ll - q * (rx - 1)
    bic = ll - 0.5 * math.log(N) * q * (rx - 1)
    return bic / math.log(2) if score == "mdl" else bic


def full_cache(data, ar, score, max_parents=None, ess=1.0) -> ScoreCache:
    n = data.shape[1]
    L = n - 1 if max_parents is None else max_parents
    fams = []
    for x in range(n):
        others = [v for v in range(n) if v != x]
        fams.append([(ref_score(data, ar, x, ps, score, ess), ps)
                     for j in range(L + 1) for ps in itertools.combinations(others, j)])
    return ScoreCache.from_families([str(i) for i in range(n)], fams)


def random_data(seed: int, n: int, N: int, structured: bool = True) -> np.ndarray:
    """Random data from a random sparse network (so that edges are worth having)."""
    rng = np.random.default_rng(seed)
    ar = rng.integers(2, 5, size=n)
    data = np.zeros((N, n), dtype=np.int64)
    for x in range(n):
        pars = [p for p in range(x) if rng.random() < 0.4][:3] if structured else []
        q = int(np.prod([ar[p] for p in pars])) if pars else 1
        cpt = rng.dirichlet(np.full(ar[x], 0.5), size=q)
        cfg = np.zeros(N, dtype=np.int64)
        for p in pars:
            cfg = cfg * ar[p] + data[:, p]
        u = rng.random(N)
        data[:, x] = (u[:, None] > np.cumsum(cpt[cfg], axis=1)).sum(axis=1).clip(max=ar[x] - 1)
    perm = rng.permutation(n)
    return data[:, perm]


def observed(data):
    """Re-code to observed states, as the reader does (arity = number of observed states)."""
    ds = lpbn.read_data(data)
    return ds.columns.T.astype(np.int64), ds.arities


def opt(cache):
    return lpbn.solve(cache, method="dp").score


SET = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


@SET
@given(seed=st.integers(0, 10**6), n=st.integers(2, 7), N=st.sampled_from([20, 60, 200, 1000, 5000]),
       score=st.sampled_from(["bic", "mdl", "aic", "bdeu"]),
       max_parents=st.sampled_from([None, None, 1, 2]))
def test_pruned_optimum_equals_full_optimum(seed, n, N, score, max_parents):
    data, ar = observed(random_data(seed, n, N))
    full = full_cache(data, ar, score, max_parents)
    want = opt(full)
    for rules in (("limit",), ("dominance",), ("bnb",), ("limit", "dominance", "bnb")):
        for eb in ("tw", "all"):
            c = lpbn.score_data(data, score=score, max_parents=max_parents, rules=rules, entropy_bound=eb)
            # every kept set is scored exactly as the reference scores it
            for i in range(c.n):
                for j in c.family_range(i):
                    assert c.scores[j] == pytest.approx(full.local_score(i, c.parents(j)), abs=1e-7)
            got = opt(c)
            assert got == pytest.approx(want, rel=1e-9, abs=1e-7), (rules, eb)
            if score == "bdeu" or "limit" not in rules:
                continue
            # Tian's per-variable limit never cuts a set that could be needed
            assert c.sizes.max(initial=0) <= max(c.meta["scoring"]["parent_limits"])


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), n=st.integers(7, 8), N=st.sampled_from([50, 500, 3000]))
def test_pruned_optimum_n8(seed, n, N):
    data, ar = observed(random_data(seed, n, N))
    full = full_cache(data, ar, "bic")
    assert opt(lpbn.score_data(data)) == pytest.approx(opt(full), rel=1e-9, abs=1e-7)


def test_pruning_actually_prunes():
    data, ar = observed(random_data(3, 7, 2000))
    c = lpbn.score_data(data)
    assert c.m < 7 * 2 ** 6 / 4
    assert c.meta["scoring"]["branches_cut"] > 0


# ----------------------------------------------------------------------------- k-best
def dag_scores(cache: ScoreCache) -> list[float]:
    """Scores of all DAGs buildable from the cache (brute force, small n)."""
    n = cache.n
    fams = [list(cache.family_range(i)) for i in range(n)]
    masks = [[sum(1 << p for p in cache.parents(j)) for j in f] for f in fams]
    out = []
    for combo in itertools.product(*[range(len(f)) for f in fams]):
        pm = [masks[i][c] for i, c in enumerate(combo)]
        placed, progress = 0, True
        while progress:
            progress = False
            for i in range(n):
                if not placed >> i & 1 and pm[i] & ~placed == 0:
                    placed |= 1 << i
                    progress = True
        if placed == (1 << n) - 1:
            out.append(sum(cache.scores[fams[i][c]] for i, c in enumerate(combo)))
    return sorted(out, reverse=True)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), n=st.integers(2, 4), N=st.sampled_from([20, 100, 1000, 5000]),
       K=st.integers(2, 20), score=st.sampled_from(["bic", "aic", "bdeu"]))
def test_kbest_keeps_k_best_dags(seed, n, N, K, score):
    data, ar = observed(random_data(seed, n, N))
    want = dag_scores(full_cache(data, ar, score))[:K]
    for rules in (("limit",), ("dominance",), ("bnb",), ("limit", "dominance", "bnb")):
        c = lpbn.score_data(data, score=score, k_best=K, rules=rules)
        got = dag_scores(c)[:K]
        assert len(got) == len(want)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-7)


def test_kbest_constant_column():
    rng = np.random.default_rng(1)
    data = rng.integers(0, 2, size=(300, 4))
    data[:, 2] = 0
    data, ar = observed(data)
    want = dag_scores(full_cache(data, ar, "bic"))[:12]
    np.testing.assert_allclose(dag_scores(lpbn.score_data(data, k_best=12))[:12], want, rtol=1e-9)
    assert opt(lpbn.score_data(data)) == pytest.approx(want[0], rel=1e-9)


def test_fixed_order_tian_dfbnb():
    data, ar = observed(random_data(11, 6, 1500))
    order = [3, 0, 5, 1, 4, 2]
    c = lpbn.score_data(data, order=order)
    full = full_cache(data, ar, "bic")
    _, want = full.best_for_order(order)
    assert c.counts().tolist() == [1] * 6
    assert opt(c) == pytest.approx(want, rel=1e-9)


def test_large_arities_use_compressed_codes():
    """Parent configurations beyond the count buffer are re-ranked (compress path)."""
    rng = np.random.default_rng(5)
    N = 400
    base = rng.integers(0, 60, size=N)
    data = np.stack([base, (base + rng.integers(0, 3, N)) % 60, rng.integers(0, 60, N),
                     (base // 7 + rng.integers(0, 2, N)) % 9], axis=1)
    data, ar = observed(data)
    assert np.prod(sorted(ar)[-3:]) > 65536 // 9
    for score in ("bic", "bdeu"):
        full = full_cache(data, ar, score)
        c = lpbn.score_data(data, score=score, rules=("dominance", "bnb"), entropy_bound="tw")
        for i in range(c.n):
            for j in c.family_range(i):
                assert c.scores[j] == pytest.approx(full.local_score(i, c.parents(j)), abs=1e-7)
        assert opt(c) == pytest.approx(opt(full), rel=1e-9, abs=1e-7)


def test_more_than_64_variables():
    rng = np.random.default_rng(9)
    N, n = 300, 70
    data = rng.integers(0, 2, size=(N, n))
    data[:, 1] = data[:, 0] ^ (rng.random(N) < 0.1)
    data[:, 69] = data[:, 68] & data[:, 67]
    data, ar = observed(data)
    c = lpbn.score_data(data, max_parents=2)
    assert c.n == 70 and c.bits.shape[1] == 2
    assert c.local_score(1, (0,)) == pytest.approx(ref_score(data, ar, 1, (0,), "bic"), abs=1e-8)
    assert c.local_score(69, (67, 68)) == pytest.approx(ref_score(data, ar, 69, (67, 68), "bic"), abs=1e-8)
    for i in range(n):
        assert c.local_score(i, ()) == pytest.approx(ref_score(data, ar, i, (), "bic"), abs=1e-8)


def dag_scores_np(cache: ScoreCache) -> np.ndarray:
    """All DAG scores of a cache, vectorised over every combination of candidates (n <= 5)."""
    n = cache.n
    fams = [np.arange(cache.offsets[i], cache.offsets[i + 1]) for i in range(n)]
    grids = np.meshgrid(*fams, indexing="ij")
    picks = [g.ravel() for g in grids]
    masks = np.array([sum(1 << p for p in cache.parents(j)) for j in range(cache.m)], dtype=np.int64)
    pm = [masks[p] for p in picks]
    placed = np.zeros(len(picks[0]), dtype=np.int64)
    for _ in range(n):
        for i in range(n):
            ok = (pm[i] & ~placed) == 0
            placed |= np.where(ok, 1 << i, 0)
    acyclic = placed == (1 << n) - 1
    total = sum(cache.scores[p] for p in picks)
    return np.sort(total[acyclic])[::-1]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), N=st.sampled_from([3, 5, 8, 10, 20]), K=st.integers(8, 20),
       score=st.sampled_from(["bic", "aic"]))
def test_kbest_n5_exercises_chen_algorithm2(seed, N, K, score):
    """n = 5 with tiny N: Corollary 1 inflates the limit for K > 2^(d+1) - 1 and Algorithm 2's
    sub-DAG counting can be tighter; the K best DAG scores must survive."""
    data, ar = observed(random_data(seed, 5, N))
    want = dag_scores_np(full_cache(data, ar, score))[:K]
    c = lpbn.score_data(data, score=score, k_best=K, rules=("limit",))
    got = dag_scores_np(c)[:K]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-7)
    c = lpbn.score_data(data, score=score, k_best=K)
    np.testing.assert_allclose(dag_scores_np(c)[:K], want, rtol=1e-9, atol=1e-7)


@pytest.mark.parametrize("seed,K", [(50, 16), (33, 20), (58, 20)])
def test_chen_algorithm2_binds_and_is_safe(seed, K):
    data, ar = observed(random_data(seed, 5, 3))
    with_alg2 = lpbn.score_data(data, k_best=K, rules=("limit",))
    without = lpbn.score_data(data, k_best=K, rules=("limit",), kbest_global=False)
    assert sum(with_alg2.meta["scoring"]["parent_limits"]) < sum(without.meta["scoring"]["parent_limits"])
    want = dag_scores_np(full_cache(data, ar, "bic"))[:K]
    np.testing.assert_allclose(dag_scores_np(with_alg2)[:K], want, rtol=1e-9, atol=1e-7)


def test_tian_closed_form_is_off_by_one_but_lpbn_is_exact():
    """N = 40: Tian's Thm 1 closed form says at most floor(log2(80 / log2 40)) = 3 parents, yet
    a balanced binary X that is the parity of 4 binary parents scores better with all four
    than with none.  The exact per-variable limit keeps that set (and the optimum)."""
    import itertools
    from lpbn.scoring.pruning import tian_global_bound
    cfgs = list(itertools.product([0, 1], repeat=4))
    extra = [c for c in cfgs if sum(c) % 2 == 0][:4] + [c for c in cfgs if sum(c) % 2 == 1][:4]
    data = np.array([list(c) + [sum(c) % 2] for c in cfgs * 2 + extra])
    data, ar = observed(data)
    full = full_cache(data, ar, "bic")
    assert tian_global_bound(40) == 3
    assert full.local_score(4, (0, 1, 2, 3)) > full.local_score(4, ())
    c = lpbn.score_data(data)
    assert c.local_score(4, (0, 1, 2, 3)) is not None
    assert opt(c) == pytest.approx(opt(full), rel=1e-12)
    assert opt(full.restrict_in_degree(3)) < opt(full) - 1e-9
