"""Run a suite: every (instance, method) in its own process with wall-clock and memory limits.

Stages: (1) instances given as data are scored once each (``lpbn.score_data`` in a worker
process) into a temporary cache; (2) optionally each method is warmed up on a tiny random
cache, so numba's on-disk compile cache is filled before anything is timed; (3) the runs,
``jobs`` at a time; (4) external peer commands on the same cache files.  A crash, hang or
memory blow-up becomes a row with status ``crash``/``timeout``/``memout``; every answer is
checked (:mod:`lpbn.bench.checks`).

Besides the solving methods (and ``auto``, the portfolio ``lpbn solve`` runs by default) a
suite may list three bench methods that are not solvers (:data:`TOOLS`):

``score``
    times ``lpbn.score_data`` on the entry's data in a fresh process (whole process, reading,
    every repeat) and compares the cache with the entry's ``file`` (e.g. GOBNILP's cache of
    the same data): a differing local score or an unsafely pruned set is a WRONG row;
``gap``
    ``lpbn gap``: the bounds of the cycle LP, the dual's clusters, exact cluster separation and
    the best integral score; each bound must cover the known optimum;
``check``
    ``lpbn check``: LP duality (dual vs HiGHS over the same clusters) and agreement of the exact
    methods; a disagreement is a WRONG row.

Every instance's rows are also checked against each other (:func:`lpbn.bench.checks.cross_check`):
two proven optima must agree and no bound may fall below another method's proven optimum.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib.util
import math
import re
import shlex
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError
from ..result import relative_gap
from ..solve import available_methods
from . import checks
from .provenance import machine_line
from .procs import Canceller, ProcOutcome, classify_failure, run_worker
from .progress import Progress
from .suite import KBEST_HEADROOM_MB, Entry, Suite, kbest_of
from .worker import load_plugins

#: default order in which methods are listed
KNOWN_METHODS = ("auto", "dp", "bfbnb", "dual", "highs", "pulp-cbc", "brute")

#: bench methods that are not solvers (see the module docstring)
TOOLS = ("score", "gap", "check")

#: hard timeout of a ``gap``/``check`` run in units of the time limit (several stages each)
TOOL_STAGES = {"gap": 4, "check": 6, "score": 1}

#: score printed by GOBNILP ("BN score is -1258.445909"); the default for --external
DEFAULT_EXTERNAL_REGEX = r"BN score is\s+(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)"

#: an external peer's distance to the true network ({truth}), e.g. lpbn.bench.peers.bnlearn --truth
SHD_LINE = r"^SHD is (\d+) \(moral (\d+)\)"

#: an external peer's proven bound and its scope (``lpbn learn --format text``'s lines)
BOUND_LINE = r"^upper bound:\s+(\S+)"
SCOPE_LINE = r"^gap:\s+\S+ \((.+)\)\s*$"

CSV_COLUMNS = ("suite", "instance", "method", "solver", "kind", "status", "check", "n", "m", "score",
               "upper_bound", "gap", "optimum", "optimum_source", "seconds", "seconds_all",
               "process_seconds", "read_seconds", "score_seconds", "peak_rss_mb", "score_peak_rss_mb",
               "time_limit", "memory_limit_mb", "source", "message", "stats", "explore", "truth")


@dataclass
class BenchConfig:
    """Options of one ``lpbn bench`` invocation (None: the suite's default)."""

    methods: list[str] | None = None
    time_limit: float | None = None
    memory_limit: int | None = None
    repeat: int = 1
    jobs: int | None = None
    externals: dict[str, str] = field(default_factory=dict)
    external_regex: dict[str, str] = field(default_factory=dict)
    plugins: list[str] = field(default_factory=list)
    source: str = "auto"
    grace: float | None = None
    warmup: bool = True
    #: ``--tune NAME=VALUE`` overrides of lpbn.tuning set in every worker (lpbn.bench.tune)
    tune: dict[str, Any] = field(default_factory=dict)
    instances: list[str] | None = None
    trace_plots: list[str] | None = None
    progress: bool = True
    command: str = ""


@dataclass
class BenchRun:
    """Rows of a finished suite run plus what is needed to report it."""

    suite: Suite
    config: BenchConfig
    methods: list[str]
    externals: list[str]
    rows: list[dict[str, Any]]
    started: datetime
    seconds: float
    time_limit: float
    memory_limit: int
    notes: list[str]
    jobs: int = 1
    #: machine, Python and lpbn commit when the run started (:mod:`lpbn.bench.provenance`)
    machine: str = ""

    @property
    def wrong(self) -> list[dict[str, Any]]:
        """lpbn rows that failed a check (these make ``lpbn bench`` exit non-zero)."""
        return [r for r in self.rows if r.get("check") == checks.WRONG and r["kind"] == "lpbn"]

    @property
    def failed(self) -> list[dict[str, Any]]:
        """lpbn rows that crashed, hung, ran out of memory or hit an error."""
        return [r for r in self.rows if r["kind"] == "lpbn"
                and r.get("status") in ("crash", "timeout", "memout", "error")]


def resolve_methods(suite: Suite, config: BenchConfig) -> tuple[list[str], list[str]]:
    """Methods to run and notes about suite defaults that are not available here."""
    load_plugins(config.plugins)
    avail = ["auto"] + list(available_methods()) + list(TOOLS)
    notes = []
    if config.methods == ["none"]:     # external peers only (e.g. lpbn learn and bnlearn, from the data)
        return [], notes
    if config.methods:
        missing = [m for m in config.methods if m not in avail]
        if missing:
            raise InputError(f"method(s) {', '.join(missing)} not available in this build; "
                             f"available: {', '.join(avail)}")
        return list(dict.fromkeys(config.methods)), notes
    wanted = suite.methods or ["dp"]
    methods = [m for m in wanted if m in avail]
    skipped = [m for m in wanted if m not in avail]
    if skipped:
        notes.append(f"suite methods not available in this build, left out: {', '.join(skipped)}")
    if not methods:
        raise InputError(f"none of the suite's methods ({', '.join(wanted)}) is available; "
                         f"available: {', '.join(avail)}")
    return methods, notes


def scoring_available() -> bool:
    return importlib.util.find_spec("lpbn.scoring") is not None


def hard_timeout(time_limit: float, repeat: int, grace: float | None) -> float:
    """Wall seconds after which a run is killed: the limit per repeat plus start-up grace."""
    g = grace if grace is not None else 20.0 + 0.25 * time_limit
    return time_limit * repeat + g


def _base_row(suite: Suite, e: Entry, method: str, kind: str, time_limit: float,
              memory_limit: int) -> dict[str, Any]:
    return {"suite": suite.name, "instance": e.name, "method": method, "solver": "", "kind": kind,
            "status": "", "check": "", "n": e.n, "m": None, "score": None, "upper_bound": None,
            "gap": None, "optimum": e.optimum, "optimum_source": e.optimum_source,
            "seconds": None, "seconds_all": [], "process_seconds": None, "read_seconds": None,
            "score_seconds": None, "peak_rss_mb": None, "score_peak_rss_mb": None, "time_limit": time_limit,
            "memory_limit_mb": memory_limit, "source": "", "message": "", "stats": {},
            "explore": None, "truth": None, "trace": [], "problems": [], "_rtol": e.optimum_rtol}


def run_suite(suite: Suite, config: BenchConfig,
              on_row: Callable[[dict[str, Any]], None] | None = None) -> BenchRun:
    """Run ``suite`` as configured; returns every row, checked.  Never raises on a bad run."""
    methods, notes = resolve_methods(suite, config)
    time_limit = float(config.time_limit or suite.time_limit)
    memory_limit = int(config.memory_limit or suite.memory_limit)
    jobs = int(config.jobs or suite.jobs)
    if config.repeat < 1 or jobs < 1:
        raise InputError("--repeat and --jobs must be at least 1")
    if config.source not in ("auto", "data", "cache"):
        raise InputError(f"unknown source {config.source!r}; choose auto, data or cache")
    externals = {name: tpl for name, tpl in config.externals.items()}
    for name, rx in config.external_regex.items():
        if name not in externals:
            raise InputError(f"--external-regex names unknown external {name!r}")
        try:
            re.compile(rx)
        except re.error as exc:
            raise InputError(f"--external-regex {name}: invalid regular expression: {exc}") from None
    entries = suite.entries
    if config.instances:
        known = {e.name for e in entries}
        bad = [x for x in config.instances if x not in known]
        if bad:
            raise InputError(f"unknown instance(s) in suite {suite.name}: {', '.join(bad)}")
        entries = [e for e in entries if e.name in config.instances]

    started = datetime.now(timezone.utc)
    machine = machine_line()
    t0 = time.monotonic()
    canceller = Canceller()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="lpbn-bench-") as tmp:
        workdir = Path(tmp)
        plan = _plan_sources(suite, entries, config, time_limit, memory_limit, methods,
                             list(externals), rows)
        if any(m != "score" for m in methods) or any("{cache}" in t for t in externals.values()):
            need_cache = True
        else:  # only `score` runs: they score the data themselves, no cache is needed
            need_cache = False
            for p in plan:
                p["data"] = False
        n_runs = sum(len(methods) + len(externals) for _ in plan)
        progress = Progress(total=n_runs + len(rows), enabled=config.progress)
        for r in rows:  # absent instances
            progress.done(r)
        pool = cf.ThreadPoolExecutor(max_workers=jobs)
        try:
            if need_cache:
                _score_stage(plan, pool, workdir, memory_limit, config, canceller, progress, notes)
            if config.warmup:
                kb = any(kbest_of(suite, p["entry"])[0] is not None for p in plan)
                _warmup(methods, pool, workdir, memory_limit, config, canceller, progress, kbest=kb)
            _solve_stage(suite, plan, methods, externals, pool, workdir, time_limit,
                         memory_limit, config, canceller, progress, rows, on_row)
        except BaseException:
            canceller.cancel()  # running processes are killed, queued runs never start
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)
            progress.close()
    by_instance: dict[str, list[dict[str, Any]]] = {}
    entry_of = {e.name: e for e in suite.entries}
    for r in rows:
        by_instance.setdefault(r["instance"], []).append(r)
    for name, rs in by_instance.items():
        checks.cross_check(rs, entry_of[name].optimum_rtol)
    order = {e.name: k for k, e in enumerate(suite.entries)}
    col = {m: k for k, m in enumerate(methods + list(externals))}
    rows.sort(key=lambda r: (order[r["instance"]], col.get(r["method"], 99)))
    return BenchRun(suite=suite, config=config, methods=methods, externals=list(externals),
                    rows=rows, started=started, seconds=time.monotonic() - t0,
                    time_limit=time_limit, memory_limit=memory_limit, notes=notes, jobs=jobs, machine=machine)


