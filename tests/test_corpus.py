"""The benchmark corpora: the Caviar file parses exactly, errors say where, index expressions are right."""

import collections
import itertools
import json

import numpy as np
import pytest

from eqsat_uopc.corpus import CorpusError, caviar_path, index_expressions, load_corpus, parse_sexpr, to_sexpr
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu

CAVIAR = caviar_path()

p0, p1, p2 = (UOp.param(k, dtypes.i32) for k in range(3))


@pytest.fixture(scope="module")
def caviar():
    return load_corpus(CAVIAR)


def test_counts(caviar):
    assert len(caviar) == 1303
    assert collections.Counter(e.verdict for e in caviar) == {
        "true_on_all_samples": 460,
        "false_on_all_samples": 486,
        "mixed": 357,
    }
    assert sum(e.program_euclid is not None for e in caviar) == 60
    assert sum(e.halide_simplifier_proved for e in caviar) == 404
    assert sum(e.caviar_result is not None for e in caviar) == 894


def test_first_entry_exactly(caviar):
    e = caviar[0]
    assert (e.id, e.line, e.var_names, e.size, e.num_vars) == (
        "caviar/lasteval/L00003",
        1,
        ("v0", "v1", "v2"),
        35,
        3,
    )
    assert e.verdict == "false_on_all_samples" and e.halide_simplifier_proved is False
    assert e.caviar_result["matched_goal"] == "false" and e.caviar_result["iterations"] == 7
    assert e.sample_counterexample == {"v0": 0, "v1": 0, "v2": 0}
    assert e.program_euclid is None
    # (ne (ne (mul (var v0) (const 2)) (add (add (mul (var v0) (const 2)) ...) (const -1))) (const true))
    outer = e.program
    assert outer.op is Ops.CMPNE and outer.src[1] is UOp.const(True)
    inner = outer.src[0]
    assert inner.op is Ops.CMPNE and inner.src[0] is p0 * 2
    assert inner.src[1].op is Ops.ADD and inner.src[1].src[1] is UOp.const(-1)
    assert e.params() == (p0, p1, p2)
    assert e.name_values([5, -7, 0]) == {"v0": 5, "v1": -7, "v2": 0}


def test_every_entry_prints_back_to_its_text(caviar):
    rows = [json.loads(line) for line in CAVIAR.read_text().splitlines()]
    for e, row in zip(caviar, rows, strict=True):
        assert to_sexpr(e.program, e.var_names) == row["expr"]
        if row["expr_euclid"] is not None:
            assert to_sexpr(e.program_euclid, e.var_names) == row["expr_euclid"]


def test_euclid_entry(caviar):
    e = next(e for e in caviar if e.id == "caviar/lasteval/L00484")
    assert e.possibly_negative_divisor and e.var_names == ("v0", "v1")
    # Euclidean modulo divides by |d|, spelled max(d, d*-1)
    d = (p1 + 133) // 132
    assert e.program.src[0].src[1] is ((p0 % d) * -132)
    assert e.program_euclid.src[0].src[1] is ((p0 % d.maximum(d * -1)) * -132)


