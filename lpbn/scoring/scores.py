"""Local scores of a family ``X | PA`` from counts (log-scores, higher is better).

* **BIC** (GOBNILP, pygobnilp, pgmpy): ``LL - ½ ln N · q · (r - 1)`` with natural logs, where
  ``LL = sum N_xpa ln(N_xpa / N_pa)``, ``r`` the arity of X and ``q`` the product of the
  parents' arities.
* **MDL** (Tian 2000 eqs. 1-4; Malone et al. 2011 §2; Chen et al. §2.3), a cost in bits:
  ``MDL = H + ½ log2 N · K`` with ``H = -LL / ln 2`` and ``K = q (r - 1)``.  Hence exactly
  ``MDL = -BIC / ln 2``; lpbn stores the score ``-MDL = BIC / ln 2`` (same optimal DAGs).
* **AIC**: ``LL - q (r - 1)``.
* **BDeu** (Heckerman et al. 1995) with equivalent sample size ``ess`` (default 1, as in
  GOBNILP): ``sum_j [lgamma(a_j) - lgamma(a_j + N_j)] + sum_jk [lgamma(a_jk + N_jk) -
  lgamma(a_jk)]`` with ``a_j = ess / q`` and ``a_jk = ess / (q r)``.
"""

from __future__ import annotations

import math

import numba

BIC, AIC, MDL, BDEU = 0, 1, 2, 3
KINDS = {"bic": BIC, "aic": AIC, "mdl": MDL, "bdeu": BDEU}
LN2 = math.log(2.0)


def kind_of(score: str) -> int:
    """Integer code of a score name (``bic``, ``mdl``, ``bdeu``, ``aic``; case-insensitive)."""
    from ..errors import InputError
    try:
        return KINDS[str(score).lower()]
    except KeyError:
        raise InputError(f"unknown score {score!r}; choose one of {', '.join(KINDS)}") from None


@numba.njit(cache=True, inline="always")
def penalty_coef(kind, N):
    """Coefficient ``c`` of the penalty ``c · K`` in nats (BIC/MDL: ½ ln N; AIC: 1; BDeu: 0)."""
    if kind == 1:
        return 1.0
    if kind == 3:
        return 0.0
    return 0.5 * math.log(N)


@numba.njit(cache=True, inline="always")
def local_score(kind, ll, bd, q, rx, N):
    """Score of a family in nats from its statistics (MDL is rescaled to bits by the caller)."""
    if kind == 3:
        return bd
    return ll - penalty_coef(kind, N) * (rx - 1) * q


def to_output_units(kind: int, value: float) -> float:
    """Internal nats -> stored score (MDL: ``BIC / ln 2`` = minus the MDL cost in bits)."""
    return value / LN2 if kind == MDL else value
