"""Outputs of a suite run: ``results.csv``, ``results.json.gz``, ``summary.md`` and plots.

``results.json.gz`` is the whole record (every row with its stats and trace, the suite, the
command): what ``lpbn bench --report`` re-renders from, small enough to commit beside the
tables it produced.  (Runs written before it was compressed have ``results.json``; both read.)

They go to ``<out>/<suite>/<timestamp>/`` and are copied to ``<out>/<suite>/latest/``
(replaced as a whole, so ``latest`` is always one complete run).  Every file is written
through :func:`lpbn.atomic.atomic_write`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

from ..atomic import atomic_write
from .checks import TOOL_DONE, WRONG, solved  # noqa: F401  (TOOL_DONE re-exported)
from .runner import CSV_COLUMNS, BenchRun

#: the run's whole record, gzip-compressed JSON (:func:`json_text`)
RECORD = "results.json.gz"
#: statuses counted in the per-method table
FAIL_STATUSES = ("crash", "timeout", "memout", "error")

#: floor of a time in the geometric mean (a 0.0 s run would make it 0)
GEOMEAN_FLOOR = 1e-3


def geomean(values: list[float]) -> float:
    vals = [max(GEOMEAN_FLOOR, float(v)) for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return math.nan
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def _fmt(x: Any, spec: str = ".6f") -> str:
    if x is None:
        return ""
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    return format(x, spec) if isinstance(x, (int, float)) else str(x)


def _secs(x: Any) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def csv_text(run: BenchRun) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in run.rows:
        out = []
        for c in CSV_COLUMNS:
            v = r.get(c)
            if c == "seconds_all":
                v = ";".join(f"{x:.6f}" for x in v or [])
            elif c in ("stats", "explore", "truth"):
                v = "" if v is None and c != "stats" else json.dumps(v or {}, sort_keys=True)
            elif c == "message":
                v = "; ".join((r.get("problems") or []) + ([v] if v else []))
            elif isinstance(v, float):
                v = repr(v) if math.isfinite(v) else ""
            out.append("" if v is None else v)
        w.writerow(out)
    return buf.getvalue()


def json_text(run: BenchRun) -> str:
    payload = {"suite": run.suite.name, "suite_path": str(run.suite.path),
               "started": run.started.isoformat(), "machine": run.machine,
               "seconds": run.seconds, "command": run.config.command, "methods": run.methods,
               "externals": run.externals, "time_limit": run.time_limit,
               "memory_limit_mb": run.memory_limit, "repeat": run.config.repeat,
               "jobs": run.jobs, "notes": run.notes, "tune": run.config.tune, "rows": run.rows,
               "peers": {e.name: e.peers for e in run.suite.entries if e.peers}}
    return json.dumps(payload, indent=1, default=str)


def method_table(run: BenchRun) -> list[dict[str, Any]]:
    """Per method: runs, solved, wrong, limits, failures, geomean time, worst gap."""
    out = []
    for m in run.methods + run.externals:
        every = [r for r in run.rows if r["method"] == m and r["status"] != "absent"]
        rs = [r for r in every if r["status"] != "skipped"]  # skipped by the suite's design
        times, proc = [], []
        for r in rs:
            if solved(r) and r.get("seconds") is not None:
                times.append(r["seconds"])
                proc.append(r.get("process_seconds") or r["seconds"])
            else:
                times.append(run.time_limit)
                proc.append(run.time_limit)
        gaps = [r["gap"] for r in rs if r.get("gap") is not None and r["kind"] == "lpbn"]
        out.append({
            "method": m, "runs": len(rs), "solved": sum(solved(r) for r in rs),
            "wrong": sum(r.get("check") == WRONG for r in rs),
            "limit": sum(r["status"] in ("time_limit", "gap_limit", "node_limit", "memory_limit")
                         for r in rs),
            **{s: sum(r["status"] == s for r in rs) for s in FAIL_STATUSES},
            "refused": sum(r["status"] == "refused" for r in rs),
            "skipped": sum(r["status"] == "skipped" for r in every),
            "geomean": geomean(times) if rs else math.nan,
            "geomean_process": geomean(proc) if rs else math.nan,
            "worst_gap": max(gaps) if gaps else None,
            "peak_rss": max((r["peak_rss_mb"] for r in rs if r.get("peak_rss_mb") is not None),
                            default=None),
        })
    return out


def peer_table(run: BenchRun) -> list[dict[str, Any]]:
    """Per peer of the suite's anchors: instances, solved, geomean seconds (their machine)."""
    names: list[str] = []
    for e in run.suite.entries:
        for p in e.peers:
            if p not in names:
                names.append(p)
    out = []
    present = {r["instance"] for r in run.rows}
    for p in names:
        vals = [e.peers[p] for e in run.suite.entries if p in e.peers and e.name in present]
        if not vals:
            continue
        ok = [v for v in vals if str(v.get("status", "")).startswith("optimal")]
        # unsolved peers are listed with the seconds they ran until their own limit
        times = [float(v["seconds"]) for v in vals if v.get("seconds") is not None]
        out.append({"peer": p, "instances": len(vals), "solved": len(ok),
                    "geomean": geomean(times)})
    return out


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return ""
    st = r["status"]
    proc = f" ({_secs(r.get('process_seconds'))}s)" if r.get("process_seconds") is not None \
        and r["kind"] == "lpbn" else ""
    if r.get("check") == WRONG:
        return f"**WRONG** {st} {_secs(r.get('seconds'))}s"
    if st == "optimal":
        return f"opt {_secs(r.get('seconds'))}s{proc}"
    if st in ("scored", "agree"):
        return f"{st} {_secs(r.get('seconds'))}s{proc}"
    if st == "finished" and r["method"] == "gap":
        gap = r.get("gap")
        return f"LP gap {gap:.3%}{proc}" if gap is not None else f"bounds{proc}"
    if st == "finished":
        tag = "ok" if r.get("check") == "ok" else "done"
        return f"{tag} {_secs(r.get('seconds'))}s"
    if st in ("time_limit", "gap_limit", "node_limit", "memory_limit"):
        gap = r.get("gap")
        return f"{st} gap {gap:.3%}" if gap is not None else f"{st} (no bound)"
    if st == "absent":
        return "–"
    if st in ("timeout", "crash", "memout"):
        return f"{st} ({_secs(r.get('process_seconds'))}s)"
    return st


