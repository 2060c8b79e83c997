"""Lowering a program for the backend: CALLs inlined, nodes numbered, inputs listed.

The generated C is one function over flat arrays, so every CALL is inlined (beta reduction, as
`inline_call` does for `run`): a body's PARAMs are bound to the call's arguments and a nested
CALL's body keeps its own scope. What is left is a CALL-free DAG whose only free nodes are the
program's own PARAMs and RANGEs.

Every lowered node remembers the number of the original node it came from: the `%N` of the
program's .uir listing (to_uir: toposort order, constants inlined into their users), so that
comments in the C and run-time errors point at the program the user wrote, not the inlined one.

Inputs, in the order CompiledProgram takes them: one per PARAM slot 0..max slot (a slot the
program does not use takes any value and ignores it), then one i32 scalar per free RANGE, in
order of first appearance in the program's toposort. A RANGE is a loop variable with no value of
its own; compiled, it is an input that must lie in [0, extent - 1].
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat_uopc.backend.errors import UnsupportedProgramError
from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.semantics.values import describe_input

__all__ = ["InputSpec", "Lowered", "lower"]


@dataclass(frozen=True)
class InputSpec:
    """One positional input of a compiled program."""

    kind: str  # "param" or "range" or "unused" (a PARAM slot the program does not read)
    slot: int  # position among the inputs
    dtype: DType
    shape: tuple[int, ...]
    node: UOp | None  # the PARAM or RANGE node (None for an unused slot)

    def describe(self) -> str:
        if self.kind == "range":
            return f"input {self.slot} (RANGE {self.node.arg!r}): i32 scalar"
        if self.kind == "unused":
            return f"input {self.slot} (PARAM slot {self.slot}, unused): any value"
        return describe_input(self.slot, self.dtype, self.shape)  # as the interpreter names it


@dataclass(frozen=True)
class Lowered:
    """A CALL-free program: nodes in dependency order, each with its original node number."""

    root: UOp
    nodes: tuple[UOp, ...]
    number: dict[UOp, int]  # lowered node -> number of the original node it came from (-1: a CONST)
    lines: dict[int, str]  # original number -> its .uir line (`%N = op %a, 2 : key=value`)
    inputs: tuple[InputSpec, ...]
    called_from: dict[UOp, int]  # lowered node of an inlined body -> number of the CALL it came from


def _arg_text(u: UOp) -> str:
    if u.op is Ops.CONST:
        return repr(u.arg)
    if u.op is Ops.PARAM:
        a = u.arg
        return f"slot={a.slot} dtype={a.dtype.name}" + (f" shape={a.shape}" if a.shape else "")
    if u.op is Ops.CAST:
        return f"dtype={u.arg.name}"
    if u.op is Ops.REDUCE:
        return f"op={u.arg[0].name.lower()} k={u.arg[1]}"
    if u.op is Ops.CALL:
        return f"name={u.arg}"
    if u.op is Ops.RANGE:
        return f"id={u.arg!r}"
    return "" if u.arg is None else repr(u.arg)


def _line(u: UOp, number: dict[UOp, int]) -> str:
    operands = ", ".join(repr(s.arg) if s.op is Ops.CONST else f"%{number[s]}" for s in u.src)
    arg = _arg_text(u)
    text = f"%{number[u]} = {u.op.name.lower()}"
    if operands:
        text += f" {operands}"
    if arg:
        text += f" {arg}" if u.op is Ops.CONST and not operands else f" : {arg}"
    return text


def _numbering(program: UOp) -> tuple[dict[UOp, int], dict[int, str]]:
    """The .uir numbering (toposort order, constants other than the root inlined) and lines."""
    number: dict[UOp, int] = {}
    for u in program.toposort():
        if u.op is not Ops.CONST or u is program:
            number[u] = len(number)
    try:
        text = to_uir(program).splitlines()
    except ValueError:  # an identifier the text format cannot spell: describe nodes ourselves
        text = []
    if len(text) != len(number):
        text = [_line(u, number) for u in number]
    return number, dict(enumerate(text))


def lower(program: UOp) -> Lowered:
    """Inline every CALL of program, keep the original numbering, and list the inputs."""
    number, lines = _numbering(program)
    origin: dict[UOp, int] = {}
    order: list[UOp] = []
    memo: dict[tuple[int, UOp], UOp] = {}
    envs: list[dict[UOp, UOp]] = [{}]  # scope 0: the program itself, its PARAMs stay free
    call_scope: dict[tuple[int, UOp], int] = {}
    scope_call: dict[int, int] = {}  # scope -> number of the CALL that opened it
    called_from: dict[UOp, int] = {}

    def emit(new: UOp, old: UOp, scope: int) -> UOp:
        if new not in origin:
            origin[new] = number.get(old, -1)
            order.append(new)
            if scope:
                called_from[new] = scope_call[scope]
        return new

    # iterative: (node, scope, phase); a 20,000-deep chain must not hit the recursion limit
    stack: list[tuple[UOp, int, int]] = [(program, 0, 0)]
    while stack:
        u, scope, phase = stack.pop()
        key = (scope, u)
        if key in memo:
            continue
        if u.op is Ops.PARAM:
            env = envs[scope]
            memo[key] = env[u] if scope else emit(u, u, 0)
            continue
        if u.op is Ops.CALL:
            body, args = u.src[0], u.src[1:]
            if phase == 0:
                stack.append((u, scope, 1))
                stack.extend((a, scope, 0) for a in reversed(args) if (scope, a) not in memo)
            elif phase == 1:
                inner = len(envs)
                envs.append({p: memo[(scope, a)] for p, a in zip(call_params(body), args, strict=True)})
                call_scope[key] = inner
                scope_call[inner] = number[u]
                stack.append((u, scope, 2))
                stack.append((body, inner, 0))
            else:
                memo[key] = memo[(call_scope[key], body)]
            continue
        if phase == 0:
            stack.append((u, scope, 1))
            stack.extend((s, scope, 0) for s in reversed(u.src) if (scope, s) not in memo)
            continue
        src = tuple(memo[(scope, s)] for s in u.src)
        new = u if all(a is b for a, b in zip(src, u.src, strict=True)) else u.replace(src=src)
        memo[key] = emit(new, u, scope)

    root = memo[(0, program)]
    return Lowered(root, tuple(order), origin, lines, _inputs(order), called_from)


def _inputs(order: list[UOp]) -> tuple[InputSpec, ...]:
    params: dict[int, UOp] = {}
    ranges: list[UOp] = []
    for u in order:
        if u.op is Ops.PARAM:
            if (seen := params.get(u.arg.slot)) is not None:
                a, b = seen.arg, u.arg
                raise UnsupportedProgramError(
                    f"PARAM slot {a.slot} is used as {a.dtype.name} {a.shape} and as "
                    f"{b.dtype.name} {b.shape}: a program input needs one dtype and shape"
                )
            params[u.arg.slot] = u
        elif u.op is Ops.RANGE:
            ranges.append(u)
    n_slots = max(params) + 1 if params else 0
    specs = []
    for slot in range(n_slots):
        p = params.get(slot)
        if p is None:
            specs.append(InputSpec("unused", slot, dtypes.i32, (), None))
        else:
            specs.append(InputSpec("param", slot, p.arg.dtype, p.arg.shape, p))
    for k, r in enumerate(ranges):
        specs.append(InputSpec("range", n_slots + k, dtypes.i32, (), r))
    return tuple(specs)
