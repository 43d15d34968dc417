"""k-best certificates (issue 54): a tree over parent-set fixings whose leaves are bounded at
or below the K-th score by eq. 8, or fixed to one listed DAG; ``lpbn verify`` checks it in plain
numpy, and any tampering (a score, a listed DAG, a dual, a leaf, the cache) fails a named check."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.errors import InputError
from lpbn.kbest.api import to_json
from lpbn.kbest.certify import kbest_certificate
from lpbn.testing import random_cache
from lpbn.verify import CertificateError, verify

ROOT = Path(lpbn.__file__).parent.parent


def _certified(cache, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = lpbn.solve(cache, k_best=k)
    cert = kbest_certificate(cache, res)
    return json.loads(to_json(res)), json.loads(json.dumps(cert))


def _failed(report) -> list[str]:
    return [name for name, ok, _ in report.checks if not ok]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), k=st.integers(1, 8))
def test_a_kbest_list_verifies_and_a_tampered_list_is_rejected(seed, n, k):
    cache = random_cache(n, seed=seed)
    answer, cert = _certified(cache, k)
    report = verify(cache, answer, cert)
    assert report.ok, report.to_text()
    assert report.listed == len(answer["solutions"])
    # drop the last listed DAG (its leaf is then marked listed for a DAG not in the list)
    if len(answer["solutions"]) > 1:
        short = copy.deepcopy(answer)
        short["solutions"].pop()
        assert not verify(cache, short, cert).ok
    # claim a listed DAG scores more than it does
    bad = copy.deepcopy(answer)
    bad["solutions"][-1]["score"] += 1.0
    assert "list" in _failed(verify(cache, bad, cert))   # names the DAG and its score check


def _rich():
    """A cache whose 4-best tree has λ leaves and listed leaves."""
    for seed in range(50):
        cache = random_cache(6, seed=seed)
        answer, cert = _certified(cache, 4)
        leaves = [nd for nd in cert["nodes"] if "lambda_of" in nd]
        if leaves and cert["nodes"][0]["lambda"]["values"]:
            return cache, answer, cert
    raise AssertionError("no random cache among 50 seeds gives a tree with λ leaves and listed leaves")


def test_each_tampering_names_its_check():
    cache, answer, cert = _rich()
    assert verify(cache, answer, cert).ok
    # a dual: every λ much larger -> the (a)-leaves' bounds rise above the K-th
    t = copy.deepcopy(cert)
    t["nodes"][0]["lambda"]["values"] = [100.0 * x + 50.0 for x in t["nodes"][0]["lambda"]["values"]]
    assert "reported bound" in _failed(verify(cache, answer, t))
    # a leaf: a listed leaf's mark removed from the list's point of view (its DAG dropped)
    t = copy.deepcopy(answer)
    t["solutions"] = t["solutions"][:-1] if len(t["solutions"]) > 1 else t["solutions"]
    if len(t["solutions"]) < len(answer["solutions"]):
        assert not verify(cache, t, cert).ok
    # a leaf: a closed (a)-leaf marked as listed instead
    t = copy.deepcopy(cert)
    leaf = next(nd for nd in t["nodes"] if "lambda_of" in nd)
    del leaf["lambda_of"]
    leaf["listed"] = True
    assert "listed leaf" in _failed(verify(cache, answer, t))
    # a leaf removed: its sibling alone does not cover the split
    t = copy.deepcopy(cert)
    t["nodes"] = [nd for nd in t["nodes"] if nd is not next(x for x in t["nodes"] if "lambda_of" in x
                                                                and x["parent"] is not None)]
    assert not verify(cache, answer, t).ok
    # a listed DAG replaced by another (a parent added where the cache has no such set)
    t = copy.deepcopy(answer)
    v = next(iter(t["solutions"][0]["parents"]))
    t["solutions"][0]["parents"][v] = [x for x in cache.names if x != v]
    assert "list" in _failed(verify(cache, t, cert))
    # another cache
    t = copy.deepcopy(cert)
    t["cache"]["sha256"] = "0" * 64
    assert "cache" in _failed(verify(cache, answer, t))


def test_malformed_kbest_certificates_are_input_errors():
    cache, answer, cert = _rich()
    t = copy.deepcopy(cert)
    t["kbest"] = {"k": "five"}
    with pytest.raises(CertificateError):
        verify(cache, answer, t)
    t = copy.deepcopy(cert)
    t["nodes"][1]["branch"]["side"] = "sideways"
    with pytest.raises(CertificateError):
        verify(cache, answer, t)
    t = copy.deepcopy(cert)
    next(nd for nd in t["nodes"] if "lambda_of" in nd)["lambda_of"] = 10 ** 9
    with pytest.raises(CertificateError):
        verify(cache, answer, t)
    single = {k: v for k, v in answer.items() if k != "solutions"}
    with pytest.raises(CertificateError):
        verify(cache, single, cert)


def test_an_unproven_or_classes_list_is_not_certified():
    cache = random_cache(6, seed=1)
    res = lpbn.solve(cache, k_best=3)
    res.stats["classes"] = True
    with pytest.raises(InputError):
        kbest_certificate(cache, res)
    res = lpbn.solve(cache, k_best=3)
    res.status = "time_limit"
    with pytest.raises(InputError):
        kbest_certificate(cache, res)


def test_cli_kbest_certificate_round_trip(tmp_path):
    cache = random_cache(5, seed=4)
    src = tmp_path / "c.jkl"
    lpbn.write_scores(cache, src)
    out, cert = tmp_path / "r.json", tmp_path / "r.cert.json.gz"
    run = [sys.executable, "-m", "lpbn"]
    p = subprocess.run(run + ["solve", str(src), "--k-best", "6", "--format", "json", "-o", str(out),
                              "--certificate", str(cert)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert p.returncode == 0, p.stderr
    p = subprocess.run(run + ["verify", str(src), str(out), str(cert)], capture_output=True, text=True,
                       cwd=ROOT, check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "k-best list verified" in p.stdout
    data = json.loads(out.read_text())
    data["solutions"][0]["score"] += 0.5
    out.write_text(json.dumps(data))
    p = subprocess.run(run + ["verify", str(src), str(out), str(cert)], capture_output=True, text=True,
                       cwd=ROOT, check=False)
    assert p.returncode == 1 and "FAIL" in p.stdout
    (tmp_path / "bad.gz").write_bytes(b"nonsense")
    p = subprocess.run(run + ["verify", str(src), str(out), str(tmp_path / "bad.gz")], capture_output=True,
                       text=True, cwd=ROOT, check=False)
    assert p.returncode == 2


def test_an_unfinished_kbest_tree_is_partial_and_not_verified():
    cache = random_cache(6, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = lpbn.solve(cache, k_best=3)
    cert = json.loads(json.dumps(kbest_certificate(cache, res, time_limit=0.0)))
    assert cert["covers"] == "partial"
    report = verify(cache, json.loads(to_json(res)), cert)
    assert not report.ok and "reported bound" in _failed(report), report.to_text()
    assert "certificate claim" not in _failed(report)
