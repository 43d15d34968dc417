"""Pricing against the data: a bound over every DAG within a parent limit K (issue 52).

**The bound.**  Jaakkola et al. (2010) relax structure learning to the cluster LP (eq. 7)
and bound it through its dual (eq. 8): for a family of clusters C (sets of variables) with
multipliers λ_C >= 0 — and, more generally, k-cluster rows ``Σ_{i∈C} Σ_{S: |S∩C|<k} η_i(S)
>= k`` (Cussens et al. 2017; k = 1 is eq. 6) — every DAG G whose parent sets lie in P_i has

    score(G) = Σ_i s(i, S_i)
             <= Σ_i s(i, S_i) + Σ_C λ_C (Σ_{i∈C} [|S_i ∩ C| < k_C] - k_C)        (G meets every row)
             <= Σ_i max_{S ∈ P_i} r_i(S) - Σ_C k_C λ_C,
    r_i(S) = s(i, S) + Σ_{C ∋ i} λ_C [|S ∩ C| < k_C]                           (eq. 14)

for **any** λ >= 0 (the middle line adds a non-negative term because a DAG satisfies every
cluster row).  Nothing requires P_i to be the cache: taking P_i = every set of at most K
parents, the right-hand side bounds every DAG within the parent limit.  (The brief of the
issue writes the bonus as a charge ``-λ_C`` with ``+Σ λ_C`` outside; that is the same
Lagrangian with the row written ``<=``; lpbn's dual keeps the sign of eq. 8, which is used
here.)  So a bound over every K-parent DAG needs, for each variable, the **exact maximum of
the reduced score r_i over all |S| <= K**, computed on the data: :func:`price`.

**Cuts.**  A valid row ``Σ a(i, S) η_i(S) <= b`` with multiplier μ >= 0 adds ``-μ a(i, S)``
to r_i and ``μ b`` to the constant, by the same argument.  The {0, 1/2}-cuts that column
generation's LP separates are rank one (convexity and cluster rows, halved and rounded,
:class:`lpbn.lp.zero_half.Derivation`), so their coefficient is defined for every parent
set, in the cache or not: ``a(i, S) = ⌊(|{i} ∩ conv| − #{C : i ∈ C, S ∩ C = ∅}) / 2⌋``.  It
never falls as S grows, so the bonus (clusters and cuts together) still only shrinks as a set
grows, which every pruning rule below needs.  Both pricing searches below price a(i, S)
exactly (the branch and bound tracks the hits of the cuts' clusters as rows with λ = 0).
Why they matter: where the data make the cluster LP weak, no number of passes closes its
gap, and the cuts remove much of it (results/scale/README.md, stop 64).

**Binary data with K <= 4** are priced by enumerating every family over co-occurrence counts
(:mod:`lpbn.pricing_itemsets`): the branch and bound below cuts almost nothing at K = 4, and
the enumeration shares the counting between families.  Its first finished pass keeps every
family that no family with fewer parents beats (the only ones any λ can let price out); later
passes of :func:`column_generation` scan that store instead of enumerating again.

**The pricing search** (:mod:`lpbn.pricing_kernels`) is a depth-first branch and bound over
the set-enumeration tree of the candidate parents, sorted by their single-parent reduced
scores (best first, so the later candidates W of a branch are the weak ones and its bound is
tight).  For a node S and the candidates W after its last one, every strict superset
``S' = S ∪ T``, ``∅ ≠ T ⊆ W``, satisfies

* ``bonus(S') <= bonus(S)``: each indicator ``[|S'∩C| < k]`` can only turn off as S grows;
* ``LL(i | S') <= LL(i | S ∪ W)``: refining the parent configurations never lowers the
  maximum likelihood (Tian 2000 eq. 12's bound ``H(X|T,W)``; ``S ∪ W`` from suffix codes);
* BIC/MDL/AIC: ``pen(S') >= c (r_i - 1) q_S min_{w∈W} r_w`` (the penalty grows with the
  product of the parents' arities, :mod:`lpbn.scoring.scores`);
* BDeu: ``BDeu(S') <= LL(i | S')`` and ``BDeu(S') <= -ln(r_i) · cells(S, i)`` (the bounds of
  :mod:`lpbn.scoring.pruning`, rule d, de Campos & Ji 2011; proofs there);

so ``r_i(S') <= LL(i | S ∪ W) - pen_min + bonus(S)`` (BDeu: ``min(LL, -ln r_i · cells) +
bonus(S)``), and the branch is cut when this is at most the threshold: the cache's maximum
of r_i plus a relative tolerance of 1e-9 (:data:`TOLERANCE`), raised to the best set found
once ``per_variable`` sets are held.  When the search ends, every set not recorded has
``r_i <= threshold``, so ``max(threshold, best recorded)`` is a proven upper bound on the
maximum over every |S| <= K (and over the cache), and the bound above with it holds for
every DAG with at most K parents per variable, whatever λ was.

**Column generation** (:func:`column_generation`): the LP over the cache is solved by
HiGHS's cut loop with cluster and k-cluster rows (:class:`ClusterLP`, from the rows of the
previous pass's λ) and its duals are read as λ; the sets that price out (reduced score above
the cache's maximum) join the cache, and the LP is solved again, until no set prices out —
then the LP over the cache equals the LP over every K-parent set.  Every pricing pass that
finishes proves its own bound (above), so the best of them is kept even when the passes do
not converge in time; when no pass finishes, nothing is claimed beyond the cache.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import pricing_itemsets as PI
from . import pricing_kernels as PK
from .cache import ScoreCache
from .scoring.counting import buffer_limit, family_stats, lg_table, suffix_codes
from .scoring.scores import LN2, MDL, kind_of, local_score
from .tuning import PRICING_LP_SHARE as LP_SHARE, PRICING_PER_VARIABLE as PER_VARIABLE

__all__ = ["ClusterLP", "Duals", "LPPass", "PricingResult", "PricedBound", "TOLERANCE", "cache_maxima", "column_generation",
           "price"]

#: relative slack of the pricing threshold: a set enters only when its reduced score beats the
#: cache's maximum by more than this, and the proven per-variable maximum includes it.  It
#: covers the float rounding of the bounds and scores (fixed-point sums, ~1e-13 relative) and
#: stays well below the optimality tolerance (1e-9), so a priced bound can still close a gap
TOLERANCE = 1e-11


@dataclass
class Duals:
    """Cluster duals: ``bits`` (K, W) uint64 cluster rows over the variables, ``k`` (the row's
    k, 1 for eq. 6) and ``lam`` >= 0, aligned; and rank-one {0, 1/2}-cuts ``cuts``
    (:class:`lpbn.lp.zero_half.Derivation`) with their multipliers ``mu`` >= 0 (module
    docstring, "Cuts")."""

    bits: np.ndarray
    k: np.ndarray
    lam: np.ndarray
    cuts: list = field(default_factory=list)
    mu: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @classmethod
    def none(cls, n: int) -> "Duals":
        return cls(np.zeros((0, (n + 63) // 64), np.uint64), np.zeros(0, np.int64), np.zeros(0))

    def constant(self) -> float:
        """``Σ_C k_C λ_C − Σ_z μ_z b_z``, subtracted in eq. 8 (with cuts)."""
        return math.fsum((self.k * self.lam).tolist() + [-m * d.rhs for d, m in zip(self.cuts, self.mu.tolist())])


@dataclass
class PricingResult:
    """What one pricing pass proved.

    ``finished``: every variable's search ended (else the time limit cut it: ``bound`` is None
    and nothing is claimed).  ``bound``: eq. 8 with each variable's proven maximum over every
    parent set of at most ``K`` parents (and the cache) — an upper bound on every DAG within
    the limit.  ``families``: the sets that price out, ``(i, parents) -> score`` (stored units).
    ``best``/``cache_max``: per variable, the proven maximum of the reduced score and the
    cache's (nan where not searched)."""

    finished: bool
    bound: float | None
    K: int
    families: dict[tuple[int, tuple[int, ...]], float]
    best: np.ndarray
    cache_max: np.ndarray
    stats: dict[str, Any] = field(default_factory=dict)


