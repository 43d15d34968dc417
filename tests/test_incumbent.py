"""lpbn.incumbent.Incumbent: the one best-so-far DAG of the dual, HiGHS and PuLP methods."""

from __future__ import annotations

import math

import numpy as np

from lpbn.incumbent import Incumbent, choice_is_acyclic
from lpbn.synthetic import random_cache


def test_incumbent_keeps_the_best_complete_acyclic_choice():
    cache = random_cache(4, seed=0)
    empty = np.array([cache.indices_of([()] * cache.n)]).ravel()
    seen = []
    inc = Incumbent(cache, seen.append, check_acyclic=True)
    assert inc.score == -math.inf and inc.choice is None
    assert not inc.offer(None) and not inc.offer(np.array([-1] + list(empty[1:])))
    assert inc.offer(empty) and inc.score == float(cache.scores[empty].sum()) and seen == [inc.score]
    assert not inc.offer(empty)                          # not strictly better
    # a 2-cycle 0 <- 1 <- 0 is refused with check_acyclic, whatever its score
    parents = [(1,), (0,)] + [()] * (cache.n - 2)
    cyc = cache.indices_of(parents)
    assert np.all(cyc >= 0) and not choice_is_acyclic(cache, cyc)
    assert not inc.offer(cyc, score=math.inf)
    assert Incumbent().offer(cyc, score=0.0)              # the dual's decoders guarantee acyclicity
    assert inc.offers == 5
    res = inc.result(type("C", (), {"bound": math.inf, "trace": []})(), "optimal", "test", {})
    assert res.score == inc.score and res.dag is not None and res.upper_bound == math.inf
