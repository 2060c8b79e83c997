"""one_line: a node as a one-line nested term (`add(mul(p0, 3), 11)`), for traces and errors.

The engine's tracer, its rewrite check and the soundness reports all print through this one
name, so the printer can be swapped in one place. It is the .uir format's one-line form.
"""

from __future__ import annotations

from eqsat_uopc.ir.uir import uir_line as one_line

__all__ = ["one_line"]
