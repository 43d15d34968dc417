"""Result types shared by every method: :class:`DAG` and :class:`SolveResult`.

Modelled on ``scipy.optimize.OptimizeResult``: one result type whatever the method, with
the certificate (``upper_bound``) next to the answer (``score``).
"""

from __future__ import annotations

import heapq
import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

# Status values (strings, so JSON output and comparisons stay simple).
OPTIMAL = "optimal"
TIME_LIMIT = "time_limit"
GAP_LIMIT = "gap_limit"
NODE_LIMIT = "node_limit"
MEMORY_LIMIT = "memory_limit"
INTERRUPTED = "interrupted"
INFEASIBLE = "infeasible"
#: a detected fault: a bound crossed the incumbent (:mod:`lpbn.bound`) or the solver failed;
#: the DAG (if any) is still a DAG of the cache with its score, but nothing is claimed
ERROR = "error"
STATUSES = (OPTIMAL, TIME_LIMIT, GAP_LIMIT, NODE_LIMIT, MEMORY_LIMIT, INTERRUPTED, INFEASIBLE, ERROR)

#: The relative tolerance under which a gap counts as closed, the one constant of the
#: tolerance policy (docs/trust.md, :func:`lpbn.bound.slack`): never tighter than the bound's
#: own error, which :mod:`lpbn.bound` adds where a bound carries one.
OPTIMALITY_TOLERANCE = 1e-9


