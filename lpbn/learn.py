"""From data to a fitted Bayesian network in one call: :func:`learn` -> :class:`LearnResult`.

``learn(data)`` reads the data once (:func:`lpbn.read_data`), scores it into a pruned local-score
cache (:func:`lpbn.score_data`; its default exploration is exhaustive when that is small enough,
else independence selection), solves the cache (:func:`lpbn.solve`, ``method="auto"``) and fits
the CPTs of the DAG found (:func:`lpbn.fit_network`: maximum likelihood, or the BDeu posterior
mean with ``fit_ess``).

The certificate (``score <= optimum <= upper_bound``) is over the DAGs whose parent sets are in
the cache.  With exhaustive exploration the cache provably holds an optimal DAG among all DAGs
(within ``max_parents``), so an ``optimal`` status means optimal over all DAGs; with budgeted
exploration (independence, for large data) it means optimal over the parent sets explored.
:meth:`LearnResult.certificate` says which (``"optimal_over"``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, fields
from typing import Any, Sequence

from .result import SolveResult, relative_gap
from .tuning import FIT_RESERVE, LEARN_PRICE_SHARE as PRICE_SHARE

__all__ = ["learn", "LearnResult", "LearnOptions"]


@dataclass(repr=False)
class LearnResult(SolveResult):
    """A :class:`~lpbn.result.SolveResult` (DAG, score, upper bound, gap, status, method, ...)
    plus what :func:`learn` made on the way.

    Attributes
    ----------
    network : BayesianNetwork or None
        The DAG with fitted CPTs (state names from the data); None when no DAG was found.
    cache : ScoreCache
        The local-score cache that was solved (``cache.meta``: score, N, explore, ...).
    data : Dataset
        The data as read (integer-coded columns, arities, labels).
    fit_ess : float or None
        None: maximum-likelihood CPTs; else the BDeu posterior mean with this equivalent sample
        size.
    timings : dict
        Seconds spent reading, scoring, solving and fitting.
    pricing : dict or None
        With ``price=K`` (:mod:`lpbn.pricing`): whether pricing finished and converged, the
        bound it proved over every DAG with at most K parents, the cache's own bound, the
        passes; None without pricing.
    """

    network: Any = None
    cache: Any = field(default=None, repr=False)
    data: Any = field(default=None, repr=False)
    fit_ess: float | None = None
    timings: dict[str, float] = field(default_factory=dict)
    pricing: dict[str, Any] | None = None

    def certificate(self) -> dict[str, Any]:
        """JSON-ready summary: status, score, upper bound, gap, method, seconds, what the
        optimality is over, the scoring settings and how the CPTs were fitted."""
        d = SolveResult.to_dict(self)
        cert = {k: d[k] for k in ("status", "score", "upper_bound", "gap", "bound_scope", "method", "seconds",
                                  "message")}
        meta = self.cache.meta if self.cache is not None else {}
        cert["optimal_over"] = optimal_over(meta, self.bound_scope)
        cert["scoring"] = {k: meta.get(k) for k in ("score", "ess", "max_parents", "explore", "N",
                                                    "dropped_rows", "source", "reading")}
        cert["scoring"]["candidate_sets"] = self.cache.m if self.cache is not None else None
        cert["fit"] = fit_words(hasattr(self.data, "continuous"), self.fit_ess)
        cert["timings"] = dict(self.timings)
        if self.pricing is not None:
            cert["pricing"] = dict(self.pricing)
        return cert

    def to_dict(self) -> dict[str, Any]:
        """:meth:`SolveResult.to_dict` plus ``certificate`` details and the ``network`` dict."""
        d = SolveResult.to_dict(self)
        cert = self.certificate()
        for k in ("optimal_over", "scoring", "fit", "timings", "pricing"):
            if k in cert:
                d[k] = cert[k]
        d["network"] = self.network.to_dict() if self.network is not None else None
        return d

    def network_dict(self) -> dict[str, Any]:
        """The network's JSON dict (:meth:`BayesianNetwork.to_dict`, readable by
        :meth:`BayesianNetwork.load`) with the certificate under ``"certificate"``."""
        if self.network is None:
            from .errors import InputError
            raise InputError(f"no network: the solve found no DAG (status {self.status})")
        d = self.network.to_dict()
        d["certificate"] = self.certificate()
        return d

    def to_networkx(self):
        """The DAG as a ``networkx.DiGraph`` with each node's ``local_score`` from the cache."""
        if self.dag is None:
            from .errors import InputError
            raise InputError(f"no DAG (status {self.status})")
        return self.dag.to_networkx(self.cache)

    def __repr__(self) -> str:
        return (f"LearnResult(status={self.status!r}, score={self.score!r}, "
                f"upper_bound={self.upper_bound!r}, gap={self.gap:.3g}, method={self.method!r}, "
                f"network={self.network!r})")


