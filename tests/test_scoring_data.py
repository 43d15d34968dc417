"""Data input of the scorer (CSV, .dat, numpy, pandas) and the ``lpbn score`` command."""

from __future__ import annotations

import numpy as np
import pytest

import lpbn
from lpbn.cli import main
from lpbn.errors import DataFileError, InputError, LpbnWarning
from lpbn.scoring import read_data


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_csv_without_header_names_columns_like_gobnilp(tmp_path):
    d = read_data(write(tmp_path, "a.csv", "0,1,2\n1,1,0\n0,0,2\n"))
    assert d.names == ("0", "1", "2") and d.N == 3
    assert d.arities.tolist() == [2, 2, 2]  # observed states: {0,1}, {0,1}, {0,2}
    assert d.columns[2].tolist() == [1, 0, 1]


def test_csv_header_autodetect_and_override(tmp_path):
    p = write(tmp_path, "h.csv", "A,B\n0,1\n1,1\n")
    d = read_data(p)
    assert d.names == ("A", "B") and d.N == 2
    p2 = write(tmp_path, "s.csv", "x,y\nlow,hi\nhigh,lo\n")
    # issue 56: a first row of the same kinds as the rows below is data (with a warning)
    with pytest.warns(LpbnWarning, match="read as data.*--header"):
        d2 = read_data(p2)
    assert d2.N == 3 and d2.reading["header"] is False and d2.reading["warnings"]
    assert read_data(p2, header=True).names == ("x", "y")
    d3 = read_data(p2, header=False)
    assert d3.N == 3 and d3.names == ("0", "1")
    d4 = read_data(write(tmp_path, "n.csv", "3,4\n0,1\n"), header=True)
    assert d4.names == ("3", "4") and d4.N == 1


def test_string_labels_and_constant_columns(tmp_path):
    d = read_data(write(tmp_path, "l.csv", "c,k\nb,1\na,1\nc,1\n"))
    assert d.arities.tolist() == [3, 1]
    assert d.labels[0] == ["a", "b", "c"] and d.columns[0].tolist() == [1, 0, 2]
    c = lpbn.score_data(d)
    assert c.n == 2 and lpbn.solve(c, method="dp").status == "optimal"


def test_dat_format_declared_arities(instances, tmp_path):
    d = read_data(instances / "auroraingebrigtsen__bayesian-structure-learning/pygobnilp/data/discrete.dat")
    assert d.names == ("A", "B", "C", "D", "E", "F") and d.N == 5000
    assert d.arities.tolist() == [3, 3, 3, 3, 3, 2]
    d2 = read_data(write(tmp_path, "x.dat", "A B\n3 2\n0 1\n1 0\n"))
    assert d2.arities.tolist() == [3, 2]  # declared, larger than observed
    with pytest.raises(DataFileError, match="exceeds declared arity"):
        read_data(write(tmp_path, "y.dat", "A B\n2 2\n0 1\n2 0\n"))
    with pytest.raises(DataFileError, match="declared arity"):
        read_data(write(tmp_path, "z.dat", "A B\n2 2\na 1\nb 0\nc 1\n"))


@pytest.mark.parametrize("tok,declare", [("?", None), ("", None), ("NA", "NA"), ("null", ["null", "-"])])
def test_missing_values_error_names_row_and_column(tmp_path, tok, declare):
    p = write(tmp_path, "m.csv", f"A,B\n0,1\n1,{tok}\n0,0\n")
    with pytest.raises(DataFileError) as e:
        read_data(p, missing=declare)
    msg = str(e.value)
    assert ":3:2" in msg and "B" in msg and "--drop-missing" in msg and "--missing" in msg
    d = read_data(p, missing=declare, drop_missing=True)
    assert d.N == 2 and d.dropped_rows == 1


@pytest.mark.parametrize("tok", ["None", "NA", "null", "0", "-", "NaN", "n/a", "*"])
def test_every_other_token_is_a_state(tmp_path, tok):
    """bnlearn's child, insurance and hailfinder networks have a state literally named None."""
    p = write(tmp_path, "s.csv", f"A,B\nlow,{tok}\nhigh,x\nlow,{tok}\n")
    d = read_data(p, header=True)
    assert d.N == 3 and d.arities.tolist() == [2, 2] and tok in d.labels[1]
    with pytest.raises(DataFileError, match="missing value"):
        read_data(p, missing=[tok], header=True)


