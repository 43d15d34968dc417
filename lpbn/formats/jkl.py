"""GOBNILP / Jaakkola "jkl" local-score files, including BLIP's variant.

Layout (any whitespace; blank lines and ``#`` comment lines are skipped anywhere)::

    n
    NAME k                  # one block per variable
    SCORE p PARENT_1 ... PARENT_p   (k lines)

Scores are log-scores (higher is better).  Names are arbitrary tokens or integer ids;
parents always refer to block names.  A name that is not one token (a blank, another
whitespace or invisible character, a leading ``#``) is written percent-escaped and read back
decoded (:func:`lpbn.formats.textio.encode_name`), so every name round-trips.  Lines after
the n-th block (MINOBS-anc appends a side-constraint section) are ignored with a warning,
unless they form another variable block, which means the count on line 1 is wrong.
"""

from __future__ import annotations

import math
import os
import warnings
from itertools import chain
from typing import Iterator

import numpy as np

from ..atomic import atomic_write
from ..cache import ScoreCache, increasing_within_sets
from ..errors import LpbnWarning, ScoreFileError
from .textio import decode_name, encode_name, parse_float, parse_int, read_text, text_lines


class Lines:
    """Significant lines of a text as (line number, tokens)."""

    def __init__(self, text: str, path: str = "<string>"):
        self.lines = text_lines(text, ScoreFileError, path)
        self.pos = 0

    def next(self) -> tuple[int, list[str]] | None:
        while self.pos < len(self.lines):
            self.pos += 1
            s = self.lines[self.pos - 1].strip()
            if s and not s.startswith("#"):
                return self.pos, s.split()
        return None

    def column(self, lineno: int, token_index: int) -> int:
        """1-based column of the token_index-th token on a line."""
        line = self.lines[lineno - 1]
        col = 0
        for t in range(token_index + 1):
            while line[col].isspace():
                col += 1
            if t == token_index:
                return col + 1
            while col < len(line) and not line[col].isspace():
                col += 1
        return col + 1


_int = parse_int


def parse_jkl(text: str, path: str = "<string>") -> ScoreCache:
    """Parse jkl text into a :class:`ScoreCache` (see module docstring).

    A well-formed file goes through :func:`_parse_fast` (whole-array checks); anything it does
    not accept, errors and warnings included, is read again by the careful line-by-line parser,
    which names the line and column of the first problem."""
    cache = _parse_fast(text, path)
    if cache is not None:
        return cache
    src = Lines(text, path)

    def fail(msg: str, line: int | None = None, col: int | None = None):
        raise ScoreFileError(msg, path, line, col)

    first = src.next()
    if first is None:
        fail("empty file: expected the number of variables")
    line0, toks = first
    n = _int(toks[0]) if len(toks) == 1 else None
    if n is None or n < 1:
        fail(f"expected the number of variables (a positive integer), found {' '.join(toks)[:40]!r}", line0, 1)

    names: list[str] = []
    name_line: dict[str, int] = {}
    raw: list[list[tuple[int, float, list[str]]]] = []
    for b in range(n):
        head = src.next()
        if head is None:
            fail(f"truncated file: expected {n} variable blocks, found {b}", len(src.lines))
        ln, toks = head
        k = _int(toks[1]) if len(toks) == 2 else None
        if k is None or k < 0:
            fail(f"expected a block header 'NAME COUNT' for variable {b + 1} of {n}, found "
                 f"{' '.join(toks)[:40]!r}", ln, 1)
        name = toks[0]
        if name in name_line:
            fail(f"variable {name} has a second block (first at line {name_line[name]})", ln, 1)
        if k == 0:
            fail(f"variable {name} has no candidate parent sets", ln, len(toks[0]) + 2)
        name_line[name] = ln
        names.append(name)
        fam = []
        for c in range(k):
            row = src.next()
            if row is None:
                fail(f"truncated file: variable {name} declares {k} parent sets, found {c}",
                     len(src.lines))
            ln, toks = row
            fam.append(_score_line(toks, ln, src, fail, name, k, c))
        raw.append(fam)

    _check_trailing(src, path, name_line)
    index = {v: i for i, v in enumerate(names)}
    return build_cache(decoded_names(names, path, name_line), raw, index, path, src,
                       meta={"format": "jkl", **_header_meta(src.lines)})


