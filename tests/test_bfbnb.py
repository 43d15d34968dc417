"""method="bfbnb" (Malone et al. 2011): exactness against DP and known optima, bounds,
external memory (spills, streamed layers), temp-file cleanup, anytime behaviour, OBS."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import lpbn
from lpbn.bfbnb import quick_ordering_search
from lpbn.bfbnb.heuristic import make_groups, relabel
from lpbn.options import parse_memory
from lpbn.cache import ScoreCache
from lpbn.errors import InputError
from lpbn.formats import read_scores
from lpbn.testing import random_cache

FAST = {"obs_time": 0.02}


def _check(cache, r, opt):
    assert r.status == "optimal"
    assert r.score == pytest.approx(opt, rel=1e-9, abs=1e-9)
    assert r.upper_bound >= opt - 1e-9 * max(1, abs(opt))
    assert r.gap <= 1e-9
    assert r.dag.is_acyclic()
    assert cache.dag_score(r.dag.parents) == pytest.approx(r.score, rel=1e-12, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 10), st.integers(0, 10**6), st.floats(0.1, 0.7), st.booleans(),
       st.sampled_from(["static", "simple"]), st.integers(1, 6))
def test_equals_dp_on_random_caches(n, seed, density, ties, heuristic, group):
    c = random_cache(n, seed=seed, density=density, integer_scores=ties)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, "bfbnb", heuristic=heuristic, group_size=group, **FAST)
    _check(c, r, opt)


@settings(max_examples=10, deadline=None)
@given(st.integers(6, 11), st.integers(0, 10**6))
def test_tiny_memory_streams_layers_from_disk_and_still_optimal(n, seed):
    c = random_cache(n, seed=seed, density=0.6)
    opt = lpbn.solve(c, "dp").score
    # a weak incumbent keeps many nodes open, so the layers really spill
    r = lpbn.solve(c, "bfbnb", memory_limit=1, heuristic="simple", obs_time=0.0,
                   initial_dag=None)
    _check(c, r, opt)
    assert r.stats["disk_layers"] == sum(1 for s in r.stats["layer_sizes"][1:] if s > 0)


def test_disk_layers_give_same_layers(instances):
    c = read_scores(instances / "alisterl__eBNSL/scores/wine.BIC.3")
    opts = dict(heuristic="simple", obs_time=0.0)
    big = lpbn.solve(c, "bfbnb", **opts)
    small = lpbn.solve(c, "bfbnb", memory_limit="10k", **opts)
    assert big.stats["disk_layers"] == 0
    assert small.stats["disk_layers"] >= 3      # layers above 0.4 * 10 KiB / 16 B = 256 nodes
    assert small.stats["layer_sizes"] == big.stats["layer_sizes"]
    assert small.score == pytest.approx(-1258.44590861, rel=1e-10) == big.score


def test_bundled_exact_optima(instances, known_optima):
    for path, entry in known_optima["exact_dp"].items():
        c = read_scores(instances / path)
        r = lpbn.solve(c, "bfbnb", **FAST)
        _check(c, r, entry["optimum"])


@pytest.mark.parametrize("name", ["wine", "hepatitis", "parkinsons", "insurance1000", "autos", "horse",
                                  "flag"])
def test_gobnilp_anchor_optima(instances, known_optima, name):
    key = f"anchors/gobnilp-bic3/{name}.BIC.p3.jkl"
    c = read_scores(instances / key)
    r = lpbn.solve(c, "bfbnb")
    _check(c, r, known_optima["gobnilp_bic3"][key]["optimum"])


def test_shared_exact_dp_sweep(shared):
    """All files with exact DP optima in the shared collection (opt-in, ~1 minute)."""
    data = json.loads((shared / "instances" / "KNOWN_OPTIMA.json").read_text())
    table = data.get("computed_exact_dp") or data.get("exact_dp")
    assert table
    for path, entry in table.items():
        c = read_scores(shared / "instances" / path)
        r = lpbn.solve(c, "bfbnb", **FAST)
        _check(c, r, entry["optimum"])


def test_heuristic_is_admissible_and_static_is_tighter():
    for seed in range(5):
        c = random_cache(9, seed=seed)
        opt = lpbn.solve(c, "dp").score
        p = c.prune_dominated()
        simple = relabel(p, make_groups(p, 1)).h_start()
        static = relabel(p, make_groups(p, 4)).h_start()
        exact = relabel(p, make_groups(p, 9)).h_start()
        assert simple == pytest.approx(float(c.best_unconstrained().sum()))
        assert simple + 1e-9 >= static >= exact - 1e-9
        assert exact == pytest.approx(opt, rel=1e-12)   # one group = the exact DP


def test_groups_partition_variables():
    c = random_cache(13, seed=3)
    for k in (1, 2, 5, 13):
        groups = make_groups(c, k)
        assert sorted(v for g in groups for v in g) == list(range(13))
        assert all(1 <= len(g) <= k for g in groups)


def test_layers_are_in_combinadic_order(tmp_path):
    """Every layer file is sorted by bitmask = colex (combinadic) order (§5.2), duplicate-free,
    and holds exactly the l-subsets a full search (no pruning) must reach."""
    import lpbn.bfbnb.external as ext
    c = random_cache(7, seed=1, density=0.8)
    seen = {}
    orig = ext.LayerFiles.drop_scores

    def keep(self):
        seen[self.level] = np.fromfile(self.paths["keys"], dtype=np.uint64, count=self.count)
        orig(self)

    ext.LayerFiles.drop_scores = keep
    try:
        # an incumbent far below the optimum prunes nothing
        bad = [[] for _ in range(7)]
        r = lpbn.solve(c, "bfbnb", heuristic="simple", obs_time=0.0, memory_limit=1,
                       initial_dag=bad)
    finally:
        ext.LayerFiles.drop_scores = orig
    assert r.optimal
    from math import comb
    for level, keys in seen.items():
        assert np.all(np.diff(keys.astype(np.float64)) > 0)
        assert all(bin(int(k)).count("1") == level for k in keys)
        if r.stats["pruned"] == 0:
            assert len(keys) == comb(7, level)


def test_interrupt_and_error_leave_no_temp_files(tmp_path):
    c = random_cache(12, seed=5, density=0.6)
    for exc in (KeyboardInterrupt, RuntimeError):
        calls = []

        def cb(info, exc=exc):
            calls.append(info)
            if info.get("layer") == 3:
                raise exc("stop")

        d = tmp_path / exc.__name__
        if exc is KeyboardInterrupt:
            r = lpbn.solve(c, "bfbnb", tmp_dir=str(d), callback=cb, memory_limit=1,
                           heuristic="simple", obs_time=0.0)
            assert r.status == "interrupted"
            assert r.dag is not None and r.score <= r.upper_bound
        else:
            with pytest.raises(RuntimeError):
                lpbn.solve(c, "bfbnb", tmp_dir=str(d), callback=cb, memory_limit=1,
                           heuristic="simple", obs_time=0.0)
        assert d.exists() and list(d.iterdir()) == []


def test_sigint_of_a_running_process_leaves_no_temp_files(tmp_path, instances):
    path = instances / "anchors/gobnilp-bic3/parkinsons.BIC.p3.jkl"
    script = textwrap.dedent(f"""
        import lpbn
        r = lpbn.solve({str(path)!r}, "bfbnb", tmp_dir={str(tmp_path)!r}, heuristic="simple",
                       obs_time=0.0, memory_limit="1M")
        print(r.status, flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            subdirs = list(tmp_path.iterdir())
            if subdirs and any(any(d.iterdir()) for d in subdirs if d.is_dir()):
                break
            time.sleep(0.05)
        else:
            pytest.fail("search never wrote temporary files")
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert out.strip() in ("interrupted", "optimal")
    assert list(tmp_path.iterdir()) == []


def test_time_limit_returns_valid_bounds():
    c = random_cache(16, seed=2, density=0.5)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, "bfbnb", time_limit=0.05, heuristic="simple", obs_time=0.0)
    assert r.status in ("time_limit", "optimal")
    assert r.score <= opt + 1e-9 <= r.upper_bound + 1e-9
    assert r.dag.is_acyclic() and c.dag_score(r.dag.parents) == pytest.approx(r.score)


