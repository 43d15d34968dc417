"""Structural constraints: every exact method against brute force over the DAGs that satisfy
them, the TOML and GOBNILP parsers, contradictions, scoring with required arcs, the CLI."""

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import lpbn
from lpbn.cli import main
from lpbn.constraints import (MAX_ADJACENCY_BRANCHES, ConstraintFileError, Constraints,
                              InfeasibleConstraints)
from lpbn.errors import InputError
from lpbn.testing import random_cache

WINE = "anchors/gobnilp-bic3/wine.BIC.p3.jkl"
ASIA = "cran__bnlearn/data/asia.dat"


# ---------------------------------------------------------------------- the oracle
def satisfies(parents, k):
    """A plain predicate on a DAG (parents per variable, indices) for the index-level spec ``k``
    of :func:`spec` -- written without lpbn.constraints."""
    arcs = {(p, v) for v, ps in enumerate(parents) for p in ps}
    if any(a in arcs for a in k["forbid"]) or any(a not in arcs for a in k["require"]):
        return False
    if any((a, b) in arcs or (b, a) in arcs for a, b in k["forbid_adjacent"]):
        return False
    if any((a, b) not in arcs and (b, a) not in arcs for a, b in k["require_adjacent"]):
        return False
    tier = k["tier"]
    if any(tier[p] >= 0 and tier[v] >= 0 and tier[p] > tier[v] for p, v in arcs):
        return False
    if any(len(parents[v]) > m for v, m in k["max_parents"].items()):
        return False
    if any(parents[v] for v in k["no_parents"]) or any(p in k["no_children"] for p, _ in arcs):
        return False
    return True


def acyclic(parents):
    left = set(range(len(parents)))
    while left:
        ready = [v for v in left if not set(parents[v]) & left]
        if not ready:
            return False
        left -= set(ready)
    return True


def brute(cache, k):
    """Best score over every combination of the unpruned cache's candidates that is a DAG and
    satisfies ``k`` (-inf when none does).  A necessary per-family filter (each arc constraint
    is about one family) only keeps the enumeration small; the full predicate decides."""
    fams = []
    for v in range(cache.n):
        keep = []
        for s, ps in cache.family_lists(v):
            if any((p, v) in k["forbid"] for p in ps) or any(b == v and a not in ps for a, b in k["require"]):
                continue
            keep.append((s, ps))
        fams.append(keep)
    best = -math.inf
    for combo in itertools.product(*fams):
        parents = [ps for _, ps in combo]
        total = sum(s for s, _ in combo)
        if total > best and acyclic(parents) and satisfies(parents, k):
            best = total
    return best


@st.composite
def spec(draw, max_n=5):
    n = draw(st.integers(2, max_n))
    density = draw(st.floats(0.15, 0.5 if n <= 4 else 0.35))
    cache = random_cache(n, seed=draw(st.integers(0, 10**6)), density=density, max_parents=2,
                         integer_scores=draw(st.booleans()))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(1, n - 1)).map(lambda t: (t[0], (t[0] + t[1]) % n))
    k = {"forbid": draw(st.lists(pairs, max_size=4)), "require": draw(st.lists(pairs, max_size=2)),
         "forbid_adjacent": draw(st.lists(pairs, max_size=2)),
         "require_adjacent": draw(st.lists(pairs, max_size=2))}
    tiers = draw(st.one_of(st.none(), st.lists(st.integers(-1, 2), min_size=n, max_size=n)))
    k["tier"] = tiers if tiers is not None else [-1] * n
    k["max_parents"] = draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, 2), max_size=2))
    k["no_parents"] = draw(st.lists(st.integers(0, n - 1), max_size=1))
    k["no_children"] = draw(st.lists(st.integers(0, n - 1), max_size=1))
    nm = cache.names
    named = Constraints(
        forbid=[(nm[a], nm[b]) for a, b in k["forbid"]], require=[(nm[a], nm[b]) for a, b in k["require"]],
        forbid_adjacent=[(nm[a], nm[b]) for a, b in k["forbid_adjacent"]],
        require_adjacent=[(nm[a], nm[b]) for a, b in k["require_adjacent"]],
        tiers=[[nm[v] for v in range(n) if k["tier"][v] == t] for t in range(3)
               if any(x == t for x in k["tier"])],
        max_parents={nm[v]: m for v, m in k["max_parents"].items()},
        no_parents=[nm[v] for v in k["no_parents"]], no_children=[nm[v] for v in k["no_children"]])
    return cache, k, named


