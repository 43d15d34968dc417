"""The primal side of lpbn: the η LP and ILP in HiGHS, PuLP export, cross-checks and bound gaps.

* :mod:`lpbn.highs.lp_model` – the η LP of Jaakkola et al. 2010 (eq. 2 relaxed to eq. 7) in
  ``highspy``, with convexity rows and cluster rows (eq. 6) added incrementally;
* :mod:`lpbn.highs.separation` – cheap (support-graph cycles) and exact (Bartlett & Cussens
  2017 sub-IP) separation of cluster constraints, and exact separation of cycle inequalities
  (eq. 5);
* :mod:`lpbn.highs.ilp` – ``method="highs"``: root cuts, then solve–separate–resolve;
* :mod:`lpbn.highs.pulp_model` – model export (LP/MPS) and ``method="pulp-cbc"``;
* :mod:`lpbn.highs.crosscheck` – LP duality check against the dual solver and agreement of
  methods;
* :mod:`lpbn.highs.gap` – the bound-gap table of Jaakkola et al. 2010, §7.
"""
