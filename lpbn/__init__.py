"""lpbn: provably optimal Bayesian network structure learning.

Front door: :func:`solve` (scipy.optimize style) on a :class:`ScoreCache` read with
:func:`read_scores` or computed from data; every method returns a :class:`SolveResult`.
"""

from .cache import CacheSummary, ScoreCache
from .errors import DataFileError, InputError, LpbnError, LpbnWarning, ScoreFileError
from .formats import parse_scores, read_scores, write_scores
from .result import DAG, SolveResult
from .solve import SolveControl, available_methods, register_method, solve

__version__ = "0.1.0"

#: Functions of optional sub-packages, imported on first use (``lpbn.score_data`` ...).
_LAZY = {
    "score_data": "lpbn.scoring",
    "read_data": "lpbn.scoring",
    "crosscheck": "lpbn.highs.crosscheck",
    "bound_gap_table": "lpbn.highs.gap",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpbn' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)

__all__ = [
    "DAG", "CacheSummary", "DataFileError", "InputError", "LpbnError", "LpbnWarning",
    "ScoreCache", "ScoreFileError", "SolveControl", "SolveResult", "available_methods",
    "parse_scores", "read_scores", "register_method", "solve", "write_scores",
]
