"""prove_equivalent and check_equivalent: exact verdicts on hand-made pairs, the floor div/mod
encoding against exec_alu, definedness, timeouts, f32, scopes, RANGEs and shapes."""

import random
import re

import pytest
import z3

from eqsat_uopc.corpus import caviar_dev
from eqsat_uopc.ir.dtype import dtypes, truncate
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import parse_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.interpret import interpret
from eqsat_uopc.verify import Z3Domain, check_equivalent, evaluate, prove_equivalent

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
x, y = UOp.param(0), UOp.param(1)
TRUE = UOp.const(True)


# ---------------------------------------------------------------------------
# proofs on hand-made pairs


def test_mul_two_is_add_self_proved_under_both_semantics():
    assert prove_equivalent(x * 2, x + x).status == "proved"
    assert prove_equivalent(x * 2, x + x, "no_overflow").status == "proved"


def test_lt_successor_is_refuted_under_wrap_only_at_int_max():
    p = prove_equivalent(x < x + 1, TRUE, names={0: "x"})
    assert (p.status, p.counterexample, p.values) == ("refuted", {"x": 2147483647}, (False, True))
    assert str(p) == "z3 (wrap): refuted at x = 2147483647 (first = False, second = True)"
    assert prove_equivalent(x < x + 1, TRUE, "no_overflow").status == "proved"


def test_shifted_lt_is_refuted_under_wrap_at_its_one_counterexample():
    p = prove_equivalent((x + 1) < (x + 2), TRUE)
    assert (p.status, p.counterexample, p.values) == ("refuted", {0: 2147483646}, (False, True))
    assert prove_equivalent((x + 1) < (x + 2), TRUE, "no_overflow").status == "proved"


