"""Bound certificates: what proves a result's upper bound, in a file anyone can check.

``lpbn solve --certificate FILE`` (every method; ``dual`` and ``highs`` record their own, the
others are certified after the fact by :func:`certify_after`) writes one JSON object
(gzip when FILE ends in ``.gz``), checked by ``lpbn verify`` (:mod:`lpbn.verify`, plain
numpy, no solver code)::

    {"format": "lpbn-certificate", "version": 1,
     "about": "...",                       # how to read it, in words
     "method": "dual" | "highs",
     "cache": {"n", "variables", "candidates", "sha256"},   # verify refuses another cache
     "candidates": "non-dominated" | "all",  # the candidates the bound is evaluated over
     "bound": B,                            # the bound this certificate proves
     "covers": "tree" | "partial" | "root", # the whole B&B, an unfinished one, or the root LP only
     "clusters": [{"members": [names], "k": k}, ...],
     "nodes": [{"id", "parent", "branch": {"variable", "set": [names], "side"},
                "lambda": {"clusters": [indices], "values": [λ >= 0]}}, ...],
     "fixing": [{"lambda": {...}, "below": s}, ...]}   # optional: reduced-cost fixing (lpbn.dual.fixing),
                                                        # applied in order (one object: older files)

A node without ``"lambda"`` was never evaluated (pruned by its parent's bound, or fixed).
The dual's certificate is its whole branch-and-bound tree (``covers: "tree"``).  The HiGHS
certificate is the row duals of its final LP relaxation (one root node, ``covers: "root"``)
when that LP proves the reported bound; when HiGHS's own MIP search proved a lower bound,
:mod:`lpbn.highs.certify` proves it again by an LP branch and bound that records every
node's duals (``covers: "tree"``, or ``"partial"`` when its time ran out: verify then
reports the bound the unfinished tree proves, above the reported one).
"""

from __future__ import annotations

import gzip
import json
import math
import os
from typing import Any

import numpy as np

from . import bitsets as bs
from .atomic import atomic_write
from .cache import ScoreCache
from .errors import InputError
from .result import SolveResult
from .verify import FORMAT, VERSION, cache_fingerprint
from .verify_dp import MAX_N

#: methods that can write a certificate
CERTIFYING_METHODS = ("dual", "highs")

ABOUT = ("Upper bound on the score of every DAG over the cache (Jaakkola et al. 2010, eq. 8, with "
         "k-cluster rows): for multipliers lambda_C >= 0, U = sum_i max_s [score_i(s) + sum_{C contains i, "
         "|s & C| < k_C} lambda_C] - sum_C k_C lambda_C, the max over the node's candidates. A node's "
         "candidates are the root's ('candidates') minus, along its path, those of 'branch.variable' whose "
         "parent set meets ('side': 'disjoint') or misses ('side': 'meets') 'branch.set'. Each split has "
         "both sides as children, so the leaves cover every DAG; the certified bound is the largest leaf "
         "bound, a leaf bounded by any node's U on its path (or -inf if its candidates admit no DAG). With "
         "'fixing', the candidates j with U(fixing.lambda) - (max_s W_i(s) - W_i(s_j)) < 'below' (a bound on "
         "every DAG using j) leave every node, and the largest such bound joins the leaf bounds; a list of them is "
         "applied in order, each over the candidates the ones before it left.")


ABOUT_EXHAUSTIVE = ("Exhaustive check: verify recomputes the best score of any DAG over the cache by the subset "
                    "dynamic programme (Silander & Myllymaki 2006) in plain numpy and compares it with the "
                    "bound; used when no eq. 8 tree was found in the time given and the cache has at most 28 "
                    "variables (the check's memory: 9.1 GiB at n = 28).")


def certify_options(method: str) -> dict[str, Any]:
    """The method options that make ``method`` record what its certificate needs (``dual`` and
    ``highs``; every other method is certified after the fact, :func:`certify_after`)."""
    if method not in CERTIFYING_METHODS:
        raise InputError(f"methods {' and '.join(CERTIFYING_METHODS)} record their own certificate, not "
                         f"{method!r} (see lpbn.certificate.certify_after)")
    return {"certificate": True}


def certify_after(cache: ScoreCache, result: SolveResult, time_limit: float | None = None) -> SolveResult:
    """A certificate for the answer of a method that records none (``dp``, ``bfbnb``, ``brute``,
    ``obs``, ``asobs``, ``race``, ``pulp-cbc``, ``auto``'s other paths): the dual's branch and
    bound (:mod:`lpbn.dual`) run with ``certificate=True`` and the answer's DAG as its incumbent,
    within ``time_limit``.  Valid whatever the first method did: eq. 8 of Jaakkola et al. 2010
    bounds every DAG of a node for any λ >= 0, the tree's leaves cover every DAG, and the
    incumbent only lets the tree prune nodes whose bound is below a DAG that exists; with the
    optimum as incumbent the tree is the smallest the dual can prove it with.  The answer keeps
    its DAG, score, status and bound; the certificate (``extra["certificate_tree"]``) proves the
    dual's bound, ``covers: "partial"`` when the time ran out (verify then reports the bound
    the unfinished tree proves).  Returns ``result``."""
    from .solve import solve
    if result.dag is None:
        raise InputError(f"no DAG to certify (status {result.status})")
    own = (result.extra or {}).get("certificate_tree")
    if own is not None and own.get("covers", "tree") == "tree":
        return result        # the method's own proof (pulp-cbc's LP tree after CBC) is complete
    proof = solve(cache, "dual", time_limit=time_limit, certificate=True, incumbent=result.dag)
    tree = dict(proof.extra["certificate_tree"])
    tree["bound"] = proof.upper_bound
    if proof.status != "optimal":
        tree["covers"] = "partial"
    result.extra = dict(result.extra or {}, certificate_tree=tree)
    exhaustive_if_unfinished(cache, result)
    result.stats = dict(result.stats or {})
    result.stats["certificate_by"] = {"method": "dual", "status": proof.status, "bound": proof.upper_bound,
                                      "seconds": round(proof.seconds, 3)}
    return result


