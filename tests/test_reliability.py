"""Issue 15: every bad input a documented error (exit 2), outputs never partial or private,
options checked before a method runs, score files read strictly."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

import lpbn
from lpbn.atomic import atomic_write, check_writable
from lpbn.cache import ScoreCache
from lpbn.cli import main
from lpbn.errors import InputError, OutputError, ScoreFileError
from lpbn.formats import parse_scores
from lpbn.testing import random_cache

WINE = "anchors/gobnilp-bic3/wine.BIC.p3.jkl"


# ---------------------------------------------------------------- outputs
def test_output_to_a_missing_directory_or_a_directory_exits_2(instances, tmp_path, capsys):
    src = str(instances / WINE)
    for argv in (["solve", src, "-o", str(tmp_path / "no" / "x.json")],
                 ["solve", src, "-o", str(tmp_path)],
                 ["convert", src, str(tmp_path / "no" / "x.jkl")],
                 ["convert", src, str(tmp_path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "lpbn: error:" in err
    assert sorted(os.listdir(tmp_path)) == []


def test_output_files_get_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "a.txt") as fh:
            fh.write("x")
        assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o644
        (tmp_path / "b.txt").write_text("old")
        os.chmod(tmp_path / "b.txt", 0o640)
        with atomic_write(tmp_path / "b.txt") as fh:
            fh.write("new")
        assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_check_writable(tmp_path):
    check_writable(tmp_path / "ok.json")
    with pytest.raises(OutputError, match="directory"):
        check_writable(tmp_path)
    with pytest.raises(OutputError, match="no such directory"):
        check_writable(tmp_path / "a" / "b.json")


# ---------------------------------------------------------------- options
@pytest.mark.parametrize("method,options,match", [
    ("dual", {"k_max": "abc"}, "k_max must be a non-negative integer"),
    ("dual", {"seed": "x"}, "seed must be a non-negative integer"),
    ("bfbnb", {"seed": 1.5}, "seed must be"),
    ("asobs", {"seed": -1}, "seed must be"),
    ("dp", {"memory_limit": -1}, "memory_limit must be a positive"),
    ("dp", {"bogus": 1}, "has no option 'bogus'"),
    ("highs", {"threads": True}, "threads must be a non-negative integer"),
    ("highs", {"subip_time": float("nan")}, "subip_time must be a non-negative number"),
    ("highs", {"root_cuts": 1}, "root_cuts must be true or false"),
])
def test_bad_options_are_input_errors(method, options, match):
    cache = random_cache(5, seed=1)
    with pytest.raises(InputError, match=match):
        lpbn.solve(cache, method, **options)


@pytest.mark.parametrize("opt", ["k_max=abc", 'seed="x"', "time-limit=3", "memory_limit=5"])
def test_bad_option_on_the_command_line_exits_2(instances, opt, capsys):
    assert main(["solve", str(instances / WINE), "--method", "dual", "--option", opt]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_memory_limit_must_be_positive(instances, capsys):
    assert main(["solve", str(instances / WINE), "--method", "dp", "--memory-limit", "-1"]) == 2


def test_negative_max_parents_in_convert_exits_2(instances, tmp_path, capsys):
    """Found by the fuzzer once it drew convert lines with --max-parents -1."""
    assert main(["convert", str(instances / WINE), "--max-parents", "-1", str(tmp_path / "o.jkl")]) == 2
    assert "max_parents must be >= 0" in capsys.readouterr().err
    assert not (tmp_path / "o.jkl").exists()


def test_missing_plugin_exits_2(tmp_path, capsys):
    assert main(["bench", "smoke", "--plugin", str(tmp_path / "none.py"), "-o", str(tmp_path / "b")]) == 2
    assert "--plugin" in capsys.readouterr().err


# ---------------------------------------------------------------- score files
@pytest.mark.parametrize("text,match", [
    ("2\na 1\n-1_0 0\nb 1\n-1 0\n", "expected a score, found '-1_0'"),
    ("2\na 1\n-1 0\nb 1\n0x10 0\n", "expected a score"),
    ("\u0662\na 1\n-1 0\nb 1\n-1 0\n", "unrecognised score-file format"),
    ("2\na \u0661\n-1 0\nb 1\n-1 0\n", "expected a block header"),
    ("2\ra 1\r-1 0\rb 1\r-1 0\r", "carriage return without line feed"),
    ("2\na 1\n-1e308 0\nb 1\n-1e308 0\n", "too large in magnitude"),
    ("VAR a\n-1_0\nVAR b\n-1\n", "expected META, VAR or a score line"),
])
def test_score_readers_are_strict(text, match):
    with pytest.raises(ScoreFileError, match=match):
        parse_scores(text, "t.jkl")


def test_crlf_score_files_still_read():
    c = parse_scores("2\r\na 1\r\n-1 0\r\nb 1\r\n-2.5 0\r\n", "t.jkl")
    assert c.n == 2 and c.scores.tolist() == [-1.0, -2.5]


def test_overflowing_scores_are_refused_by_the_api():
    with pytest.raises(ScoreFileError, match="too large"):
        ScoreCache.from_families(["a", "b"], [[(-1e308, ())], [(-1e308, ())]])
    c = ScoreCache.from_families(["a", "b"], [[(-1e150, ())], [(-1e150, ())]])
    assert lpbn.solve(c, "dp").score == -2e150
    assert np.isfinite(c.scores).all()


@pytest.mark.parametrize("method", ["highs", "dual"])
def test_json_on_stdout_is_only_json(instances, method):
    """highspy prints a banner on fd 1 when the first instance is made: never into a result."""
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(instances / WINE), "--method", method,
                          "--format", "json", "--quiet"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] == "optimal"
