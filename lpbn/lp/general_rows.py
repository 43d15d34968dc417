"""A growing list of general rows ``Σ coef · η[cols] <= rhs`` over the η columns, stored as CSR.

The {0, 1/2}-cuts of :mod:`lpbn.lp.zero_half` are such rows, and dense ones: a cut combines
convexity and cluster rows, so it holds thousands of candidates (munin1-5000: ~5,500 of 18,756
columns each, 3 million nonzeros after a minute of the dual's root).  Kept as a Python list of
arrays, every test at an LP point gathered and summed them again (the dual's pooled-cut test
was a quarter of its root time there).  Here they live in one append-only CSR with amortised
growth, each row's columns sorted, and :meth:`GeneralRows.activity` sums the rows asked for
in one kernel call that looks up the point's support in the long rows.

Indexing and iteration give ``(cols, coef, rhs)`` tuples (views), so the rows read like the
list of tuples they replace.
"""

from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np


class GeneralRows:
    """Rows ``Σ coef · η[cols] <= rhs``, appended one at a time (see the module docstring)."""

    def __init__(self, rows: Iterable[tuple[np.ndarray, np.ndarray, float]] = ()):
        self._ptr = np.zeros(17, dtype=np.int64)
        self._rhs = np.zeros(16, dtype=np.float64)
        self._idx = np.zeros(1024, dtype=np.int64)
        self._val = np.zeros(1024, dtype=np.float64)
        self._len = 0
        for cols, coef, rhs in rows:
            self.append(cols, coef, rhs)

    # ------------------------------------------------------------------ list-like
    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __getitem__(self, r):
        if isinstance(r, slice):
            return [self[i] for i in range(*r.indices(self._len))]
        r = int(r)
        if r < 0:
            r += self._len
        if not 0 <= r < self._len:
            raise IndexError(r)
        a, b = self._ptr[r], self._ptr[r + 1]
        return self._idx[a:b], self._val[a:b], float(self._rhs[r])

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray, float]]:
        return (self[r] for r in range(self._len))

    def append(self, cols: np.ndarray, coef: np.ndarray, rhs: float) -> None:
        """Add the row ``Σ coef · η[cols] <= rhs`` (stored as :func:`canonical_row` gives it)."""
        cols, coef = canonical_row(cols, coef)
        r, start = self._len, int(self._ptr[self._len])
        end = start + len(cols)
        if r + 2 > len(self._ptr):
            self._ptr = _grown(self._ptr, r + 2)
        if r + 1 > len(self._rhs):
            self._rhs = _grown(self._rhs, r + 1)
        if end > len(self._idx):
            self._idx = _grown(self._idx, end)
            self._val = _grown(self._val, end)
        self._idx[start:end] = cols
        self._val[start:end] = coef
        self._rhs[r] = rhs
        self._ptr[r + 1] = end
        self._len = r + 1

    # ------------------------------------------------------------------ CSR views
    @property
    def ptr(self) -> np.ndarray:
        return self._ptr[:self._len + 1]

    @property
    def idx(self) -> np.ndarray:
        return self._idx[:self._ptr[self._len]]

    @property
    def val(self) -> np.ndarray:
        return self._val[:self._ptr[self._len]]

    @property
    def rhs(self) -> np.ndarray:
        return self._rhs[:self._len]

    # ------------------------------------------------------------------ evaluation
    def activity(self, eta: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Left-hand sides ``Σ coef · η[cols]`` at ``eta`` (m,) of ``rows`` (default all)."""
        rows = np.arange(self._len, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        eta = np.ascontiguousarray(eta, dtype=np.float64)
        if len(rows) == 0:
            return np.zeros(0)
        from .numpy_kernels import use_numpy
        if not use_numpy(0):          # the kernels unless this solve asked for numpy
            from .kernels import rows_activity
            return rows_activity(self._ptr, self._idx, self._val, eta, np.flatnonzero(eta), rows)
        idx, val, lens = self.gather(rows)
        return np.bincount(np.repeat(np.arange(len(rows)), lens), weights=val * eta[idx], minlength=len(rows))

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries of ``rows``, row after row: (columns, coefficients, row lengths)."""
        rows = np.asarray(rows, dtype=np.int64)
        lens = self._ptr[rows + 1] - self._ptr[rows]
        at = np.repeat(self._ptr[rows] - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
        return self._idx[at], self._val[at], lens


def canonical_row(cols: np.ndarray, coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cols, coef)`` as int64 / float64 arrays with the columns sorted, one entry each."""
    cols = np.asarray(cols, dtype=np.int64)
    coef = np.asarray(coef, dtype=np.float64)
    if len(cols) > 1 and not np.all(cols[1:] > cols[:-1]):
        cols, at = np.unique(cols, return_inverse=True)
        coef = np.bincount(at.ravel(), weights=coef, minlength=len(cols))
    return cols, coef


def _grown(a: np.ndarray, need: int) -> np.ndarray:
    """``a`` copied into an array of at least ``need`` entries (doubling), zeros after."""
    out = np.zeros(max(need, 2 * len(a)), dtype=a.dtype)
    out[:len(a)] = a
    return out
