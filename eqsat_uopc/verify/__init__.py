"""Equivalence checking and rule verification: random evaluation through every engine, z3 proofs.

    prove_equivalent(a, b, int_semantics="wrap", timeout_ms=...) -> Proof
    check_equivalent(a, b, int_semantics=..., samples=..., seed=..., backends=..., prove=...) -> Verdict
    verify_rules(rules, instances=...) -> [RuleVerification]        the greedy rules (random instances)
    no_overflow_only(reports) -> [(rule name, wrap counterexample)]
    verify_saturation_rules(families=None) -> [EggRuleVerification]  every form of the rule values (symbolic)
    rule_verdicts(family) -> (RuleVerdict, ...)    one verdict per rule of a family file (cached per user)
    load_verified_rules(spec, allow_unsound=False) -> VerifiedRules   a rules spec loaded, its files proved
    verify_python_rules(families=None) -> [SchemaVerification]  every Python rule's schemas (int32)
    evaluate(program, params, ranges, int_semantics) -> Evaluation   (eqsat_uopc.semantics.evaluation)
    validate(source, result, int_semantics) -> Validation            translation validation (refinement)
    validate_candidates(source, [(label, program)], int_semantics) -> (program, Validation)
    begin_validation(source, result, int_semantics) -> QuickTry | None   z3's part begun early

Modules: z3_encode (z3 terms: a domain of the one walk, eqsat_uopc.semantics.interpret, whose
concrete domain is eqsat_uopc.semantics.evaluation); quick_contexts (the quick try's z3 contexts,
made ahead on a background thread); quick_worker (a z3 process of its own for quick tries begun
early); proof, equivalence, rules, saturation_rules
(and egg_float) on top; validation (a result against its source, what optimize runs) on proof and
equivalence. Rule soundness lives here, all of it: rule_sampling (the greedy rules on
random instances, the chapter's exercise 6), rules (the greedy rules proved), saturation_rules,
egg_text, egg_encode, egg_float (the .egg rules proved), family_verdicts (a family file's rules
proved where it is loaded), schemas/ (the Python rules proved: the
index algebra, the piecewise comparisons, the folding step), egraph_soundness (a saturated
e-graph's classes agree on an input).
"""

from eqsat_uopc.semantics.evaluation import Evaluation, evaluate
from eqsat_uopc.verify.egraph_soundness import Disagreement, check_sound
from eqsat_uopc.verify.equivalence import BACKENDS, Check, Verdict, check_equivalent
from eqsat_uopc.verify.family_verdicts import (
    RuleVerdict,
    UnsoundRuleError,
    VerifiedRules,
    load_verified_rules,
    rule_verdicts,
)
from eqsat_uopc.verify.proof import Proof, prove_equivalent
from eqsat_uopc.verify.rule_sampling import RuleReport, check_rule, check_rules
from eqsat_uopc.verify.rules import (
    RuleCounterexample,
    RuleVerification,
    no_overflow_only,
    verify_rule,
    verify_rules,
)
from eqsat_uopc.verify.saturation_rules import (
    EggRuleVerification,
    egg_rules,
    parse_egg_rules,
    verify_egg_rule,
    verify_saturation_rules,
)
from eqsat_uopc.verify.schemas import SchemaVerification, verify_python_rules
from eqsat_uopc.verify.validation import (
    VALIDATION_RLIMIT,
    VALIDATION_SAMPLES,
    Replacement,
    Validation,
    begin_validation,
    not_validated,
    validate,
    validate_candidates,
)
from eqsat_uopc.verify.z3_encode import NotEncodable, Z3Domain

__all__ = [
    "BACKENDS",
    "VALIDATION_RLIMIT",
    "VALIDATION_SAMPLES",
    "Check",
    "Disagreement",
    "EggRuleVerification",
    "Evaluation",
    "NotEncodable",
    "Proof",
    "Replacement",
    "RuleCounterexample",
    "RuleReport",
    "RuleVerdict",
    "RuleVerification",
    "SchemaVerification",
    "UnsoundRuleError",
    "Validation",
    "Verdict",
    "VerifiedRules",
    "Z3Domain",
    "begin_validation",
    "check_equivalent",
    "check_rule",
    "check_rules",
    "check_sound",
    "egg_rules",
    "evaluate",
    "load_verified_rules",
    "no_overflow_only",
    "not_validated",
    "parse_egg_rules",
    "prove_equivalent",
    "rule_verdicts",
    "validate",
    "validate_candidates",
    "verify_egg_rule",
    "verify_python_rules",
    "verify_rule",
    "verify_rules",
    "verify_saturation_rules",
]
