"""Every bundled example parses, round-trips, and carries a well-formed header.

examples/*.uir are the chapter's programs (and the cases of docs/DESIGN.md, "Known defects"). Other tests
evaluate them and compare with their `# expect:`; this file checks that the files themselves are
what they claim: canonical listings (what to_uir prints), a `#` header saying what each one is, and
inputs that fit the program's PARAMs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.examples import load_example
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import parse_uir, to_uir
from eqsat_uopc.ir.uop import UOp, call_params

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(EXAMPLES.glob("*.uir"))

# files written with the .uir sugar (so their text is not what to_uir prints)
SUGARED = {"movement_reduce.uir"}

CHAPTER_PROGRAMS = {
    "stack_mul_add",
    "stack_mul_add_10",
    "where_stack",
    "index_stack",
    "index_out_of_bounds",
    "movement_reduce",
    "call_sq",
    "nested_calls",
    "distribute",
    "neg_zero_add",
    "bind",
    "b2i_where",
    "b2i_where_bool",
    "trace_program",
    "strength_reduce",
    "exercise1_mul_one",
    "exercise8_divmod",
    "square_chain",
    "cmplt_self_shaped",
    "mod_neg_floordiv",
    "f32_literal_compare",
}


def _program_lines(text: str) -> str:
    return "".join(line + "\n" for line in text.split("\n") if line.strip() and not line.startswith("#"))


def test_every_chapter_program_is_an_example():
    assert {f.stem for f in FILES} == CHAPTER_PROGRAMS


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_example_parses_and_round_trips(path: Path):
    text = path.read_text()
    ex = load_example(path)
    assert parse_uir(to_uir(ex.program)) is ex.program
    if path.name not in SUGARED:
        assert _program_lines(text) == to_uir(ex.program)  # canonical: exactly what to_uir prints
    assert text.startswith("# ")  # a header saying what the program is
    assert (ex.expect is None) != (ex.expect_error is None)  # exactly one expectation
    params = call_params(ex.program)
    if ex.inputs is None:
        assert params == []
    else:
        assert [p.arg.slot for p in params] == list(range(len(ex.inputs)))


def test_movement_reduce_sugar_prints_the_chapter_listing():
    # section 2.6: `mul %1, 2.0` became a broadcast constant (RESHAPE + EXPAND)
    ex = load_example(EXAMPLES / "movement_reduce.uir")
    assert to_uir(ex.program) == (
        "%0 = stack 1.0, 2.0, 3.0\n"
        "%1 = stack %0, %0\n"
        "%2 = reshape 2.0, (1, 1)\n"
        "%3 = expand %2, (2, 3)\n"
        "%4 = mul %1, %3\n"
        "%5 = permute %4, (1, 0)\n"
        "%6 = reduce %5 : op=add pop=1\n"
    )
    row = UOp.stack(1.0, 2.0, 3.0)
    assert ex.program is (UOp.stack(row, row) * 2.0).permute((1, 0)).reduce(Ops.ADD, 1)


def test_examples_are_the_programs_the_chapter_builds():
    p0, p1 = UOp.param(0, dtypes.i32), UOp.param(1, dtypes.i32)
    a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
    sq = p0 * p0
    g = sq.call(p0, name="sq") * 2
    f = g.call(p0 + 1, name="g")
    built = {
        "stack_mul_add": a * b + a,
        "where_stack": (a < UOp.stack(2, 2, 2)).where(a, b),
        "index_stack": UOp.stack(a, b).index(1).index(2),
        "call_sq": sq.call(7, name="sq"),
        "nested_calls": f.call(5, name="f"),
        "distribute": (p0 * 2 + p1) * 3,
        "neg_zero_add": UOp.const(-0.0) + UOp.const(0.0),
        "bind": (p0 + 2) * p1 + p0 * 0,
        "b2i_where": (p0 < p1).where(1, 0),
        "b2i_where_bool": (p0 < p1).where(True, False),
        "trace_program": (p0 + 2) * 3 + (UOp.const(1) + UOp.const(4)),
    }
    for name, program in built.items():
        assert load_example(EXAMPLES / f"{name}.uir").program is program, name


def test_example_expectations():
    got = {f.stem: (load_example(f).inputs, load_example(f).expect) for f in FILES}
    assert got["stack_mul_add"] == (None, [11, 42, 93])
    assert got["nested_calls"] == (None, 72)
    assert got["movement_reduce"] == (None, [4.0, 8.0, 12.0])
    assert got["bind"] == ([5, 3], 21)
    assert got["cmplt_self_shaped"] == ([[1, 2, 3]], [False, False, False])
    assert load_example(EXAMPLES / "index_out_of_bounds.uir").expect_error == (
        "IndexOutOfBoundsError: index 5 out of bounds for STACK of 3"
    )


def test_chapter_listings_verbatim():
    # the listings as the chapter prints them (sections 2.4 to 2.6)
    assert to_uir(load_example(EXAMPLES / "stack_mul_add.uir").program) == (
        "%0 = stack 1, 2, 3\n%1 = stack 10, 20, 30\n%2 = mul %0, %1\n%3 = add %2, %0\n"
    )
    assert to_uir(load_example(EXAMPLES / "call_sq.uir").program) == (
        "%0 = param : slot=0 dtype=i32\n%1 = mul %0, %0\n%2 = call %1, 7 : name=sq\n"
    )
    assert to_uir(load_example(EXAMPLES / "b2i_where.uir").program) == (
        "%0 = param : slot=0 dtype=i32\n%1 = param : slot=1 dtype=i32\n"
        "%2 = cmplt %0, %1\n%3 = where %2, 1, 0\n"
    )
