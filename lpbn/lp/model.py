"""The η linear program in HiGHS (Jaakkola et al. 2010, eqs. 2, 5, 6 and 7).

Columns are the parent-set indicators η_i(s), one per candidate of the cache (global
candidate index j = column j), with objective W_i(s) (maximised) and bounds [0, 1].
Rows are

* one convexity row per variable, Σ_s η_i(s) = 1 (the "simple constraints" of §4);
* cluster rows (eq. 6), Σ_{i∈C} Σ_{s: s∩C=∅} η_i(s) >= 1, built from a
  :class:`lpbn.lp.clusters.ClusterFamily` with :func:`lpbn.lp.clusters.cluster_rows_csr`;
* optionally lifted cycle inequalities (eq. 5), Σ_{(j,i)∈E_C} Σ_{s∋j} η_i(s) <= |E_C| - 1;
* optionally k-cluster rows (:meth:`EtaLP.add_kclusters`), Σ_{i∈C} Σ_{|s∩C|<k} η_i(s) >= k,
  which tighten the ILP beyond P_cluster (Cussens et al., JAIR 2017);
* optionally general cuts (:meth:`EtaLP.add_cuts`), such as the {0, 1/2}-Chvátal–Gomory cuts
  of :mod:`lpbn.lp.zero_half`;
* optionally generation-number rows (:meth:`EtaLP.add_generation_rows`): n continuous
  columns g_v in [0, n-1] and, for every possible edge u -> v,
  g_v - g_u - n Σ_{s∋u} η_v(s) >= 1 - n.  They are the Miller–Tucker–Zemlin encoding of a
  topological order (cf. the generation variables of GOBNILP): an *integral* η satisfies
  them for some g exactly when its graph is acyclic.  They add nothing to the LP bound,
  whose strength comes from the cluster rows, but make the ILP exact by itself.

Rows are appended with ``Highs.addRows`` from CSR arrays (no per-element Python loops);
HiGHS keeps the previous basis, so every re-solve after adding rows is a dual-simplex warm
start.  The same object becomes the ILP of :mod:`lpbn.highs.ilp` (and of :mod:`lpbn.kbest.ilp`) by
marking the columns integral; ``pulp-cbc`` translates it for CBC.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import highspy
import numpy as np

from .. import tuning
from ..cache import ScoreCache
from .clusters import ClusterFamily, cluster_rows_csr, cluster_rows_on, unseen_rows
from .general_rows import GeneralRows, canonical_row
from .highs_session import new_highs
from .highs_session import run as run_highs
from .numpy_kernels import use_numpy

_OPTIMAL = highspy.HighsModelStatus.kOptimal


@dataclass
class LPSolution:
    """Outcome of one LP solve: status string, objective value (upper bound) and η*."""

    status: str
    value: float
    eta: np.ndarray | None
    iterations: int = 0
    #: row duals (HiGHS's sign convention for a maximisation: a ``>=`` row's dual is <= 0),
    #: one per model row in model order, when optimal
    row_dual: np.ndarray | None = None
    #: a restricted model whose pricing was cut short (``solve_lp(max_pricing=...)``): the
    #: Lagrangian bound of its duals over every allowed candidate (:meth:`EtaLP.column_bounds`),
    #: the valid upper bound, while ``value`` is only the restricted LP's; None when ``value``
    #: is itself the LP over every allowed candidate
    lagrangian: float | None = None
    #: ``fn() -> float``: the rigorous bound of the row duals (:meth:`EtaLP.safe_bound`),
    #: computed when :attr:`upper` is first read
    safe: Any = field(default=None, repr=False)

    @property
    def upper(self) -> float:
        """A valid upper bound on every DAG of the rows, never HiGHS's objective as such: the
        Lagrangian bound of the solve's row duals (eq. 8 of Jaakkola et al. 2010, valid for
        any duals of the right signs, summed with ``math.fsum`` and raised by its rounding;
        :meth:`EtaLP.safe_bound`), or when the pricing was cut short the Lagrangian bound of
        :meth:`EtaLP.columns_to_price`."""
        if self.lagrangian is not None:
            return self.lagrangian
        if callable(self.safe):
            self.safe = float(self.safe())
        return self.value if self.safe is None else self.safe


@dataclass
class MIPSolution:
    """Outcome of one MIP solve.

    ``bound`` is HiGHS's dual bound (a valid upper bound on the MIP over the current rows,
    hence on every DAG), ``choice`` the incumbent's candidate per variable or None.
    """

    status: str
    bound: float
    value: float
    choice: np.ndarray | None
    nodes: int = 0
    rejected: list = None


def _status_name(h: highspy.Highs) -> str:
    st = h.getModelStatus()
    if st == _OPTIMAL:
        return "optimal"
    if st == highspy.HighsModelStatus.kTimeLimit:
        return "time_limit"
    if st == highspy.HighsModelStatus.kInfeasible:
        return "infeasible"
    if st == highspy.HighsModelStatus.kInterrupt:
        return "interrupted"
    if st == highspy.HighsModelStatus.kMemoryLimit:
        return "memory_limit"
    return h.modelStatusToString(st)


def best_per_variable(family: np.ndarray, value: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """The (at most) ``k`` candidates of each variable with the largest ``value`` among ``mask``."""
    cand = np.flatnonzero(mask)
    if len(cand) == 0:
        return cand
    order = np.lexsort((-value[cand], family[cand]))
    cand = cand[order]
    fam = family[cand]
    rank = np.arange(len(cand)) - np.searchsorted(fam, fam, side="left")
    return cand[rank < k]


class EtaLP:
    """The η LP/ILP of a cache with incrementally added cluster and cycle rows.

    Parameters
    ----------
    cache : ScoreCache
    clusters : ClusterFamily or (K, W) uint64 array, optional
        Initial cluster rows (eq. 6).
    threads : int
        HiGHS threads (1 keeps the machine shareable and results reproducible).
    presolve : bool
        False for a model that is re-solved many times from a warm basis (the dual's polish).
    columns : int array, optional
        Build the LP over these candidates only (a restricted master for column generation,
        as in :mod:`lpbn.dual.polish`); rows given over candidates keep only their entries
        in the model, :meth:`add_columns` brings more in, and η outside the model is 0.
        The ILP needs every column, so a restricted model is an LP only.
    price : bool
        With ``columns``: :meth:`solve_lp` prices the candidates outside the model at each
        optimum (:meth:`reduced_costs`), brings in those with a positive reduced cost
        (PRICE_COLUMNS per variable, the largest first) and solves again until none is left,
        so its value is the LP optimum over every allowed candidate — a valid bound — while
        HiGHS pivots over a fraction of the columns.  Rows must be of the families the model
        knows (convexity, clusters, k-clusters, :meth:`add_cuts`, cycles);
        :meth:`full_model` gives the same rows over every column for the ILP.
    column_upper : float
        The columns' upper bound: 1 (the ILP's bounds), or ``inf`` when the cluster rows'
        duals are to be read as eq. 8's λ — η <= 1 is implied by the convexity rows, and
        without the bound no column-bound dual can take a share of the LP value that λ
        would then miss.

    Besides the families of rows it knows (clusters, k-clusters, cycles, generation rows),
    the model takes rows that a caller keeps the books of (:meth:`add_rows`,
    :meth:`delete_rows`: the dual's cut pool in :mod:`lpbn.dual.polish`), column
    restrictions (:meth:`restrict`, a B&B node's allowed candidates), basis save/load and
    strong-branching probes (:meth:`probe`).
    """

    def __init__(self, cache: ScoreCache, clusters: ClusterFamily | np.ndarray | None = None, *,
                 threads: int = 1, log: bool = False, presolve: bool = True, column_upper: float = 1.0,
                 columns: np.ndarray | None = None, price: bool = False):
        self.cache = cache
        self._args = dict(threads=threads, log=log, presolve=presolve, column_upper=column_upper)
        self.price = bool(price) and columns is not None
        self.priced = 0                          # columns brought in by pricing
        self.pending = np.zeros(0, dtype=np.int64)   # priced, for the next solve_lp to bring in
        self.n, self.m = cache.n, cache.m
        self.clusters = ClusterFamily(cache.n)
        self.cycles: list[tuple[int, ...]] = []
        self.integer = False
        self.generation_col: int | None = None   # first g column, once added
        self.kclusters: set[tuple[bytes, int]] = set()
        self._kbits: list[np.ndarray] = []       # k-cluster rows in model order, with their k
        self._ks: list[np.ndarray] = []
        # (k-)cluster rows deleted by purge_clusters, (bits, k), until restore_purged; and per
        # cluster / k-cluster row (in model order) how many purge checks in a row found it slack
        self._purged: list[tuple[np.ndarray, np.ndarray]] = []
        self._slack_age = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self.cuts = GeneralRows()      # rows of add_cuts, (cols, coef, rhs) in one CSR
        self.derivations: list = []    # per row of self.cuts, its zero_half.Derivation or None
        self._cut_keys: set[tuple[bytes, bytes, float]] = set()
        self._cut_kinds: set[str] = set()                            # row kinds of add_cuts
        self.mip_options: dict = {}   # extra HiGHS options for solve_mip
        self.mip_retries = 0          # MIPs solved again without presolve (see solve_mip)
        self._families = None         # _row_families' answer and the row kinds it was for
        self._row_cands: dict[tuple, np.ndarray] = {}   # (cluster words, k) -> its row's candidates
        h = new_highs(threads, log)
        h.setOptionValue("random_seed", 0)
        if not presolve:
            h.setOptionValue("presolve", "off")
        self.allowed = np.ones(self.m, dtype=np.bool_)   # candidates not fixed to 0 by restrict()
        self.upper = float(column_upper)
        # model column -> candidate, and candidate -> model column (None: the identity)
        self.cols = np.arange(self.m, dtype=np.int64) if columns is None else \
            np.unique(np.asarray(columns, dtype=np.int64))
        self.pos: np.ndarray | None = None
        if columns is not None:
            self.pos = np.full(self.m, -1, dtype=np.int64)
            self.pos[self.cols] = np.arange(len(self.cols))
        m = len(self.cols)
        zero = np.zeros(m + 1, dtype=np.int32)
        h.addCols(m, np.asarray(cache.scores, dtype=np.float64)[self.cols], np.zeros(m), np.full(m, self.upper), 0,
                  zero[:m], np.zeros(0, dtype=np.int32), np.zeros(0))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        # convexity rows: variable i's candidates are the contiguous range offsets[i]:offsets[i+1]
        ones = np.ones(self.n)
        starts = np.searchsorted(self.cols, np.asarray(cache.offsets[:-1], dtype=np.int64))
        h.addRows(self.n, ones, ones, m, starts.astype(np.int32), np.arange(m, dtype=np.int32), np.ones(m))
        self.h = h
        self.row_kind: list[str] = ["convexity"] * self.n
        if clusters is not None:
            self.add_clusters(clusters)

    # ------------------------------------------------------------------ rows
    @property
    def num_rows(self) -> int:
        return self.h.getNumRow()

    def add_rows(self, ptr: np.ndarray, idx: np.ndarray, lower: np.ndarray, kind: str = "cut") -> None:
        """Append ``len(lower)`` rows ``Σ_{j ∈ idx[ptr[r]:ptr[r+1]]} η_j >= lower[r]`` (CSR,
        unit coefficients) that the caller keeps the books of; they follow the current rows."""
        self.add_general_rows(ptr, idx, np.ones(len(idx)), lower, np.full(len(lower), highspy.kHighsInf), kind)

    def add_general_rows(self, ptr: np.ndarray, idx: np.ndarray, val: np.ndarray, lower: np.ndarray,
                         upper: np.ndarray, kind: str = "cut") -> None:
        """Append rows ``lower[r] <= Σ val · η[idx]`` (CSR over candidates) ``<= upper[r]``
        that the caller keeps the books of (as :meth:`add_rows`)."""
        k = len(lower)
        if k == 0:
            return
        ptr, idx, val = self._in_model(ptr, idx, np.asarray(val, dtype=np.float64))
        self.h.addRows(k, np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64), len(idx),
                       np.asarray(ptr[:-1], dtype=np.int32), np.asarray(idx, dtype=np.int32), val)
        self.row_kind += [kind] * k

    def _in_model(self, ptr: np.ndarray, idx: np.ndarray, val: np.ndarray | None = None):
        """Rows given as CSR over candidates -> over the model's columns (entries of
        candidates outside a restricted model are dropped; they are 0 there)."""
        if self.pos is None:
            return ptr, idx, val
        where = self.pos[np.asarray(idx, dtype=np.int64)]
        keep = where >= 0
        kept = np.zeros(len(keep) + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        return kept[np.asarray(ptr, dtype=np.int64)], where[keep], None if val is None else np.asarray(val)[keep]

    def _cluster_rows_in_model(self, bits: np.ndarray, ks: np.ndarray | None = None):
        """The (k-)cluster rows of ``bits`` as CSR over the model's columns (positions); a
        restricted model's rows are built over its columns only (K x columns, not K x m)."""
        if self.pos is None:
            return cluster_rows_csr(self.cache, bits, ks)
        ptr, idx = cluster_rows_on(self.cache, bits, self.cols, ks)
        return ptr, self.pos[idx]

    @property
    def num_cols(self) -> int:
        """η columns in the model (all candidates unless restricted)."""
        return len(self.cols)

    def add_columns(self, cands: np.ndarray, ptr: np.ndarray, rows: np.ndarray, vals: np.ndarray) -> None:
        """Bring the candidates ``cands`` (not in the model yet) into a restricted model;
        column t's entries in the rows after the convexity rows are ``rows[ptr[t]:ptr[t+1]]``
        (model row positions) with coefficients ``vals`` (its convexity entry is added here).
        New columns are nonbasic at 0, so the basis stays primal feasible."""
        cands = np.asarray(cands, dtype=np.int64)
        k = len(cands)
        if k == 0:
            return
        assert self.pos is not None and np.all(self.pos[cands] < 0) and not self.integer
        lens = np.diff(ptr) + 1
        start = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(lens, out=start[1:])
        index = np.empty(int(start[-1]), dtype=np.int64)
        value = np.empty(int(start[-1]), dtype=np.float64)
        index[start[:-1]] = self.cache.family[cands]
        value[start[:-1]] = 1.0
        body = np.ones(len(index), dtype=bool)
        body[start[:-1]] = False
        index[body] = rows
        value[body] = vals
        up = np.where(self.allowed[cands], self.upper, 0.0)
        self.h.addCols(k, np.asarray(self.cache.scores, dtype=np.float64)[cands], np.zeros(k), up, len(index),
                       start[:-1].astype(np.int32), index.astype(np.int32), value)
        self.pos[cands] = len(self.cols) + np.arange(k)
        self.cols = np.concatenate([self.cols, cands])

    def delete_rows(self, rows: np.ndarray) -> None:
        """Delete the model rows at positions ``rows`` (later rows move up); only for rows
        added with :meth:`add_rows` (the named families keep their own books)."""
        rows = np.asarray(rows, dtype=np.int32)
        if len(rows) == 0:
            return
        self.h.deleteRows(len(rows), rows)
        gone = set(rows.tolist())
        self.row_kind = [k for r, k in enumerate(self.row_kind) if r not in gone]

    def restrict(self, allowed: np.ndarray) -> None:
        """Fix the columns outside ``allowed`` (a boolean mask over candidates) to 0 and free
        the others (only the changed bounds go to HiGHS)."""
        changed = np.flatnonzero(self.allowed != allowed)
        if len(changed):
            self.allowed = np.array(allowed, dtype=np.bool_, copy=True)
            if self.pos is not None:
                changed = changed[self.pos[changed] >= 0]
            up = np.where(allowed[changed], self.upper, 0.0)
            where = changed if self.pos is None else self.pos[changed]
            self.h.changeColsBounds(len(changed), where.astype(np.int32), np.zeros(len(changed)), up)

    def add_clusters(self, clusters: ClusterFamily | np.ndarray) -> int:
        """Append the eq. 6 rows of the clusters not yet in the model; returns how many."""
        bits = clusters.bits if isinstance(clusters, ClusterFamily) else np.asarray(clusters, np.uint64)
        bits = bits.reshape(-1, self.clusters.words)
        new = np.array([self.clusters.add_bitset(b) for b in bits], dtype=bool) if len(bits) else \
            np.zeros(0, dtype=bool)
        if not new.any():
            return 0
        fresh = bits[new]
        ptr, idx = self._cluster_rows_in_model(fresh)
        k = len(fresh)
        self._keep_rows(fresh, np.ones(k, dtype=np.int64), ptr, idx)
        self.h.addRows(k, np.ones(k), np.full(k, highspy.kHighsInf), len(idx),
                       ptr[:-1].astype(np.int32), idx.astype(np.int32), np.ones(len(idx)))
        self.row_kind += ["cluster"] * k
        return k

    def add_cuts(self, cuts: list[tuple[np.ndarray, np.ndarray, float]], kind: str = "zerohalf",
                 derivations: list | None = None) -> int:
        """Append general rows ``Σ coef · η[cols] <= rhs`` (e.g. the {0, 1/2}-cuts of
        :mod:`lpbn.lp.zero_half`, with their ``derivations`` when known) not yet in the model;
        returns how many."""
        fresh = []
        for t, (cols, coef, rhs) in enumerate(cuts):
            cols, coef = canonical_row(cols, coef)
            key = _cut_key(cols, coef, rhs)
            if key not in self._cut_keys:
                self._cut_keys.add(key)
                fresh.append((cols, coef, float(rhs)))
                self.cuts.append(cols, coef, float(rhs))
                self.derivations.append(None if derivations is None else derivations[t])
        if not fresh:
            return 0
        self._cut_kinds.add(kind)
        lens = np.array([len(c) for c, _, _ in fresh], dtype=np.int64)
        start = np.zeros(len(fresh), dtype=np.int64)
        np.cumsum(lens[:-1], out=start[1:])
        idx = np.concatenate([np.asarray(c, dtype=np.int64) for c, _, _ in fresh])
        val = np.concatenate([np.asarray(v, dtype=np.float64) for _, v, _ in fresh])
        ptr = np.append(start, len(idx))
        ptr, idx, val = self._in_model(ptr, idx, val)
        start, idx = ptr[:-1].astype(np.int32), idx.astype(np.int32)
        k = len(fresh)
        self.h.addRows(k, np.full(k, -highspy.kHighsInf), np.array([r for _, _, r in fresh], dtype=np.float64),
                       len(idx), start.astype(np.int32), idx, val)
        self.row_kind += [kind] * k
        return k

    def purge_cuts(self, eta: np.ndarray, tol: float = 1e-6) -> int:
        """Delete the rows of :meth:`add_cuts` with slack above ``tol`` at ``eta`` (a point of
        this LP): before the MIP, where every row costs in each node's LP (hailfinder at
        N = 20,000: a thousand {0, 1/2}-cuts, most of them slack at the root's last point, in
        a model of 3 M nonzeros); returns how many.  They may be separated again later."""
        if not self.cuts:
            return 0
        eta = np.asarray(eta, dtype=np.float64)
        slack = self.cuts.rhs - self.cuts.activity(eta)
        gone = np.flatnonzero(slack > tol)
        if len(gone) == 0:
            return 0
        rows = np.flatnonzero(np.isin(np.array(self.row_kind), list(self._cut_kinds)))
        assert len(rows) == len(self.cuts)
        self.h.deleteRows(len(gone), rows[gone].astype(np.int32))
        drop = set(rows[gone].tolist())
        self.row_kind = [k for r, k in enumerate(self.row_kind) if r not in drop]
        for i in gone.tolist():
            self._cut_keys.discard(_cut_key(*self.cuts[i]))
        keep = np.ones(len(self.cuts), dtype=bool)
        keep[gone] = False
        self.cuts = GeneralRows(c for c, k in zip(self.cuts, keep) if k)
        self.derivations = [d for d, k in zip(self.derivations, keep) if k]
        return len(gone)

    def purge_clusters(self, checks: int = 2, tol: float = 1e-6) -> int:
        """Delete the cluster and k-cluster rows slack (activity above the right-hand side by
        more than ``tol``) at the current LP point and at the ``checks - 1`` calls before this
        one; how many.  The point stays optimal (a slack row's dual is 0), a deleted row may be
        separated again, and :meth:`restore_purged` puts them all back (before the MIP, which so
        keeps every row the root found).  Dense: on accidents' priced root (111 variables) the cluster
        and k-cluster rows held 317,000 of the LP's 334,000 nonzeros, two thirds of them with
        a zero dual, and pivots slowed tenfold as they piled up."""
        rows = self._row_families()
        sol = self.h.getSolution()
        if not sol.value_valid:
            return 0
        value = np.asarray(sol.row_value, dtype=np.float64)
        lower = np.asarray(self.h.getLp().row_lower_, dtype=np.float64)
        gone_rows, ages = [], []
        for fam, age in zip(("cluster", "kcluster"), self._slack_age):
            at = rows[fam]
            age = np.concatenate([age, np.zeros(len(at) - len(age), dtype=np.int64)])
            age = np.where(value[at] - lower[at] > tol, age + 1, 0)
            gone_rows.append(np.flatnonzero(age >= checks))
            ages.append(age)
        if not sum(len(g) for g in gone_rows):
            self._slack_age = tuple(ages)
            return 0
        gc, gk = gone_rows
        if len(gc):
            bits = self.clusters.drop(gc)
            self._purged.append((bits, np.ones(len(bits), dtype=np.int64)))
        if len(gk):
            kbits, ks = np.concatenate(self._kbits), np.concatenate(self._ks)
            for b, k in zip(kbits[gk], ks[gk]):
                self.kclusters.discard((b.tobytes(), int(k)))
            self._purged.append((kbits[gk], ks[gk]))
            keep = np.ones(len(ks), dtype=bool)
            keep[gk] = False
            self._kbits, self._ks = [kbits[keep]], [ks[keep]]
        at = np.concatenate([rows["cluster"][gc], rows["kcluster"][gk]])
        self.delete_rows(np.sort(at))
        self._slack_age = tuple(np.delete(a, g) for a, g in zip(ages, gone_rows))
        return len(at)

    def restore_purged(self) -> int:
        """Add back the (k-)cluster rows :meth:`purge_clusters` deleted (those not separated
        again since); how many."""
        added = 0
        for bits, ks in self._purged:
            one = ks == 1
            added += self.add_clusters(bits[one]) if one.any() else 0
            added += self.add_kclusters(bits[~one], ks[~one]) if (~one).any() else 0
        self._purged = []
        return added

    def add_kclusters(self, clusters: np.ndarray, ks: np.ndarray) -> int:
        """Append the k-cluster rows (cluster, k) not yet in the model; returns how many."""
        keep = unseen_rows(clusters, ks, self.kclusters)
        if not keep:
            return 0
        bits, ks = np.asarray(clusters, dtype=np.uint64)[keep], np.asarray(ks, dtype=np.int64)[keep]
        self._kbits.append(bits.reshape(-1, self.clusters.words))
        self._ks.append(ks)
        ptr, idx = self._cluster_rows_in_model(bits, ks)
        k = len(keep)
        self._keep_rows(bits, ks, ptr, idx)
        self.h.addRows(k, ks.astype(np.float64), np.full(k, highspy.kHighsInf), len(idx),
                       ptr[:-1].astype(np.int32), idx.astype(np.int32), np.ones(len(idx)))
        self.row_kind += ["kcluster"] * k
        return k

    def add_cycles(self, cycles: list[list[int]]) -> int:
        """Append lifted cycle inequalities (eq. 5) for directed cycles v0 -> v1 -> ... -> v0."""
        from .separation import cycle_rows_csr
        seen = set(self.cycles)
        fresh = []
        for cyc in cycles:
            key = _canonical_cycle(cyc)
            if len(key) >= 2 and key not in seen:
                seen.add(key)
                fresh.append(key)
        if not fresh:
            return 0
        ptr, idx, rhs = cycle_rows_csr(self.cache, fresh)
        ptr, idx, _ = self._in_model(ptr, idx)
        k = len(fresh)
        self.h.addRows(k, np.full(k, -highspy.kHighsInf), rhs, len(idx), ptr[:-1].astype(np.int32),
                       idx.astype(np.int32), np.ones(len(idx)))
        self.cycles += fresh
        self.row_kind += ["cycle"] * k
        return k

    def add_generation_rows(self) -> int:
        """Append the generation columns g and one row per possible edge u -> v (see the
        module docstring) over the allowed candidates (:meth:`restrict`: an edge only fixed
        candidates hold gets no row); returns the number of rows.  Idempotent."""
        if self.generation_col is not None:
            return 0
        if self.pos is not None:
            raise ValueError("generation rows need every column (a restricted model is an LP only)")
        cache, n, h = self.cache, self.n, self.h
        g0 = h.getNumCol()
        h.addCols(n, np.zeros(n), np.zeros(n), np.full(n, float(max(n - 1, 0))), 0,
                  np.zeros(n, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0))
        self.generation_col = g0
        sizes = cache.sizes.astype(np.int64)
        cand = np.repeat(np.arange(self.m, dtype=np.int64), sizes)       # candidate of each item
        parent = np.asarray(cache.pset_items, dtype=np.int64)[
            np.repeat(cache.pset_ptr[:-1], sizes) + (np.arange(int(sizes.sum()))
                                                    - np.repeat(np.cumsum(sizes) - sizes, sizes))]
        on = self.allowed[cand]                  # candidates fixed to 0 take no part in an edge
        cand, parent = cand[on], parent[on]
        child = np.asarray(cache.family, dtype=np.int64)[cand]
        key = parent * n + child
        order = np.argsort(key, kind="stable")
        key, cand = key[order], cand[order]
        pairs, first, count = np.unique(key, return_index=True, return_counts=True)
        k = len(pairs)
        if k == 0:
            return 0
        u, v = pairs // n, pairs % n
        lens = count + 2
        start = np.zeros(k, dtype=np.int64)
        np.cumsum(lens[:-1], out=start[1:])
        idx = np.empty(int(lens.sum()), dtype=np.int64)
        val = np.full(len(idx), -float(n))
        idx[start], val[start] = g0 + v, 1.0
        idx[start + 1], val[start + 1] = g0 + u, -1.0
        body = np.ones(len(idx), dtype=bool)
        body[start] = body[start + 1] = False
        idx[body] = cand
        h.addRows(k, np.full(k, 1.0 - n), np.full(k, highspy.kHighsInf), len(idx),
                  start.astype(np.int32), idx.astype(np.int32), val)
        self.row_kind += ["generation"] * k
        return k

    def generation_values(self, choice: np.ndarray) -> np.ndarray:
        """g for an acyclic choice: each variable's longest-path depth (a valid MTZ point)."""
        parents = [self.cache.parents(int(j)) for j in choice]
        depth = np.zeros(self.n)
        from ..result import DAG
        for v in DAG(self.cache.names, parents).topological_order():
            if parents[v]:
                depth[v] = 1.0 + max(depth[u] for u in parents[v])
        return depth

    # ------------------------------------------------------------------ solving
    def set_time_limit(self, seconds: float | None) -> None:
        """Limit the next solve to ``seconds`` (HiGHS compares its ``time_limit`` option with
        the object's cumulative run time, so the limit is set relative to it)."""
        if seconds is None or not math.isfinite(seconds):
            self.h.setOptionValue("time_limit", highspy.kHighsInf)
        else:
            self.h.setOptionValue("time_limit", float(self.h.getRunTime()) + max(0.0, float(seconds)))

    def set_integer(self, integer: bool = True) -> None:
        """Mark every column integral (the ILP) or continuous (the LP)."""
        if integer == self.integer:
            return
        if integer and self.pos is not None:
            raise ValueError("the ILP needs every column (a restricted model is an LP only)")
        kind = highspy.HighsVarType.kInteger if integer else highspy.HighsVarType.kContinuous
        self.h.changeColsIntegrality(self.m, np.arange(self.m, dtype=np.int32),
                                     np.full(self.m, int(kind), dtype=np.uint8))
        self.integer = integer

    def solve_lp(self, time_limit: float | None = None, max_pricing: int | None = None) -> LPSolution:
        """Solve the LP over the current rows (warm-started from the last basis); with
        ``price``, over every allowed candidate by column generation (see the class).

        ``max_pricing=k`` stops the column generation after k re-solves: if columns still
        price in then, they wait (:attr:`pending`) for the next call, which brings them in
        with the rows added meanwhile, and the solution carries the Lagrangian bound of its
        duals (``lagrangian``, :meth:`columns_to_price`) as its valid bound.  A cut loop
        then separates at every LP point instead of only at the priced-out ones: on
        connect4's root, 2.4 solves per round, the re-solves after pricing 44% of the LP time."""
        deadline = math.inf if time_limit is None else time.perf_counter() + max(0.0, time_limit)
        if len(self.pending):
            self._bring_in(self.pending[self.allowed[self.pending] & (self.pos[self.pending] < 0)])
            self.pending = np.zeros(0, dtype=np.int64)
        resolves = 0
        while True:
            left = None if time_limit is None else max(0.0, deadline - time.perf_counter())
            sol = self._solve_once(left)
            if not self.price or len(self.cols) == self.m:
                return sol
            if sol.status == "infeasible":
                # the restricted model lacks a column every feasible point needs: take them all
                rest = np.flatnonzero(self.allowed & (self.pos < 0))
                if len(rest) == 0:
                    return sol
                self._bring_in(rest)
                continue
            if sol.status != "optimal":
                return sol
            if max_pricing is not None and resolves >= max_pricing:
                fresh, sol.lagrangian = self.columns_to_price(sol.row_dual, bound=True)
                if len(fresh) == 0:
                    sol.lagrangian = None
                self.pending = fresh
                return sol
            fresh = self.columns_to_price(sol.row_dual)
            if len(fresh) == 0:
                return sol
            self._bring_in(fresh)
            resolves += 1

    def _solve_once(self, time_limit: float | None) -> LPSolution:
        self.set_integer(False)
        self.set_time_limit(time_limit)
        run_highs(self.h)
        status = _status_name(self.h)
        info = self.h.getInfo()
        if status != "optimal":
            return LPSolution(status, math.inf, None, int(info.simplex_iteration_count))
        sol = self.h.getSolution()
        eta = np.asarray(sol.col_value, dtype=np.float64)[:len(self.cols)]
        if self.pos is not None:
            full = np.zeros(self.m)
            full[self.cols] = eta
            eta = full
        value = float(info.objective_function_value)
        row_dual = np.asarray(sol.row_dual, dtype=np.float64)
        return LPSolution(status, value, eta, int(info.simplex_iteration_count), row_dual,
                          safe=lambda: self.safe_bound(row_dual, value))

    # ------------------------------------------------------------------ column generation
    #: Columns per variable a restricted model starts with (its best scores, and the empty set)
    #: and priced in per round at most (largest reduced cost first): lpbn.tuning.
    START_COLUMNS = tuning.ETA_LP_START_COLUMNS
    PRICE_COLUMNS = tuning.ETA_LP_PRICE_COLUMNS

    @classmethod
    def start_columns(cls, cache: ScoreCache, k: int | None = None) -> np.ndarray:
        """Each variable's ``k`` (START_COLUMNS) best candidates and its empty parent set:
        the columns of a restricted model whose LP is feasible from the start."""
        k = cls.START_COLUMNS if k is None else k
        rank = np.arange(cache.m) - cache.offsets[cache.family]      # best-first within a family
        return np.unique(np.concatenate([np.flatnonzero(rank < k), np.flatnonzero(cache.sizes == 0)]))

    def _row_families(self) -> dict[str, np.ndarray]:
        """Model row positions per family (cluster, kcluster, cut, cycle), read-only.  Rows are
        mostly appended between two LP solves, so the answer for the row kinds seen last is
        kept and, while those are a prefix of ``row_kind`` (a list comparison) and the cut kinds
        are the same, only the new rows are read: safe_bound runs after every LP solve, and a
        string array of all rows and four scans of it took a quarter of its time."""
        memo, kinds = self._families, self.row_kind
        if memo is not None and memo[1] == self._cut_kinds and kinds[:len(memo[0])] == memo[0]:
            if len(kinds) == len(memo[0]):
                return memo[2]
            tail = self._families_of(kinds[len(memo[0]):], len(memo[0]))
            out = {f: np.concatenate([memo[2][f], tail[f]]) for f in tail}
        else:
            out = self._families_of(kinds, 0)
        for a in out.values():
            a.setflags(write=False)
        self._families = (list(kinds), set(self._cut_kinds), out)
        return out

    def _families_of(self, kinds: list[str], start: int) -> dict[str, np.ndarray]:
        """:meth:`_row_families` of the rows ``start, start + 1, ...`` of kinds ``kinds``."""
        kinds = np.asarray(kinds)
        known = {"convexity", "cluster", "kcluster", "cycle"} | self._cut_kinds
        other = set(kinds.tolist()) - known
        if other:
            raise ValueError(f"column generation cannot price rows of kind {sorted(other)}")
        return {"cluster": start + np.flatnonzero(kinds == "cluster"),
                "kcluster": start + np.flatnonzero(kinds == "kcluster"),
                "cut": start + np.flatnonzero(np.isin(kinds, list(self._cut_kinds))),
                "cycle": start + np.flatnonzero(kinds == "cycle")}

    def _cluster_rows(self, rows: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(bits, k, model row) of every cluster and k-cluster row, in model order."""
        kbits = np.concatenate(self._kbits) if self._kbits else np.zeros((0, self.clusters.words), dtype=np.uint64)
        ks = np.concatenate(self._ks) if self._ks else np.zeros(0, dtype=np.int64)
        bits = np.ascontiguousarray(np.vstack([self.clusters.bits.reshape(-1, self.clusters.words), kbits]))
        return bits, np.concatenate([np.ones(len(self.clusters), dtype=np.int64), ks]), \
            np.concatenate([rows["cluster"], rows["kcluster"]])

    def _cluster_nonzero(self, y: np.ndarray, rows: dict[str, np.ndarray]):
        """The cluster and k-cluster rows with a nonzero dual, in model order: (bits, k, dual)."""
        bits, ks, at = self._cluster_rows(rows)
        yc = y[at]
        nz = np.flatnonzero(yc != 0.0)
        return np.ascontiguousarray(bits[nz]), ks[nz], yc[nz]

    def _cluster_duals(self, y: np.ndarray, rows: dict[str, np.ndarray]):
        """The cluster and k-cluster rows with a nonzero dual: (bits, k, dual), per variable
        those whose cluster holds it (CSR ``var_ptr``, ``var_rows``) and the sum of their
        negative duals (a bound on what they take from a reduced cost)."""
        bits, ks, yc = self._cluster_nonzero(y, rows)
        member = np.unpackbits(bits.astype("<u8").view(np.uint8), axis=1, bitorder="little")[:, :self.n]
        var, row = np.nonzero(member.T)
        var_ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(var, minlength=self.n), out=var_ptr[1:])
        row = row.astype(np.int64)
        lo = np.bincount(var, weights=np.minimum(yc, 0.0)[row], minlength=self.n)
        return bits, ks, yc, var_ptr, row, lo

    def cluster_multipliers(self, row_dual: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """eq. 8's multipliers read from the row duals of a solve: ``(bits, k, λ)`` of the
        cluster and k-cluster rows with a positive λ = −y (a maximisation's ``>=`` row has a
        dual <= 0; a wrong-signed one gives λ = 0).  ``row_dual`` may be from a solve before
        more rows were appended: the rows past its length are left out.  Any λ >= 0 gives a
        valid eq. 8 bound (:mod:`lpbn.pricing`); it is the LP's value when the model was built
        with ``column_upper=inf`` and has no other rows with a nonzero dual."""
        y = np.asarray(row_dual, dtype=np.float64)
        bits, ks, at = self._cluster_rows(self._row_families())
        mine = at < len(y)
        bits, ks, at = bits[mine], ks[mine], at[mine]
        lam = np.maximum(0.0, -y[at])
        on = np.flatnonzero(lam > 0.0)
        return np.ascontiguousarray(bits[on]), ks[on].astype(np.int64), lam[on]

    def cut_multipliers(self, row_dual: np.ndarray) -> tuple[list, np.ndarray]:
        """The rows of :meth:`add_cuts` with a positive multiplier μ = y (a maximisation's
        ``<=`` row has a dual >= 0; a wrong-signed one gives μ = 0), as their derivations
        (:class:`lpbn.lp.zero_half.Derivation`) and μ; rows past ``row_dual`` are left out.
        Raises ValueError when such a row has no derivation (it cannot be priced)."""
        y = np.asarray(row_dual, dtype=np.float64)
        at = self._row_families()["cut"]
        mine = at < len(y)
        mu = np.maximum(0.0, y[at[mine]])
        on = np.flatnonzero(mu > 0.0)
        ders = [self.derivations[int(t)] for t in on]
        if any(d is None for d in ders):
            raise ValueError("a cut row with a nonzero dual has no derivation: it cannot be priced")
        return ders, mu[on]

    def _keep_rows(self, bits: np.ndarray, ks: np.ndarray, ptr: np.ndarray, idx: np.ndarray) -> None:
        """Keep the rows just built for HiGHS for :meth:`_row_candidates` (a model over every
        column, whose rows are over every candidate, while the LP helpers run in numpy)."""
        if self.pos is None and use_numpy(self.n):
            for r, key in enumerate(zip(map(tuple, bits.tolist()), ks.tolist())):
                self._row_cands[key] = idx[ptr[r]:ptr[r + 1]]

    def _row_candidates(self, bits: np.ndarray, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (k-)cluster rows ``(bits, ks)`` over every candidate as CSR (ptr, candidates):
        :func:`cluster_rows_csr`'s rows, each computed once and kept by (cluster, k) — a row's
        candidates never change — so a call gathers instead of rebuilding a dense clusters x
        candidates popcount matrix (27 of safe_bound's 65 ms on hailfinder500).  Rows no longer
        in the model are dropped from the store when it holds twice the model's rows."""
        keys = list(zip(map(tuple, bits.tolist()), ks.tolist()))
        store = self._row_cands
        miss = [r for r, key in enumerate(keys) if key not in store]
        if miss:
            ptr, idx = cluster_rows_csr(self.cache, bits[miss], ks[miss])
            for t, r in enumerate(miss):
                store[keys[r]] = idx[ptr[t]:ptr[t + 1]]
        got = [store[key] for key in keys]
        lens = np.fromiter(map(len, got), dtype=np.int64, count=len(got))
        ptr = np.zeros(len(got) + 1, dtype=np.int64)
        np.cumsum(lens, out=ptr[1:])
        idx = np.concatenate(got) if got else np.zeros(0, dtype=np.int64)
        if len(store) > 2 * (len(self.clusters) + sum(map(len, self._ks))) + 256:
            held, hks, _ = self._cluster_rows(self._row_families())
            live = set(zip(map(tuple, held.tolist()), hks.tolist()))
            self._row_cands = {key: v for key, v in store.items() if key in live}
        return ptr, idx

    def reduced_costs(self, row_dual: np.ndarray, cands: np.ndarray | None = None) -> np.ndarray:
        """c_j − a_jᵀ y of the candidates ``cands`` (default: every one) at the row duals
        ``y`` of a solve (HiGHS's signs: a maximisation's optimum has them <= 0 on the
        columns at 0), whether or not j is in the model: the convexity, cluster, k-cluster,
        cut and cycle rows' entries of a column follow from its family and parent set."""
        y = np.asarray(row_dual, dtype=np.float64)
        rows = self._row_families()
        cands = np.arange(self.m) if cands is None else np.asarray(cands, dtype=np.int64)
        return self._other_rows(y, rows)[cands] - self._cluster_part(y, rows, cands)

    def column_bounds(self, row_dual: np.ndarray) -> tuple[float, np.ndarray]:
        """The Lagrangian bound of the row duals ``y`` of a solve and, per candidate j, a
        bound on the score of every DAG that takes j (reduced-cost fixing over every
        candidate, in the model or not).

        For duals of the right signs (HiGHS's, maximising: <= 0 on ``>=`` rows, >= 0 on
        ``<=`` rows; a wrong-signed or unbounded side's dual is set to 0 here) every DAG
        η that satisfies the rows has
        ``score(η) <= yᵀb + Σ_j rc_j η_j <= L = yᵀb + Σ_i max_{j of i} rc_j``
        with ``rc = c − Aᵀy`` (:meth:`reduced_costs`; the convexity rows pick one candidate
        per variable), and a DAG that takes candidate j of variable i at most
        ``L − max_{j' of i} rc_j' + rc_j``.  Valid for any such ``y``, optimal or not; at an
        LP optimum L is the LP value.  A candidate whose bound is below the incumbent's score
        is in no better DAG, so the MIP may fix it to 0 (hailfinder at N = 20,000: 4,393 of
        6,179 candidates at the end of the ILP's root, gap 0.02%)."""
        y, yb = self._signed_duals(row_dual)
        rc = self.reduced_costs(y)
        best = self._per_variable_max(rc)
        value = yb + math.fsum(best.tolist())
        return value, value - best[self.cache.family] + rc

    def safe_bound(self, row_dual: np.ndarray, value: float = math.nan) -> float:
        """The rigorous upper bound of row duals ``y`` over every allowed candidate (in the model
        or not): ``yᵀb + Σ_i max_{allowed j of i} rc_j`` (:meth:`column_bounds`; wrong-signed
        duals set to 0 first, so it holds for any ``y``), plus the rounding its float64
        arithmetic can carry (:func:`lpbn.bound.rounding_margin` over the magnitudes
        ``|c_j| + aⱼᵀ|y|`` and ``|y|ᵀ|b|``).  A model with rows eq. 8 has no place for
        (generation rows) gets ``value`` plus the solver-tolerance margin
        (:func:`lpbn.bound.mip_margin`) instead."""
        from ..bound import mip_margin, rounding_margin
        try:
            y, yb, prod = self._signed(row_dual)
            rows = self._row_families()
            # rc at y and at |y| share the rows' structure (one cluster CSR for both)
            part, abs_part = self._cluster_part(y, rows, np.arange(self.m), both=True)
            other, abs_other = self._other_rows(y, rows, both=True)
            rc = other - part
            size = np.asarray(self.cache.scores, dtype=np.float64) - (abs_other - abs_part)
        except ValueError:
            return value + mip_margin(self.n)
        rc = np.where(self.allowed, rc, -np.inf)
        best = self._per_variable_max(rc)
        if not np.all(np.isfinite(best)):
            return -math.inf if np.any(best == -np.inf) else math.inf
        yb_size = math.fsum(np.abs(prod).tolist())
        magnitude = math.fsum(self._per_variable_max(np.abs(self.cache.scores) + np.abs(size)).tolist())
        return yb + math.fsum(best.tolist()) + rounding_margin(magnitude + yb_size, self.num_rows + self.n)

    def _signed_duals(self, row_dual: np.ndarray) -> tuple[np.ndarray, float]:
        """The row duals with a wrong-signed or unbounded side's entry set to 0 (HiGHS's
        tolerances let a few through), and yᵀb at the side each dual belongs to."""
        y, yb, _ = self._signed(row_dual)
        return y, yb

    def _signed(self, row_dual: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """:meth:`_signed_duals` and the products y_r b_r of its nonzero duals (the row sides
        through :meth:`_row_bounds`)."""
        y = np.array(row_dual, dtype=np.float64)
        lower, upper = self._row_bounds()
        y[(y < 0.0) & ~np.isfinite(lower)] = 0.0
        y[(y > 0.0) & ~np.isfinite(upper)] = 0.0
        nz = y != 0.0
        prod = y[nz] * np.where(y < 0.0, lower, upper)[nz]
        return y, math.fsum(prod.tolist()), prod

    def _row_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows' lower and upper sides (``getRows``: ``getLp`` copies the whole matrix too,
        six times slower on a model of 300 rows x 2,000 columns)."""
        k = self.h.getNumRow()
        status, _, lower, upper, _ = self.h.getRows(k, np.arange(k, dtype=np.int32))
        if status != highspy.HighsStatus.kOk:
            lp = self.h.getLp()
            lower, upper = lp.row_lower_, lp.row_upper_
        return np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)

    def _other_rows(self, y: np.ndarray, rows: dict[str, np.ndarray], both: bool = False):
        """c − aᵀy over every candidate without the cluster and k-cluster rows; with ``both``,
        the pair (at y, at |y|) from one gather of the cut and cycle rows."""
        cache = self.cache
        ys = (y, np.abs(y)) if both else (y,)
        reds = [np.asarray(cache.scores, dtype=np.float64) - w[cache.family] for w in ys]
        on = np.flatnonzero(y[rows["cut"]] != 0.0) if len(self.cuts) else ()
        if len(on):       # the cuts with a dual (few of them), gathered from the CSR
            idx, val, lens = self.cuts.gather(on)
            for red, w in zip(reds, ys):
                red -= np.bincount(idx, weights=val * np.repeat(w[rows["cut"][on]], lens), minlength=self.m)
        if len(rows["cycle"]):
            from .separation import cycle_rows_csr
            ptr, idx, _ = cycle_rows_csr(cache, self.cycles)
            for red, w in zip(reds, ys):
                red -= np.bincount(idx, weights=np.repeat(w[rows["cycle"]], np.diff(ptr)), minlength=self.m)
        return tuple(reds) if both else reds[0]

    def _cluster_part(self, y, rows, cands, duals=None, both: bool = False):
        """Σ_C y_C a_Cj over the cluster and k-cluster rows for the candidates ``cands``; with
        ``both``, the pair (at y, at |y|) from one pass over the rows' structure."""
        cache = self.cache
        if use_numpy(self.n):            # a small cache while numba is not loaded: the rows in numpy
            bits, ks, yc = self._cluster_nonzero(y, rows) if duals is None else duals[:3]
            ptr, idx = self._row_candidates(bits, ks)
            lens = np.diff(ptr)
            weights = (yc, np.abs(yc)) if both else (yc,)
            out = [np.bincount(idx, weights=np.repeat(w, lens), minlength=self.m)[cands] for w in weights]
        else:
            from .kernels import row_weights, row_weights_pair
            bits, ks, yc, var_ptr, var_rows, _ = self._cluster_duals(y, rows) if duals is None else duals
            args = (cache.pset_ptr, cache.pset_items, cache.family, cands, bits, ks, yc, var_ptr, var_rows)
            out = list(row_weights_pair(*args)) if both else [row_weights(*args)]
        return tuple(out) if both else out[0]

    def columns_to_price(self, row_dual: np.ndarray, tol: float = 1e-9, bound: bool = False):
        """Allowed candidates outside the model with a positive reduced cost at ``row_dual``:
        at most PRICE_COLUMNS per variable, the largest first.  Only candidates whose bound
        on it is positive get the exact cluster part: the ``>=`` rows' duals are <= 0, so the
        clusters holding a variable's candidate take at most Σ_{C ∋ i} min(y_C, 0) from it.

        With ``bound``: (candidates, L), L the Lagrangian bound of :meth:`column_bounds`,
        yᵀb + Σ_i max_j rc_j over every allowed candidate, at the cost of the model's own
        columns' reduced costs: the others' maximum is taken over the exact reduced costs of
        those that may price and the bound ``other − lo`` of the rest."""
        y = np.asarray(row_dual, dtype=np.float64)
        if bound:
            y, yb = self._signed_duals(y)
        rows = self._row_families()
        scores = np.asarray(self.cache.scores)
        family = self.cache.family
        other = self._other_rows(y, rows)
        duals = self._cluster_duals(y, rows)
        lo = duals[5]                                      # per variable
        need = tol * (1.0 + np.abs(scores))
        ceiling = other - lo[family]                       # >= every reduced cost
        out = self.allowed & (self.pos < 0)
        maybe = np.flatnonzero(out & (ceiling > need))
        red = np.full(self.m, -np.inf)
        if len(maybe):
            red[maybe] = other[maybe] - self._cluster_part(y, rows, maybe, duals)
        fresh = best_per_variable(family, red, red > need, self.PRICE_COLUMNS) if len(maybe) else maybe
        if not bound:
            return fresh
        inside = self.cols[self.allowed[self.cols]]
        red[inside] = other[inside] - self._cluster_part(y, rows, inside, duals)
        rest = np.flatnonzero(out & (ceiling <= need))
        red[rest] = ceiling[rest]
        return fresh, yb + math.fsum(self._per_variable_max(red).tolist())

    def cover_allowed(self, k: int | None = None) -> int:
        """Bring into a restricted model the ``k`` (START_COLUMNS) best allowed candidates of
        each variable that has no allowed column in it (a branch-and-bound node that fixed a
        variable's model columns to 0 would otherwise make the restricted LP infeasible, and
        :meth:`solve_lp` would then bring in every allowed candidate); how many came in."""
        if self.pos is None:
            return 0
        k = self.START_COLUMNS if k is None else k
        family = self.cache.family
        inside = self.cols[self.allowed[self.cols]]
        bare = np.bincount(family[inside], minlength=self.n) == 0
        if not bare.any():
            return 0
        out = np.flatnonzero(self.allowed & (self.pos < 0) & bare[family])
        rank = np.arange(len(out)) - np.searchsorted(out, np.asarray(self.cache.offsets[:-1], dtype=np.int64))[family[out]]
        fresh = out[rank < k]               # the candidates are best first within a family
        self._bring_in(fresh)
        return len(fresh)

    def _per_variable_max(self, values: np.ndarray) -> np.ndarray:
        """Each variable's largest entry of ``values`` (one per candidate; a cache's families
        are contiguous and never empty)."""
        return np.maximum.reduceat(values, np.asarray(self.cache.offsets[:-1], dtype=np.int64))

    def _bring_in(self, cands: np.ndarray) -> None:
        """Add candidates to the restricted model with their entries in every current row."""
        from .kernels import rows_holding
        cache = self.cache
        cands = np.asarray(cands, dtype=np.int64)
        rows = self._row_families()
        bits, ks, at = self._cluster_rows(rows)
        parts = []
        if len(at):
            ptr, hit = rows_holding(cache.pset_ptr, cache.pset_items, cache.family, cands, bits, ks)
            parts.append((np.repeat(np.arange(len(cands)), np.diff(ptr)), at[hit], np.ones(len(hit))))
        where = np.full(self.m, -1, dtype=np.int64)
        where[cands] = np.arange(len(cands))
        for (cols, coef, _), r in zip(self.cuts, rows["cut"].tolist()):
            t = where[np.asarray(cols, dtype=np.int64)]
            on = t >= 0
            parts.append((t[on], np.full(int(on.sum()), r), np.asarray(coef, dtype=np.float64)[on]))
        if len(rows["cycle"]):
            from .separation import cycle_rows_csr
            ptr, idx, _ = cycle_rows_csr(cache, self.cycles)
            owner = np.repeat(rows["cycle"], np.diff(ptr))
            t = where[idx]
            on = t >= 0
            parts.append((t[on], owner[on], np.ones(int(on.sum()))))
        if parts:
            col, row, val = (np.concatenate(x) for x in zip(*parts))
        else:
            col, row, val = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
        order = np.argsort(col, kind="stable")
        cptr = np.zeros(len(cands) + 1, dtype=np.int64)
        np.cumsum(np.bincount(col, minlength=len(cands)), out=cptr[1:])
        self.add_columns(cands, cptr, row[order], val[order])
        self.priced += len(cands)

    def full_model(self) -> "EtaLP":
        """A model with every column and the same rows (clusters, k-clusters, cuts, cycles):
        what the ILP needs after a restricted LP's cut loop."""
        if self.pos is None:
            return self
        rows = self._row_families()
        full = EtaLP(self.cache, self.clusters, **self._args)
        if self._kbits:
            full.add_kclusters(np.concatenate(self._kbits), np.concatenate(self._ks))
        kinds = [self.row_kind[r] for r in rows["cut"].tolist()]
        for cut, kind in zip(self.cuts, kinds):
            full.add_cuts([cut], kind=kind)
        if self.cycles:
            full.add_cycles([list(c) for c in self.cycles])
        full.mip_options = dict(self.mip_options)
        return full

    # ------------------------------------------------------------------ warm starts and probes
    def basis_status(self) -> tuple[list, list] | None:
        """HiGHS's (column, row) basis status lists, or None without a valid basis."""
        b = self.h.getBasis()
        return (list(b.col_status), list(b.row_status)) if b.valid else None

    def row_basic(self) -> np.ndarray:
        """Per model row: is it basic (its slack in the basis)?"""
        basic = highspy.HighsBasisStatus.kBasic
        status = self.h.getBasis().row_status
        return np.fromiter((s == basic for s in status), dtype=np.bool_, count=len(status))

    def load_basis(self, cols: list, rows: list) -> None:
        """Load a basis given as status lists (as from :meth:`basis_status`)."""
        b = highspy.HighsBasis()
        b.col_status = cols
        b.row_status = rows
        b.valid = True
        self.h.setBasis(b)

    def probe(self, cols_list: list[np.ndarray], time_limit: float | None = None,
              iteration_limit: int = 2000) -> list[float]:
        """LP value with each column set of ``cols_list`` fixed to 0 in turn (strong-branching
        probes), from the current optimal basis, restored after each probe; the model is left
        unchanged.  A probe stopped by ``iteration_limit`` reports the dual simplex's objective
        so far (it only falls towards the child's optimum in this maximisation, so it stays an
        upper bound on the child); ``-inf`` = child infeasible, ``inf`` = not solved."""
        h = self.h
        basis = h.getBasis()
        h.setOptionValue("simplex_iteration_limit", int(iteration_limit))
        self.set_time_limit(time_limit)
        out = []
        try:
            for cols in cols_list:
                cols = np.asarray(cols, dtype=np.int64)
                if self.pos is not None:
                    cols = self.pos[cols]
                    cols = cols[cols >= 0]
                allowed = self.allowed[self.cols[cols]]
                cols = cols.astype(np.int32)
                h.changeColsBounds(len(cols), cols, np.zeros(len(cols)), np.zeros(len(cols)))
                run_highs(h)
                st = h.getModelStatus()
                if st == _OPTIMAL or st == highspy.HighsModelStatus.kIterationLimit:
                    out.append(float(h.getInfo().objective_function_value))
                elif st == highspy.HighsModelStatus.kInfeasible:
                    out.append(-math.inf)
                else:
                    out.append(math.inf)
                up = np.where(allowed, self.upper, 0.0)
                h.changeColsBounds(len(cols), cols, np.zeros(len(cols)), up)
                h.setBasis(basis)
        finally:
            h.setOptionValue("simplex_iteration_limit", 2 ** 31 - 1)
        return out

    def solve_mip(self, time_limit: float | None = None, start: np.ndarray | None = None,
                  rel_gap: float = 1e-10, check=None) -> MIPSolution:
        """Solve the ILP over the current rows; ``start`` is a candidate per variable to try first.

        ``check(choice) -> bool`` is called on every improving solution HiGHS finds (through
        its improving-solution callback); when it returns False (e.g. the solution has a
        directed cycle) the solve is interrupted at the next interrupt check, and the
        rejected choices are returned in ``MIPSolution.rejected`` so the caller can add the
        rows they violate and re-solve — lazy constraints by restart.
        """
        self.set_integer(True)
        self.set_time_limit(time_limit)
        h = self.h
        h.setOptionValue("mip_rel_gap", float(rel_gap))
        h.setOptionValue("mip_abs_gap", 1e-9)
        for key, value in self.mip_options.items():
            h.setOptionValue(key, value)
        cols = None if start is None else \
            np.asarray(start, dtype=np.int64) if self.pos is None else self.pos[np.asarray(start)]
        if cols is not None and np.all(cols >= 0):
            # every column's value: given only the chosen ones, HiGHS completes the rest by a
            # sub-MIP of its own (0.7 s on hailfinder at N = 20,000); the others are 0
            val = np.zeros(h.getNumCol())
            val[cols] = 1.0
            if self.generation_col is not None:
                val[self.generation_col:self.generation_col + self.n] = self.generation_values(start)
            h.setSolution(len(val), np.arange(len(val), dtype=np.int32), val)
        rejected: list[np.ndarray] = []
        deadline = (time.perf_counter() + time_limit) if time_limit is not None and \
            math.isfinite(time_limit) else math.inf
        self._run_mip(deadline, rejected, check)
        status = _status_name(h)
        if status == "optimal" and not self._mip_objective_consistent():
            # HiGHS 1.16's MIP presolve, given a start solution, has "reduced to empty" a
            # model whose optimum it then reported as kOptimal with an objective its own
            # returned point does not have (hailfinder at N = 20,000 with lazy acyclicity:
            # -958,938.7 reported, -990,162.8 the point, -990,081.1 the true optimum); the
            # same model without presolve is solved right, so solve it again that way
            self.mip_retries += 1
            h.setOptionValue("presolve", "off")
            try:
                self._run_mip(deadline, rejected, check)
            finally:
                h.setOptionValue("presolve", "choose" if self._args["presolve"] else "off")
            status = _status_name(h)
            if status == "optimal" and not self._mip_objective_consistent():
                status = "inconsistent"   # no claim from an answer HiGHS contradicts
        info = h.getInfo()
        bound = float(info.mip_dual_bound)
        if not math.isfinite(bound) and status == "optimal":
            bound = float(info.objective_function_value)
        if status == "inconsistent":
            bound = math.inf
        choice = None
        value = -math.inf
        if int(info.primal_solution_status) == 2:  # feasible point available
            x = np.asarray(h.getSolution().col_value, dtype=np.float64)[:self.m]
            choice = choice_from_eta(self.cache, x)
            value = float(np.sum(self.cache.scores[choice]))
        if bound < -1e300:
            bound = math.inf
        return MIPSolution(status, bound if math.isfinite(bound) else math.inf, value, choice,
                           int(info.mip_node_count), rejected)

    def _run_mip(self, deadline: float, rejected: list, check) -> None:
        """One HiGHS run of the MIP with the interrupt (our clock, rejected solutions) and the
        improving-solution callback of :meth:`solve_mip`."""
        h = self.h
        subs = []

        def on_interrupt(e):
            # also clears a flag left by an earlier solve; enforces our own clock, since
            # HiGHS checks its time_limit only between some phases of a large MIP
            e.interrupt(bool(rejected) or time.perf_counter() >= deadline)
        h.cbMipInterrupt.subscribe(on_interrupt)
        subs.append((h.cbMipInterrupt, on_interrupt))
        if check is not None:
            def on_solution(e):
                x = np.asarray(e.data_out.mip_solution, dtype=np.float64)[:self.m]
                if len(x) != self.m:
                    return
                choice = choice_from_eta(self.cache, x)
                if not check(choice):
                    rejected.append(choice)
                    e.interrupt(True)
                else:
                    e.interrupt(bool(rejected))
            h.cbMipImprovingSolution.subscribe(on_solution)
            subs.append((h.cbMipImprovingSolution, on_solution))
        try:
            run_highs(h)
        finally:
            for event, fn in subs:
                event.unsubscribe(fn)

    def _mip_objective_consistent(self, rtol: float = 1e-7) -> bool:
        """Whether HiGHS's reported MIP objective is that of the point it returns (cᵀx over
        every column, generation columns included)."""
        h = self.h
        info = h.getInfo()
        if int(info.primal_solution_status) != 2:
            return True
        lp = h.getLp()
        x = np.asarray(h.getSolution().col_value, dtype=np.float64)
        own = math.fsum((np.asarray(lp.col_cost_, dtype=np.float64) * x).tolist()) + float(lp.offset_)
        reported = float(info.objective_function_value)
        return abs(own - reported) <= rtol * max(1.0, abs(own))


def choice_from_eta(cache: ScoreCache, eta: np.ndarray) -> np.ndarray:
    """The candidate with the largest η in each variable (the integral point of an integral η)."""
    eta = np.asarray(eta, dtype=np.float64)
    starts = cache.offsets[:-1]
    # argmax per contiguous segment: sort-free trick with reduceat of the maximum
    seg_max = np.maximum.reduceat(eta, starts)
    is_max = eta >= seg_max[cache.family] - 1e-12
    idx = np.flatnonzero(is_max)
    first = np.full(cache.n, -1, dtype=np.int64)
    # the first index of each family among the maxima (candidates are best-score first)
    fam = cache.family[idx]
    order = np.unique(fam, return_index=True)[1]
    first[fam[order]] = idx[order]
    return first


def is_integral(eta: np.ndarray, tol: float = 1e-6) -> bool:
    eta = np.asarray(eta)
    return bool(np.all(np.minimum(np.abs(eta), np.abs(1.0 - eta)) <= tol))


def _cut_key(cols: np.ndarray, coef: np.ndarray, rhs: float) -> tuple[bytes, bytes, float]:
    """What tells one general row from another (its canonical columns and coefficients)."""
    return cols.tobytes(), coef.tobytes(), float(rhs)


def _canonical_cycle(cyc) -> tuple[int, ...]:
    cyc = [int(v) for v in cyc]
    if not cyc:
        return ()
    k = cyc.index(min(cyc))
    return tuple(cyc[k:] + cyc[:k])
