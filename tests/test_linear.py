"""The index algebra on linear forms: exact folds, what must not fold, random soundness, z3 schemas."""

import random

import pytest
import z3

from eqsat_uopc import UOp, dtypes, optimize
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.linear import (
    LinearForm,
    assume,
    fold_bool,
    fold_compare,
    fold_conjunction,
    fold_divmod,
    fold_sum,
    fold_where,
    shared_multiples,
    shared_offsets,
    shared_subforms,
    shared_zero_tests,
    simplify_algebra,
    zero_test,
)
from eqsat_uopc.verify import check_equivalent, prove_equivalent


def P(slot, lo=None, hi=None):
    return UOp.param(slot, dtypes.i32, bounds=None if lo is None else (lo, hi))


# -- the linear form


def test_a_linear_form_reads_any_spelling_of_a_sum():
    a, b = P(0, 0, 9), P(1, -3, 3)
    spellings = [(a + 5) + b * 2, b * 2 + (5 + a), 2 * b + a + 5, (a + b + 5) + b + a * 0]
    forms = {LinearForm.of(u) for u in spellings}
    assert forms == {LinearForm(((a, 1), (b, 2)), 5), LinearForm(((b, 2), (a, 1)), 5)}
    f = LinearForm.of(a * 3 + b * -1 + a * -3 + 7)
    assert f == LinearForm(((b, -1),), 7) and f.bounds() == (4, 10) and f.fits()
    assert LinearForm.of(P(2) * 4).fits() is False  # an unbounded input times 4 may wrap
    assert LinearForm.of(UOp.const(True)) is None
    assert LinearForm(((a, 3), (b, -1)), 2).to_uop() is a * 3 + b * -1 + 2


# -- divisions and remainders