def exhaustive_if_unfinished(cache: ScoreCache, result: SolveResult) -> bool:
    """When the result's eq. 8 tree is unfinished (``covers: "partial"``: dense caches such as
    letter, where neither the dual's nor the LP's tree closes in the time given) and the cache
    has few enough variables for verify to recompute the best DAG's score itself
    (:mod:`lpbn.verify_dp`, n <= 28), mark the result for an exhaustive certificate instead.
    Returns whether it did."""
    tree = (result.extra or {}).get("certificate_tree")
    if tree is None or tree.get("covers") != "partial" or cache.n > MAX_N:
        return False
    result.extra["certificate_exhaustive"] = True
    return True


def _names(cache: ScoreCache, row: np.ndarray) -> list[str]:
    return [cache.names[v] for v in bs.from_bitset(np.asarray(row, dtype=np.uint64))]


def _sparse(lam: np.ndarray) -> dict[str, list]:
    lam = np.asarray(lam, dtype=np.float64)
    idx = np.flatnonzero(lam > 0)
    return {"clusters": [int(c) for c in idx], "values": [float(x) for x in lam[idx]]}


def build_certificate(cache: ScoreCache, result: SolveResult) -> dict[str, Any]:
    """The certificate of ``result`` (solved with ``certificate=True``) over ``cache``, the cache
    as the user has it (before any pruning: its fingerprint is what verify compares)."""
    extra = result.extra or {}
    if extra.get("certificate_exhaustive"):
        return {"format": FORMAT, "version": VERSION, "kind": "exhaustive", "about": ABOUT_EXHAUSTIVE,
                "method": result.method, "cache": cache_fingerprint(cache),
                "bound": result.upper_bound if math.isfinite(result.upper_bound) else None,
                "covers": "exhaustive", "status": result.status,
                "score": result.score if math.isfinite(result.score) else None}
    if "certificate_kbest" in extra:       # a k-best list's (lpbn.kbest.certify), already in final form
        return extra["certificate_kbest"]
    if "certificate_tree" in extra:
        tree = extra["certificate_tree"]
        clusters = [{"members": _names(cache, row), "k": int(k)} for row, k in zip(tree["clusters"], tree["k"])]
        nodes = []
        for nid in sorted(tree["nodes"]):
            parent, branch = tree["nodes"][nid]
            node: dict[str, Any] = {"id": int(nid), "parent": None if parent is None else int(parent)}
            if branch is not None:
                i, row, v = branch
                node["branch"] = {"variable": cache.names[int(i)],
                                  "set": _names(cache, np.frombuffer(row, dtype=np.uint64)),
                                  "side": "disjoint" if v else "meets"}
            if nid in tree["lambda"]:
                node["lambda"] = _sparse(tree["lambda"][nid])
            nodes.append(node)
        covers, candidates = tree.get("covers", "tree"), tree["candidates"]
        bound = float(tree.get("bound", result.upper_bound))
        fixing = tree.get("fixing")
    elif "certificate_lp" in extra:
        lp = extra["certificate_lp"]
        clusters = [{"members": _names(cache, row), "k": int(k)} for row, k in zip(lp["clusters"], lp["k"])]
        nodes = [{"id": 0, "parent": None, "lambda": _sparse(lp["lambda"])}]
        covers, bound, candidates = "root", float(lp["bound"]), lp["candidates"]
        fixing = None
    else:
        raise InputError(f"the {result.method!r} result carries no certificate data (solve with "
                         "method 'dual' or 'highs' and certificate=True)")
    if result.stats.get("constraints"):
        raise InputError("certificates of constrained solves are not supported (the bound is over the "
                         "constrained cache)")
    return {"format": FORMAT, "version": VERSION, "about": ABOUT, "method": result.method,
            "cache": cache_fingerprint(cache), "candidates": candidates,
            "bound": bound if math.isfinite(bound) else None, "covers": covers,
            "status": result.status, "score": result.score if math.isfinite(result.score) else None,
            "clusters": clusters, "nodes": nodes,
            **({"fixing": [{"lambda": _sparse(f["lambda"]), "below": f["below"]} for f in fixing]} if fixing else {})}


def write_certificate(path: str | os.PathLike, cache: ScoreCache, result: SolveResult, *,
                      embed_result: bool = False) -> dict[str, Any]:
    """Build the certificate and write it atomically (gzip when ``path`` ends in .gz).
    ``embed_result``: the result (DAG, score, bound) goes in the file too, as ``"result"``, so
    that ``lpbn verify CACHE CERT`` needs no separate result file (``lpbn learn``)."""
    cert = build_certificate(cache, result)
    if embed_result:
        cert = dict(cert, result={"status": result.status, "method": result.method,
                                  "score": result.score if math.isfinite(result.score) else None,
                                  "upper_bound": result.upper_bound if math.isfinite(result.upper_bound) else None,
                                  "parents": {k: list(v) for k, v in result.dag.parent_names().items()}})
    text = json.dumps(cert, separators=(",", ":")) + "\n"
    if str(path).endswith(".gz"):
        with atomic_write(path, "wb") as fh:
            fh.write(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        with atomic_write(path) as fh:
            fh.write(text)
    return cert