# ------------------------------------------------------------------ planning
def _plan_sources(suite, entries, config, time_limit, memory_limit, methods, externals, rows):
    """Pick each entry's input (score file or data); absent ones become rows at once."""
    can_score = scoring_available()
    plan = []
    for e in entries:
        use_data = ((e.data is not None or e.synthetic is not None) and config.source in ("auto", "data")
                    and can_score and e.has_data())
        if use_data:
            plan.append({"entry": e, "data": True, "file": None, "source": "synthetic" if e.synthetic else "data",
                         "score_seconds": None, "fail": None, "truth": None, "score_info": {}})
        elif config.source != "data" and e.has_file():
            plan.append({"entry": e, "data": False, "file": str(e.file), "source": "cache",
                         "score_seconds": None, "fail": None})
        elif "score" in methods and can_score and e.has_data():
            why = _absent_reason(e, config.source, can_score)
            plan.append({"entry": e, "data": False, "file": None, "source": "data",
                         "score_seconds": None, "fail": None, "no_cache": why})
        else:
            why = _absent_reason(e, config.source, can_score)
            for m in list(methods) + list(externals):
                r = _base_row(suite, e, m, "lpbn" if m in methods else "external", time_limit,
                              memory_limit)
                r.update(status="absent", message=why)
                checks.check_row(r, r["optimum"], r.pop("_rtol"))
                rows.append(r)
    return plan