class DAG:
    """A directed acyclic graph as parents per variable (indices into ``names``)."""

    def __init__(self, names: Sequence[str], parents: Sequence[Iterable[int]]):
        self.names = tuple(str(x) for x in names)
        self.parents: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(int(p) for p in ps)) for ps in parents)
        if len(self.parents) != len(self.names):
            raise ValueError("one parent set per variable is required")

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def edges(self) -> list[tuple[int, int]]:
        """Edges ``(parent, child)``."""
        return [(p, i) for i, ps in enumerate(self.parents) for p in ps]

    def topological_order(self) -> list[int] | None:
        """A topological order, or None when the graph has a directed cycle."""
        indeg = [len(ps) for ps in self.parents]
        children: list[list[int]] = [[] for _ in range(self.n)]
        for p, c in self.edges:
            children[p].append(c)
        ready = [i for i in range(self.n) if indeg[i] == 0]
        order = []
        while ready:
            v = ready.pop()
            order.append(v)
            for c in children[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    ready.append(c)
        return order if len(order) == self.n else None

    def is_acyclic(self) -> bool:
        return self.topological_order() is not None

    def find_cycle(self) -> list[int] | None:
        """One directed cycle as a list of variables (v0 -> v1 -> ... -> v0), or None."""
        color = [0] * self.n
        children: list[list[int]] = [[] for _ in range(self.n)]
        for p, c in self.edges:
            children[p].append(c)
        for root in range(self.n):
            if color[root]:
                continue
            stack = [(root, iter(children[root]))]
            path = [root]
            color[root] = 1
            while stack:
                v, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    color[v] = 2
                    stack.pop()
                    path.pop()
                elif color[nxt] == 1:
                    return path[path.index(nxt):]
                elif color[nxt] == 0:
                    color[nxt] = 1
                    stack.append((nxt, iter(children[nxt])))
                    path.append(nxt)
        return None

    def parent_names(self) -> dict[str, list[str]]:
        """``{variable name: [parent names]}``."""
        return {self.names[i]: [self.names[p] for p in ps] for i, ps in enumerate(self.parents)}

    def to_dict(self) -> dict[str, Any]:
        return {"variables": list(self.names), "parents": self.parent_names()}

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    def to_dot(self, name: str = "lpbn") -> str:
        """Graphviz dot text."""
        def q(s: str) -> str:
            return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
        lines = [f"digraph {q(name)} {{"]
        lines += [f"  {q(v)};" for v in self.names]
        lines += [f"  {q(self.names[p])} -> {q(self.names[c])};" for p, c in self.edges]
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_networkx(self, local_scores: Any = None):
        """The DAG as a ``networkx.DiGraph``: nodes are the names (in order), edges parent ->
        child.  ``local_scores`` (a :class:`~lpbn.cache.ScoreCache` over these names, or one
        number per variable) sets the node attribute ``local_score`` where it is known.
        Needs networkx (``pip install "lpbn[networkx]"``)."""
        from .optional import import_optional
        nx = import_optional("networkx", "networkx")
        g = nx.DiGraph()
        scores: list[float | None] = [None] * self.n
        if local_scores is not None:
            if hasattr(local_scores, "local_score"):
                idx = {v: i for i, v in enumerate(local_scores.names)}
                for i, ps in enumerate(self.parents):
                    j = idx.get(self.names[i])
                    if j is not None and all(self.names[p] in idx for p in ps):
                        scores[i] = local_scores.local_score(j, [idx[self.names[p]] for p in ps])
            else:
                scores = [None if s is None else float(s) for s in local_scores]
                if len(scores) != self.n:
                    raise ValueError("one local score per variable is required")
        for v, s in zip(self.names, scores):
            if s is None:
                g.add_node(v)
            else:
                g.add_node(v, local_score=s)
        g.add_edges_from((self.names[p], self.names[c]) for p, c in self.edges)
        return g

    @classmethod
    def from_parent_names(cls, names: Sequence[str], parents: dict[str, Iterable[str]]) -> "DAG":
        idx = {v: i for i, v in enumerate(names)}
        return cls(names, [[idx[p] for p in parents.get(v, [])] for v in names])

    def __eq__(self, other) -> bool:
        return isinstance(other, DAG) and self.names == other.names and self.parents == other.parents

    def __hash__(self) -> int:
        return hash((self.names, self.parents))

    def __repr__(self) -> str:
        return f"DAG(n={self.n}, edges={len(self.edges)})"


def smallest_topological_order(parents: Sequence[Iterable[int]]) -> list[int] | None:
    """The lexicographically smallest topological order of the graph ``parents[i]`` (Kahn's
    algorithm with a min-heap: parents first, ties by index), None when it has a cycle.  Its
    result is fixed by the graph alone, so samples and searches that start from it reproduce."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for c, ps in enumerate(parents):
        for p in ps:
            children[p].append(c)
            indeg[c] += 1
    heap = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        v = heapq.heappop(heap)
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(heap, c)
    return order if len(order) == n else None


def relative_gap(score: float, upper_bound: float) -> float:
    """``(upper_bound - score) / max(|score|, 1)``; ``inf`` without a solution or bound.

    Scores are log-scores (higher is better), so the gap is non-negative when the bound is
    valid; a negative gap is reported as it is (never floored at 0): it means the bound is
    invalid, which :mod:`lpbn.bound` turns into status ``error``.  The denominator guards
    against scores near zero.
    """
    if not (math.isfinite(score) and math.isfinite(upper_bound)):
        return math.inf
    return (upper_bound - score) / max(abs(score), 1.0)


@dataclass
class SolveResult:
    """Outcome of :func:`lpbn.solve`, whatever the method.

    Attributes
    ----------
    dag : DAG or None
        Best DAG found (None when none was found or the instance is infeasible).
    score : float
        Its score (sum of local log-scores); ``-inf`` when no DAG.
    upper_bound : float
        A proven upper bound on the optimal score (``score <= optimum <= upper_bound``).
    gap : float
        :func:`relative_gap` of score and bound.
    status : str
        One of ``optimal, time_limit, gap_limit, node_limit, memory_limit, interrupted,
        infeasible, error``.  Anything but ``optimal`` means the DAG is the best found so far;
        ``error`` that a fault was detected (a bound below the DAG's score, a solver failure:
        ``message`` says which) and nothing is claimed.
    method, seconds, stats, trace
        Method name, wall seconds, method-specific counters, and the list of
        ``(seconds, best score, upper bound)`` at every improvement.
    """

    dag: DAG | None
    score: float
    upper_bound: float
    status: str
    method: str
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    trace: list[tuple[float, float, float]] = field(default_factory=list)
    message: str = ""
    #: Method-specific objects that are not JSON (e.g. the dual's final ClusterFamily).
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    #: ``k_best`` only (:mod:`lpbn.kbest`): the K best networks, best first (rank, score,
    #: parents; for classes also cpdag, members_found, class_size; weight), and the posterior
    #: summaries over them.
    solutions: list[dict[str, Any]] | None = None
    posterior: dict[str, Any] | None = None
    #: which problem ``upper_bound`` is for (:mod:`lpbn.scope`): ``"cache"`` (the DAGs whose
    #: parent sets are in the solved cache), ``"parent_limit:K"`` (every DAG with at most K
    #: parents per variable) or ``"all"`` (every DAG)
    bound_scope: str = "cache"

    @property
    def gap(self) -> float:
        return relative_gap(self.score, self.upper_bound)

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: status, score, upper_bound, gap, method, seconds, parents, ..."""
        def num(x: float):
            return x if math.isfinite(x) else None
        return {
            "status": self.status,
            "score": num(self.score),
            "upper_bound": num(self.upper_bound),
            "gap": num(self.gap),
            "bound_scope": self.bound_scope,
            "method": self.method,
            "seconds": self.seconds,
            "parents": self.dag.parent_names() if self.dag is not None else None,
            "stats": self.stats,
            "trace": [[t, num(a), num(b)] for t, a, b in self.trace],
            "message": self.message,
            **({"solutions": self.solutions} if self.solutions is not None else {}),
            **({"posterior": self.posterior} if self.posterior is not None else {}),
        }

    def __repr__(self) -> str:
        return (f"SolveResult(status={self.status!r}, score={self.score!r}, "
                f"upper_bound={self.upper_bound!r}, gap={self.gap:.3g}, method={self.method!r}, "
                f"seconds={self.seconds:.3f})")
