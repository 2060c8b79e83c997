"""The tinygrad bridge: exact translation both ways, tinygrad's simplifier on our programs, the capture."""

import collections
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eqsat_uopc.corpus import load_corpus, tinygrad_capture
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.tinygrad import (
    TinygradError,
    evaluate_tinygrad,
    from_tinygrad,
    tinygrad_available,
    tinygrad_simplify,
    tinygrad_variables,
    to_tinygrad,
)

needs_tinygrad = pytest.mark.skipif(
    not tinygrad_available(), reason="tinygrad is not installed (pip install 'eqsat-uopc[tinygrad]')"
)


def _tg():
    from tinygrad.dtype import dtypes as tdt
    from tinygrad.uop.ops import Ops as TOps
    from tinygrad.uop.ops import UOp as T

    return T, TOps, tdt


# name -> builder over variables x in [-20, 15], y in [1, 9]: every op the bridge translates
def _cases():
    _, TOps, tdt = _tg()
    return {
        "add": lambda x, y: x + y,
        "mul": lambda x, y: x * y,
        "max": lambda x, y: x.alu(TOps.MAX, y),
        "sub": lambda x, y: x.alu(TOps.SUB, y),
        "neg": lambda x, y: x.alu(TOps.NEG),
        "floordiv": lambda x, y: x // y,
        "floormod": lambda x, y: x % y,
        "cdiv": lambda x, y: x.alu(TOps.CDIV, y),
        "cmod": lambda x, y: x.alu(TOps.CMOD, y),
        "cdiv_const": lambda x, y: x.alu(TOps.CDIV, x.const_like(4)),
        "cmod_const": lambda x, y: x.alu(TOps.CMOD, x.const_like(4)),
        "cdiv_negative_divisor": lambda x, y: x.alu(TOps.CDIV, y * -1),
        "cmod_negative_divisor": lambda x, y: x.alu(TOps.CMOD, x.const_like(-3)),
        "shl": lambda x, y: x.alu(TOps.SHL, x.const_like(3)),
        "shr": lambda x, y: x.alu(TOps.SHR, x.const_like(2)),
        "cmplt": lambda x, y: (x < y).where(x, y),
        "cmpne": lambda x, y: x.ne(y).where(x, y),
        "cmpeq": lambda x, y: x.alu(TOps.CMPEQ, y).where(x, y),
        "and": lambda x, y: ((x < 3) & (y < 5)).where(x, y),
        "or": lambda x, y: ((x < 3) | (y < 5)).where(x, y),
        "xor": lambda x, y: ((x < 3) ^ (y < 5)).where(x, y),
        "cast_bool": lambda x, y: (x < y).cast(tdt.weakint) + x,
        "cast_int32": lambda x, y: x.cast(tdt.int32) + y.cast(tdt.int32),
        "index_like": lambda x, y: ((x * 4 + y) // 4 % 3) * 7 + (y * 2 + 1) % 5,
    }


CASES = [
    "add",
    "mul",
    "max",
    "sub",
    "neg",
    "floordiv",
    "floormod",
    "cdiv",
    "cmod",
    "cdiv_const",
    "cmod_const",
    "cdiv_negative_divisor",
    "cmod_negative_divisor",
    "shl",
    "shr",
    "cmplt",
    "cmpne",
    "cmpeq",
    "and",
    "or",
    "xor",
    "cast_bool",
    "cast_int32",
    "index_like",
]


@needs_tinygrad
def test_cases_cover_every_case_name():
    assert sorted(_cases()) == sorted(CASES)


@needs_tinygrad
@pytest.mark.parametrize("name", CASES)
def test_round_trip_evaluates_like_tinygrad_on_every_point(name):
    T, _, _ = _tg()
    x, y = T.variable("x", -20, 15), T.variable("y", 1, 9)
    u = _cases()[name](x, y)
    program = from_tinygrad(u)
    back = to_tinygrad(program, ["x", "y"])
    assert tinygrad_variables(u).keys() <= {"x", "y"}
    slot = {n: k for k, n in enumerate(tinygrad_variables(u))}
    for xv in range(-20, 16):
        for yv in range(1, 10):
            values = {"x": xv, "y": yv}
            theirs = evaluate_tinygrad(u, values)
            ours = evaluate(program, {slot[n]: v for n, v in values.items() if n in slot})
            assert ours.defined and ours.value == theirs, (name, values, ours, theirs)
            assert evaluate_tinygrad(back, values) == theirs


@needs_tinygrad
def test_variables_become_bounded_inputs_in_natural_slot_order():
    T, _, _ = _tg()
    r10, r2 = T.range(16, 10), T.range(5, 2)
    v = T.variable("n", 3, 40)
    program = from_tinygrad(r10 * 5 + r2 + v)
    params = {n.arg.slot: n.arg.bounds for n in program.toposort() if n.op is Ops.PARAM}
    assert tinygrad_variables(r10 * 5 + r2 + v) == {"n": (3, 40), "r2": (0, 4), "r10": (0, 15)}
    assert params == {0: (3, 40), 1: (0, 4), 2: (0, 15)}


@needs_tinygrad
def test_unsupported_ops_are_named():
    T, TOps, tdt = _tg()
    x = T.variable("x", 0, 9)
    with pytest.raises(TinygradError, match=r"from_tinygrad: Ops.AND on dtypes.weakint is not supported"):
        from_tinygrad(x.alu(TOps.AND, x.const_like(3)))
    with pytest.raises(TinygradError, match=r"from_tinygrad: Ops.SHL by Ops.DEFINE_VAR|SHL by Ops.BUFFER"):
        from_tinygrad(x.alu(TOps.SHL, x))
    with pytest.raises(TinygradError, match=r"Ops.TRUNC \(dtypes.float\) is not supported"):
        from_tinygrad(T.variable("f", -1.0, 1.0, dtype=tdt.float32).alu(TOps.TRUNC))
    with pytest.raises(TinygradError, match=r"dtypes.long, which has no eqsat-uopc equivalent"):
        from_tinygrad(x.cast(tdt.int64))
    with pytest.raises(TinygradError, match=r"to_tinygrad: STACK has shape \(2,\)"):
        to_tinygrad(UOp.stack(UOp.param(0), UOp.param(1)) + 1)


@needs_tinygrad
def test_tinygrad_simplify_keeps_slots_and_uses_the_bounds():
    i = UOp.param(0, dtypes.i32, bounds=(0, 15))
    j = UOp.param(1, dtypes.i32, bounds=(0, 3))
    # with i in [0, 15] and j in [0, 3]: (i*4 + j) // 4 is i, and (i*4 + j) % 4 is j
    assert tinygrad_simplify((i * 4 + j) // 4, ["i", "j"]) is i
    assert tinygrad_simplify((i * 4 + j) % 4, ["i", "j"]) is j
    # an unbounded input stays unbounded, and what cannot be simplified comes back as it went
    p = UOp.param(0, dtypes.i32)
    assert tinygrad_simplify((p * 4 + 1) // 4) is p
    assert tinygrad_simplify((p + 1) // 2 * 2) is (p + 1) // 2 * 2


@given(st.integers(-(2**31), 2**31 - 1), st.integers(-50, 50).filter(lambda d: d != 0))
@needs_tinygrad
def test_truncating_division_matches_c_over_int32(a, d):
    T, TOps, tdt = _tg()
    x, y = T.variable("x", -(2**31), 2**31 - 1, dtype=tdt.int32), T.variable("y", -50, 50, dtype=tdt.int32)
    for op in (TOps.CDIV, TOps.CMOD):
        u = x.alu(op, y)
        got = evaluate(from_tinygrad(u), {0: a, 1: d})
        if (a, d) == (-(2**31), -1) and op is TOps.CDIV:
            continue  # overflows in C too
        assert got.value == evaluate_tinygrad(u, {"x": a, "y": d}), (op, a, d)


def test_absent_tinygrad_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tinygrad(name, *args, **kwargs):
        if name == "tinygrad" or name.startswith("tinygrad."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tinygrad)
    assert not tinygrad_available()
    with pytest.raises(
        TinygradError, match=r"tinygrad is not installed: pip install 'eqsat-uopc\[tinygrad\]'"
    ):
        to_tinygrad(UOp.param(0) + 1)


def test_bundled_capture_loads_with_bounds_and_tinygrad_results():
    entries = tinygrad_capture()
    assert len(entries) >= 500
    assert len({(e.id) for e in entries}) == len(entries)
    e = entries[0]
    assert (e.id, e.verdict, e.var_names, e.bounds) == (
        "tinygrad/matmul/0000",
        "unknown",
        ("r1", "r2"),
        ((0, 6), (0, 4)),
    )
    assert (
        str(e.program.src[0].src[0].arg)
        == "ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None, bounds=(0, 6))"
    )
    assert all(e.tinygrad is not None for e in entries)
    # tinygrad's simplifier (0.14.0) shrinks 394 of them and grows 4 (e.g. interpolate/0006)
    assert sum(e.tinygrad.size < e.program.size for e in entries) == 394
    assert sum(e.tinygrad.size > e.program.size for e in entries) == 4
    workloads = {e.id.split("/")[1] for e in entries}
    assert workloads == {
        "matmul", "conv2d", "pooling", "movement", "reductions", "arange_onehot_gather", "cumsum", "cnn",
        "transformer_block", "interpolate",
    }  # fmt: skip


def test_corpus_bounds_errors_say_where(tmp_path):
    path = tmp_path / "c.jsonl"
    row = {"id": "a", "expr": "(add (var x) (const 1))", "bounds": {"x": [5, 2]}}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(
        Exception, match=r"c.jsonl:1 \(a\): bounds of 'x' must be \[lo, hi\] integers with lo <= hi"
    ):
        load_corpus(path)
    row["bounds"] = {"y": [0, 1]}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(Exception, match=r"c.jsonl:1 \(a\): bounds name variable 'y', which the expression"):
        load_corpus(path)
    row["bounds"], row["sample_verdict"] = {"x": [0, 1]}, "maybe"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(Exception, match=r"c.jsonl:1 \(a\): sample_verdict 'maybe' is not one of"):
        load_corpus(path)


@needs_tinygrad
def test_recorded_tinygrad_results_match_a_live_run_on_a_sample():
    entries = tinygrad_capture()[::97]
    for e in entries:
        assert tinygrad_simplify(e.program, e.var_names) is e.tinygrad, e.id


@needs_tinygrad
def test_capture_of_one_workload_is_deterministic_and_translates_exactly(tmp_path):
    from eqsat_uopc.tinygrad.capture import capture_tinygrad, write_capture

    a, b = capture_tinygrad(["pooling"]), capture_tinygrad(["pooling"])
    assert [e.expr for e in a.expressions] == [e.expr for e in b.expressions]
    # 50 on its own; in the bundled capture one of them was first seen in an earlier workload
    assert len(a.expressions) == 50 and a.per_workload == {"pooling": 50}
    write_capture(a, tmp_path / "p.jsonl")
    loaded = load_corpus(tmp_path / "p.jsonl")
    assert [e.id for e in loaded] == [f"tinygrad/pooling/{k:04d}" for k in range(50)]
    bundled = {(e.program, e.tinygrad) for e in tinygrad_capture()}
    assert all((e.program, e.tinygrad) in bundled for e in loaded)
    with pytest.raises(TinygradError, match=r"unknown workload 'gpt5'; known: matmul, conv2d"):
        capture_tinygrad(["gpt5"])


@needs_tinygrad
def test_cli_captures_and_compares_against_tinygrad(tmp_path, capsys):
    from eqsat_uopc.cli import main

    out = tmp_path / "k.jsonl"
    assert main(["capture-tinygrad", "--out", str(out), "--workloads", "pooling"]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == (
        f"50 distinct expressions written to {out} (98 seen, 48 duplicates, 0 left out)"
    )
    argv = ["compare", str(out), "--against", "tinygrad", "--no-verify", "--limit", "4", "--workers", "1"]
    assert main([*argv, "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    rows, summary = lines[:-1], lines[-1]["summary"]
    assert [r["key"] for r in rows] == [f"tinygrad/pooling/{k:04d}" for k in range(4)]
    assert all(r["tinygrad_source"] == "live" and r["vs_tinygrad"] in ("smaller", "equal") for r in rows)
    assert sum(summary["vs_tinygrad"].values()) == 4 and "expected" not in rows[0]
    assert main(argv) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header[:10] == [
        "program", "size", "greedy", "(dag_size)", "saturated", "(dag_size)", "tinygrad", "(dag_size)", "vs",
        "tinygrad",
    ]  # fmt: skip


def test_recorded_tinygrad_result_is_used_without_tinygrad(monkeypatch):
    import eqsat_uopc.tinygrad as bridge
    from eqsat_uopc.pipeline.comparison import compare, tinygrad_fields

    monkeypatch.setattr(bridge, "tinygrad_available", lambda: False)
    e = tinygrad_capture()[0]
    c = compare(e.program, verify=False)
    fields = tinygrad_fields(c, e.var_names, e.tinygrad)
    assert fields["tinygrad_source"] == "recorded" and fields["tinygrad_dag_size"] == e.tinygrad.size
    assert fields["vs_tinygrad"] == "equal"
    error = "tinygrad is not installed (pip install 'eqsat-uopc[tinygrad]') and no result is recorded"
    assert tinygrad_fields(c, e.var_names, None) == {
        "tinygrad_source": None,
        "tinygrad_error": error,
        "vs_tinygrad": None,
    }


@needs_tinygrad
def test_saturation_is_never_larger_than_tinygrad_on_generated_index_expressions():
    """Views unravelled and ravelled again (the digits family recombines them): on 40 generated
    index expressions, the saturated result is never larger than tinygrad's own simplification."""
    from eqsat_uopc.extract import cost_of

    from eqsat_uopc import optimize
    from eqsat_uopc.corpus import index_expressions
    from eqsat_uopc.pipeline.comparison import rank

    ranks = collections.Counter()
    for e in index_expressions(40, seed=11):
        program = e.bounded_program
        ours = cost_of(optimize(program, "dag_size", int_semantics="no_overflow").program, "dag_size")
        ranks[rank(ours, cost_of(tinygrad_simplify(program), "dag_size"))] += 1
    assert ranks == {"smaller": 28, "equal": 12}
