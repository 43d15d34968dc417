"""OBS: ordering-based search (Teyssier & Koller 2005; Scanagatta et al. 2015, §4).

An ordering fixes the DAG: every variable takes its best candidate whose parents all precede
it (:func:`obs_dag`, the same rule as :meth:`ScoreCache.best_for_order`).  A restart climbs
the ordering by improving adjacent swaps and insertion moves
(:func:`lpbn.ordering.kernels.local_climb`, both scored incrementally) to a local optimum
(:func:`obs_climb`, :func:`obs_restart`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..cache import ScoreCache
from .kicks import good_kicks
from .workspace import Workspace


@dataclass
class Point:
    """One restart's outcome: the ordering it ends on (an OBS local optimum, the base of
    later perturbations), that ordering's OBS choice and score, the best DAG it found and
    that DAG's score."""

    order: np.ndarray
    obs: np.ndarray
    obs_score: float
    dag: np.ndarray
    score: float

    @classmethod
    def fresh(cls, ws: Workspace, order: np.ndarray) -> "Point":
        """The OBS decoding of ``order`` (sets ``ws.pos`` for it)."""
        order = np.array(order, dtype=np.int64)
        obs = np.empty(ws.n, dtype=np.int64)
        ws.evaluate(order, obs)
        s = ws.total(obs)
        return cls(order, obs, s, obs, s)


def obs_dag(cache: ScoreCache, order) -> tuple[np.ndarray, float]:
    """OBS decoding of ``order``: (candidate index per variable, exact score)."""
    ws = Workspace(cache)
    pt = Point.fresh(ws, order)
    return pt.obs, pt.score


def obs_climb(ws: Workspace, pt: Point, ranges, stop: Callable[[], bool] | None,
              stats: dict) -> Point:
    """Climb ``pt.order`` (``ws.pos`` and ``pt.obs`` current for it) by adjacent swaps and
    insertions within ``ws.window``, first checking the moves at the positions in ``ranges``
    (around the kicked segments; ``[(0, n)]`` for a fresh ordering), until converged or
    ``stop()``.  ``pt.obs`` stays the exact OBS decoding of ``pt.order``.  Updates ``pt``."""
    before = ws.state[1:].copy()
    ws.climb(pt.order, pt.obs, ranges, stop)
    stats["climbs"] += 1
    stats["swaps"] += int(ws.state[1] - before[0])
    stats["evaluations"] += int(ws.state[2] - before[1])
    stats["insertions"] += int(ws.state[4] - before[3])
    pt.dag = pt.obs
    pt.score = pt.obs_score = ws.total(pt.obs)
    return pt


def obs_restart(ws: Workspace, start, stop: Callable[[], bool] | None, stats: dict,
                base: Point | None = None, rebuild: Callable | None = None) -> Point:
    """One OBS restart from ``start`` (a :class:`~lpbn.ordering.starts.Start`): climb; when
    it kicked several segments of the incumbent ``base`` and some kicks lost while others
    gained (:func:`~lpbn.ordering.kicks.good_kicks`), climb again from ``base`` with the good
    kicks only (``rebuild(keep)``) and keep the better."""
    pt = obs_climb(ws, start.point, start.ranges, stop, stats)
    keep = good_kicks(ws, start, base, pt.obs, pt.order) if rebuild is not None else None
    if keep is not None and not (stop is not None and stop()):
        stats["rebuilds"] = stats.get("rebuilds", 0) + 1
        st = rebuild(keep)
        pt2 = obs_climb(ws, st.point, st.ranges, stop, stats)
        if ws.delta(pt2.obs, pt.obs) > ws.eps:
            pt = pt2
    return pt
