"""Exhaustive certificates (issue 54): when no eq. 8 tree finishes, a cache of at most 28
variables is certified by verify recomputing the best DAG's score (plain-numpy subset DP)."""

from __future__ import annotations

import importlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.certificate import build_certificate, certify_after
from lpbn.testing import random_cache
from lpbn.verify import PlainCache, verify
from lpbn.verify_dp import best_dag_score

front = importlib.import_module("lpbn.solve")     # the module (lpbn.solve is also the function)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(1, 8))
def test_the_plain_dp_finds_the_optimum(seed, n):
    """Every block size gives the optimum (one block: b = n; many: the high sinks' slices)."""
    cache = random_cache(n, seed=seed)
    best = lpbn.solve(cache, method="dp").score
    for bits in {1, max(1, n // 2), n}:
        assert best_dag_score(PlainCache(cache), block_bits=bits) == pytest.approx(best, rel=1e-12)


def _unfinished_dual(monkeypatch):
    real = front.solve

    def solve(cache, method="auto", **kw):
        res = real(cache, method, **kw)
        if method == "dual" and kw.get("certificate"):
            res.status = "time_limit"        # as if the tree had not finished in the time given
        return res
    monkeypatch.setattr(front, "solve", solve)


def test_an_unfinished_tree_falls_back_to_the_exhaustive_check(monkeypatch):
    cache = random_cache(7, seed=5)
    res = lpbn.solve(cache, method="dp")
    _unfinished_dual(monkeypatch)
    certify_after(cache, res)
    cert = json.loads(json.dumps(build_certificate(cache, res)))
    assert cert["kind"] == "exhaustive"
    answer = json.loads(json.dumps(res.to_dict()))
    report = verify(cache, answer, cert)
    assert report.ok and report.bound_verified, report.to_text()
    low = dict(answer, upper_bound=answer["score"] - 1.0)          # a bound below the optimum
    assert [n for n, ok, _ in verify(cache, low, cert).checks if not ok] == ["reported bound"]
    other = dict(cert, cache=dict(cert["cache"], sha256="0" * 64))
    assert "cache" in [n for n, ok, _ in verify(cache, answer, other).checks if not ok]


def test_the_check_says_what_memory_it_needs(monkeypatch):
    """Too little free memory: verify fails the exhaustive check with the need and what is free
    (a check that did not run is never a pass); more than MAX_N variables: no exhaustive kind."""
    import lpbn.verify_dp as vdp
    cache = random_cache(7, seed=5)
    res = lpbn.solve(cache, method="dp")
    _unfinished_dual(monkeypatch)
    certify_after(cache, res)
    cert = json.loads(json.dumps(build_certificate(cache, res)))
    monkeypatch.setattr(vdp, "available_bytes", lambda: 1024)
    report = verify(cache, json.loads(json.dumps(res.to_dict())), cert)
    failed = {n: why for n, ok, why in report.checks if not ok}
    assert not report.ok and "needs" in failed["exhaustive"] and "free" in failed["exhaustive"]
    assert vdp.check_bytes(28) < 12 * 2**30 < vdp.check_bytes(29)
    monkeypatch.setattr(vdp, "available_bytes", lambda: None)
    assert vdp.shortfall(vdp.MAX_N + 1) is not None and vdp.shortfall(vdp.MAX_N) is None
