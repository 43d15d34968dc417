"""Hill climbing + tabu on the data (lpbn.scoring.hillclimb), the search/enlarge loop
(lpbn.datasearch) and the scope of a bound (lpbn.scope), on small data (issue 52)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.datasearch import families_cache, search_and_enlarge
from lpbn.result import DAG
from lpbn.scope import bound_scope, scope_text
from lpbn.scoring import hillclimb_kernels as K
from lpbn.scoring import score_data
from lpbn.scoring.dag_score import family_scores
from lpbn.scoring.hillclimb import Climber, ClimbOptions, hill_climb
from lpbn.scoring.scores import kind_of
from lpbn.synthetic import random_dataset

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _data(n, N, seed):
    return random_dataset(n, N, seed=seed)[1]


@SETTINGS
@given(n=st.integers(2, 7), N=st.integers(20, 300), seed=st.integers(0, 10_000),
       score=st.sampled_from(["bic", "bdeu", "aic"]), tabu=st.booleans())
def test_climb_is_acyclic_and_scores_as_rescored(n, N, seed, score, tabu):
    ds = _data(n, N, seed)
    r = hill_climb(ds, score, max_climbs=3, options=ClimbOptions(tenure=10 if tabu else 0,
                                                                 max_idle=10 if tabu else 0, seed=seed))
    assert DAG(ds.names, r.parents).is_acyclic()
    assert r.score == pytest.approx(float(family_scores(ds, r.parents, score).sum()), rel=1e-9, abs=1e-9)
    for (j, ps), s in r.families.items():     # every recorded family's score is its rescoring
        one = [()] * ds.n
        one[j] = ps
        assert s == pytest.approx(float(family_scores(ds, one, score)[j]), rel=1e-9, abs=1e-9)


@SETTINGS
@given(n=st.integers(2, 7), N=st.integers(20, 300), seed=st.integers(0, 10_000),
       score=st.sampled_from(["bic", "bdeu"]), maxp=st.sampled_from([None, 1, 2]))
def test_every_move_delta_equals_the_rescoring(n, N, seed, score, maxp):
    ds = _data(n, N, seed)
    rng = np.random.default_rng(seed)
    cl = Climber(ds, kind_of(score), 1.0, maxp, records=16)
    perm = rng.permutation(n)            # a random DAG consistent with a random order
    adj = np.zeros((n, n), dtype=np.bool_)
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < 0.4 and (maxp is None or adj[:, perm[b]].sum() < maxp):
                adj[perm[a], perm[b]] = True
    cl.reset_to(adj)
    parents = [set(np.flatnonzero(adj[:, j]).tolist()) for j in range(n)]
    base = family_scores(ds, [sorted(p) for p in parents], score)
    for j in range(n):
        assert cl.fs[j] == pytest.approx(base[j], rel=1e-9, abs=1e-9)
        for i in range(n):
            if i == j:
                continue
            if adj[i, j]:
                new = parents[j] - {i}
            elif maxp is not None and len(parents[j]) >= maxp:
                assert cl.delta[i, j] == -np.inf
                continue
            else:
                new = parents[j] | {i}
            one = [[] for _ in range(n)]
            one[j] = sorted(new)
            want = family_scores(ds, one, score)[j] - base[j]
            assert cl.delta[i, j] == pytest.approx(want, rel=1e-9, abs=1e-7)


def test_a_climb_is_a_local_optimum_of_add_remove_reverse():
    ds = _data(6, 400, 5)
    r = hill_climb(ds, options=ClimbOptions(tenure=0, max_idle=0))
    n = ds.n
    base = family_scores(ds, r.parents).sum()
    adj = np.zeros((n, n), dtype=np.bool_)
    for j, ps in enumerate(r.parents):
        adj[list(ps), j] = True
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            moves = []
            if adj[i, j]:
                moves += [("remove", i, j), ("reverse", i, j)]
            elif not adj[j, i]:
                moves.append(("add", i, j))
            for kind, a, b in moves:
                new = adj.copy()
                new[a, b] = kind == "add"
                if kind == "reverse":
                    new[b, a] = True
                ps = [np.flatnonzero(new[:, v]).tolist() for v in range(n)]
                if DAG(ds.names, ps).is_acyclic():
                    assert family_scores(ds, ps).sum() <= base + 1e-7


@pytest.mark.parametrize("seed", range(5))
def test_the_enlarged_cache_holds_an_optimal_dag_on_small_data(seed):
    """On these five small data sets (n = 6-8) the cache the search built holds a DAG of the
    exhaustive optimum.  This is observed, not guaranteed: the searches are local."""
    ds = _data(6 + seed % 3, 500, 100 + seed)
    exact = lpbn.solve(score_data(ds, explore="exhaustive"), "dp")
    out = search_and_enlarge(ds, kind_of("bic"), 1.0, None, 3.0, {"score": "bic", "explore": "search"})
    assert out.score <= exact.score + 1e-7
    for j, ps in enumerate(out.parents):       # the incumbent is a DAG of the cache
        assert out.cache.local_score(j, ps) == pytest.approx(float(family_scores(ds, [
            list(ps) if v == j else [] for v in range(ds.n)])[j]), rel=1e-9)
    over_cache = lpbn.solve(out.cache, "dp")
    assert over_cache.score == pytest.approx(exact.score, rel=1e-9)


def test_learn_at_least_the_hill_climber_and_scoped():
    ds = _data(7, 400, 3)
    hc = hill_climb(ds)
    res = lpbn.learn(ds, explore="search", time_limit=4)
    assert res.score >= hc.score - 1e-7
    assert res.score == pytest.approx(float(family_scores(ds, res.dag.parents).sum()), rel=1e-9)
    assert res.bound_scope == "cache"
    assert res.certificate()["bound_scope"] == "cache"
    assert json.loads(json.dumps(res.to_dict()))["bound_scope"] == "cache"


def test_families_cache_adds_the_empty_sets():
    ds = _data(4, 100, 1)
    fams = {(0, (1,)): float(family_scores(ds, [[1], [], [], []])[0])}
    c = families_cache(ds, fams, kind_of("bic"), 1.0, {"explore": "search"})
    assert c.n == 4 and c.m == 5
    assert all(c.local_score(j, ()) is not None for j in range(4))


@pytest.mark.parametrize("explore,max_parents,scope", [("exhaustive", None, "all"),
                                                        ("exhaustive", 2, "parent_limit:2"),
                                                        ("independence", None, "cache"),
                                                        ("search", None, "cache")])
def test_bound_scope_for_each_exploration(explore, max_parents, scope):
    ds = _data(5, 200, 2)
    res = lpbn.learn(ds, explore=explore, max_parents=max_parents, time_limit=5,
                     score_options={"max_evaluations": 50} if explore == "independence" else None)
    assert res.bound_scope == scope
    assert res.to_dict()["bound_scope"] == scope
    assert json.loads(json.dumps(res.to_dict()))["bound_scope"] == scope
    if explore != "search":
        cache = score_data(ds, explore=explore, max_parents=max_parents,
                           **({"max_evaluations": 50} if explore == "independence" else {}))
        assert bound_scope(cache.meta) == scope
        assert lpbn.solve(cache, "dp").bound_scope == scope


def test_scope_words():
    assert scope_text("cache") == "over the cache's candidate sets"
    assert scope_text("all") == "over every DAG"
    assert scope_text("parent_limit:4") == "over every DAG with at most 4 parents per variable"
    assert bound_scope({}) == "cache"
    assert bound_scope({"explore": "exhaustive", "k_best": 3}) == "cache"


def test_cli_prints_the_scope(tmp_path, capsys):
    from lpbn.cli import main
    from lpbn.synthetic import write_csv
    _, ds = random_dataset(5, 200, seed=4)
    path = tmp_path / "d.csv"
    write_csv(path, ds.names, ds.columns)
    assert main(["learn", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "(over every DAG)" in out
    jkl = tmp_path / "d.jkl"
    assert main(["score", str(path), "-o", str(jkl)]) == 0
    capsys.readouterr()
    assert main(["solve", str(jkl)]) == 0
    assert "(over the cache's candidate sets)" in capsys.readouterr().out
    assert main(["solve", str(jkl), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["bound_scope"] == "cache"


def test_reversal_check_and_descendants():
    adj = np.zeros((3, 3), dtype=np.bool_)
    adj[0, 1] = adj[1, 2] = adj[0, 2] = True
    desc = np.zeros((3, 1), dtype=np.uint64)
    assert K.update_desc(adj, desc)
    assert not K.reversal_ok(adj, desc, 0, 2)     # 0 -> 1 -> 2 remains: reversing 0 -> 2 closes a cycle
    assert K.reversal_ok(adj, desc, 1, 2)
    assert K.has_bit(desc, 0, 2) and not K.has_bit(desc, 2, 0)


def test_bnlearn_peer_without_rscript_exits_2(tmp_path):
    from lpbn.bench.peers.bnlearn import main
    from lpbn.synthetic import write_csv
    _, ds = random_dataset(3, 50, seed=1)
    path = tmp_path / "d.csv"
    write_csv(path, ds.names, ds.columns)
    assert main([str(path), "--rscript", str(tmp_path / "no-such-Rscript")]) == 2


def test_too_large_to_climb_falls_back_to_independence_selection():
    ds = _data(6, 200, 7)
    assert hill_climb(ds, options=ClimbOptions(table_budget=0.0)) is None
    res = lpbn.learn(ds, explore="search", time_limit=0.0)
    assert res.cache.meta["explore"] == "independence"
    assert res.dag is not None and res.bound_scope == "cache"


def test_minobs_peer_writes_and_reads_its_formats(tmp_path):
    """The MINOBS peer's jkl (integer names, no comments) reads back as the same cache, and its
    parser takes MINOBS's 'Ordering[k] = var ... Parents: { ... }' lines; no binary: exit 2."""
    from lpbn.bench.peers.minobs import main, read_parents, write_integer_jkl
    from lpbn.testing import random_cache
    cache = random_cache(5, seed=3)
    path = tmp_path / "c.jkl"
    write_integer_jkl(cache, str(path))
    back = lpbn.read_scores(path)
    assert back.m == cache.m and back.names == tuple(str(i) for i in range(5))
    for j in range(cache.m):
        assert back.scores[j] == cache.scores[j]
    out = "\n".join(f"Ordering[{k}]\t= {v}\tScore:\t-1\tParents:\t{{ {' '.join(map(str, ps))} }}\tValid: 1"
                    for k, (v, ps) in enumerate([(0, ()), (2, (0,)), (1, (0, 2)), (3, ()), (4, (3,))]))
    assert read_parents(out, 5) == [(), (0, 2), (0,), (), (3,)]
    assert read_parents(out, 6) is None
    assert main([str(path), "--binary", str(tmp_path / "no-such-search")]) == 2
