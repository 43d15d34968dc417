"""Local scores of continuous data: Gaussian BIC (``bic-g``) and BGe (``bge``), from sufficient
statistics, with an exhaustive, safely pruned enumeration of the parent sets of one variable.

Both scores are defined exactly as R's bnlearn 4.9 computes them (the definitions, defaults
and reference numbers are in ``instances/continuous/README.md`` of the shared collection and in
``docs/continuous.md``).  Node ``v``, parent set ``P``, ``p = |P|``, ``N`` rows, ``n`` variables:

* **bic-g** — OLS of ``x_v`` on ``[1, x_P]`` with the *unbiased* residual variance
  ``s² = RSS/(N-p-1)``; ``loglik = -(N/2) ln(2π s²) - (N-p-1)/2`` (the Gaussian log density of
  the residuals at ``s``: ``RSS/(2 s²) = (N-p-1)/2``); ``bic-g = loglik - ln(N)/2 · (p+2)``.
* **bge** — Geiger & Heckerman (2002) in the form of Kuipers, Moffa & Heckerman (2014, eq. 13
  and Appendix): with ``t = α_μ(α_w-n-1)/(α_μ+1)`` and ``R = t·I + S_N + (Nα_μ/(N+α_μ))
  (x̄-ν)(x̄-ν)ᵀ``, ``Q = P ∪ {v}``, ``local = ½ln(α_μ/(N+α_μ)) + lnΓ(½(N+α_w-n+p+1)) -
  lnΓ(½(α_w-n+p+1)) - (N/2) ln π + ½(α_w-n+2p+1) ln t + ½(N+α_w-n+p) ln|R_PP| -
  ½(N+α_w-n+p+1) ln|R_QQ|``.  Defaults (bnlearn and GOBNILP): ``α_μ = 1``, ``α_w = n+2``,
  ``ν = x̄`` (then the last term of ``R`` vanishes).

Sufficient statistics: the data are centred once and the scatter matrix ``S = X_cᵀ X_c`` is
formed (one BLAS call).  Both scores need, per parent set, only the Cholesky factor ``L`` of
``M_PP`` and the last pivot of ``M_QQ`` with ``v`` ordered last (``M = S`` for bic-g, whose last
pivot squared is ``RSS``; ``M = R`` for BGe, ``ln|R_PP| = 2 Σ ln L_ii`` and ``ln|R_QQ| =
ln|R_PP| + ln(pivot²)``).  The enumeration visits the sets of each size in lexicographic order
and updates ``L`` from the first row that changed, so a set costs ``O(p²)`` amortised.

Pruning (:func:`bicg_size_bounds`, rules applied by :func:`enumerate_sets`):

* **subset dominance** (Teyssier & Koller 2005): a set is kept only if it scores strictly
  better than every one of its subsets (kept or not); the best score over the subsets of every
  set is carried level by level (``best(S) = max(score(S), max_i best(S \\ {i}))``).
* **bic-g size bound** (in the spirit of Tian 2000, Thm 1): let ``RSS_A`` be the residual sum
  of squares of ``v`` on *all* other variables.  For any ``P'`` of size ``p'``, ``P' ⊆ A``, OLS
  gives ``RSS_P' >= RSS_A``, hence
  ``bic-g(P') <= U(p') := -(N/2) ln(2π RSS_A) + (N/2) ln(N-p'-1) - (N-p'-1)/2 - ln(N)/2 (p'+2)``.
  The unbiased variance makes the loglik *not* monotone in ``p'`` for a fixed RSS, so the bound
  keeps the exact ``p'`` terms; ``dU/dp' = ½(1 - N/(N-p'-1)) - ½ ln N < 0``, so ``U`` decreases
  in ``p'``.  Consequences: (i) no set of size ``p'`` with ``U(p') <= bic-g(∅)`` is needed (the
  empty set dominates it), which bounds the enumerated size; (ii) a set ``S`` of size ``s`` is
  not scored when the best score of its proper subsets is ``>= U(s)`` (it would be dominated),
  and enumeration stops at the first size at which every set of the previous level is so
  dominated for one more parent (``best(S) >= U(s+1)`` for all ``|S| = s``: by monotonicity of
  ``best`` along supersets and of ``U`` in the size, every larger set is dominated too).
  The bound is raised by ``1e-9·(1+|bic-g(∅)|)`` nats for the rounding of ``RSS_A`` (as lpbn's
  discrete bounds allow a slack), so a bound never prunes on a rounding error.
* **BGe: no bound is known.**  The marginal likelihood has no simple maximum-likelihood
  envelope with a penalty that grows with the set, so only subset dominance applies; the
  parent limit (``max_parents``) is what bounds the size of a BGe cache.  Without a limit all
  ``2^(n-1)`` sets of a variable are enumerated, which :func:`enumerate_sets` refuses beyond
  ``MAX_SETS``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from ..errors import InputError, ResourceLimitError

BICG, BGE = 0, 1
NAMES = {"bic-g": BICG, "bge": BGE}
#: sets one variable's enumeration may hold (score and best-subset arrays: 2 x 8 bytes each);
#: beyond it a parent limit is required (``ResourceLimitError``)
MAX_SETS = 1 << 25
#: smallest relative pivot ``d_k² / M_kk`` of a Cholesky factor accepted as positive definite:
#: below it the column is a linear combination of the others up to ~10 digits, the fitted
#: variance is rounding noise and a score would be meaningless (+inf for an exact fit)
REL_PIVOT = 1e-10


@dataclass
class GaussianStats:
    """Sufficient statistics of complete continuous data: ``N`` rows, column means and the
    scatter matrix ``S = (X - x̄)ᵀ (X - x̄)`` (``n x n``)."""

    names: tuple[str, ...]
    N: int
    means: np.ndarray
    scatter: np.ndarray
    source: str | None = None

    @property
    def n(self) -> int:
        return len(self.names)

    @classmethod
    def from_matrix(cls, X: np.ndarray, names, source: str | None = None) -> GaussianStats:
        """Centre ``X`` (N x n, finite floats) once and form its scatter matrix."""
        X = np.asarray(X, dtype=np.float64)
        means = X.mean(axis=0)
        Xc = X - means
        # a second pass removes the rounding of the mean (as bnlearn's two-pass covariance)
        Xc -= Xc.mean(axis=0)
        return cls(tuple(str(s) for s in names), int(X.shape[0]), means, Xc.T @ Xc, source)

    def matrix(self, kind: int, alpha_mu: float = 1.0, alpha_w: float | None = None) -> np.ndarray:
        """``S`` for bic-g; ``R = t·I + S`` for BGe (``ν = x̄``: the prior-mean term vanishes)."""
        if kind == BICG:
            return self.scatter
        am, aw = bge_parameters(self.n, alpha_mu, alpha_w)
        t = am * (aw - self.n - 1) / (am + 1)
        return self.scatter + t * np.eye(self.n)


def bge_parameters(n: int, alpha_mu: float = 1.0, alpha_w: float | None = None) -> tuple[float, float]:
    """``(α_μ, α_w)`` checked: ``α_μ > 0`` and ``α_w > n + 1`` (so that ``t > 0``)."""
    am = float(alpha_mu)
    aw = float(n + 2 if alpha_w is None else alpha_w)
    if not (am > 0 and math.isfinite(am)):
        raise InputError(f"BGe alpha_mu (iss.mu) must be a positive number, got {alpha_mu!r}")
    if not (aw > n + 1 and math.isfinite(aw)):
        raise InputError(f"BGe alpha_w (iss.w) must exceed n + 1 = {n + 1}, got {alpha_w!r}")
    return am, aw


def check_full_rank(stats: GaussianStats) -> None:
    """Every column must vary and none be a linear combination of the others (see REL_PIVOT);
    else one clear error naming the column (the first one that depends on earlier ones)."""
    S = stats.scatter
    for j in range(stats.n):
        if not S[j, j] > 0:
            raise InputError(f"{stats.source or 'data'}: column {j + 1} ({stats.names[j]}) is constant: "
                             "a continuous variable must vary (drop it or declare it discrete)")
    d = np.sqrt(np.diag(S))
    C = S / d[:, None] / d[None, :]
    bad = _first_dependent(C, REL_PIVOT)
    if bad >= 0:
        raise InputError(f"{stats.source or 'data'}: column {bad + 1} ({stats.names[bad]}) is (numerically) a "
                         "linear combination of earlier columns: its regression would fit exactly; drop it")


@numba.njit(cache=True)
def _first_dependent(C, tol):
    n = C.shape[0]
    L = np.zeros((n, n))
    for k in range(n):
        for i in range(k):
            s = C[k, i]
            for q in range(i):
                s -= L[k, q] * L[i, q]
            L[k, i] = s / L[i, i]
        d = C[k, k]
        for q in range(k):
            d -= L[k, q] * L[k, q]
        if d <= tol * C[k, k]:
            return k
        L[k, k] = math.sqrt(d)
    return -1


@numba.njit(cache=True)
def family_score(kind, N, n, p, logdet_pp, pivot2, am, aw, t):
    """Local score from the Cholesky quantities of ``M_QQ`` (see the module docstring):
    ``pivot2`` is the last pivot squared (RSS for bic-g), ``logdet_pp = ln|M_PP|``."""
    if kind == 0:
        dof = N - p - 1.0
        ll = -0.5 * N * (math.log(2.0 * math.pi) + math.log(pivot2 / dof)) - 0.5 * dof
        return ll - 0.5 * math.log(N) * (p + 2.0)
    a = aw - n
    return (0.5 * math.log(am / (N + am)) + math.lgamma(0.5 * (N + a + p + 1.0))
            - math.lgamma(0.5 * (a + p + 1.0)) - 0.5 * N * math.log(math.pi)
            + 0.5 * (a + 2.0 * p + 1.0) * math.log(t) + 0.5 * (N + a + p) * logdet_pp
            - 0.5 * (N + a + p + 1.0) * (logdet_pp + math.log(pivot2)))


@numba.njit(cache=True)
def chol_row(M, L, idx, k):
    """Row ``k`` of the Cholesky factor of ``M[idx, idx]`` given rows ``0..k-1``; returns the
    pivot squared (the row's diagonal is set only when it is positive)."""
    a = idx[k]
    for i in range(k):
        s = M[a, idx[i]]
        for q in range(i):
            s -= L[k, q] * L[i, q]
        L[k, i] = s / L[i, i]
    d = M[a, a]
    for q in range(k):
        d -= L[k, q] * L[k, q]
    if d > REL_PIVOT * M[a, a]:
        L[k, k] = math.sqrt(d)
    return d


@numba.njit(cache=True)
def set_score(M, kind, x, parents, N, am, aw, t):
    """Local score of ``x`` with ``parents`` (index array) from ``M`` (see :meth:`GaussianStats.matrix`);
    -inf when the fit is singular."""
    p = parents.shape[0]
    idx = np.empty(p + 1, dtype=np.int64)
    idx[:p] = parents
    idx[p] = x
    L = np.zeros((p + 1, p + 1))
    ld = 0.0
    for k in range(p + 1):
        d = chol_row(M, L, idx, k)
        if not d > REL_PIVOT * M[idx[k], idx[k]]:
            return -np.inf
        if k < p:
            ld += math.log(d)
        else:
            return family_score(kind, N, M.shape[0], p, ld, d, am, aw, t)
    return -np.inf


def bicg_size_bounds(stats: GaussianStats, x: int, L: int) -> np.ndarray:
    """``U(p')`` for ``p' = 0..L`` (module docstring): an upper bound on the bic-g score of every
    parent set of ``x`` of size ``p'``, from the RSS of ``x`` on all other variables."""
    S = stats.scatter
    others = np.array([v for v in range(stats.n) if v != x], dtype=np.int64)
    N = stats.N
    if N - len(others) - 1 <= 0:
        return np.full(L + 1, np.inf)     # the full regression is not identified: no bound
    rss_a = _rss(S, x, others)
    if not rss_a > 0:
        return np.full(L + 1, np.inf)
    p = np.arange(L + 1, dtype=np.float64)
    return (-0.5 * N * math.log(2 * math.pi * rss_a) + 0.5 * N * np.log(np.maximum(N - p - 1, 1e-300))
            - 0.5 * (N - p - 1) - 0.5 * math.log(N) * (p + 2))


def _rss(S, x, others) -> float:
    """RSS of ``x`` on ``others`` (Schur complement via a solve; pivot-free, for the bound)."""
    if len(others) == 0:
        return float(S[x, x])
    A = S[np.ix_(others, others)]
    b = S[others, x]
    try:
        c = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return 0.0
    y = np.linalg.solve(c, b)
    return float(S[x, x] - y @ y)


def sets_within(m: int, L: int) -> int:
    """Number of subsets of at most ``L`` of ``m`` items."""
    return sum(math.comb(m, j) for j in range(min(m, L) + 1))


def explore_variable(stats: GaussianStats, M: np.ndarray, kind: int, x: int, max_parents: int | None,
                     am: float = 1.0, aw: float = 0.0, rules=("limit", "dominance", "bnb")) -> dict:
    """Every parent set of ``x`` within the limit, pruned safely (module docstring); returns the
    kept sets as ``{"sets", "sizes", "scores", ...}`` (sets: rows of sorted variable indices)."""
    n, N = stats.n, stats.N
    cand = np.array([v for v in range(n) if v != x], dtype=np.int64)
    L = len(cand) if max_parents is None else min(int(max_parents), len(cand))
    L = min(L, max(N - 3, 0))          # p <= N - 3 keeps N - p - 1 >= 2 (a variance estimate)
    t = am * (aw - n - 1) / (am + 1) if kind == BGE else 0.0
    empty = float(set_score(M, kind, x, np.zeros(0, np.int64), N, am, aw, t))
    if kind == BICG and "limit" in rules:
        ub = bicg_size_bounds(stats, x, L) + 1e-9 * (1.0 + abs(empty))   # rounding slack: prune less
        alive = np.flatnonzero(ub > empty)
        L = int(alive.max()) if len(alive) else 0
        ub = ub[:L + 1] if "bnb" in rules else np.full(L + 1, np.inf)
    else:
        ub = np.full(L + 1, np.inf)
    total = sets_within(len(cand), L)
    if total > MAX_SETS:
        what = "BGe has no pruning bound" if kind == BGE else "the bic-g size bound allows"
        raise ResourceLimitError(f"variable {stats.names[x]}: {what} {total} candidate parent sets within "
                                 f"{L} parents (more than {MAX_SETS}); give a parent limit (--max-parents)")
    Ms = M.reshape(1, n, n)
    counts = np.array([float(N)])
    prior = np.array([am, aw, t] if kind == BGE else [0.0, 0.0, 1.0])
    sets, sizes, scores, st = enumerate_sets(Ms, counts, kind, x, cand, L, N, prior, ub, "dominance" in rules)
    return {"x": x, "sets": sets, "sizes": sizes, "scores": scores, "limit": int(L),
            "scored": int(st[0]), "cut": int(st[1]), "levels": int(st[2]), "candidates_before": total}


@numba.njit(cache=True)
def _binom_table(m, L):
    C = np.zeros((m + 2, L + 2), dtype=np.int64)
    for a in range(m + 2):
        C[a, 0] = 1
        for b in range(1, min(a, L + 1) + 1):
            C[a, b] = C[a - 1, b - 1] + (C[a - 1, b] if b <= a - 1 else 0)
    return C


@numba.njit(cache=True)
def enumerate_sets(Ms, counts, kind, x, cand, L, N, prior, ub, dominance):
    """Level-wise enumeration of the subsets of ``cand`` of size ``0..L`` (lexicographic within a
    level, colex ranks for the best-subset table), with the pruning of the module docstring.

    ``Ms[c]`` is the matrix of configuration ``c`` with ``counts[c]`` rows (one configuration,
    ``N`` rows, for bic-g and BGe; one per observed configuration of the discrete parents for a
    continuous node of a conditional Gaussian, :mod:`lpbn.scoring.cg`; bic-g's terms are summed
    over the configurations and its penalty is ``ln(N)/2 · q·(p+2)``).  ``prior`` holds
    ``(α_μ, α_w, t)`` for BGe and ``(0, 0, q)`` for bic-g, ``q`` the penalty's number of
    configurations (every combination of the discrete parents, observed or not).
    Returns (sets (K x max(L,1)) of variable ids, sizes, scores, stats[scored, cut, levels])."""
    am, aw, t = prior[0], prior[1], prior[2]
    m = cand.shape[0]
    n = Ms.shape[1]
    q = Ms.shape[0]
    C = _binom_table(m, L)
    cap = 1024
    out_sets = np.full((cap, max(L, 1)), -1, dtype=np.int64)
    out_sizes = np.zeros(cap, dtype=np.int64)
    out_scores = np.zeros(cap)
    k_out = 0
    st = np.zeros(3, dtype=np.int64)
    prev = np.full(1, -np.inf)
    idx = np.empty(L + 1, dtype=np.int64)
    Lf = np.zeros((q, L + 1, L + 1))
    ld = np.zeros((q, L + 2))
    c = np.empty(L + 1, dtype=np.int64)
    for s in range(L + 1):
        cur = np.empty(C[m, s])
        any_alive = False
        for i in range(s):
            c[i] = i
        valid = 0            # rows 0..valid-1 of Lf hold the factors of the current prefix
        bad_from = s + 1     # first prefix row whose pivot failed (singular), if any
        while True:
            rank = 0
            for i in range(s):
                rank += C[c[i], i + 1]
            bestsub = -np.inf
            for i in range(s):
                rr = 0
                for j in range(s):
                    if j < i:
                        rr += C[c[j], j + 1]
                    elif j > i:
                        rr += C[c[j], j]
                bestsub = max(bestsub, prev[rr])
            best = bestsub
            if bestsub >= ub[s]:
                st[1] += 1
            else:
                for k in range(valid, s):
                    if k >= bad_from:
                        break
                    idx[k] = cand[c[k]]
                    for g in range(q):
                        d = chol_row(Ms[g], Lf[g], idx, k)
                        if not d > REL_PIVOT * Ms[g, idx[k], idx[k]]:
                            bad_from = k
                            break
                        ld[g, k + 1] = ld[g, k] + math.log(d)
                    if bad_from == k:
                        break
                valid = min(bad_from, s)
                sc = -np.inf
                if bad_from >= s:
                    idx[s] = x
                    sc = 0.0
                    for g in range(q):
                        if counts[g] <= s + 1:
                            sc = -np.inf
                            break
                        d = chol_row(Ms[g], Lf[g], idx, s)
                        if not d > REL_PIVOT * Ms[g, x, x]:
                            sc = -np.inf
                            break
                        if kind == 0:
                            dof = counts[g] - s - 1.0
                            sc += (-0.5 * counts[g] * (math.log(2.0 * math.pi) + math.log(d / dof))
                                   - 0.5 * dof)
                        else:
                            sc += family_score(kind, N, n, s, ld[g, s], d, am, aw, t)
                    if kind == 0 and sc > -np.inf:
                        sc -= 0.5 * math.log(N) * t * (s + 2.0)
                if sc > -np.inf:
                    st[0] += 1
                    if sc > bestsub or not dominance:
                        if k_out == out_sizes.shape[0]:
                            out_sets, out_sizes, out_scores = _grow(out_sets, out_sizes, out_scores)
                        for i in range(s):
                            out_sets[k_out, i] = cand[c[i]]
                        out_sizes[k_out] = s
                        out_scores[k_out] = sc
                        k_out += 1
                    best = max(best, sc)
            cur[rank] = best
            if s < L and best < ub[s + 1]:
                any_alive = True
            j = s - 1       # next combination in lexicographic order; j = first changed position
            while j >= 0 and c[j] == m - s + j:
                j -= 1
            if j < 0:
                break
            c[j] += 1
            for i in range(j + 1, s):
                c[i] = c[i - 1] + 1
            valid = min(valid, j)
            if j < bad_from:
                bad_from = s + 1
        prev = cur
        st[2] = s + 1
        if not any_alive:
            break
    return out_sets[:k_out], out_sizes[:k_out], out_scores[:k_out], st


@numba.njit(cache=True)
def _grow(sets, sizes, scores):
    K = sizes.shape[0] * 2
    s2 = np.full((K, sets.shape[1]), -1, dtype=np.int64)
    s2[:sets.shape[0]] = sets
    z2 = np.zeros(K, dtype=np.int64)
    z2[:sizes.shape[0]] = sizes
    c2 = np.zeros(K)
    c2[:scores.shape[0]] = scores
    return s2, z2, c2
