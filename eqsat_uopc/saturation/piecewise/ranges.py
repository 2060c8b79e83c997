"""A split on the range of an unbounded input between the constants it takes the MAX or MIN of.

`max(v, 8) + min(v, 4) >= v + 4` holds everywhere, but no one normal form of v says so: the MAX and
the MIN each keep both operands. Between two consecutive constants that the comparison takes the
MAX or MIN of v with (`max(v, c)`, `min(v, c)` as `max(v * -1, -c) * -1` or `where(v < c, v, c)`),
every such MAX and MIN has one known operand, so the forms with v bounded to that range (v <= 4,
4 < v < 8, v >= 8) may decide what the unbounded ones do not. The comparison is decided when every
range decides it alike.
"""

from __future__ import annotations

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.compare import decided_alike
from eqsat_uopc.saturation.piecewise.normal import Budget, PiecewiseLinear

__all__ = ["decide_by_ranges"]

_MAX_CUTS = 4  # constants one input's range is split at (so at most 5 ranges)


def decide_by_ranges(base: PiecewiseLinear, u: UOp, splits: Budget) -> bool | None:
    """u's value when, for one of its unbounded inputs, every range between the constants u takes
    the MAX or MIN of it with decides u alike. Each split spends its number of ranges from
    `splits`; an input with more than `_MAX_CUTS` constants, or more ranges than are left, is
    skipped."""
    for t, bounds in _cuts(u).items():
        cuts = sorted(bounds)
        if len(cuts) > _MAX_CUTS or not splits.spend(len(cuts) + 1):
            continue
        ranges = zip([I32_MIN, *(c + 1 for c in cuts)], [*cuts, I32_MAX], strict=True)
        cases = (base.case(bounds={t: (lo, hi)}) for lo, hi in ranges)
        if (value := decided_alike(cases, u)) is not None:
            return value
    return None


def _cuts(u: UOp) -> dict[UOp, set[int]]:
    """The unbounded i32 inputs that u takes the MAX or MIN of with a constant, and those constants."""
    thresholds: dict[UOp, set[int]] = {}
    for m in u.toposort():
        if m.op is Ops.WHERE and m.src[0].op is Ops.CMPLT and set(m.src[0].src) == set(m.src[1:]):
            pairs = (m.src[1:], m.src[:0:-1])  # where(a < b, a, b) is min(a, b), the other way max
        elif m.op is Ops.MAX:
            pairs = (m.src, m.src[::-1])
        else:
            continue
        for t, c in pairs:
            if c.op is not Ops.CONST:
                continue
            if t.op is Ops.MUL and t.src[1].op is Ops.CONST and t.src[1].arg == -1:
                t, bound = t.src[0], -c.arg
            else:
                bound = c.arg
            if t.op is Ops.PARAM and t.arg.bounds is None and t.dtype is dtypes.i32:
                thresholds.setdefault(t, set()).add(bound)
    return thresholds
