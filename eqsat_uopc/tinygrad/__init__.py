"""The tinygrad bridge: tinygrad's UOps in and out, its simplifier side by side, its kernels as corpora.

- `from_tinygrad` / `to_tinygrad`: exact translation of index arithmetic and elementwise math.
- `tinygrad_simplify`: tinygrad's own symbolic simplifier on one of our programs.
- `capture_tinygrad`: run real tinygrad workloads on its NULL device (nothing executes) and record
  every index and validity expression its codegen hands to the symbolic simplifier.
- `simplifying()` (and `EQSAT=1`): the opt-in mode, tinygrad compiling every kernel with
  eqsat-uopc as its index simplifier: one e-graph per kernel, every change proved, kept only when
  tinygrad counts fewer integer ops (mode.py, simplifier.py, kernel.py).

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
from eqsat_uopc.tinygrad.mode import ModeError, ModeSession, enable_from_environment, simplifying
from eqsat_uopc.tinygrad.simplifier import KernelReport, SimplifierSettings
from eqsat_uopc.tinygrad.workloads import WORKLOADS

__all__ = [
    "SUPPORTED_TINYGRAD_OPS",
    "TINYGRAD_VERSION",
    "WORKLOADS",
    "Capture",
    "CapturedExpression",
    "KernelReport",
    "ModeError",
    "ModeSession",
    "SimplifierSettings",
    "TinygradError",
    "capture_tinygrad",
    "enable_from_environment",
    "evaluate_tinygrad",
    "from_tinygrad",
    "simplifying",
    "tinygrad_available",
    "tinygrad_simplify",
    "tinygrad_variables",
    "to_tinygrad",
    "write_capture",
]

enable_from_environment()  # EQSAT=1: the mode is on in this process from here on
