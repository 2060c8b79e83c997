"""Templates aimed at the index algebra's conditions (eqsat_uopc/linear/conditions.py): what a
WHERE's condition says inside its branches (the same comparison, implied and contradicted ones, the
operands of && and ||), and boolean terms decided by truth tables over comparisons of one linear
form, with thresholds at the int32 edges where `x < c + 1` is not `x <= c`."""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw, wrap
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.uop import UOp

__all__: list[str] = []

_FAMILY = "linear/conditions"


def _related(d: EdgeDraw, s: UOp, c: int) -> UOp:
    """A comparison of s related to `s < c`: the same, an implied, a contradicted or a scaled one."""
    k = d.pick(("same", "implied", "contra", "negated", "scaled", "shifted"))
    if k == "same":
        return s < c
    if k == "implied":
        return d.compare(s, UOp.const(wrap(c + d.int(1, 4))), "lt")
    if k == "contra":
        return d.compare(s, UOp.const(wrap(c + d.int(-1, 3))), "ge")
    if k == "negated":
        return d.not_(s < c)
    if k == "scaled":
        return d.compare(d.scaled(s, d.pick((2, -1, 2**16))), UOp.const(wrap(c * 2)))
    return d.compare(d.plus_const(s, d.const()), UOp.const(wrap(c + d.const())))


@template("where-assume", _FAMILY, "where(c, t, f): c and what it implies are true in t, false in f")
def _where_assume(d: EdgeDraw) -> UOp:
    s = d.linear(d.int(1, 2), const=d.pick((0, d.const())))
    c = d.near(s)
    cond = s < c if d.chance(0.6) else d.compare(s, UOp.const(c))
    if d.chance(0.3):
        cond = d.and_(cond, d.atom()) if d.chance(0.5) else d.or_(cond, d.atom())
    p, q = d.some_input(), d.some_input()
    inner = _related(d, s, c).where(p, q)
    form = d.pick(("scaled", "sum", "nested", "both", "bool"))
    if form == "scaled":
        return cond.where(d.scaled(inner, d.coef(edge=0.3)), d.plus_const(q, d.const()))
    if form == "sum":
        return cond.where(d.add(inner, p), d.add(_related(d, s, c).where(q, p), q))
    if form == "nested":
        return cond.where(d.and_(_related(d, s, c), d.atom()).where(p, q), d.expr(1))
    if form == "both":
        return cond.where(inner, _related(d, s, c).where(q, d.plus_const(p, d.const())))
    return cond.where(_related(d, s, c), d.or_(_related(d, s, c), d.atom()))


@template(
    "where-period",
    _FAMILY,
    "where(mask, x // c or x % c, f): the mask keeps x in one period of c or pins a remainder of its "
    "terms; a conjunct the others imply",
)
def _where_period(d: EdgeDraw) -> UOp:
    s = d.linear(d.int(1, 2), const=d.pick((0, d.const())))
    c = d.pick((2, 3, 16, 540, -4, -7, 2**30, 2**31 - 1))
    lo = d.near(s)
    width = d.pick((1, 2, abs(c) - 1, abs(c), abs(c) + 1, d.const()))
    mask = d.and_(d.not_(s < lo), s < UOp.const(wrap(lo + width)))
    m = d.pick((2, 3, 4))
    pin = d.pick((d.plus_const(s, d.const()) % m < 1, d.not_(d.plus_const(s, d.const()) % m < m - 1)))
    mask = d.pick((mask, pin, d.and_(mask, pin), d.and_(pin, mask)))
    x = (
        d.plus_const(s, d.const())
        if d.chance(0.6)
        else d.add(d.scaled(s, d.pick((1, -1, 2))), d.some_input())
    )
    t = x // c if d.chance(0.5) else x % c
    if d.chance(0.2):
        return mask  # a conjunction whose conjuncts may imply each other
    return mask.where(d.add(t, d.some_input()) if d.chance(0.3) else t, d.some_input())


@template(
    "truth-table", _FAMILY, "boolean terms over comparisons of one linear form, decided on every assignment"
)
def _truth_table(d: EdgeDraw) -> UOp:
    s = d.linear(d.int(1, 2), const=0) if d.chance(0.4) else d.some_input()
    atoms = []
    for _ in range(d.int(2, 4)):
        c = d.near(s)
        atoms.append(d.compare(d.scaled(s, d.pick((1, 1, 1, -1, 2))), UOp.const(c)))
    if d.chance(0.3):
        atoms.append(d.atom())
    if d.chance(0.2):
        atoms.append(d.bool_input())
    form = d.pick(("absorb", "demorgan", "chain", "self", "const"))
    a, b = atoms[0], atoms[1]
    if form == "absorb":
        return d.or_(a, d.and_(a, b)) if d.chance(0.5) else d.and_(a, d.or_(a, b))
    if form == "demorgan":
        return d.not_(d.and_(a, b)) if d.chance(0.5) else d.not_(d.or_(d.not_(a), d.not_(b)))
    if form == "self":
        return d.pick((d.or_(a, d.not_(a)), d.and_(a, d.not_(a)), d.and_(a, a), a.ne(a), d.or_(a, b)))
    if form == "const":
        return d.pick((d.and_(a, UOp.const(True)), d.or_(a, UOp.const(False)), a.ne(UOp.const(False))))
    out = atoms[0]
    for at in atoms[1:]:
        op = d.pick((d.and_, d.or_, lambda x, y: x.ne(y)))
        out = op(out, at if d.chance(0.7) else d.not_(at))
    return out
