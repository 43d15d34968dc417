"""How a data file is read: its format, delimiter, header and comment lines, decided openly.

A data file reaches :func:`lpbn.read_data` as text; this module turns that text into a header
(or none) and rows of string cells, and records every decision in a ``reading`` dict that the
CLI prints and the results keep (``Dataset.reading``, the cache's ``meta["reading"]``).  Coding
the cells as integer states is :mod:`lpbn.scoring.data`'s job (and typing columns as numeric
or categorical would sit between the two), so this layer knows nothing of arities or states.

Rules (issue 56: no silent misreads):

* **Format by name first.**  ``.dat`` (and ``.dat.gz``) is GOBNILP's format (a names line, a
  line of arities, whitespace-separated rows); ``.csv``, ``.tsv`` and ``.txt`` (and their
  ``.gz``) are delimited text.  Only another extension is sniffed from the content, and a
  file that fits the ``.dat`` layout there is read as ``.dat`` *with a warning* naming
  ``format='csv'`` (CLI ``--data-format csv``), because it also reads as a header and data rows.
* **Delimiter**: given (``delimiter=``, CLI ``--delimiter``), else the first of ``,`` tab ``;``
  (tab first for ``.tsv``) that splits every sampled line into the same number (> 1) of
  cells, else whitespace when that does, else one column.  Two consistent candidates, or
  whitespace in a ``.csv``/``.tsv`` file, draw a warning.
* **Comment lines**: a line whose first non-blank character is ``#`` is skipped anywhere
  (also inside a quoted field spanning lines) and counted.
* **Header** (delimited text; a ``.dat`` file always has its names line): given
  (``header=True/False``), else the conservative rule of :func:`decide_header`: the first
  row is a header when it *cannot* be a data row of the same kinds as the rows below (some
  cell is not a number where its column holds only numbers), or when its cells are distinct,
  non-numeric, new to their columns, and the rows below make such a data row practically
  impossible (:data:`HEADER_EVIDENCE`).  Otherwise it is data; when its cells could still
  be names, with a warning naming ``header=True`` (CLI ``--header``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import DataFileError, LpbnWarning

_INT = re.compile(r"^[+]?[0-9]+$")
_NUM = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_COMMENT = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)
#: extensions read by name (after an optional ``.gz``)
DAT_EXTENSIONS = (".dat",)
TEXT_EXTENSIONS = (".csv", ".tsv", ".txt")
#: delimiters sniffed, in order of preference (then runs of whitespace, :data:`WHITESPACE`)
CANDIDATES = (",", "\t", ";")
WHITESPACE = "whitespace"
#: lines sampled to choose a delimiter and rows sampled to decide a header
SNIFF_LINES = 50
HEADER_ROWS = 1000
#: a first row of possible names over text columns is a header when the chance that a data
#: row would be new in every column (:func:`novel_row_chance`) is below this: one in a
#: million.  Real files with a header sit far below it (bnlearn samples of 250 rows and 5
#: columns: about 1e-12; see docs/reading.md), files of a few rows far above (4 rows, 2
#: columns: 0.04; 7 rows, 5 columns: 3e-5), where the row is read as data with a warning.
HEADER_EVIDENCE = 1e-6
_DELIMITER_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": WHITESPACE,
                    "whitespace": WHITESPACE, " ": WHITESPACE}


@dataclass
class TextTable:
    """A data file as text cells: ``header`` (None when the file has none) and ``rows`` of
    ``(line number, cells)``; ``reading`` records how it was read (see module docstring)."""

    header: list[str] | None
    rows: list[tuple[int, list[str]]]
    reading: dict = field(default_factory=dict)
    declared: list[str] | None = None     # the .dat arities line's tokens
    declared_line: int | None = None


def delimiter_value(delimiter: str | None) -> str | None:
    """A delimiter as given (``","``, ``"tab"``, ``"\\t"``, ``";"``, ``"whitespace"``, any one
    character) in canonical form; None when not given."""
    if delimiter is None:
        return None
    if not isinstance(delimiter, str):
        raise DataFileError(f"delimiter must be a string, got {delimiter!r}")
    d = _DELIMITER_NAMES.get(delimiter.lower(), delimiter)
    if d != WHITESPACE and (len(d) != 1 or d in "\"\r\n#" or d.isalnum()):
        raise DataFileError(f"delimiter must be one character (not a letter, digit, quote or #), "
                            f"'tab' or 'whitespace', got {delimiter!r}")
    return d


def format_by_name(path: Path) -> str | None:
    """``"dat"`` or ``"csv"`` from the file name (``.gz`` looked through), None if unknown."""
    name = path.name.lower().removesuffix(".gz")
    suffix = Path(name).suffix
    if suffix in DAT_EXTENSIONS:
        return "dat"
    if suffix in TEXT_EXTENSIONS:
        return "csv"
    return None


def strip_comments(text: str) -> tuple[str, int]:
    """The text with comment lines blanked (line numbers kept) and how many there were."""
    if "#" not in text:
        return text, 0
    count = 0

    def blank(m: re.Match) -> str:
        nonlocal count
        count += 1
        return ""
    return _COMMENT.sub(blank, text), count


def _sample_lines(text: str, limit: int = SNIFF_LINES) -> list[str]:
    out = []
    for line in text[:200_000].splitlines():
        if line.strip():
            out.append(line)
            if len(out) >= limit:
                break
    return out


def sniff_delimiter(text: str, preferred: str | None = None) -> tuple[str, str | None]:
    """The delimiter of comment-free text and a warning when the choice was not clear-cut
    (see module docstring)."""
    lines = _sample_lines(text)
    if not lines:
        return ",", None
    order = ((preferred,) if preferred else ()) + tuple(d for d in CANDIDATES if d != preferred)
    widths = {d: _widths(lines, d) for d in order}
    consistent = [d for d in order if len(widths[d]) == 1 and min(widths[d]) > 1]
    if consistent:
        other = [_shown(d) for d in consistent[1:]]
        return consistent[0], (f"also splits into equal rows at {', '.join(other)}" if other else None)
    ws = {len(line.split()) for line in lines}
    if len(ws) == 1 and min(ws) > 1:
        return WHITESPACE, "split at whitespace (no ',', tab or ';' gives rows of equal length)"
    if all(widths[d] == {1} for d in order):
        return (preferred or ","), None          # one column
    first = lines[0]
    best = max(order, key=lambda d: max(_widths([first], d)))
    if max(_widths([first], best)) <= 1 and len(first.split()) > 1:
        return WHITESPACE, None
    return best, None   # rows of unequal length: the row check names the first bad line


def _widths(lines: list[str], d: str) -> set[int]:
    """Cells per sampled line when split at ``d`` (quotes respected line by line; a quote
    left open counts as a width of its own, so that delimiter is not consistent)."""
    out = set()
    with _long_fields():
        for line in lines:
            try:
                out.add(len(next(csv.reader([line], delimiter=d, skipinitialspace=True))))
            except (csv.Error, StopIteration):
                out.add(-1)
    return out


@contextlib.contextmanager
def _long_fields():
    """The csv module's field size limit raised (a state label may be long), then restored."""
    limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)
    try:
        yield
    finally:
        csv.field_size_limit(limit)


