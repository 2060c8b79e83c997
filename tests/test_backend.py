"""The C backend: values, the error semantics, inputs, the cache, the toolchain errors, examples."""

from __future__ import annotations

import math
import os
import random
from pathlib import Path

import numpy as np
import pytest

from eqsat_uopc.backend import (
    BackendError,
    CompilerError,
    CompilerNotFoundError,
    IndexOutOfBoundsError,
    InputError,
    UndefinedBehaviorError,
    UnsupportedProgramError,
    compile_c,
    compile_many,
    evaluate_reference,
    render_c,
    toolchain,
)
from eqsat_uopc.greedy import run, to_python
from eqsat_uopc.ir.dtype import dtypes, f32_bits, f32_from_bits
from eqsat_uopc.ir.examples import load_example
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import parse_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.values import bind_params
from tests.strategies import F32_EDGES, I32_EDGES
from tests.test_backend_differential import same

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.uir"))
f32, i32, boolean = dtypes.f32, dtypes.i32, dtypes.bool


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("UOPC_CACHE_DIR", str(tmp_path_factory.mktemp("uopc_cache")))
        yield


def p(slot, dtype=i32, shape=()):
    return UOp.param(slot, dtype, shape)


# -- values


def test_a_times_b_plus_a_on_lists_and_numpy():
    a, b = p(0, f32, (3,)), p(1, f32, (3,))
    prog = compile_c(a * b + a)
    assert prog([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]) == [11.0, 42.0, 93.0]
    out = prog.run_array(np.array([1, 2, 3], np.float32), np.array([0.5, 0.25, 0.125], np.float32))
    assert out.dtype == np.float32 and out.tolist() == [1.5, 2.5, 3.375]


def test_results_have_to_pythons_types():
    x = p(0)
    assert compile_c(x < 3)(2) is True
    assert type(compile_c(x * 2)(4)) is int
    assert type(compile_c(x.cast(f32))(4)) is float
    assert compile_c(UOp.stack(x, x + 1, x + 2).reshape((3, 1)))(7) == [[7], [8], [9]]
    assert compile_c(UOp.const(5))() == 5


def test_int32_wraps_without_undefined_behaviour():
    x = p(0)
    assert compile_c(x + 1)(2**31 - 1) == -(2**31)
    assert compile_c(x * -1)(-(2**31)) == -(2**31)
    assert compile_c(x * x)(65536) == 0


def test_floor_division_and_modulo():
    x, y = p(0), p(1)
    div, mod = compile_c(x // y), compile_c(x % y)
    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (-(2**31), 3), (2**31 - 1, -1), (-(2**31), -1)]:
        if (a, b) != (-(2**31), -1):
            assert div(a, b) == a // b
        assert mod(a, b) == a % b  # FLOORMOD(INT_MIN, -1) == 0, as exec_alu says


def test_max_is_b_greater_than_a_else_a():
    x, y = p(0, f32), p(1, f32)
    mx = compile_c(x.maximum(y))
    assert math.isnan(mx(math.nan, 1.0))
    assert mx(1.0, math.nan) == 1.0
    assert f32_bits(mx(-0.0, 0.0)) == f32_bits(-0.0)
    assert f32_bits(mx(0.0, -0.0)) == f32_bits(0.0)


def test_f32_inputs_and_constants_are_rounded_to_f32():
    x = p(0, f32)
    assert compile_c(x)(0.1) == f32_from_bits(f32_bits(0.1))
    # 16777217.0 is not an f32: as a constant it is 16777216.0, as exec_alu rounds it
    assert compile_c(UOp.const(16777217.0).ne(UOp.const(16777216.0)))() is False


def test_a_times_b_plus_c_rounds_twice_never_fused():
    x = 1.0 + 2.0**-12  # x * x = 1 + 2**-11 + 2**-24: the 2**-24 is lost when the product is rounded
    c = -(1.0 + 2.0**-11)
    product = exec_alu(Ops.MUL, f32, [x, x])
    want = exec_alu(Ops.ADD, f32, [product, c])
    assert want == 0.0  # a fused multiply-add would give 2**-24
    assert compile_c(p(0, f32) * p(1, f32) + p(2, f32))(x, x, c) == want


