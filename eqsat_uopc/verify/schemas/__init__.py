"""The Python rewrites as schemas, proved in int32 arithmetic with the guards their code checks.

question.py is the framework (what a schema proves and how: see its docstring); one module per
module of rewrites: divmod.py, compare.py, sums.py, conditions.py (the index algebra,
eqsat_uopc.linear), piecewise.py (the piecewise-linear comparisons), fold.py (the folding step).
Every schema names the Python rule it belongs to (eqsat_uopc.rules.python_rules);
`verify_python_rules` proves the schemas of every Python rule of the given families, and names the
Python rules that have none; first, that the schemas' integer model of int32 is 32-bit two's
complement (model.py: each primitive against the program verifier's bit-vector encoding).
"""

from __future__ import annotations

from collections.abc import Iterable

from eqsat_uopc.rules import FAMILIES, Family
from eqsat_uopc.rules.python_rules import F64_TO_F32, INLINE_CALL, LITERAL
from eqsat_uopc.verify.schemas.compare import COMPARE_SCHEMAS
from eqsat_uopc.verify.schemas.conditions import CONDITION_SCHEMAS
from eqsat_uopc.verify.schemas.divmod import DIVMOD_SCHEMAS
from eqsat_uopc.verify.schemas.fold import FOLD_SCHEMAS
from eqsat_uopc.verify.schemas.model import MODEL_RULE, verify_int32_model
from eqsat_uopc.verify.schemas.piecewise import PIECEWISE_SCHEMAS
from eqsat_uopc.verify.schemas.question import (
    Question,
    Schema,
    SchemaVerification,
    verify_schema,
    verify_schemas,
)
from eqsat_uopc.verify.schemas.sums import SUM_SCHEMAS

__all__ = [
    "MODEL_RULE",
    "PYTHON_SCHEMAS",
    "Question",
    "Schema",
    "SchemaVerification",
    "schemas_of",
    "verify_int32_model",
    "verify_python_rules",
    "verify_schema",
    "verify_schemas",
]

PYTHON_SCHEMAS: tuple[Schema, ...] = (
    *DIVMOD_SCHEMAS,
    *COMPARE_SCHEMAS,
    *SUM_SCHEMAS,
    *CONDITION_SCHEMAS,
    *PIECEWISE_SCHEMAS,
    *FOLD_SCHEMAS,
)


def schemas_of(rule: str) -> tuple[Schema, ...]:
    """The schemas of the Python rule named `rule`."""
    return tuple(s for s in PYTHON_SCHEMAS if s.rule == rule)


def verify_python_rules(
    families: Iterable[str | Family] | None = None,
    instances: int = 24,
    seed: int = 0,
    nonlinear_instances: int = 4,
    model: bool = True,
) -> list[SchemaVerification]:
    """Every schema of every Python rule of the families (Family values or bundled names; by default
    every bundled family), under each int semantics the rule runs under; a Python rule with no
    schema is reported "not_attempted", with the reason. `instances` draws per schema, and
    `nonlinear_instances` per nonlinear one (a program proved over 32-bit bit-vectors with a
    variable divisor: seconds a draw; 0 leaves them out). With `model`, the rows of
    `verify_int32_model` come first (rule MODEL_RULE): the schemas' arithmetic is the bit-vectors'."""
    chosen = (
        FAMILIES.values()
        if families is None
        else [FAMILIES[f] if isinstance(f, str) else f for f in families]
    )
    out: list[SchemaVerification] = verify_int32_model() if model else []
    for family in chosen:
        for rule in family.python_rules:
            schemas = schemas_of(rule.name)
            semantics = [sem for sem in ("wrap", "no_overflow") if rule.runs_under(sem)]
            if not schemas:
                reason = _UNPROVED.get(rule.name, "no schema declared")
                out += [
                    SchemaVerification(rule.name, rule.name, sem, "not_attempted", reason=reason)
                    for sem in semantics
                ]
            for schema in schemas:
                draws = nonlinear_instances if schema.nonlinear else instances
                out += [
                    verify_schema(schema, sem, draws, seed)
                    for sem in schema.semantics
                    if sem in semantics and draws
                ]
    return out


# the Python rules without a schema, and why
_UNPROVED = {
    F64_TO_F32.name: "f32: the constant is truncate(f32, v), exec_alu's own rounding; z3 proves no f32",
    LITERAL.name: "evaluation of literals by the greedy `run`, the reference evaluator itself",
    INLINE_CALL.name: "a substitution (inline_call), the reference evaluator's own CALL semantics",
}
