"""The numpy paths that keep small solves free of numba (lpbn.cache helpers, dp for
n <= NUMPY_MAX_N) give the same answers as the numba kernels they stand in for."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lpbn import cache as cache_mod, cache_kernels, dp
from lpbn.solve import SolveControl
from lpbn.testing import random_cache


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 10**6), st.booleans())
def test_cache_helpers_match_the_kernels(n, seed, ties):
    c = random_cache(n, seed=seed, density=0.5, integer_scores=ties)
    off, ptr, items = c.offsets, c.pset_ptr, c.pset_items
    order = np.random.default_rng(seed).permutation(c.m).astype(np.int64)
    new_ptr = np.zeros(c.m + 1, dtype=np.int64)
    np.cumsum(c.sizes[order], out=new_ptr[1:])
    assert np.array_equal(cache_mod.gather_csr(ptr, items, order, new_ptr),
                          cache_kernels.gather_csr(ptr, items, order, new_ptr))
    assert np.array_equal(cache_mod._dominance_keep_numpy(c.masks, off),
                          cache_kernels.dominance_keep(c.bits, off, c.scores))
    assert np.array_equal(cache_mod.greedy_order(n, off, ptr, items),
                          cache_kernels.greedy_order(n, off, ptr, items))
    from lpbn.bitsets import csr_to_bitsets
    assert np.array_equal(cache_mod.csr_to_bitsets(ptr, items, n), csr_to_bitsets(ptr, items, n))
    assert tuple(cache_mod.check_sets(off, ptr, items)) == (0, 0, 0)


def test_check_sets_reports_self_and_repeated_parents():
    off = np.array([0, 2, 3], dtype=np.int64)
    ptr = np.array([0, 0, 2, 3], dtype=np.int64)
    for items, want in (([1, 1, 0], (2, 0, 1)), ([1, 0, 0], (1, 0, 0)), ([0, 1, 1], (1, 0, 0)),
                        ([1, 2, 0], (0, 0, 0))):
        arr = np.array(items, dtype=np.int32)
        got = tuple(int(x) for x in cache_mod.check_sets(off, ptr, arr))
        assert got == want
        assert got == tuple(int(x) for x in cache_kernels.check_sets(off, ptr, arr))


def test_greedy_order_finds_an_infeasible_cycle():
    # X0 needs X1, X1 needs X0, X2 free
    off = np.array([0, 1, 2, 3], dtype=np.int64)
    ptr = np.array([0, 1, 2, 2], dtype=np.int64)
    items = np.array([1, 0], dtype=np.int32)
    assert cache_mod.greedy_order(3, off, ptr, items).tolist() == [False, False, True]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 11), st.integers(0, 10**6), st.booleans())
def test_numpy_dp_equals_numba_dp(n, seed, ties):
    c = random_cache(n, seed=seed, density=0.4, integer_scores=ties).prune_dominated()
    f1, leaf1 = dp._solve_numpy(c)
    f2, leaf2 = dp._solve_numba(c, SolveControl())
    assert np.allclose(f1, f2, rtol=0, atol=1e-9)
    assert np.array_equal(leaf1, leaf2)


@pytest.mark.parametrize("name,extra,expect", [
    ("wine", ["--time-limit", "30"], None),
    # 17 variables, 9,298 candidates (5.2 M dominance pairs): numpy while numba is not loaded
    ("letter", [], "-183012.3203"),
])
def test_a_small_solve_in_a_fresh_process_never_imports_numba(instances, name, extra, expect):
    path = instances / "anchors" / "gobnilp-bic3" / f"{name}.BIC.p3.jkl"
    code = ("import sys\nfrom lpbn.cli import main\n"
            f"rc = main(['solve', {str(path)!r}, *{extra!r}, '--format', 'json', '-o', '-'])\n"
            "assert 'numba' not in sys.modules, 'numba was imported'\nsys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"status": "optimal"' in r.stdout
    assert expect is None or expect in r.stdout


def test_numpy_dp_equals_numba_dp_beyond_the_warm_cutoff():
    """n = 17..18: numpy runs these when numba is not loaded yet (dp.NUMPY_COLD_MAX_N)."""
    for n, seed in ((17, 3), (18, 4)):
        c = random_cache(n, seed=seed, density=0.2).prune_dominated()
        f1, leaf1 = dp._solve_numpy(c)
        f2, leaf2 = dp._solve_numba(c, SolveControl())
        assert np.allclose(f1, f2, rtol=0, atol=1e-9)
        assert np.array_equal(leaf1, leaf2)


def test_dominance_in_row_blocks_equals_the_kernel(monkeypatch):
    for seed in range(10):
        c = random_cache(12, seed=seed, density=0.6, integer_scores=seed % 2 == 0)
        want = cache_kernels.dominance_keep(c.bits, c.offsets, c.scores)
        monkeypatch.setattr(cache_mod, "PAIR_BLOCK", 7)
        assert np.array_equal(cache_mod._dominance_keep_numpy(c.masks, c.offsets), want)
