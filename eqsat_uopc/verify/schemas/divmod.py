"""The index algebra's folds (eqsat_uopc.linear) as schemas, each with the guards its code checks.

One schema per fold and shape, transcribing the code (the comment above each names the function):
which terms it reads, which guards it checks, which term it writes. The constant-divisor folds are
stated for the exact value E of the numerator's linear form (they also run on forms they derived,
`-x` for a negative divisor, whose values may leave int32): the written term equals floor(E / c)
(or E mod c), where `read` (the schema `linear/divmod-fold/read`) ties E to the program's value of
the numerator at the top of fold_divmod. A fold that reads into a term (a remainder inside the sum,
a quotient it merges) reads that term's program value, so that its own guard (the inner form
fits int32, under wrap) is part of the question: without it, `((v + 1) % 6 - 1) % 3 -> v % 3` is
refuted at v = 2**31 - 1.

See schema.py for what a schema proves and how.
"""

from __future__ import annotations

import math
import random
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear import fold_divmod
from eqsat_uopc.rules.python_rules import DIVMOD_FOLD
from eqsat_uopc.verify.schemas.question import Atom, Claim, Form, Question, Schema, Value, draw_constant

__all__ = ["DIVMOD_SCHEMAS"]

DIV = DIVMOD_FOLD.name


def _divisor(rng: random.Random, positive: bool = True) -> int:
    c = draw_constant(rng, positive=positive)
    return c if c not in (0, 1, -1) else rng.choice((2, 3, 6, 2**30, I32_MAX))


def _coef(rng: random.Random) -> int:
    return draw_constant(rng)


def _exact_quotient(q: Question, form: Form, c: int, mod: bool) -> Value:
    """floor(E / c) or E mod c of the exact value E of `form` (what a constant fold must equal),
    where fold_divmod calls the constant folds: on the numerator's form, whose range fits int32
    under wrap and whose value is an int32 under no_overflow, or on its negation."""
    e = q.exact(form)
    if q.wrap:
        lo, hi = q.bounds(form)
        entry = z3.Or(q.fits(form), z3.And(lo >= I32_MIN + 1, hi <= I32_MAX + 1))
    else:
        entry = z3.And(e >= I32_MIN, e <= I32_MAX + 1)
    return Value(q.floormod(e, c) if mod else q.floordiv(e, c), entry)


def _one_atom(q: Question) -> tuple[Atom, Form]:
    a = q.atom("a")
    return a, Form(((q.param("f"), a),), q.constant("k"))


def _two_atoms(q: Question) -> tuple[Atom, Atom, Form]:
    a, b = q.atom("a"), q.atom("b")
    return a, b, Form(((q.param("f"), a), (q.param("g"), b)), q.constant("k"))


# -- fold_divmod: the numerator's value is its linear form's


def _read(mod: bool):
    # fold_divmod: lx = LinearForm.of(x) must fit (wrap) or is exact (no_overflow); then every constant
    # fold computes on the exact value E
    def build(q: Question) -> Claim:
        _, _, lx = _two_atoms(q)
        c = q.param("c")
        if q.wrap:
            q.guard(q.fits(lx))
        x = q.read(lx)
        lhs = q.mod(x, c) if mod else q.div(x, c)
        return lhs, _exact_quotient(q, lx, c, mod)

    return build


def _draw_fgc(rng: random.Random) -> dict[str, int]:
    return {"f": _coef(rng), "g": _coef(rng), "c": _divisor(rng, positive=rng.random() < 0.7)}


# -- fold_divmod: a constant quotient over the corners


def _corner_is(q: Question, x: Any, y: Any, quotient: int) -> Any:
    """floor(x / y) == quotient, for y != 0 (linear: the quotient is fixed)."""
    return z3.If(
        y > 0,
        z3.And(quotient * y <= x, x <= quotient * y + y - 1),
        z3.And(quotient * y >= x, x >= quotient * y + y + 1),
    )


