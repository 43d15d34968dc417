"""Bound certificates (lpbn.certificate) checked by the plain verifier (lpbn.verify)."""

from __future__ import annotations

import copy
import gzip
import json
import math

import pytest

import lpbn
from lpbn.certificate import build_certificate
from lpbn.cli import main
from lpbn.testing import random_cache
from lpbn.verify import CertificateError, verify

ANCHORS = "anchors/gobnilp-bic3"
#: anchors the dual closes in a few seconds, with a branch-and-bound tree of several nodes
DUAL_ANCHORS = ("wine.BIC.p3.jkl", "hailfinder500.BIC.p3.jkl", "water1000.BIC.p3.jkl")


def solved(cache, method="dual", **options):
    res = lpbn.solve(cache, method=method, certificate=True, **options)
    return res, build_certificate(cache, res)


def test_verifier_shares_no_solver_code():
    import ast
    import inspect
    import lpbn.verify as mod   # noqa: F401  (the module, not the lpbn.verify function)
    import sys
    tree = ast.parse(inspect.getsource(sys.modules["lpbn.verify"]))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert imported <= {"__future__", "gzip", "hashlib", "json", "math", "os", "dataclasses", "typing",
                        "numpy", ".errors", ".formats", ".verify_dp"}, imported
    # verify's exhaustive check (lpbn.verify_dp) is verify's own: numpy and the standard library
    dp = ast.parse(inspect.getsource(sys.modules["lpbn.verify_dp"]))
    used = {n.module for n in ast.walk(dp) if isinstance(n, ast.ImportFrom)} | \
        {a.name for n in ast.walk(dp) if isinstance(n, ast.Import) for a in n.names}
    assert used <= {"__future__", "math", "numpy", "os"}, used


@pytest.mark.parametrize("name", DUAL_ANCHORS)
def test_dual_tree_certificate_verified_on_anchors(instances, name):
    cache = lpbn.read_scores(instances / ANCHORS / name)
    res, cert = solved(cache)
    assert res.status == "optimal"
    assert cert["covers"] == "tree" and len(cert["nodes"]) >= 1
    rep = verify(cache, res, cert)
    assert rep.ok and rep.bound_verified, rep.to_text()
    assert rep.verified_bound <= res.upper_bound + 2e-9 * abs(res.upper_bound)
    assert rep.verified_gap <= 1e-8
    assert "bound verified" in rep.summary()


def test_dual_certificates_on_random_caches():
    for seed in range(4):
        cache = random_cache(9, seed=seed, density=0.5)
        res, cert = solved(cache)
        rep = verify(cache, res, cert)
        assert res.status == "optimal" and rep.bound_verified, (seed, rep.to_text())


def test_time_limited_dual_certifies_its_open_bound(instances):
    """Stopped early: the open nodes are leaves bounded by their parents' λ."""
    cache = lpbn.read_scores(instances / ANCHORS / "zoo.BIC.p3.jkl")
    res, cert = solved(cache, node_limit=3)
    assert res.status == "node_limit"
    rep = verify(cache, res, cert)
    assert rep.bound_verified, rep.to_text()
    assert rep.verified_bound >= res.score


def test_highs_lp_certificate(instances):
    """The root LP's row duals: the verifier's U(λ) reproduces the LP value."""
    cache = lpbn.read_scores(instances / ANCHORS / "wine.BIC.p3.jkl")
    res, cert = solved(cache, method="highs")
    lp = res.extra["certificate_lp"]
    root_only = copy.copy(res)
    root_only.extra = {"certificate_lp": lp}
    root = build_certificate(cache, root_only)
    assert root["covers"] == "root" and len(root["nodes"]) == 1
    rep = verify(cache, res, root)
    assert math.isclose(rep.verified_bound, lp["lp_value"], rel_tol=1e-7)
    assert math.isclose(rep.verified_bound, root["bound"], rel_tol=1e-9)
    if rep.verified_bound > res.upper_bound + 1e-6:
        # HiGHS's MIP search proved more than its LP: the root alone must not claim that bound
        assert not rep.ok and "covers the root LP only" in rep.summary()
        assert "bound verified" not in rep.summary()
    # the certificate the solve writes proves the reported bound, by a recorded tree if needed
    full = verify(cache, res, cert)
    assert full.ok and full.bound_verified, full.to_text()
    assert cert["covers"] == ("root" if rep.bound_verified else "tree")


def test_highs_tree_certificate_on_an_anchor(instances):
    """hailfinder500: the LP is 0.18% above the optimum HiGHS proves by its own search; the
    LP branch and bound of lpbn.highs.certify proves it again, node by node."""
    cache = lpbn.read_scores(instances / ANCHORS / "hailfinder500.BIC.p3.jkl")
    res, cert = solved(cache, method="highs")
    assert res.status == "optimal" and cert["covers"] == "tree" and len(cert["nodes"]) > 1
    assert res.stats["certificate_complete"] and res.stats["certificate_nodes"] >= 2
    rep = verify(cache, res, cert)
    assert rep.ok and rep.bound_verified, rep.to_text()
    assert rep.verified_bound <= res.upper_bound + 2e-9 * abs(res.upper_bound)


