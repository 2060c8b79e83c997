"""Validation begun early: z3's part of `optimize`'s check, started while saturation runs.

`optimize` validates the program it returns against its input (verify/validation.py). On the Caviar
expressions most results are a constant that a start phase of the run already found (greedy's seed,
the index algebra's result, the seed folded with the decided comparisons): the run then stops at
that constant and extraction returns it, so the program to check is known before extraction, and
often before the other start phases have run. `EarlyValidation` begins the check of each such
constant as soon as it is known: a hook after each registered start phase (saturation/hooks)
sends z3's quick try to the z3 process (`begin_validation`, verify/quick_worker.py), which answers
on the second core while the caller goes on; the validation of the returned program then takes
that answer (`validate_candidates(..., begun=)`). The answer is the one the caller's own quick try
would get (the same steps in a fresh context), and only "unsat" is used, so the verdict is the one
a check begun at the end gives. A try whose program is not returned is dropped (its answer is
thrown away).

Only constants are begun: a run that has one stops at it, so its check is almost never wasted.
Another seed (greedy's, when not a constant) was returned for 2 of the 55 Caviar results that
needed a check under "no_overflow", after egglog had run, where the check is a small part of the
time: begun for every seed, it would mostly be wasted work.
"""

from __future__ import annotations

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation import Additions, Hook, Seeds
from eqsat_uopc.verify.proof import QuickTry
from eqsat_uopc.verify.validation import begin_validation

__all__ = ["EarlyValidation"]


class EarlyValidation:
    """The checks begun early for one `optimize` call: of each constant its run's start phases find
    equal to `program` (the root terms, and terms paired with the program), under int_semantics."""

    def __init__(self, program: UOp, int_semantics: str) -> None:
        self.program, self.int_semantics = program, int_semantics
        self.begun: dict[UOp, QuickTry] = {}

    def hooks(self, registered: tuple[type[Hook], ...]) -> tuple[type[Hook], ...]:
        """The registered hooks, with one after each that begins the checks of the constants found
        so far (a class of this call's own: the runner makes its hooks from their classes)."""
        early = self

        class BeginChecks(Hook):
            name = "early-validation"

            def start(self, seeds: Seeds) -> Additions:
                early.begin(seeds)
                return Additions()

        return tuple(h for hook in registered for h in (hook, BeginChecks))

    def begin(self, seeds: Seeds) -> None:
        """Begin the check of each constant equal to the program not begun yet."""
        if seeds.program is not self.program or self.program.shape:
            return
        roots = set(seeds.roots)
        paired = (b for a, b in seeds.equalities if a in roots)
        for term in (*seeds.root_terms.values(), *paired):
            if term.op is Ops.CONST and term is not self.program and term not in self.begun:
                begun = begin_validation(self.program, term, self.int_semantics)
                if begun is not None:
                    self.begun[term] = begun

    def drop(self) -> None:
        """Drop the checks not taken (their programs were not returned)."""
        for begun in self.begun.values():
            begun.drop()
        self.begun.clear()
