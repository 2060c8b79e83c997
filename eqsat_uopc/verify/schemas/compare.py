"""The comparison folds (eqsat_uopc.linear.compare) as schemas, each with the guards its code checks.

A comparison `A < B` or `A != B` of two sums over the atoms a, b is decided or rewritten on the
linear form of d = A - B (`difference`: both sides fit int32 under wrap, every value exact under
no_overflow). The branches the code takes on its constants (which coefficients are units, their
signs) are fixed by the drawn parameters; the branches it takes on the atoms' bounds are z3
conditions (the written comparison is `If(branch, ...)`), so one question follows the code through
every path.
"""

from __future__ import annotations

import math
import random
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.rules.python_rules import COMPARE_FOLD, MAX_BOUNDS
from eqsat_uopc.verify.schemas.question import Atom, Claim, Form, Question, Schema, Value, draw_constant

__all__ = ["COMPARE_SCHEMAS"]

CMP = COMPARE_FOLD.name


def _sides(q: Question) -> tuple[Atom, Atom, Form, Form, Value]:
    """A = (da + ha)*a + (db + hb)*b + kA and B = ha*a + hb*b + kB, and the input comparison's
    operands read (difference(): both fit under wrap)."""
    a, b = q.atom("a"), q.atom("b")
    da, db, ha, hb = (q.param(n) for n in ("da", "db", "ha", "hb"))
    ka, kb = q.constant("kA"), q.constant("kB")
    side_a = Form(((da + ha, a), (db + hb, b)), ka)
    side_b = Form(((ha, a), (hb, b)), kb)
    if q.wrap:
        q.guard(q.fits(side_a), q.fits(side_b))
    va, vb = q.read(side_a), q.read(side_b)
    return a, b, side_a, side_b, Value(z3.And(_b(va.defined), _b(vb.defined)))


def _b(d: Any) -> Any:
    return z3.BoolVal(d) if isinstance(d, bool) else d


def _difference(q: Question, a: Atom, b: Atom) -> Form:
    return Form(((q.param("da"), a), (q.param("db"), b)), q.inputs["kA"] - q.inputs["kB"])


def _input(q: Question, side_a: Form, side_b: Form, lt: bool) -> Value:
    va, vb = q.read(side_a), q.read(side_b)
    value = va.value < vb.value if lt else va.value != vb.value
    return Value(value, z3.And(_b(va.defined), _b(vb.defined)))


def _spell(q: Question, d: Form, lt: bool) -> tuple[Any, Value]:
    """_spell: `d < 0` or `d != 0` written `P < N + m`: (writable, the written comparison)."""
    pos = Form(tuple((c, a) for c, a in d.terms if c > 0), 0)
    neg = Form(tuple((-c, a) for c, a in d.terms if c < 0), -d.const)
    if not pos.terms:
        pos, neg = Form((), -neg.const), Form(neg.terms, 0)
    ok = z3.And(q.writable(pos), q.writable(neg))
    lhs, rhs = q.written(pos), q.written(neg)
    value = lhs.value < rhs.value if lt else lhs.value != rhs.value
    return ok, Value(value, z3.And(_b(lhs.defined), _b(rhs.defined)))


def _draw_sides(rng: random.Random) -> dict[str, int]:
    def small() -> int:
        return rng.choice((0, 1, -1, 2, -2, 3, 4, -4, 6, 8, 12, 2**16, 2**30, -(2**30)))

    out = {"ha": small(), "hb": small()}
    out["da"], out["db"] = small(), small()
    if out["da"] == 0 and out["db"] == 0:
        out["da"] = 1
    if not all(I32_MIN <= out[f"d{x}"] + out[f"h{x}"] <= I32_MAX for x in "ab"):
        return {**out, "ha": 0, "hb": 0}
    return out


# -- decided by d's bounds


def _decided(lt: bool):
    def build(q: Question) -> Claim:
        a, b, side_a, side_b, _ = _sides(q)
        d = _difference(q, a, b)
        lo, hi = q.bounds(d)
        if lt:
            q.guard(z3.Or(hi < 0, lo >= 0))
            return _input(q, side_a, side_b, True), Value(hi < 0)
        q.guard(z3.Or(hi < 0, lo > 0))
        return _input(q, side_a, side_b, False), Value(z3.BoolVal(True))

    return build


def _ne_divisibility(q: Question) -> Claim:
    # g = gcd(coefficients) does not divide the constant: d != 0 always
    a, b, side_a, side_b, _ = _sides(q)
    d = _difference(q, a, b)
    g = math.gcd(q.param("da"), q.param("db"))
    q.guard(q.floormod(d.const, g) != 0)
    return _input(q, side_a, side_b, False), Value(z3.BoolVal(True))


