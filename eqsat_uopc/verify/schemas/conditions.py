"""The condition folds (eqsat_uopc.linear.conditions) as schemas, each with the guards its code checks.

Both fold on comparisons of one linear form: `where-assume` decides, inside a WHERE's branch, a
comparison w whose difference is s*d + e for the difference d of the condition (s rational, e an
integer), from d's bounds narrowed by the condition's value; `truth-table` evaluates a boolean term
on the assignments its comparisons take at sample points of their shared linear form L, which is
sound when every value of L in its bounds gives one of the sampled assignments. Each comparison is
read as its program value: `difference` needs both of its sides to fit int32 under wrap.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.rules.python_rules import TRUTH_TABLE, WHERE_ASSUME
from eqsat_uopc.verify.schemas.question import Atom, Claim, Form, Question, Schema, Value

__all__ = ["CONDITION_SCHEMAS"]


def _comparison(q: Question, name: str, difference: Form, lt: bool) -> Any:
    """The program value of a comparison `A < B` (or `A != B`) with A - B = difference: A and B read,
    both fitting int32 under wrap (difference())."""
    b_side = Form(((1, q.atom(f"{name}.b")),), q.constant(f"{name}.kb"))
    a_side = difference + b_side
    if q.wrap:
        q.guard(q.fits(a_side), q.fits(b_side))
    va, vb = q.read(a_side), q.read(b_side)
    q.input_defined.extend(_b(d) for d in (va.defined, vb.defined))
    return va.value < vb.value if lt else va.value != vb.value


def _b(d: Any) -> Any:
    return z3.BoolVal(d) if isinstance(d, bool) else d


def _key(q: Question) -> tuple[Atom, Atom, Form]:
    a, b = q.atom("a"), q.atom("b")
    return a, b, Form(((q.param("p"), a), (q.param("r"), b)), 0)


# -- _decide: w decided from the condition's value


def _narrowed(q: Question, d: Form, fact_lt: bool, value: bool) -> tuple[Any, Any]:
    """d's bounds narrowed by the fact `d < 0` (fact_lt) or `d != 0` having the value `value`, as
    the code narrows them; d != 0 true bounds nothing, and the code skips that fact (a guard here)."""
    lo, hi = q.bounds(d)
    if fact_lt:
        return (lo, z3.If(hi < -1, hi, -1)) if value else (z3.If(lo > 0, lo, 0), hi)
    if value:
        q.guard(z3.BoolVal(False))
        return lo, hi
    return z3.IntVal(0), z3.IntVal(0)


def _where_assume(q: Question) -> Claim:
    _, _, key = _key(q)
    fact_lt, value, w_lt = bool(q.param("fact_lt")), bool(q.param("value")), bool(q.param("w_lt"))
    s = Fraction(q.param("s_num"), q.param("s_den"))
    d = key.plus(q.constant("kd"))
    e = q.constant("e")
    fact = _comparison(q, "fact", d, fact_lt)
    # w's difference is s*d + e (_relation): coefficients s*p, s*r (integers: the draw makes them
    # so), constant s*kd + e (an integer: a guard)
    den = s.denominator
    q.guard(q.floormod(s.numerator * d.const, den) == 0)
    dw = Form(tuple((int(s * c), x) for c, x in d.terms), q.floordiv(s.numerator * d.const, den) + e)
    w_value = _comparison(q, "w", dw, w_lt)
    lo, hi = _narrowed(q, d, fact_lt, value)
    q.guard(lo <= hi)
    # ends = s*lo + e, s*hi + e (s rational: compare den*w with num*d + den*e)
    num = s.numerator
    ends = (num * lo, num * hi)
    wlo_den = z3.If(ends[0] <= ends[1], ends[0], ends[1]) + den * e
    whi_den = z3.If(ends[0] <= ends[1], ends[1], ends[0]) + den * e
    if w_lt:
        decided_true, decided_false = whi_den < 0, wlo_den >= 0
    else:
        decided_true, decided_false = z3.Or(wlo_den > 0, whi_den < 0), z3.And(wlo_den == 0, whi_den == 0)
    q.guard(z3.Or(decided_true, decided_false))
    q.hypotheses.append(fact == value)  # inside the branch where the condition has this value
    return Value(w_value), Value(decided_true)


def _draw_assume(rng: random.Random) -> dict[str, int] | None:
    p, r = rng.choice((1, 2, -3, 4, 2**16)), rng.choice((0, 1, -1, 6))
    num, den = rng.choice(((1, 1), (-1, 1), (2, 1), (1, 2), (-3, 2), (1, 4)))
    if (p * num) % den or (r * num) % den:
        return None
    return {
        "p": p,
        "r": r,
        "s_num": num,
        "s_den": den,
        "fact_lt": rng.choice((0, 1)),
        "value": rng.choice((0, 1)),
        "w_lt": rng.choice((0, 1)),
    }


# -- _one_period: x // c, x % c where the condition keeps x in one period of c


def _one_period(mod: bool, shifted: bool):
    """x = s*T + m*b + g*e + kl, T = p*a + r*b the terms of the condition's difference d = T + kd:
    narrowed_bounds takes s*T's range from d's range narrowed by the fact (any s: the code's choice
    of s is a heuristic, every s is an identity), the rest's from its atoms' bounds, intersected
    with x's own; _one_period folds when both ends have one quotient k (an int32)."""

    def build(q: Question) -> Claim:
        a, b, e = q.atom("a"), q.atom("b"), q.atom("e")
        p, r, s, m, g, c = (q.param(n) for n in ("p", "r", "s", "m", "g", "c"))
        fact_lt, value = bool(q.param("fact_lt")), bool(q.param("value"))
        kd = q.constant("kd")
        d = Form(((p, a), (r, b)), kd)
        fact = _comparison(q, "fact", d, fact_lt)
        lo_d, hi_d = _narrowed(q, d, fact_lt, value)
        tlo, thi = lo_d - kd, hi_d - kd
        kl = q.constant("kl")
        lx = Form(((s * p, a), (s * r + m, b), (g, e)), kl)
        q.guard(q.fits(lx))  # _one_period: x's value is its form's
        x = q.read(lx)
        taken = (s * tlo, s * thi) if s >= 0 else (s * thi, s * tlo)
        rlo, rhi = q.bounds(Form(((m, b), (g, e)), 0))
        own_lo, own_hi = q.bounds(lx)
        contradicted = tlo > thi  # narrowed_bounds then gives x's own bounds
        lo = z3.If(contradicted, own_lo, _max(own_lo, kl + taken[0] + rlo))
        hi = z3.If(contradicted, own_hi, _min(own_hi, kl + taken[1] + rhi))
        q.guard(lo <= hi)
        k = q.floordiv(lo, c)
        q.guard(k == q.floordiv(hi, c), q.in_int32(k))
        q.hypotheses.append(fact == value)  # inside the branch where the condition has this value
        if not mod:
            return q.div(x, c), Value(k)
        if not shifted:
            q.guard(k == 0)
            return q.mod(x, c), x
        q.guard(k != 0)
        return q.mod(x, c), q.written(Form(lx.terms, kl - k * c))

    return build