def _absent_reason(e: Entry, source: str, can_score: bool) -> str:
    if source == "data" and e.data is None:
        return "no data given for this instance"
    if e.data is not None and not can_score and source != "cache" and e.file is None:
        return "needs lpbn.scoring (not in this build) and gives no cache file"
    missing = [str(p) for p in (e.file, e.data) if p is not None and not p.exists()]
    return "file(s) not found: " + ", ".join(missing) if missing else "no usable input"


# ------------------------------------------------------------------ stages
def _score_stage(plan, pool, workdir, memory_limit, config, canceller, progress, notes):
    todo = [p for p in plan if p["data"]]
    futures = {}
    for k, p in enumerate(todo):
        e = p["entry"]
        out = workdir / f"scored-{k}.jkl"
        truth = workdir / f"truth-{k}.json"
        job = {"kind": "score", "data": None if e.data is None else str(e.data), "synthetic": e.synthetic,
               "truth_out": str(truth), "scoring": e.scoring, "cache_out": str(out),
               "memory_limit_mb": memory_limit, "plugins": config.plugins, "tune": config.tune}
        if _wants_data_file(e, config):      # continuous rows as plain text (17 significant digits)
            job["data_out"] = str(workdir / f"data-{k}.csv{'' if e.synthetic.get('model') else '.gz'}")
        timeout = hard_timeout(3600.0, 1, config.grace)
        futures[pool.submit(run_worker, job, workdir, f"score-{k}", timeout, canceller)] = (p, out, truth)
    for fut in cf.as_completed(futures):
        p, out, truth = futures[fut]
        oc: ProcOutcome = fut.result()
        res = oc.result
        if res is not None and res.get("status") == "scored":
            p["file"] = str(out)
            p["score_seconds"] = res["score_seconds"]
            p["score_info"] = {"explore": dict(res.get("explore") or {}, truth_score=res.get("truth_score"),
                                               generate_seconds=res.get("generate_seconds")),
                               "score_peak_rss_mb": oc.peak_rss_mb or res.get("score_peak_rss_mb")}
            if p["entry"].synthetic:
                p["truth"] = str(truth)
            if res.get("data_out"):
                p["data_file"] = res["data_out"]
            progress.note(f"scored {p['entry'].name} from data: n={res['n']} "
                          f"m={res['m']} in {res['score_seconds']:.2f}s")
        else:
            status, msg = ((res["status"], res.get("message", "")) if res is not None
                           else classify_failure(oc, memory_limit))
            e = p["entry"]
            if config.source == "auto" and e.has_file():
                p.update(file=str(e.file), source="cache", data=False,
                         note=f"scoring from data failed ({status}: {msg}); used the cache file")
                notes.append(f"{e.name}: {p['note']}")
            else:
                p["fail"] = (status, f"scoring failed: {msg}")
            progress.note(f"scoring {e.name} failed: {status} {msg}")


