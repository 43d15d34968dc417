"""Parent-set exploration strategies (Scanagatta et al. 2015, §3): exact scores, dominance,
agreement with exhaustive enumeration when unbudgeted, reproducibility, schedulers."""

from __future__ import annotations

import math

import numpy as np
import pytest

import lpbn
from lpbn.errors import InputError
from lpbn.scoring import read_data
from lpbn.scoring.bitplanes import BitPlanes, single_parent_stats
from lpbn.scoring.counting import family_stats, lg_table
from lpbn.scoring.scores import AIC, BDEU, KINDS

BUDGETED = ("independence", "greedy", "sequential")


def random_data(n: int, N: int, seed: int, arities=(2, 3)) -> np.ndarray:
    """Rows x variables with some dependence (each variable copies an earlier one with noise)."""
    rng = np.random.default_rng(seed)
    ar = rng.choice(arities, size=n)
    X = np.zeros((N, n), dtype=np.int64)
    for j in range(n):
        X[:, j] = rng.integers(0, ar[j], size=N)
        if j:
            src = rng.integers(0, j, size=2)
            mix = rng.random(N) < 0.6
            X[mix, j] = (X[mix, src[0]] + X[mix, src[1]]) % ar[j]
    return X


def brute_score(X: np.ndarray, x: int, parents, kind: int, ess: float = 1.0) -> float:
    """Local score from a plain dictionary count (independent of the kernels)."""
    N = X.shape[0]
    rx = len(np.unique(X[:, x]))
    ars = [len(np.unique(X[:, p])) for p in parents]
    q = math.prod(ars) if parents else 1
    cells: dict = {}
    for s in range(N):
        key = tuple(X[s, p] for p in parents)
        cells.setdefault(key, {}).setdefault(X[s, x], 0)
        cells[key][X[s, x]] += 1
    ll = 0.0
    bd = 0.0
    for row in cells.values():
        npa = sum(row.values())
        for c in row.values():
            ll += c * math.log(c / npa)
        if kind == BDEU:
            a = ess / q
            bd += math.lgamma(a) - math.lgamma(a + npa)
            bd += sum(math.lgamma(a / rx + c) - math.lgamma(a / rx) for c in row.values())
    if kind == BDEU:
        return bd
    pen = 1.0 if kind == AIC else 0.5 * math.log(N)
    return ll - pen * (rx - 1) * q


def canonical(cache) -> dict:
    """{(child, parents): score} of the dominance-pruned cache."""
    c = cache.prune_dominated()
    return {(int(c.family[j]), c.parents(j)): float(c.scores[j]) for j in range(c.m)}


