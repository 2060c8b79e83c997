"""The algebra as greedy rules: each fold of the linear forms and conditions, named and declared.

(The saturation rule set declares them as the Python rules `linear/divmod-fold`, ... of the linear
and boolean families: eqsat_uopc.rules.python_rules.ALGEBRA_RULES.)

`ALGEBRA` is a PatternMatcher of the folds (divmod.py, compare.py, sums.py, conditions.py), every
one sound under wraparound (each checks that the values it reasons about are exact). Composed with
the symbolic rules sound under the run's int semantics, it rewrites a program greedily, bottom-up,
to a fixed point (`simplify_algebra`): the index simplifier tinygrad and Halide have, built on
linear forms. The saturation runner puts its result in the root's e-class (a hook), and the
e-graph's rules go on from both.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.greedy.matcher import PatternMatcher, Rule
from eqsat_uopc.greedy.rewrite import graph_rewrite
from eqsat_uopc.greedy.symbolic import sound_symbolic
from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.compare import fold_compare, fold_max
from eqsat_uopc.linear.conditions import BOOL_OPS, fold_bool, fold_where
from eqsat_uopc.linear.divmod import fold_divmod
from eqsat_uopc.linear.sums import fold_sum

__all__ = ["ALGEBRA", "ALGEBRA_NO_OVERFLOW", "simplify_algebra", "simplify_algebra_steps"]


def _algebra(exact: bool) -> PatternMatcher:
    """The folds as rules; `exact` (under no_overflow) takes every term's value as its linear form's."""
    return PatternMatcher(
        [
            Rule(
                UPat((Ops.FLOORDIV, Ops.FLOORMOD), dtype=dtypes.i32, name="u"),
                lambda u: fold_divmod(u, exact),
                "divmod-fold",
            ),
            Rule(UPat((Ops.CMPLT, Ops.CMPNE), name="u"), lambda u: fold_compare(u, exact), "compare-fold"),
            Rule(UPat(Ops.MAX, name="u"), fold_max, "max-bounds"),
            Rule(UPat(Ops.ADD, dtype=dtypes.i32, name="u"), lambda u: fold_sum(u, exact), "sum-fold"),
            Rule(UPat(Ops.WHERE, name="u"), fold_where, "where-assume"),
            Rule(UPat(BOOL_OPS, dtype=dtypes.bool, name="u"), fold_bool, "truth-table"),
        ]
    )


ALGEBRA = _algebra(exact=False)  # sound under wraparound: every fold checks that its values fit
ALGEBRA_NO_OVERFLOW = _algebra(exact=True)

# rewrite steps at most, per node of the program: a longer rewrite is abandoned (the algebra adds
# nothing); the folds are canonical or shrink a term, so a fixed point comes in a few steps a node
_STEPS_PER_NODE, _MIN_STEPS = 40, 2_000
_ALGEBRA_NAMES = frozenset(r.name for r in ALGEBRA.rules)


_MAX_STEPS_KEPT = 64  # the algebra's rewrites kept as equalities per run, at most


class _Recording(PatternMatcher):
    """The symbolic rules and the algebra, recording each rewrite an algebra rule makes."""

    def __init__(self, int_semantics: str, only: frozenset[str] | None) -> None:
        algebra = ALGEBRA_NO_OVERFLOW if int_semantics == "no_overflow" else ALGEBRA
        folds = [r for r in algebra.rules if only is None or r.name in only]
        super().__init__(list(sound_symbolic(int_semantics).rules) + folds)
        self.steps: list[tuple[str, UOp, UOp]] = []

    def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
        out = super().rewrite(u, ctx)
        if out is not None and (name := self.last_fired.name) in _ALGEBRA_NAMES:
            self.steps.append((name, u, out))
        return out


_matchers: dict[tuple[str, frozenset[str] | None], _Recording] = {}


def simplify_algebra(u: UOp, int_semantics: str, only: frozenset[str] | None = None) -> UOp | None:
    """u rewritten by the symbolic rules sound under int_semantics and the algebra (only the folds
    named in `only`, if given), to a fixed point; None if that takes too many steps."""
    return simplify_algebra_steps(u, int_semantics, only)[0]


def simplify_algebra_steps(
    u: UOp, int_semantics: str, only: frozenset[str] | None = None
) -> tuple[UOp | None, list[tuple[str, UOp, UOp]]]:
    """simplify_algebra, and the rewrites its algebra rules made on the way, in order ((rule name,
    term, its rewrite): `("divmod-fold", (a*6)//9, (a*2)//3)`; the first _MAX_STEPS_KEPT)."""
    unknown = (only or frozenset()) - _ALGEBRA_NAMES
    if unknown:
        raise ValueError(
            f"simplify_algebra: no algebra rule named {sorted(unknown)}; the rules are "
            f"{sorted(_ALGEBRA_NAMES)}"
        )
    key = (int_semantics, only)
    pm = _matchers.get(key)
    if pm is None:
        pm = _matchers[key] = _Recording(int_semantics, only)
    pm.steps = []
    try:
        result = graph_rewrite(u, pm, max_steps=max(_MIN_STEPS, _STEPS_PER_NODE * u.size))
    except RuntimeError:
        return None, []
    return result, pm.steps[:_MAX_STEPS_KEPT]