def decoded_names(tokens: list[str], path: str, name_line: dict[str, int] | None = None) -> list[str]:
    """The names of the name tokens (:func:`~lpbn.formats.textio.decode_name`); two tokens
    naming one variable (``a%20b`` and ``a%2520b`` are distinct) are an error."""
    names = [decode_name(t) for t in tokens]
    if len(set(names)) != len(names):
        seen: dict[str, str] = {}
        for t, v in zip(tokens, names):
            if v in seen:
                line = (name_line or {}).get(t)
                raise ScoreFileError(f"variable names {seen[v][:40]!r} and {t[:40]!r} both decode to "
                                     f"{v[:40]!r}", path, line, 1 if line else None)
            seen[v] = t
    return names


def _parse_fast(text: str, path: str) -> ScoreCache | None:
    """The cache of a jkl text that passes every check of the careful parser, or None.

    The same grammar and checks as the line-by-line parser (so both give the same cache), but
    tokens are gathered block by block and checked as arrays: all scores and all counts
    converted at once, parent names mapped in one pass, repeated parents found after one sort,
    and duplicate parent sets by an order-independent 64-bit hash per set (a collision only
    sends the file to the careful parser).  Warnings (duplicate sets, trailing lines) are left
    to the careful parser too."""
    lines = [s for s in map(str.strip, text_lines(text, ScoreFileError, path))
             if s and not s.startswith("#")]
    if not lines or _int(lines[0]) is None:
        return None
    n = int(lines[0])
    names: list[str] = []
    sizes: list[int] = []
    score_tok: list[str] = []
    count_tok: list[str] = []
    ntok: list[int] = []
    parent_tok: list[str] = []
    pos = 1
    for _ in range(n):
        head = lines[pos].split() if pos < len(lines) else ()
        k = _int(head[1]) if len(head) == 2 else None
        if not k or pos + k >= len(lines):
            return None
        names.append(head[0])
        sizes.append(k)
        toks = [line.split() for line in lines[pos + 1:pos + 1 + k]]
        score_tok.extend([t[0] for t in toks])
        count_tok.extend([t[1] if len(t) > 1 else "-" for t in toks])
        ntok.extend(map(len, toks))
        parent_tok.extend(chain.from_iterable(t[2:] for t in toks))
        pos += 1 + k
    if pos != len(lines) or len(set(names)) != n:
        return None
    scores = _numbers(score_tok, float)
    counts = _numbers(count_tok, int)
    if (scores is None or counts is None or not np.isfinite(scores).all()
            or not np.array_equal(counts, np.array(ntok) - 2)):
        return None
    index = {v: i for i, v in enumerate(names)}
    try:
        items = np.fromiter(map(index.__getitem__, parent_tok), dtype=np.int32,
                            count=len(parent_tok))
    except KeyError:
        return None
    m = len(scores)
    ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    child = np.repeat(np.arange(n, dtype=np.int32), sizes)
    if (items == np.repeat(child, counts)).any():
        return None
    if not increasing_within_sets(ptr, items):
        key = np.sort(np.repeat(np.arange(m, dtype=np.int64), counts) * n + items)
        if (key[1:] == key[:-1]).any():                     # a repeated parent
            return None
        items = (key % n).astype(np.int32)
    if _has_duplicate_sets(items, ptr, child, n):
        return None
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if any("%" in v for v in names):
        names = [decode_name(v) for v in names]
        if len(set(names)) != n:
            return None             # the careful parser names the clash
    return ScoreCache(names, offsets, scores, ptr, items, source=path,
                      meta={"format": "jkl", **_header_meta(text.split("\n", 40)[:40])})


