"""saturate(): lower a program into egglog, run a rule set under budgets, hand back a Saturation.

One iteration is one egglog step of the rule set under a persistent back-off scheduler
(scheduler.py: a rule that matches too much is banned for a while, with doubling thresholds, as
egg's BackoffScheduler), then the Python folding step (fold.py); after it the runner reads the
e-graph's size. An iteration that leaves more e-nodes than the budget is undone (an egglog pop
to a checkpoint taken before a risky iteration, else the run's egglog commands replayed on a clean
e-graph: egglog is deterministic; both give the kept e-graph exactly) and the run stops with
"node_budget": the e-graph extraction sees never has more than `node_budget` e-nodes. A rule
whose forecast matches (scheduler.py: its matches when it last ran, grown with the e-graph) exceed
the room the budget has left is held back rather than let in to overshoot; a run that then changes
nothing but for those rules also stops with "node_budget" (not rolled back). The run also stops
when an iteration changes nothing and no rule is banned ("saturated"), after `iter_limit`
iterations, when the root's e-class holds a constant (checked before the first iteration too: the
greedy seed often is one), or when `time_limit` seconds have passed (checked between iterations:
egglog cannot be interrupted). egglog runs on one thread; with the e-graph read back in egglog's
Value order, results are deterministic.
"""

from __future__ import annotations

import dataclasses
import functools
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from egglog import bindings

from eqsat_uopc.bulk import gc_paused
from eqsat_uopc.extract import EXTRACTORS, EgglogExtractor, Extraction, build_programs, extract
from eqsat_uopc.greedy.symbolic import simplify_under
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules import SYMBOLIC_FAMILIES, RuleSet
from eqsat_uopc.rules.python_rules import PIECEWISE_COMPARE
from eqsat_uopc.saturation.config import SaturationConfig, resolve_config
from eqsat_uopc.saturation.engine import lease, relevant
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.fold import FoldStep, needs_python_step
from eqsat_uopc.saturation.lower import Lowerer, term_key
from eqsat_uopc.saturation.picture import DEFAULT_MAX_ENODES, check_readable, draw
from eqsat_uopc.saturation.piecewise import decided_comparisons
from eqsat_uopc.saturation.relevance import uop_constructors
from eqsat_uopc.saturation.report import SaturationReport, StopReason
from eqsat_uopc.saturation.scheduler import BackoffScheduler
from eqsat_uopc.saturation.seed_graph import seed_graph
from eqsat_uopc.saturation.serialize import Snapshot
from eqsat_uopc.saturation.terms import CONST_CTORS, OP_OF

__all__ = ["Saturation", "saturate"]

_PIECEWISE = PIECEWISE_COMPARE.name
_OP_TABLES = (*CONST_CTORS, *OP_OF)  # the egglog tables whose rows are UOp e-nodes
# A checkpoint costs about 6 ms (an egglog push, ~3 ms, and the copy-on-write it makes the next
# iteration pay); a run whose kept iterations took less than this replays more cheaply than it
# would checkpoint (chosen on 100 generated index and 300 Caviar runs: 44 of 46 overshoots caught)
_CHECKPOINT_AFTER_SECONDS = 0.04


