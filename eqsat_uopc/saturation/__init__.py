"""Equality saturation: lowering UOps into egglog, the budgeted runner, raising back.

saturate(program, rules="default", int_semantics="wrap", node_budget=..., iter_limit=...,
         time_limit=...) -> Saturation
Saturation.report      SaturationReport (stop_reason, iterations, enodes/eclasses per
                       iteration, time in egglog / folding / lowering / raising)
Saturation.egraph      the serialized eqsat_uopc.extract.EGraph; its meta["egglog"] is an
                       EgglogExtractor: .extract(mode, roots) with mode "tree" or "dag" runs
                       egglog's own extractors and returns {ClassId: ENode}
Saturation.extract(cost="dag_size", extractor="auto") -> Extraction
Saturation.equivalent(a, b) -> bool
Saturation.literal()   the CONST/STACK literal in the root's e-class, or None
check_sound(egraph, params, ranges)   the e-nodes that disagree with their e-class on an input

Modules: terms (the term encoding and egglog declarations), lower (UOps into egglog), serialize
(egglog back into an EGraph; egglog's extractors), fold (the Python rules between iterations),
scheduler (per-rule back-off), runner (saturate, Saturation), raising, report, check, errors.
Import from this package with `from eqsat_uopc.saturation import ...`: once the top-level package
re-exports the function `saturate`, the attribute eqsat_uopc.saturation is that function.
"""

from eqsat_uopc.saturation.check import Disagreement, check_sound
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.raising import raise_choice
from eqsat_uopc.saturation.report import SaturationReport, StopReason
from eqsat_uopc.saturation.runner import (
    DEFAULT_ITER_LIMIT,
    DEFAULT_NODE_BUDGET,
    DEFAULT_TIME_LIMIT,
    Extraction,
    Saturation,
    saturate,
)
from eqsat_uopc.saturation.serialize import EgglogExtractor

__all__ = [
    "DEFAULT_ITER_LIMIT",
    "DEFAULT_NODE_BUDGET",
    "DEFAULT_TIME_LIMIT",
    "Disagreement",
    "EgglogExtractor",
    "Extraction",
    "Saturation",
    "SaturationError",
    "SaturationReport",
    "StopReason",
    "check_sound",
    "raise_choice",
    "saturate",
]
