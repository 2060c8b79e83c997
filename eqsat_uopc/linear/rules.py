"""The algebra as greedy rules: each fold of the linear forms and conditions, named and declared.

`ALGEBRA` is a PatternMatcher of the folds (divmod.py, compare.py, sums.py, conditions.py), every
one sound under wraparound (each checks that the values it reasons about are exact). Composed with
the symbolic rules sound under the run's int semantics, it rewrites a program greedily, bottom-up,
to a fixed point (`simplify_algebra`): the index simplifier tinygrad and Halide have, built on
linear forms. The saturation runner puts its result in the root's e-class (a hook), and the
e-graph's rules go on from both.
"""

from __future__ import annotations

from eqsat_uopc.greedy.matcher import PatternMatcher, Rule
from eqsat_uopc.greedy.rewrite import graph_rewrite
from eqsat_uopc.greedy.symbolic import sound_symbolic
from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.compare import fold_compare, fold_max
from eqsat_uopc.linear.conditions import fold_bool, fold_where
from eqsat_uopc.linear.divmod import fold_divmod
from eqsat_uopc.linear.sums import fold_sum

__all__ = ["ALGEBRA", "ALGEBRA_RULES", "simplify_algebra"]

# rule name -> what it folds (the names the report counts and docs/rules.md lists)
ALGEBRA_RULES = {
    "linear/divmod-fold": "x // y and x % y on the linear form of x and the bounds of its terms",
    "linear/compare-fold": "x < y and x != y on the linear form of x - y",
    "linear/max-bounds": "max(x, y) is x when x's bounds lie at or above y's",
    "linear/sum-fold": "like terms combined, quotient and remainder recombined",
    "boolean/where-assume": "where(c, t, f): c and what it implies known in t and f",
    "boolean/truth-table": "a boolean term decided on every consistent assignment of its atoms",
}

ALGEBRA = PatternMatcher(
    [
        Rule(
            UPat((Ops.FLOORDIV, Ops.FLOORMOD), dtype=dtypes.i32, name="u"), fold_divmod, "linear/divmod-fold"
        ),
        Rule(UPat((Ops.CMPLT, Ops.CMPNE), name="u"), fold_compare, "linear/compare-fold"),
        Rule(UPat(Ops.MAX, name="u"), fold_max, "linear/max-bounds"),
        Rule(UPat(Ops.ADD, dtype=dtypes.i32, name="u"), fold_sum, "linear/sum-fold"),
        Rule(UPat(Ops.WHERE, name="u"), fold_where, "boolean/where-assume"),
        Rule(
            UPat((Ops.WHERE, Ops.CMPNE, Ops.CMPLT, Ops.MAX, Ops.MUL, Ops.ADD), dtype=dtypes.bool, name="u"),
            fold_bool,
            "boolean/truth-table",
        ),
    ]
)

# rewrite steps at most, per node of the program: a longer rewrite is abandoned (the algebra adds
# nothing); the folds are canonical or shrink a term, so a fixed point comes in a few steps a node
_STEPS_PER_NODE, _MIN_STEPS = 40, 2_000
_matchers: dict[str, PatternMatcher] = {}


def simplify_algebra(u: UOp, int_semantics: str) -> UOp | None:
    """u rewritten by the symbolic rules sound under int_semantics and the algebra, to a fixed point;
    None if that takes too many steps."""
    pm = _matchers.get(int_semantics)
    if pm is None:
        pm = _matchers[int_semantics] = sound_symbolic(int_semantics) + ALGEBRA
    try:
        return graph_rewrite(u, pm, max_steps=max(_MIN_STEPS, _STEPS_PER_NODE * u.size))
    except RuntimeError:
        return None
