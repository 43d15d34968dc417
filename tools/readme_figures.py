"""Make the README's two pictures with lpbn itself.

    python tools/readme_figures.py [OUT_DIR]      # default docs/img

1. ``learned-dag.png``: ``lpbn.learn`` on bnlearn's insurance data (27 named variables, 20,000
   rows, BIC, at most 3 parents) and the DAG it proves optimal, drawn by ``lpbn draw``'s
   matplotlib engine.
2. ``bound-over-time.png``: the incumbent's score and the upper bound against time while the
   dual solver (Jaakkola et al. 2010) closes the gap on GOBNILP's soybean cache (36 variables);
   the trace is ``SolveResult.trace``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing


def learned_dag(out: Path) -> str:
    import lpbn
    from lpbn.commands.draw import draw_matplotlib

    res = lpbn.learn(str(ROOT / "instances/cran__bnlearn/data/insurance.dat.gz"), max_parents=3)
    (out / "learned-dag.png").write_bytes(draw_matplotlib(res.dag, "png"))
    return f"insurance: {res.status}, BIC {res.score:.2f}, bound {res.upper_bound:.2f}"


def bound_over_time(out: Path) -> str:
    import lpbn
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cache = lpbn.read_scores(str(ROOT / "instances/anchors/gobnilp-bic3/soybean.BIC.p3.jkl"))
    res = lpbn.solve(cache, method="dual", time_limit=120)
    pts = [(t, b, u) for t, b, u in res.trace if b is not None and u is not None
           and abs(b) != float("inf") and abs(u) != float("inf")]
    ts = [p[0] for p in pts]
    fig = Figure(figsize=(6.4, 3.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.step(ts, [p[2] for p in pts], where="post", label="upper bound (proved)")
    ax.step(ts, [p[1] for p in pts], where="post", label="best DAG found")
    lo = min(p[1] for p in pts)
    ax.set_ylim(lo, max(p[2] for p in pts[len(pts) // 4:]) + 0.05 * abs(lo) * 0.01)
    ax.set_xlabel("seconds")
    ax.set_ylabel("BIC")
    ax.set_title(f"soybean (36 variables): method='dual', {res.status} in {res.seconds:.1f} s")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "bound-over-time.png", dpi=100)
    return f"soybean: {res.status} {res.score:.4f} <= {res.upper_bound:.4f} in {res.seconds:.1f} s"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs/img"
    out.mkdir(parents=True, exist_ok=True)
    print(learned_dag(out))
    print(bound_over_time(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
