"""The score of a given DAG on data: the sum of its families' local scores.

Used to compare networks that did not come from one cache — the true network of synthetic
data, a network from another tool (pgmpy's hill climbing, BLIP) — on the same scale as
lpbn's caches (:mod:`lpbn.scoring.scores`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .counting import family_stats, lg_table, set_codes
from .data import read_data
from .scores import BDEU, LN2, MDL, kind_of, local_score


def family_scores(data: Any, parents: Sequence[Sequence[int]], score: str = "bic", ess: float = 1.0) -> np.ndarray:
    """Local score of every family ``i | parents[i]`` (parents: variable indices), in the
    stored units of :func:`lpbn.score_data` (MDL: BIC / ln 2)."""
    ds = read_data(data)
    if len(parents) != ds.n:
        from ..errors import InputError
        raise InputError(f"{len(parents)} parent sets for {ds.n} variables")
    kind = kind_of(score)
    lgt = lg_table(ds.N)
    ar = ds.arities.astype(np.int64)
    cells = int(max(ds.N, 1) * max(1, int(ar.max())))
    cnt = np.zeros(cells, dtype=np.int32)
    pac = np.zeros(cells, dtype=np.int32)
    mapbuf = np.zeros(min(2 * cells, 1 << 22), dtype=np.int64)
    out = np.empty(ds.n)
    for i, ps in enumerate(parents):
        rx = int(ar[i])
        items = np.array(sorted(int(p) for p in ps), dtype=np.int64)
        codes, _ = set_codes(ds.columns, ar, items, max(1, cells // max(rx, 1)), mapbuf)
        q = float(np.prod(ar[items])) if len(items) else 1.0
        ll, bd, _ = family_stats(codes, ds.columns[i], rx, cnt, pac, lgt, kind == BDEU, ess / q, ess / (q * rx))
        out[i] = local_score(kind, ll, bd, q, rx, ds.N)
    return out / LN2 if kind == MDL else out


def score_dag(data: Any, dag: Any, score: str = "bic", ess: float = 1.0) -> float:
    """Score of ``dag`` (a :class:`lpbn.DAG` whose names are the data's variables, or parents
    per variable as indices) on ``data``."""
    ds = read_data(data)
    parents = dag.parents if hasattr(dag, "parents") else dag
    if hasattr(dag, "names") and tuple(dag.names) != tuple(ds.names):
        idx = {v: k for k, v in enumerate(ds.names)}
        missing = [v for v in dag.names if v not in idx]
        if missing or len(dag.names) != ds.n:
            from ..errors import InputError
            raise InputError(f"the DAG's variables differ from the data's (e.g. {missing[:3]})")
        reordered: list[list[int]] = [[] for _ in range(ds.n)]
        for i, ps in enumerate(dag.parents):
            reordered[idx[dag.names[i]]] = [idx[dag.names[p]] for p in ps]
        parents = reordered
    return float(family_scores(ds, parents, score, ess).sum())