def _numbers(tokens: list[str], kind: type) -> np.ndarray | None:
    """The tokens as numbers when all are in the careful parser's notations, else None.

    Once the text is ASCII without ``_`` (and, for counts, at most 18 digits), Python's
    ``float`` and ``int`` (and numpy's conversion of strings, which parses them the same way)
    accept exactly those notations, apart from ``inf``/``nan`` and overflow to infinity, which
    the caller's finiteness check refuses."""
    joined = "".join(tokens)
    if not joined.isascii() or "_" in joined:
        return None
    if kind is int and not (joined.isdigit() and max(map(len, tokens), default=0) <= 18):
        return None
    try:
        return np.array(tokens, dtype=np.float64 if kind is float else np.int64)
    except (ValueError, OverflowError):
        return None


def _zobrist_keys(count: int) -> np.ndarray:
    """``count`` odd pseudo-random uint64 keys, the same in every run (splitmix64 of 1..count;
    numpy's generators import numpy.random: 6 ms of a read where nothing else has)."""
    x = np.arange(1, count + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (x ^ (x >> np.uint64(31))) | np.uint64(1)


def _has_duplicate_sets(items: np.ndarray, ptr: np.ndarray, child: np.ndarray, n: int) -> bool:
    """Whether two parent sets of one variable may be equal (Zobrist hashes of the sets, mixed
    with the child's: equal sets always collide, distinct ones almost never)."""
    keys = _zobrist_keys(n + 1)
    cum = np.zeros(len(items) + 1, dtype=np.uint64)
    np.cumsum(keys[items], dtype=np.uint64, out=cum[1:])
    h = np.sort(cum[ptr[1:]] - cum[ptr[:-1]] + child.astype(np.uint64) * keys[n])
    return bool((h[1:] == h[:-1]).any())


#: meta keys ``write_jkl`` records in a leading ``# lpbn: key=value ...`` comment (BLIP writes
#: ``#`` headers too) when the cache was pruned for K > 1 networks: what the scorer did, so that
#: ``lpbn solve --k-best K`` can refuse a cache pruned for fewer than K networks and
#: ``--classes`` knows the score
HEADER_KEYS = ("score", "k_best", "N", "max_parents", "ess")


def _header_meta(lines: list[str]) -> dict:
    meta: dict = {}
    for line in lines[:20]:
        s = line.strip()
        if not s:
            continue
        if not s.startswith("#"):
            break
        body = s[1:].strip()
        if not body.startswith("lpbn:"):
            continue
        for tok in body[5:].split():
            key, sep, value = tok.partition("=")
            if sep and key in HEADER_KEYS:
                num = parse_int(value)
                meta[key] = num if num is not None else (None if value == "None" else value)
    return meta


def _header(cache: ScoreCache) -> str | None:
    """The ``# lpbn:`` line, written only for a cache pruned for K > 1 networks: GOBNILP's and
    pygobnilp's readers take the first line as the variable count, so the default pipeline's
    files (K = 1) must stay plain GOBNILP jkl."""
    try:
        if int(cache.meta.get("k_best") or 1) <= 1:
            return None
    except (TypeError, ValueError):
        return None
    items = [f"{k}={cache.meta[k]}" for k in HEADER_KEYS if cache.meta.get(k) is not None]
    return "# lpbn: " + " ".join(str(x).replace(" ", "_") for x in items) + "\n"


def _score_line(toks, ln, src, fail, name, k, c):
    score = parse_float(toks[0])
    if score is None:
        if len(toks) == 2 and _int(toks[1]) is not None and toks[0][:1] not in "+-.0123456789":
            fail(f"variable {name} declares {k} parent sets but only {c} precede this block "
                 f"header", ln, 1)
        fail(f"expected a score, found {toks[0][:30]!r}", ln, 1)
    if not math.isfinite(score):
        fail(f"score {toks[0]} is not finite", ln, 1)
    p = _int(toks[1]) if len(toks) >= 2 else None
    if p is None or p < 0:
        fail("expected the parent count after the score", ln, src.column(ln, 1) if len(toks) > 1 else None)
    if len(toks) - 2 != p:
        fail(f"parent count {p} does not match the {len(toks) - 2} parents listed", ln,
             src.column(ln, 1))
    return ln, score, toks[2:]


def _check_trailing(src: Lines, path: str, name_line: dict[str, int]) -> None:
    rest = src.next()
    if rest is None:
        return
    ln, toks = rest
    # Another complete-looking variable block means the count on line 1 is wrong.
    if len(toks) == 2 and _int(toks[1]) is not None and int(toks[1]) > 0:
        nxt = src.next()
        if nxt is not None:
            is_score = (parse_float(nxt[1][0]) is not None and len(nxt[1]) >= 2
                        and _int(nxt[1][1]) == len(nxt[1]) - 2)
            if is_score and "." in nxt[1][0]:
                if toks[0] in name_line:
                    raise ScoreFileError(f"variable {toks[0]} has a second block (first at line "
                                         f"{name_line[toks[0]]})", path, ln, 1)
                raise ScoreFileError(f"count mismatch: line 1 declares {len(name_line)} variables "
                                     f"but another variable block ({toks[0]}) follows", path, ln, 1)
    remaining = 1 + sum(1 for s in src.lines[src.pos:] if s.strip())
    warnings.warn(f"{path}:{ln}: ignoring {remaining} trailing line(s) after the "
                  f"{len(name_line)} variable blocks (side constraints?)", LpbnWarning, stacklevel=4)


def build_cache(names, raw, index, path, src, meta) -> ScoreCache:
    """Resolve parent names, check each set, build the cache (duplicates: keep best, warn)."""
    scores: list[float] = []
    items: list[int] = []
    ptr = [0]
    offsets = [0]
    for i, fam in enumerate(raw):
        seen: dict[tuple[int, ...], tuple[int, int]] = {}
        for ln, score, parents in fam:
            idx = []
            for t, pname in enumerate(parents):
                j = index.get(pname)
                if j is None:
                    raise ScoreFileError(f"unknown parent {pname[:40]!r} of variable {names[i]}",
                                         path, ln, src.column(ln, t + src_offset(meta)) if src else None)
                if j == i:
                    raise ScoreFileError(f"variable {names[i]} is listed as its own parent",
                                         path, ln, src.column(ln, t + src_offset(meta)) if src else None)
                idx.append(j)
            key = tuple(sorted(idx))
            if len(set(key)) != len(key):
                dup = next(names[v] for v in key if key.count(v) > 1)
                raise ScoreFileError(f"parent {dup} is repeated in a parent set of {names[i]}", path, ln)
            if key in seen:
                first_line, pos = seen[key]
                warnings.warn(f"{path}:{ln}: duplicate parent set of {names[i]} (first at line "
                              f"{first_line}); keeping the better score", LpbnWarning, stacklevel=4)
                scores[pos] = max(scores[pos], score)
                continue
            seen[key] = (ln, len(scores))
            scores.append(score)
            items.extend(key)
            ptr.append(len(items))
        offsets.append(len(scores))
    return ScoreCache(names, np.array(offsets), np.array(scores, dtype=np.float64), np.array(ptr),
                      np.array(items, dtype=np.int32), meta=meta, source=path)


def src_offset(meta) -> int:
    """Index of the first parent token on a score line (jkl: 2, pss: 1)."""
    return 1 if meta.get("format") == "pss" else 2


def read_jkl(path: str | os.PathLike) -> ScoreCache:
    """Read a (possibly gzipped) jkl file."""
    return parse_jkl(read_text(path, ScoreFileError), str(path))


def jkl_lines(cache: ScoreCache) -> Iterator[str]:
    """The jkl text of a cache, line by line; scores are written with ``repr`` (bit-exact)."""
    head = _header(cache)
    if head:
        yield head
    yield f"{cache.n}\n"
    names = [encode_name(v) for v in cache.names]
    for i in range(cache.n):
        r = cache.family_range(i)
        yield f"{names[i]} {len(r)}\n"
        for j in r:
            ps = cache.parents(j)
            yield " ".join([repr(float(cache.scores[j])), str(len(ps)), *(names[p] for p in ps)]) + "\n"


def write_jkl(cache: ScoreCache, path: str | os.PathLike) -> None:
    """Write a cache as GOBNILP jkl (atomically)."""
    with atomic_write(path) as fh:
        fh.writelines(jkl_lines(cache))