def optimal_over(meta: dict[str, Any], scope: str | None = None) -> str:
    """What an ``optimal`` status is optimal over: the words of the bound's ``scope`` (by
    default the cache's, from its ``meta``: :func:`lpbn.scope.bound_scope`; pricing can widen
    it to ``parent_limit:K``)."""
    from .scope import CACHE, bound_scope
    scope = bound_scope(meta) if scope is None or scope == CACHE else scope
    if scope != CACHE:
        mp = scope.split(":", 1)[1] if ":" in scope else None
        return "all DAGs" + (f" with at most {mp} parents per variable" if mp is not None else "") \
            + (" satisfying the constraints" if meta.get("constraints") else "")
    if meta.get("explore"):
        return f"the parent sets kept by {meta['explore']} exploration"
    return "the parent sets of the cache"


def _searches(ds, explore: str, max_parents, constraints, score_options) -> bool:
    """Whether learn searches on the data (:mod:`lpbn.datasearch`): ``explore="search"``, or
    ``"auto"`` when exhaustive scoring is too large (and no constraints or scoring options)."""
    from .errors import InputError
    from .scoring.api import exhaustive_fits
    typed = hasattr(ds, "continuous")       # continuous or mixed: the climber scores discrete data only
    if explore == "search":
        if constraints is not None:
            raise InputError("explore='search' does not take constraints; use explore='auto'")
        if typed:
            raise InputError("explore='search' is for discrete data; continuous and mixed scores use "
                             "explore='auto', 'exhaustive' or 'independence'")
        return True
    return explore == "auto" and not typed and constraints is None and not score_options and not exhaustive_fits(ds, max_parents)


def _left(t0: float, time_limit: float | None, reserve: float = 0.0) -> float | None:
    """Seconds left of ``time_limit`` since ``t0``, less ``reserve`` of it (None: no limit)."""
    if time_limit is None:
        return None
    return max(0.0, float(time_limit) * (1.0 - reserve) - (time.perf_counter() - t0))


def _search_meta(ds, score: str, ess: float, max_parents) -> dict[str, Any]:
    return {"score": str(score).lower(), "N": ds.N, "arities": [int(a) for a in ds.arities],
            "ess": float(ess) if str(score).lower() == "bdeu" else None, "max_parents": max_parents,
            "k_best": 1, "source": ds.source, "dropped_rows": ds.dropped_rows, "explore": "search"}


def fit_words(gaussian: bool, fit_ess: float | None) -> str:
    """How the network's parameters were fitted, in words for the summary and the certificate."""
    if gaussian:
        return "least squares per configuration (unbiased residual variance)"
    return "maximum likelihood" if fit_ess is None else f"BDeu posterior mean (ess {float(fit_ess):g})"


def keep_incumbent(res: SolveResult, outcome, names) -> SolveResult:
    """The solve's result, or the search's incumbent DAG when that scores higher.  Its families
    are in the cache, so the cache's bound holds for it as it is: a bound below the incumbent
    is a detected fault (:func:`lpbn.bound.guard`, status ``error``), never raised to meet it."""
    from .bound import guard
    from .result import DAG
    if res.dag is not None and res.score >= outcome.score - 1e-9 * (1.0 + abs(outcome.score)):
        return res
    solved = res.score
    res.dag = DAG(names, outcome.parents)
    res.score = outcome.score
    res.message = (f"the DAG is the search's incumbent, above the solve's DAG ({solved:.6f})"
                   + (f"; the solve said: {res.message}" if res.message else ""))
    return guard(res)


