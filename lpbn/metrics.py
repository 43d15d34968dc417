"""Comparing a learned DAG with the true one: SHD, edge confusion, moral-graph distance.

* :func:`structural_hamming_distance` — Tsamardinos, Brown & Aliferis (2006), *The max-min
  hill-climbing Bayesian network structure learning algorithm*, Machine Learning 65, §5.2,
  applied to DAGs: the number of variable pairs whose connection differs, i.e. missing +
  extra + reversed edges, a reversed edge counting once.  (Tsamardinos et al. compare the
  CPDAGs; on DAGs two Markov-equivalent structures can have a positive SHD.)
* :func:`edge_confusion` — those counts and the skeleton's precision and recall.
* :func:`moral_hamming_distance` — the Hamming distance between the moral graphs (skeleton
  plus an edge between every two parents of a common child), as Scanagatta, de Campos,
  Corani & Zaffalon (2015), *Learning Bayesian networks with thousands of variables*,
  NeurIPS, report.  Markov-equivalent DAGs have the same skeleton and v-structures, hence
  the same moral graph, so this distance ignores reversals that stay inside the equivalence
  class (the DAG SHD counts them).

The two DAGs must have the same variable names; when the orders differ, ``learned`` is mapped
onto ``true`` by name.  Edge sets are Python sets: O(edges) time, fine for 10,000 variables.
"""

from __future__ import annotations

from itertools import combinations

from .errors import InputError
from .result import DAG


def structural_hamming_distance(true: DAG, learned: DAG) -> int:
    """Missing + extra + reversed edges of ``learned`` with respect to ``true`` (each
    reversal counts once).  Symmetric: ``shd(a, b) == shd(b, a)``."""
    return edge_confusion(true, learned)["shd"]


def edge_confusion(true: DAG, learned: DAG) -> dict:
    """Edge-level comparison of ``learned`` against ``true``.

    Returns a dict with
    ``true_positive`` (same edge, same direction), ``reversed`` (same pair, opposite
    direction), ``missing`` (pair adjacent in ``true`` only), ``extra`` (adjacent in
    ``learned`` only), ``shd`` (missing + extra + reversed), ``true_edges``,
    ``learned_edges``, and the skeleton's ``precision`` = (true_positive + reversed) /
    learned_edges, ``recall`` = (true_positive + reversed) / true_edges and ``f1``.  A ratio
    with a zero denominator is 1.0 (nothing claimed / nothing to find).
    """
    t_edges, l_edges = _edge_sets(true, learned)
    t_skel = {_pair(e) for e in t_edges}
    l_skel = {_pair(e) for e in l_edges}
    both = t_skel & l_skel
    tp = len(t_edges & l_edges)
    rev = len(both) - tp
    missing = len(t_skel) - len(both)
    extra = len(l_skel) - len(both)
    precision = len(both) / len(l_skel) if l_skel else 1.0
    recall = len(both) / len(t_skel) if t_skel else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"true_positive": tp, "reversed": rev, "missing": missing, "extra": extra,
            "shd": missing + extra + rev, "true_edges": len(t_skel), "learned_edges": len(l_skel),
            "precision": precision, "recall": recall, "f1": f1}


def moral_hamming_distance(true: DAG, learned: DAG) -> int:
    """Number of variable pairs adjacent in exactly one of the two moral graphs."""
    true_parents, learned_parents = _aligned_parents(true, learned)
    return len(_moral_edges(true_parents) ^ _moral_edges(learned_parents))


def moral_graph(dag: DAG) -> set[tuple[int, int]]:
    """Edges ``(a, b)``, ``a < b``, of the moral graph of ``dag``."""
    return _moral_edges(dag.parents)


# ---------------------------------------------------------------------- helpers
def _pair(e: tuple[int, int]) -> tuple[int, int]:
    a, b = e
    return (a, b) if a < b else (b, a)


def _moral_edges(parents) -> set[tuple[int, int]]:
    out: set[tuple[int, int]] = set()
    for child, ps in enumerate(parents):
        ps = sorted(ps)
        out.update(_pair((p, child)) for p in ps)
        out.update(combinations(ps, 2))
    return out


def _aligned_parents(true: DAG, learned: DAG):
    """Both parent lists on ``true``'s variable indices (``learned`` mapped by name)."""
    for g, what in ((true, "true"), (learned, "learned")):
        if not isinstance(g, DAG):
            raise InputError(f"the {what} graph must be an lpbn.result.DAG, got {type(g).__name__}")
    if true.names == learned.names:
        return true.parents, learned.parents
    if len(true.names) != len(learned.names) or set(true.names) != set(learned.names):
        only_t = sorted(set(true.names) - set(learned.names))[:3]
        only_l = sorted(set(learned.names) - set(true.names))[:3]
        detail = (f" (only in true: {', '.join(only_t)})" if only_t else "") + \
                 (f" (only in learned: {', '.join(only_l)})" if only_l else "")
        raise InputError("the true and learned DAGs have different variables" + detail)
    index = {v: i for i, v in enumerate(true.names)}
    remap = [index[v] for v in learned.names]
    mapped: list[tuple[int, ...]] = [()] * len(remap)
    for i, ps in enumerate(learned.parents):
        mapped[remap[i]] = tuple(sorted(remap[p] for p in ps))
    return true.parents, tuple(mapped)


def _edge_sets(true: DAG, learned: DAG) -> tuple[set, set]:
    sets = []
    for parents, what in zip(_aligned_parents(true, learned), ("true", "learned")):
        edges = {(p, c) for c, ps in enumerate(parents) for p in ps}
        two_cycle = next(((p, c) for p, c in edges if (c, p) in edges), None)
        if two_cycle is not None:
            names = true.names
            raise InputError(f"the {what} graph has edges both ways between {names[two_cycle[0]]} "
                             f"and {names[two_cycle[1]]}: not a DAG")
        sets.append(edges)
    return sets[0], sets[1]


__all__ = ["structural_hamming_distance", "edge_confusion", "moral_hamming_distance", "moral_graph"]