def _constant_quotient(mod: bool, variable: bool):
    def build(q: Question) -> Claim:
        _, lx = _one_atom(q)
        quotient = q.param("q")
        if q.wrap:
            q.guard(q.fits(lx))
        x = q.read(lx)
        xlo, xhi = q.bounds(lx)
        if variable:  # y an atom of the program, its linear form 1*y
            y = q.atom("y")
            ylo, yhi, yv, ly = y.lo, y.hi, Value(y.value), Form(((1, y),))
        else:
            c = q.param("c")
            ylo = yhi = c
            yv, ly = Value(c), Form((), c)
        q.guard(z3.Not(z3.And(ylo <= 0, yhi >= 0)))  # quotient_range: the divisor's range holds no 0
        q.guard(*(_corner_is(q, cx, cy, quotient) for cx in (xlo, xhi) for cy in (ylo, yhi)))
        lhs = q.mod(x, yv) if mod else q.div(x, yv)
        if not mod:
            q.guard(q.in_int32(quotient))
            return lhs, Value(quotient)
        rest = Form(lx.terms + tuple((-quotient * k, a) for k, a in ly.terms), lx.const - quotient * ly.const)
        q.guard(q.writable(rest))
        return lhs, q.written(rest)

    return build


def _draw_quotient(variable: bool):
    def draw(rng: random.Random) -> dict[str, int]:
        out = {"f": _coef(rng), "q": rng.choice((0, 1, -1, 2, -2, 5, 2**30, -(2**31), I32_MAX))}
        if not variable:
            out["c"] = _divisor(rng, positive=rng.random() < 0.7)
        return out

    return draw


# -- _fold_by_constant: c = +-1, a numerator in {-1, 0}


def _unit_divisor(mod: bool):
    def build(q: Question) -> Claim:
        _, _, lx = _two_atoms(q)
        c = q.param("c")
        lhs = _exact_quotient(q, lx, c, mod)
        if mod:
            return lhs, Value(0)
        written = lx.scaled(c)
        q.guard(q.writable(written))
        return lhs, q.written(written)

    return build


def _small_numerator(q: Question) -> Claim:
    _, _, lx = _two_atoms(q)
    c = q.param("c")
    lo, hi = q.bounds(lx)
    q.guard(lo >= -1, hi <= 0, q.writable(lx))
    return _exact_quotient(q, lx, c, False), q.written(lx)


# -- _nested_mod: (a % (k*c) + b) % c -> (a + b) % c


def _nested_mod(q: Question) -> Claim:
    inner_atom = q.atom("i")
    inner = Form(((q.param("h"), inner_atom),), q.constant("j"))  # a.src[0]'s linear form
    m, c = q.param("m"), q.param("c")
    t = q.bounded("t", q.mod(q.read(inner), m))  # the atom a = inner % m, with its bounds
    b = q.atom("b")
    lx = Form(((q.param("f"), t), (q.param("g"), b)), q.constant("k"))
    if q.wrap:
        q.guard(q.fits(inner))  # _exact_form(a.src[0], exact)
    out = Form(
        (*tuple((q.param("f") * k, a) for k, a in inner.terms), (q.param("g"), b)),
        q.param("f") * inner.const + lx.const,
    )
    q.guard(q.writable(out))  # _divmod(out, c, mod)
    return _exact_quotient(q, lx, c, True), q.mod(q.written(out), c)


def _draw_nested_mod(rng: random.Random) -> dict[str, int] | None:
    c = _divisor(rng)
    k = rng.choice((1, -1, 2, 3, -2, 2**16))
    if not I32_MIN <= c * k <= I32_MAX:
        return None
    return {"h": _coef(rng), "m": c * k, "c": c, "f": _coef(rng), "g": _coef(rng)}


# -- _congruence: coefficients replaced by residues of either sign, in one period


