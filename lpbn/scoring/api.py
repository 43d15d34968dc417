"""Front door of the scorer: ``score_data(data, score="bic", ...) -> ScoreCache``."""

from __future__ import annotations

import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence

import numba
import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from .counting import (DENSE_CELLS, buffer_limit, extend_and_count_dense, family_stats, lg_table,
                       set_codes, suffix_codes)
from .data import Dataset, read_data
from .kbest import algorithm2_bounds
from .pruning import (chen_corollary1, degree_bound, dfbnb_family, k3_greedy, new_joint_table,
                      tian_global_bound)
from .scores import BDEU, LN2, MDL, kind_of, penalty_coef

__all__ = ["score_data", "read_data", "Dataset"]


MAX_CELLS = 1 << 27  # count-buffer cells (2 x int32 arrays: 1 GiB)


class _Ctx:
    """Everything a worker needs to score one variable (sent once per worker process)."""

    def __init__(self, ds: Dataset, kind: int, ess: float, k: int, max_parents: int | None,
                 use_tw: bool, order: Sequence[int] | None, kbest_limits: np.ndarray | None,
                 rules: frozenset = frozenset(("limit", "dominance", "bnb"))):
        self.cols = ds.columns
        self.arities = ds.arities.astype(np.int64)
        self.N = ds.N
        self.n = ds.n
        self.kind = kind
        self.ess = float(ess)
        self.k = int(k)
        self.max_parents = max_parents
        self.use_tw = use_tw
        self.order = None if order is None else list(order)
        self.kbest_limits = kbest_limits
        self.rules = frozenset(rules)
        self.joint_cap = 1_000_000  # entries (<= 64 MB per process)
        self.lgt = lg_table(self.N)
        cells = buffer_limit(self.N, int(self.arities.max()))
        if cells > MAX_CELLS:
            from ..errors import ResourceLimitError
            j = int(np.argmax(self.arities))
            raise ResourceLimitError(
                f"variable {ds.names[j]} has {int(self.arities[j])} states for {self.N} rows: the count "
                f"buffers would need {cells * 8 / 2**30:.1f} GiB; discretise or drop that column")
        self.qlimit_cells = cells
        self.mapsize = int(min(cells * 2, 1 << 22))


_CTX: _Ctx | None = None


def _init_worker(ctx: _Ctx) -> None:
    global _CTX
    _CTX = ctx


def _work(x: int):
    return score_variable(_CTX, x)


def _dominance_keep(sets, sizes, scores, k, n):
    """Theorem 3 (Chen et al.; Teyssier-Koller for k = 1): keep a set unless >= k of its
    proper subsets in the list score at least as well."""
    W = (n + 63) // 64
    bits = _to_bits(sets, sizes.astype(np.int64), W)
    return _keep_kernel(bits, sizes.astype(np.int64), scores, int(k))


