"""The three scalar types of the IR and the one function that says what a value of each type can be.

`truncate` is the representation contract every layer shares: the interpreter, the saturation
engine's constant folder and the C backend all store an i32 as a wrapped two's-complement int, an
f32 as the double nearest to its 32-bit value, and a bool as a Python bool.

    >>> from eqsat_uopc.ir.dtype import dtypes, truncate
    >>> truncate(dtypes.i32, 2**31), truncate(dtypes.f32, 0.1), truncate(dtypes.bool, 3)
    (-2147483648, 0.10000000149011612, True)
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

__all__ = ["I32_MAX", "I32_MIN", "DType", "dtypes", "f32_bits", "f32_from_bits", "truncate"]

I32_MIN, I32_MAX = -(2**31), 2**31 - 1  # the int32 range


@dataclass(frozen=True, eq=False)
class DType:
    """A scalar type. There is exactly one object per type, so `is` compares types."""

    name: str
    itemsize: int
    ctype: str

    @property
    def is_float(self) -> bool:
        return self.name == "f32"

    @property
    def is_int(self) -> bool:
        return self.name == "i32"

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    def __repr__(self) -> str:
        return f"dtypes.{self.name}"

    def __reduce__(self):
        return (dtypes.by_name, (self.name,))


class dtypes:
    """The dtype namespace: `dtypes.bool`, `dtypes.i32`, `dtypes.f32`, and their ranges."""

    bool = DType("bool", 1, "bool")
    i32 = DType("i32", 4, "int32_t")
    f32 = DType("f32", 4, "float")
    all: tuple[DType, ...] = (bool, i32, f32)

    @staticmethod
    def by_name(name: str) -> DType:
        for d in dtypes.all:
            if d.name == name:
                return d
        raise ValueError(f"unknown dtype {name!r} (expected one of bool, i32, f32)")

    @staticmethod
    def min(d: DType):
        if d is dtypes.bool:
            return False
        if d is dtypes.i32:
            return I32_MIN
        return -math.inf

    @staticmethod
    def max(d: DType):
        if d is dtypes.bool:
            return True
        if d is dtypes.i32:
            return I32_MAX
        return math.inf

    @staticmethod
    def of(value) -> DType:
        """The dtype a Python scalar denotes: bool -> bool, int -> i32, float -> f32."""
        if isinstance(value, bool):
            return dtypes.bool
        if isinstance(value, int):
            return dtypes.i32
        if isinstance(value, float):
            return dtypes.f32
        raise TypeError(f"no dtype for a constant of type {type(value).__name__}: {value!r}")


def f32_bits(v: float) -> int:
    """The 32-bit pattern of v rounded to f32 (round to nearest even; overflow gives inf)."""
    try:
        return struct.unpack("<I", struct.pack("<f", v))[0]
    except OverflowError:  # struct refuses finite doubles beyond f32 range; IEEE rounds them to inf
        return 0x7F800000 if v > 0 else 0xFF800000


def f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def truncate(dtype: DType, v):
    """v as a value of dtype: i32 wraps (two's complement), f32 rounds to nearest even, bool is bool."""
    if dtype is dtypes.bool:
        return bool(v)
    if dtype is dtypes.i32:
        return ((int(v) + 2**31) & 0xFFFFFFFF) - 2**31
    if dtype is dtypes.f32:
        try:
            v = float(v)
        except OverflowError:  # an int beyond the double range: IEEE rounds it to an infinity
            return math.inf if v > 0 else -math.inf
        if math.isnan(v):
            return math.nan
        return f32_from_bits(f32_bits(v))
    raise TypeError(f"truncate: not a dtype: {dtype!r}")
