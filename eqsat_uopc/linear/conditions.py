"""Conditions: what a WHERE's condition says inside its branches, and boolean terms decided by truth tables.

- Inside `where(c, t, f)`, c is true in t and false in f: `where(s < 8, where(s < 8, p, q)*3, q + 2)`
  is `where(s < 8, p*3, q + 2)`. What c implies is used too: a comparison of the same linear form
  that c decides (`s < 10` is true in t, `s < 5` false in f), the operands of an `&&` in t and of an
  `||` in f, the operand of a `!`; and a division or remainder by a constant whose numerator stays
  within one period where c has its value (`where(1 < i && i < 12, (i - 2) % 16, 0)` is
  `where(..., i - 2, 0)`): the numerator's linear form is bounded as a sum of multiples of the
  narrowed comparisons' forms plus the rest (`narrowed_bounds`), which finds what a box of bounds
  per variable does not (`p0 - 40*p1 - 10*p2` under `2 <= 4*p1 + p2 <= 10`).
- A boolean term (AND, OR, NOT, XOR in every spelling: WHERE, MAX, MUL, ADD, CMPNE and CMPLT on
  bools) over atoms (i32 comparisons, bool inputs) is evaluated on every consistent assignment of
  its atoms: comparisons of one linear form are assigned the values that form takes between their
  thresholds, other atoms both values. A term with one value on all of them is that constant
  (`(x < 7) || !(x < 7)`, `(x < 3) && (5 < x)`); one that agrees with an atom or one of its own
  subterms everywhere is the smallest such (`(x < 3) || (x < 1)` is `x < 3`, `a * a` is `a`).

Both rewrite only terms whose atoms are total (no division by a range holding 0, no INDEX, no
CALL), so that no undefined value is moved or dropped where it mattered.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.compare import difference
from eqsat_uopc.linear.form import LinearForm, atom_bounds, fits_i32, is_index
from eqsat_uopc.semantics.alu import exec_alu

__all__ = ["BOOL_OPS", "assume", "fold_bool", "fold_where", "narrowed_bounds"]

_MAX_ROWS = 512  # assignments a truth table tries at most
_MAX_NODES = 64  # boolean nodes of a term the truth table reads at most
BOOL_OPS = (Ops.WHERE, Ops.CMPNE, Ops.CMPLT, Ops.MAX, Ops.MUL, Ops.ADD)  # the IR's boolean operators
_TRUE, _FALSE = UOp.const(True), UOp.const(False)


_TOTAL_OPS = ALU | {Ops.CONST, Ops.PARAM, Ops.RANGE}


def _total(u: UOp) -> bool:
    """Is u defined for every input (scalar ALU over inputs, divisions by ranges without 0)? Known
    once per node."""
    return u.memo("total", _is_total)


def _is_total(u: UOp) -> bool:
    if u.shape or u.op not in _TOTAL_OPS or not all(_total(s) for s in u.src):
        return False
    if u.op in (Ops.FLOORDIV, Ops.FLOORMOD):
        lo, hi = atom_bounds(u.src[1])
        return not lo <= 0 <= hi
    return True


def _is_bool_op(n: UOp) -> bool:
    return (
        n.dtype is dtypes.bool
        and not n.shape
        and n.op in BOOL_OPS
        and all(s.dtype is dtypes.bool for s in n.src)
    )


# -- facts a condition gives


def _facts(cond: UOp, value: bool, out: dict[UOp, bool]) -> None:
    """The boolean terms whose value follows from cond == value (cond included)."""
    if cond.op is Ops.CONST or cond in out:
        return
    out[cond] = value
    if cond.op is Ops.CMPNE and cond.src[1] is _TRUE and cond.src[0].dtype is dtypes.bool:
        _facts(cond.src[0], not value, out)  # !a
    elif cond.op is Ops.WHERE and cond.dtype is dtypes.bool:
        a, b, c = cond.src
        if value and c is _FALSE:  # a && b true: both are
            _facts(a, True, out)
            _facts(b, True, out)
        elif not value and b is _TRUE:  # a || c false: both are
            _facts(a, False, out)
            _facts(c, False, out)


def _relation(w: LinearForm, d: LinearForm) -> tuple[Fraction, int] | None:
    """(s, e) with w = s*d + e, when w is a multiple of d's terms plus a constant."""
    if not d.terms or len(w.terms) != len(d.terms):
        return None
    coeffs = dict(w.terms)
    a0, c0 = d.terms[0]
    if a0 not in coeffs:
        return None
    s = Fraction(coeffs[a0], c0)
    if any(coeffs.get(a) != s * c for a, c in d.terms):
        return None
    e = w.const - s * d.const
    return (s, int(e)) if e.denominator == 1 else None


