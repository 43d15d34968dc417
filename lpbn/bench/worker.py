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
    apply to a peer solver too.

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


def run_solve(job: dict[str, Any]) -> dict[str, Any]:
    import lpbn
    t0 = time.perf_counter()
    cache = lpbn.read_scores(job["file"])
    out: dict[str, Any] = {"read_seconds": time.perf_counter() - t0, "n": cache.n, "m": cache.m}
    seconds = []
    result = None
    for _ in range(max(1, int(job.get("repeat", 1)))):
        result = lpbn.solve(cache, method=job["method"], time_limit=job.get("time_limit"),
                            **job.get("options", {}))
        seconds.append(float(result.seconds))
    problem, rescored = check_dag(cache, result)
    if job.get("truth"):
        out["truth"] = truth_metrics(result, job["truth"])
    out.update(status=result.status, score=_num(result.score), upper_bound=_num(result.upper_bound),
               gap=_num(result.gap), seconds_all=seconds, stats=sanitize(result.stats),
               trace=thin_trace(result.trace), message=str(result.message or ""),
               dag_problem=problem, rescored=rescored,
               parents=result.dag.parent_names() if result.dag is not None else None)
    return out


def run_score(job: dict[str, Any]) -> dict[str, Any]:
    """Score the data (or a generated synthetic data set, whose true network is saved to
    ``truth_out`` with its score) and write the cache; report the exploration and peak RSS."""
    import lpbn
    out: dict[str, Any] = {}
    data = job.get("data")
    scoring = dict(job.get("scoring", {}))
    if job.get("synthetic"):
        from lpbn.scoring.dag_score import score_dag
        from lpbn.synthetic import random_dataset
        syn = dict(job["synthetic"])
        t0 = time.perf_counter()
        net, data = random_dataset(syn.pop("variables"), syn.pop("rows"), **syn)
        out["generate_seconds"] = time.perf_counter() - t0
        net.save(job["truth_out"])
        out["truth_score"] = score_dag(data, net.dag, scoring.get("score", "bic"), scoring.get("ess", 1.0))
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


def _peak_rss_mb() -> float:
    """Largest resident set of this process and of its (waited-for) workers, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0


def truth_metrics(result, truth_path: str) -> dict[str, Any]:
    """Structural Hamming distance and friends of the returned DAG to the true network."""
    from lpbn.metrics import edge_confusion, moral_hamming_distance
    from lpbn.network import BayesianNetwork
    true = BayesianNetwork.load(truth_path).dag
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
        return run_score(job) if job["kind"] == "score" else run_solve(job)
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
    write_json(argv[1], run_job(job))
    return 0


if __name__ == "__main__":
    sys.exit(main())
