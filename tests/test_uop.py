"""UOp: hash consing, the weak cache, type and shape checking (every error), traversals, scoping, sugar."""

from __future__ import annotations

import gc
import math
import pickle
import struct
import sys
import weakref

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from eqsat_uopc.ir import uop as uop_module
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, BINARY, COMMUTATIVE, MOVEMENT, REDUCE_OPS, TRANSCENDENTAL, UNARY, Ops
from eqsat_uopc.ir.uop import ParamArg, UOp, UOpError, call_params, prod, rebuild
from tests.strategies import closed_programs, inputs_for, programs, range_bindings

p0 = UOp.param(0, dtypes.i32)
p1 = UOp.param(1, dtypes.i32)
f0 = UOp.param(0, dtypes.f32)
b0 = UOp.param(0, dtypes.bool)
v3 = UOp.param(0, dtypes.i32, (3,))
m23 = UOp.param(0, dtypes.f32, (2, 3))


# ---------------------------------------------------------------------------
# ops


def test_op_groups():
    assert {op.name for op in ALU} == {
        "ADD", "MUL", "MAX", "CMPLT", "CMPNE", "FLOORDIV", "FLOORMOD", "WHERE",
        "RECIP", "EXP2", "LOG2", "SQRT", "SIN", "CAST",
    }  # fmt: skip
    assert BINARY | UNARY | {Ops.WHERE} == ALU
    assert TRANSCENDENTAL | {Ops.CAST} == UNARY
    assert {op.name for op in MOVEMENT} == {"RESHAPE", "EXPAND", "PERMUTE", "SHRINK"}
    assert {Ops.ADD, Ops.MUL, Ops.MAX} == REDUCE_OPS
    assert {Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE} == COMMUTATIVE
    assert [op.name for op in Ops][:6] == ["CONST", "PARAM", "RANGE", "STACK", "CALL", "INDEX"]
    assert repr(Ops.ADD) == "Ops.ADD"
    assert pickle.loads(pickle.dumps(Ops.SIN)) is Ops.SIN


# ---------------------------------------------------------------------------
# hash consing


def test_same_structure_same_object():
    assert (p0 + 2) * 3 is (p0 + 2) * 3
    assert UOp(Ops.ADD, (p0, UOp.const(2))) is p0 + 2
    assert UOp(Ops.ADD, [p0, UOp.const(2)]) is p0 + 2  # a list of sources is a tuple
    assert p0 + 2 is not UOp.const(2) + p0
    assert UOp.param(0, dtypes.i32) is p0 and UOp.param(0, dtypes.f32) is not p0
    assert UOp.param(0, dtypes.i32, (3,)) is v3
    assert UOp(Ops.PARAM, (), ParamArg(0, dtypes.i32, (), "global")) is not p0


def test_four_zeros_are_four_nodes_with_their_dtypes():
    zeros = [UOp.const(0), UOp.const(0.0), UOp.const(-0.0), UOp.const(False)]
    assert len({id(z) for z in zeros}) == 4
    assert [z.dtype for z in zeros] == [dtypes.i32, dtypes.f32, dtypes.f32, dtypes.bool]
    assert [type(z.arg) for z in zeros] == [int, float, float, bool]
    assert math.copysign(1, zeros[2].arg) == -1
    assert UOp.const(1) is not UOp.const(True) and UOp.const(1) is not UOp.const(1.0)
    assert UOp.range(4, 0) is not UOp.range(4, False) and UOp.range(4, 0) is not UOp.range(4, 0.0)


def test_nan_is_one_node():
    other_nan = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000001))[0]  # another payload and sign
    nans = [UOp.const(float("nan")), UOp.const(float("nan")), UOp.const(math.nan), UOp.const(other_nan)]
    nans.append(UOp(Ops.CONST, (), other_nan))
    assert all(n is nans[0] for n in nans)
    assert nans[0].arg is math.nan and nans[0].dtype is dtypes.f32
    assert UOp.const(math.nan) + 1.0 is UOp.const(float("nan")) + 1.0


