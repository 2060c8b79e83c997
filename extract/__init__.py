"""Cost models and extractors over the serialized e-graph (eqsat_uopc.extract).

`extract(egraph, cost="dag_size", extractor="auto", branch_limit=AUTO_BRANCH_LIMIT, time_limit=None)
-> Extraction` runs one
extractor under one cost model and checks the result before returning it (check.py: every root
chosen, chosen e-nodes belong to their e-classes, closed under children, acyclic; programs rebuilt
through UOp's type checks; cost recomputed from the programs). `cost_of(program, cost)` prices any
UOp program, `costs_of(program)` under every built-in model.

Registries:
- COST_MODELS: tree_size, dag_size ("smallest"), depth, latency ("fastest"); any object with
  `kind` ("tree" | "dag" | "depth") and `node_cost(op, arg, dtype, shape)` is a cost model too
  (cost.py). A CONST or PARAM leaf costs 1 in the size and depth models.
- EXTRACTORS: bottom_up (optimal_for "tree": tree and depth costs), greedy_dag (None), exact
  (an ILP through HiGHS, optimal_for "dag", within a branch limit and an optional time limit),
  egglog_tree and egglog_dag (egglog's own, through egraph.meta["egglog"]; None). "auto": bottom_up
  for tree/depth models, exact for DAG models up to AUTO_EXACT_MAX_ENODES e-nodes, greedy_dag above.

Ties break deterministically: lower cost, then the e-class earlier in e-graph order, then the e-node
earlier in its e-class (bottom_up, greedy_dag); the exact extractor returns whichever optimum HiGHS
finds (deterministic for one HiGHS version, single-threaded, fixed seed).
"""

from eqsat_uopc.extract.bottom_up import BottomUpExtractor
from eqsat_uopc.extract.check import build_programs, check_choice
from eqsat_uopc.extract.cost import (
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
    extraction_depth,
)
from eqsat_uopc.extract.egglog_extract import EgglogExtractor
from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph, EGraphError, ENode
from eqsat_uopc.extract.errors import CostModelError, ExtractionError
from eqsat_uopc.extract.extraction import Extraction, check_result, extract
from eqsat_uopc.extract.greedy_dag import GreedyDagExtractor
from eqsat_uopc.extract.ilp import IlpExtractor
from eqsat_uopc.extract.latency import DEFAULT_LATENCY_TABLE, Latency, load_latency_table, save_latency_table
from eqsat_uopc.extract.problem import ExtractionProblem, Solution
from eqsat_uopc.extract.registry import (
    AUTO_BRANCH_LIMIT,
    AUTO_EXACT_MAX_ENODES,
    EXTRACTORS,
    choose_extractor,
    extractor_named,
)

__all__ = [
    "AUTO_BRANCH_LIMIT",
    "AUTO_EXACT_MAX_ENODES",
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
    "Extraction",
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
    "extraction_depth",
    "extractor_named",
    "load_latency_table",
    "save_latency_table",
]
