"""Comparisons between methods, above all of them (they import the methods, never the reverse).

* :mod:`lpbn.compare.crosscheck` – LP duality between the dual solver and HiGHS, agreement of
  exact methods, and which of those comparisons are independent (``lpbn check``);
* :mod:`lpbn.compare.gap` – the bound-gap table of Jaakkola et al. 2010, §7 (``lpbn gap``).
"""