def test_const_conversion():
    assert UOp.const(1, dtypes.f32).arg == 1.0 and type(UOp.const(1, dtypes.f32).arg) is float
    assert UOp.const(2.0, dtypes.i32) is UOp.const(2)
    assert UOp.const(3, dtypes.bool) is UOp.const(True)
    assert UOp.const(True, dtypes.i32) is UOp.const(1)
    assert UOp.const(16777217.0).arg == 16777217.0  # a CONST f32 may hold a double that is no f32
    c = UOp.const(2.0, shape=(2, 3))
    assert c is UOp.const(2.0).reshape((1, 1)).expand((2, 3)) and c.shape == (2, 3)
    assert m23.const_like(0) is UOp.const(0.0, shape=(2, 3))
    assert p0.const_like(7) is UOp.const(7)


def test_const_args_are_canonical_python_scalars():
    np = pytest.importorskip("numpy")
    c = UOp(Ops.CONST, (), np.float64(2.5))
    assert type(c.arg) is float and c is UOp.const(2.5)
    assert UOp(Ops.CONST, (), np.float64("nan")) is UOp.const(math.nan)


def test_nodes_are_immutable_and_have_no_truth_value():
    with pytest.raises(AttributeError):
        p0.arg = 5
    with pytest.raises(TypeError) as e:
        bool(p0 + 1)
    assert str(e.value) == "a UOp has no truth value (did you mean `is`, or .where?)"


def test_pickle_keeps_identity():
    u = ((p0 + 2) * UOp.const(-0.0, dtypes.f32).cast(dtypes.i32)).call(5, name="f")
    assert pickle.loads(pickle.dumps(u)) is u


def test_memo_is_per_node_and_computed_once():
    calls = []
    u = p0 * 7 + 1
    assert u.memo("size", lambda n: calls.append(n) or n.size) == 5
    assert u.memo("size", lambda n: calls.append(n) or -1) == 5
    assert calls == [u]


def test_repr_builds_the_node():
    assert repr(p0 + 1) == (
        "UOp(Ops.ADD, src=(UOp(Ops.PARAM, arg=ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None)), "
        "UOp(Ops.CONST, arg=1)))"
    )


# ---------------------------------------------------------------------------
# the weak cache


def test_dropped_nodes_are_freed():
    u = p0 * 12345 + 67890
    ref = weakref.ref(u)
    for _ in range(10):  # garbage other tests left behind goes first; a finalizer's can take another pass
        if not gc.collect():
            break
    n = len(uop_module._cache)
    del u
    gc.collect()
    assert ref() is None
    assert len(uop_module._cache) == n - 4  # the ADD, the MUL and their two CONSTs


def test_a_million_nodes_leave_memory_where_it_was():
    def build(chains: int, depth: int) -> None:
        one = UOp.const(1)
        for c in range(chains):
            x = UOp(Ops.ADD, (p1, UOp.const(1_000_000 + c)))
            for _ in range(depth):
                x = UOp(Ops.ADD, (x, one))
            assert x.src[0].src[0].op is Ops.ADD

    build(10, 1000)  # warm up: whatever lazily allocated state there is exists now
    gc.collect()
    entries, blocks = len(uop_module._cache), sys.getallocatedblocks()
    build(1000, 1000)  # 1,002,000 nodes built and dropped
    gc.collect()
    assert len(uop_module._cache) == entries
    assert sys.getallocatedblocks() - blocks < 1000  # a million nodes would be millions of blocks


# ---------------------------------------------------------------------------
# type and shape checking: every op, every message