def test_highs_unfinished_tree_is_stated(instances):
    """Out of time for the proof: the partial tree proves a weaker bound and says so."""
    cache = lpbn.read_scores(instances / ANCHORS / "hailfinder500.BIC.p3.jkl")
    res, cert = solved(cache, method="highs", certificate_time=0.0)
    assert cert["covers"] == "partial" and not res.stats["certificate_complete"]
    rep = verify(cache, res, cert)
    assert not rep.ok and "unfinished" in rep.summary()
    assert rep.verified_bound >= res.upper_bound
    assert rep.verified_bound <= cert["bound"] + 2e-9 * abs(cert["bound"])


def test_highs_certificates_verified_on_random_caches():
    trees = 0
    for seed in range(12):
        cache = random_cache(7, seed=seed, density=0.5)
        res, cert = solved(cache, method="highs")
        rep = verify(cache, res, cert)
        assert res.status == "optimal" and rep.bound_verified, (seed, rep.to_text())
        trees += cert["covers"] == "tree"
    assert trees >= 1


@pytest.fixture(scope="module")
def zoo(instances):
    cache = lpbn.read_scores(instances / ANCHORS / "zoo.BIC.p3.jkl")
    res, cert = solved(cache)
    assert verify(cache, res, cert).bound_verified
    return cache, res, cert


def _fails(cache, res, cert, needle):
    rep = verify(cache, res, cert)
    assert not rep.ok and not rep.bound_verified
    assert any(needle in t for t in rep.failures), rep.to_text()
    return rep


def _leaf_with_lambda(cert):
    parents = {nd["parent"] for nd in cert["nodes"]}
    for nd in cert["nodes"]:
        if nd["id"] not in parents and nd.get("lambda", {}).get("values"):
            return nd
    raise AssertionError("no evaluated leaf")


def test_tampered_lambda_fails(zoo):
    cache, res, cert = zoo
    bad = copy.deepcopy(cert)
    leaf = _leaf_with_lambda(bad)
    leaf["lambda"]["values"][0] += 5.0          # still λ >= 0, so still a bound, but weaker
    _fails(cache, res, bad, "above the reported upper bound")
    bad = copy.deepcopy(cert)
    _leaf_with_lambda(bad)["lambda"]["values"][0] = -1.0
    _fails(cache, res, bad, "must be finite and >= 0")


def test_dropped_cluster_fails(zoo):
    cache, res, cert = zoo
    bad = copy.deepcopy(cert)
    leaf = _leaf_with_lambda(bad)
    c = leaf["lambda"]["clusters"][0]
    for nd in bad["nodes"]:       # the cluster's λ taken out everywhere
        lam = nd.get("lambda")
        if lam and c in lam["clusters"]:
            k = lam["clusters"].index(c)
            del lam["clusters"][k], lam["values"][k]
    _fails(cache, res, bad, "above the reported upper bound")
    bad = copy.deepcopy(cert)
    bad["clusters"] = bad["clusters"][:c]         # the list cut before a cluster a λ names
    with pytest.raises(CertificateError, match="names cluster"):
        verify(cache, res, bad)


def test_invalid_cluster_fails(zoo):
    cache, res, cert = zoo
    bad = copy.deepcopy(cert)
    bad["clusters"][0]["k"] = len(bad["clusters"][0]["members"]) + 1    # not valid for every DAG
    _fails(cache, res, bad, "not valid for every DAG")
    bad["clusters"][0] = {"members": [], "k": 1}
    _fails(cache, res, bad, "not valid for every DAG")


def test_tampered_tree_fails(zoo):
    cache, res, cert = zoo
    assert len(cert["nodes"]) >= 3, "zoo's proof is expected to branch (the dual is deterministic)"
    bad = copy.deepcopy(cert)
    leaf = _leaf_with_lambda(bad)
    bad["nodes"] = [nd for nd in bad["nodes"] if nd["id"] != leaf["id"]]
    _fails(cache, res, bad, "children")
    bad = copy.deepcopy(cert)
    leaf = next(nd for nd in bad["nodes"] if nd.get("branch"))
    leaf["branch"]["side"] = "meets" if leaf["branch"]["side"] == "disjoint" else "disjoint"
    _fails(cache, res, bad, "do not split")


def test_tampered_score_and_bound_fail(zoo):
    cache, res, cert = zoo
    d = res.to_dict()
    d["score"] += 1.0
    _fails(cache, d, cert, "re-scored")
    d = res.to_dict()
    d["upper_bound"] -= 1.0                       # a claim the certificate does not prove
    _fails(cache, d, cert, "above the reported upper bound")


