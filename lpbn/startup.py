"""Start-up cost of the processes lpbn owns (the ``lpbn`` command and the bench workers).

When numba loads its first compiled function it imports ``numba.np.arraymath``, whose
module-level ``_check_blas()`` probes for a BLAS by importing ``scipy.linalg.cython_blas``:
0.17 s of a 0.77 s whole ``lpbn solve`` on the mushroom cache (numba 0.68, 2-core machine,
``python -X importtime``), for nothing — no lpbn kernel calls ``np.dot`` or ``np.linalg``.
The probe's only effect is the flag ``_HAVE_BLAS``, which picks a BLAS inner product for
``np.convolve``/``np.correlate`` in compiled code (a plain loop otherwise); numba's linear
algebra calls ``ensure_blas`` again when it compiles them, so nothing breaks without it.

:func:`skip_numba_blas_probe` makes that one probe fail fast.  It is for processes whose code
is all ours: a library import never calls it, so users' own numba code in their process keeps
the probe.
"""

from __future__ import annotations

import importlib.abc
import sys

_PROBED = ("scipy", "scipy.linalg", "scipy.linalg.cython_blas")


class _SkipBlasProbe(importlib.abc.MetaPathFinder):
    """Fails the import of scipy while ``numba.np.arraymath`` runs its BLAS probe, then
    removes itself (the probe runs once per process)."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _PROBED:
            return None
        arraymath = sys.modules.get("numba.np.arraymath")
        if arraymath is None:  # scipy imported for its own sake: let it be
            return None
        if hasattr(arraymath, "_HAVE_BLAS"):  # probe done: step aside for good
            _remove(self)
            return None
        raise ImportError("lpbn: numba's BLAS probe skipped (lpbn's kernels use no BLAS)")


def _remove(finder: _SkipBlasProbe) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def skip_numba_blas_probe() -> None:
    """Make numba's start-up BLAS probe fail fast in this process (see the module docstring).
    A no-op when scipy.linalg or numba's arraymath is already loaded."""
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    if any(isinstance(f, _SkipBlasProbe) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipBlasProbe())
