"""The warm engine: an egglog e-graph with the schema and one rule set parsed once, reused per program.

Parsing the schema and ~200 rules costs tens of milliseconds, more than saturating a small
program. An `Engine` parses them once for a (rule set, int_semantics); each program then runs
inside an egglog `(push)` and leaves with a `(pop)`, which restores the engine exactly: the tables
are empty again and egglog's value ids start over, so a warm run gives the same e-graph, the same
class order and the same extraction as a cold one (the suite checks this on corpus samples).

An engine may hold only the rules that can fire on the programs it runs (relevance.py): the runner
asks `relevant(rule_set, int_semantics, constructors)` for them and leases an engine of that key,
so programs made of the same constructors share warm engines, and a rule that could never match
costs no program its share of egglog's push, pop and iterations.

Engines are handles: `Engine(rule_set, int_semantics)` is one the caller owns and may pass to
`saturate(..., engine=...)` for every program it runs. An `EnginePool` is a convenience over such
handles: `pool.lease(rule_set, int_semantics, keep)` hands out an idle engine of that key (making
one if every engine of the key is leased) and `Engine.release()` pops the program's state and
returns it to its pool. A run that is given no engine leases from `default_pool()`, the process's
pool, so a sweep's worker keeps its engines warm across the programs it runs. A pool retires its
engines together, a generation every `programs_per_generation` programs (EnginePool).

An engine of one's own, for a loop over programs (the same results as leasing from the pool):

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.rules import rule_set
    >>> from eqsat_uopc.saturation import Engine, saturate
    >>> engine = Engine(rule_set("symbolic"), "wrap")  # the schema and rules parsed once, here
    >>> x = UOp.param(0)
    >>> for p in (x + 0, x * 1):
    ...     s = saturate(p, rules="symbolic", engine=engine)
    ...     print(s.extract().program is x)
    ...     s.close()  # pops the program: the engine is free for the next one
    True
    True
    >>> engine.programs
    2
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from egglog import bindings

from eqsat_uopc.rules import RuleSet, egglog_forms
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.relevance import Trigger, relevant_units, unit_triggers
from eqsat_uopc.saturation.terms import SCHEMA

T = TypeVar("T")

__all__ = [
    "PROGRAM_CACHE",
    "RELEVANCE_CACHE",
    "Engine",
    "EnginePool",
    "EngineProgram",
    "KeyedCache",
    "clear_caches",
    "clear_pool",
    "default_pool",
    "engine_key",
    "engine_program",
    "engine_stats",
    "relevant",
]


class Engine:
    """One egglog e-graph holding the schema and the rules of one (rule set, int_semantics), or of
    the units `keep` of them (those that can fire on the programs it runs: relevance.py). Made by a
    pool (`pool` set: release() returns it there) or by a caller who keeps it (pool None)."""

    def __init__(
        self,
        rule_set: RuleSet,
        int_semantics: str,
        keep: frozenset[str] | None = None,
        pool: EnginePool | None = None,
    ):
        self.key = (*engine_key(rule_set, int_semantics), keep)
        self.rule_set, self.int_semantics = rule_set, int_semantics
        self.egraph = bindings.EGraph(num_threads=1)
        program = engine_program(rule_set, int_semantics)
        text, self.units = program.text, program.units
        if keep is not None:  # the same text less the other units' rules and ruleset declarations
            text = "\n".join(f for f, unit in program.forms if unit is None or unit in keep)
            self.units = tuple(u for u in self.units if u[0] in keep)
        self.pruned = len(program.units) - len(self.units)  # units of the rule set this engine leaves out
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
        self.pool = pool
        self.generation = pool.generation if pool is not None else 0
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
        if self.leased:
            raise SaturationError("this engine is running another program: an engine runs one at a time")
        self.leased = True
        self.programs += 1
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
        """Back to a clean e-graph within the same program (pop it, begin again)."""
        self._pop_program()
        self.egraph.parse_and_run_program("(push)")

    def release(self) -> None:
        """End the program: pop its state (the combined rulesets it declared go with it); an engine of a
        pool goes back to it."""
        if not self.leased:
            return
        self._pop_program()
        self.leased = False
        if self.pool is not None:
            self.pool.give_back(self)

    def _pop_program(self) -> None:
        """Pop the program's push and every checkpoint still open on top of it, in one egglog pop."""
        self.egraph.parse_and_run_program(f"(pop {1 + len(self._saved)})")
        self._saved.clear()
        self._combined = dict(self._base)


