"""Exhaustive certificates (issue 54): when no eq. 8 tree finishes, a cache of at most 23
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
    cache = random_cache(n, seed=seed)
    assert best_dag_score(PlainCache(cache)) == pytest.approx(lpbn.solve(cache, method="dp").score, rel=1e-12)


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
