"""Piecewise-linear normal forms: comparisons of sums with MIN and MAX decided in Python.

Under `no_overflow` an integer term built of `+`, `*` by a constant, MAX and MIN (`where(a < b, a,
b)`, or `max(a * -1, b * -1) * -1` as the Caviar corpus spells it) over other terms (the *atoms*:
inputs, products of variables, divisions, ...) is a maximum of minima of linear forms over the
atoms, and the normal form below says which:

    max_i min_j (sum_k c_ijk * atom_k + d_ij)

`+` distributes over both (`a + min(b, c) = min(a + b, a + c)`), a positive factor too, and a
negative one swaps them; a linear form that another in the same minimum undercuts (by a constant,
`min(f, f + 2)`, or by the atoms' bounds, below) and a minimum that another one dominates are
dropped, and a MAX and a MIN of the
same pair add up to a sum (`max(l1, l2) + min(m1, m2) = l1 + m2` when `l1 - l2 = m1 - m2`:
`max(v, 4) + min(v, 4) = v + 4`). `X // c` and `X % c` are exact when every linear form of X has
coefficients divisible by c and the same constant modulo c (so X does too): `(min(8a, 8b + 2 * 4)
// 4) * 4` is `min(8a, 8b + 8)`; otherwise `(X // c) * (k * c)` is `k * (X - X % c)`, the
remainder an atom known to lie in [0, c - 1], as are a bounded input's atom and `x % c`. A second
pass (`rational_division`) also writes `x // c` itself as `(x - x % c) / c`, with rational
coefficients, so that divisions of nearby terms compare: `(x + 15) // 8 - x // 8 < 3` (it is
`15/8 + (x % 8 - (x + 15) % 8) / 8`); the first keeps such a division an atom, which is what
matching it with another division of the same term needs, and costs less. A last pass splits on
a residue: when a division's argument Z is a pure MIN (or MAX) of forms that each have a fixed
residue modulo the divisor, Z's value is one of them, so when Z = r (mod c) it is the MIN of the
forms of residue r alone and the division is exact; a comparison every residue decides alike is
decided (`max(((M + 27) // 8) * 8, M + 23)` is a multiple of 4 when M is 1 or 0 modulo 8). The
very last splits on the range of an unbounded input between the constants it takes the MAX or MIN
of: `max(v, 8) + min(v, 4) >= v + 4` holds for `v <= 4`, for `4 < v < 8` and for `v >= 8`, each
range giving every such MAX and MIN one known operand.

Two terms whose normal forms differ by a constant k everywhere compare by k alone: `a + min(59,
297 - a) < min(a, 238) + 59` is false (both sides are `min(a + 59, 297)`), which no rewrite rule
finds without distributing `+` into MIN through associativity and commutativity, an e-graph
blow-up. Otherwise `b - a` is itself a maximum of minima of linear forms, and the bounds of the
atoms decide its sign when every form of one minimum is above 0 (`b - a > 0`) or one form of
every minimum is at most 0 (`b - a <= 0`): `248 + ((max(v, 4) - 1) // 252) * 252 + min(v, 4) < v`
is false, the left side being `v + 251 - (max(v, 4) - 1) % 252`.

A chain of conjunctions (`where(a, b, false)`, how the corpus writes `a && b`) is false when the
bounds its comparisons put on one linear form leave no integer: each comparison whose `b - a` is a
multiple of a linear form L plus a constant bounds L from one side (or pins it, or excludes a
value), and `8x + 1 <= 16x + 1 && 16x + 16 <= 8x + 7` says `x >= 0` and `x <= -2`; a chain of
disjunctions (`where(a, true, b)`) is true when its operands' negations are such a chain. No rule
in the e-graph sees this without normalizing both comparisons first, which the cancellation of
`x * 16` against `x * 8` across `<` would need (it has no rule: moving a term across a comparison
feeds associativity without bound).

This is the Python rule `linear/piecewise-compare` of the `linear` family (no_overflow only: the
distributions are identities of the mathematical integers). The runner asks `decided_comparisons`
for the comparisons of a program and of its greedy seed and unions each decided one with its
constant before saturating. Work is bounded (`_MAX_FORMS` linear forms per term, `_MAX_ATOMS`
atoms per form, `_WORK` forms built per program, the rational, residue and range passes only on
comparisons of at most `_SMALL` nodes, `_SPLITS` residue and range cases per program, `_MAX_CUTS`
constants per input split): past a bound a term is an atom, or a comparison undecided, which is
sound, only weaker.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["PiecewiseLinear", "decided_comparisons"]

_MAX_FORMS = 64  # linear forms in one normal form
_MAX_ATOMS = 32  # atoms in one linear form
_WORK = 200_000  # linear forms built per program
_SPLITS = 64  # residue and range cases tried per program
_MAX_CUTS = 4  # constants one input's range is split at (so at most 5 ranges)
_CHAIN = 32  # literals of a conjunction or disjunction the chain decision takes at most
_SMALL = 500  # nodes of a comparison the rational, residue and range passes take at most

Linear = tuple[tuple[tuple[int, int], ...], int]  # ((atom, coefficient) sorted by atom, constant)
Form = frozenset[frozenset[Linear]]  # max over minima of linear forms


class _TooBig(Exception):
    """A normal form past a bound: the term is an atom instead."""


class PiecewiseLinear:
    """Normal forms of the integer terms of one program (memoized per UOp; atoms numbered per program)."""

    def __init__(self, rational_division: bool = False, floor_multiples: bool = True) -> None:
        self.rational_division = rational_division
        self.floor_multiples = floor_multiples
        self._forms: dict[UOp, Form] = {}
        self._visited: set[UOp] = set()
        self._atoms: dict[tuple, int] = {}
        self._bounds: dict[int, tuple[int, int]] = {}  # atom -> [lo, hi], where known
        self._work = 0

    # -- arithmetic on normal forms
    def _linear(self, items: dict[int, int], constant: int) -> Linear:
        if len(items) > _MAX_ATOMS:
            raise _TooBig
        self._work += 1
        if self._work > _WORK:
            raise _TooBig
        return tuple(sorted((a, c) for a, c in items.items() if c)), constant

    def _add_linear(self, x: Linear, y: Linear) -> Linear:
        items = dict(x[0])
        for a, c in y[0]:
            items[a] = items.get(a, 0) + c
        return self._linear(items, x[1] + y[1])

    def _normal(self, minima: Iterable[Iterable[Linear]]) -> Form:
        """Drop the linear forms another one undercuts in each minimum (by a constant, or by the atoms'
        bounds), then the dominated minima."""
        reduced = set()
        for minimum in minima:
            lowest: dict[tuple, int] = {}
            for terms, c in minimum:
                if terms not in lowest or c < lowest[terms]:
                    lowest[terms] = c
            forms = sorted(lowest.items())
            if 1 < len(forms) <= 16 and self._bounds:  # drop a form the bounds prove at least another one
                kept_forms: list[Linear] = []
                for f in forms:
                    if not any(self._at_least(f, g) for g in kept_forms):
                        kept_forms = [g for g in kept_forms if not self._at_least(g, f)] + [f]
                forms = kept_forms
            reduced.add(frozenset(forms))
        if sum(len(m) for m in reduced) > _MAX_FORMS:
            raise _TooBig
        kept = set(reduced)
        for a in reduced if len(reduced) <= 32 else ():  # quadratic: only where forms stay small
            # min(a) <= min(b) when every form of b has one of a with the same terms below it
            if any(b != a and b in kept and _below(a, b) for b in reduced):
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
        return self._normal([self._add_linear(p, q) for p in a for q in b] for a in x for b in y)

    def _minus(self, x: Linear, y: Linear) -> Linear:
        return self._add_linear(x, (tuple((a, -c) for a, c in y[0]), -y[1]))

    def maximum(self, x: Form, y: Form) -> Form:
        return self._normal(x | y)

    def minimum(self, x: Form, y: Form) -> Form:
        return self._normal(a | b for a in x for b in y)

    def scale(self, x: Form, k: int) -> Form:
        if k >= 0:
            return self._normal([self._linear(dict(t), c) for t, c in _scaled(m, k)] for m in x)
        negated = None  # -max_i min_j f_ij = min_i max_j -f_ij
        for m in x:
            term = frozenset(frozenset([f]) for f in _scaled(m, -1))
            negated = term if negated is None else self.minimum(negated, term)
        return self.scale(negated, -k)

    def constant(self, v: int) -> Form:
        return frozenset([frozenset([((), v)])])

    def case(self) -> PiecewiseLinear:
        """A new builder with this one's passes, atoms and bounds (so that the forms of a case split
        name the same atoms), and none of its forms."""
        case = PiecewiseLinear(self.rational_division, self.floor_multiples)
        case._atoms, case._bounds = dict(self._atoms), dict(self._bounds)
        return case

    # -- terms
    def form(self, u: UOp) -> Form:
        """The normal form of an int term (the term itself as an atom when nothing better is known)."""
        got = self._forms.get(u)
        if got is None:
            for n in self._unvisited(u):
                if n.dtype is dtypes.i32 and not n.shape:
                    try:
                        self._forms[n] = self._compute(n) or self._atom(n)
                    except _TooBig:
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

    def _atom(self, u: UOp) -> Form:
        return self._atom_of((u.op, u.arg, u.dtype, tuple(self._key(s) for s in u.src)), _bounds_of(u))

    def _atom_of(self, key: tuple, bounds: tuple[int, int] | None, coefficient: int = 1) -> Form:
        atom = self._atoms.setdefault(key, len(self._atoms))
        if bounds is not None:
            self._bounds[atom] = bounds
        return frozenset([frozenset([(((atom, coefficient),), 0)])])

    def _key(self, u: UOp) -> object:
        """What identifies a child of an atom: its normal form if it has one (so that `(a + b) // 4`
        and `(b + a) // 4` are one atom), else the node itself (hash-consed)."""
        return self._forms.get(u, u)

    def _compute(self, u: UOp) -> Form | None:
        op, src, f = u.op, u.src, self._forms
        if op is Ops.CONST:
            return self.constant(int(u.arg))
        if op is Ops.ADD:
            return self.add(f[src[0]], f[src[1]])
        if (
            op is Ops.MUL
            and self.floor_multiples
            and _floor_multiple(u)
            and _residue(f[src[0].src[0]], src[0].src[1].arg) is None
        ):
            # (x // c) * (k * c) = k * (x - x % c)
            x, c = src[0].src
            return self._floored(x, c, src[1].arg // c.arg)
        if op is Ops.MUL:
            for a, b in ((0, 1), (1, 0)):
                k = _constant_of(f[src[b]])
                if k is not None:
                    return self.scale(f[src[a]], k)
            return None
        if op is Ops.MAX:
            return self.maximum(f[src[0]], f[src[1]])
        if op is Ops.WHERE and src[0].op is Ops.CMPLT and src[0].src[0].dtype is dtypes.i32:
            a, b = src[0].src
            if (src[1], src[2]) == (a, b):
                return self.minimum(f[a], f[b])
            if (src[1], src[2]) == (b, a):
                return self.maximum(f[a], f[b])
            return None
        if op in (Ops.FLOORDIV, Ops.FLOORMOD) and src[1].op is Ops.CONST and src[1].arg > 0:
            c = src[1].arg
            x = f[src[0]]
            r = _residue(x, c)
            if r is None:
                if op is Ops.FLOORMOD or not self.rational_division:
                    return None
                # x // c = (x - x % c) / c: rational coefficients
                return self._floored(src[0], src[1], Fraction(1, c))
            if op is Ops.FLOORMOD:
                return self.constant(r)
            return self._normal(
                [self._linear({a: k // c for a, k in t}, (d - r) // c) for t, d in m] for m in x
            )
        return None

    def _floored(self, x: UOp, c: UOp, factor: int | Fraction) -> Form:
        """(x - x % c) * factor, the remainder an atom in [0, c - 1] (the atom of the term x % c)."""
        key = (Ops.FLOORMOD, None, x.dtype, (self._key(x), self._key(c)))
        return self.scale(self.add(self._forms[x], self._atom_of(key, (0, c.arg - 1), -1)), factor)

    def sign(self, a: UOp, b: UOp) -> int | None:
        """1 when b - a > 0 for every input, -1 when b - a <= 0 for every input, from the bounds of
        the atoms (remainders, bounded inputs): b - a is a maximum of minima of linear forms, above 0
        if every form of one minimum is, at most 0 if one form of every minimum is."""
        try:
            d = self.add(self.form(b), self.scale(self.form(a), -1))
        except _TooBig:
            return None
        ranges = [[self._range(f) for f in m] for m in d]
        if any(all(r is not None and r[0] > 0 for r in m) for m in ranges):
            return 1
        if all(any(r is not None and r[1] <= 0 for r in m) for m in ranges):
            return -1
        return None

    def _at_least(self, f: Linear, g: Linear) -> bool:
        """Is f >= g for every input, by the atoms' bounds (f - g's range starts at 0 or above)?"""
        items, bounds = dict(f[0]), self._bounds
        theirs = dict(g[0])
        if any(a not in bounds and items.get(a, 0) != theirs.get(a, 0) for a in items.keys() | theirs.keys()):
            return False  # an unbounded atom in f - g: no bound (checked first: this runs per pair of forms)
        for a, c in theirs.items():
            items[a] = items.get(a, 0) - c
        r = self._range((tuple((a, c) for a, c in items.items() if c), f[1] - g[1]))
        return r is not None and r[0] >= 0

    def _range(self, f: Linear) -> tuple[int, int] | None:
        lo = hi = f[1]
        for atom, k in f[0]:
            b = self._bounds.get(atom)
            if b is None:
                return None
            lo, hi = lo + min(k * b[0], k * b[1]), hi + max(k * b[0], k * b[1])
        return lo, hi

    def difference(self, a: UOp, b: UOp) -> int | None:
        """k when b's normal form is a's plus the constant k (so b - a = k for every input)."""
        x, y = self.form(a), self.form(b)
        if len(x) != len(y):
            return None
        some_terms, some_c = next(iter(next(iter(y))))
        for m in x:
            for terms, c in m:
                if terms == some_terms:
                    k = some_c - c
                    if self._normal(frozenset((t, d + k) for t, d in n) for n in x) == y:
                        return k
        return None


def _floor_multiple(u: UOp) -> bool:
    """Is u `(x // c) * (k * c)` for a positive constant c and k >= 1?"""
    d, m = u.src
    if d.op is not Ops.FLOORDIV or m.op is not Ops.CONST or d.src[1].op is not Ops.CONST:
        return False
    c = d.src[1].arg
    return c > 0 and m.arg > 0 and m.arg % c == 0


def _bounds_of(u: UOp) -> tuple[int, int] | None:
    if u.op is Ops.PARAM:
        return u.arg.bounds
    if u.op is Ops.FLOORMOD and u.src[1].op is Ops.CONST and u.src[1].arg > 0:
        return 0, u.src[1].arg - 1
    return None


def _scaled(minimum: frozenset[Linear], k: int) -> list[Linear]:
    return [(tuple((a, c * k) for a, c in terms) if k else (), d * k) for terms, d in minimum]


def _below(a: frozenset[Linear], b: frozenset[Linear]) -> bool:
    lows = dict(a)
    return all(t in lows and lows[t] <= c for t, c in b)


def _constant_of(x: Form) -> int | None:
    if len(x) == 1:
        (m,) = x
        if len(m) == 1:
            ((terms, c),) = m
            if not terms:
                return c
    return None


def _residue(x: Form, c: int) -> int | None:
    """r when every linear form of x has coefficients divisible by c and its constant = r mod c."""
    r = None
    for m in x:
        for terms, d in m:
            if any(k % c for _, k in terms) or (r is not None and d % c != r):
                return None
            r = d % c
    return r


def decided_comparisons(nodes: Iterable[UOp]) -> list[tuple[UOp, bool]]:
    """The integer comparisons among nodes whose value the normal forms decide, with that value
    (under no_overflow): `a < b` and `a != b` where b's normal form is a's plus a constant, or
    where the atoms' bounds fix the sign of b - a, in one of the passes described above; then the
    conjunctions and disjunctions among nodes that the bounds their comparisons put on one linear
    form decide (`_decide_chain`)."""
    out = []
    plain, rational = PiecewiseLinear(), PiecewiseLinear(rational_division=True)
    residues = PiecewiseLinear(floor_multiples=False)  # multiples of c kept as such: residues survive
    splits = [_SPLITS]  # residue and range cases left to try in this program (each recomputes a subterm)
    chains = []
    for u in nodes:
        if _is_comparison(u):
            value = _decide(plain, u)
            if value is None and _at_most(u, _SMALL):  # the costlier passes: small comparisons only
                value = _decide(rational, u)
                if value is None:
                    value = _decide_by_residues(residues, u, splits)
                if value is None:
                    value = _decide_by_ranges(plain, u, splits)
            if value is not None:
                out.append((u, value))
        elif u.op is Ops.WHERE and not u.shape and (u.src[2] is _FALSE or u.src[1] is _TRUE):
            chains.append(u)
    decided = dict(out)
    for u in chains:  # in the order of nodes: a chain decided here is a literal decided for later ones
        value = _decide_chain(plain, u, decided)
        if value is not None:
            out.append((u, value))
            decided[u] = value
    return out


def _is_comparison(u: UOp) -> bool:
    return u.op in (Ops.CMPLT, Ops.CMPNE) and u.src[0].dtype is dtypes.i32 and not u.shape


_TRUE, _FALSE = UOp.const(True), UOp.const(False)


def _decide_chain(forms: PiecewiseLinear, u: UOp, decided: dict[UOp, bool]) -> bool | None:
    """A conjunction `where(a, b, false)` (`a && b`, nested: a chain of them) is false when the
    bounds its comparisons put on a linear form L (each comparison's `b - a` a multiple of L plus a
    constant; the bounds of L's atoms too) leave no integer: `8x + 1 <= 16x + 1 && 16x + 16 <= 8x +
    7` says x >= 0 and x <= -2. A disjunction `where(a, true, b)` is true when the conjunction of its
    operands' negations is false. A comparison decided true adds nothing to a conjunction."""
    if u.src[2] is _FALSE:
        literals, value = _chain(u, conjunction=True), False
    elif u.src[1] is _TRUE:
        literals, value = [(c, not positive) for c, positive in _chain(u, conjunction=False)], True
    else:
        return None
    if len(literals) > _CHAIN:
        return None
    bounds: dict[tuple, list] = {}  # L's terms -> [lo, hi, values excluded], lo / hi None if unbounded
    for c, positive in literals:
        known = decided.get(c, c.arg if c.op is Ops.CONST else None)
        if known is not None:
            if bool(known) is positive:
                continue  # true: no constraint
            return value  # false: so is the conjunction
        if not _is_comparison(c):
            continue
        try:
            d = forms.add(forms.form(c.src[1]), forms.scale(forms.form(c.src[0]), -1))
        except _TooBig:
            continue
        if len(d) != 1 or len(m := next(iter(d))) != 1:
            continue
        ((terms, k0),) = m
        if not terms or any(isinstance(k, Fraction) for _, k in terms):
            continue
        g = math.gcd(*(k for _, k in terms)) * (1 if terms[0][1] > 0 else -1)
        key = tuple((a, k // g) for a, k in terms)  # b - a = g * L + k0, L's first coefficient > 0
        if (entry := bounds.get(key)) is None:
            r = forms._range((key, 0))
            entry = bounds[key] = [None, None, set()] if r is None else [r[0], r[1], set()]
        lo = hi = None
        if c.op is Ops.CMPLT:
            p = 1 - k0 if positive else -k0  # g L >= p (a < b), g L <= p (negated)
            if positive == (g > 0):
                lo = -(-p // g)  # ceil(p / g)
            else:
                hi = p // g  # floor(p / g)
        elif k0 % g:  # g L + k0 = 0 has no integer solution
            if not positive:
                return value
        elif positive:
            entry[2].add(-k0 // g)
        else:
            lo = hi = -k0 // g
        if lo is not None and (entry[0] is None or lo > entry[0]):
            entry[0] = lo
        if hi is not None and (entry[1] is None or hi < entry[1]):
            entry[1] = hi
        lo, hi, excluded = entry
        if lo is not None and hi is not None and (lo > hi or (lo == hi and lo in excluded)):
            return value
    return None


def _chain(u: UOp, conjunction: bool) -> list[tuple[UOp, bool]]:
    """The literals of a chain of conjunctions (`where(a, b, false)`) or disjunctions (`where(a,
    true, b)`), each a boolean term and whether it appears as itself or negated (`c != true`)."""
    out, stack = [], [u]
    while stack and len(out) <= _CHAIN:
        n = stack.pop()
        if conjunction and n.op is Ops.WHERE and n.src[2] is _FALSE:
            stack += [n.src[1], n.src[0]]
        elif not conjunction and n.op is Ops.WHERE and n.src[1] is _TRUE:
            stack += [n.src[2], n.src[0]]
        elif n.op is Ops.CMPNE and n.src[1] is _TRUE:
            out.append((n.src[0], False))
        else:
            out.append((n, True))
    return out


def _at_most(u: UOp, n: int) -> bool:
    """Has u at most n distinct nodes? (stops counting past n)"""
    seen, stack = {u}, [u]
    while stack:
        for s in stack.pop().src:
            if s not in seen:
                if len(seen) == n:
                    return False
                seen.add(s)
                stack.append(s)
    return True


def _decide_by_residues(base: PiecewiseLinear, u: UOp, splits: list[int], limit: int = 4) -> bool | None:
    """Split on the residue of a division's argument Z (`Z // c` or `Z % c` in u) when Z's form is a
    pure MIN or pure MAX of forms that each have a residue modulo c: Z's value is one of its forms,
    so when Z = r (mod c) it is the MIN (MAX) of the forms of residue r alone, and the division
    is exact. u is decided if every residue decides it the same way."""
    tried = 0
    for d in u.toposort():
        if d.op not in (Ops.FLOORDIV, Ops.FLOORMOD) or d.src[1].op is not Ops.CONST or d.src[1].arg <= 0:
            continue
        z, c = d.src[0], d.src[1].arg
        if z.dtype is not dtypes.i32 or z.shape:
            continue
        x = base.form(z)
        pure_min = len(x) == 1
        if not pure_min and any(len(m) != 1 for m in x):
            continue
        forms = [f for m in x for f in m]
        if any(k % c for f in forms for _, k in f[0]):
            continue
        residues = sorted({f[1] % c for f in forms})
        if len(residues) < 2:
            continue
        tried += 1
        if splits[0] < len(residues):
            return None
        splits[0] -= len(residues)
        cases = (_residue_case(base, z, [f for f in forms if f[1] % c == r], pure_min) for r in residues)
        if (value := _decided_alike(cases, u)) is not None:
            return value
        if tried >= limit:
            return None
    return None


def _decide_by_ranges(base: PiecewiseLinear, u: UOp, splits: list[int]) -> bool | None:
    """Split on the range of an unbounded input t that u takes the MAX or MIN of with constants
    (`max(t, c)`, `min(t, c)` as `max(t * -1, -c) * -1` or `where(t < c, t, c)`): between two
    consecutive such constants every MAX and MIN of t with a constant has one known operand, so the
    forms of each range (t bounded to it) may decide u where the unbounded ones do not. u is decided
    if every range decides it the same way: `((max(v, 8) - 1) // 499) * 499 + min(v, 4) + 505 >= v`
    holds for v <= 4, for 4 < v < 8 and for v >= 8."""
    thresholds: dict[UOp, set[int]] = {}
    for m in u.toposort():
        if m.op is Ops.WHERE and m.src[0].op is Ops.CMPLT and set(m.src[0].src) == set(m.src[1:]):
            pairs = (m.src[1:], m.src[:0:-1])  # where(a < b, a, b) is min(a, b), the other way max
        elif m.op is Ops.MAX:
            pairs = (m.src, m.src[::-1])
        else:
            continue
        for t, c in pairs:
            if c.op is not Ops.CONST:
                continue
            if t.op is Ops.MUL and t.src[1].op is Ops.CONST and t.src[1].arg == -1:
                t, bound = t.src[0], -c.arg
            else:
                bound = c.arg
            if t.op is Ops.PARAM and t.arg.bounds is None and t.dtype is dtypes.i32:
                thresholds.setdefault(t, set()).add(bound)
    for t, bounds in thresholds.items():
        cuts = sorted(bounds)
        if len(cuts) > _MAX_CUTS or splits[0] <= len(cuts):
            continue
        splits[0] -= len(cuts) + 1
        ranges = zip([I32_MIN, *(c + 1 for c in cuts)], [*cuts, I32_MAX], strict=True)
        cases = (_range_case(base, t, lo, hi) for lo, hi in ranges)
        if (value := _decided_alike(cases, u)) is not None:
            return value
    return None


def _residue_case(base: PiecewiseLinear, z: UOp, chosen: list[Linear], pure_min: bool) -> PiecewiseLinear:
    """The case of a residue split where z (a pure MIN, or a pure MAX) is the MIN (MAX) of `chosen`."""
    case = base.case()  # z's form names base's atoms
    if pure_min:
        case._forms[z] = frozenset([frozenset(chosen)])
    else:
        case._forms[z] = frozenset(frozenset([f]) for f in chosen)
    case._visited.add(z)  # its form is the case's, not recomputed
    return case


def _range_case(base: PiecewiseLinear, t: UOp, lo: int, hi: int) -> PiecewiseLinear:
    """The case of a range split where the input t lies in [lo, hi]."""
    case = base.case()
    case._bounds[case._atoms.setdefault((t.op, t.arg, t.dtype, ()), len(case._atoms))] = (lo, hi)
    return case


def _decided_alike(cases: Iterable[PiecewiseLinear], u: UOp) -> bool | None:
    """u's value when every case of a split decides it, and the same way (None from the first case
    that does not)."""
    value = None
    for case in cases:
        v = _decide(case, u)
        if v is None or (value is not None and v is not value):
            return None
        value = v
    return value


def _decide(forms: PiecewiseLinear, u: UOp) -> bool | None:
    k = forms.difference(*u.src)
    if k is not None:
        return k > 0 if u.op is Ops.CMPLT else k != 0
    if u.op is Ops.CMPLT and (sign := forms.sign(*u.src)) is not None:
        return sign > 0
    if u.op is Ops.CMPNE and 1 in (forms.sign(*u.src), forms.sign(*u.src[::-1])):
        return True
    return None
