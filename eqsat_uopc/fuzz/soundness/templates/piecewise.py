"""Templates aimed at the piecewise-linear comparisons (eqsat_uopc/saturation/piecewise/):
comparisons of sums with MIN and MAX (`a + min(59, 297 - a) < min(a, 238) + 59`), with divisions and
remainders by constants inside, splits on residues and on ranges, and && / || chains that bound one
linear form, each with constants at the int32 edges (the distributions they rest on are identities
of the mathematical integers: under wrap they must not run)."""

from __future__ import annotations

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw
from eqsat_uopc.fuzz.soundness.registry import template
from eqsat_uopc.ir.uop import UOp

__all__: list[str] = []

_FAMILY = "piecewise"


def _pl_term(d: EdgeDraw, a: UOp, depth: int = 1) -> UOp:
    """A piecewise-linear term of a: sums, constants, MIN and MAX, a division by a constant."""
    k = d.pick(("lin", "min", "max", "div", "mod") if depth > 0 else ("lin",))
    if k == "lin":
        return d.plus_const(d.scaled(a, d.pick((1, 1, -1, 2))), d.const())
    other = _pl_term(d, a if d.chance(0.7) else d.some_input(), depth - 1)
    if k == "min":
        return d.minimum(other, UOp.const(d.const()) if d.chance(0.6) else _pl_term(d, a, depth - 1))
    if k == "max":
        return other.maximum(UOp.const(d.const()) if d.chance(0.6) else _pl_term(d, a, depth - 1))
    c = d.pick((2, 3, 4, 8, 2**16, 2**30, d.divisor(negative=0.1)))
    return other // c if k == "div" else other % c


@template("piecewise-compare", _FAMILY, "comparisons of sums with MIN/MAX decided on their normal forms")
def _piecewise(d: EdgeDraw) -> UOp:
    a = d.input()
    lhs = d.add(_pl_term(d, a), _pl_term(d, a, 0)) if d.chance(0.5) else _pl_term(d, a)
    rhs = d.add(_pl_term(d, a), UOp.const(d.const())) if d.chance(0.5) else _pl_term(d, a)
    return d.compare(lhs, rhs)


@template("piecewise-chain", _FAMILY, "&& and || chains bounding one linear form, residue and range splits")
def _chain(d: EdgeDraw) -> UOp:
    x = d.linear(1, const=0) if d.chance(0.6) else d.some_input()
    parts = []
    for _ in range(d.int(2, 3)):
        t = d.pick(
            (x, x // d.pick((2, 4, 2**16)), x % d.pick((2, 3, 2**16)), d.minimum(x, UOp.const(d.const())))
        )
        parts.append(d.compare(t, UOp.const(d.near(x))))
    out = parts[0]
    for p in parts[1:]:
        out = d.and_(out, p) if d.chance(0.5) else d.or_(out, p)
    return out
