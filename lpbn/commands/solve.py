"""``lpbn solve FILE``: learn an optimal DAG with any registered method."""

from __future__ import annotations

import json
import math
import signal
import sys
import time

from ..errors import InputError
from ..options import SHARED
from ..formats import read_scores
from ..signals import Interrupted
from ..constraints import add_arguments as add_constraint_arguments, from_args as constraints_from_args
from ..solve import registered_methods, solve
from .common import emit

HELP = "learn a maximum-score DAG from a score file"


def add_arguments(p) -> None:
    p.add_argument("file", nargs="?", help="score file (jkl or pss, optionally .gz)")
    p.add_argument("--method", default="auto", choices=["auto", *registered_methods()],
                   help="auto = dp for n <= 20, bfbnb for dense caches with n <= 30, dual for "
                        "n <= 100 (at most 500 sets per variable), highs for sparse caches (at most 200 "
                        "sets per variable, 250,000 in all; from 300 variables beside asobs), else asobs: "
                        "ASOBS beside an LP bound "
                        "(default: auto)")
    p.add_argument("--time-limit", type=float, metavar="S", help="stop after S seconds with the best so far")
    p.add_argument("--gap", type=float, metavar="G", dest="gap_limit",
                   help="stop when the relative gap is <= G")
    p.add_argument("--node-limit", type=int, metavar="N", help="stop after N branch-and-bound nodes")
    p.add_argument("--memory-limit", type=float, metavar="MB",
                   help="memory budget in MiB for methods that use one (dp, bfbnb)")
    p.add_argument("--no-prune", action="store_true",
                   help="do not drop subset-dominated candidates before solving (with constraints they "
                        "are dropped after the constraints are applied, which is exact)")
    p.add_argument("--k-best", type=int, metavar="K",
                   help="the K best DAGs, best first, with ties and a proof (no subset-dominance pruning; "
                        "see 'The k best networks' in README)")
    p.add_argument("--classes", action="store_true",
                   help="with --k-best: the K best Markov equivalence classes (BIC, MDL, BDeu)")
    p.add_argument("--engine", choices=("auto", "bnb", "ilp"), default="auto",
                   help="k-best engine: bnb (BN-graph branch and bound with DP bounds) or ilp (HiGHS, "
                        "no-good rows); default auto")
    add_constraint_arguments(p)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="method-specific option (repeatable; VALUE parsed as JSON if possible; "
                        "--help-options lists them)")
    p.add_argument("--help-options", action="store_true",
                   help="list the options of --method (or, with --k-best, of the k-best engines) with "
                        "their types, defaults and docs, and exit (no FILE needed)")
    p.add_argument("--format", choices=("text", "json", "dot", "bif"), default="text",
                   help="text, json, dot, or bif: the network with CPTs fitted to --data (as lpbn learn)")
    p.add_argument("--data", metavar="FILE",
                   help="with --format bif: the data the cache was scored from (CSV or .dat), to fit the CPTs")
    p.add_argument("--fit-ess", type=float, metavar="A",
                   help="with --format bif: BDeu posterior-mean CPTs with equivalent sample size A "
                        "(default: maximum likelihood)")
    p.add_argument("-o", "--output", help="write the result here (atomically) instead of stdout")
    p.add_argument("--certificate", metavar="FILE",
                   help="write what proves the upper bound (JSON, gzip if FILE ends in .gz), for `lpbn "
                        "verify FILE RESULT CERT`: dual and highs record theirs (pulp-cbc its LP tree), every "
                        "other method's answer is certified afterwards by the dual's branch and bound seeded "
                        "with it (an unfinished tree on <= 28 variables: an exhaustive check); with --k-best, "
                        "that no DAG outside the list scores above its last")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", action="store_true", default=None, help="progress lines on stderr")
    g.add_argument("--quiet", action="store_false", dest="progress", help="no progress lines")


def _options(pairs: list[str]) -> dict:
    out = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--option expects KEY=VALUE, got {item!r}")
        key = key.replace("-", "_")
        if key in SHARED or key == "memory_limit":
            raise InputError(f"--option {key}: use --{key.replace('_', '-')} instead")
        try:
            out[key] = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            out[key] = value
    return out


def _remaining(limit: float | None) -> float | None:
    """What is left of ``--time-limit`` after reading and pruning (it counts from the start
    of the command, :data:`lpbn.cli.STARTED`)."""
    if limit is None:
        return None
    if not limit >= 0:
        raise InputError(f"--time-limit must be a non-negative number of seconds, got {limit}")
    from ..cli import STARTED
    return max(0.0, limit - (time.perf_counter() - STARTED))


