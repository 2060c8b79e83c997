"""The sum folds (eqsat_uopc.linear.sums) as schemas, each with the guards its code checks.

A sum is read as its linear form (any spelling) and written back canonically: like terms combined
(ring arithmetic, exact under wrap whatever the values; under no_overflow the written sum must
compute no value outside int32), a remainder and its quotient recombined (which needs the exact
values of the terms it compares: the base and the quotient's numerator).
"""

from __future__ import annotations

import random
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.rules.python_rules import SUM_FOLD
from eqsat_uopc.verify.schemas.question import Atom, Claim, Form, Question, Schema, Value, draw_constant

__all__ = ["SUM_SCHEMAS"]

SUM = SUM_FOLD.name


def _writes(q: Question, form: Form) -> Value:
    """fold_sum's write: under no_overflow LinearForm.write (a guard), under wrap to_uop with every
    coefficient and the constant an int32."""
    if q.wrap:
        q.guard(q.in_int32(form.const))
        if any(not I32_MIN <= c <= I32_MAX for c, _ in form.terms):
            q.guard(z3.BoolVal(False))
    else:
        q.guard(q.writable(form))
    return q.written(form)


def _like_terms(q: Question) -> Claim:
    # x*f + y*g + x*h -> x*(f + h) + y*g: the input read as one form, written combined
    a, b = q.atom("a"), q.atom("b")
    f, g, h = q.param("f"), q.param("g"), q.param("h")
    k = q.constant("k")
    lhs = q.read(Form(((f, a), (g, b), (h, a)), k))
    return lhs, _writes(q, Form(((f + h, a), (g, b)), k))


def _draw_like(rng: random.Random) -> dict[str, int] | None:
    f, g, h = draw_constant(rng), draw_constant(rng), draw_constant(rng)
    return {"f": f, "g": g, "h": h} if I32_MIN <= f + h <= I32_MAX else None


def _remainder_and_quotient(q: Question) -> tuple[Atom, Atom, Atom, Atom, Form, Any]:
    """The atoms a, r, rem = base % c and quo = (base - t) // c of a sum m*rem + k*quo + r (base =
    f*a + kb, t = c*w the offset _offset() found, a multiple of c), base's form, and t."""
    a, r = q.atom("a"), q.atom("r")
    f, c, w = q.param("f"), q.param("c"), q.param("w")
    base = Form(((f, a),), q.constant("kb"))
    t = c * w
    numerator = base.plus(-t)
    if t != 0 and q.wrap:
        q.guard(q.fits(base), q.fits(numerator))  # _offset: both exact unless one term
    rem = q.bounded("rem", q.mod(q.read(base), c))
    quo = q.bounded("quo", q.div(q.read(numerator), c))
    return a, r, rem, quo, base, t


def _recombine_full(q: Question) -> Claim:
    # m*(base % c) + (m*c)*((base - t) // c) + r -> m*base - m*t + r   (t = base - numerator, t % c == 0)
    a, r, rem, quo, base, t = _remainder_and_quotient(q)
    f, c, m = q.param("f"), q.param("c"), q.param("m")
    kr = q.constant("kr")
    lx = Form(((m, rem), (m * c, quo), (1, r)), kr)
    out = Form(((m * f, a), (1, r)), m * base.const - m * t + kr)
    return q.read(lx), _writes(q, out)


def _draw_full(rng: random.Random) -> dict[str, int] | None:
    c = rng.choice((2, 3, 4, 8, 16, 2**16, 2**30, I32_MAX))
    m = rng.choice((1, -1, 2, 3, 2**16))
    w = rng.choice((0, 0, 1, -1, 2, -3))
    f = rng.choice((1, -1, 2, 3, 2**16))
    if not all(I32_MIN <= v <= I32_MAX for v in (m * c, m * f, c * w)):
        return None
    return {"c": c, "m": m, "w": w, "f": f}


def _remainder_through_quotient(q: Question) -> Claim:
    # m*(base % c) + k*((base - t) // c) + r -> m*base - m*t + (k - m*c)*((base - t) // c) + r
    a, r, rem, quo, base, t = _remainder_and_quotient(q)
    f, c, m, k = q.param("f"), q.param("c"), q.param("m"), q.param("k")
    kr = q.constant("kr")
    lx = Form(((m, rem), (k, quo), (1, r)), kr)
    out = Form(((m * f, a), (k - m * c, quo), (1, r)), m * base.const - m * t + kr)
    return q.read(lx), _writes(q, out)


def _draw_through_quotient(rng: random.Random) -> dict[str, int] | None:
    out = _draw_full(rng)
    if out is None:
        return None
    k = rng.choice((1, -1, 2, 5, -314, 2**16, 2**30, I32_MAX, I32_MIN))
    if not I32_MIN <= k - out["m"] * out["c"] <= I32_MAX:
        return None
    return out | {"k": k}


