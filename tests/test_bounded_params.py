"""Bounded integer inputs: PARAMs known to lie in [lo, hi], honoured by every layer alike."""

import random

import numpy as np
import pytest

from eqsat_uopc import (
    UirError,
    UOp,
    UOpError,
    check_equivalent,
    compile_c,
    dtypes,
    parse_uir,
    prove_equivalent,
    saturate,
    simplify,
    to_uir,
    vmax,
    vmin,
)
from eqsat_uopc.backend import InputError
from eqsat_uopc.backend.reference import evaluate_reference
from eqsat_uopc.errors import UserError
from eqsat_uopc.greedy import run, to_python
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import bind_params, random_value

x = UOp.param(0, dtypes.i32, bounds=(0, 15))
y = UOp.param(1, dtypes.i32, bounds=(-3, 3))


def test_bounds_are_part_of_the_node_and_checked():
    assert x is UOp.param(0, dtypes.i32, bounds=(0, 15)) and x is not UOp.param(0, dtypes.i32)
    assert repr(x.arg) == "ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None, bounds=(0, 15))"
    cases = [
        (
            dict(dtype=dtypes.f32, bounds=(0, 1)),
            "PARAM bounds are for i32 inputs, got a f32 PARAM with bounds (0, 1)",
        ),
        (dict(bounds=(3, 1)), "PARAM bounds must satisfy -2**31 <= lo <= hi < 2**31, got (3, 1)"),
        (
            dict(bounds=(0, 2**31)),
            "PARAM bounds must satisfy -2**31 <= lo <= hi < 2**31, got (0, 2147483648)",
        ),
        (dict(bounds=(0, 1.5)), "PARAM bounds must be a pair of ints (lo, hi), got (0, 1.5)"),
        (dict(bounds=(True, 1)), "PARAM bounds must be a pair of ints (lo, hi), got (True, 1)"),
    ]
    for kw, message in cases:
        with pytest.raises(UOpError) as info:
            UOp.param(0, **kw)
        assert str(info.value) == message


def test_uir_round_trip_and_errors():
    p = (x + y) // 4
    text = to_uir(p)
    assert text.splitlines()[0] == "%0 = param : slot=0 dtype=i32 bounds=(0, 15)"
    assert parse_uir(text) is p
    with pytest.raises(UirError) as info:
        parse_uir("%0 = param : slot=0 dtype=i32 bounds=(1, 2, 3)")
    assert str(info.value) == "line 1, column 38: expected bounds (lo, hi), got 3 ints"
    with pytest.raises(UirError) as info:
        parse_uir("%0 = param : slot=0 dtype=bool bounds=(0, 1)")
    assert str(info.value) == (
        "line 1, column 6: PARAM bounds are for i32 inputs, got a bool PARAM with bounds (0, 1)"
    )


def test_intervals_and_greedy_use_the_bounds():
    assert (vmin(x * 2 + y), vmax(x * 2 + y)) == (-3, 33)
    assert simplify(x // 16) is UOp.const(0) and simplify(x % 16) is x
    assert simplify(UOp.param(0) // 16) is not UOp.const(0)


def test_saturation_knows_the_bounds():
    s = saturate(x < 16, seed_greedy=False)
    assert s.extract().program is UOp.const(True) and s.report.stop_reason == "constant"
    assert saturate((x * 4 + 3) // 4, seed_greedy=False).extract().program is x
    free = UOp.param(0)
    assert saturate(free < 16, seed_greedy=False).extract().program is (free < 16)


def test_z3_and_random_checks_assume_the_bounds():
    assert prove_equivalent(x // 16, UOp.const(0)).status == "proved"
    assert prove_equivalent(UOp.param(0) // 16, UOp.const(0)).status == "refuted"
    assert prove_equivalent(x * 2 + 1 < 40, UOp.const(True)).status == "proved"
    assert check_equivalent(x // 16, UOp.const(0), samples=40).status == "proved"
    rng = random.Random(0)
    assert all(0 <= random_value(rng, dtypes.i32, (), (0, 15)) <= 15 for _ in range(200))


def test_an_input_outside_its_bounds_is_refused_alike_by_every_evaluator():
    # issue 34: the interpreter printed `=> 1` where the C backend refused the input
    assert evaluate(x + 1, {0: 15}).value == 16
    assert to_python(run(bind_params(x + 1, {0: 15}))) == 16 and compile_c(x + 1)(15) == 16
    message = "input 0 (PARAM slot 0): i32 scalar: value 16 is outside the input's bounds [0, 15]"
    refusals = (
        lambda: compile_c(x + 1)(16),
        lambda: compile_c(x + 1)(np.array(16, dtype=np.int32)),  # the no-copy fast path too
        lambda: evaluate_reference(x + 1, 16),
        lambda: evaluate(x + 1, {0: 16}),
        lambda: bind_params(x + 1, {0: 16}),
    )
    for refuse in refusals:
        with pytest.raises(InputError) as info:
            refuse()
        assert str(info.value) == message and isinstance(info.value, UserError)


def test_a_shaped_bounded_input_names_its_lowest_value_below_else_its_highest_above():
    v = UOp.param(0, dtypes.i32, (3,), bounds=(0, 15))
    where = "input 0 (PARAM slot 0): i32 shape (3,)"
    for value, bad in (([3, -2, 99], -2), ([3, 20, 99], 99)):
        messages = set()
        for refuse in (
            compile_c(v + 1),
            lambda given: evaluate(v + 1, {0: given}),
            lambda given: bind_params(v + 1, {0: given}),
        ):
            with pytest.raises(InputError) as info:
                refuse(value)
            messages.add(str(info.value))
        assert messages == {f"{where}: value {bad} is outside the input's bounds [0, 15]"}
