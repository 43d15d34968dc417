"""Exact polish of the cluster dual (eq. 8) as a linear program.

Coordinate descent can stall on the non-smooth dual (Jaakkola 2010, §5.1), so when an
exact LP value is required we solve eq. 8 in its epigraph form::

    min  sum_i u_i - sum_C λ_C
    s.t. u_i - sum_{C ∋ i} λ_C I_C(s_j) >= W_i(s_j)   for every allowed candidate j of i
         λ_C >= 0

with scipy's HiGHS dual simplex, then load λ* back into the :class:`DualState` and
re-evaluate eq. 8 with our own kernels.  The returned value is therefore always a
certified dual bound; it equals the LP optimum over those clusters when the solver
reports optimality (strong duality).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..clusters import cluster_rows_csr
from .state import DualState


def polish(state: DualState, time_limit: float | None = None) -> tuple[bool, float]:
    """Solve the dual LP exactly over the state's clusters and allowed candidates.

    Returns (solver reported optimal, LP objective); the state's λ is replaced by λ*
    only when that does not worsen the certified dual value.  The primal solution η
    (the LP duals of the epigraph rows) is left in ``state.eta`` for primal separation.
    """
    n, Kc = state.n, state.K
    allowed = state.allowed
    rows = np.flatnonzero(allowed)
    m_all = state.cache.m
    rowmap = -np.ones(m_all, dtype=np.int64)
    rowmap[rows] = np.arange(len(rows))
    r_u = np.arange(len(rows))
    c_u = state.family[rows].astype(np.int64)
    d_u = -np.ones(len(rows))
    if Kc:
        ptr, idx = cluster_rows_csr(state.cache, state.cbits)
        cl = np.repeat(np.arange(Kc), np.diff(ptr))
        keep = rowmap[idx] >= 0
        r_l = rowmap[idx[keep]]
        c_l = n + cl[keep]
        d_l = np.ones(int(keep.sum()))
    else:
        r_l = c_l = np.zeros(0, dtype=np.int64)
        d_l = np.zeros(0)
    A = sp.csr_matrix((np.concatenate([d_u, d_l]), (np.concatenate([r_u, r_l]), np.concatenate([c_u, c_l]))),
                      shape=(len(rows), n + Kc))
    b = -state.scores[rows]
    c = np.concatenate([np.ones(n), -np.ones(Kc)])
    bounds = [(None, None)] * n + [(0, None)] * Kc
    options = {"presolve": True}
    if time_limit is not None and math.isfinite(time_limit):
        options["time_limit"] = max(0.1, float(time_limit))
    res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs-ds", options=options)
    if res.status != 0 or res.x is None:
        state.eta = None
        return False, math.nan
    eta = np.zeros(m_all)
    marg = getattr(getattr(res, "ineqlin", None), "marginals", None)
    if marg is not None:
        eta[rows] = np.maximum(-np.asarray(marg), 0.0)
        state.eta = eta
    else:
        state.eta = None
    before = state.exact_value()
    old = state.lam.copy()
    state.set_lambda(np.maximum(res.x[n:], 0.0))
    after = state.value()
    if not after <= before:
        state.set_lambda(old)
    return True, float(res.fun)
