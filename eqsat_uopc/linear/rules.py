"""The algebra as greedy rules: each fold of the linear forms and conditions, named and declared.

Each fold is declared once, as a Python rule of the saturation rule set (`linear/divmod-fold`, ...
of the linear and boolean families: eqsat_uopc.rules.python_rules.ALGEBRA_RULES); its greedy rule
here takes that declaration's name within its family (`divmod-fold`), and `DECLARED` maps it back.

`ALGEBRA` is a PatternMatcher of the folds (divmod.py, compare.py, sums.py, conditions.py), every
one sound under wraparound (each checks that the values it reasons about are exact). Composed with
the symbolic rules sound under the run's int semantics, it rewrites a program greedily, bottom-up,
to a fixed point (`simplify_algebra`): the index simplifier tinygrad and Halide have, built on
linear forms. The saturation runner puts its result in the root's e-class (a hook), and the
e-graph's rules go on from both.
"""

from __future__ import annotations

import functools
from typing import Any

from eqsat_uopc.greedy.matcher import PatternMatcher, Rule
from eqsat_uopc.greedy.rewrite import graph_rewrite
from eqsat_uopc.greedy.symbolic import sound_symbolic
from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.compare import fold_compare, fold_conjunction, fold_max
from eqsat_uopc.linear.conditions import BOOL_OPS, fold_bool, fold_where
from eqsat_uopc.linear.divmod import fold_divmod
from eqsat_uopc.linear.sums import fold_sum
from eqsat_uopc.rules import python_rules

__all__ = ["ALGEBRA", "ALGEBRA_NO_OVERFLOW", "DECLARED", "simplify_algebra", "simplify_algebra_steps"]

# each greedy rule's name (the declaration's name within its family) -> its declaration
DECLARED = {r.local_name: r for r in python_rules.ALGEBRA_RULES}


def _algebra(exact: bool) -> PatternMatcher:
    """The folds as rules; `exact` (under no_overflow) takes every term's value as its linear form's."""
    return PatternMatcher(
        [
            Rule(
                UPat((Ops.FLOORDIV, Ops.FLOORMOD), dtype=dtypes.i32, name="u"),
                lambda u: fold_divmod(u, exact),
                python_rules.DIVMOD_FOLD.local_name,
            ),
            Rule(
                UPat((Ops.CMPLT, Ops.CMPNE), name="u"),
                lambda u: fold_compare(u, exact),
                python_rules.COMPARE_FOLD.local_name,
            ),
            Rule(UPat(Ops.MAX, name="u"), fold_max, python_rules.MAX_BOUNDS.local_name),
            Rule(
                UPat(Ops.ADD, dtype=dtypes.i32, name="u"),
                lambda u: fold_sum(u, exact),
                python_rules.SUM_FOLD.local_name,
            ),
            Rule(UPat(Ops.WHERE, name="u"), fold_where, python_rules.WHERE_ASSUME.local_name),
            Rule(
                UPat(Ops.WHERE, dtype=dtypes.bool, name="u"),
                lambda u: fold_conjunction(u, exact),
                python_rules.COMPARE_FOLD.local_name,
            ),
            Rule(UPat(BOOL_OPS, dtype=dtypes.bool, name="u"), fold_bool, python_rules.TRUTH_TABLE.local_name),
        ]
    )


ALGEBRA = _algebra(exact=False)  # sound under wraparound: every fold checks that its values fit
ALGEBRA_NO_OVERFLOW = _algebra(exact=True)

# rewrite steps at most, per node of the program: a longer rewrite is abandoned (the algebra adds
# nothing); the folds are canonical or shrink a term, so a fixed point comes in a few steps a node
_STEPS_PER_NODE, _MIN_STEPS = 40, 2_000
_ALGEBRA_NAMES = frozenset(r.name for r in ALGEBRA.rules)


_MAX_STEPS_KEPT = 64  # the algebra's rewrites kept as equalities per run, at most


@functools.lru_cache(maxsize=16)  # a cache of immutable matchers: 2 semantics x the `only` sets in use
def _matcher(int_semantics: str, only: frozenset[str] | None) -> PatternMatcher:
    """The symbolic rules sound under int_semantics and the algebra's folds (those in `only`)."""
    algebra = ALGEBRA_NO_OVERFLOW if int_semantics == "no_overflow" else ALGEBRA
    folds = [r for r in algebra.rules if only is None or r.name in only]
    return PatternMatcher(list(sound_symbolic(int_semantics).rules) + folds)


class _Recording:
    """One call's rewriter: the shared matcher's rewrites, recording the first _MAX_STEPS_KEPT an
    algebra rule made. Made per call, so a call inside another (a fold that simplifies) keeps its
    own record."""

    __slots__ = ("last_fired", "pm", "steps")

    def __init__(self, pm: PatternMatcher) -> None:
        self.pm = pm
        self.steps: list[tuple[str, UOp, UOp]] = []
        self.last_fired: Rule | None = None

    def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
        out = self.pm.rewrite(u, ctx)
        self.last_fired = None
        if out is not None:
            self.last_fired = rule = self.pm.last_fired
            if rule.name in _ALGEBRA_NAMES and len(self.steps) < _MAX_STEPS_KEPT:
                self.steps.append((rule.name, u, out))
        return out


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
    pm = _Recording(_matcher(int_semantics, only))
    try:
        result = graph_rewrite(u, pm, max_steps=max(_MIN_STEPS, _STEPS_PER_NODE * u.size))
    except RuntimeError:
        return None, []
    return result, pm.steps