# -- _same_residue: a fact pins L % c, x has L's terms


def _pinned_remainder(q: Question, lf: Form, c: int) -> Any:
    """The remainder v that the fact pins (_residues): `L % c < 1` true (v = 0), `L % c < c - 1`
    false (v = c - 1), `L % c != k` false (v = k), `c - 2 < L % c` true (v = c - 1), `0 < L % c`
    false (v = 0); the fact is a hypothesis (inside the branch)."""
    q.guard(q.fits(lf))  # _residues: L's value is its form's
    m = q.mod(q.read(lf), c)
    q.input_defined.append(_b(m.defined))
    how = q.param("how")
    if how == 0:
        q.hypotheses.append(m.value < 1)
        return 0
    if how == 1:
        q.hypotheses.append(z3.Not(m.value < c - 1))
        return c - 1
    if how == 3:
        q.hypotheses.append(c - 2 < m.value)
        return c - 1
    if how == 4:
        q.hypotheses.append(z3.Not(m.value > 0))
        return 0
    k = q.param("k")
    q.hypotheses.append(m.value == k)
    return k


def _same_residue(mod: bool):
    def build(q: Question) -> Claim:
        a, b = q.atom("a"), q.atom("b")
        p, r, c = q.param("p"), q.param("r"), q.param("c")
        lf = Form(((p, a), (r, b)), q.constant("kf"))
        v = _pinned_remainder(q, lf, c)
        kl = q.constant("kl")
        lx = Form(lf.terms, kl)
        q.guard(q.fits(lx))
        x = q.read(lx)
        u = v - lf.const
        if mod:
            return q.mod(x, c), Value(q.floormod(u + kl, c))
        q.guard(kl != 0)
        shift = q.floordiv(u + kl, c) - q.floordiv(u, c)
        return q.div(x, c), q.add(q.div(q.written(Form(lx.terms, 0)), c), q.constant_value(shift))

    return build


