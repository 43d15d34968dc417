"""``lpbn verify``: check a result and its bound certificate with nothing but plain numpy.

This module deliberately shares no code with the solvers: it imports only the score-file
reader (for the cache's arrays) and the standard library, and re-derives everything else —
the DAG's score and acyclicity, the candidates' parent sets as bitsets, the cluster
indicators, the dominance pruning, the branch restrictions and the bound itself.

The bound (Jaakkola et al. 2010, eq. 8, with Cussens et al. 2017's k-cluster rows): for
clusters C with k_C >= 1 and multipliers λ_C >= 0, every DAG (a parent set s_i per variable)
satisfies, for every C, Σ_{i∈C} [|s_i ∩ C| < k_C] >= k_C (the first k_C members of C in a
topological order have fewer than k_C parents inside C).  Hence for every DAG

    Σ_i W_i(s_i) <= Σ_i W_i(s_i) + Σ_C λ_C (Σ_{i∈C} [|s_i∩C| < k_C] - k_C)
                 <= Σ_i max_{s ∈ P_i} [W_i(s) + Σ_{C∋i} λ_C [|s∩C| < k_C]] - Σ_C k_C λ_C =: U(λ),

whatever λ >= 0 is (k_C = 1 is eq. 8).  A branch-and-bound certificate is a tree whose
internal nodes split one variable's candidates into those disjoint from a set S and those
meeting it; every DAG lies in exactly one leaf, and a leaf's DAGs are bounded by U(λ) of any
node on its path evaluated over that node's restricted candidates (or -inf when the leaf's
candidates admit no DAG).  The certified bound is the largest leaf bound.

With ``"candidates": "non-dominated"`` the bound is over the candidates that no proper
subset with at least the same score dominates (computed here): replacing every parent set
by a non-dominated subset keeps a DAG acyclic and its score no lower, so the best DAG over
all candidates scores no more than the best over these.

Reduced-cost fixing (``"fixing"``): for one λ, a DAG whose variable i uses candidate j scores
at most U(λ) - (max_s W_i(s) - W_i(s_j)) (the chain above with i's term not maximised), so the
candidates whose such bound is below a threshold can leave every node; the certified bound is
then the larger of the largest leaf bound and the largest bound of a fixed candidate.  A list
of fixings is applied in order, each over the candidates the earlier ones left (the maxima
then run over fewer candidates, which only lowers the later bounds' U(λ)).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError

FORMAT = "lpbn-certificate"
#: the two ways a split divides one variable's candidates: by meeting a set, or by being it
SIDES = ("disjoint", "meets", "equals", "differs")
VERSION = 1
#: relative tolerance of the score comparison and of "the recomputed bound implies the
#: reported one" (the solvers close a node at 1e-9 relative; the slack covers summation order)
RTOL = 2e-9


class CertificateError(InputError):
    """The certificate or result is unreadable or malformed (bad input, exit 2)."""


# ---------------------------------------------------------------------- the cache, plainly
def cache_fingerprint(cache) -> dict[str, Any]:
    """n, names, number of candidates and a SHA-256 of the (sorted) parent sets and scores."""
    h = hashlib.sha256()
    h.update("\0".join(cache.names).encode("utf-8"))
    for arr, dt in ((cache.offsets, "<i8"), (cache.pset_ptr, "<i8"), (cache.pset_items, "<i8"),
                    (cache.scores, "<f8")):
        h.update(np.ascontiguousarray(np.asarray(arr), dtype=dt).tobytes())
    return {"n": int(len(cache.names)), "variables": list(cache.names),
            "candidates": int(len(cache.scores)), "sha256": h.hexdigest()}


_POP8 = np.array([bin(x).count("1") for x in range(256)], dtype=np.int64)


def _popcount_rows(x: np.ndarray) -> np.ndarray:
    """Number of set bits of each row of a (m, W) uint64 array."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).sum(axis=1, dtype=np.int64)
    b = np.ascontiguousarray(x).view(np.uint8).reshape(x.shape[0], -1)
    return _POP8[b].sum(axis=1)


