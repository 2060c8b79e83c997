"""`eqsat-uopc run`: evaluate .uir programs by the interpreter or the C backend (a `# expect:` header
is checked, not just shown)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eqsat_uopc.cli.common import load, say, uir_files
from eqsat_uopc.cli_options import UsageError, json_value, option
from eqsat_uopc.errors import UserError
from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.semantics.values import bind_params, describe_input, same_value

__all__ = ["add_parsers"]


def _inputs_taken(program: UOp, backend: str) -> list[str]:
    """The inputs a program takes, described: one per PARAM slot 0..max slot (and, compiled, one per
    free RANGE), as `input 0 (PARAM slot 0): i32 scalar`."""
    if backend == "c":
        from eqsat_uopc.backend.lower import lower

        return [s.describe() for s in lower(program).inputs]
    params = {p.arg.slot: p for p in call_params(program)}
    return [
        describe_input(k, params[k].dtype, params[k].shape) if k in params else f"input {k} (unused)"
        for k in range(max(params) + 1 if params else 0)
    ]


def _check_input_count(path: Path, program: UOp, given: list[Any], backend: str) -> None:
    taken = _inputs_taken(program, backend)
    if len(given) == len(taken):
        return
    times = "once" if len(given) == 1 else f"{len(given)} times"
    hint = ""
    if len(given) == 1 and isinstance(given[0], list) and len(given[0]) == len(taken):
        hint = " (" + " ".join(f"--input {json.dumps(v)}" for v in given[0]) + ")"
    raise UsageError(
        f"argument --input: given {times}, but {path} takes {len(taken)} input(s): "
        f"{'; '.join(taken) or 'none'}; repeat --input once per input, in slot order{hint}"
    )


# what evaluating a program may raise that is the program's (or its inputs') failure, not ours:
# UserErrors (inputs, undefined behaviour, an index out of bounds), and for the interpreter the
# chapter's own `run` failures (IndexError for a constant index out of bounds, ValueError for a
# program that does not evaluate to a value)
_INTERPRETER_FAILURES = (UserError, IndexError, ValueError)


def _evaluate(program: UOp, backend: str, inputs: Sequence | None) -> object:
    """The program's value on inputs (one per PARAM slot), by the interpreter or the C backend."""
    if backend == "c":
        from eqsat_uopc.backend import compile_c

        return compile_c(program)(*(inputs or ()))
    from eqsat_uopc.greedy import run, to_python

    if inputs is not None:
        program = bind_params(program, dict(enumerate(inputs)))
    elif call_params(program):
        from eqsat_uopc.errors import InputError

        taken = "; ".join(_inputs_taken(program, backend))
        raise InputError(f"no inputs given: the program takes {taken} (give them with --input)")
    return to_python(run(program))


def _cmd_run(args: argparse.Namespace) -> int:
    """Evaluate each program; a header `# expect:` / `# expect-error:` is checked, not just shown."""
    from eqsat_uopc.ir.uir import to_uir

    cli_inputs = args.input or None
    examples = [(path, load(path)) for path in uir_files(Path(args.target))]
    if cli_inputs is not None:  # before any program runs
        for path, example in examples:
            _check_input_count(path, example.program, cli_inputs, args.backend)
    failures = []
    failing = UserError if args.backend == "c" else _INTERPRETER_FAILURES
    for path, example in examples:
        inputs = cli_inputs if cli_inputs is not None else example.inputs
        try:
            value, error = _evaluate(example.program, args.backend, inputs), None
        except failing as e:
            value, error = None, f"{type(e).__name__}: {e}"
        checked = cli_inputs is None and (example.expect is not None or example.expect_error is not None)
        if checked and example.expect_error is not None:
            # the C backend words its errors its own way: any error satisfies an expected one there
            ok = error == example.expect_error or (args.backend == "c" and error is not None)
        elif checked:
            ok = error is None and same_value(value, example.expect)
        else:
            ok = error is None
        if not ok:
            failures.append(path)
        if args.json:
            print(json.dumps({"file": str(path), "value": value, "error": error, "ok": ok}))
        else:
            print(f"# {path}")
            if inputs is not None:
                print(f"# inputs: {json.dumps(inputs)}")
            print(to_uir(example.program), end="")
            verdict = (" (as expected)" if ok else " (UNEXPECTED)") if checked else ""
            print(f"=> {error if error is not None else value}{verdict}\n")
        if checked and not ok:  # what was expected is not on stdout: say it
            want = f"error {example.expect_error}" if example.expect_error is not None else example.expect
            say(f"{path}: got {error if error is not None else value}, expected {want}")
    if failures:
        names = ", ".join(map(str, failures[:3])) + (
            f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        )
        say(f"{len(failures)} of {len(examples)} program(s) failed: {names}")
    return 1 if failures else 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("run", help="evaluate .uir programs and print their values")
    r.add_argument("target", help="a .uir file or a directory of them")
    option(r, "--backend", choices=("interpreter", "c"), default="interpreter", help="what evaluates them")
    option(
        r,
        "--input",
        action="append",
        type=json_value,
        default=[],
        shown="the file's '# inputs:' line",
        metavar="JSON",
        help="the value of one input, as JSON (7, 2.5, true, [1, 2]); repeat it once per PARAM slot, in "
        "slot order: --input 5 --input '[1, 2]'",
    )
    r.add_argument("--json", action="store_true", help="one JSON object per program (default: text)")
    r.set_defaults(fn=_cmd_run)
