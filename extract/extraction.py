"""extract(): run an extractor on an e-graph under a cost model, check the result, build programs.

Nothing an extractor returns is trusted: the choice is checked (check.py), restricted to the
e-classes the roots need, built into hash-consed UOps (which type-checks every node), and its cost
is recomputed from the built programs with `cost_of`, independently of the extractor. An extractor
that claims a cost or a lower bound above the recomputed cost is reported as an error.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.extract.check import build_programs, check_choice
from eqsat_uopc.extract.cost import cost_model, cost_of, costs_of
from eqsat_uopc.extract.egraph import ClassId, EGraph, ENode
from eqsat_uopc.extract.errors import ExtractionError
from eqsat_uopc.extract.problem import ExtractionProblem
from eqsat_uopc.extract.registry import AUTO_BRANCH_LIMIT, choose_extractor, extractor_named

from eqsat_uopc.bulk import gc_paused
from eqsat_uopc.ir.uop import UOp

__all__ = ["Extraction", "check_result", "extract"]


@dataclass(frozen=True)
class Extraction:
    """A checked extraction: the one result type of `extract`, `Saturation.extract` and `optimize`.

    choice: e-class id -> chosen e-node, only the e-classes the roots need.
    programs: one hash-consed UOp per root; program: the first.
    cost: the programs' cost under the cost model, recomputed from the programs.
    optimal: True if the extractor proved it optimal for this cost model among the terms the e-graph
      holds (no claim about equivalent programs the e-graph does not hold: rules that never derived
      `x` from `x // y * y + x % y` leave the 6-node input "optimal"), False if an exact extractor
      stopped before proving it, None if no claim is made.
    bound: a proved lower bound on the optimal cost (or None).
    report: the SaturationReport of the run the e-graph came from, and saturation: that run
      (eqsat_uopc.saturation.Saturation), when the e-graph came from one (None otherwise).
    validation: `optimize`'s check of the program against its input (eqsat_uopc.verify.Validation:
      typed Any, as report is, because extraction sits below both), None from extract itself.
    explainer: what `explain()` calls, set by `optimize` (eqsat_uopc.verify.explanation.explainer):
      a function of this result, which computes nothing until it is called. None from extract.
    """

    choice: Mapping[ClassId, ENode]
    programs: tuple[UOp, ...]
    cost: float
    optimal: bool | None
    extractor: str
    cost_model: str
    seconds: float
    bound: float | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    report: Any = None
    saturation: Any = field(default=None, repr=False, compare=False)
    validation: Any = None
    explainer: Any = field(default=None, repr=False, compare=False)

    @property
    def program(self) -> UOp:
        return self.programs[0]

    def explain(self) -> Any:
        """The checked chain of rewrites from optimize's input to this program
        (eqsat_uopc.verify.explanation.Explanation: print it for one step a line). Only `optimize`'s
        results have one: the search runs now, over the run's e-graph, not during the run."""
        if self.explainer is None:
            raise ExtractionError(
                "explain: only optimize's results can be explained (this Extraction came from extract or "
                "Saturation.extract, which do not know the program the run started from)"
            )
        return self.explainer(self)

    def costs(self) -> dict[str, float]:
        """The extracted programs' cost under every built-in cost model."""
        return costs_of(self.programs)


def _takes_branch_limit(extractor: Any) -> bool:
    """Does the extractor's extract take a branch_limit keyword (registry.py: the exact one does)?"""
    try:
        params = inspect.signature(extractor.extract).parameters
    except (TypeError, ValueError):
        return False
    return "branch_limit" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _tolerance(x: float) -> float:
    return 1e-9 * max(1.0, abs(x))


