"""The k best networks (issue 13; Chen, Darwiche & Choi, "On pruning with the MDL score"):
brute force over every DAG, ties, both engines, classes, posterior, refusals, CLI."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.cache import ScoreCache
from lpbn.errors import InputError, LpbnWarning
from lpbn.kbest.classes import cpdag
from lpbn.kbest.collect import tie_tol
from lpbn.result import DAG
from lpbn.testing import random_cache

ENGINES = ("bnb", "ilp")


def all_dags(cache: ScoreCache) -> list[tuple[float, tuple[tuple[int, ...], ...]]]:
    """Every DAG the cache allows, with its score, best first (independent of lpbn's search)."""
    out = []
    ranges = [list(cache.family_range(i)) for i in range(cache.n)]
    for combo in itertools.product(*ranges):
        ps = tuple(cache.parents(j) for j in combo)
        if DAG(cache.names, ps).is_acyclic():
            out.append((float(sum(cache.scores[j] for j in combo)), ps))
    out.sort(key=lambda t: -t[0])
    return out


def expected(cache: ScoreCache, k: int):
    dags = all_dags(cache)
    kth = dags[min(k, len(dags)) - 1][0]
    return [d for d in dags if d[0] >= kth - tie_tol(kth)]


def listed(res, cache):
    return [(s["score"], tuple(tuple(sorted(cache.index(p) for p in s["parents"][v])) for v in cache.names))
            for s in res.solutions]


def check_against_brute(cache, k, engine):
    res = lpbn.solve(cache, k_best=k, engine=engine)
    exp = expected(cache, k)
    got = listed(res, cache)
    assert res.status == "optimal", res.message
    assert len(got) == len(exp)
    assert np.allclose([g[0] for g in got], [e[0] for e in exp], rtol=0, atol=1e-7)
    assert {g[1] for g in got} == {e[1] for e in exp}          # the same DAGs, ties included
    for (s, ps) in got:                                          # each score is the DAG's own
        assert math.isclose(s, cache.dag_score(ps), abs_tol=1e-7)
    ranks = [s["rank"] for s in res.solutions]
    scores = [s["score"] for s in res.solutions]
    for i in range(1, len(ranks)):
        tied = abs(scores[i] - scores[i - 1]) <= tie_tol(scores[i - 1]) * 2
        assert (ranks[i] == ranks[i - 1]) if tied else (ranks[i] == i + 1)
    return res


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", range(4))
def test_brute_force_every_rank(engine, seed):
    cache = random_cache(5, seed=seed, density=0.35, integer_scores=seed % 2 == 1)
    for k in (1, 2, 7, 25):
        check_against_brute(cache, k, engine)


def test_brute_force_n6_with_ties():
    cache = random_cache(6, seed=11, density=0.15, max_parents=2, integer_scores=True)
    for engine in ENGINES:
        res = check_against_brute(cache, 25, engine)
        assert len(res.solutions) >= 25


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 5), seed=st.integers(0, 10**6), k=st.integers(1, 30), ties=st.booleans())
def test_engines_agree_property(n, seed, k, ties):
    cache = random_cache(n, seed=seed, density=0.3, max_parents=2, integer_scores=ties)
    exp = expected(cache, k)
    for engine in ENGINES:
        got = listed(lpbn.solve(cache, k_best=k, engine=engine), cache)
        assert {g[1] for g in got} == {e[1] for e in exp}


def sample_bdl(N: int, seed: int) -> np.ndarray:
    """Binary data from B -> D -> L (the chain of the paper's Figures 1-2)."""
    rng = np.random.default_rng(seed)
    b = rng.random(N) < 0.3
    d = rng.random(N) < np.where(b, 0.8, 0.15)
    lo = rng.random(N) < np.where(d, 0.7, 0.1)
    return np.column_stack([b, d, lo]).astype(np.int64)


