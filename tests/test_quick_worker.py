"""Validation begun early (pipeline/early_validation.py) in the z3 process (verify/quick_worker.py): its
answers are the caller's, a check begun early has the verdict of one begun at the end, a try not
needed is dropped without disturbing the others, and optimize begins the check of a constant."""

import pytest

from eqsat_uopc import UOp, dtypes, optimize
from eqsat_uopc.pipeline.early_validation import EarlyValidation
from eqsat_uopc.saturation import HOOKS, saturate
from eqsat_uopc.verify import begin_validation, quick_worker, validate, validate_candidates
from eqsat_uopc.verify.proof import QuickTry, begin_quick_try
from eqsat_uopc.verify.quick_contexts import QUICK_TACTICS
from tests.test_quick_contexts import PAIRS as QUICK_CONTEXT_PAIRS

x, y = UOp.param(0), UOp.param(1)

# test_quick_contexts' refuted pairs (counterexamples z3 chooses among many) and proof, then proofs,
# a vacuous one, a constant
PAIRS = [
    *QUICK_CONTEXT_PAIRS,
    ((x * 4 + 8) // 4, x + 2, "no_overflow"),
    (x // 0 + 1, UOp.const(3), "wrap"),
    ((x * 4 + 8) // 4 - x - 2, UOp.const(0), "no_overflow"),
    ((x * 4 + 8) // 4 - x - 2, UOp.const(0), "wrap"),  # x * 4 wraps
]


@pytest.fixture
def patient(monkeypatch):
    """The caller waits for every answer (on a loaded machine it may otherwise ask z3 itself)."""
    assert quick_worker.start(QUICK_TACTICS, 60.0)
    monkeypatch.setattr(quick_worker, "ANSWER_WAIT", 60.0)


def verdict(v):
    return (v.status, v.check, v.counterexample, v.values, v.detail, v.candidate)


def test_the_z3_process_answers_as_a_quick_try_here(patient):
    answers = [
        begin_quick_try(a, b, s, "bv" if s == "wrap" else "int", True, 1_000_000).take() for a, b, s in PAIRS
    ]
    assert answers == ["sat", "sat", "sat", "unsat", "unsat", "unsat", "unsat", "sat"]
    # within a quarter of 400 resource units z3 gives up on the product's division
    assert begin_quick_try(x * y // y, x, "no_overflow", "int", True, 400).take() == "unknown"


def test_a_check_begun_early_has_the_verdict_of_one_begun_at_the_end(patient):
    for a, b, s in PAIRS:
        alone = validate(a, b, s)
        begun = begin_validation(a, b, s)
        assert begun is not None and begun.asks(a, b, s, "bv" if s == "wrap" else "int", True, 1_000_000)
        assert verdict(validate(a, b, s, begun=begun)) == verdict(alone)
        assert begun.taken
    assert [validate(a, b, s).status for a, b, s in PAIRS] == ["refuted"] * 3 + ["proved"] * 4 + ["refuted"]
    assert validate(x // 0 + 1, UOp.const(3), "wrap").detail == "the input is undefined everywhere"


def test_a_dropped_try_leaves_the_others_answers_in_order(patient):
    tries = [
        begin_quick_try(a, b, s, "bv" if s == "wrap" else "int", True, 1_000_000) for a, b, s in PAIRS[:5]
    ]
    tries[1].drop()
    tries[3].drop()
    assert [tries[k].take() for k in (0, 2, 4)] == ["sat", "sat", "unsat"]
    assert tries[1].take() is None  # dropped: its answer was thrown away


def test_a_try_of_another_question_is_not_used(patient):
    a, b, s = PAIRS[4]
    begun = begin_validation(a, b, s, rlimit=500_000)
    assert begun is not None and not begun.asks(a, b, s, "int", True, 1_000_000)
    assert verdict(validate(a, b, s, begun=begun)) == verdict(validate(a, b, s))
    assert not begun.taken
    begun.drop()


def test_nothing_is_begun_where_validate_asks_no_z3():
    f = UOp.param(2, dtypes.f32)
    assert begin_validation(x, x, "wrap") is None  # identical
    assert begin_validation(f + 0.0, f, "wrap") is None  # f32: the evaluator's
    assert begin_validation(x < 1, x, "wrap") is None  # not comparable: validate raises
    assert begin_validation(x, x + 1, "saturating") is None
    big = x
    for k in range(1_100):
        big = big + k
    assert begin_validation(big, x, "wrap") is None  # above VALIDATION_Z3_NODES


def test_optimize_begins_the_check_of_a_constant_its_start_phases_find(patient, monkeypatch):
    program = (x * 4 + 8) // 4 - x - 2
    early = EarlyValidation(program, "no_overflow")
    sat = saturate(program, int_semantics="no_overflow", hooks=early.hooks(HOOKS))
    try:
        assert list(early.begun) == [UOp.const(0)]
        assert sat.report.stop_reason.value == "constant"
        chosen, v = validate_candidates(
            program, [("extracted", UOp.const(0))], "no_overflow", begun=early.begun
        )
        assert chosen is UOp.const(0) and verdict(v) == (
            "proved",
            "z3, integers",
            None,
            None,
            "",
            "extracted",
        )
        assert early.begun[UOp.const(0)].taken
    finally:
        sat.close()
        early.drop()
    answers = []
    take = QuickTry.take

    def recorded(self):
        answers.append(take(self))
        return answers[-1]

    monkeypatch.setattr(QuickTry, "take", recorded)
    best = optimize(program, int_semantics="no_overflow")
    assert best.program is UOp.const(0) and str(best.validation).startswith("proved (z3, integers, ")
    assert answers == ["unsat"]
    assert optimize(program, int_semantics="no_overflow", validate=False).validation.status == "not_attempted"
    assert answers == ["unsat"]  # nothing begun with validation off


def test_when_the_z3_process_is_gone_the_caller_asks_itself_and_a_new_one_is_started(patient):
    a, b, s = PAIRS[4]
    begun = begin_validation(a, b, s)
    assert begun is not None and begun.asked.client is not None
    process = begun.asked.client.process  # the z3 process this test's process started
    process.kill()
    process.wait()
    assert verdict(validate(a, b, s, begun=begun)) == verdict(validate(a, b, s))
    assert quick_worker.start(QUICK_TACTICS, 60.0)
    again = begin_validation(a, b, s)
    assert again is not None and again.asked.client.process is not process and again.take() == "unsat"
