"""saturate(): lower a program into egglog, run a rule set under budgets, hand back a Saturation.

One iteration is one egglog step of the rule set under a persistent back-off scheduler
(scheduler.py: a rule that matches too much is banned for a while, with doubling thresholds, as
egg's BackoffScheduler), then the Python folding step (fold.py). Before each iteration the runner
`push`es the egglog e-graph (and checkpoints its own tables); after it, it
reads the size. An iteration that leaves more e-nodes than the budget is undone (`pop`) and the
run stops with "node_budget": the e-graph extraction sees never has more than `node_budget`
e-nodes. The run also stops when an iteration changes nothing and no rule is banned ("saturated"),
after `iter_limit` iterations, or when `time_limit` seconds have passed (checked between
iterations: egglog cannot be interrupted). egglog runs on one thread; with the e-graph read back
in egglog's Value order, results are deterministic.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from egglog import bindings

from eqsat_uopc.extract import Extraction, build_programs, extract
from eqsat_uopc.greedy.symbolic import simplify_under
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules import SYMBOLIC_FAMILIES, egglog_program
from eqsat_uopc.saturation.config import DEFAULT_CONFIG, SaturationConfig
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.fold import FoldStep
from eqsat_uopc.saturation.lower import Lowerer, term_key
from eqsat_uopc.saturation.report import SaturationReport, StopReason
from eqsat_uopc.saturation.scheduler import BackoffScheduler
from eqsat_uopc.saturation.serialize import Snapshot, count
from eqsat_uopc.saturation.terms import SCHEMA

__all__ = ["Saturation", "saturate"]


def saturate(program: UOp, config: SaturationConfig | None = None, /, **settings: Any) -> Saturation:
    """Equality saturation of program under `config` (default: SaturationConfig()), with any setting
    overridden by keyword (`saturate(p, node_budget=2_000, int_semantics="no_overflow")`).

    int_semantics "wrap" runs the rules sound under int32 wraparound and the no_overflow rules whose
    precondition the interval analysis proves; "no_overflow" runs every rule. Bad settings raise
    SaturationError before any work.
    """
    if not isinstance(program, UOp):
        raise SaturationError(f"saturate needs a UOp program, got {type(program).__name__}")
    if config is not None and not isinstance(config, SaturationConfig):
        raise SaturationError(f"saturate: config must be a SaturationConfig, got {type(config).__name__}")
    config = (config or DEFAULT_CONFIG).replace(**settings)
    size = program.size
    if config.node_budget < size:
        raise SaturationError(
            f"node_budget {config.node_budget} is below the program's own size ({size} nodes)"
        )
    return Saturation(program, config)


class Saturation:
    """A saturated e-graph of one program: its report, its serialized EGraph, extraction, queries."""

    def __init__(self, program: UOp, config: SaturationConfig):
        self.program = program
        self.config = config
        rs = self.rule_set = config.rule_set
        int_semantics = config.int_semantics
        self.report = SaturationReport(
            rs.name, int_semantics, config.node_budget, config.iter_limit, config.time_limit
        )
        self._egraph_cache: Any = None
        self._snapshot: Snapshot | None = None
        start = time.perf_counter()
        eg = self._eg = bindings.EGraph(num_threads=1)
        rules_text, units = egglog_program(rs, int_semantics)
        eg.parse_and_run_program(SCHEMA + rules_text)
        self._scheduler = BackoffScheduler.of(units, config.match_limit, config.ban_length)
        self.report.egglog_time = time.perf_counter() - start
        t_lower = time.perf_counter()
        self._lowerer = Lowerer(eg)
        self._root = self._lowerer.lower(program)
        self.seed: UOp | None = None  # the greedy result put in the root's e-class, if any
        # greedy's symbolic rules are proved for i32/bool under their declared semantics; three of
        # them are the chapter's accepted f32 caveats (x + 0.0 -> x, MAX operand swap), so a
        # program with f32 nodes is not seeded
        if (
            config.seed_greedy
            and set(SYMBOLIC_FAMILIES) <= set(rs.families)
            and all(u.dtype is not dtypes.f32 for u in program.toposort())
        ):
            self.seed = simplify_under(program, int_semantics)
            self._lowerer.union(self._root, self._lowerer.lower(self.seed))
        self._lowerer.flush()
        self.report.lower_time = time.perf_counter() - t_lower
        snap = self._read()
        self.report.enodes.append(snap.num_enodes)
        self.report.eclasses.append(snap.num_eclasses)
        self._fold = FoldStep(self._lowerer, set(rs.families))
        self._run(start)

    # -- the loop
    def _read(self) -> Snapshot:
        t = time.perf_counter()
        snap = self._snapshot = Snapshot(self._eg)
        self.report.raise_time += time.perf_counter() - t
        return snap

    def _size(self) -> tuple[int, int]:
        """(e-nodes, e-classes) now; a full snapshot only if one is at hand."""
        if self._snapshot is not None:
            return self._snapshot.num_enodes, self._snapshot.num_eclasses
        t = time.perf_counter()
        size = count(self._eg)
        self.report.raise_time += time.perf_counter() - t
        return size

    def _run(self, start: float) -> None:
        rep, eg = self.report, self._eg
        sched = self._scheduler
        while True:
            if rep.iterations >= rep.iter_limit:
                rep.stop_reason = StopReason.ITER_LIMIT
                return
            if time.perf_counter() - start >= rep.time_limit:
                rep.stop_reason = StopReason.TIME_LIMIT
                return
            before = (rep.enodes[-1], rep.eclasses[-1])
            t_iteration = time.perf_counter()
            changed = False
            if sched.units:
                t = time.perf_counter()
                run_name, decl = sched.combined(sched.active())
                if decl is not None:
                    eg.parse_and_run_program(decl)
                rep.egglog_time += time.perf_counter() - t
            eg.parse_and_run_program("(push)")
            cp = (self._lowerer.checkpoint(), self._fold.checkpoint(), sched.state(), sched.iteration)
            if sched.units:
                t = time.perf_counter()
                out = eg.parse_and_run_program(f"(run {run_name} 1)")
                rep.egglog_time += time.perf_counter() - t
                report = out[0].report
                changed = report.updated
                sched.record(report.num_matches_per_rule)
                for name, n in report.num_matches_per_rule.items():
                    rep.matches[name] = rep.matches.get(name, 0) + n
            if changed:
                self._snapshot = None
            if self._fold.active:
                snap = self._current()
                t = time.perf_counter()
                if self._fold(snap):
                    self._lowerer.flush()
                    self._snapshot = None
                rep.fold_time += time.perf_counter() - t
            for name, k in self._fold.matches.items():
                rep.matches[name] = rep.matches.get(name, 0) + k
            self._fold.matches.clear()
            size = self._size()
            if size[0] > rep.node_budget:
                eg.parse_and_run_program("(pop)")
                self._lowerer.rollback(cp[0])
                self._fold.rollback(cp[1])
                sched.restore(cp[2], cp[3])
                self._snapshot = None
                rep.rolled_back, rep.overshoot = True, size[0]
                rep.stop_reason = StopReason.NODE_BUDGET
                return
            rep.iterations += 1
            rep.enodes.append(size[0])
            rep.eclasses.append(size[1])
            rep.iteration_times.append(time.perf_counter() - t_iteration)
            if size == before and not changed and not sched.any_banned:
                rep.stop_reason = StopReason.SATURATED
                return

    def close(self) -> None:
        """Read the e-graph back (extraction and queries keep working) and let go of egglog's."""
        _ = self.egraph
        self._closed = True

    # -- reading the result
    def _current(self) -> Snapshot:
        return self._snapshot if self._snapshot is not None else self._read()

    @property
    def egraph(self):
        """The serialized e-graph (eqsat_uopc.extract.EGraph), root = the program's e-class."""
        if self._egraph_cache is None:
            snap = self._current()
            t = time.perf_counter()
            root = snap.by_name[self._root]
            self._egraph_cache = snap.to_egraph(self._lowerer.args, (root,), self._eg)
            self.report.raise_time += time.perf_counter() - t
        return self._egraph_cache

    def extract(self, cost: Any = None, extractor: Any = None, time_limit: float | None = ...) -> Extraction:
        """The best equivalent program under cost (see eqsat_uopc.extract.extract); cost, extractor and
        time_limit default to the config's (cost, extractor, extract_time_limit). time_limit bounds an
        exact extractor (None: no limit), whose result then says if it proved optimality."""
        c = self.config
        res = extract(
            self.egraph,
            cost=c.cost if cost is None else cost,
            extractor=c.extractor if extractor is None else extractor,
            time_limit=c.extract_time_limit if time_limit is ... else time_limit,
            candidates=() if self.seed is None else (self.seed,),
        )
        return dataclasses.replace(res, report=self.report, saturation=self)

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


def _n_expr(i: int) -> Any:
    span = bindings.PanicSpan()
    return bindings.Call(span, "N", [bindings.Lit(span, bindings.Int(i))])