def _shown(d: str) -> str:
    return {"\t": "tab", WHITESPACE: "whitespace"}.get(d, repr(d))


def split_rows(text: str, path: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """Non-blank rows of comment-free text as ``(line number, stripped cells)``."""
    rows: list[tuple[int, list[str]]] = []
    if delimiter == WHITESPACE:
        for ln, line in enumerate(text.splitlines(), 1):
            cells = line.split()
            if cells:
                rows.append((ln, cells))
        return rows
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, skipinitialspace=True)
    with _long_fields():
        ln = 1
        try:
            for rec in reader:
                if rec and not (len(rec) == 1 and rec[0].strip() == ""):
                    rows.append((ln, [t.strip() for t in rec]))
                ln = reader.line_num + 1
        except csv.Error as exc:
            raise DataFileError(f"malformed CSV: {exc}", path, reader.line_num or 1) from None
    return rows


def _kind_numeric(tok: str) -> bool:
    return bool(_NUM.match(tok))


def decide_header(first: Sequence[str], rest: Sequence[Sequence[str]],
                  missing: frozenset[str]) -> tuple[bool, bool]:
    """``(header, ambiguous)`` for a first row over the rows below (a sample).

    The first row is a header when it cannot be a data row of the same kinds: some cell is
    neither a number nor a missing token in a column whose other cells (missing tokens
    aside, at least one) are all numbers.  Otherwise it could be data, and it is read as
    data unless its cells could all be names — distinct, non-numeric, none found again in
    its column below — *and* the rows below make such a data row practically impossible:
    :func:`novel_row_chance` below :data:`HEADER_EVIDENCE`.  A row that could be names
    without that evidence is data and *ambiguous* (the caller warns)."""
    novel = 0
    for j, tok in enumerate(first):
        col = {r[j] for r in rest if j < len(r)}
        seen = col - missing
        if seen and all(_kind_numeric(v) for v in seen) and not _kind_numeric(tok) and tok not in missing:
            return True, False
        if tok not in col:
            novel += 1
    could_be_names = (bool(first) and novel == len(first) and len(set(first)) == len(first)
                      and not any(_kind_numeric(t) or t in missing for t in first))
    if could_be_names and novel_row_chance(len(first), rest) < HEADER_EVIDENCE:
        return True, False
    return False, could_be_names


