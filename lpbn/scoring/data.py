"""Discrete data input: CSV (with or without header), GOBNILP ``.dat``, numpy arrays, pandas.

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
* Missing values (``?``, empty, ``NA``, ``NaN``, ``null``) are an error naming the row and
  column, unless ``drop_missing=True`` (then those rows are removed and counted).
* Columns of header-less data are named ``"0" .. "n-1"`` as GOBNILP names them.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numba
import numpy as np

from ..errors import DataFileError

MISSING = frozenset({"", "?", "na", "nan", "null", "none", "n/a", "*"})
_INT = re.compile(r"^[+]?\d+$")
_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


@dataclass
class Dataset:
    """Complete discrete data: ``columns[i, s]`` is the state of variable ``i`` in row ``s``."""

    names: tuple[str, ...]
    columns: np.ndarray  # (n, N) int32, C-contiguous
    arities: np.ndarray  # (n,) int64
    labels: list[list[str] | None] = field(default_factory=list)
    source: str | None = None
    dropped_rows: int = 0

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def N(self) -> int:
        return int(self.columns.shape[1])

    def __repr__(self) -> str:
        return f"Dataset(n={self.n}, N={self.N}, source={self.source!r})"


def _is_missing(tok: str) -> bool:
    return tok.strip().lower() in MISSING


# --------------------------------------------------------------------------- text parsing
def _split_rows(text: str, path: str, whitespace: bool) -> list[tuple[int, list[str]]]:
    rows: list[tuple[int, list[str]]] = []
    if whitespace:
        for ln, line in enumerate(text.splitlines(), 1):
            if line.strip() == "" or line.lstrip().startswith("#"):
                continue
            rows.append((ln, line.split()))
        return rows
    sample = text[:20000]
    delim = ","
    first = next((ln for ln in sample.splitlines() if ln.strip()), "")
    if "," not in first:
        for d in (";", "\t", "|"):
            if d in first:
                delim = d
                break
        else:
            if len(first.split()) > 1:
                return _split_rows(text, path, True)
    reader = csv.reader(io.StringIO(text), delimiter=delim, skipinitialspace=True)
    for ln, rec in enumerate(reader, 1):
        if not rec or (len(rec) == 1 and rec[0].strip() == ""):
            continue
        rows.append((ln, [t.strip() for t in rec]))
    return rows


def _looks_like_header(first: list[str], rest: list[list[str]]) -> bool:
    """Auto-detect a CSV header: a first-row token that never occurs in its column below, and
    either some first-row token is non-numeric in a numeric column, or all tokens are new."""
    sample = rest[:1000]
    if not sample:
        return not all(_NUM.match(t) for t in first)
    novel = 0
    for j, tok in enumerate(first):
        col = {r[j] for r in sample if j < len(r)}
        numeric = all(_NUM.match(v) or _is_missing(v) for v in col)
        if numeric and not _NUM.match(tok) and not _is_missing(tok):
            return True
        if tok not in col:
            novel += 1
    return novel == len(first) and len(set(first)) == len(first) and not all(_NUM.match(t) for t in first)


def _detect_dat(rows: list[tuple[int, list[str]]]) -> bool:
    """GOBNILP .dat: names line, then a line of positive integer arities of the same length."""
    if len(rows) < 2:
        return False
    names, ar = rows[0][1], rows[1][1]
    if any("," in t for t in names + ar):
        return False
    return (len(names) == len(ar) and all(_INT.match(t) and int(t) >= 1 for t in ar)
            and not all(_INT.match(t) for t in names))


def read_data(data: Any, *, header: bool | None = None, drop_missing: bool = False,
              names: Sequence[str] | None = None, arities: Sequence[int] | None = None,
              format: str | None = None) -> Dataset:
    """Read discrete data from a path (CSV / ``.dat``), a numpy array, a pandas DataFrame or a
    :class:`Dataset` (returned as is).

    ``header``: None = auto-detect (CSV only), True/False to force.  ``format``: ``"csv"`` or
    ``"dat"`` to override detection.  ``arities`` declares state counts (checked against data).
    Raises :class:`~lpbn.errors.DataFileError` on malformed input, missing values (unless
    ``drop_missing``) and empty data.
    """
    if isinstance(data, Dataset):
        return data
    if isinstance(data, (str, os.PathLike)):
        return _read_path(Path(data), header=header, drop_missing=drop_missing,
                          arities=arities, format=format, names=names)
    if hasattr(data, "columns") and hasattr(data, "to_numpy") and hasattr(data, "dtypes"):
        return _from_pandas(data, drop_missing=drop_missing, arities=arities)
    if isinstance(data, (np.ndarray, list, tuple)):
        return _from_array(np.asarray(data), names=names, drop_missing=drop_missing,
                           arities=arities)
    raise DataFileError(f"cannot read data from an object of type {type(data).__name__}")


def _read_path(path: Path, *, header, drop_missing, arities, format, names) -> Dataset:
    src = str(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise DataFileError(f"cannot read data file: {e.strerror or e}", src) from None
    if raw[:2] == b"\x1f\x8b":
        import gzip
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    fmt = format
    head_text = "\n".join(text.splitlines()[:50])
    if fmt is None:
        fmt = "dat" if _detect_dat(_split_rows(head_text, src, True)) else "csv"
    if fmt == "dat":
        ws_rows = _split_rows(text, src, True)
        if not _detect_dat(ws_rows):
            raise DataFileError("not a GOBNILP .dat file (expected a names line, then a line of "
                                "positive integer arities)", src, ws_rows[0][0] if ws_rows else 1)
        (_, hdr), (_, ar) = ws_rows[0], ws_rows[1]
        declared = [int(t) for t in ar]
        return _build(hdr, ws_rows[2:], src, drop_missing, declared if arities is None else list(arities))
    if fmt != "csv":
        raise DataFileError(f"unknown data format {fmt!r} (use 'csv' or 'dat')", src)
    fast = _fast_integer_csv(text, src, header, names, arities)
    if fast is not None:
        return fast
    rows = _split_rows(text, src, False)
    if not rows:
        raise DataFileError("empty data file", src)
    if header is None:
        header = _looks_like_header(rows[0][1], [r for _, r in rows[1:1001]])
    if header:
        hdr = rows[0][1]
        body = rows[1:]
    else:
        hdr = list(names) if names is not None else [str(j) for j in range(len(rows[0][1]))]
        body = rows
    return _build(hdr, body, src, drop_missing, arities)


def _fast_integer_csv(text: str, src: str, header, names, arities) -> Dataset | None:
    """Vectorised path for the common case: a comma-separated table of non-negative integers
    (optionally with a header line), parsed by a numba kernel over the bytes (no Python
    string per value, so 10,000 x 5,000 tables read in seconds).  Returns None whenever
    anything is unusual (the general parser then reports precise errors)."""
    first_end = 0
    while True:   # the first non-blank line
        nl = text.find("\n", first_end)
        line = text[first_end:] if nl < 0 else text[first_end:nl]
        if line.strip() or nl < 0:
            break
        first_end = nl + 1
    if "," not in line:
        return None
    head_text = "\n".join(text[first_end:first_end + 2_000_000].split("\n", 1001)[:1001])
    head_rows = _split_rows(head_text, src, False)
    if not head_rows:
        return None
    n = len(head_rows[0][1])
    if header is None:
        header = _looks_like_header(head_rows[0][1], [r for _, r in head_rows[1:1001]])
    body_start = first_end
    if header:
        nl = text.find("\n", first_end)
        body_start = len(text) if nl < 0 else nl + 1
    try:
        buf = np.frombuffer(text[body_start:].encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    table = _parse_int_table(buf, n)
    if table is None:
        return None
    if header:
        hdr = head_rows[0][1]
    else:
        hdr = list(names) if names is not None else [str(j) for j in range(n)]
    out = _from_array(table, names=hdr, drop_missing=False, arities=arities)
    out.source = src
    return out


def _parse_int_table(buf: np.ndarray, n: int) -> np.ndarray | None:
    rows = _count_rows(buf)
    if rows == 0:
        return None
    table = np.empty((rows, n), dtype=np.int64)
    ok = _fill_int_table(buf, table)
    return table if ok else None


_MAX_STATE = 2**31 - 1


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
def _fill_int_table(buf, table):
    """Parse rows of comma-separated non-negative integers (spaces, tabs and CR around values
    allowed, blank lines skipped) into ``table``; False on anything else (an empty field, a
    wrong number of fields, another character, a value above 2^31 - 1)."""
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
        elif b == 44:   # ','
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




def _build(hdr: list[str], body: list[tuple[int, list[str]]], src: str | None,
           drop_missing: bool, declared: Sequence[int] | None) -> Dataset:
    n = len(hdr)
    if n == 0:
        raise DataFileError("no variables", src)
    if len(set(hdr)) != n:
        dup = next(h for h in hdr if hdr.count(h) > 1)
        raise DataFileError(f"duplicate variable name {dup!r}", src)
    if declared is not None and len(declared) != n:
        raise DataFileError(f"{len(declared)} arities declared for {n} variables", src)
    keep: list[list[str]] = []
    dropped = 0
    for ln, toks in body:
        if len(toks) != n:
            raise DataFileError(f"row has {len(toks)} values, expected {n}", src, ln)
        miss = [j for j, t in enumerate(toks) if _is_missing(t)]
        if miss:
            if drop_missing:
                dropped += 1
                continue
            j = miss[0]
            raise DataFileError(f"missing value {toks[j]!r} in column {j + 1} ({hdr[j]}); "
                                "use --drop-missing to remove such rows", src, ln, j + 1)
        keep.append(toks)
    if not keep:
        raise DataFileError("no data rows" + (f" ({dropped} dropped for missing values)" if dropped else ""), src)
    table = np.array(keep, dtype=object).T if keep else np.empty((n, 0), dtype=object)
    cols = np.empty((n, len(keep)), dtype=np.int32)
    ars = np.empty(n, dtype=np.int64)
    labels: list[list[str] | None] = []
    for j in range(n):
        codes, arity, lab = _code_column([str(v) for v in table[j]], hdr[j], src,
                                         None if declared is None else int(declared[j]))
        cols[j] = codes
        ars[j] = arity
        labels.append(lab)
    return Dataset(tuple(str(h) for h in hdr), np.ascontiguousarray(cols), ars, labels, src, dropped)


def _code_column(vals: list[str], name: str, src: str | None, declared: int | None):
    if all(_INT.match(v) for v in vals):
        ints = np.array([int(v) for v in vals], dtype=np.int64)
        top = int(ints.max()) + 1
        if top > 2**31 - 1:
            raise DataFileError(f"column {name}: state index too large", src)
        if declared is not None:
            if declared < top:
                raise DataFileError(f"column {name}: value {top - 1} exceeds declared arity {declared}", src)
            if declared < 1:
                raise DataFileError(f"column {name}: arity must be >= 1", src)
            return ints.astype(np.int32), declared, None
        uniq, codes = np.unique(ints, return_inverse=True)
        return codes.astype(np.int32), len(uniq), [str(v) for v in uniq]
    uniq = sorted(set(vals))
    index = {v: i for i, v in enumerate(uniq)}
    codes = np.array([index[v] for v in vals], dtype=np.int32)
    if declared is not None:
        if declared < len(uniq):
            raise DataFileError(f"column {name}: {len(uniq)} distinct values but declared arity {declared}", src)
        return codes, declared, uniq
    return codes, len(uniq), uniq


def _from_array(arr: np.ndarray, *, names, drop_missing, arities) -> Dataset:
    if arr.ndim != 2:
        raise DataFileError(f"data array must be 2-D (rows x variables), got shape {arr.shape}")
    N, n = arr.shape
    hdr = [str(x) for x in names] if names is not None else [str(j) for j in range(n)]
    if len(hdr) != n:
        raise DataFileError(f"{len(hdr)} names for {n} columns")
    if arr.dtype.kind in "iub":
        if N == 0 or n == 0:
            raise DataFileError("empty data")
        a = arr.astype(np.int64)
        if (a < 0).any():
            r, c = np.argwhere(a < 0)[0]
            raise DataFileError(f"negative state {a[r, c]} in row {r + 1}, column {c + 1}")
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
        if arities is not None:
            dec = np.asarray(arities, dtype=np.int64)
            bad = np.flatnonzero(dec < ars)
            if len(bad):
                j = bad[0]
                raise DataFileError(f"column {hdr[j]}: value {ars[j] - 1} exceeds declared arity {dec[j]}")
            ars = dec
        return Dataset(tuple(hdr), cols, ars.astype(np.int64), [None] * n, None, 0)
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any() and not drop_missing:
            r, c = np.argwhere(nan)[0]
            raise DataFileError(f"missing value (NaN) in row {r + 1}, column {c + 1} ({hdr[c]}); "
                                "use drop_missing=True to remove such rows")
        rows = ~nan.any(axis=1)
        sub = arr[rows]
        if sub.size and not np.all(sub == np.round(sub)):
            raise DataFileError("float data must hold integer states (discretise it first)")
        out = _from_array(sub.astype(np.int64), names=hdr, drop_missing=False, arities=arities)
        out.dropped_rows = int((~rows).sum())
        return out
    # object / string arrays: go through the label coder
    body = [(i + 1, ["" if v is None else str(v) for v in row]) for i, row in enumerate(arr.tolist())]
    for ln, toks in body:
        for j, v in enumerate(arr[ln - 1]):
            if v is None or (isinstance(v, float) and np.isnan(v)):
                toks[j] = ""
    return _build(hdr, body, None, drop_missing, arities)


def _from_pandas(df, *, drop_missing, arities) -> Dataset:
    hdr = [str(c) for c in df.columns]
    mask = df.isna().to_numpy()
    if mask.any() and not drop_missing:
        r, c = np.argwhere(mask)[0]
        raise DataFileError(f"missing value in row {r + 1}, column {c + 1} ({hdr[c]}); "
                            "use drop_missing=True to remove such rows")
    keep = ~mask.any(axis=1)
    df = df[keep]
    if len(df) == 0:
        raise DataFileError("no data rows")
    cols = np.empty((len(hdr), len(df)), dtype=np.int32)
    ars = np.empty(len(hdr), dtype=np.int64)
    labels: list[list[str] | None] = []
    for j, c in enumerate(df.columns):
        s = df[c]
        if str(s.dtype) == "category":
            cols[j] = s.cat.codes.to_numpy()
            ars[j] = len(s.cat.categories)
            labels.append([str(x) for x in s.cat.categories])
        else:
            codes, ar, lab = _code_column([str(v) for v in s.to_numpy()], hdr[j], None,
                                          None if arities is None else int(arities[j]))
            cols[j] = codes
            ars[j] = ar
            labels.append(lab)
    out = Dataset(tuple(hdr), np.ascontiguousarray(cols), ars, labels, None, int((~keep).sum()))
    return out
