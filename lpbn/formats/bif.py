"""Writing Bayesian networks in the BIF interchange format (as bnlearn and pgmpy read it).

::

    network lpbn {
    }
    variable smoke {
      type discrete [ 2 ] { no, yes };
    }
    probability ( smoke ) {
      table 0.5, 0.5;
    }
    probability ( lung | asia, smoke ) {
      (no, no) 0.99, 0.01;
      ...
    }

Rows of a conditional table are listed for every parent configuration, first parent most
significant (:mod:`lpbn.network`'s order); probabilities are written with ``repr`` (shortest
string that reads back to the same float64).

Names
-----
Variable and state names are written as identifiers ``[A-Za-z_][A-Za-z0-9_]*``, which every BIF
reader accepts (pgmpy's reader splits on spaces, commas, parentheses and quotes, and lower-cases
variable names to match them).  The mapping, :func:`bif_identifiers`, is:

1. accents are dropped (NFKD: ``é`` -> ``e``), and every run of other characters outside
   ``A-Za-z0-9_`` becomes one ``_`` (``"no smoke"`` -> ``no_smoke``, ``"<=5"`` -> ``_5``);
2. a name starting with a digit gets a prefix: ``s`` for states (``0`` -> ``s0``), ``v`` for
   variables (``"1"`` -> ``v1``); an empty name becomes the prefix alone;
3. BIF keywords (``network variable probability property type discrete table default``, any
   case) get a ``_`` appended, and so does ``table``/``default`` inside a variable name when a
   digit or ``e``/``E`` follows (``table2`` -> ``table_2``: pgmpy's reader would take the rest
   for a number);
4. duplicates get ``_2``, ``_3``, ... (a suffix that is nobody else's name): state names must
   be distinct within a variable, variable names distinct ignoring case.  Names that are
   already identifiers (and not keywords) keep them; the first of several that differ only in
   case keeps its name, and so does the first of several changed names that map to the same
   identifier (``"a b"`` and ``"a-b"`` -> ``a_b``, ``a_b_2``, unless a variable is named
   ``a_b``: then ``a_b_2``, ``a_b_3``).
"""

from __future__ import annotations

import itertools
import os
import re
import unicodedata
from typing import Sequence

from ..atomic import atomic_write
from ..errors import InputError

__all__ = ["write_bif", "bif_identifiers", "bif_identifier", "KEYWORDS"]

#: Words of the BIF grammar; names equal to one of them (any case) get a ``_`` appended.
KEYWORDS = frozenset({"network", "variable", "probability", "property", "type", "discrete",
                      "table", "default"})
_BAD = re.compile(r"[^A-Za-z0-9_]+")
_NUMBERISH = re.compile(r"(table|default)(?=[0-9eE])")


def bif_identifier(name: str, prefix: str = "s", variable: bool = False) -> str:
    """One name as a BIF identifier (rules 1-3 of the module docstring; no de-duplication)."""
    t = unicodedata.normalize("NFKD", str(name))
    t = "".join(ch for ch in t if not unicodedata.combining(ch))
    t = _BAD.sub("_", t)
    if not t:
        t = prefix
    elif t[0].isdigit():
        t = prefix + t
    if t.lower() in KEYWORDS:
        t += "_"
    if variable:
        t = _NUMBERISH.sub(r"\1_", t)
    return t


def _unique(names: Sequence[str], prefix: str, variable: bool) -> list[str]:
    fold = str.lower if variable else (lambda s: s)
    base = [bif_identifier(x, prefix, variable) for x in names]
    reserved = {fold(b) for b in base}
    used: set[str] = set()
    out = list(base)
    # names kept as they are claim their identifier first, then the changed ones, in order
    order = sorted(range(len(base)), key=lambda i: (base[i] != str(names[i]), i))
    for i in order:
        b = base[i]
        if fold(b) in used:
            k = 2
            while fold(f"{b}_{k}") in used or fold(f"{b}_{k}") in reserved:
                k += 1
            out[i] = f"{b}_{k}"
        used.add(fold(out[i]))
    return out


def bif_identifiers(network) -> tuple[list[str], list[list[str]]]:
    """``(variable names, state names per variable)`` as :func:`write_bif` writes them, in the
    network's variable and state order (see the module docstring for the mapping)."""
    variables = _unique(network.names, "v", True)
    states = [_unique(network.state_names(i), "s", False) for i in range(network.n)]
    return variables, states


def write_bif(network, path: str | os.PathLike | None = None, *, name: str = "lpbn") -> str:
    """The network as BIF text; also written (atomically) to ``path`` unless it is None.

    ``network`` is a :class:`~lpbn.network.BayesianNetwork`; names are mapped to identifiers
    by :func:`bif_identifiers`.  ``name`` is the network's name (an identifier as well; one that
    contains ``variable`` or ``probability``, which pgmpy's reader mistakes for a block, is
    replaced by ``lpbn``).
    """
    # duck-typed: lpbn.network (core) reads its files through this package's text helpers, so
    # this package does not import it back
    if not all(hasattr(network, a) for a in ("names", "arities", "parents", "cpts", "state_names")):
        raise InputError(f"write_bif expects a BayesianNetwork, got {type(network).__name__}")
    text = bif_text(network, name)
    if path is not None:
        with atomic_write(path) as fh:
            fh.write(text)
    return text


def bif_text(network, name: str = "lpbn") -> str:
    net_name = bif_identifier(name, "n")
    if re.search("variable|probability", net_name, re.IGNORECASE):
        net_name = "lpbn"
    var, states = bif_identifiers(network)
    out = [f"network {net_name} {{", "}"]
    for i in range(network.n):
        out.append(f"variable {var[i]} {{")
        out.append(f"  type discrete [ {int(network.arities[i])} ] {{ {', '.join(states[i])} }};")
        out.append("}")
    for i in range(network.n):
        ps = network.parents[i]
        cpt = network.cpts[i]
        if ps:
            out.append(f"probability ( {var[i]} | {', '.join(var[p] for p in ps)} ) {{")
            for cfg, row in zip(itertools.product(*(states[p] for p in ps)), cpt.tolist()):
                out.append(f"  ({', '.join(cfg)}) {', '.join(map(repr, row))};")
        else:
            out.append(f"probability ( {var[i]} ) {{")
            out.append(f"  table {', '.join(map(repr, cpt[0].tolist()))};")
        out.append("}")
    return "\n".join(out) + "\n"