@pytest.mark.parametrize("score", ["bic", "bdeu", "aic"])
def test_single_parent_stats_match_counting(score):
    X = random_data(7, 300, 1, arities=(2, 3, 4))
    ds = read_data(X)
    kind = KINDS[score]
    planes = BitPlanes(ds.columns, ds.arities)
    lgt = lg_table(ds.N)
    for x in range(ds.n):
        cand = np.array([v for v in range(ds.n) if v != x], dtype=np.int64)
        ll, sc, nz = np.empty(len(cand)), np.empty(len(cand)), np.empty(len(cand), dtype=np.int64)
        single_parent_stats(planes.planes, planes.ptr, planes.counts, x, cand, kind, 1.0, lgt, ds.N, ll, sc, nz)
        for k, y in enumerate(cand):
            rx, ry = int(ds.arities[x]), int(ds.arities[y])
            cnt = np.zeros(rx * ry, np.int32)
            pac = np.zeros(ry, np.int32)
            l2, b2, nz2 = family_stats(ds.columns[y].astype(np.int64), ds.columns[x], rx, cnt, pac, lgt,
                                       kind == BDEU, 1.0 / ry, 1.0 / (ry * rx))
            assert ll[k] == pytest.approx(l2, rel=1e-12, abs=1e-9)
            assert nz[k] == nz2
            assert sc[k] == pytest.approx(brute_score(X, x, [int(y)], kind), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("explore", BUDGETED)
@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_kept_sets_have_exact_scores_and_are_not_dominated(explore, score):
    X = random_data(8, 250, 2)
    cache = lpbn.score_data(X, score=score, explore=explore, time_per_variable=None, max_evaluations=400,
                            jobs=1)
    kind = KINDS[score]
    for j in range(cache.m):
        i = int(cache.family[j])
        assert cache.scores[j] == pytest.approx(brute_score(X, i, list(cache.parents(j)), kind), rel=1e-9)
    assert cache.prune_dominated().m == cache.m          # nothing dominated is kept
    for i in range(cache.n):
        assert () in [p for _, p in cache.family_lists(i)]   # the empty set always


@pytest.mark.parametrize("seed", range(6))
def test_unbudgeted_strategies_equal_exhaustive(seed):
    """Run to exhaustion, every strategy keeps exactly the non-dominated sets that the safe
    exhaustive enumeration keeps."""
    X = random_data(6, 120 + 40 * seed, seed)
    ref = canonical(lpbn.score_data(X, explore="exhaustive", jobs=1))
    for explore in BUDGETED:
        got = canonical(lpbn.score_data(X, explore=explore, time_per_variable=None, jobs=1,
                                        max_candidates=10_000))
        assert got.keys() == ref.keys(), explore
        for key, v in ref.items():
            assert got[key] == pytest.approx(v, rel=1e-10)


def test_unbudgeted_with_parent_limit():
    X = random_data(7, 200, 11)
    ref = canonical(lpbn.score_data(X, explore="exhaustive", max_parents=2, jobs=1))
    for explore in BUDGETED:
        got = canonical(lpbn.score_data(X, explore=explore, max_parents=2, time_per_variable=None, jobs=1))
        assert got.keys() == ref.keys(), explore


def test_optimum_of_unbudgeted_cache_is_the_exhaustive_optimum():
    X = random_data(7, 300, 5)
    a = lpbn.solve(lpbn.score_data(X, explore="exhaustive", jobs=1), method="dp")
    b = lpbn.solve(lpbn.score_data(X, explore="independence", time_per_variable=None, jobs=1), method="dp")
    assert b.score == pytest.approx(a.score, rel=1e-9)


def test_evaluation_budget_is_reproducible_and_scheduler_independent():
    X = random_data(12, 400, 3)
    kw = dict(explore="independence", time_per_variable=None, max_evaluations=150)
    one = lpbn.score_data(X, jobs=1, **kw)
    again = lpbn.score_data(X, jobs=1, **kw)
    two = lpbn.score_data(X, jobs=2, **kw)
    assert one.equals(again) and one.equals(two)
    assert one.meta["scoring"]["stopped"] == {"max_evaluations": 12}


@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_scores_do_not_depend_on_which_child_a_process_scored_first(score):
    """The joint-table memo shares E(S), F(S) between the children of a process; the fixed-point
    sums make them bit-identical whichever kernel and child computed them first, so a cache does
    not depend on how the variables were dealt out to worker processes (``jobs=2``)."""
    from lpbn.scoring.context import ScoringContext
    from lpbn.scoring.explore import explore_variable
    from lpbn.scoring.scores import kind_of

    ds = read_data(random_data(9, 3000, 5, arities=(2, 3, 5)))

    def explored(order):
        ctx = ScoringContext(ds, kind_of(score), 1.0, max_parents=3)
        return {x: explore_variable(ctx, x) for x in order}

    forward = explored(range(ds.n))
    backward = explored(reversed(range(ds.n)))
    assert any(r["joint_hits"] for r in backward.values())
    for x in range(ds.n):
        assert np.array_equal(forward[x]["scores"], backward[x]["scores"])
        assert np.array_equal(forward[x]["sets"], backward[x]["sets"])
    cache = lpbn.score_data(ds, score=score, max_parents=3, jobs=1)
    assert lpbn.score_data(ds, score=score, max_parents=3, jobs=2).equals(cache)


def test_candidate_cap_keeps_best_and_empty_set():
    X = random_data(9, 400, 4)
    full = lpbn.score_data(X, explore="sequential", time_per_variable=None, jobs=1, max_candidates=10_000)
    capped = lpbn.score_data(X, explore="sequential", time_per_variable=None, jobs=1, max_candidates=3)
    for i in range(full.n):
        got = capped.family_lists(i)
        assert len(got) <= 3 and () in [p for _, p in got]
        best = full.family_lists(i)[0]
        assert got[0][0] == pytest.approx(best[0])


def test_auto_picks_by_size():
    small = lpbn.score_data(random_data(6, 100, 0), jobs=1)
    assert small.meta["explore"] == "exhaustive"
    wide = random_data(60, 3000, 0, arities=(2,))
    from lpbn.scoring.discrete import _choose_strategy
    assert _choose_strategy("auto", read_data(wide), None, 1, None) == "independence"
    assert _choose_strategy("auto", read_data(wide), 2, 1, None) == "exhaustive"


def test_constant_columns_and_one_row():
    X = random_data(5, 80, 6)
    X[:, 2] = 1
    cache = lpbn.score_data(X, explore="independence", time_per_variable=None, jobs=1)
    assert cache.family_lists(2) == [(0.0, ())]
    assert all(2 not in p for i in range(cache.n) for _, p in cache.family_lists(i))
    one = lpbn.score_data(X[:1], explore="independence", jobs=1)
    assert lpbn.solve(one, method="dp").status == "optimal"


@pytest.mark.parametrize("kwargs,match", [
    ({"explore": "bogus"}, "unknown explore"),
    ({"explore": "independence", "k_best": 3}, "k_best=1"),
    ({"explore": "greedy", "order": [0, 1, 2, 3, 4]}, "k_best=1"),
    ({"explore": "independence", "time_per_variable": -1.0}, "time_per_variable"),
    ({"explore": "independence", "max_candidates": 0}, "max_candidates"),
    ({"explore": "independence", "explore_options": {"nonsense": 1}}, "unknown explore option"),
    ({"explore": "independence", "explore_options": {"pairs_share": 2.0}}, "pairs_share"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(InputError, match=match):
        lpbn.score_data(random_data(5, 50, 0), jobs=1, **kwargs)


def test_cli_explore(tmp_path):
    from lpbn.cli import main
    csv = tmp_path / "d.csv"
    np.savetxt(csv, random_data(6, 150, 8), fmt="%d", delimiter=",")
    out = tmp_path / "c.jkl"
    assert main(["score", str(csv), "-o", str(out), "--explore", "greedy", "--max-evaluations", "50",
                 "--jobs", "1", "--quiet"]) == 0
    cache = lpbn.read_scores(out)
    assert cache.n == 6
    assert main(["score", str(csv), "-o", str(tmp_path / "x.jkl"), "--explore", "nope"]) == 2
    assert main(["score", str(csv), "-o", str(tmp_path / "x.jkl"), "--time-per-variable", "0"]) == 2


def test_dask_local_cluster_gives_the_same_cache():
    distributed = pytest.importorskip("distributed")
    X = random_data(10, 300, 9)
    kw = dict(explore="independence", time_per_variable=None, max_evaluations=100)
    local = lpbn.score_data(X, jobs=1, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = lpbn.score_data(X, scheduler=cluster.scheduler_address, **kw)
        with distributed.Client(cluster) as client:
            via_client = lpbn.score_data(X, scheduler=client, **kw)
    assert local.equals(remote) and local.equals(via_client)
    assert remote.meta["scoring"]["scheduler"] is not None


def test_row_chunks_cover_every_row_in_order_and_stop_at_the_deadline():
    """The open list's first pushes (independence selection's start) run in chunks that stop
    at the deadline they are given (two budgets): on 20,000 variables one unchunked call took
    0.6 s against a budget of 0.05 s."""
    import math
    import time

    from lpbn.scoring.explore.budgeted import _row_chunks
    seen = []
    _row_chunks(1000, lambda first, chunk: seen.extend(range(first, min(first + chunk, 1000))), math.inf)
    assert seen == list(range(1000))
    calls = []
    _row_chunks(1000, lambda first, chunk: calls.append(first), time.perf_counter() - 1.0)
    assert calls == []                       # the deadline has passed: nothing more is pushed
    slow = []

    def work(first, chunk):
        slow.append(first)
        time.sleep(0.06)
    _row_chunks(10_000, work, time.perf_counter() + 0.1)
    assert 1 <= len(slow) <= 3               # chunks of 16 rows, each over the 50-ms mark


def test_budget_schedule_keeps_the_planned_total():
    """time_per_variable="auto" plans a total; each variable gets its share of the time left
    (overruns shorten later budgets, early finishes lend theirs), within [LOW, HIGH] x base."""
    import time

    from lpbn.scoring.context import ExploreOptions
    from lpbn.scoring.parallel import BudgetSchedule
    fixed = BudgetSchedule(ExploreOptions(time_per_variable=0.5), 10, 2)
    assert [fixed.next() for _ in range(3)] == [0.5, 0.5, 0.5]
    assert BudgetSchedule(ExploreOptions(time_per_variable=None), 3, 1).next() is None
    sched = BudgetSchedule(ExploreOptions(time_per_variable=0.1, total_seconds=1.0), 10, 1)
    first = sched.next()
    assert first == pytest.approx(0.1, rel=0.05)                   # 1 s over 10 variables
    sched.end -= 0.5                                                # half the time went on one
    assert sched.next() == pytest.approx(0.5 / 9 * 1, rel=0.1)      # the rest share what is left
    sched.end -= 10.0                                               # far over: the floor
    assert sched.next() == pytest.approx(BudgetSchedule.LOW * 0.1)
    sched.end = time.perf_counter() + 100.0                         # far ahead: the cap
    assert sched.next() == pytest.approx(BudgetSchedule.HIGH * 0.1)
    two = BudgetSchedule(ExploreOptions(time_per_variable=0.2, total_seconds=1.0), 10, 2)
    assert two.next() == pytest.approx(1.0 * 2 / (10 + 0.5), rel=0.05)


def test_auto_budget_plans_a_total():
    from lpbn.scoring.discrete import AUTO_EXPLORE_SECONDS
    X = random_data(12, 400, 3, arities=(2,))
    cache = lpbn.score_data(X, explore="independence", jobs=2)
    sc = cache.meta["scoring"]
    per = min(1.0, max(0.05, AUTO_EXPLORE_SECONDS * 2 / 12))
    assert sc["time_per_variable"] == pytest.approx(per)
    assert cache.m >= 12
