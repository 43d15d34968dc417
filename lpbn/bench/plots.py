"""Plots of a suite run (matplotlib is optional: without it no plot is made, tables still are).

* ``profile.png`` — performance profile: instances solved (proven optimal, checked) within
  ``t`` seconds, one step curve per method and external; the suite's anchor peers are drawn
  dashed (their numbers come from another run, see ``summary.md``).
* ``trace-<instance>.png`` — upper bound and incumbent score against time for chosen
  instances, one colour per method: the picture of Jaakkola et al. 2010, Fig. 3 (dual bound
  falling, decoded solutions rising, meeting at a certified optimum).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from .checks import solved
from .runner import BenchRun

DPI = 90
SIZE = (6.0, 3.8)


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def make_plots(run: BenchRun, out_dir: Path) -> list[str]:
    """Write the plots into ``out_dir``; returns their file names (empty without matplotlib)."""
    if not have_matplotlib():
        return []
    names = []
    if profile_plot(run, out_dir / "profile.png"):
        names.append("profile.png")
    chosen = run.config.trace_plots if run.config.trace_plots is not None else (
        run.suite.trace_plots or [e.name for e in run.suite.entries if e.trace])
    for inst in chosen:
        fname = "trace-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", inst) + ".png"
        if trace_plot(run, inst, out_dir / fname):
            names.append(fname)
    return names


def _solved_times(run: BenchRun, method: str) -> list[float]:
    return sorted(max(r["seconds"], 1e-3) for r in run.rows
                  if r["method"] == method and solved(r) and r.get("seconds") is not None)


def profile_plot(run: BenchRun, path: Path) -> bool:
    """Instances solved against time (log scale), per method; anchors' peers dashed."""
    total = len({r["instance"] for r in run.rows if r["status"] != "absent"})
    if total == 0:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI)
    tmax = run.time_limit
    for m in run.methods + run.externals:
        ts = _solved_times(run, m)
        _step(ax, ts, tmax, label=f"{m} ({len(ts)})")
    present = {r["instance"] for r in run.rows if r["status"] != "absent"}
    peers: dict[str, list[float]] = {}
    for e in run.suite.entries:
        if e.name not in present:
            continue
        for p, v in e.peers.items():
            if str(v.get("status", "")).startswith("optimal") and v.get("seconds") is not None:
                peers.setdefault(p, []).append(max(float(v["seconds"]), 1e-3))
            else:
                peers.setdefault(p, [])
    for p, ts in peers.items():
        _step(ax, sorted(ts), max(tmax, max(ts, default=tmax)), label=f"{p} ({len(ts)}, anchors)",
              linestyle="--")
    ax.set_xscale("log")
    ax.set_xlabel("wall seconds")
    ax.set_ylabel(f"instances solved (of {total})")
    ax.set_ylim(0, total + 0.5)
    from matplotlib.ticker import MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(f"{run.suite.name}: performance profile", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def _step(ax, ts: list[float], tmax: float, **kw) -> None:
    if not ts:
        ax.plot([], [], **kw)
        return
    xs = [ts[0]] + ts + [max(tmax, ts[-1])]
    ys = [0] + list(range(1, len(ts) + 1)) + [len(ts)]
    ax.step(xs, ys, where="post", **kw)


def trace_plot(run: BenchRun, instance: str, path: Path) -> bool:
    """Bound and incumbent against time for one instance (Jaakkola et al. 2010, Fig. 3)."""
    rows = [r for r in run.rows if r["instance"] == instance and r.get("trace")]
    if not rows:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    finite: list[float] = []
    incumbents: list[float] = []
    for k, r in enumerate(rows):
        c = colours[k % len(colours)]
        tr = [(max(t, 1e-4), a, b) for t, a, b in r["trace"]]
        end = max(tr[-1][0], r.get("seconds") or 0)
        inc = [(t, a) for t, a, _ in tr if a is not None]
        bnd = [(t, b) for t, _, b in tr if b is not None]
        if inc:
            xs, ys = zip(*(inc + [(end, inc[-1][1])]))
            ax.step(xs, ys, where="post", color=c, label=f"{r['method']} incumbent",
                    marker="o" if len(inc) == 1 else None, markevery=[0], markersize=4)
            finite += list(ys)
            incumbents += list(ys)
        if bnd:
            xs, ys = zip(*(bnd + [(end, bnd[-1][1])]))
            ax.step(xs, ys, where="post", color=c, linestyle="--", label=f"{r['method']} bound")
            finite += list(ys)
    opt = rows[0].get("optimum")
    if opt is not None:
        ax.axhline(opt, color="black", linewidth=0.8, linestyle=":", label="known optimum")
        finite.append(opt)
    finite = [v for v in finite if math.isfinite(v)]
    if finite:
        # Zoom on the convergence: as far above the optimum as the worst incumbent is below
        # it (the first, trivial bounds would otherwise squash the picture).
        ref = opt if opt is not None else max(incumbents or finite)
        lo = min(incumbents or finite)
        below = max(ref - lo, 1e-6 * max(1.0, abs(ref)))
        hi = max(min(max(finite), ref + 1.5 * below), ref + 0.1 * below)
        pad = 0.05 * (hi - lo)
        ax.set_ylim(lo - pad, hi + pad)
    ax.set_xscale("log")
    ax.set_xlabel("wall seconds")
    ax.set_ylabel("score (log-score, higher is better)")
    ax.set_title(f"{run.suite.name} / {instance}: bound and incumbent", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True
