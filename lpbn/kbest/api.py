"""``lpbn.solve(cache, k_best=K)``: the K best DAGs (or Markov equivalence classes), best first.

Engines (``engine=``): ``"bnb"`` (:mod:`lpbn.kbest.bnb`, branch and bound over the BN graph
with order-graph DP bounds) and ``"ilp"`` (:mod:`lpbn.kbest.ilp`, HiGHS with no-good rows);
``"auto"`` picks ``bnb`` (results/kbest/README.md).  ``threads``: numba threads for ``bnb``'s
order-graph tables (None: every core; the tables are the same for any count), HiGHS threads for
``ilp`` (None: 1).  The result is a :class:`SolveResult` whose
``dag``/``score`` are the best network and whose ``solutions`` list every network of the K best,
ties with the K-th included, each with its rank (equal scores share a rank, as in Chen, Darwiche
& Choi, Figs 1–2).  ``status="optimal"`` means proven: no DAG outside the list scores above the
K-th (``stats["next_bound"]`` is the best score any unlisted DAG can have); any other status
means the list is the best found before the limit, with ``upper_bound``/``stats["open_bound"]``
bounding every DAG not examined.

A cache that ``lpbn score --k-best R`` wrote with R > 1 records R (``meta["k_best"]``; the jkl
header comment ``# lpbn: ... k_best=R``, pss ``META k_best``): asking it for K > R networks is
refused, since its pruning may have dropped families of the (R+1)-th best.  Files that record
nothing (GOBNILP/BLIP/URLearning files, and lpbn's own with R = 1, which stay plain GOBNILP jkl
so that GOBNILP and pygobnilp read them) get a warning for K > 1: a file pruned by subset
dominance may lack families of the second best DAG, so the list is exact over the file only.  Likewise, the scorer keeps
"a set of K best DAGs" breaking ties towards fewer arcs: a DAG tied with the K-th that has more
arcs may be absent from such a cache.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..bound import tree_bound
from ..cache import ScoreCache
from ..errors import InputError, LpbnWarning
from ..options import BOOL, POSITIVE_INT, THREADS, MethodOptions, Rule, choices, opt
from ..result import DAG, OPTIMAL, SolveResult
from .collect import tie_tol

ENGINES = ("auto", "bnb", "ilp")
MAX_N = 64


def check_cache_for(cache: ScoreCache, k: int) -> None:
    """Refuse a cache pruned for fewer than ``k`` networks (see the module docstring)."""
    rec = cache.meta.get("k_best")
    if rec is None:
        if k > 1 and cache.meta.get("format") in ("jkl", "pss"):
            warnings.warn(f"{cache.source or 'this cache'}: the file does not record how it was pruned; if "
                          "it was pruned for one network (the default of lpbn score, GOBNILP's and BLIP's "
                          "scorers), families of the runners-up may be missing and the list is exact over "
                          f"this cache only; lpbn score --k-best {k} writes a cache that holds them",
                          LpbnWarning, stacklevel=3)
        return
    try:
        rec = int(rec)
    except (TypeError, ValueError):
        return
    if rec < k:
        src = f"{cache.source}: " if cache.source else ""
        raise InputError(f"{src}this cache was pruned for the {rec} best network{'s' if rec > 1 else ''} "
                         f"(lpbn score --k-best {rec}), so it may lack families of the {k} best; "
                         f"score the data again with --k-best {k} (or more)")


def auto_engine(cache: ScoreCache) -> str:
    return "bnb"


@dataclass(frozen=True)
class KBestOptions(MethodOptions):
    """Options of ``lpbn.solve(cache, k_best=K, **options)`` (CLI ``--k-best K --option``),
    declared once (issue 55); ``k_best`` and ``classes`` are arguments of solve."""

    engine: str = opt("auto", (
        "'bnb' (BN-graph branch and bound with DP bounds, lpbn.kbest.bnb), 'ilp' (HiGHS with "
        "no-good rows, lpbn.kbest.ilp) or 'auto' (bnb)."), choices(*ENGINES))
    memory_limit: int | None = opt(None, (
        "Bytes the bnb engine's order-graph tables may take (default 4 GiB); beyond, it bounds "
        "by the LP instead."), Rule(POSITIVE_INT.test, "a positive number of bytes"))
    threads: int | None = opt(None, "Numba threads of the order-graph tables (None or 0: every core).",
                              THREADS)
    posterior: bool = opt(True, "Summarise the K networks' posterior (result.posterior).")
    lp_bounds: bool | None = opt(None, (
        "bnb engine: bound by the cluster LP (true), by the DP tables (false) or the LP when the "
        "tables do not fit memory_limit (None)."), BOOL)


def solve_kbest(cache: ScoreCache, control, k: int, *, classes: bool = False, **options) -> SolveResult:
    """The ``k`` best DAGs (or classes); ``options``: the fields of :class:`KBestOptions`,
    checked and built once, here."""
    engine, memory_limit, threads, posterior, lp_bounds = KBestOptions.build(options, "k_best").values()
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"k_best must be a positive integer, got {k!r}")
    k = int(k)
    if cache.n > MAX_N:
        raise InputError(f"k_best supports at most {MAX_N} variables (this cache has {cache.n})")
    check_cache_for(cache, k)
    eq_note = None
    if classes:
        from .classes import check_score_equivalent
        eq_note = check_score_equivalent(cache)
    if engine == "auto":
        engine = auto_engine(cache)
    if engine == "bnb":
        from .bnb import enumerate_bnb
        out = enumerate_bnb(cache, k, control, classes=classes, memory_limit=memory_limit,
                            lp_bounds=lp_bounds, threads=threads)
    else:
        from .ilp import enumerate_ilp
        out = enumerate_ilp(cache, k, control, classes=classes,
                            threads=1 if threads is None else threads)
    coll = out["collector"]
    scores, choices, counts = coll.final()
    if len(scores):
        # one summation order for every engine (the engines add in their own order)
        scores = cache.scores[choices].sum(axis=1)
        order = np.lexsort((np.arange(len(scores)), -scores))
        scores, choices, counts = scores[order], choices[order], counts[order]
    complete = bool(out["complete"])
    if not complete and len(scores) > k:
        # not proven: list the K best found (and ties) only
        kth = scores[k - 1]
        cut = scores >= kth - tie_tol(kth)
        for s, c in zip(scores[~cut], counts[~cut]):
            coll.drop(float(s), math.log(c))
        scores, choices, counts = scores[cut], choices[cut], counts[cut]
    stats = dict(out["stats"])
    stats.update(k=k, classes=classes, listed=len(scores), dags_met=int(coll.seen))
    next_bound = coll.next_bound
    open_bound = out.get("open_bound", -math.inf)
    stats["next_bound"] = next_bound if math.isfinite(next_bound) else None
    if not complete:
        stats["open_bound"] = open_bound if math.isfinite(open_bound) else None
    if eq_note:
        stats["score_equivalence"] = eq_note
    what = "classes" if classes else "DAGs"
    sols = _solutions(cache, scores, choices, counts, classes)
    best_dag = DAG(cache.names, [cache.parents(int(j)) for j in choices[0]]) if len(scores) else None
    best = float(scores[0]) if len(scores) else -math.inf
    if complete:
        kth = float(scores[min(k, len(scores)) - 1]) if len(scores) else -math.inf
        status = OPTIMAL
        if len(scores) < k:
            msg = (f"the cache allows only {len(scores)} {what}; all are listed")
        else:
            nb = f"; every other scores at most {next_bound:.6f}" if math.isfinite(next_bound) else ""
            msg = (f"proven: the {k} best {what} ({len(scores)} listed with ties); no other "
                   f"{'class' if classes else 'DAG'} scores above the {k}-th ({kth:.6f}){nb}")
        upper = best
    else:
        status = out.get("stopped") or "time_limit"
        bound = max(open_bound, next_bound)
        msg = (f"stopped ({status}) with {len(scores)} {what} listed, not proven: a "
               f"{'class' if classes else 'DAG'} not listed "
               f"may score up to {bound:.6f}" if math.isfinite(bound) else
               f"stopped ({status}) with {len(scores)} {what} listed, not proven")
        # the best DAG is listed (at most ``best``) or not (at most ``bound``)
        upper = tree_bound(best, bound) if math.isfinite(bound) else math.inf
    res = SolveResult(best_dag, best, upper, status, f"k-best/{engine}", stats=stats, message=msg)
    res.solutions = sols
    if posterior and len(scores):
        from .posterior import summarise
        post = summarise(cache, scores, choices, counts, coll.log_rest if complete else math.inf, classes)
        for s, w in zip(sols, post.get("weights", [])):
            s["weight"] = w
        res.posterior = post
    return res


def _solutions(cache: ScoreCache, scores, choices, counts, classes: bool) -> list[dict]:
    out = []
    rank = 0
    group = -math.inf
    names = cache.names
    pnames: dict[int, tuple[tuple[int, ...], list[str]]] = {}   # candidate -> parents, their names
    for j in np.unique(choices):
        ps = tuple(sorted(cache.parents(int(j))))
        pnames[int(j)] = (ps, [names[p] for p in ps])
    for i, (s, ch, c) in enumerate(zip(scores, choices, counts)):
        if i == 0 or abs(s - group) > tie_tol(group):
            rank = i + 1
            group = float(s)
        got = [pnames[int(j)] for j in ch]
        parents = [g[0] for g in got]
        entry = {"rank": rank, "score": float(s),
                 "parents": {names[v]: list(g[1]) for v, g in enumerate(got)}}
        if classes:
            from .classes import class_size, cpdag
            d, u = cpdag(parents)
            entry["cpdag"] = {"directed": [[names[a], names[b]] for a, b in d],
                              "undirected": [[names[a], names[b]] for a, b in u]}
            entry["members_found"] = int(c)
            entry["class_size"] = class_size(parents)
        out.append(entry)
    return out


def to_json(result: SolveResult) -> str:
    """The JSON text of a k-best result: ``result.to_dict()`` indented, but one line per
    entry of ``solutions`` (a thousand indented entries take most of the writing time, and
    one line each reads and diffs as well)."""
    d = result.to_dict()
    sols = d.get("solutions")
    if sols is None:
        return json.dumps(d, indent=1) + "\n"
    key = "_solutions"
    while key in d:
        key = "_" + key
    text = json.dumps({(key if k == "solutions" else k): (None if k == "solutions" else v)
                       for k, v in d.items()}, indent=1)
    body = "[]" if not sols else "[\n" + ",\n".join("  " + json.dumps(x) for x in sols) + "\n ]"
    head, tail = text.split(f'"{key}": null', 1)
    return head + '"solutions": ' + body + tail + "\n"