class _Counter:
    """Count buffers and tables over the data (as :class:`lpbn.scoring.hillclimb.Climber`)."""

    def __init__(self, ds, kind: int, ess: float):
        self.cols = np.ascontiguousarray(ds.columns)
        self.ar = np.asarray(ds.arities, dtype=np.int64)
        self.kind, self.ess = kind, float(ess)
        self.unit = 1.0 / LN2 if kind == MDL else 1.0
        self.lgt = lg_table(ds.N)
        maxar = max(1, int(self.ar.max()))
        cells = buffer_limit(ds.N, maxar)
        self.limit = max(1, cells // maxar)
        self.cnt = np.zeros(cells, dtype=np.int32)
        self.pac = np.zeros(cells, dtype=np.int32)
        self.mapbuf = np.zeros(int(min(2 * cells, 1 << 22)), dtype=np.int64)
        from .scoring.bitplanes import BitPlanes
        bp = BitPlanes(self.cols, self.ar)
        self.planes, self.pptr = bp.planes, bp.ptr
        W = self.planes.shape[1]
        # joint planes of a node (Q r_x rows) are used only when Q r_x r_t W <= N (pricing_kernels)
        self.PA = np.zeros((max(1, ds.N // (maxar * W)), W), dtype=np.uint64)


def cache_maxima(cache: ScoreCache, duals: Duals) -> np.ndarray:
    """Per variable, the cache's maximum of the reduced score ``r_i`` (eq. 14, with the cuts'
    terms) under ``duals``."""
    from .dual.state import DualState
    state = DualState(cache)
    for row, k in zip(duals.bits, duals.k):
        if not state.add_cluster_bits(row, int(k)):
            from .errors import InputError
            raise InputError("pricing: the duals hold a repeated or too small cluster row")
    state.set_lambda(np.asarray(duals.lam, dtype=np.float64))
    if not len(duals.cuts):
        return state.M.copy()
    from .lp.zero_half import derived_row
    r = state.scores + state.adj              # eq. 14's clusters part, per candidate
    for d, mu in zip(duals.cuts, duals.mu.tolist()):
        cols, coef, _ = derived_row(cache, d)
        r[cols] -= mu * coef
    return np.maximum.reduceat(r, cache.offsets[:-1])


def _clusters_of(duals: Duals, x: int, n: int, cuts: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """The rows that contain x: membership (rows, n) bool, λ and k, then the clusters of x's
    cut entries (``cuts``, :func:`lpbn.pricing_itemsets.cut_entries`) as rows with λ = 0 and k = 1, so
    that the kernel tracks their hits; and those entries as ``(conv, μ, ptr, rows)``, entry e's
    clusters being the rows ``rows[ptr[e]:ptr[e+1]]``."""
    from . import bitsets as bs
    rows = [c for c in range(len(duals.lam))
            if duals.lam[c] > 0.0 and (int(duals.bits[c, x >> 6]) >> (x & 63)) & 1]
    ptr, conv, mu, cptr, cbits = cuts
    e0, e1 = int(ptr[x]), int(ptr[x + 1])
    cut_rows = cbits[cptr[e0]:cptr[e1]]
    inC = np.zeros((len(rows) + len(cut_rows), n), dtype=np.bool_)
    for t, c in enumerate(rows):
        inC[t, bs.from_bitset(duals.bits[c])] = True
    for t, row in enumerate(cut_rows):
        inC[len(rows) + t, bs.from_bitset(row)] = True
    lam = np.concatenate([np.asarray(duals.lam, dtype=np.float64)[rows], np.zeros(len(cut_rows))])
    kc = np.concatenate([np.asarray(duals.k, dtype=np.int64)[rows], np.ones(len(cut_rows), dtype=np.int64)])
    entries = (conv[e0:e1].copy(), mu[e0:e1].copy(), cptr[e0:e1 + 1] - cptr[e0],
               len(rows) + np.arange(len(cut_rows), dtype=np.int64))
    return inC, lam, kc, entries


def _variable(ct: _Counter, x: int, K: int, thr0: float, per_variable: int, duals: Duals, cuts: tuple,
              deadline: float, stats: dict) -> tuple[bool, float, list]:
    """Price variable x: (finished, best reduced score recorded (-inf: none), [(parents, score)])."""
    n = ct.cols.shape[0]
    inC, lam, kc, entries = _clusters_of(duals, x, n, cuts)
    # the empty set (a cache need not hold it): its bonus is every row's λ (|∅ ∩ C| = 0 < k),
    # less each cut's μ a(x, ∅)
    ll, bd, _ = family_stats(np.zeros(ct.cols.shape[1], dtype=np.int64), ct.cols[x], ct.ar[x], ct.cnt, ct.pac,
                             ct.lgt, ct.kind == 3, ct.ess, ct.ess / ct.ar[x])
    s0 = ct.unit * local_score(ct.kind, ll, bd, 1.0, ct.ar[x], ct.cols.shape[1])
    conv, mu, eptr, _ = entries
    r0 = s0 + math.fsum(lam.tolist() + (-mu * ((conv - np.diff(eptr)) // 2)).tolist())
    empty = [((), s0)] if r0 > thr0 else []
    cand0 = np.array([v for v in range(n) if v != x], dtype=np.int64)
    if K == 0 or len(cand0) == 0:
        return True, (r0 if empty else -math.inf), empty
    single = PK.singles(ct.cols, ct.ar, x, cand0, ct.kind, ct.ess, ct.unit, ct.lgt, ct.limit, ct.cnt, ct.pac,
                        ct.mapbuf, inC, lam, kc)
    cand = cand0[np.argsort(-single, kind="stable")]
    sfx, sQ = suffix_codes(ct.cols, ct.ar, cand, ct.limit, ct.mapbuf)
    llsuf = PK.suffix_loglik(ct.cols, ct.ar, x, sfx, sQ, ct.lgt, ct.cnt, ct.pac)
    minar = np.minimum.accumulate(ct.ar[cand][::-1])[::-1].astype(np.float64)
    buf_sets = np.zeros((per_variable, K), dtype=np.int64)
    buf_size = np.zeros(per_variable, dtype=np.int64)
    buf_r = np.full(per_variable, -np.inf)
    buf_s = np.zeros(per_variable)
    nbuf = 0
    st = np.zeros(5, dtype=np.int64)
    finished = True
    for j0 in range(len(cand)):
        if time.perf_counter() > deadline:
            finished = False
            break
        nbuf = PK.price_subtree(ct.cols, ct.ar, x, cand, j0, K, ct.kind, ct.ess, ct.unit, ct.lgt, ct.limit, ct.cnt,
                                ct.pac, ct.mapbuf, sfx, sQ, llsuf, minar, inC, lam, kc, entries, thr0, buf_sets, buf_size,
                                buf_r, buf_s, nbuf, st, ct.planes, ct.pptr, ct.PA)
    for key, col in (("counted", PK.ST_COUNTED), ("cut", PK.ST_CUT), ("bounds", PK.ST_BOUNDS),
                     ("skipped", PK.ST_SKIPPED), ("on_planes", PK.ST_PLANES)):
        stats[key] = stats.get(key, 0) + int(st[col])
    found = [(tuple(sorted(int(v) for v in buf_sets[t, :buf_size[t]])), float(buf_s[t])) for t in range(nbuf)]
    top = float(buf_r[:nbuf].max()) if nbuf else -math.inf
    if empty and r0 > top:
        top = r0
    return finished, top, found + empty


def price(data, cache: ScoreCache, duals: Duals | None, K: int, time_limit: float | None = None, *,
          per_variable: int = 1, say: Callable[[str], None] | None = None,
          itemsets: "PI.Itemsets | None" = None) -> PricingResult:
    """Price every variable's parent sets of at most ``K`` parents against the data (module
    docstring): the sets whose reduced score under ``duals`` beats the cache's maximum (the
    ``per_variable`` best of each variable), and, when every search finished within
    ``time_limit`` seconds, the bound of eq. 8 over every DAG with at most K parents.

    ``data``: the data the cache was scored from (a :class:`~lpbn.scoring.Dataset` or what
    :func:`lpbn.read_data` reads); the score and ess are the cache's (``cache.meta``).
    ``duals``: None prices the plain scores (λ = 0): the bound is then the sum of the best
    local scores within K.  Binary data with K <= 4 are priced by enumeration over
    co-occurrence counts (:mod:`lpbn.pricing_itemsets`; ``itemsets``: its tables, when a caller
    prices the same data repeatedly), other data by the branch and bound of
    :mod:`lpbn.pricing_kernels`.
    """
    from .errors import InputError
    from .scoring import read_data
    ds = read_data(data)
    if ds.n != cache.n:
        raise InputError(f"pricing: the data have {ds.n} variables, the cache {cache.n}")
    meta = cache.meta or {}
    if "score" not in meta:
        raise InputError("pricing: the cache does not say its score (cache.meta['score'])")
    if int(K) < 0 or per_variable < 1:
        raise InputError(f"pricing: K must be >= 0 and per_variable >= 1, got {K}, {per_variable}")
    K = min(int(K), ds.n - 1)
    kind = kind_of(meta["score"])
    duals = Duals.none(ds.n) if duals is None else duals
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + float(time_limit)
    cmax = cache_maxima(cache, duals)
    if PI.applicable(ds, K):
        return _price_itemsets(ds, K, kind, meta.get("ess") or 1.0, cmax, duals, per_variable, deadline, say,
                               itemsets, t0)
    ct = _Counter(ds, kind, meta.get("ess") or 1.0)
    cuts = PI.cut_entries(duals, ds.n)
    best = np.full(ds.n, np.nan)
    families: dict[tuple[int, tuple[int, ...]], float] = {}
    stats: dict[str, Any] = {"variables": 0}
    finished = True
    for x in range(ds.n):
        thr0 = _threshold(cmax[x])
        done, top, found = _variable(ct, x, K, thr0, per_variable, duals, cuts, deadline, stats)
        for ps, s in found:         # scored on the data: kept even when the pass does not finish
            families[(x, ps)] = s
        if not done:
            finished = False
            break
        best[x] = max(thr0, top)
        stats["variables"] = x + 1
        if say:
            say(f"priced variable {x + 1}/{ds.n}: {len(families)} sets price out so far "
                f"[{time.perf_counter() - t0:.1f} s]")
    bound = None
    if finished:
        bound = math.fsum(best.tolist()) - duals.constant()
    stats["seconds"] = time.perf_counter() - t0
    return PricingResult(finished, bound, K, families, best, cmax, stats)


def _threshold(cmax: float) -> float:
    """The pricing threshold of a variable: its cache maximum plus :data:`TOLERANCE`."""
    return float(cmax + TOLERANCE * (1.0 + abs(cmax))) if np.isfinite(cmax) else -math.inf


def _price_itemsets(ds, K, kind, ess, cmax, duals, per_variable, deadline, say, itemsets, t0) -> PricingResult:
    """:func:`price` by enumeration over co-occurrence counts (:mod:`lpbn.pricing_itemsets`)."""
    its = itemsets if itemsets is not None and itemsets.K >= K else PI.prepare(ds, K)
    thr = np.array([_threshold(c) for c in cmax])
    finished, top, found, counted, scanned = PI.run(its, K, kind, ess, thr, duals, per_variable, deadline, say)
    families = {(x, ps): s for x, ps, s in found}
    stats: dict[str, Any] = {"variables": ds.n if finished else 0, "counted": counted, "itemsets": True,
                             "stored": scanned, "seconds": time.perf_counter() - t0}
    best = np.maximum(thr, top) if finished else np.full(ds.n, np.nan)
    bound = math.fsum(best.tolist()) - duals.constant() if finished else None
    return PricingResult(finished, bound, K, families, best, cmax, stats)


@dataclass
class PricedBound:
    """Outcome of :func:`column_generation`.

    ``bound``: the best bound a finished pricing pass proved over every DAG with at most K
    parents per variable (None when none finished: then only the cache's bound holds);
    ``scope``: ``"parent_limit:K"`` or ``"cache"``; ``converged``: the last pass priced
    nothing out (the LP over the cache is the LP over every K-parent set); ``cache``: the
    cache with every set that priced out; ``dag_parents``/``dag_score``: the best DAG the
    relaxations decoded (on the enlarged cache); ``passes``: one record per pass."""

    bound: float | None
    scope: str
    converged: bool
    cache: ScoreCache
    message: str
    dag_parents: list[tuple[int, ...]] | None = None
    dag_score: float = -math.inf
    passes: list[dict[str, Any]] = field(default_factory=list)


def enlarged(cache: ScoreCache, families: dict) -> ScoreCache:
    """``cache`` with the sets of ``families`` ((i, parents) -> score) added, same meta."""
    fams = [[(float(cache.scores[c]), cache.parents(c)) for c in cache.family_range(i)] for i in range(cache.n)]
    for (i, ps), s in families.items():
        fams[i].append((s, ps))
    return ScoreCache.from_families(cache.names, fams, meta=dict(cache.meta or {}), source=cache.source)


@dataclass
class LPPass:
    """One LP solve of :func:`column_generation`: ``value`` (the LP over the cache and the rows
    found; an upper bound over the cache), ``duals`` (eq. 8's λ of its last optimal solve),
    ``complete`` (no violated cluster or k-cluster row was left, so ``value`` is the LP
    optimum over those row families), a DAG decoded from the LP point and the seconds."""

    value: float
    duals: Duals
    complete: bool
    dag: np.ndarray | None
    dag_score: float
    seconds: float


class ClusterLP:
    """The LP over the cache with cluster and k-cluster rows (eq. 6 and Cussens et al. 2017),
    solved by HiGHS's cutting-plane loop (:func:`lpbn.lp.cut_loop.cut_loop`, exact separation),
    its duals read as eq. 8's λ (and the cuts' μ).  :func:`column_generation` hands it each
    enlarged cache (:meth:`grow`): a new model over it with the rows that had a positive λ or μ.  (Adding the new
    columns to the old model instead is slower: from the old basis, HiGHS took 142 s for the
    next pass where a new model over the best columns took 70 s; jester, one run each.)

    Why HiGHS and not the dual's coordinate descent (:func:`lpbn.dual.solver.root_relaxation`):
    pricing turns λ into a bound over every K-parent DAG, so the bound is only as good as λ,
    and the descent stalls well above the LP optimum once the cache holds the sets that priced
    in (jester, 109,384 sets: descent -486,402 where the cut loop reaches -488,565).  The
    columns have no upper bound (``column_upper=inf``) so that the row duals carry the whole
    LP value, and the model is restricted to the columns priced in from the cache
    (:class:`~lpbn.lp.model.EtaLP` ``price``).  With ``cuts``, rank-one {0, 1/2}-cuts are
    separated too, with their derivations, so that μ prices (module docstring, "Cuts"); rows
    pricing cannot extend (local cuts, cuts of rank two) are not added.  The k-clusters go up
    to ``method="highs"``'s ``k_max``, whose root runs the same cut loop."""

    def __init__(self, cache: ScoreCache, rows: Duals | None = None, *, cuts: bool = False):
        from .lp.model import EtaLP
        from .lp.zero_half import derived_row
        self.model = EtaLP(cache, column_upper=math.inf, price=True, columns=EtaLP.start_columns(cache))
        self.rows, self.cuts = rows, cuts
        if rows is not None and len(rows.k):
            one = rows.k == 1
            self.model.add_clusters(rows.bits[one])
            self.model.add_kclusters(rows.bits[~one], rows.k[~one])
        if rows is not None and len(rows.cuts):
            self.model.add_cuts([derived_row(cache, d) for d in rows.cuts], derivations=list(rows.cuts))

    def grow(self, cache: ScoreCache) -> "ClusterLP":
        """The LP over ``cache`` (the model's cache with more sets) from the rows of the last λ
        (the cuts extended to the new sets, :func:`lpbn.lp.zero_half.derived_row`)."""
        return ClusterLP(cache, self.rows, cuts=self.cuts)

    def run(self, time_limit: float | None, best: Callable[[], float] | None = None) -> LPPass:
        """Cut rounds for at most ``time_limit`` seconds; λ (and μ) and the DAG of the last
        optimal LP.  ``best``: the incumbent's score, for the loop's tail rules (k-clusters and
        cuts beside tailing cluster rounds)."""
        from .highs.ilp import decode_choice
        from .highs.options import HighsOptions
        from .lp.cut_loop import cut_loop
        from .tuning import ZERO_HALF_SLACK_MIN_N
        t0 = time.perf_counter()
        model, cache = self.model, self.model.cache
        last: dict[str, Any] = {}

        def keep(value: float, eta: np.ndarray) -> None:      # right after each optimal LP solve
            last.update(value=value, eta=eta, dual=np.array(model.h.getSolution().row_dual, dtype=np.float64))

        # {0, 1/2}-cuts as method "highs" separates them by default, rank one so that they price
        zero_half = ("slack" if cache.n > ZERO_HALF_SLACK_MIN_N else True) if self.cuts else False
        # a sub-IP call may take a quarter of the pass (as measured in results/scale, stop 63; not
        # swept): one that times out ends the rounds, and the pass still gets its λ
        loop = cut_loop(model, mode="clusters", exact=True, time_limit=time_limit, on_bound=keep,
                        k_max=HighsOptions().k_max, zero_half=zero_half, priceable=True, best=best,
                        subip_time=None if time_limit is None else max(1.0, time_limit / 4))
        seconds = time.perf_counter() - t0
        if not last:
            return LPPass(math.inf, Duals.none(cache.n), False, None, -math.inf, seconds)
        dag = decode_choice(cache, last["eta"])
        duals = Duals(*model.cluster_multipliers(last["dual"]), *model.cut_multipliers(last["dual"]))
        self.rows = duals if len(duals.k) or len(duals.cuts) else self.rows
        score = -math.inf if dag is None else math.fsum(cache.scores[dag].tolist())
        complete = loop.complete and loop.status == "optimal" and len(last["dual"]) == model.num_rows
        return LPPass(last["value"], duals, complete, dag, score, seconds)


def column_generation(data, cache: ScoreCache, K: int, time_limit: float | None = None, *,
                      per_variable: int = PER_VARIABLE, incumbent: float = -math.inf,
                      say: Callable[[str], None] | None = None) -> PricedBound:
    """Solve the cluster LP over ``cache`` (:class:`ClusterLP`), price against the data at its
    duals, add the sets that price out, and repeat (module docstring).  Each pass's LP starts
    from the rows of the previous pass's λ.  A pass that prices nothing out ends the loop when its LP
    was solved to completion (no violated row left); otherwise the LP goes on, since every λ
    needs its own pricing to bound every K-parent DAG and a better λ is a better bound.  The
    loop also ends when ``time_limit`` does, or when the LP's value stopped falling.
    ``incumbent``: the score of a DAG known (e.g. ``lpbn learn``'s), for the LP's tail rules.
    The LP separates rank-one {0, 1/2}-cuts too (module docstring, "Cuts")."""
    from .scope import CACHE
    from .scoring import read_data
    ds = read_data(data)
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + float(time_limit)
    out = PricedBound(None, CACHE, False, cache, "pricing did not finish")
    lp_model = ClusterLP(cache, cuts=True)
    last = math.inf          # the previous pass's LP value
    itemsets = None          # co-occurrence tables (and family store), built by the first pass that uses them
    while True:
        left = None if time_limit is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            break
        lp = lp_model.run(None if left is None else left * LP_SHARE, best=lambda: max(out.dag_score, incumbent))
        if lp.dag is not None and lp.dag_score > out.dag_score:
            out.dag_score = lp.dag_score
            out.dag_parents = [out.cache.parents(int(j)) for j in lp.dag]
        if not math.isfinite(lp.value):
            if time_limit is None:
                break       # the LP did not solve (nothing to price)
            continue        # no LP solve ended in its time (the first after a growth can be long): go on
        if itemsets is None and PI.applicable(ds, K):
            itemsets = PI.prepare(ds, K)
        left = None if time_limit is None else deadline - time.perf_counter()
        pr = price(ds, out.cache, lp.duals, K, left, per_variable=per_variable, say=say, itemsets=itemsets)
        out.passes.append(_pass_record(lp, pr, out.cache, t0))
        if say:
            say(_pass_line(len(out.passes), lp, pr, out.cache, ds.n, out.passes[-1]["seconds"]))
        if not pr.finished:
            break
        if out.bound is None or pr.bound < out.bound:
            out.bound = pr.bound
        out.scope = f"parent_limit:{pr.K}"
        out.converged = not pr.families
        if out.converged and (lp.complete or lp.value >= last - 1e-12 * (1.0 + abs(last))):
            break           # the LP over every K-parent set is solved, or it stopped falling
        last = lp.value
        if pr.families:
            out.cache = enlarged(out.cache, pr.families)
            lp_model = lp_model.grow(out.cache)
    if out.bound is not None:
        out.message = ("pricing converged: no parent set of at most {K} parents prices out" if out.converged
                       else "pricing finished {p} pass(es), sets still price out: the bound is that of the best "
                            "finished pass").format(K=K, p=sum(r["finished"] for r in out.passes))
    return out


def _pass_record(rr, pr: PricingResult, cache: ScoreCache, t0: float) -> dict:
    """One pass of :func:`column_generation` for ``PricedBound.passes`` (LP, pricing, timing)."""
    return {"lp_bound": rr.value, "clusters": int(len(rr.duals.lam)), "lp_complete": rr.complete,
            "finished": pr.finished, "priced_bound": pr.bound, "priced_out": len(pr.families),
            "cache_sets": cache.m, "seconds": time.perf_counter() - t0, "lp_seconds": rr.seconds,
            **{k: pr.stats.get(k, 0) for k in ("variables", "counted", "cut", "bounds", "skipped", "on_planes")}}


def _pass_line(p: int, rr, pr: PricingResult, cache: ScoreCache, n: int, seconds: float) -> str:
    """The progress line of pass ``p``."""
    return (f"pricing pass {p}: LP bound {rr.value:.6f} over {cache.m} sets; "
            + (f"priced bound {pr.bound:.6f} (K={pr.K}), {len(pr.families)} sets price out"
               if pr.finished else f"did not finish ({pr.stats['variables']} of {n} variables priced)")
            + f" [{seconds:.1f} s]")