@pytest.mark.parametrize("N", [100, 1000])
def test_three_variables_all_25_dags(N):
    data = sample_bdl(N, seed=N)
    cache = lpbn.score_data(data, score="bic", k_best=40, explore="exhaustive", jobs=1)
    cache = ScoreCache(("B", "D", "L"), cache.offsets, cache.scores, cache.pset_ptr, cache.pset_items,
                       meta=cache.meta)
    assert cache.m == 12                                      # nothing pruned: 4 sets per variable
    for engine in ENGINES:
        res = lpbn.solve(cache, k_best=25, engine=engine)
        assert res.status == "optimal"
        assert len(res.solutions) == 25                       # all 25 DAGs over 3 variables
        assert len({json.dumps(s["parents"], sort_keys=True) for s in res.solutions}) == 25
        w = [s["weight"] for s in res.solutions]
        assert math.isclose(sum(w), 1.0) and w == sorted(w, reverse=True)
        assert res.posterior["mass_covered_at_least"] > 0.999
        # Markov-equivalent DAGs (BIC is score equivalent) share a rank
        by_class: dict = {}
        for s in res.solutions:
            ps = [tuple(sorted(cache.index(p) for p in s["parents"][v])) for v in cache.names]
            by_class.setdefault(tuple(map(tuple, cpdag(ps))), set()).add(s["rank"])
        assert len(by_class) == 11                            # 11 equivalence classes on 3 nodes
        assert all(len(r) == 1 for r in by_class.values())
    more = lpbn.solve(cache, k_best=40)
    assert len(more.solutions) == 25 and "only 25" in more.message
    cls = lpbn.solve(cache, k_best=11, classes=True)
    assert len(cls.solutions) == 11
    assert sum(s["members_found"] for s in cls.solutions) == 25
    assert [s["class_size"] for s in cls.solutions] == [s["members_found"] for s in cls.solutions]
    # D - L is in (almost) every likely DAG of the chain B -> D -> L with enough data
    if N == 1000:
        edge = {(e["a"], e["b"]): e["frequency"] for e in res.posterior["edges"]}
        assert edge[("D", "L")] > 0.99


def test_bundled_instance_engines_agree():
    cache = lpbn.read_scores("instances/andrewli77__MINOBS-anc/data/bic/asia_250_4.BIC")
    a = lpbn.solve(cache, k_best=30, engine="bnb")
    b = lpbn.solve(cache, k_best=30, engine="ilp")
    assert a.status == b.status == "optimal"
    la, lb = listed(a, cache), listed(b, cache)
    assert la and {x[1] for x in la} == {x[1] for x in lb}
    assert np.allclose([x[0] for x in la], [x[0] for x in lb], atol=1e-9)
    assert [s["rank"] for s in a.solutions] == [s["rank"] for s in b.solutions]
    assert math.isclose(a.score, lpbn.solve(cache, method="dp").score, abs_tol=1e-7)


def test_classes_match_grouped_dags():
    data = sample_bdl(300, seed=5)
    rng = np.random.default_rng(1)
    data = np.column_stack([data, (data[:, 2] ^ (rng.random(300) < 0.2)).astype(np.int64)])
    cache = lpbn.score_data(data, score="bic", k_best=200, explore="exhaustive", jobs=1)
    dags = lpbn.solve(cache, k_best=200)
    groups: dict = {}
    for s in dags.solutions:
        ps = [tuple(sorted(cache.index(p) for p in s["parents"][v])) for v in cache.names]
        groups.setdefault(tuple(map(tuple, cpdag(ps))), s["score"])
    best5 = sorted(groups.values(), reverse=True)[:5]
    for engine in ENGINES:
        cls = lpbn.solve(cache, k_best=5, classes=True, engine=engine)
        assert cls.status == "optimal"
        assert np.allclose([s["score"] for s in cls.solutions][:5], best5, atol=1e-7)


def test_classes_refused_for_non_equivalent_scores():
    cache = random_cache(4, seed=3, density=1.0, max_parents=2)   # random scores: not equivalent
    with pytest.raises(InputError, match="score-equivalent"):
        lpbn.solve(cache, k_best=3, classes=True)
    k2 = ScoreCache(cache.names, cache.offsets, cache.scores, cache.pset_ptr, cache.pset_items,
                    meta={"score": "k2"})
    with pytest.raises(InputError, match="'k2'"):
        lpbn.solve(k2, k_best=3, classes=True)