def _recombine_partial(q: Question) -> Claim:
    # m*(base % div) + (m*div)*(((base - t) // div) % e) -> m*((base - t) % (div*e))
    a = q.atom("a")
    f, div, e, m, w = (q.param(n) for n in ("f", "div", "e", "m", "w"))
    k = q.constant("k")
    base = Form(((f, a),), k)
    t = div * w
    numerator = base.plus(-t)
    if t != 0 and q.wrap:
        q.guard(q.fits(base), q.fits(numerator))
    rem = q.bounded("rem", q.mod(q.read(base), div))
    inner = q.bounded("inner", q.div(q.read(numerator), div))  # B // div, B the numerator's term
    quo = q.bounded("quo", q.mod(Value(inner.value), e))
    lx = Form(((m, rem), (m * div, quo)), 0)
    wide = q.bounded("wide", q.mod(q.read(numerator), div * e))  # the written B % (div*e)
    return q.read(lx), _writes(q, Form(((m, wide),), 0))


def _draw_partial(rng: random.Random) -> dict[str, int] | None:
    div, e = rng.choice((2, 3, 4, 8, 2**15)), rng.choice((2, 3, 5, 2**15))
    m, w, f = rng.choice((1, -1, 4)), rng.choice((0, 1, -2)), rng.choice((1, -1, 3))
    if div * e > I32_MAX:
        return None
    return {"div": div, "e": e, "m": m, "w": w, "f": f}


def _shared_multiple(q: Question) -> Claim:
    # T = (c*ma)*a + (c*mb)*b + tz*z + kT, M = ma*a + mb*b + kM a term of the kernel -> M*c + R,
    # R = tz*z + (kT - c*kM) written by LinearForm.write; T and M fit int32 (_exact), and the
    # interval analysis bounds M*c and the whole sum within int32
    a, b, z = q.atom("a"), q.atom("b"), q.atom("z")
    ma, mb, c, tz = q.param("ma"), q.param("mb"), q.param("c"), q.param("tz")
    m = Form(((ma, a), (mb, b)), q.constant("kM"))
    t = Form(((c * ma, a), (c * mb, b), (tz, z)), q.constant("kT"))
    q.guard(q.fits(t), q.fits(m))
    scaled = m.scaled(c)
    lo, hi = q.bounds(scaled)
    q.guard(lo > I32_MIN, hi < I32_MAX)
    tlo, thi = q.bounds(t)
    q.guard(tlo > I32_MIN, thi < I32_MAX)
    rest = Form(((tz, z),) if tz else (), t.const - c * m.const)
    if not rest.terms:
        q.guard(q.in_int32(rest.const))  # LinearForm.write: a constant is written when it is an int32
    written = q.written(rest) if rest.terms else q.constant_value(rest.const)
    return q.read(t), q.add(q.mul(q.read(m), c), written)


def _draw_multiple(rng: random.Random) -> dict[str, int] | None:
    def small() -> int:
        return rng.choice((1, -1, 2, 3, -4, 6, 11, 2**16, 2**30, 2**31 - 1, -(2**31)))

    out = {"ma": small(), "mb": small(), "c": rng.choice((2, -2, 3, 11, -10, 2**16, -(2**16))), "tz": small()}
    out["tz"] = rng.choice((0, out["tz"]))
    if not all(I32_MIN <= out["c"] * out[k] <= I32_MAX for k in ("ma", "mb")):
        return None
    return out


def _shared_subform(q: Question) -> Claim:
    # T = (c*fa)*a + (c*fb)*b [+ (e*ga)*g + (e*gb)*h] + tz*z + kT -> F*c [+ G*e] + R, F = fa*a + fb*b
    # and G = ga*g + gb*h written (common parts of T and other sums, shared_subforms), R = tz*z + kT
    # written; T fits int32 (exact_sum), the interval analysis bounds each product and partial sum
    # within int32
    a, b, z = q.atom("a"), q.atom("b"), q.atom("z")
    fa, fb, c, tz = q.param("fa"), q.param("fb"), q.param("c"), q.param("tz")
    parts = [(Form(((fa, a), (fb, b)), 0), c)]
    if q.param("two"):
        g, h = q.atom("g"), q.atom("h")
        parts.append((Form(((q.param("ga"), g), (q.param("gb"), h)), 0), q.param("e")))
    terms = tuple((k * m, x) for part, m in parts for k, x in part.terms) + (((tz, z),) if tz else ())
    t = Form(terms, q.constant("kT"))
    q.guard(q.fits(t))
    tlo, thi = q.bounds(t)
    q.guard(tlo > I32_MIN, thi < I32_MAX)
    out, covered = None, Form((), 0)
    for part, m in parts:
        f = q.written(part)
        lo, hi = q.bounds(part.scaled(m))
        q.guard(lo > I32_MIN, hi < I32_MAX)
        term = f if m == 1 else q.mul(f, m)
        covered = covered + part.scaled(m)
        if out is not None:
            plo, phi = q.bounds(covered)
            q.guard(plo > I32_MIN, phi < I32_MAX)
        out = term if out is None else q.add(out, term)
    rest = Form(((tz, z),) if tz else (), t.const)
    if not rest.terms:
        q.guard(q.in_int32(rest.const))
    written = q.written(rest) if rest.terms else q.constant_value(rest.const)
    return q.read(t), q.add(out, written)


