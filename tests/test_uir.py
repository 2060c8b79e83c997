"""The .uir text format: exact printing, exact parsing back, the sugar, and positioned errors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.ir.dtype import dtypes, f32_from_bits
from eqsat_uopc.ir.examples import Example, read_example
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import UirError, load_uir, parse_uir, to_uir, uir_line
from eqsat_uopc.ir.uop import ParamArg, UOp
from tests.strategies import F32_EDGES, I32_EDGES, programs, scalars

p0 = UOp.param(0, dtypes.i32)
f0 = UOp.param(0, dtypes.f32)


# ---------------------------------------------------------------------------
# round trips


@settings(max_examples=150, deadline=None)
@given(programs(ranges=True, exact=False))
def test_round_trip_random_programs(program: UOp):
    assert parse_uir(to_uir(program)) is program


@settings(max_examples=100, deadline=None)
@given(st.one_of(scalars(dtypes.bool), scalars(dtypes.i32), scalars(dtypes.f32, exact=False)))
def test_round_trip_constants(v):
    c = UOp.const(v)
    assert parse_uir(to_uir(c)) is c
    s = UOp.stack(c, c)  # inlined as an operand too
    assert parse_uir(to_uir(s)) is s


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (7, "7"),
        (-3, "-3"),
        (0, "0"),
        (-(2**31), "-2147483648"),
        (2**31 - 1, "2147483647"),
        (2.0, "2.0"),
        (1e20, "1e+20"),
        (-0.0, "-0.0"),
        (0.0, "0.0"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (16777217.0, "16777217.0"),  # not an f32 value: kept as the double it is
        (0.1, "0.1"),
        (f32_from_bits(1), "1.401298464324817e-45"),
        (True, "true"),
        (False, "false"),
    ],
)
def test_literal_spelling(value, text):
    c = UOp.const(value)
    assert to_uir(c) == f"%0 = const {text}\n"
    back = parse_uir(to_uir(c))
    assert back is c
    assert type(back.arg) is type(value)
    if isinstance(value, float) and not math.isnan(value):
        assert math.copysign(1, back.arg) == math.copysign(1, value)  # -0.0 stays -0.0
    assert to_uir(UOp.stack(c)) == f"%0 = stack {text}\n"


def test_four_zeros_and_one_nan_stay_apart_in_text():
    for v, dt in ((0, dtypes.i32), (0.0, dtypes.f32), (-0.0, dtypes.f32), (False, dtypes.bool)):
        c = parse_uir(f"%0 = const {to_uir(UOp.const(v)).split()[-1]}")
        assert c is UOp.const(v) and c.dtype is dt
    assert parse_uir("%0 = const nan") is parse_uir("%7 = add nan, 0.0\n%8 = const nan")


def test_edge_scalars_round_trip():
    for v in I32_EDGES + F32_EDGES:
        assert parse_uir(to_uir(UOp.const(v))) is UOp.const(v)


# ---------------------------------------------------------------------------
# printing, op by op


def _last_line(u: UOp) -> str:
    return to_uir(u).splitlines()[-1]


def test_every_op_spelling():
    x3 = UOp.param(1, dtypes.f32, (2, 3))
    v = UOp.stack(1, 2, 3)
    cases = {
        UOp.const(5): "%0 = const 5",
        p0: "%0 = param : slot=0 dtype=i32",
        UOp.param(2, dtypes.f32, (3,)): "%0 = param : slot=2 dtype=f32 shape=(3,)",
        UOp(Ops.PARAM, (), ParamArg(0, dtypes.bool, (2, 3), "global")): (
            "%0 = param : slot=0 dtype=bool shape=(2, 3) addrspace=global"
        ),
        UOp(Ops.PARAM, (), ParamArg(0, dtypes.i32, (), "shared mem")): (
            '%0 = param : slot=0 dtype=i32 addrspace="shared mem"'
        ),
        UOp.const(5) + 2: "%0 = add 5, 2",
        p0 * p0: "%1 = mul %0, %0",
        p0.maximum(3): "%1 = max %0, 3",
        p0 < 3: "%1 = cmplt %0, 3",
        p0.ne(3): "%1 = cmpne %0, 3",
        p0 // 3: "%1 = floordiv %0, 3",
        p0 % 3: "%1 = floormod %0, 3",
        (p0 < 1).where(1, 0): "%2 = where %1, 1, 0",
        f0.recip(): "%1 = recip %0",
        f0.exp2(): "%1 = exp2 %0",
        f0.log2(): "%1 = log2 %0",
        f0.sqrt(): "%1 = sqrt %0",
        f0.sin(): "%1 = sin %0",
        p0.cast(dtypes.f32): "%1 = cast %0 : dtype=f32",
        UOp.stack(1.0, 2.0, 3.0): "%0 = stack 1.0, 2.0, 3.0",
        v.index(p0): "%2 = index %0, %1",
        UOp.stack(v, v).index(1, 2): "%2 = index %1, 1, 2",
        UOp.const(2.0).reshape((1, 1)): "%0 = reshape 2.0, (1, 1)",
        v.reshape((3, 1)): "%1 = reshape %0, (3, 1)",
        UOp.stack(1).reshape(()): "%1 = reshape %0, ()",
        UOp.const(2.0).reshape((1, 1)).expand((2, 3)): "%1 = expand %0, (2, 3)",
        x3.permute((1, 0)): "%1 = permute %0, (1, 0)",
        v.permute((0,)): "%1 = permute %0, (0,)",
        x3.shrink(((0, 1), (1, 3))): "%1 = shrink %0, ((0, 1), (1, 3))",
        v.shrink(((1, 2),)): "%1 = shrink %0, ((1, 2),)",
        x3.reduce(Ops.ADD, 1): "%1 = reduce %0 : op=add pop=1",
        x3.reduce(Ops.MAX, 2): "%1 = reduce %0 : op=max pop=2",
        x3.reduce(Ops.MUL, 1): "%1 = reduce %0 : op=mul pop=1",
        (p0 * p0).call(7, name="sq"): "%2 = call %1, 7 : name=sq",
        UOp(Ops.CALL, (UOp.const(1),)): "%0 = call 1",
        UOp(Ops.CALL, (UOp.const(1),), "two words"): '%0 = call 1 : name="two words"',
        UOp.range(4, "r0"): "%0 = range 4 : id=r0",
        UOp.range(p0, 3): "%1 = range %0 : id=3",
        UOp.range(4, "3"): '%0 = range 4 : id="3"',
        UOp.range(4, ("loop", 0)): "%0 = range 4 : id=(loop, 0)",
        UOp.range(4, ("a",)): "%0 = range 4 : id=(a,)",
    }
    for u, line in cases.items():
        assert _last_line(u) == line
        assert parse_uir(to_uir(u)) is u


def test_listing_numbers_nodes_in_toposort_order_skipping_inlined_constants():
    # section 2.4, the graph_rewrite side of the distribution listing
    p1 = UOp.param(1, dtypes.i32)
    assert to_uir(p0 * 6 + p1 * 3) == (
        "%0 = param : slot=0 dtype=i32\n"
        "%1 = mul %0, 6\n"
        "%2 = param : slot=1 dtype=i32\n"
        "%3 = mul %2, 3\n"
        "%4 = add %1, %3\n"
    )
    # section 2.5, the bind example after binding p0 = 5
    bound = (UOp.const(5) + 2) * p1 + UOp.const(5) * 0
    assert to_uir(bound) == (
        "%0 = add 5, 2\n%1 = param : slot=1 dtype=i32\n%2 = mul %0, %1\n%3 = mul 5, 0\n%4 = add %2, %3\n"
    )


def test_unprintable_identifier_is_a_uir_error():
    with pytest.raises(UirError) as e:
        to_uir(UOp.range(4, 1.5) + 1)
    assert str(e.value) == (
        "line 1, column 1: RANGE: cannot print float 1.5 (.uir identifiers are str, int or tuples of them)"
    )


# ---------------------------------------------------------------------------
# parsing: layout, names, sugar


def test_comments_blank_lines_crlf_and_free_names():
    text = (
        "# a program\r\n\r\n%a = param : slot=0 dtype=i32   # input\r\n"
        "  %b=mul %a,%a\r\n%9 = call %b, 7 : name=sq\r\n"
    )
    assert parse_uir(text) is (p0 * p0).call(7, name="sq")


def test_last_line_is_the_root_and_dead_lines_are_allowed():
    assert parse_uir("%0 = add 1, 2\n%1 = mul 3, 4") is UOp.const(3) * 4


def test_keys_in_any_order():
    a = parse_uir("%0 = param : dtype=f32 shape=(3,) slot=1")
    assert a is UOp.param(1, dtypes.f32, (3,))
    assert parse_uir("%0 = stack 1, 2\n%1 = reduce %0 : pop=1 op=max") is UOp.stack(1, 2).reduce(Ops.MAX, 1)


def test_sugar_broadcasts_a_scalar_constant_operand():
    x = UOp.param(0, dtypes.f32, (2, 3))
    text = "%0 = param : slot=0 dtype=f32 shape=(2, 3)\n%1 = mul %0, 2.0"
    assert parse_uir(text) is x * 2.0
    assert parse_uir(text) is x * UOp.const(2.0).reshape((1, 1)).expand((2, 3))
    assert (
        parse_uir("%0 = param : slot=0 dtype=f32 shape=(2, 3)\n%1 = add 1.0, %0")
        is UOp.const(1.0, shape=(2, 3)) + x
    )
    # a %name of a CONST counts as a constant operand too
    assert parse_uir("%0 = param : slot=0 dtype=f32 shape=(2, 3)\n%1 = const 2.0\n%2 = mul %0, %1") is x * 2.0
    # WHERE: condition and branches
    c = UOp.param(0, dtypes.bool, (3,))
    assert parse_uir("%0 = param : slot=0 dtype=bool shape=(3,)\n%1 = where %0, 1, 0") is c.where(1, 0)
    assert c.where(1, 0).shape == (3,)
    v = UOp.param(1, dtypes.i32, (3,))
    assert parse_uir("%0 = param : slot=1 dtype=i32 shape=(3,)\n%1 = where true, %0, 0") is (
        UOp.const(True, shape=(3,)).where(v, UOp.const(0, shape=(3,)))
    )
    # STACK elements
    assert parse_uir("%0 = param : slot=1 dtype=i32 shape=(3,)\n%1 = stack %0, 7") is UOp.stack(
        v, UOp.const(7, shape=(3,))
    )


def test_sugar_leaves_scalar_nodes_and_index_operands_alone():
    v = UOp.param(1, dtypes.i32, (3,))
    assert parse_uir("%0 = param : slot=1 dtype=i32 shape=(3,)\n%1 = index %0, 2") is v.index(2)
    with pytest.raises(UirError) as e:  # a scalar that is not a constant is not broadcast
        parse_uir("%0 = param : slot=1 dtype=i32 shape=(3,)\n%1 = param : slot=0 dtype=i32\n%2 = add %0, %1")
    assert str(e.value) == "line 3, column 6: ADD operands must have one shape, got (3,) and ()"


def test_load_uir_names_the_file(tmp_path):
    path = tmp_path / "bad.uir"
    path.write_text("%0 = add 1, 2\n%1 = mul %0, %7\n")
    with pytest.raises(UirError) as e:
        load_uir(path)
    assert (
        str(e.value)
        == f"{path}: line 2, column 14: undefined %7 (a %name must be defined on an earlier line)"
    )
    assert (e.value.line, e.value.column, e.value.source) == (2, 14, str(path))
    assert isinstance(e.value, ValueError)
    path.write_text("%0 = add 1, 2\n")
    assert load_uir(path) is UOp.const(1) + 2


# ---------------------------------------------------------------------------
# errors: every one positioned, with what was expected

ERRORS = [
    (
        "%0 = foo 1",
        "line 1, column 6: unknown op 'foo' (expected one of add, call, cast, cmplt, cmpne, const, exp2, "
        "expand, floordiv, floormod, index, log2, max, mul, param, permute, range, recip, reduce, reshape, "
        "shrink, sin, sqrt, stack, where)",
    ),
    ("%0 = add %1, 2", "line 1, column 10: undefined %1 (a %name must be defined on an earlier line)"),
    ("%0 = call %0", "line 1, column 11: undefined %0 (a %name must be defined on an earlier line)"),
    ("%0 = add 1, 2\n%0 = add 1, 2", "line 2, column 1: %0 is already defined on line 1"),
    (
        "%0 = param : slot=0 dtype=f32\n%1 = mul %0, 2",
        "line 2, column 14: literal 2 is i32 but mul needs f32 operands (like %0); a literal has its own "
        "dtype: write 2.0 for an f32 constant",
    ),
    (
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2.0",
        "line 2, column 14: literal 2.0 is f32 but mul needs i32 operands (like %0); a literal has its own "
        "dtype: write 2 for an i32 constant",
    ),
    (
        "%0 = param : slot=0 dtype=bool\n%1 = cmpne %0, 1",
        "line 2, column 16: literal 1 is i32 but cmpne needs bool operands (like %0); a literal has its own "
        "dtype: write true or false for a bool constant",
    ),
    (
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, 2.5",
        "line 2, column 14: literal 2.5 is f32 but mul needs i32 operands (like %0); a literal has its own "
        "dtype: write an i32 literal",
    ),
    (
        "%0 = param : slot=0",
        "line 1, column 20: param needs dtype= (expected dtype= slot= [addrspace=] [bounds=] [shape=])",
    ),
    (
        "%0 = param : slot=0 dtype=i33",
        "line 1, column 27: expected a dtype (bool, i32 or f32), got a word 'i33'",
    ),
    ("%0 = param : slot=0 dtype=i32 slot=1", "line 1, column 31: key 'slot' given twice"),
    (
        "%0 = param : slot=0 dtype=i32 size=3",
        "line 1, column 31: unknown key 'size' for param "
        "(expected dtype= slot= [addrspace=] [bounds=] [shape=])",
    ),
    ("%0 = param : slot=-1 dtype=i32", "line 1, column 6: PARAM slot must be a non-negative int, got -1"),
    (
        "%0 = param : slot=0 dtype=i32 shape=(0,)",
        "line 1, column 6: PARAM shape must be a tuple of positive ints, got (0,)",
    ),
    (
        "%0 = param : slot=0 dtype=i32 addrspace=(a, b)",
        "line 1, column 41: expected an address space (a word or a \"string\"), got '('",
    ),
    ("%0 = reshape 1, (2,)", "line 1, column 6: RESHAPE from () to (2,) changes the size"),
    ("%0 = reshape 1, 2", "line 1, column 17: reshape needs a tuple of ints as its second operand"),
    ("%0 = reshape 1, (1, x)", "line 1, column 21: expected an int, got a word 'x'"),
    ("%0 = add 1 2", "line 1, column 12: expected ',', ':' or the end of the line, got an int '2'"),
    (
        "%0 = add 1,",
        "line 1, column 12: expected an operand (a %name, a literal such as 7, 2.0, true, or a tuple), "
        "got the end of the line",
    ),
    (
        "%0 = add 1, @x",
        "line 1, column 13: unexpected character '@'",
    ),
    (
        "%0 = add 1, foo",
        "line 1, column 13: expected an operand (a %name, a literal such as 7, 2.0, true, or a tuple), "
        "got a word 'foo'",
    ),
    ("%0 = add 1", "line 1, column 11: add takes 2 operands, got 1 operand"),
    ("%0 = add 1, 2, 3", "line 1, column 16: add takes 2 operands, got 3 operands"),
    ("%0 = add 1, 2 : name=x", "line 1, column 15: add takes no key=value arguments"),
    ("%0 = add (1, 2), 3", "line 1, column 10: add operands are %names or literals, not tuples"),
    ("", "line 1, column 1: empty program: expected at least one '%N = op ...' line"),
    ("# only a comment\n\n", "line 1, column 1: empty program: expected at least one '%N = op ...' line"),
    (
        "%0 = param : slot=0 dtype=i32 shape=(2,)\n%1 = index %0, 2.0",
        "line 2, column 6: INDEX index 0 must be an i32 scalar, got f32 ()",
    ),
    (
        "%0 = stack 1, 2\n%1 = index %0, 0, 0",
        "line 2, column 6: INDEX has 2 indices into a value of rank 1",
    ),
    ("%0 = const 99999999999", "line 1, column 12: CONST i32 value 99999999999 is outside the int32 range"),
    (
        "%0 = stack 1, 2\n%1 = const %0",
        "line 2, column 12: const takes a literal (7, 2.0, true), not a %name or a tuple",
    ),
    ("%0 = const 1, 2", "line 1, column 15: const takes one literal, got 2 operands"),
    ("%0 = range 3", "line 1, column 13: range needs id= (expected id=)"),
    (
        "%0 = range 3 : id=1.5",
        'line 1, column 19: expected an identifier (a word, an int, a "string" or a tuple), '
        "got a float '1.5'",
    ),
    ("%0 = range 3.0 : id=r", "line 1, column 6: RANGE extent must be an i32 scalar, got f32 ()"),
    ("%0 = range 4 : id=r0 extra", "line 1, column 22: unknown key 'extra' for range (expected id=)"),
    (
        "%0 = stack 1, 2\n%1 = shrink %0, ((0, 3),)",
        "line 2, column 6: SHRINK axis 0 range (0, 3) is outside [0, 2] or empty",
    ),
    ("%0 = stack 1, 2\n%1 = shrink %0, (0, 3)", "line 2, column 18: expected '(', got an int '0'"),
    (
        "%0 = stack 1, 2\n%1 = shrink %0, ((0, 1, 2),)",
        "line 2, column 18: expected a (begin, end) pair, got 3 ints",
    ),
    ("%0 = where 1, 2, 3", "line 1, column 6: WHERE condition must be bool, got i32"),
    (
        "%0 = stack 1, 2\n%1 = reduce %0 : op=min pop=1",
        "line 2, column 21: expected a reduce op (add, max or mul), got a word 'min'",
    ),
    (
        "%0 = stack 1, 2\n%1 = reduce %0 : op=add pop=2",
        "line 2, column 6: REDUCE of 2 axes on a value of rank 1",
    ),
    ("%0 = stack 1, 2\n%1 = reduce %0 : op=add", "line 2, column 24: reduce needs pop= (expected op= pop=)"),
    (
        "%0 = stack 1, 2\n%1 = expand %0, (3,)",
        "line 2, column 6: EXPAND of axis 0 from 2 to 3: only an axis of size 1 can expand",
    ),
    (
        "%0 = stack 1, 2\n%1 = permute %0, (1,)",
        "line 2, column 6: PERMUTE order (1,) is not a permutation of range(1)",
    ),
    (
        "%0 = cast 1 : dtype=float",
        "line 1, column 21: expected a dtype (bool, i32 or f32), got a word 'float'",
    ),
    ("%0 = cast 1", "line 1, column 12: cast needs dtype= (expected dtype=)"),
    ("%0 = cast 1 : dtype=f32 dtype=i32", "line 1, column 25: key 'dtype' given twice"),
    ("%0 = call 5, 7 : name=sq", "line 1, column 6: CALL needs params 0..0, body has []"),
    (
        "%0 = param : slot=0 dtype=i32\n%1 = call %0, 2.0",
        "line 2, column 6: CALL argument 0 is f32 (), param 0 is i32 ()",
    ),
    ("0 = add 1, 2", "line 1, column 1: expected a '%N = op ...' line, got an int '0'"),
    ("%0 add 1, 2", "line 1, column 4: expected '=', got a word 'add'"),
    ("%0 = 5", "line 1, column 6: expected an op name, got an int '5'"),
    ("%0 = stack", "line 1, column 11: stack takes at least one element, got 0 operands"),
    ("%0 = stack 1, 2.0", "line 1, column 6: STACK elements must have one dtype, got i32 and f32"),
    ("%0 = sqrt 1", "line 1, column 6: SQRT needs an f32 operand, got i32"),
    ("%0 = floordiv 1.0, 2.0", "line 1, column 6: FLOORDIV needs i32 operands, got f32"),
    ("%0 = add 1, 2 :", "line 1, column 15: add takes no key=value arguments"),
    (
        '%0 = add 1, 2\n%1 = add %0, "x"',
        "line 2, column 14: expected an operand (a %name, a literal such as 7, "
        "2.0, true, or a tuple), got a string '\"x\"'",
    ),
    (
        "%0 = add 1, 2\n\n  %1 = mul %0, %0 %0",
        "line 3, column 19: expected ',', ':' or the end of the line, got a %name '%0'",
    ),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_error_messages(text: str, message: str):
    with pytest.raises(UirError) as e:
        parse_uir(text)
    assert str(e.value) == message


_VALID = [
    "%0 = param : slot=0 dtype=f32 shape=(2, 3)\n%1 = mul %0, 2.0\n%2 = permute %1, (1, 0)\n"
    "%3 = reduce %2 : op=add pop=1\n%4 = shrink %3, ((0, 2),)\n",
    "%0 = param : slot=0 dtype=i32\n%1 = mul %0, %0\n%2 = call %1, %0 : name=sq\n%3 = range 4 : id=r0\n"
    "%4 = add %2, %3\n%5 = cmplt %4, -7\n%6 = where %5, 1.5e+20, -inf\n%7 = cast %6 : dtype=i32\n",
    "%0 = stack true, false\n%1 = stack %0, %0\n%2 = index %1, 1, 0\n%3 = reshape %1, (4,)\n"
    '%4 = expand %2, ()\n%5 = param : slot=1 dtype=bool addrspace="g m"\n',
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_VALID), st.data())
def test_mangled_text_gives_a_uir_error_or_a_program(text: str, data):
    """Whatever the damage, parse_uir returns a node or raises UirError: never anything from deep inside."""
    chars = list(text)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(chars)))
        action = data.draw(st.sampled_from(("delete", "insert", "replace")))
        junk = data.draw(st.sampled_from([*'%=,:()[]#"-.0123456789 abexnif\n\t', "inf", "nan", "true"]))
        if action == "delete" and i < len(chars):
            del chars[i]
        elif action == "insert":
            chars.insert(i, junk)
        elif i < len(chars):
            chars[i] = junk
    try:
        u = parse_uir("".join(chars))
    except UirError as e:
        assert str(e).startswith("line ")
    else:
        assert parse_uir(to_uir(u)) is u


# ---------------------------------------------------------------------------
# example headers


def test_read_example_header():
    ex = read_example("# what it is\n# inputs: [5, [1.5, -0.0], true]\n# expect: [nan, -inf]\n%0 = const 1\n")
    assert ex == Example(UOp.const(1), [5, [1.5, -0.0], True], ex.expect, None)
    assert math.isnan(ex.expect[0]) and ex.expect[1] == -math.inf
    assert math.copysign(1, ex.inputs[1][1]) == -1
    ex = read_example("# expect-error: IndexError: index 5 out of bounds for STACK of 3\n%0 = const 1\n")
    assert (ex.inputs, ex.expect, ex.expect_error) == (
        None,
        None,
        "IndexError: index 5 out of bounds for STACK of 3",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# expect: [1, 2\n%0 = const 1", "line 1, column 16: expected ',' or ']', got the end of the line"),
        (
            "# expect: 1 2\n%0 = const 1",
            "line 1, column 13: expected the end of the '# expect:' line, got an int '2'",
        ),
        ("# inputs: 5\n%0 = const 1", "line 1, column 11: expected a [list] with one value per PARAM slot"),
        ("# expect: 1\n# expect: 2\n%0 = const 1", "line 2, column 1: a second '# expect:' line"),
        (
            "# expect: foo\n%0 = const 1",
            "line 1, column 11: expected a literal (7, 2.0, true) or a [list], got a word 'foo'",
        ),
    ],
)
def test_read_example_errors(text: str, message: str):
    with pytest.raises(UirError) as e:
        read_example(text)
    assert str(e.value) == message


# ---------------------------------------------------------------------------
# the one-line form, for traces


def test_uir_line():
    assert uir_line((p0 + 2) * 3 + (UOp.const(1) + UOp.const(4))) == "add(mul(add(p0, 2), 3), add(1, 4))"
    row = UOp.stack(1.0, 2.0)
    assert uir_line(UOp.stack(row, row).permute((1, 0)).reduce(Ops.ADD, 1)) == (
        "reduce(permute(stack(stack(1.0, 2.0), stack(1.0, 2.0)), (1, 0)), add, 1)"
    )
    assert uir_line((p0 * p0).call(7, name="sq")) == "sq[mul(p0, p0)](7)"
    assert (
        uir_line((p0 < 1).where(True, False).cast(dtypes.f32))
        == "cast(where(cmplt(p0, 1), true, false), f32)"
    )
    assert uir_line(
        UOp.range(4, "r0") + UOp.const(-0.0).reshape((1,)).shrink(((0, 1),)).reshape(()).cast(dtypes.i32)
    ) == ("add(range(4, r0), cast(reshape(shrink(reshape(-0.0, (1,)), ((0, 1),)), ()), i32))")
    t = p0
    for _ in range(40):
        t = t * t
    line = uir_line(t, limit=50)
    assert len(line) == 50 and line.endswith("...")


def test_deep_programs_and_deep_nesting():
    x = p0
    for k in range(20_000):  # a 20,000-line listing: printing and parsing are iterative
        x = x + k
    assert parse_uir(to_uir(x)) is x
    with pytest.raises(UirError) as e:  # nesting is bounded: an error, not a RecursionError
        parse_uir("%0 = range 4 : id=" + "(" * 100 + ")" * 100)
    assert str(e.value) == "line 1, column 83: nested deeper than 64 levels"
    with pytest.raises(UirError) as e:
        read_example("# expect: " + "[" * 1000 + "]" * 1000 + "\n%0 = const 1")
    assert str(e.value) == "line 1, column 75: nested deeper than 64 levels"


def test_uir_line_shows_identifiers_uir_cannot_spell():
    assert uir_line(UOp.range(4, 1.5) + 1) == "add(range(4, 1.5), 1)"
