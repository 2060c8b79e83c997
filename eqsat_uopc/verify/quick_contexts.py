"""z3 contexts for the quick try of a proof, made ahead of time and deleted on a background thread.

Translation validation asks z3 one small question per `optimize` result, each in a z3 context of its
own (z3_encode.py, `own_z3_context`: the verdict depends on nothing that ran before). On the Caviar
expressions, where `optimize` itself takes 3-5 ms, the context was the largest part of a check:
making one 0.8-1 ms (z3 fills two tables of some 8 MB), deleting it 0.2-0.3, and the quick solver's
first steps another 0.3 (its tactics, the rlimit, whose name z3 checks against every solver
parameter, and the SMT-LIB reader that `from_string` makes on its first call). None of that depends
on the question. So a background thread makes the next context and its quick solver while the
caller does other work, and deletes the used ones: z3 allows distinct contexts on distinct threads,
and ctypes releases the GIL for each z3 call, so on a second core that work is off the caller's
path (bench/validation.py prints the caller's CPU time beside the process's).

Every context handed out is in one state, whichever thread made it (`_prepare`): made by
`z3.Context()`, then its quick solver made (QUICK_TACTICS, the rlimit asked for) and its reader
made by reading nothing: the steps a quick try in a context made on the spot began with, in the
same order, so what a question meets is the same in every run, in every order of calls, in any
process (a different rlimit asked for is set again: the last value set is the one used). The
caller makes one itself when none is ready (the first, or after a fork). A context is touched by one
thread at a time: the maker until the caller takes it (a Future's result), the caller while it
holds it, and the deleter only once no Python object refers to it but the pool (its reference
counts say so; one still referred to, say by a model the caller kept, waits for a later turn).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import z3
import z3.z3 as z3_api

from eqsat_uopc.allocator import pad_system_heap

__all__ = ["QUICK_TACTICS", "QuickContext", "quick_solver", "wait_idle"]

# The quick solver: z3's SMT core behind three cheap tactics, which substitute what the encoding
# defines by equations (a division's quotient and remainder, a wrapped product) and fold what is
# constant before the search (proof.py, `quick_first`).
QUICK_TACTICS = ("simplify", "propagate-values", "solve-eqs", "smt")


@dataclass(eq=False)  # compared by identity
class QuickContext:
    """A z3 context of its own and a quick solver in it, nothing asserted (see the module docstring)."""

    context: z3.Context
    solver: z3.Solver
    rlimit: int | None  # the solver's (None: none)


def _prepare(rlimit: int | None) -> QuickContext:
    """A context in the one state every QuickContext starts in (the module docstring), its quick
    solver within `rlimit`."""
    pad_system_heap()
    context = z3.Context()
    solver = z3.Then(*QUICK_TACTICS, ctx=context).solver()
    if rlimit is not None:
        solver.set("rlimit", rlimit)  # (0.1 ms: z3 checks the name against every solver parameter)
    solver.from_string("")  # makes its SMT-LIB reader, reads nothing
    return QuickContext(context, solver, rlimit)


def _unreferenced(c: QuickContext) -> bool:
    """Does nothing but `c` refer to its context and solver? (The solver refers to the context; each
    getrefcount counts its argument.)"""
    return sys.getrefcount(c.context) == 3 and sys.getrefcount(c.solver) == 2


def _delete(used: list[QuickContext]) -> None:
    """Delete their solvers and contexts (z3's own deleters, in the solver's and the context's __del__)."""
    for c in used:
        c.solver = c.context = None  # type: ignore[assignment]


class _Contexts:
    """The next QuickContext, being made on the background thread, and the used ones to delete."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._next: Future[QuickContext] | None = None
        self._rlimit: int | None = None  # the last one asked for: the next context's
        self._used: list[QuickContext] = []
        self._pid = os.getpid()

    def take(self, rlimit: int | None) -> QuickContext:
        """A fresh QuickContext within rlimit: the one made ahead if it is ready, else one made now
        (the one being made is then the next one: a caller never waits for the thread)."""
        with self._lock:
            if self._pid != os.getpid():  # a forked child: the parent's thread is not here
                self._reset()
            ahead = self._next
            if ahead is not None and ahead.done():
                self._next = None
            else:
                ahead = None
            self._rlimit = rlimit
        if ahead is not None and ahead.exception() is None:  # (it failed: say, out of memory)
            c = ahead.result()
            if c.rlimit != rlimit and rlimit is not None:  # (the last value set is the one used)
                c.solver.set("rlimit", rlimit)
                c.rlimit = rlimit
            if c.rlimit == rlimit:
                return c
            self.give_back(c)  # it has an rlimit, and none is asked for
        return _prepare(rlimit)

    def give_back(self, c: QuickContext) -> None:
        """c is used: deleted on the background thread once nothing refers to it. The next context
        is made there now, while the caller does other work."""
        with self._lock:
            self._used.append(c)
            unused = [u for u in self._used if _unreferenced(u)]
            self._used = [u for u in self._used if u not in unused]
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="z3-contexts")
            if self._next is None:
                self._next = self._executor.submit(_prepare, self._rlimit)
            if unused:
                self._executor.submit(_delete, unused)

    def wait_idle(self) -> None:
        """Wait until the thread has done what it was given (its jobs run in order)."""
        with self._lock:
            executor = self._executor
        if executor is not None:
            executor.submit(int).result()


_CONTEXTS = _Contexts()


def wait_idle() -> None:
    """Wait until the background thread has made the next context and deleted the used ones it was
    given (to count what a process holds, as tests do)."""
    _CONTEXTS.wait_idle()


@contextmanager
def quick_solver(rlimit: int | None) -> Iterator[z3.Solver]:
    """A quick solver (QUICK_TACTICS) within rlimit (None: none) and no other limit, in a fresh z3
    context of its own, z3's current context for the block (as own_z3_context makes one). Nothing
    is asserted in it yet."""
    c = _CONTEXTS.take(rlimit)
    saved = z3_api._main_ctx
    z3_api._main_ctx = c.context
    try:
        yield c.solver
    finally:
        z3_api._main_ctx = saved
        _CONTEXTS.give_back(c)
