"""The ``highs`` method's branch and price (lpbn.highs.branch_price) against the DP."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
import lpbn.highs.branch_price as bp
import lpbn.highs.ilp as ilp
from lpbn.highs.branching import meets_parent
from lpbn.lp.cut_loop import cut_loop
from lpbn.lp.model import EtaLP
from lpbn.testing import random_cache

REL = 1e-6


def close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def _short_root():
    """The root's cut loop cut to one round (and each node's to one), so the tree does the work."""
    real = ilp.cut_loop
    return (mock.patch.object(ilp, "cut_loop", lambda model, **kw: real(model, **{**kw, "max_rounds": 1})),
            mock.patch.object(bp, "NODE_ROUNDS", 1))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 10), seed=st.integers(0, 100_000), price=st.booleans(), fix=st.booleans())
def test_branch_and_price_equals_dp(n, seed, price, fix):
    """From a one-round root, the tree (one cut round per node, priced or full columns, with
    or without reduced-cost fixing) proves the DP's optimum; the bound is never below it."""
    cache = random_cache(n, seed=seed, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    root, rounds = _short_root()
    with root, rounds:
        r = lpbn.solve(cache, method="highs", tree="price", column_generation=price, fix_columns=fix,
                       start_search=False, support_mip=False)
    assert r.status == "optimal" and close(r.score, dp.score), (r.score, dp.score, r.message)
    assert close(cache.dag_score(r.dag.parents), r.score) and r.dag.is_acyclic()
    assert all(b >= dp.score - REL * abs(dp.score) for _, _, b in r.trace)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 10), seed=st.integers(0, 100_000), limit=st.integers(1, 3))
def test_a_stopped_tree_keeps_a_valid_bound(n, seed, limit):
    """A node limit ends the tree with the largest open bound, never below the optimum."""
    cache = random_cache(n, seed=seed, density=0.9)
    dp = lpbn.solve(cache, method="dp")
    root, rounds = _short_root()
    with root, rounds:
        r = lpbn.solve(cache, method="highs", tree="price", node_limit=limit, start_search=False,
                       support_mip=False)
    assert r.status in ("optimal", "node_limit")
    assert r.upper_bound >= dp.score - REL * abs(dp.score) and r.score <= dp.score + REL * abs(dp.score)
    assert r.stats.get("bp_nodes", 0) <= limit and r.dag.is_acyclic()


def test_node_mask_drops_the_reverse_edge_and_refuses_forced_cycles():
    cache = random_cache(5, seed=3, density=0.9)
    model = EtaLP(cache)
    base = np.ones(cache.m, dtype=np.bool_)
    mask = bp.node_mask(model, base, ((0, 1, True),))
    lo0, hi0, lo1, hi1 = cache.offsets[0], cache.offsets[1], cache.offsets[1], cache.offsets[2]
    assert np.array_equal(mask[lo0:hi0], meets_parent(cache, 0, 1))       # 0's sets all hold 1
    assert not np.any(mask[lo1:hi1] & meets_parent(cache, 1, 0))          # 1's sets never hold 0
    assert bp.node_mask(model, base, ((0, 1, False),))[lo0:hi0].tolist() == (~meets_parent(cache, 0, 1)).tolist()
    cycle = ((1, 0, True), (2, 1, True), (0, 2, True))                    # 0 -> 1 -> 2 -> 0
    assert bp.node_mask(model, base, cycle) is None


def test_cover_allowed_brings_in_a_bare_variables_best_allowed_columns():
    cache = random_cache(6, seed=1, density=0.9).prune_dominated()
    model = EtaLP(cache, price=True, columns=EtaLP.start_columns(cache, 2))
    lo, hi = int(cache.offsets[2]), int(cache.offsets[3])
    allowed = np.ones(cache.m, dtype=np.bool_)
    allowed[model.cols[(model.cols >= lo) & (model.cols < hi)]] = False  # variable 2's model columns
    model.restrict(allowed)
    came = model.cover_allowed(k=3)
    want = np.flatnonzero(allowed[lo:hi])[:3] + lo
    assert came == len(want) and np.all(model.pos[want] >= 0)
    assert model.cover_allowed(k=3) == 0
    assert model.solve_lp().status == "optimal"


def test_a_stalled_cut_loop_stops_with_a_valid_bound():
    cache = random_cache(9, seed=7, density=0.9)
    best = lpbn.solve(cache, method="dp").score
    res = cut_loop(EtaLP(cache), mode="clusters", exact=False, best=lambda: best, stall=(1, 1.0))
    assert res.stalled or res.rounds <= 2
    assert res.value >= best - REL * abs(best)
