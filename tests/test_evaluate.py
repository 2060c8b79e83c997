"""evaluate and run: STACK, INDEX, movement ops, REDUCE and CALL, by rewriting; checked against a
direct (numpy-indexed) reference interpreter on random closed programs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from eqsat_uopc.greedy import evaluate, inline_call, run, to_python
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from tests.greedy_reference import Undefined, reference, same
from tests.strategies import closed_programs

p0 = UOp.param(0)


def test_evaluate_has_the_chapters_six_rules():
    assert [r.name for r in evaluate.rules] == [
        "movement",
        "index_none",
        "index_index",
        "index_stack",
        "push_stack",
        "inline_call",
    ]


def test_movement_ops_on_known_data():
    m = UOp.stack(UOp.stack(1, 2, 3), UOp.stack(4, 5, 6))
    assert to_python(run(m.reshape((3, 2)))) == [[1, 2], [3, 4], [5, 6]]
    assert to_python(run(m.reshape((6,)))) == [1, 2, 3, 4, 5, 6]
    assert to_python(run(m.permute((1, 0)))) == [[1, 4], [2, 5], [3, 6]]
    assert to_python(run(m.shrink(((1, 2), (0, 2))))) == [[4, 5]]
    assert to_python(run(UOp.stack(7).reshape((1, 1)).expand((2, 3)))) == [[7, 7, 7], [7, 7, 7]]
    assert to_python(run(m.reduce(Ops.ADD, 1))) == [6, 15]
    assert to_python(run(m.reduce(Ops.MUL, 2))) == 720
    assert to_python(run(m.reduce(Ops.MAX, 1))) == [3, 6]
    cube = UOp.stack(m, m * 10)
    assert to_python(run(cube.permute((2, 0, 1)))) == [
        [[1, 4], [10, 40]],
        [[2, 5], [20, 50]],
        [[3, 6], [30, 60]],
    ]


def test_reduce_uses_exec_alu_in_order():
    big = UOp.stack(16777216.0, 1.0, 1.0)  # f32: each + 1.0 rounds away
    assert to_python(run(big.reduce(Ops.ADD, 1))) == 16777216.0
    assert to_python(run(UOp.stack(2**31 - 1, 1).reduce(Ops.ADD, 1))) == -(2**31)


def test_index_rules():
    m = UOp.stack(UOp.stack(1, 2, 3), UOp.stack(4, 5, 6))
    assert to_python(run(m.index(1, 2))) == 6
    assert to_python(run(m.index(0).index(1))) == 2
    assert run(UOp(Ops.INDEX, (m,))) is m
    assert to_python(run(m.index(1))) == [4, 5, 6]


def test_partial_evaluation_stays_symbolic():
    v = UOp.param(0, dtypes.i32, (3,))
    out = run(UOp.stack(1, 2, 3) * v)
    assert out is UOp.stack(v.index(0), v.index(1) * 2, v.index(2) * 3)
    assert run(UOp.stack(1, 2, 3).index(p0)) is UOp.stack(1, 2, 3).index(p0)


def test_calls():
    sq = p0 * p0
    assert to_python(run(sq.call(7, name="sq"))) == 49
    assert inline_call(sq.call(UOp.const(3) + 4, name="sq")) is (UOp.const(3) + 4) * (UOp.const(3) + 4)
    pair = UOp.param(0, dtypes.i32, (2,))
    assert to_python(run((pair * pair).reduce(Ops.ADD, 1).call(UOp.stack(3, 4), name="norm2"))) == 25
    two = p0 + UOp.param(1) * 10
    assert to_python(run(two.call(1, 2, name="f"))) == 21


def test_a_long_program_runs():
    n = 100
    a, b = UOp.stack(*range(n)), UOp.stack(*range(0, 2 * n, 2))
    assert to_python(run(a * b + a))[:3] == [0, 3, 10]


# ---------------------------------------------------------------------------
# property: run agrees with a direct interpreter on random closed programs


@settings(max_examples=150, deadline=None)
@given(closed_programs(calls=False, max_ops=12))
def test_run_agrees_with_a_direct_interpreter(prog):
    try:
        want = reference(prog)
    except Undefined:
        return  # C leaves this program's value undefined: nothing to compare
    got = run(prog)
    assert got.dtype is prog.dtype and got.shape == prog.shape
    assert same(to_python(got), want)


@settings(max_examples=60, deadline=None)
@given(closed_programs(max_ops=10))
def test_run_reduces_closed_programs_with_calls_to_values(prog):
    got = run(prog)
    assert got.dtype is prog.dtype and got.shape == prog.shape
    stuck = [u for u in got.toposort() if u.op not in (Ops.CONST, Ops.STACK)]
    for u in stuck:  # a program that does not reduce to a value is stuck on an undefined operation
        if u.op in ALU and all(s.op is Ops.CONST for s in u.src):
            assert exec_alu(u.op, u.dtype, [s.arg for s in u.src]) is None
            break
    else:
        if stuck:
            pytest.fail(f"run is stuck at {stuck[-1]!r}")


@pytest.mark.parametrize(("n", "first"), [(10, [0, 12, 26]), (100, [0, 102, 206]), (1000, [0, 1002, 2006])])
def test_chapter_run_figures_first_values(n, first):
    # the chapter's timing table: a * b + a with a = [0, n), b = [n, 2n)
    a, b = UOp.stack(*range(n)), UOp.stack(*range(n, 2 * n))
    out = to_python(run(a * b + a))
    assert out[:3] == first and len(out) == n
