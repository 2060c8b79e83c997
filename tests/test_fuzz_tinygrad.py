"""The differential fuzzer against tinygrad: grammar, spellings, checks, shrinking, the regression
corpus it ships, and the `fuzz-tinygrad` command.

The regression corpus (eqsat_uopc/corpus/data/tinygrad_fuzz.jsonl) holds minimized expressions on
which `optimize` was larger than tinygrad's `simplify` when the fuzzer found them. Every case runs
here: the result must be sound, and no larger than `BOUND` says (see below).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.corpus import load_corpus, to_sexpr
from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.tinygrad import tinygrad_available
from eqsat_uopc.tinygrad.fuzz import (
    BOUND_KINDS,
    TEMPLATES,
    Draw,
    FuzzSettings,
    Reference,
    append_regressions,
    check_case,
    dag_size,
    divisors_exclude_zero,
    fuzz,
    generate,
    load_regressions,
    regressions_path,
    sample_inputs,
    shape_key,
    template_names,
)
from eqsat_uopc.tinygrad.fuzz.regressions import bounds_by_name

needs_tinygrad = pytest.mark.skipif(not tinygrad_available(), reason="tinygrad is not installed")


def P(slot: int, lo: int, hi: int) -> UOp:
    return UOp.param(slot, dtypes.i32, bounds=(lo, hi))


def identity(program: UOp, int_semantics: str) -> UOp:
    """An optimizer that changes nothing: sound, never smaller than its input."""
    return program


def zero(program: UOp, int_semantics: str) -> UOp:
    """An optimizer that is wrong almost everywhere."""
    return UOp.const(0) if program.dtype is dtypes.i32 else UOp.const(False)


# ---------------------------------------------------------------------------
# grammar


def test_generate_is_deterministic_per_seed_index_and_template():
    assert generate(3, 17).program is generate(3, 17).program
    assert generate(3, 17, ["mixed"]).program is generate(3, 17, ["mixed"]).program
    # the rng depends on (seed, index, template) only: a filter does not change what a case draws
    full = generate(3, 17)
    assert generate(3, 17, [full.template]).program is full.program
    differ = sum(generate(0, i).program is not generate(1, i).program for i in range(50))
    assert differ == 50


def test_generate_pins_its_first_expressions():
    c = generate(0, 0)
    assert (c.template, to_sexpr(c.program), bounds_by_name(c.program)) == (
        "const-quotient",
        "(floordiv (var v0) (var v1))",
        {"v0": [52, 59], "v1": [12, 13]},
    )
    c = generate(7, 40, ["where-implied"])
    assert to_sexpr(c.program) == (
        "(where (lt (var v0) (const -9)) "
        "(where (where (lt (var v0) (const -9)) (const false) (const true)) (var v0) (var v0)) "
        "(where (lt (const -9) (add (var v0) (const 1))) (var v0) (add (var v0) (const 1))))"
    )
    assert bounds_by_name(c.program) == {"v0": [-7, 40]}


def test_every_template_is_produced_in_order_and_a_filter_keeps_to_its_templates():
    names = template_names()
    assert len(names) == len(TEMPLATES) == 25
    assert [generate(0, i).template for i in range(len(names))] == list(names)
    only = ["scaled-cmp", "bool-or-not"]
    assert Counter(generate(5, i, only).template for i in range(10)) == {"scaled-cmp": 5, "bool-or-not": 5}


def test_unknown_template_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^unknown template 'nope' \(expected one of const-quotient, "):
        generate(0, 0, ["nope"])
    with pytest.raises(ValueError, match=r"^generate: no templates to draw from$"):
        generate(0, 0, [])


def test_generated_bounds_and_divisors_are_valid_and_cover_every_sign():
    lows = Counter()
    for seed, i in itertools.product(range(2), range(250)):
        p = generate(seed, i).program
        assert p.op not in (Ops.CONST, Ops.PARAM) and divisors_exclude_zero(p) and dag_size(p) <= 40
        for u in p.toposort():
            if u.op is Ops.PARAM:
                assert u.dtype is dtypes.i32
                if u.arg.bounds is None:
                    lows["none"] += 1
                    continue
                lo, hi = u.arg.bounds
                assert -(2**31) <= lo <= hi <= 2**31 - 1
                lows["neg" if lo < 0 else "zero" if lo == 0 else "pos"] += 1
    assert set(lows) == {"neg", "zero", "pos", "none"} and min(lows.values()) >= 20


def test_bound_kinds_draw_what_they_say():
    d = Draw(__import__("random").Random(0))
    for _ in range(50):
        assert d.bounds("nonneg")[0] == 0
        assert d.bounds("positive")[0] >= 1
        assert d.bounds("signed")[0] < 0 <= d.bounds("signed")[1]
        assert d.bounds("negative")[1] < 0
        assert d.bounds("unbounded") is None
    with pytest.raises(ValueError, match=r"^unknown bounds kind 'odd' \(expected one of nonneg, positive"):
        d.bounds("odd")
    assert set(BOUND_KINDS) == {"nonneg", "positive", "signed", "negative", "narrow", "wide", "unbounded"}


# ---------------------------------------------------------------------------
# inputs and the reference


def test_sample_inputs_enumerate_a_small_box_and_stay_inside_a_large_one():
    assert sample_inputs(P(0, 0, 2) + P(1, -1, 0), 10, "k") == [
        {0: 0, 1: -1},
        {0: 0, 1: 0},
        {0: 1, 1: -1},
        {0: 1, 1: 0},
        {0: 2, 1: -1},
        {0: 2, 1: 0},
    ]
    big = P(0, -100, 100) * P(1, 3, 900) + UOp.param(2, dtypes.i32)
    xs = sample_inputs(big, 50, "k")
    assert len(xs) == 50 and len({tuple(x.values()) for x in xs}) == 50
    assert all(-100 <= x[0] <= 100 and 3 <= x[1] <= 900 for x in xs)
    assert any(x[0] in (-100, 100) for x in xs) and sample_inputs(big, 50, "k") == xs


def test_no_overflow_results_need_only_agree_where_the_input_does_not_overflow():
    x = UOp.param(0, dtypes.i32)
    program = (x * 2**20) // 2**20  # equals x exactly where x * 2**20 does not overflow
    ref = Reference(program, sample_inputs(program, 200, "overflow"))
    assert ref.disagreement(x, "no_overflow") is None
    cex = ref.disagreement(x, "wrap")
    assert cex is not None and cex.got == cex.inputs[0] != cex.expected
    assert not -(2**11) <= cex.inputs[0] < 2**11  # where x * 2**20 wraps
    assert ref.defined("no_overflow") < ref.defined("wrap") == 200


def test_an_undefined_result_where_the_input_is_defined_is_a_disagreement():
    x = P(0, 0, 3)
    ref = Reference(x + 1, sample_inputs(x, 10, "k"))
    cex = ref.disagreement(UOp.const(4) // x, "wrap")
    assert (cex.inputs, cex.expected, cex.got) == ({0: 0}, 1, None)


@needs_tinygrad
def test_check_case_ranks_against_tinygrad_and_finds_unsound_results():
    case = generate(0, 0)  # (v0 // v1), v0 in [52, 59], v1 in [12, 13]: tinygrad folds it to 4
    r = check_case(case, identity, samples=50)
    assert (r.input_size, r.tinygrad_size, to_sexpr(r.tinygrad)) == (3, 1, "(const 4)")
    assert {s: (o.rank, o.size, o.unsound) for s, o in r.outcomes.items()} == {
        "no_overflow": ("larger", 3, False),
        "wrap": ("larger", 3, False),
    }
    assert r.tinygrad_rules == ("symbolic.py:257 ALU/variable min==max -> CONST",)
    bad = check_case(case, zero, ["wrap"], samples=50).outcomes["wrap"]
    assert (bad.rank, bad.counterexample.inputs, bad.counterexample.expected, bad.counterexample.got) == (
        "equal",  # a constant, as tinygrad's result is: sizes say nothing of soundness
        {0: 52, 1: 12},
        4,
        0,
    )


# ---------------------------------------------------------------------------
# attribution


@needs_tinygrad
def test_tinygrad_rules_name_the_patterns_and_the_divmod_folds():
    from eqsat_uopc.tinygrad.fuzz import significant, tinygrad_rules

    a, x = P(0, 0, 30), P(0, -20, 20)
    assert significant(tinygrad_rules((a * 6) // 9)) == ("divandmod.py: gcd_with_remainder",)
    assert significant(tinygrad_rules((P(0, 0, 40) * 13) % 12)) == ("divandmod.py: factor_remainder",)
    assert tinygrad_rules((x < 7).maximum((x < 7).ne(True)))[-1] == "symbolic.py:231 x|!x -> True"
    assert significant(("symbolic.py:113 x*1 -> x", "divandmod.py: nest_by_factor")) == (
        "divandmod.py: nest_by_factor",
    )
    # the trace leaves tinygrad as it was
    import tinygrad.uop.symbolic as symbolic_module

    assert "rewrite" not in vars(symbolic_module.symbolic)


@needs_tinygrad
def test_noise_names_patterns_of_the_pinned_tinygrad():
    import tinygrad.uop.symbolic as symbolic_module

    from eqsat_uopc.tinygrad.fuzz import NOISE
    from eqsat_uopc.tinygrad.fuzz.attribution import pattern_name

    places = {
        f"{pat.location[0].rsplit('/', 1)[-1]}:{pat.location[1]}": pat.location
        for pat, _ in symbolic_module.symbolic.patterns
    }
    assert set(NOISE) <= set(places)
    assert pattern_name(*places["symbolic.py:113"]) == "x*1 -> x"
    assert pattern_name(*places["symbolic.py:217"]) == "** COMMUTATIVE flipping (only for index) **"
    assert "fold_const_alu" in pattern_name(*places["symbolic.py:151"])


# ---------------------------------------------------------------------------
# the regression corpus format


def test_shape_key_ignores_names_values_and_bound_sizes_but_not_signs():
    a = (P(3, 0, 30) * 6) // 9
    assert shape_key(a) == "(floordiv (mul (var x0) (const +)) (const +)) x0:[0,+]"
    assert shape_key(a) == shape_key((P(0, 0, 5) * 10) // 4)
    assert shape_key(a) != shape_key((P(0, -1, 5) * 10) // 4)
    assert shape_key(a) != shape_key((P(0, 0, 5) * 1) // 4)


def _row(expr: str, bounds: dict, **extra) -> dict:
    return {
        "id": "fuzz/t/0-0",
        "expr": expr,
        "bounds": bounds,
        "template": "t",
        "seed": 0,
        "index": 0,
        "int_semantics": "no_overflow",
        "tinygrad_size": 1,
        "ours_size": 3,
        **extra,
    }


def test_append_regressions_writes_new_shapes_only(tmp_path):
    path = tmp_path / "reg.jsonl"
    rows = [
        _row("(floordiv (var v0) (var v1))", {"v0": [24, 29], "v1": [10, 11]}),
        _row("(floordiv (var v0) (var v1))", {"v0": [30, 35], "v1": [10, 11]}),  # the same shape
        _row("(floormod (var v0) (var v0))", {"v0": [1, 2]}),
    ]
    assert append_regressions(path, rows) == 2
    assert append_regressions(path, rows) == 0
    got = load_regressions(path)
    assert [(r.id, to_sexpr(r.program), r.ours_size) for r in got] == [
        ("fuzz/t/0-0", "(floordiv (var v0) (var v1))", 3),
        ("fuzz/t/0-0", "(floormod (var v0) (var v0))", 3),
    ]
    assert load_corpus(path)[0].bounds == ((24, 29), (10, 11))  # the corpus format itself


def test_load_regressions_names_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps(_row("(add (var v0) (const 1))", {}))
        + "\n"
        + json.dumps({"id": "x", "expr": "(var v0)"})
        + "\n"
    )
    with pytest.raises(CorpusError, match=r"^bad\.jsonl:2: entry has no 'template' field$"):
        load_regressions(path)
    path.write_text(json.dumps(_row("(add (var v0) (const 1))", {}, int_semantics="exact")) + "\n")
    with pytest.raises(
        CorpusError, match=r"^bad\.jsonl:1: int_semantics must be 'wrap' or 'no_overflow', got 'exact'$"
    ):
        load_regressions(path)


# ---------------------------------------------------------------------------
# the bundled regression corpus: every case, every run

# What each case's result is held to: no larger than tinygrad's (every case was larger when the
# fuzzer found it, before the index algebra); "ours_size" would hold it to its size when found.
BOUND = "tinygrad_size"

REGRESSIONS = load_regressions()


def test_the_bundled_corpus_is_well_formed():
    assert regressions_path().name == "tinygrad_fuzz.jsonl"
    assert 100 <= len(REGRESSIONS) <= 400
    assert len({r.id for r in REGRESSIONS}) == len(REGRESSIONS)
    assert len({shape_key(r.program) for r in REGRESSIONS}) == len(REGRESSIONS)
    assert {r.template for r in REGRESSIONS} <= set(TEMPLATES)
    for r in REGRESSIONS:
        assert r.ours_size > r.tinygrad_size == dag_size(r.tinygrad), r.id
        assert divisors_exclude_zero(r.program), r.id
        # the case it was shrunk from is what its (seed, index, template) draws
        assert to_sexpr(generate(r.seed, r.index, [r.template]).program) == r.row["original"], r.id
        # tinygrad's recorded result is right on the case
        ref = Reference(r.program, sample_inputs(r.program, 100, r.id))
        assert ref.disagreement(r.tinygrad, r.int_semantics) is None, r.id


@pytest.mark.parametrize("case", REGRESSIONS, ids=[r.id for r in REGRESSIONS])
def test_regression(case):
    from eqsat_uopc import optimize

    ours = optimize(case.program, "dag_size", int_semantics=case.int_semantics).program
    ref = Reference(case.program, sample_inputs(case.program, 100, case.id))
    cex = ref.disagreement(ours, case.int_semantics)
    assert cex is None, f"{case.id}: {to_sexpr(ours)} is wrong at {cex}"
    assert dag_size(ours) <= getattr(case, BOUND), f"{case.id}: {to_sexpr(ours)} ({dag_size(ours)} nodes)"


# ---------------------------------------------------------------------------
# campaigns, the docs' examples and the command line


DOCS = Path(__file__).resolve().parent.parent / "docs" / "fuzzing.md"


@needs_tinygrad
@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", DOCS.read_text()))))
def test_docs_example_runs(index):
    block = re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)[index]
    exec(compile(block, f"docs/fuzzing.md python block {index}", "exec"), {"__name__": "docs"})


@needs_tinygrad
def test_a_campaign_is_deterministic_and_summarizes_every_template():
    settings = FuzzSettings(
        seeds=(0,), count=6, templates=("identity", "combine-terms"), samples=20, shrink=False
    )
    a, b = fuzz(settings, identity).summary(), fuzz(settings, identity).summary()
    assert a == b
    assert a["expressions"] == 6 and set(a["per_template"]) == {"identity", "combine-terms"}
    assert sum(a["results"]["wrap"][k] for k in ("smaller", "equal", "larger", "no_tinygrad", "error")) == 6
    assert a["results"]["wrap"]["smaller"] == 0 and a["results"]["wrap"]["unsound"] == 0


@needs_tinygrad
def test_worker_processes_give_the_same_campaign():
    settings = FuzzSettings(
        seeds=(3,), count=6, templates=("divmod-gcd", "where-alu"), samples=20, shrink=False
    )
    alone = fuzz(settings, identity)
    pooled = fuzz(dataclasses.replace(settings, workers=2), identity)
    assert pooled.summary() == alone.summary()
    assert [r.outcomes["wrap"].program for r in pooled.results] == [r.case.program for r in alone.results]


@needs_tinygrad
def test_a_campaign_shrinks_larger_cases_into_regression_rows():
    settings = FuzzSettings(
        seeds=(0,), count=1, templates=("const-quotient",), samples=20, shrink_per_template=1
    )
    report = fuzz(settings, identity)
    assert len(report.shrunk) == 1 and len(report.regressions) == 1
    row = report.regressions[0]
    assert {
        k: row[k] for k in ("id", "expr", "bounds", "tinygrad", "ours", "tinygrad_size", "ours_size")
    } == {
        "id": "fuzz/const-quotient/0-0",
        "expr": "(floordiv (const 0) (const 1))",  # the identity "optimizer" misses even this
        "bounds": {},
        "tinygrad": "(const 0)",
        "ours": "(floordiv (const 0) (const 1))",
        "tinygrad_size": 1,
        "ours_size": 3,
    }
    assert row["int_semantics"] == "no_overflow" and row["original"] == "(floordiv (var v0) (var v1))"


def _stub_optimize(monkeypatch, fn):
    import eqsat_uopc.pipeline.optimization as optimization

    class Result:
        def __init__(self, program: UOp) -> None:
            self.program = program

    monkeypatch.setattr(optimization, "optimize", lambda p, cost, **kw: Result(fn(p, kw["int_semantics"])))


@needs_tinygrad
def test_cli_exits_1_when_optimize_is_unsound(monkeypatch, capsys):
    from eqsat_uopc.cli import main

    _stub_optimize(monkeypatch, zero)
    assert (
        main(["fuzz-tinygrad", "--count", "2", "--template", "identity", "--no-shrink", "--samples", "20"])
        == 1
    )
    assert capsys.readouterr().out == (
        "fuzz-tinygrad: 2 expressions (seeds 0, 2 each), 20 inputs per check\n"
        "  no_overflow smaller     0  equal     2  larger     0  no tinygrad   0  errors   0  unsound   1  "
        "at most tinygrad's 100.0%  smaller 0.0%\n"
        "  wrap        smaller     0  equal     2  larger     0  no tinygrad   0  errors   0  unsound   1  "
        "at most tinygrad's 100.0%  smaller 0.0%\n"
        "\n"
        "  per template (smaller/equal/larger/unsound): no_overflow, wrap\n"
        "  identity              0/   2/   0/1      0/   2/   0/1\n"
        "  UNSOUND 0:1 identity (no_overflow): (floordiv (var v2) (var v2)) {'v2': [1, 8]} -> (const 0) at "
        "{'v2': 1}: expected 1, got 0\n"
        "  UNSOUND 0:1 identity (wrap): (floordiv (var v2) (var v2)) {'v2': [1, 8]} -> (const 0) at "
        "{'v2': 1}: expected 1, got 0\n"
    )


@needs_tinygrad
def test_cli_json_summary(monkeypatch, tmp_path, capsys):
    from eqsat_uopc.cli import main

    _stub_optimize(monkeypatch, identity)
    out = tmp_path / "s.json"
    args = ["fuzz-tinygrad", "--seed", "0..1", "--count", "2", "--template", "identity,bool-identity"]
    assert main([*args, "--no-shrink", "--samples", "20", "--semantics", "wrap", "--json", str(out)]) == 0
    s = json.loads(out.read_text())
    assert s == {
        "count": 2,
        "expressions": 4,
        "int_semantics": ["wrap"],
        "minimized": [],
        "optimizer_errors": [],
        "per_template": {
            "identity": {
                "wrap": {"equal": 0, "error": 0, "larger": 2, "no_tinygrad": 0, "smaller": 0, "unsound": 0}
            },
            "bool-identity": {
                "wrap": {"equal": 0, "error": 0, "larger": 2, "no_tinygrad": 0, "smaller": 0, "unsound": 0}
            },
        },
        "regressions": 0,
        "regressions_written": 0,
        "results": {
            "wrap": {
                "at_most_tinygrad": 0.0,
                "equal": 0,
                "error": 0,
                "grew_input": 0,
                "larger": 4,
                "larger_by_rule": s["results"]["wrap"]["larger_by_rule"],
                "no_tinygrad": 0,
                "smaller": 0,
                "smaller_share": 0.0,
                "unsound": 0,
            }
        },
        "samples": 20,
        "seeds": [0, 1],
        "shrunk": 0,
        "shrink_dropped": 0,
        "templates": ["identity", "bool-identity"],
        "tinygrad_disagreements": [],
        "tinygrad_errors": 0,
        "unsound": [],
    }
    assert sum(s["results"]["wrap"]["larger_by_rule"].values()) >= 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "0"], "--count: got '0', allowed: an integer >= 1"),
        (["--count", "many"], "--count: got 'many', allowed: an integer >= 1"),
        (["--seed", "3..1"], "--seed: got '3..1', allowed: an integer >= 0 or a range A..B with 0 <= A <= B"),
        (["--seed", "-1"], "--seed: got '-1', allowed: an integer >= 0"),
        (["--workers", "0"], "--workers: got '0', allowed: an integer from 1 to 64"),
        (["--samples", "0"], "--samples: got '0', allowed: an integer from 1 to 100000"),
        (["--semantics", "exact"], "--semantics: got 'exact', allowed: both, no_overflow, wrap"),
        (["--shrink-per-template", "-1"], "--shrink-per-template: got '-1', allowed: an integer >= 0"),
        (["--shrink-budget", "0"], "--shrink-budget: got '0', allowed: an integer >= 1"),
        (
            ["--json", "/no/such/dir/s.json"],
            "--json: got '/no/such/dir/s.json', allowed: a file in an existing directory",
        ),
    ],
)
def test_cli_usage_errors_are_one_line_and_exit_2(args, message, capsys):
    from eqsat_uopc.cli import main

    assert main(["fuzz-tinygrad", *args]) == 2
    assert capsys.readouterr().err == f"eqsat-uopc: error: {message}\n"


def test_cli_names_the_templates_when_one_is_unknown(capsys):
    from eqsat_uopc.cli import main

    assert main(["fuzz-tinygrad", "--template", "identity,nope"]) == 2
    assert (
        capsys.readouterr().err
        == f"eqsat-uopc: error: --template: got 'nope', allowed: {', '.join(TEMPLATES)}\n"
    )


def test_cli_refuses_a_regressions_file_that_is_not_a_corpus(tmp_path, capsys):
    from eqsat_uopc.cli import main

    bad = tmp_path / "r.jsonl"
    bad.write_text("not json\n")
    assert main(["fuzz-tinygrad", "--regressions", str(bad)]) == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc: error: --regressions: got '{bad}', which is not a regression corpus: "
        "r.jsonl:1: column 1: not JSON: Expecting value\n"
    )