def _peer_cell(v: dict[str, Any] | None) -> str:
    if not v:
        return ""
    st = str(v.get("status", ""))
    secs = v.get("seconds")
    mb = v.get("mb")
    s = f"{_secs(secs)}s" if secs is not None else ""
    if mb is not None:
        s += f" / {mb} MB"
    if st and not st.startswith("optimal"):
        s = (s + " " + st).strip()
    if secs is None and v.get("best") is not None:
        s = (s + f" best {float(v['best']):.2f}").strip()
    return s


def _tuning_line(tune: dict[str, Any] | None) -> str:
    """The ``--tune`` overrides of a run, or that it ran lpbn.tuning's values."""
    if not tune:
        return "lpbn/tuning.py's values (no `--tune`)"
    return "`--tune` " + ", ".join(f"`{k}={v!r}`" for k, v in tune.items()) + " (the rest lpbn/tuning.py's)"


def summary_md(run: BenchRun, plots: list[str]) -> str:
    s = run.suite
    L: list[str] = [f"# lpbn bench: `{s.name}`", ""]
    if s.description:
        L += [s.description, ""]
    L += [f"- Command: `{run.config.command}`",
          f"- Started: {run.started.strftime('%Y-%m-%d %H:%M:%S UTC')}, took {run.seconds:.1f} s",
          f"- Machine: {run.machine or 'not recorded (a record from before lpbn kept it)'}",
          f"- Limits per run: {run.time_limit:g} s time limit (lpbn.solve's own), "
          f"{run.memory_limit} MB address space; repeat {run.config.repeat} (median), "
          f"{run.jobs} run(s) in parallel",
          f"- Tuning: {_tuning_line(run.config.tune)}",
          "- Time: wall seconds of `lpbn.solve` inside the worker process (without start-up, "
          "reading or scoring), and in parentheses the whole process as a user feels it: the "
          "worker's wall time from process start (interpreter, imports, reading the cache, "
          "solving, exit; `process_seconds` in results.csv; with `--repeat R` it holds all R "
          "solves); externals: whole process.  Geometric mean over the suite's instances, "
          "unsolved runs counted at the time limit.  Cells: `opt` = proven optimal (and "
          "checked), else the status and the final gap; `auto` rows name the method it chose "
          "(`solver` in results.csv).",
          "- Check: every DAG is re-scored against its cache; scores and bounds are checked against "
          "the known optimum (relative tolerance 1e-6 unless the entry says otherwise) and across "
          "methods."]
    for note in run.notes:
        L.append(f"- Note: {note}")
    L.append("")
    wrong = [r for r in run.rows if r.get("check") == WRONG]
    if wrong:
        L += [f"## WRONG results: {len(wrong)}", ""]
        for r in wrong:
            L.append(f"- **{r['method']} on {r['instance']}**: " + "; ".join(r.get("problems") or []))
        L.append("")
    else:
        L += ["No wrong result: every checked answer agrees with the known optima and the other "
              "methods.", ""]
    L += ["## Per method", "",
          "| method | runs | solved | wrong | stopped at limit | timeout | memout | crash | error "
          "| refused | geomean s | geomean process s | worst gap | max RSS MB | skipped (suite max_n) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in method_table(run):
        L.append(f"| {t['method']} | {t['runs']} | {t['solved']} | {t['wrong']} | {t['limit']} | "
                 f"{t['timeout']} | {t['memout']} | {t['crash']} | {t['error']} | {t['refused']} | "
                 f"{_secs(t['geomean'])} | {_secs(t['geomean_process'])} | "
                 f"{'' if t['worst_gap'] is None else format(t['worst_gap'], '.3%')} | "
                 f"{'' if t['peak_rss'] is None else format(t['peak_rss'], '.0f')} | "
                 f"{t['skipped']} |")
    peers = peer_table(run)
    if peers:
        L += ["", "Peer numbers from the suite's anchors (`../shared/anchors/ANCHORS.md`: measured "
              "on a machine like this one, whole-process seconds, their own time limits; not rerun "
              "here):", "",
              "| peer | instances | solved | geomean s |", "|---|---|---|---|"]
        for p in peers:
            L.append(f"| {p['peer']} | {p['instances']} | {p['solved']} | {_secs(p['geomean'])} |")
    L += ["", "## Per instance", ""]
    cols = run.methods + run.externals
    peer_names = [p["peer"] for p in peers]
    scored = any(r.get("score_seconds") is not None for r in run.rows)
    head = ["instance", "n", "m"] + (["scoring s"] if scored else []) + ["optimum"] + cols + \
        peer_names
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "---|" * len(head))
    by = {(r["instance"], r["method"]): r for r in run.rows}
    for e in s.entries:
        rs = [by.get((e.name, c)) for c in cols]
        if all(r is None for r in rs):
            continue
        if all(r is not None and r["status"] == "absent" for r in rs):
            continue
        m = next((r.get("m") for r in rs if r is not None and r.get("m")), "")
        n = next((r.get("n") for r in rs if r is not None and r.get("n")), e.n)
        opt = _fmt(e.optimum, ".6f") if e.optimum is not None else "?"
        sc = next((r.get("score_seconds") for r in rs if r is not None
                   and r.get("score_seconds") is not None), None)
        cells = [e.name, str(n or ""), str(m or "")] + ([_secs(sc)] if scored else []) + [opt] + \
            [_cell(r) for r in rs] + [_peer_cell(e.peers.get(p)) for p in peer_names]
        L.append("| " + " | ".join(cells) + " |")
    L += auto_table(run)
    L += kbest_table(run)
    L += scoring_table(run)
    L += gap_table(run)
    L += check_table(run)
    L += network_table(run)
    absent = []
    for e in s.entries:
        rs = [r for r in run.rows if r["instance"] == e.name]
        gone = [r["method"] for r in rs if r["status"] == "absent"]
        if gone:
            absent.append(e.name if len(gone) == len(rs) else f"{e.name} ({', '.join(gone)})")
    if absent:
        L += ["", f"Absent here (skipped cleanly): {', '.join(absent)}."]
    sources = sorted({(e.optimum_source or "?") for e in s.entries if e.optimum is not None})
    if sources:
        L += ["", "Optimum sources: " + "; ".join(sources) + "."]
    fails = [r for r in run.rows if r["status"] in FAIL_STATUSES + ("refused",)]
    if fails:
        L += ["", "## Failed or refused runs", ""]
        for r in fails:
            L.append(f"- {r['method']} on {r['instance']}: {r['status']}: {r.get('message', '')}")
    if plots:
        L += ["", "## Plots", ""]
        for p in plots:
            L.append(f"![{p}]({p})")
    return "\n".join(L) + "\n"


