"""Open-addressing hash tables on integer keys of small variable sets (numba, arrays only).

Used by Tian's DFBnB (:mod:`.dfbnb`): a per-variable memo of evaluated sets (key = the
mixed-radix number of their tree positions, :func:`set_key`) and the **joint-table memo**
shared by all the children a process scores, which maps a variable set S (key over global
variable ids) to ``E(S) = sum_cfg n log n``, ``F(S)`` (its BDeu counterpart) and its number
of non-empty configurations, so ``LL(X|C) = E(C+X) - E(C)`` often costs no counting pass
(see :func:`lpbn.scoring.counting._finish`).  Keys are non-negative; -1 marks a free slot.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True)
def set_key(items, d, B):
    """``sum_i (items[i] + 1) B^i`` over the first ``d`` items."""
    key = 0
    mul = 1
    for i in range(d):
        key += (items[i] + 1) * mul
        mul *= B
    return key


@numba.njit(cache=True, inline="always")
def ht_slot(hk, key):
    """Open-addressing slot of ``key`` in the key array ``hk`` (power-of-two size, -1 = free)."""
    mask = hk.shape[0] - 1
    x = np.uint64(key)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    h = np.int64(x & np.uint64(mask))
    while True:
        k = hk[h]
        if k == key or k == -1:
            return h
        h = (h + 1) & mask


@numba.njit(cache=True, inline="always")
def ht_get(hk, key):
    """Slot of ``key`` or -1."""
    if hk.shape[0] < 2:
        return -1
    h = ht_slot(hk, key)
    return h if hk[h] == key else -1


@numba.njit(cache=True, inline="always")
def ht_put(hk, hstate, cap, key):
    """Slot for ``key`` (inserted if absent and the table holds fewer than ``cap``), or -1."""
    if hk.shape[0] < 2:
        return -1
    h = ht_slot(hk, key)
    if hk[h] == key:
        return h
    if hstate[0] >= cap:
        return -1
    hk[h] = key
    hstate[0] += 1
    return h


@numba.njit(cache=True, inline="always")
def ht_store(hk, hE, hF, hZ, hstate, cap, key, e, f, z):
    """Store the joint statistics ``(e, f, z)`` of ``key`` (dropped when the table is full)."""
    h = ht_put(hk, hstate, cap, key)
    if h >= 0:
        hE[h] = e
        hF[h] = f
        hZ[h] = z


def new_joint_table(n_sets: int, cap: int):
    """Arrays of the joint-table memo for about ``n_sets`` variable sets (at most ``cap``):
    ``(keys, E, F, cells, [entries], cap)``."""
    want = max(16, min(int(n_sets), int(cap)))
    size = 1 << int(math.ceil(math.log2(2 * want)))
    return (np.full(size, -1, dtype=np.int64), np.zeros(size), np.zeros(size),
            np.zeros(size, dtype=np.int64), np.zeros(1, dtype=np.int64), int(min(cap, size // 2)))


@numba.njit(cache=True)
def joint_keys(gv, n_in, x, JB):
    """Keys of the sorted set ``gv[:n_in]`` and of the same set plus ``x``."""
    keyC = set_key(gv, n_in, JB)
    keyCX = 0
    mul = 1
    placed = False
    for j in range(n_in):
        if not placed and x < gv[j]:
            keyCX += (x + 1) * mul
            mul *= JB
            placed = True
        keyCX += (gv[j] + 1) * mul
        mul *= JB
    if not placed:
        keyCX += (x + 1) * mul
    return keyC, keyCX
