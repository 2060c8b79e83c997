"""egglog's own extractors, behind the registry's interface.

The saturation layer stores its egglog handle in `egraph.meta["egglog"]`; the handle's
`extract(mode, roots)` (mode "tree" or "dag", roots the e-graph's root ids) returns either a
choice (a mapping ClassId -> ENode of this e-graph) or one UOp program per root. A program is
mapped back to e-classes through the hash-cons index, so that the result is checked like any
other. egglog extracts with its own costs (its :cost annotations), not with the caller's cost
model, so these extractors make no optimality claim (optimal_for None).
"""

from __future__ import annotations

from collections.abc import Mapping

from eqsat_uopc.extract.egraph import ClassId, ENode
from eqsat_uopc.extract.errors import ExtractionError
from eqsat_uopc.extract.problem import ExtractionProblem, Solution

from eqsat_uopc.ir.uop import UOp

__all__ = ["EgglogExtractor"]


class EgglogExtractor:
    optimal_for = None

    def __init__(self, name: str, mode: str) -> None:
        self.name = name
        self.mode = mode

    def extract(
        self, problem: ExtractionProblem, time_limit: float | None = None, branch_limit: int | None = None
    ) -> Solution:
        egraph = problem.egraph
        handle = egraph.meta.get("egglog") if isinstance(egraph.meta, Mapping) else None
        if handle is None or not callable(getattr(handle, "extract", None)):
            raise ExtractionError(
                f"extractor {self.name!r} needs the egglog e-graph this e-graph was serialized from "
                f"(egraph.meta['egglog'] with an extract(mode, roots) method); this e-graph has none: "
                f"use an e-graph from saturate(), or extractor 'bottom_up', 'greedy_dag' or 'exact'"
            )
        out = handle.extract(self.mode, egraph.roots)
        if isinstance(out, Mapping):
            return Solution(self._from_choice(problem, out))
        programs = tuple(out) if isinstance(out, list | tuple) else ()
        if len(programs) != len(egraph.roots) or not all(isinstance(p, UOp) for p in programs):
            raise ExtractionError(
                f"extractor {self.name!r}: egglog returned {out!r}; expected a choice or one UOp per root "
                f"({len(egraph.roots)})"
            )
        return Solution(self._from_programs(problem, programs))

    def _from_choice(self, problem: ExtractionProblem, choice: Mapping[ClassId, ENode]) -> dict[int, int]:
        out: dict[int, int] = {}
        for cid, node in choice.items():
            k = problem.class_index.get(cid)
            if k is None:
                raise ExtractionError(
                    f"extractor {self.name!r}: egglog chose for {cid!r}, which is not an e-class"
                )
            match = [n for n in problem.class_nodes[k] if problem.enodes[n] == node]
            if not match:
                raise ExtractionError(
                    f"extractor {self.name!r}: egglog chose {node!r} for e-class {cid!r}, "
                    "not one of its e-nodes"
                )
            out[k] = match[0]
        return out

    def _from_programs(self, problem: ExtractionProblem, programs: tuple[UOp, ...]) -> dict[int, int]:
        index = {problem.enodes[n]: n for n in range(problem.num_nodes)}
        klass: dict[UOp, int] = {}
        out: dict[int, int] = {}
        for p in programs:
            for u in p.toposort():
                if u in klass:
                    continue
                node = ENode(u.op, u.arg, tuple(problem.class_ids[klass[s]] for s in u.src))
                n = index.get(node)
                if n is None:
                    raise ExtractionError(
                        f"extractor {self.name!r}: egglog's program has {node!r}, which is in no e-class"
                    )
                k = klass[u] = problem.node_class[n]
                if out.setdefault(k, n) != n:
                    raise ExtractionError(
                        f"extractor {self.name!r}: egglog's programs use two e-nodes of e-class "
                        f"{problem.class_ids[k]!r}: {problem.enodes[out[k]]!r} and {node!r}"
                    )
        for r, p in zip(problem.roots, programs, strict=True):
            if klass[p] != r:
                raise ExtractionError(
                    f"extractor {self.name!r}: egglog's program for root {problem.class_ids[r]!r} "
                    f"is in e-class {problem.class_ids[klass[p]]!r}"
                )
        return out
