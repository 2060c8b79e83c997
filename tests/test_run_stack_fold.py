"""run's push_stack folds the elements it creates; the chapter's rules (symbolic + evaluate, whose
push_stack builds f(a_i, b_i) and leaves it to `fold`) must reach the very same node, and raise the
very same errors. Values are also checked against the direct reference interpreter."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from eqsat_uopc.greedy import evaluate, graph_rewrite, run, symbolic, to_python
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from tests.greedy_reference import Undefined, reference, same
from tests.strategies import closed_programs

chapter = symbolic + evaluate  # the chapter's rules, as run applied them before


def f32(*vs: float) -> UOp:
    return UOp.stack(*(UOp.const(v, dtypes.f32) for v in vs))


a, b = UOp.stack(3, -7, 0, 12), UOp.stack(2, 5, -4, 0)
x, y = f32(1.5, -0.0, math.nan, math.inf), f32(0.0, 0.0, 2.0, -math.inf)
m = UOp.stack(UOp.stack(1, 2, 3), UOp.stack(-4, 5, -6))


def _results(prog: UOp) -> tuple[UOp, UOp]:
    return run(prog), graph_rewrite(prog, chapter)


PROGRAMS = {
    "mul_add": a * b + a,
    "where": (a < b).where(a, b * 2),
    "where_f32": (x < y).where(x, y + 1.0),
    "floordiv_by_zero": a // b,  # b[3] is 0: that element stays FLOORDIV(12, 0)
    "floormod_by_zero": a % b,
    "int_min_by_minus_one": UOp.stack(I32_MIN, 7) // UOp.stack(-1, -1),
    "wrap": UOp.stack(I32_MAX, I32_MIN) + UOp.stack(1, -1),
    "cast_i32_to_f32": UOp(Ops.CAST, (a * b,), dtypes.f32) * 0.5,
    "cast_f32_to_i32": UOp(Ops.CAST, (x,), dtypes.i32),  # nan and inf refuse to convert
    "cast_bool_to_i32": UOp(Ops.CAST, (a < b,), dtypes.i32) + a,
    "cmp_f32_to_bool": (x + y).ne(x),
    "neg_zero": f32(-0.0, -0.0) + f32(0.0, -0.0),
    "two_d": (m * m + m).maximum(m * -1),
    "two_d_div_zero": m // (m * 0),
    "index_of_pushed": (a * b + 1).index(UOp.const(2)),
    "expand": UOp.const(3).broadcast((4,)) * a + UOp.const(1).broadcast((4,)),
    "reduce": UOp(Ops.REDUCE, (m * m,), (Ops.ADD, 1)),
    "nested_undefined": (a // b) + 1,
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_run_reaches_the_chapter_rules_normal_form(name):
    prog = PROGRAMS[name]
    got, want = _results(prog)
    assert got is want
    try:
        ref = reference(prog)
    except Undefined:
        assert any(u.op not in (Ops.CONST, Ops.STACK) for u in got.toposort())  # stuck where C is undefined
    else:
        assert same(to_python(got), ref)


def test_undefined_elements_are_left_exactly_as_the_chapter_leaves_them():
    got = run(a // b)
    assert [e.op for e in got.src] == [Ops.CONST, Ops.CONST, Ops.CONST, Ops.FLOORDIV]
    assert [e.arg for e in got.src[:3]] == [1, -2, 0]
    assert got.src[3] is UOp.const(12) // UOp.const(0)
    assert run(UOp(Ops.CAST, (x,), dtypes.i32)).src[2].op is Ops.CAST


def test_exact_values_of_mixed_dtypes():
    assert to_python(run(UOp(Ops.CAST, (a * b,), dtypes.f32) * 0.5)) == [3.0, -17.5, 0.0, 0.0]
    assert to_python(run(UOp(Ops.CAST, (a < b,), dtypes.i32) + a)) == [3, -6, 0, 12]
    assert to_python(run((a < b).where(a, b * 2))) == [4, -7, -8, 0]
    assert to_python(run(UOp.stack(I32_MAX, I32_MIN) + UOp.stack(1, -1))) == [I32_MIN, I32_MAX]
    zeros = to_python(run(f32(-0.0, -0.0) + f32(0.0, -0.0)))
    assert [math.copysign(1.0, v) for v in zeros] == [1.0, -1.0]


@pytest.mark.parametrize(
    ("prog", "message"),
    [
        ((a * b).index(UOp.const(7)), "index 7 out of bounds for STACK of 4"),
        ((m + m).index(UOp.const(1), UOp.const(-1)), "index -1 out of bounds for STACK of 3"),
    ],
)
def test_errors_are_the_chapter_rules_errors(prog, message):
    with pytest.raises(IndexError) as fast:
        run(prog)
    with pytest.raises(IndexError) as slow:
        graph_rewrite(prog, chapter)
    assert str(fast.value) == str(slow.value) == message


def test_the_evaluate_rule_set_is_unchanged():
    # only run folds while pushing: evaluate's push_stack still builds the elements (the chapter's rule)
    pushed = evaluate.rewrite(a * b)
    assert pushed.op is Ops.STACK and [e.op for e in pushed.src] == [Ops.MUL] * 4


def test_tracing_run_shows_every_chapter_firing(monkeypatch, capsys):
    monkeypatch.setenv("DEBUG_REWRITE", "1")
    run(UOp.stack(1, 2) * UOp.stack(3, 4))
    rules = [line.split(":")[0] for line in capsys.readouterr().err.splitlines()]
    assert rules == ["push_stack", "fold", "fold"]


@settings(max_examples=150, deadline=None)
@given(closed_programs(max_ops=12))
def test_run_agrees_with_the_chapter_rules_on_random_programs(prog):
    try:
        want = graph_rewrite(prog, chapter)
    except Exception as e:  # whatever the chapter's rules raise, run raises too
        with pytest.raises(type(e)) as got:
            run(prog)
        assert str(got.value) == str(e)
        return
    assert run(prog) is want
