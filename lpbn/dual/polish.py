"""Exact polish of the cluster dual (eq. 8) as a linear program.

Coordinate descent can stall on the non-smooth dual (Jaakkola 2010, §5.1), so when an
exact LP value is required we solve eq. 8, whose epigraph form is::

    min  sum_i u_i - sum_C k_C λ_C
    s.t. u_i - sum_{C ∋ i} λ_C I_C(s_j) >= W_i(s_j)   for every allowed candidate j of i
         λ_C >= 0

(k_C = 1 for the paper's clusters, k_C >= 2 for k-cluster constraints, see
:mod:`lpbn.dual.kernels`), through its LP dual, the η form of eq. 7 (:class:`PolishLP` over
:class:`lpbn.lp.model.EtaLP`, whose cluster-row duals are λ*), with HiGHS' dual simplex; then
λ* is loaded back into the :class:`DualState` and eq. 8 re-evaluated with our own kernels.  The
returned value is therefore always a certified dual bound; it equals the LP optimum over those
clusters when the solver reports optimality (strong duality).  :func:`polish` keeps the model on the state
and warm-starts every re-solve; :class:`PolishLP` also probes children for strong branching.
"""

from __future__ import annotations

import math

import highspy
import numpy as np

from ..lp.clusters import cluster_rows_csr
from ..lp.model import EtaLP
from .state import DualState


class PolishLP:
    """The state's cluster LP (eq. 7 over the state's clusters, in the η form) on one
    :class:`lpbn.lp.model.EtaLP`, kept in step with a :class:`DualState`: its clusters become
    rows, its allowed candidates the columns' bounds.  The row duals of the cluster rows are
    the λ_C of eq. 8 (Lagrangian duality), the column values are the LP point η.  New clusters
    are new rows (the warm basis stays dual feasible, so HiGHS' dual simplex re-solves in a
    few pivots) and the basis has n + K rows instead of one per candidate, which makes each
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
        self.state = state
        self.lp = EtaLP(state.cache, presolve=False, column_upper=highspy.kHighsInf)
        self.K = 0                                   # state clusters known to the model
        self.rows = np.zeros(0, dtype=np.int64)     # cluster id of each model row after the n convexity rows
        self.in_lp = np.zeros(0, dtype=np.bool_)    # per cluster: row is in the model
        self.idle = np.zeros(0, dtype=np.int64)     # per cluster: consecutive solves slack
        self.ptr = np.zeros(1, dtype=np.int64)      # CSR of every cluster's row (model or pool)
        self.idx = np.zeros(0, dtype=np.int64)
        self.dropped = 0
        self.ncuts = 0                              # state cuts known to the model (rows id -1 - r)

    def sync(self) -> None:
        """Bring the state's new clusters in as rows and its allowed mask to the columns."""
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
        if len(st.cuts) > self.ncuts:
            fresh = st.cuts[self.ncuts:]
            self.lp.add_cuts(fresh)
            self.rows = np.concatenate([self.rows, -1 - np.arange(self.ncuts, len(st.cuts))])
            self.ncuts = len(st.cuts)
        self.lp.restrict(st.allowed)

    def _add_rows(self, cids: np.ndarray) -> None:
        """Put the clusters ``cids`` (not in the model) into the model as new rows."""
        if len(cids) == 0:
            return
        lens = self.ptr[cids + 1] - self.ptr[cids]
        ptr = np.zeros(len(cids) + 1, dtype=np.int64)
        np.cumsum(lens, out=ptr[1:])
        idx = np.concatenate([self.idx[self.ptr[c]:self.ptr[c + 1]] for c in cids])
        self.lp.add_rows(ptr, idx, self.state.ck[cids], kind="cluster")
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
        cl = self.rows >= 0                          # cluster rows (cut rows stay in the model)
        slack = self.lp.row_basic()[n:] & (np.abs(row_dual[n:]) <= 1e-12) & cl
        self.idle[self.rows[cl]] = np.where(slack[cl], self.idle[self.rows[cl]] + 1, 0)
        out = slack & (self.idle[np.where(cl, self.rows, 0)] >= self.DROP_IDLE)
        if int(out.sum()) < self.DROP_MIN:
            return
        pos = np.flatnonzero(out)
        self.lp.delete_rows(n + pos)
        self.in_lp[self.rows[pos]] = False
        self.rows = self.rows[~out]
        self.dropped += len(pos)

    def solve(self, time_limit: float | None
              ) -> tuple[bool, float, np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(optimal, LP value, λ per state cluster, μ per state cut, η) over all the state's
        clusters and cuts."""
        while True:
            self.sync()
            sol = self.lp.solve_lp(time_limit)
            if sol.status != "optimal":
                return False, math.nan, None, None, None
            back = self._violated_in_pool(sol.eta)
            if len(back) == 0:
                break
            self._add_rows(back)
        lam = np.zeros(self.K)
        mu = np.zeros(self.ncuts)
        dual = np.abs(sol.row_dual[self.state.n:])
        cl = self.rows >= 0
        lam[self.rows[cl]] = dual[cl]
        mu[-1 - self.rows[~cl]] = dual[~cl]
        self._drop_idle(sol.row_dual)
        return True, sol.value, lam, mu, sol.eta

    def get_basis(self):
        """The current simplex basis (to warm-start a B&B child from its parent's LP)."""
        b = self.lp.basis_status()
        return None if b is None else (b[0], b[1], self.rows.copy())

    def set_basis(self, saved) -> None:
        """Load a basis from :meth:`get_basis`: clusters that were tight then come back
        from the pool, clusters not in that basis are basic rows."""
        if saved is None:
            return
        self.sync()
        cols, rows, cids = saved
        n = self.state.n
        basic = highspy.HighsBasisStatus.kBasic
        if len(cols) != self.lp.h.getNumCol():
            return
        status = dict(zip(cids.tolist(), rows[n:]))
        tight = np.array([c for c, s in status.items() if c >= 0 and s != basic and not self.in_lp[c]],
                         dtype=np.int64)
        self._add_rows(tight)
        self.lp.load_basis(cols, rows[:n] + [status.get(c, basic) for c in self.rows.tolist()])

    def trial_bounds(self, cols_list: list[np.ndarray], time_limit: float | None = None,
                     iteration_limit: int = 2000) -> list[float]:
        """Strong-branching probes: the LP value with each column set fixed to 0 in turn
        (:meth:`lpbn.lp.model.EtaLP.probe`)."""
        return self.lp.probe(cols_list, time_limit, iteration_limit)


def polish(state: DualState, time_limit: float | None = None) -> tuple[bool, float]:
    """Exact dual LP over the state's clusters and allowed rows (a persistent warm-started
    :class:`PolishLP` kept on the state as ``state._lp``).

    Returns (solver reported optimal, LP objective); the state's λ is replaced by λ* (the
    cluster-row duals) only when that does not worsen the certified dual value (eq. 8,
    re-evaluated by the state's own kernels).  The LP point η is left in ``state.eta`` for
    primal separation, η-rounding and edge branching."""
    lp = getattr(state, "_lp", None)
    if lp is None:
        lp = state._lp = PolishLP(state)
    ok, obj, lam, mu, eta = lp.solve(time_limit)
    if not ok:
        state.eta = None
        return False, math.nan
    state.eta = np.maximum(eta, 0.0)
    state.last_eta = state.eta
    before = state.exact_value()
    old, old_mu = state.lam.copy(), state.mu.copy()
    state.set_duals(np.maximum(lam, 0.0), mu)
    if not state.value() <= before:
        state.set_duals(old, old_mu)
    return True, obj