def auto_table(run: BenchRun) -> list[str]:
    """Which method ``auto`` chose per instance (empty without auto rows)."""
    rows = [r for r in run.rows if r["method"] == "auto" and r.get("solver")]
    if not rows:
        return []
    chose: dict[str, list[str]] = {}
    for r in rows:
        chose.setdefault(r["solver"], []).append(r["instance"])
    return ["", "`auto` chose: " + "; ".join(f"{m} on {', '.join(v)}" for m, v in chose.items()) + "."]


def kbest_table(run: BenchRun) -> list[str]:
    """Rows of k-best runs (suite or entry ``k_best``): what was listed and proven, and the work
    (empty without k-best rows)."""
    rows = [r for r in run.rows if (r.get("stats") or {}).get("k") is not None]
    if not rows:
        return []
    L = ["", "## The k best networks", "",
         ("`lpbn.solve(cache, k_best=K[, classes=True])`: listed = entries with ties of the K-th; "
          "K-th = the K-th entry's score; next = the best score any unlisted DAG/class can have "
          "(proven when the status is optimal); rounds = threshold rounds of `bnb`; families = "
          "kept by the exact per-family bound / all.  Every listed DAG is re-scored by the worker.  "
          "Seconds: solve (whole process)."), "",
         ("| instance | method | K | classes | status | listed | best | K-th | next | rounds | nodes | "
          "families | tables | solve s (process s) | peak RSS MB |"),
         "|" + "---|" * 15]
    for r in rows:
        st = r.get("stats") or {}
        rounds = st.get("rounds")
        nr = len(rounds) if isinstance(rounds, list) else ""
        fam = (f"{st.get('families_kept')} / {st.get('families')}" if st.get("families") else "")
        tables = {True: "exact", False: "none"}.get(st.get("family_bounds_exact"), "")
        L.append(f"| {r['instance']} | {r.get('solver') or r['method']} | {st.get('k')} | "
                 f"{'yes' if st.get('classes') else 'no'} | {r['status']} | {st.get('listed', '')} | "
                 f"{_fmt(r.get('score'), '.2f')} | {_fmt(st.get('kth_score'), '.2f')} | "
                 f"{_fmt(st.get('next_bound'), '.2f')} | {nr} | {st.get('nodes', '')} | {fam} | {tables} | "
                 f"{_secs(r.get('seconds'))} ({_secs(r.get('process_seconds'))}) | "
                 f"{'' if r.get('peak_rss_mb') is None else format(r['peak_rss_mb'], '.0f')} |")
    return L


