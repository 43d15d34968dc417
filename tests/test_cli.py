"""The lpbn CLI: outputs, exit codes and atomic writes (in-process and one real subprocess)."""

import json
import subprocess
import sys

import pytest

from lpbn.cli import main

WINE = "alisterl__eBNSL/scores/wine.BIC.3"


def test_solve_json_wine(instances, capsys):
    assert main(["solve", str(instances / WINE), "--format", "json", "--method", "dp"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("status", "score", "upper_bound", "gap", "method", "seconds", "parents"):
        assert key in out
    assert out["status"] == "optimal"
    assert out["score"] == pytest.approx(-1258.44590861, rel=1e-10)
    # the canonical member of the optimum's Markov class (lpbn.canonical): variable 0, first in
    # the search that orients the class's undirected edges, is a source; 8's v-structure stays
    assert out["parents"]["0"] == [] and sorted(out["parents"]["8"]) == ["12", "4"]


def test_solve_dot_and_output_file(instances, tmp_path):
    out = tmp_path / "g.dot"
    assert main(["solve", str(instances / WINE), "--format", "dot", "-o", str(out)]) == 0
    assert out.read_text().startswith('digraph "lpbn"')


def test_info_and_convert(instances, tmp_path, capsys):
    assert main(["info", str(instances / WINE), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 14
    assert main(["convert", str(instances / WINE), str(tmp_path / "w.pss"), "--prune-dominated"]) == 0
    assert main(["solve", str(tmp_path / "w.pss"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(-1258.44590861)


@pytest.mark.parametrize("argv", [
    ["solve", "missing-file.jkl"],
    ["solve", "{bad}", "--method", "nope"],
    ["solve", "{bad}"],
    ["info"],
    ["solve", "{good}", "--time-limit", "-1"],
    ["solve", "{good}", "--option", "novalue"],
    [],
])
def test_bad_input_exits_2_with_one_line(argv, tmp_path, instances, capsys):
    bad = tmp_path / "bad.jkl"
    bad.write_text("2\na 1\n-1 1 zz\n")
    argv = [a.replace("{bad}", str(bad)).replace("{good}", str(instances / WINE)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    if argv:
        assert len(err.splitlines()) == 1 and err.startswith("lpbn: error:")


def test_no_partial_output_on_error(tmp_path):
    bad = tmp_path / "bad.jkl"
    bad.write_text("2\na 1\n-1 0\nb 1\n-1 1 q\n")
    out = tmp_path / "out.pss"
    assert main(["convert", str(bad), str(out)]) == 2
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


def test_console_script_runs(instances):
    p = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(instances / WINE), "--format", "json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["status"] == "optimal"
