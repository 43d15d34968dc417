"""One LP relaxation solve in the dual: CD + subgradient + separation rounds (Jaakkola 2010, §5).

Round t: coordinate descent to a stall (eqs. 9-11), decode (§5.2), a short phase of
subgradient steps (eqs. 12-13, ε_t = ε_0/√t) each followed by a few CD sweeps (the best λ
seen is kept), then separation (§5.3).  Stops when closed against the incumbent, when a
round neither adds clusters nor improves the bound, or at the deadline / sweep budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from ..incumbent import Incumbent
from ..lp.separation import LOCAL_TAIL_MIN_GAP, tailing_off
from ..signals import pending
from .state import DualState
from ..tuning import CUT_TAIL_ROUNDS, POLISH_SWEEPS


@dataclass
class RelaxStats:
    rounds: int = 0
    sweeps: int = 0
    added: int = 0
    polishes: int = 0
    history: list = field(default_factory=list)


def past(deadline: float) -> bool:
    """The deadline has passed, or a stop was requested (SIGINT/SIGTERM, :mod:`lpbn.signals`)."""
    return time.perf_counter() > deadline or pending() is not None


def closed(bound: float, best: float, tol: float) -> bool:
    """Bound meets the incumbent within ``tol`` relative (the B&B stopping rule)."""
    return bound <= best + tol * max(1.0, abs(best))


@dataclass
class RelaxOptions:
    """The options of one :func:`relax` call (Jaakkola et al. 2010, §5: CD to a stall, decode,
    subgradient steps, separation, per round)."""

    #: separate clusters (§5.3) after each round; without, CD and subgradient steps only
    separate: bool = True
    #: relative tolerance of "closed": the bound meets the incumbent (:func:`closed`)
    tol: float = 1e-9
    #: ``time.perf_counter()`` time at which the rounds stop
    deadline: float = math.inf
    #: CD sweeps in all (None: no budget)
    max_sweeps: int | None = None
    max_rounds: int = 10_000
    #: subgradient steps per round (eqs. 12-13, ε_t = ε_0/√t), each followed by a few CD sweeps
    subgradient_steps: int = 4
    #: ε_0 (None: half the median positive λ at the first subgradient phase)
    eps0: float | None = None
    #: rounds without new clusters and without a better bound before the rounds stop
    stall_rounds: int = 2
    #: an exact LP solve of the dual over the current clusters after each stalled CD
    #: (:mod:`lpbn.dual.polish`): λ leaves the CD stall point, so separation and decoding see an
    #: LP-optimal dual; replaces the subgradient phase
    lp_polish: bool = False
    #: tailing off: stop once the last ``tail_rounds`` rounds together lowered the bound by less
    #: than ``tail_gain`` times the remaining gap to the incumbent (separation still finds
    #: clusters, but they no longer pay; branching does, as in branch-and-cut solvers); 0: off
    tail_rounds: int = 0
    tail_gain: float = 0.0
    #: called with the work of each CD sweep (:meth:`DualState.optimise`)
    on_sweep: Callable[[float], None] | None = None
    #: called with each better bound
    on_bound: Callable[[float], None] | None = None
    #: called after every round with the round's min-regret order (eqs. 15-16), e.g. to seed
    #: a local search
    on_round: Callable[[np.ndarray], None] | None = None
    #: polled between the steps of a round, beside the deadline: a stop from outside (the
    #: solve's control: a gap limit, a race's rival that proved) ends the rounds too
    stop: Callable[[], bool] | None = None


class _Infeasible(Exception):
    """The restricted problem admits no DAG (the dual is -inf)."""


def relax(state: DualState, inc: Incumbent, opts: RelaxOptions | None = None,
          **fields) -> tuple[float, np.ndarray, RelaxStats]:
    """Minimise the dual over the current (and separated) clusters under ``opts`` (a
    :class:`RelaxOptions`; keyword ``fields`` build one, or override ``opts``' fields).

    Returns (certified dual value of the best λ, best λ, stats).  The value is recomputed
    from λ without drift; -inf means the restricted problem admits no DAG.
    """
    if opts is None:
        opts = RelaxOptions(**fields)
    elif fields:
        opts = replace(opts, **fields)
    run = _Relaxation(state, inc, opts)
    try:
        run.rounds()
    except _Infeasible:
        return -math.inf, state.lam.copy(), run.st
    state.set_lambda(run.best_lam)
    v = state.value()
    run.st.sweeps = state.sweeps - run.sweeps0
    return v, run.best_lam, run.st


class _Relaxation:
    """One :func:`relax` call: the rounds, with the best bound and its λ so far."""

    def __init__(self, state: DualState, inc: Incumbent, opts: RelaxOptions):
        self.state, self.inc, self.opts = state, inc, opts
        self.st = RelaxStats()
        self.sweeps0 = state.sweeps
        self.budget = math.inf if opts.max_sweeps is None else opts.max_sweeps
        self.eps0 = opts.eps0
        self.best_v = math.inf
        self.best_lam: np.ndarray | None = None      # set by rounds() before anything reads it

    def left(self) -> float:
        return self.budget - (self.state.sweeps - self.sweeps0)

    def over(self) -> bool:
        return past(self.opts.deadline) or (self.opts.stop is not None and self.opts.stop())

    def spent(self) -> bool:
        return self.over() or self.left() <= 0

    def keep(self, v: float, infeasible_ends: bool = True) -> None:
        """Record the dual value ``v`` of the current λ: a better bound is kept with its λ;
        -inf (after CD: no DAG) ends the relaxation unless ``infeasible_ends`` is false."""
        if v == -math.inf and infeasible_ends:
            raise _Infeasible
        if v < self.best_v:
            self.best_v, self.best_lam = v, self.state.lam.copy()
            if self.opts.on_bound is not None:
                self.opts.on_bound(v)

    def decode(self) -> np.ndarray:
        choice, score, order = self.state.decode()
        self.inc.offer(choice, score)
        return order

    def rounds(self) -> None:
        state, opts = self.state, self.opts
        v = state.exact_value()
        if v == -math.inf:
            raise _Infeasible
        self.best_v, self.best_lam = v, state.lam.copy()
        stall = 0
        bounds = [self.best_v]
        new_from = 0
        for t in range(1, opts.max_rounds + 1):
            self.st.rounds = t
            round_start = self.best_v
            cap = state.round_sweeps if not opts.lp_polish else POLISH_SWEEPS if t == 1 else 1
            self.keep(state.optimise(max_sweeps=int(min(cap, max(1, self.left()))), on_sweep=opts.on_sweep,
                                 deadline=opts.deadline, first=new_from if opts.lp_polish else 0))
            round_order = self.decode()
            if closed(self.best_v, self.inc.score, opts.tol) or self.spent():
                break
            if opts.lp_polish and state.K:
                self.polish()
            elif state.K and opts.subgradient_steps:
                self.subgradient(t)
            added = 0
            if opts.separate and not self.spent():
                new_from = state.K
                added = self.separate(bounds)
            self.st.history.append((t, self.best_v, self.inc.score, state.K))
            if opts.on_round is not None and not self.over():
                opts.on_round(round_order)
            if closed(self.best_v, self.inc.score, opts.tol) or self.spent():
                break
            bounds.append(self.best_v)
            if self.tailed_off(bounds):
                break
            improved = round_start - self.best_v > 1e-9 * max(1.0, abs(self.best_v))
            if added == 0 and not improved:
                stall += 1
                if stall >= opts.stall_rounds:
                    break
            else:
                stall = 0

    def polish(self) -> None:
        """The exact LP polish of the dual over the current clusters, then decode at η and λ."""
        from .polish import polish
        rem = self.opts.deadline - time.perf_counter()
        polish(self.state, None if not math.isfinite(rem) else max(0.2, rem))
        self.st.polishes += 1
        dec = self.state.decode_eta()
        if dec is not None:
            self.inc.offer(dec[0], dec[1])
        self.keep(self.state.value(), infeasible_ends=False)
        self.decode()

    def subgradient(self, t: int) -> None:
        """The subgradient phase of round ``t`` (eqs. 12-13), a few CD sweeps after each step."""
        state, opts = self.state, self.opts
        if self.eps0 is None:
            pos = state.lam[state.lam > 0]
            self.eps0 = 0.5 * float(np.median(pos)) if len(pos) else 1.0
        eps = self.eps0 / math.sqrt(t)
        for _ in range(opts.subgradient_steps):
            state.subgradient(eps)
            self.keep(state.optimise(max_sweeps=int(min(20, max(1, self.left()))), on_sweep=opts.on_sweep,
                                     deadline=opts.deadline))
            if self.spent():
                break
        self.decode()

    def separate(self, bounds: list[float]) -> int:
        """Separate at the best λ (so the gains refer to the bound we keep); clusters added."""
        state, score = self.state, self.inc.score
        state.set_lambda(self.best_lam)
        values = bounds + [self.best_v]
        added = state.separate(deadline=self.opts.deadline, tailing=tailing_off(values, score),
                               cut_tailing=tailing_off(values, score, CUT_TAIL_ROUNDS),
                               local_tailing=tailing_off(values, score, CUT_TAIL_ROUNDS, min_gap=LOCAL_TAIL_MIN_GAP))
        self.best_lam = state.lam.copy()
        self.st.added += added
        return added

    def tailed_off(self, bounds: list[float]) -> bool:
        k, gain, best = self.opts.tail_rounds, self.opts.tail_gain, self.best_v
        return bool(k) and len(bounds) > k and math.isfinite(self.inc.score) and \
            bounds[-1 - k] - best < gain * (best - self.inc.score)
