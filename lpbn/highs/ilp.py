"""``method="highs"``: exact learning as an ILP over η with cluster cuts, solved by HiGHS.

The ILP is eq. 2 of Jaakkola et al. (2010) with the polytope P written as integral η in
P_cluster (eq. 6 for every cluster), which is exact for integral η (Cussens 2011;
Bartlett & Cussens 2017).  HiGHS has no lazy-constraint callback that we can rely on, so:

1. root: the LP cutting-plane loop of :func:`lpbn.lp.cut_loop.cut_loop` (cheap
   cycles and greedy growth first, then exact separation: subset branch and bound, the
   Bartlett–Cussens sub-IP as fallback) — its value is the first bound; then k-cluster
   rows (Cussens et al. 2017) and a start DAG from ordering search;
2. solve the MIP over the current rows; its dual bound is a valid upper bound;
3. if the incumbent has a directed cycle, add the clusters it violates (its strongly
   connected components and cycles) and re-solve; an acyclic optimal incumbent is optimal.

With ``acyclicity="generation"`` (the default) the MIP also carries the generation-number
rows of :meth:`lpbn.lp.model.EtaLP.add_generation_rows`, so HiGHS itself rejects
cyclic points and the first MIP is already exact: step 3 never restarts, and HiGHS keeps
its search tree, cut pool and incumbents in one solve.  The cluster rows found at the root
still give the LP its strength.  ``acyclicity="lazy"`` is the pure solve–separate–resolve
loop (clusters only; every cyclic incumbent restarts the MIP).

A DAG decoded from every LP/MIP point (ordering heuristic, cf. Jaakkola et al. 2010 §5.2)
keeps a feasible answer available at every moment, so a time limit returns best + bound.
"""

from __future__ import annotations

import math
import time

import highspy
import numpy as np

from ..bound import mip_margin, with_fixed
from ..cache import ScoreCache
from ..errors import InputError
from ..incumbent import Incumbent, choice_is_acyclic
from ..lp import numpy_kernels
from ..lp.cut_loop import add_kclusters, cut_loop
from ..lp.highs_session import new_highs
from ..lp.model import EtaLP, choice_from_eta, is_integral
from ..lp.numpy_kernels import can_use_numpy, numpy_lp, use_numpy
from ..lp.separation import incumbent_clusters
from ..result import ERROR, MEMORY_LIMIT, OPTIMAL, SolveResult
from ..support_ilp import support_ilp
from .options import HighsOptions
from ..tuning import (ROOT_MAX_PRICING, ZERO_HALF_SLACK_MIN_N, COLUMN_GENERATION_ABOVE,
                      HIGHS_SUPPORT_MIP_SECONDS as SUPPORT_MIP_SECONDS,
                      HIGHS_SUPPORT_MIP_SHARE as SUPPORT_MIP_SHARE, PURGE_EVERY, PURGE_CLUSTERS_EVERY,
                      PURGE_CLUSTERS_MIN_DENSITY, ROOT_STALL)

#: reduced-cost fixing keeps a candidate unless its bound is below the incumbent's score by
#: more than this (relative): room for the rounding in the duals' sums, in the safe direction
FIX_RTOL = 1e-7


# ---------------------------------------------------------------------- decoding
def decode_choice(cache: ScoreCache, eta: np.ndarray) -> np.ndarray | None:
    """A DAG (candidate per variable) decoded from a fractional or cyclic η; None if none fits."""
    eta = np.asarray(eta, dtype=np.float64)
    if use_numpy(cache.n):
        order = numpy_kernels.mass_order(cache.masks, cache.family, eta, cache.n)
    else:
        from .kernels import mass_order
        order = mass_order(cache.bits, cache.offsets, eta, cache.n)
    choice, total = cache.best_for_order(order)
    return choice if math.isfinite(total) else None