def _decide(
    w: UOp, facts: list[tuple[LinearForm, Ops, bool]], residues: list[tuple[LinearForm, int, int]] = ()
) -> bool | None:
    """The value of the i32 comparison w given facts on comparisons (difference, op, value), or,
    failing that, given the residues the facts pin as well (w's difference bounded by
    narrowed_bounds: `0 < p0` where `p0 % 2 != 0`, p0 >= 0)."""
    dw = difference(w)
    if dw is None:
        return None
    decided = _decide_by_facts(w, dw, facts)
    if decided is not None or not residues:
        return decided
    wlo, whi = narrowed_bounds(dw, facts, residues)
    if wlo > whi:
        return None
    if w.op is Ops.CMPLT:
        return True if whi < 0 else False if wlo >= 0 else None
    return True if wlo > 0 or whi < 0 else False if wlo == whi == 0 else None


def _decide_by_facts(w: UOp, dw: LinearForm, facts: list[tuple[LinearForm, Ops, bool]]) -> bool | None:
    """w decided by one fact whose difference d relates to w's: dw = s*d + e, from d's narrowed bounds."""
    for d, op, value in facts:
        rel = _relation(dw, d)
        if rel is None:
            continue
        s, e = rel
        lo, hi = d.bounds()
        if op is Ops.CMPLT:
            lo, hi = (lo, min(hi, -1)) if value else (max(lo, 0), hi)
        elif not value:  # d == 0
            lo, hi = 0, 0
        else:
            continue  # d != 0 bounds nothing
        if lo > hi:
            continue  # the fact contradicts the bounds: this branch never runs
        ends = (s * lo + e, s * hi + e)
        wlo, whi = min(ends), max(ends)
        if w.op is Ops.CMPLT:
            if whi < 0:
                return True
            if wlo >= 0:
                return False
        elif wlo > 0 or whi < 0:
            return True
        elif wlo == whi == 0:
            return False
    return None


def _fact_range(d: LinearForm, op: Ops, value: bool) -> tuple[int, int] | None:
    """The range of d where `d < 0` (CMPLT) or `d != 0` (CMPNE) has this value: d's bounds narrowed,
    None when the fact bounds nothing (d != 0 true)."""
    lo, hi = d.bounds()
    if op is Ops.CMPLT:
        return (lo, min(hi, -1)) if value else (max(lo, 0), hi)
    return (0, 0) if not value else None


def narrowed_bounds(
    lx: LinearForm,
    facts: list[tuple[LinearForm, Ops, bool]],
    residues: list[tuple[LinearForm, int, int]] = (),  # type: ignore[assignment]
) -> tuple[int, int]:
    """Bounds of lx's value where the facts (differences of comparisons, their op and value) hold:
    lx = sum(s_i * T_i) + rest for the facts' forms T_i (without their constants, ranges
    intersected per form, an integer multiple s_i of T_i subtracted wherever lx holds one), each
    T_i in its narrowed range, the rest in its atoms' bounds; intersected with lx's own bounds. An
    identity of forms and an interval sum, so sound whatever atoms the T_i share. A residue (L, c, v)
    (L's value congruent to v modulo c) narrows L's range to its congruent ends (`p0` in [0, 10]
    and odd: [1, 9])."""
    ranges: dict[frozenset, tuple[tuple[tuple[UOp, int], ...], int, int]] = {}
    for d, op, value in facts:
        r = _fact_range(d, op, value)
        if r is None or not d.terms:
            continue
        terms, lo, hi = d.terms, r[0] - d.const, r[1] - d.const
        key = frozenset(terms)
        negated = frozenset((a, -c) for a, c in terms)
        if negated in ranges:  # -T in [lo, hi]: T in [-hi, -lo], one entry for both signs
            key, terms, lo, hi = negated, tuple((a, -c) for a, c in terms), -hi, -lo
        if key in ranges:
            terms, lo0, hi0 = ranges[key]
            lo, hi = max(lo, lo0), min(hi, hi0)
        ranges[key] = (terms, lo, hi)
    for lf, c, v in residues:
        lo, hi = lf.bounds()
        lo, hi = lo + (v - lo) % c - lf.const, hi - (hi - v) % c - lf.const
        key = frozenset(lf.terms)
        if key in ranges:
            _, lo0, hi0 = ranges[key]
            lo, hi = max(lo, lo0), min(hi, hi0)
        ranges[key] = (lf.terms, lo, hi)
    own_lo, own_hi = lx.bounds()
    rest = dict(lx.terms)
    lo = hi = lx.const
    for key, tlo, thi in ranges.values():
        if tlo > thi:
            return own_lo, own_hi  # the facts contradict the bounds: the branch never runs
        # the multiple of T taken out: the candidate (coefficient ratios, rounded both ways) that
        # leaves the narrowest bounds (`p0 + 2*p1` under `p0 + p1 >= 1`: 1*(p0 + p1) + p1)
        best = None
        for s in sorted({0, *(f(rest.get(a, 0), c) for a, c in key for f in (_floor, _ceil))}, key=abs):
            taken = (s * tlo, s * thi) if s >= 0 else (s * thi, s * tlo)
            left = _bounds_of({a: rest.get(a, 0) - s * c for a, c in key})
            width = taken[1] + left[1] - taken[0] - left[0]
            if best is None or width < best[0]:
                best = (width, s, taken)
        _, s, taken = best
        for a, c in key:
            rest[a] = rest.get(a, 0) - s * c
        lo, hi = lo + taken[0], hi + taken[1]
    rest_lo, rest_hi = _bounds_of(rest)
    return max(own_lo, lo + rest_lo), min(own_hi, hi + rest_hi)