def _wants_data_file(e: Entry, config: BenchConfig) -> bool:
    """A generated data set (discrete, continuous or mixed) is written out when an external peer
    reads ``{data}`` or ``{truth}``."""
    return (e.data is None and e.synthetic is not None
            and any("{data}" in t or "{truth}" in t for t in config.externals.values()))


def _warmup(methods, pool, workdir, memory_limit, config, canceller, progress, kbest=False):
    """Fill numba's compile cache with one untimed run per method on a tiny instance (a k-best
    run when the suite lists k best networks: its kernels are others)."""
    from ..formats import write_scores
    from ..synthetic import random_cache
    path = workdir / "warmup.jkl"
    write_scores(random_cache(6, seed=1), path)
    futures = []
    for m in methods:
        job = {"kind": "solve", "file": str(path), "method": m, "time_limit": 60.0,
               "repeat": 1, "options": {}, "memory_limit_mb": memory_limit,
               "plugins": config.plugins, "tune": config.tune}
        if m == "score":
            if not scoring_available():
                continue
            job = {"kind": "score_bench", "synthetic": {"variables": 5, "rows": 200, "seed": 1},
                   "scoring": {"score": "bic", "max_parents": 2, "jobs": 1}, "repeat": 1,
                   "memory_limit_mb": memory_limit, "plugins": config.plugins, "tune": config.tune}
        elif m in TOOLS:
            job = {"kind": m, "file": str(path), "time_limit": 30.0, "options": {},
                   "memory_limit_mb": memory_limit, "plugins": config.plugins, "tune": config.tune}
        elif kbest:
            job.update(k_best=5, classes=False)
        futures.append(pool.submit(run_worker, job, workdir, f"warmup-{m}", 120.0, canceller))
    progress.note(f"warming up {', '.join(methods)} (compile caches)")
    cf.wait(futures)


