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
import importlib.util
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
            _remove_finder(self)
            return None
        raise ImportError("lpbn: numba's BLAS probe skipped (lpbn's kernels use no BLAS)")


def skip_numba_blas_probe() -> None:
    """Make numba's start-up BLAS probe fail fast in this process (see the module docstring).
    A no-op when scipy.linalg or numba's arraymath is already loaded."""
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    if any(isinstance(f, _SkipBlasProbe) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipBlasProbe())


_CACHING = "numba.core.caching"


def _light_load_overload(original):
    """``Cache.load_overload`` without the context refresh: numba's runtime (NRT) only."""

    def load_overload(self, sig, target_context):
        try:
            from numba.core.runtime import rtsys
            rtsys.initialize(target_context)
        except Exception:  # an unknown numba: its own way
            return original(self, sig, target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    load_overload.lpbn_light = True
    return load_overload


def _patch_caching(module) -> None:
    cache = getattr(module, "Cache", None)
    original = getattr(cache, "load_overload", None)
    if original is None or getattr(original, "lpbn_light", False):
        return
    if not all(hasattr(cache, name) for name in ("_guard_against_spurious_io_errors", "_load_overload")):
        return  # a numba whose cache class we do not know: leave it alone
    cache.load_overload = _light_load_overload(original)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches ``numba.core.caching`` as it is imported (importing numba here would cost its
    0.18 s import to commands that never run a kernel), then removes itself."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _CACHING:
            return None
        _remove_finder(self)
        spec = importlib.util.find_spec(fullname)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            _patch_caching(module)

        loader.exec_module = exec_and_patch
        return spec


def _remove_finder(finder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def light_numba_cache_loads() -> None:
    """Make numba's cache loads in this process skip the context refresh (see the module
    docstring); takes effect whether or not numba is imported yet."""
    if _CACHING in sys.modules:
        _patch_caching(sys.modules[_CACHING])
        return
    if not any(isinstance(f, _PatchOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())
