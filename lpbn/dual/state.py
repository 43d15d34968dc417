"""The dual of the cluster LP relaxation and its optimisation (Jaakkola et al. 2010, §5).

:class:`DualState` owns the growing cluster set (bitsets + members CSR), the dual
variables λ_C, the incrementally maintained adjustments ``adj`` (so that
``W_i(s; λ) = scores + adj``, eq. 14), the branch restriction mask, and the per-node maxima.
The cluster list is global to a solve: a cluster constraint is valid for every DAG, so
branch-and-bound children inherit all clusters and simply pad λ with zeros.
Besides the paper's clusters (eq. 6) the list may hold k-cluster constraints (``ck[c] = k
>= 2``, Cussens et al. 2017, see :mod:`lpbn.dual.kernels`); they only tighten the LP.
General rows (the {0, 1/2}-cuts of :mod:`lpbn.lp.zero_half`) enter with fixed multipliers μ
folded into ``scores`` and ``offset`` (:meth:`DualState.add_cuts`).
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from .. import bitsets as bs
from ..cache import ScoreCache, inverse_index
from ..lp.clusters import ClusterFamily
from ..lp.general_rows import GeneralRows
from ..signals import pending
from . import kernels as K
from ..tuning import CSR_MIN_WORDS


class DualState:
    """Dual variables and cached maxima over a fixed cache (see module docstring)."""

    def __init__(self, cache: ScoreCache, clusters: ClusterFamily | np.ndarray | None = None):
        self.cache = cache
        self.n = cache.n
        self.W = cache.words
        self.scores = cache.scores            # the cache's minus the cuts' μ·a (see add_cuts)
        # candidates' bitsets for the membership tests, or none (CSR tests) on wide caches
        self.bits = cache.bits if self.W < CSR_MIN_WORDS else np.zeros((0, self.W), dtype=np.uint64)
        self.offsets = cache.offsets
        self.family = cache.family
        self.sizes = cache.sizes
        self.pset_ptr = cache.pset_ptr
        self.pset_items = cache.pset_items
        self.inv_ptr, self.inv_items = inverse_index(self.n, self.pset_ptr, self.pset_items)
        self._cbits = np.zeros((16, self.W), dtype=np.uint64)
        self.K = 0
        self._members: list[np.ndarray] = []
        self._keys: dict[bytes, int] = {}
        self.cptr = np.zeros(1, dtype=np.int64)
        self.citems = np.zeros(0, dtype=np.int64)
        self.lam = np.zeros(0, dtype=np.float64)
        self.ck = np.zeros(0, dtype=np.int64)     # k of each cluster (1: eq. 6)
        self.adj = np.zeros(cache.m, dtype=np.float64)
        # general rows Σ coef·η[cols] <= rhs ({0, 1/2}-cuts, lpbn.lp.zero_half) with fixed multipliers μ
        self.cuts = GeneralRows()
        self._cut_keys: set[bytes] = set()
        self.mu = np.zeros(0, dtype=np.float64)
        self.offset = 0.0                     # Σ_r μ_r rhs_r, the cuts' share of the dual value
        self.zero_half = False                # separate {0, 1/2}-cuts beside tailing rounds (needs the LP polish)
        self.zero_half_backoff = None         # TailBackoff of those attempts (created at the first)
        self.zero_half_cuts = 0               # cuts separated so far
        self.local_k = 0                      # local cuts of this many variables (3, 4 or 5; 0: none)
        self.local_backoff = None             # TailBackoff of the local-cut attempts
        self.local_cuts = 0                   # local cuts separated so far
        self.allowed = np.ones(cache.m, dtype=np.bool_)
        self.M = np.empty(self.n, dtype=np.float64)
        self.arg = np.empty(self.n, dtype=np.int64)
        self.flips = np.zeros(self.n, dtype=np.int64)
        self.sweeps = 0
        self.subgradient_steps = 0
        self.eta: np.ndarray | None = None   # primal LP point after an exact polish
        self.last_eta: np.ndarray | None = None
        self.exact_separation = True          # sub-IP fallback at LP points
        self.subip_clusters = 0
        self.separation_errors: dict[str, int] = {}   # failed sub-IP separations (reported in stats)
        self.grow_seeds: int | None = None    # cap on greedy-growth seeds (None: all nodes)
        self.grow_skip_failed = True          # skip seeds inside a large failed growth
        self.primal_first = False             # with an LP point: primal + cycles each round
        self.k_max = 1                        # k-cluster separation up to this k (1: none)
        self.kcluster_growth = True           # k-clusters also by greedy growth (else binding clusters only)
        self.kcluster_rounds = "stalled"      # k-clusters: "every" round, "stalled", or "auto" (also when tailing)
        self.kcluster_backoff = None          # TailBackoff of the "auto" attempts (created at the first)
        self.max_new = 200                    # clusters added per separation round
        self.round_sweeps = 200               # CD sweeps per relaxation round (without the LP polish)
        if clusters is not None:
            rows = clusters.bits if isinstance(clusters, ClusterFamily) else np.asarray(clusters, np.uint64)
            for row in rows:
                self.add_cluster_bits(row)
        self.refresh()

    # ------------------------------------------------------------------ clusters
    @property
    def cbits(self) -> np.ndarray:
        return self._cbits[:self.K]

    def add_cluster_bits(self, row: np.ndarray, k: int = 1) -> bool:
        """Add a cluster (bitset) with λ_C = 0, as a k-cluster constraint when ``k > 1``;
        False when present or not larger than k (a k-cluster needs k < |C|)."""
        row = np.asarray(row, dtype=np.uint64).reshape(self.W)
        members = np.array(bs.from_bitset(row), dtype=np.int64)
        if not 1 <= k <= K.MAX_K or len(members) <= k:
            return False
        key = row.tobytes() if k == 1 else row.tobytes() + bytes([k])
        if key in self._keys:
            return False
        if self.K == self._cbits.shape[0]:
            grown = np.zeros((2 * self.K, self.W), dtype=np.uint64)
            grown[:self.K] = self._cbits[:self.K]
            self._cbits = grown
        self._cbits[self.K] = row
        self._keys[key] = self.K
        self._members.append(members)
        self.K += 1
        self.lam = np.append(self.lam, 0.0)
        self.ck = np.append(self.ck, np.int64(k))
        self.cptr = np.append(self.cptr, self.cptr[-1] + len(members))
        self.citems = np.concatenate([self.citems, members])
        return True

    def row_of(self, row: np.ndarray, k: int = 1) -> int | None:
        """Index of the cluster row ``row`` with this k, or None when absent."""
        row = np.asarray(row, dtype=np.uint64).reshape(self.W)
        return self._keys.get(row.tobytes() if k == 1 else row.tobytes() + bytes([k]))

    def add_cluster(self, members) -> bool:
        return self.add_cluster_bits(bs.to_bitset(members, self.n))

    #: settings and counters a restricted state carries over (see :meth:`restricted`)
    CARRIED = ("exact_separation", "subip_clusters", "separation_errors", "grow_seeds", "grow_skip_failed",
               "primal_first", "k_max", "kcluster_growth", "kcluster_rounds", "max_new", "round_sweeps", "sweeps",
               "subgradient_steps", "zero_half", "zero_half_backoff", "zero_half_cuts", "local_k",
               "local_backoff", "local_cuts")

    def restricted(self, keep: np.ndarray) -> DualState:
        """This state over the sub-cache of the ``keep`` candidates (``ScoreCache.select``):
        the same clusters in the same order (so cluster ids and λ carry over), λ, settings
        and counters; no LP model or LP point (they index the old candidates)."""
        new = DualState(self.cache.select(keep))
        for row, k in zip(self.cbits, self.ck):
            new.add_cluster_bits(row, int(k))
        for name in self.CARRIED:
            setattr(new, name, getattr(self, name))
        if self.cuts:
            # a cut restricted to the kept columns is valid for every DAG of the sub-cache
            keep = np.asarray(keep, dtype=bool)
            to_new = np.cumsum(keep) - 1
            index: dict[bytes, int] = {}
            mu = []
            for (cols, coef, rhs), m in zip(self.cuts, self.mu.tolist()):
                on = keep[cols]
                cut = (to_new[cols[on]], coef[on], rhs)
                key = _cut_key(*cut)
                if key in index:         # two cuts that differ only in dropped columns: one row, μ added
                    mu[index[key]] += m
                    continue
                index[key] = len(mu)
                mu.append(m)
                new.add_cuts([cut])
            new.mu = np.array(mu, dtype=np.float64)
            new._fold_cuts()
        new.set_lambda(self.lam)
        return new

    def family_of_clusters(self) -> ClusterFamily:
        """The eq. 6 clusters (k = 1) as a :class:`ClusterFamily`, in the order they were added."""
        fam = ClusterFamily(self.n)
        fam._bits = self.cbits[self.ck == 1].copy()
        fam._keys = {row.tobytes() for row in fam._bits}
        return fam

    def members(self, c: int) -> np.ndarray:
        return self._members[c]

    # ------------------------------------------------------------------ general cuts
    def add_cuts(self, cuts: list[tuple[np.ndarray, np.ndarray, float]]) -> int:
        """Add rows ``Σ coef · η[cols] <= rhs`` valid for every DAG of the cache (the
        {0, 1/2}-cuts of :mod:`lpbn.lp.zero_half`) with μ = 0; returns how many were new.

        Their multipliers enter the dual as fixed Lagrangian terms: for μ >= 0 every DAG
        satisfies score(G) <= score(G) - Σ_r μ_r (a_r η(G) - rhs_r), so the scores become
        ``cache.scores - Σ_r μ_r a_r`` and ``Σ_r μ_r rhs_r`` joins the dual value (eq. 8 stays
        a valid bound for any λ, μ >= 0).  Coordinate descent moves λ only; μ comes from the
        exact polish (the cut rows' duals in :class:`lpbn.dual.polish.PolishLP`)."""
        added = 0
        for cols, coef, rhs in cuts:
            cols = np.asarray(cols, dtype=np.int64)
            coef = np.asarray(coef, dtype=np.float64)
            key = _cut_key(cols, coef, rhs)
            if key in self._cut_keys:
                continue
            self._cut_keys.add(key)
            self.cuts.append(cols, coef, float(rhs))
            added += 1
        if added:
            self.mu = np.concatenate([self.mu, np.zeros(added)])
        return added

    def set_duals(self, lam: np.ndarray, mu: np.ndarray) -> None:
        """Load the clusters' λ and the cuts' μ >= 0 (shorter vectors are padded with zeros)
        and refresh once."""
        full = np.zeros(len(self.cuts), dtype=np.float64)
        full[:len(mu)] = np.maximum(np.asarray(mu, dtype=np.float64)[:len(self.cuts)], 0.0)
        self.mu = full
        self._fold_cuts()
        self.set_lambda(lam)

    def _fold_cuts(self) -> None:
        """scores = cache.scores - Σ_r μ_r a_r and offset = Σ_r μ_r rhs_r (see add_cuts)."""
        self.scores, self.offset = folded_scores(self.cache.scores, self.cuts, self.mu)

    # ------------------------------------------------------------------ state
    def set_lambda(self, lam: np.ndarray) -> None:
        """Load λ (shorter vectors are padded with zeros) and refresh everything."""
        full = np.zeros(self.K, dtype=np.float64)
        full[:len(lam)] = lam[:self.K]
        self.lam = full
        self.refresh()

    def set_allowed(self, allowed: np.ndarray) -> None:
        self.last_eta = None
        self.allowed = np.ascontiguousarray(allowed, dtype=np.bool_)
        K.node_maxima(self.scores, self.adj, self.allowed, self.offsets, self.M, self.arg)

    def refresh(self) -> None:
        """Recompute ``adj`` from λ exactly (removes floating drift) and the maxima."""
        K.recompute_adj(self.bits, self.pset_ptr, self.pset_items, self.offsets, self.cbits, self.ck, self.cptr, self.citems, self.lam, self.adj)
        K.node_maxima(self.scores, self.adj, self.allowed, self.offsets, self.M, self.arg)

    def value(self) -> float:
        """Current dual objective (eq. 8); -inf marks an infeasible restricted problem."""
        if np.any(self.M == -np.inf):
            return -math.inf
        return float(K.dual_value(self.M, self.lam, self.ck)) + self.offset

    def exact_value(self) -> float:
        """Dual objective recomputed from λ without incremental drift (a certified bound)."""
        self.refresh()
        return self.value()

    # ------------------------------------------------------------------ optimisation
    def sweep(self, order: np.ndarray | None = None) -> float:
        """One coordinate-descent sweep (eqs. 9-11); returns the dual value (-inf: infeasible)."""
        if self.K == 0:
            return self.value()
        if order is None:
            order = np.arange(self.K, dtype=np.int64)
        ok = K.cd_sweep(self.scores, self.bits, self.pset_ptr, self.pset_items, self.offsets, self.allowed, self.cbits, self.ck, self.cptr,
                        self.citems, self.lam, self.adj, self.M, self.arg, self.flips, order)
        self.sweeps += 1
        return self.value() if ok else -math.inf

    def subgradient(self, eps: float) -> int:
        """Normalised subgradient step (eqs. 12-13) with step ``eps``; refreshes adj."""
        if self.K == 0:
            return 0
        moved = K.subgradient_step(self.bits, self.pset_ptr, self.pset_items, self.cbits, self.ck, self.cptr, self.citems, self.lam, self.arg,
                                   float(eps))
        self.subgradient_steps += 1
        if moved:
            self.refresh()
        return moved

    def decode(self) -> tuple[np.ndarray, float, np.ndarray]:
        """§5.2: min-regret order (eqs. 15-16), then best parents per order under W.

        Returns (candidate index per variable, score, order); score is -inf only if the
        order admits no DAG (cannot happen for a feasible cache).
        """
        vals = self.scores + self.adj
        order, _ = K.regret_order(vals, self.allowed, self.offsets, self.family, self.sizes,
                                  self.inv_ptr, self.inv_items)
        choice, score = self.cache.best_for_order(order)
        return choice, score, order

    def decode_eta(self) -> tuple[np.ndarray, float, np.ndarray] | None:
        """Decode from the polished LP point η (sink rounding, then best parents per order)."""
        if self.eta is None:
            return None
        order = K.sink_order(self.eta, self.scores, self.offsets, self.family, self.inv_ptr, self.inv_items)
        choice, score = self.cache.best_for_order(order)
        return choice, score, order

    def optimise(self, *, max_sweeps: int = 200, rel_tol: float = 1e-10,
                 on_sweep: Callable[[float], None] | None = None,
                 deadline: float = math.inf, first: int = 0) -> float:
        """CD sweeps (over the clusters from index ``first`` on) until the relative decrease
        of a sweep drops below ``rel_tol``."""
        prev = self.value()
        if self.K <= first:
            return prev
        order = np.arange(first, self.K, dtype=np.int64)
        for _ in range(max_sweeps):
            v = self.sweep(order)
            if on_sweep is not None:
                on_sweep(v)
            if v == -math.inf:
                return v
            if prev - v <= rel_tol * max(1.0, abs(v)) or time.perf_counter() > deadline \
                    or pending() is not None:
                return v
            prev = v
        return self.value()

    # ------------------------------------------------------------------ separation (§5.3)
    def separate(self, *, max_new: int | None = None, grow: bool = True, deadline: float = math.inf,
                 max_fw: int = 400, tailing: bool = False, cut_tailing: bool = False,
                 local_tailing: bool = False) -> int:
        """Add violated clusters with positive gain: most violated cycles (eqs. 18-19),
        then, if none, greedily grown clusters (eq. 20); at most ``max_new`` (default
        ``self.max_new``).  With an LP point (``primal_first``), k-clusters up to ``k_max``
        too: once no cluster is violated, and as ``kcluster_rounds`` says also beside them
        (``"every"`` round, or ``"auto"``: when the caller's bound is ``tailing`` off), and
        {0, 1/2}-cuts when it tails off over the longer window of ``cut_tailing``; local cuts
        of ``local_k`` variables when it tails off below the 1% gap where those stop
        (``local_tailing`` and not ``cut_tailing``), as in the HiGHS root
        (:func:`lpbn.lp.cut_loop.cut_loop`).  Returns how many were added."""
        if max_new is None:
            max_new = self.max_new
        eta = self.eta
        if eta is not None and self.primal_first:
            added = self._separate_primal(max_new, deadline, subip=False)
            added += self._separate_cycles(max_new, max_fw)
            if self.k_max >= 2 and (added == 0 or self._kclusters_beside(tailing)):
                found = self._separate_kclusters(eta, max_new)
                if added and self.kcluster_rounds == "auto":
                    self.kcluster_backoff.found(found)
                added += found
            if self.zero_half and self._zero_half_due(cut_tailing):
                found = self._separate_zero_half(eta)
                self.zero_half_backoff.found(found)
                added += found
            if self.local_k and local_tailing and not cut_tailing and self._backoff("local_backoff").due():
                found = self._separate_local(eta)
                self.local_backoff.found(found)
                added += found
            if added == 0 and grow:
                added = self._separate_grow(max_new, deadline)
            if added == 0 and self.exact_separation:
                added = self._separate_subip(eta, deadline, 1e-6)
            self.eta = None
            return added
        added = self._separate_cycles(max_new, max_fw)
        if added == 0 and grow:
            added = self._separate_grow(max_new, deadline)
        if added == 0 and self.eta is not None:
            added = self._separate_primal(max_new, deadline)
        return added

    def _kclusters_beside(self, tailing: bool) -> bool:
        """Separate k-clusters in a round that found clusters: every round (``"every"``), or with
        ``"auto"`` when the bound is ``tailing`` off and the back-off
        (:class:`lpbn.lp.separation.TailBackoff`) allows."""
        if self.kcluster_rounds == "every":
            return True
        if self.kcluster_rounds != "auto" or not tailing:
            return False
        return self._backoff("kcluster_backoff").due()

    def _zero_half_due(self, tailing: bool) -> bool:
        """Separate {0, 1/2}-cuts in this round: when the bound is ``tailing`` off with a gap
        above 1% (:func:`lpbn.lp.separation.tailing_off`, whether or not clusters were found)
        and the back-off (:class:`lpbn.lp.separation.TailBackoff`) allows.  Not in every
        stalled round: on wdbc (root gap 0.1%) cuts there made the tree 23 -> 31 s."""
        if not tailing:
            return False
        return self._backoff("zero_half_backoff").due()

    def _backoff(self, name: str):
        """The :class:`lpbn.lp.separation.TailBackoff` in attribute ``name`` (made at first use)."""
        if getattr(self, name) is None:
            from ..lp.separation import TailBackoff
            setattr(self, name, TailBackoff())
        return getattr(self, name)

    def _separate_local(self, eta: np.ndarray) -> int:
        """Local cuts violated at the LP point η (:mod:`lpbn.lp.local_cuts`: rows of the
        family-variable polytope of ``local_k`` variables, lifted); they enter the dual as the
        {0, 1/2}-cuts do, with fixed multipliers (:meth:`add_cuts`).  How many."""
        from ..lp.local_cuts import local_cuts
        if eta is None or not np.any(eta > 1e-9):
            return 0
        added = self.add_cuts(local_cuts(self.cache, eta, self.local_k))
        self.local_cuts += added
        return added

    def _separate_zero_half(self, eta: np.ndarray) -> int:
        """{0, 1/2}-Chvátal-Gomory cuts violated at the LP point η (:mod:`lpbn.lp.zero_half`,
        the passes of the HiGHS cut loop: zero-cost combinations, then nearly tight rows and
        nearly integral columns) from the convexity rows, the eq. 6 clusters and the earlier
        cuts; they enter the dual with fixed multipliers (:meth:`add_cuts`).  How many."""
        from ..lp.cut_loop import separate_zero_half
        if eta is None or not np.any(eta > 1e-9):
            return 0
        added = separate_zero_half(self.cache, eta, self.cbits[self.ck == 1], self.cuts, self.add_cuts)
        self.zero_half_cuts += added
        return added

    def _separate_primal(self, max_new: int, deadline: float, viol_tol: float = 1e-6,
                         subip: bool = True) -> int:
        """Clusters violated by the LP point η from the exact polish (eq. 6 activity < 1).

        Used because at an exact LP optimum the dual is degenerate (ties make every
        δ_ji <= 0), so the §5.3 tests go blind.  The primal separation routines are the ones
        of the HiGHS cutting-plane loop (:mod:`lpbn.lp.separation`): support-graph
        components and cycles, then greedy growth with local search, most violated first;
        the exact search only with ``exact_separation``.
        """
        from ..lp.separation import cheap_clusters, grown_clusters
        eta = self.eta
        self.eta = None
        if eta is None or not np.any(eta > 1e-9):
            return 0
        cuts = cheap_clusters(self.cache, eta, viol_tol, max_cuts=max_new) or \
            grown_clusters(self.cache, eta, viol_tol, max_cuts=max_new)
        added = sum(1 for row in cuts if self.add_cluster_bits(row))
        if added == 0 and subip and self.exact_separation and time.perf_counter() < deadline:
            added = self._separate_subip(eta, deadline, viol_tol)
        return added

    def _separate_kclusters(self, eta: np.ndarray, max_new: int, viol_tol: float = 1e-6) -> int:
        """k-cluster constraints (2 <= k <= ``k_max``) violated at the LP point η, over the
        binding eq. 6 clusters (λ_C > 0) and by greedy growth on the k-activity — the routines of the
        HiGHS loop (:func:`lpbn.lp.separation.separate_kclusters`, ``grown_kclusters``).
        Called once no eq. 6 cluster is violated, or beside them as ``kcluster_rounds`` says
        (:meth:`separate`): they tighten the LP beyond the paper's cluster relaxation (Cussens
        et al. 2017) and stay valid for every DAG."""
        from ..lp.separation import grown_kclusters, separate_kclusters
        if eta is None or not np.any(eta > 1e-9):
            return 0
        tight = (self.ck == 1) & (self.lam > 0)       # k-cluster candidates: the binding clusters
        rows, ks = separate_kclusters(self.cache, eta, self.cbits[tight], self.k_max, tol=viol_tol)
        cand = list(zip(rows, ks.tolist()))
        for k in range(2, self.k_max + 1) if self.kcluster_growth else ():
            cand += [(row, k) for row in grown_kclusters(self.cache, eta, k, tol=viol_tol)]
        added = 0
        for row, k in cand:
            if added >= max_new:
                break
            added += self.add_cluster_bits(row, int(k))
        return added

    def _separate_subip(self, eta: np.ndarray, deadline: float, viol_tol: float) -> int:
        """Last resort at an LP point: the exact cluster sub-IP (Bartlett & Cussens 2017) of
        :mod:`lpbn.lp.separation`, when that module is available."""
        try:
            from ..lp.exact_separation import exact_clusters
        except ImportError as exc:  # optional back end (HiGHS): separation goes without it
            self._separation_error(exc)
            return 0
        left = deadline - time.perf_counter()
        if left <= 0.05:
            return 0
        try:
            found = exact_clusters(self.cache, eta, tol=viol_tol, max_cuts=5,
                                   time_limit=None if not math.isfinite(left) else left)
        except Exception as exc:   # noqa: BLE001 - a last-resort separation; the bound stays valid
            self._separation_error(exc)
            return 0
        added = 0
        for row in found:
            if self.add_cluster_bits(row):
                added += 1
        self.subip_clusters += added
        return added

    def _separation_error(self, exc: BaseException) -> None:
        """Count a failed sub-IP separation by its message (the solver's stats report them:
        the run goes on without those clusters, whose absence only weakens the bound)."""
        key = f"{type(exc).__name__}: {exc}"[:200]
        self.separation_errors[key] = self.separation_errors.get(key, 0) + 1

    def _try_add(self, members: np.ndarray) -> bool:
        row = bs.to_bitset(members.tolist(), self.n)
        if row.tobytes() in self._keys or len(members) < 2:
            return False
        if not self._gain_members(members) > 0.0:
            return False
        return self.add_cluster_bits(row)

    def _gain_members(self, members: np.ndarray) -> float:
        inC = np.zeros(self.n, dtype=np.bool_)
        inC[members] = True
        return K.gain_of(np.asarray(members, np.int64), len(members), inC, self.scores, self.adj,
                          self.allowed, self.offsets, self.pset_ptr, self.pset_items)

    def _separate_cycles(self, max_new: int, max_fw: int) -> int:
        from ..lp.separation import scc_labels
        src, dst, wt = K.edge_deltas(self.scores, self.adj, self.allowed, self.offsets, self.pset_ptr,
                                     self.pset_items, self.bits, self.M, self.arg)
        if len(src) == 0:
            return 0
        g = np.zeros((self.n, self.n), dtype=np.bool_)
        g[src, dst] = True
        labels, ncomp = scc_labels(g)
        sizes = np.bincount(labels, minlength=ncomp)
        added = 0
        for comp in np.flatnonzero(sizes >= 2):
            nodes = np.flatnonzero(labels == comp)
            local = -np.ones(self.n, dtype=np.int64)
            local[nodes] = np.arange(len(nodes))
            sel = (local[src] >= 0) & (local[dst] >= 0)
            a, b, w = local[src[sel]], local[dst[sel]], wt[sel]
            s = len(nodes)
            cycles = []
            if s <= max_fw:
                D = np.full((s, s), -np.inf)
                np.maximum.at(D, (a, b), w)
                cycles = K.maxmin_cycles(D)
            else:
                order = np.argsort(a, kind="stable")
                eptr = np.zeros(s + 1, dtype=np.int64)
                np.cumsum(np.bincount(a, minlength=s), out=eptr[1:])
                eitems = b[order].astype(np.int64)
                for k in range(s):
                    cycles.append(K.short_cycle_through(k, eptr, eitems, s))
            for cyc in cycles:
                if len(cyc) >= 2 and self._try_add(nodes[cyc]):
                    added += 1
                    if added >= max_new:
                        return added
        return added

    def _separate_grow(self, max_new: int, deadline: float) -> int:
        added = 0
        max_size = self.n
        seeds = np.argsort(-self.flips, kind="stable")
        if self.grow_seeds is not None:
            seeds = seeds[:self.grow_seeds]
        covered = np.zeros(self.n, dtype=np.bool_)
        big = max(64, self.n // 4)   # only growths whose O(|C|^2) cost matters
        for seed in seeds:
            if time.perf_counter() > deadline or pending() is not None:
                break
            if self.grow_skip_failed and covered[seed]:
                continue
            members, gain = K.grow_cluster_fast(int(seed), self.scores, self.adj, self.allowed, self.offsets,
                                                self.pset_ptr, self.pset_items, self.arg, self.inv_ptr,
                                                self.inv_items, self.family, max_size)
            if not gain > 0.0 and len(members) >= big:
                # a large growth that failed: seeds inside it mostly regrow the same
                # cluster (each such growth costs O(|C|^2) scans), so skip them this pass
                covered[members] = True
            if gain > 0.0 and self._try_add(members):
                added += 1
                if added >= max_new:
                    break
        return added


def folded_scores(scores: np.ndarray, cuts: list, mu: np.ndarray) -> tuple[np.ndarray, float]:
    """The cuts' Lagrangian terms folded into the scores (see :meth:`DualState.add_cuts`):
    ``scores - Σ_r μ_r a_r`` and ``Σ_r μ_r rhs_r``."""
    on = np.flatnonzero(np.asarray(mu) > 0.0)
    if len(on) == 0:
        return scores, 0.0
    cols = np.concatenate([cuts[r][0] for r in on])
    vals = np.concatenate([mu[r] * cuts[r][1] for r in on])
    out = np.array(scores, dtype=np.float64, copy=True)
    np.subtract.at(out, cols, vals)
    return out, float(sum(mu[r] * cuts[r][2] for r in on))


def _cut_key(cols: np.ndarray, coef: np.ndarray, rhs: float) -> bytes:
    """A cut row's identity (its columns, coefficients and right side)."""
    return np.asarray(cols, np.int64).tobytes() + np.asarray(coef, np.float64).tobytes() + \
        np.float64(rhs).tobytes()