def test_real_world_csv_details(tmp_path):
    # quoted fields with commas and newlines, a BOM, CRLF line ends, gzip
    text = '\ufeff"name, with comma",B\r\n"a\nb",1\r\n"c",2\r\n"a\nb",2\r\n'
    p = tmp_path / "q.csv"
    p.write_bytes(text.encode("utf-8"))
    d = read_data(p)
    assert d.names == ("name, with comma", "B") and d.N == 3 and d.labels[0] == ["a\nb", "c"]
    import gzip
    g = tmp_path / "q.csv.gz"
    g.write_bytes(gzip.compress(text.encode("utf-8")))
    assert read_data(g).names == d.names
    # a field longer than the csv module's default limit is still a state
    long = "x" * 200_000
    assert read_data(write(tmp_path, "l.csv", f"A,B\n{long},1\ny,2\n")).labels[0] == [long, "y"]
    # integers of any size are states, exact and in numeric order
    big = "9" * 5000
    d = read_data(write(tmp_path, "i.csv", f"A,B\n{big},1\n99999999999999999999,2\n3,2\n"))
    assert d.arities.tolist() == [3, 2] and d.labels[0] == ["3", "99999999999999999999", big]


@pytest.mark.parametrize("text,match", [
    ("A,A\n0,1\n1,0\n", "duplicate column name"),          # the integer fast path
    ("A,A\nx,1\ny,0\n", "duplicate column name"),          # the general path
    ("A,,C\nx,1,2\ny,0,2\n", "empty name"),
    ("A B\n2 99999999999999999999999\n0 1\n", "out of range"),   # .dat arity beyond int64
    ("A B\n2 " + "9" * 5000 + "\n0 1\n", "out of range"),
    ('A,B\n"x,1\n', "malformed CSV|expected 2"),
])
def test_bad_files_give_one_located_error(tmp_path, text, match):
    name = "bad.csv" if "," in text else "bad.dat"      # the format comes from the name (issue 56)
    with pytest.raises(DataFileError, match=match):
        read_data(write(tmp_path, name, text))


def test_truncated_gzip_and_binary_files(tmp_path):
    import gzip
    p = tmp_path / "t.csv.gz"
    p.write_bytes(gzip.compress(b"a,b\n1,2\n" * 100)[:20])
    with pytest.raises(DataFileError, match="gzip"):
        read_data(p)
    b = tmp_path / "b.csv"
    b.write_bytes(b"a,b\n1,\x002\n")
    with pytest.raises(DataFileError, match="binary"):
        read_data(b)
    with pytest.raises(DataFileError, match="directory"):
        read_data(tmp_path)


def test_duplicate_names_given_by_the_caller():
    with pytest.raises(DataFileError, match="duplicate column name"):
        read_data(np.zeros((3, 2), dtype=int), names=["a", "a"])


def test_pandas_column_kinds():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({
        "cat": pd.Categorical(["lo", "hi", "lo", "hi"], categories=["lo", "mid", "hi"]),
        "obj": ["None", "x", "None", "y"],
        "int": [0, 5, 5, 0],
        "bool": [True, False, True, True],
        "nullable": pd.array([1, 2, None, 1], dtype="Int64"),
        "flt": [0.0, 1.0, float("nan"), 10.0],
    })
    with pytest.raises(DataFileError, match="missing value"):
        read_data(df)
    d = read_data(df, drop_missing=True)
    assert d.N == 3 and d.dropped_rows == 1
    assert d.arities.tolist() == [3, 3, 2, 2, 2, 3]
    assert d.labels[1] == ["None", "x", "y"] and d.labels[5] == ["0", "1", "10"]
    with pytest.raises(DataFileError, match="missing value 'None'"):
        read_data(df, missing=["None"], drop_missing=False)
    assert read_data(df, missing="None", drop_missing=True).N == 2


def test_bad_inputs(tmp_path):
    with pytest.raises(DataFileError, match="empty"):
        read_data(write(tmp_path, "e.csv", ""))
    with pytest.raises(DataFileError, match="no data rows"):
        read_data(write(tmp_path, "h.csv", "A,B\n"), header=True)
    with pytest.raises(DataFileError, match="expected 2"):
        read_data(write(tmp_path, "r.csv", "0,1\n1\n"))
    with pytest.raises(DataFileError, match="cannot read"):
        read_data(tmp_path / "nope.csv")
    with pytest.raises(DataFileError):
        read_data(np.zeros((0, 3), dtype=int))
    with pytest.raises(InputError):
        lpbn.score_data(np.zeros((5, 2), dtype=int), score="bogus")


