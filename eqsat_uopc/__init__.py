"""eqsat-uopc: equality saturation and greedy rewriting for the uopc IR."""

from .dtype import DType, dtypes, truncate
from .ops import ALU, Ops
from .uop import ParamArg, UOp, UOpError, call_params

__all__ = ["ALU", "DType", "Ops", "ParamArg", "UOp", "UOpError", "call_params", "dtypes", "truncate"]