def saturate(program: UOp, config: SaturationConfig | None = None, /, **settings: Any) -> Saturation:
    """Equality saturation of program under `config` (default: SaturationConfig()), with any setting
    overridden by keyword (`saturate(p, node_budget=2_000, int_semantics="no_overflow")`).

    int_semantics "wrap" runs the rules sound under int32 wraparound and the no_overflow rules whose
    precondition the interval analysis proves; "no_overflow" runs every rule. Bad settings raise
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
    return Saturation(program, config)


@functools.cache
def _runs_piecewise(rs: RuleSet, int_semantics: str) -> bool:
    return any(r.name == _PIECEWISE for r in rs.rules(int_semantics))


class _Lease:
    """A run's hold on its engine, ended by close() or when nothing refers to it any more. The
    Saturation and the egglog extractors of the EGraph it reads back both refer to it, so egglog's
    extractors work while either is held; it refers to neither, so no reference cycle keeps a run's
    snapshot and EGraph alive until the cyclic GC frees them, late and in bursts (what fragmented
    the heap egglog's push and pop allocate from)."""

    __slots__ = ("__weakref__", "_end")

    def __init__(self, release: Callable[[], object]) -> None:
        self._end = weakref.finalize(self, release)

    @property
    def alive(self) -> bool:
        return self._end.alive

    def end(self) -> None:
        self._end()


class Saturation:
    """A saturated e-graph of one program: its report, its serialized EGraph, extraction, queries.

    It runs on a warm engine (engine.py) that it holds until `close()` (or until it is garbage
    collected): the e-graph is read back from egglog once, when something first needs it, and
    extraction and queries keep working after close. `optimize` and `compare` close it for you.
    """

    @gc_paused()  # the greedy seed, lowering and folding build objects per node, no cycles
    def __init__(self, program: UOp, config: SaturationConfig):
        self.program = program
        self.config = config
        rs = self.rule_set = config.rule_set
        self.report = SaturationReport(
            rs.name, config.int_semantics, config.node_budget, config.iter_limit, config.time_limit
        )
        self._egraph_cache: Any = None
        self._snapshot: Snapshot | None = None
        nodes = program.toposort()
        self._python_families = set(rs.family_names) if needs_python_step(nodes) else set()
        self.seed: UOp | None = None  # the greedy result put in the root's e-class, if any
        # greedy's symbolic rules are proved for i32/bool under their declared semantics; three of
        # them are the chapter's accepted f32 caveats (x + 0.0 -> x, MAX operand swap), so a
        # program with f32 nodes is not seeded
        if (
            config.seed_greedy
            and set(SYMBOLIC_FAMILIES) <= set(rs.family_names)
            and all(u.dtype is not dtypes.f32 for u in nodes)
        ):
            self.seed = simplify_under(program, config.int_semantics)
        lowered = dict.fromkeys((*nodes, *(self.seed.toposort() if self.seed is not None else ())))
        # the piecewise-linear comparisons (a Python rule of the linear family, no_overflow only):
        # decided once, on the program and the seed, and unioned in by every _load
        self._decided: list[tuple[UOp, bool]] = []
        self.folded_seed: UOp | None = None  # the root's value, found by folding the decided comparisons
        if _runs_piecewise(rs, config.int_semantics):
            self._decided = decided_comparisons(lowered)
            if self._decided:
                self.report.matches[_PIECEWISE] = len(self._decided)
                self.folded_seed = self._fold_decided()
        if config.stop_at_constant and config.shortcut_decided and self._decided_before_rules():
            self._decided_without_engine()
            return
        keep = None  # every unit of the rule set
        if config.prune_rules and not self._python_families:
            keep = relevant(rs, config.int_semantics, uop_constructors({u.op for u in lowered}))
        start = time.perf_counter()
        self._engine = lease(rs, config.int_semantics, keep)
        self._lease = _Lease(self._engine.release)
        self._eg = self._engine.egraph
        self.report.rules_pruned = self._engine.pruned
        self.report.egglog_time = time.perf_counter() - start
        try:
            self._load()
            size = self._size()
            self.report.enodes.append(size[0])
            self.report.eclasses.append(size[1])
            self._run(start)
        except BaseException:
            self.close()
            raise

    def _decided_before_rules(self) -> bool:
        """Does the root's e-class hold a scalar constant before any rule runs (the greedy seed or the
        folded seed is one, or the program or its seed is a comparison the piecewise-linear step
        decided), and is the extraction asked for one that does not need the live egglog e-graph?"""
        extractor = self.config.extractor
        if isinstance(extractor, str):
            extractor = EXTRACTORS.get(extractor)
        if isinstance(extractor, EgglogExtractor) or self.program.shape:
            return False  # egglog's extractors run on the live egglog e-graph
        roots = {self.program} if self.seed is None else {self.program, self.seed}
        seed_constant = self.seed is not None and self.seed.op is Ops.CONST
        return seed_constant or self.folded_seed is not None or any(u in roots for u, _ in self._decided)

    def _fold_decided(self) -> UOp | None:
        """The greedy rules' result on the seed with every decided comparison replaced by its value,
        if that is a constant: `(a < b) != true` with `a < b` decided folds to false. The rules would
        get there in the first iteration (folding the comparisons' constants up the seed); found
        here, the run is decided before any rule runs (a third of the Caviar corpus)."""
        if self.seed is None or self.seed.op is Ops.CONST:
            return None
        values = {u: UOp.const(value) for u, value in self._decided}
        folded = simplify_under(self.seed.substitute(values), self.config.int_semantics)
        return folded if folded.op is Ops.CONST else None

    def _seeds(self) -> tuple[UOp, ...]:
        """The terms the runner puts in the root's e-class besides the program: the greedy seed and
        the folded seed, when there are."""
        return tuple(u for u in (self.seed, self.folded_seed) if u is not None)

    def _decided_without_engine(self) -> None:
        """The run of a program decided before any rule runs (_decided_before_rules): it stops before
        its first iteration, so its e-graph is the program and its seeds unioned at the root and the
        decided comparisons with their values, which seed_graph.py builds without an egglog engine."""
        t = time.perf_counter()
        g = self._egraph_cache = seed_graph(self.program, self._seeds(), self._decided)
        rep = self.report
        rep.enodes.append(g.num_enodes)
        rep.eclasses.append(g.num_eclasses)
        rep.stop_reason, rep.decided_without_engine = StopReason.CONSTANT, True
        rep.lower_time = time.perf_counter() - t
        self._lease = _Lease(int)
        self._lease.end()  # closed from the start: there is no egglog e-graph to read back or keep

    def _load(self) -> None:
        """Lower the program (and the seed) into the engine's clean e-graph; fresh Python-side state."""
        t = time.perf_counter()
        c = self.config
        self._scheduler = BackoffScheduler.of(self._engine.units, c.match_limit, c.ban_length)
        self._lowerer = Lowerer(self._eg)
        self._root = self._lowerer.lower(self.program)
        for seed in self._seeds():
            self._lowerer.union(self._root, self._lowerer.lower(seed))
        for u, value in self._decided:
            self._lowerer.union(self._lowerer.ids[u], self._lowerer.const(value))
        self._lowerer.flush()
        self._fold = FoldStep(self._lowerer, self._python_families)
        self.report.lower_time += time.perf_counter() - t

    def close(self) -> None:
        """Read the e-graph back (extraction and queries keep working) and return the engine to the
        pool. After close, only egglog's own extractors (egglog_tree, egglog_dag) are unavailable."""
        if self._lease.alive:
            try:
                _ = self.egraph
            finally:
                self._lease.end()

    @property
    def closed(self) -> bool:
        return not self._lease.alive

    # -- the loop
    def _read(self) -> Snapshot:
        t = time.perf_counter()
        with gc_paused():
            snap = self._snapshot = Snapshot(self._eg)
        self.report.raise_time += time.perf_counter() - t
        return snap

    def _size(self, record: bool = True) -> tuple[int, int]:
        """(e-nodes, e-classes) now: table sizes after the bookkeeping rules, no read-back. With
        record, the matches of the families' rules in the bookkeeping ruleset (rules.MAINTAINED) go
        to the report (the schema's own bookkeeping rules are unnamed)."""
        t = time.perf_counter()
        out = self._eg.parse_and_run_program("(run bookkeeping 1)")
        if record:
            counts = out[0].report.num_matches_per_rule.items()
            self.report.count_matches({name: n for name, n in counts if n and not name.startswith("(")})
        sizes = dict(self._eg.parse_and_run_program("(print-size)")[0].sizes)
        self.report.raise_time += time.perf_counter() - t
        return sum(sizes.get(c, 0) for c in _OP_TABLES), sizes.get("ty", 0)

    def _run(self, start: float) -> None:
        rep = self.report
        if self.config.stop_at_constant and self._root_is_constant():  # the program or greedy seed is one
            rep.stop_reason = StopReason.CONSTANT
            return
        while True:
            if rep.iterations >= rep.iter_limit:
                rep.stop_reason = StopReason.ITER_LIMIT
                return
            if time.perf_counter() - start >= rep.time_limit:
                rep.stop_reason = StopReason.TIME_LIMIT
                return
            before = (rep.enodes[-1], rep.eclasses[-1])
            t_iteration = time.perf_counter()
            self._hold_back(rep.iterations)
            saved = self._checkpoint_if_risky()
            changed = self._iterate(record=True)
            size = self._size()
            if size[0] > rep.node_budget:
                rep.rolled_back, rep.overshoot = True, size[0]
                rep.stop_reason = StopReason.NODE_BUDGET
                self._undo(saved)
                return
            rep.iterations += 1
            rep.enodes.append(size[0])
            rep.eclasses.append(size[1])
            rep.iteration_times.append(time.perf_counter() - t_iteration)
            if size == before and not changed and not self._scheduler.any_banned:
                rep.stop_reason = StopReason.SATURATED
                return
            if size == before and not changed and self._scheduler.only_held:  # saturated but for the budget
                rep.stop_reason = StopReason.NODE_BUDGET
                rep.held_back = self._scheduler.held_forecasts(size[0])
                return
            if self.config.stop_at_constant and self._root_is_constant():
                rep.stop_reason = StopReason.CONSTANT
                return

    def _hold_back(self, iteration: int) -> None:
        """Before `iteration` (0-based), hold back the rules whose forecast matches would not fit in the
        room the budget had left then: the run and its replay make the same decisions from the same sizes."""
        size = self.report.enodes[iteration]
        self._scheduler.hold_back(self.report.node_budget - size, size)

    def _checkpoint_if_risky(self) -> tuple[list, int] | None:
        """Save the e-graph before an iteration that may overshoot the node budget, so that undoing it
        is one egglog pop instead of a replay of every kept iteration; returns the scheduler's state
        to restore with it, or None when no checkpoint was taken.

        A checkpoint costs about 6 ms whatever the size, as much as a whole small run, so it is taken
        only when the iteration looks risky (a banned rule comes back, as associativity let back in
        is how most runs overshoot, or the e-graph, growing as fast again as it last did for three
        iterations, would pass the budget) and the replay it would save (the time of the kept
        iterations) is worth it (_CHECKPOINT_AFTER_SECONDS). Either way the e-graph after the undo
        is the same, so the choice, though timed, changes no result. Not with the Python folding
        step on, whose own state a pop would not restore (replay covers that case).
        """
        rep, sched = self.report, self._scheduler
        if self._fold.active or sum(rep.iteration_times) < _CHECKPOINT_AFTER_SECONDS:
            return None
        now = rep.enodes[-1]
        growth = max(now / rep.enodes[-2], 1.0) if len(rep.enodes) > 1 else 1.0
        if not sched.any_returning and now * growth**3 < rep.node_budget:
            return None
        self._engine.checkpoint()
        return sched.state()

    def _root_is_constant(self) -> bool:
        """Does the root's e-class hold a scalar constant (the bookkeeping relation Const)?"""
        if self.program.shape:
            return False
        span = bindings.PanicSpan()
        _, root = self._eg.eval_expr(bindings.Call(span, "N", [bindings.Lit(span, bindings.Int(self._root))]))
        return self._eg.lookup_function("Const", [root]) is not None

    def _iterate(self, record: bool) -> bool:
        """One iteration: the scheduler's active rules in one egglog step, then the Python step.
        Returns whether anything changed; with record, adds times and matches to the report."""
        rep, sched = self.report, self._scheduler
        changed = False
        self._snapshot = None
        if sched.units:
            t = time.perf_counter()
            out = self._eg.parse_and_run_program(f"(run {self._engine.combined(sched.active())} 1)")
            rep.egglog_time += time.perf_counter() - t
            report = out[0].report
            changed = report.updated
            sched.record(report.num_matches_per_rule, rep.enodes[sched.iteration])
            if record:
                rep.count_matches(report.num_matches_per_rule)
        if self._fold.active:
            snap = self._read()
            t = time.perf_counter()
            if self._fold(snap):
                self._lowerer.flush()
                changed = True
                self._snapshot = None
            rep.fold_time += time.perf_counter() - t
            if record:
                rep.count_matches(self._fold.matches)
            self._fold.matches.clear()
        return changed

    def _undo(self, saved: tuple[list, int] | None) -> None:
        """Undo the iteration that overshot: a pop to its checkpoint (`saved`: the scheduler's state
        then), or without one a replay of the kept iterations."""
        if saved is None:
            self._replay(self.report.iterations)
            return
        t = time.perf_counter()
        self._engine.rollback()
        self._scheduler.restore(saved)
        self.report.replay_time = time.perf_counter() - t

    def _replay(self, iterations: int) -> None:
        """Undo an iteration that overshot the node budget: back to the clean e-graph, then the same
        first `iterations` iterations again. egglog is deterministic on one thread, so this rebuilds
        the e-graph exactly, without the full copy a per-iteration egglog (push) would make."""
        rep = self.report
        times = (rep.egglog_time, rep.fold_time, rep.lower_time, rep.raise_time)
        t = time.perf_counter()
        self._engine.restart()
        self._load()
        self._size(record=False)
        for i in range(iterations):  # the run's steps that change the e-graph or the schedule, in order
            self._hold_back(i)
            self._iterate(record=False)
            self._size(record=False)
        rep.egglog_time, rep.fold_time, rep.lower_time, rep.raise_time = times
        rep.replay_time = time.perf_counter() - t

    # -- reading the result
    def _current(self) -> Snapshot:
        return self._snapshot if self._snapshot is not None else self._read()

    @property
    def egraph(self):
        """The serialized e-graph (eqsat_uopc.extract.EGraph), root = the program's e-class."""
        if self._egraph_cache is None:
            with gc_paused():  # the snapshot and the EGraph: objects per e-node, no cycles
                snap = self._current()
                t = time.perf_counter()
                root = snap.by_name[self._root]
                live = self._eg if not self.closed else None
                lease = self._lease  # the EGraph's egglog extractors hold the engine too (_Lease)
                self._egraph_cache = snap.to_egraph(self._lowerer.args, (root,), live, lambda: lease.alive)
                self.report.raise_time += time.perf_counter() - t
        return self._egraph_cache

    def extract(self, cost: Any = None, extractor: Any = None, time_limit: float | None = ...) -> Extraction:
        """The best equivalent program under cost (see eqsat_uopc.extract.extract); cost, extractor and
        time_limit default to the config's (cost, extractor, extract_time_limit). time_limit bounds an
        exact extractor (None: no limit), whose result then says if it proved optimality. The result
        is never costlier than the program itself or the greedy seed (both in the root's e-class,
        passed as extraction candidates: a heuristic extractor can miss them)."""
        c = self.config
        res = extract(
            self.egraph,
            cost=c.cost if cost is None else cost,
            extractor=c.extractor if extractor is None else extractor,
            time_limit=c.extract_time_limit if time_limit is ... else time_limit,
            candidates=(*self._seeds(), self.program),
        )
        return dataclasses.replace(res, report=self.report, saturation=self)

    def draw(
        self, path: str | Path, extraction: Extraction | None = None, max_enodes: int = DEFAULT_MAX_ENODES
    ) -> Path:
        """Write a picture of the e-graph to path (.dot, .json, .svg, .png or .pdf; see
        eqsat_uopc.saturation.picture), with extraction's choice highlighted (default: extract under
        the config's cost and extractor) and the program's e-class marked as the root."""
        check_readable(self.egraph, max_enodes)  # before extracting an e-graph too big to draw
        chosen = self.extract() if extraction is None else extraction
        return draw(self.egraph, path, chosen.choice, max_enodes=max_enodes)

    def equivalent(self, a: UOp, b: UOp) -> bool:
        """Are a and b in one e-class? A term not in the e-graph is its own class (as adding it
        without running rules would make it: congruence merges it with nothing that exists)."""
        for name, u in (("a", a), ("b", b)):
            if not isinstance(u, UOp):
                raise SaturationError(f"equivalent: {name} must be a UOp, got {type(u).__name__}")
        if a is b:
            return True
        ca, cb = self._class_of(a), self._class_of(b)
        return ca is not None and ca == cb

    def _class_of(self, u: UOp) -> Any:
        """The egglog e-class of u's term (hash-cons lookup, bottom-up), or None if it is not in it."""
        if self.report.decided_without_engine:  # no egglog e-graph: the seed graph's own index
            return self.egraph.class_of(u)
        snap, ids = self._current(), self._lowerer.ids
        if (i := ids.get(u)) is not None:
            return snap.by_name[i]
        classes: dict[UOp, Any] = {}
        for n in u.toposort():
            if (i := ids.get(n)) is not None:
                classes[n] = snap.by_name[i]
                continue
            key = term_key(n, self._lowerer, [classes[k] for k in n.src])
            if key is None or (v := snap.index.get(key)) is None:
                return None
            classes[n] = v
        return classes[u]

    def literal(self) -> UOp | None:
        """The CONST/STACK literal in the root's e-class, if saturation found the program's value."""
        eg = self.egraph
        choice = {}
        for ec in eg:
            for n in ec.nodes:
                if n.op.name == "CONST":
                    choice[ec.id] = n
                    break
        changed = True
        while changed:
            changed = False
            for ec in eg:
                if ec.id in choice:
                    continue
                for n in ec.nodes:
                    if n.op.name == "STACK" and all(k in choice for k in n.children):
                        choice[ec.id] = n
                        changed = True
                        break
        return build_programs(eg, choice)[0] if eg.roots[0] in choice else None
