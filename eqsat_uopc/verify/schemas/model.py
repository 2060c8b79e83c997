"""The schemas' int32 arithmetic is 32-bit two's complement: proved, primitive by primitive.

A schema (question.py) states the values of a Python fold as integers with explicit wraparound,
which z3 decides as linear integer arithmetic where the same questions over bit-vectors time out.
That is a proof over 32-bit bit-vectors only if each primitive the schemas compose computes what
the bit-vectors compute. This module proves it: for each primitive (a sum of two values, a product
by a parameter, the floor quotient and modulo by a parameter, a comparison, the read of a term of
a linear form in two spellings, the term `LinearForm.write` writes), z3 proves that the question's
integer term and the program verifier's own 32-bit bit-vector encoding of the same program
(z3_encode.Z3Domain, encoding "bv", through the reference interpreter) agree at every 32-bit value
of every operand, under each int semantics:

- "wrap": the same value, defined at the same inputs (a division by zero and INT_MIN // -1 are
  undefined in both);
- "no_overflow": where the bit-vector program is defined (z3's signed no-overflow predicates hold
  for each ADD and MUL), the question's term is defined and has the same value; for the written
  term and the primitive ops, defined at exactly the same inputs. (The read of an input term is
  defined wherever its exact value is an int32, a superset: a schema's input hypotheses then cover
  more inputs than any spelling has, which makes its proof stronger, not weaker.)

A product or quotient of two unknowns is beyond z3 here (the integer side is then non-linear), so
the multiplicative parameters are fixed per check, as in the schemas: every edge constant the
schemas draw (question.EDGE_CONSTANTS) and 0 (`parameters`; the suite checks 9 of them, the slow
ones being the products by 2**31 - 1 and 2**31 - 2 under wrap, 10-40 s each). The reads and writes
of a linear form are checked at small coefficients; under wrap z3 gives up on a read at large ones,
where it follows instead from the sum, the product and one more lemma of the integer model alone:
the wraparound is a ring homomorphism (wrap(wrap(x) + wrap(y)) = wrap(x + y), wrap(k * wrap(x)) =
wrap(k * x)), so every spelling of a form computes wrap(exact).

The solver is z3's int-blasting bit-vector solver (`smt.bv.solver` 2, set on each solver only),
which decides a check in milliseconds where bit-blasting a bv2int gives up; it does not implement
the bit-vectors' multiplication overflow predicates, so those are first proved equal (by
bit-blasting, pure bit-vectors) to their definition by a 64-bit product, which the int-blasting
check then uses.

The floor division by a value, the one primitive the linear schemas use with a divisor that is not
a parameter (the constant-quotient schemas), is checked with the value fixed at each parameter
(the bit-vectors' truncating division corrected to floor, as the program verifier encodes a
variable divisor): a symbolic divisor took z3 past two minutes. The nonlinear schemas need no
such check: their draws are programs proved over bit-vectors directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear.form import LinearForm
from eqsat_uopc.semantics.interpret import interpret_all
from eqsat_uopc.verify.schemas.question import (
    EDGE_CONSTANTS,
    Form,
    Question,
    SchemaVerification,
    Value,
)
from eqsat_uopc.verify.z3_encode import Z3Domain, own_z3_context

__all__ = ["MODEL_PARAMETERS", "MODEL_RULE", "verify_int32_model"]

MODEL_RULE = "schemas/int32-model"
# the fixed multiplicative parameters of the checks: the schemas' edge constants, and 0
MODEL_PARAMETERS: tuple[int, ...] = (0, *EDGE_CONSTANTS)
# coefficient pairs of the linear forms read and written (at large ones z3 gives up under wrap: there
# the read follows from the sum, the product and the homomorphism)
_COEFFICIENTS = ((1, 1), (1, -1), (2, 3), (-8, 12))
_RLIMIT = 20_000_000

_P = [UOp.param(i) for i in range(3)]  # a, b, and the constant of a form


class _Check:
    """One check: the question's side, the program, and how the two are tied."""

    def __init__(self, int_semantics: str) -> None:
        self.q = Question(int_semantics, {})
        self.values: list[Any] = []  # the question's int32 inputs, tied to p0, p1, p2 in order
        self.fixed: dict[int, int] = {}  # input slot -> its value, where a check fixes one

    def atom(self, name: str) -> Any:
        a = self.q.atom(name)
        self.values.append(a.value)
        return a

    def constant(self, name: str) -> Any:
        k = self.q.constant(name)
        self.values.append(k)
        return k


