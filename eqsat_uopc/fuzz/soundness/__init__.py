"""The soundness fuzzer (`eqsat-uopc fuzz-soundness`): does an optimizer ever return a program that
computes something else, at any int32 value, under either int semantics?

Random expressions from named templates (grammar.py; the templates in templates/, one module per
family group: the index algebra's folds, the piecewise comparisons, the egglog rule families and a
broad generic grammar) draw their inputs, constants and divisors at the int32 edges as often as
small ones (draw.py). Every result of the optimizer under each int semantics is checked (check.py):
on edge inputs through the reference evaluator (inputs.py), then by z3 with refinement under a
resource limit; a crash is a failure too. Every failure is shrunk by delta debugging
(eqsat_uopc.fuzz.shrink), attributed to the fold or rule family to suspect (attribution.py) and
kept in a regression corpus that ships with the project (regressions.py). campaign.py runs it all;
command.py is the command line.

The optimizer is a parameter (`Optimizer`: program, int semantics -> program): the command line
passes `optimize` with the DAG-size cost (eqsat_uopc.cli.fuzz_soundness); the pipeline sits above
this layer.
"""

from eqsat_uopc.fuzz.soundness.attribution import suspect
from eqsat_uopc.fuzz.soundness.campaign import (
    ShrunkFailure,
    SoundnessReport,
    SoundnessSettings,
    fuzz_soundness,
    still_failing,
)
from eqsat_uopc.fuzz.soundness.check import (
    DEFAULT_RLIMIT,
    SEMANTICS,
    STATUSES,
    CaseResult,
    Counterexample,
    Optimizer,
    Reference,
    Verdict,
    check_case,
    check_result,
    run_optimizer,
)
from eqsat_uopc.fuzz.soundness.draw import (
    BOUND_KINDS,
    EDGE_CONSTANTS,
    EDGE_DIVISORS,
    RANGE_EXTENTS,
    EdgeDraw,
    wrap,
)
from eqsat_uopc.fuzz.soundness.grammar import MAX_SIZE, FuzzCase, families, generate, template_names
from eqsat_uopc.fuzz.soundness.inputs import Assignment, candidate_values, edge_inputs
from eqsat_uopc.fuzz.soundness.registry import TEMPLATES, Template
from eqsat_uopc.fuzz.soundness.regressions import (
    SoundnessCase,
    append_cases,
    load_cases,
    regressions_path,
    shape_key,
)

__all__ = [
    "BOUND_KINDS",
    "DEFAULT_RLIMIT",
    "EDGE_CONSTANTS",
    "EDGE_DIVISORS",
    "MAX_SIZE",
    "RANGE_EXTENTS",
    "SEMANTICS",
    "STATUSES",
    "TEMPLATES",
    "Assignment",
    "CaseResult",
    "Counterexample",
    "EdgeDraw",
    "FuzzCase",
    "Optimizer",
    "Reference",
    "ShrunkFailure",
    "SoundnessCase",
    "SoundnessReport",
    "SoundnessSettings",
    "Template",
    "Verdict",
    "append_cases",
    "candidate_values",
    "check_case",
    "check_result",
    "edge_inputs",
    "families",
    "fuzz_soundness",
    "generate",
    "load_cases",
    "regressions_path",
    "run_optimizer",
    "shape_key",
    "still_failing",
    "suspect",
    "template_names",
    "wrap",
]
