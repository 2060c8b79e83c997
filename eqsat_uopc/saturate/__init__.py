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
"""

from .errors import SaturationError
from .raising import raise_choice
from .report import SaturationReport, StopReason
from .runner import (
    DEFAULT_ITER_LIMIT,
    DEFAULT_NODE_BUDGET,
    DEFAULT_TIME_LIMIT,
    Extraction,
    Saturation,
    saturate,
)
from .serialize import EgglogExtractor

__all__ = [
    "DEFAULT_ITER_LIMIT",
    "DEFAULT_NODE_BUDGET",
    "DEFAULT_TIME_LIMIT",
    "EgglogExtractor",
    "Extraction",
    "Saturation",
    "SaturationError",
    "SaturationReport",
    "StopReason",
    "raise_choice",
    "saturate",
]
