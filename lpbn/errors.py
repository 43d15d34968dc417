"""Exception and warning types of lpbn.

Every problem with user input is raised as a subclass of :class:`InputError`, so the
CLI can map it to exit code 2 with a one-line message; anything else is a bug.
"""

from __future__ import annotations


class LpbnError(Exception):
    """Base class of all errors lpbn raises on purpose."""


class InputError(LpbnError, ValueError):
    """Bad input from the user: a file, an option or an argument (CLI exit code 2)."""


class LocatedError(InputError):
    """An input error that knows the file, line (1-based) and column it is about."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None,
                 column: int | None = None):
        self.path = path
        self.line = line
        self.column = column
        self.reason = message
        super().__init__(_locate(message, path, line, column))


class ScoreFileError(LocatedError):
    """A local-score file (jkl, pss) is malformed or describes an unusable instance.

    The message always names the file and, where it applies, the line (1-based) and
    column, in the ``path:line:col: what`` style compilers use.
    """


class DataFileError(LocatedError):
    """A data file (CSV, .dat) or data array is malformed."""


class OutputError(InputError):
    """An output file cannot be written (no such directory, a directory, no permission, disk
    full): a usage problem, so the CLI exits 2; no partial file is left behind."""


class ResourceLimitError(InputError):
    """A method refuses to start because it would exceed a configured resource limit.

    It is a usage problem (pick another method or raise the limit), so the CLI exits 2.
    """


class LpbnWarning(UserWarning):
    """Warnings about inputs that lpbn could still use (e.g. duplicate parent sets)."""


def _locate(message: str, path: str | None, line: int | None, column: int | None) -> str:
    where = ""
    if path is not None:
        where = str(path)
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        where += ": "
    elif line is not None:
        where = f"line {line}: "
    return where + message
