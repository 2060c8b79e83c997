"""Cost models and extractors over the serialized e-graph.

`extract(egraph, cost, extractor)` is the entry point; `COST_MODELS` and `EXTRACTORS` are the
registries; `cost_of(program, cost)` prices any UOp program under any cost model.
"""

from .bottom_up import BottomUpExtractor
from .check import build_programs, check_choice
from .cost import (
    COST_ALIASES,
    COST_KINDS,
    COST_MODELS,
    CostModel,
    DagSize,
    Depth,
    TreeSize,
    cost_model,
    cost_of,
    costs_of,
)
from .egglog_extract import EgglogExtractor
from .egraph import ClassId, EClass, EGraph, EGraphError, ENode
from .errors import CostModelError, ExtractionError
from .extraction import ExtractResult, check_result, extract
from .greedy_dag import GreedyDagExtractor
from .ilp import IlpExtractor
from .latency import DEFAULT_LATENCY_TABLE, Latency, load_latency_table, save_latency_table
from .problem import ExtractionProblem, Solution
from .registry import AUTO_EXACT_MAX_ENODES, AUTO_TIME_LIMIT, EXTRACTORS, choose_extractor

__all__ = [
    "AUTO_EXACT_MAX_ENODES",
    "AUTO_TIME_LIMIT",
    "COST_ALIASES",
    "COST_KINDS",
    "COST_MODELS",
    "DEFAULT_LATENCY_TABLE",
    "EXTRACTORS",
    "BottomUpExtractor",
    "ClassId",
    "CostModel",
    "CostModelError",
    "DagSize",
    "Depth",
    "EClass",
    "EGraph",
    "EGraphError",
    "ENode",
    "EgglogExtractor",
    "ExtractResult",
    "ExtractionError",
    "ExtractionProblem",
    "GreedyDagExtractor",
    "IlpExtractor",
    "Latency",
    "Solution",
    "TreeSize",
    "build_programs",
    "check_choice",
    "check_result",
    "choose_extractor",
    "cost_model",
    "cost_of",
    "costs_of",
    "extract",
    "load_latency_table",
    "save_latency_table",
]
