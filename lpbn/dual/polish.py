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
import time

import highspy
import numpy as np

from .. import tuning
from ..lp.model import EtaLP, best_per_variable
from . import kernels as K
from .state import DualState, folded_scores


class PolishLP:
    """The state's cluster LP (eq. 7 over the state's clusters, in the η form) on one
    :class:`lpbn.lp.model.EtaLP`, kept in step with a :class:`DualState`: its clusters become
    rows, its allowed candidates the columns' bounds.  The row duals of the cluster rows are
    the λ_C of eq. 8 (Lagrangian duality), the column values are the LP point η.  New clusters
    are new rows (the warm basis stays dual feasible, so HiGHS' dual simplex re-solves in a
    few pivots) and the basis has n + K rows instead of one per candidate, which makes each
    re-solve several times cheaper than the epigraph form of eq. 8 (one row per candidate) on
    caches with many candidates.

    Cut pool: a cluster or cut row that stayed basic with a zero dual for ``DROP_IDLE``
    solves in a row leaves the HiGHS model (the basis stays optimal: only slack rows go) once
    at least ``DROP_MIN`` of them have gathered; its λ_C (μ_r) is 0.  Every solve checks the
    pooled rows at the new η and puts the violated ones back before it returns, so the value
    is always the LP optimum over all the state's clusters and cuts — with a model several
    times smaller (most separated clusters end up slack, and the {0, 1/2}-cuts, combinations
    of many cluster rows, are dense: connect4's 700 cuts were 85% of the model's nonzeros).

    Column generation: on a cache with many candidates per variable the model starts with
    each variable's best few at the state's λ (and its empty parent set, so the root's
    restricted LP is feasible) and every solve prices the others with the state's kernels:
    a candidate whose eq. 14 value W_i(s; λ*, μ*) exceeds the best in the model (its
    reduced cost is positive) comes in, the largest first, until none does — so the value
    returned is still the LP optimum over every allowed column.  Most candidates never
    price in (accidents: ~10,000 of 96,000 columns within 50 of the best reduced cost), and
    HiGHS's pivots cost in proportion to the columns: 10-15× fewer per re-solve there.
    """

    #: the tuned sizes of the model (lpbn.tuning): rows idle and batch of a deletion, the
    #: candidates per variable above which the model is restricted, its start and priced columns
    DROP_IDLE = tuning.POLISH_DROP_IDLE
    DROP_MIN = tuning.POLISH_DROP_MIN
    RESTRICT_ABOVE = tuning.POLISH_RESTRICT_ABOVE
    START_COLUMNS = tuning.POLISH_START_COLUMNS
    PRICE_COLUMNS = tuning.POLISH_PRICE_COLUMNS

    def __init__(self, state: DualState, restrict: bool | None = None):
        self.state = state
        if restrict is None:
            restrict = state.cache.m > self.RESTRICT_ABOVE * state.n
        cols = self._start_columns() if restrict else None
        self.lp = EtaLP(state.cache, presolve=False, column_upper=highspy.kHighsInf, columns=cols)
        self.priced = 0                             # columns brought in by pricing
        self.K = 0                                   # state clusters known to the model
        self.rows = np.zeros(0, dtype=np.int64)     # cluster id of each model row after the n convexity rows
        self.in_lp = np.zeros(0, dtype=np.bool_)    # per cluster: row is in the model
        self.idle = np.zeros(0, dtype=np.int64)     # per cluster: consecutive solves slack
        self.dropped = 0
        self.ncuts = 0                              # state cuts known to the model (rows id -1 - r)
        self.cut_in_lp = np.zeros(0, dtype=np.bool_)
        self.cut_idle = np.zeros(0, dtype=np.int64)

    def sync(self) -> None:
        """Bring the state's new clusters in as rows and its allowed mask to the columns."""
        st = self.state
        if st.K > self.K:
            new = np.arange(self.K, st.K)
            self.in_lp = np.concatenate([self.in_lp, np.zeros(len(new), dtype=np.bool_)])
            self.idle = np.concatenate([self.idle, np.zeros(len(new), dtype=np.int64)])
            self.K = st.K
            self._add_rows(new)
        if len(st.cuts) > self.ncuts:
            new = np.arange(self.ncuts, len(st.cuts))
            self.cut_in_lp = np.concatenate([self.cut_in_lp, np.zeros(len(new), dtype=np.bool_)])
            self.cut_idle = np.concatenate([self.cut_idle, np.zeros(len(new), dtype=np.int64)])
            self.ncuts = len(st.cuts)
            self._add_cut_rows(new)
        self.lp.restrict(st.allowed)

    def _add_cut_rows(self, rids: np.ndarray) -> None:
        """Put the state's cuts ``rids`` (not in the model) into the model as rows."""
        if len(rids) == 0:
            return
        cuts = [self.state.cuts[r] for r in rids.tolist()]
        ptr = np.zeros(len(cuts) + 1, dtype=np.int64)
        np.cumsum([len(c) for c, _, _ in cuts], out=ptr[1:])
        idx = np.concatenate([c for c, _, _ in cuts])
        val = np.concatenate([v for _, v, _ in cuts])
        rhs = np.array([r for _, _, r in cuts], dtype=np.float64)
        self.lp.add_general_rows(ptr, idx, val, np.full(len(cuts), -highspy.kHighsInf), rhs, kind="zerohalf")
        self.rows = np.concatenate([self.rows, -1 - rids])
        self.cut_in_lp[rids] = True
        self.cut_idle[rids] = 0

    def _start_columns(self) -> np.ndarray:
        """Each variable's START_COLUMNS best allowed candidates at the state's λ and μ, its
        empty parent set and its current argmax."""
        st = self.state
        value = np.where(st.allowed, st.scores + st.adj, -np.inf)
        empty = np.flatnonzero(st.sizes == 0)
        return np.unique(np.concatenate([best_per_variable(st.family, value, st.allowed, self.START_COLUMNS),
                                         empty, st.arg[st.arg >= 0]]))

    def _price(self, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """Allowed candidates outside the model with a positive reduced cost at the LP's
        duals: W_i(s; λ, μ) (eq. 14 with the cuts folded in) above the best of variable i's
        columns in the model; at most PRICE_COLUMNS per variable, the largest first."""
        st, lp = self.state, self.lp
        if lp.pos is None:
            return np.zeros(0, dtype=np.int64)
        scores, _ = folded_scores(st.cache.scores, st.cuts, mu)
        adj = np.zeros(st.cache.m)
        K.recompute_adj(st.bits, st.pset_ptr, st.pset_items, st.offsets, st.cbits, st.ck, st.cptr, st.citems,
                        lam, adj)
        value = scores + adj
        inside = lp.pos >= 0
        best = np.maximum.reduceat(np.where(inside & st.allowed, value, -np.inf), st.offsets[:-1])[st.family]
        gain = value - best
        want = st.allowed & ~inside & (gain > 1e-9 * (1.0 + np.abs(best)))
        return best_per_variable(st.family, gain, want, self.PRICE_COLUMNS)

    def _add_columns(self, cands: np.ndarray) -> None:
        """Bring candidates into the restricted model with their entries in its rows."""
        st, n = self.state, self.state.n
        cands = np.asarray(cands, dtype=np.int64)
        if len(cands) == 0:
            return
        ptr, rows = K.column_rows(st.bits, st.pset_ptr, st.pset_items, st.family, cands, st.cbits, st.ck, self.rows)
        col = np.repeat(np.arange(len(cands)), np.diff(ptr))
        row, val = n + rows, np.ones(len(rows))
        cut_rows = np.flatnonzero(self.rows < 0)
        if len(cut_rows):
            where = np.full(st.cache.m, -1, dtype=np.int64)
            where[cands] = np.arange(len(cands))
            parts = [(col, row, val)]
            for p in cut_rows.tolist():
                cols, coef, _ = st.cuts[-1 - int(self.rows[p])]
                t = where[cols]
                on = t >= 0
                parts.append((t[on], np.full(int(on.sum()), n + p), coef[on]))
            col, row, val = (np.concatenate(x) for x in zip(*parts))
        order = np.argsort(col, kind="stable")
        cptr = np.zeros(len(cands) + 1, dtype=np.int64)
        np.cumsum(np.bincount(col, minlength=len(cands)), out=cptr[1:])
        self.lp.add_columns(cands, cptr, row[order], val[order])
        self.priced += len(cands)

    def _add_rows(self, cids: np.ndarray) -> None:
        """Put the clusters ``cids`` (not in the model) into the model as new rows."""
        if len(cids) == 0:
            return
        st, cols = self.state, self.lp.cols
        # the rows over the model's columns only (a restricted model's others are 0)
        cptr, rows = K.column_rows(st.bits, st.pset_ptr, st.pset_items, st.family, cols, st.cbits, st.ck, cids)
        col = np.repeat(np.arange(len(cols)), np.diff(cptr))
        order = np.argsort(rows, kind="stable")
        ptr = np.zeros(len(cids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(cids)), out=ptr[1:])
        self.lp.add_rows(ptr, cols[col[order]], st.ck[cids], kind="cluster")
        self.rows = np.concatenate([self.rows, cids])
        self.in_lp[cids] = True
        self.idle[cids] = 0

    def _violated_cuts_in_pool(self, eta: np.ndarray, tol: float = 1e-9) -> np.ndarray:
        pool = np.flatnonzero(~self.cut_in_lp)
        if len(pool) == 0:
            return pool
        cuts = self.state.cuts
        lhs = cuts.activity(eta, pool)
        rhs = cuts.rhs[pool]
        return pool[lhs > rhs + tol * np.maximum(1.0, np.abs(rhs))]

    def _violated_in_pool(self, eta: np.ndarray, tol: float = 1e-9) -> np.ndarray:
        pool = np.flatnonzero(~self.in_lp)
        if len(pool) == 0:
            return pool
        st = self.state
        js = np.flatnonzero(eta)
        sup_ptr = np.searchsorted(js, st.offsets)
        sums = K.cluster_sums(st.bits, st.pset_ptr, st.pset_items, js, eta[js], sup_ptr, st.cbits, st.ck,
                              st.cptr, st.citems, pool)
        return pool[sums < st.ck[pool] - tol]

    def _drop_idle(self, row_dual: np.ndarray) -> None:
        """Count slack solves per model row; delete the rows idle for DROP_IDLE solves."""
        n = self.state.n
        cl = self.rows >= 0                          # cluster rows; the others are cuts (id -1 - r)
        slack = self.lp.row_basic()[n:] & (np.abs(row_dual[n:]) <= 1e-12)
        cid, rid = self.rows[cl], -1 - self.rows[~cl]
        self.idle[cid] = np.where(slack[cl], self.idle[cid] + 1, 0)
        self.cut_idle[rid] = np.where(slack[~cl], self.cut_idle[rid] + 1, 0)
        idle = np.empty(len(self.rows), dtype=np.int64)
        idle[cl], idle[~cl] = self.idle[cid], self.cut_idle[rid]
        out = slack & (idle >= self.DROP_IDLE)
        if int(out.sum()) < self.DROP_MIN:
            return
        pos = np.flatnonzero(out)
        self.lp.delete_rows(n + pos)
        gone = self.rows[pos]
        self.in_lp[gone[gone >= 0]] = False
        self.cut_in_lp[-1 - gone[gone < 0]] = False
        self.rows = self.rows[~out]
        self.dropped += len(pos)

    def solve(self, time_limit: float | None
              ) -> tuple[bool, float, np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(optimal, LP value, λ per state cluster, μ per state cut, η) over all the state's
        clusters and cuts and every allowed column (pooled rows that η violates come back,
        columns outside a restricted model are priced in, and the LP is solved again)."""
        deadline = math.inf if time_limit is None else time.perf_counter() + time_limit
        st = self.state
        while True:
            self.sync()
            left = None if time_limit is None else max(0.0, deadline - time.perf_counter())
            sol = self.lp.solve_lp(left)
            if sol.status == "infeasible" and self.lp.pos is not None:
                # the restricted model lacks a column every feasible point needs: take them all
                rest = np.flatnonzero(st.allowed & (self.lp.pos < 0))
                if len(rest):
                    self._add_columns(rest)
                    continue
            if sol.status != "optimal":
                return False, math.nan, None, None, None
            back = self._violated_in_pool(sol.eta)
            back_cuts = self._violated_cuts_in_pool(sol.eta)
            lam, mu = self._duals(sol.row_dual)
            fresh = self._price(lam, mu)      # also beside pooled rows: one re-solve for both
            if len(back) == 0 and len(back_cuts) == 0 and len(fresh) == 0:
                break
            self._add_columns(fresh)
            self._add_rows(back)
            self._add_cut_rows(back_cuts)
        self._drop_idle(sol.row_dual)
        return True, sol.value, lam, mu, sol.eta

    def _duals(self, row_dual: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """λ per state cluster and μ per state cut from the model's row duals."""
        lam = np.zeros(self.K)
        mu = np.zeros(self.ncuts)
        dual = np.abs(row_dual[self.state.n:])
        cl = self.rows >= 0
        lam[self.rows[cl]] = dual[cl]
        mu[-1 - self.rows[~cl]] = dual[~cl]
        return lam, mu

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
        if len(cols) > self.lp.h.getNumCol():
            return
        # columns priced in since the basis was saved are nonbasic at 0
        cols = cols + [highspy.HighsBasisStatus.kLower] * (self.lp.h.getNumCol() - len(cols))
        status = dict(zip(cids.tolist(), rows[n:]))
        tight = np.array([c for c, s in status.items() if c >= 0 and s != basic and not self.in_lp[c]],
                         dtype=np.int64)
        self._add_rows(tight)
        tight = np.array([-1 - c for c, s in status.items() if c < 0 and s != basic and not self.cut_in_lp[-1 - c]],
                         dtype=np.int64)
        self._add_cut_rows(tight)
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


def compile_kernels(state: DualState) -> None:
    """Run the restricted model's kernels once on ``state`` (for :mod:`lpbn.warmup`: the
    small caches of a warm-up get a model with every column)."""
    lp = PolishLP(state, restrict=True)
    lp.solve(None)
    lp.in_lp[:] = False                      # every row pooled: the pool test runs its kernel
    lp._violated_in_pool(np.ones(state.cache.m))
