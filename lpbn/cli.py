"""The ``lpbn`` command line; its subcommands mirror the Python API.

Each subcommand lives in ``lpbn/commands/<name>.py`` and exposes ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``.  Exit codes: 0 success, 2 bad input or
usage (one line on stderr), 1 internal error, 130 interrupted by SIGINT (Ctrl-C), 143 by
SIGTERM.  An interrupted ``solve`` still writes its result (status ``interrupted``, the best
DAG and bound so far) before it exits 130/143; other commands leave no partial output (see
:mod:`lpbn.signals`).
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import time
import warnings

from .errors import InputError, LpbnError
from .startup import light_numba_cache_loads, skip_numba_blas_probe

#: when the command started (lpbn.cli is imported first): a --time-limit counts from here, so
#: reading, pruning and compiling are inside it, as a user timing the command sees it
STARTED = time.perf_counter()

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
    "learn": "lpbn.commands.learn",
    "draw": "lpbn.commands.draw",
    "warmup": "lpbn.commands.warmup",
    "verify": "lpbn.commands.verify",
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


#: argparse destinations that name an output file (checked before any work is done)
OUTPUT_FILES = ("output", "network_out", "certificate")


def _check_outputs(args) -> None:
    """Refuse an unwritable output path at once (exit 2), not after a long solve."""
    from .atomic import check_writable
    if getattr(args, "command", None) == "bench":     # its -o is a directory
        return
    for dest in OUTPUT_FILES:
        path = getattr(args, dest, None)
        if isinstance(path, str) and path != "-":
            check_writable(path)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"lpbn: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    warnings.showwarning = _show_warning
    skip_numba_blas_probe()
    light_numba_cache_loads()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return 2
        _check_outputs(args)
        return int(args._run(args) or 0)
    except InputError as exc:
        print(f"lpbn: error: {exc}", file=sys.stderr)
        return 2
    except LpbnError as exc:
        print(f"lpbn: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, or a solve that stopped on either
        return _interrupted(exc)
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so in one line, details with LPBN_DEBUG=1
        import os
        cause = _interrupt_cause(exc)
        if cause is not None:
            return _interrupted(cause)
        if os.environ.get("LPBN_DEBUG"):
            raise
        print(f"lpbn: internal error: {type(exc).__name__}: {exc} (rerun with LPBN_DEBUG=1 "
              "for a traceback)", file=sys.stderr)
        return 1


def _interrupted(exc: KeyboardInterrupt) -> int:
    """The one funnel for signals: one line on stderr, exit 128 + the signal number."""
    from .signals import signal_name
    signum = getattr(exc, "signum", signal.SIGINT)
    print(f"lpbn: {getattr(exc, 'message', '') or 'interrupted by ' + signal_name(signum)}",
          file=sys.stderr)
    return 128 + signum


def _interrupt_cause(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt behind ``exc``, if any: one raised in or around a numba-compiled
    call surfaces as ``SystemError: CPUDispatcher(...) returned a result with an exception set``."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def entry_point() -> None:
    # SIGINT and SIGTERM unwind as an exception (temporary and partial output files are
    # removed), never inside numba's machinery, and only stop a solve (lpbn.signals); a
    # signal the process ignores stays ignored
    from .signals import raise_interrupted
    for sig, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
        if signal.getsignal(sig) is default:
            signal.signal(sig, raise_interrupted)
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
