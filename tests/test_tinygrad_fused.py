"""Sums re-associated for a fused multiply-add (eqsat_uopc.tinygrad.fused): exact spellings, the
shared additions kept, and nothing re-spelled that cannot fuse more."""

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.saturation.explain.chain import infix
from eqsat_uopc.tinygrad.fused import fused_sums
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
