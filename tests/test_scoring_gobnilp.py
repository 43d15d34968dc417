"""Exact agreement with GOBNILP's BIC caches and published optima, reproduced from data."""

from __future__ import annotations

import pytest

import lpbn

SMALL = ["iris", "wine", "voting", "zoo", "hepatitis", "nltcs", "insurance1000", "water1000",
         "mildew1000", "alarm1000", "barley1000", "flag", "horse", "autos", "parkinsons"]
DP_OK = {"iris", "wine", "voting", "zoo", "hepatitis", "nltcs"}  # n <= 20 and fast


def _gobnilp(instances, name):
    p = instances / "anchors" / "gobnilp-bic3" / f"{name}.BIC.p3.jkl"
    if not p.exists():
        p = p.with_name(p.name + ".gz")
    return lpbn.read_scores(p)


def compare(ours, gob):
    """(#common sets, max |diff|, #GOBNILP sets we pruned that are not subset-dominated)."""
    assert ours.names == gob.names
    common, maxdiff, bad = 0, 0.0, 0
    for i in range(gob.n):
        for j in gob.family_range(i):
            ps = gob.parents(j)
            s = ours.local_score(i, ps)
            if s is None:
                # pruned by us: some kept subset must score at least as well (provably non-optimal)
                _, best_sub = ours.best_parent_set(i, list(ps))
                if best_sub < gob.scores[j] - 1e-6:
                    bad += 1
            else:
                common += 1
                maxdiff = max(maxdiff, abs(s - gob.scores[j]))
    return common, maxdiff, bad


@pytest.mark.parametrize("name", SMALL)
def test_agrees_with_gobnilp_bic3(instances, known_optima, name):
    ours = lpbn.score_data(instances / "alisterl__eBNSL" / "CSV" / f"{name}.csv", max_parents=3)
    gob = _gobnilp(instances, name)
    common, maxdiff, bad = compare(ours, gob)
    assert common > 0
    assert maxdiff <= 1e-6
    assert bad == 0
    assert ours.meta["score"] == "bic" and ours.meta["max_parents"] == 3
    assert ours.meta["N"] > 0 and len(ours.meta["arities"]) == ours.n
    if name in DP_OK:
        want = lpbn.solve(gob, method="dp").score
        assert lpbn.solve(ours, method="dp").score == pytest.approx(want, rel=1e-9, abs=1e-6)


def test_letter_optimum_unchanged(instances):
    ours = lpbn.score_data(instances / "alisterl__eBNSL" / "CSV" / "letter.csv", max_parents=3, jobs=2)
    gob = _gobnilp(instances, "letter")
    common, maxdiff, bad = compare(ours, gob)
    assert maxdiff <= 1e-6 and bad == 0
    assert lpbn.solve(ours, method="dp").score == pytest.approx(-183012.32032123, abs=1e-6)


DISCRETE = "auroraingebrigtsen__bayesian-structure-learning/pygobnilp/data/discrete.dat"


@pytest.mark.parametrize("limit,want", [(None, -24028.0947783535), (3, -24028.0947783535),
                                        (1, -24933.77702265212)])
def test_pygobnilp_discrete_bdeu(instances, limit, want):
    c = lpbn.score_data(instances / DISCRETE, score="bdeu", ess=1.0, max_parents=limit)
    assert c.meta["ess"] == 1.0
    assert lpbn.solve(c, method="dp").score == pytest.approx(want, abs=1e-6)


def test_wine_bic3_published(instances):
    c = lpbn.score_data(instances / "alisterl__eBNSL" / "CSV" / "wine.csv", max_parents=3)
    assert lpbn.solve(c, method="dp").score == pytest.approx(-1258.44590861, abs=1e-6)


def test_asia_bdeu_matches_pygobnilp_cache(instances):
    base = instances / "auroraingebrigtsen__bayesian-structure-learning/pygobnilp/data/asia_10000.dat"
    ours = lpbn.score_data(base, score="bdeu", max_parents=3)
    theirs = lpbn.read_scores(str(base) + ".3.jkl")
    common, maxdiff, bad = compare(ours, theirs)
    assert common > 0 and maxdiff <= 1e-6 and bad == 0
    assert lpbn.solve(ours, method="dp").score == pytest.approx(
        lpbn.solve(theirs, method="dp").score, abs=1e-6)


def test_mdl_is_bic_over_ln2(instances):
    import math
    p = instances / "alisterl__eBNSL" / "CSV" / "wine.csv"
    b = lpbn.score_data(p, max_parents=2)
    m = lpbn.score_data(p, score="mdl", max_parents=2)
    assert m.m == b.m
    for i in range(b.n):
        for j in b.family_range(i):
            assert m.local_score(i, b.parents(j)) == pytest.approx(b.scores[j] / math.log(2), rel=1e-12)
