"""saturate(): the runner, egg's Runner for egglog: lower a program, run the rules and the hooks under
budgets, hand back a Saturation.

One run, step by step (Runner.run):

1. The hooks' start phases (hooks/: the greedy seed, the decided comparisons, ...) add terms equal
   to the program and pairs of equal terms, on UOps. When they make the root a constant and the
   extractor does not need a live egglog e-graph, the run stops here ("constant") and its e-graph is
   built in Python (seed_graph.py), without an engine.
2. An engine: the one passed in, or one leased from a pool (engine.py), holding the rules that can
   fire on the program (relevance.py) unless a hook rewrites the e-graph after iterations.
3. The program and the hooks' additions are lowered into it (lower.py).
4. The loop. Each iteration is one egglog step of the rules the back-off scheduler lets run
   (scheduler.py: a rule that matches too much is banned for a while, and one whose forecast
   matches would not fit in the budget is held back), then each iterating hook in order on a
   snapshot of the e-graph, then the budget check on the e-graph's size. The run stops:
   - "saturated": an iteration changed nothing and no rule is banned;
   - "node_budget": the iteration passed `node_budget` e-nodes and was undone (an egglog pop to a
     checkpoint taken before a risky iteration, or the kept iterations replayed on a clean e-graph:
     egglog is deterministic; both give the kept e-graph exactly), so the e-graph extraction sees
     never has more than `node_budget` e-nodes; or nothing changed but for rules held back;
   - "iter_limit", "match_budget" (egglog's rule matches over the run, a deterministic measure of
     the work), and "time_limit" only when one is set (wall-clock, so load-dependent: a safety net),
     all checked between iterations (egglog cannot be interrupted);
   - "constant": the root's e-class holds a scalar constant (checked before the first iteration
     too), when `stop_at_constant`;
   - "hook": a hook asked to stop (hooks/base.py: `before_iteration` or `StopRun`).
   The report's `stop_detail` says which limit it was in words; for "node_budget", whether the
   budget was reached (an iteration undone) or not (rules held back by their forecast).
egglog runs on one thread; with the e-graph read back in egglog's Value order, results are
deterministic.

A Runner runs once, by design: its report, its hooks' instances and the engine it leases belong
to that run (the Saturation it returns holds the lease), so a second `run()` raises
SaturationError; a new Runner (or `saturate`) runs again. Every phase's time is in the report, and
the phases add up to its `total_time` (report.py).

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.saturation import saturate
    >>> i = UOp.range(16, "i")
    >>> s = saturate((i * 4 + 8) // 4)  # the interval analysis proves that i * 4 + 8 cannot wrap
    >>> s.report.stop_reason.value, s.extract().program is i + 2
    ('saturated', True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from egglog import bindings

from eqsat_uopc.bulk import gc_paused
from eqsat_uopc.extract import EXTRACTORS, EgglogExtractor
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.config import SaturationConfig, resolve_config
from eqsat_uopc.saturation.engine import Engine, EnginePool, default_pool, engine_key, relevant
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.hooks import HOOKS, Hook, RunSetup, Seeds, StopRun
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.relevance import uop_constructors
from eqsat_uopc.saturation.report import SaturationReport, StopReason
from eqsat_uopc.saturation.result import Lease, LiveEGraph, Saturation
from eqsat_uopc.saturation.scheduler import BackoffScheduler
from eqsat_uopc.saturation.seed_graph import seed_graph
from eqsat_uopc.saturation.serialize import Snapshot
from eqsat_uopc.saturation.terms import CONST_CTORS, OP_OF

__all__ = ["Runner", "saturate"]

_OP_TABLES = (*CONST_CTORS, *OP_OF)  # the egglog tables whose rows are UOp e-nodes
# A checkpoint costs about 6 ms (an egglog push, ~3 ms, and the copy-on-write it makes the next
# iteration pay); a run whose kept iterations took less than this replays more cheaply than it
# would checkpoint (chosen on 100 generated index and 300 Caviar runs: 44 of 46 overshoots caught)
_CHECKPOINT_AFTER_SECONDS = 0.04


def saturate(
    program: UOp,
    config: SaturationConfig | None = None,
    /,
    *,
    engine: Engine | EnginePool | None = None,
    hooks: Sequence[type[Hook]] | None = None,
    **settings: Any,
) -> Saturation:
    """Equality saturation of program under `config` (default: SaturationConfig()), with any setting
    overridden by keyword (`saturate(p, node_budget=2_000, int_semantics="no_overflow")`).

    int_semantics "wrap" runs the rules sound under int32 wraparound and the no_overflow rules whose
    precondition the interval analysis proves; "no_overflow" runs every rule. `engine` is an Engine
    for the config's rule set and int semantics to run on, or a pool to lease one from (default: the
    process's pool); `hooks` replaces the registered hooks (hooks.HOOKS). Bad settings raise
    SaturationError before any work.
    """
    if not isinstance(program, UOp):
        raise SaturationError(f"saturate needs a UOp program, got {type(program).__name__}")
    config = resolve_config("saturate", config, settings)
    size = program.size
    if config.node_budget < size:
        raise SaturationError(
            f"node_budget {config.node_budget} is below the program's own size ({size} nodes)"
        )
    return Runner(program, config, engine, HOOKS if hooks is None else tuple(hooks)).run()


class Runner:
    """One run of one program: its settings, engine source and hooks (nothing happens until run())."""

    def __init__(
        self,
        program: UOp,
        config: SaturationConfig,
        engine: Engine | EnginePool | None = None,
        hooks: tuple[type[Hook], ...] = HOOKS,
    ) -> None:
        if engine is not None and not isinstance(engine, Engine | EnginePool):
            raise SaturationError(f"engine must be an Engine or an EnginePool, got {type(engine).__name__}")
        for h in hooks:
            if not (isinstance(h, type) and issubclass(h, Hook)):
                raise SaturationError(f"hooks must be Hook subclasses, got {h!r}")
        self.program, self.config, self.engine_source, self.hook_types = program, config, engine, hooks
        self.ran = False
        rs = config.rule_set
        self.report = SaturationReport(
            rs.name,
            config.int_semantics,
            config.node_budget,
            config.iter_limit,
            config.match_budget_in_effect,
            config.time_limit,
        )

    @gc_paused()  # the greedy seed, lowering and the hooks build objects per node, no cycles
    def run(self) -> Saturation:
        """Run the program's saturation (once: see the module docstring) and return it."""
        if self.ran:
            raise SaturationError(
                "a Runner runs once (its report, hooks and engine lease belong to that run): "
                "make a new Runner, or call saturate(), to run again"
            )
        self.ran = True
        wall = time.perf_counter()
        try:
            return self._run()
        finally:
            rep = self.report
            rep.other_time = max(0.0, time.perf_counter() - wall - sum(rep.phase_times.values()))

    def _run(self) -> Saturation:
        c, rep = self.config, self.report
        rules = frozenset(r.name for r in c.rule_set.rules(c.int_semantics))
        setup = self.setup = RunSetup(self.program, c, tuple(self.program.toposort()), rules)
        self.hooks = [h(setup) for h in self.hook_types if h.applies(setup)]
        self.iterating = [h for h in self.hooks if h.iterates]
        seeds = self.seeds = Seeds(self.program)
        for hook in self.hooks:
            hook.report = rep
        for hook in self.hooks:
            t = time.perf_counter()
            try:
                seeds.add(hook.start(seeds), hook.name)
            except StopRun as stop:
                self._stopped_by(hook, stop.reason)
            finally:
                rep.start_times[hook.name] = rep.start_times.get(hook.name, 0.0) + time.perf_counter() - t
            if rep.stop_reason is StopReason.HOOK:
                rep.count_matches(seeds.matches)
                return self._without_engine(StopReason.HOOK)
        rep.count_matches(seeds.matches)
        if c.stop_at_constant and c.shortcut_decided and self._decided_before_rules():
            return self._without_engine(StopReason.CONSTANT)
        start = time.perf_counter()
        self.engine = self._engine(setup)
        lease = Lease(self.engine.release)
        self.egraph = self.engine.egraph
        rep.rules_pruned = self.engine.pruned
        rep.engine_time = time.perf_counter() - start
        try:
            self._load()
            size = self._size()
            rep.enodes.append(size[0])
            rep.eclasses.append(size[1])
            self._loop(start)
        except BaseException:
            lease.end()
            raise
        live = LiveEGraph(self.egraph, self.lowerer, self.root, self._snapshot, self.trusted_names)
        return Saturation(self.program, c, rep, seeds, live, lease)

    def _stopped_by(self, hook: Hook, reason: str) -> None:
        rep = self.report
        rep.stop_reason, rep.stop_detail = StopReason.HOOK, f"{hook.name}: {reason}"

    # -- before the engine
    def _decided_before_rules(self) -> bool:
        """Do the start phases make the root's e-class hold a scalar constant, and is the extraction
        asked for one that does not need the live egglog e-graph?"""
        extractor = self.config.extractor
        if isinstance(extractor, str):
            extractor = EXTRACTORS.get(extractor)
        if isinstance(extractor, EgglogExtractor) or self.program.shape:
            return False  # egglog's extractors run on the live egglog e-graph
        return self.seeds.root_constant()

    def _without_engine(self, reason: StopReason) -> Saturation:
        """The run of a program decided (or stopped by a hook) before any rule runs: it stops before
        its first iteration, so its e-graph is the program and the hooks' additions, which
        seed_graph.py builds without egglog."""
        t = time.perf_counter()
        s = self.seeds
        g = seed_graph(self.program, tuple(s.root_terms.values()), s.equalities)
        rep = self.report
        rep.enodes.append(g.num_enodes)
        rep.eclasses.append(g.num_eclasses)
        rep.stop_reason, rep.decided_without_engine = reason, reason is StopReason.CONSTANT
        if reason is StopReason.CONSTANT:
            rep.stop_detail = "the root's e-class holds a constant before any rule ran"
        rep.lower_time = time.perf_counter() - t
        lease = Lease(int)
        lease.end()  # closed from the start: there is no egglog e-graph to read back or keep
        return Saturation(self.program, self.config, rep, s, None, lease, egraph=g)

    def _engine(self, setup: RunSetup) -> Engine:
        """An engine with a program begun on it: the one given, or one leased from the pool given (or
        the default pool) holding only the rules that can fire, unless a hook rewrites the e-graph
        after iterations (it may build any constructor)."""
        c, source = self.config, self.engine_source
        if isinstance(source, Engine):
            if source.key[:3] != engine_key(c.rule_set, c.int_semantics):
                raise SaturationError(
                    f"the engine given holds the rules of {'+'.join(source.rule_set.family_names) or 'none'}"
                    f"/{source.int_semantics}, the run needs {c.rule_set.name}/{c.int_semantics}"
                )
            source.begin()
            return source
        keep = None  # every unit of the rule set
        if c.prune_rules and not self.iterating:
            # the program's walk is made once, for every use (one walk of 100,000 nodes: 0.08 s)
            ops = {u.op for u in setup.nodes}
            ops.update(n.op for u in self.seeds.root_terms.values() for n in u.toposort())
            ops.update(n.op for pair in self.seeds.equalities for u in pair for n in u.toposort())
            keep = relevant(c.rule_set, c.int_semantics, uop_constructors(ops))
        return (source or default_pool()).lease(c.rule_set, c.int_semantics, keep)

    # -- the e-graph
    def _load(self) -> None:
        """Lower the program and the hooks' additions into the engine's clean e-graph; attach the
        iterating hooks to it; a fresh scheduler."""
        t = time.perf_counter()
        c = self.config
        self.scheduler = BackoffScheduler.of(self.engine.units, c.match_limit, c.ban_length)
        self.lowerer = lowerer = Lowerer(self.egraph)
        self.root = lowerer.lower(self.program, self.setup.nodes)
        for term in self.seeds.root_terms.values():
            lowerer.union(self.root, lowerer.lower(term))
        for a, b in self.seeds.equalities:
            lowerer.union(lowerer.lower(a), lowerer.lower(b))
        lowerer.flush()
        # the N ids of the program, the greedy seed and the hooks' proved rewrites: their values are
        # the input's or a refinement's, int32 wherever the input is defined (admissible.py)
        self.trusted_names = frozenset(lowerer.ids.values())
        for hook in self.iterating:
            hook.attach(lowerer)
        self._snapshot: Snapshot | None = None
        self._unchanged: Snapshot | None = None  # the hooks' last snapshot, while the e-graph is unchanged
        self.report.lower_time += time.perf_counter() - t

    def _read(self) -> Snapshot:
        t = time.perf_counter()
        with gc_paused():
            snap = self._snapshot = Snapshot(self.egraph)
        self.report.raise_time += time.perf_counter() - t
        return snap

    def _size(self, record: bool = True) -> tuple[int, int]:
        """(e-nodes, e-classes) now: table sizes after the bookkeeping rules, no read-back. With
        record, the matches of the families' rules in the bookkeeping ruleset (rules.MAINTAINED) go
        to the report (the schema's own bookkeeping rules are unnamed)."""
        t = time.perf_counter()
        out = self.egraph.parse_and_run_program("(run bookkeeping 1)")
        if out[0].report.updated:  # (a constant's e-class subsumed its other e-nodes, ...)
            self._unchanged = None
        if record:
            counts = out[0].report.num_matches_per_rule.items()
            self.report.count_matches({name: n for name, n in counts if n and not name.startswith("(")})
        sizes = dict(self.egraph.parse_and_run_program("(print-size)")[0].sizes)
        self.report.raise_time += time.perf_counter() - t
        return sum(sizes.get(c, 0) for c in _OP_TABLES), sizes.get("ty", 0)

    def _root_is_constant(self) -> bool:
        """Does the root's e-class hold a scalar constant (the bookkeeping relation Const)?"""
        if self.program.shape:
            return False
        span = bindings.PanicSpan()
        name = bindings.Lit(span, bindings.Int(self.root))
        _, root = self.egraph.eval_expr(bindings.Call(span, "N", [name]))
        return self.egraph.lookup_function("Const", [root]) is not None

    # -- the loop
    def _loop(self, start: float) -> None:
        rep, stop_at_constant = self.report, self.config.stop_at_constant
        if stop_at_constant and self._root_is_constant():  # the program or a root term is one
            self._stop(StopReason.CONSTANT, "the root's e-class holds a constant")
            return
        while True:
            if rep.iterations >= rep.iter_limit:
                self._stop(StopReason.ITER_LIMIT, f"iter_limit {rep.iter_limit} reached")
                return
            if rep.rule_matches >= rep.match_budget:
                self._stop(
                    StopReason.MATCH_BUDGET,
                    f"match_budget {rep.match_budget:,} reached ({rep.rule_matches:,} rule matches in "
                    f"{rep.iterations} iteration{'s' if rep.iterations != 1 else ''})",
                )
                return
            elapsed = time.perf_counter() - start
            if rep.time_limit is not None and elapsed >= rep.time_limit:
                self._stop(
                    StopReason.TIME_LIMIT,
                    f"time_limit {rep.time_limit:g} s reached ({elapsed:.2f} s; wall-clock: "
                    "another load may stop the run elsewhere)",
                )
                return
            if self._hook_stops():
                return
            before = (rep.enodes[-1], rep.eclasses[-1])
            t_iteration = time.perf_counter()
            self._hold_back(rep.iterations)
            saved = self._checkpoint_if_risky()
            changed = self._iterate(record=True)
            size = self._size()
            if size[0] > rep.node_budget:
                rep.rolled_back, rep.overshoot = True, size[0]
                self._stop(
                    StopReason.NODE_BUDGET,
                    f"budget reached: iteration {rep.iterations + 1} made {size[0]:,} e-nodes, over"
                    f" {rep.node_budget:,}; undone",
                    budget="reached",
                )
                self._undo(saved)
                return
            rep.iterations += 1
            rep.enodes.append(size[0])
            rep.eclasses.append(size[1])
            rep.iteration_times.append(time.perf_counter() - t_iteration)
            if rep.stop_reason is StopReason.HOOK:  # a hook raised StopRun after this iteration
                return
            if size == before and not changed and not self.scheduler.any_banned:
                self._stop(StopReason.SATURATED, "")
                return
            if size == before and not changed and self.scheduler.only_held:  # saturated but for the budget
                rep.held_back = self.scheduler.held_forecasts(size[0])
                rep.held_after_ban = self.scheduler.held_after_ban()
                self._stop(StopReason.NODE_BUDGET, self._forecast_detail(size[0]), budget="forecast")
                return
            if stop_at_constant and self._root_is_constant():
                self._stop(StopReason.CONSTANT, "the root's e-class holds a constant")
                return

    def _stop(self, reason: StopReason, detail: str, budget: str | None = None) -> None:
        rep = self.report
        rep.stop_reason, rep.stop_detail, rep.budget_stop = reason, detail, budget

    def _forecast_detail(self, size: int) -> str:
        """Why a run that ends holding rules back stopped at `size` e-nodes: the budget was not
        reached, the forecast held them back (after the match limit banned them, for those it did)."""
        rep = self.report
        room = rep.node_budget - size
        banned = (
            f"; the match limit ({self.config.match_limit:,} matches) had banned "
            + ", ".join(rep.held_after_ban)
            + " before"
            if rep.held_after_ban
            else ""
        )
        return (
            f"budget not reached, {size:,} of {rep.node_budget:,} e-nodes: held back by the forecast, "
            f"{len(rep.held_back)} rule{'s' if len(rep.held_back) != 1 else ''} whose forecast matches "
            f"exceed the {room:,} e-nodes left{banned}"
        )

    def _hook_stops(self) -> bool:
        """Ask every hook before an iteration whether to stop (before_iteration); True if one did."""
        for hook in self.hooks:
            t = time.perf_counter()
            try:
                reason = hook.before_iteration()
            except StopRun as stop:
                reason = stop.reason
            self._hook_time(hook, time.perf_counter() - t, before=True)
            if reason is not None:
                self._stopped_by(hook, reason)
                return True
        return False

    def _hook_time(self, hook: Hook, seconds: float, before: bool = False) -> None:
        """Add a hook's seconds for the coming (before) or the current iteration to the report."""
        times = self.report.hook_times.setdefault(hook.name, [])
        k = self.report.iterations
        while len(times) <= k:
            times.append(0.0)
        times[k] += seconds
        if before:
            self.report.fold_time += seconds

    def _iterate(self, record: bool) -> bool:
        """One iteration: the scheduler's active rules in one egglog step, then the iterating hooks on
        one snapshot. Returns whether anything changed; with record, adds times and matches to the
        report (and a StopRun from a hook stops the run after this iteration).

        The hooks see the snapshot they saw after the last iteration again when nothing has changed
        the e-graph since (not their unions, the bookkeeping rules (_size) or this step): a run
        whose rules are banned for a while iterates on an unchanged e-graph, and reading it back
        costs as much as an iteration of a wide program (a 25k-node STACK: 0.2 s a read)."""
        rep, sched = self.report, self.scheduler
        changed = False
        unchanged, self._unchanged = self._unchanged, None
        self._snapshot = None
        if sched.units:
            t = time.perf_counter()
            out = self.egraph.parse_and_run_program(f"(run {self.engine.combined(sched.active())} 1)")
            rep.egglog_time += time.perf_counter() - t
            report = out[0].report
            changed = report.updated
            sched.record(report.num_matches_per_rule, rep.enodes[sched.iteration])
            if record:
                rep.count_matches(report.num_matches_per_rule)
                rep.rule_matches += sum(report.num_matches_per_rule.values())
        if self.iterating:
            snap = unchanged if unchanged is not None and not changed else self._read()
            self._snapshot = snap  # the e-graph's snapshot now (LiveEGraph's)
            t = time.perf_counter()
            unions = 0
            for hook in self.iterating:
                t_hook = time.perf_counter()
                try:
                    unions += hook.after_iteration(snap)
                except StopRun as stop:
                    if not record:
                        raise  # a replay runs iterations the run kept: no hook stopped after them
                    self._stopped_by(hook, stop.reason)
                if record:
                    self._hook_time(hook, time.perf_counter() - t_hook)
                    rep.count_matches(hook.matches)
                hook.matches.clear()
                if rep.stop_reason is StopReason.HOOK:
                    break
            if unions:
                self.lowerer.flush()
                changed = True
                self._snapshot = None
            else:
                self._unchanged = snap
            rep.fold_time += time.perf_counter() - t
        return changed

    def _hold_back(self, iteration: int) -> None:
        """Before `iteration` (0-based), hold back the rules whose forecast matches would not fit in the
        room the budget had left then: the run and its replay make the same decisions from the same sizes."""
        size = self.report.enodes[iteration]
        self.scheduler.hold_back(self.report.node_budget - size, size)

    def _checkpoint_if_risky(self) -> tuple[list, int] | None:
        """Save the e-graph before an iteration that may overshoot the node budget, so that undoing it
        is one egglog pop instead of a replay of every kept iteration; returns the scheduler's state
        to restore with it, or None when no checkpoint was taken.

        A checkpoint costs about 6 ms whatever the size, as much as a whole small run, so it is taken
        only when the iteration looks risky (a banned rule comes back, as associativity let back in
        is how most runs overshoot, or the e-graph, growing as fast again as it last did for three
        iterations, would pass the budget) and the replay it would save (the time of the kept
        iterations) is worth it (_CHECKPOINT_AFTER_SECONDS). Either way the e-graph after the undo
        is the same, so the choice, though timed, changes no result. Not with iterating hooks,
        whose own state a pop would not restore (replay covers that case).
        """
        rep, sched = self.report, self.scheduler
        if self.iterating or sum(rep.iteration_times) < _CHECKPOINT_AFTER_SECONDS:
            return None
        now = rep.enodes[-1]
        growth = max(now / rep.enodes[-2], 1.0) if len(rep.enodes) > 1 else 1.0
        if not sched.any_returning and now * growth**3 < rep.node_budget:
            return None
        self.engine.checkpoint()
        return sched.state()

    def _undo(self, saved: tuple[list, int] | None) -> None:
        """Undo the iteration that overshot: a pop to its checkpoint (`saved`: the scheduler's state
        then), or without one a replay of the kept iterations."""
        if saved is None:
            self._replay(self.report.iterations)
            return
        t = time.perf_counter()
        self.engine.rollback()
        self.scheduler.restore(saved)
        self.report.replay_time = time.perf_counter() - t

    def _replay(self, iterations: int) -> None:
        """Back to the clean e-graph, then the same first `iterations` iterations again. egglog is
        deterministic on one thread, so this rebuilds the e-graph exactly, without the full copy a
        per-iteration egglog (push) would make."""
        rep = self.report
        times = (rep.egglog_time, rep.fold_time, rep.lower_time, rep.raise_time)
        t = time.perf_counter()
        self.engine.restart()
        self._load()
        self._size(record=False)
        for i in range(iterations):  # the run's steps that change the e-graph or the schedule, in order
            self._hold_back(i)
            self._iterate(record=False)
            self._size(record=False)
        rep.egglog_time, rep.fold_time, rep.lower_time, rep.raise_time = times
        rep.replay_time = time.perf_counter() - t
