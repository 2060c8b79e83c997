"""The index algebra's result in the root's e-class before saturating (rules.python_rules.ALGEBRA_RULES).

The folds of eqsat_uopc.linear (division, remainder and comparison on linear forms, sums
recombined, conditions assumed in their branches, boolean terms decided by truth tables) rewrite
the program greedily, with the symbolic rules sound under the run's int semantics, to a fixed point;
(from the greedy seed, which the symbolic rules have rewritten once already) the result joins the
program's e-class and is an extraction candidate, so the e-graph's rules start
from it and `optimize` never returns more than it. The folds are exact (each checks that the values
it reasons about fit in int32), so the hook runs under either int semantics.
"""

from __future__ import annotations

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.linear.rules import simplify_algebra_counted
from eqsat_uopc.rules.python_rules import ALGEBRA_RULES
from eqsat_uopc.saturation.hooks.base import Additions, Hook, RunSetup, Seeds

__all__ = ["IndexAlgebra"]

# the greedy rules' names ("divmod-fold") -> the Python rules the rule set declares ("linear/divmod-fold")
_DECLARED = {rule.name.split("/", 1)[1]: rule.name for rule in ALGEBRA_RULES}


class IndexAlgebra(Hook):
    name = "index-algebra"

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        return (
            setup.config.seed_greedy
            and any(rule.name in setup.rules for rule in ALGEBRA_RULES)
            and all(u.dtype is not dtypes.f32 for u in setup.nodes)
        )

    def start(self, seeds: Seeds) -> Additions:
        if seeds.root_constant():
            return Additions()  # decided already: nothing is smaller than a constant
        start = seeds.root_terms.get("greedy", seeds.program)  # rewritten once by the symbolic rules
        result, fired = simplify_algebra_counted(start, self.setup.config.int_semantics)
        if result is None or result in seeds.roots:
            return Additions()
        matches = {_DECLARED[name]: n for name, n in fired.items()}
        return Additions(root_terms={"algebra": result}, matches=matches)
