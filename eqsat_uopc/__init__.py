"""eqsat-uopc: equality saturation and greedy rewriting for the uopc IR.

This package root is the public API: what a user of the tool needs, by layer. Everything else is
importable from the module that defines it (`eqsat_uopc.ir.uir`, `eqsat_uopc.verify`, ...). No name
exported here is also the name of a subpackage or module, so that `import eqsat_uopc.extract` (or
`.saturation`, `.pipeline`, ...) and attribute access agree: the function that extracts is
`eqsat_uopc.extract.extract` (or `Saturation.extract`).
"""

from eqsat_uopc.backend import CompiledProgram, compile_c, render_c
from eqsat_uopc.corpus import caviar_dev, index_expressions
from eqsat_uopc.errors import ProgramError
from eqsat_uopc.extract import (
    COST_MODELS,
    EXTRACTORS,
    EClass,
    EGraph,
    ENode,
    Extraction,
    ExtractionError,
    cost_of,
    costs_of,
)
from eqsat_uopc.greedy import (
    PatternMatcher,
    Rule,
    UPat,
    evaluate,
    fold,
    graph_rewrite,
    inline_call,
    run,
    simplify,
    symbolic,
    to_python,
)
from eqsat_uopc.ir.dtype import DType, dtypes, truncate
from eqsat_uopc.ir.examples import load_example
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uir import UirError, parse_uir, to_uir
from eqsat_uopc.ir.uop import ParamArg, UOp, UOpError, call_params
from eqsat_uopc.pipeline.comparison import Comparison, compare
from eqsat_uopc.pipeline.fastest import MeasureSettings, measure_fastest
from eqsat_uopc.pipeline.optimization import optimize
from eqsat_uopc.rules import RULE_SETS
from eqsat_uopc.saturation import (
    Saturation,
    SaturationConfig,
    SaturationError,
    SaturationReport,
    StopReason,
    saturate,
)
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS
from eqsat_uopc.semantics.intervals import bounds, vmax, vmin
from eqsat_uopc.verify import (
    Validation,
    check_equivalent,
    prove_equivalent,
    validate,
    verify_rules,
    verify_saturation_rules,
)

__all__ = [
    "ALU",
    "COST_MODELS",
    "EXTRACTORS",
    "INT_SEMANTICS",
    "RULE_SETS",
    "Comparison",
    "CompiledProgram",
    "DType",
    "EClass",
    "EGraph",
    "ENode",
    "Extraction",
    "ExtractionError",
    "MeasureSettings",
    "Ops",
    "ParamArg",
    "PatternMatcher",
    "ProgramError",
    "Rule",
    "Saturation",
    "SaturationConfig",
    "SaturationError",
    "SaturationReport",
    "StopReason",
    "UOp",
    "UOpError",
    "UPat",
    "UirError",
    "Validation",
    "bounds",
    "call_params",
    "caviar_dev",
    "check_equivalent",
    "compare",
    "compile_c",
    "cost_of",
    "costs_of",
    "dtypes",
    "evaluate",
    "exec_alu",
    "fold",
    "graph_rewrite",
    "index_expressions",
    "inline_call",
    "load_example",
    "measure_fastest",
    "optimize",
    "parse_uir",
    "prove_equivalent",
    "render_c",
    "run",
    "saturate",
    "simplify",
    "symbolic",
    "to_python",
    "to_uir",
    "truncate",
    "validate",
    "verify_rules",
    "verify_saturation_rules",
    "vmax",
    "vmin",
]
