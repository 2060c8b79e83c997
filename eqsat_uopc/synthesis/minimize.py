"""Derivability: does saturation with a rule set put a rule's two sides in one e-class?

A rule is checked on a concrete *instance* (rule.instance: constant variables become constants
that satisfy its condition, a bounded variable a RANGE). Both sides are saturated together (the
root is STACK(lhs, rhs), so rules may rewrite either side, as Ruler adds both) within a small
budget; the rule is derivable when they end in one e-class. Used to minimize a synthesized family
against the rules kept so far, and to compare synthesized and hand-written rule sets.
"""

from __future__ import annotations

from collections.abc import Sequence

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules import Family, RuleSet, parse_family
from eqsat_uopc.saturation import saturate

__all__ = ["CHECK_BUDGET", "derives", "with_family"]

# node budget, iterations, seconds of one derivability check (the budget of "derivable")
CHECK_BUDGET = (2_000, 8, 2.0)


def with_family(base: Sequence[str | Family], name: str, egg: str) -> RuleSet:
    """A rule set of the families `base` (names of bundled families or Family values) plus the
    family `name` that the declaration text `egg` defines: a value, nothing is registered."""
    names = [f if isinstance(f, str) else f.name for f in base]
    return RuleSet(f"{'+'.join(names)}+{name}" if base else name, (*base, parse_family(name, egg)))


def derives(
    rules: RuleSet,
    lhs: UOp,
    rhs: UOp,
    int_semantics: str = "wrap",
    budget: tuple[int, int, float] = CHECK_BUDGET,
) -> bool:
    """Do lhs and rhs end in one e-class after saturating STACK(lhs, rhs) with rules?"""
    if lhs is rhs:
        return True
    root = UOp.stack(lhs, rhs)
    node_budget, iter_limit, time_limit = budget
    sat = saturate(
        root,
        rules=rules,
        int_semantics=int_semantics,
        node_budget=max(node_budget, root.size),
        iter_limit=iter_limit,
        time_limit=time_limit,
        seed_greedy=False,  # what the rules derive, not what the greedy engine adds
    )
    return sat.equivalent(lhs, rhs)