def check(cache, k, named, method, **options):
    best = brute(cache, k)
    r = lpbn.solve(cache, method, constraints=named, **options)
    if best == -math.inf:
        assert r.status == "infeasible" and r.dag is None and r.message, (method, r)
        return r
    assert r.status == "optimal", (method, r, r.message)
    assert r.score == pytest.approx(best, rel=1e-12, abs=1e-9), method
    assert r.dag.is_acyclic() and satisfies(list(r.dag.parents), k)
    assert cache.dag_score(r.dag.parents) == pytest.approx(r.score)
    assert r.stats["constraints"]["removed"] >= 0
    return r


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec(max_n=6))
def test_dp_equals_constrained_brute_force(case):
    check(*case, "dp")


@pytest.mark.parametrize("method, examples", [("dual", 25), ("highs", 25), ("bfbnb", 25), ("pulp-cbc", 12)])
def test_exact_methods_equal_constrained_brute_force(method, examples):
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(spec())
    def run(case):
        check(*case, method)
    run()


@settings(max_examples=8, deadline=None)
@given(spec(max_n=4))
def test_ordering_methods_honour_constraints(case):
    cache, k, named = case
    for method in ("asobs", "obs"):
        r = lpbn.solve(cache, method, constraints=named, time_limit=5)
        if r.dag is not None:
            assert satisfies(list(r.dag.parents), k) and r.dag.is_acyclic()
            assert r.score <= brute(cache, k) + 1e-9 <= r.upper_bound + 2e-9


def test_auto_and_lost_empty_sets():
    """Required arcs take the empty set from their children: every method copes."""
    c = random_cache(5, seed=3, density=0.6, max_parents=2)
    C = Constraints(require=[("X0", "X1"), ("X1", "X2"), ("X0", "X3")])
    pruned = C.apply(c)
    assert all(pruned.sizes[pruned.offsets[v]] > 0 for v in (1, 2, 3))
    scores = {m: lpbn.solve(c, m, constraints=C).score for m in ("auto", "dp", "dual", "highs", "bfbnb")}
    assert len({round(s, 9) for s in scores.values()}) == 1
    # the ILP's start heuristic (best parents along 0, 1, 2) finds no candidate for X1 here: it
    # used to read index -1 as a parent set and return a DAG outside the cache
    c = lpbn.ScoreCache.from_families(["X0", "X1", "X2"], [
        [(-82.69733030552457, ())], [(-110.71229572052225, (2,))],
        [(-110.45216985099515, (0, 1)), (-115.36527377069918, (1,)), (-119.51210137501047, ())]])
    for method in ("highs", "pulp-cbc", "dual", "bfbnb", "asobs"):
        r = lpbn.solve(c, method)
        assert r.score == pytest.approx(-312.9217274010573) and r.dag.parents[1] == (2,), method


# ---------------------------------------------------------------------- apply, stats, contradictions
def test_apply_counts_and_meta():
    c = random_cache(6, seed=1, density=0.5, max_parents=3)
    C = Constraints(forbid=[("X0", "X1")], tiers=[["X5"], ["X0", "X1", "X2"]], no_children=["X4"],
                    max_parents={"X3": 1})
    p = C.apply(c)
    assert p.meta["constraints"] == C.to_dict() and Constraints.from_dict(p.meta["constraints"]) == C
    assert p.meta["constraints_removed"] == c.m - p.m > 0
    for j in range(p.m):
        v, ps = int(p.family[j]), p.parents(j)
        assert 4 not in ps and not (v == 1 and 0 in ps) and (v != 3 or len(ps) <= 1)
        assert not (v == 5 and set(ps) & {0, 1, 2})
    r = lpbn.solve(c, "dp", constraints=C)
    assert r.stats["constraints"]["removed"] == c.m - p.m
    with pytest.raises(InputError, match="required adjacency"):
        Constraints(require_adjacent=[("X0", "X1")]).apply(c)


