"""The order-graph layers expanded in blocks on several threads (lpbn.bfbnb.blocks) write
the serial run's layers: same sizes, counters, bound and DAG, for every thread count."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.bfbnb import blocks
from lpbn.errors import InputError
from lpbn.formats import read_scores
from lpbn.testing import random_cache

# obs_time=0: the incumbent (and so the pruning) must not depend on the machine's speed
DETERMINISTIC = {"obs_time": 0.0, "heuristic": "simple"}


def _fingerprint(r):
    s = r.stats
    return (r.status, r.score, r.upper_bound, [tuple(p) for p in r.dag.parents], s["layer_sizes"],
            s["generated"], s["pruned"], s["expanded"])


@pytest.fixture
def every_layer_parallel(monkeypatch):
    """Split every layer (the same for every example: safe to share across hypothesis's)."""
    monkeypatch.setattr(blocks, "PARALLEL_MIN_LAYER", 1)


def test_block_streams_cover_each_successor_once():
    """Every (U, X) pair with X not in U feeds exactly the block of U ∪ {X}'s top bits."""
    n, b = 7, 3
    for size in (1, 3, 5):
        keys = np.array(sorted(sum(1 << v for v in c) for c in combinations(range(n), size)),
                        dtype=np.uint64)
        start, stop = blocks.block_streams(keys, n, b)
        seen = {}
        for h in range(1 << b):
            for x in range(n):
                for i in range(start[h, x], stop[h, x]):
                    u = int(keys[i])
                    if u >> x & 1:
                        continue
                    s = u | 1 << x
                    assert s >> (n - b) == h
                    assert (u, x) not in seen
                    seen[(u, x)] = h
        assert len(seen) == len(keys) * (n - size)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(2, 11), st.integers(0, 10**6), st.floats(0.2, 0.7), st.booleans())
def test_threads_give_the_serial_layers(every_layer_parallel, n, seed, density, ties):
    c = random_cache(n, seed=seed, density=density, integer_scores=ties)
    serial = lpbn.solve(c, "bfbnb", threads=1, **DETERMINISTIC)
    for threads in (2, 3):
        r = lpbn.solve(c, "bfbnb", threads=threads, **DETERMINISTIC)
        assert _fingerprint(r) == _fingerprint(serial)
        assert r.stats["parallel_layers"] >= 1
    assert serial.score == pytest.approx(lpbn.solve(c, "dp").score, rel=1e-12, abs=1e-9)


def test_threads_with_layers_on_disk(every_layer_parallel, instances):
    """Layers that spill to disk are expanded serially, the others in blocks: same answer."""
    c = read_scores(instances / "alisterl__eBNSL/scores/wine.BIC.3")
    serial = lpbn.solve(c, "bfbnb", threads=1, memory_limit="10k", **DETERMINISTIC)
    mixed = lpbn.solve(c, "bfbnb", threads=2, memory_limit="10k", **DETERMINISTIC)
    ram = lpbn.solve(c, "bfbnb", threads=2, **DETERMINISTIC)
    assert serial.stats["disk_layers"] >= 3 and mixed.stats["disk_layers"] == serial.stats["disk_layers"]
    assert 1 <= mixed.stats["parallel_layers"] < ram.stats["parallel_layers"]
    assert _fingerprint(mixed) == _fingerprint(serial) == _fingerprint(ram)
    assert serial.score == pytest.approx(-1258.44590861, rel=1e-10)


def test_time_limit_in_a_parallel_layer_keeps_valid_bounds(every_layer_parallel):
    c = random_cache(14, seed=3, density=0.7)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, "bfbnb", threads=2, time_limit=1e-3, **DETERMINISTIC)
    assert r.upper_bound >= opt - 1e-9 * abs(opt) and r.score <= opt + 1e-9 * abs(opt)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_bad_thread_counts_are_refused(bad):
    with pytest.raises(InputError, match="threads"):
        lpbn.solve(random_cache(4, seed=0), "bfbnb", threads=bad)
