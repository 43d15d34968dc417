"""Helpers shared by subcommands: writing outputs atomically or to stdout."""

from __future__ import annotations

import sys

from ..atomic import atomic_write


def emit(text: str, output: str | None) -> None:
    """Write ``text`` to the file ``output`` atomically, or to stdout when None or '-'."""
    if output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        with atomic_write(output) as fh:
            fh.write(text)
