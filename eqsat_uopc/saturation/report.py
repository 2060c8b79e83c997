"""What a saturation run says about itself: why it stopped and what each iteration cost."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["SaturationReport", "StopReason"]


class StopReason(StrEnum):
    """Why the runner stopped. A str, so `report.stop_reason == "saturated"` reads naturally."""

    SATURATED = "saturated"  # an iteration changed nothing (and no rule was banned by back-off)
    NODE_BUDGET = "node_budget"  # the next iteration would have passed the budget: rolled back
    ITER_LIMIT = "iter_limit"
    TIME_LIMIT = "time_limit"
    CONSTANT = "constant"  # the root's e-class holds a constant: nothing is cheaper (stop_at_constant)

    def __str__(self) -> str:
        return self.value


@dataclass
class SaturationReport:
    """One run. enodes[0]/eclasses[0] are the lowered program; enodes[i] the size after iteration i,
    iteration_times[i - 1] the wall time iteration i took (egglog, folding, reading sizes back).

    Times are seconds: `egglog_time` in egglog's rule runs, `fold_time` in the Python folding step
    (reading the e-graph it needs and writing its terms), `lower_time` lowering the program,
    `raise_time` reading egglog's e-graph back (sizes, snapshots and the serialized EGraph; the
    extraction itself is timed in Extraction.result.seconds).
    `rolled_back` is True when an overshooting iteration ended the run (stop_reason "node_budget"):
    that iteration (whose size is `overshoot`) was undone, so the e-graph is the one after
    `iterations`; undoing (a pop to a checkpoint, or a replay of the kept iterations on a clean
    e-graph) took `replay_time`. A run also stops on "node_budget", not rolled back, when nothing
    changes but for rules held back because their forecast matches would not fit in the budget
    (scheduler.py): such a run can end well below `node_budget` e-nodes, and `held_back` names
    those rules with their forecast matches. `decided_without_engine` is True for a run whose root's
    e-class holds a constant before any rule runs (the greedy seed is one, the piecewise-linear step
    decided the root comparison, or the seed folded to a constant with the comparisons it decided;
    stop_reason "constant" after 0 iterations): its e-graph, the program and its seeds unioned, was
    built in Python (seed_graph.py), without an egglog engine; `lower_time` is that.
    """

    rules: str
    int_semantics: str
    node_budget: int
    iter_limit: int
    time_limit: float
    stop_reason: StopReason = StopReason.SATURATED
    iterations: int = 0
    enodes: list[int] = field(default_factory=list)
    eclasses: list[int] = field(default_factory=list)
    iteration_times: list[float] = field(default_factory=list)  # seconds of each kept iteration
    egglog_time: float = 0.0
    fold_time: float = 0.0
    lower_time: float = 0.0
    raise_time: float = 0.0
    replay_time: float = 0.0
    rolled_back: bool = False
    overshoot: int | None = None
    matches: dict[str, int] = field(default_factory=dict)  # rule name -> matches over the run
    held_back: dict[str, int] = field(default_factory=dict)  # rule name -> forecast matches (see above)
    rules_pruned: int = 0  # rule units left out: their queries can never match (prune_rules, relevance.py)
    decided_without_engine: bool = False  # the root was a constant before any rule: no engine (see above)

    def count_matches(self, counts: dict[str, int]) -> None:
        """Add a step's matches per rule name to the run's."""
        for name, n in counts.items():
            self.matches[name] = self.matches.get(name, 0) + n

    @property
    def final_enodes(self) -> int:
        """E-nodes of the e-graph the run ended with (the one extraction sees)."""
        return self.enodes[-1] if self.enodes else 0

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-able values: what the CLI prints with --json and notebooks tabulate."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["stop_reason"] = self.stop_reason.value
        out["enodes"], out["eclasses"] = list(self.enodes), list(self.eclasses)
        out["iteration_times"] = list(self.iteration_times)
        out["matches"] = dict(self.matches)
        out["total_time"] = self.total_time
        return out

    @property
    def total_time(self) -> float:
        return self.egglog_time + self.fold_time + self.lower_time + self.raise_time + self.replay_time

    def held_back_summary(self) -> str:
        """The rules the run held back for the node budget, fewest forecast matches first (three named),
        or "" when none was: `holding back comm_assoc/mul-assoc (52,488 matches forecast)`."""
        if not self.held_back:
            return ""
        ranked = sorted(self.held_back.items(), key=lambda kv: kv[1])
        shown = ", ".join(f"{name} ({n:,} matches forecast)" for name, n in ranked[:3])
        more = f" and {len(ranked) - 3} more" if len(ranked) > 3 else ""
        return f"holding back {shown}{more}"

    def summary(self) -> str:
        return (
            f"{self.stop_reason} after {self.iterations} iterations: {self.enodes[-1]} e-nodes, "
            f"{self.eclasses[-1]} e-classes; {self.total_time * 1e3:.1f} ms "
            f"(egglog {self.egglog_time * 1e3:.1f}, fold {self.fold_time * 1e3:.1f}, "
            f"lower {self.lower_time * 1e3:.1f}, raise {self.raise_time * 1e3:.1f}"
            + (f", replay {self.replay_time * 1e3:.1f})" if self.replay_time else ")")
        )
