"""The broad grammar: random i32 and bool expressions over every scalar i32/bool op of the IR (ADD,
MUL, FLOORDIV, FLOORMOD, MAX, CMPLT, CMPNE, WHERE, CAST between i32 and bool), nested, with
subterms shared in the DAG, and index arithmetic as tinygrad writes it; not aimed at any one rule."""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.uop import UOp

__all__: list[str] = []

_FAMILY = "generic"


@template("generic-int", _FAMILY, "random i32 expressions over every scalar op")
def _int(d: EdgeDraw) -> UOp:
    return d.expr(d.int(2, 4))


@template("generic-bool", _FAMILY, "random bool expressions over comparisons, casts and the boolean ops")
def _bool(d: EdgeDraw) -> UOp:
    return d.bool_expr(d.int(2, 3))


@template("generic-shared", _FAMILY, "random expressions that reuse their subterms (a DAG, not a tree)")
def _shared(d: EdgeDraw) -> UOp:
    pool: list[UOp] = []
    for _ in range(d.int(2, 4)):
        d.expr(2, pool)
    if not pool:
        pool.append(d.expr(1))
    out = d.pick(pool)
    for _ in range(d.int(1, 3)):
        k = d.pick(("add", "mul", "div", "where", "max"))
        other = d.pick(pool)
        if k == "add":
            out = d.add(out, other)
        elif k == "mul":
            out = out * other if d.chance(0.3) else d.scaled(out, d.coef(edge=0.3))
        elif k == "div":
            out = d.divmod(out, d.divisor() if d.chance(0.7) else other)
        elif k == "where":
            out = d.compare(other, UOp.const(d.const())).where(out, other)
        else:
            out = out.maximum(other)
    return out


@template(
    "generic-index", _FAMILY, "index arithmetic: loop variables times strides, divided and taken modulo"
)
def _index(d: EdgeDraw) -> UOp:
    terms = []
    for _ in range(d.int(1, 3)):
        r = d.input(("range", "range", "small", "touch-max", "unbounded", "around-2**16"))
        terms.append(d.scaled(r, d.pick((1, 2, 3, 4, 16, 24, 2**16, 2**15, 46341, d.coef(edge=0.3)))))
    s = d.total(terms)
    s = d.plus_const(s, d.const()) if d.chance(0.5) else s
    for _ in range(d.int(1, 2)):
        c = d.pick((2, 3, 4, 8, 16, 2**16, d.divisor()))
        s = d.divmod(s, c)
        if d.chance(0.5):
            s = d.add(d.scaled(s, d.pick((1, 4, 16, 2**16))), d.some_input())
    return s
