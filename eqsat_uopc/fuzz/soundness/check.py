"""One result checked against the program it came from: sound at every int32 value, or a counterexample.

A result is *sound* for a program under an int semantics when, on every input where the program is
defined under that semantics, the result is defined under it too and has the same value
(refinement): under "wrap" where nothing divides by zero (or -2**31 by -1), under "no_overflow"
also where no intermediate i32 result of the program leaves int32, and then none of the result's
may either. A result may define what the program left undefined, never the reverse.

`check_result` decides it in three steps, cheapest first:

1. a result that *is* the program (hash-consed: the same node) is sound;
2. the reference evaluator (eqsat_uopc.semantics.evaluation) on edge inputs (inputs.py): a
   disagreement is a counterexample, replayed exactly;
3. z3 (`prove_equivalent(..., refinement=True)`, bit-vectors with wraparound under "wrap", exact
   integers with overflow as undefined under "no_overflow") under a resource limit (`rlimit`), which,
   unlike a timeout, answers alike on every machine: "proved", or "refuted" with a counterexample the
   evaluator replays; "unknown" leaves the verdict to the tests of step 2 and is counted apart.

An optimizer that raises has *crashed*: a failure of its own. The optimizer is a parameter
(`Optimizer`: program and int semantics to program): the pipeline's `optimize` sits above this layer.
"""

from __future__ import annotations

import ast
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.fuzz.soundness.grammar import FuzzCase
from eqsat_uopc.fuzz.soundness.inputs import Assignment, edge_inputs
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.verify.proof import prove_equivalent

__all__ = [
    "DEFAULT_RLIMIT",
    "SEMANTICS",
    "STATUSES",
    "CaseResult",
    "Counterexample",
    "Optimizer",
    "Reference",
    "Verdict",
    "check_case",
    "check_result",
    "check_semantics",
    "crash_site",
    "error_text",
    "run_optimizer",
]

SEMANTICS = ("wrap", "no_overflow")
Optimizer = Callable[[UOp, str], UOp]  # (program, int_semantics) -> a program it claims equivalent
STATUSES = ("identical", "proved", "tested", "unsound", "crash")  # "tested": z3 unknown, tests passed
DEFAULT_RLIMIT = 4_000_000  # z3's resource limit per proof: deterministic, about a second at most
_TIMEOUT_MS = 120_000  # a wall-clock cap far above what the resource limit allows
_UNDEFINED = object()


@dataclass(frozen=True)
class Counterexample:
    """An input where the program is defined and the result is not, or has another value."""

    inputs: Assignment
    expected: Any  # the program's value
    got: Any  # the result's value; None where it is undefined
    found_by: str  # "tests" | "z3"

    @property
    def kind(self) -> str:
        """ "undefined" (the result overflows or divides by zero where the program does not) or "value"."""
        return "undefined" if self.got is None else "value"

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs.to_dict(),
            "expected": self.expected,
            "got": self.got,
            "kind": self.kind,
            "found_by": self.found_by,
        }


class Reference:
    """A program's values on fixed inputs under one int semantics, to test results against."""

    def __init__(self, program: UOp, int_semantics: str, inputs: Sequence[Assignment]) -> None:
        self.program = program
        self.int_semantics = int_semantics
        self.inputs = list(inputs)
        self.values = []
        for a in self.inputs:
            e = evaluate(program, a.params, a.ranges, int_semantics)
            self.values.append(e.value if e.defined else _UNDEFINED)

    def defined(self) -> int:
        """On how many of the inputs the program is defined."""
        return sum(v is not _UNDEFINED for v in self.values)

    def disagreement(self, result: UOp) -> Counterexample | None:
        """The first input where the program is defined and result is not, or differs."""
        for a, want in zip(self.inputs, self.values, strict=True):
            if want is _UNDEFINED:
                continue
            e = evaluate(result, a.params, a.ranges, self.int_semantics)
            got = e.value if e.defined else None
            if got is None or not same_value(got, want):
                return Counterexample(a, want, got, "tests")
        return None


@dataclass(frozen=True)
class Verdict:
    """What one check of one result found."""

    status: str  # one of STATUSES
    program: UOp | None = None  # the result (None: crashed)
    counterexample: Counterexample | None = None
    error: str = ""  # the exception of a crash, or why z3 gave up
    where: str = ""  # a crash's site (crash_site)
    z3: str = "skipped"  # "proved" | "vacuous" | "refuted" | "unknown" | "skipped"
    seconds: float = 0.0  # the optimizer's time

    @property
    def failed(self) -> bool:
        return self.status in ("unsound", "crash")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "z3": self.z3}
        if self.program is not None:
            out["result"] = to_uir(self.program)
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample.to_dict()
        if self.error:
            out["error"] = self.error
        if self.where:
            out["where"] = self.where
        return out


def error_text(e: BaseException) -> str:
    """An exception as one line: `UOpError: CONST i32 value 2147483648 is outside the int32 range`."""
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}"[:300]


