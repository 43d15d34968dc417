"""Brute-force enumeration of every DAG the cache allows (``method="brute"``), for tests only.

Enumerates all combinations of one candidate parent set per variable (an odometer over the
candidate lists, in numba) and keeps the best acyclic one.  Independent of every search
recurrence, so it is the oracle for the oracles.  Refuses above 8 variables or 5e7 combinations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from .cache import ScoreCache
from .errors import ResourceLimitError
from .options import MethodOptions
from .result import DAG, OPTIMAL, SolveResult
from .control import SolveControl

MAX_N = 8
MAX_COMBINATIONS = 5 * 10**7


@dataclass(frozen=True)
class BruteOptions(MethodOptions):
    """``method="brute"`` (tests only) takes no options; declared so that every method is
    checked and listed the same way (issue 55)."""


def solve_brute(cache: ScoreCache, control: SolveControl, **options) -> SolveResult:
    BruteOptions.build(options, "brute")
    counts = cache.counts()
    combos = math.prod(int(c) for c in counts)
    if cache.n > MAX_N or combos > MAX_COMBINATIONS:
        raise ResourceLimitError(f"method 'brute' is for tests: n={cache.n} with {combos} "
                                 f"combinations exceeds n<={MAX_N} / {MAX_COMBINATIONS:.0e}")
    best_choice, best = _enumerate(cache.masks, cache.scores, cache.offsets)
    parents = [cache.parents(int(j)) for j in best_choice]
    score = cache.dag_score(parents)
    # the enumeration's maximum is the bound (every DAG was scored), the DAG's own sum its score
    control.improved(best=score, bound=float(best))
    return SolveResult(DAG(cache.names, parents), score, float(best), OPTIMAL, "brute",
                       stats={"combinations": combos})


@numba.njit(cache=True)
def _acyclic(chosen_masks, n):
    placed = np.uint64(0)
    for _ in range(n):
        progress = False
        for i in range(n):
            bit = np.uint64(1) << np.uint64(i)
            if (placed & bit) == 0 and (chosen_masks[i] & ~placed) == 0:
                placed |= bit
                progress = True
        if not progress:
            break
    return placed == (np.uint64(1) << np.uint64(n)) - np.uint64(1)


@numba.njit(cache=True)
def _enumerate(masks, scores, offsets):
    n = offsets.shape[0] - 1
    pos = offsets[:-1].copy()
    chosen = np.empty(n, dtype=np.uint64)
    best = -np.inf
    best_choice = pos.copy()
    while True:
        total = 0.0
        for i in range(n):
            chosen[i] = masks[pos[i]]
            total += scores[pos[i]]
        if total > best and _acyclic(chosen, n):
            best = total
            best_choice[:] = pos
        k = 0
        while k < n:
            pos[k] += 1
            if pos[k] < offsets[k + 1]:
                break
            pos[k] = offsets[k]
            k += 1
        if k == n:
            break
    return best_choice, best


solve_brute.options_class = BruteOptions
