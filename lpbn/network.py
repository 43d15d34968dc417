"""Discrete Bayesian networks: structure + conditional probability tables, forward sampling.

A :class:`BayesianNetwork` over variables ``0..n-1`` holds, for variable ``i``, its arity
``r_i``, its parents (a sorted tuple of indices, as :attr:`lpbn.result.DAG.parents`) and its
CPT ``cpts[i]``: a float64 array of shape ``(q_i, r_i)``, ``q_i = prod(r_p for p in parents)``,
whose rows sum to 1.  Row ``c`` is the parent configuration with mixed-radix code

    c = ((s_p1 * r_p2 + s_p2) * r_p3 + s_p3) ...      (p1 < p2 < p3, first parent most significant)

the order in which lpbn's counting kernels extend codes (:mod:`lpbn.scoring.counting`).

Sampling is ancestral (forward) sampling in topological order (Koller & Friedman 2009,
*Probabilistic Graphical Models*, §12.1.1): one uniform draw per variable and row, inverted
through the cumulative CPT row; a numba kernel does the per-row work.

JSON form (:meth:`BayesianNetwork.to_dict`, :meth:`BayesianNetwork.save`)::

    {"format": "lpbn-bayesian-network", "version": 1,
     "variables": [{"name": "X0", "arity": 2, "parents": ["X3", "X7"], "cpt": [[0.1, 0.9], ...]},
                   ...]}

Parents are listed by name; their order in the file defines the CPT rows (first parent most
significant), and :meth:`from_dict` permutes the rows when that order is not the index order.
Floats are written with ``repr`` (bit-exact round trip).  A variable may also carry
``"states": ["no", "yes"]``, the names of its states ``0..r-1`` (optional: networks without
state names are written and read as before, and their states are named ``"0".."r-1"``).
"""

from __future__ import annotations

import gzip
import json
import math
import os
from typing import Any, Iterable, Sequence

import numba
import numpy as np

from .atomic import atomic_write
from .errors import InputError
from .result import DAG, smallest_topological_order
from .tuning import SAMPLE_BLOCK as _SAMPLE_BLOCK

FORMAT = "lpbn-bayesian-network"
VERSION = 1

#: Largest accepted total number of CPT cells (float64: 2 GiB).
MAX_CPT_CELLS = 1 << 28

#: Tolerance on CPT row sums (rows are stored as given, not renormalised).
ROW_SUM_TOLERANCE = 1e-6


class NetworkError(InputError):
    """A Bayesian network (arrays, dict or JSON file) is malformed."""


