"""Translation validation: is an optimized program a refinement of its source? Alive2's question for LLVM.

Whatever the rewrites did, a result is checked against the program it came from before `optimize`
returns it (docs/DESIGN.md, "Translation validation"). The question is *refinement* under the
run's int semantics:
- "wrap": wherever the source is defined, the result is defined too and has the same value;
- "no_overflow": wherever no intermediate of the source leaves int32 or divides by zero, the result
  has no overflow or division by zero either, and the same value.
A result may define more than its source (`x // 0 * 0 -> 0`), never less.

How, in order:
1. the result *is* the source (hash-consed): "identical", nothing to check;
2. int/bool programs: z3 (`prove_equivalent(refinement=True)`) in one encoding, both exact:
   32-bit bit-vectors under "wrap", integers in the int32 range under "no_overflow" (where "no
   intermediate leaves int32" is a linear bound), each the encoding that decided more results with
   fewer z3 resources on 60-program samples of the bundled corpora (the other took 1.1-10 times
   (wrap) and 1.3-25 times (no_overflow) the median resources). The budget is z3's resource count
   (`VALIDATION_RLIMIT`), not a time, so the same pair gets the same verdict on every machine and
   under any load: a quick solver first, within a quarter of it and with no timer, then z3's
   default solver, whose timeout is a safety net an rlimit run never reaches. "proved" or
   "refuted" (a counterexample the concrete evaluator has replayed) decide; a proof that compared
   nothing (the source is defined for no input) is "proved", and says it is vacuous;
3. where z3 gives up within the budget, and for f32 programs (z3 is not asked about f32): inputs
   through the reference evaluator (eqsat_uopc.semantics.evaluation) under the same semantics:
   first every edge value (for i32 -2**31, 2**31 - 1, +-2**30, 2**16, 0, +-1, the programs'
   constants, their neighbours and negations, the bounds' ends of bounded inputs; for f32 +-0.0,
   infinities, NaN, subnormals; RANGEs at both ends), then seeded random ones, `VALIDATION_SAMPLES`
   in all: "tested" when the result agreed wherever the source was defined, "refuted" at the first
   input where it did not, "unknown" when the source was defined on none of them.

At scale the work stays linear in the programs' size: z3 is asked only about pairs of at most
`VALIDATION_Z3_NODES` nodes, and the evaluator's inputs are cut to `VALIDATION_WORK` node
evaluations (never fewer than `VALIDATION_MIN_SAMPLES`); the verdict's detail says when either
happened, and `compared` how many inputs were compared.

Everything is deterministic: the rlimit, and inputs drawn from a fixed seed.

`validate_candidates` is what `optimize` runs: candidates in order (the extracted program, greedy's
result), each validated until one is not refuted, the source itself last (it is always right). The
verdict of the program returned says what was refuted before it (`Validation.replaced`): a refuted
candidate is a bug of the tool's rewrites, reported, never returned.

    >>> from eqsat_uopc import UOp
    >>> from eqsat_uopc.verify import validate
    >>> x = UOp.param(0)
    >>> validate((x * 4 + 8) // 4, x + 2, "no_overflow").status
    'proved'
    >>> v = validate(((x + 1) % 6 - 1) % 3, x % 3, "wrap")  # x + 1 wraps at x = 2**31 - 1
    >>> v.status, v.counterexample, v.values
    ('refuted', {0: 2147483647}, (0, 1))
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.verify.equivalence import InputSampler, named_inputs
from eqsat_uopc.verify.proof import (
    ENCODING_NAMES,
    QuickTry,
    begin_quick_try,
    check_comparable,
    format_inputs,
    has_f32,
    prove_equivalent,
)

__all__ = [
    "CANDIDATE_NAMES",
    "VALIDATION_ENCODING",
    "VALIDATION_MIN_SAMPLES",
    "VALIDATION_RLIMIT",
    "VALIDATION_SAMPLES",
    "VALIDATION_STATUSES",
    "VALIDATION_WORK",
    "VALIDATION_Z3_NODES",
    "Replacement",
    "Validation",
    "begin_validation",
    "not_validated",
    "scaled_samples",
    "validate",
    "validate_candidates",
]

# z3's resource budget per validation: about 0.2-1 s of z3 on this project's machine; it decided
# 94% (wrap) and 99% (no_overflow) of the non-identical results of 60 programs of each bundled corpus
VALIDATION_RLIMIT = 1_000_000
_SAFETY_TIMEOUT_MS = 120_000  # never the limit that stops z3 in practice (the rlimit is)
VALIDATION_SAMPLES = 256  # inputs of the evaluator check: the edge values first, then random ones
# The budget that keeps validation linear in the programs' size (docs/DESIGN.md, "Scale"). z3 is
# asked only about pairs of at most VALIDATION_Z3_NODES nodes (source and result together): its
# encoding costs about 1 ms a node, and its fixed rlimit, spent on a larger pair, takes longer per
# unit (18 s for a 3,400-node pair that it did not decide). The evaluator compares the pair on
# VALIDATION_SAMPLES inputs while that is at most VALIDATION_WORK node evaluations (about 2-4 s of
# the evaluator), on fewer beyond (VALIDATION_WORK // nodes, at least VALIDATION_MIN_SAMPLES: the
# edge values first): a verdict says how many inputs it compared and, when the budget cut them, so.
VALIDATION_Z3_NODES = 2_000
VALIDATION_WORK = 250_000
VALIDATION_MIN_SAMPLES = 4
VALIDATION_ENCODING = {"wrap": "bv", "no_overflow": "int"}  # z3's encoding per int semantics (above)
VALIDATION_STATUSES = ("identical", "proved", "tested", "refuted", "unknown", "not_attempted")

# how a candidate is named in a verdict (any other label is printed as it is)
CANDIDATE_NAMES = {
    "result": "the result",
    "extracted": "the extracted program",
    "greedy": "greedy's result",
    "measured": "the measured choice",
    "input": "the input",
}


def _named(candidate: str) -> str:
    return CANDIDATE_NAMES.get(candidate, candidate)


@dataclass(frozen=True)
class Validation:
    """The verdict on one candidate result against its source (see the module docstring).

    status: "identical" (the result is the source), "proved" (z3), "tested" (the evaluator agreed on
      every input where the source was defined), "refuted", "unknown" (z3 gave up and the source
      was defined on no input tried), "not_attempted" (validation was switched off).
    check: what decided: "z3, bit-vectors", "z3, integers", "evaluator", "" (identical, off).
    candidate: which program this is the verdict on ("extracted", "greedy", "input", ...).
    counterexample, values: where a refuted candidate differs (inputs by PARAM slot or name, RANGEs
      as "range <identifier>") and (the source's value, the candidate's) there, None = undefined.
    compared: inputs on which the evaluator compared both (evaluator checks).
    detail: why z3 did not decide, or that a proof is vacuous.
    replaced: the candidates refuted before this one, in order (validate_candidates); each is a bug
      of the rewrites that made it.
    """

    status: str
    int_semantics: str
    check: str = ""
    seconds: float = 0.0
    candidate: str = "result"
    counterexample: dict[Any, Any] | None = None
    values: tuple[Any, Any] | None = None
    compared: int = 0
    detail: str = ""
    replaced: tuple[Replacement, ...] = field(default=())

    @property
    def refuted_any(self) -> bool:
        """Was some candidate refuted (this one, or one replaced by it)?"""
        return self.status == "refuted" or bool(self.replaced)

    @property
    def total_seconds(self) -> float:
        """Seconds spent validating, the replaced candidates included."""
        return self.seconds + sum(r.validation.seconds for r in self.replaced)

    def verdict(self) -> str:
        """This candidate's verdict alone, e.g. `proved (z3, bit-vectors, 12 ms)`."""
        ms = f"{self.seconds * 1000:.0f} ms"
        if self.status == "identical":
            return "identical (the result is the input: nothing to check)"
        if self.status == "not_attempted":
            return f"not attempted ({self.detail})"
        if self.status == "refuted":
            return f"refuted {self._where()} ({self.check}, {ms})"
        if self.status == "proved":
            vacuous = f"; vacuous: {self.detail}" if self.detail else ""
            return f"proved ({self.check}, {ms}{vacuous})"
        why = f"{self.detail}; " if self.detail else ""
        if self.status == "tested":
            return f"tested ({why}the evaluator agreed on {self.compared} inputs, {ms})"
        return f"unknown ({why}the input was defined on none of the inputs tried, {ms})"

    def _where(self) -> str:
        """`at p0 = 2147483647: input = 0, extracted = 1` (None: undefined)."""
        text = f"at {format_inputs(self.counterexample or {})}"
        if self.values is not None:
            shown = ["undefined" if v is None else repr(v) for v in self.values]
            text += f": input = {shown[0]}, {self.candidate} = {shown[1]}"
        return text

    def __str__(self) -> str:
        """One line: the verdict, and what was refuted and replaced before it, if anything."""
        if not self.replaced:
            return self.verdict()
        refuted = "; ".join(
            f"{_named(r.candidate)} {r.validation._where()} ({r.validation.check})" for r in self.replaced
        )
        checked = "" if self.status == "identical" else f", {self.verdict()}"
        returned = f"returned {_named(self.candidate)} instead{checked}"
        return f"REFUTED {refuted}: {returned}; a bug of eqsat-uopc's rewrites"

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields, the replaced candidates' verdicts and programs (.uir text)."""
        from eqsat_uopc.ir.uir import to_uir

        return {
            "status": self.status,
            "int_semantics": self.int_semantics,
            "check": self.check,
            "seconds": self.seconds,
            "candidate": self.candidate,
            "counterexample": _json_inputs(self.counterexample),
            "values": None if self.values is None else list(self.values),
            "compared": self.compared,
            "detail": self.detail,
            "replaced": [{"program": to_uir(r.program), **r.validation.to_dict()} for r in self.replaced],
            "text": str(self),
        }


