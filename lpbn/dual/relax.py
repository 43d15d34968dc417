"""One LP relaxation solve in the dual: CD + subgradient + separation rounds (Jaakkola 2010, §5).

Round t: coordinate descent to a stall (eqs. 9-11), decode (§5.2), a short phase of
subgradient steps (eqs. 12-13, ε_t = ε_0/√t) each followed by a few CD sweeps (the best λ
seen is kept), then separation (§5.3).  Stops when closed against the incumbent, when a
round neither adds clusters nor improves the bound, or at the deadline / sweep budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..incumbent import Incumbent
from ..lp.separation import LOCAL_TAIL_MIN_GAP, tailing_off
from ..signals import pending
from .state import DualState

#: Rounds over which the bound must tail off before {0, 1/2}-cuts are separated: twice the
#: clusters' window, since a root can pause for three rounds early while clusters still
#: pay (wdbc: 3 rounds gained 0.99% of a 5% gap at 0.7 s, then 24 cuts made the tree
#: 14 -> 28 s; the next round gained 21% of the gap by clusters alone).
CUT_TAIL_ROUNDS = 6
#: CD sweeps in a node's first round before the exact polish (the polish re-optimises λ
#: anyway); later rounds sweep once over the clusters separated in the previous round.
POLISH_SWEEPS = 5


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


def relax(state: DualState, inc: Incumbent, *, separate: bool = True, tol: float = 1e-9,
          deadline: float = math.inf, max_sweeps: int | None = None, max_rounds: int = 10_000,
          subgradient_steps: int = 4, on_sweep: Callable[[float], None] | None = None,
          on_bound: Callable[[float], None] | None = None, stall_rounds: int = 2,
          eps0: float | None = None, lp_polish: bool = False,
          on_round: Callable[[np.ndarray], None] | None = None,
          tail_rounds: int = 0, tail_gain: float = 0.0,
          stop: Callable[[], bool] | None = None) -> tuple[float, np.ndarray, RelaxStats]:
    """Minimise the dual over the current (and separated) clusters.

    With ``lp_polish`` a stalled CD is followed each round by an exact solve of the dual LP
    over the current clusters (:mod:`lpbn.dual.polish`), which moves λ off the CD stall
    point so separation and decoding see an LP-optimal dual.  ``on_round`` is called after
    every round with the round's min-regret order (eqs. 15-16), e.g. to seed a local search.

    Tailing off: with ``tail_rounds > 0`` the rounds also stop once the last
    ``tail_rounds`` rounds together lowered the bound by less than ``tail_gain`` times the
    remaining gap to the incumbent (separation still finds clusters, but they no longer
    pay; branching does, as in branch-and-cut solvers).

    ``stop`` is polled between the steps of a round, beside the deadline: a stop from outside
    (the solve's control: a gap limit, a race's rival that proved) ends the rounds too.

    Returns (certified dual value of the best λ, best λ, stats).  The value is recomputed
    from λ without drift; -inf means the restricted problem admits no DAG.
    """
    st = RelaxStats()
    sweeps0 = state.sweeps
    budget = math.inf if max_sweeps is None else max_sweeps

    def left() -> float:
        return budget - (state.sweeps - sweeps0)

    def over() -> bool:
        return past(deadline) or (stop is not None and stop())

    v = state.exact_value()
    if v == -math.inf:
        return v, state.lam.copy(), st
    best_v, best_lam = v, state.lam.copy()
    stall = 0
    t = 0
    bounds = [best_v]
    new_from = 0
    while t < max_rounds:
        t += 1
        st.rounds = t
        round_start = best_v
        cap = state.round_sweeps if not lp_polish else POLISH_SWEEPS if t == 1 else 1
        v = state.optimise(max_sweeps=int(min(cap, max(1, left()))), on_sweep=on_sweep, deadline=deadline,
                           first=new_from if lp_polish else 0)
        if v == -math.inf:
            return v, state.lam.copy(), st
        if v < best_v:
            best_v, best_lam = v, state.lam.copy()
            if on_bound is not None:
                on_bound(best_v)
        choice, score, round_order = state.decode()
        inc.offer(choice, score)
        if closed(best_v, inc.score, tol) or over() or left() <= 0:
            break
        if lp_polish and state.K:
            from .polish import polish
            rem = deadline - time.perf_counter()
            polish(state, None if not math.isfinite(rem) else max(0.2, rem))
            st.polishes += 1
            dec = state.decode_eta()
            if dec is not None:
                inc.offer(dec[0], dec[1])
            v = state.value()
            if v < best_v:
                best_v, best_lam = v, state.lam.copy()
                if on_bound is not None:
                    on_bound(best_v)
            choice, score, _ = state.decode()
            inc.offer(choice, score)
        # subgradient phase (eqs. 12-13)
        elif state.K and subgradient_steps:
            if eps0 is None:
                pos = state.lam[state.lam > 0]
                eps0 = 0.5 * float(np.median(pos)) if len(pos) else 1.0
            eps = eps0 / math.sqrt(t)
            for _ in range(subgradient_steps):
                state.subgradient(eps)
                v = state.optimise(max_sweeps=int(min(20, max(1, left()))), on_sweep=on_sweep,
                                   deadline=deadline)
                if v == -math.inf:
                    return v, state.lam.copy(), st
                if v < best_v:
                    best_v, best_lam = v, state.lam.copy()
                    if on_bound is not None:
                        on_bound(best_v)
                if over() or left() <= 0:
                    break
            choice, score, _ = state.decode()
            inc.offer(choice, score)
        added = 0
        if separate and not over() and left() > 0:
            # separate at the best λ so the gains refer to the bound we keep
            state.set_lambda(best_lam)
            new_from = state.K
            values = bounds + [best_v]
            added = state.separate(deadline=deadline, tailing=tailing_off(values, inc.score),
                                   cut_tailing=tailing_off(values, inc.score, CUT_TAIL_ROUNDS),
                                   local_tailing=tailing_off(values, inc.score, CUT_TAIL_ROUNDS,
                                                             min_gap=LOCAL_TAIL_MIN_GAP))
            best_lam = state.lam.copy()
            st.added += added
        st.history.append((t, best_v, inc.score, state.K))
        if on_round is not None and not over():
            on_round(round_order)
        if closed(best_v, inc.score, tol) or over() or left() <= 0:
            break
        bounds.append(best_v)
        if tail_rounds and len(bounds) > tail_rounds and math.isfinite(inc.score) and \
                bounds[-1 - tail_rounds] - best_v < tail_gain * (best_v - inc.score):
            break
        improved = round_start - best_v > 1e-9 * max(1.0, abs(best_v))
        if added == 0 and not improved:
            stall += 1
            if stall >= stall_rounds:
                break
        else:
            stall = 0
    state.set_lambda(best_lam)
    v = state.value()
    st.sweeps = state.sweeps - sweeps0
    return v, best_lam, st