def test_under_pruned_cache_refused(tmp_path):
    data = sample_bdl(200, seed=2)
    path = tmp_path / "c.jkl"
    lpbn.write_scores(lpbn.score_data(data, score="bic", k_best=3, explore="exhaustive", jobs=1), path)
    cache = lpbn.read_scores(path)
    assert cache.meta["k_best"] == 3 and cache.meta["score"] == "bic"
    with pytest.raises(InputError, match="pruned for the 3 best"):
        lpbn.solve(cache, k_best=4)
    assert lpbn.solve(cache, k_best=3).status == "optimal"
    one = tmp_path / "one.jkl"
    lpbn.write_scores(lpbn.score_data(data, score="bic", explore="exhaustive", jobs=1), one)
    assert one.read_text().split("\n", 1)[0].strip().isdigit()   # K = 1: plain GOBNILP jkl
    with pytest.warns(LpbnWarning, match="does not record how it was pruned"):
        lpbn.solve(lpbn.read_scores(one), k_best=2)
    r = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(path), "--k-best", "10"],
                       check=False, capture_output=True, text=True)
    assert r.returncode == 2 and "--k-best 10" in r.stderr


def test_cli_json_and_text(tmp_path):
    data = sample_bdl(150, seed=9)
    path = tmp_path / "c.jkl"
    lpbn.write_scores(lpbn.score_data(data, score="bic", k_best=8, explore="exhaustive", jobs=1), path)
    r = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(path), "--k-best", "8", "--format", "json",
                        "--engine", "bnb"], check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "optimal" and len(out["solutions"]) >= 8
    assert out["solutions"][0]["score"] == out["score"]
    assert set(out["solutions"][0]) >= {"rank", "score", "parents", "weight"}
    assert out["posterior"]["available"] and out["posterior"]["edges"]
    r = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(path), "--k-best", "3", "--classes"],
                       check=False, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "cpdag:" in r.stdout and "edge frequencies" in r.stdout


def test_time_limit_returns_unproven_list():
    cache = random_cache(9, seed=4, density=0.5)
    res = lpbn.solve(cache, k_best=500, engine="bnb", time_limit=0.0)
    assert res.status in ("time_limit", "optimal")
    if res.status == "time_limit":
        assert "not proven" in res.message


def test_bad_arguments():
    cache = random_cache(4, seed=1)
    with pytest.raises(InputError):
        lpbn.solve(cache, k_best=0)
    with pytest.raises(InputError):
        lpbn.solve(cache, k_best=2, engine="nope")
    with pytest.raises(InputError):
        lpbn.solve(cache, classes=True)



def top_k(dags, k):
    kth = dags[min(k, len(dags)) - 1][0]
    return [d for d in dags if d[0] >= kth - tie_tol(kth)]


def brute_classes(dags, k: int) -> list[float]:
    """The scores of the k best Markov equivalence classes (and ties), from every DAG."""
    best: dict = {}
    for s, ps in dags:
        best.setdefault(tuple(map(tuple, cpdag(ps))), s)
    scores = sorted(best.values(), reverse=True)
    kth = scores[min(k, len(scores)) - 1]
    return [s for s in scores if s >= kth - tie_tol(kth)]


@pytest.mark.parametrize("memory_limit,lp", [(None, None), (None, True), (1, None), (1, False),
                                              (3000, False)])  # 1 byte: no tables; 3000: groups
@pytest.mark.parametrize("seed", range(3))
def test_bnb_deepening_rounds_exact(memory_limit, lp, seed):
    """The bnb engine's threshold rounds (a round at t lists every DAG above t; the list is the
    answer once its K-th lies above t) give brute force's list, with the DP tables, with the
    pattern-database groups (3000 bytes: groups of at most 5 of the 6 variables) and with
    neither, with and without the LP's regret bounds (on by default beyond the tables), for
    DAGs and for classes (BIC data, so score equivalent)."""
    cache = random_cache(6, seed=seed, density=0.15, max_parents=2, integer_scores=seed == 2)
    dags = all_dags(cache)
    several = False
    for k in (1, 3, 40, 300):
        res = lpbn.solve(cache, k_best=k, engine="bnb", memory_limit=memory_limit, lp_bounds=lp)
        assert ("lp_bound" in res.stats) is (lp is True or (lp is None and memory_limit is not None))
        got = listed(res, cache)
        assert res.status == "optimal"
        assert {g[1] for g in got} == {e[1] for e in top_k(dags, k)}
        assert res.stats["family_bounds_exact"] is (memory_limit is None)
        assert ("pattern database" in res.stats.get("family_bounds", "")) is (memory_limit == 3000)
        assert ("LP regrets" in res.stats.get("family_bounds", "")) is (memory_limit == 1 and lp is None)
        several |= len(res.stats["rounds"]) > 1
    assert several or memory_limit is not None         # rounds are for the exact tables only
    data = sample_bdl(200, seed=seed)
    rng = np.random.default_rng(seed)
    data = np.column_stack([data, data[:, 0] ^ (rng.random(200) < 0.3)])
    bic = lpbn.score_data(data, score="bic", k_best=600, explore="exhaustive", jobs=1)
    dags = all_dags(bic)
    for k in (1, 4, 30):
        cls = lpbn.solve(bic, k_best=k, classes=True, engine="bnb", memory_limit=memory_limit,
                         lp_bounds=lp)
        assert cls.status == "optimal"
        assert np.allclose([s["score"] for s in cls.solutions], brute_classes(dags, k), atol=1e-7)


