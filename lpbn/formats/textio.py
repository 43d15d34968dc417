"""Reading text inputs: transparent gzip, clear errors for binary or unreadable files."""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import Callable

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


def read_text(path: str | os.PathLike, error: Callable[..., InputError]) -> str:
    """Whole file as text; gzip is detected from the content (magic bytes), not the name.

    ``error(message, path)`` builds the exception raised for an unreadable file.
    """
    p = str(path)
    try:
        raw = Path(p).read_bytes()
    except FileNotFoundError:
        raise error("no such file", p) from None
    except IsADirectoryError:
        raise error("is a directory, not a file", p) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", p) from None
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise error(f"corrupt gzip data ({exc})", p) from None
    if b"\x00" in raw:
        raise error("binary data: not a text file", p)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise error(f"line {line}: bytes that are not UTF-8 text", p) from None
