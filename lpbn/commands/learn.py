"""``lpbn learn DATA -o net.bif``: data -> scores -> optimal DAG -> fitted CPTs, in one command."""

from __future__ import annotations

import json
import math
import sys

from ..errors import InputError
from ..solve import registered_methods
from .common import emit

HELP = "learn a Bayesian network (certified DAG + fitted CPTs) from discrete data"
DESCRIPTION = (
    "Score the data (lpbn score), solve the cache (lpbn solve, --method auto by default) and fit "
    "the CPTs of the DAG found: maximum likelihood (parent configurations never seen get uniform "
    "rows), or the BDeu posterior mean with --fit-ess A.  The output format follows the extension "
    "of -o (or --format): .bif (BIF, as bnlearn and pgmpy read it; names made identifiers), .json "
    "(the lpbn network, readable by lpbn sample --network, with the certificate under "
    "\"certificate\"), .dot (Graphviz).  The certificate (score, upper bound, gap, status, method) "
    "is printed on stderr; without -o, it and the parents go to stdout as text.")

FORMATS = {".bif": "bif", ".json": "json", ".json.gz": "json", ".dot": "dot", ".gv": "dot"}


def add_arguments(p) -> None:
    p.add_argument("data", help="data file: delimited text (.csv/.tsv/.txt; header auto-detected) or "
                                  "GOBNILP .dat, optionally .gz")
    p.add_argument("-o", "--output", help="network to write: .bif, .json (.json.gz) or .dot "
                                          "('-' with --format: stdout); default: a text summary on stdout")
    p.add_argument("--format", choices=("bif", "json", "dot", "text"),
                   help="output format (default: from the extension of -o; text without -o)")
    p.add_argument("--score", default="bic", choices=("bic", "bdeu", "bic-g", "bge", "bic-cg", "auto"),
                   help="structure score (default bic); continuous data: bic-g or bge (linear-Gaussian CPDs), "
                        "mixed: bic-cg (conditional Gaussian); auto: from the column types (docs/continuous.md)")
    from .score import add_type_arguments
    add_type_arguments(p)
    p.add_argument("--ess", type=float, default=1.0, metavar="A",
                   help="BDeu equivalent sample size of the structure score (default 1)")
    p.add_argument("--max-parents", type=int, metavar="K", help="parent limit (BIC also gets Tian's bound)")
    p.add_argument("--method", default="auto", choices=["auto", *registered_methods()],
                   help="solver method (default auto; see lpbn solve --help)")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="stop the solve after S seconds with the best DAG so far")
    from .common import add_reading_arguments
    add_reading_arguments(p)
    p.add_argument("--price", type=int, metavar="K",
                   help="price every parent set of at most K parents against the data so the bound covers "
                        "every DAG within K when pricing finishes (K is also the parent limit; half the time limit)")
    p.add_argument("--fit-ess", type=float, metavar="A",
                   help="fit CPTs as the BDeu posterior mean with equivalent sample size A "
                        "(default: maximum likelihood)")
    p.add_argument("--jobs", type=int, metavar="J", help="scoring worker processes (default: every core)")
    p.add_argument("--quiet", action="store_true", help="no progress lines or certificate on stderr")
    p.add_argument("--certificate", metavar="FILE",
                   help="bound certificate to write (default with -o NET.EXT: NET.cert.json.gz beside it, with the "
                        "solved cache as NET.cache.jkl); check it with `lpbn verify NET.cache.jkl NET.cert.json.gz`")
    p.add_argument("--no-certificate", action="store_true",
                   help="write no certificate (and no cache) beside the network")
    from ..constraints import add_arguments as add_constraint_arguments
    add_constraint_arguments(p, what="the network")