def test_parse_small_expressions():
    slots = {"a": 0, "b": 1}
    assert parse_sexpr("(add (var a) (const 3))", slots) is p0 + 3
    assert parse_sexpr("(where (lt (var a) (var b)) (var b) (const -2))", slots) is (p0 < p1).where(p1, -2)
    assert parse_sexpr("  (ne (const true) (const false)) ", slots) is UOp.const(True).ne(False)
    assert parse_sexpr("(floormod (floordiv (var b) (const 4)) (const 2))", slots) is (p1 // 4) % 2
    assert parse_sexpr("(max (var a) (mul (var a) (const -1)))", slots) is p0.maximum(p0 * -1)


@pytest.mark.parametrize(
    "text, message",
    [
        ("(add (var a) (const 3)", "e: column 1: unclosed '(' of add: expected ')', got end of input"),
        ("(add (var a))", "e: column 1: add takes 2 operands, got 1"),
        (
            "(sub (var a) (const 1))",
            "e: column 2: unknown operator 'sub' (expected one of add, floordiv, "
            "floormod, lt, max, mul, ne, where, const, var)",
        ),
        ("(add (var z) (const 1))", "e: column 11: variable 'z' has no slot"),
        (
            "(add (var a) (const 1.5))",
            "e: column 21: expected an integer, true or false after 'const', got '1.5'",
        ),
        ("(add (var a) (const 2147483648))", "e: column 21: constant 2147483648 is outside the int32 range"),
        ("(add (var a) (const true))", "e: column 1: ADD operands must have one dtype, got i32 and bool"),
        ("(const 1) (const 2)", "e: column 11: expected end of input, got '('"),
        ("(const 1 2)", "e: column 10: expected ')' closing (const 1, got '2'"),
        ("var a", "e: column 1: expected '(' or ')', got 'var'"),
        ("", "e: column 1: expected '(', got end of input"),
        (")", "e: column 1: unbalanced ')'"),
    ],
)
def test_parse_errors_name_the_position(text, message):
    with pytest.raises(CorpusError) as err:
        parse_sexpr(text, {"a": 0}, where="e")
    assert str(err.value) == message


def test_load_errors_name_the_line_and_entry(tmp_path):
    good = {"id": "x/1", "expr": "(lt (var v0) (const 1))", "sample_verdict": "mixed"}
    bad = {"id": "x/2", "expr": "(lt (var v0) (const 1)", "sample_verdict": "mixed"}
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(CorpusError) as err:
        load_corpus(f)
    assert (
        str(err.value) == "c.jsonl:2 (x/2) expr: column 1: unclosed '(' of lt: expected ')', got end of input"
    )
    f.write_text(json.dumps(good) + "\n{oops\n")
    with pytest.raises(CorpusError) as err:
        load_corpus(f)
    assert (
        str(err.value) == "c.jsonl:2: column 2: not JSON: Expecting property name enclosed in double quotes"
    )
    f.write_text(json.dumps({"id": "x/3", "sample_verdict": "mixed"}) + "\n")
    with pytest.raises(CorpusError) as err:
        load_corpus(f)
    assert str(err.value) == "c.jsonl:1: entry has no 'expr' field"


def test_slots_follow_sorted_names(tmp_path):
    row = {"id": "x/1", "expr": "(lt (var v10) (add (var v2) (var v1)))", "sample_verdict": "mixed"}
    (tmp_path / "c.jsonl").write_text(json.dumps(row) + "\n")
    (e,) = load_corpus(tmp_path / "c.jsonl")
    assert e.var_names == ("v1", "v2", "v10")  # natural order: v2 before v10
    assert e.program is (p2 < p1 + p0)


# ---------------------------------------------------------------------------
# generated index expressions


def _eval(u: UOp, env: dict[UOp, int]):
    vals: dict[UOp, object] = {}
    for n in u.toposort():
        if n in env:
            vals[n] = env[n]
        elif n.op is Ops.CONST:
            vals[n] = n.arg
        else:
            vals[n] = exec_alu(n.op, n.dtype, [vals[s] for s in n.src])
    return vals[u]


def _numpy_view(views, batch: int):
    kind, base = views[0]
    a = np.arange(int(np.prod(base)), dtype=np.int64).reshape(base) + batch * int(np.prod(base))
    for kind, arg in views[1:]:
        if kind == "reshape":
            a = a.reshape(arg)
        elif kind == "permute":
            a = a.transpose(arg)
        elif kind == "expand":
            axis, size = arg
            a = np.repeat(np.expand_dims(a, axis), size, axis=axis)
        elif kind == "pad":
            axis, before, after = arg
            widths = [(before, after) if k == axis else (0, 0) for k in range(a.ndim)]
            a = np.pad(a, widths, constant_values=-1)
        else:
            axis, begin, end = arg
            a = a[tuple(slice(begin, end) if k == axis else slice(None) for k in range(a.ndim))]
    return a


def test_index_expressions_compute_the_views():
    exprs = index_expressions(40, seed=1)
    kinds = collections.Counter(kind for e in exprs for kind, _ in e.views[1:])
    assert set(kinds) == {"reshape", "permute", "expand", "pad", "shrink"}
    assert any(e.params for e in exprs) and any(e.program.op is Ops.WHERE for e in exprs)
    for e in exprs:
        assert e.program.dtype is dtypes.i32 and e.program.shape == ()
        batch = 3 if e.params else 0
        want = _numpy_view(e.views, batch)
        assert want.shape == tuple(r.src[0].arg for r in e.ranges), e.description
        bounded = e.bounded_program
        inputs = sorted((n for n in bounded.toposort() if n.op is Ops.PARAM), key=lambda n: n.arg.slot)
        assert not any(n.op is Ops.RANGE for n in bounded.toposort())
        assert [n.arg.bounds for n in inputs] == [None] * len(e.params) + [
            (0, r.src[0].arg - 1) for r in e.ranges if r in e.program.toposort()
        ]
        for idx in itertools.product(*(range(d) for d in want.shape)):
            env = dict(zip(e.ranges, idx, strict=True)) | dict.fromkeys(e.params, batch)
            got = _eval(e.program, env)
            assert got == (0 if want[idx] == -1 else want[idx]), (e.description, idx)
            slots = {
                UOp.param(len(e.params) + k, bounds=(0, r.src[0].arg - 1)): v
                for k, (r, v) in enumerate(zip(e.ranges, idx, strict=True))
            }
            assert _eval(bounded, slots | dict.fromkeys(e.params, batch)) == got


def test_index_expressions_are_deterministic():
    a, b = index_expressions(20, seed=7), index_expressions(20, seed=7)
    assert all(x.program is y.program and x.views == y.views for x, y in zip(a, b, strict=True))
    assert [x.program for x in index_expressions(20, seed=8)] != [x.program for x in a]
    first = index_expressions(3, seed=0)[0]
    assert first.description == (
        "buffer (8, 1, 5, 16) -> permute (2, 0, 1, 3) -> pad (1, 1, 1) -> reshape (1, 800, 1)"
        " -> shrink (1, 700, 743)"
    )
