"""Schemas of the Python rewrites, proved with z3 under the int32 semantics they run under.

A Python fold (the index algebra's division by a constant, a comparison scaled, a sum recombined) is
an algorithm, not one pattern: it reads the linear forms of terms, their atoms' bounds and some
constants, checks guards, and writes a term. Its *schema* transcribes that algorithm for one shape
of input (a numerator of one or two atoms, one inner remainder, ...) as a z3 question:

    for every int32 value of every atom, of every atom's bounds and of every additive constant,
    wherever the input is defined and the guards the code checks hold,
    the written term is defined and equal to the input                      (a refinement)

under the run's int semantics, exactly as the code computes it:
- "wrap": an i32 term computes the low 32 bits of its exact value (any spelling of a linear form
  does: the ring homomorphism from the integers onto int32), so the input term of a form has the
  value `wrap(exact)`; division and modulo by a value are floor division and modulo of the
  wrapped values, undefined at a zero divisor and at (-2**31) // -1;
- "no_overflow": the input computes no intermediate outside int32, so every term the fold reads
  has its exact value, in int32; the written term must compute no intermediate outside int32
  either (its canonical spelling's partial sums and products are checked one by one).

The i32 values are integers with explicit wraparound: an exact model of 32-bit two's complement
(`wrap(x)` is the one integer in [-2**31, 2**31) congruent to x modulo 2**32), which z3 decides as
linear integer arithmetic; the same questions over 64- or 72-bit bit-vectors time out (model.py
proves each primitive of this model equal to the 32-bit bit-vectors' own). What z3
cannot decide is a product of two symbolic values, so the *multiplicative parameters* of a schema
(coefficients and divisors) are fixed per question: each schema is proved for `instances` draws of
them (edge-biased: +-1, +-2, 2**16, 2**30, 2**31 - 1, -2**31, divisors of either sign), each
draw symbolic in everything else; its verdict is "proved on N parameter instances" (the status
"tested" of the rule verifier, which means the same for the egglog rules' constants), or
"refuted" with the counterexample, or "vacuous" when no draw satisfies the guards. A draw z3
cannot decide within its budget (a few, with coefficients near 2**30: linear arithmetic with large
coefficients needs many cuts) is counted as undecided and another is drawn: the report says how
many. Each question is asked of a fresh linear-integer-arithmetic solver in a z3 context of its
own (`_ask`), so its verdict depends on nothing asked before.

Schemas are declared beside this module, one module per module of rewrites; `verify_schema`
proves one, `verify_python_rules` (the package) every declared one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.verify.z3_encode import own_z3_context

__all__ = [
    "EDGE_CONSTANTS",
    "Atom",
    "Form",
    "Question",
    "Schema",
    "SchemaVerification",
    "Value",
    "draw_constant",
    "verify_schema",
    "verify_schemas",
]

EDGE_CONSTANTS = (1, -1, 2, -2, 3, -3, 4, 6, 8, -8, 12, 16, 2**16, 2**30, I32_MAX, I32_MIN, I32_MAX - 1)


def draw_constant(rng: random.Random, positive: bool = False, edges: bool = True) -> int:
    """An int32 parameter: an edge, a small one or any (positive: > 0)."""
    p = rng.random()
    if edges and p < 0.45:
        v = rng.choice(EDGE_CONSTANTS)
    elif p < 0.85:
        v = rng.choice((1, -1)) * rng.randint(1, 40)
    else:
        v = rng.randint(I32_MIN, I32_MAX)
    if positive:
        v = abs(v) if v != I32_MIN else I32_MAX
    return max(I32_MIN, min(I32_MAX, v)) or 1


@dataclass(frozen=True)
class Value:
    """A program value in a question: the integer it denotes and where it is defined."""

    value: Any
    defined: Any = True


@dataclass(frozen=True)
class Atom:
    """A term the fold does not look into: an int32 value and the bounds the interval analysis gave
    it (lo <= value <= hi, a hypothesis: the analysis is sound)."""

    name: str
    value: Any
    lo: Any
    hi: Any


@dataclass(frozen=True)
class Form:
    """sum(coefficient * atom) + const, as the fold's LinearForm holds it: coefficients are the fixed
    parameters (Python ints), the constant an int or a z3 term."""

    terms: tuple[tuple[int, Atom], ...]
    const: Any = 0

    def plus(self, k: Any) -> Form:
        return Form(self.terms, self.const + k)

    def scaled(self, k: int) -> Form:
        return Form(tuple((c * k, a) for c, a in self.terms), self.const * k)

    def __add__(self, other: Form) -> Form:
        return Form(self.terms + other.terms, self.const + other.const)


class Question:
    """One z3 question of one schema under one int semantics and one draw of its parameters. The
    schema's builder declares the inputs, states the guards the code checks (`guard`), builds the
    input and the written term, and returns both (`Claim`)."""

    def __init__(self, int_semantics: str, params: dict[str, int]) -> None:
        self.int_semantics = int_semantics
        self.params = params
        self.hypotheses: list[Any] = []  # what every input satisfies (int32 values, sound bounds)
        self.guards: list[Any] = []  # what the code checks before it rewrites
        self.inputs: dict[str, Any] = {}
        self.input_defined: list[Any] = []  # where the input's inner terms are defined
        self._fresh = 0

    @property
    def wrap(self) -> bool:
        return self.int_semantics == "wrap"

    # -- inputs
    def _int32(self, name: str) -> Any:
        v = z3.Int(name)
        self.hypotheses.append(z3.And(v >= I32_MIN, v <= I32_MAX))
        self.inputs[name] = v
        return v

    def atom(self, name: str) -> Atom:
        v, lo, hi = self._int32(name), self._int32(f"{name}.lo"), self._int32(f"{name}.hi")
        self.hypotheses += [lo <= v, v <= hi]
        return Atom(name, v, lo, hi)

    def bounded(self, name: str, value: Value) -> Atom:
        """An atom that is a term of the program (a remainder inside a sum): its value is `value`
        where that is defined, within bounds the interval analysis gave it."""
        a = self.atom(name)
        self.hypotheses.append(z3.Implies(_bool(value.defined), a.value == value.value))
        self.input_defined.append(_bool(value.defined))
        return a

    def constant(self, name: str) -> Any:
        """An additive int32 constant, symbolic."""
        return self._int32(name)

    def integer(self, name: str) -> Any:
        """A symbolic integer the code computes in Python, unbounded (not an int32)."""
        v = z3.Int(name)
        self.inputs[name] = v
        return v

    def param(self, name: str) -> int:
        """A multiplicative parameter: fixed in this question (drawn by the schema's `draw`)."""
        return self.params[name]

    def guard(self, *conditions: Any) -> None:
        self.guards.extend(conditions)

    def fresh(self, name: str) -> Any:
        self._fresh += 1
        return z3.Int(f"{name}!{self._fresh}")

    # -- exact arithmetic on forms (what the code computes in Python)
    @staticmethod
    def exact(form: Form) -> Any:
        return sum((c * a.value for c, a in form.terms), form.const)

    @staticmethod
    def bounds(form: Form) -> tuple[Any, Any]:
        """The exact range of the form from its atoms' bounds (LinearForm.bounds)."""
        lo = hi = form.const
        for c, a in form.terms:
            lo, hi = (lo + c * a.lo, hi + c * a.hi) if c > 0 else (lo + c * a.hi, hi + c * a.lo)
        return lo, hi

    def fits(self, form: Form) -> Any:
        """LinearForm.fits: every value of the form is an int32."""
        lo, hi = self.bounds(form)
        return z3.And(lo >= I32_MIN, hi <= I32_MAX)

    @staticmethod
    def in_int32(x: Any) -> Any:
        return z3.And(x >= I32_MIN, x <= I32_MAX)

    def writable(self, form: Form) -> Any:
        """LinearForm.writable: coefficients and constant int32, the magnitude within int32 (a lone
        atom with coefficient 1 and no constant is writable whatever its bounds)."""
        if len(form.terms) == 1 and form.terms[0][0] == 1 and _is_zero(form.const):
            return z3.BoolVal(True)
        if any(not I32_MIN <= c <= I32_MAX for c, _ in form.terms):
            return z3.BoolVal(False)
        k = form.const
        mag = abs(k) if isinstance(k, int) else z3.If(k >= 0, k, -k)
        for c, a in form.terms:
            biggest = z3.If(-a.lo > a.hi, -a.lo, a.hi)
            mag = mag + abs(c) * biggest
        return z3.And(self.in_int32(form.const), mag <= I32_MAX)

    # -- program values
    def wrapped(self, x: Any) -> Any:
        """The int32 congruent to x modulo 2**32."""
        k = self.fresh("wrap")
        w = x - k * 2**32
        self.hypotheses += [self.in_int32(w), z3.Implies(self.in_int32(x), k == 0)]
        return w

    def read(self, form: Form) -> Value:
        """The value of an input term whose linear form is `form` (any spelling): under wrap the low
        32 bits of the exact value; under no_overflow the exact value, defined where it is an int32
        (the input's own intermediates are then exact)."""
        e = self.exact(form)
        if self.wrap:
            return Value(self.wrapped(e))
        return Value(e, self.in_int32(e))

    def written(self, form: Form) -> Value:
        """The value of the term `LinearForm.write` writes for `form` (atom * coefficient summed in
        order, the constant last), which it writes only when the form is writable (a guard here
        too): every product and partial sum is then an int32, so under wrap the term computes the
        exact value (nothing wraps); under no_overflow it is defined where no product or partial
        sum leaves int32, which z3 checks one by one."""
        self.guard(self.writable(form))
        e = self.exact(form)
        if self.wrap:
            return Value(e)
        defined, partial = [], None
        for c, a in form.terms:
            t = c * a.value
            defined.append(self.in_int32(t))
            partial = t if partial is None else partial + t
            defined.append(self.in_int32(partial))
        if partial is not None and not _is_zero(form.const):
            defined.append(self.in_int32(partial + form.const))
        return Value(e, z3.And(*defined) if defined else self.in_int32(e))

    def add(self, a: Value, b: Value) -> Value:
        return self._arith(a.value + b.value, a, b)

    def mul(self, a: Value, k: int) -> Value:
        return self._arith(a.value * k, a, Value(k))

    def _arith(self, exact: Any, a: Value, b: Value) -> Value:
        defined = z3.And(_bool(a.defined), _bool(b.defined))
        if self.wrap:
            return Value(self.wrapped(exact), defined)
        return Value(exact, z3.And(defined, self.in_int32(exact)))

    def constant_value(self, k: Any) -> Value:
        return Value(k, self.in_int32(k))

    def _floor(self, a: Value, b: Value) -> tuple[Any, Any, Any]:
        q, r = self.fresh("q"), self.fresh("r")
        nonzero = b.value != 0
        self.hypotheses.append(
            z3.Implies(
                nonzero,
                z3.And(
                    a.value == q * b.value + r,
                    z3.If(b.value > 0, z3.And(r >= 0, r < b.value), z3.And(r <= 0, r > b.value)),
                ),
            )
        )
        defined = z3.And(_bool(a.defined), _bool(b.defined), nonzero)
        return q, r, defined

    def div(self, a: Value, b: Value | int) -> Value:
        """Floor division, undefined at a zero divisor and where the quotient is no int32."""
        b = Value(b) if isinstance(b, int) else b
        q, _, defined = self._floor(a, b)
        return Value(q, z3.And(defined, self.in_int32(q)))

    def mod(self, a: Value, b: Value | int) -> Value:
        b = Value(b) if isinstance(b, int) else b
        _, r, defined = self._floor(a, b)
        return Value(r, defined)

    # exact floor division of exact values (what the code's `//` and `%` on Python ints compute)
    def floordiv(self, x: Any, c: int) -> Any:
        q, _, _ = self._floor(Value(x), Value(c))
        return q

    def floormod(self, x: Any, c: int) -> Any:
        _, r, _ = self._floor(Value(x), Value(c))
        return r


def _is_zero(x: Any) -> bool:
    return isinstance(x, int) and x == 0


def _bool(d: Any) -> Any:
    return z3.BoolVal(d) if isinstance(d, bool) else d


# (the input term, the written term): values of a question, or two programs (UOps) whose refinement
# the program verifier (prove_equivalent) decides
Claim = tuple[Value, Value] | tuple[UOp, UOp]


@dataclass(frozen=True)
class Schema:
    """One fold of a Python rule, for one shape of input.

    rule: the Python rule it belongs to (eqsat_uopc.rules.python_rules), name: the fold,
    rewrite: `lhs -> rhs` in words, guards: the checks the code makes, in words (the builder states
    them as z3 conditions, in the code's order), build: the question's builder (None: the
    code does not rewrite this draw, which counts as vacuous), draw: a valid
    draw of the multiplicative parameters (None: reject, draw again), semantics: the int
    semantics the fold runs under, nonlinear: its draws are programs whose bit-vector proofs
    take seconds each (a variable divisor), of which `verify_python_rules` draws fewer."""

    rule: str
    name: str
    rewrite: str
    guards: str
    build: Callable[[Question], Claim | None]
    draw: Callable[[random.Random], dict[str, int] | None] = lambda rng: {}
    semantics: tuple[str, ...] = ("wrap", "no_overflow")
    nonlinear: bool = False  # a draw is a program with a product or quotient of unknowns: seconds each


@dataclass
class SchemaVerification:
    """What verify_schema found for one schema under one int semantics."""

    rule: str
    name: str
    int_semantics: str
    status: str = "unknown"  # "proved" | "tested" | "refuted" | "vacuous" | "unknown"
    instances: int = 0  # parameter draws proved
    vacuous: int = 0  # parameter draws whose guards no input satisfies
    undecided: int = 0  # parameter draws z3 could not decide within its budget (not counted)
    counterexample: dict[str, Any] | None = None
    params: dict[str, int] | None = None  # the draw of the counterexample
    reason: str = ""

    @property
    def sound(self) -> bool:
        return self.status != "refuted"

    def __str__(self) -> str:
        text = f"{self.name} [{self.int_semantics}]: {self.status}"
        if self.instances and self.status == "tested":
            text += f" on {self.instances} parameter instances"
        if self.undecided:
            text += f" ({self.undecided} undecided)"
        if self.counterexample is not None:
            text += f"; counterexample {self.params} {self.counterexample}"
        if self.reason and not self.undecided:
            text += f" ({self.reason})"
        return text


@own_z3_context()  # each question in a context of its own: its verdict depends on no other question
def _ask(schema: Schema, int_semantics: str, params: dict[str, int], rlimit: int) -> tuple[str, Any]:
    q = Question(int_semantics, params)
    claim = schema.build(q)
    if claim is None:  # the code does not rewrite this draw: its guards reject it
        return "vacuous", None
    lhs, rhs = claim
    if isinstance(lhs, UOp):  # a rewrite of programs: the program verifier's own question
        from eqsat_uopc.verify.proof import prove_equivalent

        proof = prove_equivalent(lhs, rhs, int_semantics, refinement=True, rlimit=rlimit)
        return {"unknown": "unknown", "not_attempted": "unknown"}.get(proof.status, proof.status), (
            proof.counterexample if proof.status == "refuted" else proof.reason or None
        )
    known = [*q.hypotheses, *q.guards, _bool(lhs.defined), *q.input_defined]

    def check(*extra: Any) -> tuple[Any, z3.Solver]:
        # a solver of its own per question: z3 preprocesses a fresh solver's formula, where one
        # reused after push() runs incrementally and can take a thousand times longer. First one
        # for linear integer arithmetic, then z3's default: each decides in milliseconds some
        # questions the other does not decide in minutes
        for make in (lambda: z3.SolverFor("QF_LIA"), z3.Solver):
            s = make()
            s.set("rlimit", int(rlimit))
            s.add(*known, *extra)
            r = s.check()
            if r != z3.unknown:
                break
        return r, s

    if check()[0] == z3.unsat:
        return "vacuous", None
    # two questions, each far easier for z3 than their conjunction: the written term is defined,
    # and where it is, equal to the input
    for goal, given in ((_bool(rhs.defined), ()), (rhs.value == lhs.value, (_bool(rhs.defined),))):
        r, s = check(*given, z3.Not(goal))
        if r == z3.sat:
            m = s.model()
            return "refuted", {n: m.eval(v, model_completion=True).as_long() for n, v in q.inputs.items()}
        if r != z3.unsat:
            return "unknown", s.reason_unknown() or "z3 gave up"
    return "proved", None


def verify_schema(
    schema: Schema, int_semantics: str, instances: int = 24, seed: int = 0, rlimit: int = 4_000_000
) -> SchemaVerification:
    """Prove `schema` under int_semantics on `instances` draws of its parameters (each symbolic in
    everything else; a schema without parameters is proved once, for every value)."""
    report = SchemaVerification(schema.rule, schema.name, int_semantics)
    rng = random.Random(f"{seed}:{schema.name}:{int_semantics}")
    tried: set[tuple] = set()
    for _ in range(instances * 20):
        if report.instances >= instances:
            break
        params = schema.draw(rng)
        if params == {} and tried:
            break  # no parameters: one question covered every value
        if params is None or tuple(sorted(params.items())) in tried:
            continue
        tried.add(tuple(sorted(params.items())))
        status, detail = _ask(schema, int_semantics, params, rlimit)
        if status == "refuted":
            report.status, report.counterexample, report.params = "refuted", detail, params
            return report
        if status == "unknown":  # too hard within the budget: said, and another draw taken
            report.undecided += 1
            report.reason = f"{report.undecided} draw(s) undecided within the budget, e.g. {params}"
        elif status == "vacuous":
            report.vacuous += 1
        else:
            report.instances += 1
    if report.instances == 0:
        report.status = "unknown" if report.undecided else "vacuous"
        if not report.undecided:
            report.reason = "no draw of the parameters satisfies the guards"
    elif tried == {()}:
        report.status = "proved"  # no parameters: proved for every value
    else:
        report.status = "tested"
    return report


def verify_schemas(schemas: Iterable[Schema], instances: int = 24, seed: int = 0) -> list[SchemaVerification]:
    """verify_schema for every schema under every int semantics it runs under."""
    return [verify_schema(s, sem, instances, seed) for s in schemas for sem in s.semantics]