@pytest.mark.parametrize("kw, reason", [
    ({"require": [("X0", "X1"), ("X1", "X2"), ("X2", "X0")]}, "directed cycle: X0 -> X1 -> X2 -> X0"),
    ({"require": [("X0", "X1")], "forbid": [("X0", "X1")]}, "X0->X1 is required but arc X0->X1 is forbidden"),
    ({"require": [("X2", "X1")], "tiers": [["X1"], ["X2"]]}, "X2 is in tier 2, after X1's tier 1"),
    ({"require": [("X0", "X1")], "no_parents": ["X1"]}, "X1 may have no parents"),
    ({"require": [("X0", "X1")], "no_children": ["X0"]}, "X0 may have no children"),
    ({"require": [("X0", "X2"), ("X1", "X2")], "max_parents": {"X2": 1}}, "2 required parents"),
    ({"require_adjacent": [("X0", "X1")], "forbid_adjacent": [("X1", "X0")]}, "must be adjacent"),
])
def test_contradictions_are_infeasible_with_the_reason(kw, reason):
    c = random_cache(3, seed=0, density=1.0, max_parents=2)
    r = lpbn.solve(c, "dp", constraints=Constraints(**kw))
    assert r.status == "infeasible" and r.dag is None and reason in r.message
    with pytest.raises(InfeasibleConstraints):
        Constraints(**kw).resolve(c.names)


def test_no_candidate_left_is_infeasible():
    c = lpbn.ScoreCache.from_families(["a", "b"], [[(-1.0, ())], [(-1.0, ()), (-0.5, (0,))]])
    r = lpbn.solve(c, "dp", constraints={"require": ["b->a"]})
    assert r.status == "infeasible" and "no candidate parent set of a" in r.message
    ok = lpbn.solve(c, "dp", constraints={"require": ["a->b"]})
    assert ok.optimal and ok.dag.parent_names() == {"a": [], "b": ["a"]}


def test_malformed_constraints_are_input_errors():
    c = random_cache(3, seed=0)
    for bad in ({"forbid": ["X0->X0"]}, {"forbid": ["X0=>X1"]}, {"tiers": [["X0"], ["X0", "X1"]]},
                {"max_parents": {"X0": -1}}, {"colour": ["red"]}, {"no_parents": "X9"}):
        with pytest.raises(InputError):
            lpbn.solve(c, "dp", constraints=bad)
    with pytest.raises(InputError, match="unknown variable 'x0'.*did you mean 'X0'"):
        lpbn.solve(c, "dp", constraints={"forbid": ["x0->X1"]})


def test_required_adjacency_branching_limit():
    names = [f"v{i}" for i in range(2 * MAX_ADJACENCY_BRANCHES + 2)]
    c = lpbn.ScoreCache.from_families(names, [[(-1.0, ())]] * len(names))
    pairs = [(names[2 * i], names[2 * i + 1]) for i in range(MAX_ADJACENCY_BRANCHES + 1)]
    with pytest.raises(InputError, match="required adjacencies"):
        lpbn.solve(c, "dp", constraints=Constraints(require_adjacent=pairs))
    # an adjacency already oriented by a required arc needs no branch
    assert len(Constraints(require=[pairs[0]], require_adjacent=pairs[:1]).branches()) == 1


