"""Discrete data input: delimited text (with or without header), GOBNILP ``.dat``, numpy
arrays, pandas.  How a file's text becomes a header and cells (format by name, delimiter,
header rule, comment lines) is :mod:`lpbn.scoring.table`'s; this module codes the cells.

Everything is read once into a compact column-major integer array (``Dataset.columns``,
shape ``(n, N)``, int32), with per-variable arities, names and state labels.

Value coding
------------
* Arity is the number of observed states (as GOBNILP computes it for CSV data): values are
  coded ``0..k-1`` in sorted order (numerically for integer columns, else as strings).
* When arities are declared (``.dat`` second line, or ``arities=``), integer values are kept
  as state indices and labels are coded in sorted order.
* A ``.dat`` file declares arities (second line); a declared arity smaller than the number
  of observed labels (or than ``max + 1`` for integer data) is an error.
* Missing values: by default only an empty field and ``?`` (and NaN / None / pandas NA in
  arrays and DataFrames).  Every other token is a state, whatever its spelling: ``None``,
  ``NA``, ``null``, ``0`` and ``-`` are states of real data sets (bnlearn's child, insurance
  and hailfinder networks have a state named ``None``).  ``missing=`` declares more tokens.
  A missing value is an error naming the row and column, unless ``drop_missing=True`` (then
  those rows are removed and counted).
* Integer states of any size are read exactly (as labels ordered numerically); a declared
  arity must fit in 32 bits.  CSV fields may be quoted and of any length; a UTF-8 BOM, CRLF
  line ends and gzip are read transparently.  Column names must be unique and non-empty.
* Every problem is one :class:`~lpbn.errors.DataFileError` naming the file, line and column.
* Columns of header-less data are named ``"0" .. "n-1"`` as GOBNILP names them.
"""

from __future__ import annotations

import gzip
import math
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numba
import numpy as np

from ..errors import DataFileError
from .table import Plan, plan_reading, read_rows

#: tokens that mean "missing" unless more are declared with ``missing=`` / ``--missing``
DEFAULT_MISSING = frozenset({"", "?"})
_INT = re.compile(r"^[+]?[0-9]+$")
#: largest state index / arity (states are stored as int32)
_MAX_STATE = 2**31 - 1
_MISSING_HINT = ("declare missing-value tokens with --missing (missing=) or remove such rows "
                 "with --drop-missing (drop_missing=True)")


@dataclass
class Dataset:
    """Complete discrete data: ``columns[i, s]`` is the state of variable ``i`` in row ``s``."""

    names: tuple[str, ...]
    columns: np.ndarray  # (n, N) int32, C-contiguous
    arities: np.ndarray  # (n,) int64
    labels: list[list[str] | None] = field(default_factory=list)
    source: str | None = None
    dropped_rows: int = 0
    #: how a file was read (format, delimiter, header, comment lines, warnings:
    #: :mod:`lpbn.scoring.table`); None for in-memory data
    reading: dict | None = None

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def N(self) -> int:
        return int(self.columns.shape[1])

    def __repr__(self) -> str:
        return f"Dataset(n={self.n}, N={self.N}, source={self.source!r})"


def missing_tokens(missing: str | Sequence[str] | None) -> frozenset[str]:
    """The default missing tokens plus ``missing`` (one token, a comma-separated list, or a
    sequence of tokens; compared with the stripped field, case-sensitively)."""
    if missing is None:
        return DEFAULT_MISSING
    if isinstance(missing, str):
        missing = missing.split(",")
    extra = set()
    for tok in missing:
        if not isinstance(tok, str):
            raise DataFileError(f"missing-value tokens must be strings, got {tok!r}")
        extra.add(tok.strip())
    return DEFAULT_MISSING | extra