class PlainCache:
    """The cache's arrays re-read into plain numpy: parent-set bitsets built here."""

    def __init__(self, cache):
        self.names = list(cache.names)
        self.n = len(self.names)
        self.index = {v: i for i, v in enumerate(self.names)}
        self.offsets = np.array(cache.offsets, dtype=np.int64)
        self.scores = np.array(cache.scores, dtype=np.float64)
        ptr = np.array(cache.pset_ptr, dtype=np.int64)
        items = np.array(cache.pset_items, dtype=np.int64)
        self.m = len(self.scores)
        self.ptr, self.items = ptr, items
        self.family = np.repeat(np.arange(self.n), np.diff(self.offsets))
        self.sizes = np.diff(ptr)
        self.W = (self.n + 63) // 64
        self.bits = np.zeros((self.m, self.W), dtype=np.uint64)
        rows = np.repeat(np.arange(self.m), self.sizes)
        np.bitwise_or.at(self.bits, (rows, items // 64),
                         np.left_shift(np.uint64(1), (items % 64).astype(np.uint64)))
        self.fingerprint = cache_fingerprint(cache)

    def parents(self, j: int) -> tuple[int, ...]:
        return tuple(int(x) for x in self.items[self.ptr[j]:self.ptr[j + 1]])

    def find(self, i: int, parents: tuple[int, ...]) -> int | None:
        """The candidate of variable i with exactly these (sorted) parents, or None."""
        if not hasattr(self, "_where"):
            self._where = {(int(self.family[j]), self.parents(j)): j for j in range(self.m)}
        return self._where.get((i, parents))

    def mask(self, members) -> np.ndarray:
        w = np.zeros(self.W, dtype=np.uint64)
        for v in members:
            w[v // 64] |= np.uint64(1) << np.uint64(v % 64)
        return w

    def meets(self, members_mask: np.ndarray) -> np.ndarray:
        """|s_j ∩ S| for every candidate j."""
        return _popcount_rows(self.bits & members_mask[None, :])

    def non_dominated(self) -> np.ndarray:
        """Candidates that no proper subset candidate of the same variable with a score at least
        as high dominates (bool per candidate)."""
        keep = np.ones(self.m, dtype=bool)
        for i in range(self.n):
            lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
            b, s, z = self.bits[lo:hi], self.scores[lo:hi], self.sizes[lo:hi]
            for a in range(0, hi - lo, 256):
                bj = b[a:a + 256]
                # sub[k, j]: candidate k's set lies inside candidate j's
                sub = np.all((b[:, None, :] & ~bj[None, :, :]) == 0, axis=2)
                dom = sub & (z[:, None] < z[None, a:a + 256]) & (s[:, None] >= s[None, a:a + 256])
                keep[lo + a:lo + a + len(bj)] = ~dom.any(axis=0)
        return keep

    def admits_dag(self, allowed: np.ndarray) -> bool:
        """Some DAG uses only allowed candidates: place greedily every variable that has an
        allowed candidate inside the placed set (complete: placing never hurts)."""
        placed = np.zeros(self.W, dtype=np.uint64)
        done = np.zeros(self.n, dtype=bool)
        while not done.all():
            inside = np.all((self.bits & ~placed[None, :]) == 0, axis=1)
            ok = allowed & inside & ~done[self.family]
            fams = np.unique(self.family[ok])
            if len(fams) == 0:
                return False
            done[fams] = True
            placed = self.mask(np.flatnonzero(done))
        return True


# ---------------------------------------------------------------------- reading inputs
def _load_json(obj, what: str) -> dict:
    if isinstance(obj, dict):
        return obj
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    path = os.fspath(obj)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise CertificateError(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise CertificateError(f"{path}: bad gzip data in {what}: {exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise CertificateError(f"{path}: {what} is not JSON ({exc}); write it with "
                               "`lpbn solve --format json`" if what == "result" else
                               f"{path}: {what} is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CertificateError(f"{path}: {what} must be a JSON object")
    return data


def _num(x, what: str) -> float:
    if x is None:
        return math.nan
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise CertificateError(f"{what} must be a number, got {x!r}")
    return float(x)


# ---------------------------------------------------------------------- the report
@dataclass
class VerifyReport:
    """Outcome of :func:`verify`: ``ok`` (every check passed and the reported bound is
    implied), the checks as (name, passed, text), the verified bound and gap."""

    ok: bool = True
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    score: float = math.nan
    reported_bound: float = math.nan
    verified_bound: float = math.nan
    covers: str | None = None
    #: k-best certificates: how many DAGs are listed and the smallest listed score
    listed: int | None = None
    kth: float = math.nan

    def add(self, name: str, passed: bool, text: str) -> bool:
        self.checks.append((name, bool(passed), text))
        if not passed:
            self.ok = False
        return passed

    @property
    def bound_verified(self) -> bool:
        return self.ok and math.isfinite(self.verified_bound)

    @property
    def verified_gap(self) -> float:
        if not (math.isfinite(self.score) and math.isfinite(self.verified_bound)):
            return math.inf
        return (self.verified_bound - self.score) / max(1.0, abs(self.score))   # negative: not a bound

    @property
    def failures(self) -> list[str]:
        return [t for _, ok, t in self.checks if not ok]

    def summary(self) -> str:
        if self.listed is not None and self.ok and math.isfinite(self.kth):
            return (f"k-best list verified: {self.listed} DAGs listed (the last scores {self.kth:.12g}); every "
                    f"DAG not listed scores at most {self.verified_bound:.12g}")
        if self.bound_verified:
            return (f"bound verified: every DAG scores at most {self.verified_bound:.12g}; the DAG scores "
                    f"{self.score:.12g} (verified gap {self.verified_gap:.3e})")
        if self.ok:
            return "DAG verified; no certificate, so the bound is not checked"
        return "NOT verified: " + "; ".join(self.failures)

    def to_text(self) -> str:
        lines = [f"{'ok  ' if ok else 'FAIL'}  {name}: {text}" for name, ok, text in self.checks]
        return "\n".join(lines + [self.summary()]) + "\n"

    def to_dict(self) -> dict[str, Any]:
        def num(x):
            return x if math.isfinite(x) else None
        return {"ok": self.ok, "bound_verified": self.bound_verified, "covers": self.covers,
                "score": num(self.score), "reported_bound": num(self.reported_bound),
                "verified_bound": num(self.verified_bound), "verified_gap": num(self.verified_gap),
                **({"listed": self.listed, "kth_score": num(self.kth)} if self.listed is not None else {}),
                "checks": [{"check": n, "ok": ok, "detail": t} for n, ok, t in self.checks],
                "summary": self.summary()}


# ---------------------------------------------------------------------- checks
def _close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(1.0, abs(a), abs(b))


def _check_dag(pc: PlainCache, result: dict, report: VerifyReport, rtol: float) -> None:
    parents = result.get("parents")
    if not isinstance(parents, dict):
        raise CertificateError("the result has no DAG ('parents' missing or null)")
    unknown = [v for v in parents if v not in pc.index]
    if unknown or len(parents) != pc.n:
        missing = [v for v in pc.names if v not in parents]
        report.add("dag", False, "the result's variables are not the cache's"
                   + (f" (unknown: {', '.join(map(str, unknown[:5]))})" if unknown else "")
                   + (f" (missing: {', '.join(missing[:5])})" if missing else ""))
        return
    total = []
    ps_idx: list[list[int]] = [[] for _ in range(pc.n)]
    for v, ps in parents.items():
        i = pc.index[v]
        if not isinstance(ps, list) or any(not isinstance(p, str) or p not in pc.index for p in ps):
            report.add("dag", False, f"parents of {v} are not variables of the cache: {ps!r}")
            return
        want = tuple(sorted(pc.index[p] for p in ps))
        if len(set(want)) != len(want):
            report.add("dag", False, f"parents of {v} repeat a variable")
            return
        found = pc.find(i, want)
        if found is None:
            report.add("dag", False, f"parent set {{{', '.join(ps)}}} of {v} is not a candidate of the cache")
            return
        total.append(float(pc.scores[found]))
        ps_idx[i] = list(want)
    report.add("dag", True, f"every parent set is a candidate of the cache ({pc.n} variables)")
    # acyclicity (Kahn)
    indeg = [len(p) for p in ps_idx]
    children: list[list[int]] = [[] for _ in range(pc.n)]
    for i, ps in enumerate(ps_idx):
        for p in ps:
            children[p].append(i)
    ready = [i for i in range(pc.n) if indeg[i] == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    if not report.add("acyclic", seen == pc.n, "the DAG is acyclic" if seen == pc.n else
                      f"the DAG has a directed cycle through {pc.n - seen} variables"):
        return
    score = math.fsum(total)
    report.score = score
    claimed = _num(result.get("score"), "the result's score")
    report.add("score", _close(score, claimed, rtol),
               f"re-scored {score:.12g}, reported {claimed:.12g}")


class _Evaluator:
    """U(λ) of eq. 8 over restricted candidates, with the clusters' indicators cached."""

    def __init__(self, pc: PlainCache, clusters: list[tuple[np.ndarray, int]], domain: np.ndarray):
        self.pc = pc
        self.clusters = clusters
        self.domain = domain
        self._active: dict[int, np.ndarray] = {}
        self._adj: dict[int, tuple] = {}

    def active(self, c: int) -> np.ndarray:
        """Candidates j whose variable is in C_c and |s_j ∩ C_c| < k_c (I_C(s_j) = 1)."""
        got = self._active.get(c)
        if got is None:
            mask, k = self.clusters[c]
            fam_in = (mask[self.pc.family // 64] >> (self.pc.family % 64).astype(np.uint64)) & np.uint64(1)
            got = np.flatnonzero(fam_in.astype(bool) & (self.pc.meets(mask) < k))
            if len(self._active) < 20000:
                self._active[c] = got
        return got

    def bound(self, allowed: np.ndarray, lam: list[tuple[int, float]], shared: bool = False) -> float:
        return self.candidate_bounds(allowed, lam, shared)[0]

    def candidate_bounds(self, allowed: np.ndarray, lam: list[tuple[int, float]],
                         shared: bool = False) -> tuple[float, np.ndarray]:
        """U(λ) over ``allowed`` and, per allowed candidate j of variable i, the bound on every
        DAG that uses j: U(λ) - (max_{s ∈ P_i} W_i(s) - W_i(s_j)) (-inf for the others)."""
        pc = self.pc
        got = self._adj.get(id(lam)) if shared else None
        if got is None or got[0] is not lam:     # one λ shared by many leaves: its sums kept once
            adj = np.zeros(pc.m)
            const = []
            for c, value in lam:
                np.add.at(adj, self.active(c), value)
                const.append(self.clusters[c][1] * value)
            got = (lam, pc.scores + adj, const)
            if shared:
                self._adj[id(lam)] = got
        _, adjusted, const = got
        vals = np.where(allowed, adjusted, -np.inf)
        best = np.maximum.reduceat(vals, pc.offsets[:-1])
        if np.any(best == -np.inf):
            return -math.inf, np.full(pc.m, -math.inf)
        u = math.fsum(best.tolist()) - math.fsum(const)
        with np.errstate(invalid="ignore"):
            per = np.where(allowed, u - (best[pc.family] - vals), -np.inf)
        return u, per


def _parse_certificate(cert: dict, pc: PlainCache, report: VerifyReport):
    if cert.get("format") != FORMAT:
        raise CertificateError(f"not an lpbn certificate (format {cert.get('format')!r}, expected {FORMAT!r})")
    if cert.get("version") != VERSION:
        raise CertificateError(f"certificate version {cert.get('version')!r} is not supported (this lpbn reads "
                               f"version {VERSION})")
    fp = cert.get("cache")
    if not isinstance(fp, dict):
        raise CertificateError("the certificate has no 'cache' fingerprint")
    mine = pc.fingerprint
    if fp.get("variables") != mine["variables"] or fp.get("n") != mine["n"]:
        report.add("cache", False, "the certificate is for a different cache (other variables)")
        return None
    if fp.get("candidates") != mine["candidates"] or fp.get("sha256") != mine["sha256"]:
        report.add("cache", False, f"the certificate is for a different cache (its {fp.get('candidates')} "
                   f"candidate sets / scores hash differ from this cache's {mine['candidates']})")
        return None
    report.add("cache", True, f"fingerprint matches ({mine['n']} variables, {mine['candidates']} candidate sets)")
    clusters = []
    raw = cert.get("clusters")
    if not isinstance(raw, list):
        raise CertificateError("the certificate has no 'clusters' list")
    for c, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("members"), list) \
                or not all(isinstance(v, str) for v in item["members"]):
            raise CertificateError(f"cluster {c}: expected {{'members': [...], 'k': K}}")
        k = item.get("k", 1)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise CertificateError(f"cluster {c}: k must be a positive integer, got {k!r}")
        try:
            members = [pc.index[v] for v in item["members"]]
        except (KeyError, TypeError):
            raise CertificateError(f"cluster {c}: unknown variable in {item['members'][:5]!r}") from None
        if k > len(set(members)):
            # Σ_{i∈C} [|s_i∩C| < k] >= k holds for every DAG only when k <= |C|
            report.add("clusters", False, f"cluster {c} has k = {k} but only {len(set(members))} member(s): "
                       "its constraint is not valid for every DAG")
            return None
        clusters.append((pc.mask(members), k))
    nodes = cert.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        raise CertificateError("the certificate has no 'nodes'")
    parsed = {}
    for t, nd in enumerate(nodes):
        if not isinstance(nd, dict) or not isinstance(nd.get("id"), int):
            raise CertificateError(f"node {t}: expected an object with an integer 'id'")
        nid = nd["id"]
        if nid in parsed:
            raise CertificateError(f"node id {nid} appears twice")
        branch = nd.get("branch")
        if nd.get("parent") is not None and (isinstance(nd["parent"], bool) or not isinstance(nd["parent"], int)):
            raise CertificateError(f"node {nid}: 'parent' must be a node id or null")
        if nd.get("parent") is None:
            if branch is not None:
                raise CertificateError(f"node {nid}: the root has no branch")
        else:
            if not isinstance(branch, dict) or branch.get("side") not in SIDES \
                    or not isinstance(branch.get("variable"), str) or branch.get("variable") not in pc.index or not isinstance(branch.get("set"), list):
                raise CertificateError(f"node {nid}: branch must be {{'variable', 'set', 'side': "
                                       "'disjoint'|'meets'|'equals'|'differs'}} over the cache's variables")
            if not all(isinstance(v, str) for v in branch["set"]):
                raise CertificateError(f"node {nid}: the branch set must list variable names")
            try:
                members = sorted(pc.index[v] for v in branch["set"])
            except (KeyError, TypeError):
                raise CertificateError(f"node {nid}: unknown variable in the branch set") from None
            branch = (pc.index[branch["variable"]], tuple(members), branch["side"])
        lam = []
        spec = nd.get("lambda") or {}
        if not isinstance(spec, dict):
            raise CertificateError(f"node {nid}: lambda must be {{'clusters': [...], 'values': [...]}}")
        idx, val = spec.get("clusters", []), spec.get("values", [])
        if not isinstance(idx, list) or not isinstance(val, list) or len(idx) != len(val):
            raise CertificateError(f"node {nid}: lambda needs equally long 'clusters' and 'values'")
        for c, x in zip(idx, val):
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < len(clusters):
                raise CertificateError(f"node {nid}: lambda names cluster {c!r}, not in 0..{len(clusters) - 1}")
            x = _num(x, f"node {nid}: lambda")
            if not (x >= 0 and math.isfinite(x)):
                report.add("lambda", False, f"node {nid}: λ of cluster {c} is {x} (must be finite and >= 0)")
                return None
            lam.append((c, x))
        ref = nd.get("lambda_of")
        if ref is not None and (isinstance(ref, bool) or not isinstance(ref, int)):
            raise CertificateError(f"node {nid}: 'lambda_of' must be a node id")
        parsed[nid] = {"parent": nd.get("parent"), "branch": branch, "lam": lam if "lambda" in nd else None,
                       "lambda_of": ref if "lambda" not in nd else None, "listed": nd.get("listed") is True}
    for nid, nd in parsed.items():       # a leaf may use another node's λ over its own candidates
        ref = nd["lambda_of"]
        if ref is not None:
            if ref not in parsed or parsed[ref]["lam"] is None:
                raise CertificateError(f"node {nid}: 'lambda_of' names node {ref}, which has no lambda")
            nd["lam"] = parsed[ref]["lam"]
    return clusters, parsed


def _check_tree(parsed: dict, report: VerifyReport):
    """Children per node; checks one root, parents exist, no cycles, and that every internal
    node has exactly two children splitting the same variable on the same set both ways."""
    roots = [nid for nid, nd in parsed.items() if nd["parent"] is None]
    if len(roots) != 1:
        report.add("tree", False, f"the tree has {len(roots)} roots (needs exactly one)")
        return None
    children: dict[int, list[int]] = {nid: [] for nid in parsed}
    for nid, nd in parsed.items():
        if nd["parent"] is not None:
            if nd["parent"] not in parsed:
                report.add("tree", False, f"node {nid}: parent {nd['parent']} is not in the tree")
                return None
            children[nd["parent"]].append(nid)
    for nid, ch in children.items():
        if not ch:
            continue
        if len(ch) != 2:
            report.add("tree", False, f"node {nid} has {len(ch)} children (a split needs exactly 2)")
            return None
        a, b = (parsed[c]["branch"] for c in ch)
        if a[:2] != b[:2] or {a[2], b[2]} not in ({"disjoint", "meets"}, {"equals", "differs"}):
            report.add("tree", False, f"the children of node {nid} do not split one variable's parent sets "
                       "both ways on one set, so they do not cover every DAG")
            return None
    # reachability (no cycles through parent pointers)
    seen, stack = set(), [roots[0]]
    while stack:
        v = stack.pop()
        seen.add(v)
        stack.extend(children[v])
    if len(seen) != len(parsed):
        report.add("tree", False, f"{len(parsed) - len(seen)} node(s) are not reachable from the root")
        return None
    leaves = sum(1 for ch in children.values() if not ch)
    report.add("tree", True, f"{len(parsed)} node(s), {leaves} leaf/leaves; every split covers both sides")
    return roots[0], children


def _fixing(spec, ev: _Evaluator, domain: np.ndarray, n_clusters: int, report: VerifyReport):
    """Reduced-cost fixing (``"fixing": [{"lambda": ..., "below": s}, ...]``, or one such
    object): in order, the candidates j of the domain left so far whose bound U(λ) - regret_j
    (see :meth:`_Evaluator.candidate_bounds`, over that domain) is below s leave the domain of
    every node; the DAGs that use one of them are bounded by the largest such bound.  Returns
    (that bound, the remaining domain), or (-inf, domain) without fixing, or (nan, None) when
    an entry is malformed beyond an input error."""
    if spec is None:
        return -math.inf, domain
    specs = spec if isinstance(spec, list) else [spec]
    bound = -math.inf
    for k, one in enumerate(specs):
        fixed_bound, domain = _fix_once(one, ev, domain, n_clusters, report,
                                        "fixing" if len(specs) == 1 else f"fixing {k + 1} of {len(specs)}")
        if domain is None:
            return math.nan, None
        bound = max(bound, fixed_bound)
    return bound, domain


def _fix_once(spec, ev: _Evaluator, domain: np.ndarray, n_clusters: int, report: VerifyReport, label: str):
    """One entry of :func:`_fixing`."""
    if not isinstance(spec, dict) or not isinstance(spec.get("lambda"), dict):
        raise CertificateError("'fixing' must be a list of {'lambda': {'clusters': [...], 'values': [...]}, "
                               "'below': s}")
    below = _num(spec.get("below"), "fixing: below")
    idx, val = spec["lambda"].get("clusters", []), spec["lambda"].get("values", [])
    if not isinstance(idx, list) or not isinstance(val, list) or len(idx) != len(val):
        raise CertificateError("fixing: lambda needs equally long 'clusters' and 'values'")
    lam = []
    for c, x in zip(idx, val):
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < n_clusters:
            raise CertificateError(f"fixing: lambda names cluster {c!r}, not in 0..{n_clusters - 1}")
        x = _num(x, "fixing: lambda")
        if not (x >= 0 and math.isfinite(x)):
            report.add("fixing", False, f"{label}: λ of cluster {c} is {x} (must be finite and >= 0)")
            return math.nan, None
        lam.append((c, x))
    _, per = ev.candidate_bounds(domain, lam)
    fixed = domain & (per < below)
    bound = float(per[fixed].max()) if fixed.any() else -math.inf
    report.add("fixing", True, f"{label}: {int(fixed.sum())} candidate set(s) fixed out by reduced cost (every "
               f"DAG using one scores at most {bound:.12g})")
    return bound, domain & ~fixed


def _walk(pc: PlainCache, parsed: dict, tree, domain: np.ndarray, ev: _Evaluator, threshold: float,
          listed: set | None, report: VerifyReport):
    """Every leaf's bound, depth first: the least of its path's U(λ) (each valid for its
    DAGs), stopping as soon as one is at most ``threshold``; else -inf if its candidates admit
    no DAG.  A leaf marked ``listed`` (k-best certificates) must hold exactly one candidate per
    variable forming a DAG of ``listed``; it is excluded.  Returns (the largest bound, its leaf,
    the number of leaves, of listed leaves); (nan, None, None, None) after a failed check."""
    root, children = tree
    own: dict[int, float] = {}

    def node_bound(nid: int, allowed: np.ndarray) -> float:
        if nid not in own:
            lam = parsed[nid]["lam"]
            own[nid] = ev.bound(allowed, lam if lam is not None else [], parsed[nid]["lambda_of"] is not None)
        return own[nid]

    worst, worst_leaf = -math.inf, None
    stack = [(root, domain.copy(), [])]
    leaves = listed_leaves = 0
    while stack:
        nid, allowed, path = stack.pop()
        path = path + [(nid, allowed)]
        if children[nid]:
            for c in children[nid]:
                i, members, side = parsed[c]["branch"]
                lo, hi = int(pc.offsets[i]), int(pc.offsets[i + 1])
                sub = allowed.copy()
                if side in ("equals", "differs"):     # the parent set is exactly the branch set
                    hit = np.all(pc.bits[lo:hi] == pc.mask(members)[None, :], axis=1)
                    sub[lo:hi] &= hit if side == "equals" else ~hit
                else:
                    hit = pc.meets(pc.mask(members))[lo:hi] > 0
                    sub[lo:hi] &= hit if side == "meets" else ~hit
                stack.append((c, sub, path))
            continue
        leaves += 1
        if parsed[nid]["listed"]:
            choice = tuple(int(j) for j in np.flatnonzero(allowed))
            if listed is None or len(choice) != pc.n or choice not in listed:
                report.add("listed leaf", False, f"leaf {nid} is marked listed, but its candidates are not "
                           "exactly one DAG of the result's list")
                return math.nan, None, None, None
            listed_leaves += 1
            continue
        b = math.inf
        for pid, pallowed in reversed(path):
            if parsed[pid]["lam"] is None and pid != nid:
                continue
            b = min(b, node_bound(pid, pallowed))
            if b <= threshold:
                break
        if b > threshold and not pc.admits_dag(allowed):
            b = -math.inf
        if b > worst:
            worst, worst_leaf = b, nid
    return worst, worst_leaf, leaves, listed_leaves


def _verify_bound(pc: PlainCache, cert: dict, report: VerifyReport, target: float, rtol: float,
                  listed: set | None = None, what: str = "reported upper bound") -> None:
    got = _parse_certificate(cert, pc, report)
    if got is None:
        return
    clusters, parsed = got
    tree = _check_tree(parsed, report)
    if tree is None:
        return
    candidates = cert.get("candidates", "all")
    if candidates == "non-dominated":
        domain = pc.non_dominated()
        note = f"over the {int(domain.sum())} non-dominated of {pc.m} candidate sets"
    elif candidates == "all":
        domain = np.ones(pc.m, dtype=bool)
        note = f"over all {pc.m} candidate sets"
    else:
        raise CertificateError(f"'candidates' must be 'all' or 'non-dominated', got {candidates!r}")
    ev = _Evaluator(pc, clusters, domain)
    fixed_bound, domain = _fixing(cert.get("fixing"), ev, domain, len(clusters), report)
    if domain is None:
        return
    tol = rtol * max(1.0, abs(target)) if math.isfinite(target) else 0.0
    threshold = target + tol
    worst, worst_leaf, leaves, listed_leaves = _walk(pc, parsed, tree, domain, ev, threshold, listed, report)
    if leaves is None:
        return
    if fixed_bound > worst:
        worst, worst_leaf = fixed_bound, None
    report.verified_bound = worst
    report.covers = cert.get("covers", "tree")
    report.add("certificate bound", True,
               f"{leaves - listed_leaves} leaf bound(s) recomputed {note}; the largest is {worst:.12g}"
               + (f" (leaf {worst_leaf})" if worst_leaf is not None and leaves > 1 else "")
               + (f"; {listed_leaves} leaf/leaves fixed to a listed DAG" if listed is not None else ""))
    claimed = _num(cert.get("bound"), "the certificate's bound")
    if math.isfinite(claimed) and worst > claimed + rtol * max(1.0, abs(claimed)):
        report.add("certificate claim", False, f"the recomputed bound {worst:.12g} exceeds the certificate's "
                   f"own claim {claimed:.12g}")
    if worst > threshold:
        if report.covers == "root":
            report.add("reported bound", False,
                       f"the certificate covers the root LP only: it verifies the LP bound {worst:.12g}, "
                       f"not the {what} {target:.12g} (proved by the solver's branch and bound, "
                       "which this certificate does not record)")
        elif report.covers == "partial":
            report.add("reported bound", False,
                       f"the certificate's tree is unfinished (its time ran out): it verifies the bound "
                       f"{worst:.12g}, not the {what} {target:.12g}")
        else:
            report.add("reported bound", False, f"the recomputed bound {worst:.12g} is above the {what} "
                       f"{target:.12g}: the certificate does not prove it")
    else:
        report.add("reported bound", True, f"recomputed bound {worst:.12g} <= {what} {target:.12g}")


def _verify_exhaustive(pc: PlainCache, cert: dict, report: VerifyReport, target: float, rtol: float) -> None:
    """``"kind": "exhaustive"``: the best score of any DAG recomputed (:mod:`lpbn.verify_dp`)
    must not exceed the reported bound."""
    from .verify_dp import wide_tables, best_dag_score, shortfall
    if cert.get("format") != FORMAT:
        raise CertificateError(f"not an lpbn certificate (format {cert.get('format')!r}, expected {FORMAT!r})")
    if cert.get("version") != VERSION:
        raise CertificateError(f"certificate version {cert.get('version')!r} is not supported")
    fp = cert.get("cache")
    if not isinstance(fp, dict):
        raise CertificateError("the certificate has no 'cache' fingerprint")
    mine = pc.fingerprint
    if any(fp.get(k) != mine[k] for k in ("n", "variables", "candidates", "sha256")):
        report.add("cache", False, "the certificate is for a different cache (fingerprint differs)")
        return
    report.add("cache", True, f"fingerprint matches ({mine['n']} variables, {mine['candidates']} candidate sets)")
    if not math.isfinite(target):
        report.add("reported bound", False, "the result reports no finite upper bound to verify")
        return
    why = shortfall(pc.n, wide_tables(pc))
    if why is not None:
        report.add("exhaustive", False, why)
        return
    best = best_dag_score(pc)
    report.verified_bound = best
    report.covers = "exhaustive"
    report.add("exhaustive", True, f"the best DAG over all {pc.m} candidate sets, recomputed by the subset DP, "
               f"scores {best:.12g}")
    ok = best <= target + rtol * max(1.0, abs(target))
    report.add("reported bound", ok, f"recomputed best {best:.12g} {'<=' if ok else '>'} reported upper bound "
               f"{target:.12g}")


def _check_list(pc: PlainCache, res: dict, cert: dict, report: VerifyReport, rtol: float):
    """A k-best result's list (``solutions``): every DAG's parent sets are candidates, acyclic,
    re-scored as claimed, no DAG twice, at least K of them (or the certificate must show no
    other DAG exists).  Returns (the listed DAGs as tuples of candidate indices, the smallest
    listed score, or -inf with fewer than K), or None after a failed check."""
    sols, spec = res.get("solutions"), cert.get("kbest")
    if not isinstance(sols, list) or not sols:
        raise CertificateError("a k-best certificate needs the k-best result (`lpbn solve --k-best K --format json`)")
    if not isinstance(spec, dict) or isinstance(spec.get("k"), bool) or not isinstance(spec.get("k"), int) \
            or spec["k"] < 1:
        raise CertificateError("the k-best certificate has no 'kbest': {'k': K} (a positive integer)")
    listed, kth = set(), math.inf
    for r, sol in enumerate(sols):
        if not isinstance(sol, dict) or not isinstance(sol.get("parents"), dict):
            raise CertificateError(f"solution {r + 1}: expected {{'score', 'parents': {{...}}}}")
        sub = VerifyReport()
        _check_dag(pc, sol, sub, rtol)
        if not sub.ok:
            report.add("list", False, f"listed DAG {r + 1}: " + "; ".join(sub.failures))
            return None
        choice = tuple(pc.find(pc.index[v], tuple(sorted(pc.index[p] for p in ps)))
                       for v, ps in sorted(sol["parents"].items(), key=lambda kv: pc.index[kv[0]]))
        if choice in listed:
            report.add("list", False, f"listed DAG {r + 1} appears twice in the list")
            return None
        listed.add(choice)
        kth = min(kth, sub.score)
    k = spec["k"]
    report.listed, report.kth = len(listed), kth
    report.add("list", True, f"{len(listed)} distinct listed DAG(s), each acyclic, over candidates and re-scored "
               f"(the last scores {kth:.12g}; K = {k})")
    return listed, (kth if len(listed) >= k else -math.inf)


def verify(cache, result, certificate=None, *, rtol: float = RTOL) -> VerifyReport:
    """Check a solve result (and, with a certificate, its bound) against a score cache.

    ``cache``: a :class:`~lpbn.ScoreCache` or a score file path; ``result``: the JSON of
    ``lpbn solve --format json`` (path, dict or :class:`~lpbn.SolveResult`); ``certificate``:
    the file ``lpbn solve --certificate`` wrote (path, optionally gzip, or dict).  Raises
    :class:`CertificateError` (an :class:`~lpbn.InputError`-like bad input) on unreadable or
    malformed inputs; failed checks are in the report (``report.ok`` False).
    """
    if isinstance(cache, (str, os.PathLike)):
        from .formats import read_scores
        cache = read_scores(cache)
    pc = PlainCache(cache)
    res = _load_json(result, "result")
    cert = _load_json(certificate, "certificate") if certificate is not None else None
    if cert is None and res.get("format") == FORMAT and isinstance(res.get("result"), dict):
        cert, res = res, res["result"]      # a certificate with its result embedded (lpbn learn)
    if res.get("format") == FORMAT:
        raise CertificateError("RESULT is a certificate; the arguments are CACHE RESULT [CERTIFICATE]")
    if cert is not None and cert.get("format") != FORMAT and "parents" in cert:
        raise CertificateError("CERTIFICATE is a solve result; the arguments are CACHE RESULT [CERTIFICATE]")
    report = VerifyReport()
    report.reported_bound = _num(res.get("upper_bound"), "the result's upper_bound")
    _check_dag(pc, res, report, rtol)
    if cert is not None and cert.get("kind") == "exhaustive":
        _verify_exhaustive(pc, cert, report, report.reported_bound, rtol)
    elif cert is not None and cert.get("kind") == "k-best":
        got = _check_list(pc, res, cert, report, rtol)
        if got is not None:
            listed, kth = got
            _verify_bound(pc, cert, report, kth, rtol, listed, what="score of the list's last DAG")
    elif cert is not None:
        target = report.reported_bound
        if not math.isfinite(target):
            report.add("reported bound", False, "the result reports no finite upper bound to verify")
        else:
            _verify_bound(pc, cert, report, target, rtol)
    return report