def test_divmod_folds():
    a, x, g, n = P(0, 0, 30), P(1, 0, 40), P(2, 0, 255), P(3, 0, 100)
    assert fold_divmod((a * 6) // 9) is (a * 2) // 3  # the gcd of the coefficients and 9
    assert fold_divmod((x * 13) % 12) is x % 12  # the coefficient reduced modulo 12
    assert fold_divmod((x * 4 + 2) % 8) is (x % 2) * 4 + 2  # congruence: in one period of 8
    assert fold_divmod((a * 19 + 4) // 9) is a * 2 + (a + 4) // 9  # the multiples of 9 split off
    assert fold_divmod((a * 19 + 4) % 9) is (a + 4) % 9
    assert fold_divmod((g + 7) // 4) is (g + 3) // 4 + 1  # the constant into [0, 4)
    assert fold_divmod((g // 4 + 3) // 2) is (g + 12) // 8  # a nested division merged
    assert fold_divmod((g % 16 + n) % 8) is (g + n) % 8  # a remainder modulo a multiple of 8
    assert fold_divmod(x % 12) is None and fold_divmod((g * 4 + n) // -4) is None


def test_divmod_constant_quotient_and_variable_divisors():
    x, y = P(0, 24, 29), P(1, 10, 11)
    assert fold_divmod(x // y) is UOp.const(2)
    assert fold_divmod(x % y) is x + y * -2
    d, b, c = P(0, 2, 9), P(1, -10, 10), P(2, -10, 10)
    assert fold_divmod((d * b + c * d) // d) is (b + c) // 1
    assert simplify_algebra((d * b + c * d) // d, "wrap") is b + c
    assert simplify_algebra((d * b + c * d) % d, "wrap") is UOp.const(0)
    i, n = P(0, 0, 100), P(1, 1, 16)
    assert simplify_algebra((n * i + 3) // n, "wrap") in (i + 3 // n, 3 // n + i)


def test_the_algebra_runs_only_the_folds_it_is_given():
    """A rule set without linear/divmod-fold gets no division folds from the hook (`only`); a name
    that is no fold is refused."""
    a = P(0, 0, 30)
    assert simplify_algebra((a * 6) // 9, "wrap") is (a * 2) // 3
    assert simplify_algebra((a * 6) // 9, "wrap", frozenset({"compare-fold"})) is (a * 6) // 9
    assert simplify_algebra((a * 6) // 9, "wrap", frozenset({"divmod-fold"})) is (a * 2) // 3
    with pytest.raises(ValueError) as e:
        simplify_algebra(a, "wrap", frozenset({"divmod"}))
    assert str(e.value) == (
        "simplify_algebra: no algebra rule named ['divmod']; the rules are ['compare-fold', "
        "'divmod-fold', 'max-bounds', 'sum-fold', 'truth-table', 'where-assume']"
    )


def test_divmod_refuses_what_it_cannot_prove():
    x, y = P(0, 0, 100), P(1, -2, 2)
    assert fold_divmod(x // y) is None  # the divisor's range holds 0
    big = P(0, 0, 2**30)
    assert fold_divmod((big * 4 + 1) // 4) is None  # 4*big may wrap: its value is not 4 times big's
    assert fold_divmod((P(1) * 6) // 9) is None  # unbounded: the same


def test_a_lone_atom_is_written_at_any_bounds():
    """Writing an atom of the program back costs no overflow check: `(v - 2) % -2` is `v % -2` under
    no_overflow even where v reaches -2**31 (under wrap v - 2 may wrap: no fold)."""
    v = P(0, -(2**31), 0)
    assert fold_divmod((v + -2) % -2, True) is v % -2
    assert fold_divmod((v + -2) % -2) is None
    assert simplify_algebra((v + -2) % -2, "no_overflow") is v % -2


def test_negative_divisors():
    g, v = P(0, 0, 255), P(1, -20, -19)
    assert fold_divmod((g * 8 + 16) // -8) is (g + 2) // -1  # the gcd 8, whatever the signs
    assert fold_divmod((g * 2) // -6) is g // -3
    assert fold_divmod((g - 2) % -2) is g % -2  # the constant into (-2, 0]
    assert fold_divmod(g % -1) is UOp.const(0) and fold_divmod(g // -1) is g * -1
    assert fold_divmod((v % -2) // 2) is v % -2  # a numerator in {-1, 0} is its own quotient
    assert fold_divmod(g // -8) is None


# -- sums


def test_sums_combine_like_terms_and_recombine_quotients():
    n, g = P(0, 0, 100), P(1, 0, 255)
    assert fold_sum(n + (g // 8) * 24 + (g % 8) * 3) is n + g * 3
    assert fold_sum((g % 4) + ((g + 8) // 4) * 4) is g + 8  # the quotient of a congruent term
    assert fold_sum((g // 4) % 2 * 4 + g // 8 * 8) is (g // 4) * 4  # through a division of the base
    assert fold_sum((g % 4) + ((g // 4) % 8) * 4) is g % 32  # partly: a wider modulo
    x, y = P(2), P(3)
    assert fold_sum(x * 3 + y + x * -3) is y
    assert fold_sum(x + y) is None


@pytest.mark.parametrize("exact", [False, True])
def test_an_atom_plus_a_constant_is_left_as_it_is(exact):
    # what fold_sum returns at once, without reading a linear form (the sum chain's every prefix)
    x, g = P(0), P(1, 0, 255)
    atoms = [x, g // 8, g % 8, x.maximum(g), (x < g).where(x, g), (x < g).cast(dtypes.i32), x * g]
    for atom in atoms:
        for k in (1, -1, 2**30, I32_MAX, I32_MIN):
            assert fold_sum(atom + k, exact) is None
            assert fold_sum(UOp.const(k) + atom, exact) is None
        assert fold_sum(atom + 0, exact) is atom  # not an atom plus a constant: 0 goes
    # a sum or a product by a constant is read through: its form may be written smaller
    assert fold_sum((g + 3) + 4, exact) is g + 7
    assert fold_sum((g + 3) * 2 + 4, exact) is g * 2 + 10


# -- comparisons


def test_comparisons_on_the_difference():
    x, y, i = P(0, 0, 40), P(1, 0, 40), P(2, 0, 3)
    assert fold_compare(x + 1 < x + 3) is UOp.const(True)
    assert fold_compare((x * 2).ne(y * 2 + 1)) is UOp.const(True)
    assert fold_compare(x * 6 + y * 4 < 9) is (x * 3 + y * 2 < 5)
    assert fold_compare(x * 4 + i < 8) is (x < 2)  # the remainder i in [0, 3] cannot reach the next 4
    assert fold_compare(x * 2 + y * 3 < 1) is (x + y < 1)  # a simplex
    assert fold_compare(x // 4 < 3) is (x < 12)
    assert fold_compare(UOp.const(2) < x // 4) is (UOp.const(11) < x)
    assert fold_compare(x + y < 10) is None


def test_a_zero_test_is_read_in_every_spelling():
    x, y, z = P(0, 0, 40), P(1, 0, 40), P(2, -1, 40)
    both = frozenset((x, y))
    assert zero_test(x + y < 1) == (both, True)
    assert zero_test(x * 2 + y * 3 < 2) == (both, True)  # S < 2: S is 0 or at least 2
    assert zero_test(x * 2 + y * 3 < 3) is None  # S = 2 is below 3 too
    assert zero_test(UOp.const(0) < x + y) == (both, False)
    assert zero_test(UOp.const(1) < x * 2 + y * 3) == (both, False)
    assert zero_test(UOp.const(2) < x * 2 + y * 3) is None
    assert zero_test((x + y).ne(0)) == (both, False)
    assert zero_test(x + z < 1) is None  # z may be negative: x + z is 0 at x = 1, z = -1
    assert zero_test(x - y < 1) is None  # coefficients of both signs
    assert zero_test(x < 1) is None  # one atom: nothing to share


def test_a_zero_test_is_shared_with_the_sums_of_the_same_atoms():
    x, y, z = P(0, 0, 2), P(1, 0, 1), P(2, 0, 4)
    index = x + y * 3
    mask = (y + x < 1).ne(True)
    kernel = UOp.stack(mask.cast(dtypes.i32), index + z * 36, index + 5, x * 2 + y * -1)
    pairs = shared_zero_tests(kernel.toposort(), exact=False)
    assert pairs == [
        (y + x < 1, index < 1),
        (mask, UOp.const(0) < index),
        (y + x < 1, index + 5 < 6),
        (mask, UOp.const(5) < index + 5),
    ]
    for a, b in pairs:
        for sem in ("wrap", "no_overflow"):
            assert prove_equivalent(a, b, sem, refinement=True).status == "proved"
    # a sum whose form may leave int32 is no candidate: its value is not its form's
    w = P(3, 0, 2**30)
    test = (w + x < 1).cast(dtypes.i32)
    assert shared_zero_tests(UOp.stack(test, w * 2 + x).toposort()) == []
    assert shared_zero_tests(UOp.stack(test, w + x * 2).toposort()) == [(w + x < 1, w + x * 2 < 1)]
    # at the int32 edges: an atom up to 2**31 - 1 (a sum with it fits only with coefficient 1 and
    # nothing added), and unbounded atoms, which may be negative: no zero test at all
    top = P(4, 0, I32_MAX)
    edge = UOp.stack((top + y < 1).cast(dtypes.i32), top * 2 + y, top + y * 5, top + y + 0 * x)
    assert shared_zero_tests(edge.toposort()) == []
    free = UOp.stack((P(5) + P(6) < 1).cast(dtypes.i32), P(5) * 2 + P(6))
    assert shared_zero_tests(free.toposort()) == []
    low = P(7, I32_MIN, -1)  # negative atoms: `x + low < 1` is no zero test
    assert shared_zero_tests(UOp.stack((x + low < 1).cast(dtypes.i32), x * 2 + low).toposort()) == []


def test_a_sum_is_a_multiple_of_another_sum_of_the_kernel():
    g, j, r, w = P(0, 0, 2), P(1, 0, 2), P(2, 0, 4), P(3, 0, 2)
    mask_sum = g * 3 + (j + r)
    index = g * 33 + (j + r) * 11 + w * 99 + -22
    pairs = shared_multiples(UOp.stack(mask_sum, index).toposort())
    two, three = g * 33 + (j + r) * 11, g * 33 + (j + r) * 11 + w * 99
    assert pairs == [  # each sum as 11 times j + r, and as 11 times the mask's sum
        (two, (j + r) * 11 + g * 33),
        (two, mask_sum * 11),
        (three, (j + r) * 11 + (g * 33 + w * 99)),
        (three, mask_sum * 11 + w * 99),
        (index, (j + r) * 11 + (g * 33 + w * 99 + -22)),
        (index, mask_sum * 11 + (w * 99 + -22)),
    ]
    for a, b in pairs:
        for sem in ("wrap", "no_overflow"):
            assert prove_equivalent(a, b, sem, refinement=True).status == "proved"
    # an offset of another sum is no pair (the e-graph's rules find it); nor a sum that may leave int32
    assert shared_multiples(UOp.stack(g * 3 + j, g * 3 + j + 5).toposort()) == []
    big = P(4, 0, 2**29)
    assert shared_multiples(UOp.stack(big * 3 + j, big * 12 + j * 4 + r).toposort()) == []
    # at the int32 edges: M*c may leave int32 although T does not (T's other terms pull it back)
    top, low = P(5, 0, 2**30 - 1), P(6, I32_MIN, -10)
    t = low + top * 2 + j * 2  # every partial sum in int32, but (top + j)*2 reaches 2**31 + 2
    assert shared_multiples(UOp.stack(top + j, t).toposort()) == []
    # unbounded atoms: the sums' forms do not fit int32, so neither is read
    assert shared_multiples(UOp.stack(P(7) + P(8), P(7) * 2 + P(8) * 2).toposort()) == []


# -- conditions


def test_a_where_condition_holds_in_its_branches_with_what_it_implies():
    s, p, q = P(0, 0, 20), P(1, -5, 5), P(2, -5, 5)
    assert fold_where((s < 8).where((s < 8).where(p, q) * 3, q + 2)) is (s < 8).where(
        UOp.const(True).where(p, q) * 3, q + 2
    )
    assert simplify_algebra((s < 8).where((s < 8).where(p, q) * 3, q + 2), "wrap") is (s < 8).where(
        p * 3, q + 2
    )
    assert assume((s < 10).where(p, q), s < 8, True) is UOp.const(True).where(p, q)
    assert assume((s < 5).where(p, q), s < 8, False) is UOp.const(False).where(p, q)
    both = (s < 8).where(p < 3, False)  # s < 8 && p < 3
    assert assume((p < 3).where(s, q), both, True) is UOp.const(True).where(s, q)


def test_a_condition_keeps_a_division_in_one_period():
    # pad_flip's masked index: the mask 2 <= p0 <= 11 && 2 <= 4*p1 + p2 <= 10 keeps the numerator in
    # [0, 539], which no box of per-variable bounds shows (p1 = 0, p2 = 3 is in the box, not the mask)
    p0, p1, p2, p3, p4 = P(0, 0, 12), P(1, 0, 2), P(2, 0, 3), P(3, 0, 1), P(4, 0, 2)
    t = p1 * -4 + p2 * -1
    mask = (p0 < 2).ne(True).where(p0 < 12, False).where((t < -10).ne(True).where(t < -1, False), False)
    numerator = p0 + (p1 * -40 + p2 * -10 + (p3 * 270 + p4 * 90)) + 98
    assert assume(numerator % 540, mask, True) is numerator
    assert assume(numerator // 540, mask, True) is UOp.const(0)
    assert assume(numerator % 540, mask, False) is numerator % 540  # outside the mask: no period
    # avg_pool's: (p0 + 2*p1 + 90*p2 + 179) % 180 where p0 + p1 >= 1 (taken out once: p0 + p1 + p1)
    a, b, c = P(0, 0, 1), P(1, 0, 4), P(2, 0, 1)
    x = a + b * 2 + c * 90 + 179
    assert assume(x % 180, (b + a < 1).ne(True), True) is LinearForm.of(x).plus(-180).to_uop()
    assert assume(x // 180, (b + a < 1).ne(True), True) is UOp.const(1)
    assert assume(x % 180, b + a < 1, True) is x % 180  # a == b == 0: 179 and 269, two periods
    # a negative divisor: x // -16 is -1 for x in [1, 16], -2 for x in [17, 32]
    i = P(5, 0, 20)
    assert fold_where((i < 13).where((i + 4) // -16, 0)) is (i < 13).where(UOp.const(-1), 0)
    assert fold_where((i < 13).where((i + 4) % -16, 0)) is (i < 13).where(i + -12, 0)  # 4 % -16 = -12
    assert fold_where((i < 14).where((i + 4) // -16, 0)) is None  # i + 4 = 17 at i = 13


def test_a_pinned_remainder_shares_divisions_and_decides_comparisons():
    # conv_transpose2d's masks: p0 odd, p1 + p2 odd (tinygrad's spelling: (p0 + 1) % 2 < 1)
    p0, p1, p2 = P(0, 0, 10), P(1, 0, 2), P(2, 0, 2)
    odd0, odd12 = (p0 + 1) % 2 < 1, (p1 + p2 + 1) % 2 < 1
    # (p0 + 1) // 2 is p0 // 2 + 1 for odd p0, the division every index of the kernel shares
    assert assume((p0 + 1) // 2, odd0, True) is p0 // 2 + 1
    assert assume((p0 + 3) % 2, odd0, True) is UOp.const(0)
    assert assume((p0 + 1) // 2, odd0, False) is p0 // 2  # an even p0: p0 + 1 is 1 mod 2
    # an odd p0 in [0, 10] lies in [1, 9]; an odd p1 + p2 in [1, 3], so p2 + 3*p1 <= 7
    assert assume(p0 < 10, odd0, True) is UOp.const(True)
    assert assume((p0 < 1).ne(True), odd0, True) is UOp.const(False).ne(True)  # p0 < 1 is false
    assert assume(p2 + p1 * 3 < 8, odd12, True) is UOp.const(True)
    # a conjunct the others imply goes: the mask is its two parity tests
    mask = (p0 < 1).ne(True).where(p2 + p1 * 3 < 8, False).where(odd12, False).where(odd0, False)
    assert fold_where(mask) is odd12.where(odd0, False)
    assert fold_where((p0 < 5).where(odd0, False)) is None  # p0 = 7 is odd, not below 5


def test_boolean_terms_are_decided_by_truth_tables_in_every_spelling():
    x, b = P(0, 0, 20), UOp.param(1, dtypes.bool)
    c = x < 7
    nc = c.ne(True)
    assert fold_bool(c.maximum(nc)) is UOp.const(True)  # OR as MAX
    assert fold_bool(c.where(True, nc)) is UOp.const(True)  # OR as WHERE
    assert fold_bool(c * nc) is UOp.const(False)  # AND as MUL
    assert fold_bool((x < 3).where(UOp.const(5) < x, False)) is UOp.const(False)
    assert fold_bool((x < 3).maximum(x < 1)) is (x < 3)
    assert fold_bool(b.ne(c).ne(b)) is c  # xor twice
    assert fold_bool((x < 3).maximum(b)) is None


def test_the_issue_examples_reach_tinygrads_size():
    a, x = P(0, 0, 30), P(0, 0, 40)
    X, Y = P(0, 24, 29), P(1, 10, 11)
    d, b, c = P(0, 2, 9), P(1, -10, 10), P(2, -10, 10)
    n, g = P(0, 0, 100), P(1, 0, 255)
    s, p, q = P(0, 0, 20), P(1, -5, 5), P(2, -5, 5)
    cmp = P(0, 0, 20) < 7
    cases = [
        ((a * 6) // 9, 5),
        ((x * 13) % 12, 3),
        (X // Y, 1),
        ((d * b + c * d) // d, 3),
        (n + (g // 8) * 24 + 3 * (g % 8), 5),
        (cmp.maximum(cmp.ne(True)), 1),
        ((s < 8).where((s < 8).where(p, q) * 3, q + 2), 10),
    ]
    for sem in ("wrap", "no_overflow"):
        assert [optimize(e, "dag_size", int_semantics=sem).program.size for e, _ in cases] == [
            n for _, n in cases
        ]


# -- soundness: random expressions, every result checked on random inputs (wraparound and no_overflow)


def _random_term(rng, depth, params):
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.6:
            return rng.choice(params)
        return UOp.const(rng.choice([0, 1, 2, 3, 4, 6, 8, 12, 16, -1, -2, -4, 24, 255, rng.randint(-99, 99)]))
    k, a = rng.random(), _random_term(rng, depth - 1, params)
    if k < 0.25:
        return a + _random_term(rng, depth - 1, params)
    if k < 0.45:
        return a * rng.choice([2, 3, 4, -1, -2, 6, 8, 12, 24, 13, -3])
    if k < 0.6:
        return a // rng.choice([2, 3, 4, 6, 8, 9, 12, 16, -4, -3, 5])
    if k < 0.72:
        return a % rng.choice([2, 3, 4, 6, 8, 9, 12, 16, -4, -3, 5])
    if k < 0.78:
        return a * _random_term(rng, depth - 1, params)
    if k < 0.88:
        return (a < _random_term(rng, depth - 1, params)).where(
            _random_term(rng, depth - 1, params), _random_term(rng, depth - 1, params)
        )
    if k < 0.93:
        return a // rng.choice(params)
    return a.maximum(_random_term(rng, depth - 1, params))


def _random_bool(rng, depth, params):
    if depth == 0 or rng.random() < 0.3:
        e, c = _random_term(rng, 2, params), UOp.const(rng.randint(-5, 20))
        return e < c if rng.random() < 0.7 else e.ne(c)
    k, a = rng.random(), _random_bool(rng, depth - 1, params)
    b = _random_bool(rng, depth - 1, params)
    return [a.where(b, False), a.where(True, b), a.ne(True), a.maximum(b), a * b, a.ne(b)][int(k * 6)]


@pytest.mark.parametrize("seed", range(4))
def test_the_algebra_is_sound_on_random_terms(seed):
    rng = random.Random(seed)
    checked = 0
    for i in range(60):
        params = []
        for s in range(3):
            lo = rng.choice([0, 0, -5, 1, 2, -20, 10])
            params.append(P(s, lo, lo + rng.choice([0, 1, 3, 7, 15, 40, 255, 1000])))
        params.append(P(3))
        e = _random_bool(rng, 3, params) if i % 3 == 0 else _random_term(rng, 4, params)
        for sem in ("wrap", "no_overflow"):
            r = simplify_algebra(e, sem)
            if r is None or r is e:
                continue
            v = check_equivalent(
                e, r, int_semantics=sem, samples=60, backends=("interpreter",), prove=False, seed=i
            )
            assert v.status != "refuted", (sem, e, r, v.counterexample)
            checked += 1
    assert checked >= 40


_EDGES = (I32_MIN, I32_MAX, 2**30, -(2**30))


def _proved_or_vacuous(a, b, sem, seed):
    """a and b agree under sem (checked by z3, with 40 samples through the interpreter): True when
    proved, False when vacuous (no input is defined for a), an assertion error naming the pair else."""
    v = check_equivalent(a, b, int_semantics=sem, samples=40, backends=("interpreter",), seed=seed)
    assert v.status in ("proved", "vacuous"), (sem, a, b, v.counterexample)
    return v.status == "proved"


@pytest.mark.parametrize("sem", ["wrap", "no_overflow"])
def test_one_period_folds_are_proved_at_the_int32_edges(sem):
    """where(mask, x op c, 0) and its fold proved equal by z3, with inputs at and near the int32
    edges, unbounded ones, and divisors of either sign."""
    rng = random.Random(7)
    proved = 0
    for i in range(120):
        lo = rng.choice((0, -20, *_EDGES))
        span = rng.choice((3, 40, 1000))
        a = P(0, max(lo, I32_MIN), min(lo + span, I32_MAX)) if i % 4 else P(0)
        b = P(1, 0, rng.choice((2, 9, 2**30)))
        c = rng.choice((2, 16, 540, -16, I32_MAX, I32_MIN))
        t = a + b * rng.choice((1, -4, 3))
        mask = (rng.choice((1, -5, I32_MAX - 3)) < t).where(t < rng.choice((12, 600, I32_MAX)), False)
        x = t * rng.choice((1, -2, 3)) + rng.choice((0, 98, -(2**30), 2**30))
        e = mask.where(x % c if i % 2 else x // c, 0)
        r = fold_where(e)
        if r is None:
            continue
        v = check_equivalent(e, r, int_semantics=sem, samples=40, backends=("interpreter",), seed=i)
        assert v.status == "proved", (sem, e, r, v.counterexample)
        proved += 1
    assert proved == 9


# -- the schemas behind the folds, proved for all integers with z3 (floor division as a relation)


def _floor(a, b, facts):
    q, r = z3.FreshInt("q"), z3.FreshInt("r")
    facts += [a == b * q + r, z3.If(b > 0, z3.And(r >= 0, r < b), z3.And(b < r, r <= 0))]
    return q, r


def _prove(premises, goal_of):
    facts = list(premises)
    goal = goal_of(facts)
    s = z3.Solver()
    s.set("timeout", 20_000)
    s.add(*facts, z3.Not(goal))
    assert s.check() == z3.unsat


def test_schema_congruence():
    v, f, r, c, k_, k = z3.Ints("v f r c kk k")
    facts0 = [c > 0, (f - r) % c == 0]

    def goal(facts):
        kd_, km_ = _floor(k_, c, facts)
        rem = r * v + km_
        facts += [k * c <= rem, rem < (k + 1) * c]
        q, m = _floor(f * v + k_, c, facts)
        return z3.And(q == (f - r) / c * v + kd_ + k, m == rem - k * c)

    _prove(facts0, goal)


def test_schema_gcd_and_nesting():
    s_, k_, g, b_, x, fct, m = z3.Ints("s kk g b x fct m")

    def gcd_goal(facts):
        kg_, kr_ = _floor(k_, g, facts)
        _, kgm_ = _floor(kg_, b_, facts)
        reduced = s_ + kgm_
        rq, rr = _floor(reduced, b_, facts)
        kc_, _ = _floor(k_, g * b_, facts)
        q, mm = _floor(g * s_ + k_, g * b_, facts)
        return z3.And(q == rq + kc_, mm == rr * g + kr_)

    _prove([g > 0, b_ > 0], gcd_goal)

    def nest_goal(facts):
        xf, xr = _floor(x, fct, facts)
        q2, r2 = _floor(xf, m, facts)
        q, r = _floor(x, fct * m, facts)
        return z3.And(q == q2, r == r2 * fct + xr)

    _prove([fct > 0, m > 0], nest_goal)


def test_schema_constant_split_negative_divisor_and_merge():
    x, k_, c, d, k, a = z3.Ints("x kk c d k a")

    def split(facts):
        kq_, kr_ = _floor(k_, c, facts)
        q1, r1 = _floor(x + kr_, c, facts)
        q, r = _floor(x + k_, c, facts)
        return z3.And(q == q1 + kq_, r == r1)

    _prove([c != 0], split)

    def negative(facts):
        q1, r1 = _floor(-x, d, facts)
        q, r = _floor(x, -d, facts)
        return z3.And(q == q1, r == -r1)

    _prove([d > 0], negative)

    def merge(facts):
        xk, _ = _floor(x, k, facts)
        q1, _ = _floor(xk + a, c, facts)
        q, _ = _floor(x + a * k, k * c, facts)
        return q == q1

    _prove([k > 0, c > 0], merge)


def test_schema_symbolic_gcd_and_exact_multiples():
    g, a_, b_, y = z3.Ints("g a b y")

    def gcd(facts):
        q1, r1 = _floor(a_, b_, facts)
        q, r = _floor(g * a_, g * b_, facts)
        return z3.And(q == q1, r == r1 * g)

    _prove([g != 0, b_ != 0], gcd)

    def multiples(facts):
        q1, r1 = _floor(b_, y, facts)
        q, r = _floor(y * a_ + b_, y, facts)
        return z3.And(q == a_ + q1, r == r1)

    _prove([y != 0], multiples)


def test_schema_recombination_and_comparisons():
    b, w, c, s_, k, g, r_, h, k_ = z3.Ints("b w c s k g r h kk")
    # (the sums' m*(...) + (m*c)*(...) are m times these: ring arithmetic)

    def full(facts):  # b % c + c * ((b - t) // c) == b - t, t = c*w
        _, br = _floor(b, c, facts)
        q, _ = _floor(b - c * w, c, facts)
        return br + c * q == b - c * w

    _prove([c > 0], full)

    def partial(cc, ee):  # b % c + c * (((b - t) // c) % e) == (b - t) % (c*e), t = c*w
        def goal(facts):
            _, br = _floor(b, cc, facts)
            bq, _ = _floor(b - cc * w, cc, facts)
            _, inner = _floor(bq, ee, facts)
            _, wide = _floor(b - cc * w, cc * ee, facts)
            return br + cc * inner == wide

        return goal

    for cc in range(1, 9):  # nonlinear in c and e together: proved for each pair of divisors up to 8
        for ee in range(1, 9):
            _prove([], partial(cc, ee))

    def scaled(facts):  # g*s_ + k < 0  <=>  s_ < -floor(k/g)
        kq, _ = _floor(k, g, facts)
        return (g * s_ + k < 0) == (s_ < -kq)

    _prove([g > 0], scaled)

    rlo, rhi = z3.Ints("rlo rhi")

    def remainder(facts):  # h*Q + r_ < k_  <=>  Q < m + 1 when floor((k_-1-r_)/h) is m over R's range
        m_lo, _ = _floor(k_ - 1 - rlo, h, facts)
        m_hi, _ = _floor(k_ - 1 - rhi, h, facts)
        facts += [m_lo == m_hi, rlo <= r_, r_ <= rhi]
        return (h * s_ + r_ < k_) == (s_ < m_lo + 1)

    _prove([h > 0], remainder)

    def lone_division(facts):
        q, _ = _floor(s_, c, facts)
        return z3.And((q < k) == (s_ < k * c), (-q < k) == (s_ >= (1 - k) * c))

    _prove([c > 0], lone_division)


def test_the_algebra_respects_int32_limits():
    big = P(0, 0, I32_MAX)
    assert fold_compare(big + 1 < big + 3) is None  # big + 3 may wrap: its value is not big's plus 3
    assert fold_sum(big + big * -1 + 5) is UOp.const(5)  # ring arithmetic: exact under wraparound
    assert fold_sum(big * 2**30 + big * 2**30) is None  # the coefficient 2**31 is no int32


def test_a_square_that_may_wrap_is_no_product_of_its_factors():
    # (p0*p0) % p0 -> (p0 % 1) * p0 = 0 was written at any bounds (a square counted as one factor,
    # its fit never checked): under wrap p0*p0 wraps from p0 = 46341 on, and at 65623 the input is 58054
    wide, narrow = P(0, 100, 65623), P(0, 100, 46340)
    for exact in (False, True):
        assert fold_divmod((wide * wide) % wide, exact) is None
        assert fold_divmod((wide * wide) // wide, exact) is None
    assert simplify_algebra((narrow * narrow) % narrow, "wrap") is UOp.const(0)
    assert check_equivalent((wide * wide) % wide, simplify_algebra((wide * wide) % wide, "wrap")).equivalent


def test_a_gcd_of_2_to_the_31_builds_no_constant_outside_int32():
    # x*-2**31 % -2**31: the gcd 2**31 of coefficient and divisor is no int32 constant to multiply
    # by; it raised UOpError from _gcd (fuzz-soundness seeds 106, 108, 109 under no_overflow)
    for x in (P(0, -1, 0), P(0, 0, 1), UOp.range(2, "r0")):
        u = (x * I32_MIN) % I32_MIN
        assert fold_divmod(u, exact=True) is None and fold_divmod(u) is None
        for sem in ("wrap", "no_overflow"):
            assert optimize(u, int_semantics=sem).validation.status in ("identical", "proved")


def test_no_overflow_takes_every_value_as_exact_and_still_checks_what_it_writes():
    from eqsat_uopc.linear import fold_compare as compare

    x = P(0, -536870901, 0)  # 5*x may leave int32: only no_overflow says it does not
    assert fold_divmod((x * 5) // 15) is None
    assert fold_divmod((x * 5) // 15, exact=True) is x // 3
    y = P(1, 0, 2147483646)
    assert fold_divmod((y + 2) % -2) is None and fold_divmod((y + 2) % -2, exact=True) is y % -2
    assert compare(y + 5 < y + 7) is None and compare(y + 5 < y + 7, exact=True) is UOp.const(True)
    assert simplify_algebra((y * 2) // -2 < 0, "no_overflow") is (UOp.const(0) < y)
    assert simplify_algebra((x * 5) // 15, "wrap") is (x * 5) // 15
    assert simplify_algebra((x * 5) // 15, "no_overflow") is x // 3


# -- two comparisons at an end of their ranges, packed into one


def test_two_comparisons_at_an_end_of_their_ranges_are_one_comparison():
    # conv_transpose2d's parity masks: each parity test is its remainder at an end of [0, 1]
    p0, p1, p2 = P(0, 0, 10), P(1, 0, 2), P(2, 0, 2)
    a, b, zero = (p1 + p2) % 2, p0 % 2, UOp.const(0)
    assert fold_conjunction((zero < a).where(zero < b, False)) is (UOp.const(1) < a + b)  # both odd
    assert fold_conjunction((zero < a).where(b < 1, False)) is (b < a)  # a odd, b even
    assert fold_conjunction((a < 1).where(b < 1, False)) is (a + b < 1)  # both even
    assert fold_conjunction((a < 1).where(True, b < 1)) is (a + b < 2)  # either even
    # tinygrad's spelling of a parity, (y + 1) % 2 < 1, is the complement of y's
    assert fold_compare((p0 + 1) % 2 < 1) is (zero < b)
    assert fold_conjunction(((p1 + p2 + 1) % 2 < 1).where(b < 1, False)) is (b < a)
    # not at an end: 1 < p0 is p0 >= 2, not p0 at its greatest value
    assert fold_conjunction((UOp.const(1) < p0).where(p0 < 9, False)) is None
    assert fold_conjunction((p0 < 1).ne(True).where(p1 < 1, False)) is None  # !(p0 < 1): -p0 in [-10, 0]


def test_a_remainder_pinned_from_the_right_shares_divisions():
    p0 = P(0, 0, 10)
    odd = UOp.const(0) < p0 % 2  # the complemented parity's spelling of an odd p0
    assert assume((p0 + 1) // 2, odd, True) is p0 // 2 + 1
    assert assume((p0 + 1) // 2, odd, False) is p0 // 2


@pytest.mark.parametrize("sem", ["wrap", "no_overflow"])
def test_packed_comparisons_are_proved_at_the_int32_edges(sem):
    """c1 && c2 and c1 || c2 and their packing proved equal by z3, the comparisons over inputs at
    and near the int32 edges, unbounded ones, parities of odd offsets and negated comparisons."""
    rng = random.Random(11)
    proved = 0
    for i in range(160):
        lo = rng.choice((0, -1, *_EDGES))
        x = P(0, max(lo, I32_MIN), min(lo + rng.choice((1, 2, 40)), I32_MAX)) if i % 5 else P(0)
        y = P(1, rng.choice((0, I32_MAX - 1, I32_MIN)), rng.choice((I32_MAX,)))
        t1 = (x + rng.choice((1, 3, I32_MAX))) % 2 if i % 3 == 0 else x
        t2 = (y + rng.choice((0, 1, -(2**30)))) % 2 if i % 2 else y
        lo1, hi1 = (0, 1) if i % 3 == 0 else (x.arg.bounds or (I32_MIN, I32_MAX))
        at_least = UOp.const(max(hi1 - 1, I32_MIN)) < t1
        c1 = rng.choice((t1 < min(lo1 + 1, I32_MAX), at_least, (t1 < hi1).ne(True), t1 < 7))
        c2 = rng.choice((t2 < 1, UOp.const(0) < t2, (t2 < I32_MAX).ne(True), t2 < I32_MAX))
        e = c1.where(c2, False) if i % 4 else c1.where(True, c2)
        r = fold_conjunction(e, sem == "no_overflow")
        if r is None:
            continue
        # vacuous: the input overflows at every input (an odd offset of 2**31 - 1 under no_overflow)
        proved += _proved_or_vacuous(e, r, sem, i)
    assert proved == {"wrap": 19, "no_overflow": 17}[sem]


def test_a_remainder_beside_its_quotient_goes_through_the_quotient():
    # reshape_permute_chain's flip: 63*((x + 3) % 5) + (x + 3) // 5 keeps only the quotient
    x, s = P(0, 0, 36), P(1, 0, 4)
    u = x + 3
    out = fold_sum(s * -9 + u // 5 + (u % 5) * 63 + 45)
    assert out is s * -9 + x * 63 + (u // 5) * -314 + 234
    y = P(2)  # unbounded: under wrap a ring identity; under no_overflow y*3 may overflow, no fold
    assert fold_sum((y % 7) * 3 + (y // 7) * 5) is y * 3 + (y // 7) * -16
    assert fold_sum((y % 7) * 3 + (y // 7) * 5, exact=True) is None
    assert fold_sum((y % 7) * 3 + (y // 6) * 5) is None  # another divisor


@pytest.mark.parametrize("sem", ["wrap", "no_overflow"])
def test_remainders_through_quotients_are_proved_at_the_int32_edges(sem):
    rng = random.Random(5)
    proved = 0
    for i in range(80):
        lo = rng.choice((0, -7, *_EDGES))
        x = P(0, max(lo, I32_MIN), min(lo + rng.choice((6, 1000, 2**31)), I32_MAX)) if i % 3 else P(0)
        c = rng.choice((2, 5, 16, 2**30, I32_MAX))
        b = x + rng.choice((0, 3, I32_MAX, -(2**30)))
        t = c * rng.choice((0, 1, -1))
        num = b - t if -(2**31) <= t <= I32_MAX and t else b
        m, k = rng.choice((1, 3, -2, 2**16)), rng.choice((1, -5, 2**30, I32_MIN))
        e = (b % c) * m + (num // c) * k + P(1, 0, 9)
        r = fold_sum(e, sem == "no_overflow")
        if r is None:
            continue
        proved += _proved_or_vacuous(e, r, sem, i)
    assert proved == {"wrap": 29, "no_overflow": 5}[sem]


def test_sums_that_differ_in_their_constants_are_offsets_of_one():
    x, y = P(0, 0, 9), P(1, 0, 9)
    s = x * 11 + y * 99  # conv2d_asymmetric: L - 22 .. L - 12 read, L itself only inside them
    assert shared_offsets([s + -22, s + -21, s + -12, x * 2]) == [
        (s + -21, (s + -22) + 1),
        (s + -12, (s + -22) + 10),
    ]
    assert shared_offsets([s + 3, x * 11 + y * 98 + 3]) == []  # other coefficients
    big = P(2, 0, I32_MAX)
    assert shared_offsets([big * 2 + 1, big * 2 + 3]) == []  # big*2 may wrap: not an exact sum
    u = P(3)  # unbounded: u + 1 may wrap
    assert shared_offsets([u + 1, u + 5]) == []


@pytest.mark.parametrize("sem", ["wrap", "no_overflow"])
def test_offsets_of_one_sum_are_proved_at_the_int32_edges(sem):
    rng = random.Random(3)
    proved = 0
    for i in range(40):
        lo = rng.choice((0, -5, *_EDGES))
        x = P(0, max(lo, I32_MIN), min(lo + rng.choice((3, 2**20)), I32_MAX))
        y = P(1, rng.choice((0, -(2**30))), rng.choice((1, 2**30)))
        s = x * rng.choice((1, -1, 3)) + y * rng.choice((1, 2, -2))
        terms = [s + k for k in rng.sample((-(2**30), -22, -1, 0, 5, 2**30, I32_MAX), 3)]
        for t, written in shared_offsets(terms):
            proved += _proved_or_vacuous(t, written, sem, i)
    assert proved == {"wrap": 10, "no_overflow": 10}[sem]


def test_two_sums_share_their_common_part():
    # max_pool_dilation: 15*b + 5*c and 66*b + 22*c are 5 and 22 times F = 3*b + c
    a, b, c, d = P(0, 0, 4), P(1, 0, 1), P(2, 0, 2), P(3, 0, 1)
    t, u = a + b * 15 + c * 5 + d * 30, b * 66 + c * 22 + a * 2 + d * 143
    f = b * 3 + c
    assert dict(shared_subforms([t, u])) == {t: f * 5 + (a + d * 30), u: f * 22 + (a * 2 + d * 143)}
    assert shared_subforms([a + b * 2, b * 2 + c * 3]) == []  # one atom in common: no part
    assert shared_subforms([a + b * 2 + c, a * 3 + b + c]) == []  # no proportional pair of atoms
    big = P(4, 0, 2**30)  # a sum that may leave int32 (big*4) is not read
    assert shared_subforms([big + c + a, big * 4 + c * 4 + d]) == []
    # pad_flip: two parts, each sum over both, the larger first
    e = P(5, 0, 3)
    w, v = a + b * 52 + c * 13 + d * 468 + e * 156, a + b * -40 + c * -10 + d * 270 + e * 90 + 98
    f, g = b * 4 + c, d * 3 + e
    assert dict(shared_subforms([w, v])) == {w: f * 13 + g * 156 + a, v: f * -10 + g * 90 + (a + 98)}
    # a sum inside the other: its part is the inner sum itself (shared_multiples' case), not sought
    inner = a + b * 33 + c * 11
    assert shared_subforms([inner * 2 + d * 143, inner]) == []


@pytest.mark.parametrize("sem", ["wrap", "no_overflow"])
def test_common_parts_are_proved_at_the_int32_edges(sem):
    rng = random.Random(9)
    proved = 0
    for i in range(60):
        lo = rng.choice((0, -3, 2**20, -(2**20), *_EDGES))
        x = P(0, max(lo, I32_MIN), min(lo + rng.choice((3, 2**20)), I32_MAX))
        y, z, w = P(1, 0, rng.choice((2, 2**20))), P(2, -5, 5), P(3) if i % 4 == 0 else P(3, 0, 7)
        fx, fy = rng.choice((1, 3, -2)), rng.choice((1, 2, 7))
        c, d = rng.choice((1, 5, -3, 64)), rng.choice((2, 22, -1))
        t = x * (c * fx) + y * (c * fy) + z * rng.choice((1, 7)) + rng.choice((0, 9, 2**30))
        u = x * (d * fx) + y * (d * fy) + w * 2
        for a, written in shared_subforms([t, u]):
            proved += _proved_or_vacuous(a, written, sem, i)
    assert proved == {"wrap": 61, "no_overflow": 61}[sem]
