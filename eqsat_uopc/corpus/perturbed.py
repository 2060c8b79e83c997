"""Caviar expressions with their constants moved: a corpus the rules were not tuned on.

The rule families were written while looking at the bundled Caviar expressions. A rule that
decides them by their exact constants (overfitting) decides fewer once the constants move; one
that captures the mathematics decides as many of the moved ones as are still theorems. So
`perturbed_caviar(seed)` moves about half of the integer constants of every true-or-false Caviar
expression (`perturb_constants`): by -2 to 2, or doubled, never to 0 (a divisor of 0 leaves every
input undefined, and a proof of anything vacuous). Only constants of magnitude 2 and more move:
0, 1 and -1 are the expressions' structure (`x * -1` is a negation, `+ -1` a `<=`), not data.

A moved expression may no longer be true or false; its truth is not sampled but left to a proof
(`bench/perturbed.py` asks z3 for one under `no_overflow`, Halide's assumption, and measures
saturation on those it proves true or false).
"""

from __future__ import annotations

import dataclasses
import random

from eqsat_uopc.corpus.caviar import caviar_dev
from eqsat_uopc.corpus.format import VERDICTS, CorpusEntry
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["perturb_constants", "perturbed_caviar"]


def perturb_constants(program: UOp, rng: random.Random, share: float = 0.5) -> UOp:
    """program with about `share` of its distinct i32 constants of magnitude >= 2 moved (each one
    everywhere it occurs): by -2, -1, 1 or 2 (70%) or doubled, a result of 0 replaced by the
    constant plus 3; at least one moves when there is one. Deterministic for a given rng state."""
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    constants = [
        u for u in program.toposort() if u.op is Ops.CONST and u.dtype is dtypes.i32 and abs(u.arg) >= 2
    ]
    moved: dict[UOp, UOp] = {}
    for u in constants:
        if rng.random() < share:
            v = u.arg + rng.choice((-2, -1, 1, 2)) if rng.random() < 0.7 else u.arg * 2
            moved[u] = UOp.const(v if v != 0 else u.arg + 3)
    if constants and not moved:
        moved[constants[0]] = UOp.const(constants[0].arg + 1)
    return program.substitute(moved)


def perturbed_caviar(seed: int = 0, share: float = 0.5) -> list[CorpusEntry]:
    """The true-or-false entries of the bundled Caviar corpus (sample verdict true or false), in
    file order, each with its constants perturbed (`perturb_constants`, one rng seeded with `seed`
    for the whole corpus). An entry keeps its variables and metadata (its tree's `size` too) but
    for: `id` suffixed `~seed`, `verdict` "unknown" (prove it), no `halide` text, `program_euclid`,
    sample counterexample or recorded Caviar result (they describe the original), and `source`
    naming the original."""
    rng = random.Random(seed)
    out = []
    for e in caviar_dev():
        if VERDICTS[e.verdict] is None:
            continue
        program = perturb_constants(e.program, rng, share)
        out.append(
            dataclasses.replace(
                e,
                id=f"{e.id}~{seed}",
                program=program,
                program_euclid=None,
                halide="",
                verdict="unknown",
                sample_counterexample=None,
                halide_simplifier_proved=False,
                caviar_result=None,
                source=f"{e.id} with its constants perturbed (seed {seed})",
            )
        )
    return out