def _priced_limit(time_limit, K, applies: bool):
    """The time limit left for search and solve when pricing will take :data:`PRICE_SHARE`."""
    return float(time_limit) * (1.0 - PRICE_SHARE) if K is not None and time_limit is not None and applies \
        else time_limit


def _price_option(price, max_parents, constraints):
    """``price=K`` checked: (K, the parent limit the exploration then uses)."""
    from .errors import InputError
    if price is None:
        return None, max_parents
    if isinstance(price, bool) or not isinstance(price, (int,)) and not str(price).isdigit():
        raise InputError(f"price must be a parent limit K >= 0, got {price!r}")
    K = int(price)
    if K < 0:
        raise InputError(f"price must be a parent limit K >= 0, got {price!r}")
    if constraints is not None:
        raise InputError("price=K does not take constraints (pricing prices every parent set)")
    if max_parents is not None and int(max_parents) > K:
        raise InputError(f"price={K} bounds every DAG with at most {K} parents: max_parents={max_parents} "
                         f"would let the network exceed it")
    return K, (K if max_parents is None else max_parents)


def price_result(res: SolveResult, cache, ds, K: int, seconds: float | None, say=None):
    """Column generation against the data (:func:`lpbn.pricing.column_generation`) on the
    solved cache, applied to ``res`` (:func:`apply_pricing`).  Returns the result, the pricing
    record and the enlarged cache (None when no set was added)."""
    from .scope import CACHE, bound_scope
    if bound_scope(cache.meta) != CACHE:     # the cache already covers every DAG within its limit
        return res, {"skipped": f"the bound's scope is already {bound_scope(cache.meta)}"}, None
    cg, rec = run_pricing(cache, ds, K, seconds, res.score, say)
    res = apply_pricing(res, cg, rec, ds.names)
    return res, rec, (cg.cache if cg.cache is not cache else None)


def run_pricing(cache, ds, K: int, seconds: float | None, incumbent: float, say=None):
    """:func:`lpbn.pricing.column_generation` on ``cache`` with the score of the best DAG known:
    ``(PricedBound, the pricing record)``."""
    from .errors import InputError
    from .pricing import column_generation
    if hasattr(ds, "continuous"):
        raise InputError("price=K prices discrete scores (bic, mdl, aic, bdeu) only")
    cg = column_generation(ds, cache, K, seconds, incumbent=incumbent, say=say)
    rec = {"K": K, "finished": cg.bound is not None, "converged": cg.converged, "bound": cg.bound,
           "passes": cg.passes, "sets_added": cg.cache.m - cache.m, "message": cg.message}
    return cg, rec


def apply_pricing(res: SolveResult, cg, rec: dict, names) -> SolveResult:
    """``res`` with what pricing proved: when a pricing pass finished, the result's bound
    becomes the bound it proved over every DAG with at most K parents
    (``bound_scope="parent_limit:K"``), the cache's own bound kept in
    ``stats["cache_upper_bound"]``; otherwise the cache's bound stays, with the message
    "pricing did not finish".  A better DAG decoded by the pricing LPs replaces the result's."""
    from .bound import closed, guard
    from .result import DAG, OPTIMAL, TIME_LIMIT
    rec["cache_upper_bound"] = res.upper_bound
    if cg.dag_parents is not None and cg.dag_score > res.score + 1e-9 * (1.0 + abs(res.score)):
        res.dag, res.score = DAG(names, cg.dag_parents), cg.dag_score
    note = cg.message if cg.bound is not None else "pricing did not finish: the bound is over the cache's candidate sets"
    res.message = note + (f"; {res.message}" if res.message else "")
    if cg.bound is None:
        return res
    res.stats = dict(res.stats or {})
    res.stats["cache_upper_bound"] = res.upper_bound
    res.upper_bound, res.bound_scope = cg.bound, cg.scope
    if closed(res.score, res.upper_bound):
        res.status = OPTIMAL
    elif res.status == OPTIMAL:     # optimal over the cache, not proven over every K-parent DAG
        res.status = TIME_LIMIT
    return guard(res, "pricing")


