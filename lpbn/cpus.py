"""How many CPUs this process may run on: a core helper, so that a method (the layer expansion
of :mod:`lpbn.bfbnb`) can size its threads without importing the portfolio above it."""

from __future__ import annotations

import os


def cores() -> int:
    """CPUs this process may run on (its affinity mask on Linux, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not Linux
        return os.cpu_count() or 1
