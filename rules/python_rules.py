"""The rules computed in Python between egglog iterations, declared as values.

The code that implements them refers to these values (`fold.py` records a match of
`EXEC_ALU.name`), and the families own them by name prefix (catalogue.py), so a rule's name is
written once. Sound under "wrap" unless declared otherwise: the folding step and evaluation
compute with the project's reference code (exec_alu, the greedy `run`), exact by construction; the
piecewise-linear comparisons reason about the mathematical integers, so "no_overflow".
"""

from __future__ import annotations

from eqsat_uopc.rules.rule import Rule, python_rule

__all__ = [
    "ALGEBRA_RULES",
    "CMP_SELF",
    "COMPARE_FOLD",
    "DIVMOD_FOLD",
    "EXEC_ALU",
    "F64_TO_F32",
    "INDEX_EMPTY",
    "INDEX_INDEX",
    "INDEX_STACK",
    "INLINE_CALL",
    "LITERAL",
    "MAX_BOUNDS",
    "PIECEWISE_COMPARE",
    "PUSH_STACK",
    "PYTHON_RULES",
    "SUM_FOLD",
    "TRUTH_TABLE",
    "WHERE_ASSUME",
    "python_rules_of",
]

_FOLD = "eqsat_uopc.saturation.fold"

EXEC_ALU = python_rule(
    "fold/exec-alu",
    "op(c1, c2, ...) -> exec_alu(op, c1, c2, ...)   every scalar ALU op and dtype, f32 exactly "
    "(exec_alu's None: not folded)",
    where=_FOLD,
)
F64_TO_F32 = python_rule("fold/f64-to-f32", "an f64 constant -> the f32 constant it denotes", where=_FOLD)
CMP_SELF = python_rule(
    "identities/cmp-self",
    "x < x, x != x -> False of x's shape   (x a shaped i32 or bool; scalars are egglog rules)",
    where=_FOLD,
)
LITERAL = python_rule(
    "evaluate/literal",
    "op(literals) -> the greedy run's value   (movement ops, REDUCE, ALU of tensors, INDEX: CONST or "
    "STACK literals in, a literal out)",
    where=_FOLD,
)
PUSH_STACK = python_rule(
    "evaluate/push-stack", "f(STACK(a0, a1), b) -> STACK(f(a0, b[0]), f(a1, b[1]))", where=_FOLD
)
INDEX_EMPTY = python_rule("evaluate/index-empty", "INDEX(x) -> x", where=_FOLD)
INDEX_INDEX = python_rule(
    "evaluate/index-index", "INDEX(INDEX(a, i...), j...) -> INDEX(a, i..., j...)", where=_FOLD
)
INDEX_STACK = python_rule(
    "evaluate/index-stack",
    "INDEX(STACK(a0, a1, ...), k, j...) -> INDEX(ak, j...)   k a constant",
    where=_FOLD,
)
INLINE_CALL = python_rule(
    "evaluate/inline-call",
    "CALL(body, args) -> body with its PARAMs replaced by args   (never inside a nested CALL's body)",
    where=_FOLD,
)
PIECEWISE_COMPARE = python_rule(
    "linear/piecewise-compare",
    "a < b, a != b, a chain of && or || -> true | false   when the piecewise-linear forms of the "
    "terms decide it",
    semantics="no_overflow",
    where="eqsat_uopc.saturation.piecewise",
)

_LINEAR = "eqsat_uopc.linear"  # the index algebra, run by saturation/hooks/index_algebra.py
DIVMOD_FOLD = python_rule(
    "linear/divmod-fold",
    "x // y, x % y -> the first of: a constant quotient, congruence, the gcd, nesting by a factor, the "
    "multiples split off, a symbolic gcd ...   on the linear form of x and its terms' bounds",
    where=f"{_LINEAR}.divmod",
)
COMPARE_FOLD = python_rule(
    "linear/compare-fold",
    "x < y, x != y -> decided, or scaled and reduced   on the linear form of x - y; c1 && c2, c1 || c2 "
    "-> one comparison   when each is at an end of its difference's range",
    where=f"{_LINEAR}.compare",
)
MAX_BOUNDS = python_rule(
    "linear/max-bounds", "max(x, y) -> x   when x's bounds lie at or above y's", where=f"{_LINEAR}.compare"
)
SUM_FOLD = python_rule(
    "linear/sum-fold",
    "m*(b % c) + k*(b // c) -> m*b + (k - m*c)*(b // c), like terms combined   on the linear form of the sum",
    where=f"{_LINEAR}.sums",
)
WHERE_ASSUME = python_rule(
    "boolean/where-assume",
    "where(c, t, f) -> where(c, t[c := true], f[c := false])   with what c implies decided in t and f: "
    "comparisons, and x // k, x % k by a constant where x stays in one period of k",
    where=f"{_LINEAR}.conditions",
)
TRUTH_TABLE = python_rule(
    "boolean/truth-table",
    "a boolean term -> the constant, atom or subterm equal to it on every consistent assignment of its atoms",
    where=f"{_LINEAR}.conditions",
)
ALGEBRA_RULES: tuple[Rule, ...] = (DIVMOD_FOLD, COMPARE_FOLD, MAX_BOUNDS, SUM_FOLD, WHERE_ASSUME, TRUTH_TABLE)

PYTHON_RULES: tuple[Rule, ...] = (
    EXEC_ALU,
    F64_TO_F32,
    CMP_SELF,
    LITERAL,
    PUSH_STACK,
    INDEX_EMPTY,
    INDEX_INDEX,
    INDEX_STACK,
    INLINE_CALL,
    PIECEWISE_COMPARE,
    *ALGEBRA_RULES,
)


def python_rules_of(family: str) -> tuple[Rule, ...]:
    """The Python rules a family owns (those named "family/...")."""
    return tuple(r for r in PYTHON_RULES if r.family == family)
