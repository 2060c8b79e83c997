"""exec_alu, the reference semantics, edge by edge: what C computes, or None where C is undefined."""

from __future__ import annotations

import math

import pytest

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.values import same_value as same

I32, F32, BOOL = dtypes.i32, dtypes.f32, dtypes.bool
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
inf, nan = math.inf, math.nan


@pytest.mark.parametrize(
    ("op", "vals", "want"),
    [
        (Ops.ADD, [INT_MAX, 1], INT_MIN),
        (Ops.ADD, [INT_MIN, -1], INT_MAX),
        (Ops.ADD, [INT_MIN, INT_MIN], 0),
        (Ops.MUL, [2**16, 2**16], 0),
        (Ops.MUL, [2**30, 2], INT_MIN),
        (Ops.MUL, [INT_MIN, -1], INT_MIN),
        (Ops.MUL, [65537, 65537], 131073),
        (Ops.MAX, [INT_MIN, INT_MAX], INT_MAX),
        (Ops.FLOORDIV, [7, 2], 3),
        (Ops.FLOORDIV, [-7, 2], -4),
        (Ops.FLOORDIV, [7, -2], -4),
        (Ops.FLOORDIV, [-7, -2], 3),
        (Ops.FLOORDIV, [INT_MIN, 1], INT_MIN),
        (Ops.FLOORDIV, [INT_MIN, 2], -(2**30)),
        (Ops.FLOORMOD, [7, 2], 1),
        (Ops.FLOORMOD, [-7, 2], 1),
        (Ops.FLOORMOD, [7, -2], -1),
        (Ops.FLOORMOD, [-7, -2], -1),
        (Ops.FLOORMOD, [1, -8], -7),
        (Ops.FLOORMOD, [INT_MIN, -1], 0),  # floor mod is 0 here; only the quotient overflows
        (Ops.FLOORMOD, [INT_MIN, 3], 1),
        (Ops.WHERE, [True, 1, 2], 1),
        (Ops.WHERE, [False, 1, 2], 2),
    ],
)
def test_int32_ops(op, vals, want):
    assert same(exec_alu(op, I32, vals), want)


@pytest.mark.parametrize(
    ("op", "vals"),
    [(Ops.FLOORDIV, [1, 0]), (Ops.FLOORDIV, [0, 0]), (Ops.FLOORDIV, [INT_MIN, -1]), (Ops.FLOORMOD, [1, 0])],
)
def test_undefined_int_ops_are_refused(op, vals):
    assert exec_alu(op, I32, vals) is None


def test_comparisons_give_bools():
    assert exec_alu(Ops.CMPLT, BOOL, [-1, 0]) is True
    assert exec_alu(Ops.CMPLT, BOOL, [0, 0]) is False
    assert exec_alu(Ops.CMPNE, BOOL, [INT_MIN, INT_MAX]) is True
    assert exec_alu(Ops.CMPLT, BOOL, [False, True]) is True
    assert exec_alu(Ops.CMPNE, BOOL, [True, True]) is False


def test_bool_arithmetic_is_or_and():
    assert exec_alu(Ops.ADD, BOOL, [True, True]) is True
    assert exec_alu(Ops.ADD, BOOL, [False, False]) is False
    assert exec_alu(Ops.MUL, BOOL, [True, False]) is False
    assert exec_alu(Ops.MAX, BOOL, [False, True]) is True


def test_f32_results_are_rounded():
    assert same(exec_alu(Ops.ADD, F32, [16777216.0, 1.0]), 16777216.0)
    assert same(exec_alu(Ops.ADD, F32, [0.1, 0.2]), 0.30000001192092896)
    assert same(exec_alu(Ops.MUL, F32, [3.0e38, 10.0]), inf)
    assert same(exec_alu(Ops.MUL, F32, [-3.0e38, 10.0]), -inf)
    assert same(exec_alu(Ops.MUL, F32, [1e-30, 1e-30]), 0.0)
    assert same(exec_alu(Ops.MUL, F32, [-1e-30, 1e-30]), -0.0)
    assert same(exec_alu(Ops.RECIP, F32, [3.0]), 0.3333333432674408)