def _floor(a: int, c: int) -> int:
    return a // c


def _ceil(a: int, c: int) -> int:
    return -(-a // c)


def _bounds_of(coefficients: dict[UOp, int]) -> tuple[int, int]:
    return LinearForm(tuple((a, c) for a, c in coefficients.items() if c), 0).bounds()


def _one_period(
    n: UOp, facts: list[tuple[LinearForm, Ops, bool]], residues: list[tuple[LinearForm, int, int]]
) -> UOp | None:
    """x // c -> k, x % c -> x - k*c where the facts keep x's value in [k*c, k*c + c - 1] (c > 0;
    for c < 0 the mirrored period): x's linear form must fit int32 (its value is the form's)."""
    x, y = n.src
    if y.op is not Ops.CONST or y.arg == 0 or not is_index(x):
        return None
    lx, c = LinearForm.of(x), y.arg
    if lx is None or lx.is_constant or not lx.fits():
        return None
    lo, hi = narrowed_bounds(lx, facts, residues)
    if lo > hi or lo // c != hi // c or not fits_i32(lo // c, lo // c):
        return None
    k = lo // c
    if n.op is Ops.FLOORDIV:
        return UOp.const(k)
    return x if k == 0 else lx.plus(-k * c).write()


def _residues(known: dict[UOp, bool]) -> list[tuple[LinearForm, int, int]]:
    """(L, c, v) for each remainder `L % c` (c >= 2 a constant, L's form fitting int32) that the
    known comparisons pin to one value v: `L % c < 1` true or `0 < L % c` false (v = 0),
    `L % c < c - 1` false or `c - 2 < L % c` true (v = c - 1), `L % c != v` false. L's value is then
    congruent to v modulo c."""
    out = []
    for cmp, value in known.items():
        if cmp.op not in (Ops.CMPLT, Ops.CMPNE) or cmp.shape:
            continue
        m, k = cmp.src
        if cmp.op is Ops.CMPLT and k.op is Ops.FLOORMOD and m.op is Ops.CONST:
            # `j < L % c` is `!(L % c < j + 1)`: the remainder on the left, the fact negated
            m, bound, value = k, m.arg + 1, not value
        elif k.op is Ops.CONST:
            bound = k.arg
        else:
            continue
        if m.op is not Ops.FLOORMOD or not is_index(m) or not _total(m):
            continue
        divisor = m.src[1]
        if divisor.op is not Ops.CONST or divisor.arg < 2:
            continue
        c, k = divisor.arg, bound
        lf = LinearForm.of(m.src[0])
        if lf is None or lf.is_constant or not lf.fits():
            continue
        if cmp.op is Ops.CMPLT:
            v = 0 if value and k == 1 else c - 1 if not value and k == c - 1 else None
        else:
            v = k if not value and 0 <= k < c else None
        if v is not None:
            out.append((lf, c, v))
    return out


def _same_residue(n: UOp, residues: list[tuple[LinearForm, int, int]]) -> UOp | None:
    """x // c -> (x - x.const) // c + shift, x % c -> its constant, where a fact pins the remainder
    of a form with x's terms: x = L + (x.const - L.const) with L = c*q + v exactly, so x // c =
    q + floor((u + x.const) / c) and x % c = (u + x.const) mod c for u = v - L.const. The division
    of x's terms alone is then what every such index shares (`(p0 + 1) // 2 -> p0 // 2 + 1` where
    p0 is odd, beside `p0 // 2` where it is even)."""
    x, y = n.src
    if y.op is not Ops.CONST or not is_index(x):
        return None
    lx, c = LinearForm.of(x), y.arg
    if lx is None or lx.is_constant or not lx.fits():
        return None
    terms = dict(lx.terms)
    for lf, cf, v in residues:
        if cf != c or dict(lf.terms) != terms:
            continue
        u = v - lf.const
        if n.op is Ops.FLOORMOD:
            return UOp.const((u + lx.const) % c)
        if lx.const == 0:
            return None
        l0 = lx.without_const().write()
        if l0 is None:
            return None
        shift = (u + lx.const) // c - u // c
        return l0 // c + shift if shift else l0 // c
    return None


def assume(term: UOp, cond: UOp, value: bool) -> UOp:
    """term where cond == value is known: cond and what it implies replaced by their constants, and
    divisions and remainders by constants whose numerator stays in one period there, or whose
    remainder a fact pins, folded."""
    known: dict[UOp, bool] = {}
    _facts(cond, value, known)
    facts = []
    for c, v in known.items():
        d = difference(c)
        if d is not None:
            facts.append((d, c.op, v))
    residues = _residues(known)
    mapping = {c: UOp.const(v) for c, v in known.items()}
    if facts:
        for n in term.toposort():
            if n in mapping:
                continue
            if n.op in (Ops.CMPLT, Ops.CMPNE):
                v = _decide(n, facts, residues)
                if v is not None:
                    mapping[n] = UOp.const(v)
            elif n.op in (Ops.FLOORDIV, Ops.FLOORMOD) and not n.shape and _total(n):
                folded = _one_period(n, facts, residues)
                if folded is None and residues:
                    folded = _same_residue(n, residues)
                if folded is not None:
                    mapping[n] = folded
    return term.substitute(mapping)


def _conjuncts(u: UOp, out: list[UOp]) -> None:
    if u.op is Ops.WHERE and u.dtype is dtypes.bool and u.src[2] is _FALSE:
        _conjuncts(u.src[0], out)
        _conjuncts(u.src[1], out)
    elif u not in out:
        out.append(u)


def _constant_value(u: UOp) -> Any:
    """The value of a scalar term over constants only (`false != true`), else None."""
    values: dict[UOp, Any] = {}
    for n in u.toposort():
        if n.op is Ops.CONST and not n.shape:
            values[n] = n.arg
        elif n.op in ALU and not n.shape and all(s in values for s in n.src):
            values[n] = exec_alu(n.op, n.dtype, [values[s] for s in n.src])
            if values[n] is None:
                return None
        else:
            return None
    return values[u]


def _chain(conjuncts: list[UOp]) -> UOp:
    """c1 && (c2 && (... && cn)), written where(c1, where(c2, ..., false), false)."""
    out = conjuncts[-1]
    for c in reversed(conjuncts[:-1]):
        out = c.where(out, False)
    return out


def _implied_dropped(u: UOp) -> UOp | None:
    """A conjunction (`&&` written where(a, b, false), nested either way) without the conjuncts the
    others imply, or None: each conjunct in turn is assumed away when `assume` decides it true
    given the remaining ones (`0 < p0 && p0 % 2 != 0` is `p0 % 2 != 0` for p0 >= 0: an odd p0 is
    at least 1)."""
    conjuncts: list[UOp] = []
    _conjuncts(u, conjuncts)
    if len(conjuncts) < 2 or len(conjuncts) > 16:
        return None
    kept = list(conjuncts)
    for c in conjuncts:
        others = [k for k in kept if k is not c]
        if others and _constant_value(assume(c, _chain(others), True)) is True:
            kept = others
    return None if len(kept) == len(conjuncts) else _chain(kept)


def fold_where(u: UOp) -> UOp | None:
    """where(c, t, f) with what c says substituted in t (c true) and f (c false), or None."""
    if u.op is not Ops.WHERE or u.shape:
        return None
    c, t, f = u.src
    if c.op is Ops.CONST or not _total(c):
        return None
    if f is _FALSE and t.dtype is dtypes.bool and _total(t):
        fewer = _implied_dropped(u)
        if fewer is not None:
            return fewer
    t2, f2 = assume(t, c, True), assume(f, c, False)
    if t2 is t and f2 is f:
        return None
    return c.where(t2, f2)


# -- truth tables


def _samples(atoms: list[UOp]) -> list[list[tuple[UOp, bool]]] | None:
    """Per independent group of atoms, the assignments it can take (each a list of (atom, value))."""
    groups: dict[tuple, list[tuple[UOp, LinearForm]]] = {}
    free: list[UOp] = []
    for a in atoms:
        key = _group_key(a)
        if key is None:
            free.append(a)
            continue
        groups.setdefault(key, []).append((a, difference(a)))
    out: list[list[list[tuple[UOp, bool]]]] = []
    for key, members in groups.items():
        form = LinearForm(key, 0)
        lo, hi = form.bounds()
        points = {lo, hi}
        rels = []
        for a, d in members:
            s, e = _relation(d, form) or (None, None)
            if s is None:
                return None
            rels.append((a, s, e))
            b = Fraction(-e) / s
            base = math.floor(b)
            points.update(range(base - 1, base + 3))
        rows = []
        for v in sorted(p for p in points if lo <= p <= hi):
            row = []
            for a, s, e in rels:
                dv = s * v + e
                row.append((a, dv < 0 if a.op is Ops.CMPLT else dv != 0))
            rows.append(row)
        out.append(list({tuple(r): r for r in rows}.values()))
    for a in free:
        out.append([[(a, False)], [(a, True)]])
    if math.prod(len(g) for g in out) > _MAX_ROWS:
        return None
    return [[pair for part in combo for pair in part] for combo in itertools.product(*out)]


def _group_key(a: UOp) -> tuple | None:
    """The linear form (up to scale, sign and constant) an i32 comparison atom compares, if any."""
    d = difference(a) if a.op in (Ops.CMPLT, Ops.CMPNE) else None
    if d is None or not d.terms:
        return None
    g = math.gcd(*(c for _, c in d.terms))
    sign = 1 if d.terms[0][1] > 0 else -1
    return tuple((t, c * sign // g) for t, c in d.terms)


def _entangled(inner: list[UOp], atoms: list[UOp]) -> bool:
    """Can the term be a constant or one of its atoms? Not when every atom is read once, no operand is
    a constant and no two atoms compare one linear form: a read-once function of independent atoms
    depends on each of them."""
    reads: dict[UOp, int] = {}
    for n in inner:
        for s in n.src:
            if s.op is Ops.CONST:
                return True  # a constant operand: `a || false` is a, `a && false` is false
            reads[s] = reads.get(s, 0) + 1
    if any(reads.get(a, 0) > 1 for a in atoms):
        return True
    keys = [k for k in map(_group_key, atoms) if k is not None]
    return len(set(keys)) < len(keys)


def fold_bool(u: UOp) -> UOp | None:
    """A constant or an atom equal to the boolean term u on every consistent assignment, or None."""
    if not _is_bool_op(u):
        return None
    inner, atoms = [], []
    for n in u.toposort():
        if n.op is Ops.CONST:
            continue
        (inner if _is_bool_op(n) else atoms).append(n)
    if len(inner) > _MAX_NODES or not atoms or not all(_total(a) for a in atoms):
        return None
    if not _entangled(inner, atoms):
        return None
    rows = _samples(atoms)
    if rows is None:
        return None
    results = []
    for row in rows:
        values = dict(row)
        for n in inner:
            if n not in values:
                values[n] = exec_alu(
                    n.op, dtypes.bool, [s.arg if s.op is Ops.CONST else values[s] for s in n.src]
                )
        results.append((values, values[u]))
    if all(r == results[0][1] for _, r in results):
        return UOp.const(results[0][1])
    same = [n for n in (*atoms, *inner) if n is not u and all(vals[n] == r for vals, r in results)]
    best = min(same, key=lambda n: n.size, default=None)  # an atom or a subterm: `a * a` is a
    return best if best is not None and best.size < u.size else None
