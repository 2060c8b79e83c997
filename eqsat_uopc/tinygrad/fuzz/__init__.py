"""A differential fuzzer against tinygrad's symbolic simplifier (`eqsat-uopc fuzz-tinygrad`).

Random index expressions from named templates (grammar.py, spelled every way the IR can:
eqsat_uopc.fuzz.spelling) go through tinygrad's `simplify` and through an optimizer under both int
semantics; every result is checked on inputs inside the bounds (check.py); every case where ours is
larger than tinygrad's is minimized by delta debugging (eqsat_uopc.fuzz.shrink, shared with the
soundness fuzzer), named by the tinygrad rules its simplification fires (attribution.py) and kept
in a regression corpus that ships with the project (regressions.py). campaign.py runs it all;
command.py is the command line.

The optimizer is a parameter (`Optimizer`: program, int semantics -> program): the command line
passes `optimize` with the DAG-size cost; the pipeline sits above this layer.
"""

from eqsat_uopc.fuzz.shrink import ShrinkResult, complexity, normalize_slots, shrink
from eqsat_uopc.tinygrad.fuzz.attribution import NOISE, significant, tinygrad_rules
from eqsat_uopc.tinygrad.fuzz.campaign import FuzzReport, FuzzSettings, ShrunkCase, fuzz, still_larger
from eqsat_uopc.tinygrad.fuzz.check import (
    SEMANTICS,
    CaseResult,
    Counterexample,
    Optimizer,
    Outcome,
    Reference,
    check_case,
    dag_size,
    sample_inputs,
)
from eqsat_uopc.tinygrad.fuzz.grammar import (
    BOUND_KINDS,
    TEMPLATES,
    Draw,
    FuzzCase,
    Template,
    divisors_exclude_zero,
    generate,
    template_names,
)
from eqsat_uopc.tinygrad.fuzz.regressions import (
    Regression,
    append_regressions,
    load_regressions,
    regressions_path,
    shape_key,
)

__all__ = [
    "BOUND_KINDS",
    "NOISE",
    "SEMANTICS",
    "TEMPLATES",
    "CaseResult",
    "Counterexample",
    "Draw",
    "FuzzCase",
    "FuzzReport",
    "FuzzSettings",
    "Optimizer",
    "Outcome",
    "Reference",
    "Regression",
    "ShrinkResult",
    "ShrunkCase",
    "Template",
    "append_regressions",
    "check_case",
    "complexity",
    "dag_size",
    "divisors_exclude_zero",
    "fuzz",
    "generate",
    "load_regressions",
    "normalize_slots",
    "regressions_path",
    "sample_inputs",
    "shape_key",
    "shrink",
    "significant",
    "still_larger",
    "template_names",
    "tinygrad_rules",
]