def scoring_table(run: BenchRun) -> list[str]:
    """Rows of the ``score`` method: whole process, reading, score_data per call, sets kept and
    the comparison with the reference cache (empty without score rows)."""
    rows = [r for r in run.rows if r["method"] == "score" and r["status"] == "scored"]
    if not rows:
        return []
    peers = sorted({p for r in rows for p in run.suite.entry(r["instance"]).peers})
    L = ["", "## Scoring (`score`)", "",
         "`lpbn.score_data` in a fresh worker process: process = its whole wall time (interpreter, "
         "imports, reading, every scoring call, comparison); read = reading the data; first = the "
         "first `score_data` call; median = over `--repeat` calls.  Reference = the entry's cache "
         "file (e.g. GOBNILP's for the same data and score): sets in both, the largest score "
         "difference on them, and reference sets we pruned (each must be dominated by a kept "
         "subset, else the row is WRONG)." + (f"  Peers: seconds from the suite's anchors "
                                             f"({', '.join(peers)})." if peers else ""), "",
         "| instance | n | rows | process s | read s | first s | median s | sets before | sets kept | "
         "families counted | reference sets | common | max abs diff | ref. pruned (undominated) |"
         + "".join(f" {p} s |" for p in peers),
         "|" + "---|" * (14 + len(peers))]
    for r in rows:
        st = r.get("stats") or {}
        ref = st.get("reference") or {}
        e = run.suite.entry(r["instance"])
        diff = ref.get("max_abs_diff")
        refcells = (f"{ref.get('sets', '')} | {ref.get('common', '')} | "
                    f"{'' if diff is None else format(diff, '.1e')} | "
                    + (f"{ref['pruned']} ({ref['pruned_undominated']})" if "pruned" in ref else ref.get("note", ""))
                    if ref else "— | | |")
        L.append(f"| {r['instance']} | {r.get('n') or ''} | {st.get('rows') or ''} | "
                 f"{_secs(r.get('process_seconds'))} | {_secs(r.get('read_seconds'))} | "
                 f"{_secs(st.get('first_seconds'))} | {_secs(r.get('seconds'))} | "
                 f"{st.get('candidates_before') or ''} | {r.get('m') or ''} | "
                 f"{st.get('families_counted') or ''} | {refcells} |"
                 + "".join(f" {_secs((e.peers.get(p) or {}).get('seconds'))} |" for p in peers))
    return L