def _decide_narrowed(q: Question) -> Claim:
    """_decide by narrowed_bounds: a fact pins L % c to v, so L lies between its congruent ends
    (lo + (v - lo) mod c, hi - (hi - v) mod c); w's difference dw = s*T + m*b + g*e + kw (T = L's
    terms) is bounded by s*T's range plus the rest's, intersected with dw's own; w decided when the
    bounds are one-sided."""
    a, b, e = q.atom("a"), q.atom("b"), q.atom("e")
    p, r, c, s, m, g = (q.param(n) for n in ("p", "r", "c", "s", "m", "g"))
    w_lt = bool(q.param("w_lt"))
    lf = Form(((p, a), (r, b)), q.constant("kf"))
    v = _pinned_remainder(q, lf, c)
    lo, hi = q.bounds(lf)
    tlo, thi = lo + q.floormod(v - lo, c) - lf.const, hi - q.floormod(hi - v, c) - lf.const
    dw = Form(((s * p, a), (s * r + m, b), (g, e)), q.constant("kw"))
    w_value = _comparison(q, "w", dw, w_lt)
    taken = (s * tlo, s * thi) if s >= 0 else (s * thi, s * tlo)
    rlo, rhi = q.bounds(Form(((m, b), (g, e)), 0))
    own_lo, own_hi = q.bounds(dw)
    wlo = _max(own_lo, dw.const + taken[0] + rlo)
    whi = _min(own_hi, dw.const + taken[1] + rhi)
    q.guard(wlo <= whi)
    if w_lt:
        decided_true, decided_false = whi < 0, wlo >= 0
    else:
        decided_true, decided_false = z3.Or(wlo > 0, whi < 0), z3.And(wlo == 0, whi == 0)
    q.guard(z3.Or(decided_true, decided_false))
    return Value(w_value), Value(decided_true)


def _draw_decide_narrowed(rng: random.Random) -> dict[str, int]:
    return _draw_residue(rng) | {
        "s": rng.choice((0, 1, -1, 2, 3)),
        "m": rng.choice((0, 1, -1, 2)),
        "g": rng.choice((0, 1, -2, 2**16)),
        "w_lt": rng.choice((0, 1)),
    }


def _and_implied(q: Question) -> Claim:
    """where(c, t, false) -> t where t implies c (_implied_dropped: assume decides c true given
    the other conjuncts, each decision a schema of its own: here the implication is a hypothesis)."""
    c, t = z3.Bool("c"), z3.Bool("t")
    q.inputs.update(c=c, t=t)
    q.hypotheses.append(z3.Implies(t, c))
    return Value(z3.If(c, t, False)), Value(t)


def _draw_residue_left(rng: random.Random) -> dict[str, int]:
    """A draw of _draw_residue with a fact written `j < L % c` (how 3: true, how 4: false)."""
    return _draw_residue(rng) | {"how": rng.choice((3, 4))}


def _draw_residue(rng: random.Random) -> dict[str, int]:
    c = rng.choice((2, 3, 4, 16, 540, 2**30, I32_MAX))
    return {
        "p": rng.choice((1, 2, -3, 4, 2**16)),
        "r": rng.choice((0, 1, -1, 6)),
        "c": c,
        "how": rng.choice((0, 1, 2)),
        "k": rng.choice((0, 1, c - 1)),
    }


def _max(x: Any, y: Any) -> Any:
    return z3.If(x >= y, x, y)


def _min(x: Any, y: Any) -> Any:
    return z3.If(x <= y, x, y)


def _draw_period(rng: random.Random) -> dict[str, int]:
    return {
        "p": rng.choice((1, 2, -3, 4, 2**16)),
        "r": rng.choice((0, 1, -1, 4)),
        "s": rng.choice((0, 1, -1, 2, -3, 10)),
        "m": rng.choice((0, 1, -1, 2, 90)),
        "g": rng.choice((0, 1, -1, 270, 2**30)),
        "c": rng.choice((2, 3, 16, 180, 540, -4, -7, 2**30, I32_MAX, I32_MIN)),
        "fact_lt": rng.choice((0, 1)),
        "value": rng.choice((0, 1)),
    }


# -- _samples: every value of L in its bounds gives one of the sampled assignments


