"""Hill climbing with a tabu list over all DAGs, on the data: :func:`hill_climb`.

The search bnlearn's ``hc()`` and ``tabu()`` run (add / remove / reverse one arc, best
improvement; Chickering 2002; the tabu list of Glover 1989), in numba over compact arrays
(:mod:`.hillclimb_kernels`): a per-variable table of move deltas from the data, of which only
the changed families' columns are rescored after a move.  No parent limit is needed (BIC's
penalty stops the growth), none is imposed unless asked.

Why it is here: a budgeted exploration (independence selection) keeps a few hundred parent sets
per variable chosen by their own scores; the best network can use sets it never kept, so the
ordering search over that cache is capped below what a plain local search on the data finds
(issue 52).  The families this climber visits — every family it moved to, on every climb —
seed the cache (:mod:`lpbn.scoring.enlarge`), so the cache cannot miss what local search finds.

After the first climb ends (no improving move, then ``max_idle`` tabu moves without a new best),
the best DAG is perturbed (``perturb`` random legal moves) and climbed again until the time or
move budget ends; the best DAG over all climbs is returned (iterated local search, as bnlearn's
``restart``/``perturb`` arguments).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import hillclimb_kernels as K
from .counting import buffer_limit, lg_table
from .data import read_data
from ..result import smallest_topological_order
from .scores import LN2, MDL, kind_of
from ..tuning import TABU_TENURE, MAX_IDLE

__all__ = ["MAX_IDLE", "TABU_TENURE", "ClimbOptions", "HillClimbResult", "hill_climb"]


@dataclass
class HillClimbResult:
    """The best DAG found (``parents[j]``: ascending variable indices), its score (the sum of
    ``family_scores``, in the units of :func:`lpbn.score_data`), and every family visited:
    ``families`` = (child, parent tuple) -> local score."""

    parents: list[tuple[int, ...]]
    score: float
    families: dict[tuple[int, tuple[int, ...]], float] = field(repr=False)
    stats: dict[str, Any] = field(default_factory=dict)

    def order(self) -> list[int]:
        """A topological order of the DAG (parents first; ties by index)."""
        return smallest_topological_order(self.parents)


class Climber:
    """The arrays of one climb over a data set (see :mod:`.hillclimb_kernels`)."""

    def __init__(self, ds, kind: int, ess: float, max_parents: int | None, records: int):
        self.ds = ds
        self.kind = kind
        self.ess = float(ess)
        n, N = ds.n, ds.N
        self.cols = np.ascontiguousarray(ds.columns)
        self.ar = ds.arities.astype(np.int64)
        self.maxp = n if max_parents is None else int(max_parents)
        self.lgt = lg_table(N)
        maxar = max(1, int(self.ar.max()))
        cells = buffer_limit(N, maxar)
        self.limit = max(1, cells // maxar)
        self.cnt = np.zeros(cells, dtype=np.int32)
        self.pac = np.zeros(cells, dtype=np.int32)
        self.mapbuf = np.zeros(int(min(2 * cells, 1 << 22)), dtype=np.int64)
        self.scr = [np.zeros(N, dtype=np.int64) for _ in range(3)]
        self.adj = np.zeros((n, n), dtype=np.bool_)
        self.best_adj = np.zeros((n, n), dtype=np.bool_)
        self.npar = np.zeros(n, dtype=np.int64)
        self.fs = np.zeros(n)
        self.delta = np.full((n, n), -np.inf)
        self.desc = np.zeros((n, (n + 63) // 64), dtype=np.uint64)
        self.tabu = np.zeros((n, n), dtype=np.int64)
        self.rec_sets = np.zeros((records, min(n, 64) + 2), dtype=np.int64)
        self.rec_score = np.zeros(records)
        self.counted = 0

    def reset_to(self, adj: np.ndarray, budget: float | None = None) -> bool:
        """Make ``adj`` the current DAG and rescore every column of the delta table.  With a
        ``budget`` (seconds), give up (False) as soon as the columns done so far project the
        whole table beyond it: n(n-1) countings of N rows cannot be afforded at every size."""
        self.adj[:] = adj
        self.npar[:] = adj.sum(axis=0)
        if not K.update_desc(self.adj, self.desc):
            raise ValueError("the start graph has a cycle")
        self.tabu[:] = 0
        n = self.ds.n
        t0 = time.perf_counter()
        for j in range(n):
            if j == 1:
                t0 = time.perf_counter()    # the first column also loads the compiled kernels
            self.counted += K.rescore_column(self.cols, self.ar, self.adj, j, self.maxp, self.kind, self.ess,
                                             self.lgt, self.limit, self.cnt, self.pac, self.mapbuf, *self.scr,
                                             self.fs, self.delta)
            if budget is not None and j >= 1 and (time.perf_counter() - t0) * (n - 1) / j > budget:
                return False
        return True

    def climb(self, deadline: float | None, max_idle: int, tenure: int, rec_n: int) -> tuple[float, int, bool]:
        """Climb from the current DAG until a stop (see :func:`K.climb`) or ``deadline``;
        returns (best score, records, finished) with ``best_adj`` set."""
        total = float(self.fs.sum())
        self.best_adj[:] = self.adj
        state = np.array([0.0, total, total, 0.0, 0.0, float(rec_n), 0.0])
        chunk = 1
        while True:
            t = time.perf_counter()
            K.climb(self.cols, self.ar, self.adj, self.npar, self.maxp, self.kind, self.ess, self.lgt, self.limit,
                    self.cnt, self.pac, self.mapbuf, *self.scr, self.fs, self.delta, self.desc, self.tabu, tenure,
                    state, chunk, max_idle, self.rec_sets, self.rec_score, self.best_adj)
            if state[6] or (deadline is not None and time.perf_counter() >= deadline):
                break
            took = time.perf_counter() - t
            chunk = int(min(max(1, chunk * 2 if took < 0.1 else chunk), 1 << 20))   # ~0.1 s between checks
        self.counted += int(state[4])
        return float(state[2]), int(state[5]), bool(state[6])


@dataclass(frozen=True)
class ClimbOptions:
    """Settings of :func:`hill_climb`'s search: the tabu list (``tenure``: moves a touched pair
    stays tabu; ``max_idle``: tabu moves in a row without a new best before a climb ends; 0 and
    0: plain hill climbing, bnlearn's ``hc()``), ``perturb`` (random legal moves applied to the
    best DAG before each further climb; default ``max(2, n // 10)``), ``seed``, and
    ``table_budget`` (seconds the first delta table of n(n-1) families may take: when the
    columns counted first project it beyond that, :func:`hill_climb` returns None at once)."""

    tenure: int = TABU_TENURE
    max_idle: int = MAX_IDLE
    perturb: int | None = None
    seed: int = 0
    table_budget: float | None = None


def hill_climb(data: Any, score: str = "bic", ess: float = 1.0, max_parents: int | None = None, *,
               time_limit: float | None = None, max_climbs: int | None = None, start: Any = None,
               options: ClimbOptions | None = None,
               say: Callable[[str], None] | None = None) -> HillClimbResult | None:
    """Hill climbing + tabu over all DAGs on ``data``, with perturbation restarts.

    Parameters
    ----------
    data : anything :func:`lpbn.read_data` reads (or a Dataset).
    score, ess, max_parents : as :func:`lpbn.score_data` (no parent limit by default).
    time_limit : seconds; the climb in progress stops there with the best DAG so far.
    max_climbs : climbs in all (the first and the perturbed ones); default: one climb without a
        time limit, else as many as the time allows.
    start : optional start DAG as parents per variable (indices).
    options : :class:`ClimbOptions` (default: bnlearn ``tabu()``'s tabu list, no table budget).
    say : progress lines (each new best).
    """
    opt = options or ClimbOptions()
    t0 = time.perf_counter()
    ds = read_data(data)
    kind = kind_of(score)
    n = ds.n
    deadline = None if time_limit is None else t0 + float(time_limit)
    if max_climbs is None:
        max_climbs = 1 if time_limit is None else 1 << 30
    rng = np.random.default_rng(opt.seed)
    cl = Climber(ds, kind, ess, max_parents, records=max(1 << 16, 64 * n))
    adj0 = np.zeros((n, n), dtype=np.bool_)
    for j, ps in enumerate(start or []):
        adj0[list(ps), j] = True
    if not cl.reset_to(adj0, opt.table_budget):
        if say:
            say(f"hill climbing: the first table of {n * (n - 1)} families would take more than "
                f"{opt.table_budget:.1f} s; not climbing")
        return None
    best_adj = adj0.copy()
    best = float(cl.fs.sum())
    families: dict[tuple[int, tuple[int, ...]], float] = {}
    _record_current(cl, families)
    rec_n = 0
    climbs = 0
    k = max(2, n // 10) if opt.perturb is None else int(opt.perturb)
    while climbs < max_climbs:
        sc, rec_n, finished = cl.climb(deadline, opt.max_idle, opt.tenure, rec_n)
        climbs += 1
        rec_n = _drain_records(cl, rec_n, families)
        if sc > best + 1e-9 * (1.0 + abs(best)):
            best = sc
            best_adj[:] = cl.best_adj
            if say:
                say(f"hill climbing: climb {climbs}, score {to_units(kind, best):.6f} "
                    f"[{time.perf_counter() - t0:.1f} s]")
        if not finished or (deadline is not None and time.perf_counter() >= deadline):
            break
        cl.reset_to(cl.best_adj)
        _record_neighbours(cl, families)
        if n < 2:       # nothing to perturb
            break
        if climbs < max_climbs:
            cl.reset_to(_perturbed(best_adj, k, rng, cl.maxp))
    parents = [tuple(int(i) for i in np.flatnonzero(best_adj[:, j])) for j in range(n)]
    fams = {key: to_units(kind, v) for key, v in families.items()}
    stats = {"climbs": climbs, "families_counted": cl.counted, "families_recorded": len(fams),
             "seconds": time.perf_counter() - t0, "arcs": int(best_adj.sum())}
    return HillClimbResult(parents, to_units(kind, best), fams, stats)


def to_units(kind: int, value: float) -> float:
    """Internal nats -> the stored score units (MDL: BIC / ln 2)."""
    return value / LN2 if kind == MDL else value


def _record_current(cl: Climber, families: dict) -> None:
    for j in range(cl.ds.n):
        families[(j, tuple(int(i) for i in np.flatnonzero(cl.adj[:, j])))] = float(cl.fs[j])


def _record_neighbours(cl: Climber, families: dict) -> None:
    """Record the one-arc neighbours of every family of the current DAG (scores from the
    delta table, no counting): each family without one of its parents, and with one more
    parent when that scores better (an addition that loses is dominated by the family itself,
    so it could never be chosen).  The improving additions that the climb could not make
    (they close a cycle) are the families an ordering search needs to reorder the DAG."""
    n = cl.ds.n
    for j in range(n):
        ps = [int(i) for i in np.flatnonzero(cl.adj[:, j])]
        for i in np.flatnonzero(np.isfinite(cl.delta[:, j])):
            i = int(i)
            d = float(cl.delta[i, j])
            if cl.adj[i, j]:
                families[(j, tuple(p for p in ps if p != i))] = float(cl.fs[j]) + d
            elif d > 0:
                families[(j, tuple(sorted(ps + [i])))] = float(cl.fs[j]) + d


def _drain_records(cl: Climber, rec_n: int, families: dict) -> int:
    """Move the kernel's record buffer into ``families``; returns 0 (the buffer's new fill).
    Families too wide for the buffer's rows are not recorded there (the final DAG is recorded
    by the caller from the adjacency)."""
    rows = cl.rec_sets[:rec_n]
    for r in range(rec_n):
        k = int(rows[r, 1])
        families[(int(rows[r, 0]), tuple(int(x) for x in rows[r, 2:2 + k]))] = float(cl.rec_score[r])
    _record_current(cl, families)
    return 0


def _perturbed(adj: np.ndarray, k: int, rng: np.random.Generator, maxp: int) -> np.ndarray:
    """``adj`` after ``k`` random legal moves (add, remove or reverse an arc), kept acyclic."""
    out = adj.copy()
    n = out.shape[0]
    desc = np.zeros((n, (n + 63) // 64), dtype=np.uint64)
    K.update_desc(out, desc)
    done = 0
    for _ in range(50 * k):
        if done >= k:
            break
        i, j = (int(x) for x in rng.choice(n, size=2, replace=False))
        if out[i, j]:
            if rng.random() < 0.5:
                out[i, j] = False
            elif out[:, i].sum() < maxp and K.reversal_ok(out, desc, i, j):
                out[i, j] = False
                out[j, i] = True
            else:
                continue
        elif not out[j, i] and out[:, j].sum() < maxp and not K.has_bit(desc, j, i):
            out[i, j] = True
        else:
            continue
        K.update_desc(out, desc)
        done += 1
    return out
