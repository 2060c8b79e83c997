"""eqsat-uopc: equality saturation and greedy rewriting for the uopc IR.

This package root is the public API (DESIGN.md, "Public API"); submodules are implementation.
"""

from .backend import CompiledProgram, compile_c, compile_many, render_c
from .bounds import bounds, vmax, vmin
from .compare import Comparison, compare
from .corpus import CorpusEntry, CorpusError, index_expressions, load_caviar
from .dtype import DType, dtypes, truncate
from .greedy import (
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
from .ops import ALU, Ops
from .optimize import optimize
from .saturate import Extraction, Saturation, SaturationError, SaturationReport, StopReason, saturate
from .semantics import exec_alu
from .uir import (
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
from .uop import ParamArg, UOp, UOpError, call_params
from .values import bind_params, literal, same_value
from .verify import Proof, Verdict, check_equivalent, prove_equivalent, verify_rules, verify_saturation_rules

__all__ = [
    "ALU",
    "INT_SEMANTICS",
    "Comparison",
    "CompiledProgram",
    "CorpusEntry",
    "CorpusError",
    "DType",
    "Example",
    "Extraction",
    "Ops",
    "ParamArg",
    "PatternMatcher",
    "Proof",
    "RewriteCheckError",
    "Rule",
    "Saturation",
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
    "compare",
    "compile_c",
    "compile_many",
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
    "load_uir",
    "optimize",
    "parse_uir",
    "prove_equivalent",
    "read_example",
    "render_c",
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
