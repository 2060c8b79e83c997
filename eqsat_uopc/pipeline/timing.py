"""Timing equivalent programs with the C backend: what "measured" means in `cost="measured"`.

`time_programs(programs)` compiles each program alone (`_compile_each`) and times them on the same
inputs, in rounds that interleave the programs (round r times them in an order rotated by r), so a
change of load on a shared machine falls on every program alike:

- A scalar program of ALU ops, constants, PARAMs and RANGEs is *batched* (`batched`): applied
  elementwise to `lanes` lanes of random inputs, one fused loop in C. Its time is reported in ns
  per lane, the cost of one evaluation with the loop's overhead spread over the lanes and the
  compiler free to vectorize, as the backend runs every elementwise program. Any other program (a
  tensor program, a CALL, a STACK) is timed whole, in ns per evaluation (`lanes` 1).
- Inputs are random: an i32 PARAM in [-64, 64] (or its declared bounds), a RANGE in
  [0, extent - 1], a bool PARAM true or false, an f32 PARAM in [-64, 64] (`lane_values`). Small
  values keep clear of int32 overflow, under which `no_overflow` rewrites are not equivalent. A lane
  on which some program is undefined (a division by zero, ...) takes the inputs of a lane on which
  all are; a program timed whole runs on the first of 64 input sets on which all are defined.
- A round of a program is the best of `best_of` bursts, each running the program `number` times in
  a C loop (no Python in between; `CompiledProgram.time`), `number` chosen per program so that the
  round lasts about `round_seconds`. Each burst has the input arrays at new addresses (random
  offsets within a page; burst b of a round has the same ones for every program).
  The best of short bursts drops the bursts the OS preempted: on this project's shared 2-core
  machine (load 2.5), 2 ms rounds of one burst were bimodal, a third of them 3-4x the others (2.1
  or 6-13 ns per lane for one program); with the best of 5 bursts of 0.4 ms, 21 rounds spread by
  under 2% and three runs with different inputs agreed to 3%. And the best of several placements
  drops the placements that make a loop slow: where the inputs lie relative to the output moves a
  loop's time by up to 50% (4K aliasing: a Caviar program ran at 0.70 or 1.05 ns per lane by the
  offset of one input, slow at a third of the offsets), and with arrays fixed for a whole run a
  fresh run found a choice 44% slower than greedy's result. Every program is warmed up twice, in
  opposite orders, before the rounds.

A `Timing` holds one program's ns per round and their minimum, median, quartiles and spread
(upper minus lower quartile, statistics.quantiles' "inclusive" method).
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from eqsat_uopc.backend import BackendError, CompiledProgram, compile_c, compile_many
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.intervals import bounds

__all__ = [
    "Timing",
    "TimingRun",
    "batchable",
    "batched",
    "lane_values",
    "program_inputs",
    "time_programs",
]

WHOLE_INPUT_SETS = 64  # input sets tried for a program timed whole, the first defined for all is used
MAX_NUMBER = 1_000_000  # runs per round at most (a program of a few ns)


@dataclass(frozen=True)
class Timing:
    """One program's time per round (ns per lane), or why it could not be timed (error)."""

    ns: tuple[float, ...]
    error: str | None = None

    def _quartiles(self) -> tuple[float, float, float]:
        if len(self.ns) == 1:
            return self.ns[0], self.ns[0], self.ns[0]
        q25, q50, q75 = statistics.quantiles(self.ns, n=4, method="inclusive")
        return q25, q50, q75

    @property
    def min(self) -> float:
        return min(self.ns)

    @property
    def median(self) -> float:
        return statistics.median(self.ns)

    @property
    def q25(self) -> float:
        return self._quartiles()[0]

    @property
    def q75(self) -> float:
        return self._quartiles()[2]

    @property
    def spread(self) -> float:
        """Upper minus lower quartile of the rounds: the noise of this run."""
        q25, _, q75 = self._quartiles()
        return q75 - q25


@dataclass(frozen=True)
class TimingRun:
    """The timings of programs timed together, and how: lanes per evaluation (1: timed whole)."""

    timings: tuple[Timing, ...]
    lanes: int
    batched: bool
    rounds: int


def program_inputs(programs: Sequence[UOp]) -> list[UOp]:
    """The inputs of several programs together: PARAMs by slot, then RANGEs by identifier."""
    seen: dict[UOp, None] = {}
    for p in programs:
        for u in p.toposort():
            if u.op is Ops.PARAM or u.op is Ops.RANGE:
                seen[u] = None
    params = sorted((u for u in seen if u.op is Ops.PARAM), key=lambda u: u.arg.slot)
    ranges = sorted((u for u in seen if u.op is Ops.RANGE), key=lambda u: repr(u.arg))
    return params + ranges


