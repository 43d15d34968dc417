"""Front door of the scorer: ``score_data(data, score="bic", ...) -> ScoreCache``.

Continuous and mixed scores go to :mod:`.continuous`, discrete ones to :mod:`.discrete`: the
data are read once (:mod:`.data`), every variable's candidate parent sets are explored by one
strategy (:mod:`.explore`: exhaustive, independence, greedy or sequential) in parallel
(:mod:`.parallel`), and the kept sets become one :class:`~lpbn.cache.ScoreCache`.  This module
only routes; it imports both scorers and neither imports it.
"""

from __future__ import annotations

import time
from dataclasses import fields, replace
from typing import Any

from ..cache import ScoreCache
from ..errors import InputError
from .continuous import score_continuous
from .data import Dataset, read_data
# re-exported: the discrete scorer's names that callers know from here
from .discrete import (AUTO_EXHAUSTIVE_MAX_SETS, AUTO_EXPLORE_SECONDS, ISOLATE_MIN_SETS,  # noqa: F401
                       SERIAL_CELLS, DiscreteScoring, exhaustive_fits, score_discrete)
from .typed import auto_score, read_typed

__all__ = ["score_data", "read_data", "Dataset", "exhaustive_fits", "READ_OPTIONS"]

#: the reading options of :func:`score_data` (:func:`read_data`'s); every other keyword option
#: is a field of :class:`DiscreteScoring`
READ_OPTIONS = ("header", "missing", "drop_missing")
_FIELDS = frozenset(f.name for f in fields(DiscreteScoring)) - {"score", "max_parents"}


