"""The exceptions of the C backend, and the run-time status codes the generated code returns.

A compiled program never traps: where exec_alu refuses (division by zero, INT_MIN // -1, a cast of a
non-finite or out-of-range f32 to i32) the generated C marks the lane as *poisoned* with a status
code naming the node and the reason, and an out-of-bounds symbolic index or RANGE value stops the
program with such a code. The Python side turns a code into one of the exceptions below; the
reference evaluator (reference.py) raises the very same exceptions, so messages can be compared.

Status code layout (an int32): `number * 8 + reason`, 0 meaning "defined". `number` is the node's
number in the original program's toposort (the `%N` of its .uir listing).
"""

from __future__ import annotations

from eqsat_uopc import errors
from eqsat_uopc.errors import InputError, UserError
from eqsat_uopc.semantics.evaluation import (
    CAST_INVALID,
    DIV_BY_ZERO,
    DIV_OVERFLOW,
    INDEX_OOB,
    MOD_BY_ZERO,
    RANGE_OOB,
)

__all__ = [
    "REASONS",
    "BackendError",
    "CacheDirectoryError",
    "CompilerError",
    "CompilerNotFoundError",
    "IndexOutOfBoundsError",
    "InputError",
    "UndefinedBehaviorError",
    "UnsupportedProgramError",
    "status_error",
]


class BackendError(Exception):
    """Base class of the errors the C backend raises. Inputs that do not fit a program raise
    InputError (eqsat_uopc.errors), which the interpreter raises too, with the same messages: it is
    re-exported here but is not a BackendError."""


class UnsupportedProgramError(BackendError, UserError, ValueError):
    """The program cannot be rendered to C (an op without a rendering, inconsistent PARAMs, ...)."""


class CompilerNotFoundError(BackendError, UserError, RuntimeError):
    """No C compiler where $CC (or `cc`) says."""


class CacheDirectoryError(BackendError, UserError):
    """The compiled-code cache directory ($UOPC_CACHE_DIR) cannot be written."""


class CompilerError(BackendError, RuntimeError):
    """The C compiler rejected the generated source; the message shows the offending source line.
    The backend generated that source, so this is a bug in eqsat-uopc (no UserError)."""


class UndefinedBehaviorError(BackendError, UserError, ArithmeticError):
    """A value the program returns depends on an operation C leaves undefined (exec_alu refuses it)."""


class IndexOutOfBoundsError(BackendError, errors.IndexOutOfBoundsError):
    """A computed INDEX (or a RANGE input) fell outside its axis: an error in the program or its input
    (a ProgramError and an IndexError, as the interpreter's IndexOutOfBoundsError it refines)."""


# reason -> (op name, what happened); the generated C writes these numbers, so they never change
# (defined once, with the evaluator that computes them: eqsat_uopc.semantics.evaluation)
REASONS: dict[int, str] = {
    DIV_BY_ZERO: "FLOORDIV by zero",
    DIV_OVERFLOW: "FLOORDIV overflow (-2147483648 // -1)",
    MOD_BY_ZERO: "FLOORMOD by zero",
    CAST_INVALID: "CAST of a non-finite or out-of-range f32 to i32",
    INDEX_OOB: "INDEX out of bounds",
    RANGE_OOB: "RANGE value out of bounds",
}


def status_error(code: int, detail: tuple[int, int, int] = (0, 0, 0)) -> BackendError:
    """The exception for a nonzero status code; detail is (value, axis, size) or (value, extent, 0)."""
    number, reason = divmod(code, 8)
    if reason == INDEX_OOB:
        value, axis, dim = detail
        return IndexOutOfBoundsError(
            f"INDEX at %{number}: index {value} out of bounds for axis {axis} of size {dim}"
        )
    if reason == RANGE_OOB:
        value, extent, _ = detail
        return IndexOutOfBoundsError(f"RANGE at %{number}: value {value} outside [0, {extent - 1}]")
    if reason in REASONS:
        return UndefinedBehaviorError(f"{REASONS[reason]} at %{number}")
    return BackendError(f"unknown status code {code} (node %{number}, reason {reason})")