def test_f32_inputs_are_rounded_by_their_own_dtype():
    # a CONST f32 may hold a double; C rounds it when it parses the literal, whatever the result type
    assert exec_alu(Ops.CMPNE, BOOL, [16777217.0, 16777216.0]) is False
    assert exec_alu(Ops.CMPLT, BOOL, [16777216.0, 16777217.0]) is False
    assert same(exec_alu(Ops.ADD, F32, [16777217.0, 0.0]), 16777216.0)
    assert exec_alu(Ops.CAST, I32, [16777217.0]) == 16777216
    assert exec_alu(Ops.CMPNE, BOOL, [0.1, 0.10000000149011612]) is False
    assert same(exec_alu(Ops.WHERE, F32, [True, 16777217.0, 0.0]), 16777216.0)


def test_chapter_rounding_defect():
    # Deviation from the chapter: its exec_alu rounded f32 inputs only when the *result* was float,
    # so this comparison was True there (and False in C).
    def chapter_cmpne(a, b):
        return a != b  # the chapter: no rounding for a bool result

    assert chapter_cmpne(16777217.0, 16777216.0) is True
    assert exec_alu(Ops.CMPNE, BOOL, [16777217.0, 16777216.0]) is False


def test_negative_zero():
    assert same(exec_alu(Ops.ADD, F32, [-0.0, 0.0]), 0.0)
    assert same(exec_alu(Ops.ADD, F32, [-0.0, -0.0]), -0.0)
    assert same(exec_alu(Ops.MUL, F32, [-1.0, 0.0]), -0.0)
    assert same(exec_alu(Ops.MAX, F32, [-0.0, 0.0]), -0.0)  # b if b > a else a
    assert same(exec_alu(Ops.MAX, F32, [0.0, -0.0]), 0.0)
    assert exec_alu(Ops.CMPLT, BOOL, [-0.0, 0.0]) is False
    assert exec_alu(Ops.CMPNE, BOOL, [-0.0, 0.0]) is False
    assert same(exec_alu(Ops.RECIP, F32, [-0.0]), -inf)
    assert same(exec_alu(Ops.RECIP, F32, [0.0]), inf)
    assert same(exec_alu(Ops.SQRT, F32, [-0.0]), -0.0)
    assert same(exec_alu(Ops.SIN, F32, [-0.0]), -0.0)
    assert same(exec_alu(Ops.LOG2, F32, [-0.0]), -inf)
    assert same(exec_alu(Ops.EXP2, F32, [-0.0]), 1.0)
    assert exec_alu(Ops.CAST, I32, [-0.0]) == 0
    assert exec_alu(Ops.CAST, BOOL, [-0.0]) is False
    assert same(exec_alu(Ops.CAST, F32, [-0.0]), -0.0)
    assert same(exec_alu(Ops.WHERE, F32, [True, -0.0, 0.0]), -0.0)


