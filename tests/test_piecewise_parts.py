"""The parts of the piecewise-linear comparisons one by one: the values of normal forms, the builder's
budget and case splits, the division spellings, and each decision alone (test_piecewise.py tests
them together, through decided_comparisons)."""

from fractions import Fraction

import pytest

from eqsat_uopc import UOp
from eqsat_uopc.saturation.piecewise import normal
from eqsat_uopc.saturation.piecewise.chains import decide_chain, is_chain
from eqsat_uopc.saturation.piecewise.compare import decide, decided_alike, is_comparison
from eqsat_uopc.saturation.piecewise.difference import constant_difference
from eqsat_uopc.saturation.piecewise.forms import (
    below,
    constant_form,
    constant_of,
    linear_range,
    residue,
    scaled,
)
from eqsat_uopc.saturation.piecewise.normal import Budget, PiecewiseLinear
from eqsat_uopc.saturation.piecewise.ranges import decide_by_ranges
from eqsat_uopc.saturation.piecewise.residues import decide_by_residues
from eqsat_uopc.saturation.piecewise.sign import sign

x, y, z = UOp.param(0), UOp.param(1), UOp.param(2)


def minimum(a, b):
    return (a < b).where(a, b)


def form(*minima):
    """A Form written out: form([f, g], [h]) is max(min(f, g), h)."""
    return frozenset(frozenset(m) for m in minima)


# -- forms.py: the values
def test_a_linear_form_is_its_terms_sorted_by_atom_and_its_constant():
    pl = PiecewiseLinear()  # atoms numbered as met: x is 0, y is 1
    assert pl.form(x * 2 + y * -3 + 5) == form([(((0, 2), (1, -3)), 5)])
    assert pl.form(y * -3 + 5 + x * 2) == pl.form(x * 2 + y * -3 + 5)
    # a MAX is a set of minima, a MIN one minimum of several forms
    assert pl.form(x.maximum(y) + 1) == form([(((0, 1),), 1)], [(((1, 1),), 1)])
    assert pl.form(minimum(x, y + 2)) == form([(((0, 1),), 0), (((1, 1),), 2)])


def test_constants_residues_ranges_and_dominance_of_plain_forms():
    assert constant_form(7) == form([((), 7)]) and constant_of(constant_form(7)) == 7
    assert constant_of(form([(((0, 1),), 7)])) is None
    assert constant_of(form([((), 1)], [((), 2)])) is None
    # min(8a, 8b + 10) = 2 (mod 4) whichever form wins; min(8a, 8b + 9) has no one residue
    assert residue(form([(((0, 8),), 0), (((1, 8),), 10)]), 4) is None
    assert residue(form([(((0, 8),), 2), (((1, 8),), 10)]), 4) == 2
    assert residue(form([(((0, 8),), 2), (((1, 4),), 10)]), 8) is None
    assert scaled(frozenset([(((0, 2),), 3)]), -3) == [(((0, -6),), -9)]
    assert scaled(frozenset([(((0, 2),), 3)]), 0) == [((), 0)]
    # min(x, y) <= min(x + 2, y); not the other way, nor against a form of other terms
    assert below(frozenset([(((0, 1),), 0), (((1, 1),), 0)]), frozenset([(((0, 1),), 2), (((1, 1),), 0)]))
    assert not below(frozenset([(((0, 1),), 2), (((1, 1),), 0)]), frozenset([(((0, 1),), 0), (((1, 1),), 0)]))
    assert not below(frozenset([(((0, 1),), 0)]), frozenset([(((1, 1),), 5)]))
    # 2 a0 - a1 + 1 with a0 in [0, 3], a1 in [-1, 4]: [-3, 8]; an unbounded atom: no range
    assert linear_range((((0, 2), (1, -1)), 1), {0: (0, 3), 1: (-1, 4)}) == (-3, 8)
    assert linear_range((((0, 2), (2, -1)), 1), {0: (0, 3), 1: (-1, 4)}) is None


# -- normal.py: the builder
def test_a_budget_spends_only_what_it_has():
    b = Budget(3)
    assert b.spend(2) and b.left == 1
    assert not b.spend(2) and b.left == 1  # refused: nothing taken
    assert b.spend() and not b.spend() and b.left == 0
    assert repr(b) == "Budget(0)"


