"""``lpbn sample``: a random Bayesian network (or a saved one) -> forward-sampled CSV data."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InputError

HELP = "sample CSV data from a random (seeded) or saved Bayesian network"
DESCRIPTION = (
    "Draw a random discrete Bayesian network (uniform random topological order, in-degree "
    "uniform in 0..K, parents among the predecessors, Dirichlet(alpha) CPT rows) or load one "
    "saved as JSON, and write N forward-sampled rows as CSV (header of names, states 0..r-1; "
    "gzip when the name ends with .gz).  --seed S fixes the network and the data; the data "
    "use the stream [S, 1] (lpbn.synthetic.sample_seed_for), also with --network, unless "
    "--sample-seed T is given.")


def add_arguments(p) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--variables", type=int, metavar="N",
                     help="number of variables of a random network")
    src.add_argument("--network", metavar="JSON",
                     help="sample from a network saved by --network-out")
    p.add_argument("--rows", type=int, required=True, metavar="M", help="number of data rows")
    p.add_argument("-o", "--output", required=True, help="CSV file to write (.gz: gzip; '-': stdout)")
    p.add_argument("--max-in-degree", type=int, metavar="K", help="largest number of parents (default 3)")
    p.add_argument("--arities", metavar="LIST", help="comma-separated arities to draw from (default 2,3)")
    p.add_argument("--alpha", type=float, metavar="A",
                   help="Dirichlet concentration of the CPT rows (default 0.5)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--sample-seed", type=int, metavar="T",
                   help="seed of the data alone (default: [S, 1], derived from --seed)")
    p.add_argument("--network-out", metavar="JSON", help="save the random network (JSON, .gz: gzip)")
    p.add_argument("--model", choices=("discrete", "linear-gaussian", "conditional-gaussian"), default="discrete",
                   help="kind of random network (default discrete); linear-gaussian: continuous nodes only; "
                        "conditional-gaussian: --discrete-nodes of them discrete (docs/continuous.md)")
    p.add_argument("--discrete-nodes", type=int, metavar="K",
                   help="discrete nodes of a conditional-Gaussian network (default n/4)")
    p.add_argument("--quiet", action="store_true", help="no progress or summary on stderr")


def run(args) -> int:
    import time

    from ..network import BayesianNetwork
    from ..synthetic import sample_seed_for, write_csv

    def say(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    _check_args(args)
    if args.model != "discrete" or (args.network is not None and _is_gaussian(args.network)):
        from .sample_gaussian import run_gaussian
        return run_gaussian(args, say)
    t0 = time.perf_counter()
    if args.network is not None:
        net = BayesianNetwork.load(args.network)
        say(f"network:  {args.network}: {_describe(net)} [{time.perf_counter() - t0:.2f} s]")
    else:
        net, alpha = _random(args)
        say(f"network:  random, {_describe(net)}, alpha {alpha:g}, seed {args.seed} "
            f"[{time.perf_counter() - t0:.2f} s]")
    data_seed = sample_seed_for(args.seed) if args.sample_seed is None else args.sample_seed
    t1 = time.perf_counter()
    cols = net.sample(args.rows, seed=data_seed)
    say(f"sampled:  {args.rows} rows, data seed {data_seed} [{time.perf_counter() - t1:.2f} s]")
    t2 = time.perf_counter()
    if args.output == "-":
        size = write_csv(sys.stdout.buffer, net.names, cols)
        sys.stdout.buffer.flush()
    else:
        size = write_csv(args.output, net.names, cols)
    say(f"wrote:    {args.output}: {net.n} columns x {args.rows} rows, {size / 1e6:.1f} MB of CSV "
        f"[{time.perf_counter() - t2:.2f} s]")
    if args.network_out:
        try:
            net.save(args.network_out)
        except BaseException:  # leave no data without its network behind
            if args.output != "-":
                Path(args.output).unlink(missing_ok=True)
            raise
        say(f"network:  -> {args.network_out}")
    note = _unobserved_note(net, cols)
    if note:
        say(note)
    return 0


def _is_gaussian(path: str) -> bool:
    """Whether a saved network is a linear or conditional Gaussian one (lpbn.gaussian_network)."""
    import gzip
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as fh:
                raw = fh.read(4096)
    except OSError:
        return False
    return b"lpbn-gaussian-network" in raw


def _check_args(args) -> None:
    """Usage errors first, before any work (a 10,000-variable run takes seconds)."""
    if args.rows < 1:
        raise InputError("--rows must be >= 1")
    if args.network is not None:
        given = [o for o, v in (("--max-in-degree", args.max_in_degree), ("--arities", args.arities),
                                ("--alpha", args.alpha), ("--network-out", args.network_out))
                 if v is not None]
        if given:
            raise InputError(f"{given[0]} only applies to a random network (--variables)")
    else:
        if args.variables < 1:
            raise InputError("--variables must be >= 1")
        if args.max_in_degree is not None and args.max_in_degree < 0:
            raise InputError("--max-in-degree must be >= 0")
        if args.arities is not None:
            args.arities = _parse_arities(args.arities)
    for opt, path in (("-o", args.output), ("--network-out", args.network_out)):
        if path not in (None, "-") and not Path(path).resolve().parent.is_dir():
            raise InputError(f"{opt} {path}: no such directory {str(Path(path).parent)!r}")


def _random(args):
    """The random network the arguments ask for, and its alpha."""
    from ..synthetic import DEFAULT_ALPHA, random_network
    alpha = DEFAULT_ALPHA if args.alpha is None else args.alpha
    net = random_network(args.variables,
                         max_in_degree=3 if args.max_in_degree is None else args.max_in_degree,
                         arities=(2, 3) if args.arities is None else args.arities,
                         alpha=alpha, seed=args.seed)
    return net, alpha


def _unobserved_note(net, cols) -> str | None:
    """A warning line when some states never occur (read_data would then see fewer states)."""
    import numpy as np
    seen = np.array([np.count_nonzero(np.bincount(c, minlength=r))
                     for c, r in zip(cols, net.arities)])
    short = np.flatnonzero(seen < net.arities)
    if not len(short):
        return None
    ex = ", ".join(f"{net.names[i]} ({seen[i]} of {net.arities[i]})" for i in short[:3])
    return (f"note:     {len(short)} variables have states that were never sampled (e.g. {ex}); "
            "reading the CSV back gives them fewer states unless read_data(..., arities=network "
            "arities) declares them")


def _describe(net) -> str:
    deg = [len(p) for p in net.parents]
    ar = net.arities
    return (f"{net.n} variables, {sum(deg)} edges, in-degree <= {max(deg)}, "
            f"arities {int(ar.min())}..{int(ar.max())}")


def _parse_arities(text: str) -> tuple[int, ...]:
    try:
        vals = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise InputError(f"--arities: expected comma-separated integers such as 2,3, "
                         f"got {text!r}") from None
    if not vals or any(v < 2 for v in vals):
        raise InputError(f"--arities: every arity must be >= 2, got {text!r}")
    return vals