def _check_names(hdr: Sequence[str], src: str | None) -> None:
    """Column names must be non-empty and unique."""
    if len(hdr) == 0:
        raise DataFileError("no variables", src)
    seen: dict[str, int] = {}
    for j, h in enumerate(hdr):
        if str(h).strip() == "":
            raise DataFileError(f"column {j + 1} has an empty name", src, 1 if src else None, j + 1)
        if h in seen:
            raise DataFileError(f"duplicate column name {str(h)[:60]!r} (columns {seen[h] + 1} and {j + 1})",
                                src, 1 if src else None, j + 1)
        seen[h] = j


def _state_key(tok: str) -> tuple[int, str]:
    """Numeric order of a non-negative integer token of any length (no int conversion)."""
    digits = tok.lstrip("+").lstrip("0") or "0"
    return len(digits), digits


def read_data(data: Any, *, header: bool | None = None, missing: str | Sequence[str] | None = None,
              drop_missing: bool = False, names: Sequence[str] | None = None,
              arities: Sequence[int] | None = None, format: str | None = None,
              delimiter: str | None = None) -> Dataset:
    """Read discrete data from a path (delimited text / ``.dat``, optionally gzipped), a numpy
    array, a pandas DataFrame or a :class:`Dataset` (returned as is).

    A file's format comes from its name (``.dat``: GOBNILP; ``.csv``/``.tsv``/``.txt``:
    delimited text), else its content; ``format``: ``"csv"`` or ``"dat"`` to say so.
    ``delimiter``: ``","``, ``"tab"``, ``";"``, ``"whitespace"`` or another character (default:
    sniffed).  ``header``: None = the conservative rule of
    :func:`lpbn.scoring.table.decide_header`, True/False to force.  Comment lines (``#``) are
    skipped; what was decided is in ``Dataset.reading`` (:mod:`lpbn.scoring.table`), and an
    ambiguous choice is also an :class:`~lpbn.errors.LpbnWarning` naming how to force the other.
    ``missing``: tokens that mean a missing value besides an empty field and ``?`` (a list, or
    one comma-separated string).  ``arities`` declares state counts (checked against data).
    Raises :class:`~lpbn.errors.DataFileError` on malformed input, missing values (unless
    ``drop_missing``) and empty data.
    """
    if isinstance(data, Dataset):
        return data
    miss = missing_tokens(missing)
    if arities is not None:
        arities = _checked_arities(arities, None)
    if isinstance(data, (str, os.PathLike)):
        return _read_path(Path(data), header=header, missing=miss, drop_missing=drop_missing,
                          arities=arities, format=format, names=names, delimiter=delimiter)
    if hasattr(data, "columns") and hasattr(data, "to_numpy") and hasattr(data, "dtypes"):
        return _from_pandas(data, missing=miss, drop_missing=drop_missing, arities=arities)
    if isinstance(data, (np.ndarray, list, tuple)):
        try:
            arr = np.asarray(data)
        except ValueError as exc:   # ragged nested lists
            raise DataFileError(f"data is not a rectangular table: {exc}") from None
        return _from_array(arr, names=names, missing=miss, drop_missing=drop_missing,
                           arities=arities)
    raise DataFileError(f"cannot read data from an object of type {type(data).__name__}")


def _checked_arities(values: Sequence, src: str | None, line: int | None = None) -> list[int]:
    """Declared arities as ints in 1 .. 2^31 - 1 (tokens or numbers)."""
    out = []
    for j, v in enumerate(values):
        tok = str(v).strip()
        if isinstance(v, (bool, np.bool_)) or not _INT.match(tok):
            raise DataFileError(f"arity {tok[:30]!r} of column {j + 1} is not a positive integer",
                                src, line, j + 1 if line else None)
        if _state_key(tok) > _state_key(str(_MAX_STATE)) or _state_key(tok) < (1, "1"):
            raise DataFileError(f"arity {tok[:30]} of column {j + 1} is out of range (1 .. {_MAX_STATE})",
                                src, line, j + 1 if line else None)
        out.append(int(tok))
    return out