def _kcluster_rounds(model: EtaLP, k_max: int, control, exact: bool, subip_time, on_lp,
                     zero_half: bool, max_rounds: int = 10) -> int:
    """Alternate k-cluster separation (over the model's clusters, and by greedy growth on
    the k-activity) with the cluster loop."""
    added = 0
    for _ in range(max_rounds):
        if control.should_stop():
            break
        lp = model.solve_lp(control.remaining())
        if lp.status != "optimal":
            break
        on_lp(lp.upper, lp.eta)
        new = add_kclusters(model, lp.eta, k_max)
        if not new:
            break
        added += new
        cut_loop(model, mode="clusters", exact=exact, time_limit=control.remaining(),
                 subip_time=subip_time, on_bound=on_lp, zero_half=zero_half)
    return added


def _after_root(model: EtaLP, control, stats: dict, incumbent: Incumbent, search: bool,
                support_mip: bool = False) -> None:
    """Between the root cut loop and the MIP: drop the {0, 1/2}-cuts slack at the root's last
    LP point (they cost in every node's LP), and, with ``search``, climb from the order of that
    point by ordering search (the root LP knows more than the greedy start: hailfinder at
    N = 20,000, whose MIP otherwise spends a minute on an incumbent 0.018% from the optimum),
    and with ``support_mip`` solve the ILP over that point's support (:func:`_support_mip`)."""
    offer = incumbent.offer
    if control.should_stop():
        return
    lp = model.solve_lp(control.remaining())
    if lp.status != "optimal":
        return
    stats["cuts_purged"] = model.purge_cuts(lp.eta)
    if search:
        from ..ordering.quick import quick_ordering_search
        from .kernels import mass_order
        cache = model.cache
        start = mass_order(cache.bits, cache.offsets, np.asarray(lp.eta, dtype=np.float64), cache.n)
        order, _ = quick_ordering_search(cache, start=start, time_limit=min(2.0, 0.05 * control.remaining()),
                                         max_restarts=100)
        offer(cache.best_for_order(order)[0])
    if support_mip:
        _support_mip(model.cache, control, lp.eta, incumbent, stats)


def _support_mip(cache: ScoreCache, control, eta: np.ndarray, incumbent: Incumbent, stats: dict) -> None:
    """A primal heuristic before the MIP: :func:`lpbn.support_ilp.support_ilp` over the root's
    last LP point ``eta`` within :data:`SUPPORT_MIP_SECONDS` (and :data:`SUPPORT_MIP_SHARE` of
    the time left); its DAG is offered to ``incumbent``.  The root LP is close to the optimum
    where the MIP is what is left to do, and its support is small (hailfinder at N = 20,000:
    230 of 6,179 candidates): there the sub-ILP proves its own optimum in about 2 s and that
    DAG was the cache's optimum, where the ordering climb left the MIP an incumbent 0.025%
    below it, on which HiGHS's MIP spent 84 nodes and 45 s (with the optimum as start: one
    node, more candidates fixed by their reduced costs; results/bnlearn20000/README.md)."""
    budget = min(SUPPORT_MIP_SECONDS, SUPPORT_MIP_SHARE * control.remaining())
    if control.should_stop() or control.closed() or budget <= 0.0:
        return
    choice, st = support_ilp(cache, eta, incumbent.choice, budget, watch=control.should_stop, ilp=solve_highs)
    stats.update({"support_mip_" + k: v for k, v in st.items()})
    if choice is not None:
        incumbent.offer(choice)


