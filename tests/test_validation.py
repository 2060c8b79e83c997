"""Translation validation (issue 37): optimize never returns a refuted program, whatever the rewrites
do; the verdicts, their one-line texts, the fallback chain, the switch, compare and the CLI."""

import dataclasses
import json
import re

import pytest
from eqsat_uopc.rules import rule_set

from eqsat_uopc import Ops, UOp, compare, dtypes, optimize, to_uir
from eqsat_uopc.cli import main
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN
from eqsat_uopc.saturation.result import Saturation
from eqsat_uopc.semantics.evaluation import evaluate
from eqsat_uopc.verify import Validation, check_equivalent, prove_equivalent, validate, validate_candidates

v = UOp.param(0)
r = UOp.range(1024, "r")
MS = r"\d+ ms"

# the three wrong results of issue 37: refuted at v = 2**31 - 1, at v = 2**31 - 2, at every r
WRONG_TODAY = [
    (((v + 1) % 6 - 1) % 3, "wrap", v % 3),
    (((v + 2) // 2 - 1) // 3, "wrap", v // 6),
    ((r + 2**30) // 6 * 6 + (r + 2**30) % 6, "no_overflow", r),
]
SOURCE = ((v + 1) % 6 - 1) % 3  # wrap: equal to v % 3 except at v = 2**31 - 1, where v + 1 wraps


def inject(monkeypatch, extracted=None, greedy=None):
    """Make saturation's extraction (and the greedy seed) return these programs: a wrong candidate
    exercises the fallback chain however the rewrites behave."""
    original = Saturation.extract

    def extract(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        return result if extracted is None else dataclasses.replace(result, programs=(extracted,))

    monkeypatch.setattr(Saturation, "extract", extract)
    if greedy is not None:
        monkeypatch.setattr(Saturation, "seed", property(lambda self: greedy))


# -- optimize: the issue's wrong results


@pytest.mark.parametrize(("program", "semantics", "wrong"), WRONG_TODAY)
def test_the_issues_wrong_results_are_never_returned(program, semantics, wrong):
    # today the rewrites produce `wrong` and validation replaces it; once they are fixed, the
    # extracted program is proved and nothing is replaced: either way the result is right
    result = optimize(program, int_semantics=semantics)
    assert prove_equivalent(wrong, program, semantics, refinement=True).status == "refuted"
    assert prove_equivalent(program, result.program, semantics, refinement=True).status == "proved"
    assert result.program is not wrong
    validation = result.validation
    assert validation.status in ("proved", "identical")
    for replaced in validation.replaced:  # what was refuted: its counterexample replays
        assert replaced.validation.status == "refuted" and replaced.candidate in ("extracted", "greedy")
        cex = replaced.validation.counterexample
        params = {k: val for k, val in cex.items() if isinstance(k, int)}
        ranges = {k.split("'")[1]: val for k, val in cex.items() if isinstance(k, str)}
        before = evaluate(program, params, ranges, semantics)
        after = evaluate(replaced.program, params, ranges, semantics)
        assert before.defined and (not after.defined or after.value != before.value)
        assert replaced.validation.values == (before.value, after.value if after.defined else None)
    if validation.replaced:
        assert str(validation).startswith("REFUTED the extracted program at ")
        assert str(validation).endswith("; a bug of eqsat-uopc's rewrites")


def test_an_extracted_program_refuted_is_replaced_by_greedys_result(monkeypatch):
    inject(monkeypatch, extracted=v % 3)
    result = optimize(SOURCE)
    greedy = result.saturation.seed
    assert greedy is not SOURCE and result.program is greedy  # greedy folds `- 1`, the input's `+ 1 * -1`
    assert prove_equivalent(SOURCE, greedy, refinement=True).status == "proved"
    val = result.validation
    assert (val.status, val.check, val.candidate) == ("proved", "z3, bit-vectors", "greedy")
    [refuted] = val.replaced
    assert (refuted.candidate, refuted.program) == ("extracted", v % 3)
    assert (refuted.validation.status, refuted.validation.counterexample, refuted.validation.values) == (
        "refuted",
        {0: I32_MAX},
        (0, 1),
    )
    assert re.fullmatch(
        rf"REFUTED the extracted program at p0 = 2147483647: input = 0, extracted = 1 \(z3, bit-vectors\): "
        rf"returned greedy's result instead, proved \(z3, bit-vectors, {MS}\); "
        rf"a bug of eqsat-uopc's rewrites",
        str(val),
    )
    # the replacement's own cost and e-graph choice, no optimality claim
    assert (result.cost, result.optimal, result.bound) == (9, None, None)
    assert result.saturation.egraph.choice_of((greedy,)) == dict(result.choice)


def test_extracted_and_greedy_refuted_return_the_input(monkeypatch):
    wrong_greedy = v.ne(I32_MAX - 1).where(SOURCE, SOURCE + 1)  # wrong at v = 2**31 - 2 only
    inject(monkeypatch, extracted=v % 3, greedy=wrong_greedy)
    result = optimize(SOURCE)
    assert result.program is SOURCE and result.cost == 10
    val = result.validation
    assert (val.status, val.candidate, [r.candidate for r in val.replaced]) == (
        "identical",
        "input",
        ["extracted", "greedy"],
    )
    assert [r.validation.counterexample for r in val.replaced] == [{0: I32_MAX}, {0: I32_MAX - 1}]
    assert re.fullmatch(
        r"REFUTED the extracted program at p0 = 2147483647: input = 0, extracted = 1 \(z3, bit-vectors\); "
        r"greedy's result at p0 = 2147483646: input = 0, greedy = 1 \(z3, bit-vectors\): returned the "
        r"input instead; a bug of eqsat-uopc's rewrites",
        str(val),
    )


def test_validation_is_on_by_default_and_can_be_switched_off(monkeypatch):
    inject(monkeypatch, extracted=v % 3)
    off = optimize(SOURCE, validate=False)  # the rewrites themselves, unchecked (the soundness fuzzer's view)
    assert off.program is v % 3
    assert (off.validation.status, str(off.validation)) == (
        "not_attempted",
        "not attempted (validation is off: validate=False)",
    )
    monkeypatch.undo()
    x = UOp.param(0)
    best = optimize((x * 4 + 8) // 4, int_semantics="no_overflow")
    assert (best.program, best.validation.status, best.validation.check) == (x + 2, "proved", "z3, integers")
    assert optimize(x).validation.status == "identical"


def test_every_pulse_and_the_result_of_all_of_them_are_validated_once_against_the_input(monkeypatch):
    import eqsat_uopc.pipeline.optimization as optimization

    calls = []
    original = optimization.validate_candidates

    def counting(source, candidates, *args, **kwargs):
        calls.append((source, [label for label, _ in candidates]))
        return original(source, candidates, *args, **kwargs)

    monkeypatch.setattr(optimization, "validate_candidates", counting)
    b0, b1, b2 = (UOp.param(k, bounds=(0, 100)) for k in range(3))  # sums that may be reassociated
    p = (((b0 + 1) + (b1 + 2)) + (b2 + 3)) < (((b2 + 3) + (b0 + 1)) + b1)
    rules = rule_set("default").without("linear")
    result = optimize(p, node_budget=100, rules=rules, int_semantics="no_overflow", pulses=4)
    assert len(result.info["pulses"]) == 2 and result.program is UOp.const(False)
    assert calls == [(p, ["extracted", "greedy"])]
    assert result.validation.status == "proved"


def test_f32_and_tensor_programs_are_validated_through_the_evaluator():
    f = UOp.param(0, dtypes.f32)
    result = optimize(f * 1.0 + 0.0)  # x * 1.0 -> x is exact; x + 0.0 -> x is wrong at -0.0: kept
    assert result.program is f + 0.0
    assert (result.validation.status, result.validation.check, result.validation.compared) == (
        "tested",
        "evaluator",
        256,
    )
    t = UOp.param(0, dtypes.i32, (3,))
    tensor = optimize((t * 1 + 0).reduce(Ops.ADD))
    assert (tensor.validation.status, tensor.validation.check) == ("proved", "z3, bit-vectors")
    assert str(optimize(f * 2.0 * 0.5).validation) == "identical (the result is the input: nothing to check)"


# -- validate: the verdicts


def test_verdicts_and_their_lines():
    x = UOp.param(0)
    assert str(validate(x, x)) == "identical (the result is the input: nothing to check)"
    proved = validate((x * 4 + 8) // 4, x + 2, "no_overflow")
    assert (proved.status, proved.check, proved.candidate) == ("proved", "z3, integers", "result")
    assert re.fullmatch(rf"proved \(z3, integers, {MS}\)", str(proved))
    refuted = validate(SOURCE, v % 3, "wrap", candidate="extracted")
    assert re.fullmatch(
        rf"refuted at p0 = 2147483647: input = 0, extracted = 1 \(z3, bit-vectors, {MS}\)", str(refuted)
    )
    # defined nowhere: proved, and vacuous
    vacuous = validate(x // 0, UOp.const(5))
    assert re.fullmatch(
        rf"proved \(z3, bit-vectors, {MS}; vacuous: the input is undefined everywhere\)", str(vacuous)
    )


def test_under_no_overflow_a_new_overflow_is_refuted():
    x, y = UOp.param(0), UOp.param(1)
    source, merged = (y + x * 3) + x * 2, y + x * 5  # x * 5 may overflow where y + 5x fits
    val = validate(source, merged, "no_overflow")
    assert (val.status, val.check, val.values[1]) == ("refuted", "z3, integers", None)
    cex = val.counterexample
    assert abs(cex[0] * 5) > I32_MAX and I32_MIN <= cex[1] + 5 * cex[0] <= I32_MAX
    assert validate(source, merged, "wrap").status == "proved"  # a ring identity under wrap
    assert validate(merged, source, "no_overflow").status == "proved"  # y + 3x lies between y and y + 5x
    assert validate(x * 3 + x * 2, x * 5, "no_overflow").status == "proved"  # the sum is 5x: it fits


def test_where_z3_gives_up_the_evaluator_decides_on_edge_and_random_inputs():
    x, y = UOp.param(0), UOp.param(1)
    hard = ((x * y) // (x + y)) * (x + y) + (x * y) % (x + y)
    tested = validate(hard, x * y, rlimit=1000)
    assert (tested.status, tested.check, tested.compared) == ("tested", "evaluator", 251)
    assert re.fullmatch(
        rf"tested \(z3, bit-vectors undecided at rlimit 1,000: max\. resource limit exceeded; "
        rf"the evaluator agreed on 251 inputs, {MS}\)",
        str(tested),
    )
    assert validate(hard, x * y, rlimit=1000).compared == tested.compared  # deterministic
    # wrong only at an edge (2**31 - 1): found by the edge inputs, which come first
    refuted = validate(SOURCE, v % 3, rlimit=1)
    assert (refuted.status, refuted.check, refuted.counterexample, refuted.values) == (
        "refuted",
        "evaluator",
        {0: I32_MAX},
        (0, 1),
    )
    # a bounded input's ends are edges too
    b = UOp.param(0, dtypes.i32, bounds=(-7, 1000))
    assert validate(b + 0, b.ne(1000).where(b, 0), rlimit=1).counterexample == {0: 1000}
    assert validate(b + 0, b.ne(-7).where(b, 0), rlimit=1).counterexample == {0: -7}
    # RANGEs at both ends
    assert validate(r + 0, r.ne(1023).where(r, 0), rlimit=1).counterexample == {"range 'r'": 1023}
    # the source defined on no input tried: unknown (at rlimit 1 z3's simplify spends the budget
    # before it sees that v // 0 is undefined everywhere; with a budget it proves that: vacuous)
    unknown = validate(v // ((v * v) % 1), UOp.const(5), rlimit=1)
    assert (unknown.status, unknown.compared) == ("unknown", 0)
    undefined = validate(v // 0, UOp.const(5), rlimit=1)
    assert (undefined.status, undefined.compared, undefined.detail) == (
        "unknown",
        0,
        "z3, bit-vectors undecided at rlimit 1: max. resource limit exceeded",
    )
    assert validate(v // 0, UOp.const(5), rlimit=1000).detail == "the input is undefined everywhere"


def test_f32_is_tested_with_signed_zero_nan_and_infinities():
    f = UOp.param(0, dtypes.f32)
    assert validate(f * 1.0, f).status == "tested"
    wrong = validate(f + 0.0, f)  # x + 0.0 is +0.0 at x = -0.0
    assert (wrong.status, wrong.check, wrong.counterexample, wrong.values) == (
        "refuted",
        "evaluator",
        {0: -0.0},
        (0.0, -0.0),
    )
    assert re.fullmatch(
        rf"tested \(f32, not proved: inputs with \+-0\.0, NaN and infinities among them; the evaluator "
        rf"agreed on 256 inputs, {MS}\)",
        str(validate(f * 1.0, f)),
    )


def test_validate_candidates_skips_missing_and_repeated_candidates():
    x = UOp.param(0)
    known = {x + 1: Validation("refuted", "wrap", "z3, bit-vectors", counterexample={0: 1}, values=(1, 2))}
    chosen, val = validate_candidates(
        x * 1, [("measured", x + 1), ("greedy", None), ("other", x + 1)], "wrap", known=known
    )
    assert chosen is x * 1 and [r.candidate for r in val.replaced] == ["measured"]
    assert val.candidate == "input" and val.status == "identical"


def test_check_equivalent_answers_vacuous_when_nothing_can_be_compared():
    x = UOp.param(0)
    verdict = check_equivalent(x // 0, UOp.const(5), samples=20)
    assert (verdict.status, verdict.equivalent) == ("vacuous", None)
    assert verdict.check("z3").status == "vacuous"
    assert verdict.check("reference").status == "not_run"


# -- compare


def test_compare_shows_the_validation_and_counts_replacements(monkeypatch):
    inject(monkeypatch, extracted=v % 3)
    c = compare(SOURCE, samples=10)
    assert c.validation.status == "proved" and c.saturated is c.extraction.program
    row = c.to_dict()
    assert (
        row["validation"],
        row["validation_check"],
        row["validation_returned"],
        row["validation_replaced"],
    ) == (
        "proved",
        "z3, bit-vectors",
        "greedy",
        1,
    )
    assert c.verdict.status == "proved"  # the returned program is right
    assert any(
        line.startswith("  validated: REFUTED the extracted program at p0 = 2147483647")
        for line in str(c).splitlines()
    )
    from eqsat_uopc.pipeline.comparison import summarize

    summary = summarize([{"key": "a", **row}, {"key": "b", **row, "validation_replaced": 0}])
    assert (summary["validation"], summary["validation_replaced"]) == ({"proved": 2}, 1)


# -- the command line


def test_cli_optimize_prints_the_validation(tmp_path, capsys, monkeypatch):
    path = tmp_path / "p.uir"
    path.write_text(to_uir(SOURCE))
    inject(monkeypatch, extracted=v % 3)
    assert main(["optimize", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        rf"# validated: REFUTED the extracted program at p0 = 2147483647: input = 0, extracted = 1 "
        rf"\(z3, bit-vectors\): returned greedy's result instead, proved \(z3, bit-vectors, {MS}\); "
        rf"a bug of eqsat-uopc's rewrites",
        out[out.index(next(x for x in out if x.startswith("# cost"))) + 1],
    )
    assert main(["optimize", str(path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["validation"]
    assert (got["status"], got["candidate"], got["replaced"][0]["counterexample"]) == (
        "proved",
        "greedy",
        {"p0": I32_MAX},
    )
    assert got["replaced"][0]["program"] == to_uir(v % 3)
    assert main(["optimize", str(path), "--validate", "no"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["%0 = param : slot=0 dtype=i32", "%1 = floormod %0, 3"]
    assert "# validated: not attempted (validation is off: validate=False)" in out


def test_cli_compare_of_one_file_exits_1_when_validation_replaced_a_result(tmp_path, capsys, monkeypatch):
    path = tmp_path / "p.uir"
    path.write_text(to_uir(SOURCE))
    inject(monkeypatch, extracted=v % 3)
    assert main(["compare", str(path), "--samples", "5"]) == 1
    assert "  validated: REFUTED the extracted program at p0 = 2147483647" in capsys.readouterr().out