@pytest.mark.parametrize(
    ("op", "vals", "want"),
    [
        (Ops.ADD, [nan, 1.0], nan),
        (Ops.ADD, [inf, -inf], nan),
        (Ops.ADD, [inf, 1.0], inf),
        (Ops.MUL, [inf, 0.0], nan),
        (Ops.MUL, [0.0, -inf], nan),
        (Ops.MUL, [nan, 0.0], nan),
        (Ops.MUL, [inf, -2.0], -inf),
        (Ops.MAX, [nan, 1.0], nan),  # b if b > a else a: the first NaN sticks
        (Ops.MAX, [1.0, nan], 1.0),
        (Ops.MAX, [-inf, inf], inf),
        (Ops.WHERE, [True, nan, 1.0], nan),
        (Ops.RECIP, [inf], 0.0),
        (Ops.RECIP, [-inf], -0.0),
        (Ops.RECIP, [nan], nan),
        (Ops.RECIP, [1e-45], inf),
        (Ops.EXP2, [nan], nan),
        (Ops.EXP2, [inf], inf),
        (Ops.EXP2, [-inf], 0.0),
        (Ops.EXP2, [1024.0], inf),
        (Ops.EXP2, [200.0], inf),  # finite double, beyond f32
        (Ops.EXP2, [127.0], 2.0**127),
        (Ops.EXP2, [-200.0], 0.0),
        (Ops.EXP2, [-149.0], 2.0**-149),  # the smallest subnormal
        (Ops.LOG2, [0.0], -inf),
        (Ops.LOG2, [-1.0], nan),
        (Ops.LOG2, [-inf], nan),
        (Ops.LOG2, [inf], inf),
        (Ops.LOG2, [nan], nan),
        (Ops.LOG2, [8.0], 3.0),
        (Ops.SQRT, [-1.0], nan),
        (Ops.SQRT, [-inf], nan),
        (Ops.SQRT, [inf], inf),
        (Ops.SQRT, [nan], nan),
        (Ops.SQRT, [2.0], 1.4142135381698608),
        (Ops.SIN, [inf], nan),
        (Ops.SIN, [-inf], nan),
        (Ops.SIN, [nan], nan),
    ],
)
def test_nan_and_inf_through_float_ops(op, vals, want):
    assert same(exec_alu(op, F32, vals), want)


def test_comparisons_with_nan():
    assert exec_alu(Ops.CMPLT, BOOL, [nan, 1.0]) is False
    assert exec_alu(Ops.CMPLT, BOOL, [1.0, nan]) is False
    assert exec_alu(Ops.CMPLT, BOOL, [nan, nan]) is False
    assert exec_alu(Ops.CMPNE, BOOL, [nan, nan]) is True
    assert exec_alu(Ops.CMPNE, BOOL, [nan, 1.0]) is True
    assert exec_alu(Ops.CMPLT, BOOL, [-inf, inf]) is True


@pytest.mark.parametrize(
    ("v", "want"),
    [
        (2.9, 2),
        (-2.9, -2),
        (0.5, 0),
        (-0.5, 0),
        (2147483520.0, 2147483520),  # the largest f32 below 2**31
        (-2147483648.0, INT_MIN),
        (2147483648.0, None),  # out of range: undefined in C
        (2147483647.0, None),  # rounds to 2**31 as an f32 first
        (-2147483904.0, None),
        (inf, None),
        (-inf, None),
        (nan, None),
    ],
)
def test_cast_f32_to_i32_truncates_and_refuses_what_c_leaves_undefined(v, want):
    got = exec_alu(Ops.CAST, I32, [v])
    assert got is None if want is None else same(got, want)


def test_bool_casts():
    assert exec_alu(Ops.CAST, BOOL, [0]) is False
    assert exec_alu(Ops.CAST, BOOL, [-1]) is True
    assert exec_alu(Ops.CAST, BOOL, [0.0]) is False
    assert exec_alu(Ops.CAST, BOOL, [nan]) is True
    assert exec_alu(Ops.CAST, BOOL, [1e-45]) is True
    assert same(exec_alu(Ops.CAST, I32, [True]), 1)
    assert same(exec_alu(Ops.CAST, I32, [False]), 0)
    assert same(exec_alu(Ops.CAST, F32, [True]), 1.0)
    assert same(exec_alu(Ops.CAST, F32, [False]), 0.0)


def test_int_to_f32_cast_rounds():
    assert same(exec_alu(Ops.CAST, F32, [16777217]), 16777216.0)
    assert same(exec_alu(Ops.CAST, F32, [INT_MAX]), 2147483648.0)
    assert same(exec_alu(Ops.CAST, F32, [-7]), -7.0)
    assert same(exec_alu(Ops.CAST, I32, [INT_MIN]), INT_MIN)


def test_results_have_the_representation_of_their_dtype():
    assert type(exec_alu(Ops.ADD, I32, [1, 2])) is int
    assert type(exec_alu(Ops.ADD, F32, [1.0, 2.0])) is float
    assert type(exec_alu(Ops.CMPLT, BOOL, [1, 2])) is bool