def _bitvector_side(program: UOp, int_semantics: str) -> tuple[Any, Any, list[Any], list[Any], list[Any]]:
    """The program's 32-bit value and definedness, its inputs' bit-vectors, the encoding's
    hypotheses, and each MUL overflow predicate with its definition by a 64-bit product."""
    dom = Z3Domain(int_semantics, "bv")
    memo = interpret_all(program, dom)
    value, defined = memo[program][0]
    inputs = [dom.params[i][1][0] if i in dom.params else None for i in range(3)]
    definitions = []
    for u in memo:
        if u.op is Ops.MUL and dom.checked:
            a, b = memo[u.src[0]][0][0], memo[u.src[1]][0][0]
            product = z3.SignExt(32, a) * z3.SignExt(32, b)
            definitions.append((z3.BVMulNoOverflow(a, b, True), product <= I32_MAX))
            definitions.append((z3.BVMulNoUnderflow(a, b), product >= I32_MIN))
    return value, z3.BoolVal(True) if defined is True else defined, inputs, [*dom.hypotheses], definitions


def _agree(
    check: _Check, claim: Value, program: UOp, int_semantics: str, exact_definedness: bool = True
) -> tuple[str, dict[str, int] | None]:
    """Do the question's `claim` and the bit-vector program agree at every input? ("proved",
    "refuted" with the inputs, or "unknown")."""
    q = check.q
    if program is None:  # a lemma of the integer model alone
        s = z3.SolverFor("QF_LIA")
        s.set("rlimit", _RLIMIT)
        s.add(*q.hypotheses, z3.Not(claim.value))
        r = s.check()
        return ("proved", None) if r == z3.unsat else ("refuted" if r == z3.sat else "unknown", None)
    value, defined, inputs, hypotheses, definitions = _bitvector_side(program, int_semantics)
    for predicate, fits in definitions:  # the overflow predicates are their 64-bit definition
        s = z3.Solver()
        s.set("rlimit", _RLIMIT)
        s.add(predicate != fits)
        if s.check() != z3.unsat:
            return "unknown", None
        defined = z3.substitute(defined, (predicate, fits))
    # the question's inputs are the bit-vectors' values (substituted: z3 decides it faster than ties)
    ties = [(v, z3.BV2Int(bv, True)) for v, bv in zip(check.values, inputs, strict=False) if bv is not None]
    fixed = [bv == value for slot, value in check.fixed.items() if (bv := inputs[slot]) is not None]
    claim_defined = z3.BoolVal(True) if claim.defined is True else claim.defined
    if exact_definedness:
        goal = z3.And(claim_defined == defined, z3.Implies(defined, claim.value == z3.BV2Int(value, True)))
    else:
        goal = z3.Implies(defined, z3.And(claim_defined, claim.value == z3.BV2Int(value, True)))
    s = z3.Solver()
    s.set("smt.bv.solver", 2)  # int-blasting: bv2int in milliseconds
    s.set("rlimit", _RLIMIT)
    question = [z3.substitute(f, *ties) for f in (*q.hypotheses, *q.guards, z3.Not(goal))]
    s.add(*question, *hypotheses, *fixed)
    r = s.check()
    if r == z3.unsat:
        return "proved", None
    if r == z3.sat:
        m = s.model()
        return "refuted", {
            f"p{i}": m.eval(z3.BV2Int(bv, True), True).as_long()
            for i, bv in enumerate(inputs)
            if bv is not None
        }
    return "unknown", None


# -- the primitives: (name, parameters, build(check, parameter) -> (claim, program, exact definedness))
def _sum(c: _Check, _: Any) -> tuple[Value, UOp, bool]:
    a, b = c.constant("a"), c.constant("b")
    return c.q.add(Value(a), Value(b)), _P[0] + _P[1], True


def _product(c: _Check, k: int) -> tuple[Value, UOp, bool]:
    return c.q.mul(Value(c.constant("a")), k), _P[0] * k, True


def _quotient(c: _Check, k: int) -> tuple[Value, UOp, bool]:
    return c.q.div(Value(c.constant("a")), k), _P[0] // k, True


def _modulo(c: _Check, k: int) -> tuple[Value, UOp, bool]:
    return c.q.mod(Value(c.constant("a")), k), _P[0] % k, True


def _variable_quotient(c: _Check, k: int) -> tuple[Value, UOp, bool]:
    a, b = c.constant("a"), c.constant("b")
    c.fixed[1] = k
    return c.q.div(Value(a), Value(b)), _P[0] // _P[1], True


def _variable_modulo(c: _Check, k: int) -> tuple[Value, UOp, bool]:
    a, b = c.constant("a"), c.constant("b")
    c.fixed[1] = k
    return c.q.mod(Value(a), Value(b)), _P[0] % _P[1], True


