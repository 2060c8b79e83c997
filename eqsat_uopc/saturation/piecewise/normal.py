"""Normal forms of UOp terms: `PiecewiseLinear` builds the max-of-min-of-linear form of every int term.

Under `no_overflow` an i32 term built of `+`, `*` by a constant, MAX and MIN (`where(a < b, a, b)`,
or `max(a * -1, b * -1) * -1` as the Caviar corpus spells it) is a `Form` (forms.py) over its
atoms. `+` distributes over both (`a + min(b, c) = min(a + b, a + c)`), a positive factor too, and a
negative one swaps them; this is what makes two spellings of one function compare: `x + min(3, y -
x)` and `min(x + 3, y)` have one form, which no rewrite rule finds without distributing `+` into
MIN through associativity and commutativity, an e-graph blow-up. A negative factor is carried
into a sum's operands (`scaled_term`): negating a maximum of minima distributes a minimum of maxima
back, exponential in the number of minima, which a sum has more of than its operands.

Each form is kept small (`normal`): a linear form that another in the same minimum undercuts is
dropped, by a constant (`min(f, f + 2)` is `f`) or by the atoms' bounds (bounded inputs, and `x % c`
in [0, c - 1]: `min(x, (x // 4) * 4 + 8)` is `x`), and so is a minimum another one dominates. A MAX
and a MIN of the same pair add up to a sum: `max(l1, l2) + min(m1, m2) = l1 + m2` when `l1 - l2 =
m1 - m2` (`max(v, 4) + min(v, 4) = v + 4`). Divisions are division.py's.

Everything else is an atom, numbered per builder; so is a term past a bound (`_MAX_FORMS` linear
forms per form, `_MAX_ATOMS` atoms per linear form, `_WORK` linear forms built per builder), which is
sound, only weaker. A case split derives a builder per case with `case()`, which shares the atoms'
numbering so that the forms of the cases compare.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise import division
from eqsat_uopc.saturation.piecewise.forms import (
    Coefficient,
    Form,
    Linear,
    Range,
    below,
    constant_form,
    constant_of,
    linear_range,
    scaled,
)

__all__ = ["Budget", "PiecewiseLinear", "TooBig"]

_MAX_FORMS = 64  # linear forms in one normal form
_MAX_ATOMS = 32  # atoms in one linear form
_WORK = 200_000  # linear forms built per builder
_SPREAD = 8  # levels of sums a negative factor is carried into (scaled_term)


class TooBig(Exception):
    """A normal form past a bound: the term is an atom instead (or the comparison undecided)."""


class Budget:
    """What is left of a bounded amount of work (linear forms built, cases of splits tried)."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self, n: int = 1) -> bool:
        """Take n from what is left, if that much is left (else take nothing and say no)."""
        if self.left < n:
            return False
        self.left -= n
        return True

    def __repr__(self) -> str:
        return f"Budget({self.left})"