def engine_key(rule_set: RuleSet, int_semantics: str) -> tuple:
    """What an engine's parsed program depends on: the family values, not just their names (two
    families of one name with different rules are different families). A Family caches its hash:
    cheap to key."""
    return (rule_set.family_names, int_semantics, rule_set.families)


@dataclass(frozen=True)
class EngineProgram:
    """The egglog text of a (rule set, int_semantics), its units, and per top-level form its unit
    (None for a form that is no rule: declarations every engine of the key parses)."""

    text: str
    units: tuple[tuple[str, str], ...]
    forms: tuple[tuple[str, str | None], ...]
    triggers: dict[str, tuple[Trigger, ...]]


class KeyedCache:
    """A bounded cache of values derived from immutable keys, least recently used out first, with a
    name (for its docs and errors) and clear(). The process's two caches of engine work are
    PROGRAM_CACHE and RELEVANCE_CACHE (below); clear_caches() empties both."""

    def __init__(self, name: str, max_entries: int) -> None:
        self.name, self.max_entries = name, max_entries
        self._entries: OrderedDict[tuple, object] = OrderedDict()

    def get(self, key: tuple, make: Callable[[], T]) -> T:
        """The value of key: cached, or made now by make() and cached."""
        entries = self._entries
        if key in entries:
            entries.move_to_end(key)
            return entries[key]  # type: ignore[return-value]
        value = entries[key] = make()
        if len(entries) > self.max_entries:
            entries.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()


# The egglog text, units and triggers of a (rule set, int_semantics), keyed by engine_key(): built
# once (tens of milliseconds), read by every engine of the key and by relevance. A process meets a
# few rule sets; 64 keep every one a sweep uses.
PROGRAM_CACHE = KeyedCache("engine programs", 64)
# The units that can fire on an e-graph of a set of UOp constructors, keyed by (engine_key(),
# constructors): few programs differ in their constructors (a few hundred sets over the corpora).
RELEVANCE_CACHE = KeyedCache("relevant units", 4096)


def clear_caches() -> None:
    """Empty PROGRAM_CACHE and RELEVANCE_CACHE (the next engine of each key builds its program again)."""
    PROGRAM_CACHE.clear()
    RELEVANCE_CACHE.clear()


def engine_program(rule_set: RuleSet, int_semantics: str) -> EngineProgram:
    """What an engine of (rule set, int_semantics) parses, built once per key (PROGRAM_CACHE)."""

    def make() -> EngineProgram:
        forms, units = egglog_forms(rule_set, int_semantics)
        text = "\n".join(f for f, _ in forms)
        return EngineProgram(text, units, forms, unit_triggers(text))

    return PROGRAM_CACHE.get(engine_key(rule_set, int_semantics), make)


def relevant(rule_set: RuleSet, int_semantics: str, present: frozenset[str]) -> frozenset[str]:
    """The units of (rule set, int_semantics) that can fire on an e-graph holding the UOp
    constructors `present` (relevance.py); remembered per constructor set (RELEVANCE_CACHE)."""
    return RELEVANCE_CACHE.get(
        (engine_key(rule_set, int_semantics), present),
        lambda: relevant_units(engine_program(rule_set, int_semantics).triggers, present),
    )