def _solve_stage(suite, plan, methods, externals, pool, workdir, time_limit, memory_limit,
                 config, canceller, progress, rows, on_row):
    futures = {}
    k = 0
    for p in plan:
        e: Entry = p["entry"]
        limit = time_limit if (e.time_limit is None or config.time_limit) else float(e.time_limit)
        for m in list(methods) + list(externals):
            kind = "lpbn" if m in methods else "external"
            row = _base_row(suite, e, m, kind, limit, memory_limit)
            row["source"] = p["source"]
            row["score_seconds"] = p["score_seconds"]
            info = p.get("score_info") or {}
            row["explore"] = info.get("explore")
            row["score_peak_rss_mb"] = info.get("score_peak_rss_mb")
            if p["fail"] is not None:
                row["status"], row["message"] = p["fail"]
                _finish(row, rows, progress, on_row)
                continue
            max_n = suite.limits.get(m, {}).get("max_n")
            if kind == "lpbn" and max_n is not None and e.n is not None and e.n > int(max_n):
                row.update(status="skipped", message=f"n={e.n} above the suite's max_n={max_n} "
                           f"for {m}")
                _finish(row, rows, progress, on_row)
                continue
            if m == "score" and not e.has_data():
                row.update(status="absent", message="no data to score for this instance")
                _finish(row, rows, progress, on_row)
                continue
            needs_cache = m != "score" and (kind == "lpbn" or "{cache}" in externals[m])
            if needs_cache and (p.get("no_cache") or p["file"] is None):
                row.update(status="absent", message=p.get("no_cache") or "no cache file")
                _finish(row, rows, progress, on_row)
                continue
            k += 1
            if kind == "lpbn":
                job = _job(m, e, p, limit, memory_limit, suite, config)
                fut = pool.submit(_run_lpbn, job, row, workdir, f"run-{k}", config, canceller)
            else:
                fut = pool.submit(_run_external, externals[m],
                                  config.external_regex.get(m, DEFAULT_EXTERNAL_REGEX), p,
                                  e, row, workdir, f"ext-{k}", config, limit, memory_limit,
                                  canceller)
            futures[fut] = row
    for fut in cf.as_completed(futures):
        _finish(fut.result(), rows, progress, on_row)


def _job(m: str, e: Entry, p: dict[str, Any], limit: float, memory_limit: int, suite: Suite,
         config: BenchConfig) -> dict[str, Any]:
    """The worker job of an lpbn row: a solve, or one of the :data:`TOOLS`."""
    common = {"time_limit": limit, "memory_limit_mb": memory_limit, "plugins": config.plugins, "tune": config.tune,
              "options": suite.options.get(m, {}), "repeat": config.repeat}
    if m == "score":
        scoring = dict(suite.options.get("score", {}))  # the suite's defaults, then the entry's
        scoring.update(e.scoring)
        scoring.setdefault("score", "bic")
        return {**common, "kind": "score_bench", "data": None if e.data is None else str(e.data),
                "synthetic": e.synthetic, "scoring": scoring,
                "reference": str(e.file) if e.has_file() else None, "rtol": e.optimum_rtol}
    if m in TOOLS:
        return {**common, "kind": m, "file": p["file"], "optimum": e.optimum, "repeat": 1}
    job = {**common, "kind": "solve", "file": p["file"], "method": m, "truth": p.get("truth")}
    k, classes = kbest_of(suite, e)
    if k is not None:
        opts = dict(common["options"])
        opts.setdefault("memory_limit", max(0, memory_limit - KBEST_HEADROOM_MB) * 2**20)
        job.update(k_best=k, classes=classes, options=opts)
    return job


def _finish(row, rows, progress, on_row):
    checks.check_row(row, row["optimum"], row.pop("_rtol"))
    rows.append(row)
    progress.done(row)
    if on_row is not None:
        on_row(row)


