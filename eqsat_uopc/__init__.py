"""eqsat-uopc: equality saturation and greedy rewriting for the uopc IR.

This package root is the public API (DESIGN.md, "Public API"); submodules are implementation.
No name exported here is also the name of a subpackage or module, so that `import eqsat_uopc.extract`
(or `.saturation`, `.comparison`, ...) and attribute access agree: the function that extracts is
`eqsat_uopc.extract.extract` (or `Saturation.extract`).
"""

from eqsat_uopc.backend import CompiledProgram, compile_c, compile_many, render_c
from eqsat_uopc.corpus import CorpusEntry, CorpusError, index_expressions, load_caviar
from eqsat_uopc.extract import (
    COST_MODELS,
    EXTRACTORS,
    CostModelError,
    EClass,
    EGraph,
    EGraphError,
    ENode,
    Extraction,
    ExtractionError,
    cost_of,
    costs_of,
    load_latency_table,
)
from eqsat_uopc.greedy import (
    INT_SEMANTICS,
    PatternMatcher,
    RewriteCheckError,
    Rule,
    UPat,
    evaluate,
    fold,
    graph_rewrite,
    graph_rewrite_topdown,
    inline_call,
    run,
    simplify,
    symbolic,
    to_python,
)
from eqsat_uopc.ir.dtype import DType, dtypes, truncate
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uir import (
    Example,
    UirError,
    expected_value,
    load_example,
    load_uir,
    parse_uir,
    read_example,
    to_uir,
    uir_line,
)
from eqsat_uopc.ir.uop import ParamArg, UOp, UOpError, call_params
from eqsat_uopc.pipeline.comparison import Comparison, compare
from eqsat_uopc.pipeline.optimization import optimize
from eqsat_uopc.rules import RULE_SETS, RuleSet, rule_set
from eqsat_uopc.saturation import (
    Saturation,
    SaturationConfig,
    SaturationError,
    SaturationReport,
    StopReason,
    check_sound,
    saturate,
)
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.intervals import bounds, vmax, vmin
from eqsat_uopc.semantics.values import bind_params, literal, same_value
from eqsat_uopc.verify import (
    Proof,
    Verdict,
    check_equivalent,
    prove_equivalent,
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
    "CorpusEntry",
    "CorpusError",
    "CostModelError",
    "DType",
    "EClass",
    "EGraph",
    "EGraphError",
    "ENode",
    "Example",
    "Extraction",
    "ExtractionError",
    "Ops",
    "ParamArg",
    "PatternMatcher",
    "Proof",
    "RewriteCheckError",
    "Rule",
    "RuleSet",
    "Saturation",
    "SaturationConfig",
    "SaturationError",
    "SaturationReport",
    "StopReason",
    "UOp",
    "UOpError",
    "UPat",
    "UirError",
    "Verdict",
    "bind_params",
    "bounds",
    "call_params",
    "check_equivalent",
    "check_sound",
    "compare",
    "compile_c",
    "compile_many",
    "cost_of",
    "costs_of",
    "dtypes",
    "evaluate",
    "exec_alu",
    "expected_value",
    "fold",
    "graph_rewrite",
    "graph_rewrite_topdown",
    "index_expressions",
    "inline_call",
    "literal",
    "load_caviar",
    "load_example",
    "load_latency_table",
    "load_uir",
    "optimize",
    "parse_uir",
    "prove_equivalent",
    "read_example",
    "render_c",
    "rule_set",
    "run",
    "same_value",
    "saturate",
    "simplify",
    "symbolic",
    "to_python",
    "to_uir",
    "truncate",
    "uir_line",
    "verify_rules",
    "verify_saturation_rules",
    "vmax",
    "vmin",
]