def test_different_cache_fails(zoo, instances):
    cache, res, cert = zoo
    other = lpbn.read_scores(instances / ANCHORS / "wine.BIC.p3.jkl")
    _fails(other, res, cert, "different cache")
    # same variables, one score changed
    fams = [cache.family_lists(i) for i in range(cache.n)]
    fams[0][-1] = (fams[0][-1][0] - 1.0, fams[0][-1][1])
    changed = lpbn.ScoreCache.from_families(cache.names, fams)
    _fails(changed, res, cert, "different cache")


def test_bad_inputs_raise(zoo, tmp_path):
    cache, res, cert = zoo
    with pytest.raises(CertificateError, match="not an lpbn certificate"):
        verify(cache, res, {**cert, "format": "x"})
    p = tmp_path / "junk.json"
    p.write_text("{not json")
    with pytest.raises(CertificateError, match="not JSON"):
        verify(cache, res, p)
    with pytest.raises(CertificateError, match="arguments are CACHE RESULT"):
        verify(cache, cert, res)


def test_cli_certificate_and_verify(instances, tmp_path, capsys):
    wine = str(instances / ANCHORS / "wine.BIC.p3.jkl")
    r, c = str(tmp_path / "r.json"), str(tmp_path / "c.json.gz")
    assert main(["solve", wine, "--method", "dual", "--format", "json", "-o", r, "--certificate", c]) == 0
    with gzip.open(c, "rt") as fh:
        assert json.load(fh)["format"] == "lpbn-certificate"
    capsys.readouterr()
    assert main(["verify", wine, r, c]) == 0
    assert "bound verified" in capsys.readouterr().out
    assert main(["verify", wine, r]) == 0                        # the DAG alone
    assert "bound is not checked" in capsys.readouterr().out
    data = json.loads(open(r).read())
    data["upper_bound"] -= 1.0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["verify", wine, str(bad), c]) == 1
    zoo = str(instances / ANCHORS / "zoo.BIC.p3.jkl")
    assert main(["verify", zoo, r, c]) == 1
    assert "different cache" in capsys.readouterr().err
    assert main(["verify", wine, c, r]) == 2
    assert main(["verify", wine, str(tmp_path / "missing.json"), c]) == 2
    # every method writes one (issue 54): dp and auto's dp are certified after the solve by the
    # dual's branch and bound seeded with the answer (lpbn.certificate.certify_after)
    for args in (["--method", "dp"], []):
        x, rx = str(tmp_path / "x.json"), str(tmp_path / "rx.json")
        assert main(["solve", wine, *args, "--format", "json", "-o", rx, "--certificate", x]) == 0
        assert json.loads(open(x).read())["method"] == "dp"
        assert main(["verify", wine, rx, x]) == 0
    h = str(tmp_path / "h.json")
    assert main(["solve", wine, "--method", "highs", "--format", "json", "-o", r, "--certificate", h]) == 0
    assert json.loads(open(h).read())["covers"] in ("root", "tree")
    capsys.readouterr()
    assert main(["verify", wine, r, h]) == 0
    assert "bound verified" in capsys.readouterr().out


def test_check_states_which_comparisons_are_independent():
    from lpbn.compare.crosscheck import crosscheck, independence
    assert independence("dp", "dual").startswith("independent")
    assert independence("highs", "pulp-cbc").startswith("NOT independent")
    assert "HiGHS" in independence("dual", "highs")
    assert "HiGHS" not in independence("dual", "highs", cd_only=True)
    rep = crosscheck(random_cache(6, seed=1), methods=["dp", "highs"])
    text = rep.to_text()
    assert rep.ok and "independence of the comparisons" in text
    assert "highs vs dp: independent" in text or "dp vs highs: independent" in text
    assert rep.to_dict()["independence"]


def test_cli_certificate_with_auto_where_it_runs_asobs_beside_the_ilp(tmp_path):
    """From 300 variables in the ILP's range auto runs ASOBS beside the HiGHS ILP (two cores);
    its answer is certified after the solve (the dual seeded with it) like every method's."""
    from lpbn.portfolio import in_ilp_range
    from lpbn.testing import random_sparse_cache
    cache = random_sparse_cache(320, (2, 4), 2, seed=3)
    assert in_ilp_range(cache)
    path, r, c = tmp_path / "mid.jkl", tmp_path / "r.json", tmp_path / "c.json"
    lpbn.write_scores(cache, path)
    assert main(["solve", str(path), "--time-limit", "60", "--format", "json", "-o", str(r),
                 "--certificate", str(c)]) == 0
    assert json.loads(r.read_text())["method"] in ("asobs", "highs")
    assert main(["verify", str(path), str(r), str(c)]) == 0