class BayesianNetwork:
    """A discrete Bayesian network: names, arities, sorted parent tuples and CPTs.

    Parameters
    ----------
    names : sequence of str
        Distinct variable names.
    arities : sequence of int
        States per variable (``>= 1``); states are coded ``0..r-1``.
    parents : sequence of sequences of int
        Parent indices per variable.  The order given defines the CPT rows (first parent most
        significant); they are stored sorted, with the CPT rows permuted to match.
    cpts : sequence of array-like
        ``cpts[i]`` of shape ``(q_i, r_i)``, non-negative, rows summing to 1 (within
        :data:`ROW_SUM_TOLERANCE`).
    states : sequence of (sequence of str or None), optional
        Names of the states ``0..r_i-1`` per variable (``r_i`` distinct strings), or None for
        a variable (or the whole network) without names; :meth:`state_names` then gives
        ``"0".."r-1"``.  Kept in :attr:`states` (None when no variable has names).

    Raises :class:`NetworkError` (an :class:`~lpbn.errors.InputError`) on bad shapes,
    out-of-range or repeated parents, non-stochastic rows and directed cycles.  The stored
    arrays are read-only copies.
    """

    def __init__(self, names: Sequence[str], arities: Sequence[int],
                 parents: Sequence[Iterable[int]], cpts: Sequence[Any],
                 states: Sequence[Sequence[str] | None] | None = None):
        self.names: tuple[str, ...] = tuple(str(v) for v in names)
        n = len(self.names)
        if n == 0:
            raise NetworkError("a network needs at least one variable")
        if len(set(self.names)) != n:
            dup = next(v for v in self.names if self.names.count(v) > 1)
            raise NetworkError(f"duplicate variable name {dup!r}")
        self.arities = _check_arities(arities, self.names)
        if len(parents) != n or len(cpts) != n:
            raise NetworkError(f"{n} variables but {len(parents)} parent sets and {len(cpts)} CPTs")
        ps_out: list[tuple[int, ...]] = []
        cpt_out: list[np.ndarray] = []
        total = 0
        for i in range(n):
            ps, cpt = _sorted_family(i, parents[i], cpts[i], self.names, self.arities)
            total += cpt.size
            if total > MAX_CPT_CELLS:
                raise NetworkError(f"the CPTs exceed {MAX_CPT_CELLS} cells (reached at variable "
                                   f"{self.names[i]})")
            ps_out.append(ps)
            cpt_out.append(cpt)
        self.parents: tuple[tuple[int, ...], ...] = tuple(ps_out)
        self.cpts: tuple[np.ndarray, ...] = tuple(cpt_out)
        order = _canonical_order(self.parents)
        if order is None:
            cyc = self.dag.find_cycle() or []
            raise NetworkError("the graph has a directed cycle: "
                               + " -> ".join(self.names[v] for v in cyc + cyc[:1]))
        self._order = order
        self._flat_cache: _Flat | None = None  # CSR form for the kernels, built on first use
        self.states: tuple[tuple[str, ...] | None, ...] | None = _check_states(states, self.names,
                                                                              self.arities)

    # ------------------------------------------------------------------ structure
    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def dag(self) -> DAG:
        """The structure as a :class:`lpbn.result.DAG`."""
        return DAG(self.names, self.parents)

    @property
    def edges(self) -> list[tuple[int, int]]:
        """Edges ``(parent, child)``."""
        return [(p, i) for i, ps in enumerate(self.parents) for p in ps]

    def topological_order(self) -> np.ndarray:
        """The smallest-index-first topological order (parents before children; among the
        variables whose parents are all placed, the smallest index next), int64 array.
        Sampling follows it, so it is part of what makes samples reproducible."""
        return self._order.copy()

    def state_names(self, i: int) -> tuple[str, ...]:
        """Names of the states of variable ``i`` (``"0".."r-1"`` when it has none)."""
        st = None if self.states is None else self.states[i]
        return st if st is not None else tuple(str(k) for k in range(int(self.arities[i])))

    def num_parameters(self) -> int:
        """Free parameters ``sum_i q_i (r_i - 1)`` (the BIC penalty counts these)."""
        return int(sum(c.shape[0] * (c.shape[1] - 1) for c in self.cpts))

    def __repr__(self) -> str:
        return (f"BayesianNetwork(n={self.n}, edges={sum(len(p) for p in self.parents)}, "
                f"parameters={self.num_parameters()})")

    def __eq__(self, other) -> bool:
        return (isinstance(other, BayesianNetwork) and self.names == other.names
                and self.parents == other.parents and np.array_equal(self.arities, other.arities)
                and all(np.array_equal(a, b) for a, b in zip(self.cpts, other.cpts))
                and (self.states == other.states
                     or all(self.state_names(i) == other.state_names(i) for i in range(self.n))))

    __hash__ = None  # mutable-looking arrays inside: not hashable

    # ------------------------------------------------------------------ sampling
    def sample(self, N: int, seed: Any = 0) -> np.ndarray:
        """``N`` rows by forward sampling: int32 array of shape ``(n, N)`` (``Dataset.columns``).

        ``seed`` is anything :func:`numpy.random.default_rng` accepts (an int, a sequence of
        ints, a ``SeedSequence`` or a ``Generator``).  ``N`` uniforms per variable are drawn,
        block by block, in :meth:`topological_order`, so the result depends only on the seed,
        the network and ``N``.
        """
        N = _check_count(N, "N")
        rng = make_rng(seed)
        flat = _flat(self)
        out = np.empty((self.n, N), dtype=np.int32)
        order = self._order
        step = max(1, _SAMPLE_BLOCK // max(N, 1))
        for a in range(0, self.n, step):
            block = order[a:a + step]
            u = rng.random((len(block), N))
            _forward_sample(block, flat.par_ptr, flat.par_idx, flat.arities, flat.cpt_ptr,
                            flat.cum, u, out)
        return out

    def log_likelihood(self, columns: Any) -> float:
        """Natural-log likelihood of complete data ``columns`` (shape ``(n, N)``, or a
        :class:`~lpbn.scoring.data.Dataset` with the same variable names); ``-inf`` when a
        row has probability 0."""
        cols = self._check_columns(columns)
        flat = _flat(self)
        return float(_log_likelihood(cols, flat.par_ptr, flat.par_idx, flat.arities,
                                     flat.cpt_ptr, flat.prob))

    def _check_columns(self, columns: Any) -> np.ndarray:
        names = getattr(columns, "names", None)
        if names is not None and hasattr(columns, "columns"):
            if tuple(names) != self.names:
                raise NetworkError("the dataset's variables differ from the network's (names or order)")
            columns = columns.columns
        cols = np.asarray(columns)
        if cols.ndim != 2 or cols.shape[0] != self.n:
            raise NetworkError(f"columns must have shape (n={self.n}, N), got {cols.shape}")
        if cols.dtype.kind not in "iu":
            raise NetworkError(f"columns must hold integer states, got dtype {cols.dtype}")
        if cols.size:
            lo = cols.min(axis=1)
            hi = cols.max(axis=1)
            bad = np.flatnonzero((lo < 0) | (hi >= self.arities))
            if len(bad):
                j = int(bad[0])
                v = int(lo[j]) if lo[j] < 0 else int(hi[j])
                raise NetworkError(f"state {v} of variable {self.names[j]} is outside 0..{self.arities[j] - 1}")
        return np.ascontiguousarray(cols, dtype=np.int32)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (see the module docstring)."""
        variables = []
        for i in range(self.n):
            v = {"name": self.names[i], "arity": int(self.arities[i]),
                 "parents": [self.names[p] for p in self.parents[i]]}
            if self.states is not None and self.states[i] is not None:
                v["states"] = list(self.states[i])
            v["cpt"] = self.cpts[i].tolist()
            variables.append(v)
        return {"format": FORMAT, "version": VERSION, "variables": variables}

    @classmethod
    def from_dict(cls, d: Any, source: str | None = None) -> "BayesianNetwork":
        """Inverse of :meth:`to_dict`; ``source`` (a file name) prefixes error messages."""
        where = f"{source}: " if source else ""
        if not isinstance(d, dict) or not isinstance(d.get("variables"), list):
            raise NetworkError(f"{where}expected an object with a 'variables' list")
        if d.get("format", FORMAT) != FORMAT:
            raise NetworkError(f"{where}format is {d.get('format')!r}, expected {FORMAT!r}")
        if d.get("version", VERSION) != VERSION:
            raise NetworkError(f"{where}unsupported version {d.get('version')!r} (this lpbn reads {VERSION})")
        vs = d["variables"]
        names, arities, parents, cpts, states = [], [], [], [], []
        for k, v in enumerate(vs):
            if not isinstance(v, dict) or not {"name", "arity", "cpt"} <= set(v):
                raise NetworkError(f"{where}variable #{k + 1}: expected an object with name, arity, "
                                   "parents and cpt")
            names.append(v["name"])
            arities.append(v["arity"])
            cpts.append(v["cpt"])
            states.append(v.get("states"))
        index = {str(name): i for i, name in enumerate(names)}
        for k, v in enumerate(vs):
            ps = v.get("parents", [])
            if not isinstance(ps, list):
                raise NetworkError(f"{where}variable {names[k]}: 'parents' must be a list of names")
            try:
                parents.append([index[str(p)] for p in ps])
            except KeyError as exc:
                raise NetworkError(f"{where}unknown parent {exc.args[0]!r} of variable {names[k]}") from None
        try:
            return cls(names, arities, parents, cpts,
                       states if any(st is not None for st in states) else None)
        except NetworkError as exc:
            raise NetworkError(f"{where}{exc}") from None

    def save(self, path: str | os.PathLike) -> None:
        """Write the JSON form atomically; gzip-compressed (reproducibly: no time stamp) when
        the name ends with ``.gz``."""
        text = json.dumps(self.to_dict(), separators=(",", ":")) + "\n"
        try:
            if str(path).lower().endswith(".gz"):
                data = gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)
                with atomic_write(path, "wb") as fh:
                    fh.write(data)
            else:
                with atomic_write(path) as fh:
                    fh.write(text)
        except OSError as exc:
            raise NetworkError(f"{path}: cannot write: {exc.strerror or exc}") from None

    @classmethod
    def load(cls, path: str | os.PathLike) -> "BayesianNetwork":
        """Read a network written by :meth:`save` (gzip detected from the content)."""
        from .formats.textio import read_text
        src = str(path)
        text = read_text(path, lambda msg, p: NetworkError(f"{p}: {msg}"))
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise NetworkError(f"{src}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        return cls.from_dict(d, source=src)


# ---------------------------------------------------------------------- validation
def make_rng(seed: Any) -> np.random.Generator:
    """:func:`numpy.random.default_rng` with an :class:`~lpbn.errors.InputError` for bad seeds
    (negative integers, floats, ...)."""
    if isinstance(seed, (bool, np.bool_, float)):
        raise InputError(f"seed must be a non-negative integer (or a sequence of them), got {seed!r}")
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise InputError(f"seed must be a non-negative integer (or a sequence of them), "
                         f"got {seed!r}") from None


def _check_count(v: Any, what: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
        raise NetworkError(f"{what} must be a non-negative integer, got {v!r}")
    return int(v)


def _check_arities(arities: Any, names: tuple[str, ...]) -> np.ndarray:
    try:
        a = np.asarray(arities)
    except (TypeError, ValueError):
        raise NetworkError("arities must be a sequence of integers") from None
    if a.ndim != 1 or len(a) != len(names):
        raise NetworkError(f"{len(names)} variables but arities of shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise NetworkError(f"arities must be integers, got {a.tolist()[:5]}")
    a = a.astype(np.int64)
    bad = np.flatnonzero((a < 1) | (a > 2**31 - 1))
    if len(bad):
        raise NetworkError(f"variable {names[bad[0]]}: arity must be >= 1, got {a[bad[0]]}")
    a.setflags(write=False)
    return a


def _check_states(states: Any, names: tuple[str, ...],
                  arities: np.ndarray) -> tuple[tuple[str, ...] | None, ...] | None:
    """Validate optional state names: None, or one entry per variable, each None or ``r_i``
    distinct strings.  Returns None when no variable has names."""
    if states is None:
        return None
    if isinstance(states, (str, bytes)) or not hasattr(states, "__len__") or len(states) != len(names):
        raise NetworkError(f"states: expected one list of state names (or None) per variable "
                           f"({len(names)})")
    out: list[tuple[str, ...] | None] = []
    for i, st in enumerate(states):
        if st is None:
            out.append(None)
            continue
        if isinstance(st, (str, bytes)) or not all(isinstance(x, str) for x in st):
            raise NetworkError(f"variable {names[i]}: states must be a list of strings")
        st = tuple(st)
        if len(st) != int(arities[i]):
            raise NetworkError(f"variable {names[i]}: {len(st)} state names for arity {int(arities[i])}")
        if len(set(st)) != len(st):
            dup = next(x for x in st if st.count(x) > 1)
            raise NetworkError(f"variable {names[i]}: duplicate state name {dup!r}")
        out.append(st)
    return tuple(out) if any(st is not None for st in out) else None


def _sorted_family(i: int, parents: Iterable[int], cpt: Any, names: tuple[str, ...],
                   arities: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
    """Validate variable ``i``'s parents and CPT; return them with the parents sorted."""
    name, n = names[i], len(names)
    try:
        ps = [int(p) for p in parents]
    except (TypeError, ValueError):
        raise NetworkError(f"variable {name}: parents must be integer indices") from None
    for p in ps:
        if not 0 <= p < n:
            raise NetworkError(f"variable {name}: parent index {p} out of range 0..{n - 1}")
        if p == i:
            raise NetworkError(f"variable {name} is its own parent")
    if len(set(ps)) != len(ps):
        raise NetworkError(f"variable {name}: repeated parent")
    r = int(arities[i])
    rp = [int(arities[p]) for p in ps]
    q = math.prod(rp)
    if q * r > MAX_CPT_CELLS:
        raise NetworkError(f"variable {name}: CPT of {q} x {r} cells is too large")
    try:
        a = np.array(cpt, dtype=np.float64)
    except (TypeError, ValueError):
        raise NetworkError(f"variable {name}: CPT must be a table of numbers") from None
    if a.shape != (q, r):
        raise NetworkError(f"variable {name}: CPT has shape {a.shape}, expected ({q}, {r}) "
                           f"(parent configurations x states)")
    if not np.all(np.isfinite(a)) or (a < 0).any():
        raise NetworkError(f"variable {name}: CPT entries must be finite and non-negative")
    sums = a.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if len(bad):
        raise NetworkError(f"variable {name}: CPT row {bad[0]} sums to {sums[bad[0]]!r}, not 1")
    if ps != sorted(ps):  # re-order the parent axes so the first (smallest) is most significant
        perm = sorted(range(len(ps)), key=ps.__getitem__)
        a = a.reshape(*rp, r).transpose(*perm, len(ps)).reshape(q, r)
        ps = [ps[k] for k in perm]
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return tuple(ps), a


def _canonical_order(parents: tuple[tuple[int, ...], ...]) -> np.ndarray | None:
    """The lexicographically smallest topological order (None when there is a cycle): fixed by
    the graph alone, so samples do not change if :class:`DAG` ever prefers another order."""
    order = smallest_topological_order(parents)
    return None if order is None else np.asarray(order, dtype=np.int64)


# ---------------------------------------------------------------------- kernels
class _Flat:
    """The network in CSR arrays for the numba kernels (built once per network, cached)."""

    def __init__(self, net: BayesianNetwork):
        n = net.n
        lens = np.fromiter((len(p) for p in net.parents), dtype=np.int64, count=n)
        self.par_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lens, out=self.par_ptr[1:])
        self.par_idx = np.fromiter((p for ps in net.parents for p in ps), dtype=np.int64,
                                   count=int(self.par_ptr[-1]))
        self.arities = net.arities.astype(np.int64)
        sizes = np.fromiter((c.size for c in net.cpts), dtype=np.int64, count=n)
        self.cpt_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.cpt_ptr[1:])
        self.prob = np.concatenate([c.ravel() for c in net.cpts])
        # cumulative rows, divided by the row total so the last entry is exactly 1
        self.cum = np.concatenate([_cumulative(c).ravel() for c in net.cpts])