def _priced(res, solved, ds, K: int, seconds, timings: dict, say):
    """:func:`price_result` for :func:`learn`, timed and reported."""
    t4 = time.perf_counter()
    res, pricing, priced = price_result(res, solved, ds, K, seconds, say=say)
    timings["price"] = time.perf_counter() - t4
    _say_priced(res, timings, say)
    return res, pricing, priced


def _say_priced(res, timings: dict, say) -> None:
    say(f"priced: {res.message.split(';')[0]}; bound {res.upper_bound:.6f} ({res.bound_scope}) "
        f"[{timings['price']:.2f} s]")


@dataclass(frozen=True)
class LearnOptions:
    """The keyword options of :func:`learn` beside ``score``, ``max_parents``, ``method`` and
    ``time_limit`` (declared once, here; :func:`learn`'s docstring says what each does).  Any
    other keyword goes to :func:`lpbn.solve` as a method option."""

    ess: float = 1.0
    gap_limit: float | None = None
    missing: str | Sequence[str] | None = None
    drop_missing: bool = False
    header: bool | None = None
    fit_ess: float | None = None
    jobs: int | None = None
    explore: str = "auto"
    progress: bool = False
    score_options: dict[str, Any] | None = None
    constraints: Any = None
    price: int | None = None

    def __post_init__(self) -> None:
        from .errors import InputError
        if self.fit_ess is None:     # checked before any long work
            return
        try:
            bad = isinstance(self.fit_ess, bool) or not (0 < float(self.fit_ess) < float("inf"))
        except (TypeError, ValueError):
            bad = True
        if bad:
            raise InputError(f"fit_ess must be a positive number, got {self.fit_ess!r}")

    @classmethod
    def split(cls, options: dict[str, Any]) -> tuple[LearnOptions, dict[str, Any]]:
        """(learn's options, the rest: :func:`lpbn.solve`'s method options)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in options.items() if k in names}), \
            {k: v for k, v in options.items() if k not in names}


def learn(data: Any, *, score: str = "bic", max_parents: int | None = None, method: str = "auto",
          time_limit: float | None = None, **options: Any) -> LearnResult:
    """Learn a Bayesian network (structure with a certificate, and CPTs) from discrete data.

    The keyword options besides these four are declared once in :class:`LearnOptions`; any
    other keyword is a method option for :func:`lpbn.solve`.

    Parameters
    ----------
    data : path (CSV / GOBNILP ``.dat``), numpy array, pandas DataFrame or Dataset
    score, ess, max_parents, jobs, explore
        Passed to :func:`lpbn.score_data` (``ess``: the BDeu score's equivalent sample size).
        ``explore="search"``, and ``"auto"`` when exhaustive scoring is too large (and no
        constraints or ``score_options``): the cache is built by searching on the data
        (:mod:`lpbn.datasearch`: hill climbing + tabu over all DAGs, then the families of the
        incumbent's order searched on the data and ASOBS on the enlarged cache, in turn) within
        ``time_limit``, which then covers exploration, search and bound together; the solve's
        DAG is replaced by the search's incumbent when that is better.
    method, time_limit, gap_limit, other keywords
        Passed to :func:`lpbn.solve` (``method="auto"``: a portfolio by size).
    price : int, optional
        ``price=K``: price every parent set of at most K parents against the data
        (:mod:`lpbn.pricing`; K is also the parent limit, unless ``max_parents`` is smaller)
        with :data:`PRICE_SHARE` of ``time_limit``; when a pricing pass finishes, the bound
        holds over every DAG with at most K parents (``bound_scope="parent_limit:K"``), else it
        stays the cache's and the message says "pricing did not finish".  After a search on the
        data, pricing starts from the search's DAG and the solve runs afterwards, over the
        cache with the sets that priced out; otherwise pricing follows the solve.
    missing, drop_missing, header
        How the data are read (:func:`lpbn.read_data`); for its other options (``delimiter``,
        ``format``, ...) pass ``read_data(path, ...)``'s Dataset as ``data``.  How a file was
        read is in ``result.data.reading`` and the cache's ``meta["reading"]``.
    fit_ess : float, optional
        None (default): maximum-likelihood CPTs (unseen parent configurations uniform); a
        positive number: the BDeu posterior mean with this equivalent sample size.
    progress : bool
        One line per step on stderr, the scorer's progress bar and the solver's progress lines.
    score_options : dict, optional
        Further keyword arguments of :func:`lpbn.score_data` (``time_per_variable``, ...).
    constraints : Constraints, dict or path, optional
        Structural constraints (:mod:`lpbn.constraints`): applied while scoring (the parent
        sets required arcs need are scored too) and by the solve; the certificate is then over
        the DAGs that satisfy them.

    Returns
    -------
    LearnResult
        The solve result (``dag``, ``score``, ``upper_bound``, ``gap``, ``status``, ...) with
        ``network`` (the fitted :class:`~lpbn.network.BayesianNetwork`), ``cache`` and ``data``.
    """
    from .datasearch import search_and_enlarge
    from .scope import CACHE, bound_scope
    from .scoring import read_data, score_data
    from .scoring.scores import kind_of
    from .scoring.table import describe

    o, solve_options = LearnOptions.split(options)
    ess, gap_limit, fit_ess, jobs, explore, progress = o.ess, o.gap_limit, o.fit_ess, o.jobs, o.explore, o.progress
    missing, drop_missing, header, score_options, constraints = \
        o.missing, o.drop_missing, o.header, o.score_options, o.constraints

    def say(msg: str) -> None:
        if progress:
            print(f"lpbn: {msg}", file=sys.stderr, flush=True)

    K, max_parents = _price_option(o.price, max_parents, constraints)
    full_limit = time_limit
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    ds, score, score_options = _read_typed(data, score, header, missing, drop_missing, score_options)
    if ds is None:
        ds = read_data(data, header=header, missing=missing, drop_missing=drop_missing)
    timings["read"] = time.perf_counter() - t0
    say(f"data: {ds.n} variables, {ds.N} rows" + (f" ({ds.dropped_rows} dropped)" if ds.dropped_rows else "")
        + f"; {describe(ds.reading)} [{timings['read']:.2f} s]")
    t1 = time.perf_counter()
    outcome = None
    searching = _searches(ds, explore, max_parents, constraints, score_options)
    time_limit = _priced_limit(time_limit, K, searching)      # exhaustive within K: no pricing
    if searching:
        outcome = search_and_enlarge(ds, kind_of(score), ess, max_parents, _left(t0, time_limit),
                                     _search_meta(ds, score, ess, max_parents), say=say if progress else None)
        if outcome is None:
            say("searching on the data does not fit the time limit: independence selection instead")
    if outcome is not None:
        cache = outcome.cache
    else:
        cache = score_data(ds, score=score, ess=ess, max_parents=max_parents, jobs=jobs,
                           explore="independence" if explore == "search" else explore,
                           progress=progress and sys.stderr.isatty(), constraints=constraints,
                           **(score_options or {}))
    timings["score"] = time.perf_counter() - t1
    say(f"scored: {score}, {cache.meta.get('explore')} exploration, {cache.m} candidate parent sets "
        f"[{timings['score']:.2f} s]")
    solved = cache if constraints is not None else cache.prune_dominated()
    time_limit = _priced_limit(time_limit, K, not searching and bound_scope(cache.meta) == CACHE)
    pricing = None
    solve_args = dict(method=method, gap_limit=gap_limit, progress=progress and sys.stderr.isatty(),
                      constraints=constraints, **solve_options)
    if K is not None and outcome is not None and bound_scope(cache.meta) == CACHE:
        res, pricing, priced = _price_then_solve(solved, ds, K, outcome, t0, time_limit, full_limit, solve_args,
                                                 timings, say)
        cache = cache if priced is None else priced
    else:
        res = _solve(solved, outcome, ds, _left(t0, time_limit, FIT_RESERVE), solve_args, timings, say)
        if K is not None:
            res, pricing, priced = _priced(res, solved, ds, K, _left(t0, full_limit, FIT_RESERVE), timings, say)
            cache = cache if priced is None else priced
    network = _fit(res, ds, fit_ess, timings, say)
    timings["total"] = time.perf_counter() - t0
    base = {f.name: getattr(res, f.name) for f in fields(SolveResult)}
    return LearnResult(**base, network=network, cache=cache, data=ds,
                       fit_ess=None if fit_ess is None else float(fit_ess), timings=timings, pricing=pricing)


def _solve(solved, outcome, ds, seconds, solve_args: dict, timings: dict, say) -> SolveResult:
    """:func:`lpbn.solve` on the pruned cache for ``seconds``, the search's incumbent kept when
    better, timed and reported."""
    from .scope import bound_scope
    from .solve import solve
    t2 = time.perf_counter()
    args = dict(solve_args)
    res = solve(solved, args.pop("method"), time_limit=seconds, **args)
    if outcome is not None:
        res = keep_incumbent(res, outcome, ds.names)
    if args.get("constraints") is None:
        res.bound_scope = bound_scope(solved.meta)
    timings["solve"] = time.perf_counter() - t2
    say(f"solved: {res.status} by {res.method}, score {res.score:.6f}, bound {res.upper_bound:.6f}, "
        f"gap {relative_gap(res.score, res.upper_bound):.3g} [{timings['solve']:.2f} s]")
    return res


def _price_then_solve(solved, ds, K: int, outcome, t0: float, time_limit, full_limit, solve_args: dict,
                      timings: dict, say):
    """``price=K`` after a search on the data: pricing starts from the search's incumbent, and
    the one solve runs afterwards over the enlarged cache, with the time it would have had
    before pricing (and whatever pricing leaves).  Why this order: the sets that price out are
    families the exploration missed with a reduced score above every cached one, and the
    better DAGs use them; a solve before pricing never sees them (results/scale/README.md,
    stop 65).  Returns ``(result, pricing record, enlarged cache or None)``."""
    solve_time = _left(t0, time_limit, FIT_RESERVE)
    left = _left(t0, full_limit, FIT_RESERVE)
    t4 = time.perf_counter()
    cg, rec = run_pricing(solved, ds, K, None if left is None else max(0.0, left - solve_time), outcome.score,
                          say)
    timings["price"] = time.perf_counter() - t4
    enlarged = cg.cache if cg.cache is not solved else None
    res = _solve(solved if enlarged is None else enlarged.prune_dominated(), outcome, ds,
                 _left(t0, full_limit, FIT_RESERVE), solve_args, timings, say)
    res = apply_pricing(res, cg, rec, ds.names)
    _say_priced(res, timings, say)
    return res, rec, enlarged


def _fit(res, ds, fit_ess, timings: dict, say):
    """The network of the result's DAG with fitted parameters (None without a DAG)."""
    if res.dag is None:
        return None
    t3 = time.perf_counter()
    if hasattr(ds, "continuous"):    # continuous or mixed data: linear / conditional Gaussian CPDs
        from .gaussian_network import fit_gaussian_network
        network = fit_gaussian_network(res.dag.parents, ds)
    else:
        from .fit import fit_network
        network = fit_network(res.dag, ds, ess=fit_ess)
    timings["fit"] = time.perf_counter() - t3
    say(f"fitted: {network.num_parameters()} parameters, {fit_words(hasattr(ds, 'continuous'), fit_ess)}"
        f" [{timings['fit']:.2f} s]")
    return network


def _read_typed(data, score, header, missing, drop_missing, score_options):
    """Continuous and mixed scores (and ``auto``): ``(typed table, score name, options)``
    (:mod:`lpbn.scoring.typed`); ``(None, score, options)`` for discrete data (``auto`` -> bic).
    ``score_options`` may carry ``discrete`` / ``continuous`` column lists."""
    opts = dict(score_options or {})
    cols = {"discrete": opts.pop("discrete", None), "continuous": opts.pop("continuous", None)}
    if str(score).lower() not in ("auto", "bic-g", "bge", "bic-cg"):
        return None, score, score_options
    from .scoring import Dataset
    if str(score).lower() == "auto" and (isinstance(data, Dataset) or str(data).lower().endswith((".dat", ".dat.gz"))):
        return None, "bic", opts
    from .scoring.typed import auto_score, read_typed
    table = read_typed(data, score=score, header=header, missing=missing, drop_missing=drop_missing, **cols)
    name = auto_score(table) if str(score).lower() == "auto" else str(score).lower()
    return (None if name == "bic" else table), name, opts
