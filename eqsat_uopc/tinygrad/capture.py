"""Record the index and validity expressions real tinygrad kernels hand to its symbolic simplifier.

`capture_tinygrad` runs workloads (workloads.py) on tinygrad's NULL device, where every kernel is
scheduled and compiled through the whole codegen pipeline but nothing executes, and intercepts
codegen's symbolic passes (`initial symbolic`, `postopt symbolic`, `early symbolic`, `extra
symbolic`, `final symbolic`). From each pass's input graph it takes every *maximal* pure
expression: a node of integer or bool dtype built only from ops the bridge translates, over
constants and variables (RANGE, SPECIAL, `UOp.variable`), whose consumer is not such a node (an
INDEX, a LOAD gate, a STORE, ...). Those are the index and validity expressions of the kernel.

Each distinct expression (its program, whose inputs carry the bounds, and its variables' names)
is kept once, with the workload and pass it came from, and with tinygrad's own simplification of
it on its own (`tinygrad_simplify`: tinygrad's `UOp.simplify` on the translated program, translated
back). An expression with no exact translation, or one that needs an op the corpus syntax lacks
(CAST), is counted and left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eqsat_uopc.corpus.sexpr import to_sexpr
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.tinygrad.bridge import (
    ALU_OP_NAMES,
    TinygradError,
    from_tinygrad,
    tinygrad_ops,
    tinygrad_simplify,
    tinygrad_variables,
)
from eqsat_uopc.tinygrad.workloads import WORKLOADS

__all__ = ["SYMBOLIC_PASSES", "Capture", "CapturedExpression", "capture_tinygrad", "write_capture"]

# the names codegen gives its graph_rewrite calls that run tinygrad's symbolic simplifier
SYMBOLIC_PASSES = (
    "initial symbolic",
    "postopt symbolic",
    "early symbolic",
    "extra symbolic",
    "final symbolic",
)


@dataclass(frozen=True)
class CapturedExpression:
    """One distinct expression as our program, its variables (slot order) and bounds, tinygrad's result."""

    id: str
    workload: str
    stage: str  # the codegen pass whose input it was
    program: UOp
    var_names: tuple[str, ...]
    tinygrad: UOp  # tinygrad_simplify(program)

    @property
    def expr(self) -> str:
        return to_sexpr(self.program, self.var_names)

    @property
    def size(self) -> int:
        return self.program.size

    @property
    def tinygrad_size(self) -> int:
        return self.tinygrad.size

    def to_dict(self, version: str) -> dict[str, Any]:
        """The corpus-format row (corpus/format.py)."""
        bounds = {n.arg.slot: n.arg.bounds for n in self.program.toposort() if n.op is Ops.PARAM}
        return {
            "id": self.id,
            "source": f"tinygrad {version}, NULL device, workload {self.workload}, pass {self.stage!r}",
            "expr": self.expr,
            "bounds": {self.var_names[k]: list(b) for k, b in sorted(bounds.items()) if b is not None},
            "tinygrad": to_sexpr(self.tinygrad, self.var_names),
            "size": self.size,
            "tinygrad_size": self.tinygrad_size,
        }


@dataclass
class Capture:
    """What a capture run found: the distinct expressions, and what it had to leave out and why."""

    expressions: list[CapturedExpression] = field(default_factory=list)
    seen: int = 0  # maximal pure expressions met, duplicates included
    duplicates: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    workloads: list[str] = field(default_factory=list)
    per_workload: dict[str, int] = field(default_factory=dict)  # distinct expressions first seen there


# the ops of a pure expression: every ALU op the bridge translates (CAST is not one of them: the
# corpus syntax has no CAST, so an expression under a CAST is recorded without it)
_PURE_OPS = ALU_OP_NAMES


def _purity(tops: Any) -> Callable[[Any], bool]:
    TOps, tdt = tops.Ops, tops.dtypes
    ops = {getattr(TOps, name) for name in _PURE_OPS}
    int_like = (tdt.weakint, tdt.int32, tdt.bool)
    memo: dict[Any, bool] = {}

    def pure(u: Any) -> bool:
        if u in memo:
            return memo[u]
        if u.dtype not in int_like:
            r = False
        elif u.op in (TOps.RANGE, TOps.SPECIAL) or (
            u.op in (TOps.BUFFER, TOps.PARAM) and getattr(u.arg, "vmin_vmax", None)
        ):
            r = True
        elif u.op is TOps.CONST:
            r = isinstance(u.arg, (bool, int))
        else:
            r = u.op in ops and all(pure(s) for s in u.src)
        memo[u] = r
        return r

    return pure


