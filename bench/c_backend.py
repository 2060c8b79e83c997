"""Benchmark of the C backend against numpy, same machine, same run.

Prints, for `a * b + a` over f32 vectors of n = 10^3 and 10^6 elements, the time of numpy and of
the compiled program (`CompiledProgram.run_array`: numpy arrays in, a numpy array out, so that the
ratio measures the generated code and the call, not the conversion to Python lists), and their
ratio (C / numpy: below 1 is faster than numpy), and the generated code alone (the program looped
in C by CompiledProgram.time, no Python or ctypes overhead). Then the time of a cold compile_c (fresh cache
directory) and of a second, cached compile_c of the same program.

Run: .venv/bin/python bench/c_backend.py [--write-results]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np
import results

from eqsat_uopc.backend import compile_c
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp

RESULTS_SECTIONS = ("c-backend",)  # docs/results.md, written with --write-results (bench/results.py)


def best_of(fn, repeat: int, number: int) -> float:
    """Median over `repeat` rounds of the mean time of `number` calls, in seconds."""
    rounds = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - t) / number)
    return statistics.median(rounds)


def program(n: int) -> UOp:
    a, b = UOp.param(0, dtypes.f32, (n,)), UOp.param(1, dtypes.f32, (n,))
    return a * b + a


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(results.FLAG, action="store_true", help=results.FLAG_HELP)
    args = ap.parse_args()
    with results.recorded("c-backend", args.write_results):
        measure()


def measure() -> None:
    os.environ["UOPC_CACHE_DIR"] = tempfile.mkdtemp(prefix="uopc_bench_")
    rng = np.random.default_rng(0)
    print("a * b + a, f32          numpy         C (run_array)  C / numpy   C kernel alone (time())")
    for n, number in ((10**3, 2000), (10**6, 20)):
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        compiled = compile_c(program(n))
        assert np.array_equal(compiled.run_array(a, b), a * b + a)
        t_np = best_of(lambda a=a, b=b: a * b + a, 7, number)
        t_c = best_of(lambda a=a, b=b, c=compiled: c.run_array(a, b), 7, number)
        t_kernel = compiled.time(a, b, number=number, repeat=7)
        label = f"n = 10^{len(str(n)) - 1}"
        print(
            f"  {label:<18} {t_np * 1e6:9.1f} us  {t_c * 1e6:9.1f} us   {t_c / t_np:6.2f}x"
            f"   {t_kernel * 1e6:9.1f} us"
        )

    fresh = program(1000) + UOp.const(1.0, dtypes.f32, (1000,))  # not compiled above
    t = time.perf_counter()
    compile_c(fresh)
    cold = time.perf_counter() - t
    t = time.perf_counter()
    compile_c(fresh)
    cached = time.perf_counter() - t
    print(f"compile_c, cold (cc -O2):   {cold * 1e3:8.1f} ms")
    print(f"compile_c, cached:          {cached * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
