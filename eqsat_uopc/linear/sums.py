"""Sums of i32 terms rewritten on their linear form: like terms combined, quotient and remainder joined.

- Like terms: `x*3 + y + x*-3` is `y`, `a*4 + (b + a*2)` is `a*6 + b`, whatever the nesting.
- A remainder and its quotient recombine: `m*(b % c) + (m*c)*(b // c)` is `m*b`, also when the
  quotient is written of a term congruent to b (`(b + 8) // 4` with c = 4 is `b // 4 + 2`) or divides
  b's own numerator further (`(x // 4) % 2` and `x // 8`, since `x // 8 = (x // 4) // 2`):
  `l + (g // 8)*24 + (g % 8)*3` is `l + g*3`.
- Partly: `m*(b % c) + (m*c)*((b // c) % e)` is `m*(b % (c*e))` (e > 0).
- A remainder beside its quotient with any other coefficient k: `m*(b % c) + k*(b // c)` is
  `m*b + (k - m*c)*(b // c)` (b % c is b - c*(b // c)): the remainder goes, the quotient stays.
- A multiple of another sum: among a set of terms (one kernel's index expressions), a sum T whose
  form is c times the form of another sum M, plus the rest R, is `M*c + R` (`g*33 + (l + r)*11`
  is `(g*3 + l + r)*11` where a mask computes `g*3 + l + r`): `shared_multiples` pairs them, and
  extraction, with DAG cost, reads M once for both. Ring arithmetic again, exact under wraparound;
  M must compute its form exactly (its form fits int32 and no addition or product of it leaves
  int32 on the way) and `M*c + R` may compute no value outside int32 (the interval analysis bounds
  M*c and the sum, and R is written by `LinearForm.write`).

- A common part of two sums: two sums of a set whose coefficients on some atoms (two or more) are
  multiples of one sum F of those atoms, `15*b + 5*c + ...` and `66*b + 22*c + ...` of `F = 3*b + c`,
  are `F*5 + ...` and `F*22 + ...`: `shared_subforms` pairs each with its spelling over F, which
  extraction, with DAG cost, takes where computing F once pays (max_pool_dilation's two indices).
- Offsets of one sum: among a set of terms, sums whose forms differ only in their constants
  (`L - 22`, `L - 21`, ..., `L - 12`, where nothing computes L itself) are each the one with the
  least constant plus the difference (`(L - 22) + 1`): `shared_offsets` pairs them, and extraction
  takes them where that leaves L read by one sum only, which a fused multiply-add then computes
  with the constant as its addend.

Combining like terms is ring arithmetic, exact under wraparound whatever the values; a recombination
needs the exact values of the terms it compares (`b` and the quotient's numerator fit int32), as
the floor of a wrapped value is not the floor of the exact one. Under no_overflow the rewritten sum
must compute no value outside int32 (`LinearForm.write`: `(x + y) + x` is not `x*2 + y`, whose `x*2`
overflows at x = 2**30 where the input does not). The rewritten sum replaces the term when something
recombined or it is smaller. Each fold is proved as a schema in int32 arithmetic with these guards
(eqsat_uopc/verify/schemas/).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.form import LinearForm, atom_bounds, exact_sum, fits_i32, is_index

__all__ = ["fold_sum", "shared_multiples", "shared_offsets", "shared_subforms"]


def fold_sum(u: UOp, exact: bool = False) -> UOp | None:
    """A sum equal to the i32 ADD u with its div/mod pairs recombined and like terms combined, or None
    (`exact`: the terms' values are taken as exact, as no_overflow assumes)."""
    if u.op is not Ops.ADD or not is_index(u):
        return None
    a, b = u.src
    if (a.op is Ops.CONST) is not (b.op is Ops.CONST):
        term, k = (b, a.arg) if a.op is Ops.CONST else (a, b.arg)
        if k and term.op is not Ops.ADD and term.op is not Ops.MUL:
            return None  # an atom plus a constant: nothing to combine, and no smaller way to write it
    lf = LinearForm.of(u)
    if lf is None:
        return None
    recombined = _recombine(lf, exact)
    form = recombined or lf
    if exact:
        out = form.write()  # no_overflow: no partial sum may overflow where the input's did not
    elif all(fits_i32(k, k) for k in (form.const, *(c for _, c in form.terms))):
        out = form.to_uop()  # wrap: ring arithmetic, whatever the partial sums
    else:
        return None  # a coefficient beyond int32 would be a wrapped constant
    if out is None or out is u or (recombined is None and out.size >= u.size):
        return None
    return out


def _const_divisor(a: UOp, op: Ops) -> int | None:
    if a.op is op and a.src[1].op is Ops.CONST and a.src[1].arg > 0:
        return a.src[1].arg
    return None


def _offset(a: LinearForm | None, b: LinearForm | None, exact: bool) -> int | None:
    """a - b when it is a constant; 0 when a and b are one term (then whatever its value)."""
    if a is None or b is None:
        return None
    if a == b:
        return 0
    if not (exact or (a.fits() and b.fits())):
        return None  # the terms' values are exact only then
    d = a - b
    return d.const if d.is_constant else None


def _recombine(lf: LinearForm, exact: bool) -> LinearForm | None:
    """lf with one remainder and its quotient joined (repeatedly), or None if none is."""
    changed = False
    while True:
        step = _recombine_once(lf, exact)
        if step is None:
            return lf if changed else None
        lf, changed = step, True


def _remainders(lf: LinearForm) -> Iterator[tuple[UOp, int, int, UOp, LinearForm | None]]:
    """Each remainder by a constant among lf's atoms: (the atom b % c, its coefficient, c, b, b's
    linear form), in lf's order."""
    for mod_atom, m in lf.terms:
        div = _const_divisor(mod_atom, Ops.FLOORMOD)
        if div is not None:
            base = mod_atom.src[0]
            yield mod_atom, m, div, base, LinearForm.of(base)


def _recombine_once(lf: LinearForm, exact: bool) -> LinearForm | None:
    for mod_atom, m, div, base, lbase in _remainders(lf):
        for q, cq in lf.terms:
            if q is mod_atom or cq != div * m:
                continue
            rest = lf - LinearForm.atom(mod_atom, m) - LinearForm.atom(q, cq)
            joined = _full(lbase, base, q, div, m, exact)
            if joined is not None:
                return rest + joined
            joined = _partial(lbase, q, div, m, exact)
            if joined is not None:
                return rest + joined
    return _remainder_through_quotient(lf, exact)


def _remainder_through_quotient(lf: LinearForm, exact: bool) -> LinearForm | None:
    """m*(b % c) + k*q with q = (b - t) // c (t a multiple of c) and k any coefficient (k = m*c is
    `_full`'s) as m*b - m*t + (k - m*c)*q: b % c is b - c*(b // c) and (b - t) // c = b // c - t/c,
    so the remainder goes and the quotient stays (`63*((x + 3) % 5) + (x + 3) // 5` is
    `63*x + 189 - 314*((x + 3) // 5)`)."""
    for mod_atom, m, div, _, lbase in _remainders(lf):
        if lbase is None:
            continue
        for q, k in lf.terms:
            if q is mod_atom or _const_divisor(q, Ops.FLOORDIV) != div:
                continue
            t = _offset(lbase, LinearForm.of(q.src[0]), exact)
            if t is None or t % div:
                continue
            rest = lf - LinearForm.atom(mod_atom, m) - LinearForm.atom(q, k)
            return rest + lbase.scaled(m).plus(-m * t) + LinearForm.atom(q, k - m * div)
    return None


def _full(lbase: LinearForm | None, base: UOp, q: UOp, div: int, m: int, exact: bool) -> LinearForm | None:
    """m*(base % div) + m*div*q as m*base - m*t, when q = base//div - t/div."""
    D = _const_divisor(q, Ops.FLOORDIV)
    if D is None or lbase is None:
        return None
    lnum = LinearForm.of(q.src[0])
    if div == D:  # q = B // div, base = B + t
        t = _offset(lbase, lnum, exact)
        if t is None or t % div:
            return None
        return lbase.scaled(m).plus(-m * t)
    if D % div:
        return None
    k = D // div  # q = B // (k*div) = (B // k) // div; base = (B' // k) + a with B' = B + s
    if len(lbase.terms) != 1 or lbase.terms[0][1] != 1 or not (exact or lbase.fits()):
        return None
    inner = lbase.terms[0][0]
    if _const_divisor(inner, Ops.FLOORDIV) != k:
        return None
    s = _offset(LinearForm.of(inner.src[0]), lnum, exact)
    if s is None:
        return None
    total = s + lbase.const * k  # base = (B + total) // k
    if total % D:
        return None
    return lbase.scaled(m).plus(-m * (total // k))


def _partial(lbase: LinearForm | None, q: UOp, div: int, m: int, exact: bool) -> LinearForm | None:
    """m*(base % div) + m*div*((B // div) % e) as m*(B % (div*e)), base = B + t, t a multiple of div."""
    e = _const_divisor(q, Ops.FLOORMOD)
    if e is None or lbase is None:
        return None
    inner = q.src[0]
    if _const_divisor(inner, Ops.FLOORDIV) != div:
        return None
    t = _offset(lbase, LinearForm.of(inner.src[0]), exact)
    if t is None or t % div or not fits_i32(div * e, div * e):
        return None
    return LinearForm.atom(inner.src[0] % (div * e), m)


def shared_multiples(terms: Iterable[UOp]) -> list[tuple[UOp, UOp]]:
    """Pairs (a sum T among `terms`, `M*c + R`) for each other sum M among them whose every atom is
    one of T's with T's coefficient c times its own (c the same for all, |c| >= 2: `M + R` is a
    re-association, which the e-graph's rules find), R = T - c*M written
    back (module docstring). Sound under either int semantics: M's and T's values are their forms'
    (`exact_sum`), and `M*c + R` computes no value outside int32. In the order of `terms`."""
    sums = [(u, f) for u in dict.fromkeys(terms) if (f := exact_sum(u)) is not None]
    multiples = [(m, f) for m, f in sums if len(f.terms) >= 2]
    pairs: list[tuple[UOp, UOp]] = []
    for t, ft in sums:
        coefficients = dict(ft.terms)
        for m, fm in multiples:
            if m is t or len(fm.terms) > len(ft.terms):
                continue
            (a0, c0), *_ = fm.terms
            if a0 not in coefficients or coefficients[a0] % c0:
                continue
            c = coefficients[a0] // c0
            if not all(coefficients.get(a) == c * k for a, k in fm.terms):
                continue
            if abs(c) < 2:
                continue  # T = M + R: a re-association, which the e-graph's rules find
            written = _multiple_plus_rest(m, c, ft - fm.scaled(c))
            if written is not None and written is not t:
                pairs.append((t, written))
    return pairs


def _multiple_plus_rest(m: UOp, c: int, rest: LinearForm) -> UOp | None:
    """`m*c + rest` (`m*c` alone when rest is 0; |c| >= 2), or None when it may compute a value outside
    int32."""
    if not fits_i32(c, c):
        return None
    out = m * c
    if rest.terms or rest.const:
        r = rest.write()
        if r is None:
            return None
        out = out + r
    for n in (out, out.src[0]) if out.op is Ops.ADD else (out,):
        lo, hi = atom_bounds(n)
        if lo <= I32_MIN or hi >= I32_MAX:
            return None
    return out


def shared_offsets(terms: Iterable[UOp]) -> list[tuple[UOp, UOp]]:
    """Pairs (a sum T among `terms`, `B + (T.const - B.const)`) for each sum B among them with the
    same terms and coefficients as T and the least constant of all such sums (module docstring).
    Sound under either int semantics: T's and B's values are their forms' (`exact_sum`), so T is B
    plus the difference of their constants exactly, an int32 since T's value is one. In the order
    of `terms`."""
    groups: dict[LinearForm, list[tuple[UOp, int]]] = {}
    for u in dict.fromkeys(terms):
        if (f := exact_sum(u)) is not None and f.terms:
            groups.setdefault(f.without_const(), []).append((u, f.const))
    pairs: list[tuple[UOp, UOp]] = []
    for members in groups.values():
        if len({c for _, c in members}) < 2:
            continue
        base, least = min(members, key=lambda m: m[1])
        for t, c in members:
            if c != least and fits_i32(c - least, c - least):
                pairs.append((t, base + (c - least)))
    return pairs


_MAX_SUBFORM_SUMS = 256  # distinct sums (up to their constants) whose pairs shared_subforms compares, at most


def shared_subforms(terms: Iterable[UOp]) -> list[tuple[UOp, UOp]]:
    """Pairs (a sum T among `terms`, `F1*c1 + F2*c2 + ... + R`) where each F_j is a common part of T
    and another sum U among them (module docstring): atoms both have, two or more, on which T's
    coefficients are c times F's and U's d times F's (F's coefficients without a common factor, its
    first positive); a sum's parts are taken largest first, disjoint. Sound under either int
    semantics: T's value is its form's (`exact_sum`), each F is written exactly (`LinearForm.write`),
    R too, and the interval analysis bounds each F*c and each partial sum within int32. In the order
    of `terms`."""
    sums: dict[LinearForm, list[UOp]] = {}
    for u in dict.fromkeys(terms):
        if (f := exact_sum(u)) is not None and len(f.terms) >= 2:
            sums.setdefault(f.without_const(), []).append(u)
    forms = list(sums)[:_MAX_SUBFORM_SUMS]
    inside = {f: {n for u in sums[f] for n in u.toposort()} for f in forms}
    parts: dict[LinearForm, dict[LinearForm, int]] = {}  # sum (no constant) -> F -> c
    for i, ft in enumerate(forms):
        for fu in forms[i + 1 :]:
            if any(u in inside[ft] for u in sums[fu]) or any(t in inside[fu] for t in sums[ft]):
                continue  # one sum inside the other: its part is the inner sum, shared_multiples' case
            for part, ct, cu in _common_parts(ft, fu):
                parts.setdefault(ft, {}).setdefault(part, ct)
                parts.setdefault(fu, {}).setdefault(part, cu)
    pairs: list[tuple[UOp, UOp]] = []
    for form, by_part in parts.items():
        chosen: list[tuple[UOp, LinearForm, int]] = []
        used: set[UOp] = set()
        for part, c in sorted(by_part.items(), key=lambda pc: -len(pc[0].terms)):  # stable: larger first
            atoms = {a for a, _ in part.terms}
            f = None if atoms & used else part.write()
            if f is not None:
                chosen.append((f, part, c))
                used |= atoms
        for t in sums[form]:
            written = _over_parts(LinearForm.of(t), chosen)
            if written is not None and written is not t:
                pairs.append((t, written))
    return pairs


def _common_parts(ft: LinearForm, fu: LinearForm) -> list[tuple[LinearForm, int, int]]:
    """Each (F, c, d) with ft's coefficients c*F's and fu's d*F's on the atoms of F, for each largest
    set of their common atoms with one ratio of coefficients (two atoms or more, and not all of both:
    then one is a multiple of the other, shared_multiples' case; not the same terms in both)."""
    cu = dict(fu.terms)
    groups: dict[tuple[int, int], list[tuple[UOp, int]]] = {}
    for a, k in ft.terms:
        if a in cu:
            g = math.gcd(k, cu[a])
            ratio = (k // g, cu[a] // g) if k > 0 else (-k // g, -cu[a] // g)
            groups.setdefault(ratio, []).append((a, k))
    out = []
    for group in groups.values():
        if len(group) < 2 or len(group) == len(ft.terms) == len(fu.terms):
            continue
        g_t = math.gcd(*(k for _, k in group)) * (1 if group[0][1] > 0 else -1)
        part = LinearForm(tuple((a, k // g_t) for a, k in group), 0)
        d = cu[group[0][0]] // part.terms[0][1]
        if g_t == d == 1:
            continue  # the same terms in both (a sum inside the other): a re-association, the rules' work
        if all(cu[a] == d * k for a, k in part.terms):
            out.append((part, g_t, d))
    return out


def _over_parts(full: LinearForm, chosen: list[tuple[UOp, LinearForm, int]]) -> UOp | None:
    """full written as `F1*c1 + F2*c2 + ... + R` over the chosen parts (F_j written, c_j), or None
    when none is chosen or a product or partial sum may leave int32 (the interval analysis)."""
    out, rest = None, full
    for f, part, c in chosen:
        if not fits_i32(c, c):
            return None
        term = f if c == 1 else f * c
        rest = rest - part.scaled(c)
        out = term if out is None else out + term
        if not (_within(term) and _within(out)):
            return None
    if out is None:
        return None
    if rest.terms or rest.const:
        r = rest.write()
        if r is None:
            return None
        out = out + r
    return out if _within(out) else None


def _within(u: UOp) -> bool:
    """Does the interval analysis bound u strictly within int32 (no wrap anywhere on the way)?"""
    lo, hi = atom_bounds(u)
    return lo > I32_MIN and hi < I32_MAX