def _read_text(path: Path) -> str:
    """The file as text: gzip detected from its magic bytes, UTF-8 (BOM allowed) or Latin-1."""
    src = str(path)
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise DataFileError("is a directory, not a data file", src) from None
    except OSError as e:
        raise DataFileError(f"cannot read data file: {e.strerror or e}", src) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataFileError(f"corrupt or truncated gzip data ({exc})", src) from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise DataFileError("binary data (a NUL byte): not a text file", src, raw[:nul].count(b"\n") + 1)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _read_path(path: Path, *, header, missing, drop_missing, arities, format, names, delimiter) -> Dataset:
    """A data file: the text layer (:mod:`lpbn.scoring.table`) decides format, delimiter,
    header and comments; the cells are then coded here, by the numba kernel when the body
    is a plain table of non-negative integers."""
    src = str(path)
    plan = plan_reading(path, _read_text(path), format=format, delimiter=delimiter, header=header,
                        missing=missing)
    out = _fast_integer_table(plan, names, arities, missing)
    if out is None:
        table = read_rows(plan)
        if table.declared is not None:      # a .dat file's arities line
            declared = _checked_arities(table.declared, src, table.declared_line)
            out = _build(table.header, table.rows, src, missing, drop_missing,
                         declared if arities is None else arities)
        else:
            hdr = table.header
            if hdr is None:
                width = len(table.rows[0][1]) if table.rows else 0
                hdr = list(names) if names is not None else [str(j) for j in range(width)]
            out = _build(hdr, table.rows, src, missing, drop_missing, arities)
    out.source = src
    out.reading = plan.reading
    return out


