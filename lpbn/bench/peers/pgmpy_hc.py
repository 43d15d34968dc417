"""pgmpy's hill climbing (``HillClimbSearch`` with its BIC score), as a bench peer.

``python -m lpbn.bench.peers.pgmpy_hc DATA [--max-indegree K]`` learns a DAG from the data
file with pgmpy (what users would otherwise run) and prints its score under lpbn's BIC
(:func:`lpbn.scoring.dag_score.score_dag`, the same formula as pgmpy's ``bic-d``, computed
here so both tools' networks are compared on one scale) as ``BN score is X``, the line
``lpbn bench``'s default ``--external-regex`` reads::

    lpbn bench scale --external "pgmpy-hc=python -m lpbn.bench.peers.pgmpy_hc {data}"

pgmpy is an optional extra (``pip install 'lpbn[pgmpy]'``).  The harness's time limit kills a
run that does not finish (a ``timeout`` row).
"""

from __future__ import annotations

import argparse
import sys
import time


def _hill_climb(df, max_indegree, method="bic-d"):
    """The DAG's edges from pgmpy's hill climbing with ``method`` (``bic-d``; ``bic-g`` and
    ``bic-cg`` for continuous and mixed data: the bnlearn-like greedy peer of the continuous
    suite) (the API of pgmpy >= 1.1, else the older ``pgmpy.estimators`` one)."""
    try:
        from pgmpy.causal_discovery import HillClimbSearch
    except ImportError:
        from pgmpy.estimators import HillClimbSearch
        model = HillClimbSearch(df).estimate(scoring_method=method, max_indegree=max_indegree,
                                             show_progress=False)
        return list(model.edges())
    hc = HillClimbSearch(scoring_method=method, max_indegree=max_indegree, return_type="dag",
                         show_progress=False)
    hc.fit(df)
    return list(hc.causal_graph_.edges())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lpbn.bench.peers.pgmpy_hc")
    p.add_argument("data", help="data file lpbn reads (CSV, .dat)")
    p.add_argument("--max-indegree", type=int, default=None, help="pgmpy's max_indegree (default none)")
    p.add_argument("--score", default="bic", choices=("bic", "bic-g", "bic-cg"),
                   help="BIC (pgmpy's bic-d), or for continuous / mixed data bic-g / bic-cg (pgmpy's own "
                        "scores for the search; the printed score is lpbn's, bnlearn's definition)")
    args = p.parse_args(argv)
    try:
        import pandas as pd
        import pgmpy  # noqa: F401
    except ImportError:
        print("pgmpy_hc: needs pgmpy and pandas (pip install 'lpbn[pgmpy]')", file=sys.stderr)
        return 2
    if args.score != "bic":
        return _continuous(args, pd)
    from lpbn.result import DAG
    from lpbn.scoring import read_data
    from lpbn.scoring.dag_score import score_dag
    ds = read_data(args.data)
    # integer columns would be read as continuous by pgmpy: categories make them discrete
    df = pd.DataFrame({name: pd.Categorical(ds.columns[j]) for j, name in enumerate(ds.names)})
    t0 = time.perf_counter()
    edges = _hill_climb(df, args.max_indegree)
    seconds = time.perf_counter() - t0
    index = {v: j for j, v in enumerate(ds.names)}
    parents = [[] for _ in ds.names]
    for a, b in edges:
        parents[index[str(b)]].append(index[str(a)])
    dag = DAG(ds.names, parents)
    print(f"pgmpy HillClimbSearch: {len(dag.edges)} edges in {seconds:.1f} s")
    print(f"BN score is {score_dag(ds, dag, args.score):.10f}")
    return 0


def _continuous(args, pd) -> int:
    """Hill climbing with pgmpy's bic-g / bic-cg on typed data (continuous columns as floats,
    discrete ones as categories); the DAG is scored with lpbn's (bnlearn's) definition."""
    from lpbn.scoring.continuous import dag_score
    from lpbn.scoring.typed import read_typed
    t = read_typed(args.data, score=args.score)
    df = pd.DataFrame({name: (t.values[:, j] if t.continuous[j] else pd.Categorical(t.codes[j]))
                       for j, name in enumerate(t.names)})
    t0 = time.perf_counter()
    edges = _hill_climb(df, args.max_indegree, args.score)
    seconds = time.perf_counter() - t0
    index = {v: j for j, v in enumerate(t.names)}
    parents = [[] for _ in t.names]
    for a, b in edges:
        parents[index[str(b)]].append(index[str(a)])
    print(f"pgmpy HillClimbSearch ({args.score}): {len(edges)} edges in {seconds:.1f} s")
    print(f"BN score is {dag_score(t, args.score, parents):.10f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
