"""One conditional-Gaussian local score straight from the data (numba), for the searches that
score parent sets one at a time (independence selection, :mod:`.gaussian_independence`).

The exhaustive enumeration of :mod:`.cg` shares one scatter matrix per discrete parent set over
all continuous parent sets; a best-first search visits sets in no such order, so here each
``(D, G)`` is scored from the rows: the rows are grouped by the configuration of ``D``
(mixed-radix code, densified), each group's scatter matrix of ``G ∪ {x}`` is formed with
two-pass centring (the precision of :func:`.cg.config_scatter`), and bnlearn's bic-cg is summed
over the observed configurations exactly as :func:`.gaussian.enumerate_sets` sums it for the
exhaustive path: ``Σ_c [-(n_c/2)(ln 2π + ln(RSS_c/(n_c-g-1))) - (n_c-g-1)/2] - ln(N)/2·q·(g+2)``
with ``q`` every combination of ``D``'s levels.  The same singularity rules give ``-inf``: a
configuration with ``n_c <= g+1`` rows, or a Cholesky pivot of a parent or of ``x`` at most
:data:`.gaussian.REL_PIVOT` times its diagonal.  Cost ``O(N·(g+1)²)`` per set.

A discrete ``x`` takes only discrete parents and is scored by the discrete scorer; this module
scores continuous ``x`` only.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .gaussian import REL_PIVOT, chol_row


@numba.njit(cache=True)
def _dense_configs(codes, arities, D, N):
    """Configuration index (0..k-1, dense over the observed ones) of every row, ``k``, and ``q``
    = Π arities (every combination)."""
    z = np.zeros(N, dtype=np.int64)
    q = 1.0
    for d in D:
        r = arities[d]
        q *= r
        for i in range(N):
            z[i] = z[i] * r + codes[d, i]
    if D.shape[0] == 0:
        return z, 1, q
    if q <= 4.0 * N:                    # a lookup table over every combination
        label = np.full(int(q), -1, dtype=np.int64)
        k = 0
        for i in range(N):
            if label[z[i]] < 0:
                label[z[i]] = k
                k += 1
            z[i] = label[z[i]]
        return z, k, q
    u = np.unique(z)
    return np.searchsorted(u, z), u.shape[0], q


@numba.njit(cache=True)
def _grouped_columns(V, cols, z, nconf, N):
    """The columns ``cols`` of ``V`` gathered row-contiguously (k x N) with the rows grouped by
    configuration (a counting sort), and each group's start (``nconf + 1`` offsets)."""
    start = np.zeros(nconf + 1, dtype=np.int64)
    for i in range(N):
        start[z[i] + 1] += 1
    for c in range(nconf):
        start[c + 1] += start[c]
    pos = start[:-1].copy()
    X = np.empty((cols.shape[0], N))
    for i in range(N):
        r = pos[z[i]]
        pos[z[i]] += 1
        for j in range(cols.shape[0]):
            X[j, r] = V[i, cols[j]]
    return X, start


@numba.njit(cache=True)
def _group_scatter(X, a, b, M):
    """Centred scatter matrix of rows ``a..b-1`` of the columns of ``X`` into ``M`` (two passes:
    the means first, as :func:`.cg.config_scatter`)."""
    k = X.shape[0]
    mean = np.empty(k)
    for j in range(k):
        s = 0.0
        for r in range(a, b):
            s += X[j, r]
        mean[j] = s / (b - a)
    for j in range(k):
        for l in range(j + 1):
            s = 0.0
            for r in range(a, b):
                s += (X[j, r] - mean[j]) * (X[l, r] - mean[l])
            M[j, l] = s
            M[l, j] = s


@numba.njit(cache=True)
def cg_score(V, codes, arities, cont, x, ps, N):
    """bic-cg local score of continuous ``x`` with parents ``ps`` (sorted table indices, discrete
    and continuous mixed); ``V`` is N x n (continuous columns), ``codes`` n x N (discrete ones).
    Module docstring; ``-inf`` when singular."""
    nd = 0
    for p in ps:
        if not cont[p]:
            nd += 1
    D = np.empty(nd, dtype=np.int64)
    cols = np.empty(ps.shape[0] - nd + 1, dtype=np.int64)
    a = b = 0
    for p in ps:
        if cont[p]:
            cols[b] = p
            b += 1
        else:
            D[a] = p
            a += 1
    cols[b] = x
    g = b
    k = g + 1
    z, nconf, q = _dense_configs(codes, arities, D, N)
    X, start = _grouped_columns(V, cols, z, nconf, N)
    idx = np.arange(k)
    L = np.zeros((k, k))
    M = np.empty((k, k))
    sc = 0.0
    for c in range(nconf):
        n_c = start[c + 1] - start[c]
        if n_c <= g + 1:
            return -np.inf
        _group_scatter(X, start[c], start[c + 1], M)
        d = 0.0
        for r in range(k):
            d = chol_row(M, L, idx, r)
            if not d > REL_PIVOT * M[r, r]:
                return -np.inf
        dof = n_c - g - 1.0
        sc += -0.5 * n_c * (math.log(2.0 * math.pi) + math.log(d / dof)) - 0.5 * dof
    return sc - 0.5 * math.log(N) * q * (g + 2.0)


@numba.njit(cache=True)
def cg_scorer(ctx, x, ps):
    """:func:`cg_score` in the scorer form of :func:`.gaussian_independence.search`:
    ``ctx = (V, codes, arities, cont, N)``."""
    return cg_score(ctx[0], ctx[1], ctx[2], ctx[3], x, ps, ctx[4])
