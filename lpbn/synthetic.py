"""Random discrete Bayesian networks and forward-sampled data, for benchmarks and tests.

:func:`random_network` draws a DAG with bounded in-degree and Dirichlet CPTs;
:func:`random_dataset` also samples data from it.  Everything is a function of the seed
(numpy's PCG64 ``Generator``): the same seed gives the same network and data on every run
and machine with the same numpy version.  (The bit generator and seeding are fixed forever,
but numpy allows itself to change a distribution's algorithm in a new release, as it once did
for Dirichlet draws with ``alpha < 0.1``.)

The generator:

1. a uniformly random topological order, so the index order ``X0..X{n-1}`` carries no hint
   about the true order;
2. for the variable at position ``k``: in-degree ``d`` uniform in ``0..max_in_degree``,
   capped at ``k``; parents a uniform ``d``-subset of the ``k`` predecessors (Floyd's
   sampling, O(d) per variable: 0.2 s for ``n = 10,000``, validation included);
3. arity uniform among ``arities``; each CPT row from a symmetric Dirichlet(``alpha``).

Why ``alpha = 0.5`` by default: an edge ``P -> X`` can be learned when the data's
conditional mutual information ``I(X; P | other parents of X)`` pays for its BIC penalty.
Large ``alpha`` makes all rows of a CPT alike (weak edges); small ``alpha`` makes rows nearly
deterministic, so some parent configurations are rare and some variables almost constant
(weak edges again).  ``alpha = 0.5`` (Jeffreys' prior for binary rows) gives the strongest
edges in between.  Measured on five 200-variable networks per value (seeds 0-4, in-degree
<= 3, arities 2-3; 1,456 edges): median / 10th-percentile conditional MI in nats, and the
share of edges whose BIC gain given the other true parents is positive at N = 1,000 and
N = 5,000 rows:

=======  ==============  =======  =======
alpha    MI median/p10   N=1000   N=5000
=======  ==============  =======  =======
0.1      0.090 / 0.000   0.65     0.74
0.25     0.170 / 0.013   0.86     0.94
0.5      0.167 / 0.039   0.95     0.98
1.0      0.114 / 0.032   0.95     0.99
2.0      0.070 / 0.022   0.85     0.99
=======  ==============  =======  =======

Arities: :func:`random_dataset` returns a ``Dataset`` whose arities are the network's,
including states that happen never to be sampled.  ``lpbn.scoring.read_data`` of a CSV file
cannot know about unobserved states: it gives arity = number of observed states and recodes
the observed values ``0..k-1``.  A CSV written by ``lpbn sample`` therefore reads back to the
same columns and arities exactly when every state of every variable occurs (the usual case
for thousands of rows; ``lpbn sample`` reports the variables for which it does not); pass
``arities=network.arities`` to ``read_data`` to keep the declared arities in any case.
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import math
import os
from typing import IO, TYPE_CHECKING, Any, Sequence

import numba
import numpy as np

from .atomic import atomic_write
from .errors import InputError
from .network import MAX_CPT_CELLS, BayesianNetwork, make_rng

if TYPE_CHECKING:
    from .cache import ScoreCache

#: Default Dirichlet concentration of the CPT rows (see the module docstring).
DEFAULT_ALPHA = 0.5


def random_network(n: int, *, max_in_degree: int = 3, arities: Sequence[int] = (2, 3),
                   alpha: float = DEFAULT_ALPHA, seed: Any = 0, prefix: str = "X") -> BayesianNetwork:
    """A random discrete Bayesian network with ``n`` variables named ``{prefix}0..{prefix}{n-1}``.

    Parameters
    ----------
    n : int
        Number of variables (``>= 1``).
    max_in_degree : int
        Largest number of parents; each variable's in-degree is uniform in
        ``0..max_in_degree`` (capped by its number of predecessors), mean about half of it.
    arities : sequence of int
        Possible arities (each ``>= 2``), chosen uniformly per variable.
    alpha : float
        Concentration of the symmetric Dirichlet of every CPT row (``> 0``).
    seed :
        Anything :func:`numpy.random.default_rng` accepts.

    Raises :class:`~lpbn.errors.InputError` on bad arguments.
    """
    n = _int_arg(n, "n", 1)
    K = _int_arg(max_in_degree, "max_in_degree", 0)
    ars = _arities_arg(arities)
    alpha = _alpha_arg(alpha)
    rng = make_rng(seed)

    order = rng.permutation(n)                         # order[k] = variable at position k
    arity = ars[rng.integers(0, len(ars), size=n)]     # by variable index
    pos = np.arange(n)
    deg = np.minimum(rng.integers(0, K + 1, size=n), pos)   # by position
    parent_pos = _floyd_subsets(pos, deg, rng)
    parents: list[tuple[int, ...]] = [()] * n
    for k in range(n):
        parents[order[k]] = tuple(sorted(int(order[t]) for t in parent_pos[k]))

    qs = [math.prod(int(arity[p]) for p in ps) for ps in parents]   # Python ints: no overflow
    cells = sum(qi * int(r) for qi, r in zip(qs, arity))
    if cells > MAX_CPT_CELLS:
        raise InputError(f"the CPTs would need {cells} cells (> {MAX_CPT_CELLS}); lower "
                         "max_in_degree or the arities")
    q = np.array(qs, dtype=np.int64)
    # CPT rows, one Dirichlet batch per arity value (in increasing arity, variables by index)
    cpts: list[np.ndarray] = [np.empty(0)] * n
    for r in np.unique(arity):
        members = np.flatnonzero(arity == r)
        rows = rng.dirichlet(np.full(int(r), alpha), size=int(q[members].sum()))
        _fix_rows(rows)
        start = 0
        for i in members:
            cpts[i] = rows[start:start + q[i]]
            start += q[i]
    return BayesianNetwork([f"{prefix}{i}" for i in range(n)], arity, parents, cpts)


def random_dataset(n: int, N: int, *, seed: Any = 0, sample_seed: Any = None,
                   **kw) -> tuple[BayesianNetwork, Any]:
    """``(network, Dataset)``: :func:`random_network` ``(n, seed=seed, **kw)`` and ``N`` rows
    forward-sampled from it.

    The data use ``sample_seed`` (default :func:`sample_seed_for` ``(seed)``, an independent
    stream), so ``random_dataset(n, N, seed=s)[0] == random_network(n, seed=s)``.  The
    Dataset's arities are the network's (see the module docstring about CSV round trips).
    """
    from .scoring.data import Dataset
    net = random_network(n, seed=seed, **kw)
    cols = net.sample(N, seed=sample_seed_for(seed) if sample_seed is None else sample_seed)
    ds = Dataset(net.names, cols, net.arities.astype(np.int64), [None] * net.n,
                 source=f"random_dataset(n={n}, N={N}, seed={seed!r})")
    return net, ds


def sample_seed_for(seed: Any) -> Any:
    """The data seed paired with an integer structure seed: ``[seed, 1]`` (a different
    SeedSequence, hence a stream independent of the network's).  Other seeds (a
    ``SeedSequence`` or ``Generator``) are returned as they are."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return [int(seed), 1]
    return seed


