"""Explanations' chains: the rewrites from a run's program to its result, found after the run.

chain (RewriteStep, RewriteChain, replay, reversed_steps, infix: a chain as a value), regroup (a
sum regrouped by associativity and commutativity, one rule a step), history (the run's history
rebuilt by a rerun read back iteration by iteration, and the proof-forest search over it) and
search (ChainSearch: the chain found over a saturated e-graph). The checks of every step are
eqsat_uopc.verify.explanation's.
"""

from eqsat_uopc.saturation.explain.chain import (
    UNEXPLAINED,
    ReplayError,
    RewriteChain,
    RewriteStep,
    apply_step,
    infix,
    replay,
    reversed_steps,
    subterm_at,
)
from eqsat_uopc.saturation.explain.search import ChainSearch

__all__ = [
    "UNEXPLAINED",
    "ChainSearch",
    "ReplayError",
    "RewriteChain",
    "RewriteStep",
    "apply_step",
    "infix",
    "replay",
    "reversed_steps",
    "subterm_at",
]