@pytest.mark.parametrize("op", [Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN])
def test_transcendentals_agree_with_exec_alu_bit_for_bit(op):
    rng = random.Random(op.value)
    values = [*F32_EDGES, *(f32_from_bits(rng.getrandbits(32)) for _ in range(3000))]
    values += [f32_from_bits(rng.getrandbits(32)) % 200.0 - 100.0 for _ in range(2000)]  # typical range
    got = compile_c(UOp(op, (p(0, f32),))).run_batch([[v] for v in values])
    for v, g in zip(values, got, strict=True):
        want = exec_alu(op, f32, [v])
        assert same(g, want), f"{op.name}({v!r}) = {g!r}, exec_alu says {want!r}"


@pytest.mark.parametrize("target", [boolean, i32, f32])
@pytest.mark.parametrize("source", [boolean, i32, f32])
def test_casts_agree_with_exec_alu(source, target):
    values = {boolean: [False, True], i32: list(I32_EDGES), f32: [v for v in F32_EDGES if not math.isnan(v)]}
    values[f32] += [2147483520.0, -2147483648.0, 2.5, -2.5, 0.999]
    got = compile_c(p(0, source).cast(target)).run_batch([[v] for v in values[source]])
    for v, g in zip(values[source], got, strict=True):
        want = exec_alu(Ops.CAST, target, [v])
        if want is None:
            assert str(g) == "CAST of a non-finite or out-of-range f32 to i32 at %1", (v, g)
        else:
            assert same(g, want), (v, g, want)


# -- undefined behaviour: reported per lane, never executed


