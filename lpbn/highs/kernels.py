"""numba kernels of the HiGHS ILP method (:mod:`lpbn.highs.ilp`), imported on first use
(small caches in a process without numba use :func:`lpbn.lp.numpy_kernels.mass_order`)."""

from __future__ import annotations

import numba
import numpy as np

from .. import bitsets as bs


@numba.njit(cache=True)
def mass_order(bits, offsets, eta, n):
    """Greedy order: next the variable with most η mass on parent sets inside the placed set."""
    W = bits.shape[1]
    placed = np.zeros(W, dtype=np.uint64)
    done = np.zeros(n, dtype=np.bool_)
    order = np.empty(n, dtype=np.int64)
    for step in range(n):
        best_i = -1
        best_v = -1.0
        for i in range(n):
            if done[i]:
                continue
            mass = 0.0
            for j in range(offsets[i], offsets[i + 1]):
                if eta[j] > 0.0 and bs.is_subset(bits, j, placed):
                    mass += eta[j]
            if mass > best_v + 1e-12:
                best_v = mass
                best_i = i
        order[step] = best_i
        done[best_i] = True
        placed[best_i >> 6] |= np.uint64(1) << np.uint64(best_i & 63)
    return order