def _maximal_expressions(sink: Any, tops: Any, pure: Callable[[Any], bool]) -> list[Any]:
    """The pure non-leaf nodes of sink with at least one consumer that is not pure, in toposort order."""
    TOps = tops.Ops
    found: dict[Any, None] = {}
    for u in sink.toposort():
        if pure(u):
            continue
        for s in u.src:
            if (
                pure(s)
                and s.src
                and s.op not in (TOps.RANGE, TOps.SPECIAL, TOps.BUFFER, TOps.PARAM, TOps.CONST)
            ):
                found.setdefault(s, None)
    return list(found)


def capture_tinygrad(
    workloads: Iterable[str] | Mapping[str, Callable[[], None]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Capture:
    """Run workloads and collect their expressions, in order: the named ones of WORKLOADS (default:
    all), or your own, given as {name: function that realizes some tensors}."""
    tops = tinygrad_ops()
    import tinygrad.codegen as codegen
    from tinygrad.helpers import Context

    if isinstance(workloads, Mapping):
        chosen = dict(workloads)
    else:
        names = list(WORKLOADS) if workloads is None else list(workloads)
        for name in names:
            if name not in WORKLOADS:
                raise TinygradError(f"unknown workload {name!r}; known: {', '.join(WORKLOADS)}")
        chosen = {name: WORKLOADS[name] for name in names}
    capture = Capture(workloads=list(chosen))
    keys: set[tuple] = set()
    pure = _purity(tops)
    current = {"workload": ""}
    original = codegen.graph_rewrite

    def intercept(sink: Any, pm: Any, *args: Any, name: str | None = None, **kwargs: Any) -> Any:
        if name in SYMBOLIC_PASSES:
            for expr in _maximal_expressions(sink, tops, pure):
                _record(capture, keys, expr, current["workload"], name)
        return original(sink, pm, *args, name=name, **kwargs)

    codegen.graph_rewrite = intercept
    # kernels compiled earlier in this process would not pass through codegen again: forget them
    codegen.to_program_cache.clear()
    try:
        with Context(DEV="NULL", CACHELEVEL=0, PARALLEL=0):  # compile in this process
            for name, run in chosen.items():
                if progress is not None:
                    progress(name)
                current["workload"] = name
                run()
    finally:
        codegen.graph_rewrite = original
    return capture


def _record(capture: Capture, keys: set[tuple], expr: Any, workload: str, stage: str) -> None:
    capture.seen += 1
    try:
        names = tuple(tinygrad_variables(expr))
        program = from_tinygrad(expr)
        to_sexpr(program, names)  # the corpus syntax must be able to hold it
        simplified = tinygrad_simplify(program, names)
        to_sexpr(simplified, names)
    except (TinygradError, ValueError) as e:
        reason = str(e).removeprefix("from_tinygrad: ").removeprefix("to_sexpr: ")[:80]
        capture.skipped[reason] = capture.skipped.get(reason, 0) + 1
        return
    if (program, names) in keys:  # the program's inputs carry the bounds
        capture.duplicates += 1
        return
    keys.add((program, names))
    capture.expressions.append(
        CapturedExpression(
            id=f"tinygrad/{workload}/{capture.per_workload.get(workload, 0):04d}",
            workload=workload,
            stage=stage,
            program=program,
            var_names=names,
            tinygrad=simplified,
        )
    )
    capture.per_workload[workload] = capture.per_workload.get(workload, 0) + 1


def write_capture(capture: Capture, path: str | Path) -> None:
    """Write the expressions as .jsonl in the corpus format (`corpus.load_corpus` reads it back)."""
    from importlib.metadata import version

    import tinygrad  # noqa: F401  (the version is read from the installed distribution)

    tg_version = version("tinygrad")
    with Path(path).open("w") as f:
        for e in capture.expressions:
            f.write(json.dumps(e.to_dict(tg_version)) + "\n")
