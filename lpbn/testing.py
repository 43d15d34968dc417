"""Random score caches for property tests and benchmarks of the solvers.

Scores are drawn so that bigger parent sets usually score better per family (as real
BIC/BDeu caches look) while many candidates stay undominated; the empty set is always a
candidate, so every cache admits a DAG.
"""

from __future__ import annotations

import itertools

import numpy as np

from .cache import ScoreCache


def random_cache(n: int, *, seed: int | np.random.Generator = 0, max_parents: int = 3,
                 density: float = 0.5, integer_scores: bool = False) -> ScoreCache:
    """A random feasible cache on ``n`` variables.

    ``density`` is the probability that a non-empty parent set of size <= max_parents is a
    candidate.  ``integer_scores`` makes ties (hard cases for tie-breaking) likely.
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    names = [f"X{i}" for i in range(n)]
    families = []
    for i in range(n):
        others = [v for v in range(n) if v != i]
        base = -rng.uniform(50, 150)
        fam = [(round(base) if integer_scores else base, ())]
        for k in range(1, min(max_parents, n - 1) + 1):
            for ps in itertools.combinations(others, k):
                if rng.random() < density:
                    gain = rng.normal(3.0 * k, 8.0) - 2.0 * k
                    s = base + gain
                    fam.append((float(round(s)) if integer_scores else float(s), ps))
        families.append(fam)
    return ScoreCache.from_families(names, families, meta={"generator": "lpbn.testing.random_cache"})
