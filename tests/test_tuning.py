"""lpbn.tuning holds every performance-tuning constant, each with its evidence (issue 55, item 4).

Checked on the source: every constant of lpbn/tuning.py has a one-line description and one
evidence line of the fixed form; every module-level (or class-level) numeric constant elsewhere
in lpbn is in :data:`NOT_TUNING` with the reason it is not a tuning constant; and every tuning
constant is read by some module (no dead knob)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lpbn
from lpbn import tuning

ROOT = Path(lpbn.__file__).parent
TUNING = ROOT / "tuning.py"

#: ``evidence: <suite or instances>, <repeats>, <commit>[ — note]`` or
#: ``evidence: none (<why>), <commit>[ — note]``
EVIDENCE = re.compile(
    r"#: evidence: (?:(?P<suite>[^,()]+(?:\([^)]*\))?[^,]*), (?P<repeats>\d+ runs?(?: each)?|runs not recorded)"
    r"|none \((?P<why>[^)]*)\)), (?P<commit>[0-9a-f]{7,40})(?: — .+)?")

#: Module-level numeric constants outside lpbn.tuning that are not performance tuning, by reason.
NOT_TUNING = {
    # correctness tolerances and the bound-safety policy (lpbn.bound, docs/trust.md): they make
    # an answer right, not fast
    "lpbn.bound.SOLVER_FEASIBILITY_TOLERANCE": "the LP solvers' feasibility tolerance",
    "lpbn.bound.EPS": "float64 rounding (a mathematical constant)",
    "lpbn.result.OPTIMALITY_TOLERANCE": "the one optimality tolerance",
    "lpbn.normalise.SANE_LOW": "score range solved as given (bound safety)",
    "lpbn.normalise.SANE_HIGH": "score range solved as given (bound safety)",
    "lpbn.normalise.TARGET": "scale of a normalised copy (bound safety)",
    "lpbn.pricing.TOLERANCE": "pricing threshold slack for rounding",
    "lpbn.canonical.COVERED_RTOL": "score-equivalence tolerance",
    "lpbn.compare.crosscheck.CHECK_TOL": "the project's 1e-6 agreement standard",
    "lpbn.dual.fixing.FIXING_MARGIN": "rounding margin of reduced-cost fixing",
    "lpbn.dual.solver.CONVERGED_RTOL": "convergence tolerance of the exact polish",
    "lpbn.highs.ilp.FIX_RTOL": "rounding room of reduced-cost fixing",
    "lpbn.kbest.collect.TIE_RTOL": "score tie tolerance",
    "lpbn.lp.separation.VIOLATION_TOL": "a row counts as satisfied below it",
    "lpbn.lp.separation.SUPPORT_TOL": "an LP value counts as zero below it",
    "lpbn.lp.zero_half.INTEGRAL_TOL": "an LP value counts as integral within it",
    "lpbn.lp.zero_half.MIN_VIOLATION": "a {0, 1/2}-cut counts as violated above it",
    "lpbn.network.ROW_SUM_TOLERANCE": "CPT row sums",
    "lpbn.scoring.gaussian.REL_PIVOT": "positive definiteness of a Cholesky factor",
    "lpbn.verify.RTOL": "the verifier's comparison tolerance",
    # format and file constants
    "lpbn.verify.VERSION": "certificate format version",
    "lpbn.network.VERSION": "network JSON format version",
    "lpbn.gaussian_network.VERSION": "network JSON format version",
    "lpbn.scoring.table.SNIFF_LINES": "data-file reading rule (delimiter sniffing)",
    "lpbn.scoring.table.HEADER_ROWS": "data-file reading rule (header decision)",
    "lpbn.scoring.table.HEADER_EVIDENCE": "data-file reading rule (header decision, docs/reading.md)",
    "lpbn.atomic.UNNAMED_STALE_SECONDS": "temp-file housekeeping",
    "lpbn.bfbnb.external.UNLOCKED_STALE_SECONDS": "temp-directory housekeeping",
    # structural: kernel status codes, array widths, word sizes
    "lpbn.pricing_itemsets.MAX_K": "structural: the enumeration forms co-occurrence counts of at most 5 variables",
    "lpbn.pricing_itemsets.PAIR_BONUS_MAX_N": "capacity limit: n³ floats of pair bounds",
    "lpbn.pricing_itemsets.MAX_TABLE_BYTES": "capacity limit: memory of the count tables",
    "lpbn.pricing_itemsets.STORE_MAX_BYTES": "capacity limit: memory of the family store",
    "lpbn.bfbnb.kernels.NEED_REFILL": "kernel status code",
    "lpbn.bfbnb.kernels.DONE": "kernel status code",
    "lpbn.bfbnb.kernels.OUTPUT_FULL": "kernel status code",
    "lpbn.bfbnb.kernels.YIELD": "kernel status code",
    "lpbn.bfbnb.options.GIB": "a unit",
    "lpbn.bfbnb.search.MAX_VARIABLES": "one uint64 word per order-graph node",
    "lpbn.kbest.api.MAX_N": "one uint64 word per set",
    "lpbn.lp.numpy_kernels.COLD_MAX_N": "one uint64 word per set",
    "lpbn.lp.exact_separation.ENUM_MAX_VARIABLES": "one uint64 mask per enumerated subset",
    "lpbn.lp.local_cuts.SIZES": "the family polytopes that exist (3, 4, 5 nodes)",
    "lpbn.dual.kernels.MAX_K": "largest k-cluster the CD sweep's arrays hold",
    "lpbn.scoring.explore.frontier.N_STATE": "length of a statistics array",
    "lpbn.scoring.data._MAX_STATE": "states are int32",
    # capacity limits: they decide what is refused (ResourceLimitError, a clear message), not how fast
    "lpbn.brute.MAX_N": "the brute-force reference's size limit",
    "lpbn.brute.MAX_COMBINATIONS": "the brute-force reference's size limit",
    "lpbn.dp.MAX_N": "the subset DP's size limit",
    "lpbn.verify_dp.MAX_N": "exhaustive certificates' memory (16-GB machine)",
    "lpbn.constraints.MAX_ADJACENCY_BRANCHES": "required adjacencies refused beyond 2^8 branches",
    "lpbn.network.MAX_CPT_CELLS": "largest accepted network",
    "lpbn.scoring.constrained.MAX_REQUIRED_SETS": "refused beyond it",
    "lpbn.scoring.context.MAX_CELLS": "count buffers refused beyond 1 GiB",
    "lpbn.scoring.gaussian.MAX_SETS": "refused beyond it (a parent limit is required)",
    "lpbn.cache.MAX_SCORE_SUM": "caches whose sums could overflow are refused",
    # documented API defaults (a method's or tool's option), declared once where documented
    "lpbn.dp.DEFAULT_MEMORY_LIMIT": "dp's memory_limit option",
    "lpbn.bfbnb.options.DEFAULT_MEMORY_LIMIT": "BfbnbOptions.memory_limit",
    "lpbn.compare.crosscheck.DP_MAX_N": "crosscheck's documented method set",
    "lpbn.compare.crosscheck.PULP_MAX_N": "crosscheck's documented method set",
    "lpbn.synthetic.DEFAULT_ALPHA": "a data generator's parameter, not a solver's",
    # a tuning constant kept out on purpose: the verifier imports numpy and the standard library
    # only (it shares nothing with the solvers it checks; tests/test_verify.py)
    "lpbn.verify_dp.BLOCK_BITS": "the verifier's block size (cf51142), kept in the verifier",
    # the benchmark harness (it measures lpbn; its limits are a suite's documented defaults)
    "lpbn.bench.checks.CLOSED_GAP": "harness",
    "lpbn.bench.plots.DPI": "harness (figures)",
    "lpbn.bench.plots.SIZE": "harness (figures)",
    "lpbn.bench.report.GEOMEAN_FLOOR": "harness",
    "lpbn.bench.suite.DEFAULT_RTOL": "harness",
    "lpbn.bench.suite.DEFAULT_TIME_LIMIT": "harness",
    "lpbn.bench.suite.DEFAULT_MEMORY_LIMIT_MB": "harness",
    "lpbn.bench.suite.KBEST_HEADROOM_MB": "harness",
    "lpbn.bench.worker.MAX_TRACE_POINTS": "harness",
}


def _literal(node: ast.AST) -> bool:
    """A number, a signed number, arithmetic with a number in it, or a tuple of such."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.BinOp):
        parts = (node.left, node.right)
        return any(_literal(p) for p in parts) and all(_literal(p) or isinstance(p, ast.Name) for p in parts)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_literal(e) for e in node.elts)
    return False


