"""Jaakkola et al. (2010) LP relaxation with cluster constraints, solved in the dual.

``lpbn.dual.solver.solve_dual`` is registered as ``method="dual"``; ``root_relaxation``
exposes the root LP (used by the HiGHS cross-check).  The modules:

* :mod:`~lpbn.dual.solver` — the entry points (:func:`solve_dual`, :func:`root_relaxation`);
* :mod:`~lpbn.dual.options` — :class:`DualOptions`, every option with its default and doc;
* :mod:`~lpbn.dual.bnb` — :class:`BranchAndBound`, the best-first search on the dual bound (§6);
* :mod:`~lpbn.dual.branching` — its nodes and branching rules;
* :mod:`~lpbn.dual.relax` — one node's relaxation: CD, subgradient steps, separation (§5);
* :mod:`~lpbn.dual.state`, :mod:`~lpbn.dual.kernels` — the dual (eq. 8) and its numba kernels;
* :mod:`~lpbn.dual.polish` — the exact LP polish (HiGHS, option ``lp_polish``);
* :mod:`~lpbn.dual.incumbent` — the ordering-based incumbent search (option ``local_search``).
"""