def output_format(args) -> str:
    if args.format:
        return args.format
    if args.output in (None, "-"):
        if args.output == "-":
            raise InputError("-o - needs --format bif, json, dot or text")
        return "text"
    low = args.output.lower()
    for ext, fmt in FORMATS.items():
        if low.endswith(ext):
            return fmt
    raise InputError(f"{args.output}: unknown output format (use .bif, .json, .json.gz or .dot, or --format)")


def certificate_text(res) -> str:
    from ..scope import scope_text
    from ..scoring.table import describe
    cert = res.certificate()
    gap = f"{res.gap:.3e}" if math.isfinite(res.gap) else "inf"
    ds = res.data
    lines = [f"data:         {ds.n} variables, {ds.N} rows"
             + (f" ({ds.dropped_rows} dropped)" if ds.dropped_rows else "") + f"; {describe(ds.reading)}",
             f"status:       {res.status} (over {cert['optimal_over']})",
             f"score:        {res.score:.10g} ({cert['scoring']['score']})",
             f"upper bound:  {res.upper_bound:.10g}",
             f"gap:          {gap} ({scope_text(res.bound_scope)})",
             f"method:       {res.method}",
             f"seconds:      {cert['timings'].get('total', res.seconds):.3f} "
             f"(score {cert['timings'].get('score', 0):.2f}, solve {cert['timings'].get('solve', 0):.2f})",
             f"{'CPDs' if hasattr(res.data, 'continuous') else 'CPTs'}:         {cert['fit']}"
             + (f", {res.network.num_parameters()} parameters" if res.network is not None else "")]
    if res.message:
        lines.append(f"note:         {res.message}")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    from ..constraints import from_args as constraints_from_args
    from ..scope import scope_text
    from ..formats.bif import write_bif
    from ..learn import learn

    fmt = output_format(args)       # unknown extensions are refused before any work
    if fmt == "bif" and args.score in ("bic-g", "bge", "bic-cg"):
        raise InputError("a linear or conditional Gaussian network has no BIF form; write .json or .dot")
    for opt, val in (("--max-parents", args.max_parents), ("--jobs", args.jobs)):
        if val is not None and val < (0 if opt == "--max-parents" else 1):
            raise InputError(f"{opt} must be >= {0 if opt == '--max-parents' else 1}")
    if args.time_limit is not None and not args.time_limit >= 0:
        raise InputError("--time-limit must be >= 0")
    reading = {}
    if args.score not in ("bic", "bdeu") or args.discrete or args.continuous:
        data = args.data    # continuous, mixed or auto-typed columns: lpbn.scoring.typed reads it
        reading = {"header": args.header, "missing": args.missing, "drop_missing": args.drop_missing}
    else:                   # discrete: read here, so that --delimiter and --data-format apply
        from ..scoring import read_data
        from .common import reading_options
        data = read_data(args.data, **reading_options(args))
    res = learn(data, score=args.score, ess=args.ess, max_parents=args.max_parents,
                method=args.method, time_limit=args.time_limit, **reading, fit_ess=args.fit_ess, jobs=args.jobs,
                progress=not args.quiet, constraints=constraints_from_args(args),
                score_options={"discrete": args.discrete, "continuous": args.continuous}
                if args.discrete or args.continuous else None,
                **({"price": args.price} if args.price is not None else {}))
    if res.network is None:
        raise InputError(f"no DAG found (status {res.status}"
                         + (f": {res.message}" if res.message else "") + "); nothing to write")
    out = None if args.output in (None, "-") else args.output
    if fmt == "bif":
        if hasattr(res.network, "continuous"):
            raise InputError("a linear or conditional Gaussian network has no BIF form; write .json or .dot")
        text = write_bif(res.network, None)
    elif fmt == "json":
        d = res.network_dict()
        if out is not None and out.lower().endswith(".gz"):
            _save_json_gz(d, out)
            text = None
        else:
            text = json.dumps(d, indent=1) + "\n"
    elif fmt == "dot":
        text = res.dag.to_dot()
    else:
        text = certificate_text(res) + "parents:\n" + "".join(
            f"  {v} <- {', '.join(ps) if ps else '{}'}\n" for v, ps in res.dag.parent_names().items())
    if text is not None:
        emit(text, out)
    proof = _write_proof(args, res, out)
    if fmt != "text" and not args.quiet:
        sys.stderr.write(certificate_text(res))
        if out is not None:
            print(f"network:      -> {out} ({fmt})", file=sys.stderr)
        if proof:
            print(f"certificate:  -> {proof}", file=sys.stderr)
    by = res.stats.get("interrupted_by")
    if by:      # SIGINT/SIGTERM stopped the solve: the network is written, exit 130/143
        _raise_interrupted(by)
    if res.status != "optimal":
        print(f"lpbn: {res.status}: the network is the best DAG found so far (gap {res.gap:.3%} "
              f"{scope_text(res.bound_scope)})", file=sys.stderr)
    return 0


