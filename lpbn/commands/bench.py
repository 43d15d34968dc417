"""``lpbn bench SUITE``: run methods over a benchmark suite, write tables and plots.

Exit codes: 0 all answers check out; 1 a method returned a WRONG answer (or, with
``--strict``, a run crashed, hung, ran out of memory or failed); 2 bad input.
"""

from __future__ import annotations

import shlex
import sys

from ..errors import InputError

HELP = "run methods over a benchmark suite; write results tables and plots"
DESCRIPTION = (
    "Run every (instance, method) of a suite in its own process with a wall-clock and memory "
    "limit, check each answer against the known optimum (1e-6 relative), and write "
    "results.csv, summary.md and plots to DIR/<suite>/<timestamp>/ plus DIR/<suite>/latest/. "
    "SUITE is a name in instances/suites/ (smoke, small, uci-bic3, medium, large) or a .toml "
    "path.  A wrong 'optimal' answer makes the command exit with status 1.")


def add_arguments(p) -> None:
    p.add_argument("suite", metavar="SUITE", nargs="?",
                   help="suite name in instances/suites/ or path to a .toml file")
    p.add_argument("--methods", metavar="M1,M2",
                   help="comma-separated methods (default: the suite's, those available; 'none': only the --external peers, and the data are not scored when no template uses {cache})")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="seconds per run (default: the suite's)")
    p.add_argument("--memory-limit", type=int, metavar="MB",
                   help="address-space limit per run in MB (default: the suite's)")
    p.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="solve R times per run and report the median time (default 1)")
    p.add_argument("--jobs", "-j", type=int, metavar="J",
                   help="runs in parallel (default: the suite's, else 1; timings are cleanest "
                        "with 1)")
    p.add_argument("-o", "--output", default="results", metavar="DIR",
                   help="output root (default ./results)")
    p.add_argument("--external", action="append", default=[], metavar="NAME='CMD {cache}'",
                   help="also time an external solver: a command template with {cache} "
                        "(also {data}, {time_limit}, {memory_limit}, {name}, {n}); repeatable")
    p.add_argument("--external-regex", action="append", default=[], metavar="NAME=REGEX",
                   help="regex whose group 1 is the score in the external's stdout "
                        "(default: GOBNILP's 'BN score is X')")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                   help="module or .py file imported in every run first (it may call "
                        "lpbn.register_method); repeatable")
    p.add_argument("--instances", metavar="A,B", help="run only these instances of the suite")
    p.add_argument("--source", choices=("auto", "data", "cache"), default="auto",
                   help="for entries with data and a cache file: score the data (needs "
                        "lpbn.scoring), use the cache, or auto (data when scoring is available)")
    p.add_argument("--trace-plots", metavar="A,B",
                   help="instances whose bound/incumbent trace is plotted (default: the suite's)")
    p.add_argument("--grace", type=float, metavar="S",
                   help="seconds beyond the time limit before a run is killed as a timeout "
                        "(default 20 + 25%% of the limit)")
    p.add_argument("--tune", action="append", default=[], metavar="NAME=VALUE",
                   help="set a constant of lpbn/tuning.py in every run (warm-up included; "
                        "repeatable; recorded in the results): e.g. --tune AUTO_LIGHT_SECONDS=3.0")
    p.add_argument("--no-warmup", action="store_true",
                   help="skip the untimed warm-up run per method (fills numba's compile cache)")
    p.add_argument("--no-plots", action="store_true", help="write tables only")
    p.add_argument("--strict", action="store_true",
                   help="also exit 1 when a run crashes, times out, runs out of memory or errors")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.add_argument("--list", action="store_true", help="list the bundled suites and exit")
    p.add_argument("--report", metavar="RUN_DIR",
                   help="re-render summary.md and plots of a finished run from its results.json.gz")


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise InputError(f"{flag} expects NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def _csv(text: str | None) -> list[str] | None:
    if text is None:
        return None
    items = [x.strip() for x in text.split(",") if x.strip()]
    return items or None


def command_line(args) -> str:
    """A canonical command that reproduces this run."""
    parts = ["lpbn", "bench", args.suite]
    if args.methods:
        parts += ["--methods", args.methods]
    for flag, val in (("--time-limit", args.time_limit), ("--memory-limit", args.memory_limit),
                      ("--grace", args.grace)):
        if val is not None:
            parts += [flag, f"{val:g}"]
    if args.repeat != 1:
        parts += ["--repeat", str(args.repeat)]
    if args.jobs is not None:
        parts += ["--jobs", str(args.jobs)]
    if args.instances:
        parts += ["--instances", args.instances]
    if args.source != "auto":
        parts += ["--source", args.source]
    for e in args.external:
        parts += ["--external", e]
    for e in args.external_regex:
        parts += ["--external-regex", e]
    for p in args.plugin:
        parts += ["--plugin", p]
    for t in args.tune:
        parts += ["--tune", t]
    if args.no_warmup:
        parts.append("--no-warmup")
    if args.output != "results":
        parts += ["-o", args.output]
    return shlex.join(parts)


def run(args) -> int:
    from ..bench import BenchConfig, list_suites, load_suite, run_suite, write_outputs
    if args.list:
        for name in list_suites():
            s = load_suite(name)
            print(f"{name:<13} {len(s.entries):>4} instances  {s.description}")
        return 0
    if args.report:
        from ..bench.report import rerender
        out = rerender(args.report, plot=not args.no_plots)
        print(f"re-rendered {out / 'summary.md'}")
        return 0
    if not args.suite:
        raise InputError("give a SUITE (see --list)")
    from ..bench.tune import parse_tune
    tune = parse_tune(args.tune)
    suite = load_suite(args.suite)
    config = BenchConfig(
        methods=_csv(args.methods), time_limit=args.time_limit, memory_limit=args.memory_limit,
        repeat=args.repeat, jobs=args.jobs, externals=_pairs(args.external, "--external"),
        external_regex=_pairs(args.external_regex, "--external-regex"), plugins=args.plugin,
        source=args.source, grace=args.grace, warmup=not args.no_warmup,
        instances=_csv(args.instances), trace_plots=_csv(args.trace_plots),
        progress=not args.quiet, command=command_line(args), tune=tune)
    for label, v in (("--time-limit", args.time_limit), ("--memory-limit", args.memory_limit),
                     ("--grace", args.grace), ("--jobs", args.jobs), ("--repeat", args.repeat)):
        if v is not None and not v > 0:
            raise InputError(f"{label} must be positive, got {v:g}")
    bench = run_suite(suite, config)
    out_dir = write_outputs(bench, args.output, plot=not args.no_plots)
    from ..bench.report import solved as done
    solved = sum(1 for r in bench.rows if r["kind"] == "lpbn" and done(r))
    runs = sum(1 for r in bench.rows if r["kind"] == "lpbn" and r["status"] != "absent")
    print(f"{suite.name}: {solved}/{runs} runs proved optimal or completed (score, gap, check) "
          f"in {bench.seconds:.1f}s; "
          f"results in {out_dir} (and {out_dir.parent / 'latest'})")
    status = 0
    if bench.wrong:
        print(f"lpbn bench: {len(bench.wrong)} WRONG result(s):", file=sys.stderr)
        for r in bench.wrong:
            print(f"  WRONG {r['method']} on {r['instance']}: " + "; ".join(r["problems"]),
                  file=sys.stderr)
        status = 1
    if args.strict and bench.failed:
        print(f"lpbn bench: {len(bench.failed)} run(s) failed (--strict):", file=sys.stderr)
        for r in bench.failed:
            print(f"  {r['status']} {r['method']} on {r['instance']}: {r['message']}",
                  file=sys.stderr)
        status = 1
    return status