class PiecewiseLinear:
    """Normal forms of the integer terms of one program (memoized per UOp; atoms numbered per builder).

    `rational_division` writes an inexact `x // c` with rational coefficients, `floor_multiples`
    writes `(x // c) * (k * c)` as `k * (x - x % c)` (division.py)."""

    def __init__(self, rational_division: bool = False, floor_multiples: bool = True) -> None:
        self.rational_division = rational_division
        self.floor_multiples = floor_multiples
        self._forms: dict[UOp, Form] = {}
        self._visited: set[UOp] = set()
        self._atoms: dict[tuple, int] = {}
        self._bounds: dict[int, tuple[int, int]] = {}  # atom -> [lo, hi], where known
        self._work = Budget(_WORK)
        self._given: set[UOp] = set()  # terms whose form a case gives (not built from their term)

    def case(
        self, *, forms: Mapping[UOp, Form] | None = None, bounds: Mapping[UOp, tuple[int, int]] | None = None
    ) -> PiecewiseLinear:
        """A builder for one case of a split: this one's passes, and a copy of its atoms and bounds
        (so that the forms of the case name the same atoms, and what the case adds stays in it);
        none of its forms, but `forms` taken as given (`{z: form}`: z is not built from its term in
        this case), and the terms in `bounds` (inputs: `{x: (lo, hi)}`) bounded so. Its own work
        budget."""
        case = PiecewiseLinear(self.rational_division, self.floor_multiples)
        case._atoms, case._bounds = dict(self._atoms), dict(self._bounds)
        for u, form in (forms or {}).items():
            case._forms[u] = form
            case._visited.add(u)
            case._given.add(u)
        for u, b in (bounds or {}).items():
            case._bounds[case._atoms.setdefault(case._atom_key(u), len(case._atoms))] = b
        return case

    # -- arithmetic on normal forms
    def linear(self, items: dict[int, Coefficient], constant: Coefficient) -> Linear:
        """The linear form sum(c * atom for atom, c in items) + constant, counted against the work
        budget."""
        if len(items) > _MAX_ATOMS:
            raise TooBig
        if not self._work.spend():
            raise TooBig
        return tuple(sorted((a, c) for a, c in items.items() if c)), constant

    def _add_linear(self, x: Linear, y: Linear) -> Linear:
        items = dict(x[0])
        for a, c in y[0]:
            items[a] = items.get(a, 0) + c
        return self.linear(items, x[1] + y[1])

    def _minus(self, x: Linear, y: Linear) -> Linear:
        return self._add_linear(x, (tuple((a, -c) for a, c in y[0]), -y[1]))

    def normal(self, minima: Iterable[Iterable[Linear]]) -> Form:
        """The form max(min(m) for m in minima), small: drop the linear forms another one undercuts
        in each minimum (by a constant, or by the atoms' bounds), then the dominated minima."""
        reduced = set()
        for minimum in minima:
            lowest: dict[tuple, Coefficient] = {}
            for terms, c in minimum:
                if terms not in lowest or c < lowest[terms]:
                    lowest[terms] = c
            forms = sorted(lowest.items())
            if 1 < len(forms) <= 16 and self._bounds:  # drop a form the bounds prove at least another one
                kept_forms: list[Linear] = []
                for f in forms:
                    if not any(self.at_least(f, g) for g in kept_forms):
                        kept_forms = [g for g in kept_forms if not self.at_least(g, f)] + [f]
                forms = kept_forms
            reduced.add(frozenset(forms))
        if sum(len(m) for m in reduced) > _MAX_FORMS:
            raise TooBig
        kept = set(reduced)
        for a in reduced if len(reduced) <= 32 else ():  # quadratic: only where forms stay small
            # min(a) <= min(b) when every form of b has one of a with the same terms below it
            if any(b != a and b in kept and below(a, b) for b in reduced):
                kept.discard(a)
        return frozenset(kept)

    def add(self, x: Form, y: Form) -> Form:
        for p, q in ((x, y), (y, x)):
            # max(l1, l2) + min(m1, m2) = l1 + m2 when l1 - l2 = m1 - m2 (whichever wins the MAX,
            # the other side wins the MIN): max(v, 4) + min(v, 4) = v + 4
            if len(p) == 2 and len(q) == 1 and all(len(m) == 1 for m in p) and len(next(iter(q))) == 2:
                (l1,), (l2,) = p
                (m1, m2) = next(iter(q))
                for a, b in ((m1, m2), (m2, m1)):
                    if self._minus(l1, l2) == self._minus(a, b):
                        return frozenset([frozenset([self._add_linear(l1, b)])])
        return self.normal([self._add_linear(p, q) for p in a for q in b] for a in x for b in y)

    def maximum(self, x: Form, y: Form) -> Form:
        return self.normal(x | y)

    def minimum(self, x: Form, y: Form) -> Form:
        return self.normal(a | b for a in x for b in y)

    def scale(self, x: Form, k: Coefficient) -> Form:
        if k >= 0:
            return self.normal([self.linear(dict(t), c) for t, c in scaled(m, k)] for m in x)
        negated = None  # -max_i min_j f_ij = min_i max_j -f_ij
        for m in x:
            term = frozenset(frozenset([f]) for f in scaled(m, -1))
            negated = term if negated is None else self.minimum(negated, term)
        return self.scale(negated, -k)

    def scaled_term(self, a: UOp, k: Coefficient, depth: int | None = None) -> Form:
        """The form of the term `a * k` for k < 0, the factor carried into a sum's operands (to
        `_SPREAD` levels): `(x + y) * k = x*k + y*k` and `(x * j) * k = x * (j*k)` over the
        integers. A negative factor turns a maximum of n minima into a minimum of maxima, distributed
        back into up to (forms per minimum)**n minima (past a bound: an atom); a sum's operands are
        often small where the sum is not: `-(max(m + 11, m) + max(11 - m, -m))` is `min(-m - 11,
        -m) + min(m - 11, m)`. A term whose form a case gives is not entered."""
        depth = _SPREAD if depth is None else depth
        if depth and a not in self._given and a.op is Ops.ADD:
            x, y = a.src
            return self.add(self.scaled_term(x, k, depth - 1), self.scaled_term(y, k, depth - 1))
        if depth and a not in self._given and a.op is Ops.MUL and a.src[0].op is not Ops.FLOORDIV:
            x, j = a.src[0], constant_of(self.form(a.src[1]))  # (not a floor multiple: division.py)
            if j is not None and j * k > 0:
                return self.scale(self.form(x), j * k)
            if j is not None and j * k < 0:
                return self.scaled_term(x, j * k, depth - 1)
        return self.scale(self.form(a), k)

    def difference_form(self, a: UOp, b: UOp) -> Form:
        """The form of b - a (raises TooBig past a bound)."""
        return self.add(self.form(b), self.scale(self.form(a), -1))

    # -- bounds
    def range_of(self, f: Linear) -> Range | None:
        """f's range from its atoms' bounds, None when one of them is unbounded."""
        return linear_range(f, self._bounds)

    def at_least(self, f: Linear, g: Linear) -> bool:
        """Is f >= g for every input, by the atoms' bounds (f - g's range starts at 0 or above)?"""
        items, bounds = dict(f[0]), self._bounds
        theirs = dict(g[0])
        if any(a not in bounds and items.get(a, 0) != theirs.get(a, 0) for a in items.keys() | theirs.keys()):
            return False  # an unbounded atom in f - g: no bound (checked first: this runs per pair of forms)
        for a, c in theirs.items():
            items[a] = items.get(a, 0) - c
        r = linear_range((tuple((a, c) for a, c in items.items() if c), f[1] - g[1]), bounds)
        return r is not None and r[0] >= 0

    # -- terms
    def form(self, u: UOp) -> Form:
        """The normal form of an int term (the term itself as an atom when nothing better is known)."""
        got = self._forms.get(u)
        if got is None:
            for n in self._unvisited(u):
                if n.dtype is dtypes.i32 and not n.shape:
                    build = _BUILD.get(n.op)
                    try:
                        self._forms[n] = (build is not None and build(self, n)) or self._atom(n)
                    except TooBig:
                        self._forms[n] = self._atom(n)
            got = self._forms[u]
        return got

    def _unvisited(self, root: UOp) -> list[UOp]:
        """The nodes under root not visited by an earlier call, children first (a whole toposort per
        comparison would make a program of many comparisons over one deep term quadratic)."""
        order, seen, stack = [], self._visited, [(root, False)]
        while stack:
            n, expanded = stack.pop()
            if expanded:
                order.append(n)
            elif n not in seen:
                seen.add(n)
                stack.append((n, True))
                stack.extend((s, False) for s in reversed(n.src) if s not in seen)
        return order

    def _atom_key(self, u: UOp) -> tuple:
        """What identifies u as an atom: its op and arg, and each child's normal form if it has one
        (so that `(a + b) // 4` and `(b + a) // 4` are one atom), else the child itself."""
        return (u.op, u.arg, u.dtype, tuple(self._forms.get(s, s) for s in u.src))

    def _atom(self, u: UOp) -> Form:
        return self.atom(self._atom_key(u), _bounds_of(u))

    def atom(self, key: tuple, bounds: tuple[int, int] | None, coefficient: Coefficient = 1) -> Form:
        """coefficient times the atom of key (numbered when first seen), bounded to `bounds` if given."""
        atom = self._atoms.setdefault(key, len(self._atoms))
        if bounds is not None:
            self._bounds[atom] = bounds
        return frozenset([frozenset([(((atom, coefficient),), 0)])])

    def remainder(self, x: UOp, c: UOp, coefficient: Coefficient) -> Form:
        """coefficient times the atom of `x % c` for a constant c > 0 (the atom the node x % c gets,
        in [0, c - 1])."""
        key = (Ops.FLOORMOD, None, x.dtype, (self._forms.get(x, x), self._forms.get(c, c)))
        return self.atom(key, (0, c.arg - 1), coefficient)


