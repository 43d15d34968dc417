"""Interoperability with networkx and pgmpy (both optional dependencies).

* :meth:`lpbn.result.DAG.to_networkx` -> ``networkx.DiGraph`` (``pip install "lpbn[networkx]"``);
* :func:`to_pgmpy` -> ``pgmpy.models.DiscreteBayesianNetwork`` with fitted ``TabularCPD`` s
  (``pip install "lpbn[pgmpy]"``).

A missing package is a :class:`MissingDependencyError` (an :class:`~lpbn.errors.InputError`:
the CLI prints one line and exits 2) that says which extra to install.
"""

from __future__ import annotations

from typing import Any

from .errors import InputError
from .optional import MissingDependencyError, import_optional  # noqa: F401  (re-exported)

__all__ = ["to_pgmpy", "import_optional", "MissingDependencyError"]


def to_pgmpy(model: Any, data: Any = None, *, ess: float | None = None):
    """A pgmpy ``DiscreteBayesianNetwork`` with one ``TabularCPD`` per variable.

    ``model`` is a :class:`~lpbn.network.BayesianNetwork` (its CPTs are used; ``data`` is not
    needed), a :class:`~lpbn.learn.LearnResult` (its fitted network), or a DAG / SolveResult
    whose CPTs are fitted to ``data`` by :func:`lpbn.fit_network` (maximum likelihood, or the
    BDeu posterior mean with ``ess``).  Node names are the variable names; ``state_names`` are
    the network's state names (the data's labels), so pgmpy queries can use them.
    """
    from .fit import fit_network
    from .network import BayesianNetwork
    net = model if isinstance(model, BayesianNetwork) else getattr(model, "network", None)
    if net is None:
        if data is None:
            raise InputError("to_pgmpy needs data to fit the CPTs of a DAG or solve result")
        net = fit_network(model, data, ess=ess)
    import_optional("pgmpy", "pgmpy", "to_pgmpy")
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    names = list(net.names)
    g = DiscreteBayesianNetwork()
    g.add_nodes_from(names)
    g.add_edges_from((names[p], names[c]) for p, c in net.edges)
    cpds = []
    for i, ps in enumerate(net.parents):
        evidence = [names[p] for p in ps]
        states = {names[i]: list(net.state_names(i))}
        states.update({names[p]: list(net.state_names(p)) for p in ps})
        cpds.append(TabularCPD(names[i], int(net.arities[i]), net.cpts[i].T,
                               evidence=evidence or None,
                               evidence_card=[int(net.arities[p]) for p in ps] or None,
                               state_names=states))
    g.add_cpds(*cpds)
    return g
