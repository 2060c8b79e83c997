"""tinygrad UOps <-> eqsat-uopc programs, exactly.

tinygrad writes index arithmetic in its own UOp graph: integer variables with known ranges (RANGE
loops, SPECIAL GPU indices, `UOp.variable`s), truncating and floor division, boolean AND/OR, shifts.
`from_tinygrad` turns such a graph into one of our programs, op for op where the IR has the op
and through an exact identity where it does not (a truncating division is a floor division plus a
correction, `a & b` on bools is `where(a, b, false)`, `x << 3` is `x * 8`). Every variable becomes
one i32 input whose slot is given by its name (natural order: `r2` before `r10`) and whose range
becomes the input's bounds, so the interval analysis knows it. tinygrad's index dtype (`weakint`)
and its int32 become our i32: index expressions are assumed to stay in the int32 range, as they do
once tinygrad lowers them. Any op without an exact equivalent is a `TinygradError` naming it.

`to_tinygrad` builds the tinygrad graph back (ints in tinygrad's index dtype), `tinygrad_simplify`
runs tinygrad's own symbolic simplifier on one of our programs, and `evaluate_tinygrad` evaluates
a tinygrad graph with tinygrad's own scalar ALU, which is how the round trip is checked.

tinygrad is an optional dependency (`pip install 'eqsat-uopc[tinygrad]'`); it is imported when a
function here is first called, and its absence is a `TinygradError` that says how to install it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from eqsat_uopc.corpus.sexpr import natural_key
from eqsat_uopc.errors import UserError
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError

__all__ = [
    "ALU_OP_NAMES",
    "SUPPORTED_TINYGRAD_OPS",
    "TINYGRAD_VERSION",
    "TinygradError",
    "evaluate_tinygrad",
    "from_tinygrad",
    "is_variable",
    "tinygrad_available",
    "tinygrad_ops",
    "tinygrad_simplify",
    "tinygrad_variables",
    "to_tinygrad",
]

TINYGRAD_VERSION = "0.14.0"  # the version the bridge is tested against (pyproject's extra pins it)


class TinygradError(UserError, ValueError):
    """A tinygrad graph (or one of our programs) that has no exact translation, or no tinygrad."""


def tinygrad_ops() -> Any:
    """tinygrad's `tinygrad.uop.ops` module, imported on first use; a TinygradError saying how to
    install tinygrad if it is missing."""
    try:
        import tinygrad.uop.ops as tops
    except ImportError:
        raise TinygradError(
            f"tinygrad is not installed: pip install 'eqsat-uopc[tinygrad]' (tinygrad=={TINYGRAD_VERSION})"
        ) from None
    return tops


def tinygrad_available() -> bool:
    """Whether tinygrad can be imported (the bridge's tests skip without it)."""
    try:
        tinygrad_ops()
    except TinygradError:
        return False
    return True


# tinygrad op names the bridge translates, and how (for the README and error messages)
SUPPORTED_TINYGRAD_OPS = {
    "CONST": "int, bool or float constant",
    "RANGE": "i32 input bounded by [0, end - 1]",
    "SPECIAL": "i32 input bounded by [0, end - 1]",
    "BUFFER/PARAM variable": "input bounded by the variable's [min, max]",
    "ADD MUL MAX CMPLT CMPNE WHERE FLOORDIV FLOORMOD": "the same op",
    "SUB": "a + b * -1",
    "NEG": "x * -1",
    "CMPEQ": "(a != b) != true",
    "CDIV CMOD": "floor division and modulo with the truncation correction",
    "AND OR XOR (bool)": "where(a, b, false), where(a, true, b), a != b",
    "SHL SHR (by a constant k)": "x * 2**k, x // 2**k",
    "CAST": "CAST (dropped between tinygrad's integer dtypes)",
    "RECIPROCAL EXP2 LOG2 SQRT SIN": "the same float op",
}


# our op -> the name of the tinygrad op of the same meaning: both directions of the translation
_SAME_OP = {
    Ops.ADD: "ADD",
    Ops.MUL: "MUL",
    Ops.MAX: "MAX",
    Ops.CMPLT: "CMPLT",
    Ops.CMPNE: "CMPNE",
    Ops.WHERE: "WHERE",
    Ops.FLOORDIV: "FLOORDIV",
    Ops.FLOORMOD: "FLOORMOD",
    Ops.RECIP: "RECIPROCAL",
    Ops.EXP2: "EXP2",
    Ops.LOG2: "LOG2",
    Ops.SQRT: "SQRT",
    Ops.SIN: "SIN",
}
_OURS_BY_NAME = {name: op for op, name in _SAME_OP.items()}
# the names of the tinygrad ALU ops from_tinygrad translates (CAST, a conversion, aside): the same
# op, or an exact identity over the IR's ops
ALU_OP_NAMES = frozenset(_OURS_BY_NAME) | {
    "SUB",
    "NEG",
    "CMPEQ",
    "CDIV",
    "CMOD",
    "AND",
    "OR",
    "XOR",
    "SHL",
    "SHR",
}


def is_variable(u: Any, tops: Any) -> bool:
    """Is the tinygrad UOp u a bounded variable (`Variable("i", 0, 9)`: a named PARAM with bounds)?"""
    return (
        u.op in (tops.Ops.BUFFER, tops.Ops.PARAM)
        and isinstance(u.arg, tops.ParamArg)
        and u.arg.vmin_vmax is not None
        and u.arg.name is not None
    )


def _variable_info(u: Any, tops: Any) -> tuple[str, Any, tuple[Any, Any]] | None:
    """(name, dtype, (lo, hi)) of a tinygrad leaf that is a variable, None for any other node."""
    TOps = tops.Ops
    if u.op is TOps.RANGE:
        return f"r{u.arg[0]}", u.dtype, (0, u.src[0].vmax - 1)
    if u.op is TOps.SPECIAL:
        return str(u.arg), u.dtype, (0, u.src[0].vmax - 1)
    if is_variable(u, tops):
        return u.arg.name, u.dtype, tuple(u.arg.vmin_vmax)
    return None


def tinygrad_variables(u: Any, leaves: Mapping[Any, Any] = {}) -> dict[str, tuple[Any, Any]]:
    """The variables of a tinygrad graph, {name: (lo, hi)}, in slot order (natural sort of names);
    the graph is not looked into below the nodes of `leaves`."""
    tops = tinygrad_ops()
    found: dict[str, tuple[Any, Any]] = {}
    for n in u.toposort(gate=lambda n: n not in leaves):
        if n in leaves:
            continue
        info = _variable_info(n, tops)
        if info is not None:
            name, _, bounds = info
            if found.setdefault(name, bounds) != bounds:
                raise TinygradError(f"variable {name!r} appears with two ranges: {found[name]} and {bounds}")
    return {k: found[k] for k in sorted(found, key=natural_key)}


def _our_dtype(dt: Any, tops: Any, what: str) -> Any:
    from tinygrad.dtype import dtypes as tdt

    if dt == tdt.bool:
        return dtypes.bool
    if dt in (tdt.weakint, tdt.int32):
        return dtypes.i32
    if dt in (tdt.float32, tdt.weakfloat):
        return dtypes.f32
    raise TinygradError(f"from_tinygrad: {what} has dtype {dt}, which has no eqsat-uopc equivalent")


def _bounds(lo: Any, hi: Any, name: str) -> tuple[int, int]:
    lo, hi = max(int(lo), I32_MIN), min(int(hi), I32_MAX)
    if lo > hi:
        raise TinygradError(f"from_tinygrad: variable {name!r} has an empty range [{lo}, {hi}]")
    return lo, hi


def from_tinygrad(
    u: Any, slots: Mapping[str, int] | None = None, *, leaves: Mapping[Any, UOp] | None = None
) -> UOp:
    """The eqsat-uopc program of a tinygrad UOp graph of index arithmetic or elementwise math.

    `slots` maps variable names to input slots (default: the natural order of the names, as
    `tinygrad_variables` lists them); pass the original's when translating a simplified graph back,
    so that the same variable keeps the same slot. `leaves` maps tinygrad nodes to the programs
    that stand for them, taken as given and not looked into (a kernel's loads and loop variables,
    as `tinygrad.kernel` translates them).
    """
    tops = tinygrad_ops()
    TOps = tops.Ops
    memo: dict[Any, UOp] = dict(leaves or {})
    if slots is None:
        slots = {name: k for k, name in enumerate(tinygrad_variables(u, memo))}
    for n in u.toposort(gate=lambda n: n not in memo):
        if n in memo:
            continue
        where = f"{n.op} ({n.dtype})"
        if n.op is TOps.STACK and not n.src and n.dtype == tops.dtypes.void:
            continue  # the empty shape argument of a variable's BUFFER
        try:
            memo[n] = _from_node(n, [memo[s] for s in n.src if s in memo], tops, TOps, slots, where)
        except UOpError as e:
            raise TinygradError(f"from_tinygrad: {where}: {e}") from None
    return memo[u]


def _from_node(n: Any, s: list[UOp], tops: Any, TOps: Any, slots: Mapping[str, int], where: str) -> UOp:
    info = _variable_info(n, tops)
    if info is not None:
        name, dt, (lo, hi) = info
        if name not in slots:
            raise TinygradError(f"from_tinygrad: variable {name!r} has no slot (slots: {sorted(slots)})")
        ours = _our_dtype(dt, tops, f"variable {name!r}")
        bounds = _bounds(lo, hi, name) if ours is dtypes.i32 else None
        if bounds == (I32_MIN, I32_MAX):  # no bounds beyond the dtype's: an unbounded input
            bounds = None
        return UOp.param(slots[name], ours, bounds=bounds)
    if n.op is TOps.CONST:
        ours = _our_dtype(n.dtype, tops, "a CONST")
        v = n.arg
        if ours is dtypes.i32:
            if not isinstance(v, int) or not I32_MIN <= v <= I32_MAX:
                raise TinygradError(f"from_tinygrad: constant {v!r} is not an int32")
            return UOp.const(int(v), dtypes.i32)
        return UOp.const(bool(v) if ours is dtypes.bool else float(v), ours)
    if (same := _OURS_BY_NAME.get(n.op.name)) is not None:
        return UOp(same, tuple(s))
    if n.op is TOps.SUB:
        return s[0] + s[1] * s[1].const_like(-1)
    if n.op is TOps.NEG:
        return s[0] * s[0].const_like(-1)
    if n.op is TOps.CMPEQ:
        return s[0].ne(s[1]).ne(True)
    if n.op in (TOps.CDIV, TOps.CMOD):
        return _truncating(n.op is TOps.CDIV, s[0], s[1])
    if n.op in (TOps.AND, TOps.OR, TOps.XOR):
        if s[0].dtype is not dtypes.bool:
            raise TinygradError(f"from_tinygrad: {n.op} on {n.dtype} is not supported (only on bools)")
        if n.op is TOps.AND:
            return s[0].where(s[1], False)
        return s[0].where(True, s[1]) if n.op is TOps.OR else s[0].ne(s[1])
    if n.op in (TOps.SHL, TOps.SHR):
        k = n.src[1]
        if k.op is not TOps.CONST or not isinstance(k.arg, int) or not 0 <= k.arg < 31:
            raise TinygradError(
                f"from_tinygrad: {n.op} by {k.op} is not supported (only by a constant 0..30)"
            )
        return s[0] * (1 << k.arg) if n.op is TOps.SHL else s[0] // (1 << k.arg)
    if n.op is TOps.CAST:
        ours = _our_dtype(n.dtype, tops, "a CAST")
        return s[0] if ours is s[0].dtype else s[0].cast(ours)
    raise TinygradError(
        f"from_tinygrad: {where} is not supported; the bridge translates {', '.join(SUPPORTED_TINYGRAD_OPS)}"
    )


def _truncating(division: bool, a: UOp, b: UOp) -> UOp:
    """C's truncating a / b or a % b from floor ops: they differ by one step exactly when the floor
    remainder is nonzero and a and b have opposite signs."""
    q, r = a // b, a % b
    if b.op is Ops.CONST and b.arg > 0:
        opposite = a < 0
    else:
        opposite = (a < 0).ne(b < 0)
    fix = r.ne(0).where(opposite, False)
    return fix.where(q + 1, q) if division else fix.where(r - b, r)


def to_tinygrad(
    program: UOp,
    names: Sequence[str] | None = None,
    *,
    leaves: Mapping[int, Any] | None = None,
    int_dtype: Any = None,
) -> Any:
    """The tinygrad UOp graph of a scalar program (ints in tinygrad's index dtype, or `int_dtype`).

    Input slot k becomes the tinygrad node `leaves[k]` when given (a kernel's own loop variable or
    load), else a tinygrad variable named `names[k]` (default `v{k}`) with the input's bounds (the
    int32 range when it has none); a RANGE becomes a variable over [0, extent - 1].
    """
    tops = tinygrad_ops()
    from tinygrad.dtype import dtypes as tdt

    TUOp, TOps = tops.UOp, tops.Ops
    tdtype = {dtypes.i32: tdt.weakint if int_dtype is None else int_dtype, dtypes.bool: tdt.bool}
    tdtype[dtypes.f32] = tdt.float32
    leaves = leaves or {}
    memo: dict[UOp, Any] = {}
    for n in program.toposort():
        if n.shape != () and n.op is not Ops.CONST:
            raise TinygradError(
                f"to_tinygrad: {n.op.name} has shape {n.shape}; only scalar programs translate"
            )
        s = [memo[x] for x in n.src]
        if n.op is Ops.CONST:
            if n.shape != ():
                raise TinygradError(f"to_tinygrad: a constant of shape {n.shape}; only scalars translate")
            memo[n] = TUOp.const(n.arg, tdtype[n.dtype])
        elif n.op is Ops.PARAM and n.arg.slot in leaves:
            memo[n] = leaves[n.arg.slot]
        elif n.op is Ops.PARAM:
            slot = n.arg.slot
            name = names[slot] if names is not None else f"v{slot}"
            if n.dtype is dtypes.i32:
                lo, hi = n.arg.bounds if n.arg.bounds is not None else (I32_MIN, I32_MAX)
            else:
                lo, hi = (False, True) if n.dtype is dtypes.bool else (-math.inf, math.inf)
            memo[n] = TUOp.variable(name, lo, hi, dtype=tdtype[n.dtype])
        elif n.op is Ops.RANGE:
            if n.src[0].op is not Ops.CONST:
                raise TinygradError("to_tinygrad: a RANGE with a non-constant extent")
            memo[n] = TUOp.variable(f"r{'_'.join(map(str, _flat(n.arg)))}", 0, n.src[0].arg - 1)
        elif n.op is Ops.CAST:
            memo[n] = s[0].cast(tdtype[n.dtype])
        elif n.op in _SAME_OP:
            memo[n] = s[0].alu(getattr(TOps, _SAME_OP[n.op]), *s[1:])
        else:
            raise TinygradError(f"to_tinygrad: {n.op.name} has no tinygrad equivalent in the bridge")
    return memo[program]


def _flat(ident: Any) -> tuple:
    return tuple(ident) if isinstance(ident, tuple) else (ident,)


def tinygrad_simplify(program: UOp, names: Sequence[str] | None = None) -> UOp:
    """tinygrad's symbolic simplifier (`UOp.simplify`) on our program, translated back.

    Inputs keep their slots; the result is an eqsat-uopc program comparable node for node.
    """
    if names is None:
        names = [f"v{k}" for k in range(_max_slot(program) + 1)]
    simplified = to_tinygrad(program, names).simplify()
    return from_tinygrad(simplified, {name: k for k, name in enumerate(names)})


def _max_slot(program: UOp) -> int:
    return max((n.arg.slot for n in program.toposort() if n.op is Ops.PARAM), default=-1)


def evaluate_tinygrad(u: Any, values: Mapping[str, Any]) -> Any:
    """The value of a tinygrad graph with its variables bound by name, by tinygrad's own `exec_alu`."""
    tops = tinygrad_ops()
    TOps = tops.Ops
    memo: dict[Any, Any] = {}
    for n in u.toposort():
        if n.op is TOps.STACK and not n.src:
            continue
        info = _variable_info(n, tops)
        if info is not None:
            if info[0] not in values:
                raise TinygradError(f"evaluate_tinygrad: no value for variable {info[0]!r}")
            memo[n] = values[info[0]]
        elif n.op is TOps.CONST:
            memo[n] = n.arg
        elif n.op is TOps.CAST:
            memo[n] = _cast_value(memo[n.src[0]], n.dtype)
        else:
            memo[n] = tops.exec_alu(n.op, n.dtype, tuple(memo[s] for s in n.src))
    return memo[u]


def _cast_value(v: Any, dt: Any) -> Any:
    """A scalar converted as tinygrad's CAST converts it (to bool: nonzero; to int: truncation)."""
    from tinygrad.dtype import dtypes as tdt
    from tinygrad.dtype import truncate

    if dt == tdt.bool:
        return bool(v)
    v = math.trunc(v) if dt in (tdt.weakint, tdt.int32) else float(v)
    return truncate.get(dt, lambda x: x)(v)
