"""The numpy twins of the LP kernels (lpbn.lp.numpy_kernels), which let the HiGHS ILP solve
small caches without loading numba, return what the kernels return; and that path, run in a
fresh process, agrees with the DP."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from hypothesis import given, settings, strategies as st

from lpbn import cache as cache_mod
from lpbn.cache_kernels import best_for_order_csr
from lpbn.highs import kernels as highs_kernels
from lpbn.lp import kernels, numpy_kernels as nk
from lpbn.lp.separation import SUPPORT_TOL
from lpbn.testing import random_cache


def _point(c, seed):
    """A random fractional η over the cache (a convex combination per variable, some zeros)."""
    rng = np.random.default_rng(seed)
    eta = rng.random(c.m) * (rng.random(c.m) < 0.6)
    eta[c.offsets[:-1]] += 1e-3
    sums = np.add.reduceat(eta, c.offsets[:-1])
    return eta / sums[c.family]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 14), st.integers(0, 10**6))
def test_twins_return_what_the_kernels_return(n, seed):
    c = random_cache(n, seed=seed, density=0.5)
    eta = _point(c, seed)
    rng = np.random.default_rng(seed + 1)
    clusters = rng.integers(1, 2 ** n, size=7, dtype=np.uint64).reshape(-1, 1)
    ks = rng.integers(1, 4, size=7).astype(np.int64)
    for got, want in zip(nk.cluster_rows_csr(c.masks, c.family, clusters, ks),
                         kernels.cluster_rows_csr(c.bits, c.family, clusters, ks)):
        assert np.array_equal(got, want)
    # over a whole cache, by its variables' candidate ranges: the same rows
    for got, want in zip(kernels.cluster_rows_by_variable(c.bits, c.offsets, clusters, ks),
                         kernels.cluster_rows_csr(c.bits, c.family, clusters, ks)):
        assert np.array_equal(got, want)
    # the activity at a sparse point (support only) and the rows' own sums agree
    ptr, idx = kernels.cluster_rows_csr(c.bits, c.family, clusters, ks)
    rows_sum = np.array([eta[idx[ptr[r]:ptr[r + 1]]].sum() for r in range(len(ks))])
    sup = np.flatnonzero(eta)
    assert np.allclose(kernels.sparse_activity(c.bits[sup], c.family[sup], eta[sup], clusters, ks), rows_sum,
                       rtol=0, atol=1e-12)
    # the polish's kernels: which rows hold a candidate, and the capped sums of its pool test
    from lpbn.dual import kernels as dk
    cids = np.arange(len(ks), dtype=np.int64)
    members = [np.flatnonzero([(int(b) >> v) & 1 for v in range(n)]) for b in clusters[:, 0]]
    mptr = np.concatenate([[0], np.cumsum([len(x) for x in members])]).astype(np.int64)
    for bits in (c.bits, np.zeros((0, 1), dtype=np.uint64)):     # bitsets, or the CSR parent lists
        cptr, crow = dk.column_rows(bits, c.pset_ptr, c.pset_items, c.family, np.arange(c.m), clusters, ks, cids)
        held = {(int(r), int(j)) for j in range(c.m) for r in crow[cptr[j]:cptr[j + 1]]}
        assert held == {(r, int(j)) for r in range(len(ks)) for j in idx[ptr[r]:ptr[r + 1]]}
        sums = dk.cluster_sums(bits, c.pset_ptr, c.pset_items, sup, eta[sup], np.searchsorted(sup, c.offsets),
                               clusters, ks, mptr, np.concatenate(members).astype(np.int64), cids)
        assert np.allclose(np.minimum(sums, ks), np.minimum(rows_sum, ks), rtol=0, atol=1e-9)
    args = (c.n, c.family, c.pset_ptr, c.pset_items, eta, SUPPORT_TOL)
    mu = nk.edge_marginals(*args)
    assert np.allclose(mu, kernels.edge_marginals(*args), rtol=0, atol=1e-12)
    for adj in (mu > SUPPORT_TOL, mu > 0.3):
        for got, want in zip(nk.scc_labels(adj), kernels.scc_labels(adj)):
            assert np.array_equal(got, want)
    cost = np.where(mu > SUPPORT_TOL, np.maximum(1.0 - mu, 0.0), np.inf)
    np.fill_diagonal(cost, np.inf)
    w1, f1 = nk.floyd_cycles(cost)
    w2, f2 = kernels.floyd_cycles(cost)
    assert np.allclose(w1, w2, rtol=0, atol=1e-12) and np.array_equal(f1, f2)
    order = rng.permutation(n).astype(np.int64)
    assert np.array_equal(cache_mod.best_for_order_masks(c.masks, c.family, order),
                          best_for_order_csr(c.offsets, c.pset_ptr, c.pset_items, order))
    assert np.array_equal(nk.mass_order(c.masks, c.family, eta, n),
                          highs_kernels.mass_order(c.bits, c.offsets, eta, n))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 10**6), st.sampled_from([1, 3, 10]))
def test_subset_enumeration_finds_the_kernels_clusters(k, seed, max_found):
    """Both searches return the max_found least-active clusters below the threshold (the
    same activities; the sets themselves may differ between ties)."""
    rng = np.random.default_rng(seed)
    S = 3 * k
    fam = rng.integers(0, k, size=S).astype(np.int64)
    pmask = rng.integers(0, 2 ** k, size=S, dtype=np.uint64) & ~np.left_shift(np.uint64(1), fam.astype(np.uint64))
    eta = rng.random(S) * 0.5
    for threshold in (0.3, 1.0):
        m1, c1 = nk.enum_subsets(k, fam, pmask, eta, threshold, 10**6, max_found, batch=int(rng.integers(1, 64)))
        m2, c2 = kernels.enum_subsets(k, fam, pmask, eta, threshold, 10**6, max_found)
        assert c1 and c2

        def act(masks):
            bit = np.left_shift(np.uint64(1), fam.astype(np.uint64))
            return sorted(float(eta[((m & bit) != 0) & ((pmask & m) == 0)].sum()) for m in masks)
        assert np.allclose(act(m1), act(m2), rtol=0, atol=1e-12)
        assert all(bin(int(m)).count("1") >= 2 for m in m1)


def test_highs_without_numba_agrees_with_the_dp_in_a_fresh_process(tmp_path):
    """Random small caches solved by the HiGHS ILP in a process that never loads numba
    (numpy twins, sub-IP and numpy enumeration for the separation) and by the numpy DP."""
    from lpbn import write_scores
    from lpbn.testing import random_sparse_cache
    paths = []
    for seed in range(24):
        c = random_cache(8 + seed % 5, seed=seed, density=0.5) if seed % 2 else \
            random_sparse_cache(14 + seed % 7, per_variable=(3, 8), max_parents=3, seed=seed, neighbourhood=6)
        paths.append(str(tmp_path / f"c{seed}.jkl"))
        write_scores(c, paths[-1])
    code = f"""
