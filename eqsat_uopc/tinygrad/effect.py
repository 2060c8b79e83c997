"""What the mode does to a workload: outputs, integer ops per kernel, compile and run time, with and without.

`measure_workload(workload, device)` compiles and runs a workload of the suite twice on a device,
from nothing (every kernel compiled again, tinygrad's disk cache off), without the mode and with
it, and reads each kernel's *linearized program*, the list of ops tinygrad renders, to count its
integer ALU ops (kernel.count_int_ops). Kernels are matched by their AST, which the mode does not
change (it only rewrites codegen's output). It then times the cached runs, alternating without and
with, and takes the median of each. The outputs of the two runs must be bit-identical:
`WorkloadEffect.same_outputs`.

    >>> from eqsat_uopc.tinygrad.suite import SUITE
    >>> e = measure_workload(SUITE["pad_flip"], "PYTHON", timing_rounds=0)
    >>> e.same_outputs, len(e.kernels), e.ops_without > e.ops_with
    (True, 1, True)
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from eqsat_uopc.tinygrad.bridge import tinygrad_ops
from eqsat_uopc.tinygrad.kernel import count_int_ops
from eqsat_uopc.tinygrad.mode import forget_compiled, simplifying
from eqsat_uopc.tinygrad.simplifier import SimplifierSettings
from eqsat_uopc.tinygrad.suite import Workload

__all__ = ["KernelEffect", "WorkloadEffect", "measure_workload"]


@dataclass
class KernelEffect:
    """One kernel, without and with the mode."""

    name: str
    key: str  # the kernel's AST key (hex): the same kernel in two measurements of one workload
    ops_without: int  # integer ALU ops of tinygrad's linearized program
    ops_with: int
    compile_without: float  # seconds tinygrad's do_to_program took (the mode's work included, with)
    compile_with: float
    eqsat_seconds: float  # of compile_with: the mode's step (find, saturate, extract, prove, count)
    outcome: str  # the mode's KernelReport.outcome
    expressions: int
    changed: int


@dataclass
class WorkloadEffect:
    """One workload on one device: its kernels, whether the outputs agree, the run times."""

    workload: str
    device: str
    indexing: bool
    same_outputs: bool
    kernels: list[KernelEffect] = field(default_factory=list)
    run_without: float | None = None  # median seconds of a cached run (inputs, kernels, read back)
    run_with: float | None = None

    @property
    def ops_without(self) -> int:
        return sum(k.ops_without for k in self.kernels)

    @property
    def ops_with(self) -> int:
        return sum(k.ops_with for k in self.kernels)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def measure_workload(
    workload: Workload,
    device: str = "PYTHON",
    settings: SimplifierSettings | None = None,
    seed: int = 0,
    timing_rounds: int = 3,
) -> WorkloadEffect:
    """The workload compiled and run without and with the mode (module docstring). Forgets every
    compiled kernel first and after (the measurement compiles from nothing)."""
    tinygrad_ops()
    from tinygrad import Device
    from tinygrad.helpers import Context

    Device[device]  # opened now: a device compiles programs of its own when it opens (CPU)
    with Context(DEV=device, CACHELEVEL=0, PARALLEL=0):
        forget_compiled()
        try:
            out_without, programs_without = _compiled(workload, seed, None)
            out_with, programs_with, reports = _compiled(workload, seed, settings or SimplifierSettings())
            run_without, run_with = _timed(workload, seed, settings or SimplifierSettings(), timing_rounds)
        finally:
            forget_compiled()
    same = len(out_without) == len(out_with) and all(
        a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        for a, b in zip(out_without, out_with, strict=True)
    )
    effect = WorkloadEffect(workload.name, device, workload.indexing, same, [], run_without, run_with)
    by_key = {r.details.get("ast_key"): r for r in reports}
    for key, (seconds, prg) in programs_without.items():
        if key not in programs_with:  # pragma: no cover  (the same workload schedules the same kernels)
            raise AssertionError(f"kernel {prg.arg.function_name} was compiled without the mode only")
        seconds_with, prg_with = programs_with[key]
        report = by_key.get(key)
        effect.kernels.append(
            KernelEffect(
                name=prg.arg.function_name,
                key=key,
                ops_without=_int_ops(prg),
                ops_with=_int_ops(prg_with),
                compile_without=seconds,
                compile_with=seconds_with,
                eqsat_seconds=report.seconds if report else 0.0,
                outcome=report.outcome if report else "not seen by the mode",
                expressions=report.expressions if report else 0,
                changed=report.changed if report else 0,
            )
        )
    return effect


def _int_ops(prg: Any) -> int:
    """The integer ALU ops of a compiled PROGRAM's linearized op list."""
    tops = tinygrad_ops()
    linear = next(s for s in prg.src if s.op is tops.Ops.LINEAR)
    return count_int_ops(linear.src)


def _compiled(workload: Workload, seed: int, settings: SimplifierSettings | None) -> tuple:
    """The outputs, {AST key: (seconds, PROGRAM)} of every kernel compiled, and (with the mode)
    its reports."""
    import tinygrad.codegen as codegen

    compiled: dict[str, tuple[float, Any]] = {}
    original = codegen.do_to_program

    def timed(ast: Any, renderer: Any) -> Any:
        start = time.perf_counter()
        prg = original(ast, renderer)
        compiled[ast.key.hex()] = (time.perf_counter() - start, prg)
        return prg

    codegen.do_to_program = timed  # to_program looks do_to_program up in its module at every call
    try:
        if settings is None:
            return workload.run(seed), compiled
        with simplifying(settings) as session:
            outputs = workload.run(seed)
        return outputs, compiled, session.reports
    finally:
        codegen.do_to_program = original


def _timed(workload: Workload, seed: int, settings: SimplifierSettings, rounds: int) -> tuple:
    """Median seconds of a cached run without and with the mode, alternating (None if rounds is 0)."""
    if rounds <= 0:
        return None, None
    without, with_mode = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        workload.run(seed)
        without.append(time.perf_counter() - start)
        with simplifying(settings):
            start = time.perf_counter()
            workload.run(seed)
            with_mode.append(time.perf_counter() - start)
    return statistics.median(without), statistics.median(with_mode)
