"""Typed data for continuous and mixed scores: each column discrete or continuous.

The text is parsed by :func:`lpbn.scoring.data.read_cells` (format, delimiter, comments and
header as :mod:`lpbn.scoring.table` decides them); this module only decides the type of each
column and converts it.  Typing rules (documented in
``docs/continuous.md``):

* ``continuous=`` / ``--continuous COLS`` and ``discrete=`` / ``--discrete COLS`` force a type
  (names or 1-based column numbers; ``all`` for every column).
* With a continuous score named (``bic-g``, ``bge``) every other column is continuous.
* Otherwise (``bic-cg``, ``auto``): a column is continuous when every value is a number and at
  least one is not an integer literal (``2.5``, ``1e-3``); integer-only columns (state codes,
  counts) and columns with non-numeric values are discrete.  So data sets of integer codes keep
  their discrete meaning; integer-valued measurements (e.g. bnlearn's ``marks``) need a named
  continuous score or ``--continuous``.
* pandas: float dtypes are continuous; category, object, string and bool discrete; integer
  dtypes discrete unless a continuous score is named or the column is forced.

Bad input is one :class:`~lpbn.errors.DataFileError` naming the file, line and column: a value
that is not a number in a continuous column (a numeric column with a stray word included), a
non-finite number (``inf``, ``nan``), a constant continuous column, a discrete column with more
than N/2 levels (fewer than two rows per level on average: no conditional distribution can be
estimated; usually an identifier or a measurement), and fewer rows than ``n + 2`` (the
regression of a variable on all others then has no residual degree of freedom).  Missing values
follow :mod:`lpbn.scoring.data` (an empty field or ``?``, more with ``missing=``; error unless
``drop_missing``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DataFileError, InputError
from .data import Dataset, complete_rows, missing_tokens, read_cells

_INT = re.compile(r"^[+-]?[0-9]+$")
CONTINUOUS_SCORES = ("bic-g", "bge")


@dataclass
class Table:
    """Complete typed data: ``values[:, j]`` (float64, N x n) for continuous columns,
    ``codes[j]`` (int32 states 0..r-1) and ``arities[j]`` for discrete ones (0 for continuous)."""

    names: tuple[str, ...]
    continuous: np.ndarray
    values: np.ndarray
    codes: np.ndarray
    arities: np.ndarray
    labels: list = field(default_factory=list)
    source: str | None = None
    dropped_rows: int = 0
    reading: dict | None = None     # how a file was read (lpbn.scoring.table); None in memory

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def N(self) -> int:
        return int(self.values.shape[0])

    @property
    def kind(self) -> str:
        """``"discrete"``, ``"continuous"`` or ``"mixed"``."""
        c = int(self.continuous.sum())
        return "discrete" if c == 0 else "continuous" if c == self.n else "mixed"

    def discrete_dataset(self) -> Dataset:
        """The discrete columns as a :class:`Dataset` (for the discrete scorer)."""
        idx = np.flatnonzero(~self.continuous)
        return Dataset(tuple(self.names[j] for j in idx), np.ascontiguousarray(self.codes[idx]),
                       self.arities[idx].astype(np.int64), [self.labels[j] for j in idx], self.source,
                       self.dropped_rows)


def auto_score(table: Table) -> str:
    """``--score auto``: bic for all-discrete data, bic-g for all-continuous, bic-cg for mixed."""
    return {"discrete": "bic", "continuous": "bic-g", "mixed": "bic-cg"}[table.kind]


def read_typed(data: Any, *, score: str = "auto", discrete: Sequence | str | None = None,
               continuous: Sequence | str | None = None, header: bool | None = None,
               missing: str | Sequence[str] | None = None, drop_missing: bool = False) -> Table:
    """Read and type a CSV path, a pandas DataFrame, a numpy array or a :class:`Table` (see the
    module docstring for the rules and the errors)."""
    if isinstance(data, Table):
        return data
    miss = missing_tokens(missing)
    named = str(score).lower() in CONTINUOUS_SCORES
    reading = None
    if isinstance(data, (str, os.PathLike)):
        hdr, body, reading = read_cells(data, header, miss)
        src = str(data)
        cols, lines, dropped = _text_columns(hdr, body, src, miss, drop_missing)
    elif hasattr(data, "columns") and hasattr(data, "dtypes"):
        hdr = [str(c) for c in data.columns]
        src = None
        cols, lines, dropped = _frame_columns(data, miss, drop_missing, named)
    elif isinstance(data, np.ndarray) and data.ndim == 2:
        hdr = [str(j) for j in range(data.shape[1])]
        src = None
        if np.issubdtype(data.dtype, np.floating):
            cols = [data[:, j].astype(np.float64) for j in range(data.shape[1])]
        else:
            cols = [[str(v) for v in data[:, j]] for j in range(data.shape[1])]
        lines, dropped = None, 0
    else:
        raise DataFileError(f"cannot read typed data from an object of type {type(data).__name__}")
    forced = _forced(hdr, discrete, continuous, src)
    table = _build(hdr, cols, lines, src, dropped, forced, named)
    table.reading = reading
    return table


def _forced(hdr, discrete, continuous, src) -> dict[int, bool]:
    out: dict[int, bool] = {}
    for spec, is_cont in ((discrete, False), (continuous, True)):
        for j in _columns(hdr, spec, src):
            if j in out and out[j] != is_cont:
                raise InputError(f"column {hdr[j]} is declared both discrete and continuous")
            out[j] = is_cont
    return out


def _columns(hdr, spec, src) -> list[int]:
    if spec is None:
        return []
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [str(s) for s in spec]
    if items == ["all"]:
        return list(range(len(hdr)))
    out = []
    for it in items:
        if it in hdr:
            out.append(hdr.index(it))
        elif _INT.match(it) and 1 <= int(it) <= len(hdr):
            out.append(int(it) - 1)
        else:
            raise InputError(f"{src or 'data'}: no column named {it!r} (declared with --discrete/--continuous)")
    return out


def _text_columns(hdr, body, src, miss, drop_missing):
    keep_rows, lines, dropped = complete_rows(hdr, body, src, miss, drop_missing)
    return [list(c) for c in zip(*keep_rows)], lines, dropped


def _frame_columns(df, miss, drop_missing, named):
    mask = df.isna().to_numpy(dtype=bool)
    if mask.any() and not drop_missing:
        r, c = np.argwhere(mask)[0]
        raise DataFileError(f"missing value in row {r + 1}, column {c + 1} ({df.columns[c]}); "
                            "drop such rows with drop_missing=True")
    keep = ~mask.any(axis=1)
    cols = []
    for c in df.columns:
        s = df[c][keep]
        dt = str(s.dtype)
        if dt.startswith("float") or (named and (dt.startswith(("int", "Int")))):
            cols.append(s.to_numpy(dtype=np.float64))
        elif dt == "category":
            cols.append([str(v) for v in s.astype(str)])
        else:
            cols.append([str(v).strip() if not isinstance(v, bool) else str(v) for v in s.to_numpy(dtype=object)])
    return cols, None, int((~keep).sum())


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _decide(col, forced: bool | None, named: bool) -> bool:
    """True = continuous (module docstring)."""
    if forced is not None:
        return forced
    if isinstance(col, np.ndarray):
        return True
    if named:
        return True
    try:
        arr = np.array(col, dtype=np.float64)     # every value a number (the common case): one pass
    except ValueError:
        arr = None
    if arr is not None:
        if any(not _INT.match(t) for t in col):
            _CONVERTED[id(col)] = arr               # reused by _to_floats
            return True
        return False
    if not any(not _INT.match(t) and _is_number(t) for t in col):
        return False
    return sum(map(_is_number, col)) * 2 > len(col)


#: float arrays converted while typing, keyed by the id of their (live) token list; cleared per table
_CONVERTED: dict[int, np.ndarray] = {}


def _build(hdr, cols, lines, src, dropped, forced, named) -> Table:
    n, N = len(hdr), len(cols[0]) if cols else 0
    _CONVERTED.clear()
    try:
        return _typed(hdr, cols, lines, src, dropped, forced, named, n, N)
    finally:
        _CONVERTED.clear()


def _typed(hdr, cols, lines, src, dropped, forced, named, n, N) -> Table:
    cont = np.array([_decide(cols[j], forced.get(j), named) for j in range(n)], dtype=bool)
    if named and (~cont).any():
        j = int(np.flatnonzero(~cont)[0])
        raise InputError(f"{src or 'data'}: column {hdr[j]} is declared discrete, but bic-g and bge need every "
                         "column continuous (use bic-cg for mixed data)")
    values = np.zeros((N, n))
    codes = np.zeros((n, N), dtype=np.int32)
    arities = np.zeros(n, dtype=np.int64)
    labels: list = []
    for j in range(n):
        if cont[j]:
            values[:, j] = _to_floats(cols[j], hdr[j], j, lines, src)
            labels.append(None)
            if np.ptp(values[:, j]) == 0:
                raise DataFileError(f"continuous column {hdr[j]} is constant: it has no variance to model "
                                    "(drop it)", src, None, j + 1)
        else:
            codes[j], arities[j], lab = _code(cols[j])
            labels.append(lab)
            if arities[j] > max(2, N / 2):
                raise DataFileError(f"discrete column {hdr[j]} has {arities[j]} levels in {N} rows (more than N/2: "
                                    "no conditional distribution can be estimated); declare it --continuous or "
                                    "drop it", src, None, j + 1)
    if cont.any() and N < n + 2:
        raise DataFileError(f"{N} rows for {n} columns: continuous and mixed scores need at least n + 2 = {n + 2} "
                            "rows (the regression on all other variables needs a residual degree of freedom)", src)
    return Table(tuple(hdr), cont, values, codes, arities, labels, src, dropped)


def _to_floats(col, name, j, lines, src) -> np.ndarray:
    if isinstance(col, np.ndarray):
        bad = np.flatnonzero(~np.isfinite(col))
        if len(bad):
            raise DataFileError(f"non-finite value {col[bad[0]]} in continuous column {name} (row {bad[0] + 1})",
                                src, None, j + 1)
        return col
    out = _CONVERTED.pop(id(col), None)
    if out is None:
        try:
            out = np.array(col, dtype=np.float64)
        except ValueError:
            out = None
    if out is not None and np.isfinite(out).all():
        return out
    out = np.empty(len(col))
    for i, t in enumerate(col):     # locate the first bad value
        try:
            v = float(t)
        except ValueError:
            raise DataFileError(f"{t[:40]!r} is not a number, in continuous column {name}",
                                src, lines[i] if lines else None, j + 1) from None
        if not math.isfinite(v):
            raise DataFileError(f"non-finite value {t!r} in continuous column {name}",
                                src, lines[i] if lines else None, j + 1)
        out[i] = v
    return out


def _code(col) -> tuple[np.ndarray, int, list[str]]:
    """States 0..r-1: integer tokens in numeric order, other tokens in string order."""
    toks = [str(v) for v in col] if isinstance(col, np.ndarray) else col
    uniq = set(toks)
    if all(_INT.match(t) for t in uniq):
        states = sorted(uniq, key=lambda t: int(t))
    else:
        states = sorted(uniq)
    index = {t: i for i, t in enumerate(states)}
    return np.array([index[t] for t in toks], dtype=np.int32), len(states), states