def batchable(program: UOp) -> bool:
    """Can `batched` apply the program to lanes: a scalar program of ALU ops, constants and inputs?"""
    return program.shape == () and all(
        u.op in ALU or u.op in (Ops.CONST, Ops.PARAM, Ops.RANGE) for u in program.toposort()
    )


def batched(program: UOp, lanes: int, inputs: Sequence[UOp] | None = None) -> UOp:
    """The scalar program applied elementwise to `lanes` lanes: input k becomes PARAM slot k of
    shape (lanes,), every scalar constant a broadcast constant. Several programs batched with the
    same `inputs` (default: this program's PARAMs by slot, then RANGEs) take the same arrays.
    """
    if program.shape != ():
        raise ValueError(f"batched needs a scalar program, got shape {program.shape}")
    inputs = program_inputs([program]) if inputs is None else list(inputs)
    slot = {u: k for k, u in enumerate(inputs)}
    new: dict[UOp, UOp] = {}
    for u in program.toposort():
        if u in slot:
            new[u] = UOp.param(slot[u], u.dtype, (lanes,))
        elif u.op is Ops.CONST:
            new[u] = UOp.const(u.arg, u.dtype, (lanes,))
        elif u.op in ALU:
            new[u] = UOp(u.op, tuple(new[s] for s in u.src), u.arg)
        elif u.op is Ops.RANGE or u.op is Ops.PARAM:
            raise ValueError(f"batched: input {u.op.name} {u.arg!r} is not in `inputs`")
        else:
            raise ValueError(f"batched: cannot batch a {u.op.name} node (only scalar ALU programs)")
    return new[program]


def lane_values(
    inputs: Sequence[UOp], lanes: int, seed: int = 0, low: int = -64, high: int = 64
) -> list[np.ndarray]:
    """Random values per input, `lanes` of them (an array of shape (lanes, *input shape)): a RANGE in
    [0, extent - 1], an i32 PARAM in [low, high] or its declared bounds, a bool PARAM either, an
    f32 PARAM uniform in [low, high]. Deterministic in seed."""
    rng = np.random.default_rng(seed)
    out = []
    for u in inputs:
        shape = (lanes, *u.shape)
        if u.op is Ops.RANGE:
            hi = bounds(u)[1]
            out.append(rng.integers(0, hi + 1, shape, dtype=np.int32))
        elif u.dtype is dtypes.bool:
            out.append(rng.integers(0, 2, shape).astype(np.bool_))
        elif u.dtype is dtypes.f32:
            out.append(rng.uniform(low, high, shape).astype(np.float32))
        else:
            lo, hi = (low, high) if u.arg.bounds is None else u.arg.bounds
            out.append(rng.integers(lo, hi + 1, shape, dtype=np.int32))
    return out


def _args(prog: CompiledProgram, values: dict[UOp, object], by_slot: list[object]) -> list[object]:
    """The positional inputs of a compiled program: its PARAM/RANGE nodes' values (batched programs
    by slot); any value for a slot it does not read."""
    out: list[object] = []
    for s in prog.inputs:
        if s.kind == "unused":
            out.append(0)
        elif s.node in values:
            out.append(values[s.node])
        else:
            out.append(by_slot[s.node.arg.slot])
    return out


def _defined(compiled: Sequence[CompiledProgram], inputs: list[UOp], columns: list[np.ndarray]) -> np.ndarray:
    """Which input sets (rows of the columns) every program (compiled unbatched) is defined on."""
    n = len(columns[0]) if columns else 1
    ok = np.ones(n, dtype=bool)
    for prog in compiled:
        sets = [
            _args(prog, {u: col[j] for u, col in zip(inputs, columns, strict=True)}, []) for j in range(n)
        ]
        results = prog.run_batch(sets)
        ok &= np.array([not isinstance(r, BaseException) for r in results], dtype=bool)
    return ok


def _number(prog: CompiledProgram, args: list[object], round_seconds: float) -> int:
    """Runs per round so that a round lasts about round_seconds (also the warm-up)."""
    once = prog.time(*args, number=10, repeat=1)
    return max(1, min(MAX_NUMBER, math.ceil(round_seconds / max(once, 1e-9))))


