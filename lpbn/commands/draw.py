"""``lpbn draw result.json -o dag.svg``: a picture of a learned DAG."""

from __future__ import annotations

import io
import json
import shutil
import subprocess

from ..errors import InputError, LpbnError

HELP = "draw a DAG (lpbn solve --format json or lpbn learn JSON output) as PNG, SVG or PDF"
DESCRIPTION = (
    "Draw the DAG of a solve result (lpbn solve --format json: has \"parents\") or of a learned "
    "network (lpbn learn -o net.json: has \"variables\").  Uses Graphviz's dot executable when it "
    "is on the PATH, else networkx and matplotlib (pip install \"lpbn[plot]\"); the picture format "
    "follows the extension of -o.")

IMAGE_FORMATS = ("png", "svg", "pdf")


def add_arguments(p) -> None:
    p.add_argument("result", help="JSON written by lpbn solve --format json or lpbn learn -o net.json")
    p.add_argument("-o", "--output", required=True, help="picture to write: .png, .svg or .pdf")
    p.add_argument("--engine", choices=("auto", "dot", "matplotlib"), default="auto",
                   help="auto (default): Graphviz dot when installed, else networkx + matplotlib")


def run(args) -> int:
    from ..atomic import atomic_write
    fmt = args.output.rsplit(".", 1)[-1].lower() if "." in args.output else ""
    if fmt not in IMAGE_FORMATS:
        raise InputError(f"{args.output}: unknown picture format (use .png, .svg or .pdf)")
    dag = read_dag(args.result)
    engine = args.engine
    if engine == "auto":
        engine = "dot" if shutil.which("dot") else "matplotlib"
        if engine == "matplotlib" and not _have_matplotlib():
            from ..interop import MissingDependencyError
            raise MissingDependencyError(
                "drawing needs Graphviz's dot executable or networkx and matplotlib: install "
                "graphviz, or pip install \"lpbn[plot]\"")
    data = draw_dot(dag, fmt) if engine == "dot" else draw_matplotlib(dag, fmt)
    with atomic_write(args.output, "wb") as fh:
        fh.write(data)
    return 0


def read_dag(path: str):
    """The DAG of a solve result JSON (``"parents"``) or a network JSON (``"variables"``)."""
    from ..formats.textio import read_text
    from ..result import DAG
    text = read_text(path, lambda msg, p: InputError(f"{p}: {msg}"))
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    if not isinstance(d, dict):
        raise InputError(f"{path}: expected a JSON object from lpbn solve --format json or lpbn learn")
    if isinstance(d.get("variables"), list) and all(isinstance(v, dict) for v in d["variables"]):
        names = [str(v.get("name")) for v in d["variables"]]
        parents = {str(v.get("name")): v.get("parents", []) for v in d["variables"]}
    elif "parents" in d:
        if d["parents"] is None:
            raise InputError(f"{path}: the result has no DAG (status {d.get('status')})")
        if not isinstance(d["parents"], dict):
            raise InputError(f"{path}: 'parents' must map variable names to lists of parent names")
        names = list(d["parents"])
        parents = d["parents"]
    else:
        raise InputError(f"{path}: no 'parents' (lpbn solve --format json) or 'variables' (lpbn learn) "
                         "in this JSON")
    known = set(names)
    for v, ps in parents.items():
        if not isinstance(ps, list) or not all(isinstance(p, str) and p in known for p in ps):
            raise InputError(f"{path}: variable {v}: parents must be a list of variable names")
    return DAG.from_parent_names(names, parents)


def draw_dot(dag, fmt: str) -> bytes:
    exe = shutil.which("dot")
    if exe is None:
        raise InputError("Graphviz's dot executable is not on the PATH (use --engine matplotlib)")
    try:
        proc = subprocess.run([exe, f"-T{fmt}"], input=dag.to_dot().encode("utf-8"),
                              capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LpbnError(f"dot failed: {exc}") from None
    if proc.returncode != 0 or not proc.stdout:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LpbnError(f"dot failed (exit {proc.returncode})" + (f": {msg[0]}" if msg else ""))
    return proc.stdout


def _have_matplotlib() -> bool:
    import importlib.util
    return all(importlib.util.find_spec(m) is not None for m in ("matplotlib", "networkx"))


def draw_matplotlib(dag, fmt: str) -> bytes:
    """A layered drawing (roots on top, one row per topological generation)."""
    from ..interop import import_optional
    nx = import_optional("networkx", "plot", "lpbn draw without Graphviz")
    import_optional("matplotlib", "plot", "lpbn draw without Graphviz")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    g = dag.to_networkx()
    layers = list(nx.topological_generations(g))
    for k, layer in enumerate(layers):
        for v in layer:
            g.nodes[v]["layer"] = k
    pos = nx.multipartite_layout(g, subset_key="layer", align="horizontal")
    pos = {v: (x, -y) for v, (x, y) in pos.items()}          # roots on top
    width = max(len(layer) for layer in layers) if layers else 1
    longest = max((len(str(v)) for v in g.nodes), default=1)
    fig = Figure(figsize=(min(60.0, max(4.0, 0.25 * width * max(4, longest))),
                          min(60.0, max(3.0, 1.2 * len(layers)))))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.margins(0.12)                                        # nodes are not clipped
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowsize=12, node_size=900, edge_color="#555555")
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=900, node_color="#dde7f5", edgecolors="#333333")
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=9)
    buf = io.BytesIO()
    meta = {"Date": None} if fmt in ("svg", "pdf") else None
    fig.savefig(buf, format=fmt, bbox_inches="tight", metadata=meta)
    return buf.getvalue()