def gap_table(run: BenchRun) -> list[str]:
    """The LP-bound tables of the ``gap`` method, one block of rows per instance."""
    rows = [r for r in run.rows if r["method"] == "gap" and (r.get("stats") or {}).get("table")]
    if not rows:
        return []
    L = ["", "## LP bounds (`gap`, Jaakkola et al. 2010 §7)", "",
         "`lpbn gap`: the cycle-inequality LP, the dual's heuristic clusters, the HiGHS LP with exact "
         "cluster separation and the best integral score; gap relative to the known optimum (else "
         "to the best score).  Each complete bound must be at least the optimum.", "",
         "| instance | relaxation | value | vs reference | rel. gap | rows | seconds | note |",
         "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for g in r["stats"]["table"]:
            ag, rg = g.get("absolute_gap"), g.get("gap")
            L.append(f"| {r['instance']} | {g.get('label', g.get('key'))} | {_fmt(g.get('value'), '.4f')} | "
                     f"{'' if ag is None else format(ag, '+.4f')} | {'' if rg is None else format(rg, '.4%')} | "
                     f"{'' if g.get('rows') is None else g['rows']} | {_secs(g.get('seconds')) if g.get('seconds') is not None else ''} | "
                     f"{g.get('note') or ''} |")
    return L


def check_table(run: BenchRun) -> list[str]:
    """Verdicts of the ``check`` method (``lpbn check``) per instance."""
    rows = [r for r in run.rows if r["method"] == "check" and r["status"] in ("agree", "disagree")]
    if not rows:
        return []
    L = ["", "## Cross-checks (`check`)", "",
         "`lpbn check`: LP duality (the dual's value against HiGHS' LP over the same clusters) and "
         "agreement of the exact methods on each instance; every other pair of methods in this run "
         "is compared too (proven optima equal, no bound below another method's optimum).", "",
         "| instance | verdict | passed | failed | seconds | failed checks |", "|---|---|---|---|---|---|"]
    for r in rows:
        st = r.get("stats") or {}
        L.append(f"| {r['instance']} | {r['status']} | {st.get('passed', '')} | {st.get('failed', '')} | "
                 f"{_secs(r.get('seconds'))} | {'; '.join(r.get('problems') or []) or '—'} |")
    return L


def network_table(run: BenchRun) -> list[str]:
    """Lines of the per-run table of instances learned from data: exploration time, sets kept,
    the network's score, bound and gap, solve and total time, peak RSS of scoring and solving,
    and for synthetic data the distances to the true network (empty without such rows)."""
    rows = [r for r in run.rows if (r.get("explore") or r.get("truth")) and r["method"] not in TOOL_DONE]
    if not rows:
        return []
    L = ["", "## Networks learned from data", "",
         "Scoring: the exploration strategy, its wall seconds and the parent sets kept; solving: the "
         "network's score (the sum of its exact local scores on the data), the proven upper bound "
         "on the cache and the gap; total = scoring + solve seconds; RSS = peak resident set of the "
         "scoring and of the solving process.  Synthetic data: structural Hamming distance to the "
         "true DAG (and of the moral graphs) and the true network's own score.", "",
         "| instance | method | explore | explore s | sets kept | score | upper bound | gap | solve s | "
         "total s | RSS MB (score / solve) | SHD (moral) | true score |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ex = r.get("explore") or {}
        tr = r.get("truth") or {}
        total = (r.get("score_seconds") or 0.0) + (r.get("seconds") or 0.0)
        rss = f"{_fmt(r.get('score_peak_rss_mb'), '.0f')} / {_fmt(r.get('peak_rss_mb'), '.0f')}"
        shd = f"{tr['shd']} ({tr['moral_hd']})" if "shd" in tr else ""
        gap = r.get("gap")
        L.append(f"| {r['instance']} | {r['method']} | {ex.get('strategy') or ''} | "
                 f"{_secs(r.get('score_seconds'))} | {r.get('m') or ''} | {_fmt(r.get('score'), '.2f')} | "
                 f"{_fmt(r.get('upper_bound'), '.2f')} | {'' if gap is None else format(gap, '.3%')} | "
                 f"{_secs(r.get('seconds'))} | {_secs(total)} | {rss} | {shd} | "
                 f"{_fmt(ex.get('truth_score'), '.2f')} |")
    return L


def write_outputs(run: BenchRun, out_root: str | os.PathLike, plot: bool = True) -> Path:
    """Write the run to ``<out_root>/<suite>/<timestamp>/`` and refresh ``latest``."""
    root = Path(out_root) / run.suite.name
    stamp = run.started.strftime("%Y%m%dT%H%M%SZ")
    run_dir = root / stamp
    k = 1
    while run_dir.exists():
        k += 1
        run_dir = root / f"{stamp}-{k}"
    run_dir.mkdir(parents=True)
    with atomic_write(run_dir / "results.csv") as fh:
        fh.write(csv_text(run))
    with atomic_write(run_dir / RECORD, "wb") as fh:
        fh.write(gzip.compress(json_text(run).encode("utf-8"), mtime=0))
    plots: list[str] = []
    if plot:
        from .plots import make_plots
        plots = make_plots(run, run_dir)
    with atomic_write(run_dir / "summary.md") as fh:
        fh.write(summary_md(run, plots))
    refresh_latest(run_dir, root / "latest")
    return run_dir


def refresh_latest(run_dir: Path, latest: Path) -> None:
    """Replace ``latest`` by a copy of ``run_dir`` (copy, then two renames)."""
    tmp = latest.parent / f".latest.tmp.{os.getpid()}"
    old = latest.parent / f".latest.old.{os.getpid()}"
    for p in (tmp, old):
        if p.exists():
            shutil.rmtree(p)
    shutil.copytree(run_dir, tmp)
    if latest.is_symlink() or latest.is_file():
        latest.unlink()
    elif latest.exists():
        latest.rename(old)
    tmp.rename(latest)
    if old.exists():
        shutil.rmtree(old)


def read_record(run_dir: str | os.PathLike) -> dict[str, Any]:
    """The JSON record of a finished run: ``results.json.gz``, or an older ``results.json``."""
    from ..errors import InputError
    path = Path(run_dir) / RECORD
    try:
        if path.exists():
            return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
        path = Path(run_dir) / "results.json"
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, EOFError) as exc:
        raise InputError(f"{path}: cannot read a bench result: {exc}") from None


def load_run(run_dir: str | os.PathLike) -> BenchRun:
    """A :class:`BenchRun` back from its record (:func:`read_record`; to re-render its report)."""
    from datetime import datetime

    from .runner import BenchConfig
    from .suite import load_suite
    data = read_record(run_dir)
    spec = data.get("suite_path") or data["suite"]
    suite = load_suite(spec if Path(spec).exists() else data["suite"])
    config = BenchConfig(methods=data["methods"], repeat=data.get("repeat", 1),
                         jobs=data.get("jobs") or 1, command=data.get("command", ""),
                         tune={k: tuple(v) if isinstance(v, list) else v for k, v in (data.get("tune") or {}).items()})
    return BenchRun(suite=suite, config=config, methods=data["methods"],
                    externals=data.get("externals", []), rows=data["rows"],
                    started=datetime.fromisoformat(data["started"]), seconds=data["seconds"],
                    time_limit=data["time_limit"], memory_limit=data["memory_limit_mb"],
                    notes=data.get("notes", []), jobs=data.get("jobs") or 1, machine=data.get("machine", ""))


def rerender(run_dir: str | os.PathLike, plot: bool = True) -> Path:
    """Rewrite ``summary.md`` (and plots) of a finished run from its record."""
    run = load_run(run_dir)
    out = Path(run_dir)
    plots = []
    if plot:
        from .plots import make_plots
        plots = make_plots(run, out)
    with atomic_write(out / "summary.md") as fh:
        fh.write(summary_md(run, plots))
    return out
