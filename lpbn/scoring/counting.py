"""Counting kernels (numba) on mixed-radix parent-configuration codes.

A parent set ``T`` is represented by one int64 code per data row, ``code_T[s] in [0, Q)``.
Adding parent ``q`` extends it incrementally: ``code_{T+q} = code_T * r_q + x_q`` and
``Q' = Q * r_q`` (one pass over the rows, :func:`extend_codes`).  When ``Q' * r_X`` would
exceed the count buffer, the codes are re-ranked to ``0..(#distinct - 1)`` (at most N
values, :func:`compress_codes`), so counting works for parent sets of any size.

:func:`family_stats` returns, in two passes over the rows and O(N) time independent of Q,
the log-likelihood ``LL = sum N_xpa log(N_xpa / N_pa)`` (natural log; Tian 2000 eq. 3 is
``H = -LL``), the BDeu log marginal likelihood, and the number of non-empty parent
configurations.  The count buffers are reset by the second pass (only touched cells).

**Order-free sums.**  The entropy parts ``E(S) = sum_cfg n log n`` (and BDeu's ``F(S)``) are
summed in fixed point, as int64 multiples of ``2^-b`` with ``b`` chosen from N so that no sum
can overflow (``E(S) <= N log N``; ``|F(S)| <= N (log N + 746)`` for any ``a_S`` a float can
hold), and turned into float64 only at the end: at N = 20,000 rows a term is rounded by at
most 6e-14 (E) or 4e-12 (F).  Integer sums do not depend on the order of the cells, so a
variable set gets bit-identical parts whichever kernel counted it (the dense scan goes in code
order, the sparse ones in order of first appearance) and whichever child scored it first: the
joint-table memo that the children of a process share (:mod:`.explore.memo`) then cannot make
a score depend on how the variables were dealt out to the worker processes.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from ..tuning import DENSE_CELLS  # noqa: F401  (re-exported to the counting kernels)


def lg_table(N: int) -> np.ndarray:
    """``t[c] = c log(c)`` for ``c = 0..N`` in fixed point (int64 multiples of ``2^-t[N+1]``);
    ``t[N+2]`` is the exponent of BDeu's F sums (see the module's docstring)."""
    N = int(N)
    e_bound = N * math.log(max(N, 1)) + 1.0
    f_bound = N * (math.log(N + 1.0) + 746.0) + 1.0
    b_e = min(52, 61 - math.ceil(math.log2(e_bound)))
    b_f = min(52, 61 - math.ceil(math.log2(f_bound)))
    if b_f < 16:
        from ..errors import ResourceLimitError
        raise ResourceLimitError(f"{N} rows: too many for exact counting; subsample the data")
    c = np.arange(N + 1, dtype=np.float64)
    t = np.zeros(N + 1)
    t[1:] = c[1:] * np.log(c[1:])
    return np.concatenate([np.rint(t * 2.0 ** b_e).astype(np.int64), np.array([b_e, b_f], dtype=np.int64)])


@numba.njit(cache=True, inline="always")
def e_unit(lgt):
    """Value of one unit of the table's E sums (``2^-b``)."""
    return 2.0 ** -float(lgt[lgt.shape[0] - 2])


@numba.njit(cache=True, inline="always")
def f_scale(lgt):
    """Units per 1.0 of the table's F sums (``2^b``)."""
    return 2.0 ** float(lgt[lgt.shape[0] - 1])


@numba.njit(cache=True, inline="always")
def fixed(x, scale):
    """``x`` in fixed point: the nearest multiple of ``1 / scale``, as int64 units."""
    return np.int64(math.floor(x * scale + 0.5))


def buffer_limit(N: int, max_arity: int) -> int:
    """Size of the per-family count buffer (cells); codes are compressed above it."""
    return int(max(1 << 16, min(16 * N, 1 << 24), N * max(1, max_arity)))


@numba.njit(cache=True)
def compress_codes(codes, Q, mapbuf):
    """Re-rank ``codes`` (values < Q) in place to ``0..k-1``; returns ``k`` (#distinct)."""
    N = codes.shape[0]
    if Q <= mapbuf.shape[0]:
        k = 0
        for s in range(N):
            c = codes[s]
            v = mapbuf[c]
            if v == 0:
                k += 1
                mapbuf[c] = k
                codes[s] = k - 1
            else:
                codes[s] = v - 1
        # reset: every touched entry is a value that now maps through the ranks; redo via a pass
        return k
    order = np.argsort(codes, kind="mergesort")
    k = 0
    prev = -1
    tmp = np.empty(N, dtype=np.int64)
    for t in range(N):
        s = order[t]
        c = codes[s]
        if t == 0 or c != prev:
            k += 1
            prev = c
        tmp[s] = k - 1
    for s in range(N):
        codes[s] = tmp[s]
    return k


