"""Fuzzing in CI (issue 15): mutated real files and random command lines must give a
documented error or a valid result, never another exception or a hang (:mod:`lpbn.fuzz`).
The full campaign (``python -m lpbn.fuzz --cases 12000``) is recorded in results/reliability/;
the meant-file classes of issue 56 (2,000 cases) in results/fuzz/."""

from __future__ import annotations

import pytest

from lpbn import fuzz


@pytest.fixture(scope="module")
def seeds(instances):
    scores, data = fuzz.seed_files(instances)
    assert len(scores) >= 2 and len(data) >= 2
    return scores, data


def _clean(tally: fuzz.Tally) -> None:
    assert tally.other == 0 and tally.hangs == 0, tally.failures[:5]
    assert tally.ok > 0 and tally.documented > 0     # the mutations reach both outcomes


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzz_score_readers(seeds, tmp_path, seed):
    _clean(fuzz.fuzz_score_files(seeds[0], 1500, seed, tmp_path))


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzz_data_loader(seeds, tmp_path, seed):
    _clean(fuzz.fuzz_data_files(seeds[1], 750, seed, tmp_path))


def test_fuzz_command_line(seeds, tmp_path):
    _clean(fuzz.fuzz_cli(seeds[0][0], seeds[1][0], 120, 3, tmp_path))


def test_fuzz_meant_files(tmp_path):
    """Issue 56: 50 generated files of each class (comment lines, tabs, one column, padding,
    header-less strings, unicode names, .dat, long text tables with and without names), each
    read with the counts it was meant to have: no silent misread and no refusal of a valid file."""
    tally = fuzz.fuzz_meaning(50 * len(fuzz.CLASSES), 7, tmp_path)
    assert tally.other == 0 and tally.hangs == 0, tally.failures[:5]
    assert tally.ok == tally.cases
