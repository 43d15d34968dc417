"""Exact polish of the cluster dual (eq. 8) as a linear program.

Coordinate descent can stall on the non-smooth dual (Jaakkola 2010, §5.1), so when an
exact LP value is required we solve eq. 8, whose epigraph form is::

    min  sum_i u_i - sum_C k_C λ_C
    s.t. u_i - sum_{C ∋ i} λ_C I_C(s_j) >= W_i(s_j)   for every allowed candidate j of i
         λ_C >= 0

(k_C = 1 for the paper's clusters, k_C >= 2 for k-cluster constraints, see
:mod:`lpbn.dual.kernels`), through its LP dual, the η form of eq. 7 (:class:`PrimalLP`, whose
cluster-row duals are λ*), with HiGHS' dual simplex; then λ* is loaded back into the
:class:`DualState` and eq. 8 re-evaluated with our own kernels.  The returned value is
therefore always a certified dual bound; it equals the LP optimum over those clusters when
the solver reports optimality (strong duality).  :func:`polish` keeps the model on the state
and warm-starts every re-solve; :class:`PrimalLP` also probes children for strong branching.
"""

from __future__ import annotations

import math

import numpy as np

from ..lp.clusters import cluster_rows_csr
from ..lp.highs_session import new_highs, run as run_highs
from .state import DualState


def _set_time_limit(h, time_limit: float | None, inf: float) -> None:
    """HiGHS compares ``time_limit`` with its run clock, which accumulates over all runs of
    a persistent model, so the limit for this run is that clock plus ``time_limit``."""
    if time_limit is None or not math.isfinite(time_limit):
        h.setOptionValue("time_limit", inf)
    else:
        h.setOptionValue("time_limit", float(h.getRunTime()) + max(0.0, float(time_limit)))


def _run(lp, time_limit: float | None):
    """Sync ``lp`` (a :class:`PrimalLP`) with its state, solve, and return HiGHS's solution
    when optimal, else None."""
    lp.sync()
    _set_time_limit(lp.h, time_limit, lp.inf)
    run_highs(lp.h)
    if lp.h.getModelStatus() != lp.hs.HighsModelStatus.kOptimal:
        return None
    return lp.h.getSolution()