def _assignments(body, prefix=""):
    for st in body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            yield prefix + st.targets[0].id, st
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            yield prefix + st.target.id, st
        elif isinstance(st, ast.ClassDef):
            yield from _assignments(st.body, prefix + st.name + ".")


def _constant_name(name: str) -> bool:
    return re.fullmatch(r"_?[A-Z][A-Z0-9_]*", name.split(".")[-1]) is not None


def test_every_tuning_constant_has_a_description_and_one_evidence_line():
    lines = TUNING.read_text(encoding="utf-8").splitlines()
    tree = ast.parse(TUNING.read_text(encoding="utf-8"))
    names, problems = [], []
    for name, st in _assignments(tree.body):
        names.append(name)
        comments = []
        i = st.lineno - 2
        while i >= 0 and lines[i].startswith("#:"):
            comments.insert(0, lines[i])
            i -= 1
        if len(comments) != 2 or comments[0].startswith("#: evidence:"):
            problems.append(f"{name}: wants one description line, then one evidence line: {comments!r}")
        elif not EVIDENCE.fullmatch(comments[1]):
            problems.append(f"{name}: evidence line not of the form: {comments[1]!r}")
        if not _literal(st.value):
            problems.append(f"{name}: not a plain value")
    assert not problems, "\n".join(problems)
    assert len(names) == len(set(names)) > 100
    public = sorted(k for k in vars(tuning) if _constant_name(k))
    assert public == sorted(names)


