"""The cutting-plane loop over the η LP (Jaakkola et al. 2010, eqs. 5-7).

:func:`cut_loop` runs solve → separate → add rows on an :class:`lpbn.lp.model.EtaLP` until
nothing is violated by more than ``tol`` (1e-6), which gives the value of P_cluster (or
P_cycle) over all clusters (cycles): cheap separation first (:mod:`lpbn.lp.separation`),
exact last (:mod:`lpbn.lp.exact_separation`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from ..signals import pending
from .exact_separation import SubIPStats, exact_clusters
from .local_cuts import local_cuts
from .separation import (
    LOCAL_TAIL_MIN_GAP,
    LOCAL_TIME_SHARE,
    VIOLATION_TOL,
    TailBackoff,
    cheap_clusters,
    grown_clusters,
    grown_kclusters,
    separate_cycles,
    separate_kclusters,
    tailing_off,
)
from .zero_half import MIN_VIOLATION, zero_half_cuts
from ..tuning import ZERO_HALF_SLACKS, ZERO_HALF_MIN_VIOLATION


@dataclass
class CutLoopResult:
    """Final LP of a cutting-plane loop.

    ``value`` is a valid upper bound on every DAG's score whenever ``status`` is
    ``"optimal"`` (LP solved) — and it is the value of P_cluster (P_cycle) when ``complete``.
    """

    value: float
    eta: np.ndarray | None
    status: str
    complete: bool
    rounds: int = 0
    cuts_cheap: int = 0
    cuts_exact: int = 0
    cuts_cycle: int = 0
    cuts_grown: int = 0
    cuts_zero_half: int = 0
    cuts_kcluster: int = 0
    cuts_purged: int = 0
    clusters_purged: int = 0
    cuts_local: int = 0
    local_seconds: float = 0.0
    stalled: bool = False
    subip: SubIPStats = field(default_factory=SubIPStats)
    seconds: float = 0.0
    values: list[float] = field(default_factory=list)


@dataclass
class CutOptions:
    """The options of one :func:`cut_loop` (each field's doc says what it adds and why)."""

    #: ``"clusters"``: eq. 6 rows, cheap first (support-graph components and cycles, then with
    #: ``grow`` the greedy growth of :func:`grown_clusters`), then (``exact``) the sub-IP; stops
    #: when none is violated by more than ``tol`` (``complete=True`` only when the sub-IP proved
    #: it).  ``"cycles"``: eq. 5 rows by exact shortest-cycle separation (P_cycle).
    mode: str = "clusters"
    exact: bool = True
    tol: float = VIOLATION_TOL
    #: seconds for the whole loop (None: none)
    time_limit: float | None = None
    #: LP solves at most (None: no cap)
    max_rounds: int | None = None
    #: caps each sub-IP call; a call that times out without a violated cluster ends the loop
    #: with ``complete=False`` (the value is still a valid bound)
    subip_time: float | None = None
    #: ``on_bound(value, eta)`` is called after every LP solve
    on_bound: Callable[[float, np.ndarray], None] | None = None
    grow: bool = True
    #: when no cluster is found, {0, 1/2}-Chvátal–Gomory cuts from the convexity and tight
    #: cluster rows (:mod:`lpbn.lp.zero_half`) are added and the loop goes on (clusters first
    #: again); the value is then below that of P_cluster.  ``"slack"``: when no zero-cost cut is
    #: left, also the cuts from nearly tight rows and nearly integral columns
    #: (:data:`ZERO_HALF_SLACKS`)
    zero_half: bool | str = False
    #: the {0, 1/2}-cuts combine only convexity and cluster rows (rank one, not the earlier
    #: cuts) and keep their derivations in the model, so that pricing can extend them to parent
    #: sets outside the cache (:class:`lpbn.lp.zero_half.Derivation`, :mod:`lpbn.pricing`)
    priceable: bool = False
    #: with ``best``, rounds whose cluster search never runs dry but tails off
    #: (:func:`~lpbn.lp.separation.tailing_off`) also get the k-cluster rows (``k_max`` >= 2) and
    #: the {0, 1/2}-cuts (``zero_half``) beside the clusters, each with its own back-off: on the
    #: one-hot caches of connect4 and accidents the cluster rounds never end, and the LP gap left
    #: there is mostly what {0, 1/2}-cuts remove (18-variable sub-caches of connect4 solved
    #: exactly: the cluster and k-cluster LP 3.5-4.9% above the optimum, with the cuts
    #: 0.04-0.7%; results/scale/README.md)
    k_max: int = 1
    #: a function giving the incumbent's score (the tail rules above and ``stall``)
    best: Callable[[], float] | None = None
    #: ``k``: delete the {0, 1/2}-cuts slack at every k-th LP point
    #: (:meth:`~lpbn.lp.model.EtaLP.purge_cuts`; the point stays optimal, and a purged cut may be
    #: separated again): dense cut rows slow every pivot of the later rounds
    purge_every: int = 0
    #: ``k`` (3, 4 or 5): the local cuts of :mod:`lpbn.lp.local_cuts` (valid rows of the
    #: k-variable family polytope, lifted): beside tailing cluster rounds whose gap is between
    #: LOCAL_TAIL_MIN_GAP and TAIL_MIN_GAP (with their own back-off, and while their separation
    #: has taken at most LOCAL_TIME_SHARE of the loop's time), and when nothing else is violated
    local: int = 0
    #: ``k``: delete, at every k-th LP point, the cluster and k-cluster rows that were slack
    #: there and at the check before (:meth:`~lpbn.lp.model.EtaLP.purge_clusters`; the caller
    #: restores them with :meth:`~lpbn.lp.model.EtaLP.restore_purged` before an ILP)
    purge_clusters: int = 0
    #: ``k`` (a model that prices its columns): at most k re-solves for pricing per round, then
    #: the round separates at the restricted LP's point and the columns that still price wait
    #: for the next solve (:meth:`~lpbn.lp.model.EtaLP.solve_lp`); the round's bound is then the
    #: Lagrangian bound of its duals, and ``value`` the smallest bound of all rounds
    max_pricing: int | None = None
    #: ``(r, g)`` (with ``best``): stop (``stalled``) once the last r rounds lowered the bound by
    #: less than g times its gap to the incumbent, where a branch and bound takes over
    #: (:mod:`lpbn.highs.branch_price`: on accidents' explored cache the root gains ~10 in its
    #: last 40 rounds at a gap of ~1,900, while one split lowers the bound by ~100)
    stall: tuple[int, float] | None = None


def cut_loop(model, opts: CutOptions | None = None, **fields) -> CutLoopResult:
    """Solve the LP of ``model`` (an :class:`~lpbn.lp.model.EtaLP`) and add violated rows until
    none is violated by more than ``tol``, under ``opts`` (a :class:`CutOptions`; keyword
    ``fields`` build one, or override ``opts``' fields)."""
    if opts is None:
        opts = CutOptions(**fields)
    elif fields:
        opts = replace(opts, **fields)
    run = _CutLoop(model, opts)
    while run.step():
        pass
    run.res.seconds = time.perf_counter() - run.t0
    return run.res


class _CutLoop:
    """The rounds of one :func:`cut_loop`: :meth:`step` solves the LP once and separates."""

    def __init__(self, model, opts: CutOptions):
        self.model, self.opts = model, opts
        self.t0 = time.perf_counter()
        self.res = CutLoopResult(math.inf, None, "optimal", False)
        self.backoff, self.zero_half_backoff, self.local_backoff = TailBackoff(), TailBackoff(), TailBackoff()

    def left(self) -> float | None:
        limit = self.opts.time_limit
        return None if limit is None else max(0.0, limit - (time.perf_counter() - self.t0))

    def step(self) -> bool:
        """One round; False when the loop ends."""
        model, opts, res = self.model, self.opts, self.res
        if pending() is not None:        # a stop request (SIGINT/SIGTERM, lpbn.signals)
            res.status = "interrupted"
            return False
        lp = model.solve_lp(self.left(), max_pricing=opts.max_pricing)
        res.rounds += 1
        if lp.status != "optimal":
            res.status = lp.status
            return False
        res.value, res.eta = min(res.value, lp.upper), lp.eta
        res.values.append(res.value)
        priced_out = lp.lagrangian is None
        if opts.purge_every and res.rounds % opts.purge_every == 0:
            res.cuts_purged += model.purge_cuts(lp.eta)
        if opts.purge_clusters and res.rounds % opts.purge_clusters == 0:
            res.clusters_purged += model.purge_clusters()
        if opts.on_bound is not None:
            opts.on_bound(res.value, lp.eta)
        if (opts.max_rounds is not None and res.rounds >= opts.max_rounds) or \
                (self.left() is not None and self.left() <= 0):
            return False
        if opts.stall is not None and opts.best is not None and \
                tailing_off(res.values, opts.best(), opts.stall[0], min_gap=0.0, gain=opts.stall[1]):
            res.stalled = True
            return False
        if opts.mode == "cycles":
            cycles = separate_cycles(model.cache, lp.eta, opts.tol)
            if not cycles:
                res.complete = priced_out
                return not priced_out
            res.cuts_cycle += model.add_cycles(cycles)
            return True
        if self.cheap(lp.eta):
            return True
        if not priced_out:         # the columns still pricing in come first
            return True
        return self.last_resorts(lp.eta)

    def cheap(self, eta: np.ndarray) -> bool:
        """The cheap and grown clusters, with the tail rules' extra rows; whether any was added."""
        model, opts, res = self.model, self.opts, self.res
        cuts = cheap_clusters(model.cache, eta, opts.tol)
        added = model.add_clusters(np.array(cuts)) if cuts else 0
        res.cuts_cheap += added
        if not added and opts.grow:
            cuts = grown_clusters(model.cache, eta, opts.tol)
            added = model.add_clusters(np.array(cuts)) if cuts else 0
            res.cuts_grown += added
        if not added:
            return False
        # the tail rule in every round that found clusters, grown ones too: on connect4
        # most rounds find them only by growth (1,612 of 1,940), and a rule checked after
        # the cheap ones alone never fired there (root gap 11.8% at 60 s instead of 3.0%)
        best = opts.best
        if best is not None and tailing_off(res.values, best()):
            if opts.k_max >= 2 and self.backoff.due():
                new = add_kclusters(model, eta, opts.k_max)
                self.backoff.found(new)
                res.cuts_kcluster += new
            if opts.zero_half and self.zero_half_backoff.due():
                new = _add_zero_half(model, eta, opts.zero_half, opts.priceable)
                self.zero_half_backoff.found(new)
                res.cuts_zero_half += new
        elif opts.local and best is not None and tailing_off(res.values, best(), min_gap=LOCAL_TAIL_MIN_GAP) \
                and res.local_seconds <= LOCAL_TIME_SHARE * (time.perf_counter() - self.t0) \
                and self.local_backoff.due():
            new = _add_local(model, eta, opts.local, res)
            self.local_backoff.found(new)
        return True

    def last_resorts(self, eta: np.ndarray) -> bool:
        """Nothing cheap is violated: the exact sub-IP, then {0, 1/2}-cuts, then local cuts;
        whether the loop goes on."""
        model, opts, res = self.model, self.opts, self.res
        if opts.exact:
            budget = self.left()
            if opts.subip_time is not None:
                budget = opts.subip_time if budget is None else min(budget, opts.subip_time)
            res.subip.timed_out = False
            cuts = exact_clusters(model.cache, eta, opts.tol, time_limit=budget, stats=res.subip)
            added = model.add_clusters(np.array(cuts)) if cuts else 0
            res.cuts_exact += added
            if added:
                return True
            res.complete = not res.subip.timed_out
        if opts.zero_half:
            added = _add_zero_half(model, eta, opts.zero_half, opts.priceable)
            res.cuts_zero_half += added
            if added:
                res.complete = False
                return True
        if opts.local and _add_local(model, eta, opts.local, res):
            res.complete = False
            return True
        return False


def _add_local(model, eta: np.ndarray, k: int, res: CutLoopResult) -> int:
    """Add the local cuts of k variables violated at η (:func:`lpbn.lp.local_cuts.local_cuts`);
    how many were new (counted, with the separation's seconds, in ``res``)."""
    t = time.perf_counter()
    added = model.add_cuts(local_cuts(model.cache, eta, k), kind="local")
    res.cuts_local += added
    res.local_seconds += time.perf_counter() - t
    return added


def _add_zero_half(model, eta: np.ndarray, zero_half: bool | str, priceable: bool = False) -> int:
    """Add the {0, 1/2}-cuts violated at η to the model (:func:`separate_zero_half`, all its
    passes with ``"slack"``, else the zero-cost one); how many.  ``priceable``: rank one, with
    their derivations (:class:`CutOptions`)."""
    slacks = ZERO_HALF_SLACKS if zero_half == "slack" else ZERO_HALF_SLACKS[:1]
    if priceable:
        return separate_zero_half(model.cache, eta, model.clusters.bits, (), model.add_cuts, slacks, derive=True)
    return separate_zero_half(model.cache, eta, model.clusters.bits, model.cuts, model.add_cuts, slacks)


def separate_zero_half(cache, eta: np.ndarray, clusters: np.ndarray, extra, add,
                       slacks: tuple[float, ...] = ZERO_HALF_SLACKS, derive: bool = False) -> int:
    """The {0, 1/2}-cuts violated at η from the convexity rows, the eq. 6 ``clusters`` and the
    earlier cuts ``extra``: the zero-cost ones, then each further pass of ``slacks`` only when
    the one before found nothing; each pass's cuts go to ``add`` (the HiGHS model's or the
    dual state's ``add_cuts``, returning how many were new; with ``derive``, also given the
    cuts' derivations as ``derivations=``).  How many were added."""
    for slack in slacks:
        derivations: list | None = [] if derive else None
        cuts = zero_half_cuts(cache, eta, clusters, extra=extra, slack=slack,
                              min_violation=ZERO_HALF_MIN_VIOLATION if slack else MIN_VIOLATION,
                              derivations=derivations, upper_rows=not derive)
        added = add(cuts, derivations=derivations) if derive else add(cuts)
        if added:
            return added
    return 0


def add_kclusters(model, eta: np.ndarray, k_max: int) -> int:
    """Add the k-cluster rows (2 <= k <= k_max) violated at η over the model's clusters and by
    greedy growth on the k-activity; how many were new."""
    bits, ks = separate_kclusters(model.cache, eta, model.clusters.bits, k_max)
    new = model.add_kclusters(bits, ks)
    for k in range(2, k_max + 1):
        grown = grown_kclusters(model.cache, eta, k)
        new += model.add_kclusters(grown, np.full(len(grown), k))
    return new
