"""Floor division and modulo folded on the numerator's linear form and the bounds of its atoms.

One algorithm (the one behind tinygrad's and Halide's index simplifiers, written here from the
mathematics) asks, in order, for `x // y` and `x % y` (i32, floor semantics):

- the quotient is constant on the range: `x // y` is q (`x % y` is `x - q*y`) when floor(x/y) takes
  one value over the corners of the bounds of x and y;
- y a constant c > 0:
  - nested modulo: `(a % (k*c) + b) % c -> (a + b) % c` (a residue modulo a multiple of c);
  - congruence: replace each coefficient f by a residue r = f (mod c) of either sign; when
    `sum r*v + const % c` stays in one period [k*c, (k+1)*c), `x % c` is it minus k*c and `x // c` is
    `sum (f - r)/c * v + const // c + k` (`(x*13) % 12 -> x % 12`, `(19*i + 4) // 9 -> 2*i`);
  - the gcd g of the coefficients and c factored out: `(6*a) // 9 -> (2*a) // 3`,
    `(4*a + 2) % 8 -> ((2*a + 1) % 4) * 2`;
  - nesting by a coefficient f that divides c, when `x // f` folds: `x // c -> (x // f) // (c / f)`;
  - the constant brought into [0, c): `(x + 7) // 4 -> (x + 3) // 4 + 1`;
  - a negative divisor: `x // -d = (-x) // d` and `x % -d = -((-x) % d)`, folded as above;
- y a variable (its range excludes 0):
  - a remainder modulo y inside the sum dropped: `(a % y + b) % y -> (a + b) % y`;
  - a multiple of y's own linear form split off: `(v + 1) // (v + 1) -> 1`;
  - the symbolic gcd of the terms and y divided out: `(d*b + c*d) // d -> b + c`;
  - exact multiples of y split off (x, y >= 0): `(y*a + b) // y -> a + b // y`.

Each fold needs the exact value of every term it reasons about: under wrap the numerator's and,
where a fold reads into a term (the numerator of a remainder or a quotient inside the sum), that
term's too (their linear forms fit int32: `LinearForm.fits`); under no_overflow (`exact`) every
term of the program is exact. Each writes only terms that compute no value outside int32
(`LinearForm.write`), and builds no constant it has not checked. Each is proved as a schema in
int32 arithmetic with these guards (eqsat_uopc/verify/schemas/). A fold returns None when it does
not apply or would give back its input.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

from eqsat_uopc.greedy.rewrite import graph_rewrite
from eqsat_uopc.ir.dtype import I32_MAX
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.form import LinearForm, Product, atom_bounds, fits_i32, is_index

__all__ = ["fold_divmod", "quotient_range"]

_MAX_REMAINDER_CHOICES = 64  # congruence: residue sign choices tried at most


def quotient_range(x: tuple[int, int], y: tuple[int, int]) -> tuple[int, int] | None:
    """The range of floor(x / y) over the box (None when y's range holds 0): floor division is
    monotone in each argument on either side of 0, so the corners bound it."""
    (xlo, xhi), (ylo, yhi) = x, y
    if ylo <= 0 <= yhi:
        return None
    corners = [a // b for a in (xlo, xhi) for b in (ylo, yhi)]
    return min(corners), max(corners)


def fold_divmod(u: UOp, exact: bool = False) -> UOp | None:
    """A simpler term for an i32 FLOORDIV or FLOORMOD u, or None. `exact`: the numerator's value is
    taken as its linear form's without checking that it fits int32 (no_overflow assumes every
    intermediate value of the program exact; the results are checked either way)."""
    if u.op not in (Ops.FLOORDIV, Ops.FLOORMOD) or not is_index(u):
        return None
    x, y = u.src
    lx = LinearForm.of(x)
    if lx is None or not (exact or lx.fits()):
        return None
    mod = u.op is Ops.FLOORMOD
    yb = atom_bounds(y) if y.op is not Ops.CONST else (y.arg, y.arg)
    q = quotient_range(lx.bounds(), yb)
    if q is None:
        return None  # the divisor may be 0: the program is undefined there, leave it as written
    if q[0] == q[1]:
        if not mod:  # (-2**31) // -1 is no int32: C leaves it undefined, it is not folded
            return UOp.const(q[0]) if fits_i32(q[0], q[0]) else None
        ly = LinearForm.of(y)
        return (lx - ly.scaled(q[0])).write() if ly is not None else None
    if y.op is Ops.CONST:
        return _fold_by_constant(u, lx, y.arg, mod, exact)
    return _fold_by_variable(u, lx, x, y, mod, exact)


def _divmod(form: LinearForm, c: int, mod: bool) -> UOp | None:
    """The term form // c or form % c, if form is writable."""
    term = form.write()
    if term is None:
        return None
    return term % c if mod else term // c