def test_node_limit_and_trace():
    c = random_cache(12, seed=1, density=0.6)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, "bfbnb", node_limit=5, heuristic="simple", obs_time=0.0)
    assert r.status == "node_limit" and r.score <= opt + 1e-9 <= r.upper_bound + 1e-9
    r = lpbn.solve(c, "bfbnb", heuristic="simple", obs_time=0.0)
    bounds = [b for _, _, b in r.trace]
    assert bounds == sorted(bounds, reverse=True) and bounds[-1] == pytest.approx(opt)


def test_initial_dag_is_used():
    c = random_cache(10, seed=4)
    d = lpbn.solve(c, "dp")
    r = lpbn.solve(c, "bfbnb", initial_dag=d.dag, obs_time=0.0)
    _check(c, r, d.score)
    assert r.stats["generated"] <= lpbn.solve(c, "bfbnb", obs_time=0.0).stats["generated"]
    cyc = [[1], [0]] + [[] for _ in range(8)]
    with pytest.raises(InputError, match="cycle"):
        lpbn.solve(c, "bfbnb", initial_dag=cyc)


def test_refuses_more_than_64_variables():
    c = ScoreCache.from_families([f"v{i}" for i in range(65)], [[(-1.0, ())] for _ in range(65)])
    with pytest.raises(InputError, match='method="dual"'):
        lpbn.solve(c, "bfbnb")


