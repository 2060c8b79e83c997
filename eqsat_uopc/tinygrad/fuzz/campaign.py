"""A fuzzing campaign: many generated cases checked, the larger ones shrunk, a summary and a corpus.

`fuzz(settings, optimizer)` runs in three phases, each deterministic for its settings:

1. **check**: every (seed, index) case (`generate`) goes through tinygrad's `simplify` and the
   optimizer under each int semantics (`check_case`), in worker processes when `workers > 1`;
2. **shrink**: the cases where ours is larger than tinygrad's (under "no_overflow" if there, else
   "wrap"), at most `shrink_per_template` per template in (seed, index) order, are minimized by
   delta debugging (eqsat_uopc.fuzz.shrink) while "still valid and still larger under the same semantics";
   "valid" means: every divisor's interval excludes 0, tinygrad simplifies it, its result agrees
   with the candidate on sampled inputs and z3 proves it equal under that semantics (a case whose
   tinygrad result is not proved is dropped, `shrink_dropped`), the candidate is defined on at
   least one of the inputs, and
   tinygrad fires no significant rule on it that it did not fire on the case itself (so that
   shrinking keeps to the gaps the case showed instead of slipping into a new one: narrowing an
   input to one value, say, makes tinygrad fold it as a constant, a gap of its own);
3. **collect**: the minimized cases, named by the tinygrad rules their simplification fires
   (attribution.py), become regression rows, deduplicated by shape (regressions.py).

A candidate on which tinygrad's result is no smaller than the candidate itself is rejected
without running the optimizer: it could only stay larger if the optimizer returned something
larger than its input, which phase 1 counts separately (`grew_input`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.corpus.sexpr import to_sexpr
from eqsat_uopc.fuzz.shrink import normalize_slots, shrink
from eqsat_uopc.fuzz.workers import run_all
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.tinygrad.fuzz.attribution import significant, tinygrad_rules
from eqsat_uopc.tinygrad.fuzz.check import (
    SEMANTICS,
    CaseResult,
    Optimizer,
    Reference,
    check_case,
    dag_size,
    sample_inputs,
    tinygrad_result,
)
from eqsat_uopc.tinygrad.fuzz.grammar import FuzzCase, divisors_exclude_zero, generate, template_names
from eqsat_uopc.tinygrad.fuzz.regressions import bounds_by_name, shape_key
from eqsat_uopc.verify.proof import prove_equivalent

__all__ = ["FuzzReport", "FuzzSettings", "ShrunkCase", "fuzz", "still_larger"]

RANKS = ("smaller", "equal", "larger", "no_tinygrad", "error")
_SHRINK_SAMPLES = 48  # inputs a shrink candidate is checked on (fewer than a case's: it runs often)
_PROOF_TIMEOUT_MS = 10_000  # z3's limits for proving tinygrad's result of a kept candidate; the
_PROOF_RLIMIT = 5_000_000  # resource limit, unlike the timeout, answers alike on every machine


@dataclass(frozen=True)
class FuzzSettings:
    """What a campaign runs: which cases, under which semantics, how hard it checks and shrinks."""

    seeds: tuple[int, ...] = (0,)
    count: int = 100  # cases per seed
    semantics: tuple[str, ...] = SEMANTICS
    templates: tuple[str, ...] | None = None  # None: every template
    samples: int = 200  # inputs per check
    shrink: bool = True
    shrink_budget: int = 200  # optimizer calls per shrunk case at most
    shrink_per_template: int = 8  # larger cases shrunk per template at most
    workers: int = 1

    def template_list(self) -> tuple[str, ...]:
        return self.templates if self.templates is not None else template_names()


@dataclass(frozen=True)
class ShrunkCase:
    """A larger case minimized: the small program, both results, and tinygrad's rules."""

    case: FuzzCase
    int_semantics: str
    program: UOp
    tinygrad: UOp
    tinygrad_size: int
    ours: UOp
    ours_size: int
    tinygrad_rules: tuple[str, ...]
    calls: int  # optimizer calls the shrinking took

    def row(self) -> dict[str, Any]:
        """The regression corpus line (regressions.py)."""
        rules = significant(self.tinygrad_rules)
        return {
            "id": f"fuzz/{self.case.template}/{self.case.seed}-{self.case.index}",
            "expr": to_sexpr(self.program),
            "bounds": bounds_by_name(self.program),
            "tinygrad": to_sexpr(self.tinygrad),
            "ours": to_sexpr(self.ours),
            "template": self.case.template,
            "seed": self.case.seed,
            "index": self.case.index,
            "int_semantics": self.int_semantics,
            "tinygrad_size": self.tinygrad_size,
            "ours_size": self.ours_size,
            "tinygrad_rules": [*rules, *(r for r in self.tinygrad_rules if r not in rules)],
            "original": to_sexpr(self.case.program),
            "original_bounds": bounds_by_name(self.case.program),
        }


