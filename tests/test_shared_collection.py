"""Opt-in sweeps over the shared benchmark collection (skipped when it is absent)."""

import json
import warnings

import pytest

import lpbn
from lpbn import ScoreFileError

SCORE_SUFFIXES = (".jkl", ".BIC", ".BDeu", ".scores", ".txt", ".3", ".pss")


def collection_score_files(shared):
    out = []
    for base in (shared / "instances", shared / "anchors"):
        for p in sorted(base.rglob("*")):
            name = p.name[:-3] if p.name.endswith(".gz") else p.name
            if p.is_file() and name.endswith(SCORE_SUFFIXES) and "papers" not in p.parts:
                out.append(p)
    return out


def test_every_score_file_parses_or_fails_precisely(shared):
    files = collection_score_files(shared)
    assert len(files) >= 180
    for f in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lpbn.LpbnWarning)
            try:
                c = lpbn.read_scores(f)
            except ScoreFileError as exc:  # must name the file
                assert str(f) in str(exc)
                continue
        assert c.n >= 1


def test_dp_reproduces_all_known_optima(shared):
    known = json.loads((shared / "instances/KNOWN_OPTIMA.json").read_text())["computed_exact_dp"]
    assert len(known) == 157
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lpbn.LpbnWarning)
        for path, entry in known.items():
            r = lpbn.solve(shared / "instances" / path, "dp")
            assert r.status == "optimal"
            assert r.score == pytest.approx(entry["optimum"], rel=1e-6), path


def test_large_caches_load_and_query(shared):
    data = shared / "instances/alexjilkin__sampling-markov-equivalent-dag/data"
    for name, n in (("diabetes-5000.jkl", 413), ("pigs-5000.jkl", 441), ("munin-5000.jkl.gz", 1041)):
        c = lpbn.read_scores(data / name)
        assert c.n == n and c.words == (n + 63) // 64
        p = c.prune_dominated()
        assert p.m <= c.m
        choice, total = p.best_for_order(range(n))
        assert (choice >= 0).all() and total <= p.summary().bound_sum_best