def test_the_chapters_mod_div_defect_is_refuted():
    # (a % -8) // 2 -> (a // 2) % -4, the chapter's unguarded rule: at a = 1 it is -4 against 0
    before, after = (x % -8) // 2, (x // 2) % -4
    for sem in ("wrap", "no_overflow"):
        p = prove_equivalent(before, after, sem)
        assert p.status == "refuted"
        a = p.counterexample[0]
        want = exec_alu(Ops.FLOORDIV, dtypes.i32, [exec_alu(Ops.FLOORMOD, dtypes.i32, [a, -8]), 2])
        got = exec_alu(Ops.FLOORMOD, dtypes.i32, [exec_alu(Ops.FLOORDIV, dtypes.i32, [a, 2]), -4])
        assert p.values == (want, got) and want != got
    assert evaluate(before, {0: 1}).value == -4 and evaluate(after, {0: 1}).value == 0
    # the guarded form (c1 > 0) holds
    assert prove_equivalent((x % 8) // 2, (x // 2) % 4).status == "proved"


def test_divmod_recombination_by_a_constant_is_proved_quickly():
    assert prove_equivalent((x // 7) * 7 + x % 7, x).status == "proved"
    assert prove_equivalent((x // 19) // 38, x // 722).status == "proved"
    assert prove_equivalent((x // -3) * -3 + x % -3, x, "no_overflow").status == "proved"


# ---------------------------------------------------------------------------
# the encoding of floor division and modulo, against exec_alu


def _z3_value(program: UOp, inputs: dict[int, int], sem: str, encoding: str):
    """program's value at inputs, as the z3 encoding defines it (None where undefined)."""
    domain = Z3Domain(sem, encoding)
    [(value, defined)] = interpret(program, domain)
    s = z3.Solver()
    s.add(*domain.hypotheses)
    s.add(*[domain.params[k][1][0] == v for k, v in inputs.items()])
    assert s.check() == z3.sat
    m = s.model()
    if not z3.is_true(m.eval(z3.BoolVal(True) if defined is True else defined, model_completion=True)):
        return None
    r = m.eval(value, model_completion=True)
    return r.as_signed_long() if z3.is_bv_value(r) else r.as_long()


def test_floor_div_and_mod_match_exec_alu_on_random_values():
    rng = random.Random(7)
    edges = [0, 1, -1, 2, -2, 7, -7, I32_MAX, I32_MIN, I32_MAX - 1, I32_MIN + 1]
    pairs = [(I32_MIN, -1), (I32_MIN, 1), (5, 0), (-7, 2), (7, -2), (-7, -2), (0, -5)]
    for _ in range(25):
        a = rng.choice(edges) if rng.random() < 0.3 else rng.randint(I32_MIN, I32_MAX)
        b = rng.choice(edges) if rng.random() < 0.5 else rng.randint(-1000, 1000)
        pairs.append((a, b))
    for a, b in pairs:
        for op, program in ((Ops.FLOORDIV, x // y), (Ops.FLOORMOD, x % y)):
            want = exec_alu(op, dtypes.i32, [a, b])
            for sem, encoding in (
                ("wrap", "bv"),
                ("wrap", "int"),
                ("no_overflow", "int"),
                ("no_overflow", "bv"),
            ):
                assert _z3_value(program, {0: a, 1: b}, sem, encoding) == want, (op, a, b, sem, encoding)


def test_wrapping_add_and_mul_match_exec_alu_in_both_wrap_encodings():
    for a, b in ((I32_MAX, 1), (I32_MIN, -1), (65536, 65536), (-(2**30), 3), (12345, -6789)):
        for op, program in ((Ops.ADD, x + y), (Ops.MUL, x * y)):
            want = exec_alu(op, dtypes.i32, [a, b])
            assert _z3_value(program, {0: a, 1: b}, "wrap", "bv") == want
            assert _z3_value(program, {0: a, 1: b}, "wrap", "int") == want
            exact = a + b if op is Ops.ADD else a * b
            expect = exact if I32_MIN <= exact <= I32_MAX else None  # no_overflow: out of range is undefined
            assert _z3_value(program, {0: a, 1: b}, "no_overflow", "int") == expect
            assert _z3_value(program, {0: a, 1: b}, "no_overflow", "bv") == expect


# ---------------------------------------------------------------------------
# definedness: compare where both are defined; refinement for rewrites


def test_undefined_inputs_are_left_out_or_must_be_refined():
    zeroed = (x // y) * 0
    assert prove_equivalent(zeroed, UOp.const(0)).status == "proved"  # where both are defined
    assert prove_equivalent(zeroed, UOp.const(0), refinement=True).status == "proved"  # defines more
    p = prove_equivalent(UOp.const(0), zeroed, refinement=True)  # the reverse loses definedness
    assert (p.status, p.counterexample[1], p.values) == ("refuted", 0, (0, None))


def test_no_input_defined_for_both_is_vacuous_not_proved():
    # issue 37: x // 0 is defined nowhere, so "equal wherever both are defined" compared nothing
    p = prove_equivalent(x // 0, UOp.const(5))
    assert (p.status, p.reason) == ("vacuous", "no input is defined for both programs")
    assert str(p) == "z3 (wrap): vacuous (no input is defined for both programs)"
    assert prove_equivalent(UOp.const(5), x // 0).status == "vacuous"
    # refinement: vacuous when the first is defined nowhere; the reverse loses definedness
    p = prove_equivalent(x // 0, UOp.const(5), refinement=True)
    assert (p.status, p.reason) == ("vacuous", "no input is defined for the first program")
    p = prove_equivalent(UOp.const(5), x // 0, refinement=True)
    assert (p.status, list(p.counterexample), p.values) == ("refuted", [0], (5, None))  # at any x
    # defined nowhere together, though each is defined somewhere; under no_overflow too
    apart = (x < 0).where(x // 0, 1), (x < 0).where(1, x // 0)
    assert prove_equivalent(*apart).status == "vacuous"
    assert prove_equivalent(*apart, refinement=True).status == "refuted"
    overflowing = (
        x % 2 + I32_MAX + 1
    )  # no_overflow: defined nowhere (x % 2 + INT32_MAX is at least 2**31 - 1)
    assert prove_equivalent(overflowing, UOp.const(0)).status == "refuted"
    p = prove_equivalent(overflowing, UOp.const(0), "no_overflow", refinement=True)
    assert (p.status, p.encoding) == ("vacuous", "int")
    for encoding in ("bv", "int"):  # each encoding finds it vacuous (wrap: defined nowhere only by x // 0)
        assert prove_equivalent(x // 0, x, encodings=(encoding,)).encoding == encoding


def test_no_overflow_refinement_refuses_a_new_overflow_in_both_encodings():
    # the result may not overflow where the source does not: x + 1 - 1 overflows at INT32_MAX
    for encoding in ("int", "bv"):
        p = prove_equivalent(x, x + 1 - 1, "no_overflow", refinement=True, encodings=(encoding,))
        assert (p.status, p.counterexample, p.values, p.encoding) == (
            "refuted",
            {0: I32_MAX},
            (I32_MAX, None),
            encoding,
        )
        assert prove_equivalent(
            x + 1 - 1, x, "no_overflow", refinement=True, encodings=(encoding,)
        ).status == ("proved")
        p = prove_equivalent(
            x * 3 // 3, x * 2 * 2 // 4, "no_overflow", refinement=True, encodings=(encoding,)
        )
        assert (p.status, p.values[1]) == ("refuted", None)
        assert 2**29 <= abs(p.counterexample[0]) <= 2**31 // 3 + 1  # x * 3 fits, x * 2 * 2 does not
        # INT32_MIN // -1 overflows too
        p = prove_equivalent(x // 1, x // -1 * -1, "no_overflow", refinement=True, encodings=(encoding,))
        assert (p.status, p.counterexample, p.values) == ("refuted", {0: I32_MIN}, (I32_MIN, None))


def test_encodings_are_checked():
    msg = "encodings must be some of ('bv', 'int'), got ('real',)"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        prove_equivalent(x, x, encodings=("real",))


def test_where_is_as_defined_as_the_branch_it_selects():
    guarded = y.ne(0).where(x // y, 0)
    flipped = y.ne(0).ne(True).where(0, x // y)
    assert prove_equivalent(guarded, flipped, refinement=True).status == "proved"
    assert prove_equivalent(flipped, guarded, refinement=True).status == "proved"
    assert evaluate(guarded, {0: 5, 1: 0}).value == 0


def test_int_min_floordiv_minus_one_is_undefined_and_its_mod_is_zero():
    assert evaluate(x // -1, {0: I32_MIN}).defined is False
    assert evaluate(x % -1, {0: I32_MIN}).value == 0
    assert prove_equivalent(x % -1, UOp.const(0), refinement=True).status == "proved"
    p = prove_equivalent(x * -1, x // -1)
    assert p.status == "proved"  # equal wherever x // -1 is defined
    p = prove_equivalent(x * -1, x // -1, refinement=True)
    assert (p.status, p.counterexample, p.values) == ("refuted", {0: I32_MIN}, (I32_MIN, None))


# ---------------------------------------------------------------------------
# limits, f32, errors


def test_a_timeout_is_unknown_never_equal():
    hard = ((x * y) // (x + y)) * (x + y) + (x * y) % (x + y)
    p = prove_equivalent(hard, x * y, timeout_ms=1)
    assert (p.status, p.counterexample, p.reason) == ("unknown", None, "timeout")


# Caviar's expression 17 of bench/validation.py's sample (caviar_dev()[418]) and `optimize`'s result
# under no_overflow: the quick try proves it within a quarter of the default rlimit (about 111,000
# units), in some 0.1 s; the plain SMT core it replaced did not (it left it to the default solver)
CAVIAR_17_RESULT = """
%0 = param : slot=1 dtype=i32
%1 = floordiv %0, 4
%2 = param : slot=2 dtype=i32
%3 = floordiv %2, 8
%4 = cmplt %3, 249
%5 = where %4, %3, 249
%6 = floordiv %5, 8
%7 = max %6, 0
%8 = mul %7, 2
%9 = param : slot=3 dtype=i32
%10 = add %8, %9
%11 = mul %10, -4
%12 = mul %11, 2
%13 = add %1, %12
%14 = add %13, 8
%15 = max %14, 0
%16 = param : slot=4 dtype=i32
%17 = add %16, %11
%18 = mul %17, 2
%19 = mul %16, 8
%20 = add %19, 2
%21 = param : slot=0 dtype=i32
%22 = add %21, %0
%23 = cmplt %20, %22
%24 = where %23, %20, %22
%25 = floordiv %24, 4
%26 = add %25, %12
%27 = cmplt %18, %26
%28 = where %27, %18, %26
%29 = add %28, 7
%30 = add %22, 25
%31 = floordiv %30, 4
%32 = add %31, %12
%33 = cmplt %29, %32
%34 = where %33, %29, %32
%35 = param : slot=5 dtype=i32
%36 = mul %35, 2
%37 = add %36, 8
%38 = cmplt %34, %37
%39 = where %38, %34, %37
%40 = add %39, 1
%41 = cmplt %15, %40
%42 = cmpne %41, true
"""


def test_the_quick_try_is_bounded_by_its_rlimit_not_by_a_timer():
    # with a 1 ms timeout the quick try still decides (no timer: its rlimit bounds it, and the
    # verdict depends on no clock); the default solver's timeout stands where the quick try does not
    source, result = caviar_dev()[418].program, parse_uir(CAVIAR_17_RESULT)
    settings = dict(refinement=True, rlimit=1_000_000, encodings=("int",))
    quick = prove_equivalent(source, result, "no_overflow", 1, quick_first=True, **settings)
    assert (quick.status, quick.encoding, quick.reason) == ("proved", "int", "")
    hard = ((x * y) // (x + y)) * (x + y) + (x * y) % (x + y)
    p = prove_equivalent(hard, x * y, timeout_ms=1, rlimit=1_000_000, encodings=("bv",), quick_first=True)
    assert (p.status, p.reason) == ("unknown", "timeout")


def test_a_resource_limit_is_unknown_and_deterministic():
    hard = ((x * y) // (x + y)) * (x + y) + (x * y) % (x + y)
    p = prove_equivalent(hard, x * y, rlimit=1000)
    assert p.status == "unknown" and p.counterexample is None


def test_f32_programs_are_not_attempted():
    f = UOp.param(0, dtypes.f32)
    p = prove_equivalent(f * 1.0, f)
    assert (p.status, p.reason) == ("not_attempted", "f32 programs are not proved")
    # a program whose only f32 value is an intermediate is not attempted either
    assert prove_equivalent(f.cast(dtypes.i32), f.cast(dtypes.i32)).status == "not_attempted"


def test_incomparable_programs_are_errors():
    msg = "cannot compare programs of different types: the first is i32 (), the second bool ()"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        prove_equivalent(x, TRUE)
    msg = "PARAM slot 0 is i32 () in the first program and bool () in the second"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        prove_equivalent(x < 1, UOp.param(0, dtypes.bool))
    msg = "int_semantics must be 'wrap' or 'no_overflow', got 'saturate'"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        prove_equivalent(x, x, "saturate")


# ---------------------------------------------------------------------------
# RANGE, shapes, CALL scopes


def test_range_bounds_are_hypotheses():
    i = UOp.range(10, "i")
    assert prove_equivalent(i // 10, UOp.const(0)).status == "proved"
    assert prove_equivalent(i % 10, i).status == "proved"
    p = prove_equivalent((i + 5) // 10, UOp.const(0))
    assert p.status == "refuted" and 5 <= p.counterexample["range 'i'"] <= 9 and p.values == (1, 0)


def test_shaped_programs_are_compared_elementwise():
    s = UOp.param(0, dtypes.i32, (3,))
    assert prove_equivalent((s + s).reduce(Ops.ADD), s.reduce(Ops.ADD) * 2).status == "proved"
    m = UOp.param(0, dtypes.i32, (2, 3))
    assert prove_equivalent(m.permute((1, 0)).permute((1, 0)), m).status == "proved"
    assert prove_equivalent(m.shrink(((0, 2), (1, 3))).index(1, 0), m.index(1, 1)).status == "proved"
    # a symbolic index selects; out of bounds is undefined, so refinement needs it in range
    stack = UOp.stack(10, 20, 30)
    assert prove_equivalent(stack.index(y), y * 10 + 10).status == "proved"
    p = prove_equivalent(y * 10 + 10, stack.index(y), refinement=True)
    assert p.status == "refuted" and not 0 <= p.counterexample[1] <= 2 and p.values[1] is None
    p = prove_equivalent(m.expand((2, 3)).index(0), m.index(1))
    assert p.status == "refuted"


def test_call_bodies_are_their_own_scopes():
    # the chapter's f(5) with f(y) = g(y + 1), g(z) = sq(z) * 2, sq(w) = w * w: every body uses slot 0
    p0 = UOp.param(0)
    g = (p0 * p0).call(p0, name="sq") * 2
    f = g.call(p0 + 1, name="g")
    program = f.call(x, name="f")  # x is the program's own slot 0: the same node as every p0
    assert prove_equivalent(program, (x + 1) * (x + 1) * 2).status == "proved"
    assert evaluate(f.call(UOp.const(5), name="f"), {}).value == 72
    naive = (x + 1 + 1) * (x + 1 + 1) * 2  # what inlining g through sq's scope computes (98 at 5)
    p = prove_equivalent(program, naive)
    assert p.status == "refuted"


# ---------------------------------------------------------------------------
# check_equivalent


def test_check_equivalent_runs_every_check_and_proves():
    v = check_equivalent(x * 2, x + x, samples=50)
    assert (v.status, v.equivalent, v.counterexample) == ("proved", True, None)
    assert v.ran == ("reference", "interpreter", "c", "z3") == v.held
    assert [c.compared for c in v.checks] == [50, 50, 50, 0]


def test_check_equivalent_reports_the_first_counterexample_with_names():
    v = check_equivalent(x < x + 1, TRUE, samples=200, names={0: "x"})
    assert (v.status, v.equivalent) == ("refuted", False)
    assert (v.counterexample_check, v.counterexample, v.values) == (
        "reference",
        {"x": 2147483647},
        (False, True),
    )
    assert [c.status for c in v.checks] == ["failed"] * 4
    assert v.check("z3").counterexample == {"x": 2147483647}
    assert str(v).splitlines()[:2] == [
        "equivalence (wrap): refuted",
        "  counterexample (reference): x = 2147483647",
    ]


def test_check_equivalent_under_no_overflow_discards_overflowing_inputs():
    v = check_equivalent(x < x + 1, TRUE, int_semantics="no_overflow", samples=200)
    ref = v.check("reference")
    assert v.status == "proved" and ref.discarded > 0 and ref.compared + ref.discarded == 200
    assert ref.detail == f"{ref.discarded} overflow"


def test_check_equivalent_discards_undefined_inputs():
    v = check_equivalent((x // y) * 0, UOp.const(0), samples=100)
    ref = v.check("reference")
    assert v.status == "proved" and ref.detail == f"{ref.discarded} undefined" and ref.discarded > 0


def test_check_equivalent_on_f32_tests_by_bit_pattern_without_a_proof():
    f = UOp.param(0, dtypes.f32)
    v = check_equivalent(f * 1.0, f, samples=100)
    assert v.status == "tested" and v.held == ("reference", "interpreter", "c")
    assert (v.check("z3").status, v.check("z3").detail) == (
        "not_run",
        "not attempted: f32 programs are not proved",
    )
    bad = check_equivalent(f + 0.0, f, samples=100)
    assert (bad.status, bad.counterexample, bad.values) == ("refuted", {0: -0.0}, (0.0, -0.0))
    nan = UOp.const(float("nan"))
    assert check_equivalent(nan * f, f * nan, samples=30).status == "tested"  # NaN equals NaN


def test_check_equivalent_is_deterministic_for_a_seed():
    a, b = (x % -8) // 2, (x // 2) % -4
    v1 = check_equivalent(a, b, samples=60, seed=3, prove=False)
    v2 = check_equivalent(a, b, samples=60, seed=3, prove=False)
    assert v1 == v2 and v1.status == "refuted" and v1.proof is None
    a0 = v1.counterexample[0]
    assert v1.values == (evaluate(a, {0: a0}).value, evaluate(b, {0: a0}).value)


def test_check_equivalent_with_ranges_and_selected_backends():
    i = UOp.range(8, "i")
    v = check_equivalent((i + y) % 8, (i + y % 8) % 8, samples=40, backends=("c",))
    assert v.status == "proved" and v.ran == ("reference", "c", "z3")
    v = check_equivalent(i // 4, UOp.const(0), samples=40, backends=("interpreter",), prove=False)
    assert (
        v.status == "refuted" and v.counterexample_check == "reference" and v.counterexample["range 'i'"] >= 4
    )
    msg = "unknown backend 'gpu' (expected some of interpreter, c)"
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        check_equivalent(x, x, backends=("gpu",))


def test_check_equivalent_on_calls_and_tensors_through_every_engine():
    p0 = UOp.param(0)
    program = ((p0 * p0).call(p0, name="sq") * 2).call(x + 1, name="g")
    v = check_equivalent(program, (x + 1) * (x + 1) * 2, samples=30)
    assert v.status == "proved" and v.held == ("reference", "interpreter", "c", "z3")
    m = UOp.param(0, dtypes.i32, (2, 3))
    column_sums = m.permute((1, 0)).reduce(Ops.ADD)
    v = check_equivalent(column_sums, m.index(0) + m.index(1), samples=30)
    assert v.status == "proved" and v.held == ("reference", "interpreter", "c", "z3")
    v = check_equivalent(column_sums, m.index(0) * 2, samples=30)
    assert v.status == "refuted" and [c.status for c in v.checks] == ["failed"] * 4
    rows = v.counterexample[0]
    assert [truncate(dtypes.i32, rows[0][k] + rows[1][k]) for k in range(3)] == v.values[0] != v.values[1]
