"""Scoring benchmark: time and pruned cache size vs URLearning's scorer and GOBNILP's caches.

Run ``python -m lpbn.scoring.benchmark [--out results/scoring] [--names letter adult ...]``.

For each eBNSL CSV (BIC, at most 3 parents, as in ``anchors/ANCHORS.md``) it records

* ``process_s``: wall time of a fresh ``python -m lpbn score`` process (interpreter start,
  imports, numba cache load, reading, scoring, writing) — comparable to URLearning's whole
  process time in ANCHORS.md;
* ``first_s`` / ``warm_s``: in-process ``score_data`` time of the first call (numba kernels
  loaded from the on-disk cache) and of a repeated call (min of ``--repeat``), with
  ``jobs=1`` and ``jobs=2``;
* ``compile_s`` (once): a process with an empty ``NUMBA_CACHE_DIR`` (full JIT compilation);
* candidate sets: ours, GOBNILP's ``.jkl`` and URLearning's ``.pss`` when present.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT = ["letter", "adult", "mushroom", "alarm1000", "insurance1000"]
URL_SCORE_S = {"wine": 0.02, "voting": 0.09, "zoo": 0.02, "nltcs": 0.04, "hepatitis": 0.05,
               "adult": 0.15, "letter": 0.37, "parkinsons": 0.09, "mushroom": 1.49, "sensors": 0.56,
               "autos": 0.15, "horse": 0.22, "steel": 0.43, "flag": 0.24}


def _root() -> Path:
    return Path(__file__).resolve().parents[2]


def _count_jkl(path: Path) -> int | None:
    for p in (path, path.with_name(path.name + ".gz")):
        if p.exists():
            import lpbn
            return lpbn.read_scores(p).m
    return None


def _process_time(csv_path: Path, out: Path, env=None) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lpbn", "score", str(csv_path), "-o", str(out),
                    "--max-parents", "3", "--quiet"], check=True, env=env)
    return time.perf_counter() - t


def run(names: list[str], out_dir: Path, instances: Path, compile_once: bool = True,
        repeat: int = 3) -> list[dict]:
    import lpbn
    from lpbn.scoring import read_data
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="lpbn-bench-"))
    if compile_once:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / "numba-cold"))
        compile_s = _process_time(instances / "alisterl__eBNSL" / "CSV" / "iris.csv", tmp / "c.jkl", env)
    else:
        compile_s = float("nan")
    for name in names:
        csv_path = instances / "alisterl__eBNSL" / "CSV" / f"{name}.csv"
        proc = min(_process_time(csv_path, tmp / f"{name}.jkl") for _ in range(2))
        ds = read_data(csv_path)
        rec = {"name": name, "n": ds.n, "N": ds.N, "process_s": round(proc, 3)}
        for jobs in (1, 2):
            t = time.perf_counter()
            c = lpbn.score_data(ds, max_parents=3, jobs=jobs)
            first = time.perf_counter() - t
            warm = float("inf")
            for _ in range(repeat):  # min over repeats: the machine is shared
                t = time.perf_counter()
                c = lpbn.score_data(ds, max_parents=3, jobs=jobs)
                warm = min(warm, time.perf_counter() - t)
            rec[f"first_s_j{jobs}"] = round(first, 3)
            rec[f"warm_s_j{jobs}"] = round(warm, 3)
            if jobs == 1:
                c1 = c
        t = time.perf_counter()
        read_data(csv_path)
        rec["read_s"] = round(time.perf_counter() - t, 3)
        sc = c1.meta["scoring"]
        rec.update(candidates_before=sc["candidates_before"], ours=c1.m,
                   families_counted=sc["families_counted"],
                   gobnilp=_count_jkl(instances / "anchors" / "gobnilp-bic3" / f"{name}.BIC.p3.jkl"),
                   urlearning_pss=None, urlearning_score_s=URL_SCORE_S.get(name))
        pss = instances / "anchors" / "urlearning-pss" / f"{name}.BIC.p3.pss"
        if pss.exists():
            rec["urlearning_pss"] = lpbn.read_scores(pss).m
        rows.append(rec)
        print(rec, flush=True)
    write(rows, out_dir, compile_s, names)
    return rows


def write(rows: list[dict], out_dir: Path, compile_s: float, names: list[str]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    keys = list(rows[0])
    with open(out_dir / "benchmark.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    lines = [
        "# Scoring benchmark (BIC, at most 3 parents, eBNSL CSVs)",
        "",
        f"Command: `python -m lpbn.scoring.benchmark --names {' '.join(names)}`  ",
        f"Machine: 2 cores shared with other jobs; times in seconds (wall). "
        f"Full numba compilation (empty NUMBA_CACHE_DIR, iris): {compile_s:.1f} s (one-off).",
        "",
        "| data | n | N | lpbn process | lpbn first call j1 | warm j1 | warm j2 | read | URLearning scorer | "
        "sets before | lpbn sets | GOBNILP sets | URLearning sets | families counted |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['n']} | {r['N']} | {r['process_s']:.2f} | {r['first_s_j1']:.2f} | "
            f"{r['warm_s_j1']:.2f} | {r['warm_s_j2']:.2f} | {r['read_s']:.2f} | "
            f"{r['urlearning_score_s'] if r['urlearning_score_s'] is not None else '—'} | "
            f"{r['candidates_before']} | {r['ours']} | {r['gobnilp'] if r['gobnilp'] is not None else '—'} | "
            f"{r['urlearning_pss'] if r['urlearning_pss'] is not None else '—'} | {r['families_counted']} |")
    lines += ["", "families counted = counting passes with jobs=1 (the rest come from the joint-table memo "
              "or are cut). process = fresh `python -m lpbn score` process, best of 2 (imports + numba cache load + "
              "read + score + write); first call = in-process `score_data` with kernels loaded from the "
              "numba cache; warm = repeated call, min of 3; j2 = `jobs=2` (process pool, includes pool start).", ""]
    (out_dir / "benchmark.md").write_text("\n".join(lines))


def agreement(instances: Path, out_dir: Path) -> list[str]:
    """Compare our BIC ≤ 3 caches with every ``anchors/gobnilp-bic3`` cache (GOBNILP)."""
    import lpbn
    lines = ["# Agreement with GOBNILP's BIC caches (≤ 3 parents)", "",
             "Command: `python -m lpbn.scoring.benchmark --agreement`", "",
             "| data | lpbn sets | GOBNILP sets | common | max abs diff | GOBNILP sets we pruned "
             "| of which not subset-dominated | lpbn s |", "|---|---|---|---|---|---|---|---|"]
    for p in sorted((instances / "anchors" / "gobnilp-bic3").glob("*.BIC.p3.jkl*")):
        name = p.name.split(".BIC")[0]
        t = time.perf_counter()
        ours = lpbn.score_data(instances / "alisterl__eBNSL" / "CSV" / f"{name}.csv", max_parents=3)
        dt = time.perf_counter() - t
        gob = lpbn.read_scores(p)
        common = missing = bad = 0
        maxdiff = 0.0
        for i in range(gob.n):
            for j in gob.family_range(i):
                ps = gob.parents(j)
                sc = ours.local_score(i, ps)
                if sc is None:
                    missing += 1
                    if ours.best_parent_set(i, list(ps))[1] < gob.scores[j] - 1e-6:
                        bad += 1
                else:
                    common += 1
                    maxdiff = max(maxdiff, abs(sc - gob.scores[j]))
        lines.append(f"| {name} | {ours.m} | {gob.m} | {common} | {maxdiff:.1e} | {missing} | {bad} | {dt:.2f} |")
        print(lines[-1], flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "gobnilp_agreement.md").write_text("\n".join(lines) + "\n")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=DEFAULT)
    ap.add_argument("--out", default=str(_root() / "results" / "scoring"))
    ap.add_argument("--instances", default=str(_root() / "instances"))
    ap.add_argument("--no-compile", action="store_true", help="skip the cold-compilation run")
    ap.add_argument("--repeat", type=int, default=3, help="warm repeats (the minimum is reported)")
    ap.add_argument("--agreement", action="store_true",
                    help="instead: compare with every GOBNILP BIC cache in anchors/gobnilp-bic3")
    a = ap.parse_args(argv)
    if a.agreement:
        agreement(Path(a.instances), Path(a.out))
        return 0
    run(a.names, Path(a.out), Path(a.instances), not a.no_compile, a.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