def crash_site(e: BaseException) -> str:
    """`eqsat_uopc/linear/divmod.py:186 in _nest_by_factor`: the innermost frame of eqsat_uopc's own
    code (not of the IR's constructors, which only report what a caller built), else the innermost."""
    frames = traceback.extract_tb(e.__traceback__)
    own = [f for f in frames if "eqsat_uopc" in f.filename.replace("\\", "/")]
    callers = [f for f in own if not f.filename.replace("\\", "/").endswith("/ir/uop.py")]
    frame = (callers or own or frames or [None])[-1]
    if frame is None:
        return ""
    path = frame.filename.replace("\\", "/")
    cut = path.rfind("eqsat_uopc/")
    if cut < 0 and "/rules/" in path:
        cut = path.rfind("rules/")
    return f"{path[cut:] if cut >= 0 else path}:{frame.lineno} in {frame.name}"


def _z3_counterexample(
    program: UOp, result: UOp, int_semantics: str, cex: Mapping[Any, Any]
) -> Counterexample:
    params: dict[int, Any] = {}
    ranges: dict[Any, int] = {}
    for k, v in cex.items():
        if isinstance(k, int):
            params[k] = v
        else:  # "range 'r0'"
            ranges[ast.literal_eval(str(k).removeprefix("range "))] = v
    a = Assignment(params, ranges)
    want = evaluate(program, params, ranges, int_semantics)
    got = evaluate(result, params, ranges, int_semantics)
    return Counterexample(a, want.value, got.value if got.defined else None, "z3")


def check_result(
    program: UOp, result: UOp, ref: Reference, rlimit: int = DEFAULT_RLIMIT, seconds: float = 0.0
) -> Verdict:
    """Is result sound for program under ref's int semantics (see the module docstring)?"""
    if result is program:
        return Verdict("identical", result, seconds=seconds)
    cex = ref.disagreement(result)
    if cex is not None:
        return Verdict("unsound", result, cex, seconds=seconds)
    proof = prove_equivalent(program, result, ref.int_semantics, _TIMEOUT_MS, refinement=True, rlimit=rlimit)
    if proof.status in ("proved", "vacuous"):  # vacuous: the program is defined nowhere, anything refines it
        return Verdict("proved", result, z3=proof.status, seconds=seconds)
    if proof.status == "refuted" and proof.counterexample is not None:
        cex = _z3_counterexample(program, result, ref.int_semantics, proof.counterexample)
        return Verdict("unsound", result, cex, z3="refuted", seconds=seconds)
    return Verdict("tested", result, error=proof.reason, z3="unknown", seconds=seconds)


def run_optimizer(
    optimizer: Optimizer, program: UOp, int_semantics: str, ref: Reference, rlimit: int = DEFAULT_RLIMIT
) -> Verdict:
    """optimizer's result for program under int_semantics, checked; a crash if it raises."""
    start = time.perf_counter()
    try:
        result = optimizer(program, int_semantics)
    except Exception as e:  # a crash is a finding: whatever the optimizer raised
        return Verdict("crash", error=error_text(e), where=crash_site(e), seconds=time.perf_counter() - start)
    return check_result(program, result, ref, rlimit, time.perf_counter() - start)


@dataclass(frozen=True)
class CaseResult:
    """One generated expression, checked for each optimizer under each int semantics."""

    case: FuzzCase
    verdicts: dict[str, dict[str, Verdict]]  # optimizer label -> int semantics -> verdict
    defined: dict[str, int] = field(default_factory=dict)  # inputs the program is defined on, per semantics
    samples: int = 0

    def failures(self) -> list[tuple[str, str, Verdict]]:
        return [(label, sem, v) for label, by in self.verdicts.items() for sem, v in by.items() if v.failed]


def check_semantics(
    case: FuzzCase,
    optimizers: Mapping[str, Optimizer],
    int_semantics: str,
    samples: int = 64,
    rlimit: int = DEFAULT_RLIMIT,
) -> tuple[dict[str, Verdict], int, int]:
    """Every optimizer's result for case under one int semantics, checked: (verdict per optimizer,
    on how many inputs the program is defined, how many inputs)."""
    inputs = edge_inputs(case.program, samples, case.key)
    ref = Reference(case.program, int_semantics, inputs)
    verdicts = {
        label: run_optimizer(opt, case.program, int_semantics, ref, rlimit)
        for label, opt in optimizers.items()
    }
    return verdicts, ref.defined(), len(inputs)


def check_case(
    case: FuzzCase,
    optimizers: Mapping[str, Optimizer],
    semantics: Sequence[str] = SEMANTICS,
    samples: int = 64,
    rlimit: int = DEFAULT_RLIMIT,
) -> CaseResult:
    """Every optimizer's result for case under each of semantics, checked."""
    verdicts: dict[str, dict[str, Verdict]] = {label: {} for label in optimizers}
    defined = {}
    n = 0
    for sem in semantics:
        by_label, defined[sem], n = check_semantics(case, optimizers, sem, samples, rlimit)
        for label, v in by_label.items():
            verdicts[label][sem] = v
    return CaseResult(case, verdicts, defined, n)