def test_bad_options():
    c = random_cache(4, seed=0)
    for kw in ({"memory_limit": "lots"}, {"memory_limit": -5}, {"heuristic": "best"},
               {"group_size": 0}, {"frobnicate": 1}):
        with pytest.raises(InputError):
            lpbn.solve(c, "bfbnb", **kw)
    assert parse_memory("4G") == 4 << 30 and parse_memory("512MiB") == 512 << 20
    assert parse_memory(1000) == 1000


def test_quick_ordering_search():
    for seed in range(4):
        c = random_cache(9, seed=seed)
        order, score = quick_ordering_search(c, seed=seed, time_limit=0.05)
        assert sorted(order.tolist()) == list(range(9))
        assert c.best_for_order(order)[1] == pytest.approx(score)
        assert score <= lpbn.solve(c, "dp").score + 1e-9
    c = random_cache(1, seed=0)
    order, score = quick_ordering_search(c, time_limit=0.0)
    assert order.tolist() == [0] and score == pytest.approx(float(c.scores[0]))



def test_quick_ordering_search_resumes():
    """Runs split over several calls make the same restarts as one call (the order-graph
    search interleaves them with its layers)."""
    from lpbn.ordering.quick import QuickOrderingSearch
    c = random_cache(12, seed=3, max_parents=3)
    one = QuickOrderingSearch(c, seed=5)
    one.run(max_restarts=60)
    split = QuickOrderingSearch(c, seed=5)
    for upto in (7, 8, 30, 60):
        split.run(max_restarts=upto)
    assert split.restarts == one.restarts == 60
    assert split.best_order.tolist() == one.best_order.tolist()
    assert split.result()[1] == one.result()[1]
    stuck = QuickOrderingSearch(c, seed=5)
    stuck.run(patience=3)
    assert stuck.done(3) and not stuck.run(patience=3)     # patience counts across calls


def test_obs_follows_the_search():
    """The default incumbent effort: a first share of OBS's patience before the search, more
    restarts between layers as the expanded nodes grow (reproducible: counted in nodes)."""
    from lpbn.bfbnb.search import OBS_FIRST_SHARE
    c = random_cache(18, seed=1, max_parents=3, density=0.9)
    runs = [lpbn.solve(c, "bfbnb", threads=1, heuristic="simple") for _ in range(2)]
    first = int(OBS_FIRST_SHARE * (500 + 50 * c.n))
    assert runs[0].stats["obs_restarts"] == runs[1].stats["obs_restarts"]
    assert runs[0].stats["layer_sizes"] == runs[1].stats["layer_sizes"]
    assert runs[0].score == pytest.approx(lpbn.solve(c, "dp").score, rel=1e-9)
    assert sum(runs[0].stats["layer_sizes"]) > 2000           # the search earned more restarts
    assert first < runs[0].stats["obs_restarts"] < 500 + 50 * c.n


