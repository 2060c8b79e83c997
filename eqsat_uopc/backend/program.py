"""compile_c and CompiledProgram: load a compiled program with ctypes and run it on Python values.

Inputs are positional, one per PARAM slot 0..max slot, then one per free RANGE (see lower.py and
`CompiledProgram.inputs`). Each is a Python scalar, nested lists or a numpy array of the slot's
shape: bool slots take bools, i32 slots integers in the int32 range, f32 slots ints or floats
(rounded to f32, as exec_alu rounds its inputs). The result is what `to_python(run(...))` gives:
nested lists of Python bool/int/float (f32 values exactly, every NaN as math.nan).

Calls run in one C call; `run_batch` runs many input sets in one C call (a differential test or a
timing loop pays the ctypes overhead once), `run_array` returns the raw numpy array.
"""

from __future__ import annotations

import ctypes
import math
import statistics
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eqsat_uopc.backend.errors import BackendError, InputError, status_error
from eqsat_uopc.backend.lower import InputSpec
from eqsat_uopc.backend.render import Rendered, render, render_many
from eqsat_uopc.backend.toolchain import build_library
from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.values import check_bounds

__all__ = ["CompiledProgram", "compile_c", "compile_many", "to_input_array"]

_NP = {"bool": np.bool_, "i32": np.int32, "f32": np.float32}
_loaded: dict[str, ctypes.CDLL] = {}
_load_lock = threading.Lock()


def compile_c(program: UOp) -> CompiledProgram:
    """program compiled to native code (the library is cached on disk by source, flags and compiler)."""
    rendered = render(program)
    return CompiledProgram(program, rendered, build_library(rendered.source))


def compile_many(programs: Sequence[UOp]) -> list[CompiledProgram]:
    """Several programs compiled into one library with one compiler run (a corpus, a test batch)."""
    programs = list(programs)
    if not programs:
        return []
    source, parts = render_many(programs)
    lib = build_library(source)
    return [CompiledProgram(p, r, lib) for p, r in zip(programs, parts, strict=True)]


def _shape_text(shape: tuple[int, ...]) -> str:
    return "a scalar" if not shape else f"shape {shape}"


def to_input_array(spec: InputSpec, value: Any) -> np.ndarray:
    """value as a C-contiguous array of the slot's dtype and shape, or an InputError saying why not."""
    want = _NP[spec.dtype.name]
    bounded = spec.kind == "param" and spec.node is not None and spec.node.arg.bounds is not None
    if (
        type(value) is np.ndarray
        and value.dtype == want
        and value.shape == spec.shape
        and value.flags.c_contiguous
    ):
        if bounded and value.size:
            check_bounds(spec.node.arg, [int(value.min()), int(value.max())])
        return value  # the fast path: used as it is, no copy
    if spec.kind == "unused":
        return np.zeros(1, np.int32)
    where = spec.describe()
    if isinstance(value, np.ndarray | np.generic):
        arr = np.asarray(value)
        kind = arr.dtype.kind
        ok = {"bool": kind == "b", "i32": kind in "iu", "f32": kind in "fiu"}[spec.dtype.name]
        if not ok:
            raise InputError(f"{where}: got a numpy array of dtype {arr.dtype}")
    else:
        try:
            arr = np.asarray(value, dtype=object)
        except ValueError:
            raise InputError(f"{where}: got a ragged nested sequence") from None
        flat = arr.reshape(-1) if arr.shape else [arr.item()]
        for v in flat:
            if not _scalar_ok(spec.dtype, v):
                raise InputError(f"{where}: got an element {v!r} of type {type(v).__name__}")
    if arr.shape != spec.shape:
        raise InputError(f"{where}: got {_shape_text(arr.shape)}")
    if spec.dtype is dtypes.i32 and arr.size and arr.dtype != np.int32:
        lo, hi = (int(arr.min()), int(arr.max())) if arr.dtype != object else (min(arr.flat), max(arr.flat))
        if lo < -(2**31) or hi > 2**31 - 1:
            raise InputError(f"{where}: value {lo if lo < -(2**31) else hi} is outside the int32 range")
    if bounded and arr.size:  # the interpreter refuses the same values with the same message
        lo, hi = (int(arr.min()), int(arr.max())) if arr.dtype != object else (min(arr.flat), max(arr.flat))
        check_bounds(spec.node.arg, [lo, hi])
    if spec.dtype is dtypes.f32 and arr.dtype == object:
        arr = np.array(arr.tolist() if arr.shape else float(arr.item()), dtype=np.float64)
    elif spec.dtype is dtypes.f32 and arr.dtype.kind in "iu":
        arr = arr.astype(np.float64)  # through the double, as float(int) then f32 rounds it
    with np.errstate(over="ignore", invalid="ignore"):
        return np.ascontiguousarray(arr, dtype=want)


def _scalar_ok(d: DType, v: Any) -> bool:
    if d is dtypes.bool:
        return isinstance(v, bool | np.bool_)
    if d is dtypes.i32:
        return isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_)


class _Scratch:
    """Per-thread buffers a program reuses between calls: the workspace of its intermediate
    tensors (the kernel writes every element before reading it), the input pointer array and
    the status of a single call (read before the next call can start on this thread)."""

    def __init__(self, work_bytes: int, n_inputs: int) -> None:
        self.work = np.empty(max(work_bytes, 64), np.uint8)
        self.work_ptr = self.work.ctypes.data
        self.ptrs = (ctypes.c_void_p * max(n_inputs, 1))()
        self.status = np.zeros((1, 4), np.int32)
        self.status_ptr = self.status.ctypes.data


