"""Calibrate the latency cost model on this machine: time each op per dtype with the C backend.

    python -m eqsat_uopc.extract.calibrate --out latency.json [--elements 65536] [--repeats 30]

For every (op, dtype) measured, a program applies the op once, elementwise, to PARAM tensors of
`--elements` elements; it is compiled (all programs in one compiler run), run `--repeats` times on
fixed random inputs, and the fastest run is kept. The time of a baseline program that only copies
an input of the same dtype is subtracted, and the difference divided by the element count gives
nanoseconds per element (never below 0). This is the cost of one vectorized pass over a tensor, as
the C backend runs it, not the latency of one scalar instruction.

Comparisons are stored under "bool" (their result dtype, which is how the cost model looks them
up) as the slower of their i32 and f32 versions; CAST under its target dtype. Ops that are not
elementwise (CONST, PARAM, RANGE, STACK, INDEX, CALL, movement ops, REDUCE) keep the default
table's entries. Load the result with `eqsat_uopc.extract.load_latency_table(path)`.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable, Sequence

import numpy as np
from eqsat_uopc.extract.latency import DEFAULT_LATENCY_TABLE, save_latency_table

from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = ["MEASURED", "calibrate", "main"]

i32, f32, bool_ = dtypes.i32, dtypes.f32, dtypes.bool

# (op, operand dtype, table dtype): what is measured, and under which dtype it is stored
MEASURED: tuple[tuple[Ops, DType, str], ...] = (
    *((op, d, d.name) for op in (Ops.ADD, Ops.MUL, Ops.MAX) for d in (i32, f32)),
    *((op, d, "bool") for op in (Ops.CMPLT, Ops.CMPNE) for d in (i32, f32)),
    (Ops.FLOORDIV, i32, "i32"),
    (Ops.FLOORMOD, i32, "i32"),
    (Ops.WHERE, i32, "i32"),
    (Ops.WHERE, f32, "f32"),
    *((op, f32, "f32") for op in (Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN)),
    (Ops.CAST, f32, "i32"),  # f32 -> i32
    (Ops.CAST, i32, "f32"),  # i32 -> f32
    (Ops.CAST, i32, "bool"),  # i32 -> bool
)


def _program(op: Ops, d: DType, target: str, n: int) -> UOp:
    a = UOp.param(0, d, (n,))
    if op in (Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN):
        return UOp(op, (a,))
    if op is Ops.CAST:
        return a.cast(dtypes.by_name(target))
    if op is Ops.WHERE:
        return UOp.param(1, bool_, (n,)).where(a, UOp.param(2, d, (n,)))
    return UOp(op, (a, UOp.param(1, d, (n,))))


def _inputs(op: Ops, d: DType, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    if d is f32:
        a = rng.uniform(0.5, 100.0, n).astype(np.float32)  # in range for every f32 op and for CAST to i32
        b = rng.uniform(0.5, 100.0, n).astype(np.float32)
    else:
        a = rng.integers(-(2**20), 2**20, n, dtype=np.int32)
        b = rng.integers(1, 2**10, n, dtype=np.int32)  # non-zero divisors
    if op in (Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN, Ops.CAST):
        return [a]
    if op is Ops.WHERE:
        return [a, rng.integers(0, 2, n).astype(np.bool_), b]
    return [a, b]


def _best_time(run: Callable[[], object], repeats: int) -> float:
    run()  # warm up: page in the library and the buffers
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def calibrate(
    elements: int = 65536, repeats: int = 30, ops: Sequence[str] | None = None, seed: int = 0
) -> dict[str, dict[str, float]]:
    """The measured table {op name: {dtype name: ns per element}} (only the measured entries)."""
    from eqsat_uopc.backend import compile_many

    wanted = [m for m in MEASURED if ops is None or m[0].name in ops]
    rng = np.random.default_rng(seed)
    baselines = {d: UOp.param(0, d, (elements,)) for d in (i32, f32)}
    programs = [_program(op, d, target, elements) for op, d, target in wanted]
    compiled = compile_many([*baselines.values(), *programs])
    base_time = {}
    for d, prog in zip(baselines, compiled[: len(baselines)], strict=True):
        x = _inputs(Ops.ADD, d, elements, rng)[:1]
        base_time[d] = _best_time(lambda prog=prog, x=x: prog.run_array(*x), repeats)
    table: dict[str, dict[str, float]] = {}
    for (op, d, target), prog in zip(wanted, compiled[len(baselines) :], strict=True):
        xs = _inputs(op, d, elements, rng)
        t = _best_time(lambda prog=prog, xs=xs: prog.run_array(*xs), repeats)
        ns = max(0.0, (t - base_time[d]) * 1e9 / elements)
        entry = table.setdefault(op.name, {})
        entry[target] = round(max(ns, entry.get(target, 0.0)), 4)
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m eqsat_uopc.extract.calibrate", description="Measure the latency cost table."
    )
    ap.add_argument("--out", required=True, help="JSON file to write (load with load_latency_table)")
    ap.add_argument("--elements", type=int, default=65536, help="tensor elements per measured program")
    ap.add_argument("--repeats", type=int, default=30, help="timed runs per program (the fastest counts)")
    ap.add_argument("--ops", nargs="*", help="only these ops (names as in Ops), default: every measured op")
    args = ap.parse_args(argv)
    measured = calibrate(args.elements, args.repeats, args.ops)
    table = {op: dict(entry) for op, entry in DEFAULT_LATENCY_TABLE.items()}
    for op, entry in measured.items():
        table[op] = {k: v for k, v in table[op].items() if k != "*"} | entry
        if "*" in DEFAULT_LATENCY_TABLE[op] and set(entry) != {"bool", "i32", "f32"}:
            table[op]["*"] = max(entry.values())
    source = f"calibrate: {platform.machine()} {platform.processor() or platform.platform()}, " + (
        f"{args.elements} elements, best of {args.repeats}"
    )
    save_latency_table(table, args.out, source=source)
    width = max(len(op) for op in measured) if measured else 0
    for op, entry in measured.items():
        print(f"{op:{width}}  " + "  ".join(f"{d}={ns:.3f}ns" for d, ns in sorted(entry.items())))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
