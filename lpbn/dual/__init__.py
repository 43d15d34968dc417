"""Jaakkola et al. (2010) LP relaxation with cluster constraints, solved in the dual.

``lpbn.dual.solver.solve_dual`` is registered as ``method="dual"``; ``root_relaxation``
exposes the root LP (used by the HiGHS cross-check).
"""