def _agree(a, b, classes):
    assert a.status == b.status == "optimal"
    assert "lp_bound" in b.stats and "lp_bound" not in a.stats
    assert np.allclose([s["score"] for s in a.solutions], [s["score"] for s in b.solutions],
                       rtol=0, atol=1e-7)
    if not classes:
        def key(r):
            return sorted(json.dumps(s["parents"], sort_keys=True) for s in r.solutions)
        assert key(a) == key(b)


@pytest.mark.parametrize("seed", range(6))
def test_lp_regret_bounds_agree_with_the_dp_tables(seed):
    """Beyond brute force (n = 9..14): the search with the LP's regret and cluster bounds and no
    DP tables lists exactly the DAGs the exact DP-table bounds list, ties too."""
    n = 9 + seed
    cache = random_cache(n, seed=40 + seed, density=0.3, max_parents=3, integer_scores=seed % 3 == 0)
    for k in (1, 25, 150):
        _agree(lpbn.solve(cache, k_best=k, lp_bounds=False),
               lpbn.solve(cache, k_best=k, memory_limit=1), False)


@pytest.mark.filterwarnings("ignore::lpbn.errors.LpbnWarning")
def test_lp_regret_bounds_agree_with_the_dp_tables_on_classes(instances):
    """The same for the best equivalence classes of a BIC cache (voting, n = 17): the DAG seed
    of one order is a valid class threshold, and the LP bounds keep every class.  (zoo, also
    n = 17, is not used: its root LP bound is 10 above the optimum and the search without the
    tables takes minutes.)"""
    cache = lpbn.read_scores(instances / "anchors" / "gobnilp-bic3" / "voting.BIC.p3.jkl")
    for k, classes in ((30, True), (200, False)):
        _agree(lpbn.solve(cache, k_best=k, classes=classes, lp_bounds=False),
               lpbn.solve(cache, k_best=k, classes=classes, memory_limit=1), classes)


def test_deepening_stopped_between_rounds_is_not_proven():
    """A limit that stops the rounds leaves an unproven list with a bound on what it lacks."""
    from lpbn.kbest.api import solve_kbest

    class StopAfterRound:                 # the first round finishes in one chunk, then stop
        def should_stop(self, nodes=None):
            # only the check between rounds says stop (not the DP tables' checks)
            return "time_limit" if sys._getframe(1).f_code.co_name == "enumerate_bnb" else None

        def remaining(self):
            return 1.0

        def improved(self, **kw):
            pass

    cache = random_cache(6, seed=1, density=0.15, max_parents=2)
    dags = all_dags(cache)
    res = solve_kbest(cache, StopAfterRound(), 300)
    assert res.status == "time_limit" and "not proven" in res.message
    assert len(res.stats["rounds"]) == 1
    # the first round's DAGs are the top of the true list; the seed order's best DAGs are added
    # (real, distinct DAGs); the bound covers every DAG not listed
    got = listed(res, cache)
    first = res.stats["rounds"][0]["listed"]
    assert {g[1] for g in got[:first]} == {d[1] for d in dags[:first]}
    truth = {d[1]: d[0] for d in dags}
    assert len({g[1] for g in got}) == len(got) and all(math.isclose(truth[g[1]], g[0], abs_tol=1e-7) for g in got)
    unlisted = max(d[0] for d in dags if d[1] not in {g[1] for g in got})
    assert res.upper_bound >= unlisted - 1e-9