def test_dual_solution_as_incumbent():
    from lpbn.solve import available_methods
    if "dual" not in available_methods():
        pytest.skip("method dual not available in this build")
    c = random_cache(9, seed=6)
    opt = lpbn.solve(c, "dp").score
    r = lpbn.solve(c, "bfbnb", dual_time=1.0, obs_time=0.0)
    _check(c, r, opt)
    assert "dual_score" in r.stats and r.stats["dual_score"] <= opt + 1e-9


def test_64_variables():
    """n = 64 fills the whole uint64 word: a chain plus tempting back edges."""
    n = 64
    fams = []
    for i in range(n):
        fam = [(-10.0, ())]
        if i > 0:
            fam.append((-1.0, (i - 1,)))
        if i < n - 1:
            fam.append((-9.5, (i + 1,)))
        fams.append(fam)
    c = ScoreCache.from_families([f"v{i}" for i in range(n)], fams)
    r = lpbn.solve(c, "bfbnb", time_limit=60)
    assert r.status == "optimal"
    assert r.score == pytest.approx(-10.0 - 63.0)
    assert r.dag.parents[5] == (4,)


def test_projection_of_an_unpruned_order_graph_is_exact():
    """With nothing pruned (every fraction 1, no fall) the projection is the rest of the order
    graph: layer k and every layer after it but the goal."""
    from math import comb
    from lpbn.bfbnb.projection import remaining_nodes
    n = 12
    for k in range(2, n):
        layers = [comb(n, j) for j in range(k + 1)]
        assert remaining_nodes(layers, n) == sum(comb(n, j) for j in range(k, n))


def test_projection_edges_and_falling_fractions():
    from math import comb
    from lpbn.bfbnb.projection import MIN_MEASURED_SECONDS, remaining_nodes, remaining_seconds
    n = 20
    assert remaining_nodes([1, 20], n) == float("inf")          # no ratio and fall yet
    assert remaining_nodes([1, 20, 190, 0], n) == 0.0            # an empty layer ends it
    assert remaining_seconds([1, 20], n, 5.0) is None
    assert remaining_seconds([1, 20, 190, 1140], n, MIN_MEASURED_SECONDS / 2) is None
    # fractions 1, 1/2, 1/5: ratios 1/2, 2/5, so the ratio falls by 1/10 a layer: 3/10, 2/10,
    # 1/10, then 0
    layers = [1, 20, comb(n, 2) // 2, comb(n, 3) // 5]
    f4 = 0.2 * 0.3
    f5, f6 = f4 * 0.2, f4 * 0.2 * 0.1
    expected = layers[3] + comb(n, 4) * f4 + comb(n, 5) * f5 + comb(n, 6) * f6
    assert remaining_nodes(layers, n) == pytest.approx(expected, rel=1e-12)
    secs = remaining_seconds(layers, n, 2.0)
    assert secs == remaining_nodes(layers, n) * 2.0 / sum(layers[:3])


def test_bfbnb_reports_its_projection(instances):
    seen = []
    cache = read_scores(instances / "anchors" / "gobnilp-bic3" / "autos.BIC.p3.jkl")
    res = lpbn.solve(cache, method="bfbnb", threads=1, callback=seen.append)
    assert res.status == "optimal"
    proj = res.stats["projected_seconds"]
    assert len(proj) == len(res.stats["layer_sizes"]) - 1      # one per layer built
    made = [d["projected_seconds"] for d in seen if "projected_seconds" in d]
    assert made == [p for p in proj if p is not None] and made
    assert proj[-1] == 0.0                                      # the goal layer: nothing left
