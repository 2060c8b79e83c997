"""The eqsat-uopc command line: the front door for users who have .uir files, not Python.

Every failure a user can cause (missing file, malformed program, bad option, a program that
cannot be evaluated) is one line on stderr and exit status 1 (2 for usage errors, as argparse
does); a traceback means a bug in eqsat-uopc.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from .uop import UOp
from .values import bind_params

__all__ = ["main"]


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 1."""


def _uir_files(target: Path) -> Iterator[Path]:
    if target.is_dir():
        files = sorted(target.glob("*.uir"))
        if not files:
            raise CliError(f"{target}: no .uir files in this directory")
        yield from files
    elif target.is_file():
        yield target
    else:
        raise CliError(f"{target}: no such file or directory")


def _load(path: Path) -> UOp:
    from .uir import parse_uir

    try:
        text = path.read_text()
    except OSError as e:
        raise CliError(f"{path}: cannot read: {e.strerror}") from None
    try:
        return parse_uir(text)
    except ValueError as e:
        raise CliError(f"{path}: {e}") from None


def _evaluate(program: UOp, backend: str, inputs: Sequence) -> object:
    from .greedy import run, to_python

    if backend == "c":
        from .backend import compile_c

        return compile_c(program)(*inputs)
    if inputs:
        program = bind_params(program, dict(enumerate(inputs)))
    return to_python(run(program))


def _cmd_run(args: argparse.Namespace) -> int:
    from .uir import to_uir

    inputs = [json.loads(v) for v in args.input]
    for path in _uir_files(Path(args.target)):
        program = _load(path)
        try:
            value = _evaluate(program, args.backend, inputs)
        except (ValueError, IndexError, TypeError) as e:
            raise CliError(f"{path}: {type(e).__name__}: {e}") from None
        if args.json:
            print(json.dumps({"file": str(path), "value": value}))
        else:
            print(f"# {path}")
            print(to_uir(program))
            print(f"=> {value}")
    return 0


def _cmd_render_c(args: argparse.Namespace) -> int:
    from .backend import render_c

    print(render_c(_load(Path(args.file))), end="")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="eqsat-uopc", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="evaluate .uir programs and print their values")
    r.add_argument("target", help="a .uir file or a directory of them")
    r.add_argument("--backend", choices=("interpreter", "c"), default="interpreter")
    r.add_argument("--input", action="append", default=[], metavar="JSON", help="a PARAM value, per slot")
    r.add_argument("--json", action="store_true", help="one JSON object per program")
    r.set_defaults(fn=_cmd_run)

    c = sub.add_parser("render-c", help="print the C the backend generates for a .uir program")
    c.add_argument("file")
    c.set_defaults(fn=_cmd_render_c)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.fn(args)
    except CliError as e:
        print(f"eqsat-uopc: error: {e}", file=sys.stderr)
        return 1
    except json.JSONDecodeError as e:
        print(f"eqsat-uopc: error: --input is not JSON: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