def _congruence(mod: bool):
    def build(q: Question) -> Claim:
        a, b, lx = _two_atoms(q)
        c = q.param("c")
        r1, r2 = q.param("r1"), q.param("r2")
        rem = Form(((r1, a), (r2, b)), q.floormod(lx.const, c))
        lo, hi = q.bounds(rem)
        q.guard(q.floordiv(lo, c) == q.floordiv(hi, c))  # lo // c == hi // c
        k = q.floordiv(lo, c)
        lhs = _exact_quotient(q, lx, c, mod)
        if mod:
            written = rem.plus(-k * c)
        else:
            f, g = q.param("f"), q.param("g")
            written = Form((((f - r1) // c, a), ((g - r2) // c, b)), q.floordiv(lx.const, c) + k)
        q.guard(q.writable(written))
        return lhs, q.written(written)

    return build


def _draw_congruence(rng: random.Random) -> dict[str, int]:
    c = _divisor(rng)
    f, g = _coef(rng), _coef(rng)
    r1, r2 = (rng.choice((f % c, f % c - c)) for f in (f, g))
    return {"c": c, "f": f, "g": g, "r1": r1, "r2": r2}


# -- _gcd: the gcd of the coefficients and c factored out


def _gcd_exact(mod: bool):
    # g divides every coefficient, c and the constant: (g*A) // (g*B) = A // B, (g*A) % (g*B) = (A % B)*g
    def build(q: Question) -> Claim:
        a, b = q.atom("a"), q.atom("b")
        g, c = q.param("g"), q.param("c")
        f1, f2 = q.param("f1"), q.param("f2")
        kk = q.constant("kk")  # the constant is g*kk
        lx = Form(((f1 * g, a), (f2 * g, b)), g * kk)
        reduced = Form(((f1, a), (f2, b)), kk)
        q.guard(q.writable(reduced))
        inner = (q.mod if mod else q.div)(q.written(reduced), c // g)
        return _exact_quotient(q, lx, c, mod), (q.mul(inner, g) if mod else inner)

    return build


def _draw_gcd_exact(rng: random.Random) -> dict[str, int] | None:
    g = rng.choice((2, 3, 4, 6, 8, 2**15, 2**30))
    c = g * rng.choice((1, 2, 3, -1, -2, 5, 2**16))
    f1, f2 = (rng.choice((1, -1, 2, 3, -5, 2**16, 7)) for _ in range(2))
    if not all(I32_MIN <= v <= I32_MAX for v in (c, f1 * g, f2 * g)) or math.gcd(f1 * g, f2 * g, c) != g:
        return None
    return {"g": g, "c": c, "f1": f1, "f2": f2}


def _gcd_remainder(mod: bool):
    # c > 0, g does not divide the constant k: x = g*S + k; reduced = S + (k // g) % (c // g)
    def build(q: Question) -> Claim:
        a, b = q.atom("a"), q.atom("b")
        g, c = q.param("g"), q.param("c")
        f1, f2 = q.param("f1"), q.param("f2")
        k = q.constant("k")
        lx = Form(((f1 * g, a), (f2 * g, b)), k)
        q.guard(q.floormod(k, g) != 0)
        reduced = Form(((f1, a), (f2, b)), q.floormod(q.floordiv(k, g), c // g))
        q.guard(q.writable(reduced))
        inner = (q.mod if mod else q.div)(q.written(reduced), c // g)
        if mod:
            rhs = q.add(q.mul(inner, g), Value(q.floormod(k, g)))
        else:
            rhs = q.add(inner, q.constant_value(q.floordiv(k, c)))
        return _exact_quotient(q, lx, c, mod), rhs

    return build


def _draw_gcd_remainder(rng: random.Random) -> dict[str, int] | None:
    params = _draw_gcd_exact(rng)
    if params is None or params["c"] < 0:
        return None
    return params


# -- _nest_by_factor: x // c -> (x // f) // (c / f), x % c from it when x >= 0


def _nest_by_factor(mod: bool):
    def build(q: Question) -> Claim:
        _a, _b, lx = _two_atoms(q)
        c, f = q.param("c"), q.param("ff")
        inner = _exact_quotient(q, lx, f, False)  # the inner fold's term: its value is floor(E / f)
        lhs = _exact_quotient(q, lx, c, mod)
        if not mod:
            return lhs, q.div(inner, c // f)
        lo, _ = q.bounds(lx)
        q.guard(lo >= 0, inner.value >= 0)
        rest = Form(
            tuple((k % f, atom) for k, atom in lx.terms if k % f), q.floormod(lx.const, f)
        )  # b: the remainder part
        rlo, rhi = q.bounds(rest)
        q.guard(rlo >= 0, rhi < f, q.writable(rest))
        r = q.mul(q.mod(inner, c // f), f)
        return lhs, q.add(r, q.written(rest))

    return build


def _draw_nest(rng: random.Random) -> dict[str, int] | None:
    f = rng.choice((2, 3, 4, 8, 2**15))
    c = f * rng.choice((2, 3, 4, 2**15))
    if c > I32_MAX:
        return None
    return {"ff": f, "c": c, "f": f * rng.choice((1, -1, 3)), "g": _coef(rng)}


# -- _reduce_coefficients: (f*v + b) % c -> ((f mod c)*v + b) % c, x >= 0 and the rest >= 0


def _reduce_coefficients(mod: bool):
    def build(q: Question) -> Claim:
        _a, _b, lx = _two_atoms(q)
        c = q.param("c")
        lo, _ = q.bounds(lx)
        q.guard(lo >= 0)
        rem = Form(tuple((k % c, atom) for k, atom in lx.terms if k % c), lx.const)
        rlo, _ = q.bounds(rem)
        q.guard(rlo >= 0)
        lhs = _exact_quotient(q, lx, c, mod)
        if rem.terms:
            q.guard(q.writable(rem))
            inner = (q.mod if mod else q.div)(q.written(rem), c)
        else:
            inner = Value(q.floormod(rem.const, c) if mod else q.floordiv(rem.const, c))
        if mod:
            return lhs, inner
        inner_atom = q.bounded("inner", inner)
        written = Form((*tuple((k // c, atom) for k, atom in lx.terms if k // c), (1, inner_atom)))
        q.guard(q.writable(written))
        return lhs, q.written(written)

    return build


def _draw_reduce(rng: random.Random) -> dict[str, int]:
    c = _divisor(rng)
    return {"c": c, "f": _coef(rng), "g": rng.choice((_coef(rng), c * 2 + 1, c + 3))}


# -- _constant_into_range: (x + k) // c -> (x + k % c) // c + k // c


def _constant_into_range(mod: bool):
    def build(q: Question) -> Claim:
        _, _, lx = _two_atoms(q)
        c = q.param("c")
        k = lx.const
        shifted = lx.plus(-q.floordiv(k, c) * c)
        q.guard(q.writable(shifted))
        inner = (q.mod if mod else q.div)(q.written(shifted), c)
        lhs = _exact_quotient(q, lx, c, mod)
        if mod:
            return lhs, inner
        return lhs, q.add(inner, q.constant_value(q.floordiv(k, c)))

    return build


# -- _merge_nested_division: (z // k + a) // c -> (z + a*k) // (k*c)


def _merge_nested_division(q: Question) -> Claim:
    z_atom = q.atom("z")
    z = Form(((q.param("h"), z_atom),), q.constant("j"))  # a.src[0]'s linear form
    k, c = q.param("kk"), q.param("c")
    t = q.bounded("t", q.div(q.read(z), k))  # the atom z // k
    lx = Form(((1, t),), q.constant("a"))
    if q.wrap:
        q.guard(q.fits(z))  # _exact_form(a.src[0], exact)
    merged = z + Form((), lx.const * k)
    q.guard(q.writable(merged))
    return _exact_quotient(q, lx, c, False), q.div(q.written(merged), k * c)


def _draw_merge(rng: random.Random) -> dict[str, int] | None:
    k, c = _divisor(rng), _divisor(rng)
    if k * c > I32_MAX:
        return None
    return {"h": _coef(rng), "kk": k, "c": c}


# -- negative divisors: x // -d = (-x) // d, x % -d = -((-x) % d), the inner fold on the form -x


def _negative_divisor(mod: bool):
    def build(q: Question) -> Claim:
        _, _, lx = _two_atoms(q)
        c = q.param("c")  # c < 0, -c an int32
        inner = _exact_quotient(q, lx.scaled(-1), -c, mod)  # the inner fold's term's value
        return _exact_quotient(q, lx, c, mod), (q.mul(inner, -1) if mod else inner)

    return build


def _draw_negative(rng: random.Random) -> dict[str, int]:
    return {"f": _coef(rng), "g": _coef(rng), "c": -_divisor(rng)}


# -- variable divisors (_fold_by_variable): the code itself, proved on drawn programs
#
# A variable divisor makes the question non-linear (a quotient or product of two unknowns), which
# the linear-integer questions above cannot state. So each draw of such a schema is a program: its
# inputs carry the drawn bounds (edges included), the written term is fold_divmod's own, and the
# program verifier decides the refinement over 32-bit bit-vectors for every input value within the
# bounds. A draw the fold does not rewrite under the semantics asked is one its guards reject
# (vacuous); a draw the fold rewrites into something else is refuted with its counterexample.

# bounds of an input: unbounded, small, a range, one sign, around 2**16 and 2**30, touching an end
_ANY_BOUNDS = (
    (I32_MIN, I32_MAX),
    (0, 40),
    (0, 1023),
    (-40, 40),
    (0, I32_MAX),
    (I32_MIN, -1),
    (2**16 - 8, 2**16 + 8),
    (2**30 - 8, 2**30 + 8),
    (I32_MAX - 40, I32_MAX),
    (I32_MIN, I32_MIN + 40),
)
# bounds of a divisor that exclude 0 (a divisor that may be 0 is left as written)
_NONZERO_BOUNDS = (
    (1, 40),
    (2, 6),
    (-40, -1),
    (1, I32_MAX),
    (I32_MIN, -1),
    (2**16, 2**16 + 8),
    (I32_MAX - 40, I32_MAX),
)
# bounds of a divisor > 0 and of a term >= 0
_POSITIVE_BOUNDS = ((1, 40), (2, 6), (1, I32_MAX), (2**16, 2**16 + 8), (I32_MAX - 40, I32_MAX))
_NONNEGATIVE_BOUNDS = ((0, 40), (0, 1023), (0, I32_MAX), (2**16 - 8, 2**16 + 8), (I32_MAX - 40, I32_MAX))


def _draw_bounds(rng: random.Random, choices: tuple[tuple[int, int], ...], *names: str) -> dict[str, int]:
    """Bounds for each named input, drawn from `choices`: params `name.lo`, `name.hi`."""
    params: dict[str, int] = {}
    for name in names:
        params[f"{name}.lo"], params[f"{name}.hi"] = rng.choice(choices)
    return params


def _small_coefficients(rng: random.Random, *names: str) -> dict[str, int]:
    """Mostly small: a large coefficient times a remainder rarely fits int32."""
    return {name: rng.choice((1, 1, -1, 2, 3, -2)) if rng.random() < 0.7 else _coef(rng) for name in names}


def _input(q: Question, slot: int, name: str) -> UOp:
    return UOp.param(slot, dtypes.i32, bounds=(q.param(f"{name}.lo"), q.param(f"{name}.hi")))


def _folded_program(build_lhs):
    """A schema's builder for a program shape: (the drawn program, what fold_divmod writes for it
    under the semantics asked), or None when it writes nothing."""

    def build(q: Question) -> Claim | None:
        lhs = build_lhs(q)
        rhs = fold_divmod(lhs, exact=not q.wrap)
        return None if rhs is None or rhs is lhs else (lhs, rhs)

    return build


def _var_nested_mod(q: Question) -> UOp:
    """((x*h + j) % y * f + b*g + k) % y: the residue read into the outer sum."""
    y, x, b = _input(q, 0, "y"), _input(q, 1, "x"), _input(q, 2, "b")
    inner = x * q.param("h") + q.param("j")
    return (inner % y * q.param("f") + b * q.param("g") + q.param("k")) % y


def _var_linear_multiple(mod: bool):
    def build_lhs(q: Question) -> UOp:
        """(y*k + b*m + c) // y, y = v*s + t a sum."""
        v, b = _input(q, 0, "v"), _input(q, 1, "b")
        y = v * q.param("s") + q.param("t")
        x = y * q.param("k") + b * q.param("m") + q.param("c")
        return x % y if mod else x // y

    return build_lhs


def _var_symbolic_gcd(mod: bool):
    def build_lhs(q: Question) -> UOp:
        """(b*y*h + y*g) // (y*m), b = y (a square) and g = 0 when drawn so: the gcd y*gcd(h, g, m)
        factored out."""
        y = _input(q, 0, "y")
        b = y if q.param("square") else _input(q, 1, "b")
        x = b * y * q.param("h") + y * q.param("g") if q.param("g") else b * y * q.param("h")
        d = y * q.param("m") if q.param("m") != 1 else y
        return x % d if mod else x // d

    return build_lhs


def _var_exact_multiples(mod: bool):
    def build_lhs(q: Question) -> UOp:
        """(y*a*m + b) // y, the numerator >= 0 and y > 0."""
        y, a, b = _input(q, 0, "y"), _input(q, 1, "a"), _input(q, 2, "b")
        x = y * a * q.param("m") + b
        return x % y if mod else x // y

    return build_lhs


def _draw_nested_variable(rng: random.Random) -> dict[str, int]:
    params = _draw_bounds(rng, _NONZERO_BOUNDS, "y") | _draw_bounds(rng, _ANY_BOUNDS, "x", "b")
    params |= _small_coefficients(rng, "h", "f", "g")
    params["j"] = draw_constant(rng)
    params["k"] = rng.choice((-params["j"], draw_constant(rng), 0)) if params["j"] != I32_MIN else 0
    return params


def _draw_linear_multiple(rng: random.Random) -> dict[str, int]:
    params = _draw_bounds(rng, _NONNEGATIVE_BOUNDS, "v") | _draw_bounds(rng, _ANY_BOUNDS, "b")
    params |= _small_coefficients(rng, "k", "m")
    s = rng.choice((1, 1, 2, -1))  # y = v*s + t, whose bounds must exclude 0
    params |= {"s": s, "t": s * rng.choice((1, 2, 7, draw_constant(rng, positive=True)))}
    params["c"] = draw_constant(rng)
    return params


def _draw_symbolic_gcd(rng: random.Random) -> dict[str, int]:
    params = _draw_bounds(rng, _NONZERO_BOUNDS, "y") | _draw_bounds(rng, _ANY_BOUNDS, "b")
    k = rng.choice((1, 2, 3, 4, 2**16, -2))
    params |= {"h": k * rng.choice((1, 2, 3)), "g": k * rng.choice((1, 2, -1, 0)), "m": k}
    params["square"] = int(rng.random() < 0.3)
    return params


def _draw_exact_multiples(rng: random.Random) -> dict[str, int]:
    params = _draw_bounds(rng, _POSITIVE_BOUNDS, "y") | _draw_bounds(rng, _NONNEGATIVE_BOUNDS, "a", "b")
    params["m"] = rng.choice((1, 1, 2, 3))
    return params


DIVMOD_SCHEMAS: tuple[Schema, ...] = (
    Schema(DIV, f"{DIV}/read-div", "x // c -> E // c", "x's form fits int32 (wrap)", _read(False), _draw_fgc),
    Schema(DIV, f"{DIV}/read-mod", "x % c -> E % c", "x's form fits int32 (wrap)", _read(True), _draw_fgc),
    Schema(
        DIV,
        f"{DIV}/constant-quotient-div",
        "x // c -> q   when floor(x / c) is q at every corner",
        "x fits (wrap); q an int32",
        _constant_quotient(False, False),
        _draw_quotient(False),
    ),
    Schema(
        DIV,
        f"{DIV}/constant-quotient-mod",
        "x % c -> x - q*c   when floor(x / c) is q at every corner",
        "x fits (wrap); x - q*c writable",
        _constant_quotient(True, False),
        _draw_quotient(False),
    ),
    Schema(
        DIV,
        f"{DIV}/constant-quotient-variable-div",
        "x // y -> q   when floor(x / y) is q at every corner of the bounds",
        "x fits (wrap); y's bounds exclude 0; q an int32",
        _constant_quotient(False, True),
        _draw_quotient(True),
    ),
    Schema(
        DIV,
        f"{DIV}/constant-quotient-variable-mod",
        "x % y -> x - q*y   when floor(x / y) is q at every corner of the bounds",
        "x fits (wrap); y's bounds exclude 0; x - q*y writable",
        _constant_quotient(True, True),
        _draw_quotient(True),
    ),
    Schema(
        DIV,
        f"{DIV}/unit-divisor-div",
        "E // 1 -> E, E // -1 -> -E",
        "the written form writable",
        _unit_divisor(False),
        lambda rng: {"f": _coef(rng), "g": _coef(rng), "c": rng.choice((1, -1))},
    ),
    Schema(
        DIV,
        f"{DIV}/unit-divisor-mod",
        "E % 1 -> 0, E % -1 -> 0",
        "none",
        _unit_divisor(True),
        lambda rng: {"f": _coef(rng), "g": _coef(rng), "c": rng.choice((1, -1))},
    ),
    Schema(
        DIV,
        f"{DIV}/small-numerator",
        "E // c -> E   for E in {-1, 0}, c > 1",
        "E's bounds in [-1, 0]; writable",
        _small_numerator,
        lambda rng: {"f": _coef(rng), "g": _coef(rng), "c": _divisor(rng)},
    ),
    Schema(
        DIV,
        f"{DIV}/nested-mod",
        "(a % (k*c) + b) % c -> (a + b) % c",
        "a's numerator fits int32 (wrap); the new sum writable",
        _nested_mod,
        _draw_nested_mod,
    ),
    Schema(
        DIV,
        f"{DIV}/congruence-mod",
        "(f*a + g*b + k) % c -> r1*a + r2*b + (k % c) - K*c   with r = f (mod c), in one period K",
        "the residue form's bounds in one period of c; the result writable",
        _congruence(True),
        _draw_congruence,
    ),
    Schema(
        DIV,
        f"{DIV}/congruence-div",
        "(f*a + g*b + k) // c -> ((f - r1)/c)*a + ((g - r2)/c)*b + k // c + K",
        "the residue form's bounds in one period of c; the result writable",
        _congruence(False),
        _draw_congruence,
    ),
    Schema(
        DIV,
        f"{DIV}/gcd-div",
        "(g*A) // (g*B) -> A // B",
        "g divides the coefficients, c and the constant; A writable",
        _gcd_exact(False),
        _draw_gcd_exact,
    ),
    Schema(
        DIV,
        f"{DIV}/gcd-mod",
        "(g*A) % (g*B) -> (A % B) * g",
        "g divides the coefficients, c and the constant; A writable",
        _gcd_exact(True),
        _draw_gcd_exact,
    ),
    Schema(
        DIV,
        f"{DIV}/gcd-remainder-div",
        "(g*S + k) // c -> (S + (k // g) % (c/g)) // (c/g) + k // c",
        "c > 0; g divides the coefficients and c, not k; the reduced form writable",
        _gcd_remainder(False),
        _draw_gcd_remainder,
    ),
    Schema(
        DIV,
        f"{DIV}/gcd-remainder-mod",
        "(g*S + k) % c -> ((S + (k // g) % (c/g)) % (c/g)) * g + k % g",
        "c > 0; g divides the coefficients and c, not k; the reduced form writable",
        _gcd_remainder(True),
        _draw_gcd_remainder,
    ),
    Schema(
        DIV,
        f"{DIV}/nest-by-factor-div",
        "x // c -> (x // f) // (c / f)",
        "f > 1 divides c",
        _nest_by_factor(False),
        _draw_nest,
    ),
    Schema(
        DIV,
        f"{DIV}/nest-by-factor-mod",
        "x % c -> ((x // f) % (c / f)) * f + b   b the part of x below f",
        "x >= 0, x // f >= 0; b's bounds in [0, f); b writable",
        _nest_by_factor(True),
        _draw_nest,
    ),
    Schema(
        DIV,
        f"{DIV}/reduce-coefficients-div",
        "(f*v + b) // c -> (f div c)*v + ((f mod c)*v + b) // c",
        "x >= 0 and the rest >= 0; the written forms writable",
        _reduce_coefficients(False),
        _draw_reduce,
    ),
    Schema(
        DIV,
        f"{DIV}/reduce-coefficients-mod",
        "(f*v + b) % c -> ((f mod c)*v + b) % c",
        "x >= 0 and the rest >= 0; the written form writable",
        _reduce_coefficients(True),
        _draw_reduce,
    ),
    Schema(
        DIV,
        f"{DIV}/constant-into-range-div",
        "(x + k) // c -> (x + k % c) // c + k // c",
        "the shifted form writable",
        _constant_into_range(False),
        _draw_fgc,
    ),
    Schema(
        DIV,
        f"{DIV}/constant-into-range-mod",
        "(x + k) % c -> (x + k % c) % c",
        "the shifted form writable",
        _constant_into_range(True),
        _draw_fgc,
    ),
    Schema(
        DIV,
        f"{DIV}/merge-nested-division",
        "(z // k + a) // c -> (z + a*k) // (k*c)",
        "k, c > 0, k*c an int32; z's form fits int32 (wrap); the merged form writable",
        _merge_nested_division,
        _draw_merge,
    ),
    Schema(
        DIV,
        f"{DIV}/negative-divisor-div",
        "E // -d -> (-E) // d",
        "-c an int32",
        _negative_divisor(False),
        _draw_negative,
    ),
    Schema(
        DIV,
        f"{DIV}/negative-divisor-mod",
        "E % -d -> -((-E) % d)",
        "-c an int32",
        _negative_divisor(True),
        _draw_negative,
    ),
    Schema(
        DIV,
        f"{DIV}/variable-nested-mod",
        "(a % y + b) % y -> (a + b) % y",
        "y's bounds exclude 0; a's form fits int32 (wrap); the sum writable",
        _folded_program(_var_nested_mod),
        _draw_nested_variable,
        nonlinear=True,
    ),
    *(
        Schema(
            DIV,
            f"{DIV}/variable-{name}-{'mod' if mod else 'div'}",
            rewrite,
            guards,
            _folded_program(shape(mod)),
            draw,
            nonlinear=True,
        )
        for name, rewrite, guards, shape, draw in (
            (
                "linear-multiple",
                "x = k*y + r for a sum y: x // y -> k + r // y, x % y -> r % y",
                "y's bounds exclude 0; y's form fits int32 (wrap); r has fewer terms than x and fits; "
                "k an int32",
                _var_linear_multiple,
                _draw_linear_multiple,
            ),
            (
                "gcd",
                "x // y -> (x/g) // (y/g), x % y -> ((x/g) % (y/g)) * g, g the symbolic gcd",
                "y's bounds exclude 0; every product of variables fits int32 (a square is two factors)",
                _var_symbolic_gcd,
                _draw_symbolic_gcd,
            ),
            (
                "exact-multiples",
                "(y*a + b) // y -> a + b // y, (y*a + b) % y -> b % y",
                "x >= 0, y > 0, b >= 0; the products of variables fit int32",
                _var_exact_multiples,
                _draw_exact_multiples,
            ),
        )
        for mod in (False, True)
    ),
)