def _ne_scaled(q: Question) -> Claim:
    a, b, side_a, side_b, _ = _sides(q)
    d = _difference(q, a, b)
    g = math.gcd(q.param("da"), q.param("db"))
    lo, hi = q.bounds(d)
    q.guard(z3.Not(z3.Or(hi < 0, lo > 0)), q.floormod(d.const, g) == 0)
    e = Form(tuple((c // g, x) for c, x in d.terms), q.floordiv(d.const, g)) if g > 1 else d
    ok, written = _spell(q, e, False)
    q.guard(ok)
    return _input(q, side_a, side_b, False), written


# -- _normal_lt: scaled, a remainder dropped, a simplex


def _normal_lt(q: Question) -> Claim:
    a, b, side_a, side_b, _ = _sides(q)
    d = _difference(q, a, b)
    lo, hi = q.bounds(d)
    q.guard(z3.Not(z3.Or(hi < 0, lo >= 0)))
    g = math.gcd(q.param("da"), q.param("db"))
    k = -q.floordiv(d.const, g)
    s = Form(tuple((c // g, x) for c, x in d.terms if c), 0)
    # _drop_remainder: the unit terms R, the rest Q with gcd h > 1; when floor((k-1-R)/h) is one m
    rest = [(c, x) for c, x in s.terms if abs(c) != 1]
    units = [(c, x) for c, x in s.terms if abs(c) == 1]
    h = math.gcd(*(c for c, _ in rest)) if rest else 0
    dropped = z3.BoolVal(False)
    s2, k2 = s, k
    if rest and units and h > 1:
        rlo, rhi = q.bounds(Form(tuple(units), 0))
        m = q.floordiv(k - 1 - rlo, h)
        dropped = m == q.floordiv(k - 1 - rhi, h)
        s2, k2 = Form(tuple((c // h, x) for c, x in rest), 0), m + 1

    def after_drop(form: Form, kk: Any) -> tuple[Any, Value]:
        ok, plain = _spell(q, form.plus(-kk), True)
        if not all(c > 0 for c, _ in form.terms):
            return ok, plain
        unit = Form(tuple((1, x) for _, x in form.terms), 0)
        is_simplex = z3.And(kk == 1, *(x.lo >= 0 for _, x in form.terms))
        ok_s, simp = _spell(q, unit.plus(-kk), True)
        return z3.If(is_simplex, ok_s, ok), _choose(is_simplex, simp, plain)

    ok_kept, kept = after_drop(s, k)
    if rest and units and h > 1:
        ok_dropped, drop = after_drop(s2, k2)
        q.guard(z3.If(dropped, ok_dropped, ok_kept))
        return _input(q, side_a, side_b, True), _choose(dropped, drop, kept)
    q.guard(ok_kept)
    return _input(q, side_a, side_b, True), kept


def _choose(c: Any, then: Value, other: Value) -> Value:
    return Value(z3.If(c, then.value, other.value), z3.If(c, _b(then.defined), _b(other.defined)))


# -- the lone division: z // dd < k and -(z // dd) < k


def _lone_division(q: Question) -> Claim:
    z_atom = q.atom("z")
    z = Form(((q.param("h"), z_atom),), q.constant("j"))  # a.src[0]'s linear form
    dd, c = q.param("dd"), q.param("c")  # c = +-1: the division's coefficient in s
    t = q.bounded("t", q.div(q.read(z), dd))  # the atom z // dd
    k = q.integer("k")  # the comparison after scaling: c*t < k (k any integer: -(const // g))
    lhs = Value(c * t.value < k)
    if q.wrap:
        q.guard(q.fits(z))
    zz, d2 = (z.scaled(-1), -dd) if dd < 0 else (z, dd)
    bound = k * d2 if c == 1 else (1 - k) * d2
    q.guard(bound - 1 >= I32_MIN, bound <= I32_MAX)
    diff = zz.plus(-bound) if c == 1 else zz.scaled(-1).plus(bound - 1)
    ok, written = _spell(q, diff, True)
    q.guard(ok)
    return lhs, written


def _draw_lone(rng: random.Random) -> dict[str, int]:
    dd = draw_constant(rng)
    if dd in (0, I32_MIN):
        dd = 3
    return {"h": draw_constant(rng), "dd": dd, "c": rng.choice((1, -1))}


# -- shared_zero_tests: a zero test of A - B on another sum g of the same atoms


def _zero_test_shared(kind: str):
    """`A < B` (or `A != B`) whose difference d = da*a + db*b + k is a zero test (da, db of one sign,
    a, b >= 0; kind "zero": S + k < 0 with 1 <= -k <= min; "nonzero": -S + k < 0 with 0 <= k < min;
    "ne": S != 0) -> `g < kg + 1` (zero) or `kg < g` (nonzero, ne), g = ga*a + gb*b + kg (ga, gb > 0)
    a term of the kernel computed exactly (its form fits int32)."""

    def build(q: Question) -> Claim:
        a, b, side_a, side_b, _ = _sides(q)
        q.guard(a.lo >= 0, b.lo >= 0)
        d = _difference(q, a, b)
        smallest = min(abs(q.param("da")), abs(q.param("db")))
        g = Form(((q.param("ga"), a), (q.param("gb"), b)), q.constant("kg"))
        q.guard(q.fits(g))
        vg = q.read(g)
        if kind == "zero":
            q.guard(-d.const >= 1, -d.const <= smallest, g.const + 1 <= I32_MAX)
            written = Value(vg.value < g.const + 1, vg.defined)
        else:
            q.guard(d.const >= 0, d.const < smallest) if kind == "nonzero" else q.guard(d.const == 0)
            written = Value(g.const < vg.value, vg.defined)
        return _input(q, side_a, side_b, kind != "ne"), written

    return build


def _draw_zero_test(kind: str):
    def draw(rng: random.Random) -> dict[str, int] | None:
        out = _draw_sides(rng)
        sign = -1 if kind == "nonzero" else rng.choice((1, -1)) if kind == "ne" else 1
        if not (out["da"] * sign > 0 and out["db"] * sign > 0):
            return None
        positive = (1, 2, 3, 4, 12, 2**16, 2**30, 2**31 - 1)
        return {**out, "ga": rng.choice(positive), "gb": rng.choice(positive)}

    return draw


# -- complemented_parities: (y + k) % 2 with k odd is 1 - y % 2


def _complemented_parity(q: Question) -> Claim:
    """The atom `(p*a + r*b + k) % 2` read as `1 - (p*a + r*b) % 2` when k is odd, the numerator
    without its constant written back (LinearForm.write)."""
    a, b = q.atom("a"), q.atom("b")
    num = Form(((q.param("p"), a), (q.param("r"), b)), q.constant("k"))
    q.guard(q.floormod(num.const, 2) == 1)
    y = q.written(Form(num.terms, 0))
    parity = q.mod(y, 2)
    return q.mod(q.read(num), 2), Value(1 - parity.value, parity.defined)


def _draw_parity(rng: random.Random) -> dict[str, int]:
    return {"p": draw_constant(rng), "r": rng.choice((0, 1, -1, 2, 3, 2**16, 2**30, I32_MAX, I32_MIN))}


# -- fold_conjunction: c1 && c2 (c1 || c2) of comparisons at an end of their ranges


def _packed(conjunction: bool):
    """`c1 && c2` (or `c1 || c2`), c_i the comparison `A_i < B_i` or its negation `(A_i < B_i) !=
    true`, A_1 = p1*a + r1*b + k1, A_2 = p2*b + r2*e + k2 (they share b), B_i a constant; e_i = A_i -
    B_i (or B_i - A_i - 1 negated), so that c_i is `e_i < 0`; with e1's and e2's least values -1 (&&)
    or greatest values 0 (||) -> the comparison `e1 + e2 + 1 < 0` (&&) or `e1 + e2 < 0` (||) of
    their exact sum, which _normal_lt then writes (its spelling is `lt-normal`'s schema)."""

    def build(q: Question) -> Claim:
        a, b, e = q.atom("a"), q.atom("b"), q.atom("e")
        values, forms = [], []
        for i, (x, y) in enumerate(((a, b), (b, e)), start=1):
            side = Form(((q.param(f"p{i}"), x), (q.param(f"r{i}"), y)), q.constant(f"k{i}"))
            bound = q.constant(f"B{i}")
            if q.wrap:
                q.guard(q.fits(side))
            read = q.read(side)
            negated = bool(q.param(f"n{i}"))
            lt = read.value < bound
            values.append(Value(z3.Not(lt) if negated else lt, read.defined))
            d = side.plus(-bound)
            forms.append(d.scaled(-1).plus(-1) if negated else d)
        (e1, e2), (v1, v2) = forms, values
        end = 0 if conjunction else 1
        q.guard(q.bounds(e1)[end] == end - 1, q.bounds(e2)[end] == end - 1)
        total = q.exact(e1 + e2) + (1 if conjunction else 0)
        if conjunction:
            value = z3.If(v1.value, v2.value, False)
        else:
            value = z3.If(v1.value, True, v2.value)
        return Value(value, z3.And(_b(v1.defined), _b(v2.defined))), Value(total < 0)

    return build


def _draw_packed(rng: random.Random) -> dict[str, int]:
    def coefficient() -> int:
        return rng.choice((0, 1, -1, 2, -2, 3, 2**16, 2**30, -(2**30), I32_MAX, I32_MIN))

    out = {f"{x}{i}": coefficient() for i in (1, 2) for x in "pr"}
    return out | {"n1": rng.choice((0, 1)), "n2": rng.choice((0, 1))}


# -- fold_max: max(a, b) -> a when a's bounds lie at or above b's


def _max_bounds(q: Question) -> Claim:
    a, b = q.atom("a"), q.atom("b")
    q.guard(a.lo >= b.hi)
    return Value(z3.If(b.value > a.value, b.value, a.value)), Value(a.value)


COMPARE_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        CMP,
        f"{CMP}/decided-lt",
        "A < B -> true | false   when the bounds of A - B decide it",
        "A and B fit int32 (wrap)",
        _decided(True),
        _draw_sides,
    ),
    Schema(
        CMP,
        f"{CMP}/decided-ne",
        "A != B -> true   when the bounds of A - B exclude 0",
        "A and B fit int32 (wrap)",
        _decided(False),
        _draw_sides,
    ),
    Schema(
        CMP,
        f"{CMP}/ne-divisibility",
        "A != B -> true   when the gcd of A - B's coefficients does not divide its constant",
        "A and B fit int32 (wrap)",
        _ne_divisibility,
        _draw_sides,
    ),
    Schema(
        CMP,
        f"{CMP}/ne-scaled",
        "A != B -> P != N + m   (A - B divided by its gcd)",
        "A and B fit int32 (wrap); both written sides writable",
        _ne_scaled,
        _draw_sides,
    ),
    Schema(
        CMP,
        f"{CMP}/lt-normal",
        "A < B -> P < N + m   scaled by the gcd, a narrow remainder dropped, a simplex",
        "A and B fit int32 (wrap); undecided by the bounds; both written sides writable",
        _normal_lt,
        _draw_sides,
    ),
    Schema(
        CMP,
        f"{CMP}/lone-division",
        "z // d < k -> z < k*d,  -(z // d) < k -> z >= (1 - k)*d",
        "z fits int32 (wrap); d neither 0 nor -2**31; the bound an int32; writable",
        _lone_division,
        _draw_lone,
    ),
    Schema(
        CMP,
        f"{CMP}/zero-test-shared",
        "A < B -> g < kg + 1   when A - B = S + k, S a sum of positive multiples of nonnegative atoms, "
        "1 <= -k <= S's least coefficient (A < B is S == 0), g = T + kg, T of positive multiples of "
        "the same atoms (T == 0 exactly when S == 0)",
        "A, B and g fit int32; the atoms' lower bounds >= 0; kg + 1 an int32",
        _zero_test_shared("zero"),
        _draw_zero_test("zero"),
    ),
    Schema(
        CMP,
        f"{CMP}/nonzero-test-shared",
        "A < B -> kg < g   when A - B = -S + k, 0 <= k < S's least coefficient (A < B is S != 0), "
        "S, g, T as for zero-test-shared",
        "A, B and g fit int32; the atoms' lower bounds >= 0",
        _zero_test_shared("nonzero"),
        _draw_zero_test("nonzero"),
    ),
    Schema(
        CMP,
        f"{CMP}/ne-zero-test-shared",
        "A != B -> kg < g   when A - B = S or -S (A != B is S != 0), S, g, T as for zero-test-shared",
        "A, B and g fit int32; the atoms' lower bounds >= 0",
        _zero_test_shared("ne"),
        _draw_zero_test("ne"),
    ),
    Schema(
        CMP,
        f"{CMP}/complemented-parity",
        "(y + k) % 2 -> 1 - y % 2   k odd, y the numerator's terms written back (an atom of a comparison)",
        "y writable",
        _complemented_parity,
        _draw_parity,
    ),
    Schema(
        CMP,
        f"{CMP}/conjunction",
        "where(c1, c2, false) -> e1 + e2 + 1 < 0   c_i is e_i < 0 (A_i < B_i or its negation), the "
        "least value of e1 and of e2 -1 (then c_i is e_i == -1)",
        "the comparisons' sides fit int32 (wrap); the least values read from the atoms' bounds",
        _packed(True),
        _draw_packed,
    ),
    Schema(
        CMP,
        f"{CMP}/disjunction",
        "where(c1, true, c2) -> e1 + e2 < 0   c_i is e_i < 0, the greatest value of e1 and of e2 0 "
        "(then !c_i is e_i == 0)",
        "the comparisons' sides fit int32 (wrap); the greatest values read from the atoms' bounds",
        _packed(False),
        _draw_packed,
    ),
    Schema(
        MAX_BOUNDS.name,
        f"{MAX_BOUNDS.name}/bounds",
        "max(a, b) -> a   when a's lower bound is at or above b's upper bound",
        "the bounds of the interval analysis",
        _max_bounds,
    ),
)