@numba.njit(cache=True)
def _reset_map(old_codes_with_Q, mapbuf):
    for s in range(old_codes_with_Q.shape[0]):
        mapbuf[old_codes_with_Q[s]] = 0


@numba.njit(cache=True)
def extend_codes(src, Q, col, r, dst, limit, mapbuf):
    """``dst = src * r + col`` (mixed radix); compresses when ``Q * r`` exceeds ``limit``.

    Returns the new code-space size (``Q * r`` or the number of distinct configurations).
    """
    N = src.shape[0]
    for s in range(N):
        dst[s] = src[s] * r + col[s]
    Q2 = Q * r
    if Q2 > limit:
        if Q2 <= mapbuf.shape[0]:
            raw = dst.copy()
            k = compress_codes(dst, Q2, mapbuf)
            _reset_map(raw, mapbuf)
            return k
        return compress_codes(dst, Q2, mapbuf[:0])
    return Q2


@numba.njit(cache=True)
def _finish(cnt, pacnt, touched, nt, tpa, npa, lgt, want_bdeu, aq, aqr):
    """Parts of the family statistics from the touched cells, resetting them (sums in fixed
    point, see the module's docstring; ``lgt`` from :func:`lg_table`).

    Returns ``(E_joint, E_pa, F_joint, F_pa, #parent configs, #joint cells)`` (non-empty) with ``E(S) = sum_cfg n log n`` over
    the configurations of a variable set S and ``F(S) = sum_cfg [lgamma(a_S + n) -
    lgamma(a_S)]`` (``a_S = ess / q_S``); then ``LL = E(C+X) - E(C)`` (Tian 2000 eq. 3) and
    ``BDeu = F(C+X) - F(C)``.  Both depend only on the variable set, so they can be shared
    between the families of different children (see :mod:`.pruning`).
    """
    ej = np.int64(0)
    epa = np.int64(0)
    fj = np.int64(0)
    fpa = np.int64(0)
    fs = f_scale(lgt)
    if want_bdeu:
        lar = math.lgamma(aqr)
        la = math.lgamma(aq)
        for t in range(nt):
            v = cnt[touched[t]]
            ej += lgt[v]
            fj += fixed(math.lgamma(aqr + v) - lar, fs)
            cnt[touched[t]] = 0
        for t in range(npa):
            w = pacnt[tpa[t]]
            epa += lgt[w]
            fpa += fixed(math.lgamma(aq + w) - la, fs)
            pacnt[tpa[t]] = 0
    else:
        for t in range(nt):
            ej += lgt[cnt[touched[t]]]
            cnt[touched[t]] = 0
        for t in range(npa):
            epa += lgt[pacnt[tpa[t]]]
            pacnt[tpa[t]] = 0
    eu = e_unit(lgt)
    return ej * eu, epa * eu, fj / fs, fpa / fs, npa, nt


@numba.njit(cache=True)
def family_parts(codes, xcol, rx, cnt, pacnt, lgt, want_bdeu, aq, aqr):
    """Counting pass over precomputed codes; returns the parts of :func:`_finish`."""
    N = codes.shape[0]
    touched = np.empty(N, dtype=np.int64)
    tpa = np.empty(N, dtype=np.int64)
    nt = 0
    npa = 0
    for s in range(N):
        c = codes[s]
        j = c * rx + xcol[s]
        if cnt[j] == 0:
            touched[nt] = j
            nt += 1
        cnt[j] += 1
        if pacnt[c] == 0:
            tpa[npa] = c
            npa += 1
        pacnt[c] += 1
    return _finish(cnt, pacnt, touched, nt, tpa, npa, lgt, want_bdeu, aq, aqr)


@numba.njit(cache=True)
def family_stats(codes, xcol, rx, cnt, pacnt, lgt, want_bdeu, aq, aqr):
    """(LL, BDeu, #non-empty cells of the joint table) of child column ``xcol`` given ``codes``.

    ``LL = sum_cells N log N - sum_pa N_pa log N_pa`` (Tian 2000 eq. 3, natural log, sign
    flipped).  BDeu (Heckerman et al. 1995) with ``aq = ess/q`` and ``aqr = ess/(q r)``:
    ``sum_pa [lgamma(aq) - lgamma(aq + N_pa)] + sum_cells [lgamma(aqr + N) - lgamma(aqr)]``.
    One pass over the rows; the second pass only visits the touched cells.
    """
    N = codes.shape[0]
    touched = np.empty(N, dtype=np.int64)
    tpa = np.empty(N, dtype=np.int64)
    nt = 0
    npa = 0
    for s in range(N):
        c = codes[s]
        j = c * rx + xcol[s]
        if cnt[j] == 0:
            touched[nt] = j
            nt += 1
        cnt[j] += 1
        if pacnt[c] == 0:
            tpa[npa] = c
            npa += 1
        pacnt[c] += 1
    ej, epa, fj, fpa, npa, nt = _finish(cnt, pacnt, touched, nt, tpa, npa, lgt, want_bdeu, aq, aqr)
    return ej - epa, fj - fpa, nt


