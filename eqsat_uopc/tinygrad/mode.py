"""The opt-in mode: every kernel tinygrad compiles gets its index expressions from eqsat-uopc.

    from eqsat_uopc.tinygrad import simplifying

    with simplifying() as session:   # or EQSAT=1 in the environment, read when eqsat_uopc.tinygrad
        model(x).realize()           # is imported: the mode is then on for the whole process
    print(session.summary())         # kernels seen, replaced, integer ops before and after

Like BEAM, the mode changes how kernels are compiled, not what they compute. Inside it, each
kernel's integer index expressions, after tinygrad's own simplification, go through
`simplifier.simplify_kernel`: one e-graph per kernel, the whole index DAG extracted, every changed
expression proved equal to tinygrad's by z3, and the replacement kept only when tinygrad's own
decompositions count fewer integer ops; otherwise, and on any error, the kernel is tinygrad's.

Where it hooks in (docs/DESIGN.md, "tinygrad with eqsat inside"): tinygrad 0.14 has no registry of
codegen passes, so the mode wraps two functions of `tinygrad.codegen` that `do_to_program` and
`full_rewrite_to_sink` look up in that module at every call: `full_rewrite_to_sink` (to know the
kernel and its renderer) and `graph_rewrite` (to rewrite the result of the pass named "final
symbolic", the last symbolic pass, after index dtypes are lowered and before the decompositions).
Installing the mode checks that the pass is there (`ModeError` otherwise), and the wrappers are
removed when the last mode exits. Three things follow from tinygrad's design, each handled here:

- compiled kernels are cached in `tinygrad.codegen.to_program_cache`, keyed without the mode:
  entering the mode sets the cache's contents aside and gives it the mode's own (one per
  settings), leaving restores them, so a kernel compiled outside is compiled again inside and the
  other way round;
- tinygrad compiles in worker processes (`PARALLEL`), which would not have the wrappers: the mode
  compiles in the process (`PARALLEL=0`) while it is on;
- a `TinyJit` keeps the kernels it captured: a function jitted outside the mode keeps them inside.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.tinygrad.bridge import TinygradError, tinygrad_ops
from eqsat_uopc.tinygrad.simplifier import KernelReport, SimplifierSettings, simplify_kernel

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "PASS_NAME",
    "ModeError",
    "ModeSession",
    "active_session",
    "disable",
    "enable",
    "enable_from_environment",
    "forget_compiled",
    "simplifying",
]

ENVIRONMENT_VARIABLE = "EQSAT"
PASS_NAME = "final symbolic"  # the codegen pass whose result the mode rewrites


class ModeError(TinygradError):
    """The mode cannot be turned on (tinygrad's codegen lacks the pass it hooks into, a bad EQSAT)."""


@dataclass
class ModeSession:
    """One activation of the mode: its settings and what it did to each kernel, in compile order."""

    settings: SimplifierSettings = field(default_factory=SimplifierSettings)
    reports: list[KernelReport] = field(default_factory=list)

    def summary(self) -> str:
        """One line: kernels seen and replaced, integer ops before and after, time spent."""
        r = self.reports
        replaced = sum(k.replaced for k in r)
        before, after = sum(k.tinygrad_ops for k in r), sum(k.ops for k in r)
        ours = sum(k.seconds for k in r)
        theirs = sum(k.details.get("tinygrad_seconds", 0.0) for k in r)
        errors = sum(k.outcome.startswith(("error", "internal error")) for k in r)
        ratio = f"{ours / theirs:.1f}x" if theirs else "n/a"
        return (
            f"eqsat: {len(r)} kernels, {replaced} with fewer integer ops, {errors} errors; integer ops "
            f"{before} -> {after}; {ours:.2f} s in eqsat, {ratio} tinygrad's own codegen time"
        )


_sessions: list[ModeSession] = []  # the active modes, innermost last (the process's mode state)
_kernels: list[tuple[Any, str, float]] = []  # (renderer, kernel name, start) of the kernels being compiled
_saved: dict[str, Any] = {}  # what the wrappers replaced, and PARALLEL before the mode
_caches: dict[Any, dict] = {}  # compiled kernels by mode settings (None: outside the mode)


def active_session() -> ModeSession | None:
    """The innermost active mode's session, or None when the mode is off."""
    return _sessions[-1] if _sessions else None


def enable(settings: SimplifierSettings | None = None, **changes: Any) -> ModeSession:
    """Turn the mode on (nested in any active one) until the matching `disable()`; its session.
    `changes` override fields of the settings or of their SaturationConfig (`node_budget=2_000`)."""
    session = ModeSession((settings or SimplifierSettings()).replace(**changes))
    if not _sessions:
        _install()
    _switch_cache(_key(), session.settings)
    _sessions.append(session)
    return session


def disable() -> ModeSession:
    """Turn the innermost active mode off; its session. A ModeError when the mode is off."""
    if not _sessions:
        raise ModeError("the eqsat mode is not on: nothing to disable")
    session = _sessions.pop()
    _switch_cache(session.settings, _key())
    if not _sessions:
        _uninstall()
    return session


@contextlib.contextmanager
def simplifying(settings: SimplifierSettings | None = None, **changes: Any) -> Iterator[ModeSession]:
    """The mode for the duration of a `with` block (module docstring); yields its session.
    `changes` as for `enable`."""
    session = enable(settings, **changes)
    try:
        yield session
    finally:
        if session in _sessions:
            while _sessions and _sessions[-1] is not session:
                disable()
            disable()


def enable_from_environment() -> ModeSession | None:
    """`EQSAT=1`: turn the mode on for the process (eqsat_uopc.tinygrad calls this on import)."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if value in ("", "0"):
        return None
    if value != "1":
        raise ModeError(
            f"{ENVIRONMENT_VARIABLE}={value!r}: set {ENVIRONMENT_VARIABLE}=1 to turn the mode on, "
            f"{ENVIRONMENT_VARIABLE}=0 to leave it off"
        )
    return enable()


def forget_compiled() -> None:
    """Forget every kernel tinygrad compiled, in the mode and out of it, so the next realize compiles
    (and the mode reports) every kernel again: for measurements."""
    import tinygrad.codegen as codegen

    _caches.clear()
    codegen.to_program_cache.clear()


def _key() -> Any:
    return _sessions[-1].settings if _sessions else None


def _switch_cache(old: Any, new: Any) -> None:
    """Give tinygrad's compiled-kernel cache the contents of mode `new`'s, keeping `old`'s aside."""
    if old == new:
        return
    import tinygrad.codegen as codegen

    cache = codegen.to_program_cache
    _caches[old] = dict(cache)
    cache.clear()
    cache.update(_caches.pop(new, {}))


def _install() -> None:
    tinygrad_ops()  # a TinygradError saying how to install tinygrad, if it is missing
    import tinygrad.codegen as codegen
    from tinygrad.helpers import PARALLEL

    try:
        source = inspect.getsource(codegen.full_rewrite_to_sink)
    except (OSError, TypeError):  # pragma: no cover  (sources not installed: nothing to check against)
        source = f'name="{PASS_NAME}"'
    if f'name="{PASS_NAME}"' not in source:
        raise ModeError(
            f"tinygrad's codegen has no pass named {PASS_NAME!r} (tinygrad 0.14.0 has): the eqsat mode "
            "cannot hook into this tinygrad"
        )
    _saved.update(
        graph_rewrite=codegen.graph_rewrite,
        full_rewrite_to_sink=codegen.full_rewrite_to_sink,
        parallel=PARALLEL.value,
    )
    codegen.graph_rewrite = _graph_rewrite
    codegen.full_rewrite_to_sink = _full_rewrite_to_sink
    PARALLEL.value = 0


def _uninstall() -> None:
    import tinygrad.codegen as codegen
    from tinygrad.helpers import PARALLEL

    codegen.graph_rewrite = _saved.pop("graph_rewrite")
    codegen.full_rewrite_to_sink = _saved.pop("full_rewrite_to_sink")
    PARALLEL.value = _saved.pop("parallel")


def _full_rewrite_to_sink(ast: Any, ren: Any, *args: Any, **kwargs: Any) -> Any:
    """tinygrad's full_rewrite_to_sink, remembering which kernel and renderer it compiles, and timing it."""
    info = getattr(ast, "arg", None)
    _kernels.append((ren, str(getattr(info, "name", "")), time.perf_counter()))
    key = getattr(ast, "key", b"").hex()
    session = active_session()
    before = len(session.reports) if session is not None else 0
    try:
        return _saved["full_rewrite_to_sink"](ast, ren, *args, **kwargs)
    finally:
        _, _, start = _kernels.pop()
        if session is not None and len(session.reports) > before:
            report = session.reports[-1]
            report.details["tinygrad_seconds"] = time.perf_counter() - start - report.seconds
            report.details["ast_key"] = key


def _graph_rewrite(sink: Any, pm: Any, *args: Any, **kwargs: Any) -> Any:
    """tinygrad's graph_rewrite; the result of the pass PASS_NAME goes through simplify_kernel."""
    out = _saved["graph_rewrite"](sink, pm, *args, **kwargs)
    session = active_session()
    if kwargs.get("name") != PASS_NAME or session is None or not _kernels:
        return out
    ren, name, _ = _kernels[-1]
    name = str(getattr(getattr(out, "arg", None), "function_name", name))  # named once optimized
    try:
        result, report = simplify_kernel(out, ren, session.settings, name)
    except Exception as e:  # the kernel is tinygrad's whatever happened; the report says what did
        result, report = out, KernelReport(name, outcome=f"internal error: {type(e).__name__}: {e}"[:300])
    session.reports.append(report)
    return result
