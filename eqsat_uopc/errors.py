"""UserError, the one base of every failure a user can cause, and the errors several layers share.

Why one base: a caller (the command line above all) must tell "you gave me something wrong" from
"eqsat-uopc has a bug". Every layer keeps its own error class, named for what went wrong there
(UOpError, UirError, CorpusError, SaturationError, CostModelError, ExtractionError, InputError,
TinygradError, ...), and each of those derives from UserError as well as from the builtin it always
was (ValueError, IndexError, ...), so existing `except ValueError` code keeps working. Catching
UserError catches exactly the user's mistakes: a KeyError, an IndexError or an AssertionError that
is not also a UserError is a bug, and `eqsat-uopc` shows its traceback instead of one line.

What counts as a user's mistake: a malformed program or file, an option or argument outside what
is allowed, inputs that do not fit a program (count, dtype, shape, a bounded input's bounds), a
program whose value is undefined on the inputs given, a missing optional tool (tinygrad, a C
compiler, Graphviz), a budget the program cannot fit in. Not one: a broken invariant inside the
tool (an unsound merge, an e-graph that lost a type, a C compiler rejecting the code the backend
generated).

This module sits below every layer (it imports nothing), so the IR, the semantics and the backend
can all raise the same InputError: the interpreter and the C backend refuse the same inputs with
the same exception and the same message. Likewise a program whose own evaluation fails raises a
ProgramError (IndexOutOfBoundsError) wherever that is found: the interpreter, greedy rewriting,
saturation's folding step.
"""

from __future__ import annotations

__all__ = ["IndexOutOfBoundsError", "InputError", "ProgramError", "UserError"]


class UserError(Exception):
    """Something the user gave (a program, a file, an option, an input, the environment) is not
    usable; the message says what, where, and what would be right."""


class InputError(UserError, ValueError):
    """Inputs of a program of the wrong count, dtype or shape, or a bounded input outside its
    bounds; the message names the input (`input 0 (PARAM slot 0): i32 scalar: ...`) and what was
    expected. Raised alike by the interpreter (`bind_params`, `evaluate`) and the C backend."""


class ProgramError(UserError):
    """Evaluating the program itself fails: on the inputs given, or on every input (a constant INDEX
    outside its STACK, which the interpreter, greedy rewriting and saturation's folding step all
    find). The program's error, not the tool's: the command line names the file it came from."""


class IndexOutOfBoundsError(ProgramError, IndexError):
    """An INDEX outside its axis: a constant one (`index 5 out of bounds for STACK of 3`), wherever
    the program is evaluated or folded, or a computed one when a compiled program runs (the C
    backend's subclass, eqsat_uopc.backend.IndexOutOfBoundsError). An IndexError too, as the
    chapter's interpreter raises."""
