"""The anytime driver of OBS / ASOBS: restarts, climbs, budgets (:func:`ordering_search`).

Teyssier & Koller 2005 (OBS) and Scanagatta et al. 2015, §4 (ASOBS).  A *restart* starts
from an ordering and runs the rule's local search on it
(:func:`lpbn.ordering.obs.obs_restart`, :func:`lpbn.ordering.asobs.asobs_restart`):

* restart 0 climbs from the ``start`` ordering (:mod:`.starts`; default the min-loss greedy
  order, which at n = 10,000 takes 0.15 s and climbs to a much better optimum than a random
  permutation);
* every further restart either perturbs the incumbent's ordering (``restart="perturb"``,
  iterated local search, the default: ``kicks`` disjoint random segments of 2..``kick``
  positions are shuffled, and kicks that lost are undone, :mod:`.kicks`) or climbs from a
  fresh random permutation (``restart="random"``).  Perturbing won on the synthetic caches
  and on diabetes/pigs at equal time; fresh random restarts won on munin-5000.

All random draws of a restart are made from ``seed`` in the same way whatever the rule and
the search state, so for a fixed seed and restart budget a run is reproducible.  Time and
``control`` limits only truncate the run.

Which trajectory ASOBS follows (``trail``):

* ``"both"`` (default): two chains take turns, restart by restart: the lifted OBS trail
  below (with ``seed``'s own stream, so after 2r restarts ASOBS's best is never below OBS's
  after r) and an ASOBS chain on its own best DAG (with a stream of its own).
* ``"obs"``: ASOBS runs OBS's own iterated local search (the same orderings, the same
  perturbation base: the OBS incumbent) and lifts every restart's local optimum with
  :func:`lpbn.ordering.asobs.asobs_lift` (decode, refine when it beats the best DAG).  For
  one seed and any restart budget ASOBS's best DAG is then never below OBS's (Theorem 3,
  restart by restart), whatever the restart scheme.
* ``"asobs"``: ASOBS perturbs its own best DAG's ordering (:func:`asobs_restart`), so the
  two rules follow different trajectories and either may end ahead; with
  ``restart="random"`` both still climb from the very same orderings.

ASOBS's own chain (trails ``"asobs"`` and ``"both"``, perturbation restarts) keeps a
population of elite local optima (:mod:`.population`, after MINOBS): when it has stalled for
``generation`` restarts, its local optimum joins them and it climbs from a new ordering, the
order crossover of two members once there are ``population`` of them.  On connect4 every
seed then reached in 60 s the DAG that 300 s of the plain iterated local search had found.

Measured with ``seed=0`` and 60 s per run (search alone, one run per core) on the
independence-selection caches of the eight density-estimation data sets (``lpbn score``
defaults), BIC of OBS / ASOBS with trail ``"obs"``, ``"asobs"``, ``"both"``, see
``results/scale/README.md``: ``"both"`` was at least OBS on all eight (level on plants,
55-284 ahead on the others), ``"asobs"`` alone fell 54 behind OBS on plants, and ``"obs"``
alone gained only 0-112 on OBS (the lift rarely finds back arcs on an OBS local optimum).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..cache import ScoreCache
from ..errors import InputError
from ..result import DAG
from .asobs import asobs_lift, asobs_restart
from .obs import Point, obs_restart
from .options import DEFAULT_STALL, SearchOptions  # noqa: F401  (DEFAULT_STALL re-exported)
from .population import Population
from .starts import (RESTART_SCHEMES, START_ORDERS, apply_restart, draw_restart, fresh_start,
                     start_order)
from .workspace import Workspace
from ..tuning import ORDERING_GENERATION as DEFAULT_GENERATION
from ..tuning import ORDERING_PATIENCE as DEFAULT_PATIENCE, ORDERING_SECONDS as DEFAULT_SECONDS

RULES = ("obs", "asobs")
TRAILS = ("obs", "asobs", "both")


#: Insertion moves reach this many positions (None: any distance; 0: adjacent swaps only, the
#: paper's OBS).
DEFAULT_WINDOW = None


@dataclass
class OrderingResult:
    """Best DAG of an ordering search.

    ``choice``: global candidate index per variable (the DAG); ``score``: its exact score
    ``sum(cache.scores[choice])``; ``order``: a topological order of the DAG (for OBS the
    ordering it was decoded from); ``stop``: why the search ended (``"max_restarts"``,
    ``"patience"``, ``"time_limit"``, ``"interrupted"``, ``"exhausted"`` (n <= 2: every
    ordering was tried, the DAG is optimal), ``"optimal"`` (the score reached the bound of
    ``control``) or another :class:`~lpbn.solve.SolveControl` status);
    ``stats``: counters (restarts, improvements, climbs, swaps, insertions, move
    evaluations, ASOBS decodes, rebuilds, seconds...).
    """

    choice: np.ndarray
    score: float
    order: np.ndarray
    rule: str
    stop: str
    stats: dict[str, Any] = field(default_factory=dict)

    def dag(self, cache: ScoreCache) -> DAG:
        """The DAG as parents per variable."""
        return DAG(cache.names, [cache.parents(int(j)) for j in self.choice])


class _Budget:
    """Stop rule: time limit, a :class:`SolveControl` (limits; node_limit counts restarts),
    restart budget and patience."""

    def __init__(self, time_limit, control, max_restarts, patience):
        self.deadline = math.inf if time_limit is None else time.perf_counter() + float(time_limit)
        self.control = control
        self.max_restarts = max_restarts
        self.patience = patience
        self.restarts = 0
        self.since = 0
        self.reason: str | None = None

    def interrupted(self) -> bool:
        """Polled inside climbs: time or control limit reached?"""
        if self.reason is None:
            if time.perf_counter() >= self.deadline:
                self.reason = "time_limit"
            elif self.control is not None:
                self.reason = self.control.should_stop(nodes=self.restarts)
                if self.reason is None and self.control.closed():
                    self.reason = "optimal"     # the score reached the control's bound
        return self.reason is not None

    def another(self) -> bool:
        """May another restart begin?"""
        if self.interrupted():
            return False
        if self.max_restarts is not None and self.restarts >= self.max_restarts:
            self.reason = "max_restarts"
        elif self.patience is not None and self.since >= self.patience:
            self.reason = "patience"
        return self.reason is None


def _check_options(rule, time_limit, max_restarts, patience, start, restart, kick, kicks, window,
                   trail, stall, population, generation):
    if rule not in RULES:
        raise InputError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    if trail not in TRAILS:
        raise InputError(f"trail must be one of {', '.join(TRAILS)}, got {trail!r}")
    if isinstance(start, str) and start not in START_ORDERS:
        raise InputError(f"start must be one of {', '.join(START_ORDERS)} or an ordering, got {start!r}")
    if restart not in RESTART_SCHEMES:
        raise InputError(f"restart must be one of {', '.join(RESTART_SCHEMES)}, got {restart!r}")
    for label, v, low in (("max_restarts", max_restarts, 0), ("patience", patience, 0),
                          ("kick", kick, 2), ("kicks", kicks, 1), ("window", window, 0),
                          ("stall", stall, 0), ("population", population, 0),
                          ("generation", generation, 1)):
        if v is not None and not (isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                  and v >= low):
            raise InputError(f"{label} must be an integer >= {low}, got {v!r}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit >= 0):
        raise InputError(f"time_limit must be a non-negative number, got {time_limit!r}")


def default_kicks(n: int) -> int:
    """Kicked segments per perturbation: one per 50 variables (see :mod:`.kicks`)."""
    return max(1, n // 50)


def ordering_search(cache: ScoreCache, rule: str = "asobs", opts: SearchOptions | None = None, *,
                    time_limit: float | None = None, control=None, **fields) -> OrderingResult:
    """Anytime OBS (Teyssier & Koller 2005) or ASOBS (Scanagatta et al. 2015, §4) search.

    ``rule``: ``"asobs"`` or ``"obs"``.  The search's options are ``opts`` (a
    :class:`~lpbn.ordering.options.SearchOptions`, every field documented there; keyword
    ``fields`` build one, or override ``opts``' fields), in short: ``start``: first ordering (``"greedy"``,
    ``"random"``, ``"asobs"``: see :mod:`.starts`).  ``restart``: ``"perturb"`` (iterated
    local search on the incumbent's ordering with ``kicks`` kicked segments of 2..``kick``
    positions; default ``kicks`` one per 50 variables) or ``"random"`` (fresh random
    permutations).  ``window``: how far insertion moves reach (default: any distance; 0:
    adjacent swaps only, the paper's OBS neighbourhood).  ``trail``: the trajectory ASOBS
    follows: OBS's own (``"obs"``, never below OBS for one seed and restart budget), its
    own best DAG's (``"asobs"``) or both in turn (``"both"``); see the module docstring.
    ``stall``: a chain whose base has not moved for this many of its restarts climbs again
    from a fresh random ordering (its next restart; the best DAG is kept; default
    :data:`DEFAULT_STALL`; 0 or None: never).  The count is per chain and its base moves on
    OBS's trail as OBS's does, so ASOBS on that trail stays never below OBS.
    ``population``: ASOBS's own chain (trails ``"asobs"`` and ``"both"``) keeps this many
    elite local optima (:mod:`.population`): after ``generation`` restarts in a row without
    improvement its local optimum joins them and it climbs again from the order crossover of
    two of them (0 or 1: no population; the chain then only has ``stall``).  Only with
    ``restart="perturb"``: fresh random restarts need none, and keep ASOBS's own trail on
    the very orderings OBS climbs from.

    Stops at ``time_limit`` seconds, after ``max_restarts`` restarts beyond the first, after
    ``patience`` restarts in a row without improvement, or when
    ``control.should_stop(nodes=restarts)`` says so (its ``node_limit`` counts restarts) or
    the score reaches ``control``'s bound.  Without any of these the default rule applies:
    :data:`DEFAULT_PATIENCE` restarts without improvement or :data:`DEFAULT_SECONDS`.
    Improvements are reported through ``control.improved(best=...)``.
    """
    o = SearchOptions(**fields) if opts is None else replace(opts, **fields) if fields else opts
    seed, max_restarts, patience, start, restart = o.seed, o.max_restarts, o.patience, o.start, o.restart
    kick, kicks, window, trail, stall = o.kick, o.kicks, o.window, o.trail, o.stall
    population, generation = o.population, o.generation
    _check_options(rule, time_limit, max_restarts, patience, start, restart, kick, kicks, window,
                   trail, stall, population, generation)
    t0 = time.perf_counter()
    limited = control is not None and (control.time_limit is not None
                                       or control.node_limit is not None)
    default_rule = time_limit is None and max_restarts is None and patience is None and not limited
    if default_rule:
        patience, time_limit = DEFAULT_PATIENCE, DEFAULT_SECONDS
    kicks = default_kicks(cache.n) if kicks is None else kicks
    window = DEFAULT_WINDOW if window is None else window
    ws = Workspace(cache, window=cache.n if window is None else int(window))
    budget = _Budget(time_limit, control, max_restarts, patience)
    stats = {"rule": rule, "window": ws.window, "restarts": 0, "improvements": 0, "climbs": 0,
             "swaps": 0, "insertions": 0, "evaluations": 0, "asobs_decodes": 0, "start": start,
             "restart": restart, "kick": kick, "kicks": kicks, "default_rule": default_rule,
             "stall": stall, "fresh_chains": 0}
    if rule == "asobs":
        stats.update(trail=trail, population=population, generation=generation, generations=0)
    chains = _chains(rule, trail, seed, population if restart == "perturb" else 0)
    best = None
    for ch in chains:
        best = _begin(ws, ch, start, best, budget.interrupted, stats)
    stats["start_seconds"] = time.perf_counter() - t0      # to the first DAG of every chain
    stats["start_score"] = best.score
    _report(control, best, 0)
    try:
        turn = 0
        while cache.n > 2 and budget.another():
            best = _restart(ws, chains[turn % len(chains)], best, budget, stats, restart, kick,
                            kicks, control, stall, generation)
            turn += 1
    except KeyboardInterrupt:
        budget.reason = "interrupted"
    stats.update(restarts=budget.restarts, asobs_decodes=ws.decodes, patience=patience,
                 seconds=time.perf_counter() - t0)
    order = best.order if rule == "obs" else ws.topological(best.dag, best.order)
    # n <= 2: the first climb tried every ordering, so the search is exhaustive
    stop = budget.reason or ("exhausted" if cache.n <= 2 else "max_restarts")
    return OrderingResult(choice=best.dag.copy(), score=best.score, order=order, rule=rule,
                          stop=stop, stats=stats)


@dataclass
class _Chain:
    """One iterated-local-search trajectory: how its restarts climb (``rule``; ``lift``: OBS
    climbs, each lifted to an ASOBS DAG), its own random stream and perturbation base (the
    chain's incumbent, which for a lifted chain moves exactly as OBS's would)."""

    rule: str
    lift: bool
    rng: np.random.Generator
    base: Point | None = None
    stale: int = 0          # the chain's restarts since its base last moved
    pool: Population | None = None      # ASOBS's own chain: its elite local optima


def _chains(rule: str, trail: str, seed: int, population: int = 0) -> list[_Chain]:
    """The trajectories of a search (see the module docstring); the first uses ``seed``'s
    stream exactly as OBS does, the second ASOBS chain of ``trail="both"`` its own; ASOBS's
    own chain keeps a :class:`~.population.Population` of ``population`` local optima."""
    first = np.random.default_rng(seed)
    pool = Population(population) if population > 1 else None
    if rule == "obs":
        return [_Chain("obs", False, first)]
    if trail == "asobs":
        return [_Chain("asobs", False, first, pool=pool)]
    chains = [_Chain("obs", True, first)]
    if trail == "both":
        chains.append(_Chain("asobs", False, np.random.default_rng([seed, 1]), pool=pool))
    return chains


def _begin(ws, ch: _Chain, start: str | np.ndarray, best: Point | None, stop, stats) -> Point:
    """Restart 0 of chain ``ch`` from the ``start`` ordering (a name of :data:`START_ORDERS`
    or the ordering itself); returns the new best."""
    st = fresh_start(ws, start if isinstance(start, np.ndarray) else start_order(ws, start, ch.rng))
    if ch.lift:
        ch.base = obs_restart(ws, st, stop, stats)
        return asobs_lift(ws, ch.base, best, stop, stats)
    ch.base = _run(ws, ch.rule, st, None, None, stop, stats)
    return ch.base if best is None or ws.delta(ch.base.dag, best.dag) > ws.eps else best


def _restart(ws, ch: _Chain, best: Point, budget, stats, restart, kick, kicks,
             control, stall, generation=DEFAULT_GENERATION) -> Point:
    """One restart of chain ``ch`` from its base; returns the new best.

    A lifted chain runs an OBS restart, moves its base exactly as OBS's incumbent would, and
    lifts the restart's local optimum to an ASOBS DAG that may improve ``best``.  A chain
    with a population whose base has not moved for ``generation`` restarts puts it in the
    population and climbs from a crossover child (:mod:`.population`).  A chain stalled for
    ``stall`` restarts climbs from a fresh random ordering instead (on connect4, plants,
    baudio and jester the seeds' spread of an iterated local search that found its best
    within seconds and nothing after; results/scale/README.md)."""
    if ch.pool is not None and ch.stale >= generation:
        ch.pool.join(ws, ch.base)
        ch.stale = 0
        stats["generations"] += 1
        new_best = _begin(ws, ch, ch.pool.child(ch.rng, ws.n), best, budget.interrupted, stats)
        budget.restarts += 1
        return _improved(new_best, best, budget, stats, control)
    if stall and ch.stale >= stall:
        ch.stale = 0
        stats["fresh_chains"] += 1
        new_best = _begin(ws, ch, "random", best, budget.interrupted, stats)
        budget.restarts += 1
        return _improved(new_best, best, budget, stats, control)
    draws = draw_restart(ch.rng, ws.n, restart, kick, kicks)
    base = ch.base

    def rebuild(keep):
        return apply_restart(ws, base, draws, keep)

    perturbed = draws[0] == "perturb"
    cand = _run(ws, "obs" if ch.lift else ch.rule, apply_restart(ws, base, draws),
                base if perturbed else None, rebuild if perturbed else None,
                budget.interrupted, stats)
    budget.restarts += 1        # counted when done: control's node_limit polls the count
    moved = ws.delta(cand.dag, base.dag) > ws.eps
    if moved:
        ch.base = cand
    ch.stale = 0 if moved else ch.stale + 1
    if ch.lift:
        new_best = asobs_lift(ws, cand, best, budget.interrupted, stats)
    else:
        new_best = cand if ws.delta(cand.dag, best.dag) > ws.eps else best
    return _improved(new_best, best, budget, stats, control, moved)


def _improved(new_best: Point, best: Point, budget, stats, control, moved: bool = False) -> Point:
    """After a counted restart: the patience count (reset when the chain's base moved or the
    best improved) and the report of an improvement."""
    budget.since = 0 if moved or new_best is not best else budget.since + 1
    if new_best is not best:
        stats["improvements"] += 1
        _report(control, new_best, budget.restarts)
    return new_best


def _run(ws, rule, st, base, rebuild, stop, stats) -> Point:
    run = obs_restart if rule == "obs" else asobs_restart
    return run(ws, st, stop, stats, base, rebuild)


def _report(control, best: Point, restarts: int) -> None:
    """Report an improvement; a control with an ``on_dag(choice, score)`` hook also gets the DAG."""
    if control is not None:
        control.improved(best=best.score, restarts=restarts)
        hook = getattr(control, "on_dag", None)
        if hook is not None:
            hook(best.dag, best.score)
