"""The options of ``method="highs"`` (:func:`lpbn.highs.ilp.solve_highs`), declared once.

Each field is one option with its default, its doc and its rule (:func:`lpbn.options.opt`);
:func:`lpbn.show_options` and ``lpbn solve --method highs --help-options`` list them, and
:meth:`~lpbn.options.MethodOptions.build` checks them before the ILP starts (issue 55).  The
method is the family-variable ILP with cluster inequalities (Jaakkola et al. 2010, eq. 6) and
k-cluster rows (Cussens et al., JAIR 2017); the docs name the modules that implement each part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..lp.local_cuts import SIZES
from ..options import (ANY, BOOL, MEMORY, NONNEG, NONNEG_INT, THREADS, MethodOptions, Rule, choices,
                       either, opt)

DICT = Rule(lambda v: isinstance(v, dict), "a dict of HiGHS options")
CALLABLE = Rule(callable, "a function")


@dataclass(frozen=True)
class HighsOptions(MethodOptions):
    """Options of the HiGHS cluster-cut ILP (``lpbn.solve(cache, method="highs", **options)``).
    ``None`` defaults are resolved per cache by the method (see each option)."""

    root_cuts: bool = opt(True, (
        "Run the LP cutting-plane loop before the first MIP (default True)."))
    exact_root: bool = opt(True, (
        "Use the exact sub-IP in the root loop (else cheap cycle clusters only)."))
    prune: bool = opt(True, (
        "Drop dominated candidates first (:meth:`ScoreCache.prune_dominated`; safe for the "
        "optimum, and the returned DAG's parent sets and scores are the cache's own)."))
    lazy: bool = opt(True, (
        "Interrupt a MIP solve as soon as HiGHS finds a cyclic improving solution, add the "
        "clusters it violates and re-solve (lazy constraints by restart; default True). "
        "Without it every MIP is solved to optimality before its incumbent is checked."))
    recut: bool = opt(True, (
        "After adding an incumbent's clusters, run the LP cut loop again before the next MIP."))
    subip_time: float | None = opt(30.0, (
        "Seconds per exact-separation sub-IP call (a call that runs out ends that cut loop; "
        "the MIP loop keeps the method exact)."), NONNEG)
    threads: int = opt(1, (
        "HiGHS threads.  With ``threads=2`` and ``highs_options={\"parallel\": \"on\"}`` "
        "HiGHS's MIP runs two workers: faster on some caches, slower on others (hailfinder at "
        "N = 20,000: its MIP 33.8 -> 25.2 s on one draw of the scores' last bits; over eight "
        "draws, a race that gave the MIP the dual's core was slower in median; "
        "results/bnlearn20000/README.md)."), THREADS)
    log: bool = opt(False, (
        "Print HiGHS's own log (LP and MIP solves) to stdout."))
    max_mip_rounds: int | None = opt(None, (
        "Stop after this many MIP solves (status ``node_limit``)."), NONNEG_INT)
    memory_limit: int | str | None = opt(None, (
        "Accepted for interface compatibility; HiGHS's memory is not limited."), MEMORY)
    acyclicity: str = opt('generation', (
        "How the MIP excludes directed cycles: generation-number rows in the MIP (exact in "
        "one solve; default) or only cluster rows added lazily by restart."), choices("generation", "lazy"))
    k_max: int = opt(3, (
        "After the root loop, add violated k-cluster rows (2 <= k <= k_max), over the root's "
        "clusters and by greedy growth on the k-activity, alternating with the cluster loop "
        "(Cussens et al., JAIR 2017); 1 disables."))
    start_search: bool = opt(True, (
        "Before the root cut loop, an incumbent from ordering-based local search "
        "(:mod:`lpbn.ordering.quick`: 100 restarts, at most 2 s or 5% of the time limit), "
        "which the anytime answer keeps while the cut loop runs and the MIP starts from. "
        "Skipped when the method runs without numba (``numba=False``; the search is a "
        "kernel)."))
    mip_heuristics: bool = opt(False, (
        "Keep HiGHS's own primal heuristics (RINS, RENS, feasibility jump, root reduced "
        "cost); off by default because the ordering search and the LP decoding give better "
        "incumbents for less."))
    highs_options: dict | None = opt(None, (
        "Further HiGHS options for the MIP solves (e.g. ``{\"mip_pscost_minreliable\": 2}``; "
        "lpbn keeps HiGHS's defaults)."), DICT)
    certificate: bool = opt(False, (
        "At the end, solve the LP relaxation over the final cluster and k-cluster rows once "
        "more and keep its row duals (λ_C = -dual, clipped at 0) and their eq. 8 bound in "
        "``result.extra[\"certificate_lp\"]`` (see :mod:`lpbn.certificate`).  When that LP "
        "bound does not reach the reported upper bound (HiGHS closed the rest by its own "
        "search, which it does not export), :func:`lpbn.highs.certify.certify_tree` proves "
        "the reported bound again by an LP branch and bound that records every node's duals "
        "(``result.extra[\"certificate_tree\"]``; an unfinished tree is kept as ``partial``)."))
    certificate_time: float | None = opt(None, (
        "Seconds for that proof (default: the solve's time limit again; none without one)."), NONNEG)
    numba: bool = opt(True, (
        "False: while numba is not loaded in the process, run on caches of at most 64 "
        "variables without it (numpy twins of the LP and separation kernels, "
        ":mod:`lpbn.lp.numpy_kernels`; no greedy cluster growth and no start search), which "
        "saves the ~1 s that loading numba and the kernels costs — what ``auto`` tries first "
        "on small sparse caches.  True (default): the kernels (faster separation once "
        "loaded)."))
    zero_half: bool | str | None = opt(None, (
        "When cluster separation finds nothing, add {0, 1/2}-Chvátal–Gomory cuts from the "
        "convexity rows, the tight cluster rows and earlier cuts (:mod:`lpbn.lp.zero_half`) "
        "and go on (True): they cut the half-integral points that satisfy every cluster "
        "inequality (hailfinder at N = 20,000: root LP 1.07% -> 0.06-0.16% above the "
        "optimum). ``\"slack\"``: when no such cut is left, also the cuts from nearly tight "
        "rows and nearly integral columns (:data:`lpbn.lp.cut_loop.ZERO_HALF_SLACKS`; that "
        "hailfinder cache: root 0.16% -> 0.03%, proved in 68-78 s where True left 0.04% after "
        "200 s); the root deletes the cuts slack at every PURGE_EVERY-th LP point, and before "
        "the MIP those slack at the root's last point are dropped, ordering search climbs "
        "from that point's order and the ILP over its support runs (:func:`_after_root`, "
        "``support_mip``; the bench's cache 76-95 s -> 37 s, results/bnlearn20000/README.md). "
        "Default: ``\"slack\"`` beyond :data:`ZERO_HALF_SLACK_MIN_N` variables, else True (on "
        "the dense caches of at most 30 variables the extra LP rounds cost more than the MIP "
        "needs to close the gap: letter 36 s -> over 60 s, adult 11 s -> 16-21 s; "
        "alarm-20000, 37 variables, with the purge and the search: 0.19% gap at 300 s where "
        "it was proved in 274-282 s)."), either(BOOL, choices("slack")))
    column_generation: bool | None = opt(None, (
        "The root's cut loop over a restricted LP: each variable's EtaLP.START_COLUMNS best "
        "candidates and its empty set, the others priced in at every optimum by their reduced "
        "costs (:meth:`lpbn.lp.model.EtaLP.solve_lp`), so every LP value is still the optimum "
        "over all candidates; the MIP then runs over every column not fixed by "
        "``fix_columns`` (:meth:`~lpbn.lp.model.EtaLP.full_model`).  HiGHS's pivots cost in "
        "proportion to the columns: munin-5000 (177,691 candidates) spent 102 of its first "
        "120 s in 501 LP re-solves over all of them.  Default: on caches with more than "
        "COLUMN_GENERATION_ABOVE candidates per variable (with ``numba``)."), BOOL)
    fix_columns: bool = opt(True, (
        "Before the MIP, fix to 0 every candidate whose Lagrangian bound at the root LP's "
        "duals is below the incumbent's score (:func:`_fix_by_reduced_cost`; default True): "
        "it is in no better DAG, so the MIP and its generation rows go without it."))
    support_mip: bool = opt(True, (
        "With ``zero_half=\"slack\"`` (beyond 40 variables by default), before the MIP, solve "
        "the ILP over the candidates in the support of the root's last LP point and the "
        "incumbent's for at most SUPPORT_MIP_SECONDS (:func:`_support_mip`; default True): a "
        "better start for the MIP, and more candidates fixed by their reduced costs."))
    start: Any = opt(None, (
        "A DAG to start from (an :class:`lpbn.DAG` or the parents of each variable); ignored "
        "unless every parent set is a candidate of the (pruned) cache."), ANY)
    local_cuts: int = opt(0, (
        "k > 0: the root also adds local cuts, valid rows of the k-variable family polytope "
        "lifted to the cache (:mod:`lpbn.lp.local_cuts`): beside tailing cluster rounds once "
        "the gap to the incumbent is below 1% (where the k-clusters and {0, 1/2}-cuts stop), "
        "and when nothing else is violated.  Default 0 (off)."), choices(0, *SIZES))
    incumbent_feed: Callable[[], Any] | None = opt(None, (
        "Polled at every root LP round and before every MIP: returns None or the candidate "
        "indices (in the cache as given) of a DAG found elsewhere, which is offered as an "
        "incumbent (a search running beside the ILP, :mod:`lpbn.certified`).  The root's "
        "tailing rules measure the gap against the incumbent, and a weak one of the ILP's own "
        "keeps the cuts meant for a small gap out (connect4 beside ASOBS: the ILP's incumbent "
        "0.28% below the search's DAG, and no local cut entered in 300 s).  A better "
        "incumbent also fixes more columns by reduced cost before the MIP."), CALLABLE)
    tree: str | None = opt(None, (
        "What proves the rest after the root: HiGHS's MIP over every column (``\"mip\"``), or "
        "lpbn's branch and price over the root's restricted LP (``\"price\"``, "
        ":mod:`lpbn.highs.branch_price`: edge branching, every node's LP priced over its "
        "allowed candidates, cut rounds in every node, best first), which the root hands over "
        "to once its rounds stall (ROOT_STALL).  Default: ``\"price\"`` on caches of more "
        "than ZERO_HALF_SLACK_MIN_N variables and at least PURGE_CLUSTERS_MIN_DENSITY "
        "candidates per variable (with column generation), where the MIP's model of every "
        "column is too large to leave its root (accidents: 11.4 million nonzeros, 0 nodes in "
        "20 minutes), else ``\"mip\"``."), choices("mip", "price"))


@dataclass(frozen=True)
class PulpCbcOptions(MethodOptions):
    """Options of ``method="pulp-cbc"`` (:func:`lpbn.highs.pulp_model.solve_pulp_cbc`): the same
    cluster-cut ILP with CBC (through PuLP) as its MIP solver and HiGHS for the root LP."""

    root_cuts: bool = opt(True, "Run the LP cutting-plane loop (HiGHS) before the first CBC solve.")
    exact_root: bool = opt(True, "Use the exact sub-IP in the root loop (else cheap cycle clusters only).")
    prune: bool = opt(True, "Drop dominated candidates first (ScoreCache.prune_dominated; safe for the optimum).")
    threads: int = opt(1, "CBC threads.", THREADS)
    msg: bool = opt(False, "Print CBC's own log.")
    memory_limit: int | str | None = opt(None, (
        "Accepted for interface compatibility; CBC's memory is not limited."), MEMORY)
    acyclicity: str = opt("generation", (
        "'generation' adds the generation-number rows, so the first CBC solve is exact; 'lazy' "
        "relies on cluster rows added after cyclic incumbents only."), choices("generation", "lazy"))
