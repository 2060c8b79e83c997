"""Calibrate the latency cost model on this machine: time each op per dtype with the C backend.

    eqsat-uopc calibrate [--elements 65536] [--repeats 30] [--ops ADD SIN ...] [--out FILE]

(`python -m eqsat_uopc.extract.calibrate` takes the same options.) Without --out the table goes to
this machine's per-user cache (latency.py: `machine_table_path()`), where the built-in "latency"
cost model finds it.

For every (op, dtype) measured, a program applies the op once, elementwise, to PARAM tensors of
`--elements` elements; it is compiled (all programs in one compiler run), run `--repeats` times on
fixed random inputs, and the fastest run is kept. The time of a baseline program that only copies
an input of the same dtype is subtracted, and the difference divided by the element count gives
nanoseconds per element (never below 0). This is the cost of one vectorized pass over a tensor, as
the C backend runs it, not the latency of one scalar instruction.

Comparisons are stored under "bool" (their result dtype, which is how the cost model looks them
up) as the slower of their i32 and f32 versions; CAST under its target dtype. Every entry that is
not measured (ops that are not elementwise: CONST, PARAM, RANGE, STACK, INDEX, CALL, movement ops,
REDUCE; dtypes not measured; with --ops, the ops left out) is the default table's entry times one
scale, so that the whole table is in this machine's units:

    scale = sum of the measured entries / sum of the default table's entries for the same (op, dtype)

(a sum, not a mean of ratios: an entry measured as 0 ns does not zero the scale, and the dear ops,
measured most reliably, weigh most). The file records the date, the machine, the scale and the
measured entries beside the full table.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from eqsat_uopc.extract.errors import CostModelError
from eqsat_uopc.extract.latency import (
    DEFAULT_LATENCY_TABLE,
    Latency,
    machine_table_path,
    save_latency_table,
)

from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.user_cache import machine, machine_name

__all__ = [
    "MEASURED",
    "MEASURED_OPS",
    "Calibration",
    "calibrate",
    "calibrate_machine",
    "main",
    "rescaled_table",
]

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
MEASURED_OPS: tuple[str, ...] = tuple(dict.fromkeys(op.name for op, _, _ in MEASURED))


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

    _check_settings(elements, repeats, ops)
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


def _check_settings(elements: int, repeats: int, ops: Sequence[str] | None) -> None:
    for name, value in (("elements", elements), ("repeats", repeats)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CostModelError(f"calibrate: {name} must be a positive int, got {value!r}")
    if ops is not None:
        if isinstance(ops, str) or not ops:
            raise CostModelError(f"calibrate: ops must be a non-empty list of op names, got {ops!r}")
        for op in ops:
            if op not in MEASURED_OPS:
                raise CostModelError(
                    f"calibrate: cannot measure op {op!r} (measured ops: {', '.join(MEASURED_OPS)})"
                )


def _default_entry(op: str, dtype: str) -> float:
    entry = DEFAULT_LATENCY_TABLE[op]
    return entry[dtype] if dtype in entry else entry["*"]


def rescaled_table(
    measured: Mapping[str, Mapping[str, float]],
) -> tuple[dict[str, dict[str, float]], float]:
    """The full table of a calibration and its scale: the measured entries as measured, every other
    entry of the default table times scale = sum(measured) / sum(default's entries for the same
    (op, dtype)), rounded to 4 decimals (see the module docstring)."""
    pairs = [(op, dt, float(ns)) for op, entry in measured.items() for dt, ns in entry.items()]
    if not pairs:
        raise CostModelError("calibrate: nothing was measured, so there is nothing to scale the table by")
    measured_sum = sum(ns for _, _, ns in pairs)
    if not measured_sum > 0:
        names = ", ".join(dict.fromkeys(op for op, _, _ in pairs))
        raise CostModelError(
            f"calibrate: every entry measured ({names}) cost no more than copying its input, so there is "
            "nothing to scale the rest of the table by; measure more elements or more ops"
        )
    scale = measured_sum / sum(_default_entry(op, dt) for op, dt, _ in pairs)
    table = {
        op: {dt: round(v * scale, 4) for dt, v in entry.items()}
        for op, entry in DEFAULT_LATENCY_TABLE.items()
    }
    for op, dt, ns in pairs:
        table[op][dt] = ns
    return table, scale


@dataclass(frozen=True)
class Calibration:
    """A calibration written to `path`: its full table, the measured entries, the scale of the rest."""

    path: Path
    table: dict[str, dict[str, float]]
    measured: dict[str, dict[str, float]]
    scale: float
    date: str
    elements: int
    repeats: int

    def lines(self) -> list[str]:
        """What the command prints: one line per measured op, the scale, the file."""
        width = max(len(op) for op in self.measured)
        out = [
            f"{op:{width}}  " + "  ".join(f"{d}={ns:.3f}ns" for d, ns in sorted(entry.items()))
            for op, entry in self.measured.items()
        ]
        n_measured = sum(len(e) for e in self.measured.values())
        n_rest = sum(len(e) for e in self.table.values()) - n_measured
        out.append(
            f"{n_measured} entries measured; the other {n_rest} are the default table's "
            f"times {self.scale:.4g} (measured / default over the measured entries)"
        )
        out.append(f"wrote {self.path}")
        return out


def calibrate_machine(
    elements: int = 65536,
    repeats: int = 30,
    ops: Sequence[str] | None = None,
    out: str | Path | None = None,
    seed: int = 0,
) -> Calibration:
    """Measure this machine (calibrate), complete the table (rescaled_table) and write it to `out`,
    by default to the per-user cache where the built-in latency model finds it."""
    _check_settings(elements, repeats, ops)
    path = Path(out) if out is not None else machine_table_path()
    measured = calibrate(elements, repeats, ops, seed)
    table, scale = rescaled_table(measured)
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    source = f"calibrate: {machine_name()}, {elements} elements, best of {repeats}"
    meta = {"date": date, "machine": machine(), "elements": elements, "repeats": repeats, "scale": scale}
    try:
        save_latency_table(table, path, source=source, meta={**meta, "measured": measured})
    except OSError as e:
        raise CostModelError(f"calibrate: cannot write {str(path)!r}: {e.strerror or e}") from None
    if out is None:
        Latency().refresh()  # this process prices with the new table from now on
    return Calibration(path, table, measured, scale, date, elements, repeats)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The calibration options (the CLI's `calibrate` and `python -m eqsat_uopc.extract.calibrate`)."""
    ap.add_argument(
        "--elements",
        type=_positive_int,
        default=65536,
        help="tensor elements per measured program (default: 65536)",
    )
    ap.add_argument(
        "--repeats",
        type=_positive_int,
        default=30,
        help="timed runs per program, the fastest counts (default: 30)",
    )
    ap.add_argument(
        "--ops",
        nargs="+",
        choices=MEASURED_OPS,
        metavar="OP",
        help=f"only these ops, the rest rescaled (default: every measured op: {', '.join(MEASURED_OPS)})",
    )
    ap.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write the table here instead (load it with load_latency_table) "
        f"(default: this machine's table, {machine_table_path()})",
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m eqsat_uopc.extract.calibrate", description="Measure the latency cost table."
    )
    add_arguments(ap)
    args = ap.parse_args(argv)
    cal = calibrate_machine(args.elements, args.repeats, args.ops, args.out)
    print("\n".join(cal.lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
