"""Readers and writers: round trips, peer-file quirks, validation and fuzzing."""

import gzip
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import lpbn
from lpbn import ScoreFileError, parse_scores, read_scores, write_scores
from lpbn.formats import detect_format
from lpbn.testing import random_cache

WINE = "alisterl__eBNSL/scores/wine.BIC.3"

GOOD_JKL = """3
a 2
-10.5 1 b
-12.0 0
b 1
-3.25 0
c 3
-1.0 2 a b
-2.0 1 a
-4.0 0
"""


def score_files(root):
    data = (".csv", ".dat", ".json", ".md", ".toml", ".net", ".png", ".rda", ".bif")
    return sorted(p for p in root.rglob("*") if p.is_file() and "suites" not in p.parts
                  and not any(p.name.endswith(e) or p.name.endswith(e + ".gz") for e in data))


def test_every_bundled_score_file_parses(instances):
    files = score_files(instances)
    assert len(files) > 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", lpbn.LpbnWarning)
        for f in files:
            c = read_scores(f)
            assert c.n >= 1 and c.m >= c.n


def test_parse_names_any_order_and_whitespace():
    text = "3\n\n c\t3\n-1.0   2 a b\n-2.0 1 a\n-4.0 0\n a 2\n-10.5 1 b\n-12.0 0\nb 1\n-3.25 0\n"
    c = parse_scores(text)
    assert c.names == ("c", "a", "b")
    assert c.local_score(0, [1, 2]) == -1.0
    assert lpbn.solve(c, "dp").score == pytest.approx(-1.0 - 10.5 - 3.25)


def test_blip_comments_before_and_after_count(instances):
    c = read_scores(instances / "mauro-idsia__blip/data/child-5000.jkl")
    assert c.n == 20
    text = "# header\n# more\n2\n# Max in-degree: 3\n0 1\n-1.5 0\n1 2\n-1.0 1 0\n-2.0 0\n"
    assert parse_scores(text).m == 3


def test_minobs_trailing_section_warns(instances):
    with pytest.warns(lpbn.LpbnWarning, match="trailing"):
        c = read_scores(instances / "andrewli77__MINOBS-anc/abalone_BIC.txt")
    assert c.n == 9


def test_jkl_round_trip_is_bit_exact(tmp_path, instances):
    c = read_scores(instances / WINE)
    write_scores(c, tmp_path / "w.jkl")
    d = read_scores(tmp_path / "w.jkl")
    assert c.equals(d)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 7), st.integers(0, 10**6), st.floats(-1e12, -1e-12))
def test_jkl_round_trip_random_floats(tmp_path, n, seed, scale):
    c = random_cache(n, seed=seed)
    rng = np.random.default_rng(seed)
    fams = [[(float(s * scale * rng.random()), ps) for s, ps in c.family_lists(i)] for i in range(n)]
    fams = [[(s if s != 0.0 else -1e-300, ps) for s, ps in f] for f in fams]
    c2 = lpbn.ScoreCache.from_families(c.names, fams)
    write_scores(c2, tmp_path / "r.jkl")
    assert read_scores(tmp_path / "r.jkl").equals(c2)


def test_pss_reader_on_urlearning_files(instances):
    for f in sorted((instances / "anchors/urlearning-pss").glob("*.pss")):
        c = read_scores(f)
        assert c.meta["format"] == "pss" and c.names[0] == "Variable_0"
    wine = read_scores(instances / "anchors/urlearning-pss/wine.BIC.p3.pss")
    # URLearning's optimum for wine (as cost, float32) is 1258.445435
    assert lpbn.solve(wine, "dp").score == pytest.approx(-1258.445435, abs=2e-3)


def test_pss_jkl_pss_round_trip(tmp_path, instances):
    c = read_scores(instances / "anchors/urlearning-pss/zoo.BIC.p3.pss")
    write_scores(c, tmp_path / "z.jkl")
    write_scores(read_scores(tmp_path / "z.jkl"), tmp_path / "z.pss")
    d = read_scores(tmp_path / "z.pss")
    assert d.names == c.names and d.m == c.m
    assert np.allclose(d.scores, c.scores, rtol=0, atol=1e-6)
    # and jkl -> pss -> jkl is exact (pss is written with full precision)
    w = read_scores(instances / WINE)
    write_scores(w, tmp_path / "w.pss")
    assert read_scores(tmp_path / "w.pss").equals(w)


def test_gzip_is_detected_from_content(tmp_path):
    (tmp_path / "plain_name.jkl").write_bytes(gzip.compress(GOOD_JKL.encode()))
    assert read_scores(tmp_path / "plain_name.jkl").n == 3


def test_detect_format():
    assert detect_format(GOOD_JKL) == "jkl"
    assert detect_format("META a=1\nVAR x\n-1\n") == "pss"
    assert detect_format("a b c\n1 2 3\n") is None


