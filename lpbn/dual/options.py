"""The options of ``method="dual"`` (:func:`lpbn.dual.solver.solve_dual`), in one dataclass.

Every option is a field of :class:`DualOptions` with its default and its documentation
(``field(metadata={"doc": ...})``), so that :func:`lpbn.solve.show_options` can list them the
way ``scipy.optimize.show_options`` does, and :meth:`DualOptions.validate` checks them before
the solver starts.  References are to Jaakkola, Sontag, Globerson & Meila, "Learning Bayesian
network structure using LP relaxations", AISTATS 2010 (eq. and § numbers), unless named.

The paper's pure algorithm — dual coordinate descent (§5.1) with subgradient steps, dual
separation by eq. 20 growth (§5.3), decoding (§5.2) and branch and bound (§6) — is one option
away: ``lp_polish=False`` (``"off"``; it also makes ``branching`` default to the §6 rule).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import InputError
from ..options import ANY, BOOL, NONNEG, NONNEG_INT, POSITIVE_INT, SEED, MethodOptions, Rule, between, choices, either, opt
from ..tuning import DUAL_SCALE_N as SCALE_N, LOCAL_SEARCH_MAX_N, POLISH_MAX_ROWS, PRIMAL_FIRST_MAX_N

BRANCHING = ("flips", "eta", "strong")
LP_POLISH = ("off", "root", "nodes")
EXACT_SEPARATION = ("none", "root", "all")
KCLUSTER_NODES = ("root", "binding", "all")
KCLUSTER_ROUNDS = ("auto", "every", "stalled")
ZERO_HALF = ("auto", "off")


CALLABLE = Rule(callable, "a function")


@dataclass(frozen=True)
class DualOptions(MethodOptions):
    """Options of the dual LP branch and bound (``lpbn.solve(cache, method="dual", **options)``).

    ``None`` defaults are resolved per cache by :meth:`resolved` (see each option).
    ``lp_polish`` takes one name per setting: ``"off"``, ``"root"`` or ``"nodes"`` (``False``,
    ``True`` and ``"auto"`` are accepted as spellings of ``"off"``, ``"nodes"`` and ``None``).
    """

    prune: bool = opt(True, "Drop subset-dominated parent sets first (safe for the optimum).")
    lp_polish: bool | str | None = opt(None, (
        "Where an exact warm-started HiGHS solve of the dual LP over the current clusters "
        "(lpbn.dual.polish) follows coordinate descent; it also gives the LP point η used for "
        "primal separation, η-rounding and edge branching.  'nodes' (or true): after each stalled "
        "CD phase (§5.1) at every node.  'root': only once, after the root's relaxation (when "
        "m <= POLISH_MAX_ROWS), the paper's CD everywhere else.  'off' (or false): the paper's "
        "pure CD + subgradient algorithm.  Default (None or 'auto'): 'nodes' when "
        "m <= POLISH_MAX_ROWS (300,000) candidates, else 'off'."), either(BOOL, choices("auto", *LP_POLISH)))
    branching: str | None = opt(None, (
        "'flips' (§6 key node with most I_C flips; default unless lp_polish='nodes'), 'eta' (edge "
        "p -> i with LP marginal μ_pi, eq. 3, closest to 1/2, as the cluster {i, p}) or 'strong' "
        "(default with lp_polish='nodes': reliability branching, Achterberg et al. 2005, over the "
        "strong_candidates most fractional edges on the warm-started LP).  Children warm-start "
        "the LP from their parent's basis."), choices(*BRANCHING))
    strong_candidates: int = opt(24, "Edges probed per node by strong branching.")
    strong_iterations: int = opt(50, "Dual-simplex pivots per strong-branching probe.")
    strong_reliable: int = opt(1, (
        "Probes after which an edge is scored by its pseudocosts instead (0: always probe)."))
    strong_lookahead: int = opt(0, (
        "Stop probing after this many candidates in a row did not beat the best (0: probe all)."))
    node_sweeps: int = opt(2000, "CD sweeps per non-root node at most.")
    node_stall_rounds: int = opt(1, "Rounds without progress before a non-root node is branched.")
    primal_first: bool | None = opt(None, (
        "With a polished LP point, each separation round adds the clusters violated at η (eq. 6; "
        "support-graph components and cycles, else greedy growth, lpbn.lp.separation) with the "
        "most violated cycles (eqs. 18-19), falling back to eq. 20 growth.  Default: when "
        "n <= PRIMAL_FIRST_MAX_N (256)."), BOOL)
    exact_separation: str = opt("none", (
        "Where exact cluster separation (lpbn.lp.exact_separation) is the last resort: 'none', "
        "'root' or 'all' (B&B stays exact without it)."), choices(*EXACT_SEPARATION))
    grow_seeds: int | None = opt(None, "Seeds of the eq. 20 greedy growth at most (default: every node).", NONNEG_INT)
    fixing: bool = opt(True, (
        "Reduced-cost fixing (lpbn.dual.fixing): after the root, and whenever the incumbent "
        "improves, drop every candidate whose bound from the root's λ (U(λ) minus its regret) "
        "is below the incumbent; the search continues on the smaller cache once at least "
        "FIXING_REBUILD_FRACTION (half) of the candidates are gone.  Inside the root too: once a "
        "round's λ fixes ROOT_FIXING_FRACTION (60%) of the candidates, the root goes on over the "
        "rest.  Every fixing is recorded in the certificate."))
    k_max: int = opt(3, (
        "Separate k-cluster constraints (Cussens et al. 2017) for 2 <= k <= k_max at the LP "
        "point η (1 disables them; at most kernels.MAX_K); needs primal_first."))
    kcluster_rounds: str = opt("auto", (
        "When k-clusters are separated: 'every' round, beside the eq. 6 clusters; only once no "
        "eq. 6 cluster is violated ('stalled'; connect4 and accidents never get there: their "
        "root gaps at 90 s are 11.9% and 4.4% that way against 4.0% and 1.5%); 'auto': beside "
        "them once the cluster rounds tail off with a gap above 1% (lpbn.lp.separation."
        "tailing_off; after an empty attempt the next 1, 2, 4, ... such rounds skip it), else "
        "'stalled' (every round slows the small UCI caches' trees: wdbc 33 -> 48 s)."), choices(*KCLUSTER_ROUNDS))
    zero_half: str = opt("auto", (
        "{0, 1/2}-Chvátal-Gomory cuts (lpbn.lp.zero_half) in the root: 'auto' separates them at "
        "the polished LP point once the rounds tail off with a gap above 1% (with its own back-off, "
        "as kcluster_rounds='auto'); they enter the dual as Lagrangian terms whose multipliers are "
        "the cut rows' duals in the polish LP (lpbn.dual.state.DualState.add_cuts).  connect4's "
        "root gap at 300 s: 4.1% without them, 1.5% with them.  'off': none.  Needs lp_polish and "
        "primal_first; off with certificate (the certificate format has no cut rows)."), choices(*ZERO_HALF))
    local_cuts: int = opt(0, (
        "Local cuts of 3, 4 or 5 variables (lpbn.lp.local_cuts: rows of the k-variable "
        "family-variable polytope, lifted) in the root, separated at the polished LP point once "
        "the rounds tail off with a gap below the 1% where the k-clusters and {0, 1/2}-cuts stop "
        "(with their own back-off); they enter the dual as the {0, 1/2}-cuts do.  0: none (not "
        "yet measured on the suites; the HiGHS root takes 4 as asobs's bound).  Needs lp_polish "
        "and primal_first; off with certificate (the certificate format has no cut rows)."), choices(0, 3, 4, 5))
    kcluster_nodes: str = opt("binding", (
        "k-clusters below the root: 'binding' (over the binding clusters only), 'all' (also by "
        "greedy growth) or 'root' (not at all); found ones stay in the LP everywhere."), choices(*KCLUSTER_NODES))
    tail_rounds: int = opt(3, (
        "A non-root node stops separating and branches once its last tail_rounds rounds lowered "
        "the bound by less than tail_gain times its gap to the incumbent (0: no rule)."))
    tail_gain: float = opt(0.01, "See tail_rounds.")
    root_tail_rounds: int | None = opt(None, (
        "tail_rounds at the root.  Default: 0 with primal_first (munin1-5000 closes its root gap "
        "only so), else 5 (diabetes-5000: 60-s gap 0.146% without the rule, 0.041% with it)."), NONNEG_INT)
    root_tail_gain: float = opt(0.001, "tail_gain at the root.")
    separation_batch: int | None = opt(None, (
        "Clusters added per separation round.  Default: 200 up to SCALE_N (1000) variables, "
        "n // 2 beyond (results/scale/README.md)."), POSITIVE_INT)
    round_sweeps: int | None = opt(None, (
        "CD sweeps per round without the LP polish.  Default: 200 up to SCALE_N variables, 10 beyond."), POSITIVE_INT)
    local_search: float | None = opt(None, (
        "Effort of the ordering-based local search that improves the incumbent from the "
        "min-regret decoded orders (§5.2; lpbn.dual.incumbent): local_search x "
        "OBS_CLIMBS_PER_SWEEP climbs per CD sweep of relaxation work, divided by the estimated "
        "climb cost, a tenth of that after OBS_IDLE_CLIMBS climbs in a row that did not improve "
        "the incumbent (reproducible up to the time limit); 0 disables it.  It only offers DAGs.  "
        "Default: 0.05 up to LOCAL_SEARCH_MAX_N (1500) variables, 0 beyond (its climbs over "
        "bitsets do not scale: on a 2,000-variable cache two climbs took 182 of 300 s)."), NONNEG)
    support_mip: float = opt(3.0, (
        "After a node's LP polish, when the LP point η has at most support_mip x n candidates in "
        "its support (and the node's bound is above the incumbent), solve the ILP over that "
        "support and the incumbent's sets with the HiGHS ILP (lpbn.support_ilp; once per "
        "support, 1 s at most; five of them and one more per ten nodes, counted, not timed) and "
        "offer its DAG.  Deep in a tree the LP point is nearly integral while its decoding "
        "misses the DAG inside it: wdbc's tree dived 16 levels on nodes whose bound was already "
        "the optimum (dual alone: 30-31 s and 64 nodes -> 23 s and 31 nodes).  0: off.  It only "
        "offers DAGs; needs lp_polish."))
    seed: int = opt(0, "Seed of the local search.", SEED)
    incumbent: Any = opt(None, (
        "A DAG to start from (a DAG over the cache's variables, every parent set a candidate), "
        "e.g. from method='asobs'."), ANY)
    incumbent_feed: Callable[[], Any] | None = opt(None, (
        "A function polled before every node that returns None or the candidate indices of a "
        "DAG found elsewhere (a search running beside the dual)."), CALLABLE)
    on_sweep: Callable[[dict[str, Any]], None] | None = opt(None, (
        "Called after every CD sweep with {'node_bound', 'bound', 'best', 'nodes'}, where "
        "'bound' is the global upper bound."), CALLABLE)
    workers: int = opt(1, (
        "Processes searching the tree (lpbn.dual.parallel): after the root, workers - 1 forked "
        "processes take open nodes as they run dry, sharing the incumbent; the optimal score is "
        "the serial one (which optimal DAG is returned may differ).  Linux only; with "
        "certificate the search stays serial."), between(1, 64))
    spare_core: Callable[[], bool] | None = opt(None, (
        "With workers > 1: a function polled after every node; the workers are forked at the "
        "first node after it returns True (lpbn.race hands over its rival's core so), instead "
        "of right after the root."), CALLABLE)
    certificate: bool = opt(False, (
        "Record the branch-and-bound tree (each node's branching decision and certified λ) in "
        "result.extra['certificate_tree'] for lpbn.certificate / lpbn.verify."))

    # ------------------------------------------------------------------ checks and defaults
    def check(self, method: str) -> None:
        """The rules between options and those needing the kernels' limits (:meth:`validate`)."""
        self.validate()

    def validate(self) -> "DualOptions":
        """Raise :class:`~lpbn.errors.InputError` for a value the solver cannot take."""
        from .kernels import MAX_K

        def bad(name: str, what: str) -> InputError:
            return InputError(f"method 'dual': {name} must be {what}, got {getattr(self, name)!r}")

        if self.branching is not None and self.branching not in BRANCHING:
            raise bad("branching", "one of " + ", ".join(map(repr, BRANCHING)))
        if self.exact_separation not in EXACT_SEPARATION:
            raise bad("exact_separation", "one of " + ", ".join(map(repr, EXACT_SEPARATION)))
        if self.kcluster_rounds not in KCLUSTER_ROUNDS:
            raise bad("kcluster_rounds", "one of " + ", ".join(map(repr, KCLUSTER_ROUNDS)))
        if self.zero_half not in ZERO_HALF:
            raise bad("zero_half", "one of " + ", ".join(map(repr, ZERO_HALF)))
        if self.local_search is not None and (isinstance(self.local_search, bool) or not isinstance(
                self.local_search, (int, float)) or not 0 <= self.local_search < math.inf):
            raise bad("local_search", "a non-negative number")
        if isinstance(self.support_mip, bool) or not isinstance(self.support_mip, (int, float)) \
                or not 0 <= self.support_mip < math.inf:
            raise bad("support_mip", "a non-negative number")
        if isinstance(self.local_cuts, bool) or self.local_cuts not in (0, 3, 4, 5):
            raise bad("local_cuts", "0, 3, 4 or 5")
        if self.kcluster_nodes not in KCLUSTER_NODES:
            raise InputError(f"method 'dual': kcluster_nodes must be 'root', 'binding' or 'all', "
                             f"got {self.kcluster_nodes!r}")
        try:
            k_ok = int(self.k_max) == self.k_max and 1 <= int(self.k_max) <= MAX_K
        except (TypeError, ValueError):
            k_ok = False
        if not k_ok:
            raise InputError(f"method 'dual': k_max must be between 1 and {MAX_K}, got {self.k_max!r}")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or not 1 <= self.workers <= 64:
            raise bad("workers", "an integer between 1 and 64")
        for name in ("separation_batch", "round_sweeps"):
            v = getattr(self, name)
            if v is not None and int(v) < 1:
                raise InputError("method 'dual': separation_batch and round_sweeps must be >= 1")
        if not (self.lp_polish is None or isinstance(self.lp_polish, bool) or self.lp_polish in LP_POLISH
                or self.lp_polish == "auto"):
            raise bad("lp_polish", "one of 'auto', 'off', 'root', 'nodes' (or None, false, true)")
        return self

    def resolved(self, cache: Any) -> DualOptions:
        """A copy with every ``None`` default set for ``cache`` (the cache the branch and bound
        runs on, after ``prune``) and ``lp_polish`` one of ``"off"``, ``"root"``, ``"nodes"``."""
        lp_polish = self.lp_polish
        if lp_polish is None or lp_polish == "auto":
            lp_polish = "nodes" if cache.m <= POLISH_MAX_ROWS else "off"
        elif isinstance(lp_polish, bool):
            lp_polish = "nodes" if lp_polish else "off"
        primal_first = self.primal_first
        if primal_first is None:
            primal_first = cache.n <= PRIMAL_FIRST_MAX_N
        big = cache.n > SCALE_N
        return dataclasses.replace(
            self, lp_polish=lp_polish,
            branching=self.branching if self.branching is not None else
            "strong" if lp_polish == "nodes" else "flips",
            primal_first=bool(primal_first),
            root_tail_rounds=self.root_tail_rounds if self.root_tail_rounds is not None else
            0 if primal_first else 5,
            separation_batch=int(self.separation_batch if self.separation_batch is not None else
                                 cache.n // 2 if big else 200),
            round_sweeps=int(self.round_sweeps if self.round_sweeps is not None else 10 if big else 200),
            local_search=float(self.local_search if self.local_search is not None else
                               0.05 if cache.n <= LOCAL_SEARCH_MAX_N else 0.0))


def describe() -> list[tuple[str, Any, str]]:
    """The options of ``method="dual"`` as ``(name, default, doc)`` (for ``show_options``)."""
    return DualOptions.fields()
