"""Frontier breadth-first branch and bound over the order graph with external memory
(Malone, Yuan, Hansen & Bridges 2011), ``method="bfbnb"``, and the OBS heuristic."""

from ..ordering.quick import quick_ordering_search
from .search import solve_bfbnb

__all__ = ["quick_ordering_search", "solve_bfbnb"]
