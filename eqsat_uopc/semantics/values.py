"""Python values <-> literal programs, and binding a program's inputs.

A fully known value of the IR is a literal: a CONST (scalar) or a STACK tree of CONSTs (tensor).
Binding a program's PARAMs to literals turns it into a closed program that `run` evaluates, which
is how the interpreter is used as an oracle against the C backend and saturation.

A bounded input (`ParamArg.bounds`) given a value outside its bounds is refused here, by
`evaluate` and by the C backend alike: the same InputError with the same message
(`describe_input` and `check_bounds` are the one wording of it). A value of the wrong type or
shape (`True` for an i32, `2.5` for an i32, `1` for a bool, a list of another length) is refused
as the C backend refuses it; `value_mismatch` says why.
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
    "value_mismatch",
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


_KINDS = {bool: "a bool", int: "an int", float: "a float", str: "a string", type(None): "null"}


def _kind(value: Any) -> str:
    if isinstance(value, list | tuple):
        return f"a list of length {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return _KINDS.get(type(value), f"a {type(value).__name__}")


def value_mismatch(dtype: DType, shape: tuple[int, ...], value: Any, at: str = "") -> str | None:
    """Why value cannot be an input of dtype and shape, None if it can: what it is instead (`a
    bool`, `a float`, `an int` for a bool, `a list of length 3` for shape (2,), `element [1] is a
    bool`, `outside the int32 range`). A bool is no i32 and an int no bool (Python's bool is an int,
    the IR's are not); an f32 takes an int or a float. As the C backend checks its inputs.

    >>> i32, boolean, f32 = dtypes.i32, dtypes.bool, dtypes.f32
    >>> value_mismatch(i32, (), True), value_mismatch(boolean, (), 1), value_mismatch(f32, (), 2)
    ('a bool', 'an int', None)
    >>> value_mismatch(i32, (2,), [1, 2, 3]), value_mismatch(i32, (2,), [1, 2.5])
    ('a list of length 3', 'element [1] is a float')
    """
    if hasattr(value, "tolist"):
        value = value.tolist()
    where = f"element {at} is " if at else ""
    if shape:
        if not isinstance(value, list | tuple) or len(value) != shape[0]:
            return where + _kind(value)
        for k, v in enumerate(value):
            if (why := value_mismatch(dtype, shape[1:], v, f"{at}[{k}]")) is not None:
                return why
        return None
    if dtype is dtypes.bool:
        ok = isinstance(value, bool)
    elif dtype is dtypes.i32:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and truncate(dtype, value) != value:
            return f"{where}{value}, outside the int32 range"
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    return None if ok else where + _kind(value)


def literal(value: Any, dtype: DType, shape: tuple[int, ...] = ()) -> UOp:
    """The CONST/STACK tree holding value (a scalar, or nested lists / a numpy array of shape); a
    value of another type or shape is a UOpError saying what it is (value_mismatch)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if (why := value_mismatch(dtype, shape, value)) is not None:
        kind = "scalar" if not shape else f"shape {shape}"
        raise UOpError(f"expected {dtype.name} {kind}, got {value!r}: {why}")
    return _literal(value, dtype, shape)


def _literal(value: Any, dtype: DType, shape: tuple[int, ...]) -> UOp:
    if not shape:
        return UOp.const(value, dtype)
    return UOp(Ops.STACK, tuple(_literal(v, dtype, shape[1:]) for v in value))


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
