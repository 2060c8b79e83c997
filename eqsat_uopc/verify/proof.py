"""prove_equivalent: a z3 proof that two int32/bool programs compute the same value.

What is proved (both semantics, see z3_encode.py):
- default: on every input where *both* programs are defined, their values are equal. This is the
  right question for two optimizations of one program: each may define what the original left
  undefined (x // 0 * 0 -> 0), and they need not agree there;
- refinement=True: wherever the first program is defined, the second is defined too and equal:
  the soundness of a rewrite first -> second (a rewrite may define what was undefined, never the
  reverse; under "no_overflow" it may not introduce an overflow either).

Verdicts: "proved"; "vacuous" when the goal holds only because no input is defined for both
programs (refinement=True: for the first), as for `x // 0` against anything: nothing was compared;
"refuted" with a counterexample (PARAM values by slot, or by the caller's names; RANGE values under
"range <identifier>"), which the concrete evaluator has replayed; "unknown" when z3 gives up
(timeout or resource limit: never "equal"); "not_attempted" for programs with f32 values, which are
left to random testing.

Encodings (z3_encode.py): both exact. By default, under "wrap" integers with explicit wraparound
first, with a third of the budget, then 32-bit bit-vectors; under "no_overflow" integers alone.
`encodings` chooses another plan: each encoding in turn, each with the whole rlimit and an equal
share of timeout_ms.

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.verify import prove_equivalent
    >>> x = UOp.param(0)
    >>> p = prove_equivalent(x < x + 1, UOp.const(True))  # int_semantics "wrap"
    >>> p.status, p.counterexample
    ('refuted', {0: 2147483647})
    >>> prove_equivalent(x < x + 1, UOp.const(True), "no_overflow").status
    'proved'
    >>> prove_equivalent(x // 0, UOp.const(5)).status  # x // 0 is defined for no x
    'vacuous'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import z3

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp, call_params, prod
from eqsat_uopc.semantics.evaluation import Evaluation, evaluate, nest
from eqsat_uopc.semantics.interpret import interpret
from eqsat_uopc.semantics.values import same_value
from eqsat_uopc.verify import quick_worker
from eqsat_uopc.verify.quick_contexts import QUICK_TACTICS, quick_solver
from eqsat_uopc.verify.quick_worker import Asked
from eqsat_uopc.verify.smt_text import SmtScript, SmtTextDomain, and_text
from eqsat_uopc.verify.z3_encode import ENCODINGS, own_z3_context

__all__ = [
    "ENCODING_NAMES",
    "Proof",
    "QuickTry",
    "begin_quick_try",
    "check_comparable",
    "format_inputs",
    "has_f32",
    "input_key",
    "prove_equivalent",
]

ENCODING_NAMES = {"bv": "bit-vectors", "int": "integers"}  # as a Proof's `encoding` is printed


@dataclass(frozen=True)
class Proof:
    """The outcome of prove_equivalent."""

    status: str  # "proved" | "vacuous" | "refuted" | "unknown" | "not_attempted"
    int_semantics: str
    counterexample: dict[Any, Any] | None = None  # inputs where the programs differ (refuted only)
    values: tuple[Any, Any] | None = None  # both programs' values there (None: undefined)
    reason: str = ""  # why unknown, not attempted or vacuous
    encoding: str | None = None  # the encoding that decided ("bv" or "int"), when one did

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
    encodings: Sequence[str] | None = None,
    quick_first: bool = False,
    quick_try: QuickTry | None = None,
) -> Proof:
    """Prove (or refute) that a and b agree, under int_semantics "wrap" or "no_overflow".

    timeout_ms bounds z3's wall time and rlimit (optional) its resource count, which, unlike a
    timeout, gives the same answer on every machine; either limit reached gives "unknown".
    encodings: the z3 encodings to try in turn ("bv", "int"; see the module docstring).
    quick_first: ask a quick solver first (QUICK_TACTICS: z3's SMT core after simplify,
    propagate-values and solve-eqs), within a quarter of the rlimit and with no timer (its rlimit
    bounds it; timeout_ms bounds the default solver), and z3's default solver only where that does
    not decide. The default solver's tactics cost 20-40 ms to set up in a fresh context; the quick
    solver decides most small questions in about a millisecond (measured on the bundled corpora's
    optimize results). Either answer is exact; a counterexample may differ.

    quick_try: the quick try of this question (these programs, semantics, refinement and rlimit, the
    plan's first encoding), begun earlier in the z3 process (`begin_quick_try`). Where it says
    unsat and a simple input is defined, that is the proof, as the quick try here would have found;
    anything else is asked here as if nothing had been begun. (Another question's try is not used.)
    """
    if int_semantics not in ("wrap", "no_overflow"):
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    if encodings is not None:
        unknown = [e for e in encodings if e not in ENCODINGS]
        if unknown or not encodings:
            raise ValueError(f"encodings must be some of {ENCODINGS}, got {tuple(encodings)!r}")
    first = encodings[0] if encodings else "int"  # the plan's first encoding (below)
    # the quick try begun in the z3 process (of comparable programs without f32) said unsat: the quick
    # try here would say so too, and the proof stands once a simple input shows that it compared
    # something (sought while the process answers); else all is asked here
    # (the witness and the first question are each made once, for the try begun and for the ones here)
    witnessed = cache(partial(_defined_somewhere, a, b, int_semantics, refinement))
    asked_before: tuple[SmtScript, str, str] | None = None
    if (
        quick_try is not None
        and quick_first
        and quick_try.asks(a, b, int_semantics, first, refinement, rlimit)
    ):
        witnessed()
        if quick_try.take() == "unsat" and witnessed():
            return Proof("proved", int_semantics, encoding=first)
        asked_before = quick_try.parts
    check_comparable(a, b)
    if has_f32(a, b):
        return Proof("not_attempted", int_semantics, reason="f32 programs are not proved")
    if encodings is not None:
        share = max(1, timeout_ms // len(encodings))
        plan = [(e, share) for e in encodings]
    elif int_semantics == "wrap":
        # integers with explicit wraparound (linear arithmetic, strong on div/mod by constants)
        # first, then bit-vectors (strong on products of variables)
        plan = [("int", max(1, timeout_ms // 3)), ("bv", max(1, timeout_ms - timeout_ms // 3))]
    else:
        plan = [("int", timeout_ms)]
    reasons = []
    for encoding, budget in plan:
        if asked_before is not None and encoding == first:
            script, not_goal, defined = asked_before
        else:
            script, not_goal, defined = _question(a, b, int_semantics, encoding, refinement)
        answer: Proof | str = ""
        for quick in (True, False) if quick_first else (False,):
            with _fresh_solver(quick, budget, rlimit) as solver:
                answer = _decide(
                    solver,
                    (a, b, int_semantics, refinement, names),
                    script,
                    encoding,
                    (not_goal, defined),
                    (budget, rlimit),
                    quick_first,
                    witnessed,
                )
            if isinstance(answer, Proof):
                return answer
        reasons.append(answer or "z3 gave up")
    return Proof("unknown", int_semantics, reason="; ".join(dict.fromkeys(reasons)))


@contextmanager
def _fresh_solver(quick: bool, timeout_ms: int, rlimit: int | None) -> Iterator[z3.Solver]:
    """A solver in a z3 context of its own, current for the block: the quick solver, made ahead of
    time (quick_contexts.py), within a quarter of the rlimit; else z3's default solver within both
    limits. Each in a context of its own: the terms the quick try's tactics made would steer the
    default solver's search (a capture pair it proves alone in 489,000 units ran past 1,000,000
    after them)."""
    if quick:
        with quick_solver(_quarter(rlimit)) as solver:
            yield solver
    else:
        with own_z3_context():
            yield _limited(z3.Solver(), timeout_ms, rlimit)


def _decide(
    solver: z3.Solver,
    pair: tuple[UOp, UOp, str, bool, Mapping[int, str] | None],
    script: SmtScript,
    encoding: str,
    terms: tuple[str, str],
    budget: tuple[int, int | None],
    quick_first: bool,
    witnessed: Callable[[], bool],
) -> Proof | str:
    """solver's answer to the script's question (pair: prove_equivalent's a, b, int_semantics,
    refinement, names; terms: the goal's negation, and where the goal compares anything; witnessed:
    `_defined_somewhere` of the pair, computed once a call of prove_equivalent): a Proof
    when it decides, else z3's reason for giving up. No z3 object of the solver's context outlives
    the call (the quick try's context is then deleted on quick_contexts.py's thread)."""
    a, b, int_semantics, refinement, names = pair
    not_goal, defined = terms
    result = script.solver(solver, not_goal).check()
    if result == z3.unsat:
        if witnessed():  # the goal compared something
            return Proof("proved", int_semantics, encoding=encoding)
        return _proved(script, defined, budget, encoding, refinement, quick_first)
    if result == z3.sat:
        return _refutation(a, b, int_semantics, refinement, names, script, solver.model(), encoding)
    return solver.reason_unknown()


@dataclass(eq=False)
class QuickTry:
    """The quick try of prove_equivalent's first question, begun in the z3 process (quick_worker.py)
    by `begin_quick_try` so that it runs while the caller does other work; prove_equivalent takes
    its answer (`quick_try=`), or the caller drops it (`drop`)."""

    question: tuple[UOp, UOp, str, str, bool, int | None]  # a, b, int_semantics, encoding, refinement, rlimit
    asked: Asked
    parts: tuple[SmtScript, str, str]  # the question as `_question` made it (asked again, if need be)
    taken: bool = field(default=False)

    def asks(self, *question: Any) -> bool:
        """Is this the try of that question (a, b, int_semantics, encoding, refinement, rlimit), and
        not taken yet?"""
        return (
            not self.taken
            and len(question) == 6
            and all(
                x is y if isinstance(x, UOp) else x == y for x, y in zip(self.question, question, strict=True)
            )
        )

    def take(self) -> str | None:
        """z3's answer ("unsat", "sat", "unknown"), waiting for it if the process has it; None when it
        was not asked (the process was not ready) or the process is gone."""
        self.taken = True
        return self.asked.answer()

    def drop(self) -> None:
        """Not needed: its answer is thrown away."""
        if not self.taken:
            self.taken = True
            self.asked.drop()


def begin_quick_try(
    a: UOp, b: UOp, int_semantics: str, encoding: str, refinement: bool, rlimit: int | None
) -> QuickTry:
    """Begin prove_equivalent(a, b, int_semantics, refinement=refinement, rlimit=rlimit,
    encodings=(encoding,), quick_first=True)'s quick try in the z3 process (quick_worker.py): the
    question is written here and checked there, by the quick solver of a fresh context made as here
    (its rlimit a quarter of `rlimit`). (The programs must be comparable, without f32.)"""
    parts = _question(a, b, int_semantics, encoding, refinement)
    script, not_goal, _ = parts
    asked = quick_worker.ask(script.asserting(not_goal), _quarter(rlimit), QUICK_TACTICS)
    return QuickTry((a, b, int_semantics, encoding, refinement, rlimit), asked, parts)


def _question(
    a: UOp, b: UOp, int_semantics: str, encoding: str, refinement: bool
) -> tuple[SmtScript, str, str]:
    """The question "is there an input where the goal fails?" in SMT-LIB text (smt_text.py: the
    encoding of z3_encode.py, a tenth of the Python calls): the script of the domain's hypotheses,
    the goal's negation, and the condition under which the goal compares anything."""
    text = SmtTextDomain(int_semantics, encoding)
    ea, eb = interpret(a, text), interpret(b, text)
    da = and_text(*(d for _, d in ea))
    db = and_text(*(d for _, d in eb))
    equal = and_text(*(f"(= {x} {y})" for (x, _), (y, _) in zip(ea, eb, strict=True)))
    if refinement:
        defined = da
        goal = f"(=> {defined} {and_text(db, equal)})"
    else:
        defined = and_text(da, db)
        goal = f"(=> {defined} {equal})"
    return text.script(), f"(not {goal})", defined


# The quick solver (quick_first, quick_contexts.QUICK_TACTICS): z3's SMT core behind three cheap
# tactics, which substitute what the encoding defines by equations (a division's quotient and
# remainder, a wrapped product) and fold what is constant before the search. On 60-program samples of
# the bundled corpora it decided within its quarter of the rlimit what z3's plain SMT core
# (SimpleSolver) decided there, and more (Caviar no_overflow 55 of 55 against 54, index no_overflow
# 55 of 56 against 52): fewer questions go on to the default solver (bench/README.md, "validation.py").


def _limited(solver: z3.Solver, timeout_ms: int | None, rlimit: int | None) -> z3.Solver:
    """solver within the limits (None: none). A timeout is a timer thread of z3's that each check
    wakes and waits for: at load 8 on this 2-core machine that cost 1.7-4.3 ms a check, more than a
    Caviar check takes; the quick solver has none (its rlimit bounds it), the default solver, where
    the long runs are, keeps it as the safety net behind the rlimit."""
    if timeout_ms is not None:
        solver.set("timeout", int(timeout_ms))
    if rlimit is not None:
        solver.set("rlimit", int(rlimit))
    return solver


def _solver(
    script: SmtScript,
    timeout_ms: int,
    rlimit: int | None,
    quick: bool = False,
    terms: tuple[str, ...] = (),
) -> z3.Solver:
    """A solver of the current context holding the script's hypotheses and `terms`, within the
    limits (quick: the quick solver, bounded by its rlimit alone). One per question: a solver asked
    twice, or pushed, becomes z3's incremental solver, slower on bit-vectors."""
    if quick:
        solver = _limited(z3.Then(*QUICK_TACTICS).solver(), None, rlimit)
    else:
        solver = _limited(z3.Solver(), timeout_ms, rlimit)
    return script.solver(solver, *terms)


_WITNESSES = (0, 1, -1, 2, 7)  # simple inputs that show a proof is not vacuous, tried before z3


def _defined_somewhere(a: UOp, b: UOp, int_semantics: str, refinement: bool) -> bool:
    """Is the first program (and, unless refinement, the second) defined on some simple input:
    every input one of _WITNESSES (clamped into its bounds), every RANGE at it (clamped into its
    extent)? A witness that a proof compared something, found by the evaluator in a fraction of
    the time z3 takes to find one (which _proved asks only when none of these is)."""
    params = {p.arg.slot: p for program in (a, b) for p in call_params(program)}
    for k in _WITNESSES:
        values = {}
        for slot, p in params.items():
            lo, hi = p.arg.bounds or (k, k)
            scalar = (k % 2 == 1) if p.dtype is dtypes.bool else min(max(k, lo), hi)
            values[slot] = nest([scalar] * prod(p.shape), p.shape)

        def at_k(ident: Any, extent: int, k: int = k) -> int:
            return min(max(k, 0), extent - 1)

        ranges: dict[Any, int] = {}
        if evaluate(a, values, ranges, int_semantics, at_k).defined and (
            refinement or evaluate(b, values, ranges, int_semantics, at_k).defined
        ):
            return True
    return False


def _quarter(rlimit: int | None) -> int | None:
    return None if rlimit is None else max(1, rlimit // 4)


def _proved(
    script: SmtScript,
    defined: str,
    budget: tuple[int, int | None],
    encoding: str,
    refinement: bool,
    quick_first: bool = False,
) -> Proof:
    """ "proved", or "vacuous" when no input satisfies `defined` (the goal then compared nothing).
    Should z3 give up on that question, the proof stands and its reason says so. (quick_first: as
    prove_equivalent's.)"""
    found = z3.unknown
    for quick in (True, False) if quick_first else (False,):
        rlimit = _quarter(budget[1]) if quick else budget[1]
        found = _solver(script, budget[0], rlimit, quick, terms=(defined,)).check()
        if found != z3.unknown:
            break
    int_semantics = "no_overflow" if script.checked else "wrap"
    if found == z3.unsat:
        which = "the first program" if refinement else "both programs"
        return Proof("vacuous", int_semantics, reason=f"no input is defined for {which}", encoding=encoding)
    reason = "" if found == z3.sat else "whether any input is defined for both is unknown"
    return Proof("proved", int_semantics, reason=reason, encoding=encoding)


def _refutation(
    a: UOp,
    b: UOp,
    int_semantics: str,
    refinement: bool,
    names: Mapping[int, str] | None,
    script: SmtScript,
    model: z3.ModelRef,
    encoding: str,
) -> Proof:
    params: dict[int, Any] = {}
    for slot, (node, elems) in sorted(script.params.items()):
        if node.dtype is dtypes.bool:
            flat = [z3.is_true(model.eval(v, model_completion=True)) for v in elems]
        else:
            flat = [_model_int(model, v) for v in elems]
        params[slot] = _nest(flat, node.shape)
    ranges = {ident: _model_int(model, v) for ident, v in script.ranges.items()}
    va, vb = evaluate(a, params, ranges, int_semantics), evaluate(b, params, ranges, int_semantics)
    if not _differs(va, vb, refinement):  # pragma: no cover  (the encoding and the evaluator agree)
        return Proof(
            "unknown",
            int_semantics,
            reason=f"z3's counterexample {params} {ranges} did not replay in the concrete evaluator",
        )
    cex: dict[Any, Any] = {input_key(s, names): v for s, v in params.items()}
    cex.update({f"range {ident!r}": v for ident, v in ranges.items()})
    return Proof("refuted", int_semantics, cex, (va.value, vb.value), encoding=encoding)


def _differs(va: Evaluation, vb: Evaluation, refinement: bool) -> bool:
    if refinement:
        return va.defined and (not vb.defined or not same_value(va.value, vb.value))
    return va.defined and vb.defined and not same_value(va.value, vb.value)