def novel_row_chance(width: int, rest: Sequence[Sequence[str]]) -> float:
    """An estimate of the chance that a data row holds, in every column, a value the rows
    ``rest`` never show there: the product over columns of Good and Turing's estimate of the
    unseen values' probability, ``(n1 + 1) / (R + 1)`` (``n1`` values seen exactly once among
    ``R``; one added to each count so that a small sample never gives 0).  Columns are taken
    as independent: real columns are dependent, which makes an all-new row likelier only
    through rare joint values, and the threshold leaves orders of magnitude for that."""
    chance = 1.0
    for j in range(width):
        counts = Counter(r[j] for r in rest if j < len(r))
        once = sum(1 for c in counts.values() if c == 1)
        chance *= (once + 1) / (sum(counts.values()) + 1)
    return chance


def looks_like_dat(rows: list[tuple[int, list[str]]]) -> bool:
    """The GOBNILP ``.dat`` layout: a names line (not all integers), then a line of positive
    integer arities of the same length, and no integer cell below at or above its arity
    (in the rows given: a sample)."""
    if len(rows) < 2:
        return False
    names, ar = rows[0][1], rows[1][1]
    if len(names) != len(ar) or all(_INT.match(t) for t in names):
        return False
    if not all(_INT.match(t) and t.lstrip("+").lstrip("0") for t in ar):
        return False
    arity = [int(t) if len(t) < 12 else 2**40 for t in ar]
    labels: list[set[str]] = [set() for _ in ar]
    for _, cells in rows[2:]:
        if len(cells) != len(ar):
            return False
        for j, c in enumerate(cells):
            labels[j].add(c)
            if _INT.match(c) and len(c) < 12 and int(c) >= arity[j]:
                return False
    return all(len(lab) <= a for lab, a in zip(labels, arity))


def choose_format(path: Path, text: str, format: str | None, header: bool | None,
                  delimiter: str | None = None) -> tuple[str, str, str | None]:
    """``(format, how it was chosen, warning or None)`` for comment-free ``text``."""
    if format is not None:
        if format not in ("csv", "dat"):
            raise DataFileError(f"unknown data format {format!r} (use 'csv' or 'dat')", str(path))
        return format, "given", None
    by_name = format_by_name(path)
    if by_name is not None:
        return by_name, "extension", None
    if header is False or delimiter not in (None, WHITESPACE):
        return "csv", "content", None     # a .dat file has a names line and no delimiter
    head = split_rows("\n".join(text[:2_000_000].splitlines()[:HEADER_ROWS + 2]), str(path), WHITESPACE)
    if any("," in t or ";" in t for _, cells in head[:2] for t in cells) or not looks_like_dat(head):
        return "csv", "content", None
    return "dat", "content", (f"{path}: read as a GOBNILP .dat file (line {head[1][0]} as the arities); "
                              "pass --data-format csv (format='csv') to read that line as data, or name "
                              "the file .dat or .csv")


def describe(reading: dict | None) -> str:
    """One line saying how a file was read, e.g. ``format: csv, delimiter ','; header: yes
    (auto); skipped 1 comment line``."""
    if not reading:
        return "format: in-memory data"
    fmt = reading.get("format", "?")
    parts = [f"format: {fmt}" + ("" if reading.get("format_source") != "content" else " (from the content)")
             + (f", delimiter {_shown(reading['delimiter'])}" if fmt == "csv" else "")]
    hs = reading.get("header_source")
    parts.append(f"header: {'yes' if reading.get('header') else 'no'}" + (f" ({hs})" if hs else ""))
    c = reading.get("comment_lines", 0)
    if c:
        parts.append(f"skipped {c} comment line{'s' if c != 1 else ''}")
    return "; ".join(parts)


@dataclass
class Plan:
    """What :func:`plan_reading` decided from a file's head: the comment-free ``text``, the
    ``reading`` record, the ``head`` rows it sampled (the first is the header when
    ``reading["header"]``) and the ``table`` when it is already complete (``.dat``)."""

    src: str
    text: str
    reading: dict
    head: list[tuple[int, list[str]]]
    table: TextTable | None = None