@dataclass
class FuzzReport:
    """Everything a campaign found; `summary()` is its JSON."""

    settings: FuzzSettings
    results: list[CaseResult]
    shrunk: list[ShrunkCase] = field(default_factory=list)
    regressions: list[dict[str, Any]] = field(default_factory=list)  # deduplicated rows
    regressions_written: int = 0
    shrink_dropped: int = 0  # larger cases not kept: tinygrad's result was not proved right, say

    def unsound(self) -> list[tuple[CaseResult, str]]:
        return [(r, s) for r in self.results for s, o in r.outcomes.items() if o.unsound]

    def errors(self) -> list[tuple[CaseResult, str]]:
        return [(r, s) for r in self.results for s, o in r.outcomes.items() if o.rank == "error"]

    def counts(self, sem: str, template: str | None = None) -> dict[str, int]:
        c = Counter(
            r.outcomes[sem].rank for r in self.results if template is None or r.case.template == template
        )
        out = {k: c.get(k, 0) for k in RANKS}
        out["unsound"] = sum(
            r.outcomes[sem].unsound for r in self.results if template is None or r.case.template == template
        )
        return out

    def larger_by_rule(self, sem: str) -> dict[str, int]:
        """How many of the cases larger under sem fire each significant tinygrad rule, most first."""
        c: Counter[str] = Counter()
        for r in self.results:
            if r.outcomes[sem].rank == "larger":
                c.update(significant(r.tinygrad_rules))
        return dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))

    def summary(self) -> dict[str, Any]:
        s = self.settings
        results: dict[str, Any] = {}
        for sem in s.semantics:
            c = self.counts(sem)
            ranked = c["smaller"] + c["equal"] + c["larger"]
            results[sem] = {
                **c,
                "at_most_tinygrad": round((c["smaller"] + c["equal"]) / ranked, 4) if ranked else None,
                "smaller_share": round(c["smaller"] / ranked, 4) if ranked else None,
                "grew_input": sum(
                    (o := r.outcomes[sem]).size is not None and o.size > r.input_size for r in self.results
                ),
                "larger_by_rule": self.larger_by_rule(sem),
            }
        per_template = {t: {sem: self.counts(sem, t) for sem in s.semantics} for t in s.template_list()}
        return {
            "seeds": list(s.seeds),
            "count": s.count,
            "expressions": len(self.results),
            "int_semantics": list(s.semantics),
            "templates": list(s.template_list()),
            "samples": s.samples,
            "results": results,
            "per_template": per_template,
            "tinygrad_errors": sum(bool(r.tinygrad_error) for r in self.results),
            "tinygrad_disagreements": [_disagreement(r) for r in self.results if r.tinygrad_counterexample],
            "unsound": [_unsound(r, sem) for r, sem in self.unsound()],
            "optimizer_errors": [
                {
                    "key": r.case.key,
                    "template": r.case.template,
                    "int_semantics": sem,
                    "error": r.outcomes[sem].error,
                }
                for r, sem in self.errors()
            ],
            "shrunk": len(self.shrunk),
            "shrink_dropped": self.shrink_dropped,
            "regressions": len(self.regressions),
            "regressions_written": self.regressions_written,
        }


def _case_fields(r: CaseResult) -> dict[str, Any]:
    return {
        "key": r.case.key,
        "template": r.case.template,
        "expr": to_sexpr(r.case.program),
        "bounds": bounds_by_name(r.case.program),
    }


def _disagreement(r: CaseResult) -> dict[str, Any]:
    assert r.tinygrad is not None and r.tinygrad_counterexample is not None
    return {**_case_fields(r), "tinygrad": to_sexpr(r.tinygrad), **r.tinygrad_counterexample.to_dict()}


def _unsound(r: CaseResult, sem: str) -> dict[str, Any]:
    o = r.outcomes[sem]
    assert o.program is not None and o.counterexample is not None
    return {
        **_case_fields(r),
        "int_semantics": sem,
        "ours": to_sexpr(o.program),
        **o.counterexample.to_dict(),
    }


# ---------------------------------------------------------------------------
# the shrink predicate