def format_text(result) -> str:
    from ..scope import scope_text
    lines = [f"status:       {result.status}",
             f"score:        {result.score:.10g}",
             f"upper bound:  {result.upper_bound:.10g}",
             (f"gap:          {result.gap:.3e}" if math.isfinite(result.gap) else "gap:          inf")
             + f" ({scope_text(result.bound_scope)})",
             f"method:       {result.method}",
             f"seconds:      {result.seconds:.3f}"]
    if result.message:
        lines.append(f"note:         {result.message}")
    if result.dag is not None:
        lines.append("parents:")
        lines += [f"  {v} <- {', '.join(ps) if ps else '{}'}" for v, ps in result.dag.parent_names().items()]
    return "\n".join(lines) + "\n"


def format_kbest(result) -> str:
    """Text for ``--k-best``: the proof, ranks and scores, then the posterior summaries."""
    lines = [f"status:       {result.status}",
             f"note:         {result.message}",
             f"method:       {result.method}",
             f"seconds:      {result.seconds:.3f}",
             "rank  score              weight     parents"]
    for s in result.solutions or []:
        ps = "; ".join(f"{v} <- {','.join(p)}" for v, p in s["parents"].items() if p) or "(no arcs)"
        w = s.get("weight")
        lines.append(f"{s['rank']:>4}  {s['score']:<17.10g}  {w if w is None else format(w, '.3e'):<9}  {ps}")
        if "cpdag" in s:
            d = ", ".join(f"{a}->{b}" for a, b in s["cpdag"]["directed"])
            u = ", ".join(f"{a}-{b}" for a, b in s["cpdag"]["undirected"])
            lines.append(f"      cpdag: {d or '-'} | {u or '-'}  (members found {s['members_found']}, "
                         f"class size {s['class_size'] if s['class_size'] is not None else '?'})")
    text = "\n".join(lines) + "\n"
    if result.posterior is not None:
        from ..kbest.posterior import format_posterior
        text += format_posterior(result.posterior)
    return text


def _method_options(args) -> tuple[dict, bool]:
    """``--option`` pairs plus ``--memory-limit`` (MiB -> bytes), and whether to show progress."""
    options = _options(args.option)
    if args.memory_limit is not None:
        if not (args.memory_limit > 0 and math.isfinite(args.memory_limit)):
            raise InputError(f"--memory-limit must be a positive number of MiB, got {args.memory_limit}")
        options["memory_limit"] = int(args.memory_limit * 2**20)
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    return options, progress


def _run_kbest(args, cache) -> int:
    if args.k_best is None:
        raise InputError("--classes needs --k-best K")
    if args.method != "auto":
        raise InputError("--k-best picks its engine with --engine (bnb, ilp), not --method")
    constraints = constraints_from_args(args)
    if constraints is not None:
        raise InputError("--k-best does not take structural constraints yet; apply them with lpbn score")
    options, progress = _method_options(args)
    # no subset-dominance pruning: a dominated parent set can be in the second best DAG
    result = solve(cache, k_best=args.k_best, classes=args.classes, engine=args.engine,
                   time_limit=_remaining(args.time_limit), gap_limit=args.gap_limit, node_limit=args.node_limit,
                   progress=progress, **options)
    if args.format == "json":
        from ..kbest.api import to_json
        text = to_json(result)
    elif args.format == "dot":
        if result.dag is None:
            raise InputError(f"no DAG to draw (status {result.status})")
        text = result.dag.to_dot()
    else:
        text = format_kbest(result)
    emit(text, args.output)
    if getattr(args, "certificate", None):
        _kbest_certificate(args, cache, result)
    by = result.stats.get("interrupted_by")
    if by:
        raise Interrupted(signal.Signals[by], f"interrupted by {by}: {result.message}")
    if result.status != "optimal":
        print(f"lpbn: {result.status}: {result.message}", file=sys.stderr)
    return 0


def _kbest_certificate(args, cache, result) -> None:
    """``--k-best K --certificate FILE``: the proof that no DAG outside the list scores above
    its K-th (:mod:`lpbn.kbest.certify`), written when the list is proven; an unproven list
    has nothing to certify (said on stderr, no file)."""
    if result.status != "optimal" or result.stats.get("interrupted_by"):
        print(f"lpbn: no certificate written: the list is not proven ({result.status})", file=sys.stderr)
        return
    from ..certificate import write_certificate
    from ..kbest.certify import kbest_certificate
    kbest_certificate(cache, result, time_limit=_remaining(args.time_limit))
    write_certificate(args.certificate, cache, result)


