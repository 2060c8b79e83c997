"""The warm engine: an egglog e-graph with the schema and one rule set parsed once, reused per program.

Parsing the schema and ~200 rules costs tens of milliseconds, more than saturating a small
program. An `Engine` parses them once per process and per (rule set, int_semantics); each program
then runs inside an egglog `(push)` and leaves with a `(pop)`, which restores the engine exactly:
the tables are empty again and egglog's value ids start over, so a warm run gives the same e-graph,
the same class order and the same extraction as a cold one (the suite checks this on corpus
samples).

`lease(rule_set, int_semantics)` hands out an idle engine for that key (making one if every engine
of the key is leased); `Engine.release()` pops the program's state and returns the engine to the
pool. Combined rulesets the back-off scheduler declares during a program live inside its push and
are forgotten with it. The pool is per process: a sweep's worker keeps its engines warm across the
programs it runs.
"""

from __future__ import annotations

from collections import defaultdict

from egglog import bindings

from eqsat_uopc.rules import FAMILIES, RuleSet, egglog_program
from eqsat_uopc.saturation.terms import SCHEMA

__all__ = ["Engine", "clear_pool", "engine_stats", "lease"]


class Engine:
    """One egglog e-graph holding the schema and the rules of one (rule set, int_semantics)."""

    def __init__(self, rule_set: RuleSet, int_semantics: str):
        self.key = engine_key(rule_set, int_semantics)
        self.egraph = bindings.EGraph(num_threads=1)
        text, self.units = egglog_program(rule_set, int_semantics)
        self.egraph.parse_and_run_program(SCHEMA + text)
        self.leased = False
        # the combination of every unit (what a run starts with, before any ban) is declared here,
        # outside any program, so it survives every pop; others are declared by the program that
        # needs them and forgotten with it
        everything = tuple(u for u, _ in self.units)
        self._base = {everything: "run_all"} if everything else {}
        for rulesets, name in self._base.items():
            self.egraph.parse_and_run_program(f"(unstable-combined-ruleset {name} {' '.join(rulesets)})")
            self.egraph.parse_and_run_program(f"(run {name} 1)")  # warm up egglog's query plans
        self._combined: dict[tuple[str, ...], str] = dict(self._base)
        self._saved: list[dict[tuple[str, ...], str]] = []  # _combined at each open checkpoint
        self._stats = _STATS[self.key]
        self._stats["created"] += 1
        self.programs = 0

    def combined(self, rulesets: tuple[str, ...]) -> str:
        """The name of a ruleset combining rulesets, declared in the current program if it is new."""
        name = self._combined.get(rulesets)
        if name is None:
            name = self._combined[rulesets] = f"run{len(self._combined)}"
            self.egraph.parse_and_run_program(f"(unstable-combined-ruleset {name} {' '.join(rulesets)})")
        return name

    def begin(self) -> bindings.EGraph:
        """Start a program: everything it adds is undone by release()."""
        assert not self.leased, "an engine runs one program at a time"
        self.leased = True
        self.programs += 1
        self._stats["programs"] += 1
        self.egraph.parse_and_run_program("(push)")
        return self.egraph

    def checkpoint(self) -> None:
        """Save the program's e-graph so that rollback() returns to it exactly (an egglog push: a few
        milliseconds whatever the size, where replaying the iterations that built it costs their time)."""
        self.egraph.parse_and_run_program("(push)")
        self._saved.append(dict(self._combined))

    def rollback(self) -> None:
        """Back to the e-graph of the last checkpoint; the rulesets declared since are forgotten with it."""
        self.egraph.parse_and_run_program("(pop)")
        self._combined = self._saved.pop()

    def restart(self) -> None:
        """Back to a clean e-graph within the same lease (pop the program, begin again)."""
        self._pop_program()
        self.egraph.parse_and_run_program("(push)")

    def release(self) -> None:
        """End the program: pop its state (the combined rulesets it declared go with it), back to the pool."""
        if not self.leased:
            return
        self._pop_program()
        self.leased = False
        if self.programs < PROGRAMS_PER_ENGINE:
            _POOL[self.key].append(self)
        # else: retired (garbage); the next lease builds a fresh engine

    def _pop_program(self) -> None:
        """Pop the program's push and every checkpoint still open on top of it, in one egglog pop."""
        self.egraph.parse_and_run_program(f"(pop {1 + len(self._saved)})")
        self._saved.clear()
        self._combined = dict(self._base)


def engine_key(rule_set: RuleSet, int_semantics: str) -> tuple:
    """What an engine's parsed program depends on: the families' texts, not just the set's name (a
    family can be registered again under the same name). Strings cache their hash: cheap to key."""
    return (rule_set.families, int_semantics, tuple(FAMILIES[f].egg for f in rule_set.families))


# egglog's pop does not give everything back: the egglog time of one and the same program, run 800
# times on one engine, grew from 5.5x to 8-10x the (constant) Python lowering time of that program,
# and stayed at 5.2-5.9x when the engine was retired every 100 programs; the process also grew by
# about 16 MB per 100 programs. A new engine costs about 75 ms: under 1 ms per program amortized.
PROGRAMS_PER_ENGINE = 100

_POOL: dict[tuple, list[Engine]] = defaultdict(list)
_STATS: dict[tuple, dict[str, int]] = defaultdict(lambda: {"created": 0, "programs": 0})


def lease(rule_set: RuleSet, int_semantics: str) -> Engine:
    """An engine for (rule_set, int_semantics) with a program begun on it: from the pool, or new."""
    idle = _POOL[engine_key(rule_set, int_semantics)]
    engine = idle.pop() if idle else Engine(rule_set, int_semantics)
    engine.begin()
    return engine


def engine_stats() -> dict[str, dict[str, int]]:
    """Per engine key (families and int semantics): engines created and programs run, this process."""
    return {f"{'+'.join(k[0]) or 'none'}/{k[1]}": dict(v) for k, v in _STATS.items()}


def clear_pool() -> None:
    """Drop every idle engine: the next lease of each key parses its rules again (a cold start)."""
    for idle in _POOL.values():
        idle.clear()
