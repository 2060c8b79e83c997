"""Explanations: why `optimize` returned what it did, as a checked, replayable chain of rewrites.

`explain(program, result)` (what `optimize(...).explain()` calls) finds the chain of every pulse of
the run (eqsat_uopc.saturation.explain.search: congruence, then each step attributed to a Python
rule or an egglog rule, or marked unexplained), joins them, replays the whole chain from the input
(it must give the result) and checks every step: its `after` refines its `before` under the run's
int semantics (`validate`: z3 within STEP_RLIMIT, then the evaluator on STEP_SAMPLES inputs). A
step is never claimed checked that was not: its verdict is in `checks`, step by step.

    >>> from eqsat_uopc import UOp, optimize
    >>> x = UOp.param(0)
    >>> print(optimize((x + 0) * 3, rules="symbolic").explain())
    1 step from (p0 + 0) * 3 to p0 * 3 (int semantics wrap); every step names its rule; checked: 1 proved
      1. symbolic/add_zero [greedy-seed] at [0]: p0 + 0 -> p0  (proved)
    rules the result depends on: symbolic/add_zero 1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.extract import ExtractionError
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.explain import ChainSearch, RewriteChain, infix, replay
from eqsat_uopc.verify.validation import validate

__all__ = [
    "STEP_RLIMIT",
    "STEP_SAMPLES",
    "Explanation",
    "check_chain",
    "explain",
    "explainer",
    "not_explained",
]

STEP_RLIMIT = 200_000  # z3's resource budget per step (a fifth of a result's validation)
STEP_SAMPLES = 64  # the evaluator's inputs per step where z3 does not decide
_PASSED = ("identical", "proved", "tested")


@dataclass(frozen=True)
class Explanation:
    """A chain of rewrites (chain) and each step's check (checks: a Validation's status per step:
    "proved", "tested", "refuted" or "unknown"); `replayed`: the steps, applied to the chain's start
    in order, gave its result."""

    chain: RewriteChain
    checks: tuple[str, ...]
    replayed: bool

    @property
    def checked(self) -> bool:
        """Did every step pass its check (proved, or tested on every input tried) and the chain replay?"""
        return self.replayed and all(c in _PASSED for c in self.checks)

    @property
    def complete(self) -> bool:
        """Checked, and every step names the rule that made it."""
        return self.checked and self.chain.complete

    def rule_counts(self) -> dict[str, int]:
        """Steps per rule (the rules the result depends on), most used first."""
        return self.chain.rule_counts()

    def lines(self) -> list[str]:
        c = self.chain
        if not c.steps:
            return [
                f"no rewrites: the result is the input, {infix(c.start)} (int semantics {c.int_semantics})"
            ]
        n = len(c.steps)
        unexplained = sum(not s.explained for s in c.steps)
        named = "every step names its rule" if not unexplained else f"{unexplained} unexplained"
        tally: dict[str, int] = {}
        for status in self.checks:
            tally[status] = tally.get(status, 0) + 1
        checked = ", ".join(f"{k} {s}" for s, k in tally.items())
        replay_note = "" if self.replayed else "; the steps do NOT replay to the result"
        out = [
            f"{n} step{'s' * (n != 1)} from {infix(c.start)} to {infix(c.result)} "
            f"(int semantics {c.int_semantics}); {named}; checked: {checked}{replay_note}"
        ]
        for k, (s, status) in enumerate(zip(c.steps, self.checks, strict=True), 1):
            where = f" at {list(s.path)}" if s.path else ""
            every = " (everywhere)" if s.everywhere else ""
            note = f"; {s.note}" if s.note else ""
            rewrite = f"{infix(s.before)} -> {infix(s.after)}"
            out.append(f"  {k}. {s.label}{where}{every}: {rewrite}  ({status}{note})")
        out.append(
            "rules the result depends on: " + ", ".join(f"{r} {k}" for r, k in self.rule_counts().items())
        )
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def to_dict(self) -> dict[str, Any]:
        c = self.chain
        return {
            "start": infix(c.start),
            "result": infix(c.result),
            "int_semantics": c.int_semantics,
            "complete": self.complete,
            "checked": self.checked,
            "replayed": self.replayed,
            "steps": [
                {
                    "rule": s.rule,
                    "by": s.by,
                    "path": list(s.path),
                    "everywhere": s.everywhere,
                    "backwards": s.backwards,
                    "before": infix(s.before),
                    "after": infix(s.after),
                    "check": status,
                    "note": s.note,
                }
                for s, status in zip(c.steps, self.checks, strict=True)
            ],
            "rule_counts": self.rule_counts(),
        }


def check_chain(chain: RewriteChain, verdicts: dict[tuple[UOp, UOp], str] | None = None) -> Explanation:
    """chain with each step checked (its after refines its before under the chain's int semantics)
    and the whole replayed from its start. `verdicts`: the checks already made, (before, after) ->
    status (the search's, where it weighed two chains), filled in as the steps are checked."""
    verdict = _verdicts(chain.int_semantics, {} if verdicts is None else verdicts)
    checks = tuple(verdict(s.before, s.after) for s in chain.steps)
    try:
        replay(chain)
        replayed = True
    except Exception:  # a ReplayError, or a step that builds an ill-typed term
        replayed = False
    return Explanation(chain, checks, replayed)


def _verdicts(int_semantics: str, verdicts: dict[tuple[UOp, UOp], str]) -> Callable[[UOp, UOp], str]:
    """A step's check (validate's status), each (before, after) checked once into verdicts."""

    def verdict(before: UOp, after: UOp) -> str:
        if (before, after) not in verdicts:
            check = validate(before, after, int_semantics, rlimit=STEP_RLIMIT, samples=STEP_SAMPLES)
            verdicts[(before, after)] = check.status
        return verdicts[(before, after)]

    return verdict


def explain(program: UOp, result: Any) -> Explanation:
    """The checked chain from program to result.program, where result is `optimize(program, ...)`'s
    Extraction: a chain per pulse (each searched in its own e-graph), joined."""
    pulses = result.info.get("pulses", (result,))
    replaced = result.validation is not None and bool(result.validation.replaced)
    if replaced or result.saturation is None:  # the result is greedy's or the input: in the first e-graph
        segments = [(program, result.program, result.saturation if not replaced else pulses[0].saturation)]
    else:
        segments, start = [], program
        for p in pulses:
            segments.append((start, p.program, p.saturation))
            start = p.program
    if result.saturation is None or any(s is None for _, _, s in segments):
        raise ExtractionError("explain: this result has no saturation run to explain it from")
    int_semantics = segments[0][2].config.int_semantics
    chain = RewriteChain(program, program, (), int_semantics)
    verdicts: dict[tuple[UOp, UOp], str] = {}
    verdict = _verdicts(int_semantics, verdicts)
    for start, end, sat in segments:
        report = sat.report
        matched = frozenset(n for n, k in report.matches.items() if k) if report is not None else None
        hooks = frozenset(report.start_times) if report is not None else None
        search = ChainSearch(
            sat.class_of,
            sat.config.rule_set,
            int_semantics,
            matched,
            _constants(sat.egraph),
            sat.egraph,
            hooks,
            sat.seeds.named_equalities(),
            (sat.program, tuple(sat.seeds.root_terms.values()), tuple(sat.seeds.equalities)),
            lambda before, after: verdict(before, after) in _PASSED,
        )
        try:
            chain = chain + search.chain(start, end)
        finally:
            search.close()
    return check_chain(chain, verdicts)


def _constants(egraph: Any) -> dict[Any, UOp]:
    """The scalar constant of every e-class that holds one (the first, in e-node order)."""
    out: dict[Any, UOp] = {}
    for ec in egraph:
        if ec.shape:
            continue
        for n in ec.nodes:
            if n.op is Ops.CONST:
                out[ec.id] = UOp.const(n.arg, ec.dtype)
                break
    return out


def explainer(program: UOp) -> Callable[[Any], Explanation]:
    """What optimize attaches to its result: explain(program, result) when the result asks for it
    (nothing is computed before)."""

    def explain_result(result: Any) -> Explanation:
        return explain(program, result)

    return explain_result


def not_explained(reason: str) -> Callable[[Any], Explanation]:
    """What optimize attaches to a result it cannot explain: explain() raises an ExtractionError
    that says why."""

    def refuse(result: Any) -> Explanation:
        raise ExtractionError(f"explain: {reason}")

    return refuse