@gc_paused()
def extract(
    egraph: EGraph,
    cost: str | Any = "dag_size",
    extractor: str | Any = "auto",
    *,
    branch_limit: int | None = AUTO_BRANCH_LIMIT,
    time_limit: float | None = None,
    candidates: Sequence[UOp | tuple[UOp, ...]] = (),
) -> Extraction:
    """The best program the extractor finds in egraph under cost (a name in COST_MODELS or a model).

    extractor: a name in EXTRACTORS, "auto" (see registry.py for the policy) or an extractor object.
    branch_limit: branch-and-bound nodes, for extractors that honour one (exact: its ILP solver's,
    over all its solves); a deterministic bound, so the same e-graph gives the same result on any
    machine. None means no limit.
    time_limit: seconds, for extractors that honour one (exact); None (the default) means no limit.
    Wall-clock: a search it cuts short is cut elsewhere under another load, with another result.
    candidates: programs (one per root, or a UOp for a single root) known to be in the e-graph;
    the result is never costlier than any of them that the e-graph represents as a choice (a
    heuristic extractor may miss them): a cheaper candidate replaces the extractor's result, with
    `info["candidate"]` its index.
    """
    model = cost_model(cost)
    t0 = time.perf_counter()
    problem = ExtractionProblem(egraph, model)
    if isinstance(extractor, str):
        auto = extractor == "auto"
        chosen = choose_extractor(problem.kind, problem.num_nodes) if auto else extractor_named(extractor)
    else:
        chosen = extractor
    name = getattr(chosen, "name", type(chosen).__name__)
    if _takes_branch_limit(chosen):
        solution = chosen.extract(problem, time_limit, branch_limit=branch_limit)
    else:  # an extractor of the older protocol, extract(problem, time_limit)
        solution = chosen.extract(problem, time_limit)
    full = problem.to_ids(solution.choice)
    for r in egraph.roots:
        if r not in full:
            raise ExtractionError(
                f"extractor {name!r} chose no e-node for root {r!r} (does it have an acyclic term?)"
            )
    needed = check_choice(egraph, full)
    choice = {cid: full[cid] for cid in needed}
    programs = build_programs(egraph, choice)
    recomputed = cost_of(programs, model)
    claimed = solution.claimed_cost
    if claimed is not None and abs(claimed - recomputed) > _tolerance(recomputed):
        raise ExtractionError(f"extractor {name!r} claimed cost {claimed} but its programs cost {recomputed}")
    bound = solution.bound
    if bound is not None and bound - recomputed > _tolerance(recomputed):
        raise ExtractionError(
            f"extractor {name!r} claimed lower bound {bound} above its own cost {recomputed}"
        )
    optimal, info = solution.optimal, solution.info
    for k, cand in enumerate(candidates):
        cand = (cand,) if isinstance(cand, UOp) else tuple(cand)
        cost_k = cost_of(cand, model)
        if cost_k < recomputed - _tolerance(recomputed) and (c := egraph.choice_of(cand)) is not None:
            choice, programs, recomputed = c, cand, cost_k
            optimal = True if bound is not None and abs(bound - cost_k) <= _tolerance(cost_k) else None
            info = {**info, "candidate": k}
    seconds = time.perf_counter() - t0
    return Extraction(
        choice,
        programs,
        recomputed,
        optimal,
        name,
        problem.model_name,
        seconds,
        bound,
        info,
    )


def check_result(egraph: EGraph, result: Extraction, cost: str | Any | None = None) -> None:
    """Re-check an Extraction against its e-graph from scratch; raises ExtractionError on a mismatch.

    The choice must pass check_choice and hold exactly the e-classes the roots need, rebuilding it must
    give the very same programs, and their cost under `cost` (default: the result's own cost model,
    looked up by name) must be the reported cost.
    """
    needed = check_choice(egraph, result.choice)
    if set(needed) != set(result.choice):
        extra = sorted(set(result.choice) - set(needed))
        raise ExtractionError(f"choice holds e-classes no root needs: {', '.join(extra)}")
    programs = build_programs(egraph, result.choice)
    if programs != result.programs:
        raise ExtractionError("the choice does not rebuild the reported programs")
    recomputed = cost_of(programs, result.cost_model if cost is None else cost)
    if abs(recomputed - result.cost) > _tolerance(recomputed):
        raise ExtractionError(f"reported cost {result.cost}, but the programs cost {recomputed}")
