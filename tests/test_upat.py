"""UPat: the interpreter matcher (the reference the compiled matchers must agree with)."""

from __future__ import annotations

import pytest

from eqsat_uopc.greedy import UPat
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

p0, p1 = UOp.param(0), UOp.param(1)
f0 = UOp.param(0, dtypes.f32)


def test_no_constraint_matches_anything_and_binds_nothing():
    assert UPat().match(p0, {}) == [{}]
    assert UPat.var("x").match(UOp.stack(1, 2), {}) == [{"x": UOp.stack(1, 2)}]


def test_op_dtype_and_arg_constraints():
    assert UPat(Ops.ADD).match(p0 + p1, {}) == [{}]
    assert UPat({Ops.MUL, Ops.ADD}).match(p0 * p1, {}) == [{}]
    assert UPat(Ops.MUL).match(p0 + p1, {}) == []
    assert UPat.var("x", dtype=dtypes.i32).match(f0, {}) == []
    assert UPat.var("x", dtype=(dtypes.i32, dtypes.f32)).match(f0, {}) == [{"x": f0}]
    assert UPat.cvar("c").match(p0, {}) == []
    assert UPat.cvar("c", dtype=dtypes.f32).match(UOp.const(2.0), {}) == [{"c": UOp.const(2.0)}]


def test_arg_compares_with_equality_like_the_chapter():
    # Pitfall 4: arg=0 matches 0, 0.0, -0.0 and False; arg=1 matches True
    zero = UPat(Ops.CONST, arg=0)
    for c in (UOp.const(0), UOp.const(0.0), UOp.const(-0.0), UOp.const(False)):
        assert zero.match(c, {}) == [{}]
    assert UPat(Ops.CONST, arg=1).match(UOp.const(True), {}) == [{}]
    assert UPat(Ops.CONST, arg=1).match(UOp.const(2), {}) == []


def test_names_bind_consistently_across_sources():
    pat = UPat(Ops.ADD, src=[UPat.var("a"), UPat(Ops.MUL, src=(UPat.var("a"), UPat.cvar("c")))])
    assert pat.match(p0 + p0 * 3, {}) == [{"a": p0, "c": UOp.const(3)}]
    assert pat.match(p0 * 3 + p0, {}) == [{"a": p0, "c": UOp.const(3)}]
    assert pat.match(p1 + p0 * 3, {}) == []
    # a store passed in constrains the match too
    assert UPat.var("a").match(p0, {"a": p1}) == []
    assert UPat.var("a").match(p0, {"a": p0}) == [{"a": p0}]


def test_list_sources_try_every_permutation_in_order():
    pat = UPat(Ops.WHERE, src=[UPat.var("a"), UPat.var("b"), UPat.var("c")])
    c = p0 < p1
    assert len(pat.match(c.where(p0, p1), {})) == 6  # 3! orders, unconstrained
    pat = UPat(
        Ops.WHERE, src=[UPat.var("i", dtype=dtypes.i32), UPat.var("b", dtype=dtypes.bool), UPat.var("j")]
    )
    # permutations order: (i, b, j), (i, j, b), (b, i, j), (b, j, i), (j, i, b), (j, b, i); only b first fits
    assert pat.match(c.where(p0, p1), {}) == [{"b": c, "i": p0, "j": p1}, {"b": c, "j": p0, "i": p1}]
    pat = UPat(Ops.ADD, src=[UPat.var("a"), UPat.var("b", dtype=dtypes.i32)])
    assert pat.match(p0 + p1, {}) == [{"a": p0, "b": p1}, {"b": p0, "a": p1}]


def test_source_count_and_allow_any_len():
    idx = UOp.stack(UOp.stack(1, 2), UOp.stack(3, 4)).index(0, 1)
    exact = UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")))
    prefix = UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")), allow_any_len=True)
    assert exact.match(idx, {}) == []
    assert prefix.match(idx, {}) == [{"s": idx.src[0], "i": UOp.const(0)}]
    assert UPat(Ops.ADD, src=(UPat(),)).match(p0 + p1, {}) == []
    assert UPat(Ops.ADD, src=()).match(p0 + p1, {}) == []
    assert UPat(Ops.CONST, src=()).match(UOp.const(1), {}) == [{}]


def test_sugar_builds_commutative_lists_and_ordered_tuples():
    x, c = UPat.var("x"), UPat.cvar("c")
    for pat, op, kind in [
        (x + c, Ops.ADD, list),
        (x * c, Ops.MUL, list),
        (x.maximum(c), Ops.MAX, list),
        (x.ne(c), Ops.CMPNE, list),
        (x // c, Ops.FLOORDIV, tuple),
        (x % c, Ops.FLOORMOD, tuple),
        (x < c, Ops.CMPLT, tuple),
    ]:
        assert pat.op == frozenset([op]) and type(pat.src) is kind and pat.src[0] is x and pat.src[1] is c
    r = 3 + x
    assert r.src[1] is x and r.src[0].arg == 3 and r.src[0].op == frozenset([Ops.CONST])
    assert (x * 2.0).src[1].arg == 2.0


def test_repr():
    assert repr(UPat.var("x")) == "UPat(None, name=x)"
    assert repr(UPat.cvar("c")) == "UPat({Ops.CONST}, name=c)"
    assert repr(UPat((Ops.MUL, Ops.ADD), name="u")) == "UPat({Ops.ADD, Ops.MUL}, name=u)"


def test_bad_sources_are_refused():
    with pytest.raises(
        TypeError, match=r"^UPat src must be a tuple \(in order\) or a list \(any order\), got UPat$"
    ):
        UPat(Ops.ADD, src=UPat.var("x"))
