"""The runner's hooks: Python steps of a saturation run, in the order the runner calls them.

A new hook is a module here with a `Hook` subclass (see base.py for the interface) and one line in
`HOOKS`. `saturate(..., hooks=...)` runs another list instead (an experiment, a test).
"""

from eqsat_uopc.saturation.hooks.base import Additions, Hook, RunSetup, Seeds, StopRun
from eqsat_uopc.saturation.hooks.decided_comparisons import DecidedComparisons
from eqsat_uopc.saturation.hooks.greedy_seed import GreedySeed
from eqsat_uopc.saturation.hooks.index_algebra import IndexAlgebra
from eqsat_uopc.saturation.hooks.python_fold import PythonFold

__all__ = [
    "HOOKS",
    "Additions",
    "DecidedComparisons",
    "GreedySeed",
    "Hook",
    "IndexAlgebra",
    "PythonFold",
    "RunSetup",
    "Seeds",
    "StopRun",
]

# start phases run in this order (the decided comparisons read the seeds before them), then the iterating
# hooks in this order after every egglog iteration
HOOKS: tuple[type[Hook], ...] = (GreedySeed, IndexAlgebra, DecidedComparisons, PythonFold)
