"""The ``lpbn`` command line; its subcommands mirror the Python API.

Each subcommand lives in ``lpbn/commands/<name>.py`` and exposes ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``.  Exit codes: 0 success, 2 bad input or
usage (one line on stderr), 1 internal error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from .errors import InputError, LpbnError

#: subcommand -> module; modules that are absent from this build are left out.
COMMANDS = {
    "info": "lpbn.commands.info",
    "convert": "lpbn.commands.convert",
    "solve": "lpbn.commands.solve",
    "score": "lpbn.commands.score",
    "sample": "lpbn.commands.sample",
    "check": "lpbn.commands.check",
    "gap": "lpbn.commands.gap",
    "export": "lpbn.commands.export",
    "bench": "lpbn.commands.bench",
}


class UsageError(InputError):
    """Bad command-line usage."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse prints the whole usage)
        raise UsageError(f"{self.prog}: {message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    parser = _Parser(prog="lpbn", description="Provably optimal Bayesian network structure learning.")
    parser.add_argument("--version", action="version", version=f"lpbn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module in COMMANDS.items():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                continue
            raise
        p = sub.add_parser(name, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"lpbn: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    warnings.showwarning = _show_warning
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args._run(args) or 0)
    except InputError as exc:
        print(f"lpbn: error: {exc}", file=sys.stderr)
        return 2
    except LpbnError as exc:
        print(f"lpbn: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("lpbn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so in one line, details with LPBN_DEBUG=1
        import os
        if os.environ.get("LPBN_DEBUG"):
            raise
        print(f"lpbn: internal error: {type(exc).__name__}: {exc} (rerun with LPBN_DEBUG=1 "
              "for a traceback)", file=sys.stderr)
        return 1


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