def _truth_table(q: Question) -> Claim:
    _, _, key = _key(q)
    lo, hi = q.bounds(key)
    members = []
    for i in range(2):
        s, lt = q.param(f"s{i}"), bool(q.param(f"lt{i}"))
        e = q.constant(f"e{i}")
        d = Form(tuple((s * c, x) for c, x in key.terms), e)  # the comparison's difference: s*L + e
        _comparison(q, f"c{i}", d, lt)  # its sides fit (wrap): its value is the exact one below
        members.append((s, e, lt))
    points = [lo, hi]
    for s, e, _ in members:  # b = -e/s, base = floor(b): base - 1 .. base + 2
        base = q.floordiv(-e, s) if s > 0 else q.floordiv(e, -s)
        points += [base + j for j in (-1, 0, 1, 2)]

    def assignment(v: Any) -> list[Any]:
        return [(s * v + e < 0) if lt else (s * v + e != 0) for s, e, lt in members]

    v = q.exact(key)
    at_v = assignment(v)
    covered = z3.Or(
        *(
            z3.And(lo <= p, p <= hi, *(x == y for x, y in zip(assignment(p), at_v, strict=True)))
            for p in points
        )
    )
    return Value(z3.BoolVal(True)), Value(covered)


def _draw_truth(rng: random.Random) -> dict[str, int]:
    def s() -> int:
        return rng.choice((1, -1, 2, -2, 3, 5, -7, 2**16))

    return {
        "p": rng.choice((1, 2, -3, 4)),
        "r": rng.choice((0, 1, -1, 6)),
        "s0": s(),
        "s1": s(),
        "lt0": rng.choice((0, 1)),
        "lt1": rng.choice((0, 1)),
    }


CONDITION_SCHEMAS: tuple[Schema, ...] = (
    Schema(
        WHERE_ASSUME.name,
        f"{WHERE_ASSUME.name}/decide",
        "w -> true | false   inside where(c, ...), w's difference s*d + e, d's bounds narrowed by c",
        "both comparisons' sides fit int32 (wrap); d's narrowed bounds not empty",
        _where_assume,
        _draw_assume,
    ),
    *(
        Schema(
            WHERE_ASSUME.name,
            f"{WHERE_ASSUME.name}/{name}",
            f"{text}   inside where(c, ...), x's bounds narrowed by c in one period of the constant c",
            "x's form fits int32; the fact's sides fit int32 (wrap); one quotient k at both ends, an int32"
            + extra,
            _one_period(mod, shifted),
            _draw_period,
        )
        for name, text, mod, shifted, extra in (
            ("one-period-div", "x // c -> k", False, False, ""),
            ("one-period-mod", "x % c -> x", True, False, "; k = 0"),
            ("one-period-mod-shifted", "x % c -> x - k*c", True, True, "; k != 0, x - k*c writable"),
        )
    ),
    *(
        Schema(
            WHERE_ASSUME.name,
            f"{WHERE_ASSUME.name}/{name}",
            f"{text}   inside where(c, ...) where c pins L % k to v, x = L + const",
            "L's and x's forms fit int32; k >= 2" + extra,
            _same_residue(mod),
            _draw_residue,
        )
        for name, text, mod, extra in (
            ("same-residue-div", "x // k -> (x - x.const) // k + shift", False, "; x.const != 0"),
            ("same-residue-mod", "x % k -> (v - L.const + x.const) mod k", True, ""),
        )
    ),
    *(
        Schema(
            WHERE_ASSUME.name,
            f"{WHERE_ASSUME.name}/{name}-left",
            f"{text}   inside where(c, ...) where c pins L % k to v with the remainder on the right "
            "(`k - 2 < L % k` true, `0 < L % k` false), x = L + const",
            "L's and x's forms fit int32; k >= 2" + extra,
            _same_residue(mod),
            _draw_residue_left,
        )
        for name, text, mod, extra in (
            ("same-residue-div", "x // k -> (x - x.const) // k + shift", False, "; x.const != 0"),
            ("same-residue-mod", "x % k -> (v - L.const + x.const) mod k", True, ""),
        )
    ),
    Schema(
        WHERE_ASSUME.name,
        f"{WHERE_ASSUME.name}/decide-narrowed",
        "w -> true | false   inside where(c, ...) where c pins L % k, w's difference s*L + rest",
        "L's form and w's sides fit int32 (wrap); the narrowed bounds one-sided",
        _decide_narrowed,
        _draw_decide_narrowed,
    ),
    Schema(
        WHERE_ASSUME.name,
        f"{WHERE_ASSUME.name}/and-implied",
        "where(c, t, false) -> t   when assume decides c true given t (the other conjuncts)",
        "c and t total",
        _and_implied,
        lambda rng: {},
    ),
    Schema(
        TRUTH_TABLE.name,
        f"{TRUTH_TABLE.name}/samples",
        "a boolean term -> its value   when it has one value on the sampled assignments",
        "every comparison's sides fit int32 (wrap); the samples: L's bounds and floor(-e/s) - 1 .. + 2",
        _truth_table,
        _draw_truth,
    ),
)