def _help_options(args) -> int:
    """``--help-options``: :func:`lpbn.show_options` for ``--method`` (every method for
    ``auto``, which forwards its options to the method it picks; k-best's with ``--k-best``)."""
    from ..solve import show_options
    if args.k_best is not None or args.classes:
        text = show_options("k_best", disp=False)
    elif args.method == "auto":
        text = ("auto picks one of these methods per cache and passes --option to it "
                "(name the method with --method to choose):\n\n" + show_options(disp=False))
    else:
        text = show_options(args.method, disp=False)
    emit(text, args.output)
    return 0


def run(args) -> int:
    if args.help_options:
        return _help_options(args)
    if args.file is None:
        raise InputError("lpbn solve needs a score FILE (jkl or pss)")
    if args.format == "bif" and not args.data:
        raise InputError("--format bif needs --data FILE (the data the cache was scored from) to fit the "
                         "CPTs; or use lpbn learn DATA -o net.bif")
    if args.data and args.format != "bif":
        raise InputError("--data is used with --format bif only")
    cache = read_scores(args.file)
    if getattr(args, "certificate", None) and args.classes:
        raise InputError("--certificate with --k-best covers lists of DAGs, not of equivalence classes (--classes)")
    if args.k_best is not None or args.classes:
        return _run_kbest(args, cache)
    original = cache        # a certificate names the cache as the user has it
    constraints = constraints_from_args(args)
    if constraints is not None:
        constraints.check_names(cache.names)     # unknown names: exit 2 before any work
    elif not args.no_prune:                  # (constrained: pruned after the constraints)
        cache = cache.prune_dominated()
    options, progress = _method_options(args)
    after = False                            # certified after the solve (lpbn.certificate.certify_after)
    if getattr(args, "certificate", None):
        from ..certificate import CERTIFYING_METHODS, certify_options
        if constraints is not None:
            raise InputError("--certificate: certificates of constrained solves are not supported")
        if args.method in CERTIFYING_METHODS:
            options.update(certify_options(args.method))
        else:
            after = True
    result = solve(cache, args.method, time_limit=_remaining(args.time_limit), gap_limit=args.gap_limit,
                   node_limit=args.node_limit, progress=progress, constraints=constraints, **options)
    if after:
        from ..certificate import certify_after
        certify_after(cache, result, time_limit=_remaining(args.time_limit))
    elif getattr(args, "certificate", None):
        from ..certificate import exhaustive_if_unfinished
        exhaustive_if_unfinished(cache, result)
    if args.format == "json":
        text = json.dumps(result.to_dict(), indent=1) + "\n"
    elif args.format == "dot":
        if result.dag is None:
            raise InputError(f"no DAG to draw (status {result.status})")
        text = result.dag.to_dot()
    elif args.format == "bif":
        text = _bif(result, args)
    else:
        text = format_text(result)
    emit(text, args.output)
    if getattr(args, "certificate", None):
        from ..certificate import write_certificate
        write_certificate(args.certificate, original, result)
    from ..scope import scope_text
    note = (f"returning the best DAG found so far (score {result.score:.6f}, "
            f"bound {result.upper_bound:.6f}, gap {result.gap:.3%} {scope_text(result.bound_scope)})")
    by = result.stats.get("interrupted_by")
    if by:   # SIGINT/SIGTERM stopped the solve: the result is written, the CLI exits 130/143
        raise Interrupted(signal.Signals[by], f"interrupted by {by}: {note}" if result.status != "optimal"
                          else f"interrupted by {by} after the solve had finished (optimal)")
    if result.status == "infeasible":
        print(f"lpbn: infeasible: {result.message or 'no DAG'}", file=sys.stderr)
    elif result.status != "optimal":
        print(f"lpbn: {result.status}: {note}", file=sys.stderr)
    return 0


def _bif(result, args) -> str:
    """The DAG with CPTs fitted to ``--data`` (maximum likelihood or ``--fit-ess``), as BIF."""
    from ..fit import fit_network
    from ..formats.bif import write_bif
    if result.dag is None:
        raise InputError(f"no DAG to write (status {result.status})")
    return write_bif(fit_network(result.dag, args.data, ess=args.fit_ess), None)
