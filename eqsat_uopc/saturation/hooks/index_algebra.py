"""The index algebra in the root's e-class before saturating (rules.python_rules.ALGEBRA_RULES).

The folds of eqsat_uopc.linear (division, remainder and comparison on linear forms, sums
recombined, conditions assumed in their branches, boolean terms decided by truth tables) rewrite
the program greedily, with the symbolic rules sound under the run's int semantics, to a fixed point.
Twice: from the program and from the greedy seed, whose spelling (the symbolic rules rewrote it
once) can hide or show a fold (`(4x % 6) // 3` is `(-2x) // 3` for x in [-2, 0], which `(4x // 3) % 2`
does not show). Each result joins the program's e-class and is an extraction candidate, so the
e-graph's rules start from it and `optimize` never returns more than it; each rewrite an algebra
rule made on the way is an equality too, so that extraction may take an intermediate form (the
constant of `(5 - 4x) // 6` shared with another 6). Under wrap each fold checks that the values it
reasons about fit in int32; under no_overflow it takes them as exact, as that semantics assumes
(ALGEBRA_NO_OVERFLOW), and checks only what it writes.
"""

from __future__ import annotations

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.rules import DECLARED, simplify_algebra_steps
from eqsat_uopc.rules.python_rules import ALGEBRA_RULES
from eqsat_uopc.saturation.hooks.base import Additions, Hook, RunSetup, Seeds

__all__ = ["IndexAlgebra"]

# the greedy rules' names (divmod-fold) -> the names of the Python rules the rule set declares
_DECLARED = {short: rule.name for short, rule in DECLARED.items()}


class IndexAlgebra(Hook):
    name = "index-algebra"

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        return (
            setup.config.seed_greedy
            and any(rule.name in setup.rules for rule in ALGEBRA_RULES)
            and all(u.dtype is not dtypes.f32 for u in setup.nodes)
        )

    @property
    def _rules(self) -> frozenset[str]:
        """The short names of the algebra rules the run's rule set holds (a set without
        linear/compare-fold gets no comparison folds)."""
        return frozenset(short for short, name in _DECLARED.items() if name in self.setup.rules)

    def start(self, seeds: Seeds) -> Additions:
        if seeds.root_constant():
            return Additions()  # decided already: nothing is smaller than a constant
        sem = self.setup.config.int_semantics
        starts = dict.fromkeys((seeds.program, seeds.root_terms.get("greedy", seeds.program)))
        results: dict[str, UOp] = {}
        equalities: dict[tuple[UOp, UOp], str] = {}  # each rewrite -> its rule's declared name
        matches: dict[str, int] = {}
        only = self._rules
        for k, start in enumerate(starts):
            result, steps = simplify_algebra_steps(start, sem, only)
            if result is None:
                continue
            if result not in seeds.roots and result not in results.values():
                results["algebra" if k == 0 else "algebra-greedy"] = result
            for name, before, after in steps:
                equalities.setdefault((before, after), _DECLARED[name])
                matches[_DECLARED[name]] = matches.get(_DECLARED[name], 0) + 1
        return Additions(
            root_terms=results,
            equalities=tuple(equalities),
            matches=matches,
            rules=tuple(equalities.values()),
        )
