"""decided_comparisons: the decisions of this package, in the order they are tried.

Each integer comparison is tried by the plain normal forms first, then, if it is small (at most
`_SMALL` nodes: the other passes cost a recomputation per comparison or per case), by the rational
forms, a residue split and a range split; the chains of `&&` and `||` come last, in the order of
the nodes, so that a chain decided is a literal decided for the chains above it.
"""

from __future__ import annotations

from collections.abc import Iterable

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.piecewise.chains import decide_chain, is_chain
from eqsat_uopc.saturation.piecewise.compare import decide, is_comparison
from eqsat_uopc.saturation.piecewise.normal import Budget, PiecewiseLinear
from eqsat_uopc.saturation.piecewise.ranges import decide_by_ranges
from eqsat_uopc.saturation.piecewise.residues import decide_by_residues

__all__ = ["decided_comparisons"]

_SPLITS = 64  # residue and range cases tried per program (each recomputes a subterm)
_SMALL = 500  # nodes of a comparison the rational, residue and range passes take at most


def decided_comparisons(nodes: Iterable[UOp]) -> list[tuple[UOp, bool]]:
    """The integer comparisons among nodes whose value the normal forms decide, with that value
    (under no_overflow), in the order of nodes; then the chains among nodes that their comparisons
    decide, in the order of nodes."""
    out = []
    plain, rational = PiecewiseLinear(), PiecewiseLinear(rational_division=True)
    residues = PiecewiseLinear(floor_multiples=False)  # multiples of c kept as such: residues survive
    splits = Budget(_SPLITS)
    chains = []
    for u in nodes:
        if is_comparison(u):
            value = decide(plain, u)
            if value is None and _at_most(u, _SMALL):
                value = decide(rational, u)
                if value is None:
                    value = decide_by_residues(residues, u, splits)
                if value is None:
                    value = decide_by_ranges(plain, u, splits)
            if value is not None:
                out.append((u, value))
        elif is_chain(u):
            chains.append(u)
    decided = dict(out)
    for u in chains:
        value = decide_chain(plain, u, decided)
        if value is not None:
            out.append((u, value))
            decided[u] = value
    return out


def _at_most(u: UOp, n: int) -> bool:
    """Has u at most n distinct nodes? (stops counting past n)"""
    seen, stack = {u}, [u]
    while stack:
        for s in stack.pop().src:
            if s not in seen:
                if len(seen) == n:
                    return False
                seen.add(s)
                stack.append(s)
    return True