def plan_reading(path: Path, text: str, *, format: str | None, delimiter: str | None,
                 header: bool | None, missing: frozenset[str]) -> Plan:
    """Format, delimiter and header of a data file's text, from its first rows (see the
    module docstring); warnings for the ambiguous choices are issued here."""
    src = str(path)
    delimiter = delimiter_value(delimiter)
    text, comments = strip_comments(text)
    fmt, fmt_how, warn = choose_format(path, text, format, header, delimiter)
    notes = [warn] if warn else []
    reading = {"format": fmt, "format_source": fmt_how, "comment_lines": comments}
    if fmt == "dat":
        table = _dat_table(src, text, reading, header, delimiter, notes)
        return Plan(src, text, reading, [], table)
    if delimiter is None:
        low = path.name.lower().removesuffix(".gz")
        delimiter, doubt = sniff_delimiter(text, "\t" if low.endswith(".tsv") else None)
        if doubt and not (delimiter == WHITESPACE and not low.endswith((".csv", ".tsv"))):
            notes.append(f"{src}: delimiter {_shown(delimiter)} chosen ({doubt}); pass --delimiter "
                         "(delimiter=) to choose another")
        reading["delimiter_source"] = "sniffed"
    else:
        reading["delimiter_source"] = "given"
    reading["delimiter"] = delimiter
    head = _head_rows(text, src, delimiter)
    if not head:
        raise DataFileError("empty data file" + (f" ({comments} comment lines only)" if comments else ""), src)
    if header is None:
        header, doubt = decide_header(head[0][1], [r for _, r in head[1:HEADER_ROWS + 1]], missing)
        reading["header_source"] = "auto"
        if doubt and len(head) > 1:
            notes.append(f"{src}: line {head[0][0]} read as data (its cells are of the same kinds as "
                         "the rows below); pass --header (header=True) if it names the columns")
    else:
        reading["header_source"] = "given"
    reading["header"] = bool(header)
    if header and delimiter == WHITESPACE and path.name.lower().removesuffix(".gz").endswith(".txt") \
            and looks_like_dat(head):
        notes.append(f"{src}: line {head[1][0]} read as data; if it declares the arities (GOBNILP's "
                     "format), pass --data-format dat (format='dat') or name the file .dat")
    _finish(reading, notes)
    return Plan(src, text, reading, head)


def _head_rows(text: str, src: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """The first rows (up to HEADER_ROWS + 1 non-blank lines); the whole text when the cut
    falls inside a quoted field."""
    cut = 0
    for _ in range(HEADER_ROWS + 2):
        cut = text.find("\n", cut) + 1
        if cut == 0:
            return split_rows(text, src, delimiter)
    try:
        return split_rows(text[:cut], src, delimiter)[:HEADER_ROWS + 1]
    except DataFileError:
        return split_rows(text, src, delimiter)[:HEADER_ROWS + 1]


def read_rows(plan: Plan) -> TextTable:
    """Every row of a planned file (see :func:`plan_reading`)."""
    if plan.table is not None:
        return plan.table
    rows = split_rows(plan.text, plan.src, plan.reading["delimiter"])
    if plan.reading["header"]:
        return TextTable(rows[0][1], rows[1:], plan.reading)
    return TextTable(None, rows, plan.reading)


def read_table(path: Path, text: str, *, format: str | None = None, delimiter: str | None = None,
               header: bool | None = None, missing: frozenset[str] = frozenset({"", "?"})) -> TextTable:
    """Header and cells of a data file's text, with the ``reading`` record (module docstring)."""
    return read_rows(plan_reading(path, text, format=format, delimiter=delimiter, header=header,
                                  missing=missing))


def _dat_table(src: str, text: str, reading: dict, header: bool | None, delimiter: str | None,
               notes: list[str]) -> TextTable:
    if header is False:
        raise DataFileError("a GOBNILP .dat file starts with its names line, so --no-header "
                            "(header=False) does not apply; pass --data-format csv to read it as delimited text", src)
    if delimiter not in (None, WHITESPACE):
        raise DataFileError(f"a GOBNILP .dat file is whitespace-separated; --delimiter {_shown(delimiter)} "
                            "applies to delimited text (--data-format csv)", src)
    rows = split_rows(text, src, WHITESPACE)     # (GOBNILP's names may be integers: 0 1 2 ...)
    if len(rows) < 2 or len(rows[0][1]) != len(rows[1][1]) or not all(_INT.match(t) for t in rows[1][1]):
        raise DataFileError("not a GOBNILP .dat file (expected a names line, then a line of positive "
                            "integer arities); pass --data-format csv to read it as delimited text",
                            src, rows[1][0] if len(rows) > 1 else (rows[0][0] if rows else 1))
    reading.update(delimiter=WHITESPACE, delimiter_source="format", header=True, header_source="format")
    _finish(reading, notes)
    return TextTable(rows[0][1], rows[2:], reading, declared=rows[1][1], declared_line=rows[1][0])


def _finish(reading: dict, notes: list[str]) -> None:
    reading["warnings"] = list(notes)
    for note in notes:
        warnings.warn(note, LpbnWarning, stacklevel=5)
