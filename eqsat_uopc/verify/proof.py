"""prove_equivalent: a z3 proof that two int32/bool programs compute the same value.

What is proved (both semantics, see z3_encode.py):
- default: on every input where *both* programs are defined, their values are equal. This is the
  right question for two optimizations of one program: each may define what the original left
  undefined (x // 0 * 0 -> 0), and they need not agree there;
- refinement=True: wherever the first program is defined, the second is defined too and equal:
  the soundness of a rewrite first -> second (a rewrite may define what was undefined, never the
  reverse; under "no_overflow" it may not introduce an overflow either).

Verdicts: "proved"; "refuted" with a counterexample (PARAM values by slot, or by the caller's
names; RANGE values under "range <identifier>"), which the concrete evaluator has replayed;
"unknown" when z3 gives up (timeout or resource limit: never "equal"); "not_attempted" for programs
with f32 values, which are left to random testing.

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.verify import prove_equivalent
    >>> x = UOp.param(0)
    >>> p = prove_equivalent(x < x + 1, UOp.const(True))  # int_semantics "wrap"
    >>> p.status, p.counterexample
    ('refuted', {0: 2147483647})
    >>> prove_equivalent(x < x + 1, UOp.const(True), "no_overflow").status
    'proved'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import z3

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.semantics.evaluation import Evaluation, evaluate
from eqsat_uopc.semantics.interpret import interpret
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.verify.z3_encode import Z3Domain, as_bool, conjunction, own_z3_context

__all__ = ["Proof", "check_comparable", "format_inputs", "has_f32", "input_key", "prove_equivalent"]


@dataclass(frozen=True)
class Proof:
    """The outcome of prove_equivalent."""

    status: str  # "proved" | "refuted" | "unknown" | "not_attempted"
    int_semantics: str
    counterexample: dict[Any, Any] | None = None  # inputs where the programs differ (refuted only)
    values: tuple[Any, Any] | None = None  # both programs' values there (None: undefined)
    reason: str = ""  # why unknown or not attempted

    def __str__(self) -> str:
        text = f"z3 ({self.int_semantics}): {self.status}"
        if self.counterexample is not None:
            text += f" at {format_inputs(self.counterexample)}"
            if self.values is not None:
                text += f" (first = {self.values[0]!r}, second = {self.values[1]!r})"
        if self.reason:
            text += f" ({self.reason})"
        return text


def has_f32(*programs: UOp) -> bool:
    return any(u.dtype is dtypes.f32 for p in programs for u in p.toposort())


def check_comparable(a: UOp, b: UOp) -> None:
    """Raise ValueError unless a and b have one dtype, one shape and consistent PARAMs."""
    if a.dtype is not b.dtype or a.shape != b.shape:
        raise ValueError(
            f"cannot compare programs of different types: the first is {a.dtype.name} {a.shape}, "
            f"the second {b.dtype.name} {b.shape}"
        )
    seen: dict[int, UOp] = {p.arg.slot: p for p in call_params(a)}
    for p in call_params(b):
        q = seen.get(p.arg.slot)
        if q is not None and (q.dtype is not p.dtype or q.shape != p.shape):
            raise ValueError(
                f"PARAM slot {p.arg.slot} is {q.dtype.name} {q.shape} in the first program and "
                f"{p.dtype.name} {p.shape} in the second"
            )


def input_key(slot: int, names: Mapping[int, str] | None) -> Any:
    return names[slot] if names is not None and slot in names else slot


def format_inputs(inputs: Mapping[Any, Any]) -> str:
    """`x = 2147483647, p1 = -1`: slots without a name print as p<slot>."""
    if not inputs:
        return "no inputs"
    return ", ".join(f"{f'p{k}' if isinstance(k, int) else k} = {v!r}" for k, v in inputs.items())


def _model_int(model: z3.ModelRef, v: Any) -> int:
    r = model.eval(v, model_completion=True)
    return r.as_signed_long() if z3.is_bv_value(r) else r.as_long()


def _nest(flat: list[Any], shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    n = len(flat) // shape[0]
    return [_nest(flat[i * n : (i + 1) * n], shape[1:]) for i in range(shape[0])]


@own_z3_context()  # the verdict depends on nothing that ran before in the process
def prove_equivalent(
    a: UOp,
    b: UOp,
    int_semantics: str = "wrap",
    timeout_ms: int = 10_000,
    *,
    refinement: bool = False,
    names: Mapping[int, str] | None = None,
    rlimit: int | None = None,
) -> Proof:
    """Prove (or refute) that a and b agree, under int_semantics "wrap" or "no_overflow".

    timeout_ms bounds z3's wall time and rlimit (optional) its resource count, which, unlike a
    timeout, gives the same answer on every machine; either limit reached gives "unknown".
    """
    check_comparable(a, b)
    if int_semantics not in ("wrap", "no_overflow"):
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    if has_f32(a, b):
        return Proof("not_attempted", int_semantics, reason="f32 programs are not proved")
    # Under wrap, two exact encodings: integers with explicit wraparound (linear arithmetic, strong
    # on div/mod by constants) first, then bit-vectors (strong on products of variables).
    plan = [("int", max(1, timeout_ms // 3)), ("bv", max(1, timeout_ms - timeout_ms // 3))]
    if int_semantics == "no_overflow":
        plan = [("int", timeout_ms)]
    reasons = []
    for encoding, budget in plan:
        domain = Z3Domain(int_semantics, encoding)
        result, solver = _solve(a, b, domain, refinement, budget, rlimit)
        if result == z3.unsat:
            return Proof("proved", int_semantics)
        if result == z3.sat:
            return _refutation(a, b, int_semantics, refinement, names, domain, solver.model())
        reasons.append(solver.reason_unknown() or "z3 gave up")
    return Proof("unknown", int_semantics, reason="; ".join(dict.fromkeys(reasons)))


def _solve(
    a: UOp, b: UOp, domain: Z3Domain, refinement: bool, timeout_ms: int, rlimit: int | None
) -> tuple[Any, z3.Solver]:
    ea, eb = interpret(a, domain), interpret(b, domain)
    da = conjunction([d for _, d in ea])
    db = conjunction([d for _, d in eb])
    equal = z3.And(*[x == y for (x, _), (y, _) in zip(ea, eb, strict=True)])
    if refinement:
        goal = z3.Implies(as_bool(da), z3.And(as_bool(db), equal))
    else:
        goal = z3.Implies(z3.And(as_bool(da), as_bool(db)), equal)
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    if rlimit is not None:
        solver.set("rlimit", int(rlimit))
    solver.add(*domain.hypotheses)
    solver.add(z3.Not(goal))
    return solver.check(), solver


def _refutation(
    a: UOp,
    b: UOp,
    int_semantics: str,
    refinement: bool,
    names: Mapping[int, str] | None,
    domain: Z3Domain,
    model: z3.ModelRef,
) -> Proof:
    params: dict[int, Any] = {}
    for slot, (node, elems) in sorted(domain.params.items()):
        if node.dtype is dtypes.bool:
            flat = [z3.is_true(model.eval(v, model_completion=True)) for v in elems]
        else:
            flat = [_model_int(model, v) for v in elems]
        params[slot] = _nest(flat, node.shape)
    ranges = {ident: _model_int(model, v) for ident, v in domain.ranges.items()}
    va, vb = evaluate(a, params, ranges, int_semantics), evaluate(b, params, ranges, int_semantics)
    if not _differs(va, vb, refinement):  # pragma: no cover  (the encoding and the evaluator agree)
        return Proof(
            "unknown",
            int_semantics,
            reason=f"z3's counterexample {params} {ranges} did not replay in the concrete evaluator",
        )
    cex: dict[Any, Any] = {input_key(s, names): v for s, v in params.items()}
    cex.update({f"range {ident!r}": v for ident, v in ranges.items()})
    return Proof("refuted", int_semantics, cex, (va.value, vb.value))


def _differs(va: Evaluation, vb: Evaluation, refinement: bool) -> bool:
    if refinement:
        return va.defined and (not vb.defined or not same_value(va.value, vb.value))
    return va.defined and vb.defined and not same_value(va.value, vb.value)
