"""Piecewise-linear normal forms (the linear family's Python rule linear/piecewise-compare)."""

import itertools
import random

import pytest

from eqsat_uopc import UOp, optimize, to_uir
from eqsat_uopc.corpus import caviar_dev
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.saturation.piecewise import PiecewiseLinear, decided_comparisons
from eqsat_uopc.saturation.piecewise.compare import decide
from eqsat_uopc.verify import prove_equivalent

x, y, z = UOp.param(0), UOp.param(1), UOp.param(2)


def minimum(a, b):
    return (a < b).where(a, b)


def caviar_min(a, b):  # how the Caviar corpus spells it
    return (a * -1).maximum(b * -1) * -1


def test_sums_distribute_into_min_and_max():
    pl = PiecewiseLinear()
    assert pl.form(x + minimum(UOp.const(3), y - x)) == pl.form(minimum(x + 3, y))
    assert pl.form(x.maximum(y) * 2 + 1) == pl.form((y * 2 + 1).maximum(x * 2 + 1))
    assert pl.form(caviar_min(x, y) * -3) == pl.form((x * -3).maximum(y * -3))
    # undercut forms and dominated minima are dropped: min(x, x + 2) = x, max(min(x, y), x) = x
    assert pl.form(minimum(x, x + 2)) == pl.form(x)
    assert pl.form(minimum(x, y).maximum(x)) == pl.form(x)
    # a MAX and a MIN of the same pair (up to a common shift) add up to a linear form
    assert pl.form(x.maximum(y) + minimum(x, y)) == pl.form(x + y)
    assert pl.form(x.maximum(4) + caviar_min(x - 1, UOp.const(3))) == pl.form(x + 3)
    # a product of variables is an atom: one node is one atom, sums of it commute
    assert pl.form(x * y + 1) == pl.form(1 + x * y) and pl.form(x * y) != pl.form(y * x)


