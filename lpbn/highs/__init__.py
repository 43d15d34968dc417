"""``method="highs"`` and ``method="pulp-cbc"``: the η ILP with cluster cuts, by HiGHS or CBC.

The LP itself (:mod:`lpbn.lp.model`), its cluster rows and their separation
(:mod:`lpbn.lp.clusters`, :mod:`lpbn.lp.separation`, :mod:`lpbn.lp.exact_separation`) and the
cutting-plane loop (:mod:`lpbn.lp.cut_loop`) live in :mod:`lpbn.lp`, shared with the dual
solver; this package only turns them into methods:

* :mod:`lpbn.highs.ilp` – ``method="highs"``: root cuts, then solve–separate–resolve;
* :mod:`lpbn.highs.pulp_model` – model export (LP/MPS) and ``method="pulp-cbc"``.

The cross-checks between methods (:mod:`lpbn.compare.crosscheck`) and the bound-gap table
(:mod:`lpbn.compare.gap`) compare this package with the dual and live above both.
"""
