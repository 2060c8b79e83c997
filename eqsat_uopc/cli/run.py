"""`eqsat-uopc run`: evaluate .uir programs by the interpreter or the C backend (a `# expect:` header
is checked, not just shown).

Both backends take the same inputs, in the same order (backend/lower.py): one per PARAM slot
0..max slot, then one per free RANGE (a loop variable: its value, in [0, extent - 1]). The
interpreter binds a RANGE's value as the C backend does, so a program with a RANGE runs on either.
`--input` values are checked against those inputs before any program runs: their number, and each
one's type and shape (`true` is no i32, `2.5` no i32, `1` no bool), a usage error naming the input."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eqsat_uopc.cli.common import load, say, uir_files
from eqsat_uopc.cli_options import UsageError, json_value, option
from eqsat_uopc.errors import InputError, UserError
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.values import bind_params, same_value, value_mismatch

__all__ = ["add_parsers"]


def _inputs(program: UOp) -> tuple:
    """The inputs a program takes (backend.lower.InputSpec): one per PARAM slot 0..max slot, then one
    per free RANGE; each describes itself as `input 0 (PARAM slot 0): i32 scalar`."""
    from eqsat_uopc.backend.lower import lower

    return lower(program).inputs


def _describe(spec: Any) -> str:
    """An input as errors name it; a RANGE of a constant extent with its values: `input 0 (RANGE 0):
    i32 scalar in [0, 15]`."""
    extent = spec.node.src[0] if spec.kind == "range" else None
    within = f" in [0, {extent.arg - 1}]" if extent is not None and extent.op is Ops.CONST else ""
    return spec.describe() + within


def _check_inputs(path: Path, program: UOp, given: list[Any]) -> None:
    """--input values against the program's inputs: as many, each of its input's type and shape."""
    taken = _inputs(program)
    if len(given) != len(taken):
        times = "once" if len(given) == 1 else f"{len(given)} times"
        hint = ""
        if len(given) == 1 and isinstance(given[0], list) and len(given[0]) == len(taken):
            hint = " (" + " ".join(f"--input {json.dumps(v)}" for v in given[0]) + ")"
        raise UsageError(
            f"argument --input: given {times}, but {path} takes {len(taken)} input(s): "
            f"{'; '.join(map(_describe, taken)) or 'none'}; repeat --input once per input, "
            f"in slot order{hint}"
        )
    for spec, value in zip(taken, given, strict=True):
        if spec.kind != "unused" and (why := value_mismatch(spec.dtype, spec.shape, value)) is not None:
            raise UsageError(f"argument --input: {path}'s {_describe(spec)}: got {json.dumps(value)} ({why})")


# what evaluating a program may raise that is the program's (or its inputs') failure, not ours:
# UserErrors (inputs, undefined behaviour, an index out of bounds), and for the interpreter the
# chapter's own `run` failures (IndexError for a constant index out of bounds, ValueError for a
# program that does not evaluate to a value)
_INTERPRETER_FAILURES = (UserError, IndexError, ValueError)


def _evaluate(program: UOp, backend: str, inputs: Sequence | None) -> object:
    """The program's value on inputs (one per PARAM slot, then one per free RANGE), by the
    interpreter or the C backend."""
    if backend == "c":
        from eqsat_uopc.backend import compile_c

        return compile_c(program)(*(inputs or ()))
    from eqsat_uopc.greedy import run, to_python

    taken = _inputs(program)
    signature = "; ".join(map(_describe, taken))
    if inputs is None and taken:
        loops = any(s.kind == "range" for s in taken)
        which = (
            " (a RANGE is a loop variable: its input is the value to evaluate the program at)"
            if loops
            else ""
        )
        raise InputError(
            f"no inputs given: the program takes {signature}; give them with --input, in this order{which}"
        )
    inputs = list(inputs or ())
    if len(inputs) != len(taken):  # a file's `# inputs:` line (--input is checked before any work)
        raise InputError(f"program takes {len(taken)} input(s), got {len(inputs)} (expected: {signature})")
    params = {s.slot: v for s, v in zip(taken, inputs, strict=True) if s.kind == "param"}
    ranges = {s: v for s, v in zip(taken, inputs, strict=True) if s.kind == "range"}
    if ranges:  # a loop variable takes a value as an input does: evaluate the CALL-free program
        from eqsat_uopc.backend.lower import lower

        program = _bind_ranges(lower(program).root, ranges, params)
    return to_python(run(bind_params(program, params) if params else program))


def _bind_ranges(program: UOp, ranges: dict, params: dict[int, Any]) -> UOp:
    """program (CALL-free) with each free RANGE replaced by its value, refused outside [0, extent - 1]
    (the extent evaluated on the inputs), as the C backend refuses it."""
    from eqsat_uopc.greedy import run, to_python

    values: dict[UOp, UOp] = {}
    for spec, value in ranges.items():
        if (why := value_mismatch(spec.dtype, (), value)) is not None:
            raise InputError(f"{spec.describe()}: got {value!r} ({why})")
        extent = to_python(run(bind_params(spec.node.src[0].substitute(values), params)))
        if not 0 <= value < extent:
            raise InputError(f"{spec.describe()}: value {value} is outside the range [0, {extent - 1}]")
        values[spec.node] = UOp.const(value)
    return program.substitute(values)


def _cmd_run(args: argparse.Namespace) -> int:
    """Evaluate each program; a header `# expect:` / `# expect-error:` is checked, not just shown."""
    from eqsat_uopc.ir.uir import to_uir

    cli_inputs = args.input or None
    examples = [(path, load(path)) for path in uir_files(Path(args.target))]
    if cli_inputs is not None:  # before any program runs
        for path, example in examples:
            _check_inputs(path, example.program, cli_inputs)
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
        "slot order, then once per free RANGE (the loop variable's value): --input 5 --input '[1, 2]'",
    )
    r.add_argument("--json", action="store_true", help="one JSON object per program (default: text)")
    r.set_defaults(fn=_cmd_run)
