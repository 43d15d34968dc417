"""Benchmark suites: TOML files that list instances, their score type and known optima.

A suite is read with the standard library's :mod:`tomllib`.  Schema (every key but
``instance`` entries' ``file``/``data`` is optional)::

    name = "smoke"                 # defaults to the file stem
    description = "..."
    base = "../.."                 # paths are relative to <suite dir>/<base> (default ".")
    methods = ["dp", "dual"]       # default methods (those not available are left out)
    time_limit = 10.0              # seconds per run (default 60)
    memory_limit = 4096            # MB of address space per run (default 8192)
    jobs = 2                       # runs in parallel (default 1)
    trace_plots = ["wine"]         # instances whose bound/incumbent trace is plotted
    k_best = 1000                  # list the K best DAGs (lpbn.solve(k_best=K)) instead of one
    classes = false                # ... or the K best Markov equivalence classes

    [limits.dp]                    # per-method limits checked before a run is launched
    max_n = 26                     # larger instances are recorded as 'skipped'

    [options.dual]                 # keyword options passed to lpbn.solve for that method
    some_option = 1

    [[instance]]
    name = "wine"
    file = "instances/alisterl__eBNSL/scores/wine.BIC.3"   # a score file (jkl, pss, .gz) ...
    data = "instances/alisterl__eBNSL/CSV/wine.csv"        # ... or data to score with
    scoring = { score = "bic", max_parents = 3 }           #     lpbn.score_data(data, **scoring)
    # or: synthetic = { variables = 2000, rows = 5000, seed = 1 }  (lpbn.synthetic.random_dataset;
    #     the true network is kept, and each DAG's structural Hamming distance to it reported)
    score_type = "BIC"
    n = 14
    optimum = -1258.44590861
    optimum_source = "GOBNILP (ANCHORS.md)"
    optimum_rtol = 1e-6            # tolerance of the check (default 1e-6 relative)
    time_limit = 600               # this instance's own limit (default: the suite's)
    k_best = 100                   # this instance's own K (default: the suite's)
    classes = true                 # this instance's own choice (default: the suite's)
    peers = { gobnilp = { seconds = 0.84, status = "optimal", best = -1258.44590861 } }

With both ``data`` and ``file``, the file is the equivalent cache used when scoring is
unavailable or ``source="cache"`` is asked for.  Paths starting with ``../shared/`` point
to the shared benchmark collection (``$LPBN_SHARED`` overrides its location); instances
whose files are absent are recorded as ``absent`` rows, never as failures.

With ``k_best`` (suite or entry), every solver run of that entry is a k-best run
(``lpbn.solve(cache, method, k_best=K, classes=...)``): the worker re-scores every listed DAG,
the row's score is the best one (checked against ``optimum`` as usual), and the report adds a
k-best table (K, listed, K-th score, nodes, ...).  Its engine's DP-table memory limit is the
run's memory limit less :data:`KBEST_HEADROOM_MB` unless ``[options.METHOD]`` sets
``memory_limit`` (bytes).
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bundled import instances_dir
from ..errors import InputError

#: Relative tolerance of the optimum check (issue 7: "known optimum ... 1e-6 relative").
DEFAULT_RTOL = 1e-6
DEFAULT_TIME_LIMIT = 60.0
DEFAULT_MEMORY_LIMIT_MB = 8192

#: memory (MB) a k-best run keeps for the interpreter, numba and the cache besides its DP tables
KBEST_HEADROOM_MB = 1536

_SUITE_KEYS = {"name", "description", "base", "methods", "time_limit", "memory_limit", "jobs",
               "trace_plots", "limits", "options", "instance", "notes", "k_best", "classes"}
_ENTRY_KEYS = {"name", "file", "data", "synthetic", "scoring", "score_type", "n", "optimum",
               "optimum_source", "optimum_rtol", "peers", "note", "trace", "time_limit", "k_best",
               "classes"}
#: keys of a ``synthetic`` table: arguments of :func:`lpbn.synthetic.random_dataset`, or with
#: ``model = "linear-gaussian" | "conditional-gaussian"`` of
#: :func:`lpbn.gaussian_network.random_gaussian_dataset` (``discrete_nodes``)
_SYNTHETIC_KEYS = {"variables", "rows", "seed", "max_in_degree", "arities", "alpha", "model", "discrete_nodes"}


class SuiteError(InputError):
    """A suite file is missing or malformed."""


@dataclass
class Entry:
    """One instance of a suite: a score file, or data plus scoring options."""

    name: str
    file: Path | None = None
    data: Path | None = None
    scoring: dict[str, Any] = field(default_factory=dict)
    score_type: str = ""
    n: int | None = None
    optimum: float | None = None
    optimum_source: str = ""
    optimum_rtol: float = DEFAULT_RTOL
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str = ""
    trace: bool = False
    #: the path as written in the suite (for tables)
    label: str = ""
    #: a generated network and data set instead of a data file (lpbn.synthetic.random_dataset)
    synthetic: dict[str, Any] | None = None
    #: this instance's own time limit per run (overrides the suite's)
    time_limit: float | None = None
    #: list the K best DAGs (or classes) instead of one (None: the suite's setting)
    k_best: int | None = None
    classes: bool | None = None

    def has_file(self) -> bool:
        return self.file is not None and self.file.exists()

    def has_data(self) -> bool:
        return self.synthetic is not None or (self.data is not None and self.data.exists())


@dataclass
class Suite:
    """A named list of :class:`Entry` plus default methods and limits."""

    name: str
    path: Path
    entries: list[Entry]
    description: str = ""
    methods: list[str] = field(default_factory=list)
    time_limit: float = DEFAULT_TIME_LIMIT
    memory_limit: int = DEFAULT_MEMORY_LIMIT_MB
    jobs: int = 1
    trace_plots: list[str] = field(default_factory=list)
    limits: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    k_best: int | None = None
    classes: bool = False

    def entry(self, name: str) -> Entry:
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)


def suites_dir() -> Path:
    """The bundled suites: ``instances/suites`` of the checkout or of the installed package."""
    return instances_dir() / "suites"


def list_suites() -> list[str]:
    d = suites_dir()
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


def find_suite(spec: str | os.PathLike) -> Path:
    """A suite name in ``instances/suites`` or a path to a ``.toml`` file."""
    p = Path(spec)
    if p.suffix == ".toml" or os.sep in str(spec) or p.exists():
        if not p.is_file():
            raise SuiteError(f"{spec}: suite file not found")
        return p
    cand = suites_dir() / f"{spec}.toml"
    if not cand.is_file():
        names = ", ".join(list_suites()) or "none installed"
        raise SuiteError(f"unknown suite {str(spec)!r}; choose from {names} or give a .toml path")
    return cand


def resolve_path(raw: str, base: Path) -> Path:
    """Resolve a suite path; ``../shared/...`` honours ``$LPBN_SHARED``."""
    norm = raw.replace("\\", "/")
    shared = os.environ.get("LPBN_SHARED")
    if shared and norm.startswith("../shared/"):
        return Path(shared) / norm[len("../shared/"):]
    p = Path(raw).expanduser()
    return p if p.is_absolute() else (base / p)


def load_suite(spec: str | os.PathLike) -> Suite:
    """Read and validate a suite (see the module docstring for the schema)."""
    path = find_suite(spec)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read: {exc.strerror}") from None
    unknown = set(raw) - _SUITE_KEYS
    if unknown:
        raise SuiteError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    base = (path.parent / raw.get("base", ".")).resolve()
    items = raw.get("instance", [])
    if not isinstance(items, list) or not items:
        raise SuiteError(f"{path}: a suite needs at least one [[instance]] entry")
    entries = [_entry(item, base, path, k) for k, item in enumerate(items, 1)]
    names = [e.name for e in entries]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise SuiteError(f"{path}: duplicate instance name(s) {', '.join(dup)}")
    suite = Suite(
        name=str(raw.get("name", path.stem)), path=path, entries=entries,
        description=str(raw.get("description", "")),
        methods=_str_list(raw.get("methods", []), path, "methods"),
        time_limit=_positive(raw.get("time_limit", DEFAULT_TIME_LIMIT), path, "time_limit"),
        memory_limit=int(_positive(raw.get("memory_limit", DEFAULT_MEMORY_LIMIT_MB), path,
                                   "memory_limit")),
        jobs=int(_positive(raw.get("jobs", 1), path, "jobs")),
        trace_plots=_str_list(raw.get("trace_plots", []), path, "trace_plots"),
        limits=_tables(raw.get("limits", {}), path, "limits"),
        options=_tables(raw.get("options", {}), path, "options"),
        k_best=_k_best(raw.get("k_best"), str(path)),
        classes=_bool(raw.get("classes", False), str(path), "classes"),
    )
    for e in entries:
        classes = e.classes if e.classes is not None else suite.classes
        if classes and e.k_best is None and suite.k_best is None:
            raise SuiteError(f"{path}: instance {e.name!r}: classes = true needs k_best (the number "
                             "of classes to list)")
    for name in suite.trace_plots:
        if name not in names:
            raise SuiteError(f"{path}: trace_plots names unknown instance {name!r}")
    return suite


def _entry(item: Any, base: Path, path: Path, k: int) -> Entry:
    where = f"{path}: instance #{k}"
    if not isinstance(item, dict):
        raise SuiteError(f"{where}: expected a table")
    unknown = set(item) - _ENTRY_KEYS
    if unknown:
        raise SuiteError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    if sum(k in item for k in ("file", "data", "synthetic")) == 0 or ("synthetic" in item and
                                                                       ("data" in item or "file" in item)):
        raise SuiteError(f"{where}: give 'file' (a score file), 'data' or 'synthetic' (plus 'scoring')")
    file = resolve_path(str(item["file"]), base) if "file" in item else None
    data = resolve_path(str(item["data"]), base) if "data" in item else None
    synthetic = _synthetic(item.get("synthetic"), where)
    label = str(item.get("file", item.get("data", "")))
    if synthetic is not None:
        label = f"synthetic n={synthetic['variables']} N={synthetic['rows']} seed={synthetic.get('seed', 0)}"
    name = str(item.get("name") or Path(label).name)
    scoring = item.get("scoring", {})
    if not isinstance(scoring, dict):
        raise SuiteError(f"{where}: 'scoring' must be a table")
    if (data is not None or synthetic is not None) and "score" not in scoring:
        raise SuiteError(f"{where}: data entries need scoring.score (e.g. \"bic\")")
    optimum = item.get("optimum")
    if optimum is not None:
        if not isinstance(optimum, (int, float)) or not math.isfinite(optimum):
            raise SuiteError(f"{where}: optimum must be a finite number")
        optimum = float(optimum)
    peers = item.get("peers", {})
    if not isinstance(peers, dict) or not all(isinstance(v, dict) for v in peers.values()):
        raise SuiteError(f"{where}: 'peers' must be a table of tables")
    n = item.get("n")
    if n is not None and (not isinstance(n, int) or n < 1):
        raise SuiteError(f"{where}: n must be a positive integer")
    return Entry(name=name, file=file, data=data, scoring=dict(scoring),
                 score_type=str(item.get("score_type", scoring.get("score", ""))), n=n,
                 optimum=optimum, optimum_source=str(item.get("optimum_source", "")),
                 optimum_rtol=_positive(item.get("optimum_rtol", DEFAULT_RTOL), path, "optimum_rtol"),
                 peers=peers, note=str(item.get("note", "")), trace=bool(item.get("trace", False)),
                 label=label, synthetic=synthetic,
                 time_limit=None if "time_limit" not in item else _positive(item["time_limit"], path, "time_limit"),
                 k_best=_k_best(item.get("k_best"), where),
                 classes=None if "classes" not in item else _bool(item["classes"], where, "classes"))


def kbest_of(suite: Suite, e: Entry) -> tuple[int | None, bool]:
    """``(K, classes)`` of the entry's solver runs: its own keys, else the suite's; K None
    means single-solution runs."""
    k = e.k_best if e.k_best is not None else suite.k_best
    classes = e.classes if e.classes is not None else suite.classes
    return k, bool(classes) and k is not None


def _k_best(v: Any, where: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise SuiteError(f"{where}: k_best must be a positive integer, got {v!r}")
    return int(v)


def _bool(v: Any, where: str, key: str) -> bool:
    if not isinstance(v, bool):
        raise SuiteError(f"{where}: {key} must be true or false, got {v!r}")
    return v


def _synthetic(v: Any, where: str) -> dict[str, Any] | None:
    if v is None:
        return None
    if not isinstance(v, dict) or set(v) - _SYNTHETIC_KEYS or not {"variables", "rows"} <= set(v):
        raise SuiteError(f"{where}: 'synthetic' must be a table with variables, rows and optionally "
                         f"{', '.join(sorted(_SYNTHETIC_KEYS - {'variables', 'rows'}))}")
    for key in ("variables", "rows"):
        if not isinstance(v[key], int) or v[key] < 1:
            raise SuiteError(f"{where}: synthetic.{key} must be a positive integer")
    return dict(v)


def _str_list(v: Any, path: Path, key: str) -> list[str]:
    if isinstance(v, str):
        v = [x for x in v.split(",") if x]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise SuiteError(f"{path}: {key} must be a list of strings")
    return list(v)


def _positive(v: Any, path: Path, key: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 or not math.isfinite(v):
        raise SuiteError(f"{path}: {key} must be a positive number, got {v!r}")
    return float(v)


def _tables(v: Any, path: Path, key: str) -> dict[str, dict[str, Any]]:
    if not isinstance(v, dict) or not all(isinstance(x, dict) for x in v.values()):
        raise SuiteError(f"{path}: [{key}] must hold one table per method")
    return {str(k): dict(x) for k, x in v.items()}