def _comparison(c: _Check, _: Any) -> tuple[Value, UOp, bool]:
    a, b = c.constant("a"), c.constant("b")
    return Value(z3.If(a < b, 1, 0)), (_P[0] < _P[1]).cast(_P[0].dtype), True


def _homomorphism(c: _Check, k: int) -> tuple[Value, None, bool]:
    """wrap: `wrapped` is a ring homomorphism, so a term of int32 sums and products by parameters,
    in any spelling, has the value wrap(exact): wrapped(wrapped(x) + wrapped(y)) = wrapped(x + y)
    and wrapped(k * wrapped(x)) = wrapped(k * x), for every integer x and y."""
    q, (x, y) = c.q, z3.Ints("x y")
    sums = q.wrapped(q.wrapped(x) + q.wrapped(y)) == q.wrapped(x + y)
    return Value(z3.And(sums, q.wrapped(k * q.wrapped(x)) == q.wrapped(k * x))), None, True


def _form(c: _Check, pair: tuple[int, int]) -> Form:
    a, b = c.atom("a"), c.atom("b")
    return Form(((pair[0], a), (pair[1], b)), c.constant("k"))


def _spelled(pair: tuple[int, int]) -> UOp:
    """The term LinearForm.to_uop writes for pair[0]*p0 + pair[1]*p1 + p2 (p2: the constant)."""
    return LinearForm(((_P[0], pair[0]), (_P[1], pair[1])), 0).to_uop() + _P[2]


def _read(c: _Check, pair: tuple[int, int]) -> tuple[Value, UOp, bool]:
    """An input term of the form, spelled as written: (a*c1 + b*c2) + k."""
    return c.q.read(_form(c, pair)), _spelled(pair), False


def _read_reordered(c: _Check, pair: tuple[int, int]) -> tuple[Value, UOp, bool]:
    """An input term of the form in another spelling: k + (b*c2 + a*c1)."""
    return c.q.read(_form(c, pair)), _P[2] + (_P[1] * pair[1] + _P[0] * pair[0]), False


def _written(c: _Check, pair: tuple[int, int]) -> tuple[Value, UOp, bool]:
    """The term LinearForm.write writes (its guard: the form is writable)."""
    return c.q.written(_form(c, pair)), _spelled(pair), True


_PRIMITIVES: tuple[
    tuple[str, tuple[Any, ...], Callable[[_Check, Any], tuple[Value, UOp | None, bool]]], ...
] = (
    ("sum", (None,), _sum),
    ("product by a parameter", MODEL_PARAMETERS, _product),
    ("floor quotient by a parameter", MODEL_PARAMETERS, _quotient),
    ("floor modulo by a parameter", MODEL_PARAMETERS, _modulo),
    ("floor quotient by a value", MODEL_PARAMETERS, _variable_quotient),
    ("floor modulo by a value", MODEL_PARAMETERS, _variable_modulo),
    ("comparison", (None,), _comparison),
    ("wraparound is a ring homomorphism", MODEL_PARAMETERS, _homomorphism),
    ("read of a linear form", _COEFFICIENTS, _read),
    ("read of a linear form, reordered", _COEFFICIENTS, _read_reordered),
    ("written linear form", _COEFFICIENTS, _written),
)


def verify_int32_model(
    int_semantics: tuple[str, ...] = ("wrap", "no_overflow"), parameters: tuple[int, ...] = MODEL_PARAMETERS
) -> list[SchemaVerification]:
    """Each primitive of the schemas' int32 model against 32-bit bit-vectors, one row per primitive
    and int semantics: "proved" (no parameter) or "tested" on each of `parameters` (each proved for
    every operand), "refuted" with the first disagreement, "unknown" if z3 gave up on one."""
    out = []
    for sem in int_semantics:
        for name, drawn, build in _PRIMITIVES:
            if build is _homomorphism and sem != "wrap":
                continue  # no_overflow: the input's values are exact, nothing wraps
            drawn = drawn if drawn in ((None,), _COEFFICIENTS) else parameters
            row = SchemaVerification(MODEL_RULE, f"int32-model/{name}", sem)
            for parameter in drawn:
                with own_z3_context():
                    check = _Check(sem)
                    claim, program, exact = build(check, parameter)
                    status, inputs = _agree(check, claim, program, sem, exact)
                if status == "refuted":
                    row.status, row.counterexample = "refuted", inputs
                    row.params = {"parameter": parameter} if parameter is not None else {}
                    break
                if status == "unknown":
                    row.undecided += 1
                    row.reason = f"z3 gave up at parameter {parameter}"
                else:
                    row.instances += 1
            else:
                row.status = "unknown" if row.undecided else "proved" if drawn == (None,) else "tested"
            out.append(row)
    return out