# ---------------------------------------------------------------------- CSV output
def write_csv(path: str | os.PathLike | IO[bytes], names: Sequence[str], columns: Any, *,
              header: bool = True, compresslevel: int = 1) -> int:
    """Write integer data ``columns`` (shape ``(n, N)``, states ``>= 0``) as CSV; returns the
    number of bytes of CSV text.

    ``path`` is a file name (written atomically; gzip-compressed, reproducibly, when it ends
    with ``.gz``) or a binary file object.  A header line of ``names`` comes first unless
    ``header=False``; rows are comma-separated states.  The text is built with numpy when
    every state is a single digit (a numba kernel otherwise), 16 MB at a time.  gzip level 1
    by default: 5x faster than level 6 on such data, for files about a third larger.
    Raises :class:`~lpbn.errors.InputError` on bad arrays and unwritable paths.

    ``read_data`` auto-detects the header only when some name is not a number: with names
    such as ``"0", "1"`` read the file with ``header=True``.
    """
    cols = np.asarray(columns)
    if cols.ndim != 2 or cols.dtype.kind not in "iu":
        raise InputError(f"columns must be a 2-D integer array (variables x rows), got "
                         f"{cols.dtype} of shape {cols.shape}")
    n, N = cols.shape
    names = [str(v) for v in names]
    if len(names) != n:
        raise InputError(f"{len(names)} names for {n} columns")
    if cols.size and cols.min() < 0:
        raise InputError("states must be non-negative")
    top = int(cols.max()) if cols.size else 0
    head = b""
    if header:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(names)
        head = buf.getvalue().encode("utf-8")
    width = len(str(top)) + 1                 # bytes per value, separator included
    step = max(1, (1 << 24) // max(1, n * width))

    def emit(fh) -> int:
        total = len(head)
        fh.write(head)
        for a in range(0, N, step):
            chunk = _csv_bytes(cols[:, a:a + step], top)
            total += len(chunk)
            fh.write(chunk)
        return total

    if hasattr(path, "write"):
        return emit(path)
    try:
        if str(path).lower().endswith(".gz"):
            with atomic_write(path, "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                   compresslevel=compresslevel) as gz:
                    return emit(gz)
        with atomic_write(path, "wb") as fh:
            return emit(fh)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _csv_bytes(block: np.ndarray, top: int) -> memoryview:
    """CSV text of the rows ``block[:, s]`` (``block`` is variables x rows)."""
    n, m = block.shape
    if top < 10:
        out = np.empty((m, 2 * n), dtype=np.uint8)
        out[:, 0::2] = block.T
        out[:, 0::2] += ord("0")
        out[:, 1::2] = ord(",")
        out[:, -1] = ord("\n")
        return memoryview(out.reshape(-1))
    out = np.empty(m * n * (len(str(top)) + 1), dtype=np.uint8)
    used = _format_rows(np.ascontiguousarray(block, dtype=np.int64), out)
    return memoryview(out[:used])


@numba.njit(cache=True)
def _format_rows(block, out):
    n, m = block.shape
    digits = np.empty(20, dtype=np.uint8)
    pos = 0
    for s in range(m):
        for j in range(n):
            v = block[j, s]
            k = 0
            while True:
                digits[k] = 48 + v % 10
                k += 1
                v //= 10
                if v == 0:
                    break
            for t in range(k - 1, -1, -1):
                out[pos] = digits[t]
                pos += 1
            out[pos] = 44 if j < n - 1 else 10
            pos += 1
    return pos


# ---------------------------------------------------------------------- helpers
def _floyd_subsets(pos: np.ndarray, deg: np.ndarray, rng: np.random.Generator) -> list[list[int]]:
    """For each ``k``, a uniform ``deg[k]``-subset of ``0..pos[k]-1`` (Floyd's algorithm;
    Bentley & Floyd 1987, *Programming pearls: a sample of brilliance*, CACM 30(9)).

    The random integers of all steps are drawn in one call: step ``j`` of variable ``k``
    (``j = pos-d .. pos-1``) draws ``t`` uniform in ``0..j``.
    """
    total = int(deg.sum())
    ks = np.repeat(np.arange(len(deg)), deg)
    starts = np.repeat(np.cumsum(deg) - deg, deg)
    js = pos[ks] - deg[ks] + (np.arange(total) - starts)
    ts = rng.integers(0, js + 1) if total else np.empty(0, dtype=np.int64)
    out: list[list[int]] = [[] for _ in range(len(deg))]
    for j, t, k in zip(js.tolist(), ts.tolist(), ks.tolist()):
        chosen = out[k]
        chosen.append(j if t in chosen else t)
    return out


def _fix_rows(rows: np.ndarray) -> None:
    """Guard against rows that are all zero (possible for tiny ``alpha`` when every gamma
    draw underflows): make them uniform."""
    bad = ~(rows.sum(axis=1) > 0.5)
    if bad.any():
        rows[bad] = 1.0 / rows.shape[1]


def _int_arg(v: Any, what: str, lo: int) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < lo:
        raise InputError(f"{what} must be an integer >= {lo}, got {v!r}")
    return int(v)


def _arities_arg(arities: Any) -> np.ndarray:
    try:
        vals = [a for a in arities]
    except TypeError:
        raise InputError(f"arities must be a sequence of integers >= 2, got {arities!r}") from None
    if not vals or any(isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer))
                       or not 2 <= a <= 2**15 for a in vals):
        raise InputError(f"arities must be a non-empty list of integers in 2..32768, got {list(vals)!r}")
    return np.asarray(vals, dtype=np.int64)


