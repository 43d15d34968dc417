"""Reading text inputs: transparent gzip, clear errors for binary or unreadable files."""

from __future__ import annotations

import gzip
import os
import re
import zlib
from pathlib import Path
from typing import Callable
from urllib.parse import unquote

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
_INT = re.compile(r"[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_NONFINITE = re.compile(r"[+-]?(inf|infinity|nan)\Z", re.IGNORECASE)
_BARE_CR = re.compile(r"\r(?!\n)")
_PERCENT_HEX = re.compile(r"%(?=[0-9A-Fa-f]{2})")


def parse_int(tok: str) -> int | None:
    """A count written in ASCII digits (no sign, no underscores, no other scripts' digits)."""
    if not _INT.match(tok) or len(tok) > 18:
        return None
    return int(tok)


def parse_float(tok: str) -> float | None:
    """A decimal number in the plain ASCII notation score files use (``-12.5``, ``3e-4``,
    ``inf``/``nan`` for the caller to reject); None for anything else (``1_0``, ``0x1p3``, ...)."""
    if _FLOAT.match(tok) or _NONFINITE.match(tok):
        return float(tok)
    return None


def text_lines(text: str, error: Callable[..., InputError], path: str) -> list[str]:
    """Lines split at LF (CRLF allowed), numbered as editors number them; a carriage return
    without a line feed (old Mac line ends) is refused rather than guessed at."""
    bare = _BARE_CR.search(text)
    if bare is not None:
        line = text.count("\n", 0, bare.start()) + 1
        raise error("carriage return without line feed (convert the file to LF line ends)", path, line)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


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


def encode_name(name: str) -> str:
    """A variable name as one token of a whitespace-separated score file (jkl, pss).

    Those formats (GOBNILP's jkl convention, URLearning's pss) split lines at whitespace and
    take a line starting with ``#`` for a comment, so a name with a blank (``x y``), another
    whitespace or invisible character, or a leading ``#`` cannot be written as it is.  Such
    characters are percent-escaped as their UTF-8 bytes (``x%20y``), and so is a ``%`` that
    is followed by two hex digits (so that :func:`decode_name` gives the name back exactly);
    every other name, unicode letters included, is written unchanged.  A reader that does not
    decode (GOBNILP) sees a valid token: the escaped name."""
    if all(c.isprintable() and not c.isspace() for c in name) and not name.startswith("#") \
            and "%" not in name:
        return name
    out = []
    for k, c in enumerate(name):
        if c.isspace() or not c.isprintable() or (c == "#" and k == 0) \
                or (c == "%" and _PERCENT_HEX.match(name, k)):
            out.append("".join(f"%{b:02X}" for b in c.encode("utf-8", errors="surrogatepass")))
        else:
            out.append(c)
    return "".join(out)


def decode_name(token: str) -> str:
    """The name :func:`encode_name` wrote as ``token`` (``%XX`` escapes of UTF-8 bytes
    decoded; a token whose escapes are not UTF-8 is kept as it is)."""
    if "%" not in token:
        return token
    try:
        return unquote(token, errors="strict")
    except UnicodeDecodeError:
        return token
