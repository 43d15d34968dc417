"""Branching for the dual's branch and bound (Jaakkola et al. 2010, §6).

A node of the search restricts some variables' parent sets by cluster decisions
(i, C, v): ``v = 1`` keeps the parent sets s of i with I_C(s) = 1 (s ∩ C = ∅), ``v = 0`` the
others.  Both children are initialised with the parent's clusters and dual variables λ (§6),
so the dual objective (eq. 8) at the inherited λ is already a valid bound for them.

* :class:`Node` — an open node of the best-first search (highest bound first, §6).
* :func:`allowed_mask` — the candidates a node's decisions leave.
* :func:`choose_branch` — the paper's rule: the key node with most I_C flips and a cluster.
* :func:`choose_branch_eta` / :func:`choose_branch_strong` (with :class:`Pseudocosts`) — edge
  branching at the polished LP point η (eq. 3 marginals), most fractional or by reliability
  branching (Achterberg et al. 2005); beyond the paper, used with ``lp_polish``.
* :func:`fixed_structure` — the leaf case: one parent set left per variable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cache import ScoreCache
from .state import DualState


@dataclass(order=True)
class Node:
    """An open node of the best-first search; ``heapq`` pops the highest bound first (§6)."""

    key: float                       # -bound (heapq is a min-heap)
    seq: int
    bound: float = field(compare=False)
    decisions: tuple = field(compare=False)   # ((i, cluster row bytes, value), ...)
    lam: np.ndarray = field(compare=False, repr=False)
    depth: int = field(compare=False, default=0)
    basis: Any = field(compare=False, repr=False, default=None)   # parent's LP basis (warm start)
    nid: int = field(compare=False, default=0)                    # id in the certificate tree


def allowed_mask(cache: ScoreCache, decisions: tuple) -> np.ndarray:
    """The candidates left by the decisions ``(i, cluster row bytes, v)`` of a node (§6)."""
    allowed = np.ones(cache.m, dtype=np.bool_)
    for i, row, v in decisions:
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        r = np.frombuffer(row, dtype=np.uint64)
        disjoint = ~np.any(cache.bits[lo:hi] & r, axis=1)
        allowed[lo:hi] &= disjoint if v else ~disjoint
    return allowed


def _split_ok(cache: ScoreCache, allowed: np.ndarray, i: int, row: np.ndarray) -> bool:
    lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
    a = allowed[lo:hi]
    disjoint = ~np.any(cache.bits[lo:hi] & row, axis=1)
    return bool(np.any(a & disjoint) and np.any(a & ~disjoint))


def choose_branch_eta(state: DualState) -> tuple[int, np.ndarray] | None:
    """Edge branching at the polished LP point: the edge p -> i whose marginal μ_pi
    (eq. 3) is closest to 1/2, as the cluster C = {i, p} (I_C(s) = [p ∉ s])."""
    mu = _edge_marginals(state)
    if mu is None:
        return None
    from .. import bitsets as bs
    p_idx, i_idx = np.nonzero((mu > 0.0) & (mu < 1 - 1e-6))
    keys = np.abs(mu[p_idx, i_idx] - 0.5)
    for t in np.argsort(keys, kind="stable"):
        p, i = int(p_idx[t]), int(i_idx[t])
        row = bs.to_bitset([i, p], state.n)
        if _split_ok(state.cache, state.allowed, i, row):
            return i, row
    return None


def _edge_marginals(state: DualState) -> np.ndarray | None:
    """μ[p, i] = Σ_{s∋p} η_i(s) at the polished LP point (eq. 3), or None without one."""
    if state.last_eta is None:
        return None
    from ..lp.separation import edge_marginals
    return edge_marginals(state.cache, state.last_eta)


def _edge_candidates(state: DualState) -> list[tuple[float, int, int, float]]:
    """Fractional edges p -> i of the polished LP point η: (|μ_pi - 1/2|, i, p, μ_pi), μ of eq. 3."""
    mu = _edge_marginals(state)
    if mu is None:
        return []
    p_idx, i_idx = np.nonzero((mu > 1e-6) & (mu < 1 - 1e-6))
    return sorted((abs(float(mu[p, i]) - 0.5), int(i), int(p), float(mu[p, i]))
                  for p, i in zip(p_idx, i_idx))


class Pseudocosts:
    """Per-edge bound decrease per unit of LP marginal moved, for each branch direction
    (reliability branching, Achterberg et al. 2005): learnt from strong-branching probes;
    an edge probed ``reliable`` times is scored from these averages instead of probing."""

    def __init__(self, reliable: int = 2):
        self.reliable = reliable
        self.data: dict[tuple[int, int], list[float]] = {}

    def update(self, key: tuple[int, int], mu: float, d1: float, d0: float) -> None:
        r = self.data.setdefault(key, [0.0, 0, 0.0, 0])
        if math.isfinite(d1) and mu > 1e-6:
            r[0] += d1 / mu
            r[1] += 1
        if math.isfinite(d0) and mu < 1 - 1e-6:
            r[2] += d0 / (1 - mu)
            r[3] += 1

    def estimate(self, key: tuple[int, int], mu: float) -> tuple[float, float] | None:
        r = self.data.get(key)
        if r is None or min(r[1], r[3]) < self.reliable:
            return None
        return r[0] / r[1] * mu, r[2] / r[3] * (1 - mu)


def choose_branch_strong(state: DualState, value: float, best: float, k: int = 8,
                         time_limit: float | None = None, iterations: int = 2000,
                         pseudo: Pseudocosts | None = None,
                         lookahead: int = 0) -> tuple[int, np.ndarray] | None:
    """Reliability branching (Achterberg et al. 2005) over the ``k`` most fractional edges of η.

    Each candidate edge p -> i is the §6 branch on the cluster C = {i, p}
    (I_C(s) = [p ∉ s] versus [p ∈ s]).  Unless its pseudocosts are reliable, both children's
    LPs over the current clusters are probed from the node's optimal basis (strong
    branching, at most ``iterations`` dual-simplex pivots each); the edge with the largest
    product of bound decreases (floored at 1e-6 of the gap) wins.  Candidates are probed one
    at a time, most fractional first; a child found infeasible or closed on its LP ends the
    search at once, and with ``lookahead`` it also ends once that many candidates in a row did
    not beat the best (Achterberg et al. 2005).  Only the choice depends on these estimates:
    every child still gets its own certified dual bound.  Returns None without a polished LP
    (the caller falls back to :func:`choose_branch_eta`).
    """
    lp = getattr(state, "_lp", None)
    if lp is None or not hasattr(lp, "trial_bounds") or state.last_eta is None:
        return None
    from .. import bitsets as bs
    cache = state.cache
    cands = []
    for _, i, p, mu in _edge_candidates(state):
        row = bs.to_bitset([i, p], state.n)
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        a = state.allowed[lo:hi]
        disjoint = ~np.any(cache.bits[lo:hi] & row, axis=1)
        if not (np.any(a & disjoint) and np.any(a & ~disjoint)):
            continue
        cands.append((i, p, mu, row, lo + np.flatnonzero(a & ~disjoint), lo + np.flatnonzero(a & disjoint)))
        if len(cands) >= k:
            break
    if not cands:
        return None
    if len(cands) == 1:
        return cands[0][0], cands[0][3]
    eps = 1e-6 * max(1e-9, value - best) if math.isfinite(best) else 1e-6
    bestkey, choice = None, None
    since, synced = 0, False
    for i, p, mu, row, cols1, cols0 in cands:
        est = pseudo.estimate((i, p), mu) if pseudo is not None else None
        if est is None:
            if not synced:
                lp.sync()
                synced = True
            v1, v0 = lp.trial_bounds([cols1, cols0], time_limit, iterations)
            if v1 == -math.inf or v0 == -math.inf or (math.isfinite(best) and min(v1, v0) <= best):
                # a child that is infeasible or closed on its LP prunes at once: best split
                return i, row
            d1, d0 = value - min(value, v1), value - min(value, v0)
            if pseudo is not None:
                pseudo.update((i, p), mu, d1 if math.isfinite(v1) else math.nan,
                              d0 if math.isfinite(v0) else math.nan)
        else:
            d1, d0 = est
        key = max(d1, eps) * max(d0, eps)
        if bestkey is None or key > bestkey:
            bestkey, choice, since = key, (i, row), 0
        else:
            since += 1
            if lookahead and since >= lookahead:
                break
    return choice


def choose_branch(state: DualState) -> tuple[int, np.ndarray] | None:
    """§6 key node (most I_C flips) and its cluster; falls back to any split.

    The chosen (i, C) must split i's allowed parent sets into two non-empty parts, so
    both children are strictly smaller and the search is finite.
    """
    cache = state.cache
    allowed = state.allowed
    lam = state.lam
    cand_nodes = np.argsort(-state.flips, kind="stable")
    if state.K:
        for i in cand_nodes[:max(1, min(len(cand_nodes), 50))]:
            i = int(i)
            if state.flips[i] == 0:
                break
            best = None
            for c in range(state.K):
                if lam[c] <= 0 or state.ck[c] != 1 or not _has(state.cbits[c], i):
                    continue
                row = state.cbits[c]
                if not _split_ok(cache, allowed, i, row):
                    continue
                a = state.arg[i]
                uses = a >= 0 and not np.any(cache.bits[a] & row)
                key = (uses, lam[c])
                if best is None or key > best[0]:
                    best = (key, c)
            if best is not None:
                return i, state.cbits[best[1]].copy()
        # clusters with positive λ: members whose maximiser satisfies C
        order = np.argsort(-lam, kind="stable")
        for c in order:
            if lam[c] <= 0:
                break
            if state.ck[c] != 1:
                continue
            row = state.cbits[c]
            for i in state.members(int(c)):
                if _split_ok(cache, allowed, int(i), row):
                    return int(i), row.copy()
    # fallback: split a node on one parent of its maximiser, C = {i, p}: I_C(s) = [p ∉ s]
    from .. import bitsets as bs
    for i in range(state.n):
        a = state.arg[i]
        if a < 0:
            continue
        for p in cache.parents(int(a)):
            row = bs.to_bitset([i, p], state.n)
            if _split_ok(cache, allowed, i, row):
                return i, row
    for i in range(state.n):
        lo, hi = int(cache.offsets[i]), int(cache.offsets[i + 1])
        idx = np.flatnonzero(allowed[lo:hi]) + lo
        if len(idx) >= 2:
            for p in set().union(*[set(cache.parents(int(j))) for j in idx]):
                row = bs.to_bitset([i, p], state.n)
                if _split_ok(cache, allowed, i, row):
                    return i, row
    return None


def _has(row: np.ndarray, v: int) -> bool:
    return bool((int(row[v >> 6]) >> (v & 63)) & 1)


def fixed_structure(state: DualState) -> np.ndarray | None:
    """Candidate per variable when every variable has exactly one allowed parent set."""
    counts = np.add.reduceat(state.allowed.astype(np.int64), state.offsets[:-1])
    if np.all(counts == 1):
        return np.flatnonzero(state.allowed)
    return None

