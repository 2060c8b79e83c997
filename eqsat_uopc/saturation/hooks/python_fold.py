"""The Python folding step after every egglog iteration: the rules egglog cannot state exactly.

f32 arithmetic folded with `exec_alu` (egglog's f64 is not IEEE f32), the evaluate rules (movement
ops, REDUCE, ALU through STACK, INDEX of STACK) and CALL inlining, computed with the project's own
reference code on a Snapshot of the e-graph (eqsat_uopc.saturation.fold). An i32/bool scalar
program never needs it: rules make no new types, so such an e-graph saturates in egglog alone and
is never read back between iterations.
"""

from __future__ import annotations

from eqsat_uopc.saturation.fold import FoldStep, needs_python_step
from eqsat_uopc.saturation.hooks.base import Hook, RunSetup
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.serialize import Snapshot

__all__ = ["PythonFold"]

_FOLD_FAMILIES = ("fold", "identities", "evaluate")  # the families whose Python rules FoldStep runs


class PythonFold(Hook):
    name = "python-fold"
    iterates = True

    @classmethod
    def applies(cls, setup: RunSetup) -> bool:
        families = set(setup.config.rule_set.family_names)
        return needs_python_step(list(setup.nodes)) and any(f in families for f in _FOLD_FAMILIES)

    def attach(self, lowerer: Lowerer) -> None:
        super().attach(lowerer)
        config = self.setup.config
        self._step = FoldStep(lowerer, set(config.rule_set.family_names), config.int_semantics)

    def after_iteration(self, snapshot: Snapshot) -> int:
        unions = self._step(snapshot)
        for name, n in self._step.matches.items():
            self.matches[name] = self.matches.get(name, 0) + n
        self._step.matches.clear()
        return unions