def test_the_atoms_bounds_drop_a_form_another_one_undercuts():
    pl = PiecewiseLinear()
    # (x // 4) * 4 + 8 = x - x % 4 + 8 >= x + 5: the MIN is x
    assert pl.form(minimum(x, (x // 4) * 4 + 8)) == pl.form(x)
    assert pl.form(minimum(x, (x // 4) * 4 + 2)) != pl.form(x)
    # two forms each at least the other (an input pinned to 3): one is kept, not both dropped
    three = UOp.param(5, bounds=(3, 3))
    pinned = minimum(x + three, x + 3)
    assert [len(m) for m in pl.form(pinned)] == [1]
    assert decided_comparisons([pinned < x + 4]) == [(pinned < x + 4, True)]


def test_division_and_remainder_are_exact_when_every_form_has_one_residue():
    pl = PiecewiseLinear()
    m = minimum(x * 8, y * 8 + 8)
    assert pl.form((m // 4) * 4) == pl.form(m)
    assert pl.form((x * 8 + 3) % 4) == pl.form(UOp.const(3))
    assert pl.form((minimum(x * 8, y * 8 + 2) // 4) * 4) != pl.form(minimum(x * 8, y * 8 + 2))


@pytest.mark.parametrize(
    ("comparison", "value"),
    [
        # a + min(59, 297 - a) >= min(a, 238) + 59: both sides are min(a + 59, 297)
        ((x * 60 + caviar_min(UOp.const(59), 297 - x * 60)) < (minimum(x * 60, UOp.const(238)) + 59), False),
        (x.maximum(y) + 1 < (x + 1).maximum(y + 1), False),
        (x.maximum(y) < (x + 1).maximum(y + 1), True),
        ((x.maximum(y) + 1).ne((x + 1).maximum(y + 1)), False),
        ((x + minimum(y, z)).ne(minimum(x + y, x + z) + 2), True),
        (((minimum(x * 8, y * 8 + 8) // 4) * 4).ne(minimum(x * 8, y * 8 + 8)), False),
        (((x * 8 + 3) % 4).ne(UOp.const(3)), False),
        (((x // 4) * 4 + x % 4).ne(x), False),
    ],
)
def test_comparisons_whose_sides_differ_by_a_constant_are_decided(comparison, value):
    assert decided_comparisons([comparison]) == [(comparison, value)]


xb, yb = UOp.param(3, bounds=(0, 15)), UOp.param(4, bounds=(0, 3))


@pytest.mark.parametrize(
    ("comparison", "value"),
    [
        # (x // 4) * 4 = x - x % 4, the remainder in [0, 3]
        ((x // 4) * 4 < x + 1, True),
        ((x // 4) * 8 < x * 2 + 1, True),  # (x // c) * (k * c) = k * (x - x % c)
        # x // c = (x - x % c) / c: (x + 15) // 8 - x // 8 = 15/8 + (m - m') / 8, in [1, 2.75]
        ((x + 15) // 8 - x // 8 < 3, True),
        (x // 8 < (x + 8) // 8, True),
        (x + 3 < (x // 4) * 4, False),
        (x % 4 < 4, True),
        # max(x, y) + 1 - min(x, y) = max(1, x - y + 1, y - x + 1): its first minimum is above 0
        (minimum(x, y) < x.maximum(y) + 1, True),
        # bounded inputs: 4 xb + yb <= 63
        (xb * 4 + yb < 64, True),
        ((xb * 4 + yb).ne(UOp.const(64)), True),
        (UOp.const(63) < xb * 4 + yb, False),
        # Caviar L03239's core: 251 + ((max(x, 4) - 1) // 252) * 252 + min(x, 4) - 4 >= x - 1, as the
        # left side is x + 250 - m with m = (max(x, 4) - 1) % 252 <= 251; against x it is undecided
        (251 + ((x.maximum(4) - 1) // 252) * 252 + minimum(x, UOp.const(4)) - 4 < x - 1, False),
    ],
)
def test_comparisons_decided_by_the_bounds_of_remainders_and_inputs(comparison, value):
    assert decided_comparisons([comparison]) == [(comparison, value)]


@pytest.mark.parametrize(
    "comparison",
    [
        x < y,
        (x // 4) * 4 < x,  # false only when x % 4 = 0
        x % 4 < 3,
        minimum(x, y) < x,
        xb * 4 + yb < 63,  # false only at xb = 15, yb = 3
        x // 8 < (x + 1) // 8,  # true only when x % 8 = 7
        251 + ((x.maximum(4) - 1) // 252) * 252 + minimum(x, UOp.const(4)) - 4 < x,
        x * y < y * x + 1,  # products are atoms, and x * y is not y * x as a node
    ],
)
def test_what_the_normal_forms_do_not_decide(comparison):
    assert decided_comparisons([comparison]) == []


def test_a_split_on_the_residue_of_a_pure_min_decides_what_each_case_decides_alike():
    # z is 16x + 3 or 16y + 4; when z = 3 (mod 8), z // 8 * 8 = z - 3 and the MAX is z - 3 = 16x; when
    # z = 4 (mod 8), it is z - 4 = 16y: a multiple of 4 either way
    z = minimum(x * 16 + 3, y * 16 + 4)
    m = ((z // 8) * 8).maximum(z - 4)
    multiple = ((m // 4) * 4).ne(m)
    assert decided_comparisons([multiple]) == [(multiple, False)]
    assert prove_equivalent(multiple, UOp.const(False), int_semantics="no_overflow").status == "proved"
    # with 16y + 5 the cases disagree (16y + 1 is not a multiple of 4): undecided
    z = minimum(x * 16 + 3, y * 16 + 5)
    m = ((z // 8) * 8).maximum(z - 4)
    assert decided_comparisons([((m // 4) * 4).ne(m)]) == []


def test_the_costlier_passes_take_small_comparisons_only():
    # rational divisions decide (x + s + 15) // 8 - (x + s) // 8 < 3 for any s; past 500 nodes the
    # comparison is left to the plain pass (a program of many deep comparisons stays linear)
    def shifted(s):
        return (x + s + 15) // 8 - (x + s) // 8 < 3

    small, big = UOp.param(7), sum((UOp.param(10 + k) for k in range(300)), UOp.const(0))
    assert decided_comparisons([shifted(small)]) == [(shifted(small), True)]
    assert shifted(big).size > 500 and decided_comparisons([shifted(big)]) == []


def test_past_the_bounds_a_term_is_an_atom_and_still_compares():
    wide = sum((UOp.param(k) for k in range(40)), UOp.const(0))  # 40 atoms: past _MAX_ATOMS
    assert decided_comparisons([wide < wide + 1]) == [(wide < wide + 1, True)]


def _evaluate(u, env, memo):
    if u in memo:
        return memo[u]
    v = [_evaluate(s, env, memo) for s in u.src]
    op = u.op
    out = {
        Ops.CONST: lambda: u.arg,
        Ops.PARAM: lambda: env[u],
        Ops.ADD: lambda: v[0] + v[1],
        Ops.MUL: lambda: v[0] * v[1],
        Ops.MAX: lambda: max(v),
        Ops.CMPLT: lambda: v[0] < v[1],
        Ops.CMPNE: lambda: v[0] != v[1],
        Ops.FLOORDIV: lambda: v[0] // v[1],
        Ops.FLOORMOD: lambda: v[0] % v[1],
        Ops.WHERE: lambda: v[1] if v[0] else v[2],
    }[op]()
    memo[u] = out
    return out


def _random_term(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([x, y, z, UOp.const(rng.randint(-9, 9))])
    a, b = _random_term(rng, depth - 1), _random_term(rng, depth - 1)
    kind = rng.randrange(7)
    if kind == 0:
        return a + b
    if kind == 1:
        return a * rng.choice([-3, -1, 2, 4, 8])
    if kind == 2:
        return a.maximum(b)
    if kind == 3:
        return minimum(a, b)
    if kind == 4:
        return caviar_min(a, b)
    return (a // rng.choice([2, 4, 8])) if kind == 5 else (a % rng.choice([2, 4]))


def test_every_decision_holds_on_every_input_of_a_grid():
    """Random terms (a constant shift of one side makes many comparisons decidable); each decision
    is checked on 5 x 5 x 5 inputs with exact integers (no_overflow's mathematics)."""
    rng = random.Random(7)
    decided = 0
    for _ in range(600):
        a = _random_term(rng, 3)
        b = a + rng.randint(-2, 2) if rng.random() < 0.5 else _random_term(rng, 3)
        shuffled = _random_term(rng, 1) + a  # the same term, grown differently
        for comparison in (a < b, b < a, a.ne(b), (shuffled < b + _random_term(rng, 1))):
            for u, value in decided_comparisons([comparison]):
                decided += 1
                for xs in itertools.product([-7, -1, 0, 3, 12], repeat=3):
                    env = dict(zip((x, y, z), xs, strict=True))
                    assert _evaluate(u, env, {}) is value, (u, xs)
    assert decided > 800


def test_decisions_on_the_caviar_corpus_are_theorems():
    decisions = {}
    for e in caviar_dev()[::40]:
        decisions.update(decided_comparisons(e.program.toposort()))
    sample = sorted(decisions.items(), key=lambda kv: kv[0].size)[-12:]  # the largest ones
    assert len(sample) == 12
    for u, value in sample:
        assert prove_equivalent(u, u.const_like(value), int_semantics="no_overflow").status == "proved"


L24572 = next(e for e in caviar_dev() if e.id.endswith("L24572")).program
L03239 = next(e for e in caviar_dev() if e.id.endswith("L03239")).program
L07706 = next(e for e in caviar_dev() if e.id.endswith("L07706")).program
L06959 = next(e for e in caviar_dev() if e.id.endswith("L06959")).program


def test_saturation_decides_what_only_the_normal_forms_see():
    # a conjunction of six comparisons; 248 + ((max(v0, 4) - 1) // 252) * 252 + min(v0, 4) + v1 - 4
    # >= v0 + v1 - 1 needs the remainder's bound and max + min = v0 + 4
    assert optimize(L03239, int_semantics="no_overflow").program is UOp.const(True)
    # max(((v0 % 8) + 23) / 8, ((m + v0 + 15) / 8) - min((m + v0) / 8, (v0 + 15) / 8 + v1) + 1) <= 1024,
    # m = min(v1 * 8, 242): the divisions as rational forms bound the second operand by 3
    assert optimize(L07706, int_semantics="no_overflow").program is UOp.const(True)
    # (X / 4) * 4 == X with X = max(((M + 27) / 8) * 8, M + 23), M a MIN of forms 1 and 0 modulo 8
    assert optimize(L06959, int_semantics="no_overflow").program is UOp.const(True)
    # (X / 4) * 4 == X, X = min(min(12 v0 + v1 + 8, v2) * 8, min(v2 - v1 - 12 v0, 8) * 8 + 96 v0 + 8 v1 + 2)
    result = optimize(L24572, int_semantics="no_overflow")
    assert result.program is UOp.const(True)
    assert result.report.matches["linear/piecewise-compare"] >= 1
    # a Python rule of the linear family, no_overflow only: not under wrap, nor without the family
    assert optimize(L24572, int_semantics="wrap").program.op is not Ops.CONST
    assert "linear/piecewise-compare" not in optimize(L24572, int_semantics="wrap").report.matches
    chapter = optimize(L24572, int_semantics="no_overflow", rules="symbolic")
    assert chapter.program.op is not Ops.CONST


def test_a_negated_sum_of_maxima_is_decided_through_its_operands():
    # (X / 4) * 4 == X, X = -max(-(A + B), 96) with A = max(max(m, -127) + 11, m'), B = max(11 -
    # max(m'', 0), -m'), m' = min(128 v0 + v1, v2 + v1 - 128): A + B >= m' - m' = 0, so X = -96. The
    # sum's form has 15 minima; negated, the sum's operands' forms are small (PiecewiseLinear.scaled_term)
    for line, scale in (("L02998", 128), ("L27462", 288)):
        program = next(e for e in caviar_dev() if e.id.endswith(line)).program
        assert f"mul %0, {scale}" in to_uir(program)
        assert optimize(program, int_semantics="no_overflow").program is UOp.const(True)
        assert [value for _, value in decided_comparisons([program.src[0]])] == [False]  # (X / 4) * 4 != X


def _and(a, b):  # how the Caviar corpus spells a && b, a || b and a <= b
    return a.where(b, False)


def _or(a, b):
    return a.where(True, b)


def _le(a, b):
    return (b < a).ne(True)


def test_chains_whose_comparisons_bound_one_linear_form_out_of_every_integer_are_decided():
    contradiction = _and(_le(x * 8 + 1, x * 16 + 1), _le(x * 16 + 16, x * 8 + 7))  # x >= 0, x <= -2
    assert decided_comparisons(contradiction.toposort())[-1] == (contradiction, False)
    # the negations of a contradiction: a disjunction that always holds
    tautology = _or(x * 16 < x * 8, x * 8 + 8 < x * 16 + 16)  # x < 0 || x > -1
    assert decided_comparisons(tautology.toposort())[-1] == (tautology, True)
    # one linear form up to a factor: 2x + 2y < 7 && 3 < x + y (x + y <= 3 and x + y >= 4)
    scaled = _and((x + y) * 2 < 7, x + y > 3)
    assert decided_comparisons([scaled]) == [(scaled, False)]
    # an equality pins the form, a != excludes the point: x == 5 && x * 2 != 10
    pinned = _and(x.ne(5).ne(True), (x * 2).ne(10))
    assert decided_comparisons([pinned]) == [(pinned, False)]
    # a remainder's own bounds: 6 < x % 8 && x % 8 != 7 leaves nothing of [0, 7]
    rem = _and(x % 8 > 6, (x % 8).ne(7))
    assert decided_comparisons([rem]) == [(rem, False)]
    # a chain decided is a literal decided for the chains above it: y < 3 || !(x < 0 && 0 < x)
    inner = _and(x < 0, x > 0)
    outer = _or(y < 3, inner.ne(True))
    assert decided_comparisons(outer.toposort())[-2:] == [(inner, False), (outer, True)]
    # what a chain does not decide: a satisfiable one, two different forms, a parity-free !=
    for open_ in (_and(x > -1, x < 1), _and(x < 0, y > 0), _and(x.ne(1), x.ne(2))):
        assert [u for u, _ in decided_comparisons([open_])] == []
    # saturation folds the decision up: the Caviar shape of a bounds check, and its root
    program = _and(_and(UOp.const(True), _le(x * 8 + 1, x * 16 + 1)), _le(x * 16 + 16, x * 8 + 7))
    result = optimize(program, int_semantics="no_overflow")
    assert result.program is UOp.const(False) and result.report.decided_without_engine


def test_every_decided_chain_holds_on_every_input_and_z3_proves_a_sample():
    """Chains of two to four comparisons of `k L + c` (L one of a few linear forms and atoms) joined
    by && or ||: each decision is checked on 81 x 3 inputs with exact integers, 20 by z3."""
    rng = random.Random(11)
    forms = [x, x + y * 2, x // 4, x % 8, (x * 3 + y) * 2]
    decisions = []
    for _ in range(1500):
        base = rng.choice(forms)
        literals = []
        for _ in range(rng.randint(2, 4)):
            a = base * rng.choice([-8, -2, -1, 1, 2, 3, 8]) + rng.randint(-20, 20)
            b = base * rng.choice([-8, -1, 1, 2, 8]) + rng.randint(-20, 20)
            kind = rng.randrange(4)
            literals.append([a < b, _le(a, b), a.ne(b), a.ne(b).ne(True)][kind])
        join = _and if rng.random() < 0.5 else _or
        chain = literals[0]
        for literal in literals[1:]:
            chain = join(chain, literal)
        decisions += [(u, v) for u, v in decided_comparisons(chain.toposort()) if u.op is Ops.WHERE]
    assert sum(v for _, v in decisions) > 40 and sum(not v for _, v in decisions) > 40
    for u, value in decisions:
        for xs in itertools.product(range(-40, 41), [-3, 0, 5], [0]):
            env = dict(zip((x, y, z), xs, strict=True))
            assert _evaluate(u, env, {}) is value, (u, xs)
    for u, value in random.Random(3).sample(decisions, 20):
        assert prove_equivalent(u, UOp.const(value), int_semantics="no_overflow").status == "proved"


def test_a_split_on_the_ranges_between_an_inputs_min_and_max_constants_decides_what_each_decides():
    # max(v, 8) + min(v, 4) >= v + 4 everywhere, but no one normal form of v says so
    p = _le(x, ((x.maximum(8) - 1) // 499) * 499 + caviar_min(x, UOp.const(4)) + 505)
    assert decided_comparisons([p.src[0]]) == [(p.src[0], False)]
    assert optimize(p, int_semantics="no_overflow").program is UOp.const(True)
    # MIN written as a WHERE: max(v, 8) + min(v, 4) < v + 4 is false
    spelled = x.maximum(8) + minimum(x, UOp.const(4)) < x + 4
    assert decided_comparisons([spelled]) == [(spelled, False)]
    # true for v <= 4 and for v >= 8 but not between: undecided
    gap = _le(x + 4, x.maximum(8) + caviar_min(x, UOp.const(4)) - 3).src[0]
    assert decided_comparisons([gap]) == []


def test_every_decision_of_a_range_split_holds_on_every_input_and_z3_proves_a_sample():
    """Comparisons of sums of MAX and MIN of x with constants (and x itself) that only a split on
    x's ranges decides, checked on x in [-60, 60] (every range the constants in [-9, 9] make, with
    room on both sides), 20 by z3."""
    rng = random.Random(5)
    ranged = []
    for _ in range(1500):
        terms = []
        for _ in range(rng.randint(2, 3)):
            c = UOp.const(rng.randint(-9, 9))
            scaled = x * rng.choice([-1, 1, 2])
            terms.append(rng.choice([x.maximum(c), caviar_min(x, c), minimum(x, c), scaled]))
        lhs = terms[0] + rng.randint(-6, 6)
        rhs = sum(terms[1:], UOp.const(rng.randint(-6, 6)))
        for comparison in (lhs < rhs, rhs < lhs, lhs.ne(rhs)):
            for u, value in decided_comparisons([comparison]):
                if decide(PiecewiseLinear(), u) is None:  # the plain normal forms do not decide it
                    ranged.append((u, value))
    assert len(ranged) > 100
    for u, value in ranged:
        for v in range(-60, 61):
            assert _evaluate(u, {x: v}, {}) is value, (u, v)
    for u, value in random.Random(3).sample(ranged, 20):
        assert prove_equivalent(u, UOp.const(value), int_semantics="no_overflow").status == "proved"
