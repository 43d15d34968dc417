"""Helpers shared by subcommands: writing outputs atomically or to stdout, and the options
that say how a data file is read (``lpbn score`` and ``lpbn learn`` take the same)."""

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


def add_reading_arguments(p) -> None:
    """``--header/--no-header``, ``--delimiter``, ``--data-format``, ``--missing`` and
    ``--drop-missing``: how a data file is read (:func:`lpbn.read_data`)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--header", dest="header", action="store_true", default=None,
                   help="the first line of delimited text names the columns")
    g.add_argument("--no-header", dest="header", action="store_false",
                   help="the first line of delimited text is data (columns named 0..n-1)")
    p.add_argument("--delimiter", metavar="D",
                   help="field delimiter of delimited text: ',', tab, ';', whitespace or another "
                        "character (default: sniffed among ',', tab, ';' and whitespace)")
    p.add_argument("--data-format", choices=("csv", "dat"),
                   help="read the data as delimited text (csv) or GOBNILP .dat (default: from the "
                        "extension: .dat is GOBNILP's, .csv/.tsv/.txt delimited text; else the content)")
    p.add_argument("--missing", metavar="TOKENS",
                   help="comma-separated tokens that mean a missing value, besides an empty field and '?' "
                        "(e.g. --missing NA,null); every other token is a state")
    p.add_argument("--drop-missing", action="store_true", help="drop rows with missing values instead of failing")


def reading_options(args) -> dict:
    """The :func:`lpbn.read_data` keywords of :func:`add_reading_arguments`' options."""
    return {"header": args.header, "missing": args.missing, "drop_missing": args.drop_missing,
            "delimiter": args.delimiter, "format": args.data_format}
