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
from typing import TYPE_CHECKING

from .uop import UOp
from .values import bind_params, same_value

if TYPE_CHECKING:
    from .uir import Example

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


def _load(path: Path) -> Example:
    from .uir import load_example

    try:
        return load_example(path)
    except OSError as e:
        raise CliError(f"{path}: cannot read: {e.strerror}") from None
    except ValueError as e:
        raise CliError(str(e) if str(path) in str(e) else f"{path}: {e}") from None


def _evaluate(program: UOp, backend: str, inputs: Sequence | None) -> object:
    """The program's value on inputs (one per PARAM slot), by the interpreter or the C backend."""
    if backend == "c":
        from .backend import compile_c

        return compile_c(program)(*(inputs or ()))
    from .greedy import run, to_python

    if inputs is not None:
        program = bind_params(program, dict(enumerate(inputs)))
    return to_python(run(program))


def _cmd_run(args: argparse.Namespace) -> int:
    """Evaluate each program; a header `# expect:` / `# expect-error:` is checked, not just shown."""
    from .uir import to_uir

    cli_inputs = [json.loads(v) for v in args.input] if args.input else None
    failures = 0
    for path in _uir_files(Path(args.target)):
        example = _load(path)
        inputs = cli_inputs if cli_inputs is not None else example.inputs
        try:
            value, error = _evaluate(example.program, args.backend, inputs), None
        except (ValueError, IndexError, TypeError, ArithmeticError) as e:
            value, error = None, f"{type(e).__name__}: {e}"
        checked = cli_inputs is None and (example.expect is not None or example.expect_error is not None)
        if checked and example.expect_error is not None:
            # the C backend words its errors its own way: any error satisfies an expected one there
            ok = error == example.expect_error or (args.backend == "c" and error is not None)
        elif checked:
            ok = error is None and same_value(value, example.expect)
        else:
            ok = error is None
        failures += not ok
        if args.json:
            print(json.dumps({"file": str(path), "value": value, "error": error, "ok": ok}))
            continue
        print(f"# {path}")
        if inputs is not None:
            print(f"# inputs: {json.dumps(inputs)}")
        print(to_uir(example.program), end="")
        verdict = (" (as expected)" if ok else " (UNEXPECTED)") if checked else ""
        print(f"=> {error if error is not None else value}{verdict}\n")
        if not ok:
            print(
                f"eqsat-uopc: error: {path}: {error or f'got {value}, expected {example.expect}'}",
                file=sys.stderr,
            )
    return 1 if failures else 0


def _cmd_render_c(args: argparse.Namespace) -> int:
    from .backend import render_c

    print(render_c(_load(Path(args.file)).program), end="")
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
