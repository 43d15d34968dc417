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

from .asobs import asobs_dag
from .method import solve_asobs, solve_obs, trivial_bound, upper_bound
from .obs import obs_dag
from .search import OrderingResult, ordering_search

__all__ = ["OrderingResult", "asobs_dag", "obs_dag", "ordering_search", "solve_asobs",
           "solve_obs", "trivial_bound", "upper_bound"]