def test_past_its_work_budget_a_builder_makes_atoms(monkeypatch):
    comparison = x.maximum(y) + 1 < (x + 3).maximum(y + 3)
    assert decide(PiecewiseLinear(), comparison) is True
    monkeypatch.setattr(normal, "_WORK", 1)  # max(x, y) + 1 builds two linear forms: x + 1, y + 1
    pl = PiecewiseLinear()
    assert pl.form(x.maximum(y)) == form([(((0, 1),), 0)], [(((1, 1),), 0)])
    assert pl.form(x.maximum(y) + 1) == form([(((2, 1),), 0)])  # an atom: max(x, y) + 1 as a whole
    assert decide(pl, comparison) is None


def test_a_negative_factor_is_carried_into_the_operands_of_a_sum(monkeypatch):
    # (x + y * -2) * -3 = x * -3 + y * 6; a double negation gives back the term's own form
    pl = PiecewiseLinear()
    assert pl.form((x + y * -2) * -3) == form([(((0, -3), (1, 6)), 0)])
    m = minimum(x, y - 128)
    s = (m.maximum(-127) + 11).maximum(m) + (m.maximum(0) * -1 + 11).maximum(m * -1)  # s >= 0
    assert pl.form(s * -1 * -1) == pl.form(s)
    # -s as -a + -b: 4 minima of 18 linear forms; -s from s's form (a minimum of the maxima of its
    # minima) distributes past the builder's bounds: an atom, and the comparison undecided
    comparison = (s * -1).maximum(96) * -1 < -96
    negated = PiecewiseLinear().form(s * -1)
    assert (len(negated), sum(len(m) for m in negated)) == (4, 18)
    assert decide(PiecewiseLinear(), comparison) is False
    monkeypatch.setattr(normal, "_SPREAD", 0)
    assert PiecewiseLinear().form(s * -1) == form([(((2, 1),), 0)])  # atoms x, y, then -s
    assert decide(PiecewiseLinear(), comparison) is None
    # a sum whose form a case gives is scaled as given, not entered: x + y is y + 1 in this case
    monkeypatch.setattr(normal, "_SPREAD", 8)
    base = PiecewiseLinear()
    case = base.case(forms={x + y: base.form(y + 1)})
    assert case.form((x + y) * -2) == form([(((0, -2),), -2)])  # y is atom 0 here
    assert base.form((x + y) * -2) == form([(((0, -2), (1, -2)), 0)])


def test_a_case_shares_the_atoms_and_bounds_and_changes_nothing_of_its_base():
    base = PiecewiseLinear()
    before = base.form(x + minimum(y, UOp.const(4)))
    # a case with x in [0, 3]: x < 4 holds there, and not in the base
    case = base.case(bounds={x: (0, 3)})
    assert decide(case, x < 4) is True and decide(base, x < 4) is None
    assert case.form(x + minimum(y, UOp.const(4))) == before  # the same atoms, the same numbers
    # a case where z's form is given: z is y + 1 there, not rebuilt from its term
    given = base.case(forms={z: base.form(y + 1)})
    assert given.form(z) == base.form(y + 1) and decide(given, y < z) is True
    assert base.form(z) == form([(((2, 1),), 0)]) and decide(base, y < z) is None
    # what the cases added (z's atom in the base, x's bounds in the case) stayed in them
    assert base.case().form(x + 1) == base.form(x + 1) and decide(base.case(), x < 4) is None