class CompiledProgram:
    """A program compiled to a shared library. Call it with one input per slot (see the module doc)."""

    def __init__(self, program: UOp, rendered: Rendered, library_path: Path) -> None:
        self.program = program
        self.source = rendered.source  # this program alone (a compile_many library holds more)
        self.library_path = library_path
        self.source_path = library_path.with_suffix(".c")
        self.inputs: tuple[InputSpec, ...] = rendered.inputs
        self.dtype: DType = rendered.dtype
        self.shape: tuple[int, ...] = rendered.shape
        self._work_bytes = rendered.work_bytes
        self._out_dtype = _NP[self.dtype.name]
        self._local = threading.local()
        key = str(library_path)
        with _load_lock:
            if key not in _loaded:
                _loaded[key] = ctypes.CDLL(key)
        argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self._fn = getattr(_loaded[key], rendered.symbol)
        self._repeat = getattr(_loaded[key], rendered.symbol + "_repeat")
        for fn in (self._fn, self._repeat):
            fn.restype, fn.argtypes = ctypes.c_int32, argtypes

    def __repr__(self) -> str:
        sig = ", ".join(s.describe() for s in self.inputs)
        return (
            f"<CompiledProgram ({sig}) -> {self.dtype.name} {_shape_text(self.shape)} at {self.library_path}>"
        )

    # -- running
    def _check_count(self, inputs: Sequence) -> None:
        if len(inputs) != len(self.inputs):
            sig = "; ".join(s.describe() for s in self.inputs) or "none"
            raise InputError(
                f"program takes {len(self.inputs)} input(s), got {len(inputs)} (expected: {sig})"
            )

    def _bind(self, inputs: Sequence) -> tuple[_Scratch, list[np.ndarray], np.ndarray]:
        """Checked input arrays pointed to by the scratch pointer table, and an output array; the
        caller keeps `arrays` alive for the duration of the C call."""
        self._check_count(inputs)
        scratch = self._scratch()
        arrays = [to_input_array(s, v) for s, v in zip(self.inputs, inputs, strict=True)]
        for k, arr in enumerate(arrays):
            scratch.ptrs[k] = arr.ctypes.data
        return scratch, arrays, np.empty(self.shape, self._out_dtype)

    def _scratch(self) -> _Scratch:
        s = getattr(self._local, "scratch", None)
        if s is None:
            s = self._local.scratch = _Scratch(self._work_bytes, len(self.inputs))
        return s

    def _call(self, arrays: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
        s = self._scratch()
        for k, a in enumerate(arrays):
            s.ptrs[k] = a.ctypes.data
        out = np.empty((n, *self.shape), _NP[self.dtype.name])
        if n == 1:
            status, status_ptr = s.status, s.status_ptr
        else:
            status = np.empty((n, 4), np.int32)
            status_ptr = status.ctypes.data
        self._fn(n, s.ptrs, out.ctypes.data, s.work_ptr, status_ptr)
        return out, status

    def run_array(self, *inputs: Any) -> np.ndarray:
        """The raw result as a numpy array of the program's shape (no conversion to lists)."""
        scratch, _alive, out = self._bind(inputs)  # _alive: the input arrays the C call reads
        if self._fn(1, scratch.ptrs, out.ctypes.data, scratch.work_ptr, scratch.status_ptr):
            code, *detail = scratch.status[0].tolist()
            raise status_error(code, tuple(detail))
        return out

    def time(self, *inputs: Any, number: int = 100, repeat: int = 5) -> float:
        """Seconds per run on these inputs: the median of `repeat` rounds of `number` runs looped
        in C (no Python or ctypes overhead per run), for calibrating a latency cost model."""
        scratch, _alive, out = self._bind(inputs)  # _alive: the input arrays the C call reads
        rounds = []
        for _ in range(repeat):
            start = time.perf_counter()
            failed = self._repeat(number, scratch.ptrs, out.ctypes.data, scratch.work_ptr, scratch.status_ptr)
            rounds.append((time.perf_counter() - start) / number)
            if failed:
                code, *detail = scratch.status[0].tolist()
                raise status_error(code, tuple(detail))
        return statistics.median(rounds)

    def __call__(self, *inputs: Any) -> Any:
        return _to_python(self.run_array(*inputs))

    def run_batch(self, input_sets: Sequence[Sequence[Any]]) -> list[Any]:
        """One result per input set, in one C call; a set the program fails on gives its exception
        (an instance, not raised), so that one bad input does not hide the others' results."""
        n = len(input_sets)
        if n == 0:
            return []
        columns: list[list[np.ndarray]] = [[] for _ in self.inputs]
        for inputs in input_sets:
            self._check_count(inputs)
            for k, (s, v) in enumerate(zip(self.inputs, inputs, strict=True)):
                columns[k].append(to_input_array(s, v))
        arrays = [np.ascontiguousarray(np.stack(col)) for col in columns]
        out, status = self._call(arrays, n)
        results: list[Any] = []
        for b in range(n):
            code = int(status[b, 0])
            if code:
                err: BackendError = status_error(code, tuple(int(x) for x in status[b, 1:]))
                results.append(err)
            else:
                results.append(_to_python(out[b]))
        return results


def _to_python(arr: np.ndarray) -> Any:
    """Nested lists of Python scalars; every NaN the positive quiet NaN (to_python's math.nan)."""
    if arr.dtype == np.float32:
        wide = np.array(arr, dtype=np.float64, ndmin=1)
        wide[np.isnan(wide)] = math.nan
        return wide.reshape(arr.shape).tolist()
    return arr.tolist()
