"""Re-derive one constant of lpbn/tuning.py on a whole suite: ``lpbn bench SUITE --methods auto
--tune NAME=V --no-plots`` for each value, R times, the values alternating round by round (the
order rotated each round, so drift of the machine spreads over every value), then a Markdown
table: per value the whole-process geomean of each repeat, their median, its ratio to the current
default's median and the optimal counts; and the spread of the default's repeats, the noise a
difference must clear (docs/engine.md, "Tuning constants and sweeps").

    python tools/sweep.py NAME V1,V2,... --suite SUITE --repeats R -o DIR [--time-limit S]
                          [--jobs J] [--instances A,B] [--dry-run]
    python tools/sweep.py --screen NAME1=V1 NAME2=V2 ... --suite SUITE --repeats R -o DIR [--source cache]

``--screen`` tries one other value for each of several constants against one shared default:
per round the defaults once, then every NAME=V once (the order rotated), and per setting its
ratio to the default of the same round (paired, so a slow spell of the machine cancels).

The current value of NAME joins the sweep if not listed.  A run whose record is already under
DIR is not run again (a sweep can be resumed).  Run on a quiet machine.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lpbn import tuning  # noqa: E402  (this checkout's lpbn)
from lpbn.bench.tune import parse_tune  # noqa: E402
from lpbn.errors import InputError  # noqa: E402


def schedule(values: list[Any], repeats: int) -> list[tuple[int, Any]]:
    """(round, value) in the order to run: every value once per round, the order rotated by one
    each round."""
    out = []
    for r in range(repeats):
        k = r % len(values)
        out += [(r, v) for v in values[k:] + values[:k]]
    return out


def label(value: Any) -> str:
    return re.sub(r"[^\w.=-]+", "_", repr(value)).strip("_")


def run_dir(out: Path, name: str, value: Any, r: int) -> Path:
    return out / f"{name}={label(value)}" / f"round{r + 1}"


def bench_command(name: str | None, value: Any, suite: str, out: Path, extra: list[str]) -> list[str]:
    tune = [] if name is None else ["--tune", f"{name}={value!r}"]
    return [sys.executable, "-m", "lpbn", "bench", suite, "--methods", "auto", *tune,
            "--no-plots", "-q", "-o", str(out), *extra]


def measure(record_dir: Path) -> dict[str, Any]:
    """Whole-process geomean and optimal count of the ``auto`` rows of one bench run."""
    from lpbn.bench.report import load_run, method_table
    run = load_run(record_dir)
    row = next(t for t in method_table(run) if t["method"] == "auto")
    optimal = sum(r["status"] == "optimal" for r in run.rows if r["method"] == "auto")
    return {"geomean": row["geomean_process"], "optimal": optimal, "runs": row["runs"], "wrong": row["wrong"]}


def table(name: str, default: Any, results: dict[Any, list[dict[str, Any]]]) -> str:
    """The Markdown report of a finished sweep (``results``: value -> one measure per repeat)."""
    base = statistics.median(m["geomean"] for m in results[default])
    lines = [f"| {name} | whole-process geomean per repeat (s) | median (s) | ratio to default | optimal |",
             "|---|---|---|---|---|"]
    for value, ms in results.items():
        med = statistics.median(m["geomean"] for m in ms)
        mark = " (default)" if value == default else ""
        optimal = ", ".join(f"{m['optimal']}/{m['runs']}" for m in ms)
        each = ", ".join(f"{m['geomean']:.3f}" for m in ms)
        lines.append(f"| {value!r}{mark} | {each} | {med:.3f} | {med / base:.3f} | {optimal} |")
    g = [m["geomean"] for m in results[default]]
    spread = (max(g) - min(g)) / base if base > 0 else math.nan
    if len(g) < 2:
        lines += ["", "Noise: one repeat of the default, no estimate (use --repeats 3 or more)."]
    else:
        lines += ["", f"Noise: the default's {len(g)} repeats spread {min(g):.3f}-{max(g):.3f} s, "
                  f"{100 * spread:.1f}% of their median; a value whose ratio to the default is within "
                  "that is noise."]
    wrong = sum(m["wrong"] for ms in results.values() for m in ms)
    if wrong:
        lines.append(f"WRONG results in the sweep: {wrong} (see the runs' summary.md)")
    return "\n".join(lines)


def _suite(args) -> str:
    """The suite's name (a bundled name or a .toml path, checked); a path is made absolute in
    ``args.suite``, since the runs start in the checkout's folder."""
    from lpbn.bench import load_suite
    name = load_suite(args.suite).name
    if Path(args.suite).exists():
        args.suite = str(Path(args.suite).resolve())
    return name