def test_numpy_inputs():
    a = np.array([[0, 5], [1, 5], [0, 7]])
    d = read_data(a)
    assert d.arities.tolist() == [2, 2] and d.names == ("0", "1")
    f = np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]])
    with pytest.raises(DataFileError, match="row 2, column 1"):
        read_data(f)
    assert read_data(f, drop_missing=True).N == 2
    s = np.array([["x", "y"], ["z", "y"]], dtype=object)
    assert read_data(s).arities.tolist() == [2, 1]


def test_pandas_dataframe():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": ["u", "v", "u"], "b": pd.Categorical(["p", "p", "q"], categories=["p", "q", "r"])})
    d = read_data(df)
    assert d.names == ("a", "b") and d.arities.tolist() == [2, 3]


def test_same_cache_from_every_input_form(instances, tmp_path):
    p = instances / "alisterl__eBNSL" / "CSV" / "iris.csv"
    a = lpbn.score_data(p, max_parents=2)
    arr = np.loadtxt(p, delimiter=",", dtype=int)
    b = lpbn.score_data(arr, max_parents=2)
    assert a.equals(b)          # bit for bit: the scorer's sums are order-free (fixed point)
    assert lpbn.score_data(p, max_parents=2, jobs=2).equals(a)


def test_cli_score(instances, tmp_path, capsys):
    out = tmp_path / "wine.jkl"
    rc = main(["score", str(instances / "alisterl__eBNSL" / "CSV" / "wine.csv"), "-o", str(out),
               "--max-parents", "3", "--jobs", "2"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "before pruning" in err and "471 after" in err and "time:" in err
    c = lpbn.read_scores(out)
    assert c.m == 471
    assert lpbn.solve(c, method="dp").score == pytest.approx(-1258.44590861, abs=1e-6)


def test_cli_score_bdeu_and_errors(instances, tmp_path, capsys):
    data = instances / "auroraingebrigtsen__bayesian-structure-learning/pygobnilp/data/discrete.dat"
    out = tmp_path / "d.jkl"
    assert main(["score", str(data), "-o", str(out), "--score", "bdeu", "--ess", "1", "--quiet"]) == 0
    assert lpbn.solve(lpbn.read_scores(out), method="dp").score == pytest.approx(-24028.0947783535, abs=1e-6)
    bad = write(tmp_path, "m.csv", "A,B\n0,?\n1,1\n")
    assert main(["score", str(bad), "-o", str(tmp_path / "m.jkl")]) == 2
    assert "missing value" in capsys.readouterr().err
    assert not (tmp_path / "m.jkl").exists()
    assert main(["score", str(bad), "-o", str(tmp_path / "m.jkl"), "--drop-missing"]) == 0
    assert "dropped 1 rows" in capsys.readouterr().err
    assert main(["score", str(bad), "-o", str(tmp_path / "k.jkl"), "--k-best", "0"]) == 2


def test_id_like_column_is_refused_cleanly(tmp_path, capsys):
    from lpbn.errors import ResourceLimitError
    a = np.stack([np.arange(20000), np.arange(20000) % 2], axis=1)
    with pytest.raises(ResourceLimitError, match="discretise or drop"):
        lpbn.score_data(a)
    p = tmp_path / "id.csv"
    np.savetxt(p, a, fmt="%d", delimiter=",")
    assert main(["score", str(p), "-o", str(tmp_path / "id.jkl")]) == 2
    assert "states for 20000 rows" in capsys.readouterr().err


def test_score_data_options_are_the_dataclass_fields():
    """score_data's keyword options are DiscreteScoring's fields and the reading ones; a
    misspelt keyword is a TypeError naming it, as for any Python function."""
    data = np.array([[0, 1], [1, 0], [0, 0], [1, 1]] * 5)
    cache = lpbn.score_data(data, "bic", 1, ess=2.0, jobs=1, header=False, explore="exhaustive")
    assert cache.meta["max_parents"] == 1
    with pytest.raises(TypeError, match="max_parent"):
        lpbn.score_data(data, max_parent=1)