def _branch_and_price(model: EtaLP, control, incumbent: Incumbent, stats: dict, take_feed,
                      fix_columns: bool, cut_options: dict) -> tuple[str, str]:
    """After the root: reduced-cost fixing (the fixed candidates are in no DAG above the
    incumbent, so they leave every node), then :func:`lpbn.highs.branch_price.branch_and_price`
    from the root LP's bound; (status, message) for ``finish``."""
    from .branch_price import branch_and_price
    stop = control.should_stop()
    if stop:
        return stop, ""
    if fix_columns:
        take_feed()
        keep, floor = _fix_by_reduced_cost(model, control, incumbent.score, stats)
        if keep is not None:
            model.restrict(keep)
    else:
        floor = -math.inf
    lp = model.solve_lp(control.remaining())
    if lp.status != "optimal":
        known = lp.status if lp.status in ("time_limit", "memory_limit", "interrupted") else ERROR
        return (control.should_stop() or known,
                f"HiGHS did not solve the root LP again (status {lp.status!r}); the best DAG and bound so far")
    # over the candidates left by the fixing; a fixed one is in no DAG above ``floor``
    control.improved(bound=with_fixed(lp.upper, floor))

    def offer_lp(eta) -> None:
        take_feed()
        incumbent.offer(decode_choice(model.cache, eta))

    status = branch_and_price(model, control, incumbent, bound=lp.upper, offer_lp=offer_lp,
                              cut_options=cut_options, stats=stats)
    if status == "interrupted" and not control.should_stop():
        return status, "the branch and price left a node it could not split; the best DAG and bound so far"
    return status, ""


def _choice_of(cache: ScoreCache, dag) -> np.ndarray | None:
    """The candidate per variable of a DAG (an :class:`lpbn.DAG` or parents per variable);
    None unless it has one parent set per variable and each is a candidate."""
    parents = getattr(dag, "parents", dag)
    if len(parents) != cache.n:
        return None
    choice = cache.indices_of(parents)          # -1 where a set is not a candidate
    return None if np.any(choice < 0) else choice.astype(np.int64)


def _fix_by_reduced_cost(model: EtaLP, control, best: float, stats: dict) -> tuple[np.ndarray | None, float]:
    """Reduced-cost fixing over every candidate before the MIP: the candidates whose
    Lagrangian bound at the root LP's duals (:meth:`EtaLP.column_bounds`) is below the
    incumbent's score ``best`` are in no better DAG, so the MIP runs without them (HiGHS's own
    fixing sees only its model's columns, and starts from its own root LP).  Returns the mask
    of candidates to keep and the score below which the fixed ones lie (the MIP's bound over
    the rest is a bound on the cache's optimum once raised to it), or ``(None, -inf)``.
    hailfinder at N = 20,000 (6,179 candidates, root gap 0.02%): 4,393 fixed, the MIP 11.5 -> 8.7 s;
    munin-5000 (177,691, gap 0.056%): 40,190 fixed, too few for its MIP (results/large/README.md)."""
    if not math.isfinite(best) or control.should_stop():
        return None, -math.inf
    lp = model.solve_lp(control.remaining())
    if lp.status != "optimal" or lp.row_dual is None:
        return None, -math.inf
    _, bounds = model.column_bounds(lp.row_dual)
    control.improved(bound=lp.upper)                # eq. 8 at these duals, with its rounding
    keep = model.allowed & (bounds >= best - FIX_RTOL * max(1.0, abs(best)))
    stats["fixed_by_reduced_cost"] = int(model.allowed.sum() - keep.sum())
    return keep, best


def _lp_certificate(model: EtaLP, threads: int, candidates: str) -> dict:
    """Row duals of the LP over the model's cluster and k-cluster rows (a fresh LP: the MIP
    model also holds generation and cycle rows, whose duals eq. 8 has no place for) and the
    eq. 8 bound they give, evaluated here with the LP's own rows."""
    from ..lp.clusters import cluster_rows_csr
    cache = model.cache
    kc = sorted(model.kclusters)
    kbits = np.array([np.frombuffer(b, dtype=np.uint64) for b, _ in kc], dtype=np.uint64).reshape(-1, cache.words)
    kk = np.array([k for _, k in kc], dtype=np.int64)
    bits = np.vstack([model.clusters.bits, kbits])
    ks = np.concatenate([np.ones(len(model.clusters), dtype=np.int64), kk])
    lp = EtaLP(cache, model.clusters, threads=threads, column_upper=highspy.kHighsInf)
    if len(kc):
        lp.add_kclusters(kbits, kk)
    sol = lp.solve_lp()
    if sol.status != "optimal":
        lam = np.zeros(len(bits))
    else:
        duals = np.asarray(lp.h.getSolution().row_dual, dtype=np.float64)[cache.n:cache.n + len(bits)]
        lam = np.maximum(0.0, -duals)     # maximisation: a >= row's dual is <= 0
    ptr, idx = cluster_rows_csr(cache, bits, ks) if len(bits) else (np.zeros(1, np.int64), np.zeros(0, np.int64))
    adj = np.zeros(cache.m)
    np.add.at(adj, idx, np.repeat(lam, np.diff(ptr)))
    best = np.maximum.reduceat(cache.scores + adj, cache.offsets[:-1])
    bound = float(math.fsum(best.tolist()) - math.fsum((ks * lam).tolist()))
    return {"clusters": bits, "k": ks, "lambda": lam, "bound": bound, "lp_value": sol.value,
            "candidates": candidates}


