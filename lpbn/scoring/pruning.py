"""Safe pruning of candidate parent sets while scoring (one variable ``X`` at a time).

Rules (each keeps, for ``k = 1``, an optimal DAG; for ``k > 1`` a set of k best DAGs):

a. **Parent limit** (:func:`degree_bound`).  Tian 2000 Thm 1 / Chen et al. Thm 2:
   ``|U| <= floor(log2(2N / log2 N))`` for MDL/BIC, applied in its exact per-variable form
   (Tian's eq. 34 with ``minMDL = MDL(X|∅)``, the exact entropies ``H(X|∅)`` and
   ``H(X|all others)`` and the actual arities; see :func:`tian_global_bound` for why the
   published closed form is only reported).
b. **Subset dominance** (Teyssier & Koller 2005; Chen et al. Thm 1, and Thm 3 for k-best):
   ``U`` is dropped when ``k`` of its proper subsets score at least as well.
c. **Depth-first branch and bound** (Tian 2000 §5, Fig. 3) over the set-enumeration tree in
   the tree order of eq. 14 (``H(X|X_k1) <= H(X|X_k2) <= ...``) with a K3 greedy start
   (Fig. 1).  Generalised to any variable ordering: a branch ``T ∪ {X_q} ...`` is cut when
   the bound of eq. 12, ``LL(X|T,W) - c·K(X|T)·r_q`` (the entropy lower bound of eqs. 12-13
   with ``H = -LL``), cannot beat the best (k-th best) score of a known proper subset of
   ``T ∪ {X_q}`` — every set in the branch is then subset-dominated.  Children are visited
   in decreasing tree position, so all subsets of a set are visited before it.
   ``H(X|T,W)`` is obtained from precomputed suffix codes of the tree order plus ``T``
   (``O(|T| N)`` per node instead of ``O(|W| N)``).
d. **Superset bounds** (de Campos & Ji 2011 style): for BIC/MDL/AIC the penalty bound above;
   for BDeu ``BDeu(S) <= LL(X|S) <= LL(X|T,W)`` (the Dirichlet-multinomial marginal is a
   mixture of multinomials, so it never exceeds the maximum likelihood) and, for S ⊇ T,
   ``BDeu(S) <= -ln(r_X) · #non-empty cells of the (T, X) table``.  Proof: write a
   configuration's marginal as the product over its rows of ``(a/r + m)/(a + t)``; its first
   row gives ``1/r`` and every later first occurrence of a state at most
   ``(a/r)/(a + 1) <= 1/r``, other rows at most 1.  A T-configuration with k observed states
   is split by S into J sub-configurations holding, together, at least k first
   occurrences, each worth at most ``ln(1/r)``.

In fixed-order mode (``global_ref``) the reference is the best score found so far over all
candidates (the paper's ``minMDL``), and only improving sets are recorded.

The search itself is :mod:`lpbn.scoring.explore.dfbnb`; this module holds the bounds it and
the budgeted strategies (:mod:`lpbn.scoring.explore`) share.
"""

from __future__ import annotations

import math

import numba

from .scores import penalty_coef


def degree_bound(kind: int, N: int, rx: int, parent_arities, ll_empty: float, ll_all: float,
                 k: int = 1) -> int:
    """Largest parent-set size that can be needed for X (penalised-LL scores only).

    ``k = 1`` (Tian 2000 eq. 34 with ``minMDL = MDL(X|∅)``, as any needed set must beat the
    empty set): a set U is needed only if ``c·(r_X-1)·(q_U - 1) < H(X|∅) - H(X|all)``.
    ``k > 1`` (Chen et al. Thm 5 / Corollary 1 with exact entropies): if
    ``H(X|∅) - H(X|all) <= ½·c·K(X|U)`` all ``2^|U| - 1`` proper subsets score at least as
    well, so sets with ``2^|U| - 1 >= k`` are not needed.  ``q_U`` is bounded below by the
    product of the ``|U|`` smallest parent arities (arities 1 excluded, see caller).
    Returns ``len(parent_arities)`` when nothing can be concluded (e.g. BDeu).
    """
    if kind == 3:
        return len(parent_arities)
    c = 0.5 * math.log(N) if kind != 1 else 1.0
    gap = (ll_all - ll_empty)  # = H(X|∅) - H(X|all) >= 0
    gap = max(gap, 0.0)
    slack = 1e-9 * (1.0 + abs(ll_empty))
    ars = sorted(int(a) for a in parent_arities)
    prod = 1.0
    for j, a in enumerate(ars, 1):
        prod *= a
        # gap == 0: no set has a better fit than the empty set, so the penalty decides
        if k <= 1:
            if c * (rx - 1) * (prod - 1.0) >= gap + slack or gap <= 0.0:
                return j - 1
        else:
            if 2 ** j - 1 >= k and (0.5 * c * (rx - 1) * prod >= gap + slack or gap <= 0.0):
                return j - 1
    return len(ars)


def tian_global_bound(N: int) -> int:
    """Tian 2000 Thm 1 / Chen et al. Thm 2 as published: ``floor(log2(2N / log2 N))``.

    Reported only.  Tian's derivation (eqs. 16-27) gives ``2^d <= 1 + 2N/log2 N``, so the
    published floor can be one too small when ``2N/log2 N`` lies in ``[2^j - 1, 2^j)``
    (e.g. N = 40: 15.04, published D = 3, but a 4-parent set of a uniform binary X that is a
    function of 4 binary parents can beat the empty set).  lpbn applies the exact
    per-variable form (:func:`degree_bound`), which is never looser than the corrected
    ``floor(log2(1 + 2N/log2 N))``.
    """
    if N < 2:
        return 0
    return int(math.floor(math.log2(2.0 * N / math.log2(N))))


def chen_corollary1(N: int, k: int, c_bits: float | None = None) -> int:
    """Chen et al. Corollary 1: ``d = floor(log2(2N / c))`` with the penalty coefficient in bits
    (``c = ½ log2 N`` for BIC/MDL, ``1/ln 2`` for AIC), inflated to the smallest ``d' >= d``
    with ``k <= 2^(d'+1) - 1`` when k is larger."""
    if N < 2:
        return 0
    c = 0.5 * math.log2(N) if c_bits is None else c_bits
    d = int(math.floor(math.log2(2.0 * N / c)))
    while k > 2 ** (d + 1) - 1:
        d += 1
    return d


@numba.njit(cache=True)
def superset_bound(kind, ll_ub, qC, rx, cellsT, N):
    """Upper bound on the score of every S ⊇ T ∪ {q} (see the module docstring, rule d):
    ``ll_ub`` bounds LL(X|S), ``qC`` = q of T ∪ {q}, ``cellsT`` = non-empty cells of (T, X)."""
    if kind == 3:
        b2 = -math.log(rx) * cellsT if rx > 1 else 0.0
        return min(ll_ub, b2)
    return ll_ub - penalty_coef(kind, N) * (rx - 1) * qC