def test_stopped_search_lists_the_seed_orders_best_dags():
    """Beyond the DP tables a stopped search still lists the K best DAGs consistent with the seed
    order (horse, n = 28, listed none in 600 s before), each a real DAG with its own score."""
    cache = random_cache(16, seed=3, density=0.6)
    res = lpbn.solve(cache, k_best=50, engine="bnb", memory_limit=1, time_limit=0.0)
    if res.status == "optimal":
        pytest.skip("finished within one chunk")
    assert len(res.solutions) >= 50 and res.stats["seed_dags_added"] > 0
    for s in res.solutions:
        ps = [tuple(sorted(cache.index(p) for p in s["parents"][v])) for v in cache.names]
        assert DAG(cache.names, ps).is_acyclic()
        assert math.isclose(cache.dag_score(ps), s["score"], abs_tol=1e-7)
    assert len({json.dumps(s["parents"], sort_keys=True) for s in res.solutions}) == len(res.solutions)


# ---------------------------------------------------------------- lpbn bench with k_best
def test_bench_suite_with_k_best(tmp_path, instances, known_optima):
    """Suite-level k_best and entry-level k_best/classes make k-best runs: every listed DAG is
    re-scored by the worker, the best is checked against the optimum, and the report has the
    k-best table; a wrong optimum is still caught."""
    import csv
    import textwrap

    from lpbn.bench import load_suite
    from lpbn.bench.suite import SuiteError, kbest_of
    from lpbn.cli import main

    asia = "andrewli77__MINOBS-anc/data/bic/asia_250_1.BIC"
    opt = known_optima["exact_dp"][asia]["optimum"]
    text = f'''
    name = "kb"
    base = "{instances.as_posix()}"
    methods = ["auto"]
    time_limit = 60
    memory_limit = 4096
    k_best = 20

    [[instance]]
    name = "asia"
    file = "{asia}"
    n = 8
    optimum = {opt!r}

    [[instance]]
    name = "asia-classes"
    file = "{asia}"
    k_best = 5
    classes = true
    optimum = {opt!r}

    [[instance]]
    name = "asia-wrong"
    file = "{asia}"
    k_best = 3
    optimum = {opt + 1.0!r}
    '''
    p = tmp_path / "kb.toml"
    p.write_text(textwrap.dedent(text))
    suite = load_suite(p)
    assert [kbest_of(suite, e) for e in suite.entries] == [(20, False), (5, True), (3, False)]
    out = tmp_path / "res"
    rc = main(["bench", str(p), "--no-warmup", "-o", str(out), "-q"])
    assert rc == 1                                                   # the planted wrong optimum
    with open(out / "kb" / "latest" / "results.csv") as fh:
        rows = {r["instance"]: r for r in csv.DictReader(fh)}
    for name, k, classes in (("asia", 20, False), ("asia-classes", 5, True)):
        r = rows[name]
        st = json.loads(r["stats"])
        assert r["status"] == "optimal" and r["check"] == "ok", r
        assert st["k"] == k and st["classes"] is classes and st["listed"] >= k
        assert st["solutions_checked"] == st["listed"] and st["kth_score"] <= float(r["score"])
    assert rows["asia-wrong"]["check"] == "WRONG"
    summary = (out / "kb" / "latest" / "summary.md").read_text()
    assert "## The k best networks" in summary and "| asia-classes | k-best/bnb | 5 | yes | optimal |" in summary
    for body, msg in (("k_best = 0\n[[instance]]\nfile = 'a'\n", "k_best must be"),
                      ("classes = true\n[[instance]]\nfile = 'a'\n", "needs k_best"),
                      ("[[instance]]\nfile = 'a'\nclasses = 1\n", "true or false")):
        bad = tmp_path / "bad.toml"
        bad.write_text(body)
        with pytest.raises(SuiteError, match=msg):
            load_suite(bad)


def test_family_bound_tables_equal_for_one_and_two_threads(monkeypatch):
    from lpbn import dp_kernels
    from lpbn.kbest import tables as tb
    monkeypatch.setattr(dp_kernels, "PARALLEL_MIN_N", 1)      # the parallel kernels at small n
    for n, seed in ((9, 1), (13, 2), (14, 3)):
        c = random_cache(n, seed=seed, density=0.3)
        one, two = tb.family_bounds(c, threads=1), tb.family_bounds(c, threads=2)
        assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(one, two))
