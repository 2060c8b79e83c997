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

import time
from dataclasses import dataclass
from typing import Any

from egglog import bindings

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.rules import FAMILIES, RULE_SETS, RuleSet, egglog_program
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.fold import FoldStep
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.raising import raise_choice
from eqsat_uopc.saturation.report import SaturationReport, StopReason
from eqsat_uopc.saturation.scheduler import BackoffScheduler
from eqsat_uopc.saturation.serialize import Snapshot, count
from eqsat_uopc.saturation.terms import SCHEMA

__all__ = [
    "DEFAULT_ITER_LIMIT",
    "DEFAULT_NODE_BUDGET",
    "DEFAULT_TIME_LIMIT",
    "Extraction",
    "Saturation",
    "saturate",
]

DEFAULT_NODE_BUDGET = 50_000
DEFAULT_ITER_LIMIT = 30
DEFAULT_TIME_LIMIT = 10.0
MATCH_LIMIT = 1000  # back-off: a rule with more matches in one iteration is banned ...
BAN_LENGTH = 5  # ... for this many iterations (both double each time it is banned again)


@dataclass(frozen=True)
class Extraction:
    """The best program found in a saturated e-graph, and how it was found.

    program: the extracted UOp (hash-consed, type-checked); cost: its cost under the cost model;
    optimal: True if the extractor proved it optimal, False if an exact extractor stopped before
    proving it, None when no claim is made; report: the saturation's report; result: the
    extractor's full ExtractResult (choice, bound, timings).
    """

    program: UOp
    cost: float
    optimal: bool | None
    report: SaturationReport
    result: Any


def _check_positive(name: str, value: Any, integer: bool) -> None:
    if isinstance(value, bool) or not isinstance(value, int if integer else int | float):
        kind = "an int" if integer else "a number of seconds"
        raise SaturationError(f"{name} must be {kind}, got {value!r}")
    if not value > 0:  # NaN too
        raise SaturationError(f"{name} must be positive, got {value!r}")


def _resolve_rules(rules: str | RuleSet) -> RuleSet:
    if isinstance(rules, RuleSet):
        unknown = [f for f in rules.families if f not in FAMILIES]
        if unknown:
            raise SaturationError(
                f"rule set {rules.name!r} has unknown families {unknown} (known: {', '.join(FAMILIES)})"
            )
        return rules
    if not isinstance(rules, str) or rules not in RULE_SETS:
        raise SaturationError(f"unknown rule set {rules!r} (known: {', '.join(RULE_SETS)})")
    return RULE_SETS[rules]


def saturate(
    program: UOp,
    rules: str | RuleSet = "default",
    int_semantics: str = "wrap",
    node_budget: int = DEFAULT_NODE_BUDGET,
    iter_limit: int = DEFAULT_ITER_LIMIT,
    time_limit: float = DEFAULT_TIME_LIMIT,
    match_limit: int = MATCH_LIMIT,
    ban_length: int = BAN_LENGTH,
) -> Saturation:
    """Equality saturation of program under a rule set (a name in eqsat_uopc.rules.RULE_SETS).

    int_semantics "wrap" (default) runs the rules sound under int32 wraparound and the no_overflow
    rules whose precondition the interval analysis proves; "no_overflow" runs every rule.
    match_limit and ban_length set the back-off scheduler: a rule with more matches than
    match_limit in one iteration is banned for ban_length iterations (both double at each new ban).
    Bad arguments raise SaturationError before any work.
    """
    if not isinstance(program, UOp):
        raise SaturationError(f"saturate needs a UOp program, got {type(program).__name__}")
    rs = _resolve_rules(rules)
    if int_semantics not in ("wrap", "no_overflow"):
        raise SaturationError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    _check_positive("node_budget", node_budget, integer=True)
    _check_positive("iter_limit", iter_limit, integer=True)
    _check_positive("time_limit", time_limit, integer=False)
    _check_positive("match_limit", match_limit, integer=True)
    _check_positive("ban_length", ban_length, integer=True)
    size = program.size
    if node_budget < size:
        raise SaturationError(f"node_budget {node_budget} is below the program's own size ({size} nodes)")
    backoff = (match_limit, ban_length)
    return Saturation(program, rs, int_semantics, node_budget, iter_limit, float(time_limit), backoff)


class Saturation:
    """A saturated e-graph of one program: its report, its serialized EGraph, extraction, queries."""

    def __init__(
        self,
        program: UOp,
        rs: RuleSet,
        int_semantics: str,
        node_budget: int,
        iter_limit: int,
        time_limit: float,
        backoff: tuple[int, int] = (MATCH_LIMIT, BAN_LENGTH),
    ):
        self.program = program
        self.rule_set = rs
        self.report = SaturationReport(rs.name, int_semantics, node_budget, iter_limit, time_limit)
        self._egraph_cache: Any = None
        self._snapshot: Snapshot | None = None
        start = time.perf_counter()
        eg = self._eg = bindings.EGraph(num_threads=1)
        rules_text, units = egglog_program(rs, int_semantics)
        eg.parse_and_run_program(SCHEMA + rules_text)
        self._scheduler = BackoffScheduler.of(units, *backoff)
        self.report.egglog_time = time.perf_counter() - start
        t_lower = time.perf_counter()
        self._lowerer = Lowerer(eg)
        self._root = self._lowerer.lower(program)
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

    def extract(
        self, cost: str | Any = "dag_size", extractor: str | Any = "auto", time_limit: float | None = None
    ) -> Extraction:
        """The best equivalent program under cost (see eqsat_uopc.extract.extract). time_limit bounds an
        exact extractor (None: the registry's default), whose result then says if it proved optimality."""
        from eqsat_uopc.extract import extract

        res = extract(self.egraph, cost=cost, extractor=extractor, time_limit=time_limit)  # time: res.seconds
        return Extraction(res.program, res.cost, res.optimal, self.report, res)

    def equivalent(self, a: UOp, b: UOp) -> bool:
        """Are a and b in one e-class? Terms not in the e-graph yet are added only for the question."""
        for name, u in (("a", a), ("b", b)):
            if not isinstance(u, UOp):
                raise SaturationError(f"equivalent: {name} must be a UOp, got {type(u).__name__}")
        ids = self._lowerer.ids
        snap = self._current()
        if a in ids and b in ids:
            return snap.by_name[ids[a]] == snap.by_name[ids[b]]
        self._eg.parse_and_run_program("(push)")
        cp = self._lowerer.checkpoint()
        try:
            ia, ib = self._lowerer.lower(a), self._lowerer.lower(b)
            self._lowerer.flush()
            va = self._eg.eval_expr(_n_expr(ia))[1]
            vb = self._eg.eval_expr(_n_expr(ib))[1]
            return va == vb
        finally:
            self._eg.parse_and_run_program("(pop)")
            self._lowerer.rollback(cp)

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
        root = eg.roots[0]
        return raise_choice(choice, [root])[0] if root in choice else None


def _n_expr(i: int) -> Any:
    span = bindings.PanicSpan()
    return bindings.Call(span, "N", [bindings.Lit(span, bindings.Int(i))])
