"""symbolic and fold: the chapter's rules, their declared integer semantics, the known defects
fixed on purpose, and the chapter's exercises 1-3."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.greedy import (
    PatternMatcher,
    Rule,
    UPat,
    fold,
    graph_rewrite,
    run,
    simplify,
    symbolic,
    to_python,
)
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.values import bind_params
from tests.greedy_reference import Undefined, reference, same
from tests.strategies import inputs_for, programs

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
p0, p1 = UOp.param(0), UOp.param(1)


def value(root: UOp, env: dict[UOp, object]):
    """root's value at one point, straight from exec_alu (no rewriting involved)."""
    val: dict[UOp, object] = {}
    for u in root.toposort():
        if u in env:
            val[u] = env[u]
        elif u.op is Ops.CONST:
            val[u] = u.arg
        else:
            assert u.op in ALU, u.op
            val[u] = exec_alu(u.op, u.dtype, [val[s] for s in u.src])
    return val[root]


def rule(name: str) -> Rule:
    (r,) = [r for r in symbolic.rules if r.name == name]
    return r


def apply(r: Rule, u: UOp) -> UOp:
    """One firing of one rule at the root of u."""
    out = PatternMatcher([r]).rewrite(u)
    assert out is not None, f"{r.name} does not fire on {u!r}"
    return out


# ---------------------------------------------------------------------------
# the rule set


def test_rules_have_unique_names_and_declared_semantics():
    names = [r.name for r in symbolic.rules]
    assert len(names) == len(set(names)) == 38
    assert {r.int_semantics for r in symbolic.rules} == {"wrap", "no_overflow"}
    assert [r.name for r in symbolic.rules if r.int_semantics == "no_overflow"] == [
        "div_sum",
        "mod_sum",
        "lt_add_const",
        "lt_mul_const",
    ]
    assert fold.rules[0].name == "fold" and fold.rules[0].fn.__name__ == "_fold"