def _fast_integer_table(plan: Plan, names, arities, missing) -> Dataset | None:
    """Vectorised path for the common case: a table of non-negative integers separated by
    ``,``, tab or ``;`` (after an optional header line), parsed by a numba kernel over the
    bytes (no Python string per value, so 10,000 x 5,000 tables read in seconds).  Returns
    None whenever anything is unusual (the general parser then reports precise errors)."""
    sep = plan.reading.get("delimiter")
    if plan.table is not None or sep not in (",", "\t", ";") or not plan.head:
        return None
    header = plan.reading["header"]
    n = len(plan.head[0][1])
    text = plan.text
    body_start = 0
    if header:
        if len(plan.head) < 2:
            return None
        body_line = plan.head[1][0]      # the line the first data row starts on
        for _ in range(body_line - 1):
            body_start = text.find("\n", body_start) + 1
    try:
        buf = np.frombuffer(text[body_start:].encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    table = _parse_int_table(buf, n, ord(sep))
    if table is None:
        return None
    if header:
        hdr = plan.head[0][1]
    else:
        hdr = list(names) if names is not None else [str(j) for j in range(n)]
    _check_names(hdr, plan.src)
    return _from_array(table, names=hdr, missing=missing, drop_missing=False, arities=arities, src=plan.src)


def _parse_int_table(buf: np.ndarray, n: int, sep: int) -> np.ndarray | None:
    rows = _count_rows(buf)
    if rows == 0:
        return None
    table = np.empty((rows, n), dtype=np.int64)
    ok = _fill_int_table(buf, table, sep)
    return table if ok else None


@numba.njit(cache=True)
def _count_rows(buf):
    """Non-blank lines of the buffer."""
    rows = 0
    content = False
    for b in buf:
        if b == 10:
            if content:
                rows += 1
            content = False
        elif b != 13 and b != 32 and b != 9:
            content = True
    if content:
        rows += 1
    return rows


@numba.njit(cache=True)
def _fill_int_table(buf, table, sep):
    """Parse rows of non-negative integers separated by the byte ``sep`` (spaces, tabs and CR
    around values allowed, blank lines skipped) into ``table``; False on anything else (an
    empty field, a wrong number of fields, another character, a value above 2^31 - 1)."""
    rows, n = table.shape
    r = 0
    c = 0
    v = 0
    digits = 0
    content = False
    for b in buf:
        if 48 <= b <= 57:
            if digits > 0 and not content:
                return False    # digits separated by blanks within one field
            v = v * 10 + (b - 48)
            digits += 1
            content = True
            if v > _MAX_STATE:
                return False
        elif b == sep:
            if digits == 0 or c >= n - 1:
                return False
            table[r, c] = v
            c += 1
            v = 0
            digits = 0
            content = False
        elif b == 10:   # end of line
            if digits == 0:
                if c == 0:
                    continue    # blank line
                return False
            if c != n - 1:
                return False
            table[r, c] = v
            r += 1
            c = 0
            v = 0
            digits = 0
            content = False
        elif b == 13 or b == 32 or b == 9:
            if digits > 0:
                content = False   # a blank after a value: only a separator may follow
        else:
            return False
    if digits > 0:
        if c != n - 1:
            return False
        table[r, c] = v
        r += 1
    elif c != 0:
        return False
    return r == rows




def complete_rows(hdr: Sequence[str], body: list[tuple[int, list[str]]], src: str | None,
                  missing: frozenset[str], drop_missing: bool) -> tuple[list[list[str]], list[int], int]:
    """The body rows without missing values: ``(rows, their line numbers, rows dropped)``.
    A row of the wrong width, or a missing value without ``drop_missing``, is one
    :class:`DataFileError` naming the line and column."""
    n = len(hdr)
    keep: list[list[str]] = []
    lines: list[int] = []
    dropped = 0
    for ln, toks in body:
        if len(toks) != n:
            raise DataFileError(f"row has {len(toks)} values, expected {n}", src, ln)
        miss = [j for j, t in enumerate(toks) if t in missing]
        if miss:
            if drop_missing:
                dropped += 1
                continue
            j = miss[0]
            raise DataFileError(f"missing value {toks[j]!r} in column {j + 1} ({hdr[j]}); "
                                + _MISSING_HINT, src, ln, j + 1)
        keep.append(toks)
        lines.append(ln)
    if not keep:
        raise DataFileError("no data rows" + (f" ({dropped} dropped for missing values)" if dropped else ""), src)
    return keep, lines, dropped


def _build(hdr: list[str], body: list[tuple[int, list[str]]], src: str | None,
           missing: frozenset[str], drop_missing: bool, declared: Sequence[int] | None) -> Dataset:
    n = len(hdr)
    _check_names(hdr, src)
    if declared is not None and len(declared) != n:
        raise DataFileError(f"{len(declared)} arities declared for {n} variables", src)
    keep, _, dropped = complete_rows(hdr, body, src, missing, drop_missing)
    cols = np.empty((n, len(keep)), dtype=np.int32)
    ars = np.empty(n, dtype=np.int64)
    labels: list[list[str] | None] = []
    for j in range(n):
        codes, arity, lab = _code_column([row[j] for row in keep], hdr[j], src,
                                         None if declared is None else int(declared[j]))
        cols[j] = codes
        ars[j] = arity
        labels.append(lab)
    return Dataset(tuple(str(h) for h in hdr), np.ascontiguousarray(cols), ars, labels, src, dropped)


def _all_numbers(tokens) -> bool:
    """Every token a finite number: with more levels than half the rows, a measurement read as
    categories (the typed reader's rule for a discrete column, :mod:`lpbn.scoring.typed`)."""
    try:
        return all(math.isfinite(float(t)) for t in tokens)
    except ValueError:
        return False


def _code_column(vals: list[str], name: str, src: str | None, declared: int | None):
    """States of one column as codes 0..k-1: integer tokens in numeric order (any size, exact),
    other tokens in string order; with a declared arity, integer tokens are state indices."""
    uniq = set(vals)
    if all(_INT.match(v) for v in uniq):
        norm = {v: v.lstrip("+").lstrip("0") or "0" for v in uniq}
        states = sorted(set(norm.values()), key=_state_key)
        if declared is not None:
            top = states[-1]
            if _state_key(top) >= _state_key(str(declared)):
                raise DataFileError(f"column {name}: value {top[:30]} exceeds declared arity {declared}", src)
            index = {v: int(norm[v]) for v in uniq}
            return np.array([index[v] for v in vals], dtype=np.int32), declared, None
        rank = {t: i for i, t in enumerate(states)}
        index = {v: rank[norm[v]] for v in uniq}
        return np.array([index[v] for v in vals], dtype=np.int32), len(states), states
    states = sorted(uniq)
    if declared is None and 2 * len(states) > len(vals) and _all_numbers(states):
        raise DataFileError(f"column {name}: {len(states)} distinct non-integer numbers in {len(vals)} rows: "
                            "continuous data, not categories; use score auto, bic-g or bge "
                            "(lpbn learn/score --score auto)", src)
    index = {v: i for i, v in enumerate(states)}
    codes = np.array([index[v] for v in vals], dtype=np.int32)
    if declared is not None:
        if declared < len(states):
            raise DataFileError(f"column {name}: {len(states)} distinct values but declared arity {declared}", src)
        return codes, declared, states
    return codes, len(states), states


def _from_array(arr: np.ndarray, *, names, missing=DEFAULT_MISSING, drop_missing=False, arities=None,
                src: str | None = None) -> Dataset:
    if arr.ndim != 2:
        raise DataFileError(f"data array must be 2-D (rows x variables), got shape {arr.shape}")
    N, n = arr.shape
    hdr = [str(x) for x in names] if names is not None else [str(j) for j in range(n)]
    if len(hdr) != n:
        raise DataFileError(f"{len(hdr)} names for {n} columns")
    _check_names(hdr, src)
    if arities is not None and len(arities) != n:
        raise DataFileError(f"{len(arities)} arities declared for {n} variables", src)
    if arr.dtype.kind in "iub":
        if N == 0 or n == 0:
            raise DataFileError("empty data")
        a = arr.astype(np.int64)
        if (a < 0).any():
            r, c = np.argwhere(a < 0)[0]
            raise DataFileError(f"negative state {a[r, c]} in row {r + 1}, column {c + 1}")
        if (a > _MAX_STATE).any():
            r, c = np.argwhere(a > _MAX_STATE)[0]
            raise DataFileError(f"state {a[r, c]} in row {r + 1}, column {c + 1} is above {_MAX_STATE}")
        if arities is None:
            cols = np.empty((n, N), dtype=np.int32)
            ars = np.empty(n, dtype=np.int64)
            labels = []
            for j in range(n):
                uniq, codes = np.unique(a[:, j], return_inverse=True)
                cols[j] = codes
                ars[j] = len(uniq)
                labels.append([str(v) for v in uniq])
            return Dataset(tuple(hdr), cols, ars, labels, None, 0)
        cols = np.ascontiguousarray(a.T.astype(np.int32))
        ars = a.max(axis=0) + 1
        dec = np.asarray(arities, dtype=np.int64)
        bad = np.flatnonzero(dec < ars)
        if len(bad):
            j = bad[0]
            raise DataFileError(f"column {hdr[j]}: value {ars[j] - 1} exceeds declared arity {dec[j]}")
        return Dataset(tuple(hdr), cols, dec, [None] * n, None, 0)
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any() and not drop_missing:
            r, c = np.argwhere(nan)[0]
            raise DataFileError(f"missing value (NaN) in row {r + 1}, column {c + 1} ({hdr[c]}); "
                                "use drop_missing=True to remove such rows")
        rows = ~nan.any(axis=1)
        sub = arr[rows]
        if sub.size and not np.all(np.isfinite(sub) & (sub == np.round(sub))):
            raise DataFileError("float data must hold integer states (discretise it first)")
        if sub.size and (np.abs(sub) > _MAX_STATE).any():
            raise DataFileError(f"float data holds states above {_MAX_STATE}")
        out = _from_array(sub.astype(np.int64), names=hdr, drop_missing=False, arities=arities)
        out.dropped_rows = int((~rows).sum())
        return out
    # object / string arrays: go through the label coder
    body = []
    for i, row in enumerate(arr.tolist()):
        toks = []
        for v in row:
            if v is None or (isinstance(v, float) and v != v):
                toks.append("")
            else:
                toks.append(_token(v))
        body.append((i + 1, toks))
    return _build(hdr, body, None, missing, drop_missing, arities)


def _token(v) -> str:
    """One value of an array or DataFrame as a state token (integral floats as integers)."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def _from_pandas(df, *, missing, drop_missing, arities) -> Dataset:
    """A DataFrame: categorical columns keep their categories (unused ones included), other
    columns (object, string, integer, bool, nullable) are coded like CSV columns; NaN, None
    and pandas NA are missing, and so are values equal to a declared ``missing`` token."""
    hdr = [str(c) for c in df.columns]
    _check_names(hdr, None)
    if arities is not None and len(arities) != len(hdr):
        raise DataFileError(f"{len(arities)} arities declared for {len(hdr)} variables")
    mask = df.isna().to_numpy(dtype=bool)
    tokens = []
    for j, c in enumerate(df.columns):
        s = df[c]
        if str(s.dtype) == "category":
            tokens.append(None)
            continue
        col = ["" if m else _token(v) for v, m in zip(s.to_numpy(dtype=object), mask[:, j])]
        mask[:, j] |= np.array([t in missing for t in col], dtype=bool)
        tokens.append(col)
    if mask.any() and not drop_missing:
        r, c = np.argwhere(mask)[0]
        what = "" if tokens[c] is None or tokens[c][r] == "" else f" {tokens[c][r]!r}"
        raise DataFileError(f"missing value{what} in row {r + 1}, column {c + 1} ({hdr[c]}); " + _MISSING_HINT)
    keep = ~mask.any(axis=1)
    if not keep.any():
        raise DataFileError("no data rows" + (f" ({int((~keep).sum())} dropped for missing values)"
                                              if len(keep) else ""))
    N = int(keep.sum())
    cols = np.empty((len(hdr), N), dtype=np.int32)
    ars = np.empty(len(hdr), dtype=np.int64)
    labels: list[list[str] | None] = []
    for j, c in enumerate(df.columns):
        if tokens[j] is None:
            s = df[c][keep]
            cols[j] = s.cat.codes.to_numpy()
            ars[j] = max(len(s.cat.categories), 1)
            labels.append([str(x) for x in s.cat.categories])
        else:
            vals = [t for t, k in zip(tokens[j], keep) if k]
            codes, ar, lab = _code_column(vals, hdr[j], None, None if arities is None else int(arities[j]))
            cols[j] = codes
            ars[j] = ar
            labels.append(lab)
    return Dataset(tuple(hdr), np.ascontiguousarray(cols), ars, labels, None, int((~keep).sum()))


def read_cells(path: str | os.PathLike, header: bool | None = None,
               missing: frozenset[str] = DEFAULT_MISSING) -> tuple[list[str], list[tuple[int, list[str]]], dict]:
    """A delimited data file as cells: the column names, the body rows ``(line number,
    tokens)`` and the ``reading`` record, read by the text layer exactly as :func:`read_data` reads it (format by name,
    delimiter, comment lines, the header rule; :mod:`lpbn.scoring.table`), with no coding.
    The typed reader of continuous and mixed data (:mod:`lpbn.scoring.typed`) builds on it."""
    src = str(path)
    p = Path(path)
    table = read_rows(plan_reading(p, _read_text(p), format=None, delimiter=None, header=header,
                                   missing=missing))
    if table.declared is not None:
        raise DataFileError("a GOBNILP .dat file holds discrete states with declared arities; continuous "
                            "or mixed data are read from delimited text (.csv, .tsv, .txt)", src)
    if not table.rows:
        raise DataFileError("empty data file", src)
    if table.header is None:
        return [str(j) for j in range(len(table.rows[0][1]))], table.rows, table.reading
    _check_names(table.header, src)
    return list(table.header), table.rows, table.reading
