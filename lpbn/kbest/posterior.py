"""Posterior summaries from the k best networks (Tian, He & Ram 2010; Chen & Tian 2014).

For BDeu, a DAG's score is its log marginal likelihood ``log P(D | G)``; BIC is its large-sample
approximation.  With a uniform prior over the DAGs the cache allows, the weight of a listed DAG
is ``exp(s_i) / Σ_j exp(s_j)`` over the list (a class counts each member DAG met), and the
frequency of an edge (an arrow) is the summed weight of the listed DAGs that have it.  MDL
caches store BIC / ln 2 and are rescaled.

Share of the mass covered: the engines bound the summed ``exp(score)`` of every DAG not listed
(``log_rest``: each cut subtree contributes (number of DAGs below it) × exp(its bound)), so the
list holds at least ``Z_K / (Z_K + exp(log_rest))`` of the posterior mass over the cache's DAGs,
where ``Z_K`` is the listed mass.  The bound is proven but loose (it counts every combination of
parent sets below a cut node as a DAG scoring the node's bound); it is reported as it is.
"""

from __future__ import annotations

import math

import numpy as np

from ..cache import ScoreCache

LOG_EVIDENCE = {"bdeu": ("exact", 1.0), "bde": ("exact", 1.0), "bic": ("approximation", 1.0),
                "mdl": ("approximation", math.log(2.0))}


def summarise(cache: ScoreCache, scores: np.ndarray, choices: np.ndarray, counts: np.ndarray,
              log_rest: float, classes: bool) -> dict:
    """Weights, edge/arrow frequencies and the covered share (see the module docstring)."""
    kind = str(cache.meta.get("score") or cache.meta.get("score_type") or "").lower()
    if kind in LOG_EVIDENCE:
        quality, scale = LOG_EVIDENCE[kind]
        note = (f"{kind}: weights from the log marginal likelihood" if quality == "exact" else
                f"{kind}: weights from the BIC approximation of the log marginal likelihood")
    elif kind:
        return {"available": False, "note": f"score {kind!r} is not a log marginal likelihood or its "
                                            "approximation; no posterior weights"}
    else:
        quality, scale = "assumed", 1.0
        note = "score type not recorded: weights assume natural-log marginal likelihoods (BDeu) or BIC"
    if len(scores) == 0:
        return {"available": False, "note": "no networks"}
    logs = scale * np.asarray(scores, dtype=np.float64) + np.log(np.asarray(counts, dtype=np.float64))
    top = float(logs.max())
    w = np.exp(logs - top)
    z = float(w.sum())
    weights = w / z
    n = cache.n
    # arrows[p, c]: summed weight of the listed DAGs with p -> c (one bit test per pair)
    pm = cache.masks[np.asarray(choices, dtype=np.int64)]                  # (listed, child)
    bits = (pm[:, :, None] >> np.arange(n, dtype=np.uint64)) & np.uint64(1)  # (listed, child, parent)
    arrows = np.einsum("r,rcp->pc", weights, bits.astype(np.float64))
    adj = np.triu(arrows + arrows.T, 1)
    names = cache.names
    edges = [{"a": names[a], "b": names[b], "frequency": float(adj[a, b])}
             for a in range(n) for b in range(a + 1, n) if adj[a, b] > 0]
    edges.sort(key=lambda e: -e["frequency"])
    out = {"available": True, "quality": quality, "note": note,
           "weights": [float(x) for x in weights],
           "edges": edges}
    if classes:
        out["arrows_note"] = ("classes: arrow frequencies are over the listed representative DAGs; "
                              "the compelled arrows are those in each solution's cpdag")
    out["arrows"] = sorted(({"from": names[a], "to": names[b], "frequency": float(arrows[a, b])}
                            for a in range(n) for b in range(n) if arrows[a, b] > 0),
                           key=lambda e: -e["frequency"])
    if log_rest == math.inf:
        out["mass_covered_at_least"] = None
        out["mass_note"] = "the enumeration stopped before it was proven: no bound on the remaining mass"
    elif math.isfinite(log_rest) and scale == 1.0:
        rest = math.exp(min(700.0, log_rest - top))
        out["mass_covered_at_least"] = z / (z + rest)
    elif log_rest == -math.inf:
        out["mass_covered_at_least"] = 1.0
    else:
        out["mass_covered_at_least"] = None
        out["mass_note"] = "no bound on the remaining mass for rescaled (MDL) scores"
    return out


def format_posterior(post: dict, limit: int = 30) -> str:
    if not post.get("available"):
        return f"posterior:    {post.get('note', 'not available')}\n"
    lines = [f"posterior:    {post['note']}"]
    cov = post.get("mass_covered_at_least")
    if cov is not None:
        lines.append(f"mass covered: at least {cov:.6g} of the posterior over the cache's DAGs")
    lines.append("edge frequencies (adjacency, either direction):")
    for e in post["edges"][:limit]:
        lines.append(f"  {e['a']} - {e['b']}  {e['frequency']:.4f}")
    if len(post["edges"]) > limit:
        lines.append(f"  ... {len(post['edges']) - limit} more")
    lines.append("arrow frequencies:")
    for e in post["arrows"][:limit]:
        lines.append(f"  {e['from']} -> {e['to']}  {e['frequency']:.4f}")
    if len(post["arrows"]) > limit:
        lines.append(f"  ... {len(post['arrows']) - limit} more")
    return "\n".join(lines) + "\n"
