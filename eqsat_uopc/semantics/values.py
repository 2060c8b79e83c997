"""Python values <-> literal programs, and binding a program's inputs.

A fully known value of the IR is a literal: a CONST (scalar) or a STACK tree of CONSTs (tensor).
Binding a program's PARAMs to literals turns it into a closed program that `run` evaluates, which
is how the interpreter is used as an oracle against the C backend and saturation.

A bounded input (`ParamArg.bounds`) given a value outside its bounds is refused here, by
`evaluate` and by the C backend alike: the same InputError with the same message
(`describe_input` and `check_bounds` are the one wording of it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from eqsat_uopc.errors import InputError
from eqsat_uopc.ir.dtype import DType, dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import ParamArg, UOp, UOpError, call_params

__all__ = [
    "bind_params",
    "bounded_int",
    "check_bounds",
    "describe_input",
    "literal",
    "random_value",
    "same_value",
]


def describe_input(slot: int, dtype: DType, shape: tuple[int, ...]) -> str:
    """How errors name a PARAM input: `input 0 (PARAM slot 0): i32 scalar` (inputs are positional,
    one per slot, so the input's position is its slot)."""
    kind = "scalar" if not shape else f"shape {shape}"
    return f"input {slot} (PARAM slot {slot}): {dtype.name} {kind}"


def check_bounds(arg: ParamArg, flat: list[int]) -> None:
    """Refuse (InputError) values of a bounded input outside its bounds, naming the smallest value
    if it is below them, else the largest."""
    if arg.bounds is None or not flat:
        return
    (lo, hi), least, most = arg.bounds, min(flat), max(flat)
    if least < lo or most > hi:
        where = describe_input(arg.slot, arg.dtype, arg.shape)
        bad = least if least < lo else most
        raise InputError(f"{where}: value {bad} is outside the input's bounds [{lo}, {hi}]")


def literal(value: Any, dtype: DType, shape: tuple[int, ...] = ()) -> UOp:
    """The CONST/STACK tree holding value (a scalar, or nested lists / a numpy array of shape)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not shape:
        if isinstance(value, list | tuple):
            raise UOpError(f"expected a {dtype.name} scalar, got a sequence of length {len(value)}")
        if dtype is dtypes.f32 and not isinstance(value, int | float):
            raise UOpError(f"expected an f32 scalar, got {type(value).__name__} {value!r}")
        if dtype is not dtypes.f32 and not isinstance(value, int):  # bool is an int subclass
            raise UOpError(f"expected an {dtype.name} scalar, got {type(value).__name__} {value!r}")
        if dtype is dtypes.i32 and not isinstance(value, bool) and truncate(dtype, value) != value:
            raise UOpError(f"{value} is outside the int32 range")
        return UOp.const(value, dtype)
    if not isinstance(value, list | tuple) or len(value) != shape[0]:
        got = f"length {len(value)}" if isinstance(value, list | tuple) else type(value).__name__
        raise UOpError(f"expected a sequence of length {shape[0]} (shape {shape}), got {got}")
    return UOp(Ops.STACK, tuple(literal(v, dtype, shape[1:]) for v in value))


def bind_params(program: UOp, values: Mapping[int, Any]) -> UOp:
    """program with each free PARAM (by slot) replaced by the literal of its value; a value outside
    a bounded input's bounds is an InputError (check_bounds), as the C backend says it."""
    params = call_params(program)
    missing = [p.arg.slot for p in params if p.arg.slot not in values]
    if missing:
        raise UOpError(f"no value for PARAM slot{'s' if len(missing) > 1 else ''} {missing}")
    bound = {}
    for p in params:
        try:
            bound[p] = literal(values[p.arg.slot], p.dtype, p.shape)
        except UOpError as e:
            raise UOpError(f"PARAM slot {p.arg.slot}: {e}") from None
        if p.arg.bounds is not None:
            check_bounds(p.arg, [u.arg for u in bound[p].toposort() if u.op is Ops.CONST])
    return program.substitute(bound)


def random_value(
    rng: Any, dtype: DType, shape: tuple[int, ...] = (), bounds: tuple[int, int] | None = None
) -> Any:
    """A random value of dtype and shape from a random.Random, biased towards edge cases (for a
    bounded i32 input, inside its bounds: `bounded_int`)."""
    if shape:
        return [random_value(rng, dtype, shape[1:], bounds) for _ in range(shape[0])]
    if dtype is dtypes.bool:
        return rng.random() < 0.5
    if dtype is dtypes.i32 and bounds is not None:
        return bounded_int(rng, bounds)
    if dtype is dtypes.i32:
        pick = rng.random()
        if pick < 0.15:
            return rng.choice([0, 1, -1, 2, -2, 2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1])
        if pick < 0.6:
            return rng.randint(-64, 64)
        return rng.randint(-(2**31), 2**31 - 1)
    pick = rng.random()
    if pick < 0.15:
        return rng.choice([0.0, -0.0, 1.0, -1.0, float("inf"), float("-inf"), float("nan"), 1e-45, 3.4e38])
    return truncate(dtypes.f32, rng.uniform(-100.0, 100.0) if pick < 0.8 else rng.uniform(-1e30, 1e30))


def bounded_int(rng: Any, bounds: tuple[int, int]) -> int:
    """A random int in [lo, hi], biased towards its ends (where off-by-one bugs live)."""
    lo, hi = bounds
    if rng.random() < 0.3:
        return rng.choice((lo, hi, min(lo + 1, hi), max(hi - 1, lo), (lo + hi) // 2))
    return rng.randint(lo, hi)


def same_value(a: Any, b: Any) -> bool:
    """Exact agreement of two values: same types, floats bit for bit, except that NaN equals NaN."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(same_value, a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b