def time_programs(
    programs: Sequence[UOp],
    lanes: int = 4096,
    rounds: int = 21,
    seed: int = 0,
    round_seconds: float = 0.002,
    best_of: int = 5,
) -> TimingRun:
    """Time programs (equivalent ones: they are run on the same inputs) as the module docstring says.

    A program the C backend cannot run on the inputs gets a Timing with no rounds and its error;
    a ValueError says so if no input set is defined for all of them."""
    programs = list(programs)
    inputs = program_inputs(programs)
    batch = all(batchable(p) for p in programs)
    columns = lane_values(inputs, lanes if batch else WHOLE_INPUT_SETS, seed)
    if batch:
        compiled = _compile_each([batched(p, lanes, inputs) for p in programs])
        if not _runs(compiled, columns):
            good = np.flatnonzero(_defined(compile_many(programs), inputs, columns))
            if len(good) == 0:
                raise ValueError(f"no input lane of {lanes} drawn is defined for every program to time")
            fill = good[np.arange(lanes) % len(good)]
            keep = np.isin(np.arange(lanes), good)
            columns = [np.where(keep, col, col[fill]) for col in columns]
        per_eval = lanes
        values: list[np.ndarray] = columns
    else:
        compiled = _compile_each(programs)
        good = np.flatnonzero(_defined(compiled, inputs, columns))
        if len(good) == 0:
            raise ValueError(
                f"none of {WHOLE_INPUT_SETS} input sets drawn is defined for every program to time"
            )
        per_eval = 1
        values = [np.ascontiguousarray(col[good[0]]) for col in columns]

    def args_of(c: CompiledProgram, vals: list[np.ndarray]) -> list[object]:
        return _args(c, {}, vals) if batch else _args(c, dict(zip(inputs, vals, strict=True)), [])

    errors: list[str | None] = []
    numbers: list[int] = []
    for c in compiled:
        try:
            numbers.append(_number(c, args_of(c, values), round_seconds / best_of))
            errors.append(None)
        except (BackendError, ArithmeticError, IndexError, ValueError) as e:
            numbers.append(0)
            errors.append(f"{type(e).__name__}: {e}")
    # warm up again, last first: warmed up once in order, the first program ran up to 1.5x slower for
    # the whole run (3-element tensor programs timed whole)
    for k in reversed(range(len(compiled))):
        if errors[k] is None:
            numbers[k] = max(
                numbers[k], _number(compiled[k], args_of(compiled[k], values), round_seconds / best_of)
            )
    ns: list[list[float]] = [[] for _ in programs]
    live = [k for k, e in enumerate(errors) if e is None]
    place = np.random.default_rng([seed, 1])
    for r in range(rounds):
        # each burst's addresses, the same for every program of the round
        placed = [[_placed(v, place) for v in values] for _ in range(best_of)]
        for k in live[r % len(live) :] + live[: r % len(live)] if live else ():
            c = compiled[k]
            seconds = min(c.time(*args_of(c, vals), number=numbers[k], repeat=1) for vals in placed)
            ns[k].append(seconds * 1e9 / per_eval)
    timings = tuple(Timing(tuple(t), e) for t, e in zip(ns, errors, strict=True))
    return TimingRun(timings, per_eval, batch, rounds)


def _compile_each(programs: Sequence[UOp]) -> list[CompiledProgram]:
    """Each program compiled into a library of its own (the compiler runs side by side, one per
    core), so that its code lies where it will lie whenever it is compiled: alone, as compile_c
    compiles it for a user. Compiled together, a program's loop moved with its neighbours, and
    its time with it (index/19's latency result: 0.79 ns per lane compiled first, 0.86 compiled
    last)."""
    with ThreadPoolExecutor(max_workers=max(1, min(len(programs), os.cpu_count() or 1))) as pool:
        return list(pool.map(compile_c, programs))


def _placed(value: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A copy of value at a random 64-byte-aligned offset within a page."""
    if value.ndim == 0:
        return value
    buf = np.empty(value.nbytes + 8192, np.uint8)
    start = (-buf.ctypes.data) % 4096 + 64 * int(rng.integers(0, 64))
    out = buf[start : start + value.nbytes].view(value.dtype).reshape(value.shape)
    out[...] = value
    return out


def _runs(compiled: Sequence[CompiledProgram], columns: list[np.ndarray]) -> bool:
    """Does every batched program run on these lanes without an error?"""
    for c in compiled:
        try:
            c.run_array(*_args(c, {}, columns))
        except (BackendError, ArithmeticError, IndexError):
            return False
    return True
