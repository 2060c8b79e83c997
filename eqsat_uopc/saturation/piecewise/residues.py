"""A split on a residue: a division by c of a MIN (or MAX) of forms with fixed residues modulo c.

A division's argument Z whose form is a pure MIN (or a pure MAX) of linear forms that each have a
fixed residue modulo the divisor c takes the value of one of them, so when Z = r (mod c) it is the
MIN (MAX) of the forms of residue r alone, and the division is exact there (division.py). A
comparison that every residue decides alike is decided: in `(X // 4) * 4 != X` with `X =
max(((M + 27) // 8) * 8, M + 23)` and M a MIN of forms 1 and 0 modulo 8 (Caviar L06959), X is a
multiple of 4 in both cases, so the comparison is false. No single normal form says so: Z // c is
inexact as a whole.
"""

from __future__ import annotations

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.compare import decided_alike
from eqsat_uopc.saturation.piecewise.forms import Form, Linear
from eqsat_uopc.saturation.piecewise.normal import Budget, PiecewiseLinear

__all__ = ["decide_by_residues"]


def decide_by_residues(base: PiecewiseLinear, u: UOp, splits: Budget, limit: int = 4) -> bool | None:
    """u's value when, for one of its divisions `Z // c` or `Z % c` (at most `limit` tried), every
    residue of Z modulo c decides u alike. `base` builds with floor multiples kept as such (so that
    residues survive); each split spends its number of cases from `splits`, and none is tried once
    that is spent."""
    tried = 0
    for d in u.toposort():
        if d.op not in (Ops.FLOORDIV, Ops.FLOORMOD) or d.src[1].op is not Ops.CONST or d.src[1].arg <= 0:
            continue
        z, c = d.src[0], d.src[1].arg
        if z.dtype is not dtypes.i32 or z.shape:
            continue
        x = base.form(z)
        pure_min = len(x) == 1
        if not pure_min and any(len(m) != 1 for m in x):
            continue
        forms = [f for m in x for f in m]
        if any(k % c for f in forms for _, k in f[0]):
            continue
        residues = sorted({f[1] % c for f in forms})
        if len(residues) < 2:
            continue
        tried += 1
        if not splits.spend(len(residues)):
            return None
        cases = (
            base.case(forms={z: _of_residue([f for f in forms if f[1] % c == r], pure_min)}) for r in residues
        )
        if (value := decided_alike(cases, u)) is not None:
            return value
        if tried >= limit:
            return None
    return None


def _of_residue(chosen: list[Linear], pure_min: bool) -> Form:
    """The form of a pure MIN (MAX) in the case where its value is one of the forms `chosen`."""
    if pure_min:
        return frozenset([frozenset(chosen)])
    return frozenset(frozenset([f]) for f in chosen)
