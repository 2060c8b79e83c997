"""Validated command-line options: every value is checked when the command line is read, before work.

One mechanism for every subcommand (and for the ones still to come):
- `option(parser, "--limit", type=integer(minimum=1), default=None, shown="all", help=...)` adds an
  option whose help ends in its default (`(default: all)`), so `--help` shows every default;
- the `type=` helpers (`integer`, `seconds`, `yes_no`, `subset`, `json_value`, `suffixed`) turn
  the text into a value or refuse it with what is allowed: argparse then prints one line,
  `eqsat-uopc compare: error: argument --limit: expected an integer >= 1, got '-3'`, and exits
  with status 2, as for any usage error;
- a check that needs more than one value (an option against the program a file holds, two options
  together) raises `UsageError` after parsing: the command line prints it the same way, status 2.

Errors from the work itself (a malformed file, a program the budget cannot hold) are other
UserErrors, printed as `eqsat-uopc: error: ...` with status 1; anything else is a bug and keeps
its traceback (eqsat_uopc.errors).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

from eqsat_uopc.errors import UserError

__all__ = [
    "Parser",
    "UsageError",
    "integer",
    "json_value",
    "option",
    "seconds",
    "subset",
    "suffixed",
    "usage_line",
    "yes_no",
]


class UsageError(UserError):
    """A command-line value that is not allowed, found after parsing (it depends on a file or on
    another option). The message starts with the option: `argument --input: ...`. Exit status 2."""


def usage_line(prog: str, message: str) -> str:
    """The one line a usage error prints: the command, the message, where to read more."""
    return f"{prog}: error: {message} (see '{prog} --help')\n"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (not the whole usage block), status 2.
    Subcommand parsers made with add_subparsers() are Parsers too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, usage_line(self.prog, message))


def _fail(expected: str, text: str) -> NoReturn:
    raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")


def integer(
    minimum: int | None = None, maximum: int | None = None, allow_none: bool = False
) -> Callable[[str], int | None]:
    """An int in [minimum, maximum] (either end open when None), and the word `none` for no limit,
    when allowed."""
    if minimum is not None and maximum is not None:
        expected = f"an integer from {minimum} to {maximum}"
    elif minimum is not None:
        expected = f"an integer >= {minimum}"
    elif maximum is not None:
        expected = f"an integer <= {maximum}"
    else:
        expected = "an integer"
    expected += " or 'none'" if allow_none else ""

    def parse(text: str) -> int | None:
        if allow_none and text == "none":
            return None
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            _fail(expected, text)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            _fail(expected, text)
        return value

    return parse


def seconds(allow_none: bool = False) -> Callable[[str], float | None]:
    """A finite number of seconds > 0 (and the word `none` for no limit, when allowed)."""
    expected = "a number of seconds > 0" + (" or 'none'" if allow_none else "")

    def parse(text: str) -> float | None:
        if allow_none and text == "none":
            return None
        try:
            value = float(text)
        except ValueError:
            _fail(expected, text)
        if not (math.isfinite(value) and value > 0):
            _fail(expected, text)
        return value

    return parse


def yes_no(text: str) -> bool:
    """`yes` or `no`."""
    if text not in ("yes", "no"):
        _fail("yes or no", text)
    return text == "yes"


def subset(choices: Iterable[str], what: str = "names") -> Callable[[str], tuple[str, ...]]:
    """A comma-separated, non-empty list of distinct names from choices, in the order given."""
    known = tuple(choices)
    expected = f"comma-separated {what} from {', '.join(known)}"

    def parse(text: str) -> tuple[str, ...]:
        names = tuple(n.strip() for n in text.split(",") if n.strip())
        unknown = next((n for n in names if n not in known), None)
        twice = next((n for k, n in enumerate(names) if n in names[:k]), None)
        if unknown is not None or twice is not None or not names:
            why = f": {unknown!r} is unknown" if unknown else f": {twice!r} is named twice" if twice else ""
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}{why}")
        return names

    return parse


def json_value(text: str) -> Any:
    """One JSON value (a number, true/false, or a nested [list])."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        message = f"expected a JSON value (7, 2.5, true, [1, 2]), got {text!r}: {e}"
        raise argparse.ArgumentTypeError(message) from None


def suffixed(*suffixes: str) -> Callable[[str], str]:
    """A file path ending in one of suffixes (case-insensitive); the text is kept as given."""
    ends = suffixes[0] if len(suffixes) == 1 else f"one of {', '.join(suffixes)}"
    expected = f"a file name ending in {ends}"

    def parse(text: str) -> str:
        if Path(text).suffix.lower() not in suffixes:
            _fail(expected, text)
        return text

    return parse


def _shown(default: Any) -> str:
    if isinstance(default, bool):
        return "yes" if default else "no"
    if isinstance(default, float):
        return f"{default:g}"
    if isinstance(default, tuple | list):
        return ",".join(map(str, default))
    return str(default)


def option(
    parser: argparse.ArgumentParser,
    *flags: str,
    default: Any,
    help: str,
    shown: str | None = None,
    **kwargs: Any,
) -> argparse.Action:
    """parser.add_argument with the default at the end of the help: `(default: 10000)`, `yes|no`
    shown as yes/no, a None default as `shown` says (required: a None default means something, such
    as "all" or "one per core", that the reader must be told)."""
    if default is None and shown is None:
        raise ValueError(f"option {flags[0]}: a None default needs `shown` to say what it means")
    text = _shown(default) if shown is None else shown
    return parser.add_argument(*flags, default=default, help=f"{help} (default: {text})", **kwargs)
