"""lpbn: provably optimal Bayesian network structure learning.

Front door: :func:`solve` (scipy.optimize style) on a :class:`ScoreCache` read with
:func:`read_scores` or computed from data; every method returns a :class:`SolveResult`.
"""

from .cache import CacheSummary, ScoreCache
from .constraints import Constraints
from .errors import DataFileError, InputError, LpbnError, LpbnWarning, ScoreFileError
from .formats import parse_scores, read_scores, write_scores
from .result import DAG, SolveResult
from .solve import SolveControl, available_methods, register_method, show_options, solve
# not lazy: importing the submodule lpbn.learn would set the attribute ``lpbn.learn`` to the
# module and shadow the function (learn.py imports nothing heavy at module level)
from .learn import LearnResult, learn
from .verify import verify  # plain numpy, no solver code (same shadowing note as learn)

__version__ = "0.1.0"

#: Functions of optional sub-packages, imported on first use (``lpbn.score_data`` ...).
_LAZY = {
    "score_data": "lpbn.scoring",
    "read_data": "lpbn.scoring",
    "crosscheck": "lpbn.compare.crosscheck",
    "bound_gap_table": "lpbn.compare.gap",
    "fit_network": "lpbn.fit",
    "to_pgmpy": "lpbn.interop",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lpbn' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)

__all__ = [
    "DAG", "CacheSummary", "Constraints", "DataFileError", "InputError", "LearnResult", "LpbnError", "LpbnWarning",
    "ScoreCache", "ScoreFileError", "SolveControl", "SolveResult", "available_methods",
    "learn", "parse_scores", "read_scores", "register_method", "show_options", "solve", "verify", "write_scores",
]