class PrimalLP:
    """The LP of eq. 8 in its primal (η) form, eq. 7 over the clusters::

        max  sum_j s_j η_j   s.t.  sum_{j ∈ i} η_j = 1 (each i),
             sum_{i ∈ C} sum_{j ∈ i, |s_j ∩ C| < k_C} η_j >= k_C (each cluster C, eq. 6 at k_C = 1),
             η >= 0

    with disallowed candidates fixed to 0.  The row duals of the cluster rows are the λ_C
    of eq. 8 (Lagrangian duality), the column values are the LP point η.  New clusters are
    new rows (the warm basis stays dual feasible, so HiGHS' dual simplex re-solves in a few
    pivots) and the basis has n + K rows instead of one per candidate, which makes each
    re-solve several times cheaper than the epigraph form of eq. 8 (one row per candidate) on
    caches with many candidates.

    Cut pool: a cluster row that stayed basic with a zero dual for ``DROP_IDLE`` solves in a
    row leaves the HiGHS model (the basis stays optimal: only slack rows go) once at least
    ``DROP_MIN`` of them have gathered; its λ_C is 0.  Every solve checks the pooled
    clusters at the new η and puts the violated ones back before it returns, so the value
    is always the LP optimum over all the state's clusters — with a model several times
    smaller (most separated clusters end up slack).
    """

    #: Solves a cluster row must stay basic with a zero dual before it may leave the model.
    DROP_IDLE = 3
    #: Rows leave the model in batches of at least this many (each deletion costs a rebuild).
    DROP_MIN = 50

    def __init__(self, state: DualState):
        import highspy
        self.hs = highspy
        self.state = state
        h = new_highs()
        h.setOptionValue("presolve", "off")
        m, n = state.cache.m, state.n
        self.inf = highspy.kHighsInf
        h.addRows(n, np.ones(n), np.ones(n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        # minimise -score; column j sits in its family's convexity row
        h.addCols(m, -np.asarray(state.scores, dtype=np.float64), np.zeros(m), np.full(m, self.inf), m,
                  np.arange(m, dtype=np.int32), np.asarray(state.family, dtype=np.int32), np.ones(m))
        self.h = h
        self.K = 0                                   # state clusters known to the model
        self.mask = np.ones(m, dtype=np.bool_)
        self.partial = True
        self.restore_basis = True
        self.rows = np.zeros(0, dtype=np.int64)     # cluster id of each model row after the n convexity rows
        self.in_lp = np.zeros(0, dtype=np.bool_)    # per cluster: row is in the model
        self.idle = np.zeros(0, dtype=np.int64)     # per cluster: consecutive solves slack
        self.ptr = np.zeros(1, dtype=np.int64)      # CSR of every cluster's row (model or pool)
        self.idx = np.zeros(0, dtype=np.int64)
        self.dropped = 0

    def sync(self) -> None:
        st = self.state
        if st.K > self.K:
            ptr, idx = cluster_rows_csr(st.cache, st.cbits[self.K:st.K], st.ck[self.K:st.K])
            self.ptr = np.concatenate([self.ptr, self.ptr[-1] + ptr[1:]])
            self.idx = np.concatenate([self.idx, idx])
            new = np.arange(self.K, st.K)
            self.in_lp = np.concatenate([self.in_lp, np.zeros(len(new), dtype=np.bool_)])
            self.idle = np.concatenate([self.idle, np.zeros(len(new), dtype=np.int64)])
            self.K = st.K
            self._add_rows(new)
        changed = np.flatnonzero(self.mask != st.allowed)
        if len(changed):
            up = np.where(st.allowed[changed], self.inf, 0.0)
            self.h.changeColsBounds(len(changed), changed.astype(np.int32), np.zeros(len(changed)), up)
            self.mask = st.allowed.copy()

    def _add_rows(self, cids: np.ndarray) -> None:
        """Put the clusters ``cids`` (not in the model) into the model as new rows."""
        if len(cids) == 0:
            return
        lens = self.ptr[cids + 1] - self.ptr[cids]
        starts = np.zeros(len(cids), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        idx = np.concatenate([self.idx[self.ptr[c]:self.ptr[c + 1]] for c in cids])
        self.h.addRows(len(cids), self.state.ck[cids].astype(np.float64), np.full(len(cids), self.inf), len(idx),
                       starts.astype(np.int32), idx.astype(np.int32), np.ones(len(idx)))
        self.rows = np.concatenate([self.rows, cids])
        self.in_lp[cids] = True
        self.idle[cids] = 0

    def _violated_in_pool(self, eta: np.ndarray, tol: float = 1e-9) -> np.ndarray:
        pool = np.flatnonzero(~self.in_lp)
        if len(pool) == 0:
            return pool
        sums = np.add.reduceat(eta[self.idx], self.ptr[:-1]) if len(self.idx) else np.zeros(self.K)
        sums[np.diff(self.ptr) == 0] = 0.0
        return pool[sums[pool] < self.state.ck[pool] - tol]

    def _drop_idle(self, row_dual: np.ndarray) -> None:
        """Count slack solves per model row; delete the rows idle for DROP_IDLE solves."""
        n = self.state.n
        status = self.h.getBasis().row_status[n:]
        basic = np.fromiter((s == self.hs.HighsBasisStatus.kBasic for s in status), dtype=np.bool_,
                            count=len(status))
        slack = basic & (np.abs(row_dual[n:]) <= 1e-12)
        self.idle[self.rows] = np.where(slack, self.idle[self.rows] + 1, 0)
        out = slack & (self.idle[self.rows] >= self.DROP_IDLE)
        if int(out.sum()) < self.DROP_MIN:
            return
        pos = np.flatnonzero(out)
        self.h.deleteRows(len(pos), (n + pos).astype(np.int32))
        self.in_lp[self.rows[pos]] = False
        self.rows = self.rows[~out]
        self.dropped += len(pos)

    def solve(self, time_limit: float | None) -> tuple[bool, float, np.ndarray | None, np.ndarray | None]:
        while True:
            sol = _run(self, time_limit)
            if sol is None:
                return False, math.nan, None, None
            eta = np.asarray(sol.col_value)
            back = self._violated_in_pool(eta)
            if len(back) == 0:
                break
            self._add_rows(back)
        row_dual = np.asarray(sol.row_dual)
        lam = np.zeros(self.K)
        lam[self.rows] = np.abs(row_dual[self.state.n:])
        obj = -float(self.h.getInfo().objective_function_value)
        self._drop_idle(row_dual)
        return True, obj, lam, eta

    def get_basis(self):
        """The current simplex basis (to warm-start a B&B child from its parent's LP)."""
        b = self.h.getBasis()
        return (list(b.col_status), list(b.row_status), self.rows.copy()) if b.valid else None

    def set_basis(self, saved) -> None:
        """Load a basis from :meth:`get_basis`: clusters that were tight then come back
        from the pool, clusters not in that basis are basic rows."""
        if saved is None:
            return
        self.sync()
        cols, rows, cids = saved
        n = self.state.n
        basic = self.hs.HighsBasisStatus.kBasic
        if len(cols) != self.h.getNumCol():
            return
        status = dict(zip(cids.tolist(), rows[n:]))
        tight = np.array([c for c, s in status.items() if s != basic and not self.in_lp[c]], dtype=np.int64)
        self._add_rows(tight)
        b = self.hs.HighsBasis()
        b.col_status = cols
        b.row_status = rows[:n] + [status.get(c, basic) for c in self.rows.tolist()]
        b.valid = True
        self.h.setBasis(b)

    def trial_bounds(self, cols_list: list[np.ndarray], time_limit: float | None = None,
                     iteration_limit: int = 2000) -> list[float]:
        """LP value (max form, ``inf`` when not solved) with each column set fixed to 0 in
        turn, from the current optimal basis, which is restored afterwards (strong
        branching probes; the model itself is left unchanged)."""
        h = self.h
        basis = h.getBasis()
        h.setOptionValue("simplex_iteration_limit", int(iteration_limit))
        _set_time_limit(h, time_limit, self.inf)
        out = []
        try:
            for cols in cols_list:
                cols = np.asarray(cols, dtype=np.int32)
                h.changeColsBounds(len(cols), cols, np.zeros(len(cols)), np.zeros(len(cols)))
                run_highs(h)
                st = h.getModelStatus()
                if st == self.hs.HighsModelStatus.kOptimal:
                    out.append(-float(h.getInfo().objective_function_value))
                elif st == self.hs.HighsModelStatus.kIterationLimit and self.partial:
                    # dual simplex: the objective only rises towards the child's optimum
                    out.append(-float(h.getInfo().objective_function_value))
                elif st == self.hs.HighsModelStatus.kInfeasible:
                    out.append(-math.inf)
                else:
                    out.append(math.inf)
                up = np.where(self.mask[cols], self.inf, 0.0)
                h.changeColsBounds(len(cols), cols, np.zeros(len(cols)), up)
                if self.restore_basis:
                    h.setBasis(basis)
        finally:
            h.setOptionValue("simplex_iteration_limit", 2 ** 31 - 1)
        return out


def polish(state: DualState, time_limit: float | None = None) -> tuple[bool, float]:
    """Exact dual LP over the state's clusters and allowed rows (a persistent warm-started
    :class:`PrimalLP` kept on the state as ``state._lp``).

    Returns (solver reported optimal, LP objective); the state's λ is replaced by λ* (the
    cluster-row duals) only when that does not worsen the certified dual value (eq. 8,
    re-evaluated by the state's own kernels).  The LP point η is left in ``state.eta`` for
    primal separation, η-rounding and edge branching."""
    lp = getattr(state, "_lp", None)
    if lp is None:
        lp = state._lp = PrimalLP(state)
    ok, obj, lam, eta = lp.solve(time_limit)
    if not ok:
        state.eta = None
        return False, math.nan
    state.eta = np.maximum(eta, 0.0)
    state.last_eta = state.eta
    before = state.exact_value()
    old = state.lam.copy()
    state.set_lambda(np.maximum(lam, 0.0))
    if not state.value() <= before:
        state.set_lambda(old)
    return True, obj
