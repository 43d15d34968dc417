"""URLearning ``.pss`` local-score files.

Layout::

    META pss_version = 0.1
    META num_records=178          # global META lines (key = value, spaces optional)
    VAR NAME
    META arity=3                  # per-variable META lines
    SCORE PARENT_NAME ...         # no parent count
    ...

The file holds log-scores (higher is better), like jkl.  URLearning negates them into
costs when it reads them, and prints costs; lpbn keeps the file's sign.
"""

from __future__ import annotations

import math
import os

from ..atomic import atomic_write
from ..cache import ScoreCache
from ..errors import ScoreFileError
from .jkl import build_cache, decoded_names, Lines
from .textio import encode_name, parse_float, parse_int, read_text


def _meta(toks: list[str]) -> tuple[str, str]:
    text = " ".join(toks[1:])
    key, _, value = text.partition("=")
    return key.strip(), value.strip()


def parse_pss(text: str, path: str = "<string>") -> ScoreCache:
    """Parse URLearning pss text into a :class:`ScoreCache`."""
    src = Lines(text, path)
    meta: dict = {"format": "pss"}
    names: list[str] = []
    name_line: dict[str, int] = {}
    raw: list[list] = []
    var_meta: list[dict] = []
    while (row := src.next()) is not None:
        ln, toks = row
        head = toks[0]
        if head == "META":
            key, value = _meta(toks)
            (var_meta[-1] if names else meta)[key] = value
        elif head == "VAR":
            if len(toks) != 2:
                raise ScoreFileError("expected 'VAR NAME'", path, ln, 1)
            if names and not raw[-1]:
                raise ScoreFileError(f"variable {names[-1]} has no candidate parent sets", path,
                                     name_line[names[-1]])
            if toks[1] in name_line:
                raise ScoreFileError(f"variable {toks[1]} is declared twice (first at line "
                                     f"{name_line[toks[1]]})", path, ln, 6)
            name_line[toks[1]] = ln
            names.append(toks[1])
            raw.append([])
            var_meta.append({})
        else:
            score = parse_float(head)
            if score is None:
                raise ScoreFileError(f"expected META, VAR or a score line, found {head[:30]!r}",
                                     path, ln, 1)
            if not math.isfinite(score):
                raise ScoreFileError(f"score {head} is not finite", path, ln, 1)
            if not names:
                raise ScoreFileError("score line before the first VAR line", path, ln, 1)
            raw[-1].append((ln, score, toks[1:]))
    if not names:
        raise ScoreFileError("no VAR lines: not a pss file or truncated", path, len(src.lines) or None)
    if not raw[-1]:
        raise ScoreFileError(f"variable {names[-1]} has no candidate parent sets (truncated?)",
                             path, name_line[names[-1]])
    if "num_variables" in meta:
        declared = parse_int(meta["num_variables"])
        if declared is not None and declared != len(names):
            raise ScoreFileError(f"count mismatch: META num_variables={declared} but "
                                 f"{len(names)} VAR blocks", path, len(src.lines))
    arities = [vm.get("arity") for vm in var_meta]
    if all(a is not None for a in arities):
        meta["arities"] = arities
    index = {v: i for i, v in enumerate(names)}
    return build_cache(decoded_names(names, path, name_line), raw, index, path, src, meta=meta)


def read_pss(path: str | os.PathLike) -> ScoreCache:
    """Read a (possibly gzipped) pss file."""
    return parse_pss(read_text(path, ScoreFileError), str(path))


def write_pss(cache: ScoreCache, path: str | os.PathLike) -> None:
    """Write a cache as URLearning pss (atomically); scores keep full float64 precision, names
    that are not one token are percent-escaped (:func:`~lpbn.formats.textio.encode_name`)."""
    names = [encode_name(v) for v in cache.names]
    arities = cache.meta.get("arities")
    with atomic_write(path) as fh:
        fh.write("META pss_version = 0.1\n")
        fh.write(f"META num_variables={cache.n}\n")
        for key in ("input_file", "num_records", "parent_limit", "score_type", "ess", "score", "k_best"):
            if key in cache.meta:
                fh.write(f"META {key}={cache.meta[key]}\n")
        for i in range(cache.n):
            fh.write(f"\nVAR {names[i]}\n")
            if arities is not None:
                fh.write(f"META arity={arities[i]}\n")
            for j in cache.family_range(i):
                ps = cache.parents(j)
                fh.write(" ".join([repr(float(cache.scores[j])), *(names[p] for p in ps)]) + "\n")
