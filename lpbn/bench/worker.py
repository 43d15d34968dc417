"""One benchmark run in its own process: ``python -m lpbn.bench.worker JOB.json OUT.json``.

The harness (:mod:`lpbn.bench.runner`) writes a job file, starts this module in a fresh
process and reaps it with ``os.wait4`` (for the peak RSS).  The worker first caps its own
address space (``resource.setrlimit(RLIMIT_AS)``), so a runaway method dies here and not
in the harness, then does one of three things:

``solve``
    read the cache, run ``lpbn.solve`` ``repeat`` times, re-score the DAG it returned
    against the cache (acyclic, every parent set a candidate, score as reported) and write
    status, score, bound, seconds, stats and trace to ``OUT.json``;
``score``
    compute a cache from data (or from a generated synthetic data set, saving the true
    network) with ``lpbn.score_data`` and write it (for ``solve`` runs);
``exec``
    replace itself by an external command (``os.execvp``), so the limits and ``wait4``
    apply to a peer solver too;
``score_bench``
    the ``score`` bench method: read the data, time ``lpbn.score_data`` ``repeat`` times and
    compare the cache with the entry's reference cache (e.g. GOBNILP's, same score): sets in
    both, largest score difference, reference sets we pruned that no kept subset dominates;
``gap`` / ``check``
    the ``gap`` and ``check`` bench methods: ``lpbn gap FILE --format json`` (the LP-bound
    table of Jaakkola et al. 2010, §7) and ``lpbn check FILE --format json`` (LP duality and
    agreement of the exact methods), run through :func:`lpbn.cli.main` in this process.

Only the standard library is imported at module level: ``exec`` jobs start fast.
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import time
import traceback
from pathlib import Path
from typing import Any

#: Traces longer than this are thinned (first, last and evenly spaced points kept).
MAX_TRACE_POINTS = 400


def apply_limits(memory_limit_mb: float | None) -> None:
    """Cap this process's address space and disable core dumps (a crash is a row, not a file)."""
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass
    if memory_limit_mb:
        limit = int(memory_limit_mb * 2**20)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def apply_tuning(tune: dict[str, Any] | None) -> None:
    """Set ``lpbn bench --tune`` overrides (checked by :func:`lpbn.bench.tune.parse_tune`) in
    lpbn.tuning before the rest of lpbn is imported: lpbn/tuning.py imports nothing, so it is
    loaded here on its own and registered as ``lpbn.tuning``; the lpbn modules imported later
    bind the overridden values (``from .tuning import X``) or read them at call time."""
    if not tune:
        return
    import importlib.util
    if any(m == "lpbn" or m.startswith("lpbn.") for m in sys.modules):
        raise RuntimeError("lpbn bench --tune: lpbn was imported before the overrides were set")
    package = importlib.util.find_spec("lpbn")  # a top-level spec: lpbn is not imported
    path = Path(package.submodule_search_locations[0]) / "tuning.py"
    spec = importlib.util.spec_from_file_location("lpbn.tuning", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["lpbn.tuning"] = module
    for name, value in tune.items():
        current = getattr(module, name)
        setattr(module, name, tuple(value) if isinstance(current, tuple) else value)


def load_plugins(plugins: list[str]) -> None:
    """Import plugin modules (a dotted name or a ``.py`` path) that may ``register_method``;
    a plugin that is missing or fails to import is an :class:`~lpbn.errors.InputError`."""
    import importlib
    import importlib.util

    from lpbn.errors import InputError
    for spec in plugins:
        if spec.endswith(".py") or os.sep in spec:
            path = Path(spec)
            if not path.is_file():
                raise InputError(f"--plugin {spec}: no such file")
            name = f"_lpbn_bench_plugin_{path.stem}"
            if name in sys.modules:
                continue
            mod_spec = importlib.util.spec_from_file_location(name, path)
            if mod_spec is None or mod_spec.loader is None:
                raise InputError(f"--plugin {spec}: not an importable Python file")
            module = importlib.util.module_from_spec(mod_spec)
            sys.modules[name] = module
            try:
                mod_spec.loader.exec_module(module)
            except Exception as exc:
                del sys.modules[name]
                raise InputError(f"--plugin {spec}: importing it failed: {type(exc).__name__}: {exc}") from exc
        else:
            try:
                importlib.import_module(spec)
            except ImportError as exc:
                raise InputError(f"--plugin {spec}: cannot import it ({exc})") from exc


def sanitize(x: Any, depth: int = 0) -> Any:
    """A JSON-safe copy: numpy scalars to Python, non-finite floats to None, big arrays elided."""
    if depth > 6:
        return repr(x)[:200]
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {str(k): sanitize(v, depth + 1) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        if len(x) > 50:
            return f"<{len(x)} items>"
        return [sanitize(v, depth + 1) for v in x]
    item = getattr(x, "item", None)
    shape = getattr(x, "shape", None)
    if shape == () and callable(item):
        return sanitize(item(), depth + 1)
    if shape is not None:
        return f"<array shape {tuple(shape)}>"
    return repr(x)[:200]


def thin_trace(trace: list) -> list:
    """At most :data:`MAX_TRACE_POINTS` points of a ``(seconds, best, bound)`` trace."""
    pts = [[float(t), _num(a), _num(b)] for t, a, b in trace]
    if len(pts) <= MAX_TRACE_POINTS:
        return pts
    step = (len(pts) - 1) / (MAX_TRACE_POINTS - 1)
    return [pts[round(k * step)] for k in range(MAX_TRACE_POINTS)]


def _num(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def check_dag(cache, result) -> tuple[str, float | None]:
    """Independent check of a returned DAG: ``(problem or "", re-scored total)``."""
    dag = result.dag
    if dag is None:
        if result.status == "optimal":
            return "status optimal but no DAG returned", None
        return "", None
    if tuple(dag.names) != tuple(cache.names):
        return "DAG variables differ from the cache's", None
    cycle = dag.find_cycle()
    if cycle is not None:
        return "DAG has a directed cycle through " + " -> ".join(cache.names[v] for v in cycle), None
    total = 0.0
    for i, ps in enumerate(dag.parents):
        s = cache.local_score(i, ps)
        if s is None:
            names = ",".join(cache.names[p] for p in ps) or "{}"
            return f"parent set {{{names}}} of {cache.names[i]} is not a candidate", None
        total += s
    if math.isfinite(result.score) and abs(total - result.score) > 1e-9 * max(1.0, abs(total)):
        return f"reported score {result.score!r} but the DAG scores {total!r}", total
    return "", total


def check_kbest(cache, result) -> str:
    """Independent check of a k-best list: every entry re-scored (acyclic, candidate parent
    sets, score as reported), best first, distinct, and the first entry is ``result.dag``."""
    from lpbn.result import DAG
    sols = result.solutions or []
    index = {name: i for i, name in enumerate(cache.names)}
    seen = set()
    last = math.inf
    for r, s in enumerate(sols, 1):
        try:
            dag = DAG(cache.names, [[index[p] for p in s["parents"][v]] for v in cache.names])
        except KeyError as exc:
            return f"solution {r}: unknown variable {exc}"
        if dag.find_cycle() is not None:
            return f"solution {r} has a directed cycle"
        total = 0.0
        for i, ps in enumerate(dag.parents):
            ls = cache.local_score(i, ps)
            if ls is None:
                return f"solution {r}: a parent set of {cache.names[i]} is not a candidate"
            total += ls
        if abs(total - s["score"]) > 1e-9 * max(1.0, abs(total)):
            return f"solution {r} reports {s['score']!r} but scores {total!r}"
        if s["score"] > last + 1e-9 * max(1.0, abs(last)):
            return f"solution {r} scores above solution {r - 1}"
        last = s["score"]
        if dag.parents in seen:
            return f"solution {r} is listed twice"
        seen.add(dag.parents)
        if r == 1 and result.dag is not None and result.dag.parents != dag.parents:
            return "the result's DAG is not the first solution"
    st = result.stats
    if sols:
        k = int(st.get("k", len(sols)))
        st["kth_score"] = float(sols[min(k, len(sols)) - 1]["score"])
    st["solutions_checked"] = len(sols)
    return ""


def run_solve(job: dict[str, Any]) -> dict[str, Any]:
    import lpbn
    t0 = time.perf_counter()
    cache = lpbn.read_scores(job["file"])
    out: dict[str, Any] = {"read_seconds": time.perf_counter() - t0, "n": cache.n, "m": cache.m}
    seconds = []
    result = None
    kbest = {"k_best": job["k_best"], "classes": bool(job.get("classes"))} if job.get("k_best") else {}
    for _ in range(max(1, int(job.get("repeat", 1)))):
        result = lpbn.solve(cache, method=job["method"], time_limit=job.get("time_limit"),
                            **kbest, **job.get("options", {}))
        seconds.append(float(result.seconds))
    problem, rescored = check_dag(cache, result)
    if kbest and not problem:
        problem = check_kbest(cache, result)
    if job.get("truth"):
        out["truth"] = truth_metrics(result, job["truth"])
    out.update(status=result.status, score=_num(result.score), upper_bound=_num(result.upper_bound),
               gap=_num(result.gap), seconds_all=seconds, stats=sanitize(result.stats),
               trace=thin_trace(result.trace), message=str(result.message or ""),
               dag_problem=problem, rescored=rescored, solver=_solver(result, job["method"]),
               parents=result.dag.parent_names() if result.dag is not None else None)
    return out


def _solver(result, method: str) -> str:
    """The method behind ``result``: the one that answered, or ``race`` when a race ended
    without a proof and its answer combines both methods' DAG and bound."""
    race = (result.stats or {}).get("race")
    if race is not None and race.get("rival_started") and race.get("winner") is None:
        return "race"
    return str(result.method or method)


def run_score(job: dict[str, Any]) -> dict[str, Any]:
    """Score the data (or a generated synthetic data set, whose true network is saved to
    ``truth_out`` with its score) and write the cache; report the exploration and peak RSS."""
    import lpbn
    out: dict[str, Any] = {}
    data = job.get("data")
    scoring = dict(job.get("scoring", {}))
    if job.get("synthetic") and job["synthetic"].get("model"):
        from lpbn.gaussian_network import random_gaussian_dataset
        from lpbn.scoring.continuous import dag_score
        syn = dict(job["synthetic"])
        t0 = time.perf_counter()
        net, data = random_gaussian_dataset(syn.pop("variables"), syn.pop("rows"), **syn)
        out["generate_seconds"] = time.perf_counter() - t0
        net.save(job["truth_out"])
        out["truth_score"] = dag_score(data, scoring.get("score", "bic-g"), net.parents)
        if job.get("data_out"):      # for external peers' {data}: the same rows as a CSV
            import numpy as np
            rows = np.where(data.continuous[None, :], data.values, np.asarray(data.codes, dtype=np.float64).T)
            net.write_csv(job["data_out"], rows)
            out["data_out"] = job["data_out"]
    elif job.get("synthetic"):
        from lpbn.scoring.dag_score import score_dag
        from lpbn.synthetic import random_dataset
        syn = dict(job["synthetic"])
        t0 = time.perf_counter()
        net, data = random_dataset(syn.pop("variables"), syn.pop("rows"), **syn)
        out["generate_seconds"] = time.perf_counter() - t0
        net.save(job["truth_out"])
        out["truth_score"] = score_dag(data, net.dag, scoring.get("score", "bic"), scoring.get("ess", 1.0))
        if job.get("data_out"):      # for external peers' {data}: the same rows as a CSV
            from lpbn.synthetic import write_csv
            write_csv(job["data_out"], data.names, data.columns)
            out["data_out"] = job["data_out"]
    t0 = time.perf_counter()
    cache = lpbn.score_data(data, **scoring)
    seconds = time.perf_counter() - t0
    lpbn.write_scores(cache, job["cache_out"])
    sc = cache.meta.get("scoring", {})
    out.update(status="scored", score_seconds=seconds, n=cache.n, m=cache.m,
               explore={"strategy": cache.meta.get("explore"), "jobs": sc.get("jobs"),
                        "time_per_variable": sc.get("time_per_variable"),
                        "sets_evaluated": sc.get("sets_evaluated", sc.get("families_counted")),
                        "stopped": sc.get("stopped")},
               score_peak_rss_mb=_peak_rss_mb())
    return out


#: ``score_data`` keywords that belong to reading the data (passed to ``read_data`` instead)
_READ_KEYS = ("header", "missing", "drop_missing", "delimiter", "format")


def run_score_bench(job: dict[str, Any]) -> dict[str, Any]:
    """Time ``lpbn.score_data`` on the entry's data (read once, scored ``repeat`` times) and
    compare the cache with the reference cache ``job["reference"]`` when one is given."""
    import lpbn
    from lpbn.scoring import read_data
    scoring = dict(job.get("scoring", {}))
    reading = {k: scoring.pop(k) for k in _READ_KEYS if k in scoring}
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    if job.get("synthetic"):
        syn = dict(job["synthetic"])
        if syn.get("model"):
            from lpbn.gaussian_network import random_gaussian_dataset as random_dataset
        else:
            from lpbn.synthetic import random_dataset
        _, data = random_dataset(syn.pop("variables"), syn.pop("rows"), **syn)
    else:
        data = read_data(job["data"], **reading)
    out["read_seconds"] = time.perf_counter() - t0
    seconds = []
    cache = None
    for _ in range(max(1, int(job.get("repeat", 1)))):
        t0 = time.perf_counter()
        cache = lpbn.score_data(data, **scoring)
        seconds.append(time.perf_counter() - t0)
    assert cache is not None
    sc = cache.meta.get("scoring", {})
    stats: dict[str, Any] = {"rows": int(getattr(data, "N", 0) or 0) or None,
                             "candidates_before": sc.get("candidates_before"),
                             "families_counted": sc.get("families_counted"),
                             "explore": cache.meta.get("explore"), "first_seconds": seconds[0],
                             "min_seconds": min(seconds)}
    problems: list[str] = []
    if job.get("reference"):
        ref = lpbn.read_scores(job["reference"])
        stats["reference"] = compare_caches(cache, ref, float(job.get("rtol", 1e-6)), problems)
    out.update(status="scored", seconds_all=seconds, n=cache.n, m=cache.m, stats=sanitize(stats),
               problems=problems, message="; ".join(problems))
    return out


def compare_caches(ours, ref, rtol: float, problems: list[str]) -> dict[str, Any]:
    """Our cache against a reference cache of the same data and score: sets in both, the largest
    score difference on them, and reference sets we pruned -- each must be dominated by a kept
    subset scoring at least as well (safe pruning), else it is a problem."""
    if sorted(ours.names) != sorted(ref.names):
        return {"sets": ref.m, "note": "variable names differ; not compared"}
    to_ours = [ours.index(name) for name in ref.names]
    common = pruned = undominated = 0
    maxdiff = 0.0
    worst = ""
    for i in range(ref.n):
        oi = to_ours[i]
        for j in ref.family_range(i):
            ps = tuple(to_ours[p] for p in ref.parents(j))
            rs = float(ref.scores[j])
            s = ours.local_score(oi, ps)
            tol = rtol * max(1.0, abs(rs))
            if s is None:
                pruned += 1
                if ours.best_parent_set(oi, list(ps))[1] < rs - tol:
                    undominated += 1
                    if not worst:
                        worst = f"{ref.names[i]} <- {{{','.join(ref.names[p] for p in ref.parents(j))}}}"
            else:
                common += 1
                d = abs(s - rs)
                if d > maxdiff:
                    maxdiff = d
                if d > tol and len(problems) < 3:
                    problems.append(f"local score of {ref.names[i]} differs from the reference by {d:.3g}")
    if undominated:
        problems.append(f"{undominated} reference parent set(s) pruned although no kept subset "
                        f"scores as well (first: {worst})")
    return {"sets": ref.m, "common": common, "max_abs_diff": maxdiff, "pruned": pruned,
            "pruned_undominated": undominated}


def run_tool(job: dict[str, Any]) -> dict[str, Any]:
    """``lpbn gap`` or ``lpbn check`` on the cache (through the command line, in this process);
    the JSON it writes becomes the row."""
    from lpbn.cli import main as cli_main
    kind, opts = job["kind"], dict(job.get("options", {}))
    report = f"{job['out']}.{kind}.json"
    argv = [kind, job["file"], "--format", "json", "-o", report]
    if job.get("time_limit"):
        argv += ["--time-limit", repr(float(job["time_limit"]))]
    if kind == "gap" and job.get("optimum") is not None:
        argv += ["--optimum", repr(float(job["optimum"]))]
    for key, val in opts.items():
        flag = "--" + key.replace("_", "-")
        if val is True:
            argv.append(flag)
        elif val not in (False, None):
            argv += [flag, ",".join(map(str, val)) if isinstance(val, list) else str(val)]
    t0 = time.perf_counter()
    rc = cli_main(argv)
    seconds = time.perf_counter() - t0
    if not os.path.exists(report):
        return {"status": "error", "message": f"lpbn {kind} exited with {rc} and wrote no report"}
    data = json.loads(Path(report).read_text(encoding="utf-8"))
    out: dict[str, Any] = {"n": data.get("n"), "seconds_all": [seconds]}
    if kind == "gap":
        rows = data.get("rows", [])
        best = next((r["value"] for r in rows if r["key"] == "best" and r["value"] is not None), None)
        bounds = [r["value"] for r in rows if r["key"] not in ("best", "optimum")
                  and r["value"] is not None and r.get("complete")]
        ub = min(bounds) if bounds else None
        gap = None
        if best is not None and ub is not None:
            gap = (ub - best) / max(1e-12, abs(best))
        out.update(status="finished", score=best, upper_bound=ub, gap=gap, m=data.get("candidates"),
                   stats={"table": sanitize(rows)})
    else:
        failures = [c for c in data.get("checks", []) if c.get("ok") is False]
        lines = [("PASS" if c.get("ok") else "SKIP" if c.get("ok") is None else "FAIL")
                 + f"  {c['name']}: {c['detail']}" for c in data.get("checks", [])]
        out.update(status="agree" if data.get("ok") else "disagree",
                   problems=[f"lpbn check: {c['name']}: {c['detail']}" for c in failures],
                   stats={"checks": lines[:50], "passed": sum(c.get("ok") is True for c in data.get("checks", [])),
                          "failed": len(failures)},
                   message=f"{len(lines)} checks, {len(failures)} failed")
    return out


def _peak_rss_mb() -> float:
    """Largest resident set of this process and of its (waited-for) workers, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def truth_metrics(result, truth_path: str) -> dict[str, Any]:
    """Structural Hamming distance and friends of the returned DAG to the true network."""
    from lpbn.gaussian_network import load_dag
    from lpbn.metrics import edge_confusion, moral_hamming_distance
    true = load_dag(truth_path)
    if result.dag is None:
        return {"true_edges": len(true.edges)}
    conf = edge_confusion(true, result.dag)
    return {"shd": conf["shd"], "moral_hd": moral_hamming_distance(true, result.dag),
            "true_edges": len(true.edges), "learned_edges": len(result.dag.edges),
            "precision": conf["precision"], "recall": conf["recall"]}


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run a ``solve`` or ``score`` job; failures become a status, never an exception."""
    try:
        load_plugins(job.get("plugins", []))
        kind = job["kind"]
        if kind == "score":
            return run_score(job)
        if kind == "score_bench":
            return run_score_bench(job)
        if kind in ("gap", "check"):
            return run_tool(job)
        return run_solve(job)
    except MemoryError:
        return {"status": "memout", "message": "MemoryError (address-space limit "
                f"{job.get('memory_limit_mb')} MB)"}
    except Exception as exc:  # classified below; the harness records it as a row
        from lpbn.errors import InputError, ResourceLimitError
        msg = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, ResourceLimitError):
            return {"status": "refused", "message": str(exc)}
        if isinstance(exc, InputError):
            return {"status": "error", "message": str(exc)}
        tb = traceback.format_exc().strip().splitlines()
        return {"status": "crash", "message": msg, "traceback": tb[-12:]}


def write_json(path: str, obj: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m lpbn.bench.worker JOB.json OUT.json", file=sys.stderr)
        return 2
    job = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    apply_limits(job.get("memory_limit_mb"))
    if job["kind"] == "exec":
        cmd = job["argv"]
        try:
            os.execvp(cmd[0], cmd)
        except OSError as exc:
            print(f"cannot run {cmd[0]!r}: {exc.strerror}", file=sys.stderr)
            return 127
    job.setdefault("out", argv[1])
    apply_tuning(job.get("tune"))
    from lpbn.startup import light_numba_cache_loads, skip_numba_blas_probe
    skip_numba_blas_probe()  # as the lpbn command does: process_seconds is what users feel
    light_numba_cache_loads()
    write_json(argv[1], run_job(job))
    return 0


if __name__ == "__main__":
    sys.exit(main())