def score_data(data: Any, score: str = "bic", max_parents: int | None = None, **options: Any) -> ScoreCache:
    """Score discrete data into a pruned local-score cache.

    The keyword options are declared once, as the fields of
    :class:`~lpbn.scoring.discrete.DiscreteScoring` (plus the three reading options); an
    unknown keyword is a ``TypeError`` as for any function.

    Parameters
    ----------
    data : path (CSV / GOBNILP ``.dat``), numpy array, pandas DataFrame or :class:`Dataset`.
    score : ``"bic"`` (natural log, GOBNILP), ``"mdl"`` (= BIC / ln 2, minus Tian's MDL in
        bits), ``"bdeu"`` or ``"aic"``; for continuous and mixed data ``"bic-g"``, ``"bge"``
        (``ess`` is then its ``α_μ``) or ``"bic-cg"`` (:mod:`lpbn.scoring.continuous`), or
        ``"auto"``: bic, bic-g or bic-cg from the column types (:mod:`lpbn.scoring.typed`).
    ess : BDeu equivalent sample size (default 1, as in GOBNILP).
    max_parents : user parent limit (none by default); for BIC/MDL/AIC Tian's bound (Thm 1,
        eq. 34) is applied on top automatically.
    k_best : keep every family of the ``k`` best DAGs (Chen et al. Cor. 1, Thm 3, Alg. 2;
        exhaustive exploration only).
    jobs : worker processes; default: every core, or this process alone for small data.
    progress : callable ``(done, total, name)`` or True for a bar with an ETA on stderr.
    explore : how the parent sets of each variable are explored (:mod:`lpbn.scoring.explore`):
        ``"exhaustive"`` — every set within the parent limit, pruned safely (Tian 2000); the
        cache then provably holds an optimal DAG (k best with ``k_best``);
        ``"independence"`` — Scanagatta et al. 2015's independence selection guided by BIC*,
        anytime, no parent limit needed; ``"greedy"`` and ``"sequential"`` — that paper's
        baselines; ``"auto"`` (default) — exhaustive when every variable has at most
        AUTO_EXHAUSTIVE_MAX_SETS sets within the parent limit, else independence.  A budgeted
        cache is optimal only over the sets it kept: the solvers certify DAGs for the cache.
    time_per_variable : seconds of exploration per variable for the budgeted strategies;
        ``"auto"`` spreads about AUTO_EXPLORE_SECONDS of wall time over the variables (0.05 to
        1 s each); None = until the open list is empty or ``max_evaluations``.
    max_evaluations : parent sets scored per variable (budgeted strategies).  Unlike time, this
        budget gives the same cache on every machine and scheduler.
    max_candidates : kept sets per variable (budgeted strategies; default 1000), best first;
        the empty set is always kept.
    scheduler : a Dask scheduler address (``"tcp://host:8786"``) or ``distributed.Client``:
        explore the variables on that cluster instead of local processes (same results).
    header, missing, drop_missing : how a data file is read (:func:`read_data`): a header line
        (None = detect), tokens meaning a missing value besides an empty field and ``?``, and
        whether rows with missing values are dropped (else they are an error).
    explore_options : further :class:`~lpbn.scoring.context.ExploreOptions` fields
        (``pool_extra``, ``max_pool``, ``heap_cap``, ``pairs_share``, ``triples_share``).
    entropy_bound : exhaustive only: ``"all"`` (Tian eq. 15: the fixed bound ``H(X|all
        others)``, default) or ``"tw"`` (eq. 12: ``H(X|T,W)`` per search node); both are exact.
    rules : exhaustive only, pruning rules to apply (for testing each alone): ``"limit"``
        (Tian/Chen parent limits), ``"dominance"`` (subset dominance, Thm 3), ``"bnb"`` (DFBnB
        entropy and superset bounds).  With none, every set within ``max_parents`` is kept.
    order : exhaustive only: a fixed variable ordering (names or indices); then only the best
        parent set among predecessors is kept per variable (Tian's fixed-order DFBnB_K3).
    constraints : structural constraints (:class:`lpbn.constraints.Constraints`, a dict or a
        file path), applied to the cache; the parent sets that required arcs (and both
        orientations of required adjacencies) need are scored too, so the pruning stays exact
        (:mod:`lpbn.scoring.constrained`).  Recorded in ``meta["constraints"]``.  Required
        adjacencies are not enforced by the cache alone: pass them to :func:`lpbn.solve` too.

    Every pruning rule is safe: exhaustive with ``k_best == 1`` keeps an optimal DAG (over all
    DAGs within ``max_parents``), with ``k_best = K`` a set of K best DAGs; the budgeted
    strategies drop only sets that an explored subset scores at least as well as.
    """
    t0 = time.perf_counter()
    read = {k: options.pop(k) for k in READ_OPTIONS if k in options}
    unknown = sorted(set(options) - _FIELDS)
    if unknown:
        raise TypeError(f"score_data() got an unexpected keyword argument {unknown[0]!r}")
    run = DiscreteScoring(score=score, max_parents=max_parents, **options)
    if str(score).lower() in ("auto", "bic-g", "bge", "bic-cg"):
        routed = _route_typed(data, run, read)
        if not isinstance(routed, str):
            return routed
        run = replace(run, score=routed)
    return score_discrete(data, run, read, t0)


def _route_typed(data, run: DiscreteScoring, read: dict[str, Any]):
    """Continuous and mixed scores (and ``auto``) go to :mod:`.continuous`: returns its cache,
    or ``"bic"`` when ``auto`` finds every column discrete (a :class:`Dataset` or a GOBNILP
    ``.dat`` file is discrete by definition).  ``run.ess`` is BGe's ``α_μ``."""
    score = str(run.score).lower()
    if score == "auto" and (isinstance(data, Dataset) or str(data).lower().endswith((".dat", ".dat.gz"))):
        return "bic"
    table = read_typed(data, score=score, **read)
    name = auto_score(table) if score == "auto" else score
    if name == "bic":
        return "bic"
    if run.order is not None or run.constraints is not None:
        raise InputError(f"score {name!r} supports no fixed order and no constraints")
    return score_continuous(table, name, run.max_parents, alpha=(run.ess, None), explore=run.explore,
                            max_evaluations=run.max_evaluations, jobs=run.jobs, k_best=run.k_best)
