"""dtypes and truncate: the value representation every layer shares (int32 wrap, f32 rounding)."""

from __future__ import annotations

import math
import pickle
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.ir.dtype import DType, dtypes, f32_bits, f32_from_bits, truncate
from tests.strategies import scalars


def test_the_three_dtypes():
    assert dtypes.all == (dtypes.bool, dtypes.i32, dtypes.f32)
    assert [d.name for d in dtypes.all] == ["bool", "i32", "f32"]
    assert [(d.is_bool, d.is_int, d.is_float) for d in dtypes.all] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]
    assert [d.itemsize for d in dtypes.all] == [1, 4, 4]
    assert [d.ctype for d in dtypes.all] == ["bool", "int32_t", "float"]
    assert repr(dtypes.f32) == "dtypes.f32"
    assert all(isinstance(d, DType) for d in dtypes.all)


def test_dtype_identity_survives_pickle_and_lookup():
    for d in dtypes.all:
        assert pickle.loads(pickle.dumps(d)) is d
        assert dtypes.by_name(d.name) is d
    with pytest.raises(ValueError) as e:
        dtypes.by_name("float")
    assert str(e.value) == "unknown dtype 'float' (expected one of bool, i32, f32)"


def test_min_max():
    assert (dtypes.min(dtypes.bool), dtypes.max(dtypes.bool)) == (False, True)
    assert (dtypes.min(dtypes.i32), dtypes.max(dtypes.i32)) == (-2147483648, 2147483647)
    assert (dtypes.min(dtypes.f32), dtypes.max(dtypes.f32)) == (-math.inf, math.inf)


def test_dtype_of_python_scalars():
    assert dtypes.of(True) is dtypes.bool
    assert dtypes.of(0) is dtypes.i32
    assert dtypes.of(-0.0) is dtypes.f32
    with pytest.raises(TypeError) as e:
        dtypes.of("1")
    assert str(e.value) == "no dtype for a constant of type str: '1'"


@pytest.mark.parametrize(
    ("v", "want"),
    [
        (2**31 - 1, 2**31 - 1),
        (2**31, -(2**31)),
        (-(2**31) - 1, 2**31 - 1),
        (2**32, 0),
        (2**32 + 5, 5),
        (-1, -1),
        (3**32, -501334399),
        (2.9, 2),  # a float is truncated toward zero, as C's (int) does
        (-2.9, -2),
        (True, 1),
    ],
)
def test_truncate_i32_wraps(v, want):
    got = truncate(dtypes.i32, v)
    assert got == want and type(got) is int


@pytest.mark.parametrize(
    ("v", "want"),
    [
        (16777217.0, 16777216.0),  # halfway: ties to even
        (16777219.0, 16777220.0),
        (16777217, 16777216.0),
        (0.1, 0.10000000149011612),
        (1e300, math.inf),  # beyond f32: IEEE rounds to infinity
        (-1e300, -math.inf),
        (3.4028235677973366e38, math.inf),  # exactly halfway between f32 max and 2**128: to even, inf
        (3.4028235e38, 3.4028234663852886e38),  # rounds down to f32 max
        (2**2000, math.inf),  # an int beyond the double range
        (-(2**2000), -math.inf),
        (1e-46, 0.0),  # below half the smallest subnormal
        (1e-45, f32_from_bits(1)),  # rounds to the smallest subnormal
        (3, 3.0),
        (True, 1.0),
    ],
)
def test_truncate_f32_rounds_to_nearest_even(v, want):
    got = truncate(dtypes.f32, v)
    assert got == want and type(got) is float


def test_truncate_f32_keeps_signed_zero_and_nan():
    assert math.copysign(1, truncate(dtypes.f32, -0.0)) == -1
    assert math.copysign(1, truncate(dtypes.f32, -1e-46)) == -1  # underflow keeps the sign
    neg_nan = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000001))[0]
    assert truncate(dtypes.f32, neg_nan) is math.nan  # one NaN, whatever the payload
    assert truncate(dtypes.f32, math.inf) == math.inf


def test_truncate_bool():
    assert [truncate(dtypes.bool, v) for v in (0, 1, 2, -0.0, 0.5, math.nan, False)] == [
        False,
        True,
        True,
        False,
        True,
        True,
        False,
    ]


def test_truncate_needs_a_dtype():
    with pytest.raises(TypeError) as e:
        truncate("i32", 1)
    assert str(e.value) == "truncate: not a dtype: 'i32'"


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_truncate_f32_agrees_with_numpy(v: float):
    with np.errstate(over="ignore"):
        want = float(np.float64(v).astype(np.float32))
    got = truncate(dtypes.f32, v)
    if math.isnan(want):
        assert got is math.nan
    else:
        assert struct.pack("<d", got) == struct.pack("<d", want)
    assert truncate(dtypes.f32, got) == got or math.isnan(got)  # idempotent


@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1))
def test_truncate_i32_agrees_with_numpy(v: int):
    assert truncate(dtypes.i32, v) == int(np.int64(v).astype(np.int32))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_f32_bits_round_trip(bits: int):
    v = f32_from_bits(bits)
    if math.isnan(v):
        assert f32_bits(v) & 0x7F800000 == 0x7F800000
    else:
        assert f32_bits(v) == bits
        assert truncate(dtypes.f32, v) == v


def test_f32_bits_of_specials():
    assert f32_bits(-0.0) == 0x80000000
    assert f32_bits(math.inf) == 0x7F800000
    assert f32_bits(1e300) == 0x7F800000
    assert f32_bits(-1e300) == 0xFF800000
    assert f32_from_bits(0x3F800000) == 1.0


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_scalars_strategy_is_in_the_truncate_representation(data):
    for d in dtypes.all:
        v = data.draw(scalars(d))
        assert type(v) is {dtypes.bool: bool, dtypes.i32: int, dtypes.f32: float}[d]
        t = truncate(d, v)
        assert t is v or t == v