class EnginePool:
    """Idle engines by key, leased to runs and given back at their release.

    Engines retire together, a generation at a time: every `programs_per_generation` programs leased
    from the pool start a new generation, whose first lease drops every idle engine; an engine of an
    older generation still leased retires at its release. egglog's pop does not give everything back
    (its overall run report keeps an entry per rule and iteration: about 200 KB per Caviar program),
    so an engine slows and its process grows as it ages: one program run 800 times on one engine
    went from 5.5x to 8-10x its Python lowering time, and stayed at 5.2-5.9x retired every 100
    programs. Retiring each engine at its own 100th program left glibc's heap interleaved with
    engines of every age; dropping them all at once lets the next generation allocate from a
    consolidated heap: 400 Caviar programs took 26.9 s instead of 29.2-30.6 s on glibc, 19.0 instead
    of 19.4 s on jemalloc. A new engine costs 50-75 ms, once per key and generation.

    At most `max_idle` idle engines are kept over every key (an engine holds 3-4 MB, and with one key
    per relevant rule set a sweep over varied programs would otherwise keep one engine per
    constructor set it met), the least recently released key's oldest first out.
    """

    def __init__(self, programs_per_generation: int = 100, max_idle: int = 32) -> None:
        self.programs_per_generation = programs_per_generation
        self.max_idle = max_idle
        self.generation = 0
        self._leased_in_generation = 0
        self._idle: dict[tuple, list[Engine]] = defaultdict(list)
        self._recent: OrderedDict[tuple, None] = OrderedDict()  # keys with idle engines, LRU first
        self._stats: dict[tuple, dict[str, int]] = defaultdict(lambda: {"created": 0, "programs": 0})

    def lease(self, rule_set: RuleSet, int_semantics: str, keep: frozenset[str] | None = None) -> Engine:
        """An engine for (rule_set, int_semantics), holding only the units `keep` if given, with a
        program begun on it: idle in the pool, or new."""
        if self._leased_in_generation >= self.programs_per_generation:
            self.retire()
        self._leased_in_generation += 1
        key = (*engine_key(rule_set, int_semantics), keep)
        idle = self._idle[key]
        if idle:
            engine = idle.pop()
        else:
            engine = Engine(rule_set, int_semantics, keep, pool=self)
            self._stats[engine.key[:2]]["created"] += 1
        self._stats[engine.key[:2]]["programs"] += 1
        engine.begin()
        return engine

    def retire(self) -> None:
        """Start a new generation now: every idle engine is dropped, and one still leased retires at its
        release."""
        self.generation, self._leased_in_generation = self.generation + 1, 0
        self.clear()

    def give_back(self, engine: Engine) -> None:
        """Take back an engine whose program was released: idle again, unless its generation retired."""
        if engine.generation != self.generation:
            return  # retired with its generation (garbage); the next lease of its key builds a fresh one
        self._idle[engine.key].append(engine)
        self._recent[engine.key] = None
        self._recent.move_to_end(engine.key)
        excess = sum(map(len, self._idle.values())) - self.max_idle
        while excess > 0:
            key = next(iter(self._recent))
            if self._idle[key]:
                self._idle[key].pop(0)
                excess -= 1
            if not self._idle[key]:
                del self._recent[key]

    def idle(self, key: tuple) -> tuple[Engine, ...]:
        """The idle engines the pool holds for an engine key (Engine.key), oldest first."""
        return tuple(self._idle.get(key, ()))

    def clear(self) -> None:
        """Drop every idle engine: the next lease of each key parses its rules again (a cold start)."""
        for idle in self._idle.values():
            idle.clear()
        self._recent.clear()

    def stats(self) -> dict[str, dict[str, int]]:
        """Per rule set and int semantics: engines created and programs run from this pool."""
        out: dict[str, dict[str, int]] = {}
        for k, v in self._stats.items():
            name = f"{'+'.join(k[0]) or 'none'}/{k[1]}"
            row = out.setdefault(name, {"created": 0, "programs": 0})
            row["created"] += v["created"]
            row["programs"] += v["programs"]
        return out


_DEFAULT_POOL = EnginePool()


def default_pool() -> EnginePool:
    """The process's pool: the engines of runs that are given none."""
    return _DEFAULT_POOL


def engine_stats() -> dict[str, dict[str, int]]:
    """The default pool's engines created and programs run, per rule set and int semantics."""
    return _DEFAULT_POOL.stats()


def clear_pool() -> None:
    """Drop every idle engine of the default pool."""
    _DEFAULT_POOL.clear()