@pytest.mark.parametrize("text, match, line", [
    ("4\n" + GOOD_JKL[2:], "truncated", None),
    ("2\n" + GOOD_JKL[2:], "count mismatch", 7),
    (GOOD_JKL.replace("-10.5 1 b", "-10.5 1 zz"), "unknown parent 'zz'", 3),
    (GOOD_JKL.replace("-10.5 1 b", "-10.5 1 a"), "own parent", 3),
    (GOOD_JKL.replace("-1.0 2 a b", "-1.0 2 a a"), "repeated", 8),
    (GOOD_JKL.replace("-10.5 1 b", "nan 1 b"), "not finite", 3),
    (GOOD_JKL.replace("-10.5 1 b", "inf 1 b"), "not finite", 3),
    (GOOD_JKL.replace("-1.0 2 a b", "-1.0 3 a b"), "does not match", 8),
    (GOOD_JKL.replace("b 1\n-3.25 0\n", "b 0\n"), "no candidate", 5),
    ("x\n", "number of variables", 1),
    ("", "empty", None),
    ("2\na 1\n-1 1 b\nb 1\n-1 1 a\n", "admits no DAG", None),
    ("META x=1\n-1.0\n", "before the first VAR", 2),
    ("META x=1\nVAR a\nVAR b\n-1\n", "no candidate", 2),
    ("VAR a\n-1 b\nVAR b\n-2\n-3\n", None, None),
])
def test_validation_errors(tmp_path, text, match, line):
    f = tmp_path / "bad.jkl"
    f.write_text(text)
    if match is None:  # duplicate empty set in pss: warns, keeps the best
        with pytest.warns(lpbn.LpbnWarning, match="duplicate"):
            assert read_scores(f).local_score(1, ()) == -2.0
        return
    with pytest.raises(ScoreFileError, match=match) as err:
        read_scores(f)
    assert str(f) in str(err.value)
    if line is not None:
        assert err.value.line == line


def test_duplicate_parent_set_in_jkl_warns_with_line():
    text = "1\na 2\n-3.0 0\n-2.0 0\n"
    with pytest.warns(lpbn.LpbnWarning, match=":4: duplicate"):
        c = parse_scores(text, "x.jkl")
    assert c.m == 1 and c.scores[0] == -2.0


def test_binary_and_bad_gzip(tmp_path):
    (tmp_path / "b.jkl").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ScoreFileError, match="binary"):
        read_scores(tmp_path / "b.jkl")
    (tmp_path / "g.jkl").write_bytes(gzip.compress(GOOD_JKL.encode())[:20])
    with pytest.raises(ScoreFileError, match="gzip"):
        read_scores(tmp_path / "g.jkl")
    with pytest.raises(ScoreFileError, match="no such file"):
        read_scores(tmp_path / "missing.jkl")


def _check_parse(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            c = parse_scores(text, "fuzz")
        except ScoreFileError:
            return
    assert np.all(np.isfinite(c.scores)) and c.n >= 1


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzz_truncations_and_corruptions(data):
    base = data.draw(st.sampled_from([GOOD_JKL, "META a=1\nVAR a\n-1 b\n-2\nVAR b\n-3\n-4 a\n"]))
    cut = data.draw(st.integers(0, len(base)))
    text = base[:cut]
    if data.draw(st.booleans()):
        pos = data.draw(st.integers(0, max(0, len(text) - 1)))
        junk = data.draw(st.text(alphabet=st.sampled_from(list("0123456789 -.\nabeinf#\t")), max_size=6))
        text = text[:pos] + junk + text[pos + 1:]
    _check_parse(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_garbage(text):
    _check_parse(text)


def _careful(text: str, path: str = "<string>"):
    """parse_jkl with the array fast path switched off (the line-by-line parser alone)."""
    from lpbn.formats import jkl
    fast, jkl._parse_fast = jkl._parse_fast, lambda t, p: None
    try:
        return jkl.parse_jkl(text, path)
    finally:
        jkl._parse_fast = fast


def _same_cache(a, b) -> bool:
    return (a.names == b.names and a.meta == b.meta and a.source == b.source
            and all(np.array_equal(getattr(a, k), getattr(b, k))
                    for k in ("offsets", "scores", "pset_ptr", "pset_items")))


def test_fast_jkl_path_equals_careful_parser_on_bundled_files(instances):
    from lpbn.formats import jkl
    from lpbn.formats.textio import read_text
    fast_taken = 0
    for f in score_files(instances):
        text = read_text(f, ScoreFileError)
        if detect_format(text) != "jkl":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", lpbn.LpbnWarning)
            fast = jkl._parse_fast(text, str(f))
            if fast is not None:
                fast_taken += 1
                assert _same_cache(fast, _careful(text, str(f))), f
    assert fast_taken > 100


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fast_jkl_path_accepts_only_what_the_careful_parser_accepts(data):
    """Random caches written with shuffled parents and odd spacing, then corrupted: the fast
    path either declines or returns exactly the careful parser's cache."""
    from lpbn.formats import jkl
    c = random_cache(data.draw(st.integers(1, 6)), seed=data.draw(st.integers(0, 10 ** 6)))
    rng = np.random.default_rng(data.draw(st.integers(0, 10 ** 6)))
    lines = []
    for line in jkl.jkl_lines(c):
        toks = line.split()
        if len(toks) > 2:
            toks[2:] = rng.permutation(toks[2:]).tolist()
        lines.append(rng.choice([" ", "  ", "\t"]).join(toks) + rng.choice(["\n", " \n", "\r\n"]))
    text = "".join(lines)
    if data.draw(st.booleans()):
        pos = data.draw(st.integers(0, len(text) - 1))
        junk = data.draw(st.text(alphabet=st.sampled_from(list("0123456789 -._\n\u0663abeinf#\t")),
                                 max_size=4))
        text = text[:pos] + junk + text[pos + data.draw(st.integers(0, 3)):]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fast = jkl._parse_fast(text, "t")
        except ScoreFileError:
            fast = "error"
        try:
            careful = _careful(text, "t")
        except ScoreFileError:
            careful = "error"
    if fast is None or careful == "error":
        assert fast in (None, "error")
    else:
        assert _same_cache(fast, careful)
