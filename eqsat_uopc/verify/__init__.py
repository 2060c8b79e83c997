"""Equivalence checking and rule verification: random evaluation through every engine, z3 proofs.

    prove_equivalent(a, b, int_semantics="wrap", timeout_ms=...) -> Proof
    check_equivalent(a, b, int_semantics=..., samples=..., seed=..., backends=..., prove=...) -> Verdict
    verify_rules(rules, instances=...) -> [RuleVerification]        the greedy rules (random instances)
    no_overflow_only(reports) -> [(rule name, wrap counterexample)]
    verify_saturation_rules(families=None) -> [EggRuleVerification]  the rules/*.egg rules (symbolic)
    evaluate(program, params, ranges, int_semantics) -> Evaluation   exec_alu with definedness

Modules: interpret (the walk over shapes and scopes, shared by) concrete (Python values) and
z3_encode (z3 terms); proof, equivalence, rules, saturation_rules (and egg_float) on top.
"""

from eqsat_uopc.verify.concrete import Evaluation, evaluate
from eqsat_uopc.verify.equivalence import BACKENDS, Check, Verdict, check_equivalent
from eqsat_uopc.verify.proof import Proof, prove_equivalent
from eqsat_uopc.verify.rules import (
    RuleCounterexample,
    RuleVerification,
    no_overflow_only,
    verify_rule,
    verify_rules,
)
from eqsat_uopc.verify.saturation_rules import (
    EggRuleVerification,
    parse_egg_rules,
    verify_egg_rule,
    verify_saturation_rules,
)
from eqsat_uopc.verify.z3_encode import NotEncodable, Z3Domain

__all__ = [
    "BACKENDS",
    "Check",
    "EggRuleVerification",
    "Evaluation",
    "NotEncodable",
    "Proof",
    "RuleCounterexample",
    "RuleVerification",
    "Verdict",
    "Z3Domain",
    "check_equivalent",
    "evaluate",
    "no_overflow_only",
    "parse_egg_rules",
    "prove_equivalent",
    "verify_egg_rule",
    "verify_rule",
    "verify_rules",
    "verify_saturation_rules",
]