@dataclass(frozen=True)
class Replacement:
    """A candidate that validation refuted, so that another was returned instead."""

    candidate: str
    program: UOp
    validation: Validation


def _json_inputs(inputs: Mapping[Any, Any] | None) -> dict[str, Any] | None:
    return (
        None if inputs is None else {f"p{k}" if isinstance(k, int) else str(k): v for k, v in inputs.items()}
    )


def not_validated(int_semantics: str, reason: str = "validation is off: validate=False") -> Validation:
    """The verdict of a result nobody checked (validation switched off)."""
    return Validation("not_attempted", int_semantics, detail=reason)


def validate(
    source: UOp,
    result: UOp,
    int_semantics: str = "wrap",
    *,
    rlimit: int = VALIDATION_RLIMIT,
    samples: int = VALIDATION_SAMPLES,
    seed: int = 0,
    names: Mapping[int, str] | None = None,
    candidate: str = "result",
    begun: QuickTry | None = None,
) -> Validation:
    """Is `result` a refinement of `source` under int_semantics? (See the module docstring.)

    rlimit is z3's resource budget, samples the evaluator's inputs where z3 does not decide (or
    the programs have f32 values), seed their random part; names label PARAM slots in a
    counterexample; candidate names the result in the verdict; begun: z3's quick try of this
    check, begun earlier in the z3 process (`begin_validation`): the same verdict, sooner.
    """
    if int_semantics not in INT_SEMANTICS:
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    start = time.perf_counter()
    if result is source:
        return Validation("identical", int_semantics, candidate=candidate)
    encoding = VALIDATION_ENCODING[int_semantics]
    # a check begun early was of comparable programs without f32 (begin_validation)
    checked = begun is not None and begun.asks(source, result, int_semantics, encoding, True, rlimit)
    if not checked:
        check_comparable(source, result)
    detail = "f32, not proved: inputs with +-0.0, NaN and infinities among them"
    nodes = source.size + result.size
    requested, samples = samples, scaled_samples(samples, nodes)
    f32 = not checked and has_f32(source, result)
    if not f32 and nodes > VALIDATION_Z3_NODES:
        detail = f"z3 not asked: {nodes:,} nodes, above {VALIDATION_Z3_NODES:,} (VALIDATION_Z3_NODES)"
    elif not f32:
        proof = prove_equivalent(
            source,
            result,
            int_semantics,
            _SAFETY_TIMEOUT_MS,
            refinement=True,
            names=names,
            rlimit=rlimit,
            encodings=(encoding,),
            quick_first=True,
            quick_try=begun,
        )
        check = f"z3, {ENCODING_NAMES[encoding]}"
        if proof.status in ("proved", "vacuous", "refuted"):
            status = "refuted" if proof.status == "refuted" else "proved"
            why = "the input is undefined everywhere" if proof.status == "vacuous" else ""
            return Validation(
                status,
                int_semantics,
                check,
                time.perf_counter() - start,
                candidate,
                proof.counterexample,
                proof.values,
                detail=why,
            )
        detail = f"{check} undecided at rlimit {rlimit:,}: {proof.reason}"
    if samples < requested:
        detail += (
            f"; {samples} inputs for {nodes:,} nodes (VALIDATION_WORK {VALIDATION_WORK:,} node evaluations)"
        )
    compared, bad = _evaluator_check(source, result, int_semantics, samples, seed)
    seconds = time.perf_counter() - start
    if bad is not None:
        cex = named_inputs(bad[0], bad[1], names)
        return Validation(
            "refuted", int_semantics, "evaluator", seconds, candidate, cex, bad[2], compared, detail
        )
    status = "tested" if compared else "unknown"
    return Validation(
        status, int_semantics, "evaluator", seconds, candidate, compared=compared, detail=detail
    )


