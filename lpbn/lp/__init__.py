"""The η linear program of Jaakkola et al. 2010, shared by every LP-based method.

One model, several back ends (as in CVXPY): the LP is built here once and the methods
translate it — :mod:`lpbn.dual` solves its dual (eq. 8) by coordinate descent, :mod:`lpbn.highs`
hands it to HiGHS or CBC as an ILP.  Neither method package imports the other; both import this.

* :mod:`lpbn.lp.clusters` – cluster and k-cluster families and their rows (eq. 6; Cussens et
  al. 2017), one CSR builder for any k;
* :mod:`lpbn.lp.model` – :class:`~lpbn.lp.model.EtaLP`, the one HiGHS model of the η LP/ILP
  (eqs. 2, 5-7): the ``highs`` ILP, its certificate's LP branch and bound
  (:mod:`lpbn.highs.certify`), the k-best ILP and the dual's exact polish with its cut pool
  (:class:`lpbn.dual.polish.PolishLP`, an adaptor that keeps the model in step with the dual's
  state);
* :mod:`lpbn.lp.separation` – heuristic separation: support graph (eq. 3), cycles (eq. 5),
  greedy growth, k-clusters;
* :mod:`lpbn.lp.exact_separation` – exact cluster separation (enumeration, Bartlett & Cussens
  2017 sub-IP);
* :mod:`lpbn.lp.cut_loop` – the cutting-plane loop over an :class:`~lpbn.lp.model.EtaLP`;
* :mod:`lpbn.lp.highs_session` – every HiGHS instance is made by ``new_highs(threads)`` and run
  by ``run()``.
"""