def _cumulative(cpt: np.ndarray) -> np.ndarray:
    c = np.cumsum(cpt, axis=1)
    return c / c[:, -1:]


def _flat(net: BayesianNetwork) -> _Flat:
    f = net._flat_cache
    if f is None:
        f = _Flat(net)
        net._flat_cache = f
    return f


@numba.njit(cache=True)
def _forward_sample(block, par_ptr, par_idx, arities, cpt_ptr, cum, u, out):
    """Sample the variables ``block`` (in topological order) for every row: the state is the
    number of ``k < r - 1`` with ``cum[row, k] <= u``, i.e. the first ``k`` with
    ``u < cum[row, k]`` (the last state when none, which guards against rounding)."""
    N = out.shape[1]
    for b in range(block.shape[0]):
        i = block[b]
        r = arities[i]
        base = cpt_ptr[i]
        lo, hi = par_ptr[i], par_ptr[i + 1]
        for s in range(N):
            code = 0
            for j in range(lo, hi):
                p = par_idx[j]
                code = code * arities[p] + out[p, s]
            row = base + code * r
            v = u[b, s]
            k = 0
            for j in range(row, row + r - 1):  # branch-free: cum is non-decreasing
                k += v >= cum[j]
            out[i, s] = k


@numba.njit(cache=True)
def _log_likelihood(cols, par_ptr, par_idx, arities, cpt_ptr, prob):
    n, N = cols.shape
    total = 0.0
    for i in range(n):
        r = arities[i]
        base = cpt_ptr[i]
        lo, hi = par_ptr[i], par_ptr[i + 1]
        for s in range(N):
            code = 0
            for j in range(lo, hi):
                p = par_idx[j]
                code = code * arities[p] + cols[p, s]
            pr = prob[base + code * r + cols[i, s]]
            if pr <= 0.0:
                return -math.inf
            total += math.log(pr)
    return total


__all__ = ["BayesianNetwork", "NetworkError", "FORMAT", "VERSION"]