import json, sys
import lpbn
out = []
for path in {paths!r}:
    c = lpbn.read_scores(path)
    a = lpbn.solve(c, "highs", numba=False)
    b = lpbn.solve(c, "dp")
    out.append((a.status, a.score, a.upper_bound, b.score, c.dag_score(a.dag.parents)))
print(json.dumps({{"numba": "numba" in sys.modules, "runs": out}}))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert not got["numba"], "numba was imported"
    for status, score, bound, optimum, rescored in got["runs"]:
        assert status == "optimal"
        assert abs(score - optimum) <= 1e-6 * max(1.0, abs(optimum))
        assert abs(rescored - score) <= 1e-6 * max(1.0, abs(score))
        assert bound >= optimum - 1e-6 * max(1.0, abs(optimum))


def test_auto_tries_highs_without_numba_first_on_a_small_sparse_cache(instances):
    path = instances / "anchors" / "gobnilp-bic3" / "water1000.BIC.p3.jkl"
    code = ("import sys\nfrom lpbn.cli import main\n"
            f"rc = main(['solve', {str(path)!r}, '--format', 'json', '-o', '-'])\n"
            "assert 'numba' not in sys.modules, 'numba was imported'\nsys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "optimal" and out["method"] == "highs"
    assert abs(out["score"] - -13290.109118) < 1e-5


def test_auto_goes_on_with_its_method_when_highs_without_numba_has_no_proof(instances):
    """spectf (45 variables) is not proved by HiGHS without numba's separation kernels within
    a budget of 0.05 s (nor the default's 1.5 s on this machine): the method auto chose runs with the time left; the answer keeps the better
    DAG and the lower bound of the two runs, in one trace."""
    path = instances / "anchors" / "gobnilp-bic3" / "spectf.BIC.p3.jkl"
    code = f"""
import json, lpbn, lpbn.portfolio as P, lpbn.solve as S
P.AUTO_LIGHT_SECONDS = S.AUTO_LIGHT_SECONDS = 0.05
r = lpbn.solve({str(path)!r}, time_limit=120)
print(json.dumps({{"status": r.status, "method": r.method, "score": r.score, "bound": r.upper_bound,
                  "first": r.stats.get("auto_first"), "race": r.stats.get("race"), "trace": r.trace}}))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["first"]["method"] == "highs" and out["first"]["status"] == "time_limit"
    # the proof comes from the method auto chose (on two cores the race, whose rival is the ILP
    # with numba: under load it may win), never from the numba-free first run
    assert out["status"] == "optimal"
    assert out["method"] != "highs" or (out["race"] or {}).get("winner") == "highs"
    assert abs(out["score"] - -8135.311921) < 1e-5 and out["bound"] >= out["score"] - 1e-6
    seconds = [t[0] for t in out["trace"]]
    assert seconds == sorted(seconds)


def test_popcount_without_numpy_2(monkeypatch):
    """numpy 1.26 (allowed by pyproject) has no bitwise_count: the byte table counts the same."""
    x = np.random.default_rng(0).integers(0, 2**63, size=(6, 5), dtype=np.uint64) | np.uint64(2**63)
    want = np.array([[bin(int(v)).count("1") for v in row] for row in x])
    if hasattr(np, "bitwise_count"):
        assert np.array_equal(nk._popcount(x), want)
        monkeypatch.delattr(np, "bitwise_count")
    assert np.array_equal(nk._popcount(x), want)