def _alpha_arg(alpha: Any) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        a = math.nan
    if isinstance(alpha, bool) or not (math.isfinite(a) and a > 0):
        raise InputError(f"alpha must be a positive number, got {alpha!r}")
    return a


def random_cache(n: int, *, seed: int | np.random.Generator = 0, max_parents: int = 3,
                 density: float = 0.5, integer_scores: bool = False) -> ScoreCache:
    """A random feasible score cache on ``n`` variables (no data behind it).

    Scores are drawn so that bigger parent sets usually score better per family (as real
    BIC/BDeu caches look) while many candidates stay undominated; the empty set is always a
    candidate, so every cache admits a DAG.  Used by property tests and by the warm-up runs
    of ``lpbn bench``.

    ``density`` is the probability that a non-empty parent set of size <= max_parents is a
    candidate.  ``integer_scores`` makes ties (hard cases for tie-breaking) likely.
    """
    from .cache import ScoreCache
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    names = [f"X{i}" for i in range(n)]
    families = []
    for i in range(n):
        others = [v for v in range(n) if v != i]
        base = -rng.uniform(50, 150)
        fam = [(round(base) if integer_scores else base, ())]
        for k in range(1, min(max_parents, n - 1) + 1):
            for ps in itertools.combinations(others, k):
                if rng.random() < density:
                    gain = rng.normal(3.0 * k, 8.0) - 2.0 * k
                    s = base + gain
                    fam.append((float(round(s)) if integer_scores else float(s), ps))
        families.append(fam)
    return ScoreCache.from_families(names, families, meta={"generator": "lpbn.synthetic.random_cache"})


__all__ = ["random_network", "random_dataset", "sample_seed_for", "write_csv", "DEFAULT_ALPHA",
           "random_cache"]
