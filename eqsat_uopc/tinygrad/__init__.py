"""The tinygrad bridge: tinygrad's UOps in and out, its simplifier side by side, its kernels as corpora.

- `from_tinygrad` / `to_tinygrad`: exact translation of index arithmetic and elementwise math.
- `tinygrad_simplify`: tinygrad's own symbolic simplifier on one of our programs.
- `capture_tinygrad`: run real tinygrad workloads on its NULL device (nothing executes) and record
  every index and validity expression its codegen hands to the symbolic simplifier.

tinygrad is optional (`pip install 'eqsat-uopc[tinygrad]'`); without it every entry point raises a
`TinygradError` saying so.
"""

from eqsat_uopc.tinygrad.bridge import (
    SUPPORTED_TINYGRAD_OPS,
    TINYGRAD_VERSION,
    TinygradError,
    evaluate_tinygrad,
    from_tinygrad,
    tinygrad_available,
    tinygrad_simplify,
    tinygrad_variables,
    to_tinygrad,
)
from eqsat_uopc.tinygrad.capture import Capture, CapturedExpression, capture_tinygrad, write_capture
from eqsat_uopc.tinygrad.workloads import WORKLOADS

__all__ = [
    "SUPPORTED_TINYGRAD_OPS",
    "TINYGRAD_VERSION",
    "WORKLOADS",
    "Capture",
    "CapturedExpression",
    "TinygradError",
    "capture_tinygrad",
    "evaluate_tinygrad",
    "from_tinygrad",
    "tinygrad_available",
    "tinygrad_simplify",
    "tinygrad_variables",
    "to_tinygrad",
    "write_capture",
]