def begin_validation(
    source: UOp, result: UOp, int_semantics: str, *, rlimit: int = VALIDATION_RLIMIT
) -> QuickTry | None:
    """Begin `validate(source, result, int_semantics, rlimit=rlimit)` before it is asked: z3's quick
    try, sent to the z3 process (proof.py, `begin_quick_try`; verify/quick_worker.py), which
    answers while the caller goes on; `validate(..., begun=)` then takes its answer, to the same
    verdict. None where validate would not ask z3 (an identical result, f32, above
    VALIDATION_Z3_NODES, programs it cannot compare). A try not needed is dropped (`QuickTry.drop`)."""
    if result is source or int_semantics not in INT_SEMANTICS:
        return None
    if source.size + result.size > VALIDATION_Z3_NODES or has_f32(source, result):
        return None
    try:
        check_comparable(source, result)
    except ValueError:
        return None
    return begin_quick_try(source, result, int_semantics, VALIDATION_ENCODING[int_semantics], True, rlimit)


def scaled_samples(samples: int, nodes: int) -> int:
    """The evaluator's inputs for a pair of `nodes` nodes: `samples`, fewer where that would pass
    VALIDATION_WORK node evaluations, never fewer than VALIDATION_MIN_SAMPLES (nor than asked).

        >>> scaled_samples(256, 100), scaled_samples(256, 20_000), scaled_samples(256, 400_000)
        (256, 12, 4)
    """
    return max(min(samples, VALIDATION_MIN_SAMPLES), min(samples, VALIDATION_WORK // max(nodes, 1)))


def _evaluator_check(
    source: UOp, result: UOp, int_semantics: str, samples: int, seed: int
) -> tuple[int, tuple[dict[int, Any], dict[Any, int], tuple[Any, Any]] | None]:
    """(inputs compared, the first input where result does not refine source: params, ranges and
    both values), the edge inputs first, then random ones."""
    rng = random.Random(f"validate:{seed}")
    draw = InputSampler(rng, (source, result))
    params = {p.arg.slot: p for prog in (source, result) for p in call_params(prog)}
    edges = {s: draw.edges(p.dtype, p.arg.bounds) for s, p in params.items()}
    rounds = max((len(e) for e in edges.values()), default=1)
    compared = 0
    for k in range(samples):
        if k < rounds:  # every edge value of each input once, the inputs' walks at different strides
            pv = {
                s: _filled(edges[s][(k * (2 * j + 1)) % len(edges[s])], p.shape)
                for j, (s, p) in enumerate(params.items())
            }
            draw_range = _range_end if k % 2 else _range_start
        else:
            pv = {s: draw.value(p.dtype, p.shape, p.arg.bounds) for s, p in params.items()}
            draw_range = draw.range_value
        rv: dict[Any, int] = {}
        before = evaluate(source, pv, rv, int_semantics, draw_range)
        if not before.defined:
            continue
        after = evaluate(result, pv, rv, int_semantics, draw_range)
        compared += 1
        if not after.defined or not same_value(before.value, after.value):
            return compared, (pv, rv, (before.value, after.value if after.defined else None))
    return compared, None


def _range_start(ident: Any, extent: int) -> int:
    return 0


def _range_end(ident: Any, extent: int) -> int:
    return extent - 1


def _filled(value: Any, shape: tuple[int, ...]) -> Any:
    """value in every element of shape (nested lists; the value itself for a scalar)."""
    for n in reversed(shape):
        value = [value] * n
    return value


def validate_candidates(
    source: UOp,
    candidates: Sequence[tuple[str, UOp | None]],
    int_semantics: str = "wrap",
    *,
    known: Mapping[UOp, Validation] | None = None,
    begun: Mapping[UOp, QuickTry] | None = None,
    **settings: Any,
) -> tuple[UOp, Validation]:
    """The first candidate (label, program) that validation does not refute, and its verdict, whose
    `replaced` lists the refuted ones before it; the source itself ("input") when every candidate
    is refuted. A None program is skipped (no greedy result), a program listed twice is validated
    once, a candidate that is the source itself is labelled "input"; `known` holds verdicts already
    found for some programs (against this source, under these semantics), `begun` their checks
    begun early (begin_validation, with the default rlimit). settings: validate's (rlimit, samples,
    seed, names)."""
    refuted: list[Replacement] = []
    seen: dict[UOp, Validation] = dict(known or {})
    listed: set[UOp] = set()
    for label, program in (*candidates, ("input", source)):
        if program is None or program in listed:
            continue  # no such candidate, or refuted already under its first label
        listed.add(program)
        label = "input" if program is source else label  # (greedy's result may be the input itself)
        v = seen.get(program)
        if v is None:
            early = (begun or {}).get(program)
            v = seen[program] = validate(
                source, program, int_semantics, candidate=label, begun=early, **settings
            )
        v = dataclasses.replace(v, candidate=label, replaced=())
        if v.status != "refuted":
            return program, dataclasses.replace(v, replaced=tuple(refuted))
        refuted.append(Replacement(label, program, v))
    raise AssertionError("the source refines itself")  # pragma: no cover  (the input is identical)
