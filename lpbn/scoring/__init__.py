"""From discrete data to safely pruned local-score caches (BIC, MDL, BDeu, AIC).

``score_data(data, score="bic", ...) -> ScoreCache`` and ``read_data(data) -> Dataset``;
see :mod:`lpbn.scoring.api`, the pruning rules in :mod:`lpbn.scoring.pruning` (Tian 2000)
and :mod:`lpbn.scoring.kbest` (Chen et al.).
"""

from .api import score_data
from .data import Dataset, read_data

__all__ = ["score_data", "read_data", "Dataset"]