def _exact_form(u: UOp, exact: bool) -> LinearForm | None:
    """The linear form of a term the fold reads into, when its value is the form's: it fits int32
    (under wrap), or every value is exact (no_overflow)."""
    form = LinearForm.of(u)
    return form if form is not None and (exact or form.fits()) else None


def _fold_by_constant(u: UOp | None, lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """x // c or x % c by the first fold that applies (u: the term itself, to tell a fold that gives
    it back; None when folding a rewritten numerator, whose own term is new anyway). The folds for
    c > 0 serve a negative c through `x // -d = (-x) // d` and `x % -d = -((-x) % d)`, when that is
    smaller than u."""
    if c in (1, -1):
        return UOp.const(0) if mod else lx.scaled(c).write()
    lo, hi = lx.bounds()
    if not mod and c > 1 and lo >= -1 and hi <= 0:
        return lx.write()  # x in {-1, 0}: x // c is x
    for fold in _CONSTANT_FOLDS if c > 0 else _ANY_SIGN_FOLDS:
        r = fold(lx, c, mod, exact)
        if r is not None and r is not u:
            return r
    if c > 0 or -c > I32_MAX:
        return None  # -(-2**31) is no int32 divisor
    inner = _fold_by_constant(None, lx.scaled(-1), -c, mod, exact)
    r = None if inner is None else (inner * -1 if mod else inner)
    return r if r is not None and (u is None or r.size < u.size) else None


def _nested_mod(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """(a % (k*c) + b) % c -> (a + b) % c: a residue modulo a multiple of c is a modulo c (of a's exact
    value: `(v + 1) % 6` with v unbounded is not congruent to v + 1 where v + 1 wraps)."""
    if not mod:
        return None
    out, changed = LinearForm.constant(lx.const), False
    for a, f in lx.terms:
        if a.op is Ops.FLOORMOD and a.src[1].op is Ops.CONST and a.src[1].arg % c == 0 and a.src[1].arg != 0:
            inner = _exact_form(a.src[0], exact)
            if inner is not None:
                out, changed = out + inner.scaled(f), True
                continue
        out = out + LinearForm.atom(a, f)
    return _divmod(out, c, mod) if changed else None


def _congruence(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """Coefficients replaced by residues of either sign; kept when the remainder stays in one period."""
    terms = lx.terms
    choices = []
    for _, f in terms:
        r = f % c
        if 2 * r == c or len(terms) == 1:
            choices.append((r, r - c))
        else:
            choices.append((min(r, r - c, key=abs),))
    if math.prod(len(ch) for ch in choices) > _MAX_REMAINDER_CHOICES:
        return None
    for rems in itertools.product(*choices):
        rem = LinearForm(tuple((a, r) for (a, _), r in zip(terms, rems, strict=True) if r), lx.const % c)
        lo, hi = rem.bounds()
        if lo // c != hi // c:
            continue
        k = lo // c
        if mod:
            return rem.plus(-k * c).write()
        quot = LinearForm(
            tuple((a, (f - r) // c) for (a, f), r in zip(terms, rems, strict=True) if f != r),
            lx.const // c + k,
        )
        return quot.write()
    return None


def _gcd(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """The gcd g of the coefficients and c factored out: x = g*S + k, and the part of k below g never
    changes the quotient by c > 0; for g dividing k too, (g*A) // (g*B) = A // B whatever the signs."""
    g = math.gcd(*(f for _, f in lx.terms), c)
    if g <= 1 or not lx.terms:
        return None
    if lx.const % g == 0:
        if mod and g > I32_MAX:  # g = 2**31 (c = -2**31): no i32 constant g to multiply by
            return None
        reduced = LinearForm(tuple((a, f // g) for a, f in lx.terms), lx.const // g)
        inner = _divmod(reduced, c // g, mod)
        return None if inner is None else (inner * g if mod else inner)
    if c < 0:
        return None
    reduced = LinearForm(tuple((a, f // g) for a, f in lx.terms), (lx.const // g) % (c // g))
    if mod:
        inner = _divmod(reduced, c // g, mod=True)
        return None if inner is None else _plus(inner * g, lx.const % g)
    inner = _divmod(reduced, c // g, mod=False)
    return None if inner is None else _plus(inner, lx.const // c)


def _nest_by_factor(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """x // c -> (x // f) // (c / f) for a coefficient f dividing c when x // f folds (and x % c from
    it when x >= 0); the smallest result over such f, if not larger than x // c. Each nesting divides
    coefficients, so it ends."""
    from eqsat_uopc.linear.rules import ALGEBRA  # the folds' own rules simplify the inner quotient

    best: UOp | None = None
    written = lx.write()
    if written is None:
        return None
    limit = (written % c if mod else written // c).size  # not larger than x // c itself
    for f in sorted({abs(k) for _, k in lx.terms if 1 < abs(k) < c and c % abs(k) == 0}):
        inner = _fold_by_constant(None, lx, f, False, exact)
        if inner is None or not is_index(inner):
            continue
        inner = graph_rewrite(inner, ALGEBRA, max_steps=_INNER_STEPS)
        if not mod:
            r = inner // (c // f)
        else:
            ib = LinearForm.of(inner)
            if lx.bounds()[0] < 0 or ib is None or ib.bounds()[0] < 0:
                continue
            b = LinearForm(tuple((a, k % f) for a, k in lx.terms if k % f), lx.const % f)
            lo, hi = b.bounds()
            rest = b.write()
            if not (lo >= 0 and hi < f) or rest is None:
                continue
            r = (inner % (c // f)) * f
            r = r + rest if b.terms or b.const else r
        if r.size <= (limit if best is None else best.size - 1):
            best = r
    return best


def _constant_into_range(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """(x + k) // c -> (x + k % c) // c + k // c and (x + k) % c -> (x + k % c) % c, for k not already
    its own residue (in [0, c), or (c, 0] for c < 0)."""
    k = lx.const
    if k % c == k or not lx.terms:
        return None
    inner = _divmod(lx.plus(-(k // c) * c), c, mod)
    return inner if mod or inner is None else _plus(inner, k // c)


def _reduce_coefficients(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """(f*v + b) % c -> ((f mod c)*v + b) % c and (f*v + b) // c -> (f div c)*v + ((f mod c)*v + b) // c,
    for the coefficients outside [0, c), when x and the remainder are >= 0."""
    if lx.bounds()[0] < 0 or all(0 <= f < c for _, f in lx.terms):
        return None
    rem = LinearForm(tuple((a, f % c) for a, f in lx.terms if f % c), lx.const)
    if rem.bounds()[0] < 0:
        return None
    inner = _divmod(rem, c, mod) if rem.terms else UOp.const(rem.const % c if mod else rem.const // c)
    if mod or inner is None:
        return inner
    quot = LinearForm(tuple((a, f // c) for a, f in lx.terms if f // c), 0)
    return (quot + LinearForm.atom(inner)).write()


def _merge_nested_division(lx: LinearForm, c: int, mod: bool, exact: bool) -> UOp | None:
    """(z // k + a) // c -> (z + a*k) // (k*c) for k, c > 0 and a constant: floor(floor(w/k)/c) =
    floor(w/(k*c)), w z's exact value. (Not for a sum a: nesting by a factor splits such a division
    back.)"""
    if mod or len(lx.terms) != 1:
        return None
    for a, f in lx.terms:
        if f == 1 and a.op is Ops.FLOORDIV and a.src[1].op is Ops.CONST and a.src[1].arg > 0:
            k, z = a.src[1].arg, _exact_form(a.src[0], exact)
            if z is None or not fits_i32(k * c, k * c):
                return None
            rest = LinearForm(tuple(t for t in lx.terms if t[0] is not a), lx.const)
            return _divmod(z + rest.scaled(k), k * c, mod=False)
    return None


def _plus(u: UOp, k: int) -> UOp:
    return u + k if k else u


_CONSTANT_FOLDS = (  # c > 0
    _merge_nested_division,
    _nested_mod,
    _congruence,
    _gcd,
    _nest_by_factor,
    _reduce_coefficients,
    _constant_into_range,
)
_ANY_SIGN_FOLDS = (_nested_mod, _gcd, _constant_into_range)  # valid for c < 0 as they are
_INNER_STEPS = 2_000


# -- variable divisors


def _fold_by_variable(u: UOp, lx: LinearForm, x: UOp, y: UOp, mod: bool, exact: bool) -> UOp | None:
    for fold in (_nested_mod_variable, _linear_multiple, _symbolic_gcd, _exact_multiples):
        r = fold(lx, y, mod, exact)
        if r is not None and r is not u:
            return r
    return None


def _nested_mod_variable(lx: LinearForm, y: UOp, mod: bool, exact: bool) -> UOp | None:
    """(a % y + b) % y -> (a + b) % y: a residue modulo y is congruent to what it is the residue of."""
    if not mod or not any(a.op is Ops.FLOORMOD and a.src[1] is y for a, _ in lx.terms):
        return None
    out = LinearForm.constant(lx.const)
    for a, f in lx.terms:
        inner = _exact_form(a.src[0], exact) if a.op is Ops.FLOORMOD and a.src[1] is y else None
        out = out + (inner.scaled(f) if inner is not None else LinearForm.atom(a, f))
    written = out.write()
    return written % y if written is not None and out.fits() else None


def _linear_multiple(lx: LinearForm, y: UOp, mod: bool, exact: bool) -> UOp | None:
    """x = k*y + r for a sum y: x // y -> k + r // y, x % y -> r % y (`(v + 1) // (v + 1)` is 1), when r
    has fewer terms than x."""
    ly = LinearForm.of(y)
    if ly is None or not ly.terms or not (exact or ly.fits()):
        return None
    a0, c0 = ly.terms[0]
    cx = dict(lx.terms).get(a0)
    if cx is None or cx % c0:
        return None
    k = cx // c0
    r = lx - ly.scaled(k)
    rest = r.write()
    if len(r.terms) >= len(lx.terms) or rest is None or not r.fits() or not fits_i32(k, k):
        return None
    if mod:
        return UOp.const(0) if r.is_constant and r.const == 0 else rest % y
    return UOp.const(k) if r.is_constant and r.const == 0 else rest // y + k


def _products(lx: LinearForm) -> list[Product] | None:
    """x's terms as products (None when a product of variables may wrap: its value is then not the
    product of its factors' values)."""
    out = []
    for a, f in lx.terms:
        p = Product.of(a)
        if p.factors.total() > 1 and not _product_fits(p):  # (a square is a product of two factors)
            return None
        out.append(Product(p.const * f, p.factors))
    if lx.const:
        out.append(Product(lx.const, Counter()))
    return out


def _product_fits(p: Product) -> bool:
    lo = hi = p.const
    for f, n in p.factors.items():
        flo, fhi = atom_bounds(f)
        for _ in range(n):
            corners = (lo * flo, lo * fhi, hi * flo, hi * fhi)
            lo, hi = min(corners), max(corners)
            if not fits_i32(lo, hi):
                return False
    return True


def _divide(p: Product, g: Product) -> Product | None:
    """p / g when g's factors are among p's and g's constant divides p's."""
    if g.const == 0 or p.const % g.const or any(p.factors[f] < n for f, n in g.factors.items()):
        return None
    return Product(p.const // g.const, p.factors - g.factors)


def _sum_of(products: list[Product]) -> UOp | None:
    """The sum of the products written, if that computes no value outside int32."""
    form = LinearForm.constant(0)
    for p in products:
        if not p.factors:
            form = form.plus(p.const)
        else:
            form = form + LinearForm.atom(Product(1, p.factors).to_uop(), p.const)
    return form.write() if all(_product_fits(Product(1, p.factors)) for p in products) else None


def _symbolic_gcd(lx: LinearForm, y: UOp, mod: bool, exact: bool) -> UOp | None:
    """x // y -> (x/g) // (y/g), x % y -> ((x/g) % (y/g)) * g, for the gcd g of y and x's terms."""
    terms = _products(lx)
    py = Product.of(y)
    if not terms or py.const == 0 or not _product_fits(py):
        return None
    common = Counter(py.factors)
    for p in terms:
        common &= p.factors
    g = Product(math.gcd(py.const, *(p.const for p in terms)), common)
    if g.const == 1 and not g.factors:
        return None
    num = [_divide(p, g) for p in terms]
    den = _divide(py, g)
    if den is None or any(n is None for n in num):
        return None
    nx, ny = _sum_of(num), _sum_of([den])
    if nx is None or ny is None:
        return None
    if not mod:
        return nx // ny
    return (nx % ny) * g.to_uop()


def _exact_multiples(lx: LinearForm, y: UOp, mod: bool, exact: bool) -> UOp | None:
    """(y*a + b) // y -> a + b // y and (y*a + b) % y -> b % y, x >= 0 and y > 0."""
    py = Product.of(y)
    if lx.bounds()[0] < 0 or atom_bounds(y)[0] <= 0 or not _product_fits(py):
        return None
    quo, rem = [], []
    for p in _products(lx) or []:
        d = _divide(p, py)
        (quo if d is not None else rem).append(d if d is not None else p)
    if not quo:
        return None
    r = _sum_of(rem) if rem else UOp.const(0)
    rl = None if r is None else LinearForm.of(r)
    if rl is None or rl.bounds()[0] < 0:
        return None
    if mod:
        return r % y
    q = _sum_of(quo)
    if q is None:
        return None
    return r // y + q if not (r.op is Ops.CONST and r.arg == 0) else q
