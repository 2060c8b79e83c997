"""The greedy result in the root's e-class before saturating: extraction never does worse than greedy.

The greedy engine's symbolic rules, restricted to those sound under the run's int semantics
(`simplify_under`), rewrite the program once; the result joins the program's e-class and is an
extraction candidate, so `optimize` never returns a program costlier than the greedy one, and the
rules start from both. Only with a rule set holding the chapter's symbolic families (the greedy
rules' counterparts) and for programs without f32 nodes: three of the greedy symbolic rules are
the chapter's accepted f32 caveats (x + 0.0 -> x, MAX operand swap), not exact in IEEE f32.
"""

from __future__ import annotations

from eqsat_uopc.greedy.symbolic import simplify_under
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.rules import SYMBOLIC_FAMILIES
from eqsat_uopc.saturation.hooks.base import Additions, Hook, RunSetup, Seeds

__all__ = ["GreedySeed"]


class GreedySeed(Hook):
    name = "greedy-seed"

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        c = setup.config
        return (
            c.seed_greedy
            and set(SYMBOLIC_FAMILIES) <= set(c.rule_set.family_names)
            and all(u.dtype is not dtypes.f32 for u in setup.nodes)
        )

    def start(self, seeds: Seeds) -> Additions:
        seed = simplify_under(seeds.program, self.setup.config.int_semantics)
        return Additions(root_terms={"greedy": seed})
