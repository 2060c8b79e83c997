"""A soundness campaign: many generated cases checked, every failure shrunk and attributed.

`fuzz_soundness(settings, optimizers)` runs in two phases, each deterministic for its settings:

1. **check**: every (seed, index) case (`generate`) goes through each optimizer under each int
   semantics (`check_case`), in worker processes when `workers > 1`;
2. **shrink**: the failures (unsound results and crashes), at most `shrink_per_template` per
   (template, optimizer, int semantics, failure) in (seed, index) order, are minimized by delta
   debugging (eqsat_uopc.fuzz.shrink) while they still fail the same way under the same semantics:
   still unsound (on edge inputs or by z3), on a program defined on one edge input at least; or
   still raising an error of the same kind (its message with numbers blanked). Each minimized
   unsound case is then attributed (attribution.py) and becomes a regression row; rows are
   deduplicated by shape (regressions.shape_key).

The optimizers are parameters (a label -> `Optimizer`, each pickled by reference into the workers):
the command line passes `optimize` with validation off (the rewrites themselves) and, where
`optimize` validates its results, with validation on.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.fuzz.shrink import normalize_slots, shrink
from eqsat_uopc.fuzz.soundness.attribution import suspect
from eqsat_uopc.fuzz.soundness.check import (
    DEFAULT_RLIMIT,
    SEMANTICS,
    STATUSES,
    CaseResult,
    Optimizer,
    Reference,
    Verdict,
    check_semantics,
    crash_site,
    error_text,
    run_optimizer,
)
from eqsat_uopc.fuzz.soundness.grammar import FuzzCase, families, generate, template_names
from eqsat_uopc.fuzz.soundness.inputs import edge_inputs
from eqsat_uopc.fuzz.soundness.regressions import error_key, shape_key
from eqsat_uopc.fuzz.workers import Phase, run_all
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp

__all__ = ["ShrunkFailure", "SoundnessReport", "SoundnessSettings", "fuzz_soundness", "still_failing"]

_SHRINK_SAMPLES = 48  # edge inputs a shrink candidate is tested on


@dataclass(frozen=True)
class SoundnessSettings:
    """What a campaign runs: which cases, under which semantics, how hard it checks and shrinks."""

    seeds: tuple[int, ...] = (0,)
    count: int = 100  # cases per seed
    semantics: tuple[str, ...] = SEMANTICS
    templates: tuple[str, ...] | None = None  # None: every template
    samples: int = 64  # edge inputs each result is tested on before z3
    rlimit: int = DEFAULT_RLIMIT  # z3's resource limit per proof
    shrink: bool = True
    shrink_budget: int = 150  # optimizer calls per shrunk failure at most
    shrink_per_template: int = 10  # failures shrunk per (template, optimizer, semantics, failure)
    workers: int = 1
    memory_mb: int | None = None  # each worker's address space (None: no limit, and no worker for 1)

    def template_list(self) -> tuple[str, ...]:
        return self.templates if self.templates is not None else template_names()


@dataclass(frozen=True)
class ShrunkFailure:
    """A failure minimized: the small program, how it still fails, and what to suspect."""

    case: FuzzCase
    label: str  # the optimizer
    int_semantics: str
    failure: str  # "unsound" | "crash"
    program: UOp
    verdict: Verdict  # the optimizer's result on the small program, checked
    calls: int  # optimizer calls the shrinking took
    suspect: dict[str, Any]

    def row(self) -> dict[str, Any]:
        """The regression corpus line (regressions.py), also the line of a failures log."""
        c, v = self.case, self.verdict
        row: dict[str, Any] = {
            "id": f"soundness/{c.template}/{c.seed}-{c.index}/{self.int_semantics}",
            "program": to_uir(self.program),
            "int_semantics": self.int_semantics,
            "failure": self.failure,
            "optimizer": self.label,
            "template": c.template,
            "family": c.family,
            "seed": c.seed,
            "index": c.index,
            "original": to_uir(c.program),
            "suspect": self.suspect,
        }
        if v.program is not None:
            row["result"] = to_uir(v.program)
        if v.counterexample is not None:
            row["counterexample"] = v.counterexample.to_dict()
        if self.failure == "crash":
            row["error"], row["where"] = v.error, v.where
        return row


def _counts(verdicts: list[Verdict]) -> dict[str, int]:
    c = Counter(v.status for v in verdicts)
    out = {s: c.get(s, 0) for s in STATUSES}
    out["z3_unknown"] = out["tested"]
    out["new_undefined"] = sum(
        v.counterexample is not None and v.counterexample.kind == "undefined" for v in verdicts
    )
    return out


@dataclass
class SoundnessReport:
    """Everything a campaign found; `summary()` is its JSON."""

    settings: SoundnessSettings
    labels: tuple[str, ...]
    results: list[CaseResult]
    shrunk: list[ShrunkFailure] = field(default_factory=list)
    regressions: list[dict[str, Any]] = field(default_factory=list)  # deduplicated rows
    not_shrunk: int = 0  # failures beyond shrink_per_template
    not_reproduced: int = 0  # failures that did not fail again when shrinking started (or killed its worker)
    regressions_written: int = 0

    def failures(self) -> list[tuple[CaseResult, str, str, Verdict]]:
        return [(r, label, sem, v) for r in self.results for label, sem, v in r.failures()]

    def counts(self, label: str, sem: str, templates: tuple[str, ...] | None = None) -> dict[str, int]:
        return _counts(
            [
                r.verdicts[label][sem]
                for r in self.results
                if templates is None or r.case.template in templates
            ]
        )

    def summary(self) -> dict[str, Any]:
        s = self.settings
        sems = s.semantics
        results = {}
        for label in self.labels:
            results[label] = {}
            for sem in sems:
                c = self.counts(label, sem)
                checked = sum(c[k] for k in ("identical", "proved", "tested"))
                c["proved_share"] = round((c["identical"] + c["proved"]) / checked, 4) if checked else None
                results[label][sem] = c
        names = s.template_list()
        by_family = {f: tuple(t for t in ts if t in names) for f, ts in families().items()}
        return {
            "seeds": list(s.seeds),
            "count": s.count,
            "expressions": len(self.results),
            "int_semantics": list(sems),
            "optimizers": list(self.labels),
            "templates": list(names),
            "samples": s.samples,
            "rlimit": s.rlimit,
            "results": results,
            "per_template": {
                t: {label: {sem: self.counts(label, sem, (t,)) for sem in sems} for label in self.labels}
                for t in names
            },
            "per_family": {
                f: {
                    "templates": len(ts),
                    **{label: {sem: self.counts(label, sem, ts) for sem in sems} for label in self.labels},
                }
                for f, ts in by_family.items()
                if ts
            },
            "failures": [_failure(r, label, sem, v) for r, label, sem, v in self.failures()],
            "shrunk": len(self.shrunk),
            "not_shrunk": self.not_shrunk,
            "not_reproduced": self.not_reproduced,
            "regressions": self.regressions,
            "regressions_written": self.regressions_written,
        }


def _failure(r: CaseResult, label: str, sem: str, v: Verdict) -> dict[str, Any]:
    return {
        "key": r.case.key,
        "template": r.case.template,
        "family": r.case.family,
        "optimizer": label,
        "int_semantics": sem,
        "program": to_uir(r.case.program),
        **v.to_dict(),
    }


# ---------------------------------------------------------------------------
# shrinking


def still_failing(
    program: UOp,
    optimizer: Optimizer,
    int_semantics: str,
    failure: str,
    error: str = "",
    rlimit: int = DEFAULT_RLIMIT,
) -> Verdict | None:
    """The optimizer's verdict on program if it fails as `failure` says (unsound on a program defined
    on one edge input at least; or a crash whose error is of the kind of `error`), else None."""
    if failure == "crash":
        try:
            optimizer(program, int_semantics)
        except Exception as e:
            if error_key(error_text(e)) == error_key(error):
                return Verdict("crash", error=error_text(e), where=crash_site(e))
        return None
    ref = Reference(program, int_semantics, edge_inputs(program, _SHRINK_SAMPLES, "shrink"))
    if ref.defined() == 0:
        return None
    v = run_optimizer(optimizer, program, int_semantics, ref, rlimit)
    return v if v.status == "unsound" else None


def _shrink_one(args: tuple[CaseResult, str, str, Verdict, Optimizer, int, int]) -> ShrunkFailure | None:
    result, label, sem, verdict, optimizer, budget, rlimit = args
    failure = verdict.status
    found: dict[UOp, Verdict] = {}

    def still(p: UOp) -> bool:
        v = still_failing(p, optimizer, sem, failure, verdict.error, rlimit)
        if v is not None:
            found[p] = v
        return v is not None

    start = result.case.program
    if not still(start):  # a failure z3 alone found under a larger limit, or a flaky optimizer
        return None
    out = shrink(start, still, budget)
    program = out.program
    normal = normalize_slots(program)
    if normal is not program and still(normal):
        program = normal
    v = found[program]
    blame = _crash_family(v.where) if failure == "crash" else suspect(program, sem)
    return ShrunkFailure(result.case, label, sem, failure, program, v, out.calls, blame)


def _crash_family(where: str) -> dict[str, Any]:
    """A crash's suspect: the module it raised in (`linear/divmod` for eqsat_uopc/linear/divmod.py)."""
    path = where.split(":")[0]
    module = path.removeprefix("eqsat_uopc/").removesuffix(".py")
    return {"family": module or "unknown", "where": where}


