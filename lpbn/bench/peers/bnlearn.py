"""R bnlearn's ``hc()`` / ``tabu()`` (score ``"bic"``, no parent limit, defaults otherwise) as a
bench peer: what most people who learn Bayesian networks from data run.

``python -m lpbn.bench.peers.bnlearn DATA [--algorithm hc|tabu]`` reads the data with lpbn
(:func:`lpbn.read_data`), writes them as a CSV of factors (a constant column is dropped: bnlearn
refuses a factor of one level, and the column adds 0 to BIC either way), writes a small R
script and runs it with ``Rscript`` (``R_LIBS`` must point at a library with bnlearn; build
recipe in ``../shared/anchors/PEERS.md``), reads the arcs back and prints the network's score
under lpbn's BIC (:func:`lpbn.scoring.dag_score.score_dag`; equal to bnlearn's own BIC on the
same DAG) as ``BN score is X``, the line ``lpbn bench``'s default ``--external-regex`` reads::

    lpbn bench scale --external "bnlearn-tabu=python -m lpbn.bench.peers.bnlearn {data} --algorithm tabu"

With ``--truth NET`` (the bench's ``{truth}`` on synthetic instances) it also prints
``SHD is N (moral M)``, the structural and moral Hamming distances of bnlearn's DAG to the
true network, which the bench puts in the row's ``truth`` beside lpbn's own.

It also prints bnlearn's own BIC and the seconds of the learning call alone.  Exit 2 when
``Rscript`` or bnlearn is missing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from . import executable, print_truth_distance

R_SCRIPT = """\
suppressMessages(library(bnlearn))
d <- read.csv("{csv}", header = TRUE, colClasses = "character")
d[] <- lapply(d, factor)
t0 <- proc.time()[["elapsed"]]
net <- {algorithm}(d, score = "bic")
el <- proc.time()[["elapsed"]] - t0
a <- arcs(net)
write.csv(a, "{arcs}", row.names = FALSE)
cat(sprintf("bnlearn %s: %d arcs in %.2f s, bnlearn BIC %.6f\\n", "{algorithm}", nrow(a), el,
            score(net, d, type = "bic")))
cat(sprintf("bnlearn version %s\\n", as.character(packageVersion("bnlearn"))))
"""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lpbn.bench.peers.bnlearn")
    p.add_argument("data", help="data file lpbn reads (CSV, .dat)")
    p.add_argument("--algorithm", default="tabu", choices=("hc", "tabu"), help="bnlearn's search (default tabu)")
    p.add_argument("--rscript", default="Rscript", help="the Rscript executable (default: Rscript on PATH)")
    p.add_argument("--truth", metavar="NET", help="a saved true network (lpbn sample --network-out, the "
                   "bench's {truth}): also print 'SHD is N (moral M)' of bnlearn's DAG to it")
    args = p.parse_args(argv)
    rscript = executable(args.rscript, "bnlearn", "install R and bnlearn")
    if rscript is None:
        return 2
    import numpy as np

    from lpbn.result import DAG
    from lpbn.scoring import read_data
    from lpbn.scoring.dag_score import score_dag
    ds = read_data(args.data)
    keep = [j for j in range(ds.n) if int(ds.arities[j]) > 1]
    with tempfile.TemporaryDirectory(prefix="lpbn-bnlearn-") as tmp:
        csv = os.path.join(tmp, "data.csv")
        arcs = os.path.join(tmp, "arcs.csv")
        script = os.path.join(tmp, "learn.R")
        cols = np.asarray(ds.columns)[keep].T
        with open(csv, "w", encoding="utf-8") as fh:
            fh.write(",".join(f"V{j}" for j in keep) + "\n")
            np.savetxt(fh, cols, fmt="%d", delimiter=",")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(R_SCRIPT.format(csv=csv, arcs=arcs, algorithm=args.algorithm))
        proc = subprocess.run([rscript, "--vanilla", script], capture_output=True, text=True, check=False)
        sys.stdout.write(proc.stdout)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            print(f"bnlearn peer: Rscript failed (exit {proc.returncode}); is bnlearn on R_LIBS?", file=sys.stderr)
            return 2
        parents: list[list[int]] = [[] for _ in range(ds.n)]
        with open(arcs, encoding="utf-8") as fh:
            next(fh)
            for line in fh:
                a, b = (int(x.strip().strip('"')[1:]) for x in line.split(","))
                parents[b].append(a)
    dag = DAG(ds.names, parents)
    print(f"BN score is {score_dag(ds, dag, 'bic'):.10f}")
    if args.truth:
        print_truth_distance(dag, args.truth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
