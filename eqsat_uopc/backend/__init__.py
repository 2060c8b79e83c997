"""The C backend: render a program to C, compile it with the system compiler, run it with ctypes.

Public names: render_c, compile_c, compile_many, CompiledProgram, evaluate_reference (the same
semantics in Python, the executable definition), and the exceptions.

Decisions (the module docstrings say why):
- Semantics are exec_alu's bit for bit (prelude.py). Undefined operations (FLOORDIV/FLOORMOD by
  zero, INT_MIN // -1, a non-finite or out-of-range f32 -> i32 CAST) are never executed: each
  lane carries a status, WHERE takes the status of the lane it selects, and the program fails
  with UndefinedBehaviorError("FLOORDIV by zero at %7") only if a returned lane depends on one
  (render.py). `%7` is the node's number in `to_uir`'s listing.
- An out-of-bounds index is an IndexOutOfBoundsError (an IndexError): at compile time for a
  constant index, at run time for a computed one, whether or not the lane is selected, as `run`
  raises it.
- Inputs are positional: one per PARAM slot 0..max slot (an unused slot takes any value), then
  one i32 per free RANGE, which must lie in [0, extent - 1] (lower.py, program.py).
- CALLs are inlined; each statement's comment is its .uir line and the CALL it came from.
- Flags and cache: toolchain.py (-O2 -fno-fast-math -ffp-contract=off ..., $UOPC_CACHE_DIR).
"""

from eqsat_uopc.backend.errors import (
    BackendError,
    CacheDirectoryError,
    CompilerError,
    CompilerNotFoundError,
    IndexOutOfBoundsError,
    InputError,
    UndefinedBehaviorError,
    UnsupportedProgramError,
)
from eqsat_uopc.backend.program import CompiledProgram, compile_c, compile_many
from eqsat_uopc.backend.reference import evaluate_reference
from eqsat_uopc.backend.render import render_c
from eqsat_uopc.backend.toolchain import CFLAGS, cache_dir

__all__ = [
    "CFLAGS",
    "BackendError",
    "CacheDirectoryError",
    "CompiledProgram",
    "CompilerError",
    "CompilerNotFoundError",
    "IndexOutOfBoundsError",
    "InputError",
    "UndefinedBehaviorError",
    "UnsupportedProgramError",
    "cache_dir",
    "compile_c",
    "compile_many",
    "evaluate_reference",
    "render_c",
]
