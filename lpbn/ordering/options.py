"""The options of the ordering-based searches (OBS, Teyssier & Koller 2005; ASOBS, Scanagatta
et al. 2015, §4), declared once (issue 55): :class:`SearchOptions` are those of
:func:`lpbn.ordering.search.ordering_search`, shared by ``method="obs"``/``"asobs"``
(:class:`lpbn.certified.CertifiedOptions` adds the bound beside the search) and by
:func:`lpbn.ordering.method.solve_ordering` (:class:`OrderingOptions` adds a given bound).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..options import ANY, NONNEG_INT, SEED, MethodOptions, choices, opt
from ..tuning import ORDERING_GENERATION as DEFAULT_GENERATION, ORDERING_POPULATION as DEFAULT_POPULATION
from ..tuning import ORDERING_STALL as DEFAULT_STALL


@dataclass(frozen=True)
class SearchOptions(MethodOptions):
    """Options of the ordering search itself (:func:`lpbn.ordering.search.ordering_search`)."""

    seed: int = opt(0, "Random seed of the ordering search (draws are the same for both rules).", SEED)
    max_restarts: int | None = opt(None, (
        "Restarts after the first (a budget; None: the time limit or the default rule)."), NONNEG_INT)
    patience: int | None = opt(None, "Stop after this many restarts in a row without improvement.",
                               NONNEG_INT)
    start: str = opt("greedy", "First ordering: 'greedy' (min-loss), 'random' or 'asobs'.",
                     choices("greedy", "random", "asobs"))
    restart: str = opt("perturb", (
        "'perturb' (iterated local search on the incumbent's ordering) or 'random' (fresh "
        "permutations)."), choices("perturb", "random"))
    kick: int = opt(16, "Longest kicked segment of a perturbation.", NONNEG_INT)
    kicks: int | None = opt(None, "Kicked segments per perturbation (default one per 50 variables).",
                            NONNEG_INT)
    window: int | None = opt(None, "How far insertion moves reach (None: any distance; 0: swaps only).",
                             NONNEG_INT)
    trail: str = opt("both", (
        "ASOBS only: 'obs' follows OBS's own trajectory and lifts each restart to an ASOBS DAG "
        "(never below OBS for one seed and restart budget); 'asobs' perturbs ASOBS's own best "
        "DAG; 'both' runs the two chains in turn (never below OBS with half the restarts)."),
        choices("obs", "asobs", "both"))
    stall: int = opt(DEFAULT_STALL, (
        "A search chain whose base has not moved for this many of its restarts climbs again from "
        "a fresh random ordering (0: never)."), NONNEG_INT)
    population: int = opt(DEFAULT_POPULATION, (
        "ASOBS's own chain keeps this many elite local optima and climbs from the order "
        "crossover of two of them when its search stalls (0: none; lpbn.ordering.population)."),
        NONNEG_INT)
    generation: int = opt(DEFAULT_GENERATION, (
        "Restarts in a row without improvement after which that chain's local optimum joins the "
        "population."), NONNEG_INT)

    def search_kwargs(self) -> dict[str, Any]:
        """The search's own options, as keywords of ``ordering_search``."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(SearchOptions)}


@dataclass(frozen=True)
class OrderingOptions(SearchOptions):
    """:func:`lpbn.ordering.method.solve_ordering`'s options: the search's and a given bound."""

    bound: Any = opt(None, (
        "A valid upper bound (a number or a function of the cache giving one), reported instead "
        "of the trivial bound when smaller."), ANY)
