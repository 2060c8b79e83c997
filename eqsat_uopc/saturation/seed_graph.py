"""The e-graph of a run that stops before its first iteration, built in Python instead of egglog.

When the greedy seed of a program is a constant (or the piecewise-linear step decides the root
comparison, or the seed folds to a constant once the comparisons it decides are their values),
`stop_at_constant` ends the run before any rule runs: the e-graph it reads back is the program and
its seeds lowered and unioned at the root, with the decided comparisons unioned with their values.
Building that in egglog costs a warm engine's push and pop (about 10 us a rule: 3-10 ms with the
200-300 `default` rules a Caviar expression needs), for an answer known before any rule runs;
`seed_graph` builds the same e-graph with the extractors' EGraphBuilder (hash-consing, a union-find
and congruence closure). The bookkeeping's subsumption of MUL and WHERE in constant e-classes has
not run at that point in egglog either: it needs the Const facts that the first bookkeeping run
derives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eqsat_uopc.extract.builder import EGraphBuilder
from eqsat_uopc.extract.egraph import EGraph
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.errors import SaturationError

__all__ = ["NoEgglogEGraph", "seed_graph"]


def seed_graph(program: UOp, seeds: tuple[UOp, ...], equalities: Sequence[tuple[UOp, UOp]]) -> EGraph:
    """The e-graph of program and seeds unioned (and each pair of equal terms, such as a decided
    comparison and its value), rooted at the program; its `egglog` handle says that egglog's
    extractors have nothing to run on."""
    g = EGraphBuilder()
    root = g.add_uop(program)
    for seed in seeds:
        g.union(root, g.add_uop(seed))
    for a, b in equalities:
        g.union(g.add_uop(a), g.add_uop(b))
    return g.to_egraph((root,), meta={"egglog": NoEgglogEGraph()})


class NoEgglogEGraph:
    """The `egglog` handle of a seed graph's EGraph: egglog's extractors have no e-graph to run on."""

    def extract(self, mode: str, roots: Any) -> Any:
        raise SaturationError(
            "egglog's extractors need an egglog e-graph, and this program was decided (a constant) before "
            "any rule ran, so its e-graph was built without one: saturate with shortcut_decided=False "
            "to run them"
        )
