"""Conditional probability tables for a DAG from complete discrete data.

:func:`fit_network` turns a structure (a :class:`~lpbn.result.DAG` or a solve result) and a
data set into a :class:`~lpbn.network.BayesianNetwork`:

* maximum likelihood (default): ``P(X = k | Pa = j) = N_jk / N_j``, the observed frequencies.
  A parent configuration never seen in the data (``N_j = 0``) has no maximum-likelihood
  estimate; its row is **uniform** (``1 / r``), so that the network is a proper distribution.
* ``ess=a``: the BDeu posterior mean, a Dirichlet prior of ``a / (q r)`` pseudo-counts per cell
  (Heckerman et al. 1995): ``P(X = k | Pa = j) = (N_jk + a/(q r)) / (N_j + a/q)``.  Unseen
  configurations are uniform here by construction.

Counting is vectorised: one :func:`numpy.bincount` per variable over the mixed-radix index
``code(parents) * r + state`` of every row, with the parent code built as in
:mod:`lpbn.network` (parents in index order, first parent most significant).

State names come from the data set's labels (:attr:`lpbn.scoring.data.Dataset.labels`): the
fitted network names its states as the data do (``"0".."r-1"`` for integer-coded data with
declared arities, such as GOBNILP ``.dat`` files).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import InputError
from .network import MAX_CPT_CELLS, BayesianNetwork
from .result import DAG

__all__ = ["fit_network", "count_family", "state_labels"]


def fit_network(dag: Any, data: Any, *, ess: float | None = None) -> BayesianNetwork:
    """Fit the CPTs of ``dag`` to ``data``.

    Parameters
    ----------
    dag : DAG, SolveResult (its ``.dag``) or BayesianNetwork (its structure)
        Variables are matched to the data's columns by name (any order; a DAG over a subset of
        the columns is fine).
    data : Dataset, path (CSV / ``.dat``), numpy array or pandas DataFrame
        Read with :func:`lpbn.read_data` unless it already is a Dataset.
    ess : float, optional
        None (default): maximum-likelihood CPTs, uniform rows for parent configurations that
        never occur in the data.  A positive number: the BDeu posterior mean with equivalent
        sample size ``ess``.

    Returns
    -------
    BayesianNetwork
        Over ``dag.names`` in that order, with the data's arities and state names.
    """
    from .scoring.data import read_data
    dag = _as_dag(dag)
    if ess is not None:
        try:
            ok = float(ess) > 0 and math.isfinite(float(ess))
        except (TypeError, ValueError):
            ok = False
        if isinstance(ess, bool) or not ok:
            raise InputError(f"ess must be a positive number (or None for maximum likelihood), got {ess!r}")
        ess = float(ess)
    ds = read_data(data)
    if ds.N == 0:
        raise InputError("empty data")
    index = {v: j for j, v in enumerate(ds.names)}
    missing = [v for v in dag.names if v not in index]
    if missing:
        raise InputError(f"variable {missing[0]!r} of the DAG is not a column of the data"
                         + (f" ({len(missing)} such variables)" if len(missing) > 1 else ""))
    cols = [index[v] for v in dag.names]
    arities = [int(ds.arities[j]) for j in cols]
    cpts = []
    for i, ps in enumerate(dag.parents):
        counts = count_family(ds, cols[i], [cols[p] for p in ps])
        cpts.append(_estimate(counts, ess))
    labels = ds.labels if ds.labels else [None] * ds.n
    states = [state_labels(labels[j], int(ds.arities[j])) for j in cols]
    return BayesianNetwork(dag.names, arities, dag.parents, cpts, states)


def count_family(ds: Any, child: int, parents: list[int]) -> np.ndarray:
    """Counts ``N_jk`` of a family as an int64 array of shape ``(q, r)``: row ``j`` is the
    parent configuration with mixed-radix code ``j`` (first parent most significant),
    column ``k`` the child's state.  ``child`` and ``parents`` index ``ds.columns``."""
    r = int(ds.arities[child])
    q = math.prod(int(ds.arities[p]) for p in parents)
    if q * r > MAX_CPT_CELLS:
        raise InputError(f"variable {ds.names[child]}: a CPT of {q} x {r} cells is too large "
                         f"(at most {MAX_CPT_CELLS})")
    cols = ds.columns
    idx = np.zeros(cols.shape[1], dtype=np.int64)
    for p in parents:
        idx *= int(ds.arities[p])
        idx += cols[p]
    idx *= r
    idx += cols[child]
    return np.bincount(idx, minlength=q * r).reshape(q, r)


def _estimate(counts: np.ndarray, ess: float | None) -> np.ndarray:
    q, r = counts.shape
    c = counts.astype(np.float64)
    if ess is not None:
        c += ess / (q * r)
        return c / c.sum(axis=1, keepdims=True)
    tot = c.sum(axis=1, keepdims=True)
    seen = tot[:, 0] > 0
    out = np.full((q, r), 1.0 / r)
    out[seen] = c[seen] / tot[seen]
    return out


def state_labels(labels: list[str] | None, arity: int) -> list[str]:
    """State names of one variable from a Dataset's labels: the labels themselves; ``"0".."r-1"``
    when there are none (integer states kept as indices); and for states beyond the observed
    labels (a declared arity larger than the number of labels), the state index, made distinct
    from the labels by appending ``_`` if needed."""
    if labels is None:
        return [str(k) for k in range(arity)]
    out = [str(x) for x in labels[:arity]]
    seen = set(out)
    for k in range(len(out), arity):
        name = str(k)
        while name in seen:
            name += "_"
        seen.add(name)
        out.append(name)
    return out


def _as_dag(obj: Any) -> DAG:
    if isinstance(obj, DAG):
        return obj
    if isinstance(obj, BayesianNetwork):
        return obj.dag
    if hasattr(obj, "dag") and hasattr(obj, "status"):   # a SolveResult / LearnResult
        if obj.dag is None:
            raise InputError(f"the result has no DAG to fit (status {obj.status})")
        return obj.dag
    raise InputError(f"expected a DAG, a solve result or a BayesianNetwork, got {type(obj).__name__}")
