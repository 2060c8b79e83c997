"""Sums re-associated for a fused multiply-add (eqsat_uopc.tinygrad.fused): exact spellings, the
shared additions kept, and nothing re-spelled that cannot fuse more."""

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.ir.dtype import I32_MAX
from eqsat_uopc.saturation.explain.chain import infix
from eqsat_uopc.tinygrad.fused import common_part_sums, fused_sums, offset_sums, unscaled_comparisons
from eqsat_uopc.verify import prove_equivalent


def P(slot, lo=0, hi=9):
    return UOp.param(slot, dtypes.i32, bounds=(lo, hi))


def test_the_terms_that_are_no_products_come_first():
    x, y, z, w = P(0), P(1), P(2), P(3)
    programs = [(x * 13 + y * 52) + (z * 156 + w * 468) + P(4)]
    (out,) = fused_sums(programs)
    assert infix(out) == "p4 + p0 * 13 + p1 * 52 + p2 * 156 + p3 * 468"
    for sem in ("wrap", "no_overflow"):
        assert prove_equivalent(programs[0], out, sem, refinement=True).status == "proved"


def test_a_sum_that_fuses_every_product_it_can_is_kept_as_it_is():
    x, y = P(0), P(1)
    programs = [y * 30 + 5, x * 6 + y * 30, (x + 3) + y * 2]
    assert fused_sums(programs) == programs  # the same UOps: nothing to prove


def test_an_addition_another_expression_reads_is_a_term():
    x, y, z = P(0), P(1), P(2)
    shared = x * 2 + y * 3  # read by both: computed once, whatever the sums around it do
    a, b = fused_sums([shared + z * 5, shared < 4])
    assert infix(a) == "p0 * 2 + p1 * 3 + p2 * 5"  # one product left unfused in `shared`: kept
    assert b is (shared < 4)
    c, d = fused_sums([(x * 2 + y * 3) + z * 5 + 7, (z + 1) * 4])
    assert infix(c) == "7 + p0 * 2 + p1 * 3 + p2 * 5"
    assert d is (z + 1) * 4


def test_a_partial_sum_that_may_leave_int32_is_not_written():
    x, y, z = P(0, 0, 2**30), P(1, 0, 2**30), P(2, -(2**30), 0)
    program = (x * 2 + y * 2) + z  # x*2 + y*2 may leave int32, and so may z + x*2 + y*2
    assert fused_sums([program]) == [program]


def test_a_comparison_of_a_multiple_reads_the_multiplicand():
    x, y = P(0, 0, 2), P(1, 0, 2)
    z = y * 3 + x  # conv2d_groups: (y*3 + x)*10 fuses into the index's sum, the mask read it alone
    programs = [UOp.const(0) < z * 10, z * 10 + P(2), (z * 10).ne(40), z * 10 < 25]
    a, b, c, d = unscaled_comparisons(programs)
    assert a is (UOp.const(0) < z) and b is programs[1] and c is z.ne(4)
    assert d is programs[3]  # the compare fold writes y < 1: it does not read z
    for p, q in ((programs[0], a), (programs[2], c)):
        for sem in ("wrap", "no_overflow"):
            assert prove_equivalent(p, q, sem, refinement=True).status == "proved"


def test_a_multiple_that_may_wrap_is_left_as_it_is():
    x = P(0, 0, I32_MAX)  # x*4 wraps under wrap: the fold needs its exact value
    program = UOp.const(0) < x * 4
    assert unscaled_comparisons([program]) == [program]
    x = UOp.param(0)  # unbounded
    assert unscaled_comparisons([UOp.const(0) < x * 4]) == [UOp.const(0) < x * 4]


def test_sums_that_differ_in_their_constants_are_written_as_offsets_of_one():
    x, y = P(0), P(1)
    s = x * 11 + y * 99  # read by the offsets only: fused into the least one, with its constant
    programs = [s + -22, s + -21, s + -12, x * 2]
    out = fused_sums(offset_sums(programs))
    assert [infix(p) for p in out] == [
        "(-22) + p0 * 11 + p1 * 99",
        "(-22) + p0 * 11 + p1 * 99 + 1",
        "(-22) + p0 * 11 + p1 * 99 + 10",
        "p0 * 2",
    ]
    for p, q in zip(programs, out, strict=True):
        for sem in ("wrap", "no_overflow"):
            assert prove_equivalent(p, q, sem, refinement=True).status == "proved"
    assert offset_sums([s + 1, s]) == [s + 1, s]  # s + 1 is s + 1 already
    assert offset_sums([s + 3, x * 2]) == [s + 3, x * 2]  # nothing to share


def test_sums_are_written_over_their_common_part_and_offsets_keep_reading_theirs():
    a, b, c, d = P(0, 0, 4), P(1, 0, 1), P(2, 0, 2), P(3, 0, 1)
    t, u = a + b * 15 + c * 5 + d * 30, b * 66 + c * 22 + a * 2 + d * 143  # max_pool_dilation
    programs = [t, u, u + 2, u + 22]
    out = common_part_sums(programs)
    f = b * 3 + c
    assert out == [f * 5 + (a + d * 30), f * 22 + (a * 2 + d * 143), out[1] + 2, out[1] + 22]
    for p, q in zip(programs, out, strict=True):
        for sem in ("wrap", "no_overflow"):
            assert prove_equivalent(p, q, sem, refinement=True).status == "proved"
    assert common_part_sums([t, a * 2]) == [t, a * 2]  # nothing in common
