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
    MATCH_BUDGET = "match_budget"  # the rules' matches over the run reached match_budget (deterministic)
    TIME_LIMIT = "time_limit"  # wall-clock: only when a time limit was set, and load-dependent
    CONSTANT = "constant"  # the root's e-class holds a constant: nothing is cheaper (stop_at_constant)
    HOOK = "hook"  # a hook stopped the run (hooks.StopRun, or a reason from before_iteration)

    def __str__(self) -> str:
        return self.value


@dataclass
class SaturationReport:
    """One run. enodes[0]/eclasses[0] are the lowered program; enodes[i] the size after iteration i,
    iteration_times[i - 1] the wall time iteration i took (egglog, the hooks, reading sizes back).

    Why it stopped: `stop_reason`, and `stop_detail` in words, which says which limit it was. The
    limits `node_budget`, `iter_limit` and `match_budget` (egglog's rule matches over the
    iterations, `rule_matches`) measure work, so a run they stop stops at the same place on any
    machine; `time_limit` (None unless set) is wall-clock, and a run it stops ("time_limit") may
    stop elsewhere on another run under another load. A
    "node_budget" stop is one of two things: the budget was *reached* (`budget_stop` "reached": an
    iteration passed `node_budget` e-nodes and was undone, `rolled_back`, its size in `overshoot`)
    or it was *not* (`budget_stop` "forecast": nothing changed but for rules held back because their
    forecast matches would not fit in the room the budget had left, scheduler.py; such a run can
    end far below `node_budget`, and `held_back` names those rules with their forecast matches,
    `held_after_ban` those of them the match limit had banned before). Undoing took `replay_time`
    (a pop to a checkpoint, or a replay of the kept iterations on a clean e-graph).
    `decided_without_engine` is True for a run whose root's e-class holds a constant before any
    rule runs (the greedy seed is one, the piecewise-linear step decided the root comparison, or the
    seed folded to a constant with the comparisons it decided; stop_reason "constant" after 0
    iterations): its e-graph, the program and its seeds unioned, was built in Python
    (seed_graph.py), without an egglog engine; `lower_time` is that.

    Where the time went, in seconds; the phases add up to `total_time`:
    - `start_times`: each hook's start phase, by hook name (the greedy seed, the index algebra, ...);
    - `engine_time`: leasing an engine and beginning the program on it (engine.py);
    - `lower_time`: lowering the program and the hooks' additions;
    - `egglog_time`: egglog's rule runs;
    - `fold_time`: the iterating hooks after the iterations (`hook_times`: each hook's seconds after
      each iteration, by hook name) and writing what they added;
    - `raise_time`: reading egglog's e-graph back (sizes, snapshots, and the serialized EGraph read
      when extraction first needs it, which adds to this after the run);
    - `replay_time`: undoing an overshooting iteration;
    - `other_time`: the runner's own work between those (checks, the scheduler, bookkeeping).
    Extraction is timed in Extraction.seconds, validation in Validation.seconds.
    """

    rules: str
    int_semantics: str
    node_budget: int
    iter_limit: int
    match_budget: int
    time_limit: float | None = None
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
    rule_matches: int = 0  # egglog's rule matches over the iterations (an undone one too): the work
    held_back: dict[str, int] = field(default_factory=dict)  # rule name -> forecast matches (see above)
    rules_pruned: int = 0  # rule units left out: their queries can never match (prune_rules, relevance.py)
    decided_without_engine: bool = False  # the root was a constant before any rule: no engine (see above)
    stop_detail: str = ""  # why it stopped, in words: which limit, reached or forecast, which hook
    budget_stop: str | None = None  # for "node_budget": "reached" or "forecast" (see above)
    held_after_ban: tuple[str, ...] = ()  # held-back rules the match limit had banned before
    start_times: dict[str, float] = field(default_factory=dict)  # hook name -> its start phase's seconds
    hook_times: dict[str, list[float]] = field(default_factory=dict)  # hook -> seconds after each iteration
    engine_time: float = 0.0
    other_time: float = 0.0

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
        out["held_after_ban"] = list(self.held_after_ban)
        out["start_times"] = dict(self.start_times)
        out["hook_times"] = {name: list(ts) for name, ts in self.hook_times.items()}
        out["phase_times"] = self.phase_times
        out["total_time"] = self.total_time
        return out

    @property
    def phase_times(self) -> dict[str, float]:
        """Seconds per phase of the run (see the class docstring); they add up to total_time."""
        return {
            "start": sum(self.start_times.values()),
            "engine": self.engine_time,
            "lower": self.lower_time,
            "egglog": self.egglog_time,
            "fold": self.fold_time,
            "read": self.raise_time,
            "replay": self.replay_time,
            "other": self.other_time,
        }

    @property
    def total_time(self) -> float:
        """The run's seconds: its wall time, plus any read-back made after it (extraction's)."""
        return sum(self.phase_times.values())

    def stop_text(self) -> str:
        """The stop reason with its detail: `node_budget (not reached: ...)`, `saturated`."""
        return f"{self.stop_reason} ({self.stop_detail})" if self.stop_detail else str(self.stop_reason)

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
        """One line: why the run stopped, its size, and where its time went (the phases add up)."""
        phases = ", ".join(
            f"{name} {seconds * 1e3:.1f}"
            for name, seconds in self.phase_times.items()
            if seconds or name in _ALWAYS
        )
        hooks = self.hook_seconds()
        by_hook = "; hooks " + ", ".join(f"{h} {t * 1e3:.1f}" for h, t in hooks.items()) if hooks else ""
        return (
            f"{self.stop_text()} after {self.iterations} iterations: {self.enodes[-1]} e-nodes, "
            f"{self.eclasses[-1]} e-classes; {self.total_time * 1e3:.1f} ms ({phases}{by_hook})"
        )

    def hook_seconds(self) -> dict[str, float]:
        """Each hook's seconds in the run, its start phase and after every iteration together."""
        out = dict(self.start_times)
        for name, ts in self.hook_times.items():
            out[name] = out.get(name, 0.0) + sum(ts)
        return out


_ALWAYS = ("egglog", "lower", "read")  # phases the summary shows even at 0 ms
