"""Readers and writers of local-score files, with format detection from the content.

=========  ==========================================  ==============================
format     files                                       detected by
=========  ==========================================  ==============================
``jkl``    GOBNILP / Jaakkola / BLIP (``#`` comments)  first significant line is one integer
``pss``    URLearning                                  first significant line starts META/VAR
=========  ==========================================  ==============================

Gzip-compressed files are read transparently (detected by magic bytes).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..cache import ScoreCache
from ..errors import InputError, ScoreFileError
from .jkl import parse_jkl, write_jkl
from .pss import parse_pss, write_pss
from .textio import parse_int, read_text

FORMATS = ("jkl", "pss")
_EXTENSIONS = {".jkl": "jkl", ".pss": "pss", ".bic": "jkl", ".bdeu": "jkl", ".scores": "jkl",
               ".txt": "jkl"}


def detect_format(text: str) -> str | None:
    """``"jkl"``, ``"pss"`` or None, from the first significant line of the text."""
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        toks = s.split()
        if toks[0] in ("META", "VAR"):
            return "pss"
        if len(toks) == 1:
            return "jkl" if parse_int(toks[0]) is not None else None
        return None
    return None


def parse_scores(text: str, path: str = "<string>", format: str | None = None) -> ScoreCache:
    """Parse score-file text; ``format`` None means detect it."""
    fmt = format or detect_format(text)
    if fmt == "jkl":
        return parse_jkl(text, path)
    if fmt == "pss":
        return parse_pss(text, path)
    if fmt is None:
        if not text.strip():
            raise ScoreFileError("empty file", path)
        raise ScoreFileError("unrecognised score-file format: expected jkl (the number of "
                             "variables on the first line) or pss (META/VAR lines)", path, 1)
    raise InputError(f"unknown score format {fmt!r}; choose from {', '.join(FORMATS)}")


def read_scores(path: str | os.PathLike, format: str | None = None) -> ScoreCache:
    """Read a local-score cache (jkl or pss, optionally gzipped; format from the content)."""
    return parse_scores(read_text(path, ScoreFileError), str(path), format)


def format_for_path(path: str | os.PathLike) -> str:
    """Output format implied by a file name (``x.pss`` -> pss, otherwise jkl)."""
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    return _EXTENSIONS.get(suffixes[-1], "jkl") if suffixes else "jkl"


def write_scores(cache: ScoreCache, path: str | os.PathLike, format: str | None = None) -> None:
    """Write a cache atomically as jkl or pss (default: from the file name)."""
    fmt = format or format_for_path(path)
    if fmt == "jkl":
        write_jkl(cache, path)
    elif fmt == "pss":
        write_pss(cache, path)
    else:
        raise InputError(f"unknown score format {fmt!r}; choose from {', '.join(FORMATS)}")


__all__ = ["FORMATS", "detect_format", "parse_scores", "read_scores", "write_scores",
           "format_for_path"]