def _attach_certificate(result: SolveResult, model: EtaLP, threads: int, candidates: str,
                        time_limit: float | None) -> None:
    """The root LP's certificate, and a recorded LP branch and bound when that does not
    prove ``result.upper_bound`` (see :mod:`lpbn.highs.certify`)."""
    from .certify import CLOSE_RTOL, certify_tree
    lp = _lp_certificate(model, threads, candidates)
    result.extra["certificate_lp"] = lp
    target = float(result.upper_bound)
    if not math.isfinite(target) or lp["bound"] <= target + CLOSE_RTOL * max(1.0, abs(target)):
        return
    proof = certify_tree(model.cache, lp["clusters"], lp["k"], target, time_limit=time_limit,
                         threads=threads, candidates=candidates)
    tree = proof.tree
    if not proof.complete:
        tree.update(covers="partial", bound=max(proof.bound, target))
    result.extra["certificate_tree"] = tree
    result.stats.update(proof.stats, certificate_seconds=round(proof.seconds, 3),
                        certificate_complete=proof.complete)


def _check_highs_options(options: dict) -> None:
    """Reject unknown or ill-typed HiGHS options before any work (one-line InputError)."""
    probe = new_highs()
    for key, value in options.items():
        try:
            ok = probe.setOptionValue(str(key), value) == highspy.HighsStatus.kOk
        except Exception:  # pybind11 rejects values of a foreign type
            ok = False
        if not ok:
            raise InputError(f"method 'highs': bad HiGHS option {key}={value!r}")


# ---------------------------------------------------------------------- the method
def solve_highs(cache: ScoreCache, control, **options) -> SolveResult:
    """Exact structure learning with HiGHS: root cluster cuts, then solve–separate–resolve.

    ``options`` are the fields of :class:`lpbn.highs.options.HighsOptions`, each documented
    there (``lpbn.show_options("highs")``); they are checked and built once, here.  The LP
    helpers' numpy twins run when ``numba=False`` asks for them (an explicit choice, never the
    process's import state: issue 54).
    """
    opts = HighsOptions.build(options, "highs")
    with numpy_lp(not opts.numba and can_use_numpy(cache.n)):
        return _solve_highs(cache, control, opts)


def _solve_highs(cache: ScoreCache, control, opts: HighsOptions) -> SolveResult:
    """The body of :func:`solve_highs` (which chooses the LP helpers' implementation): first
    incumbents, the root's cutting planes, then branch and price or the MIP rounds
    (:class:`_HighsRun`)."""
    if opts.numba:
        import numba as _numba  # noqa: F401  (loaded: the LP helpers take the kernels)
    _check_highs_options(opts.highs_options or {})
    run = _HighsRun(cache, control, opts)
    run.first_incumbents()
    done = run.root()
    if done is not None:
        return done
    if run.tree == "price" and opts.root_cuts:
        return run.branch_and_price()
    return run.mip_rounds()