def still_larger(
    program: UOp, int_semantics: str, optimizer: Optimizer, allowed_rules: frozenset[str] | None = None
) -> tuple[bool, Any]:
    """Whether program is a valid case on which the optimizer's result is larger than tinygrad's
    under int_semantics, and (with `allowed_rules`) tinygrad simplifies it with no significant rule
    outside them; with (tinygrad's result, ours, tinygrad's rules) when it is."""
    if not divisors_exclude_zero(program):
        return False, None
    tg, _ = tinygrad_result(program)
    if tg is None:
        return False, None
    theirs = dag_size(tg)
    if theirs >= dag_size(program):  # only a result larger than its input could stay larger
        return False, None
    ref = Reference(program, sample_inputs(program, _SHRINK_SAMPLES, "shrink"))
    if ref.defined(int_semantics) == 0 or ref.disagreement(tg, int_semantics) is not None:
        return False, None
    try:
        rules = tinygrad_rules(program)
    except Exception:
        return False, None
    if allowed_rules is not None and not set(significant(rules)) <= allowed_rules:
        return False, None
    try:
        ours = optimizer(program, int_semantics)
    except Exception:
        return False, None
    if dag_size(ours) <= theirs:
        return False, None
    # tinygrad's result must be right, not only on samples: under "wrap" it is often right only
    # where nothing overflows, its own assumption, which no rule of ours may make
    proof = prove_equivalent(program, tg, int_semantics, _PROOF_TIMEOUT_MS, rlimit=_PROOF_RLIMIT)
    return proof.status == "proved", (tg, ours, rules)


def _shrink_one(args: tuple[CaseResult, str, Optimizer, int]) -> ShrunkCase | None:
    result, sem, optimizer, budget = args
    found: dict[UOp, Any] = {}
    allowed = frozenset(significant(result.tinygrad_rules)) if result.tinygrad_rules else None

    def still(p: UOp) -> bool:
        ok, found_here = still_larger(p, sem, optimizer, allowed)
        if ok:
            found[p] = found_here
        return ok

    if not still(result.case.program):  # tinygrad's result not proved, say: nothing to keep
        return None
    out = shrink(result.case.program, still, budget)
    program = out.program
    normal = normalize_slots(program)
    if normal is not program and still(normal):
        program = normal
    tg, ours, rules = found[program]
    return ShrunkCase(
        case=result.case,
        int_semantics=sem,
        program=program,
        tinygrad=tg,
        tinygrad_size=dag_size(tg),
        ours=ours,
        ours_size=dag_size(ours),
        tinygrad_rules=rules,
        calls=out.calls,
    )


# ---------------------------------------------------------------------------
# the campaign


def _check_one(args: tuple[int, int, tuple[str, ...], Optimizer, tuple[str, ...], int]) -> CaseResult:
    seed, index, templates, optimizer, semantics, samples = args
    return check_case(generate(seed, index, templates), optimizer, semantics, samples)


def _to_shrink(
    results: Iterable[CaseResult], semantics: Sequence[str], per_template: int
) -> Iterator[tuple[CaseResult, str]]:
    taken: Counter[str] = Counter()
    for r in results:
        sem = next(
            (s for s in semantics if r.outcomes[s].rank == "larger" and not r.outcomes[s].unsound), None
        )
        if sem is None or taken[r.case.template] >= per_template:
            continue
        taken[r.case.template] += 1
        yield r, sem


def fuzz(
    settings: FuzzSettings,
    optimizer: Optimizer,
    progress: Callable[[str, int], Callable[[], None]] | None = None,
) -> FuzzReport:
    """Run a campaign. `progress(phase, total)` (optional) returns the function to call once per
    finished item of that phase ("check", then "shrink")."""
    unknown = [s for s in settings.semantics if s not in SEMANTICS]
    if unknown:
        raise ValueError(f"unknown int semantics {unknown[0]!r} (expected {' or '.join(SEMANTICS)})")
    templates = settings.template_list()
    generate(0, 0, templates)  # names checked before any work
    semantics = tuple(s for s in SEMANTICS if s in settings.semantics)  # the headline first
    settings = dataclasses.replace(settings, semantics=semantics)
    tasks = [
        (seed, index, templates, optimizer, semantics, settings.samples)
        for seed in settings.seeds
        for index in range(settings.count)
    ]
    no_tick: Callable[[], None] = lambda: None
    tick = progress("check", len(tasks)) if progress else no_tick
    results = run_all(_check_one, tasks, settings.workers, tick)
    report = FuzzReport(settings, results)
    if not settings.shrink:
        return report
    chosen = list(_to_shrink(results, semantics, settings.shrink_per_template))
    tick = progress("shrink", len(chosen)) if progress else no_tick
    jobs = [(r, sem, optimizer, settings.shrink_budget) for r, sem in chosen]
    shrunk = run_all(_shrink_one, jobs, settings.workers, tick)
    report.shrunk = [s for s in shrunk if s is not None]
    report.shrink_dropped = len(shrunk) - len(report.shrunk)
    seen: set[str] = set()
    for s in report.shrunk:
        if s.ours_size <= s.tinygrad_size:
            continue  # pragma: no cover  (shrinking keeps "larger"; the unshrunk case is larger too)
        key = shape_key(s.program)
        if key not in seen:
            seen.add(key)
            report.regressions.append(s.row())
    return report
