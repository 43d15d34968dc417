"""``lpbn sample`` for linear-Gaussian and conditional-Gaussian networks (random or saved): the
continuous branch of :mod:`lpbn.commands.sample`."""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import InputError


def run_gaussian(args, say) -> int:
    from ..gaussian_network import GaussianNetwork, random_gaussian_network
    from ..synthetic import sample_seed_for

    t0 = time.perf_counter()
    if args.network is not None:
        net = GaussianNetwork.load(args.network)
        say(f"network:  {args.network}: {_describe(net)}")
    else:
        if args.arities is not None or args.alpha is not None:
            raise InputError("--arities and --alpha apply to discrete networks (--model discrete)")
        k = 0
        if args.model == "conditional-gaussian":
            k = args.variables // 4 if args.discrete_nodes is None else args.discrete_nodes
        elif args.discrete_nodes is not None:
            raise InputError("--discrete-nodes applies to --model conditional-gaussian")
        if not 0 <= k <= args.variables:
            raise InputError("--discrete-nodes must be between 0 and --variables")
        net = random_gaussian_network(args.variables, max_in_degree=3 if args.max_in_degree is None
                                      else args.max_in_degree, discrete=k, seed=args.seed)
        say(f"network:  random {args.model}, {_describe(net)}, seed {args.seed} [{time.perf_counter() - t0:.2f} s]")
    data_seed = sample_seed_for(args.seed) if args.sample_seed is None else args.sample_seed
    rows = net.sample(args.rows, seed=data_seed)
    if args.output == "-":
        raise InputError("continuous samples are written to a file (-o FILE)")
    net.write_csv(args.output, rows)
    say(f"wrote:    {args.output}: {net.n} columns x {args.rows} rows, data seed {data_seed}")
    if args.network_out:
        try:
            net.save(args.network_out)
        except BaseException:
            Path(args.output).unlink(missing_ok=True)
            raise
        say(f"network:  -> {args.network_out}")
    return 0


def _describe(net) -> str:
    deg = [len(p) for p in net.parents]
    k = int((~net.continuous).sum())
    return f"{net.n} variables ({k} discrete), {sum(deg)} edges, in-degree <= {max(deg)}"