def _run_lpbn(job, row, workdir, key, config, canceller) -> dict[str, Any]:
    if job["kind"] == "score_bench":  # scoring has no time limit of its own
        timeout = hard_timeout(3600.0, job["repeat"], config.grace)
    elif job["kind"] in TOOLS:
        timeout = hard_timeout(job["time_limit"] * TOOL_STAGES[job["kind"]], 1, config.grace)
    else:
        timeout = hard_timeout(job["time_limit"], job["repeat"], config.grace)
    oc = run_worker(job, workdir, key, timeout, canceller)
    row["process_seconds"] = oc.wall
    row["peak_rss_mb"] = oc.peak_rss_mb
    res = oc.result
    if res is None:
        row["status"], row["message"] = classify_failure(oc, job["memory_limit_mb"])
        if canceller.cancelled:
            row["status"], row["message"] = "interrupted", "bench interrupted"
        return row
    for key_ in ("status", "score", "upper_bound", "gap", "n", "m", "read_seconds", "stats",
                 "trace", "message", "dag_problem", "seconds_all", "truth", "solver"):
        if key_ in res:
            row[key_] = res[key_]
    row["problems"] = row.get("problems", []) + list(res.get("problems") or [])
    if job["kind"] != "solve":
        row["solver"] = row["method"]
    if job["kind"] == "score_bench":
        row["score_seconds"] = (res.get("seconds_all") or [None])[0]
    if res.get("status") == "error" and oc.stderr.strip():
        row["message"] = (row["message"] + " | " + oc.stderr.strip().splitlines()[-1][:300]).strip(" |")
    if res.get("traceback"):
        row["message"] = (row["message"] + " | " + res["traceback"][-2]).strip(" |")
    if row["seconds_all"]:
        row["seconds"] = statistics.median(row["seconds_all"])
    return row


def _run_external(template, regex, p, e: Entry, row, workdir, key, config, time_limit,
                  memory_limit, canceller) -> dict[str, Any]:
    """Run one external peer; its score is the last match of ``regex`` in its output, and a line
    ``SHD is N (moral M)`` (the peer's network against ``{truth}``) goes to the row's truth."""
    data = str(e.data) if e.data is not None else p.get("data_file") or ""
    fields = {"cache": p["file"], "time_limit": f"{time_limit:g}", "memory_limit": memory_limit,
              "name": e.name, "n": e.n if e.n is not None else "", "data": data,
              "truth": p.get("truth") or ""}
    for key_, have in (("data", data), ("truth", fields["truth"])):
        if "{" + key_ + "}" in template and not have:
            row.update(status="absent", message=f"this instance has no {key_} file for {{{key_}}}")
            return row
    try:
        argv = [tok.format(**fields) for tok in shlex.split(template)]
    except (KeyError, IndexError, ValueError) as exc:
        row.update(status="error", message=f"bad --external template: {exc}")
        return row
    walls, rss = [], []
    oc = None
    for r in range(config.repeat):
        job = {"kind": "exec", "argv": argv, "memory_limit_mb": memory_limit}
        oc = run_worker(job, workdir, f"{key}-{r}", hard_timeout(time_limit, 1, config.grace),
                        canceller)
        walls.append(oc.wall)
        rss.append(oc.peak_rss_mb)
        if oc.timed_out or oc.returncode != 0:
            break
    assert oc is not None
    row["seconds_all"] = walls
    row["seconds"] = row["process_seconds"] = statistics.median(walls)
    row["peak_rss_mb"] = max(rss)
    if oc.timed_out or oc.returncode != 0:
        row["status"], row["message"] = classify_failure(oc, memory_limit)
        if oc.timed_out:
            row["status"] = "timeout"
        return row
    row["status"] = "finished"
    found = re.findall(regex, oc.stdout, flags=re.MULTILINE)
    if found:
        val = found[-1] if isinstance(found[-1], str) else found[-1][0]
        try:
            v = float(val)
            row["score"] = v if math.isfinite(v) else None
        except ValueError:
            row["message"] = f"cannot parse score {val!r}"
    else:
        row["message"] = "no score found in the output (see --external-regex)"
    shd = re.findall(SHD_LINE, oc.stdout, flags=re.MULTILINE)
    if shd:
        row["truth"] = {"shd": int(shd[-1][0]), "moral_hd": int(shd[-1][1])}
    _external_bound(row, oc.stdout)
    return row


def _external_bound(row: dict[str, Any], out: str) -> None:
    """A peer's proven bound (``upper bound: X``, as ``lpbn learn --format text`` prints it) and
    the scope of its gap (``gap: G (scope)``) go to the row: upper_bound, gap, message."""
    ub = re.findall(BOUND_LINE, out, flags=re.MULTILINE)
    if not ub or row.get("score") is None:
        return
    try:
        bound = float(ub[-1])
    except ValueError:
        return
    if not math.isfinite(bound):
        return
    row["upper_bound"] = bound
    row["gap"] = relative_gap(row["score"], bound)
    scope = re.findall(SCOPE_LINE, out, flags=re.MULTILINE)
    if scope:
        row["message"] = f"gap {scope[-1]}" + (f"; {row['message']}" if row.get("message") else "")
