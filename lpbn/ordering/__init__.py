"""Ordering-based structure search for large caches: OBS and ASOBS over the CSR arrays.

OBS (Teyssier & Koller 2005) and ASOBS (Scanagatta et al. 2015, §4) with numba kernels that
work on the cache's CSR parent sets and a positions array (no m x W bitsets), so they scale to
10,000 variables and millions of candidates:

* :func:`ordering_search` — the anytime driver (iterated local search, restarts, budgets);
* :func:`obs_dag`, :func:`asobs_dag` — decode one ordering;
* ``lpbn.solve(cache, method="obs" | "asobs")`` — the :func:`lpbn.solve` methods
  (:mod:`lpbn.ordering.method`);
* :mod:`lpbn.ordering.quick` — the small bitset OBS that the exact methods (``bfbnb``,
  ``dual``, ``highs``, k-best) run for a first incumbent.
"""

import importlib

#: the package's names, imported on first use: the exact methods import only
#: :mod:`lpbn.ordering.quick`, and the package's other modules (their kernels' dispatchers,
#: ~20 ms of every ``lpbn solve`` that runs ``bfbnb``) are not theirs to pay for
_LAZY = {"asobs_dag": "asobs", "obs_dag": "obs", "OrderingResult": "search", "ordering_search": "search",
         "solve_asobs": "method", "solve_obs": "method", "trivial_bound": "method", "upper_bound": "method"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpbn.ordering' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = ["OrderingResult", "asobs_dag", "obs_dag", "ordering_search", "solve_asobs",
           "solve_obs", "trivial_bound", "upper_bound"]