def proof_paths(args, out: str | None) -> tuple[str, str] | None:
    """Where ``lpbn learn`` writes its certificate and the cache it solved: ``--certificate``
    (the cache beside it), else beside ``-o NET.EXT`` as NET.cert.json.gz and NET.cache.jkl;
    None with ``--no-certificate`` or without a file to write beside."""
    if args.no_certificate:
        return None
    cert = args.certificate
    if cert is None:
        if out is None:
            return None
        low = out.lower()
        stem = out
        for ext in sorted(FORMATS, key=len, reverse=True):
            if low.endswith(ext):
                stem = out[:-len(ext)]
                break
        cert = stem + ".cert.json.gz"
    base = cert
    for ext in (".gz", ".json", ".cert"):
        base = base[:-len(ext)] if base.lower().endswith(ext) else base
    return cert, base + ".cache.jkl"


def _write_proof(args, res, out: str | None) -> str | None:
    """The certificate of the learned network's bound, beside it by default (issue 54): the
    cache learn solved is written (jkl, scores bit-exact) and read back, and the certificate
    (``lpbn.certificate``: the method's own, or the dual's tree seeded with the answer,
    :func:`lpbn.certificate.certify_after`, within what is left of --time-limit) is built over that file, with
    the result embedded, so ``lpbn verify CACHE CERT`` checks it.  Constrained solves have no
    certificate (said on stderr).  Returns what was written, or None."""
    paths = proof_paths(args, out)
    if paths is None or res.dag is None:
        return None
    if res.stats.get("constraints"):
        print("lpbn: no certificate: certificates of constrained solves are not supported", file=sys.stderr)
        return None
    from ..certificate import certify_after, write_certificate
    from ..formats import read_scores, write_scores
    cert_path, cache_path = paths
    write_scores(res.cache, cache_path, "jkl")
    on_disk = read_scores(cache_path)
    if "certificate_lp" not in (res.extra or {}):   # (certify_after keeps a method's own complete tree)
        # within what is left of --time-limit: the limit covers the whole run, the proof too
        left = None if args.time_limit is None else \
            max(0.0, float(args.time_limit) - float(res.timings.get("total", 0.0)))
        certify_after(on_disk, res, time_limit=left)
    cert = write_certificate(cert_path, on_disk, res, embed_result=True)
    if cert.get("covers") == "partial":
        print(f"lpbn: the certificate's proof did not finish within the time limit: it proves "
              f"{cert.get('bound')}, not the reported bound", file=sys.stderr)
    return f"{cert_path} (over {cache_path})"


def _save_json_gz(d: dict, path: str) -> None:
    import gzip

    from ..atomic import atomic_write
    data = gzip.compress((json.dumps(d, separators=(",", ":")) + "\n").encode("utf-8"),
                         compresslevel=6, mtime=0)
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def _raise_interrupted(by: str) -> None:
    import signal

    from ..signals import Interrupted
    raise Interrupted(signal.Signals[by], f"interrupted by {by}: the network of the best DAG so far "
                                          "was written")
