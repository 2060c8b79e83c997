"""The soundness fuzzer: its draws at the int32 edges, the edge inputs, the checks (evaluator, z3,
crashes), shrinking and attribution, the command, and the regression corpus it ships.

The regression corpus (eqsat_uopc/corpus/data/soundness_fuzz.jsonl) holds minimized programs on which
`optimize` (its result check off: the rewrites themselves) returned a wrong program or raised when
the fuzzer found them. Every case runs here; the ones that still fail today are listed in
KNOWN_UNSOUND, and the test fails both when a case outside it fails and when a case inside it passes
(then it is fixed: take it out of the set).
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.fuzz.soundness import (
    BOUND_KINDS,
    TEMPLATES,
    Assignment,
    EdgeDraw,
    Reference,
    SoundnessSettings,
    append_cases,
    candidate_values,
    check_case,
    check_result,
    edge_inputs,
    families,
    fuzz_soundness,
    generate,
    load_cases,
    regressions_path,
    run_optimizer,
    shape_key,
    still_failing,
    template_names,
    wrap,
)
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import parse_uir, to_uir

V = UOp.param(0)  # any int32


def identity(program: UOp, int_semantics: str) -> UOp:
    """An optimizer that changes nothing: sound."""
    return program


def drop_remainders(program: UOp, int_semantics: str) -> UOp:
    """An optimizer that writes `x % c` as x: unsound wherever x is outside [0, c)."""
    return program.substitute({u: u.src[0] for u in program.toposort() if u.op is Ops.FLOORMOD})


def raises(program: UOp, int_semantics: str) -> UOp:
    return UOp.const(2**31)  # the crash of the issue: a constant one past int32


# ---------------------------------------------------------------------------
# the grammar


def test_generate_is_deterministic_per_seed_index_and_template():
    assert generate(3, 17).program is generate(3, 17).program
    full = generate(3, 17)
    assert generate(3, 17, [full.template]).program is full.program  # a filter does not change a case
    assert sum(generate(0, i).program is not generate(1, i).program for i in range(60)) >= 55


def test_every_template_is_drawn_in_order_and_names_its_family():
    names = template_names()
    assert len(names) == len(TEMPLATES) == 49
    assert [generate(0, i).template for i in range(len(names))] == list(names)
    assert set(families()) == {
        "linear/divmod",
        "linear/compare",
        "linear/sums",
        "linear/conditions",
        "piecewise",
        "generic",
        *(
            f"egglog/{f}"
            for f in [
                "divmod",
                "recombination",
                "offsets",
                "divisibility",
                "digits",
                "comparisons",
                "minmax",
                "boolean",
                "linear",
                "intervals",
                "identities",
                "distribution",
                "fold",
            ]
        ),
    }
    assert families()["linear/divmod"] == (
        "divmod-const-quotient",
        "divmod-nested-mod",
        "divmod-cancelling-offsets",
        "divmod-congruence",
        "divmod-gcd",
        "divmod-nest-by-factor",
        "divmod-reduce-coefficients",
        "divmod-constant-into-range",
        "divmod-merged-division",
        "divmod-negative-divisor",
        "divmod-var-nested-mod",
        "divmod-var-linear-multiple",
        "divmod-var-symbolic-gcd",
        "divmod-var-exact-multiples",
    )


def test_unknown_template_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^unknown template 'nope' \(expected one of cmp-decided, "):
        generate(0, 0, ["nope"])
    with pytest.raises(ValueError, match=r"^generate: no templates to draw from$"):
        generate(0, 0, [])


def _kind(u: UOp) -> str:
    if u.op is Ops.RANGE:
        return "range"
    b = u.arg.bounds
    if b is None:
        return "unbounded"
    if b[0] == I32_MIN or b[1] == I32_MAX:
        return "touches an end"
    return "small" if -100 <= b[0] <= b[1] <= 100 else "other"


def test_every_template_draws_unbounded_inputs_inputs_touching_an_end_ranges_and_small_ones():
    for name in template_names():
        kinds = Counter()
        for i in range(40):
            p = generate(0, i, [name]).program
            assert len(p.toposort()) <= 48 and p.op not in (Ops.CONST, Ops.PARAM, Ops.RANGE)
            kinds.update(
                _kind(u) for u in p.toposort() if u.op in (Ops.PARAM, Ops.RANGE) and u.dtype is dtypes.i32
            )
        assert {"unbounded", "touches an end", "range", "small"} <= set(kinds), (name, kinds)


def test_the_templates_draw_constants_and_divisors_at_the_int32_edges_of_either_sign():
    consts, divisors = set(), set()
    for name in template_names():
        for i in range(12):
            for u in generate(1, i, [name]).program.toposort():
                if u.op is Ops.CONST and u.dtype is dtypes.i32:
                    consts.add(u.arg)
                if u.op in (Ops.FLOORDIV, Ops.FLOORMOD) and u.src[1].op is Ops.CONST:
                    divisors.add(u.src[1].arg)
    assert {I32_MIN, I32_MIN + 1, I32_MAX, I32_MAX - 1, 2**30, -(2**30), 2**16, -(2**16), 46341} <= consts
    assert {I32_MIN, I32_MAX, -I32_MAX, 2**30, -(2**30), 1, -1, 2, -2, 3, -3} <= divisors


def test_bound_kinds_draw_what_they_say():
    import random

    d = EdgeDraw(random.Random(0))
    for _ in range(30):
        assert d.bounds("touch-min")[0] == I32_MIN and d.bounds("touch-max")[1] == I32_MAX
        lo, hi = d.bounds("near-max")
        assert I32_MAX - 2**20 - 100 <= lo <= hi <= I32_MAX
        assert d.bounds("unbounded") is None
        assert d.divisor() != 0 and d.coef() != 0
    with pytest.raises(
        ValueError, match=r"^unknown bounds kind 'odd' \(expected one of unbounded, touch-min"
    ):
        d.bounds("odd")
    assert set(BOUND_KINDS) == {
        "unbounded",
        "touch-min",
        "touch-max",
        "near-min",
        "near-max",
        "around-2**30",
        "around-2**16",
        "small",
        "point",
        "range",
    }
    assert (wrap(2**31), wrap(-(2**31) - 1), wrap(5)) == (I32_MIN, I32_MAX, 5)


# ---------------------------------------------------------------------------
# edge inputs


def test_an_unbounded_input_is_tested_at_the_int32_edges_and_around_the_programs_constants():
    values = candidate_values(V, [6])
    assert {I32_MIN, I32_MIN + 1, I32_MAX, I32_MAX - 1, 0, 1, -1, 2**30, -(2**16), 6, -6, 5, 7} <= set(values)
    assert I32_MAX - 5 in values  # where v + 6 wraps
    bounded = UOp.param(0, bounds=(-3, 10))
    assert candidate_values(bounded, [6]) == [-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert candidate_values(UOp.range(16, "r"), []) == [0, 1, 2, 3, 7, 13, 14, 15]
    assert candidate_values(UOp.param(1, dtypes.bool), []) == [False, True]


def test_edge_inputs_walk_each_input_then_combine_them_deterministically():
    p = (V + UOp.param(1, bounds=(0, 3))) % UOp.range(4, "r") + UOp.param(2, dtypes.bool).cast(dtypes.i32)
    xs = edge_inputs(p, 40, "k")
    assert len(xs) == 40 and len({a.key() for a in xs}) == 40 and edge_inputs(p, 40, "k") == xs
    assert xs[0] == Assignment({0: 1, 1: 1, 2: True}, {"r": 1})
    assert all(0 <= a.params[1] <= 3 and 0 <= a.ranges["r"] <= 3 for a in xs)
    assert {I32_MIN, I32_MAX} <= {a.params[0] for a in xs}
    assert Assignment({0: 5}, {"r": 2}).to_dict() == {"v0": 5, "r": 2}


# ---------------------------------------------------------------------------
# checks


def _ref(program: UOp, sem: str, samples: int = 64) -> Reference:
    return Reference(program, sem, edge_inputs(program, samples, "t"))


def test_the_issues_wrong_results_are_refuted_at_the_int32_edge_by_the_tests():
    for program, wrong, at in [
        (((V + 1) % 6 - 1) % 3, V % 3, I32_MAX),
        (((V + 2) // 2 - 1) // 3, V // 6, I32_MAX - 1),
    ]:
        v = check_result(program, wrong, _ref(program, "wrap"))
        assert v.status == "unsound" and v.counterexample.found_by == "tests"
        assert v.counterexample.kind == "value" and v.counterexample.inputs.params == {0: at}
    w = UOp.param(0, bounds=(0, 100))
    v = check_result((w + 2147483647) % 6 - w, UOp.const(1), _ref((w + 2147483647) % 6 - w, "wrap"))
    assert v.status == "unsound"
    r = UOp.range(1024, "r")
    program = (r + 2**30) // 6 * 6 + (r + 2**30) % 6
    v = check_result(program, r, _ref(program, "no_overflow"))
    assert (
        v.status == "unsound"
        and v.counterexample.to_dict()["expected"] - v.counterexample.to_dict()["got"] == 2**30
    )
    assert check_result(((V + 1) % 6 - 1) % 3, ((V + 1) % 6 - 1) % 3, _ref(V, "wrap")).status == "identical"


def test_under_no_overflow_a_result_may_not_overflow_where_the_program_does_not():
    program = V + 0 * V  # defined everywhere
    v = check_result(program, (V + 1) + -1, _ref(program, "no_overflow"))
    assert v.status == "unsound" and v.counterexample.kind == "undefined"
    assert v.counterexample.to_dict() == {
        "inputs": {"v0": I32_MAX},
        "expected": I32_MAX,
        "got": None,
        "kind": "undefined",
        "found_by": "tests",
    }
    assert check_result(program, (V + 1) + -1, _ref(program, "wrap")).status == "proved"  # wraps back
    # where the program itself overflows, any result will do
    assert check_result(V * 2 // 2, V, _ref(V * 2 // 2, "no_overflow")).status == "proved"


def test_z3_finds_what_the_edge_inputs_miss_and_an_unknown_is_counted_apart():
    program = V * 3
    wrong = (V.ne(123_456_789)).where(V * 3, 0)
    one_input = Reference(program, "wrap", [Assignment({0: 1}, {})])
    v = check_result(program, wrong, one_input)
    assert (v.status, v.z3, v.counterexample.found_by) == ("unsound", "refuted", "z3")
    assert v.counterexample.inputs.params == {0: 123_456_789}
    right = V + V + V
    assert check_result(program, right, one_input).status == "proved"
    hard = check_result(program * V, right * V, one_input, rlimit=1)
    assert (hard.status, hard.z3) == ("tested", "unknown")


def test_a_crash_is_a_failure_with_its_error_and_its_site():
    v = run_optimizer(raises, V % 3, "wrap", _ref(V % 3, "wrap"))
    assert v.status == "crash" and v.failed
    assert v.error == "UOpError: CONST i32 value 2147483648 is outside the int32 range"
    assert re.fullmatch(r"eqsat_uopc/fuzz/soundness/check\.py:\d+ in run_optimizer", v.where)


def test_check_case_checks_every_optimizer_under_every_semantics():
    case = generate(0, 3)
    r = check_case(case, {"same": identity, "bad": drop_remainders}, samples=20)
    assert set(r.verdicts) == {"same", "bad"} and set(r.verdicts["same"]) == {"wrap", "no_overflow"}
    assert {v.status for v in r.verdicts["same"].values()} == {"identical"}
    assert r.samples == 20


# ---------------------------------------------------------------------------
# campaigns, shrinking, the corpus format


def test_a_campaign_of_a_sound_optimizer_finds_nothing():
    report = fuzz_soundness(SoundnessSettings(count=6, samples=16), {"same": identity})
    s = report.summary()
    assert s["expressions"] == 6 and s["failures"] == [] and s["regressions"] == []
    assert s["results"]["same"]["wrap"]["identical"] == 6
    assert sum(s["per_template"][t]["same"]["no_overflow"]["identical"] for t in s["templates"]) == 6


def test_a_campaign_shrinks_each_failure_to_a_small_case_that_still_fails():
    settings = SoundnessSettings(
        count=5, templates=("divmod-congruence",), semantics=("wrap",), samples=24, shrink_budget=60
    )
    report = fuzz_soundness(settings, {"bad": drop_remainders})
    s = report.summary()
    assert s["results"]["bad"]["wrap"]["unsound"] >= 1 and s["shrunk"] >= 1
    for shrunk in report.shrunk:
        assert shrunk.program.size <= 5 and shrunk.failure == "unsound"
        assert still_failing(shrunk.program, drop_remainders, "wrap", "unsound") is not None
    row = s["regressions"][0]
    assert set(row) >= {"id", "program", "int_semantics", "failure", "result", "counterexample", "suspect"}
    assert parse_uir(row["program"]).op is Ops.FLOORMOD


def test_the_corpus_file_round_trips_and_deduplicates_by_shape(tmp_path):
    row = {
        "id": "soundness/x/0-1/wrap",
        "program": to_uir(((V + 2) % 6 + -2) % 3),
        "int_semantics": "wrap",
        "failure": "unsound",
    }
    path = tmp_path / "c.jsonl"
    near = dict(row, id="soundness/x/0-2/wrap", program=to_uir(((V + 5) % 7 + -4) % 3))
    assert append_cases(path, [row, near]) == 1  # one shape: small constants alike
    assert append_cases(path, [row]) == 0
    other = dict(row, program=to_uir((V + 2) % -(2**31)))  # the same id, drawn by another grammar
    assert append_cases(path, [other, other]) == 1
    assert [c.id for c in load_cases(path)] == ["soundness/x/0-1/wrap", "soundness/x/0-1/wrap~2"]
    path.write_text(path.read_text().splitlines()[0] + "\n")
    (case,) = load_cases(path)
    assert case.program is ((V + 2) % 6 + -2) % 3 and case.line == 1
    assert shape_key(V % 3, "wrap", "unsound") != shape_key(V % I32_MAX, "wrap", "unsound")
    path.write_text(json.dumps(dict(row, failure="slow")) + "\n")
    with pytest.raises(CorpusError, match=r"^c\.jsonl:1: failure must be 'unsound' or 'crash', got 'slow'$"):
        load_cases(path)
    path.write_text(json.dumps(dict(row, program="%0 = add 1")) + "\n")
    with pytest.raises(CorpusError, match=r"^c\.jsonl:1: program: line 1"):
        load_cases(path)


# ---------------------------------------------------------------------------
# the command


def _cli(monkeypatch, optimizers, *args):
    import eqsat_uopc.cli.fuzz_soundness as command
    from eqsat_uopc.cli import main

    monkeypatch.setattr(command, "optimizers", lambda: optimizers)
    return main(["fuzz-soundness", "--memory-limit", "0", *args])  # in this process: the stubs are here


def test_fuzz_soundness_command_reports_and_exits_0_when_everything_is_sound(monkeypatch, capsys, tmp_path):
    out = tmp_path / "s.json"
    code = _cli(monkeypatch, {"rewrites": identity}, "--count", "5", "--samples", "8", "--out", str(out))
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.startswith(
        "fuzz-soundness: 5 expressions (seeds 0, 5 each), 8 edge inputs per check, z3 rlimit"
    )
    assert (
        "    wrap        identical     5  proved     0  z3 unknown    0  unsound    0 (undefined 0)"
        in captured.out
    )
    # off a terminal, a line at every tenth of each phase (5 expressions under 2 semantics: 10 checks)
    assert captured.err == "".join(f"fuzz-soundness: check {k}/10\n" for k in range(1, 11))
    summary = json.loads(out.read_text())
    assert summary["results"]["rewrites"]["no_overflow"]["identical"] == 5 and summary["failures"] == []


def test_fuzz_soundness_command_exits_1_on_a_failure_and_writes_the_failures(monkeypatch, capsys, tmp_path):
    log = tmp_path / "failures.jsonl"
    args = ["--count", "5", "--template", "divmod-congruence", "--int-semantics", "wrap", "--samples", "16"]
    code = _cli(monkeypatch, {"rewrites": drop_remainders}, *args, "--failures", str(log), "--json")
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["int_semantics"] == ["wrap"] and summary["failures"]
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows and all(r["failure"] == "unsound" and r["template"] == "divmod-congruence" for r in rows)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "0"], "argument --count: expected an integer >= 1, got '0'"),
        (
            ["--seed", "3..1"],
            "argument --seed: expected an integer >= 0 or a range A..B with 0 <= A <= B, got '3..1'",
        ),
        (
            ["--template", "nope"],
            "argument --template: expected comma-separated templates from cmp-decided, ",
        ),
        (["--int-semantics", "exact"], "argument --int-semantics: invalid choice: 'exact'"),
        (["--workers", "65"], "argument --workers: expected an integer from 1 to 64, got '65'"),
    ],
)
def test_fuzz_soundness_command_refuses_bad_options_in_one_line(monkeypatch, capsys, args, message):
    with pytest.raises(SystemExit) as e:
        _cli(monkeypatch, {"rewrites": identity}, *args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1
    assert err.startswith(f"eqsat-uopc fuzz-soundness: error: {message}")


def test_fuzz_soundness_command_refuses_an_output_file_in_a_missing_directory(monkeypatch, capsys, tmp_path):
    code = _cli(monkeypatch, {"rewrites": identity}, "--out", str(tmp_path / "no" / "s.json"))
    assert code == 2
    assert capsys.readouterr().err == (
        f"eqsat-uopc fuzz-soundness: error: argument --out: expected a file in an existing directory, "
        f"got '{tmp_path / 'no' / 's.json'}' (see 'eqsat-uopc fuzz-soundness --help')\n"
    )


# ---------------------------------------------------------------------------
# the regression corpus: every case runs, with optimize's result check off

# the cases that fail today: none. The last 13 (all under no_overflow) were results whose own
# intermediates left int32 where none of the input's did (distributing a constant over a sum,
# -1 * (1 + p0) -> p0*-1 + -1 at p0 = -2**31; reassociating a sum, p0 + (p0 - 1) -> (p0 + p0) - 1 at
# p0 = 2**30; negating both sides of a comparison), which extraction under no_overflow no longer
# chooses (saturation/admissible.py). A case that fails must be fixed, or listed here with why.
KNOWN_UNSOUND: set[str] = set()

CASES = load_cases()


def test_the_bundled_corpus_is_what_its_readme_says():
    readme = (regressions_path().parent / "README.md").read_text()
    assert f"## soundness_fuzz.jsonl\n\n{len(CASES)} minimized programs" in readme
    assert len({c.id for c in CASES}) == len(CASES) and {c.id for c in CASES} >= KNOWN_UNSOUND


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_soundness_regression(case):
    from eqsat_uopc.cli.fuzz_soundness import rewrites_optimizer

    ref = _ref(case.program, case.int_semantics, 48)
    verdict = run_optimizer(rewrites_optimizer, case.program, case.int_semantics, ref)
    if case.id in KNOWN_UNSOUND:
        assert verdict.failed, f"{case.id} is sound now ({verdict.status}): take it out of KNOWN_UNSOUND"
    else:
        assert verdict.status in ("identical", "proved", "tested"), verdict.to_dict()


# ---------------------------------------------------------------------------
# what the command checks: optimize with its result check off and on


def test_the_command_checks_the_rewrites_and_the_validated_optimize_from_one_call(monkeypatch):
    from types import SimpleNamespace

    import eqsat_uopc.pipeline.optimization as optimization
    from eqsat_uopc.cli.fuzz_soundness import optimizers, rewrites_optimizer, validation_setting

    assert validation_setting() == "validate" and set(optimizers()) == {"rewrites", "validated"}
    program = ((V + 3) % 7 + -3) % 7
    for sem in ("wrap", "no_overflow"):  # read off a validated call, the rewrites' result is optimize's own
        assert optimizers()["rewrites"](program, sem) is rewrites_optimizer(program, sem)
    calls = []

    def refuting(p, cost, *, int_semantics, validate):  # a validated call that refuted its extraction
        calls.append(validate)
        wrong = SimpleNamespace(candidate="extracted", program=V % 7)
        return SimpleNamespace(program=p, validation=SimpleNamespace(replaced=(wrong,)))

    monkeypatch.setattr(optimization, "optimize", refuting)
    both = optimizers()
    assert (both["rewrites"](V * 5, "wrap"), both["validated"](V * 5, "wrap")) == (V % 7, V * 5)
    assert calls == [True]  # one call for both
