"""Fuzzing lpbn's input paths: mutated real files and command lines, "documented error or valid
result" for every case.

A user's mistakes and accidents reach lpbn as corrupted files (truncated downloads, edited
score files, spreadsheets saved oddly) and odd command lines.  This module turns seed files
into many such cases and checks each outcome:

* **ok** — a valid result: a :class:`~lpbn.cache.ScoreCache` with finite scores, a
  :class:`~lpbn.scoring.data.Dataset` whose codes lie within the arities, or CLI exit 0;
* **documented** — an :class:`~lpbn.errors.InputError` (CLI: exit 2 with one line on stderr);
* **other** — any other exception, or CLI exit 1 (an internal error): a bug;
* **hang** — a case that ran past its deadline (SIGALRM in the main thread): a bug.

Besides mutated files, :func:`fuzz_meaning` generates data files of the classes that were
once misread (issue 56: comment lines, tabs, one column, whitespace padding, header-less
strings, unicode names, GOBNILP ``.dat``; and long text tables with and without names, for the
header rule's evidence) *with their meaning*: an accepted file read with
other variable or row counts than the generator meant is a silent misread, a bug.

``python -m lpbn.fuzz --cases 12000 -o results/reliability/fuzz.json`` runs the full campaign
(score readers, the data loader, the CLI) and writes counts per target and every failing case;
``tests/test_fuzz.py`` runs a few thousand of the same cases in CI.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import signal
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .bundled import instances_dir
from .errors import InputError

#: tokens that have broken parsers: numbers in odd notations, other scripts' digits, huge
#: integers, missing-value spellings, control and quoting characters
NASTY = ["", "nan", "inf", "-inf", "1e999", "-1e308", "1_0", "-1_0", "\u0661", "\u0662\u0663", "0x10",
         "99999999999999999999999", "9" * 5000, "-0", "+1", "-1", "?", "None", "NA", "\x00", "\r",
         "\ufeff", '"', '""', ",", "#", "\t", "1.5", "-3", "2147483648", "\u2028", "\x85", "é"]


# ------------------------------------------------------------------------- mutations
def _lines(text: str) -> list[str]:
    return text.split("\n")


def _m_token(rng, text):
    """Replace one whitespace/comma-separated token with a nasty one."""
    lines = _lines(text)
    i = int(rng.integers(len(lines)))
    sep = "," if "," in lines[i] else " "
    toks = lines[i].split(sep)
    toks[int(rng.integers(len(toks)))] = NASTY[int(rng.integers(len(NASTY)))]
    lines[i] = sep.join(toks)
    return "\n".join(lines)


def _m_char(rng, text):
    """Overwrite one character with a random one (ASCII, control or non-ASCII)."""
    if not text:
        return chr(int(rng.integers(0, 0x250)))
    k = int(rng.integers(len(text)))
    return text[:k] + chr(int(rng.choice([rng.integers(0, 128), rng.integers(128, 0x3000)]))) + text[k + 1:]


def _m_delete_line(rng, text):
    lines = _lines(text)
    del lines[int(rng.integers(len(lines)))]
    return "\n".join(lines)


def _m_duplicate_line(rng, text):
    lines = _lines(text)
    i = int(rng.integers(len(lines)))
    lines.insert(i, lines[i])
    return "\n".join(lines)


def _m_swap_lines(rng, text):
    lines = _lines(text)
    i, j = rng.integers(len(lines), size=2)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _m_truncate(rng, text):
    return text[:int(rng.integers(len(text) + 1))]


def _m_line_ends(rng, text):
    return text.replace("\n", ["\r\n", "\r", "\n\n", " \n"][int(rng.integers(4))])


def _m_insert(rng, text):
    k = int(rng.integers(len(text) + 1))
    return text[:k] + NASTY[int(rng.integers(len(NASTY)))] + text[k:]


MUTATIONS: list[Callable] = [_m_token, _m_token, _m_char, _m_delete_line, _m_duplicate_line,
                             _m_swap_lines, _m_truncate, _m_line_ends, _m_insert]


def mutate(rng: np.random.Generator, text: str) -> bytes:
    """1-3 random mutations of ``text``; sometimes gzipped (and then sometimes truncated)."""
    for _ in range(int(rng.integers(1, 4))):
        text = MUTATIONS[int(rng.integers(len(MUTATIONS)))](rng, text)
    raw = text.encode("utf-8", errors="surrogatepass")
    r = rng.random()
    if r < 0.08:
        raw = gzip.compress(raw)
        if rng.random() < 0.5:
            raw = raw[:int(rng.integers(len(raw)))]
    elif r < 0.1:
        raw = raw.decode("utf-8", errors="replace").encode("latin-1", errors="replace")
    return raw


# ------------------------------------------------------------------------- outcomes
@dataclass
class Tally:
    """Outcome counts of one target, and the cases that failed."""
    target: str
    cases: int = 0
    ok: int = 0
    documented: int = 0
    other: int = 0
    hangs: int = 0
    failures: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"target": self.target, "cases": self.cases, "ok": self.ok, "documented": self.documented,
                "other": self.other, "hangs": self.hangs, "seconds": round(self.seconds, 2),
                "failures": self.failures[:50]}


class _Hang(BaseException):
    pass


@contextlib.contextmanager
def _deadline(seconds: float):
    """Raise _Hang in the main thread after ``seconds`` (no-op off the main thread)."""
    import threading
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def ring(signum, frame):
        raise _Hang()
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _record(tally: Tally, case: dict, fn: Callable[[], str | None], deadline: float) -> None:
    """Run one case: ``fn`` returns None for a valid result, "documented" for a documented
    error, or a description of what was wrong with the result."""
    tally.cases += 1
    t0 = time.perf_counter()
    try:
        with _deadline(deadline), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdict = fn()
    except _Hang:
        tally.hangs += 1
        tally.failures.append({**case, "error": f"hang (> {deadline} s)"})
        return
    except InputError:
        verdict = "documented"
    except Exception as exc:  # noqa: BLE001 - the point is to catch everything
        verdict = f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        tally.seconds += time.perf_counter() - t0
    if verdict is None:
        tally.ok += 1
    elif verdict == "documented":
        tally.documented += 1
    else:
        tally.other += 1
        tally.failures.append({**case, "error": verdict})


# ------------------------------------------------------------------------- targets
def fuzz_score_files(seeds: list[Path], cases: int, seed: int, workdir: Path, deadline: float = 20.0) -> Tally:
    """Mutated score files through :func:`lpbn.read_scores`."""
    from .formats import read_scores
    rng = np.random.default_rng(seed)
    texts = [(p, p.read_text()) for p in seeds]
    tally = Tally("score files")
    for c in range(cases):
        path, text = texts[c % len(texts)]
        raw = mutate(rng, text)
        f = workdir / f"case{path.suffix}"
        f.write_bytes(raw)

        def check():
            cache = read_scores(f)
            if not (np.isfinite(cache.scores).all() and cache.n >= 1 and cache.m >= cache.n):
                return "invalid cache accepted"
            return None
        _record(tally, {"seed_file": path.name, "case": c, "head": raw[:80].decode("latin-1")}, check, deadline)
    return tally


def fuzz_data_files(seeds: list[Path], cases: int, seed: int, workdir: Path, deadline: float = 20.0) -> Tally:
    """Mutated CSV / .dat files through :func:`lpbn.read_data` with random reading options."""
    from .scoring import read_data
    rng = np.random.default_rng(seed)
    texts = [(p, _text_of(p)) for p in seeds]
    tally = Tally("data files")
    for c in range(cases):
        path, text = texts[c % len(texts)]
        raw = mutate(rng, text)
        f = workdir / ("case.dat" if path.name.endswith((".dat", ".dat.gz")) else "case.csv")
        f.write_bytes(raw)
        opts = {"header": [None, True, False][int(rng.integers(3))],
                "drop_missing": bool(rng.random() < 0.3),
                "missing": [None, "NA", ["None", "-"]][int(rng.integers(3))]}

        def check():
            ds = read_data(f, **opts)
            cols = ds.columns
            if cols.shape != (ds.n, ds.N) or ds.N < 1 or (cols < 0).any() or \
                    (cols >= ds.arities[:, None]).any() or len(set(ds.names)) != ds.n:
                return "invalid data set accepted"
            return None
        _record(tally, {"seed_file": path.name, "case": c, "options": repr(opts),
                        "head": raw[:80].decode("latin-1")}, check, deadline)
    return tally


# ------------------------------------------------------------------------- files with a meaning
#: state labels of text columns: unicode, spellings that are states (not missing), no
#: delimiter, quote, ``#`` or number look-alikes (a text column stays text)
LABELS = ["red", "blue", "é", "日本", "None", "NA", "x-1", "Ω", "low", "high", "ça", "null", "v_2", "grün"]
#: column names (none is a label): unicode, inner blanks (delimited files only), a leading digit
NAMES = ["A", "B", "größe", "名前", "x y", "col 2", "Temp", "ß", "e\u0301", "1st", "Ñ", "var_9", "α", "β"]
#: the file classes of issue 56, each a generator that knows what its file means
CLASSES = ("comments", "tabs", "one_column", "padding", "headerless_strings", "unicode_names", "dat",
           "long_named_text", "long_headerless_text")


@dataclass
class Meant:
    """A generated data file and what it means: ``n`` variables and ``N`` rows when read with
    ``options`` (the reading options its user would give; None: the defaults)."""
    cls: str
    name: str
    text: str
    n: int
    N: int
    options: dict = field(default_factory=dict)


def _table(rng, n: int, N: int, text_columns: bool | None = None) -> tuple[list[list[str]], list[bool]]:
    """``N`` rows of ``n`` cells: each column integers (0..3) or text labels."""
    kinds = [bool(rng.random() < 0.5) if text_columns is None else text_columns for _ in range(n)]
    cols = [[LABELS[int(rng.integers(len(LABELS)))] if k else str(int(rng.integers(4))) for _ in range(N)]
            for k in kinds]
    return [[cols[j][i] for j in range(n)] for i in range(N)], kinds


def _names(rng, n: int, blanks: bool) -> list[str]:
    pool = [x for x in NAMES if blanks or " " not in x]
    picks = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
    out = [pool[int(i)] for i in picks]
    return out + [f"v{j}" for j in range(len(out), n)]


def meant_file(rng: np.random.Generator, cls: str) -> Meant:
    """A random data file of class ``cls`` (:data:`CLASSES`) and its meaning."""
    long = cls.startswith("long_")
    n = 1 if cls == "one_column" else int(rng.integers(3, 7)) if long else int(rng.integers(1, 6))
    # names over 3+ text columns of 150+ rows: the header rule's evidence suffices (a chance
    # below 1e-6 that a data row is new in every column); over fewer, --header is needed
    N = int(rng.integers(150, 300)) if long else int(rng.integers(1, 8))
    sep = {"tabs": "\t"}.get(cls, [",", "\t", ";", " "][int(rng.integers(4))])
    ext = {"\t": [".tsv", ".csv", ".txt"], " ": [".txt"]}.get(sep, [".csv", ".txt"])
    name = "case" + ext[int(rng.integers(len(ext)))] + (".gz" if rng.random() < 0.1 else "")
    opts: dict = {}
    if cls == "dat":
        rows, _ = _table(rng, n, N, text_columns=False)
        names = _names(rng, n, blanks=False)
        arities = [str(max(int(r[j]) for r in rows) + 1 + int(rng.integers(2))) for j in range(n)]
        lines = [" ".join(names), " ".join(arities)] + [" ".join(r) for r in rows]
        return Meant(cls, "case.dat", "\n".join(lines) + "\n", n, N)
    text_cols = True if cls in ("headerless_strings", "long_named_text", "long_headerless_text") else None
    rows, kinds = _table(rng, n, N, text_columns=text_cols)
    header = cls == "long_named_text" or (cls not in ("headerless_strings", "long_headerless_text")
                                          and (cls == "unicode_names" or rng.random() < 0.6))
    lines = [list(r) for r in rows]
    if header:
        lines.insert(0, _names(rng, n, blanks=sep != " "))
        if (all(kinds) and not long) or rng.random() < 0.3:
            opts["header"] = True           # names over a few rows of text are read as data
    elif rng.random() < 0.3:
        opts["header"] = False
    if rng.random() < 0.2:
        opts["delimiter"] = {"\t": "tab", " ": "whitespace"}.get(sep, sep)
    pad = cls == "padding" or rng.random() < 0.1
    body = [sep.join((" " * int(rng.integers(1, 3)) + c + " " * int(rng.integers(0, 3))) if pad and sep != " "
                     else c for c in r) for r in lines]
    if cls == "padding" and sep == " ":
        body = ["  " + "   ".join(r) + "  " for r in lines]
    if cls == "comments" or rng.random() < 0.1:
        for _ in range(int(rng.integers(1, 4))):
            body.insert(int(rng.integers(len(body) + 1)),
                        " " * int(rng.integers(2)) + "# " + ["exported data", "a,b;c\td", 'say "hi"', "", "日本"][
                            int(rng.integers(5))])
    return Meant(cls, name, "\n".join(body) + "\n", n, N, opts)


def fuzz_meaning(cases: int, seed: int, workdir: Path, deadline: float = 20.0) -> Tally:
    """Generated files of every class in :data:`CLASSES` through :func:`lpbn.read_data` with
    the options their user would give: each must be read with the variable and row counts
    the generator meant (a refusal is *documented*; another count is a silent misread)."""
    from .scoring import read_data
    rng = np.random.default_rng(seed)
    tally = Tally("meant files")
    for c in range(cases):
        m = meant_file(rng, CLASSES[c % len(CLASSES)])
        f = workdir / m.name
        raw = m.text.encode("utf-8")
        f.write_bytes(gzip.compress(raw) if m.name.endswith(".gz") else raw)

        def check(m=m, f=f):
            ds = read_data(f, **m.options)
            if (ds.n, ds.N) != (m.n, m.N):
                return (f"silent misread: {ds.n} variables, {ds.N} rows (meant {m.n}, {m.N}); "
                        f"{getattr(ds, 'reading', None)}")
            return None
        _record(tally, {"class": m.cls, "case": c, "file": m.name, "options": repr(m.options),
                        "text": m.text[:200]}, check, deadline)
    return tally


def _text_of(p: Path) -> str:
    raw = p.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    lines = text.split("\n")
    return "\n".join(lines[:60])        # small seeds: many cases per second


def command_lines(rng: np.random.Generator, score_file: str, data_file: str, workdir: Path) -> list[str]:
    """A random command line: a subcommand with valid and invalid values mixed."""
    out = str(workdir / ["o.json", "o.jkl", "o.pss", "no/such/dir/o.json", "", "-"][int(rng.integers(6))])
    if out.endswith("/"):
        out = str(workdir)      # a directory as the output
    num = ["1", "0", "-1", "abc", "nan", "inf", "1e999", "0.5", "99999999999999999999"]

    def pick(xs):
        return xs[int(rng.integers(len(xs)))]
    files = [score_file, data_file, str(workdir / "missing.jkl"), str(workdir), "/dev/null"]
    cmd = pick(["solve", "solve", "score", "convert", "info", "export", "gap", "sample", "learn", "draw",
                "verify", "bogus"])
    argv = [cmd]
    cert = str(workdir / pick(["c.json", "c.json.gz", "no/such/c.json"]))
    if cmd == "solve":
        argv += [pick(files + [score_file] * 3), "--method", pick(["dp", "dual", "highs", "bfbnb", "auto", "nope"]),
                 "--time-limit", pick(["2", "0", "-1", "abc", "nan"])]
        if rng.random() < 0.2:
            argv += ["--certificate", cert]
        if rng.random() < 0.2:
            argv += ["--k-best", pick(["2", "5", "0", "-1", "x"])] + (["--classes"] if rng.random() < 0.5 else [])
        if rng.random() < 0.5:
            argv += ["--option", pick(["k_max=abc", 'seed="x"', "seed=3", "bogus=1", "=", "prune=false",
                                       "time-limit=3", "memory_limit=1"])]
        if rng.random() < 0.3:
            argv += ["--memory-limit", pick(num)]
        if rng.random() < 0.3:
            argv += ["--gap", pick(num)]
        argv += ["--format", pick(["json", "text", "dot", "xml"])]
    elif cmd == "score":
        argv += [pick([data_file] * 3 + files), "--max-parents", pick(["1", "2", "-1", "x"]),
                 "--score", pick(["bic", "bdeu", "mdl", "foo"]), "--quiet"]
        if rng.random() < 0.3:
            argv += ["--ess", pick(num)]
        if rng.random() < 0.3:
            argv += ["--missing", pick(["NA", "", ",", "None,?"])]
        if rng.random() < 0.3:
            argv += ["--k-best", pick(num)]
        if rng.random() < 0.3:
            argv += ["--jobs", pick(["1", "0", "-3", "x"])]
        argv += _reading_flags(rng, pick)
    elif cmd == "convert":
        argv += [pick(files + [score_file] * 3)]
        if rng.random() < 0.3:
            argv += ["--max-parents", pick(num)]
        if rng.random() < 0.3:
            argv += ["--to", pick(["jkl", "pss", "csv"])]
        argv += [out]
        return argv
    elif cmd == "info":
        argv += [pick(files + [score_file] * 3), "--format", pick(["json", "text"])]
        return argv
    elif cmd == "export":
        argv += [pick(files + [score_file] * 3), pick(["--lp", "--mps"]), out]
        return argv
    elif cmd == "gap":
        argv += [pick(files + [score_file] * 3), "--time-limit", pick(["2", "-1", "x"]), "--no-solve"]
    elif cmd == "learn":
        out = str(workdir / pick(["net.bif", "net.json", "net.dot", "net.xyz", "no/such/net.bif"]))
        argv += [pick([data_file] * 3 + files), "--max-parents", pick(["1", "2", "-1", "x"]),
                 "--time-limit", pick(["2", "-1", "x"]), "--quiet", "-o", out]
        if rng.random() < 0.3:
            argv += ["--fit-ess", pick(num)]
        return argv + _reading_flags(rng, pick)
    elif cmd == "draw":
        argv += [pick([str(workdir / "o.json"), score_file, data_file, str(workdir / "none.json")]),
                 "-o", str(workdir / pick(["d.svg", "d.png", "d.xyz", "no/such/d.svg"])),
                 "--engine", pick(["auto", "matplotlib", "dot"])]
        return argv
    elif cmd == "verify":
        argv += [pick(files + [score_file] * 3),
                 pick([str(workdir / "o.json"), score_file, data_file, str(workdir / "none.json")])]
        if rng.random() < 0.7:
            argv += [pick([cert, score_file, str(workdir / "o.json")])]
        return argv
    elif cmd == "sample":
        argv += ["--variables", pick(["3", "0", "-2", "x", "5"]), "--rows", pick(["20", "0", "-1", "x"]),
                 "--max-in-degree", pick(["2", "-1", "50"]), "--arities", pick(["2", "2,3", "0", "x", "1"]), "--quiet"]
    if out != "-" and rng.random() < 0.8:
        argv += ["-o", out]
    return argv


def _reading_flags(rng, pick) -> list[str]:
    """Random data-reading options of ``lpbn score``/``learn`` (issue 56), valid and not."""
    out: list[str] = []
    if rng.random() < 0.3:
        out.append(pick(["--header", "--no-header"]))
    if rng.random() < 0.2:
        out += ["--delimiter", pick([",", "tab", ";", "whitespace", "|", "ab", "1"])]
    if rng.random() < 0.2:
        out += ["--data-format", pick(["csv", "dat", "xls"])]
    return out


def fuzz_cli(score_file: Path, data_file: Path, cases: int, seed: int, workdir: Path,
             deadline: float = 60.0) -> Tally:
    """Random command lines through :func:`lpbn.cli.main`, in process: exit 0 or 2 (one line
    on stderr) are fine (and ``verify``'s exit 1, a failed check), exit 1 (internal error) or
    any exception escaping ``main`` is not."""
    from .cli import main
    rng = np.random.default_rng(seed)
    tally = Tally("command line")
    for c in range(cases):
        argv = command_lines(rng, str(score_file), str(data_file), workdir)

        def check():
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                code = main(argv)
            if code == 2:
                lines = [ln for ln in err.getvalue().splitlines() if ln.startswith("lpbn: error")]
                return "documented" if len(lines) == 1 else f"exit 2 without one error line: {err.getvalue()[:200]!r}"
            if code == 0:
                return None
            if code == 1 and argv[0] == "verify" and "internal error" not in err.getvalue():
                return None         # verify's exit 1: a check failed (the result is not the cache's)
            return f"exit {code}: {err.getvalue().strip()[-300:]}"
        _record(tally, {"case": c, "argv": argv}, check, deadline)
    return tally


# ------------------------------------------------------------------------- campaign
def seed_files(instances: Path) -> tuple[list[Path], list[Path]]:
    """Small real seed files bundled in ``instances/``: score files and data files."""
    scores = [instances / "anchors/gobnilp-bic3/wine.BIC.p3.jkl",
              instances / "anchors/urlearning-pss/hepatitis.BIC.p3.pss",
              instances / "andrewli77__MINOBS-anc/abalone_BIC.txt"]
    data = [instances / "cran__bnlearn/data/asia.dat",
            *sorted((instances / "alisterl__eBNSL/CSV").glob("*.csv"))[:3]]
    return [p for p in scores if p.exists()], [p for p in data if p.exists()]


def _portable(obj, replace: dict[str, str]):
    """``obj`` with this machine's paths (the work directory, the instances) replaced."""
    if isinstance(obj, str):
        for old, new in replace.items():
            obj = obj.replace(old, new)
        return obj
    if isinstance(obj, list):
        return [_portable(x, replace) for x in obj]
    if isinstance(obj, dict):
        return {k: _portable(v, replace) for k, v in obj.items()}
    return obj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lpbn.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=12000,
                    help="score-file cases (data: a fifth; meant files: a sixth; CLI: 1/30)")
    ap.add_argument("--targets", default="scores,data,meaning,cli",
                    help="comma-separated targets to run (default: all: scores,data,meaning,cli)")
    ap.add_argument("--meaning-cases", type=int, help="meant-file cases (default: --cases / 6)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--instances", default=str(instances_dir()))
    ap.add_argument("-o", "--output", help="write the tallies as JSON here")
    args = ap.parse_args(argv)
    scores, data = seed_files(Path(args.instances))
    with tempfile.TemporaryDirectory(prefix="lpbn-fuzz-") as tmp:
        work = Path(tmp)
        targets = set(args.targets.split(","))
        tallies = []
        if "scores" in targets:
            tallies.append(fuzz_score_files(scores, args.cases, args.seed, work))
        if "data" in targets:
            tallies.append(fuzz_data_files(data, max(1, args.cases // 5), args.seed, work))
        if "meaning" in targets:
            tallies.append(fuzz_meaning(args.meaning_cases or max(1, args.cases // 6), args.seed, work))
        if "cli" in targets:
            tallies.append(fuzz_cli(scores[0], data[0], max(1, args.cases // 30), args.seed, work))
        report = {"command": "python -m lpbn.fuzz " + " ".join(argv if argv is not None else sys.argv[1:]),
                  "tallies": _portable([t.as_dict() for t in tallies],
                                       {str(work): "$TMP", str(Path(args.instances)): "instances"})}
    for t in tallies:
        print(f"{t.target:14s} cases {t.cases:6d}  ok {t.ok:6d}  documented {t.documented:6d}  "
              f"other {t.other:4d}  hangs {t.hangs:3d}  {t.seconds:7.1f} s")
    if args.output:
        from .atomic import atomic_write
        with atomic_write(args.output) as fh:
            json.dump(report, fh, indent=1)
    return 0 if all(t.other == 0 and t.hangs == 0 for t in tallies) else 1


if __name__ == "__main__":
    sys.exit(main())
