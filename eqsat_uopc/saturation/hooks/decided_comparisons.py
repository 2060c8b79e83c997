"""Comparisons decided on piecewise-linear normal forms, before any rule runs (`linear/piecewise-compare`).

Under `no_overflow` a comparison of sums with MIN and MAX is often decided by normalizing both
sides to maxima of minima of linear forms (eqsat_uopc.saturation.piecewise), which no rewrite rule
finds without an e-graph blow-up. This hook decides the comparisons of the program and of the
greedy seed once and pairs each with its constant. When the greedy seed, its decided comparisons
replaced by their values, folds to a constant under the greedy rules (`(a < b) != true` with
`a < b` decided), that constant joins the root (the *folded seed*): the rules would get there in
their first iteration, and found here the run is decided before any rule runs.
"""

from __future__ import annotations

from eqsat_uopc.greedy.symbolic import simplify_under
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules.python_rules import PIECEWISE_COMPARE
from eqsat_uopc.saturation.hooks.base import Additions, Hook, RunSetup, Seeds
from eqsat_uopc.saturation.piecewise import decided_comparisons

__all__ = ["DecidedComparisons"]

RULE = PIECEWISE_COMPARE.name


class DecidedComparisons(Hook):
    name = "decided-comparisons"

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        return RULE in setup.rules

    def start(self, seeds: Seeds) -> Additions:
        decided = decided_comparisons(seeds.terms())
        if not decided:
            return Additions()
        equalities = tuple((u, UOp.const(value)) for u, value in decided)
        root_terms = {}
        seed = seeds.root_terms.get("greedy")
        if seed is not None and seed.op is not Ops.CONST:
            folded = simplify_under(seed.substitute(dict(equalities)), self.setup.config.int_semantics)
            if folded.op is Ops.CONST:
                root_terms["folded"] = folded
        return Additions(root_terms, equalities, {RULE: len(decided)}, (RULE,) * len(equalities))