ERRORS = [
    (lambda: UOp("ADD", (p0, p0)), "UOp needs an Ops member, got 'ADD'"),
    (lambda: UOp(Ops.ADD, (p0, 1)), "ADD source must be a UOp, got int: 1"),
    (
        lambda: UOp(Ops.RESHAPE, (v3,), [3, 1]),
        "RESHAPE arg must be hashable (a tuple, not a list), got [3, 1]",
    ),
    # CONST
    (lambda: UOp(Ops.CONST, (p0,), 1), "CONST takes 0 sources, got 1"),
    (lambda: UOp(Ops.CONST, (), 2**31), "CONST i32 value 2147483648 is outside the int32 range"),
    (lambda: UOp(Ops.CONST, (), -(2**31) - 1), "CONST i32 value -2147483649 is outside the int32 range"),
    (lambda: UOp(Ops.CONST, (), "x"), "CONST value must be a bool, int or float, got str: 'x'"),
    (lambda: UOp(Ops.CONST), "CONST value must be a bool, int or float, got NoneType: None"),
    (lambda: UOp.const(p0), "CONST value must be a Python scalar, got a UOp (PARAM)"),
    (lambda: UOp.const(1, "i32"), "CONST dtype must be a DType, got 'i32'"),
    (lambda: UOp.const(2.5, dtypes.i32), "CONST i32 value must be an integer, got 2.5"),
    (lambda: UOp.const(math.inf, dtypes.i32), "CONST i32 value must be an integer, got inf"),
    # PARAM
    (lambda: UOp(Ops.PARAM, (), 0), "PARAM arg must be a ParamArg, got 0"),
    (lambda: UOp(Ops.PARAM, (p0,), ParamArg(0, dtypes.i32)), "PARAM takes 0 sources, got 1"),
    (lambda: UOp.param(-1), "PARAM slot must be a non-negative int, got -1"),
    (
        lambda: UOp(Ops.PARAM, (), ParamArg(True, dtypes.i32)),
        "PARAM slot must be a non-negative int, got True",
    ),
    (lambda: UOp(Ops.PARAM, (), ParamArg(0, "i32")), "PARAM dtype must be a DType, got 'i32'"),
    (lambda: UOp.param(0, dtypes.i32, (0,)), "PARAM shape must be a tuple of positive ints, got (0,)"),
    (
        lambda: UOp(Ops.PARAM, (), ParamArg(0, dtypes.i32, (), 3)),
        "PARAM addrspace must be a str or None, got 3",
    ),
    # RANGE
    (lambda: UOp(Ops.RANGE, (), "r"), "RANGE takes 1 source, got 0"),
    (lambda: UOp.range(UOp.const(4.0), "r"), "RANGE extent must be an i32 scalar, got f32 ()"),
    (lambda: UOp.range(v3, "r"), "RANGE extent must be an i32 scalar, got i32 (3,)"),
    (
        lambda: UOp.range(4, None),
        "RANGE needs an identifier in its arg, so that two loops of one extent differ",
    ),
    # STACK
    (lambda: UOp(Ops.STACK, ()), "STACK needs at least one element"),
    (lambda: UOp.stack(1, 2.0), "STACK elements must have one dtype, got i32 and f32"),
    (lambda: UOp.stack(p0, v3), "STACK elements must have one shape, got () and (3,)"),
    (lambda: UOp(Ops.STACK, (p0,), 1), "STACK takes no arg, got 1"),
    # INDEX
    (lambda: UOp(Ops.INDEX, ()), "INDEX needs a source to index"),
    (lambda: v3.index(0, 0), "INDEX has 2 indices into a value of rank 1"),
    (lambda: p0.index(0), "INDEX has 1 indices into a value of rank 0"),
    (lambda: v3.index(UOp.const(1.0)), "INDEX index 0 must be an i32 scalar, got f32 ()"),
    (lambda: m23.index(0, v3), "INDEX index 1 must be an i32 scalar, got i32 (3,)"),
    (lambda: UOp(Ops.INDEX, (v3, p0), "x"), "INDEX takes no arg, got 'x'"),
    # CALL
    (lambda: UOp(Ops.CALL, (), "f"), "CALL needs a body"),
    (lambda: UOp.const(5).call(UOp.const(7)), "CALL needs params 0..0, body has []"),
    (lambda: (p1 * 2).call(7), "CALL needs params 0..0, body has [1]"),
    (lambda: (p0 + p1).call(7), "CALL needs params 0..0, body has [0, 1]"),
    (lambda: (p0 * 2).call(), "CALL needs params 0..-1, body has [0]"),
    (lambda: (p0.cast(dtypes.f32) + f0).call(1), "CALL body has two different PARAMs for slot 0"),
    (lambda: (p0 * 2).call(7.0), "CALL argument 0 is f32 (), param 0 is i32 ()"),
    (lambda: (v3 * 2).call(p0), "CALL argument 0 is i32 (), param 0 is i32 (3,)"),
    # binary ALU
    (lambda: UOp(Ops.ADD, (p0,)), "ADD takes 2 sources, got 1"),
    (lambda: UOp(Ops.MUL, (p0, p0, p0)), "MUL takes 2 sources, got 3"),
    (lambda: p0 + f0, "ADD operands must have one dtype, got i32 and f32"),
    (lambda: p0 + v3, "ADD operands must have one shape, got () and (3,)"),
    (
        lambda: UOp(Ops.MAX, (m23, m23.permute((1, 0)))),
        "MAX operands must have one shape, got (2, 3) and (3, 2)",
    ),
    (lambda: p0 < b0, "CMPLT operands must have one dtype, got i32 and bool"),
    (lambda: f0.ne(p0), "CMPNE operands must have one dtype, got f32 and i32"),
    (lambda: f0 // 2.0, "FLOORDIV needs i32 operands, got f32"),
    (lambda: b0 % True, "FLOORMOD needs i32 operands, got bool"),
    (lambda: UOp(Ops.ADD, (p0, p0), 5), "ADD takes no arg, got 5"),
    # WHERE
    (lambda: UOp(Ops.WHERE, (b0, p0)), "WHERE takes 3 sources, got 2"),
    (lambda: p0.where(1, 0), "WHERE condition must be bool, got i32"),
    (
        lambda: UOp(Ops.WHERE, (UOp.param(0, dtypes.bool, (3,)), p0, p0)),
        "WHERE condition shape (3,) differs from value shape ()",
    ),
    (lambda: b0.where(p0, f0), "WHERE branches must have one dtype, got i32 and f32"),
    (lambda: UOp(Ops.WHERE, (b0, p0, v3)), "WHERE branches must have one shape, got () and (3,)"),
    # unary ALU
    (lambda: p0.sqrt(), "SQRT needs an f32 operand, got i32"),
    (lambda: b0.recip(), "RECIP needs an f32 operand, got bool"),
    (lambda: p0.exp2(), "EXP2 needs an f32 operand, got i32"),
    (lambda: p0.log2(), "LOG2 needs an f32 operand, got i32"),
    (lambda: UOp(Ops.SIN, (f0, f0)), "SIN takes 1 source, got 2"),
    (lambda: UOp(Ops.SIN, (f0,), 1), "SIN takes no arg, got 1"),
    (lambda: p0.cast("f32"), "CAST target must be a DType, got 'f32'"),
    (lambda: UOp(Ops.CAST, (), dtypes.f32), "CAST takes 1 source, got 0"),
    # movement
    (lambda: UOp(Ops.RESHAPE, (v3, v3), (3,)), "RESHAPE takes 1 source, got 2"),
    (lambda: v3.reshape((2,)), "RESHAPE from (3,) to (2,) changes the size"),
    (lambda: m23.reshape((3, 3)), "RESHAPE from (2, 3) to (3, 3) changes the size"),
    (lambda: v3.reshape((3, 0)), "RESHAPE needs a shape of positive ints, got (3, 0)"),
    (lambda: UOp(Ops.RESHAPE, (v3,), 3), "RESHAPE needs a shape of positive ints, got 3"),
    (lambda: v3.expand((3, 3)), "EXPAND needs a shape of rank 1, got (3, 3)"),
    (lambda: v3.expand((6,)), "EXPAND of axis 0 from 3 to 6: only an axis of size 1 can expand"),
    (lambda: p0.reshape((1, 1)).expand((2, 0)), "EXPAND needs a shape of rank 2, got (2, 0)"),
    (lambda: m23.permute((0, 0)), "PERMUTE order (0, 0) is not a permutation of range(2)"),
    (lambda: m23.permute((0,)), "PERMUTE order (0,) is not a permutation of range(2)"),
    (lambda: v3.permute((True,)), "PERMUTE order (True,) is not a permutation of range(1)"),
    (lambda: v3.shrink(((0, 1), (0, 1))), "SHRINK needs 1 (begin, end) pairs, got ((0, 1), (0, 1))"),
    (lambda: UOp(Ops.SHRINK, (v3,), ((0,),)), "SHRINK axis 0 needs a (begin, end) pair, got (0,)"),
    (lambda: UOp(Ops.SHRINK, (v3,), ((0, 1.0),)), "SHRINK axis 0 needs a (begin, end) pair, got (0, 1.0)"),
    (lambda: v3.shrink(((2, 2),)), "SHRINK axis 0 range (2, 2) is outside [0, 3] or empty"),
    (lambda: m23.shrink(((0, 2), (1, 4))), "SHRINK axis 1 range (1, 4) is outside [0, 3] or empty"),
    (lambda: v3.shrink(((-1, 2),)), "SHRINK axis 0 range (-1, 2) is outside [0, 3] or empty"),
    # REDUCE
    (lambda: UOp(Ops.REDUCE, (), (Ops.ADD, 1)), "REDUCE takes 1 source, got 0"),
    (lambda: v3.reduce(Ops.SIN), "REDUCE arg must be (op, k) with op ADD, MUL or MAX, got (Ops.SIN, 1)"),
    (
        lambda: UOp(Ops.REDUCE, (v3,), Ops.ADD),
        "REDUCE arg must be (op, k) with op ADD, MUL or MAX, got Ops.ADD",
    ),
    (lambda: v3.reduce(Ops.ADD, 2), "REDUCE of 2 axes on a value of rank 1"),
    (lambda: v3.reduce(Ops.ADD, 0), "REDUCE of 0 axes on a value of rank 1"),
    (lambda: p0.reduce(Ops.MAX), "REDUCE of 1 axes on a value of rank 0"),
    # sugar
    (lambda: p0.broadcast((2,)).broadcast((3,)), "broadcast needs a scalar, got shape (2,)"),
]


@pytest.mark.parametrize(("build", "message"), ERRORS, ids=[m for _, m in ERRORS])
def test_error_message(build, message):
    with pytest.raises(UOpError) as e:
        build()
    assert str(e.value) == message


def test_uop_error_is_a_value_error():
    assert issubclass(UOpError, ValueError)


def test_derived_types_and_shapes():
    s = UOp.stack(m23, m23)
    cases = [
        (p0 < 1, dtypes.bool, ()),
        (f0.ne(1.0), dtypes.bool, ()),
        (b0.where(f0, 2.0), dtypes.f32, ()),
        (p0.cast(dtypes.f32), dtypes.f32, ()),
        (v3.cast(dtypes.bool), dtypes.bool, (3,)),
        (s, dtypes.f32, (2, 2, 3)),
        (s.index(1), dtypes.f32, (2, 3)),
        (s.index(1, p0), dtypes.f32, (3,)),
        (s.index(), dtypes.f32, (2, 2, 3)),
        (m23.reshape((3, 2, 1)), dtypes.f32, (3, 2, 1)),
        (m23.reshape((3, 2, 1)).expand((3, 2, 4)), dtypes.f32, (3, 2, 4)),
        (s.permute((2, 0, 1)), dtypes.f32, (3, 2, 2)),
        (m23.shrink(((1, 2), (0, 2))), dtypes.f32, (1, 2)),
        (s.reduce(Ops.MAX, 2), dtypes.f32, (2,)),
        (s.reduce(Ops.ADD, 3), dtypes.f32, ()),
        ((m23 * 2.0).call(m23, name="dbl"), dtypes.f32, (2, 3)),
        (UOp.range(4, "i") * 2, dtypes.i32, ()),
    ]
    for u, dtype, shape in cases:
        assert (u.dtype, u.shape) == (dtype, shape), u


# ---------------------------------------------------------------------------
# RANGE identity


def test_range_identity():
    i, j = UOp.range(4, "i"), UOp.range(4, "j")
    assert i is UOp.range(4, "i") and i is UOp.range(UOp.const(4), "i")
    assert i is not j  # two loops of one extent are two variables
    assert i.src == (UOp.const(4),) and i.arg == "i"
    assert (i + j).toposort() == [UOp.const(4), i, j, i + j]
    assert UOp.range(p0, ("loop", 0)) is UOp.range(p0, ("loop", 0)) and UOp.range(5, "i") is not i


# ---------------------------------------------------------------------------
# sugar


def test_operator_sugar():
    assert p0 + 1 is UOp(Ops.ADD, (p0, UOp.const(1)))
    assert 1 + p0 is UOp(Ops.ADD, (UOp.const(1), p0))
    assert 2 * p0 is UOp(Ops.MUL, (UOp.const(2), p0))
    assert p0 // 3 is UOp(Ops.FLOORDIV, (p0, UOp.const(3)))
    assert 7 // p0 is UOp(Ops.FLOORDIV, (UOp.const(7), p0))
    assert p0 % 3 is UOp(Ops.FLOORMOD, (p0, UOp.const(3)))
    assert 7 % p0 is UOp(Ops.FLOORMOD, (UOp.const(7), p0))
    assert (p0 < 3) is UOp(Ops.CMPLT, (p0, UOp.const(3)))
    assert (p0 > 3) is UOp(Ops.CMPLT, (UOp.const(3), p0))
    assert p0 - 1 is p0 + UOp.const(1) * -1
    assert 5 - p0 is UOp.const(5) + p0 * -1
    assert -p0 is p0 * -1
    assert -f0 is f0 * UOp.const(-1.0)  # Python scalars take the node's dtype
    assert f0 + 1 is f0 + UOp.const(1.0)
    assert p0.ne(0) is UOp(Ops.CMPNE, (p0, UOp.const(0)))
    assert p0.maximum(0) is UOp(Ops.MAX, (p0, UOp.const(0)))
    assert m23 * 2 is m23 * UOp.const(2.0, shape=(2, 3))  # and its shape
    assert (b0.where(1, 0)) is UOp(Ops.WHERE, (b0, UOp.const(1), UOp.const(0)))
    assert b0.where(f0, 0) is UOp(Ops.WHERE, (b0, f0, UOp.const(0.0)))
    assert b0.where(1, f0) is UOp(Ops.WHERE, (b0, UOp.const(1.0), f0))
    c3 = UOp.param(1, dtypes.bool, (3,))
    assert c3.where(1, 0) is UOp(Ops.WHERE, (c3, UOp.const(1, shape=(3,)), UOp.const(0, shape=(3,))))
    assert p0.cast(dtypes.f32) is UOp(Ops.CAST, (p0,), dtypes.f32)
    assert v3.index(1) is UOp(Ops.INDEX, (v3, UOp.const(1)))
    assert f0.recip().op is Ops.RECIP and f0.sin().op is Ops.SIN and f0.sqrt().op is Ops.SQRT
    assert f0.exp2().op is Ops.EXP2 and f0.log2().op is Ops.LOG2
    assert m23.reduce(Ops.ADD) is UOp(Ops.REDUCE, (m23,), (Ops.ADD, 1))
    assert m23.shrink([[0, 1], [0, 2]]).arg == ((0, 1), (0, 2))
    assert (p0 * p0).call(7, name="sq") is UOp(Ops.CALL, (p0 * p0, UOp.const(7)), "sq")
    assert UOp.stack(1, p0) is UOp(Ops.STACK, (UOp.const(1), p0))


def test_replace():
    u = p0 + 1
    assert u.replace() is u
    assert u.replace(src=(p1, UOp.const(1))) is p1 + 1
    assert UOp.range(4, "i").replace(arg="j") is UOp.range(4, "j")
    assert m23.reduce(Ops.ADD).replace(arg=(Ops.MAX, 2)) is m23.reduce(Ops.MAX, 2)


# ---------------------------------------------------------------------------
# traversals are iterative

DEPTH = 20_000


def _chain(leaf: UOp) -> UOp:
    x = leaf
    for k in range(DEPTH):
        x = x + k
    return x


def test_deep_chain_toposort_substitute_call_params():
    x = _chain(p0)
    order = x.toposort()
    assert len(order) == 2 * DEPTH + 1  # p0, the constants 0..DEPTH-1 and DEPTH ADDs
    assert order[0] is p0 and order[-1] is x
    assert x.size == len(order)
    assert x.substitute({p0: p1}) is _chain(p1)
    assert x.substitute({}) is x
    assert call_params(x) == [p0]
    assert rebuild(x, lambda u: UOp.const(5) if u is p0 else None) is _chain(UOp.const(5))
    assert repr(x) == (  # elided below three levels
        "UOp(Ops.ADD, src=(UOp(Ops.ADD, src=(UOp(Ops.ADD, src=(UOp(Ops.ADD, src=(...)), "
        "UOp(Ops.CONST, arg=19997))), UOp(Ops.CONST, arg=19998))), UOp(Ops.CONST, arg=19999)))"
    )
    body = x.call(7, name="deep")  # type checking a CALL walks the body too
    assert body.dtype is dtypes.i32
    assert pickle.loads(pickle.dumps(body)) is body  # pickling is iterative too


def test_deep_stack_and_call_nesting():
    x = p0
    for _ in range(DEPTH // 4):
        x = UOp.stack(x).index(0)
    assert x.shape == () and len(x.toposort()) == 2 * (DEPTH // 4) + 2
    f = p0 + 1
    for _ in range(2000):  # CALLs nested in CALL bodies
        f = f.call(p0, name="f")
    assert call_params(f) == [p0]
    assert f.substitute({p0: p1}).src[0] is f.src[0]


# ---------------------------------------------------------------------------
# scoping: a CALL's body is a binder


def _fgsq():
    sq = p0 * p0
    g = sq.call(p0, name="sq") * 2
    f = g.call(p0 + 1, name="g")
    return sq, g, f


def test_call_params_never_enter_a_nested_call_body():
    _, g, f = _fgsq()
    assert call_params(g) == [p0]
    assert call_params(f) == [p0]
    # the inner body uses slot 1, but that is its own business: only the argument counts outside
    inner = (p0 + p1).call(p0, UOp.const(3), name="h")
    assert call_params(inner) == [p0]
    assert call_params(inner * 2 + p1) == [p0, p1]
    assert call_params((p0 + p1).call(UOp.const(1), UOp.const(3))) == []
    assert call_params(UOp.stack(v3, v3) + 1) == [v3]


def test_substitute_never_enters_a_nested_call_body():
    sq, g, f = _fgsq()
    out = g.substitute({p0: p0 + 1})  # scoped inline of g at p0 + 1 (section 2.6)
    assert out is (sq.call(p0 + 1, name="sq")) * 2
    assert out.src[0].src[0] is sq  # sq's body untouched
    # the naive version (entering bodies) is the chapter's bug: sq's body changes
    naive = rebuild(g, {p0: p0 + 1}.get, enter_call_bodies=True)
    assert naive.src[0].src[0] is (p0 + 1) * (p0 + 1)
    # substituting a constant for p0: the scoped version keeps sq well-formed ...
    assert g.substitute({p0: UOp.const(6)}) is sq.call(6, name="sq") * 2
    # ... the naive one removes sq's PARAM, and rebuilding the inner CALL fails (the "lucky case")
    with pytest.raises(UOpError) as e:
        rebuild(g, {p0: UOp.const(6)}.get, enter_call_bodies=True)
    assert str(e.value) == "CALL needs params 0..0, body has []"
    # a CALL at the root is a binder too: its arguments change, its body does not
    assert f.substitute({p0: p1}) is g.call(p1 + 1, name="g")


# ---------------------------------------------------------------------------
# the strategies other tests build on


def test_programs_cover_every_op():
    seen: set[Ops] = set()

    @settings(max_examples=150, deadline=None, phases=[Phase.generate])
    @given(programs(ranges=True))
    def collect(prog: UOp) -> None:
        seen.update(u.op for u in prog.toposort())

    collect()
    assert seen == set(Ops)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_programs_have_compact_params_and_fitting_inputs(data):
    prog = data.draw(programs(ranges=True))
    params = call_params(prog)
    assert [p.arg.slot for p in params] == list(range(len(params)))
    assert len(prog.toposort()) < 200
    inputs = data.draw(inputs_for(prog))
    for p in params:
        v = inputs[p.arg.slot]
        for dim in p.shape:
            assert isinstance(v, list) and len(v) == dim
            v = v[0]
        assert not isinstance(v, list)
    for r, val in data.draw(range_bindings(prog)).items():
        assert 0 <= val < r.src[0].arg


@settings(max_examples=60, deadline=None)
@given(closed_programs(dtypes=(dtypes.i32,), shaped=False, calls=True))
def test_closed_programs_restricted_to_one_dtype(prog):
    assert call_params(prog) == []
    assert {u.dtype for u in prog.toposort()} == {dtypes.i32}
    assert all(u.shape == () for u in prog.toposort())


@settings(max_examples=60, deadline=None)
@given(programs(ops={Ops.ADD, Ops.MUL}, shaped=False, calls=False, dtypes=(dtypes.i32, dtypes.f32)))
def test_programs_restricted_to_some_ops(prog):
    assert {u.op for u in prog.toposort()} <= {Ops.ADD, Ops.MUL, Ops.CONST, Ops.PARAM}


def test_prod():
    assert prod(()) == 1 and prod((2, 3, 4)) == 24
