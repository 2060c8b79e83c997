"""The quick try's z3 contexts, made ahead of time and deleted on a background thread
(verify/quick_contexts.py): each is fresh, the verdicts and counterexamples are those of a context
made on the spot, and the used ones are deleted."""

import gc
import subprocess
import sys
import threading

import z3

from eqsat_uopc import UOp
from eqsat_uopc.verify import validate
from eqsat_uopc.verify.quick_contexts import QUICK_TACTICS, quick_solver, wait_idle

x, y = UOp.param(0), UOp.param(1)

# refuted pairs whose counterexample z3 chooses among many (its search decides which), and a proof
PAIRS = [
    (x * 3 // 3, x, "wrap"),
    ((x + y) // 2, x // 2 + y // 2, "wrap"),
    ((x + y) * 2, x * 2 + y * 2, "no_overflow"),
    (x * y // y, x, "no_overflow"),
]
VERDICTS = [
    ("refuted", {0: -1431655765}),
    ("refuted", {0: 1, 1: 3}),
    ("refuted", {0: 1073741824, 1: -1}),
    ("proved", None),
]


# unsat, in about 250 of z3's resource units
HARD = (
    "(declare-const a Int) (declare-const b Int) (assert (> (* a a) 0))"
    " (assert (< (+ (* a a) (* b b)) 1)) (assert (> (* b b b) 3))"
)


def test_a_quick_solver_is_fresh_current_and_limited():
    outer = z3.main_ctx()
    for rlimit in (100, 100, 150):  # the same rlimit as the context made ahead, then another
        with quick_solver(rlimit) as solver:
            assert z3.main_ctx() is solver.ctx and solver.ctx is not outer
            assert len(solver.assertions()) == 0  # nothing asserted: a fresh context every time
            solver.from_string(HARD)
            assert (solver.check(), solver.reason_unknown()) == (z3.unknown, "canceled")
        assert z3.main_ctx() is outer
    for rlimit in (None, 10_000):
        with quick_solver(rlimit) as solver:
            solver.from_string(HARD)
            assert solver.check() == z3.unsat
    assert QUICK_TACTICS == ("simplify", "propagate-values", "solve-eqs", "smt")


def test_verdicts_and_counterexamples_are_the_same_made_ahead_or_on_the_spot():
    # in this process the contexts are made ahead; in a new one the first is made on the spot
    here = [[(v.status, v.counterexample) for v in (validate(*pair) for _ in range(3))] for pair in PAIRS]
    assert here == [[verdict] * 3 for verdict in VERDICTS]
    code = (
        "from eqsat_uopc import UOp\nfrom eqsat_uopc.verify import validate\n"
        "x, y = UOp.param(0), UOp.param(1)\n"
        "print([(v.status, v.counterexample) for v in [validate((x + y) // 2, x // 2 + y // 2, 'wrap')]])"
    )
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert first.stdout == "[('refuted', {0: 1, 1: 3})]\n"


def test_used_contexts_are_deleted_on_the_background_thread():
    def contexts() -> int:
        validate(x * 3 // 3, x, "wrap")  # its context is deleted at the next question's end
        wait_idle()
        gc.collect()
        return sum(isinstance(o, z3.Context) for o in gc.get_objects())

    before = contexts()
    for _ in range(20):
        validate(x * 3 // 3, x, "wrap")
    assert contexts() == before  # 21 questions, 21 contexts: none kept
    assert "z3-contexts_0" in [t.name for t in threading.enumerate()]
