"""Issue 56: data read as the user meant it (format by name, delimiter, comment lines, header
rule, warnings), names that survive the jkl/pss round trip, and the smaller "bad input -> exit
2" holes.  Every reproducer of the issue is a test here."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lpbn
from lpbn.atomic import atomic_write, reap_stale_temps
from lpbn.cli import main
from lpbn.errors import DataFileError, LpbnWarning
from lpbn.formats import read_scores, write_scores
from lpbn.formats.textio import decode_name, encode_name
from lpbn.scoring import read_data
from lpbn.scoring.table import HEADER_EVIDENCE, decide_header, describe, novel_row_chance, read_table


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def quiet_read(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # these files are unambiguous: no warning either
        return read_data(*args, **kw)


# ---------------------------------------------------------------- the reproducers
def test_comment_line_before_the_header(tmp_path, capsys):
    p = write(tmp_path, "c.csv", "# exported data\nA,B,C\n0,1,0\n1,1,0\n0,0,1\n1,0,1\n")
    d = quiet_read(p)
    assert d.names == ("A", "B", "C") and d.N == 4
    assert d.reading["comment_lines"] == 1 and d.reading["header"] is True
    assert main(["learn", str(p), "--max-parents", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 variables, 4 rows" in out and "skipped 1 comment line" in out
    assert "format: csv, delimiter ','" in out and "header: yes (auto)" in out


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.txt", "t.csv.gz"])
def test_tab_separated_is_not_a_dat_file(tmp_path, name):
    text = "A\tB\n2\t2\n0\t1\n1\t0\n1\t1\n"
    p = tmp_path / name
    if name.endswith(".gz"):
        import gzip
        p.write_bytes(gzip.compress(text.encode()))
    else:
        p.write_text(text)
    d = quiet_read(p)
    assert d.names == ("A", "B") and d.N == 4 and d.reading["delimiter"] == "\t"
    assert d.columns[:, 0].tolist() == [2, 2]       # the row "2 2" is data (coded: the top state)


def test_one_column_csv(tmp_path):
    d = quiet_read(write(tmp_path, "a.csv", "A\n2\n0\n1\n1\n"))
    assert d.names == ("A",) and d.N == 4 and d.arities.tolist() == [3]
    d = quiet_read(write(tmp_path, "b.csv", "A\n1\n0\n0\n1\n"))     # was "exceeds declared arity 1"
    assert d.names == ("A",) and d.N == 4 and d.arities.tolist() == [2]


def test_headerless_strings_keep_their_first_row(tmp_path):
    rows = [["red", "tiny"], ["blue", "large"], ["red", "large"], ["blue", "tiny"], ["red", "tiny"]]
    p = write(tmp_path, "s.csv", "".join(",".join(r) + "\n" for r in rows))
    d = quiet_read(p)
    assert d.N == 5 and d.names == ("0", "1") and d.reading["header"] is False
    learned = lpbn.learn(p)
    intended = lpbn.learn(np.array(rows, dtype=object))
    assert learned.score == pytest.approx(intended.score, rel=1e-9) and learned.score < 0


def test_header_flags_are_never_overridden_by_the_dat_guess(tmp_path):
    text = "A B\n2 2\n0 1\n1 0\n1 1\n"
    p = write(tmp_path, "x.data", text)           # unknown extension: sniffed, ambiguous
    with pytest.warns(LpbnWarning, match=r"x\.data: read as a GOBNILP \.dat file.*--data-format csv"):
        d = read_data(p)
    assert d.N == 3 and d.arities.tolist() == [2, 2] and d.reading["format_source"] == "content"
    d = quiet_read(p, header=False)
    assert d.N == 5 and d.reading["format"] == "csv" and d.reading["delimiter"] == "whitespace"
    d = quiet_read(p, format="csv")
    assert d.names == ("A", "B") and d.N == 4
    with pytest.raises(DataFileError, match="no-header"):
        read_data(write(tmp_path, "x.dat", text), header=False)


def test_a_dat_layout_named_txt_is_text_with_a_warning(tmp_path):
    p = write(tmp_path, "asia.txt", "A B\n2 2\n0 1\n1 0\n")
    with pytest.warns(LpbnWarning, match="line 2 read as data.*--data-format dat"):
        d = read_data(p)
    assert d.N == 3 and d.reading["format"] == "csv"
    assert quiet_read(p, format="dat").N == 2
    # a delimiter given rules out the .dat guess for an unknown extension
    assert quiet_read(write(tmp_path, "x.data", "A\tB\n2\t2\n0\t1\n"), delimiter="tab").N == 2


def test_names_survive_the_round_trip(tmp_path, capsys):
    p = write(tmp_path, "xy.csv", '"x y",b,#c,%41,é\n0,1,0,1,0\n1,0,1,1,0\n1,1,0,0,1\n0,0,1,0,1\n')
    for ext in ("jkl", "pss", "jkl.gz"):
        out = tmp_path / f"x.{ext}"
        assert main(["score", str(p), "-o", str(out), "--header", "--quiet"]) == 0
        cache = read_scores(out)
        assert cache.names == ("x y", "b", "#c", "%41", "é")
        assert main(["solve", str(out), "--format", "json"]) == 0
        capsys.readouterr()


def test_learn_has_header_flags(tmp_path, capsys):
    strings = write(tmp_path, "s.csv", "u,v\nv,u\nu,u\nv,v\n")
    assert main(["learn", str(strings), "--no-header"]) == 0
    assert "4 rows" in capsys.readouterr().out
    e0 = write(tmp_path, "e.csv", "E0,E0\na,b\nb,a\na,a\n")
    assert main(["learn", str(e0), "--header"]) == 2
    assert "duplicate column name" in capsys.readouterr().err
    assert main(["learn", str(e0), "--no-header", "--delimiter", ","]) == 0


@pytest.mark.parametrize("method", ["auto", "dp", "bfbnb", "highs"])
@pytest.mark.parametrize("value", ["-1", "abc", "1.5"])
def test_threads_option_checked_whatever_the_cache(tmp_path, capsys, method, value):
    cache = tmp_path / "t.jkl"
    cache.write_text("2\nA 2\n-1.0 0\n-0.5 1 B\nB 1\n-2.0 0\n")
    assert main(["solve", str(cache), "--method", method, "--option", f"threads={value}"]) == 2
    assert "threads" in capsys.readouterr().err


def test_bench_jobs_zero_refused(capsys):
    assert main(["bench", "smoke", "--jobs", "0"]) == 2
    assert "--jobs must be positive" in capsys.readouterr().err


@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_killed_writers_temporary_files_are_removed(tmp_path):
    import fcntl
    target = tmp_path / "out.jkl"
    stale = tmp_path / ".out.jkl.k1ll3d00.tmp"          # a writer killed outright left this
    stale.write_text("half")
    live = tmp_path / ".out.jkl.l1ve0000.tmp"            # a live writer holds its lock
    live.write_text("busy")
    other = tmp_path / ".other.jkl.k1ll3d00.tmp"         # another target's: not touched
    other.write_text("x")
    with open(live) as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        with atomic_write(target) as out:
            out.write("ok")
        assert not stale.exists() and live.exists() and other.exists()
    assert target.read_text() == "ok"
    assert reap_stale_temps(target) == [str(live)]       # its writer is gone now


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL, flock")
def test_a_write_killed_outright_leaves_nothing_after_the_next(tmp_path):
    import signal
    import subprocess
    import sys
    target = tmp_path / "out.json"
    code = ("import sys, time\nfrom lpbn.atomic import atomic_write\n"
            f"with atomic_write({str(target)!r}) as fh:\n"
            "    fh.write('half'); fh.flush(); print('writing', flush=True); time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    assert len(list(tmp_path.glob(".out.json.*.tmp"))) == 1
    p.send_signal(signal.SIGKILL)
    p.wait()
    with atomic_write(target) as fh:
        fh.write("{}")
    assert [f.name for f in tmp_path.iterdir()] == ["out.json"]


def test_unexpected_highs_status_is_not_interrupted(instances, monkeypatch):
    from lpbn.lp import model as lp_model
    cache = read_scores(instances / "alisterl__eBNSL/scores/wine.BIC.3")

    def failing(self, *args, **kwargs):
        return lp_model.MIPSolution("Solve error", math.inf, -math.inf, None)
    monkeypatch.setattr(lp_model.EtaLP, "solve_mip", failing)
    # no root cuts: wine's LP relaxation alone leaves a gap, so the MIP runs
    res = lpbn.solve(cache, method="highs", root_cuts=False, start_search=False, fix_columns=False)
    assert res.status == "error" and "Solve error" in res.message
    assert "interrupted_by" not in res.stats


def test_default_search_limit_is_named():
    from types import SimpleNamespace

    from lpbn.certified import _status as status  # noqa: PLC2701 - the message is the point
    from lpbn.control import SolveControl
    search = SimpleNamespace(stop="patience", stats={"default_rule": True, "patience": 200})
    st, msg = status(SolveControl(), search, None, -10.0, -5.0)
    assert st == "node_limit" and "default limit of 200 restarts" in msg and "--time-limit" in msg
    search = SimpleNamespace(stop="max_restarts", stats={"default_rule": False, "restarts": 7})
    assert "max_restarts" in status(SolveControl(), search, None, -10.0, -5.0)[1]
    search = SimpleNamespace(stop="time_limit", stats={"default_rule": True, "patience": 200})
    st, msg = status(SolveControl(), search, None, -10.0, -5.0)
    assert st == "time_limit" and "default cap of 60 s" in msg and "--time-limit" in msg


# ---------------------------------------------------------------- the rules, one by one
@pytest.mark.parametrize("sep,name", [(",", "a.csv"), ("\t", "a.tsv"), (";", "a.csv"), (" ", "a.txt"),
                                      ("|", "a.csv")])
def test_delimiters(tmp_path, sep, name):
    text = sep.join(["A", "B", "C"]) + "\n" + "".join(sep.join(r) + "\n" for r in
                                                     (["0", "1", "2"], ["1", "1", "0"], ["2", "0", "0"]))
    kw = {"delimiter": "|"} if sep == "|" else {}
    d = quiet_read(write(tmp_path, name, text), **kw)
    assert d.names == ("A", "B", "C") and d.N == 3
    assert d.reading["delimiter"] == ("whitespace" if sep == " " else sep)


def test_ambiguous_delimiter_warns(tmp_path):
    with pytest.warns(LpbnWarning, match="delimiter ',' chosen.*';'"):
        d = read_data(write(tmp_path, "a.csv", "a;b,c\nx;y,z\n"))
    assert d.n == 2


def test_whitespace_padding_and_crlf(tmp_path):
    d = quiet_read(write(tmp_path, "p.csv", "  A ,  B \r\n 0 ,  1\r\n\r\n  1, 0  \r\n"))
    assert d.names == ("A", "B") and d.N == 2 and d.reading["delimiter"] == ","


def test_header_rule():
    miss = frozenset({"", "?"})
    assert decide_header(["A", "B"], [["0", "1"], ["1", "0"]], miss) == (True, False)
    assert decide_header(["x", "y"], [["low", "hi"], ["high", "lo"]], miss) == (False, True)
    assert decide_header(["low", "hi"], [["low", "hi"], ["high", "lo"]], miss) == (False, False)
    assert decide_header(["E0", "E0"], [["a", "b"]], miss) == (False, False)
    assert decide_header(["?", "1"], [["0", "1"]], miss) == (False, False)
    assert decide_header(["3", "4"], [["0", "1"]], miss) == (False, False)


def test_header_over_text_columns_found_with_enough_rows(tmp_path):
    """bnlearn-style samples (names over text states): the rows below make a data row of
    all-new cells practically impossible, so the names are a header without --header."""
    rng = np.random.default_rng(0)
    states = ["yes", "no", "maybe"]
    rows = [[states[int(rng.integers(3))] for _ in range(5)] for _ in range(250)]
    text = "asia,tub,smoke,lung,bronc\n" + "".join(",".join(r) + "\n" for r in rows)
    d = quiet_read(write(tmp_path, "asia.csv", text))
    assert d.names == ("asia", "tub", "smoke", "lung", "bronc") and d.N == 250
    assert novel_row_chance(5, rows) < HEADER_EVIDENCE < novel_row_chance(2, rows[:6])
    # a few rows are no such evidence: data, with the warning
    with pytest.warns(LpbnWarning, match="--header"):
        assert read_data(write(tmp_path, "few.csv", "\n".join(text.split("\n")[:5]) + "\n")).N == 5


def test_dat_names_may_be_integers(tmp_path):
    """GOBNILP names variables 0 1 2 ... too: by name, such a file is still .dat (the old
    content guess read the names and arities lines as two data rows)."""
    d = quiet_read(write(tmp_path, "c.dat", "0 1 2\n2 2 3\n0 1 2\n1 1 0\n"))
    assert d.names == ("0", "1", "2") and d.N == 2 and d.arities.tolist() == [2, 2, 3]


def test_text_layer_gives_cells_not_codes(tmp_path):
    """read_table: header and string cells with line numbers (the layer a typed reader of
    numeric columns builds on), before any integer coding."""
    from pathlib import Path
    t = read_table(Path("x.csv"), "# c\nA;B\n1.5; red\n-2;blue\n")
    assert t.header == ["A", "B"] and t.rows == [(3, ["1.5", "red"]), (4, ["-2", "blue"])]
    assert t.reading["delimiter"] == ";" and t.reading["comment_lines"] == 1


def test_reading_is_recorded_everywhere(tmp_path):
    p = write(tmp_path, "r.csv", "# a\n# b\nA;B\n0;1\n1;0\n1;1\n")
    cache = lpbn.score_data(p)
    assert cache.meta["reading"]["comment_lines"] == 2 and cache.meta["reading"]["delimiter"] == ";"
    res = lpbn.learn(p)
    assert res.certificate()["scoring"]["reading"]["header"] is True
    assert describe(res.data.reading) == "format: csv, delimiter ';'; header: yes (auto); skipped 2 comment lines"
    assert res.data.reading["warnings"] == []


def test_bad_delimiter_and_format(tmp_path):
    p = write(tmp_path, "a.csv", "A,B\n0,1\n")
    for bad in ("ab", "1", '"', 3):
        with pytest.raises(DataFileError, match="delimiter"):
            read_data(p, delimiter=bad)
    with pytest.raises(DataFileError, match="unknown data format"):
        read_data(p, format="xlsx")
    with pytest.raises(DataFileError, match="empty data file.*comment"):
        read_data(write(tmp_path, "e.csv", "# only\n# comments\n"))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.sampled_from([",", "\t", ";"]), st.booleans(),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_fast_path_and_general_path_agree(tmp_path_factory, n, rows, sep, header, pad, seed):
    """The numba integer path (plain digits) and the general path (a quoted cell sends the
    file there) give the same data for every delimiter."""
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 4, size=(rows, n))
    cell = (lambda v: f" {v} ") if pad else str
    lines = ([sep.join(f"V{j}" for j in range(n))] if header else []) + \
        [sep.join(cell(v) for v in r) for r in table]
    d = tmp_path_factory.mktemp("fp")
    plain = d / "p.csv"
    plain.write_text("\n".join(lines) + "\n")
    quoted = d / "q.csv"
    quoted.write_text("\n".join(lines[:-1] + [sep.join(f'"{v}"' for v in table[-1])]) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = read_data(plain, header=header)
        b = read_data(quoted, header=header)
    assert a.N == rows and a.n == n and a.names == b.names
    np.testing.assert_array_equal(a.columns, b.columns)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=12).filter(lambda s: s.strip() != ""))
def test_every_name_encodes_to_one_token_and_back(name):
    tok = encode_name(name)
    assert tok.split() == [tok] and not tok.startswith("#") and "\n" not in tok
    assert decode_name(tok) == name


def test_names_hypothesis_round_trip_through_a_cache(tmp_path):
    names = ("a b", "tab\there", "#x", "50%", "%zz", "a%20b", "日本", "\u3000wide", "e\u0301")
    cache = lpbn.score_data(np.array([[0, 1] * 4 + [0]] * 3 + [[1, 0] * 4 + [1]] * 3),
                            max_parents=1)
    cache.names = names
    for ext in ("jkl", "pss"):
        out = tmp_path / f"n.{ext}"
        write_scores(cache, out)
        assert read_scores(out).names == names