@pytest.mark.parametrize(
    ("name", "before", "x"),
    [
        # (a*c + b) // c -> a + b//c: x*2 wraps to INT_MIN at x = 2**30
        ("div_sum", (p0 * 2 + 2) // 2, 2**30),
        # (a*c + b) % c -> b % c: 3 does not divide 2**32, so a wrapped x*3 changes its residue
        ("mod_sum", (p0 * 3 + 1) % 3, 2**30),
        # x + c1 < c2 -> x < c2 - c1: INT_MAX + 1 wraps to INT_MIN
        ("lt_add_const", (p0 + 1) < 0, INT_MAX),
        # x*c1 < c2 -> x < ceil(c2/c1): 2**30 * 2 wraps to INT_MIN
        ("lt_mul_const", (p0 * 2) < 0, 2**30),
    ],
)
def test_no_overflow_rules_have_a_wraparound_counterexample(name, before, x):
    after = apply(rule(name), before)
    assert value(before, {p0: x}) != value(after, {p0: x})
    for small in (-1000, -7, -1, 0, 1, 5, 999):  # without overflow both sides agree
        assert value(before, {p0: small}) == value(after, {p0: small})


@pytest.mark.parametrize(
    ("name", "before"),
    [
        ("add_self", p0 + p0),
        ("sub_self", p0 + p0 * -1),
        ("add_add_const", (p0 + INT_MAX) + 5),
        ("mul_mul_const", (p0 * 65536) * 65536),
        ("add_mul_const", (p0 + 2**30) * 4),
        ("distribute_const", (p0 + p1) * 2**20),
        ("factor_consts", p0 * INT_MAX + p0 * 3),
        ("factor_const_one", p0 * INT_MAX + p0),
        ("div_div", (p0 // 3) // 5),
        ("mod_mod", (p0 % -12) % 4),
        ("mod_div", (p0 % 12) // 4),
        ("divmod_recombine", (p0 // 3) * 3 + p0 % 3),  # (x//3)*3 overflows at INT_MIN, the sum does not care
        ("divmod_recombine_sum", ((p0 // 3) * 3 + p1) + p0 % 3),
    ],
)
def test_wrap_rules_hold_at_the_int32_edges(name, before):
    after = apply(rule(name), before)
    for x in (INT_MIN, INT_MIN + 1, -(2**30), -7, -1, 0, 1, 7, 2**30, INT_MAX - 1, INT_MAX):
        for y in (INT_MIN, -1, 0, 1, INT_MAX):
            assert value(before, {p0: x, p1: y}) == value(after, {p0: x, p1: y}), (name, x, y)


# ---------------------------------------------------------------------------
# known defects of the chapter's code, fixed on purpose (docs/DESIGN.md, "Known defects")

xi, c1, c2 = UPat.var("x", dtype=dtypes.i32), UPat.cvar("c1"), UPat.cvar("c2")
chapter_mod_div = Rule(
    (xi % c1) // c2,
    lambda x, c1, c2: (x // c2) % (c1.arg // c2.arg) if c2.arg > 0 and c1.arg % c2.arg == 0 else None,
    "mod_div_chapter",
)


def test_mod_div_needs_a_positive_modulus():
    e = (p0 % -8) // 2
    assert value(e, {p0: 1}) == -4
    wrong = apply(chapter_mod_div, e)  # the chapter's rule: (x // 2) % -4, which is 0 at x = 1
    assert wrong is (p0 // 2) % -4
    assert value(wrong, {p0: 1}) == 0
    # the fix: guarded with c1 > 0, so nothing rewrites it and the value stays -4
    assert PatternMatcher([rule("mod_div")]).rewrite(e) is None
    assert value(simplify(e), {p0: 1}) == -4
    assert to_python(run((UOp.const(1) % -8) // 2)) == -4
    # with c1 > 0 the rule still fires, and is sound
    assert apply(rule("mod_div"), (p0 % 8) // 2) is (p0 // 2) % 4


def test_self_comparison_keeps_the_shape():
    a = UOp.stack(p0, p1, p0 + 1)
    chapter = PatternMatcher(
        [Rule(UPat((Ops.CMPLT, Ops.CMPNE), src=(xi, xi)), lambda x: UOp.const(False), "cmp_self_chapter")]
    )
    assert graph_rewrite(a < a, chapter, check=False).shape == ()  # the chapter's rule: a scalar False
    fixed = simplify(a < a)
    assert fixed is UOp.const(False, dtypes.bool, (3,))
    assert fixed.shape == (3,)
    assert to_python(run(a.ne(a))) == [False, False, False]
    assert simplify(p0 < p0) is UOp.const(False)


# ---------------------------------------------------------------------------
# the chapter's exercises


def test_exercise1_predicted_trace():
    lines = []

    def show(u):
        if u.op is Ops.CONST:
            return repr(u.arg)
        if u.op is Ops.PARAM:
            return f"p{u.arg.slot}"
        return f"{u.op.name.lower()}({', '.join(show(s) for s in u.src)})"

    class Trace(PatternMatcher):
        def rewrite(self, u, ctx=None):
            r = super().rewrite(u, ctx)
            lines.append(f"  visit {show(u):28s} -> {show(r) if r is not None else '.'}")
            return r

    out = graph_rewrite((p0 * 1) + (p0 * 1), Trace(symbolic.rules))
    assert out is p0 * 2
    # hash consing: p0 * 1 is one node, visited once; the root is rebuilt as add(p0, p0)
    assert [ln.split() for ln in lines] == [
        ["visit", "p0", "->", "."],
        ["visit", "1", "->", "."],
        ["visit", "mul(p0,", "1)", "->", "p0"],
        ["visit", "add(p0,", "p0)", "->", "mul(p0,", "2)"],
        ["visit", "2", "->", "."],
        ["visit", "mul(p0,", "2)", "->", "."],
    ]


def test_exercise2_max_of_x_and_x():
    x = UPat.var("x")
    mine = PatternMatcher([Rule(UPat(Ops.MAX, src=(x, x)), lambda x: x, "max_self_mine")])
    assert graph_rewrite(p0.maximum(p0), mine) is p0
    assert graph_rewrite(p0.maximum(p1), mine) is p0.maximum(p1)
    assert graph_rewrite(p0.maximum(p0), symbolic) is p0
    # a list would try both orders of two identical sources: the same binding twice, for nothing
    assert UPat(Ops.MAX, src=[x, x]).match(p0.maximum(p0), {}) == [{"x": p0}, {"x": p0}]
    assert UPat(Ops.MAX, src=(x, x)).match(p0.maximum(p0), {}) == [{"x": p0}]


def test_exercise3_x_times_zero_is_unsound_for_floats():
    f = UOp.param(0, dtypes.f32)
    assert math.isnan(exec_alu(Ops.MUL, dtypes.f32, [math.inf, 0.0]))
    assert math.isnan(exec_alu(Ops.MUL, dtypes.f32, [math.nan, 0.0]))
    assert math.copysign(1.0, exec_alu(Ops.MUL, dtypes.f32, [-1.0, 0.0])) == -1.0  # -0.0, not 0.0
    # symbolic's rule is restricted to ints (dtype=(i32, bool)): a float x * 0.0 is left alone
    assert simplify(f * 0.0) is f * 0.0
    assert simplify(p0 * 0) is UOp.const(0)
    assert simplify(UOp.param(0, dtypes.bool) * False) is UOp.const(False)


# ---------------------------------------------------------------------------
# rules the chapter's text and listings rely on


def test_folding_uses_exec_alu_and_refuses_undefined_results():
    assert simplify(UOp.const(INT_MAX) + 1) is UOp.const(INT_MIN)
    assert simplify(UOp.const(7) // 0) is UOp.const(7) // 0
    assert simplify(UOp.const(INT_MIN) // -1) is UOp.const(INT_MIN) // -1
    assert simplify(UOp.const(2.5).cast(dtypes.i32)) is UOp.const(2)
    assert simplify(UOp.const(math.inf).cast(dtypes.i32)) is UOp.const(math.inf).cast(dtypes.i32)


def test_canonical_form_moves_constants_right():
    assert simplify(UOp.const(3) + p0) is p0 + 3
    assert simplify(UOp.const(3) * p0) is p0 * 3
    assert simplify(UOp.const(3).maximum(p0)) is p0.maximum(UOp.const(3))
    assert simplify(UOp.const(3).ne(p0)) is p0.ne(UOp.const(3))


def test_div_mod_rules():
    r = UOp.range(16, "r")
    assert simplify((r * 4 + 8) // 4) is r + 2
    assert simplify((r * 4 + 3) % 4) is UOp.const(3)
    assert simplify(r // 16) is UOp.const(0)
    assert simplify(r % 16) is r
    assert simplify((p0 // 2) // 3) is p0 // 6
    assert simplify((p0 // 4) * 4 + p0 % 4) is p0
    assert simplify((p0 // 4) * 4 + p1 + p0 % 4) is p0 + p1
    assert simplify(p0 * 3 < 10) is (p0 < 4)
    assert simplify(p0 + 3 < 10) is (p0 < 7)


def test_bounds_fold_constant_expressions():
    r = UOp.range(8, "r")
    assert simplify(r < 8) is UOp.const(True)
    assert simplify((r < 0).where(p0, p1)) is p1
    assert simplify(r.maximum(UOp.const(7))) is UOp.const(7)


def test_where_rules():
    c = p0 < p1
    assert simplify(c.where(p0, p0)) is p0
    assert simplify(UOp.const(True).where(p0, p1)) is p0
    assert simplify(c.where(c.where(p0, p1), p1 + 1)) is c.where(p0, p1 + 1)
    assert simplify(c.where(p0, c.where(p1, p1 + 1))) is c.where(p0, p1 + 1)
    b = UOp.param(2, dtypes.bool)
    assert simplify(b.ne(UOp.const(False))) is b
    assert simplify(p0.cast(dtypes.i32)) is p0


def test_float_caveats_the_chapter_accepts():
    # Not int-semantics questions, and kept as the chapter has them (its rule order is its meaning):
    f = UOp.param(0, dtypes.f32)
    # x + 0.0 -> x is not exact at x = -0.0 (-0.0 + 0.0 is 0.0): the chapter says so and accepts it
    after = apply(rule("add_fzero"), f + 0.0)
    assert after is f
    assert math.copysign(1.0, value(f + 0.0, {f: -0.0})) == 1.0
    assert math.copysign(1.0, value(after, {f: -0.0})) == -1.0
    # const_to_right swaps MAX's operands, and exec_alu's MAX (b if b > a else a, as C renders it) is
    # not commutative on NaN or on -0.0 / 0.0
    swapped = apply(rule("const_to_right"), UOp.const(1.0).maximum(f))
    assert swapped is f.maximum(UOp.const(1.0))
    assert value(UOp.const(1.0).maximum(f), {f: math.nan}) == 1.0
    assert math.isnan(value(swapped, {f: math.nan}))


# ---------------------------------------------------------------------------
# property: the rules declared "wrap" never change an int/bool program's value, whatever the inputs

_wrap_only = PatternMatcher([r for r in symbolic.rules if r.int_semantics == "wrap"])


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_wrap_rules_preserve_int_programs(data):
    prog = data.draw(programs(dtypes=(dtypes.bool, dtypes.i32), calls=False, max_ops=12))
    inputs = data.draw(inputs_for(prog))
    try:
        want = reference(bind_params(prog, inputs))
    except Undefined:
        return  # C leaves the value undefined at these inputs
    assert same(reference(bind_params(graph_rewrite(prog, _wrap_only), inputs)), want)
