"""Differential tests: the C backend, the Python reference semantics and `run` agree bit for bit.

Three evaluators of one program on one input:
- C: compile_c / compile_many, run_batch (many input sets in one C call);
- reference: evaluate_reference (exec_alu per lane, with the backend's poison rules for errors);
- run: the greedy interpreter, `to_python(run(program with inputs bound))`.
C must equal the reference on every case, errors included (same exception type and message).
Where the reference gives a value, `run` must give the same value, bit for bit. Where the
reference reports undefined behaviour, `run` is not asked: its symbolic rules may erase the
undefined operation (`x * 0 -> 0`), see reference.py. And `run` may be stuck (no value) where an
undefined lane exists that the result never reads: it evaluates a movement op only on a fully
known tensor, while the backend tracks definedness per lane; that is allowed, nothing else is.

Compilation is the cost, so programs are drawn first (hypothesis, derandomized) and compiled
together, a hundred per library, each run on many input sets in one C call.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eqsat_uopc.backend import BackendError, compile_many, evaluate_reference
from eqsat_uopc.backend.errors import IndexOutOfBoundsError
from eqsat_uopc.backend.lower import lower
from eqsat_uopc.backend.reference import undefined_nodes
from eqsat_uopc.backend.render import render
from eqsat_uopc.greedy import run, to_python
from eqsat_uopc.ir.dtype import f32_bits
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp, rebuild
from eqsat_uopc.semantics.values import bind_params
from tests.strategies import inputs_for, programs, range_bindings


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("UOPC_CACHE_DIR", str(tmp_path_factory.mktemp("uopc_cache")))
        yield


def same(a: Any, b: Any) -> bool:
    """Bit-for-bit equality of values: f32 by bit pattern (any NaN equals any NaN), types exact."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or f32_bits(a) == f32_bits(b)
    return type(a) is type(b) and a == b


def outcome(f) -> Any:
    try:
        return f()
    except BackendError as e:
        return e


def same_outcome(a: Any, b: Any) -> bool:
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and str(a) == str(b)
    return same(a, b)


def positional(compiled_inputs, params: dict[int, Any], ranges: dict[UOp, int]) -> list[Any]:
    """The positional inputs of a compiled program from {slot: value} and {RANGE: value}."""
    out = []
    for s in compiled_inputs:
        out.append(params[s.slot] if s.kind == "param" else ranges[s.node] if s.kind == "range" else 0)
    return out


def run_oracle(program: UOp, params: dict[int, Any], ranges: dict[UOp, int]) -> Any:
    """to_python(run(...)) with PARAMs bound to literals and RANGEs (CALL bodies too) to constants."""
    bound = bind_params(program, params)
    bound = rebuild(bound, lambda u: UOp.const(ranges[u]) if u in ranges else None, enter_call_bodies=True)
    return to_python(run(bound))


def collect_cases(strategy, n_programs: int, n_inputs: int) -> list[tuple[UOp, list]]:
    cases: list[tuple[UOp, list]] = []

    @settings(
        max_examples=n_programs,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def draw(data):
        prog = data.draw(strategy)
        sets = [(data.draw(inputs_for(prog)), data.draw(range_bindings(prog))) for _ in range(n_inputs)]
        cases.append((prog, sets))

    draw()
    return cases


def check_cases(cases: list[tuple[UOp, list]], run_checks: int) -> dict[str, int]:
    """C == reference on every case; run == reference on the first run_checks defined cases."""
    counts = {"c_vs_reference": 0, "run_vs_reference": 0, "render_errors": 0, "run_stuck": 0}
    compilable = []
    for prog, sets in cases:
        try:
            render(prog)
        except IndexOutOfBoundsError as e:  # a constant index out of bounds: the reference agrees
            counts["render_errors"] += 1
            args = positional(lower(prog).inputs, *sets[0])
            assert same_outcome(outcome(lambda p=prog, a=args: evaluate_reference(p, *a)), e)
            continue
        compilable.append((prog, sets))
    for start in range(0, len(compilable), 100):
        chunk = compilable[start : start + 100]
        for (prog, sets), compiled in zip(chunk, compile_many([p for p, _ in chunk]), strict=True):
            arg_sets = [positional(compiled.inputs, *s) for s in sets]
            got = compiled.run_batch(arg_sets)
            checked_run = 0
            for (params, ranges), args, g in zip(sets, arg_sets, got, strict=True):
                ref = outcome(lambda p=prog, a=args: evaluate_reference(p, *a))
                assert same_outcome(ref, g), f"C {g!r} != reference {ref!r} on {args} for\n{to_uir(prog)}"
                counts["c_vs_reference"] += 1
                if isinstance(ref, Exception) or checked_run >= run_checks:
                    continue
                checked_run += 1
                try:
                    r = run_oracle(prog, params, ranges)
                except ValueError as e:
                    # run is stuck only where some lane is undefined, even one the result never reads:
                    # it evaluates movement ops on whole literal tensors, the backend per lane
                    assert undefined_nodes(prog, *args), (
                        f"run failed ({e}) on {params} {ranges} for\n{to_uir(prog)}"
                    )
                    counts["run_stuck"] += 1
                    continue
                assert same(r, ref), f"run {r!r} != reference/C {ref!r} on {params} {ranges}:\n{to_uir(prog)}"
                counts["run_vs_reference"] += 1
    return counts


def test_random_programs_agree_with_reference_and_run():
    cases = collect_cases(programs(ranges=True), n_programs=250, n_inputs=12)
    counts = check_cases(cases, run_checks=4)
    assert counts["c_vs_reference"] >= 2500
    assert counts["run_vs_reference"] >= 400


def test_scalar_alu_programs_agree_with_reference_and_run():
    # every ALU op on edge values (NaN, inf, -0.0, subnormals, INT_MIN, inexact f32 constants)
    cases = collect_cases(
        programs(shaped=False, calls=False, exact=False, max_ops=6), n_programs=200, n_inputs=16
    )
    counts = check_cases(cases, run_checks=8)
    assert counts["c_vs_reference"] >= 3000
    assert counts["run_vs_reference"] >= 800


def test_larger_shaped_programs_with_calls_agree_with_reference_and_run():
    # deeper DAGs: fused elementwise chains, views of views, REDUCE of movement ops, nested CALLs
    strategy = programs(shaped=True, calls=True, ranges=True, max_ops=20, max_leaves=6, exact=False)
    cases = collect_cases(strategy, n_programs=150, n_inputs=10)
    counts = check_cases(cases, run_checks=3)
    assert counts["c_vs_reference"] >= 1400
    assert counts["run_vs_reference"] >= 300
