"""The eqsat-uopc command line: the front door for users who have .uir files, not Python.

Exit statuses (docs/cli.md says more):
- 0: done, and nothing wrong was found;
- 1: something named or computed failed: a missing or malformed file, a program that cannot be
  evaluated, a budget the program does not fit in, a soundness bug found by `compare`; one line
  `eqsat-uopc: error: ...` on stderr;
- 2: the command line itself is wrong: an unknown option, a value out of range or not among the
  choices, --input given a number of times the program does not take; one line naming the option,
  the value and what is allowed, before any work (eqsat_uopc.cli_options);
- 70: a bug in eqsat-uopc: its traceback, and how to report it;
- 130: interrupted (Ctrl-C).
A failure is a user's when its exception is a UserError (eqsat_uopc.errors) or an OSError on a
file; anything else is a bug, never dressed up as bad input.

The command's parts: common.py (what every subcommand shares), one module per subcommand (run.py,
optimize.py, explain.py, show.py, compare.py, verify_rules.py, calibrate.py, render_c.py, capture.py,
synthesize.py, fuzz.py, fuzz_soundness.py; rule_files.py is `--rules` with family files), each with
`add_parsers(sub)`; this module assembles the parser and runs a command.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence

from eqsat_uopc.allocator import MallocError, malloc_in_use, reexec_with_jemalloc
from eqsat_uopc.cli import (
    calibrate,
    capture,
    compare,
    explain,
    fuzz,
    fuzz_soundness,
    optimize,
    render_c,
    run,
    show,
    synthesize,
    verify_rules,
)
from eqsat_uopc.cli.common import CliError, say
from eqsat_uopc.cli_options import Parser, UsageError, usage_line
from eqsat_uopc.errors import UserError

__all__ = ["BUG_REPORT", "CliError", "console", "guarded", "main", "parser"]

BUG_REPORT = (
    "eqsat-uopc: internal error: this is a bug in eqsat-uopc, not in your input; please report it "
    "with the command line, the files it names and the traceback above (docs/cli.md, 'Reporting a bug')"
)
# the subcommands, in the order `eqsat-uopc --help` lists them
_SUBCOMMANDS = (
    run,
    optimize,
    explain,
    show,
    compare,
    verify_rules,
    calibrate,
    render_c,
    capture,
    synthesize,
    fuzz,
    fuzz_soundness,
)


def _version() -> str:
    """The version, and the malloc this process runs on (the command re-executes itself on jemalloc
    when the system has it: eqsat_uopc.allocator)."""
    from importlib.metadata import version

    return f"eqsat-uopc {version('eqsat-uopc')} (malloc: {malloc_in_use()})"


def parser() -> Parser:
    """The whole command line: every subcommand's options, checked before any work."""
    p = Parser(prog="eqsat-uopc", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)
    for module in _SUBCOMMANDS:
        module.add_parsers(sub)
    return p


def _os_message(e: OSError) -> str:
    where = f"{e.filename}: " if e.filename is not None else ""
    return f"{where}{e.strerror or e}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; user errors are one line on stderr (status 1, 2 for usage errors), and
    anything else propagates (a bug: console() prints its traceback and how to report it)."""
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except UsageError as e:
        sys.stderr.write(usage_line(f"eqsat-uopc {args.command}", str(e)))
        return 2
    except CliError as e:
        say(str(e))
        return 1
    except UserError as e:
        say(f"{type(e).__name__}: {e}")
        return 1
    except BrokenPipeError:  # stdout closed early (`| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # a file named on the command line that cannot be read or written
        say(_os_message(e))
        return 1


def guarded(argv: Sequence[str] | None = None) -> int:
    """main(), with Ctrl-C as status 130 and a bug as its traceback, the way to report it, status 70."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("eqsat-uopc: interrupted", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print(BUG_REPORT, file=sys.stderr)
        return 70


def console() -> None:
    """The `eqsat-uopc` command: main() on jemalloc when the system has one (eqsat_uopc.allocator:
    the process executes itself again with it preloaded, once)."""
    try:
        reexec_with_jemalloc("eqsat_uopc.cli", sys.argv[1:])
    except MallocError as e:
        say(str(e))
        sys.exit(1)
    sys.exit(guarded())
