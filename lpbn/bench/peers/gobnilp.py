"""GOBNILP (Cussens; C on SCIP, the exact ILP peer) on data, as a bench peer: its own scoring
(BGe for continuous data, BDeu or BIC for discrete), its own pruning and its branch and cut.

``python -m lpbn.bench.peers.gobnilp DATA --score bge --max-parents 3 --seconds T`` reads the
data with lpbn (:func:`lpbn.scoring.typed.read_typed`: names and column types), writes them
as GOBNILP reads them (comma-separated with a names row; discrete data also with an arities
row, states 0..r-1), writes a settings file (score type, parent limit, ``limits/time``) and
runs ``gobnilp -f=dat -g=SETTINGS DATA`` (the binary built per ``../shared/anchors/PEERS.md``:
``--binary`` or ``$LPBN_GOBNILP``).  It reads the network GOBNILP prints (``X<-A,B, score``
lines) and SCIP's final bounds, and prints

* ``BN score is X``: the network re-scored by lpbn on the same data (the bench's default
  ``--external-regex``; GOBNILP's own ``BN score is`` line is printed before it);
* ``upper bound: B`` and ``gap: G (over every DAG with at most K parents per variable)``:
  SCIP's dual bound, the lines ``lpbn bench`` puts in the row (GOBNILP prunes only sets that
  cannot be in an optimal DAG, so its bound covers every DAG within its parent limit);
* with ``--truth NET``: ``SHD is N (moral M)`` of GOBNILP's DAG to the true network.

GOBNILP's local scores equal lpbn's to its 8 printed decimals (``results/continuous``), so
its bound and lpbn's score are on one scale.  Exit 2 when the binary is missing or its
network is not a DAG over the data's variables.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

from . import executable, print_truth_distance

SCORE_TYPES = {"bge": "BGe", "bdeu": "BDeu", "bic": "BIC"}
_FAMILY = re.compile(r"^(\S+)<-(\S*)\s+(-?[0-9.eE+-]+)$")
_BOUND = re.compile(r"^Dual Bound\s*:\s*(\S+)", re.MULTILINE)


def write_data(table, path: str) -> None:
    """``table`` as GOBNILP reads it: names row, (discrete) arities row, one row per record."""
    import numpy as np
    with open(path, "w", encoding="ascii") as fh:
        fh.write(",".join(table.names) + "\n")
        if table.kind == "continuous":
            np.savetxt(fh, table.values, fmt="%.17g", delimiter=",")
        else:
            fh.write(",".join(str(int(a)) for a in table.arities) + "\n")
            np.savetxt(fh, np.asarray(table.codes).T, fmt="%d", delimiter=",")


def settings(score: str, max_parents: int | None, seconds: float, continuous: bool) -> str:
    """A GOBNILP settings file for these options."""
    lines = ['gobnilp/delimiter = ","', "gobnilp/scoring/names = TRUE",
             f"gobnilp/scoring/arities = {'FALSE' if continuous else 'TRUE'}",
             f"gobnilp/scoring/continuous = {'TRUE' if continuous else 'FALSE'}",
             f'gobnilp/scoring/score_type = "{SCORE_TYPES[score]}"',
             f"gobnilp/scoring/palim = {-1 if max_parents is None else int(max_parents)}",
             f"limits/time = {float(seconds):g}"]
    return "\n".join(lines) + "\n"


def read_network(stdout: str, names) -> list[tuple[int, ...]] | None:
    """Each variable's parents from GOBNILP's ``X<-A,B, score`` lines (None unless all found)."""
    index = {nm: i for i, nm in enumerate(names)}
    parents: list[tuple[int, ...] | None] = [None] * len(names)
    for line in stdout.splitlines():
        m = _FAMILY.match(line.strip())
        if m and m.group(1) in index:
            ps = [t for t in m.group(2).split(",") if t]
            if any(t not in index for t in ps):
                return None
            parents[index[m.group(1)]] = tuple(sorted(index[t] for t in ps))
    return None if any(p is None for p in parents) else parents      # type: ignore[return-value]


def scip_bound(stdout: str) -> float | None:
    """SCIP's final dual bound (``Dual Bound : X`` of its statistics), or None."""
    found = _BOUND.findall(stdout)
    try:
        return float(found[-1]) if found else None
    except ValueError:
        return None


def _score(table, parents, score: str) -> float:
    """The DAG's score under lpbn's definition of ``score``."""
    if table.kind == "continuous":
        from lpbn.scoring.continuous import dag_score
        return dag_score(table, score, parents)
    from lpbn.result import DAG
    from lpbn.scoring.dag_score import score_dag
    return score_dag(table.discrete_dataset(), DAG(table.names, [list(p) for p in parents]), score)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lpbn.bench.peers.gobnilp")
    p.add_argument("data", help="data file lpbn reads (CSV, .dat)")
    p.add_argument("--score", default="bge", choices=sorted(SCORE_TYPES), help="GOBNILP's score (default bge)")
    p.add_argument("--max-parents", type=int, default=3, help="parent limit (GOBNILP's palim; default 3)")
    p.add_argument("--seconds", type=float, default=600.0, help="SCIP's time limit (default 600)")
    p.add_argument("--binary", default=os.environ.get("LPBN_GOBNILP", "gobnilp"),
                   help="the gobnilp executable (default $LPBN_GOBNILP, else gobnilp on PATH)")
    p.add_argument("--truth", metavar="NET", help="a saved true network (the bench's {truth}): also "
                   "print 'SHD is N (moral M)' of GOBNILP's DAG to it")
    args = p.parse_args(argv)
    binary = executable(args.binary, "gobnilp", "build GOBNILP")
    if binary is None:
        return 2
    from lpbn.scoring.typed import read_typed
    table = read_typed(args.data)
    if table.kind == "mixed" or (table.kind == "continuous") != (args.score == "bge"):
        print(f"gobnilp peer: score {args.score} does not fit {table.kind} data (GOBNILP: BGe for "
              "continuous, BDeu/BIC for discrete)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="lpbn-gobnilp-") as tmp:
        data, conf = os.path.join(tmp, "data.csv"), os.path.join(tmp, "gobnilp.set")
        write_data(table, data)
        with open(conf, "w", encoding="ascii") as fh:
            fh.write(settings(args.score, args.max_parents, args.seconds, table.kind == "continuous"))
        proc = subprocess.run([binary, "-f=dat", f"-g={conf}", data], capture_output=True, text=True, check=False)
    sys.stdout.write(proc.stdout)
    parents = read_network(proc.stdout, table.names)
    if parents is None:
        sys.stderr.write(proc.stderr[-2000:])
        print(f"gobnilp peer: GOBNILP exit {proc.returncode} without a full network", file=sys.stderr)
        return 2
    return _report(table, parents, scip_bound(proc.stdout), args)


def _report(table, parents, bound: float | None, args) -> int:
    from lpbn.result import DAG
    dag = DAG(table.names, [list(p) for p in parents])
    if not dag.is_acyclic():
        print("gobnilp peer: GOBNILP's network has a cycle", file=sys.stderr)
        return 2
    score = _score(table, parents, args.score)
    print(f"BN score is {score:.10f}")
    if bound is not None and math.isfinite(bound):
        scope = "over every DAG with at most {} parents per variable".format(args.max_parents) \
            if args.max_parents >= 0 else "over every DAG"
        print(f"upper bound: {bound:.10f}")
        print(f"gap: {100 * (bound - score) / max(1.0, abs(score)):.6g}% ({scope})")
    if args.truth:
        print_truth_distance(dag, args.truth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