@numba.njit(cache=True)
def extend_and_count(src, col, r, dst, xcol, rx, cnt, pacnt, touched, tpa, lgt, want_bdeu, aq, aqr):
    """Fused ``dst = src * r + col`` and counting (no compression; the caller checks that
    ``Q * r * rx`` fits the count buffer).  ``touched``/``tpa`` are scratch (size N).
    Returns the parts of :func:`_finish`."""
    N = src.shape[0]
    nt = 0
    npa = 0
    for s in range(N):
        c = src[s] * r + col[s]
        dst[s] = c
        j = c * rx + xcol[s]
        if cnt[j] == 0:
            touched[nt] = j
            nt += 1
        cnt[j] += 1
        if pacnt[c] == 0:
            tpa[npa] = c
            npa += 1
        pacnt[c] += 1
    return _finish(cnt, pacnt, touched, nt, tpa, npa, lgt, want_bdeu, aq, aqr)


@numba.njit(cache=True)
def extend_and_count_dense(src, col, r, dst, xcol, rx, Q2, cnt, lgt, want_bdeu, aq, aqr):
    """Branch-free variant of :func:`extend_and_count` for small tables (``Q2 * rx`` cells,
    at most ``DENSE_CELLS``): count densely, then scan every cell once."""
    N = src.shape[0]
    for s in range(N):
        c = src[s] * r + col[s]
        dst[s] = c
        cnt[c * rx + xcol[s]] += 1
    ej = np.int64(0)
    epa = np.int64(0)
    fj = np.int64(0)
    fpa = np.int64(0)
    fs = f_scale(lgt)
    npa = 0
    nt = 0
    if want_bdeu:
        lar = math.lgamma(aqr)
        la = math.lgamma(aq)
    else:
        lar = 0.0
        la = 0.0
    for c in range(Q2):
        w = 0
        base = c * rx
        for k in range(rx):
            v = cnt[base + k]
            if v > 0:
                nt += 1
                w += v
                ej += lgt[v]
                if want_bdeu:
                    fj += fixed(math.lgamma(aqr + v) - lar, fs)
                cnt[base + k] = 0
        if w > 0:
            npa += 1
            epa += lgt[w]
            if want_bdeu:
                fpa += fixed(math.lgamma(aq + w) - la, fs)
    eu = e_unit(lgt)
    return ej * eu, epa * eu, fj / fs, fpa / fs, npa, nt


@numba.njit(cache=True)
def set_codes(cols, arities, items, limit, mapbuf):
    """Codes of an arbitrary parent set ``items`` (compressed as needed); returns (codes, Q)."""
    N = cols.shape[1]
    codes = np.zeros(N, dtype=np.int64)
    tmp = np.empty(N, dtype=np.int64)
    Q = 1
    for t in range(items.shape[0]):
        v = items[t]
        Q = extend_codes(codes, Q, cols[v], arities[v], tmp, limit, mapbuf)
        codes, tmp = tmp, codes
    return codes, Q


@numba.njit(cache=True)
def suffix_codes(cols, arities, order, limit, mapbuf):
    """Compressed codes of every suffix ``order[i:]`` of the tree order (rows ``i = 0..m``).

    Row ``m`` is the empty set.  Used for Tian's lower bound ``H(X | T, W)`` (eq. 12): for a
    node ``T`` whose last tree position is ``l``, ``T ∪ W = T ∪ order[l+1:]``.
    """
    m = order.shape[0]
    N = cols.shape[1]
    out = np.zeros((m + 1, N), dtype=np.int64)
    Qs = np.ones(m + 1, dtype=np.int64)
    for i in range(m - 1, -1, -1):
        v = order[i]
        Qs[i] = extend_codes(out[i + 1], Qs[i + 1], cols[v], arities[v], out[i], limit, mapbuf)
        if Qs[i] > N:
            # keep suffix code spaces small so that T can be added on top cheaply
            raw = out[i].copy()
            if Qs[i] <= mapbuf.shape[0]:
                Qs[i] = compress_codes(out[i], Qs[i], mapbuf)
                _reset_map(raw, mapbuf)
            else:
                Qs[i] = compress_codes(out[i], Qs[i], mapbuf[:0])
    return out, Qs