class _HighsRun:
    """One ``method="highs"`` solve: the η model, the incumbent and the stats."""

    def __init__(self, cache: ScoreCache, control, opts: HighsOptions):
        self.o, self.control, self.given = opts, control, cache
        self.zero_half = opts.zero_half
        if self.zero_half is None:
            self.zero_half = "slack" if cache.n > ZERO_HALF_SLACK_MIN_N else True
        if opts.prune:
            cache = cache.prune_dominated()
        self.cache = cache
        column_generation = opts.column_generation
        if column_generation is None:
            column_generation = opts.numba and cache.m > COLUMN_GENERATION_ABOVE * cache.n
        elif column_generation and not opts.numba:
            raise InputError("method 'highs': column_generation needs numba=True (its pricing is a kernel)")
        self.dense = bool(column_generation) and cache.m >= PURGE_CLUSTERS_MIN_DENSITY * cache.n   # a dense priced root
        self.tree = opts.tree
        if self.tree is None:
            self.tree = "price" if self.dense and cache.n > ZERO_HALF_SLACK_MIN_N else "mip"
        self.model = EtaLP(cache, threads=opts.threads, log=opts.log, price=bool(column_generation),
                           columns=EtaLP.start_columns(cache) if column_generation else None)
        self.incumbent = Incumbent(cache, lambda score: control.improved(best=score), check_acyclic=True)
        self.offer = self.incumbent.offer
        self.stats = {"lp_rounds": 0, "mip_rounds": 0, "cuts_root_cheap": 0, "cuts_root_exact": 0,
                      "cuts_incumbent": 0, "root_bound": None, "root_complete": False, "mip_nodes": 0}
        self.floor = -math.inf     # the fixed candidates are in no DAG scoring above this

    def take_feed(self) -> None:
        feed = self.o.incumbent_feed
        fed = feed() if feed is not None else None
        if fed is not None:
            # -1 where pruning dropped the set (a dominated set; offer refuses the DAG)
            cache, given = self.cache, self.given
            self.offer(fed if cache is given else cache.indices_of([given.parents(int(j)) for j in fed]))

    def on_lp(self, value, eta) -> None:
        self.control.improved(bound=value)
        self.take_feed()
        self.offer(decode_choice(self.cache, eta))

    def finish(self, status: str, message: str = "") -> SolveResult:
        model, o, stats = self.model, self.o, self.stats
        stats["clusters"] = len(model.clusters)
        if model.price:                      # a return from inside the restricted root
            stats.update(lp_columns=model.num_cols, lp_columns_priced=model.priced)
        extra = {"clusters": model.clusters.copy()}
        result = self.incumbent.result(self.control, status, "highs", stats, message, extra=extra)
        if o.certificate:
            _attach_certificate(result, model, o.threads, "non-dominated" if o.prune else "all",
                                o.certificate_time if o.certificate_time is not None else self.control.time_limit)
        return result

    def first_incumbents(self) -> None:
        """The empty-ordering DAG, a given start and (``start_search``) a short OBS."""
        cache, offer = self.cache, self.offer
        offer(cache.best_for_order(np.arange(cache.n))[0])
        if self.o.start is not None:
            offer(_choice_of(cache, self.o.start))
        if self.o.start_search and not use_numpy(cache.n):
            # before the cut loop, which can run for minutes on a few hundred variables with only
            # LP roundings as incumbents (munin1-5000: 1.1% below the optimum at 60 s)
            from ..ordering.quick import quick_ordering_search
            order, _ = quick_ordering_search(cache, time_limit=min(2.0, 0.05 * self.control.remaining()),
                                             max_restarts=100)
            offer(cache.best_for_order(order)[0])

    def root(self) -> SolveResult | None:
        """The root's cutting planes (``root_cuts``); a result when the root LP is integral and
        closes the gap."""
        o, model, control, stats, cache = self.o, self.model, self.control, self.stats, self.cache
        zero_half, dense = self.zero_half, self.dense
        if o.root_cuts:
            root = cut_loop(model, mode="clusters", exact=o.exact_root, time_limit=control.remaining(),
                            subip_time=o.subip_time, on_bound=self.on_lp, zero_half=zero_half,
                            k_max=o.k_max, best=lambda: self.incumbent.score, local=o.local_cuts,
                            purge_every=PURGE_EVERY if zero_half == "slack" else 0,
                            purge_clusters=PURGE_CLUSTERS_EVERY if dense else 0,
                            max_pricing=ROOT_MAX_PRICING if dense else None,
                            stall=ROOT_STALL if self.tree == "price" else None)
            stats.update(lp_rounds=root.rounds, cuts_root_cheap=root.cuts_cheap, cuts_root_kcluster=root.cuts_kcluster,
                         cuts_root_exact=root.cuts_exact, cuts_root_zero_half=root.cuts_zero_half,
                         clusters_root_purged=root.clusters_purged,
                         root_bound=root.value, root_seconds=round(root.seconds, 3), cuts_root_purged=root.cuts_purged,
                         cuts_root_local=root.cuts_local, local_seconds=round(root.local_seconds, 3),
                         root_complete=root.complete, root_stalled=root.stalled, subip_solves=root.subip.solves,
                         subip_seconds=round(root.subip.seconds, 3))
            eta = root.eta
            if eta is not None and is_integral(eta):
                choice = choice_from_eta(cache, eta)
                if choice_is_acyclic(cache, choice):
                    self.offer(choice)
                    if control.closed():
                        return self.finish(OPTIMAL, "root LP integral")
            if o.k_max >= 2 and root.status == "optimal" and self.tree == "mip":   # the nodes separate them too
                stats["kcluster_rows"] = _kcluster_rounds(model, o.k_max, control, o.exact_root,
                                                          o.subip_time, self.on_lp, zero_half)
        if o.root_cuts and zero_half == "slack":
            _after_root(model, control, stats, self.incumbent, search=o.start_search and not use_numpy(cache.n),
                        support_mip=o.support_mip and not use_numpy(cache.n))
        if model.price:
            stats.update(lp_columns=model.num_cols, lp_columns_priced=model.priced)
        return None

    def branch_and_price(self) -> SolveResult:
        o, zero_half = self.o, self.zero_half
        return self.finish(*_branch_and_price(
            self.model, self.control, self.incumbent, self.stats, self.take_feed, o.fix_columns,
            dict(subip_time=o.subip_time, zero_half=zero_half, k_max=o.k_max, local=o.local_cuts,
                 purge_every=PURGE_EVERY if zero_half == "slack" else 0,
                 purge_clusters=PURGE_CLUSTERS_EVERY if self.dense else 0)))

    def mip_model(self, root: EtaLP) -> EtaLP:
        """The model the MIP runs on: every column (after a restricted root) but those fixed
        by their reduced costs at the root's duals, generation rows."""
        o = self.o
        keep = None
        if o.root_cuts and o.fix_columns:
            self.take_feed()                  # the better the incumbent, the more columns fixed
            keep, self.floor = _fix_by_reduced_cost(root, self.control, self.incumbent.score, self.stats)
        root.restore_purged()            # after the fixing, which reads the root LP's duals
        model = root.full_model()
        if keep is not None:
            model.restrict(keep)
        if o.acyclicity == "generation":
            self.stats["generation_rows"] = model.add_generation_rows()
        if not o.mip_heuristics:
            model.mip_options.update(mip_heuristic_effort=0.0, mip_heuristic_run_rins=False,
                                     mip_heuristic_run_rens=False,
                                     mip_heuristic_run_feasibility_jump=False,
                                     mip_heuristic_run_root_reduced_cost=False)
        model.mip_options.update(o.highs_options or {})
        return model

    def check(self, choice) -> bool:
        """HiGHS's lazy check of a MIP solution: acyclic ones become incumbents."""
        if choice_is_acyclic(self.cache, choice):
            self.offer(choice)
            return True
        return False

    def mip_rounds(self) -> SolveResult:
        """Solve the MIP, cut the cyclic solutions' clusters, again, until closed or a limit."""
        control, stats, o = self.control, self.stats, self.o
        mip_ready = False
        while True:
            if control.closed():
                return self.finish(OPTIMAL)
            stop = control.should_stop()
            if stop:
                return self.finish(stop)
            if o.max_mip_rounds is not None and stats["mip_rounds"] >= o.max_mip_rounds:
                return self.finish("node_limit")
            if not mip_ready:                    # only when the MIP runs: a stop above skips it
                self.model, mip_ready = self.mip_model(self.model), True
            done = self.mip_round()
            if done is not None:
                return done

    def mip_round(self) -> SolveResult | None:
        """One MIP solve and its cuts; a result when the solve ends."""
        control, stats, o, model, cache, offer = self.control, self.stats, self.o, self.model, self.cache, self.offer
        self.take_feed()
        t_mip = time.perf_counter()
        sol = model.solve_mip(control.remaining(), start=self.incumbent.choice,
                              check=self.check if o.lazy else None)
        stats["mip_rounds"] += 1
        stats["mip_nodes"] += sol.nodes
        stats["mip_seconds"] = round(stats.get("mip_seconds", 0.0) + time.perf_counter() - t_mip, 3)
        if model.mip_retries:
            stats["mip_presolve_retries"] = model.mip_retries
        if sol.status == "inconsistent":
            return self.finish(ERROR, "HiGHS reported an optimal MIP whose objective its own solution "
                               "does not have, with presolve and without; the best DAG and bound so far")
        margin = mip_margin(cache.n)    # HiGHS's dual bound: no duals to recompute it from
        if math.isfinite(sol.bound):     # over the unfixed columns; a fixed one is in no DAG above floor
            control.improved(bound=with_fixed(sol.bound + margin, self.floor), margin=margin)
        cyclic = list(sol.rejected or [])
        if sol.choice is not None:
            if choice_is_acyclic(cache, sol.choice):
                offer(sol.choice)
                if sol.status == "optimal":
                    if control.closed():
                        return self.finish(OPTIMAL)
                    # HiGHS stopped within a gap of its own (a user's mip_rel_gap, say)
                    return self.finish("gap_limit", "HiGHS's MIP stopped with a gap above lpbn's "
                                       "optimality tolerance; the best DAG and bound so far")
            else:
                cyclic.append(sol.choice)
        if not cyclic:
            return self.no_cut(sol)
        added = 0
        for choice in cyclic:
            cuts = incumbent_clusters(cache, choice)
            added += model.add_clusters(np.array(cuts)) if cuts else 0
            x = np.zeros(cache.m)
            x[choice] = 1.0
            offer(decode_choice(cache, x))
        stats["cuts_incumbent"] += added
        stats["lazy_restarts"] = stats.get("lazy_restarts", 0) + (1 if sol.rejected else 0)
        if not added:
            return self.finish(ERROR, "a cyclic incumbent violates no new cluster (numerical trouble)")
        if o.recut and o.root_cuts:
            # re-tighten the LP with the new rows before the next MIP (cheap LP rounds)
            again = cut_loop(model, mode="clusters", exact=o.exact_root, time_limit=control.remaining(),
                             subip_time=o.subip_time, on_bound=self.on_lp, zero_half=self.zero_half)
            stats["lp_rounds"] += again.rounds
            stats["cuts_recut"] = stats.get("cuts_recut", 0) + again.cuts_cheap + again.cuts_exact
        return None

    def no_cut(self, sol) -> SolveResult | None:
        """A MIP solve without a cyclic solution to cut: a limit (None: the loop head reports
        it) or the status that ends the solve."""
        if sol.status == "infeasible":  # cannot happen for a feasible cache
            return self.finish("infeasible", "HiGHS reports the ILP infeasible")
        if sol.status in ("time_limit", "interrupted") or self.control.should_stop():
            return None  # the loop head reports the limit
        if sol.status == "memory_limit":  # munin-5000's MIP: 177,691 columns, 174,642 generation rows
            return self.finish(MEMORY_LIMIT, "HiGHS ran out of memory in the MIP; the best DAG and the "
                               "root LP's bound so far")
        return self.finish(ERROR, f"HiGHS's MIP ended with status {sol.status!r}, which lpbn does not "
                           "expect; the best DAG and bound so far")


solve_highs.options_class = HighsOptions