# ---------------------------------------------------------------------------
# the campaign


def _check_one(
    args: tuple[int, int, tuple[str, ...], Mapping[str, Optimizer], str, int, int],
) -> tuple[dict[str, Verdict], int, int]:
    seed, index, templates, optimizers, sem, samples, rlimit = args
    return check_semantics(generate(seed, index, templates), optimizers, sem, samples, rlimit)


def _lost_check(memory_mb: int | None, labels: tuple[str, ...]) -> Callable[[Any], Any]:
    error = f"the worker process died (address space limited to {memory_mb} MB)"
    return lambda args: ({label: Verdict("crash", error=error, where="worker") for label in labels}, 0, 0)


def fuzz_soundness(
    settings: SoundnessSettings, optimizers: Mapping[str, Optimizer], progress: Phase | None = None
) -> SoundnessReport:
    """Run a campaign. `progress(phase, total)` (optional) returns the function to call once per
    finished item of that phase ("check", then "shrink")."""
    unknown = [s for s in settings.semantics if s not in SEMANTICS]
    if unknown:
        raise ValueError(f"unknown int semantics {unknown[0]!r} (expected {' or '.join(SEMANTICS)})")
    if not optimizers:
        raise ValueError("fuzz_soundness: no optimizer to check")
    templates = settings.template_list()
    generate(0, 0, templates)  # names checked before any work
    semantics = tuple(s for s in SEMANTICS if s in settings.semantics)
    settings = dataclasses.replace(settings, semantics=semantics)
    optimizers = dict(optimizers)
    cases = [(seed, index) for seed in settings.seeds for index in range(settings.count)]
    tasks = [
        (seed, index, templates, optimizers, sem, settings.samples, settings.rlimit)
        for seed, index in cases
        for sem in semantics
    ]
    no_tick: Callable[[], None] = lambda: None
    tick = progress("check", len(tasks)) if progress else no_tick
    lost = _lost_check(settings.memory_mb, tuple(optimizers))
    checked = run_all(_check_one, tasks, settings.workers, tick, memory_mb=settings.memory_mb, lost=lost)
    results = []
    for k, (seed, index) in enumerate(cases):
        verdicts: dict[str, dict[str, Verdict]] = {label: {} for label in optimizers}
        defined, samples = {}, 0
        for j, sem in enumerate(semantics):
            by_label, defined[sem], n = checked[k * len(semantics) + j]
            samples = max(samples, n)
            for label, v in by_label.items():
                verdicts[label][sem] = v
        results.append(CaseResult(generate(seed, index, templates), verdicts, defined, samples))
    report = SoundnessReport(settings, tuple(optimizers), results)
    if not settings.shrink:
        return report
    taken: Counter[tuple[str, str, str, str]] = Counter()
    jobs = []
    for r, label, sem, v in report.failures():
        if v.where == "worker":  # the process died: not shrunk (a candidate could kill its worker again)
            report.not_shrunk += 1
            continue
        k = (r.case.template, label, sem, v.status)
        if taken[k] >= settings.shrink_per_template:
            report.not_shrunk += 1
            continue
        taken[k] += 1
        jobs.append((r, label, sem, v, optimizers[label], settings.shrink_budget, settings.rlimit))
    tick = progress("shrink", len(jobs)) if progress else no_tick
    shrunk = run_all(
        _shrink_one, jobs, settings.workers, tick, memory_mb=settings.memory_mb, lost=lambda job: None
    )
    report.shrunk = [s for s in shrunk if s is not None]
    report.not_reproduced = len(shrunk) - len(report.shrunk)
    seen: set[str] = set()
    for s in report.shrunk:
        key = shape_key(s.program, s.int_semantics, s.failure, s.verdict.error)
        if key not in seen:
            seen.add(key)
            report.regressions.append(s.row())
    return report