def test_evidence_pattern():
    good = ["#: evidence: uci-bic3 whole suite, 3 runs, 9b7dda9",
            "#: evidence: hailfinder500 only, 1 run, abc1234 — needs a whole-suite sweep",
            "#: evidence: none (a plain choice), 5044367",
            "#: evidence: wdbc/soybean (uci-bic3), runs not recorded, 584d576 — needs a whole-suite sweep"]
    bad = ["#: evidence: uci-bic3, abc1234", "#: evidence: none", "#: evidence: x, 3 runs, HEAD",
           "#: evidence: a, b, 2 runs, abc1234"]
    assert all(EVIDENCE.fullmatch(g) for g in good)
    assert not any(EVIDENCE.fullmatch(b) for b in bad)


def test_no_tuning_constant_outside_lpbn_tuning():
    found = set()
    for path in sorted(ROOT.rglob("*.py")):
        if path == TUNING:
            continue
        module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        for name, st in _assignments(ast.parse(path.read_text(encoding="utf-8")).body):
            if _constant_name(name) and _literal(st.value):
                found.add(f"{module}.{name}")
    unlisted = sorted(found - set(NOT_TUNING))
    assert not unlisted, ("numeric constants outside lpbn/tuning.py: move them there (with their evidence) "
                          f"or list them in NOT_TUNING with the reason: {unlisted}")
    assert not set(NOT_TUNING) - found, f"stale NOT_TUNING entries: {sorted(set(NOT_TUNING) - found)}"


def test_every_tuning_constant_is_read_somewhere():
    source = "\n".join(p.read_text(encoding="utf-8") for p in ROOT.rglob("*.py") if p != TUNING)
    dead = [k for k in vars(tuning) if _constant_name(k) and not re.search(rf"\b{k}\b", source)]
    assert not dead, dead


def test_compiled_lists_the_tuning_constants_read_inside_numba_kernels():
    """numba freezes a global into the compiled, cached kernel: ``lpbn bench --tune`` refuses
    those constants (lpbn.bench.tune.COMPILED) rather than silently not applying them."""
    from lpbn.bench.tune import COMPILED
    constants = {k for k in vars(tuning) if _constant_name(k)}
    inside = set()
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        alias = {a.asname or a.name: a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and (node.module or "").endswith("tuning") for a in node.names}
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and any(
                    re.search(r"jit|vectorize", ast.unparse(d)) for d in fn.decorator_list):
                used = {alias.get(n.id, n.id) for n in ast.walk(fn) if isinstance(n, ast.Name)}
                inside |= used & constants
    assert inside == set(COMPILED)


def _sweep_tool():
    import importlib.util
    # the checkout's tools/ (beside tests/), not the installed package's folder: CI tests a wheel
    spec = importlib.util.spec_from_file_location("_sweep_tool", Path(__file__).resolve().parents[1] / "tools" / "sweep.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sweep_alternates_values_and_reports_ratio_and_noise():
    sweep = _sweep_tool()
    order = sweep.schedule([2.0, 3.0, 5.0], 3)
    assert [v for r, v in order if r == 0] == [2.0, 3.0, 5.0]
    assert [v for r, v in order if r == 1] == [3.0, 5.0, 2.0]
    assert [v for r, v in order if r == 2] == [5.0, 2.0, 3.0]
    res = {2.0: [{"geomean": g, "optimal": 9, "runs": 10, "wrong": 0} for g in (1.0, 1.1, 0.9)],
           3.0: [{"geomean": g, "optimal": 10, "runs": 10, "wrong": 0} for g in (0.5, 0.6, 0.4)]}
    text = sweep.table("RIVAL_GRACE", 2.0, res)
    assert "| 2.0 (default) | 1.000, 1.100, 0.900 | 1.000 | 1.000 | 9/10, 9/10, 9/10 |" in text
    assert "| 3.0 | 0.500, 0.600, 0.400 | 0.500 | 0.500 | 10/10, 10/10, 10/10 |" in text
    assert "spread 0.900-1.100 s, 20.0% of their median" in text
    assert sweep.bench_command("ROOT_STALL", (9, 0.5), "smoke", ROOT, [])[-6:-4] == ["--tune", "ROOT_STALL=(9, 0.5)"]
