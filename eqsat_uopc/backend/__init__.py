"""The C backend: render a program to C, compile it with the system compiler, run it with ctypes.

Public names: render_c, compile_c, CompiledProgram, evaluate_reference (the same semantics in
Python, for checking), and the exceptions. DESIGN.md "C backend" and the module docstrings of
render.py (values, poison, errors), toolchain.py (flags, cache) and program.py (inputs) say how.
"""

from .errors import (
    BackendError,
    CompilerError,
    CompilerNotFoundError,
    IndexOutOfBoundsError,
    InputError,
    UndefinedBehaviorError,
    UnsupportedProgramError,
)
from .program import CompiledProgram, compile_c, compile_many
from .reference import evaluate_reference
from .render import render_c
from .toolchain import CFLAGS, cache_dir

__all__ = [
    "CFLAGS",
    "BackendError",
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
