"""One fuzz case checked: tinygrad's `simplify` and our optimizer side by side, sizes and soundness.

For each int semantics asked for, the optimizer's result is ranked against tinygrad's by DAG size
("smaller", "equal", "larger"; "no_tinygrad" when tinygrad failed or its result does not translate
back), and checked against the input program on sampled inputs inside the input bounds:

- the inputs: every point of the bounds' box when it has at most `samples` points, else the box's
  corners and edges (each input at lo, lo + 1, 0, hi - 1, hi) mixed with uniform draws, from an rng
  seeded by the case, so a check is reproducible;
- **unsound** means our result disagrees with the input program on an input where the input is
  defined under the semantics asked for: under "wrap" where no division by zero happens, under
  "no_overflow" also where no intermediate i32 result the value depends on overflows (the input's
  overflow, not the result's: a rewrite may not move the program onto inputs it was not defined on).
  The result is evaluated as it would run (int32 wraps), and undefined where the input is defined
  counts as a disagreement;
- tinygrad's own result is checked the same way under "no_overflow" (its assumption); a
  disagreement is recorded as tinygrad's, never as ours.

The optimizer is passed in (`Optimizer`: program and int semantics to program) rather than imported:
the pipeline's `optimize` sits above the bridges, and a stub lets the fuzzer's own tests fail on
purpose.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.extract import cost_of
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.tinygrad.bridge import tinygrad_simplify
from eqsat_uopc.tinygrad.fuzz.attribution import tinygrad_rules
from eqsat_uopc.tinygrad.fuzz.grammar import FuzzCase

__all__ = [
    "SEMANTICS",
    "CaseResult",
    "Counterexample",
    "Optimizer",
    "Outcome",
    "Reference",
    "check_case",
    "dag_size",
    "sample_inputs",
    "tinygrad_result",
]

SEMANTICS = ("no_overflow", "wrap")  # the headline first: tinygrad assumes no overflow
Optimizer = Callable[[UOp, str], UOp]  # (program, int_semantics) -> an equivalent program
_UNDEFINED = object()


def dag_size(program: UOp) -> int:
    """The DAG size (distinct nodes), the size both simplifiers are ranked by."""
    return int(cost_of(program, "dag_size"))


# ---------------------------------------------------------------------------
# inputs and the reference values


def _params(program: UOp) -> list[UOp]:
    return sorted(call_params(program), key=lambda p: p.arg.slot)


def _domain(p: UOp) -> tuple[int, int]:
    return p.arg.bounds if p.arg.bounds is not None else (I32_MIN, I32_MAX)


def sample_inputs(program: UOp, samples: int, key: str) -> list[dict[int, int]]:
    """Inputs inside the bounds: the whole box if it has at most `samples` points, else `samples`
    points, a third from the edges (lo, lo + 1, 0, hi - 1, hi of each input) and the rest uniform."""
    params = _params(program)
    domains = [_domain(p) for p in params]
    box = 1
    for lo, hi in domains:
        box *= hi - lo + 1
    slots = [p.arg.slot for p in params]
    if box <= samples:
        return [
            dict(zip(slots, vals, strict=True))
            for vals in itertools.product(*(range(lo, hi + 1) for lo, hi in domains))
        ]
    rng = random.Random(f"fuzz-inputs:{key}")
    edges = [sorted({v for v in (lo, lo + 1, 0, 1, -1, hi - 1, hi) if lo <= v <= hi}) for lo, hi in domains]
    out: list[dict[int, int]] = []
    seen: set[tuple[int, ...]] = set()
    for k in range(samples * 3):
        if len(out) >= samples:
            break
        if k < samples // 3:
            vals = tuple(rng.choice(e) for e in edges)
        else:
            vals = tuple(_uniform(rng, lo, hi) for lo, hi in domains)
        if vals not in seen:
            seen.add(vals)
            out.append(dict(zip(slots, vals, strict=True)))
    return out


def _uniform(rng: random.Random, lo: int, hi: int) -> int:
    if hi - lo > 2**16 and rng.random() < 0.5:  # a wide input: small values too, where index math lives
        return min(max(rng.randint(-1000, 1000), lo), hi)
    return rng.randint(lo, hi)


@dataclass(frozen=True)
class Counterexample:
    """An input on which a result disagrees with the program it came from."""

    inputs: dict[int, int]  # by slot
    expected: Any  # the program's value
    got: Any  # the result's value (None: undefined there)

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": {f"v{k}": v for k, v in self.inputs.items()},
            "expected": self.expected,
            "got": self.got,
        }


class Reference:
    """A program's values on fixed inputs under both semantics, to check candidates against."""

    def __init__(self, program: UOp, inputs: Sequence[Mapping[int, int]]) -> None:
        self.program = program
        self.inputs = list(inputs)
        self.values: dict[str, list[Any]] = {"wrap": [], "no_overflow": []}
        for x in self.inputs:
            e = evaluate(program, x, None, "wrap")
            v = e.value if e.defined else _UNDEFINED
            self.values["wrap"].append(v)
            if e.defined and e.overflowed:  # only then can no_overflow differ from wrap
                n = evaluate(program, x, None, "no_overflow")
                self.values["no_overflow"].append(n.value if n.defined else _UNDEFINED)
            else:
                self.values["no_overflow"].append(v)

    def defined(self, int_semantics: str) -> int:
        """On how many of the inputs the program is defined under int_semantics."""
        return sum(v is not _UNDEFINED for v in self.values[int_semantics])

    def disagreement(self, candidate: UOp, int_semantics: str) -> Counterexample | None:
        """The first input where the program is defined under int_semantics and candidate (run as
        it would run: int32 wraps) has another value or none."""
        for x, want in zip(self.inputs, self.values[int_semantics], strict=True):
            if want is _UNDEFINED:
                continue
            e = evaluate(candidate, x, None, "wrap")
            got = e.value if e.defined else None
            if got is None or not same_value(got, want):
                return Counterexample(dict(x), want, got)
        return None