# -- division.py
def test_exact_division_floor_multiples_and_rational_division():
    pl = PiecewiseLinear()
    assert pl.form((x * 8 + 3) // 4) == pl.form(x * 2)
    assert pl.form((x * 8 + 3) % 4) == constant_form(3)
    # (x // 4) * 8 = 2 (x - x % 4): x // 4 is atom 1, x % 4 atom 2, in [0, 3]
    assert pl.form((x // 4) * 8) == form([(((0, 2), (2, -2)), 0)])
    assert pl.form(x % 4) == form([(((2, 1),), 0)])
    assert PiecewiseLinear(floor_multiples=False).form((x // 4) * 8) == form([(((1, 8),), 0)])
    # x // 8 = (x - x % 8) / 8 in the rational builder, an atom in the others
    rational = PiecewiseLinear(rational_division=True)
    assert rational.form(x // 8) == form([(((0, Fraction(1, 8)), (1, Fraction(-1, 8))), 0)])
    assert rational.form(x % 8) == form([(((1, 1),), 0)])
    assert pl.form(x // 8) == form([(((3, 1),), 0)])


# -- the decisions alone
def test_constant_difference():
    pl = PiecewiseLinear()
    assert constant_difference(pl, x.maximum(y) + 1, (x + 3).maximum(y + 3)) == 2
    assert constant_difference(pl, (x + 3).maximum(y + 3), x.maximum(y) + 1) == -2
    assert constant_difference(pl, x + minimum(y, z), minimum(x + y, x + z)) == 0
    assert constant_difference(pl, x, y) is None
    assert constant_difference(pl, x.maximum(y), x.maximum(y + 1)) is None


def test_sign_by_the_atoms_bounds():
    pl = PiecewiseLinear()
    assert sign(pl, (x // 4) * 4, x + 1) == 1  # x + 1 - (x - x % 4) = 1 + x % 4 > 0
    assert sign(pl, x + 3, (x // 4) * 4) == -1  # -3 - x % 4 <= 0
    assert sign(pl, (x // 4) * 4, x) is None  # x % 4 >= 0, sometimes 0
    assert sign(pl, x, y) is None


def test_one_builders_decision_and_a_splits_agreement():
    pl = PiecewiseLinear()
    assert is_comparison(x < y) and is_comparison(x.ne(y)) and not is_comparison(x + y)
    assert decide(pl, x.maximum(y) < (x + 1).maximum(y + 1)) is True  # by the constant difference
    assert decide(pl, (x.maximum(y) + 1).ne((x + 1).maximum(y + 1))) is False
    assert decide(pl, x % 4 < 4) is True  # by the sign
    assert decide(pl, (x % 4).ne(UOp.const(5))) is True
    assert decide(pl, x < y) is None
    within = [pl.case(bounds={x: (0, 3)}), pl.case(bounds={x: (4, 7)})]
    assert decided_alike(within, x < 8) is True
    assert decided_alike(within, x < 4) is None  # true in one case, false in the other
    assert decided_alike([pl], x < y) is None


def test_a_residue_split_alone_spends_its_cases():
    # z is 16x + 3 or 16y + 4: one case per residue modulo 8, a multiple of 4 in both
    zz = minimum(x * 16 + 3, y * 16 + 4)
    m = ((zz // 8) * 8).maximum(zz - 4)
    multiple = ((m // 4) * 4).ne(m)
    splits = Budget(64)
    assert decide_by_residues(PiecewiseLinear(floor_multiples=False), multiple, splits) is False
    assert splits.left == 62
    splits = Budget(1)  # two cases needed: none tried
    assert decide_by_residues(PiecewiseLinear(floor_multiples=False), multiple, splits) is None
    assert splits.left == 1


def test_a_range_split_alone_spends_its_cases():
    spelled = x.maximum(8) + minimum(x, UOp.const(4)) < x + 4  # x <= 4, 4 < x < 8, x >= 8
    splits = Budget(64)
    assert decide_by_ranges(PiecewiseLinear(), spelled, splits) is False
    assert splits.left == 61
    splits = Budget(2)
    assert decide_by_ranges(PiecewiseLinear(), spelled, splits) is None and splits.left == 2
    # more constants than _MAX_CUTS: not split
    many = sum((x.maximum(c) for c in range(5)), UOp.const(0)) < x * 5 + 11
    splits = Budget(64)
    assert decide_by_ranges(PiecewiseLinear(), many, splits) is None and splits.left == 64


@pytest.mark.parametrize(
    ("chain", "decided", "value"),
    [
        # x >= 0 and x <= -2 (8x + 1 <= 16x + 1, 16x + 16 <= 8x + 7)
        (((x * 16 + 1) < (x * 8 + 1)).ne(True).where((x * 8 + 7 < x * 16 + 16).ne(True), False), {}, False),
        ((x < 0).where(True, x > -1), {}, True),  # x < 0 || x >= 0
        ((x < y).where(x > 3, False), {x < y: False}, False),  # a literal decided false
        ((x < y).where(x > 3, False), {x < y: True}, None),  # decided true: x > 3 alone is open
        ((x > -1).where(x < 1, False), {}, None),  # x = 0
    ],
)
def test_a_chain_alone(chain, decided, value):
    assert is_chain(chain) and not is_chain(x < y)
    assert decide_chain(PiecewiseLinear(), chain, decided) is value
