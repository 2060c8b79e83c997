"""Equivalence checking and rule verification: random evaluation through every engine, z3 proofs.

prove_equivalent(a, b, int_semantics="wrap", timeout_ms=...) -> Proof
check_equivalent(a, b, int_semantics=..., samples=..., seed=..., backends=..., prove=...) -> Verdict
evaluate(program, params, ranges, int_semantics) -> Evaluation   (exec_alu with definedness)
"""

from .concrete import Evaluation, evaluate
from .equivalence import BACKENDS, Check, Verdict, check_equivalent
from .proof import Proof, prove_equivalent
from .z3_encode import NotEncodable, Z3Domain

__all__ = [
    "BACKENDS",
    "Check",
    "Evaluation",
    "NotEncodable",
    "Proof",
    "Verdict",
    "Z3Domain",
    "check_equivalent",
    "evaluate",
    "prove_equivalent",
]