def test_division_by_zero_is_an_error_naming_the_node():
    x, y = p(0), p(1)
    prog = compile_c(x // y + 1)
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORDIV by zero at %2$"):
        prog(1, 0)
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORDIV overflow \(-2147483648 // -1\) at %2$"):
        prog(-(2**31), -1)
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORMOD by zero at %2$"):
        compile_c(x % y)(1, 0)
    with pytest.raises(
        UndefinedBehaviorError, match=r"^CAST of a non-finite or out-of-range f32 to i32 at %1$"
    ):
        compile_c(p(0, f32).cast(i32))(math.inf)


def test_where_reports_only_the_selected_lanes_undefined_behaviour():
    # the decision: WHERE takes the poison of the branch it selects, as run folds where(c, x, y) to x
    x, y = p(0, i32, (3,)), p(1, i32, (3,))
    safe = y.ne(0).where(x // y, 0)
    prog = compile_c(safe)
    assert prog([6, 7, 8], [2, 0, -3]) == [3, 0, -3]
    assert to_python(run(bind_params(safe, {0: [6, 7, 8], 1: [2, 0, -3]}))) == [3, 0, -3]
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORDIV by zero at %5$"):
        compile_c((y < 5).where(x // y, 0))([6, 7, 8], [2, 0, -3])  # the selected lane divides by 0


def test_undefined_lane_that_is_not_used_is_not_an_error():
    x = p(0, i32, (2,))
    quotient = UOp.const(10, i32, (2,)) // x
    prog = compile_c(quotient.index(0))  # lane 1 divides by zero, but only lane 0 is returned
    assert prog([5, 0]) == 2
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORDIV by zero at %3$"):
        compile_c(quotient.reduce(Ops.ADD))([5, 0])


def test_an_undefined_lane_the_result_never_reads_does_not_stop_the_backend():
    # found by the differential test: lane 0 is a CAST of NaN to i32, SHRINK drops it. The backend
    # tracks definedness per lane and returns [5]; `run` stays stuck (it evaluates the SHRINK only on
    # a fully known tensor), which the differential test allows for exactly this reason.
    lanes = UOp.stack(UOp.const(math.nan).cast(i32), UOp.const(5))
    prog = lanes.shrink(((1, 2),))
    assert compile_c(prog)() == [5] and evaluate_reference(prog) == [5]


def test_run_batch_returns_errors_in_place():
    x, y = p(0), p(1)
    results = compile_c(x // y).run_batch([[7, 2], [1, 0], [-7, 2]])
    assert results[0] == 3 and results[2] == -4
    assert isinstance(results[1], UndefinedBehaviorError) and str(results[1]) == "FLOORDIV by zero at %2"


# -- INDEX and RANGE


def test_symbolic_index_and_its_bounds():
    table = UOp.stack(UOp.stack(1, 2, 3), UOp.stack(4, 5, 6))
    i, j = p(0), p(1)
    prog = compile_c(table.index(i, j))
    assert [prog(a, b) for a in range(2) for b in range(3)] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(
        IndexOutOfBoundsError, match=r"^INDEX at %5: index 3 out of bounds for axis 1 of size 3$"
    ):
        prog(1, 3)
    with pytest.raises(
        IndexOutOfBoundsError, match=r"^INDEX at %5: index -1 out of bounds for axis 0 of size 2$"
    ):
        prog(-1, 0)
    assert compile_c(table.index(i))(1) == [4, 5, 6]


def test_an_out_of_bounds_index_is_an_error_even_in_an_unselected_branch():
    # as in run, which evaluates the INDEX (and raises IndexError) before it reaches the WHERE
    c, i = p(0, boolean), p(1)
    prog = c.where(UOp.stack(1, 2, 3).index(i), 0)
    with pytest.raises(IndexError):
        run(bind_params(prog, {0: False, 1: 5}))
    with pytest.raises(
        IndexOutOfBoundsError, match=r"^INDEX at %3: index 5 out of bounds for axis 0 of size 3$"
    ):
        compile_c(prog)(False, 5)


def test_index_by_an_undefined_value_is_undefined_not_out_of_bounds():
    i, d = p(0), p(1)
    prog = compile_c(UOp.stack(1, 2, 3).index(i // d))
    assert prog(4, 2) == 3
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORDIV by zero at %3$"):
        prog(4, 0)


def test_constant_index_out_of_bounds_is_refused_at_compile_time():
    with pytest.raises(
        IndexOutOfBoundsError, match=r"^INDEX at %1: index 5 out of bounds for axis 0 of size 3$"
    ):
        compile_c(UOp.stack(1, 2, 3).index(5))


def test_a_free_range_is_an_input_after_the_params():
    r = UOp.range(4, "i")
    prog = compile_c(p(0) * 10 + r)
    assert [s.kind for s in prog.inputs] == ["param", "range"]
    assert prog.inputs[1].describe() == "input 1 (RANGE 'i'): i32 scalar"
    assert prog(5, 3) == 53
    with pytest.raises(IndexOutOfBoundsError, match=r"^RANGE at %2: value 4 outside \[0, 3\]$"):
        prog(5, 4)


# -- CALL


def test_calls_are_scoped_and_a_body_can_be_called_twice():
    sq = p(0) * p(0)
    prog = p(0) + sq.call(p(1), name="sq") + sq.call(p(0) + 1, name="sq")
    assert compile_c(prog)(3, 5) == 3 + 25 + 16
    assert compile_c(parse_uir(Path(EXAMPLES[0].parent / "nested_calls.uir").read_text()))() == 72


def test_shaped_call_arguments_and_movement_ops():
    m = p(0, f32, (2, 3))
    body = p(0, f32, (3, 2)).reduce(Ops.ADD)  # row sums of the transposed matrix
    prog = body.call(m.permute((1, 0)), name="colsum")
    data = [[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]]
    assert compile_c(prog)(data) == [11.0, 22.0, 33.0]
    shrunk = m.shrink(((0, 2), (1, 3))).expand((2, 2)) * UOp.const(2.0, f32, (2, 2))
    assert compile_c(shrunk)(data) == [[4.0, 6.0], [40.0, 60.0]]


# -- inputs


def test_inputs_are_checked_and_errors_name_the_slot():
    prog = compile_c(p(0, f32, (2,)) * p(1, f32, (2,)).maximum(p(1, f32, (2,))))
    with pytest.raises(InputError) as e:
        prog([1.0, 2.0])
    assert str(e.value) == (
        "program takes 2 input(s), got 1 (expected: input 0 (PARAM slot 0): f32 shape (2,); "
        "input 1 (PARAM slot 1): f32 shape (2,))"
    )
    with pytest.raises(InputError, match=r"^input 1 \(PARAM slot 1\): f32 shape \(2,\): got shape \(3,\)$"):
        prog([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(
        InputError, match=r"^input 0 \(PARAM slot 0\): f32 shape \(2,\): got an element 'a' of type str$"
    ):
        prog(["a", 2.0], [1.0, 2.0])
    ints = compile_c(p(0) + 1)
    with pytest.raises(
        InputError, match=r"^input 0 \(PARAM slot 0\): i32 scalar: got an element 1.5 of type float$"
    ):
        ints(1.5)
    with pytest.raises(
        InputError,
        match=r"^input 0 \(PARAM slot 0\): i32 scalar: value 2147483648 is outside the int32 range$",
    ):
        ints(2**31)
    with pytest.raises(
        InputError, match=r"^input 0 \(PARAM slot 0\): i32 scalar: got a numpy array of dtype float32$"
    ):
        ints(np.float32(1))
    with pytest.raises(
        InputError, match=r"^input 0 \(PARAM slot 0\): bool scalar: got an element 1 of type int$"
    ):
        compile_c(p(0, boolean).where(1, 2))(1)


def test_numpy_arrays_of_other_dtypes_are_converted_like_python_values():
    prog = compile_c(p(0, i32, (2,)) + p(1, f32, (2,)).cast(i32))
    assert prog(np.array([1, 2], np.int64), np.array([0.1, 2.9], np.float64)) == [1, 4]
    with pytest.raises(InputError, match=r"^input 0 \(PARAM slot 0\): i32 shape \(2,\): value 4294967296 is"):
        prog(np.array([1, 2**32], np.int64), np.zeros(2, np.float32))


def test_an_unused_slot_takes_any_value():
    prog = compile_c(p(1) * 2)
    assert prog.inputs[0].describe() == "input 0 (PARAM slot 0, unused): any value"
    assert prog(None, 21) == 42


def test_one_slot_with_two_types_is_refused():
    with pytest.raises(UnsupportedProgramError, match=r"^PARAM slot 0 is used as i32 \(\) and as f32 \(\): "):
        compile_c(p(0).cast(f32) + p(0, f32))


# -- cache and toolchain


def test_a_second_compile_does_not_run_the_compiler(monkeypatch):
    calls = []
    real = toolchain._run
    monkeypatch.setattr(toolchain, "_run", lambda cmd, **kw: calls.append(cmd) or real(cmd, **kw))
    prog = p(0) * 3 + 12345  # a program no other test compiles
    first = compile_c(prog)
    assert sum("-shared" in c for c in calls) == 1
    calls.clear()
    second = compile_c(prog)
    assert calls == [] and second.library_path == first.library_path and second(2) == 12351
    assert first.library_path.exists() and first.source_path.read_text() == render_c(prog)


def test_cache_dir_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("UOPC_CACHE_DIR", str(tmp_path))
    assert toolchain.cache_dir() == tmp_path
    assert compile_c(p(0) + 777)(1) == 778
    assert len(list(tmp_path.glob("*.so"))) == 1


def test_an_unwritable_cache_directory_is_a_clear_error(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("UOPC_CACHE_DIR", str(blocker / "cache"))
    with pytest.raises(BackendError) as e:
        compile_c(p(0) + 4242)
    assert str(e.value) == (
        f"cannot write the C backend's cache directory {blocker / 'cache'}: Not a directory; "
        "set UOPC_CACHE_DIR to a writable directory"
    )


def test_a_missing_compiler_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.raises(CompilerNotFoundError) as e:
        compile_c(p(0) + 1)
    assert str(e.value) == (
        "no C compiler found: $CC='/nonexistent/cc' is not an executable on PATH; "
        "install gcc or clang, or set CC"
    )


def test_a_compiler_error_shows_the_generated_line():
    source = render_c(p(0) + 1).replace("return 0;\n}", "return oops;\n}", 1)
    line = source.splitlines().index("  return oops;") + 1
    with pytest.raises(CompilerError) as e:
        toolchain.build_library(source)
    first = str(e.value).splitlines()[:2]
    assert first[0].startswith(f"C compiler failed on generated source line {line}, column ")
    assert "'oops' undeclared" in first[0]
    assert first[1] == f"  {line} |   return oops;"


def test_compile_many_shares_one_library():
    progs = compile_many([p(0) + 1, p(0) * 2, p(0, f32).sqrt()])
    assert len({c.library_path for c in progs}) == 1
    assert [progs[0](4), progs[1](4), progs[2](4.0)] == [5, 8, 2.0]


def test_large_tensors_agree_with_the_reference():
    # sizes that are not a multiple of any vector width: vectorized loops and their epilogues
    rng = np.random.default_rng(4)
    a, b, k = p(0, f32, (37, 29)), p(1, f32, (37, 29)), p(2, i32, (37, 29))
    ratio = (a * b + a).maximum(b.sqrt()) * (k // 7 + k % -5).cast(f32)
    prog = (ratio < 0.5).where(ratio.sin(), ratio.exp2()).permute((1, 0)).reduce(Ops.ADD)
    inputs = [
        rng.standard_normal((37, 29)).astype(np.float32) * 10,
        rng.standard_normal((37, 29)).astype(np.float32),
        rng.integers(-(2**31), 2**31, (37, 29), dtype=np.int64).astype(np.int32),
    ]
    assert same(compile_c(prog)(*inputs), evaluate_reference(prog, *inputs))


def test_time_runs_the_program_in_c_and_reports_seconds_per_run():
    prog = compile_c(p(0, f32, (1000,)) * 2.0 + 1.0)
    seconds = prog.time(np.ones(1000, np.float32), number=10, repeat=3)
    assert isinstance(seconds, float) and seconds > 0.0
    with pytest.raises(UndefinedBehaviorError, match=r"^FLOORDIV by zero at %2$"):
        compile_c(p(0) // p(1)).time(1, 0, number=3)


def test_a_deep_chain_renders_and_runs():
    u = p(0)
    for k in range(1500):
        u = u * 3 + k
    want = evaluate_reference(u, 1)
    assert compile_c(u)(1) == want


# -- examples


@pytest.mark.parametrize("path", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_every_example_compiles_and_gives_the_interpreters_answer(path):
    ex = load_example(path)
    inputs = ex.inputs or []
    if ex.expect_error is not None:
        assert ex.expect_error.startswith("IndexOutOfBoundsError:")
        with pytest.raises(IndexOutOfBoundsError):  # the backend's refines the interpreter's
            compile_c(ex.program)(*inputs)
        return
    bound = ex.program if not inputs else bind_params(ex.program, dict(enumerate(inputs)))
    interpreted = to_python(run(bound))
    got = compile_c(ex.program)(*inputs)
    assert same(got, interpreted) and same(got, ex.expect)


# -- golden C

GOLDEN = Path(__file__).resolve().parent / "golden"
GOLDEN_PROGRAMS = {
    "a_mul_b_add_a": lambda: p(0, f32, (4,)) * p(1, f32, (4,)) + p(0, f32, (4,)),
    "safe_division": lambda: p(1).ne(0).where(p(0) // p(1), -1),
    "call_permute_reduce": lambda: (
        (p(0, f32, (3, 2)).reduce(Ops.MAX)).call(p(0, f32, (2, 3)).permute((1, 0)), name="colmax")
        + UOp.stack(1.0, 2.0, 3.0).index(p(1)).reshape((1,)).expand((3,))
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_PROGRAMS))
def test_generated_c_matches_the_golden_file(name):
    """A change in rendering shows up here; regenerate with UOPC_REGEN_GOLDEN=1 after reviewing it."""
    source = render_c(GOLDEN_PROGRAMS[name]())
    path = GOLDEN / f"{name}.c"
    if os.environ.get("UOPC_REGEN_GOLDEN"):
        path.write_text(source)
    assert source == path.read_text()
