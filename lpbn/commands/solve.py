"""``lpbn solve FILE``: learn an optimal DAG with any registered method."""

from __future__ import annotations

import json
import math
import sys

from ..errors import InputError
from ..formats import read_scores
from ..solve import _METHODS, solve
from .common import emit

HELP = "learn a maximum-score DAG from a score file"


def add_arguments(p) -> None:
    p.add_argument("file", help="score file (jkl or pss, optionally .gz)")
    p.add_argument("--method", default="auto", choices=["auto", *_METHODS],
                   help="auto = dp for n <= 20, bfbnb for dense caches with n <= 30, dual for "
                        "n <= 100 (at most 500 sets per variable), highs for sparse caches (at most 200 "
                        "sets per variable, 250,000 in all), else asobs: ASOBS beside the dual bound "
                        "(default: auto)")
    p.add_argument("--time-limit", type=float, metavar="S", help="stop after S seconds with the best so far")
    p.add_argument("--gap", type=float, metavar="G", dest="gap_limit",
                   help="stop when the relative gap is <= G")
    p.add_argument("--node-limit", type=int, metavar="N", help="stop after N branch-and-bound nodes")
    p.add_argument("--memory-limit", type=float, metavar="MB",
                   help="memory budget in MiB for methods that use one (dp, bfbnb)")
    p.add_argument("--no-prune", action="store_true",
                   help="do not drop subset-dominated candidates before solving")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="method-specific option (repeatable; VALUE parsed as JSON if possible)")
    p.add_argument("--format", choices=("text", "json", "dot"), default="text")
    p.add_argument("-o", "--output", help="write the result here (atomically) instead of stdout")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", action="store_true", default=None, help="progress lines on stderr")
    g.add_argument("--quiet", action="store_false", dest="progress", help="no progress lines")


def _options(pairs: list[str]) -> dict:
    out = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--option expects KEY=VALUE, got {item!r}")
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            out[key.replace("-", "_")] = value
    return out


def format_text(result) -> str:
    lines = [f"status:       {result.status}",
             f"score:        {result.score:.10g}",
             f"upper bound:  {result.upper_bound:.10g}",
             f"gap:          {result.gap:.3e}" if math.isfinite(result.gap) else "gap:          inf",
             f"method:       {result.method}",
             f"seconds:      {result.seconds:.3f}"]
    if result.message:
        lines.append(f"note:         {result.message}")
    if result.dag is not None:
        lines.append("parents:")
        lines += [f"  {v} <- {', '.join(ps) if ps else '{}'}" for v, ps in result.dag.parent_names().items()]
    return "\n".join(lines) + "\n"


def run(args) -> int:
    cache = read_scores(args.file)
    if not args.no_prune:
        cache = cache.prune_dominated()
    options = _options(args.option)
    if args.memory_limit is not None:
        options["memory_limit"] = int(args.memory_limit * 2**20)
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    result = solve(cache, args.method, time_limit=args.time_limit, gap_limit=args.gap_limit,
                   node_limit=args.node_limit, progress=progress, **options)
    if args.format == "json":
        text = json.dumps(result.to_dict(), indent=1) + "\n"
    elif args.format == "dot":
        if result.dag is None:
            raise InputError(f"no DAG to draw (status {result.status})")
        text = result.dag.to_dot()
    else:
        text = format_text(result)
    emit(text, args.output)
    if result.status != "optimal":
        print(f"lpbn: {result.status}: returning the best DAG found so far (score {result.score:.6f}, "
              f"bound {result.upper_bound:.6f}, gap {result.gap:.3%})", file=sys.stderr)
    return 0