# ---------------------------------------------------------------------------
# one case


@dataclass(frozen=True)
class Outcome:
    """Our optimizer's result under one int semantics, ranked against tinygrad's."""

    int_semantics: str
    rank: str  # "smaller" | "equal" | "larger" | "no_tinygrad" | "error"
    program: UOp | None = None
    size: int | None = None
    counterexample: Counterexample | None = None  # set: unsound
    error: str = ""

    @property
    def unsound(self) -> bool:
        return self.counterexample is not None


@dataclass(frozen=True)
class CaseResult:
    """Everything one case's check found."""

    case: FuzzCase
    input_size: int
    tinygrad: UOp | None
    tinygrad_size: int | None
    tinygrad_error: str
    tinygrad_counterexample: Counterexample | None  # tinygrad's result disagrees with the input
    outcomes: dict[str, Outcome]
    defined: dict[str, int] = field(default_factory=dict)  # inputs the program is defined on, per semantics
    samples: int = 0
    tinygrad_rules: tuple[str, ...] = ()  # what tinygrad's simplification fired, for larger cases only


def tinygrad_result(program: UOp) -> tuple[UOp | None, str]:
    """tinygrad's simplification of program, translated back, or (None, why it failed)."""
    try:
        return tinygrad_simplify(program), ""
    except Exception as e:  # tinygrad's own errors, ZeroDivisionError, a result the bridge cannot translate
        return None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]


def _rank(ours: int, theirs: int | None) -> str:
    if theirs is None:
        return "no_tinygrad"
    return "smaller" if ours < theirs else "larger" if ours > theirs else "equal"


def check_case(
    case: FuzzCase, optimizer: Optimizer, semantics: Sequence[str] = SEMANTICS, samples: int = 200
) -> CaseResult:
    """tinygrad's simplify and `optimizer` under each of `semantics` on one case, ranked and checked."""
    program = case.program
    inputs = sample_inputs(program, samples, case.key)
    ref = Reference(program, inputs)
    tg, tg_error = tinygrad_result(program)
    tg_size = dag_size(tg) if tg is not None else None
    tg_cex = ref.disagreement(tg, "no_overflow") if tg is not None else None
    outcomes = {}
    for sem in semantics:
        try:
            ours = optimizer(program, sem)
        except Exception as e:  # a crash of the optimizer is a finding of its own
            outcomes[sem] = Outcome(sem, "error", error=f"{type(e).__name__}: {e}"[:300])
            continue
        size = dag_size(ours)
        outcomes[sem] = Outcome(sem, _rank(size, tg_size), ours, size, ref.disagreement(ours, sem))
    rules: tuple[str, ...] = ()
    if any(o.rank == "larger" for o in outcomes.values()):
        try:
            rules = tinygrad_rules(program)
        except Exception:  # the attribution is for the report; tinygrad ran untraced above
            rules = ()
    return CaseResult(
        case=case,
        input_size=dag_size(program),
        tinygrad=tg,
        tinygrad_size=tg_size,
        tinygrad_error=tg_error,
        tinygrad_counterexample=tg_cex,
        outcomes=outcomes,
        defined={sem: ref.defined(sem) for sem in semantics},
        samples=len(inputs),
        tinygrad_rules=rules,
    )