def screen_table(results: dict[str, list[dict[str, Any]]]) -> str:
    """The Markdown report of a screen (``results``: "default" or "NAME=V" -> one measure per
    round, in round order)."""
    base = results["default"]
    med0 = statistics.median(m["geomean"] for m in base)
    lines = ["| setting | whole-process geomean per round (s) | paired ratio per round | median ratio | optimal |",
             "|---|---|---|---|---|"]
    for key, ms in results.items():
        ratios = [m["geomean"] / b["geomean"] for m, b in zip(ms, base)]
        each = ", ".join(f"{m['geomean']:.3f}" for m in ms)
        optimal = ", ".join(f"{m['optimal']}/{m['runs']}" for m in ms)
        lines.append(f"| {key} | {each} | {', '.join(f'{x:.3f}' for x in ratios)} | "
                     f"{statistics.median(ratios):.3f} | {optimal} |")
    g = [m["geomean"] for m in base]
    if len(g) > 1:
        lines += ["", f"Noise: the default's {len(g)} rounds spread {min(g):.3f}-{max(g):.3f} s, "
                  f"{100 * (max(g) - min(g)) / med0:.1f}% of their median."]
    return "\n".join(lines)


def screen(args) -> int:
    """``--screen``: one other value per constant against one shared default, rounds alternating."""
    try:
        settings = [(t.split("=", 1)[0], parse_tune([t])[t.split("=", 1)[0]]) for t in args.screen]
        suite_name = _suite(args)
    except (InputError, IndexError) as exc:
        print(f"sweep: {exc}", file=sys.stderr)
        return 2
    runs = [(None, None)] + settings
    out = Path(args.output).resolve()
    results: dict[str, list[dict[str, Any]]] = {}
    for r in range(args.repeats):
        k = r % len(runs)
        for name, value in runs[k:] + runs[:k]:
            key = "default" if name is None else f"{name}={value!r}"
            where = out / ("default" if name is None else f"{name}={label(value)}") / f"round{r + 1}"
            latest = where / suite_name / "latest"
            if not (latest / "results.json.gz").exists():
                print(f"round {r + 1}/{args.repeats}: {key}", file=sys.stderr, flush=True)
                extra = ["--source", args.source] if args.source else []
                subprocess.run(bench_command(name, value, args.suite, where, extra), cwd=ROOT)
            results.setdefault(key, []).append(measure(latest.resolve()))
    results = {"default": results["default"], **{k: v for k, v in results.items() if k != "default"}}
    print(screen_table(results))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--screen":
        q = argparse.ArgumentParser(description="screen several constants against one default")
        q.add_argument("--screen", nargs="+", required=True, metavar="NAME=V")
        q.add_argument("--suite", required=True)
        q.add_argument("--repeats", type=int, default=3)
        q.add_argument("-o", "--output", required=True, metavar="DIR")
        q.add_argument("--source", choices=("auto", "data", "cache"), help="as lpbn bench --source")
        return screen(q.parse_args(argv))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("name", metavar="NAME")
    p.add_argument("values", metavar="V1,V2,...")
    p.add_argument("--suite", required=True)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.add_argument("--time-limit", metavar="S")
    p.add_argument("--jobs", "-j", metavar="J")
    p.add_argument("--instances", metavar="A,B")
    p.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = p.parse_args(argv)
    try:
        if args.repeats < 1:
            raise InputError(f"--repeats must be positive, got {args.repeats}")
        # values separated by commas outside parentheses (a tuple constant's value has commas)
        texts = [t.strip() for t in re.split(r",(?![^(]*\))", args.values) if t.strip()]
        values = [parse_tune([f"{args.name}={t}"])[args.name] for t in texts]
        suite_name = _suite(args)
    except InputError as exc:
        print(f"sweep: {exc}", file=sys.stderr)
        return 2
    default = getattr(tuning, args.name)
    values = ([default] if default not in values else []) + list(dict.fromkeys(values))
    extra = [x for flag, v in (("--time-limit", args.time_limit), ("--jobs", args.jobs),
                               ("--instances", args.instances)) if v for x in (flag, v)]
    out = Path(args.output).resolve()
    results: dict[Any, list[dict[str, Any]]] = {v: [] for v in values}
    for r, value in schedule(values, args.repeats):
        where = run_dir(out, args.name, value, r)
        cmd = bench_command(args.name, value, args.suite, where, extra)
        latest = where / suite_name / "latest"
        if args.dry_run:
            print(" ".join(cmd))
            continue
        if not (latest / "results.json.gz").exists():
            print(f"round {r + 1}/{args.repeats}: {args.name}={value!r}", file=sys.stderr, flush=True)
            rc = subprocess.run(cmd, cwd=ROOT).returncode
            if rc not in (0, 1):  # 1: a WRONG result, reported in the table
                print(f"sweep: lpbn bench exited {rc}: {' '.join(cmd)}", file=sys.stderr)
                return rc
        results[value].append(measure(latest.resolve()))
    if not args.dry_run:
        print(table(args.name, default, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