@numba.njit(cache=True)
def _to_bits(sets, sizes, W):
    M = sizes.shape[0]
    bits = np.zeros((M, W), dtype=np.uint64)
    for j in range(M):
        for t in range(sizes[j]):
            v = sets[j, t]
            bits[j, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return bits


@numba.njit(cache=True)
def _keep_kernel(bits, sizes, scores, k):
    M, W = bits.shape
    keep = np.ones(M, dtype=np.bool_)
    for j in range(M):
        c = 0
        for i in range(M):
            if sizes[i] >= sizes[j] or scores[i] < scores[j]:
                continue
            sub = True
            for w in range(W):
                if bits[i, w] & ~bits[j, w]:
                    sub = False
                    break
            if sub:
                c += 1
                if c >= k:
                    keep[j] = False
                    break
    return keep


_JOINT: dict[int, tuple] = {}


def _joint_memo(ctx: _Ctx):
    """Per-process memo of ``E(S)``, ``F(S)`` shared by the variables of one scoring run
    (numpy open-addressing table, see :func:`.pruning.new_joint_table`)."""
    key = id(ctx)
    if key not in _JOINT:
        _JOINT.clear()
        L = ctx.n - 1 if ctx.max_parents is None else min(ctx.max_parents, ctx.n - 1)
        est = 0
        for j in range(0, L + 2):
            est += math.comb(ctx.n, j)
            if est > ctx.joint_cap:
                break
        _JOINT[key] = new_joint_table(est, ctx.joint_cap)
    return _JOINT[key]


_BUF: dict[int, tuple] = {}


def _buffers(ctx: _Ctx):
    """Per-process zeroed count buffers (kernels leave them zeroed after use)."""
    key = id(ctx)
    if key not in _BUF:
        _BUF.clear()
        _BUF[key] = (np.zeros(ctx.qlimit_cells, dtype=np.int32), np.zeros(ctx.qlimit_cells, dtype=np.int32),
                     np.zeros(ctx.mapsize, dtype=np.int64))
    return _BUF[key]


def score_variable(ctx: _Ctx, x: int) -> dict[str, Any]:
    """Score and prune every candidate parent set of variable ``x`` (see :mod:`.pruning`)."""
    t0 = time.perf_counter()
    ar = ctx.arities
    rx = int(ar[x])
    k = ctx.k
    if ctx.order is not None:
        pos = ctx.order.index(x)
        pool = ctx.order[:pos]
    else:
        pool = [v for v in range(ctx.n) if v != x]
    # arity-1 parents never change a family's score: for k = 1 they are always (weakly)
    # dominated (Teyssier & Koller), so they are not candidates.
    cand = [v for v in pool if ar[v] > 1] if (k == 1 and "dominance" in ctx.rules) else pool
    cand_arr = np.array(cand, dtype=np.int64)
    qlimit = max(1, ctx.qlimit_cells // max(rx, 1))
    lgt = ctx.lgt
    zero = np.zeros(ctx.N, dtype=np.int64)
    cnt = np.zeros(max(rx, 1), dtype=np.int32)
    pac = np.zeros(1, dtype=np.int32)
    ll_empty, _, _ = family_stats(zero, ctx.cols[x], rx, cnt, pac, lgt, False, 1.0, 1.0)
    # tree order (Tian eq. 14): ascending H(X | X_k) = descending LL(X | X_k)
    single = np.empty(len(cand))
    cnt2, pac2, _ = _buffers(ctx)
    scratch = np.empty(ctx.N, dtype=np.int64)
    for i, v in enumerate(cand):
        # dense joint table of (X_v, X) when small, else the general counter
        if ar[v] * rx <= DENSE_CELLS:
            ej, epa, _, _, _, _ = extend_and_count_dense(zero, ctx.cols[v], int(ar[v]), scratch, ctx.cols[x], rx,
                                                      int(ar[v]), cnt2, lgt, False, 1.0, 1.0)
            single[i] = ej - epa
        else:
            ll, _, _ = family_stats(ctx.cols[v].astype(np.int64), ctx.cols[x], rx, cnt2, pac2, lgt,
                                    False, 1.0, 1.0)
            single[i] = ll
    tree = cand_arr[np.argsort(-single, kind="stable")] if len(cand) else cand_arr
    bcnt, bpa, bmap = _buffers(ctx)
    if ctx.use_tw:
        sfx, sQ = suffix_codes(ctx.cols, ar, tree, qlimit, bmap)
        all_codes = sfx[0]
    else:
        sfx, sQ = np.zeros((1, 1), dtype=np.int64), np.ones(1, dtype=np.int64)
        all_codes, _ = set_codes(ctx.cols, ar, tree, qlimit, bmap)
    ll_all, _, _ = family_stats(all_codes, ctx.cols[x], rx, bcnt, bpa, lgt, False, 1.0, 1.0)
    # parent limit
    limit = len(cand) if ctx.max_parents is None else min(ctx.max_parents, len(cand))
    bounds = {"user": ctx.max_parents}
    if ctx.kind != BDEU and "limit" in ctx.rules:
        n_ones = len([v for v in cand if ar[v] <= 1])
        big = [int(ar[v]) for v in cand if ar[v] > 1]
        if rx <= 1:
            dv = 0 if k == 1 else max(0, math.ceil(math.log2(k + 1)) - 1)
            dv += n_ones
        else:
            dv = degree_bound(ctx.kind, ctx.N, rx, big, ll_empty, ll_all, k) + n_ones
        bounds.update(eq34=dv, tian_thm1=tian_global_bound(ctx.N))
        limit = min(limit, dv)
        if k > 1:
            c_bits = float(penalty_coef(ctx.kind, ctx.N)) / LN2
            cor1 = chen_corollary1(ctx.N, k, c_bits) + n_ones
            bounds["chen_cor1"] = cor1
            limit = min(limit, cor1)
        if ctx.kbest_limits is not None:
            limit = min(limit, int(ctx.kbest_limits[x]) + n_ones)
            bounds["algorithm2"] = int(ctx.kbest_limits[x])
    elif rx <= 1 and k == 1 and "limit" in ctx.rules:
        limit = 0
    limit = max(limit, 0)
    # K3 greedy start
    joint = _joint_memo(ctx)
    bcnt, bpa, bmap = _buffers(ctx)
    k3_sets, k3_scores = k3_greedy(ctx.cols, ar, x, tree, limit, ctx.kind, ctx.ess, lgt,
                                   qlimit, bcnt, bpa, bmap, *joint)
    k3p = np.full(k3_sets.shape, -1, dtype=np.int64)
    for t in range(k3_sets.shape[0]):
        row = sorted(int(p) for p in k3_sets[t] if p >= 0)
        k3p[t, :len(row)] = row
    sets, sizes, scores, n_out, st = dfbnb_family(
        ctx.cols, ar, x, tree, limit, ctx.kind, ctx.ess, k, lgt, ll_all, sfx, sQ, ctx.use_tw,
        ctx.order is not None, k3p, k3_scores, qlimit, bcnt, bpa, bmap, "bnb" in ctx.rules,
        "dominance" in ctx.rules, *joint, _n_within(len(tree), limit))
    if "dominance" not in ctx.rules:
        keep = np.ones(n_out, dtype=bool)
    elif ctx.order is not None:
        # Tian's fixed-order DFBnB_K3: the best of the K3 start and of the improving DFS sets
        t = int(np.argmax(k3_scores))
        if k3_scores[t] >= scores.max():
            row = [int(tree[p]) for p in k3p[t] if p >= 0]
            sets = np.zeros((1, max(1, sets.shape[1])), dtype=np.int64)
            sets[0, :len(row)] = row
            sizes = np.array([len(row)], dtype=np.int64)
            scores = np.array([k3_scores[t]])
            keep = np.ones(1, dtype=bool)
        else:
            keep = np.zeros(n_out, dtype=bool)
            keep[int(np.argmax(scores))] = True
    else:
        keep = _dominance_keep(sets, sizes, scores, k, ctx.n)
    idx = np.flatnonzero(keep)
    return {"x": x, "sets": sets[idx], "sizes": sizes[idx], "scores": scores[idx],
            "counted": int(st[0]), "cut": int(st[1]), "tw_bounds": int(st[2]), "joint_hits": int(st[4]), "entropy_cuts": int(st[5]),
            "limit": int(limit), "bounds": bounds, "candidates": len(cand),
            "seconds": time.perf_counter() - t0}


def _n_within(m: int, L: int) -> int:
    return sum(math.comb(m, j) for j in range(0, min(m, L) + 1))


def score_data(data: Any, score: str = "bic", ess: float = 1.0, max_parents: int | None = None,
               k_best: int = 1, jobs: int = 1, progress: Callable[[int, int, str], None] | bool | None = None,
               *, header: bool | None = None, drop_missing: bool = False,
               entropy_bound: str = "all", order: Sequence[int | str] | None = None,
               kbest_global: bool = True,
               rules: Sequence[str] = ("limit", "dominance", "bnb")) -> ScoreCache:
    """Score discrete data into a safely pruned local-score cache.

    Parameters
    ----------
    data : path (CSV / GOBNILP ``.dat``), numpy array, pandas DataFrame or :class:`Dataset`.
    score : ``"bic"`` (natural log, GOBNILP), ``"mdl"`` (= BIC / ln 2, minus Tian's MDL in
        bits), ``"bdeu"`` or ``"aic"``.
    ess : BDeu equivalent sample size (default 1, as in GOBNILP).
    max_parents : user parent limit; for BIC/MDL/AIC Tian's bound (Thm 1, eq. 34) is applied
        on top automatically.
    k_best : keep every family of the ``k`` best DAGs (Chen et al. Cor. 1, Thm 3, Alg. 2).
    jobs : worker processes (variables are scored in parallel).
    progress : callable ``(done, total, name)`` or True for a bar on stderr.
    entropy_bound : ``"all"`` (Tian eq. 15: the fixed bound ``H(X|all others)``, default) or
        ``"tw"`` (eq. 12: ``H(X|T,W)`` per search node).  With the joint memo most families
        cost no counting pass, so the extra count per node of eq. 12 no longer pays off on
        the benchmark sets (``results/scoring/``); both are exact.
    rules : pruning rules to apply (for testing each alone): ``"limit"`` (Tian/Chen parent
        limits), ``"dominance"`` (subset dominance, Thm 3), ``"bnb"`` (DFBnB entropy and
        superset bounds).  With none, every set within ``max_parents`` is kept.
    order : optional fixed variable ordering (names or indices); then only the best parent set
        among predecessors is kept per variable (Tian's original fixed-order DFBnB_K3).

    Every pruning rule is safe: for ``k_best == 1`` the cache still contains an optimal DAG
    (over all DAGs within ``max_parents``), for ``k_best = K`` a set of K best DAGs.
    """
    t0 = time.perf_counter()
    kind = kind_of(score)
    ds = read_data(data, header=header, drop_missing=drop_missing)
    if ds.N == 0:
        raise InputError("empty data")
    if ess is None or not (float(ess) > 0) or not math.isfinite(float(ess)):
        raise InputError(f"ess must be a positive number, got {ess!r}")
    if max_parents is not None and int(max_parents) < 0:
        raise InputError("max_parents must be >= 0")
    if int(k_best) < 1:
        raise InputError("k_best must be >= 1")
    if int(jobs) < 1:
        raise InputError("jobs must be >= 1")
    if entropy_bound not in ("tw", "all"):
        raise InputError("entropy_bound must be 'tw' or 'all'")
    ordr = None
    if order is not None:
        ordr = [ds.names.index(str(v)) if str(v) in ds.names else int(v) for v in order]
        if sorted(ordr) != list(range(ds.n)):
            raise InputError("order must be a permutation of the variables")
        if k_best != 1:
            raise InputError("a fixed order supports k_best = 1 only")
    k = int(k_best)
    kb = None
    kb_info = None
    if (k > 1 and kind != BDEU and kbest_global and ordr is None and int(ds.arities.min()) >= 2
            and "limit" in rules):
        base = score_data(ds, score="bic" if kind == MDL else score, ess=ess,
                          max_parents=max_parents, k_best=1, jobs=jobs, entropy_bound=entropy_bound)
        kb, kb_info = algorithm2_bounds(base, ds, kind, k)
    bad = set(rules) - {"limit", "dominance", "bnb"}
    if bad:
        raise InputError(f"unknown pruning rule(s) {sorted(bad)}")
    ctx = _Ctx(ds, kind, ess, k, None if max_parents is None else int(max_parents),
               entropy_bound == "tw", ordr, kb, frozenset(rules))
    bar = _progress_fn(progress)
    results: list[dict[str, Any] | None] = [None] * ds.n
    if jobs == 1 or ds.n == 1:
        for i in range(ds.n):
            results[i] = score_variable(ctx, i)
            if bar:
                bar(i + 1, ds.n, ds.names[i])
    else:
        with ProcessPoolExecutor(max_workers=int(jobs), initializer=_init_worker,
                                 initargs=(ctx,)) as ex:
            futs = {ex.submit(_work, i): i for i in _largest_first(ds)}
            done = 0
            from concurrent.futures import as_completed
            for f in as_completed(futs):
                r = f.result()
                results[r["x"]] = r
                done += 1
                if bar:
                    bar(done, ds.n, ds.names[r["x"]])
    _JOINT.clear()
    _BUF.clear()
    cache = _assemble(ds, results, kind)
    L = ds.n - 1 if max_parents is None else int(max_parents)
    before = sum(_n_within(ds.n - 1, L) for _ in range(ds.n))
    meta = {
        "score": str(score).lower(), "N": ds.N, "arities": [int(a) for a in ds.arities],
        "ess": float(ess) if kind == BDEU else None, "max_parents": max_parents,
        "k_best": k, "source": ds.source, "dropped_rows": ds.dropped_rows,
        "entropy_bound": entropy_bound,
        "scoring": {
            "candidates_before": before, "candidates_after": cache.m,
            "families_counted": sum(r["counted"] for r in results),
            "branches_cut": sum(r["cut"] for r in results),
            "tw_bounds": sum(r["tw_bounds"] for r in results),
            "joint_memo_hits": sum(r["joint_hits"] for r in results),
            "entropy_rule_cuts": sum(r["entropy_cuts"] for r in results),
            "parent_limits": [r["limit"] for r in results],
            "seconds": time.perf_counter() - t0, "jobs": int(jobs),
        },
    }
    if kb_info is not None:
        meta["scoring"]["algorithm2"] = kb_info
    if ordr is not None:
        meta["order"] = [ds.names[i] for i in ordr]
    cache.meta.update(meta)
    return cache


def _largest_first(ds: Dataset) -> list[int]:
    return list(range(ds.n))


def _assemble(ds: Dataset, results, kind: int) -> ScoreCache:
    """Per variable: sort best first (ties: smaller set first), parents sorted (CSR arrays)."""
    offsets = [0]
    all_scores = []
    all_sizes = []
    all_items = []
    for r in results:
        sc = r["scores"] / LN2 if kind == MDL else r["scores"]
        sizes = np.asarray(r["sizes"], dtype=np.int64)
        perm = np.lexsort((sizes, -sc))
        sets = np.array(r["sets"], dtype=np.int64)[perm]
        sizes = sizes[perm]
        width = sets.shape[1] if sets.ndim == 2 else 0
        if width:
            pad = np.arange(width)[None, :] >= sizes[:, None]
            sets = np.where(pad, np.iinfo(np.int64).max, sets)
            sets.sort(axis=1)
            all_items.append(sets[~pad])
        all_scores.append(sc[perm])
        all_sizes.append(sizes)
        offsets.append(offsets[-1] + len(perm))
    sizes = np.concatenate(all_sizes) if all_sizes else np.zeros(0, np.int64)
    ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    flat = np.concatenate(all_items).astype(np.int32) if all_items else np.zeros(0, np.int32)
    return ScoreCache(ds.names, np.array(offsets), np.concatenate(all_scores), ptr,
                      flat, meta={}, source=ds.source)


def _progress_fn(progress):
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    start = time.perf_counter()
    live = sys.stderr.isatty()
    last = [start]

    def bar(done: int, total: int, name: str) -> None:
        now = time.perf_counter()
        if not live and done != total and now - last[0] < 5.0:
            return  # not a terminal (log file, CI): a line every 5 s and at the end
        last[0] = now
        w = 30
        f = int(w * done / max(total, 1))
        line = f"scoring [{'#' * f}{'.' * (w - f)}] {done}/{total} {now - start:6.1f}s {name[:20]:<20}"
        sys.stderr.write(("\r" + line + ("\n" if done == total else "")) if live else line + "\n")
        sys.stderr.flush()
    return bar