# ---------------------------------------------------------------------- parsers
def test_toml(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('forbid = ["A->B", "D<-C", ["E-1", "F"]]\nrequire = ["C->D"]\nforbid_adjacent = ["A-C"]\n'
                 'require_adjacent = [["B", "E-1"]]\ntiers = [["A", "B"], ["C"]]\n'
                 'max_parents = {X = 2, "*" = 3}\nno_parents = ["A"]\nno_children = ["F"]\n')
    c = Constraints.load(f)
    assert c.forbid == (("A", "B"), ("C", "D"), ("E-1", "F")) and c.require == (("C", "D"),)
    assert c.forbid_adjacent == (("A", "C"),) and c.require_adjacent == (("B", "E-1"),)
    assert c.tiers == (("A", "B"), ("C",)) and c.max_parents == {"X": 2, "*": 3}
    assert c.no_parents == ("A",) and c.no_children == ("F",)
    assert Constraints.from_dict(c.to_dict()) == c
    assert Constraints.from_dict({"max_parents": 2}).max_parents == {"*": 2}
    for text, match in [("forbid = [1]\n", "arc"), ("tiers = 3\n", "tiers must be a list"),
                        ("forbidden = []\n", "unknown key 'forbidden'"), ("forbid = [\n", "not valid TOML"),
                        ('forbid_adjacent = ["A->B"]\n', "adjacency")]:
        f.write_text(text)
        with pytest.raises(InputError, match=match) as e:
            Constraints.load(f)
        assert str(f) in str(e.value) and "\n" not in str(e.value)


def test_gobnilp_lines(tmp_path):
    f = tmp_path / "c.con"
    f.write_text("# comment\n\nA<-B\n~A<-C\nB-C\n~ C - D \nA->E<-D\nsink F\nsinkG\n")
    c = Constraints.load(f)
    assert c.require == (("B", "A"), ("A", "E"), ("D", "E"))
    assert c.forbid == (("C", "A"),)
    assert c.require_adjacent == (("B", "C"),)
    assert c.forbid_adjacent == (("C", "D"), ("A", "D"))
    assert c.no_children == ("F", "G")
    assert c.origin[("require", ("B", "A"))] == f"{f}:3"
    for line, what in [("A_|_B", "conditional independence"), ("A_|_B|C,D", "conditional independence"),
                       ("~A->C<-B", "forbidden immorality"), ("A<--B", "ancestral"), ("~A<--B", "ancestral"),
                       ("A<B", "total-order"), ("A->B", "not a GOBNILP"), ("<-B", "not a GOBNILP")]:
        f.write_text(f"A<-B\n{line}\n")
        with pytest.raises(ConstraintFileError, match=what) as e:
            Constraints.load(f)
        assert str(e.value).startswith(f"{f}:2: ")
    f.write_text("A<-A\n")
    with pytest.raises(InputError, match=f"{f}:1: self-arc"):
        Constraints.load(f)


def test_unknown_name_points_at_the_line(tmp_path, instances):
    f = tmp_path / "c.con"
    f.write_text("1<-0\n~8<-nope\n")
    with pytest.raises(InputError, match=f"{f}:2: unknown variable 'nope'"):
        lpbn.solve(instances / WINE, "dp", constraints=f)


# ---------------------------------------------------------------------- real instances
def test_wine_forbid_strongest_arc(instances):
    """wine (GOBNILP BIC, palim 3; optimum -1258.44590861): forbidding 12 -> 8, the arc whose
    loss costs most, gives -1262.37913719 by every exact method and by dp on a cache filtered
    by hand (no lpbn.constraints)."""
    cache = lpbn.read_scores(instances / WINE)
    free = lpbn.solve(cache, "dp")
    assert free.score == pytest.approx(-1258.44590861, abs=1e-7) and (12, 8) in free.dag.edges
    C = Constraints(forbid=[("12", "8")])
    want = -1262.37913719
    for method in ("dp", "dual", "highs", "bfbnb"):
        r = lpbn.solve(cache, method, constraints=C)
        assert r.optimal and r.score == pytest.approx(want, abs=1e-7), method
        assert (12, 8) not in r.dag.edges and r.stats["constraints"]["removed"] == 3
    by_hand = lpbn.ScoreCache.from_families(cache.names, [
        [(s, ps) for s, ps in cache.family_lists(v) if not (v == 8 and 12 in ps)] for v in range(cache.n)])
    assert lpbn.solve(by_hand, "dp").score == pytest.approx(want, abs=1e-7)
    adj = lpbn.solve(cache, "highs", constraints={"forbid_adjacent": ["12-8"]})
    assert adj.score == pytest.approx(-1262.88224228, abs=1e-7)


@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_scoring_with_required_arcs_is_exact(instances, score):
    """On asia, a pruned cache lacks the parent sets a required arc needs (requiring A -> D on
    it is even infeasible); score_data(constraints=...) scores them: same optimum as the
    unpruned cache of every set."""
    from lpbn.scoring import read_data, score_data
    ds = read_data(instances / ASIA)
    full = score_data(ds, score=score, explore="exhaustive", rules=())
    plain = score_data(ds, score=score)
    for C in (Constraints(require=[("S", "D")]), Constraints(require=[("A", "D"), ("X", "A")]),
              Constraints(require_adjacent=[("A", "S")], forbid=[("L", "E")]),
              Constraints(tiers=[["A", "S"], ["T", "L", "B"], ["E", "X", "D"]], require=[("T", "D")])):
        cache = score_data(ds, score=score, constraints=C)
        assert cache.meta["constraints"] == C.to_dict()
        want = lpbn.solve(full, "dp", constraints=C)
        got = lpbn.solve(cache, "dp", constraints=C)
        assert got.optimal and got.score == pytest.approx(want.score, rel=1e-12)
    if score == "bic":
        assert want.score == pytest.approx(-11120.6536188836, rel=1e-12)
        on_plain = lpbn.solve(plain, "dp", constraints={"require": ["A->D"]})
        assert on_plain.status == "infeasible"
        exact = lpbn.solve(score_data(ds, constraints={"require": ["A->D"]}), "dp")
        assert exact.optimal and exact.score == pytest.approx(-11119.119211735628, rel=1e-12)


def test_learn_with_constraints(instances):
    res = lpbn.learn(instances / ASIA, constraints={"require": ["S->D"], "forbid": ["B->D"]})
    assert res.optimal and (1, 7) in res.dag.edges and (4, 7) not in res.dag.edges
    assert "satisfying the constraints" in res.certificate()["optimal_over"]
    assert res.network is not None and res.stats["constraints"]["given"]["require"] == [["S", "D"]]


# ---------------------------------------------------------------------- CLI
def test_cli(instances, tmp_path, capsys):
    wine = str(instances / WINE)
    assert main(["solve", wine, "--method", "dp", "--forbid", "12->8", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == pytest.approx(-1262.37913719) and "12" not in out["parents"]["8"]
    assert out["stats"]["constraints"]["removed"] == 3
    con = tmp_path / "c.toml"
    con.write_text('require = ["1->0"]\nrequire_adjacent = ["3-4"]\n')
    assert main(["solve", wine, "--constraints", str(con), "--require", "8<-12", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and "1" in out["parents"]["0"] and "12" in out["parents"]["8"]
    assert "3" in out["parents"]["4"] or "4" in out["parents"]["3"]
    assert out["stats"]["constraints"]["branches"] == 2
    # contradictions: a result with status infeasible (exit 0); malformed input: exit 2, one line
    assert main(["solve", wine, "--require", "0->1", "--require", "1->0"]) == 0
    cap = capsys.readouterr()
    assert "status:       infeasible" in cap.out and "directed cycle" in cap.err
    for argv in (["--forbid", "0-1"], ["--forbid", "0->nope"], ["--constraints", str(tmp_path / "none.toml")]):
        assert main(["solve", wine, *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and err.startswith("lpbn: error:")
    # lpbn score writes the constrained cache; lpbn learn honours the constraints
    out_cache = tmp_path / "asia.jkl"
    assert main(["score", str(instances / ASIA), "-o", str(out_cache), "--require", "A->D", "--quiet"]) == 0
    c = lpbn.read_scores(out_cache)
    assert all(0 in c.parents(j) for j in c.family_range(c.index("D")))
    assert lpbn.solve(c, "dp").score == pytest.approx(-11119.119211735628, rel=1e-12)
    assert main(["learn", str(instances / ASIA), "--forbid", "S->B", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "satisfying the constraints" in text and "B <- {}" in text
    assert main(["score", str(instances / ASIA), "-o", str(out_cache), "--require", "A->D",
                 "--require", "D->A", "--quiet"]) == 2
    assert "directed cycle" in capsys.readouterr().err


def test_apply_is_vectorised_on_a_large_cache():
    from lpbn.testing import random_sparse_cache
    import time
    c = random_sparse_cache(3000, (100, 150), 4, seed=2)
    C = Constraints(forbid=[(f"X{i}", f"X{i + 1}") for i in range(0, 2000, 2)],
                    tiers=[[f"X{i}" for i in range(0, 3000, 3)], [f"X{i}" for i in range(1, 3000, 3)]],
                    no_children=["X7"], max_parents={"*": 3})
    t = time.perf_counter()
    p = C.apply(c)
    assert time.perf_counter() - t < 5.0
    assert 0 < p.m < c.m and np.all(p.sizes <= 3)


def test_a_branch_in_error_counts_with_its_trivial_bound(monkeypatch):
    """Required adjacencies split the DAGs into orientation branches; a branch whose method
    ends in error (a detected fault) gives no bound: its trivial bound counts instead."""
    import lpbn.constraints as cons_mod
    from lpbn.result import SolveResult
    c = random_cache(6, seed=3, density=0.8)
    real = lpbn.solve
    calls = []

    def solver(cache, method, **kw):
        calls.append(method)
        if len(calls) == 1:
            return SolveResult(None, -math.inf, -1e9, "error", method, message="planted fault")
        return real(cache, method, **{k: v for k, v in kw.items() if k != "constraints"})

    run = cons_mod._BranchRun([(None, cc, cc.m) for cc in (c, c)], 0.0, None)
    run.solve_all(solver, "dp", None, {})
    res = run.merge("dp", None)
    assert res.upper_bound == pytest.approx(run.trivial[0]) and res.status == "error"
    assert res.score <= res.upper_bound
