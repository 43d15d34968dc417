"""Linear-Gaussian and conditional-Gaussian Bayesian networks: fitting, sampling, JSON, pgmpy.

A :class:`GaussianNetwork` holds, per variable, its type and parents.  A **discrete** node (only
discrete parents, as in bnlearn's conditional Gaussian networks, Lauritzen & Wermuth 1989) has a
CPT of shape ``(q, r)`` (rows: parent configurations in mixed radix, first parent most
significant, as :mod:`lpbn.network`).  A **continuous** node with discrete parents ``D``
(``q`` configurations) and continuous parents ``G`` has, per configuration ``c``, an intercept
``b0_c``, coefficients ``b_c`` (one per parent in ``G``) and a residual standard deviation
``σ_c``: ``x = b0_c + b_c · x_G + σ_c ε``, ``ε ~ N(0, 1)``.  Without discrete nodes this is a
linear-Gaussian network.

Fitting (:func:`fit_gaussian_network`) is maximum likelihood for the coefficients (OLS per
configuration) with the *unbiased* residual variance ``RSS_c/(n_c-g-1)``, the estimate the
bic-g / bic-cg scores use (:mod:`lpbn.scoring.gaussian`, :mod:`lpbn.scoring.cg`).  A
configuration with too few rows for its regression (``n_c <= g+1``) or never observed takes
the regression fitted on all rows of the node (pooled over the configurations), so every
configuration can be sampled; such configurations are listed in ``"pooled"`` in the JSON.
Discrete CPTs are maximum likelihood with uniform rows for unseen configurations (as
:func:`lpbn.fit.fit_network`).

Sampling is ancestral (Koller & Friedman 2009, §12.1.1), vectorised per variable over rows.

JSON::

    {"format": "lpbn-gaussian-network", "version": 1,
     "variables": [{"name": "A", "type": "discrete", "states": ["a", "b"], "parents": [], "cpt": [[0.4, 0.6]]},
                   {"name": "D", "type": "continuous", "parents": ["A", "H"],
                    "intercept": [..q..], "coefficients": [[..g..], ..q..], "sd": [..q..]}]}

``parents`` lists the discrete parents first (they index the configurations), then the
continuous ones (the order of ``coefficients``).
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import atomic_write
from .errors import InputError
from .result import DAG

FORMAT = "lpbn-gaussian-network"
VERSION = 1


class GaussianNetwork:
    """A conditional-Gaussian (or linear-Gaussian) Bayesian network (module docstring)."""

    def __init__(self, names: Sequence[str], nodes: Sequence[dict]):
        self.names = tuple(str(s) for s in names)
        self.nodes = [dict(nd) for nd in nodes]
        if len(self.nodes) != len(self.names):
            raise InputError("one node per name expected")
        for i, nd in enumerate(self.nodes):
            _check_node(self, i, nd)
        self.order = _topological(self)

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def parents(self) -> list[tuple[int, ...]]:
        return [tuple(sorted(nd["dparents"] + nd["cparents"])) for nd in self.nodes]

    @property
    def continuous(self) -> np.ndarray:
        return np.array([nd["type"] == "continuous" for nd in self.nodes])

    def num_parameters(self) -> int:
        """Free parameters: ``(r-1)·q`` per discrete node, ``q·(g+2)`` per continuous node."""
        total = 0
        for nd in self.nodes:
            if nd["type"] == "discrete":
                total += nd["cpt"].shape[0] * (nd["cpt"].shape[1] - 1)
            else:
                total += nd["coef"].shape[0] * (nd["coef"].shape[1] + 2)
        return total

    def __repr__(self) -> str:
        return f"GaussianNetwork(n={self.n}, edges={sum(len(p) for p in self.parents)})"

    def sample(self, N: int, seed: Any = 0) -> np.ndarray:
        """``N`` rows (N x n float64; discrete nodes as state codes), ancestral sampling."""
        rng = np.random.default_rng(seed)
        out = np.zeros((int(N), self.n))
        for v in self.order:
            nd = self.nodes[v]
            z = self._config(out, nd["dparents"])
            if nd["type"] == "discrete":
                cum = np.cumsum(nd["cpt"], axis=1)
                u = rng.random(int(N))
                out[:, v] = np.minimum((u[:, None] > cum[z]).sum(axis=1), nd["cpt"].shape[1] - 1)
            else:
                G = nd["cparents"]
                mean = nd["intercept"][z] + (np.einsum("ij,ij->i", out[:, G], nd["coef"][z]) if G else 0.0)
                out[:, v] = mean + nd["sd"][z] * rng.standard_normal(int(N))
        return out

    def _config(self, rows: np.ndarray, D: list[int]) -> np.ndarray:
        z = np.zeros(rows.shape[0], dtype=np.int64)
        for d in D:
            z = z * self.nodes[d]["cpt"].shape[1] + rows[:, d].astype(np.int64)
        return z

    def write_csv(self, path: str | os.PathLike, rows: np.ndarray) -> None:
        """Rows as CSV: state names for discrete nodes, 17 significant digits for continuous ones
        (bit-exact round trip); written atomically."""
        cols = []
        for j, nd in enumerate(self.nodes):
            if nd["type"] == "discrete":
                st = np.array(nd["states"], dtype=object)
                cols.append(st[rows[:, j].astype(np.int64)])
            else:
                cols.append(np.array([repr(float(v)) for v in rows[:, j]], dtype=object))
        text = ",".join(self.names) + "\n" + "".join(",".join(r) + "\n" for r in zip(*cols))
        with atomic_write(path, "w") as fh:
            fh.write(text)

    def to_dict(self) -> dict[str, Any]:
        out = []
        for nd in self.nodes:
            ps = [self.names[p] for p in nd["dparents"] + nd["cparents"]]
            if nd["type"] == "discrete":
                out.append({"name": nd["name"], "type": "discrete", "states": list(nd["states"]), "parents": ps,
                            "cpt": nd["cpt"].tolist()})
            else:
                out.append({"name": nd["name"], "type": "continuous", "parents": ps,
                            "intercept": nd["intercept"].tolist(), "coefficients": nd["coef"].tolist(),
                            "sd": nd["sd"].tolist(), "pooled": [int(c) for c in nd.get("pooled", [])]})
        return {"format": FORMAT, "version": VERSION, "variables": out}

    @classmethod
    def from_dict(cls, d: Any, source: str | None = None) -> GaussianNetwork:
        where = source or "network"
        if not isinstance(d, dict) or d.get("format") != FORMAT or not isinstance(d.get("variables"), list):
            raise InputError(f"{where}: not an {FORMAT} JSON document")
        names = [str(v.get("name")) for v in d["variables"]]
        index = {s: i for i, s in enumerate(names)}
        nodes = []
        for v in d["variables"]:
            try:
                ps = [index[p] for p in v.get("parents", [])]
            except KeyError as e:
                raise InputError(f"{where}: variable {v.get('name')}: unknown parent {e.args[0]!r}") from None
            nd = {"name": str(v["name"]), "type": v.get("type")}
            if nd["type"] == "discrete":
                nd.update(states=[str(s) for s in v["states"]], dparents=ps, cparents=[],
                          cpt=np.asarray(v["cpt"], dtype=np.float64))
            else:
                types = [d["variables"][p].get("type") for p in ps]
                nd.update(dparents=[p for p, t in zip(ps, types) if t == "discrete"],
                          cparents=[p for p, t in zip(ps, types) if t != "discrete"],
                          intercept=np.asarray(v["intercept"], dtype=np.float64),
                          coef=np.asarray(v["coefficients"], dtype=np.float64).reshape(len(v["intercept"]), -1),
                          sd=np.asarray(v["sd"], dtype=np.float64), pooled=list(v.get("pooled", [])))
            nodes.append(nd)
        return cls(names, nodes)

    def save(self, path: str | os.PathLike) -> None:
        data = json.dumps(self.to_dict(), indent=1) + "\n"
        if str(path).lower().endswith(".gz"):
            with atomic_write(path, "wb") as fh:
                fh.write(gzip.compress(data.encode(), mtime=0))
        else:
            with atomic_write(path, "w") as fh:
                fh.write(data)

    @classmethod
    def load(cls, path: str | os.PathLike) -> GaussianNetwork:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        try:
            d = json.loads(raw)
        except ValueError as e:
            raise InputError(f"{path}: not JSON ({e})") from None
        return cls.from_dict(d, str(path))

    def to_pgmpy(self):
        """pgmpy's ``LinearGaussianBayesianNetwork`` (pgmpy supports linear-Gaussian networks
        only: a network with discrete nodes raises InputError)."""
        if not self.continuous.all():
            raise InputError("pgmpy's LinearGaussianBayesianNetwork has no discrete nodes; this network is "
                             "conditional Gaussian")
        from .optional import import_optional
        models = import_optional("pgmpy.models", "pgmpy")
        factors = import_optional("pgmpy.factors.continuous", "pgmpy")
        net = models.LinearGaussianBayesianNetwork()
        net.add_nodes_from(self.names)
        net.add_edges_from([(self.names[p], self.names[v]) for v in range(self.n) for p in self.parents[v]])
        cpds = []
        for nd in self.nodes:
            beta = [float(nd["intercept"][0])] + [float(b) for b in nd["coef"][0]]
            cpds.append(factors.LinearGaussianCPD(nd["name"], beta, float(nd["sd"][0]),
                                                  [self.names[p] for p in nd["cparents"]]))
        net.add_cpds(*cpds)
        return net


def _check_node(net: GaussianNetwork, i: int, nd: dict) -> None:
    name = net.names[i]
    nd.setdefault("name", name)
    for p in nd["dparents"]:
        if net_type(net, p) != "discrete":
            raise InputError(f"node {name}: parent {net.names[p]} listed as discrete is not")
    if nd["type"] == "discrete":
        if nd["cparents"]:
            raise InputError(f"discrete node {name} cannot have continuous parents (conditional Gaussian)")
        cpt = nd["cpt"]
        q = int(np.prod([len(net.nodes[p]["states"]) for p in nd["dparents"]])) if nd["dparents"] else 1
        if cpt.ndim != 2 or cpt.shape[0] != q or not np.allclose(cpt.sum(axis=1), 1.0, atol=1e-6):
            raise InputError(f"node {name}: CPT must have {q} rows that sum to 1")
    elif nd["type"] == "continuous":
        q = int(np.prod([len(net.nodes[p]["states"]) for p in nd["dparents"]])) if nd["dparents"] else 1
        if (nd["intercept"].shape != (q,) or nd["coef"].shape != (q, len(nd["cparents"]))
                or nd["sd"].shape != (q,)):
            raise InputError(f"node {name}: {q} configurations need {q} intercepts, coefficient rows of "
                             f"{len(nd['cparents'])} and standard deviations")
        if not (np.all(np.isfinite(nd["coef"])) and np.all(np.isfinite(nd["intercept"]))
                and np.all(nd["sd"] > 0) and np.all(np.isfinite(nd["sd"]))):
            raise InputError(f"node {name}: coefficients must be finite and sd positive")
    else:
        raise InputError(f"node {name}: type must be 'discrete' or 'continuous', got {nd['type']!r}")


def net_type(net: GaussianNetwork, p: int) -> str:
    return net.nodes[p]["type"]


def _topological(net: GaussianNetwork) -> list[int]:
    order = DAG([str(v) for v in range(net.n)], net.parents).topological_order()
    if order is None:
        raise InputError("the network has a directed cycle")
    return order


def fit_gaussian_network(parents_of: Sequence[Sequence[int]], table) -> GaussianNetwork:
    """Fit the CPDs of the DAG ``parents_of[v]`` (indices) to a :class:`lpbn.scoring.typed.Table`
    (module docstring)."""
    nodes = []
    for v in range(table.n):
        ps = sorted(int(p) for p in parents_of[v])
        D = [p for p in ps if not table.continuous[p]]
        G = [p for p in ps if table.continuous[p]]
        z = np.zeros(table.N, dtype=np.int64)
        q = 1
        for d in D:
            z = z * int(table.arities[d]) + table.codes[d]
            q *= int(table.arities[d])
        if not table.continuous[v]:
            if G:
                raise InputError(f"discrete variable {table.names[v]} cannot have continuous parents")
            r = int(table.arities[v])
            cnt = np.bincount(z * r + table.codes[v], minlength=q * r).reshape(q, r).astype(np.float64)
            tot = cnt.sum(axis=1, keepdims=True)
            cpt = np.where(tot > 0, cnt / np.where(tot > 0, tot, 1), 1.0 / r)
            nodes.append({"type": "discrete", "states": table.labels[v], "dparents": D, "cparents": [], "cpt": cpt})
        else:
            nodes.append(_fit_continuous(table, v, D, G, z, q))
    return GaussianNetwork(table.names, nodes)


def _ols(X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, float] | None:
    n, g = X.shape
    if n <= g + 1:
        return None
    A = np.column_stack([np.ones(n), X])
    beta, *_ = np.linalg.lstsq(A, y, rcond=None)
    rss = float(((y - A @ beta) ** 2).sum())
    sd = (rss / (n - g - 1)) ** 0.5
    if not sd > 0:
        return None
    return float(beta[0]), beta[1:], sd


def _fit_continuous(table, v, D, G, z, q) -> dict:
    X = table.values[:, G]
    y = table.values[:, v]
    pooled_fit = _ols(X, y)
    if pooled_fit is None:
        raise InputError(f"variable {table.names[v]}: too few rows to fit its regression on {len(G)} parents")
    b0 = np.empty(q)
    B = np.empty((q, len(G)))
    sd = np.empty(q)
    pooled = []
    for c in range(q):
        rows = z == c
        fit = _ols(X[rows], y[rows]) if rows.any() else None
        if fit is None:
            fit = pooled_fit
            pooled.append(c)
        b0[c], B[c], sd[c] = fit
    return {"type": "continuous", "dparents": D, "cparents": G, "intercept": b0, "coef": B, "sd": sd,
            "pooled": pooled}


def random_gaussian_network(n: int, *, max_in_degree: int = 3, discrete: int = 0, arities=(2, 3),
                            seed: Any = 0) -> GaussianNetwork:
    """A seeded random linear-Gaussian (``discrete=0``) or conditional-Gaussian network: a uniform
    random topological order; each node gets ``0..max_in_degree`` parents uniformly among its
    predecessors (discrete nodes: among the discrete predecessors only); ``discrete`` nodes are
    discrete (chosen at random) with arities from ``arities`` and Dirichlet(1) CPT rows;
    coefficients ``±U(0.5, 1.5)``, intercepts ``U(-1, 1)`` (shifted per configuration), residual
    sd ``U(0.5, 1.5)``.  Strong enough for recovery at N in the thousands."""
    if n < 1 or max_in_degree < 0 or not 0 <= discrete <= n:
        raise InputError("need n >= 1, max_in_degree >= 0 and 0 <= discrete <= n")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    is_disc = np.zeros(n, dtype=bool)
    is_disc[rng.choice(n, size=discrete, replace=False)] = True
    names = [f"X{i}" for i in range(n)]
    nodes: list[dict] = [None] * n  # type: ignore[list-item]
    for k, v in enumerate(order):
        pool = [int(u) for u in order[:k] if (not is_disc[v]) or is_disc[u]]
        deg = int(rng.integers(0, min(max_in_degree, len(pool)) + 1))
        ps = sorted(int(u) for u in rng.choice(pool, size=deg, replace=False)) if deg else []
        D = [p for p in ps if is_disc[p]]
        G = [p for p in ps if not is_disc[p]]
        q = int(np.prod([len(nodes[p]["states"]) for p in D])) if D else 1
        if is_disc[v]:
            r = int(rng.choice(arities))
            nodes[v] = {"type": "discrete", "states": [str(s) for s in range(r)], "dparents": D, "cparents": [],
                        "cpt": rng.dirichlet(np.ones(r), size=q)}
        else:
            base = rng.uniform(0.5, 1.5, len(G)) * rng.choice([-1.0, 1.0], len(G))
            nodes[v] = {"type": "continuous", "dparents": D, "cparents": G,
                        "intercept": rng.uniform(-1, 1) + rng.uniform(-2, 2, q) * (q > 1),
                        "coef": base[None, :] * rng.uniform(0.7, 1.3, (q, len(G))),
                        "sd": rng.uniform(0.5, 1.5, q)}
    return GaussianNetwork(names, nodes)


def random_gaussian_dataset(n: int, N: int, *, model: str = "linear-gaussian", seed: Any = 0,
                            max_in_degree: int = 3, discrete_nodes: int | None = None):
    """A seeded random network (:func:`random_gaussian_network`) and ``N`` rows sampled from it
    with the data seed ``[seed, 1]`` (as ``lpbn sample``), as a typed table:
    ``(network, lpbn.scoring.typed.Table)``.  ``model``: ``linear-gaussian`` or
    ``conditional-gaussian`` (``discrete_nodes`` discrete, default n/4)."""
    from .scoring.typed import Table
    from .synthetic import sample_seed_for
    if model not in ("linear-gaussian", "conditional-gaussian"):
        raise InputError(f"model must be linear-gaussian or conditional-gaussian, got {model!r}")
    k = 0 if model == "linear-gaussian" else (n // 4 if discrete_nodes is None else int(discrete_nodes))
    net = random_gaussian_network(n, max_in_degree=max_in_degree, discrete=k, seed=seed)
    rows = net.sample(N, seed=sample_seed_for(seed))
    cont = net.continuous
    codes = np.zeros((n, N), dtype=np.int32)
    arities = np.zeros(n, dtype=np.int64)
    labels: list = []
    for j in range(n):
        if cont[j]:
            labels.append(None)
        else:
            codes[j] = rows[:, j].astype(np.int32)
            arities[j] = len(net.nodes[j]["states"])
            labels.append(list(net.nodes[j]["states"]))
    return net, Table(net.names, cont, np.where(cont[None, :], rows, 0.0), codes, arities, labels,
                      f"synthetic {model} n={n} N={N} seed={seed}")


def load_dag(path: str | os.PathLike):
    """The DAG of a saved network, Gaussian (this module) or discrete (:mod:`lpbn.network`)."""
    from .result import DAG
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if FORMAT.encode() in raw[:200]:
        net = GaussianNetwork.load(path)
        return DAG(net.names, net.parents)
    from .network import BayesianNetwork
    return BayesianNetwork.load(path).dag