def _bounds_of(u: UOp) -> tuple[int, int] | None:
    """The bounds of an atom known from its term: a bounded input's, and [0, c - 1] for x % c."""
    if u.op is Ops.PARAM:
        return u.arg.bounds
    if u.op is Ops.FLOORMOD and u.src[1].op is Ops.CONST and u.src[1].arg > 0:
        return 0, u.src[1].arg - 1
    return None


# -- the form of a term from its children's forms, per op (None: the term is an atom)
def _const(forms: PiecewiseLinear, u: UOp) -> Form:
    return constant_form(int(u.arg))


def _add(forms: PiecewiseLinear, u: UOp) -> Form:
    return forms.add(forms.form(u.src[0]), forms.form(u.src[1]))


def _mul(forms: PiecewiseLinear, u: UOp) -> Form | None:
    if forms.floor_multiples and (multiple := division.floor_multiple(forms, u)) is not None:
        return multiple
    for a, b in u.src, u.src[::-1]:
        k = constant_of(forms.form(b))
        if k is not None:
            return forms.scale(forms.form(a), k) if k >= 0 else forms.scaled_term(a, k)
    return None


def _max(forms: PiecewiseLinear, u: UOp) -> Form:
    return forms.maximum(forms.form(u.src[0]), forms.form(u.src[1]))


def _where(forms: PiecewiseLinear, u: UOp) -> Form | None:
    """where(a < b, a, b) is min(a, b), where(a < b, b, a) max(a, b)."""
    cond, then, other = u.src
    if cond.op is not Ops.CMPLT or cond.src[0].dtype is not dtypes.i32:
        return None
    a, b = cond.src
    if (then, other) == (a, b):
        return forms.minimum(forms.form(a), forms.form(b))
    if (then, other) == (b, a):
        return forms.maximum(forms.form(a), forms.form(b))
    return None


_BUILD: dict[Ops, Callable[[PiecewiseLinear, UOp], Form | None]] = {
    Ops.CONST: _const,
    Ops.ADD: _add,
    Ops.MUL: _mul,
    Ops.MAX: _max,
    Ops.WHERE: _where,
    Ops.FLOORDIV: division.quotient,
    Ops.FLOORMOD: division.remainder,
}