def _draw_subform(rng: random.Random) -> dict[str, int] | None:
    def small() -> int:
        return rng.choice((1, -1, 2, 3, -4, 11, 2**16, 2**30, 2**31 - 1, -(2**31)))

    out = {"fa": rng.choice((1, 2, 3, 2**16)), "fb": small(), "c": rng.choice((1, 2, -2, 5, 22, -(2**16)))}
    out["tz"] = rng.choice((0, small()))
    out |= {"two": rng.choice((0, 1)), "ga": rng.choice((1, 3)), "gb": small(), "e": rng.choice((1, 90, -10))}
    if not all(I32_MIN <= out["c"] * out[k] <= I32_MAX for k in ("fa", "fb")):
        return None
    if not all(I32_MIN <= out["e"] * out[k] <= I32_MAX for k in ("ga", "gb")):
        return None
    return out


def _shared_offset(q: Question) -> Claim:
    # T = p*a + r*b + kT, B = p*a + r*b + kB another term of the kernel -> B + (kT - kB); T and B
    # compute their forms exactly (exact_sum: their forms fit int32), the difference an int32
    a, b = q.atom("a"), q.atom("b")
    p, r = q.param("p"), q.param("r")
    t = Form(((p, a), (r, b)), q.constant("kT"))
    base = Form(((p, a), (r, b)), q.constant("kB"))
    q.guard(q.fits(t), q.fits(base), q.in_int32(t.const - base.const))
    return q.read(t), q.add(q.read(base), q.constant_value(t.const - base.const))


def _draw_offset(rng: random.Random) -> dict[str, int]:
    def coefficient() -> int:
        return rng.choice((1, -1, 2, 11, 99, 2**16, 2**30, 2**31 - 1, -(2**31)))

    return {"p": coefficient(), "r": rng.choice((0, coefficient()))}


SUM_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        SUM,
        f"{SUM}/like-terms",
        "x*f + y*g + x*h -> x*(f + h) + y*g",
        "coefficients and constant int32; under no_overflow the written sum writable",
        _like_terms,
        _draw_like,
    ),
    Schema(
        SUM,
        f"{SUM}/recombine",
        "m*(b % c) + (m*c)*((b - t) // c) -> m*b - m*t   t a multiple of c",
        "b and b - t fit int32 (wrap) unless they are one term; the written sum as like-terms",
        _recombine_full,
        _draw_full,
    ),
    Schema(
        SUM,
        f"{SUM}/remainder-through-quotient",
        "m*(b % c) + k*((b - t) // c) -> m*b - m*t + (k - m*c)*((b - t) // c)   t a multiple of c",
        "b and b - t fit int32 (wrap) unless they are one term; the written sum as like-terms",
        _remainder_through_quotient,
        _draw_through_quotient,
    ),
    Schema(
        SUM,
        f"{SUM}/recombine-partial",
        "m*(b % c) + (m*c)*(((b - t) // c) % e) -> m*((b - t) % (c*e))",
        "c*e an int32; b and b - t fit int32 (wrap) unless they are one term",
        _recombine_partial,
        _draw_partial,
    ),
    Schema(
        SUM,
        f"{SUM}/shared-multiple",
        "(c*ma)*a + (c*mb)*b + R -> M*c + R   M = ma*a + mb*b + kM another term (shared_multiples)",
        "T and M fit int32; M*c and T bounded within int32; R writable (a constant R an int32)",
        _shared_multiple,
        _draw_multiple,
    ),
    Schema(
        SUM,
        f"{SUM}/shared-subform",
        "(c*fa)*a + (c*fb)*b [+ (e*ga)*g + (e*gb)*h] + R -> F*c [+ G*e] + R   F, G common parts of T and "
        "other sums (shared_subforms)",
        "T fits int32; F, G writable; each product and partial sum bounded within int32; R writable",
        _shared_subform,
        _draw_subform,
    ),
    Schema(
        SUM,
        f"{SUM}/shared-offset",
        "p*a + r*b + kT -> B + (kT - kB)   B = p*a + r*b + kB another term (shared_offsets)",
        "T and B fit int32; kT - kB an int32",
        _shared_offset,
        _draw_offset,
    ),
)
