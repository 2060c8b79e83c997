"""compare(): greedy vs saturated side by side, on programs whose answers are known exactly."""

import pytest

from eqsat_uopc import UOp, dtypes, load_example
from eqsat_uopc.pipeline.comparison import compare, summarize
from eqsat_uopc.saturation import StopReason
from tests.test_cli import EXAMPLES


def test_nested_calls_saturate_to_their_value_and_greedy_keeps_the_calls():
    c = compare(load_example(EXAMPLES / "nested_calls.uir").program, samples=20)
    assert c.saturated is UOp.const(72) and c.greedy.size == 10
    assert c.costs["saturated"] == {"tree_size": 1, "dag_size": 1, "depth": 1, "latency": 0.0}
    assert (c.outcome, c.ratio, c.optimal) == ("smaller", 0.1, True)
    assert c.report.stop_reason is StopReason.CONSTANT and c.greedy_in_egraph
    assert c.verdict.status == "proved" and c.verdict.held == ("reference", "interpreter", "c", "z3")


def test_greedy_no_overflow_rule_is_refuted_under_wrap_and_saturation_stays_sound():
    x = UOp.param(0, dtypes.i32)
    c = compare(((x * 4) + 8) // 4, samples=50)
    assert c.greedy is x + 2  # the chapter's div_sum fires whatever the semantics
    assert c.greedy_verdict.status == "refuted" and c.greedy_verdict.counterexample_check in (
        "reference",
        "z3",
    )
    assert c.verdict.status == "proved" and c.outcome == "greedy_refuted" and c.greedy_refuted
    assert not c.greedy_in_egraph  # under wrap they are different functions: never merged


def test_under_no_overflow_saturation_finds_the_greedy_result():
    x = UOp.param(0, dtypes.i32)
    c = compare(((x * 4) + 8) // 4, int_semantics="no_overflow", samples=50)
    assert c.saturated is x + 2 and c.outcome == "equal" and c.greedy_in_egraph
    assert c.verdict.status == "proved" and c.greedy_verdict.status == "proved"
    assert c.to_dict()["int_semantics"] == "no_overflow"


def test_without_verification_the_outcome_says_greedy_was_not_verified():
    # issue 39: under --no-verify a refuted greedy result showed as "larger", like a real one
    x = UOp.param(0, dtypes.i32)
    c = compare(((x * 4) + 8) // 4, verify=False)
    assert (c.greedy_verdict, c.greedy_verified, c.outcome) == (None, False, "larger_unverified")
    assert c.to_dict()["outcome"] == "larger_unverified"
    assert (
        "  saturated is larger than greedy (ratio 2.000); the greedy result was not verified "
        "(a wrong one would go unseen)"
    ) in str(c).splitlines()
    same = compare(x * 1 + 0, verify=False)
    assert same.outcome == "equal_unverified"


def test_the_summary_counts_unverified_outcomes_apart_and_says_what_the_geomean_covers():
    from eqsat_uopc.pipeline.comparison_table import summary_text

    base = {"status": "ok", "greedy_in_egraph": True, "verdict": None, "greedy_verdict": None}
    rows = [
        {**base, "key": "a", "outcome": "smaller_unverified", "ratio": 0.5},
        {**base, "key": "b", "outcome": "larger_unverified", "ratio": 2.0},
        {**base, "key": "c", "outcome": "equal_unverified", "ratio": 1.0},
        {**base, "key": "z", "outcome": "smaller_unverified", "ratio": 0.0},
        {"key": "t", "status": "timeout"},
    ]
    s = summarize(rows)
    assert (s["smaller"], s["larger"], s["smaller_unverified"], s["larger_unverified"]) == (0, 0, 2, 1)
    assert (s["geomean_ratio"], s["geomean_rows"]) == (1.0, 3)
    assert s["geomean_left_out"] == {"zero_cost": ["z"], "not_compared": ["t"]}
    lines = summary_text({"int_semantics": "wrap", "cost_model": "latency", **s}).splitlines()
    assert lines[3:8] == [
        "  saturated vs greedy  not verified 4: smaller 2, equal 1, larger 1 (greedy's result unchecked: "
        "a wrong one counts as larger or equal here, not as greedy refuted)",
        "  geomean ratio        1.000 (saturated / greedy cost) over 3 of 5 programs, greedy's result not "
        "verified on 4; left out: zero cost 1 (z), as a ratio of 0 or infinity has no logarithm; not "
        "compared 1 (t), as a program that timed out, crashed or failed has no costs",
        "  greedy in e-graph    4 of 4 (saturation also found greedy's result)",
        "  saturated verdict    not checked 4 (--no-verify)",
        "  greedy verdict       not checked 4 (--no-verify)",
    ]
    verified = {**base, "verdict": "proved", "greedy_verdict": "proved"}
    mixed = summarize([*rows[:2], {**verified, "key": "d", "outcome": "smaller", "ratio": 0.5}])
    assert summary_text({"int_semantics": "wrap", "cost_model": "dag_size", **mixed}).splitlines()[3] == (
        "  saturated vs greedy  smaller 1, equal 0, larger 0, greedy refuted 0; not verified 2: smaller 1, "
        "equal 0, larger 1 (greedy's result unchecked: a wrong one counts as larger or equal here, not as "
        "greedy refuted)"
    )


def test_unknown_cost_model_is_refused_before_work():
    with pytest.raises(
        ValueError,
        match=r"^unknown cost model 'fastest!' "
        r"\(known: dag_size, depth, fastest, latency, smallest, tree_size\)$",
    ):
        compare(UOp.param(0) + 0, cost="fastest!")


def test_summary_counts_outcomes_failures_and_soundness_bugs():
    ok = {"status": "ok", "greedy_in_egraph": True, "verdict": "proved", "greedy_verdict": "proved"}
    rows = [
        {
            **ok,
            "outcome": "smaller",
            "ratio": 0.5,
            "expected": True,
            "saturated_proves": True,
            "saturated_wrong": False,
        },
        {
            **ok,
            "outcome": "equal",
            "ratio": 1.0,
            "expected": None,
            "saturated_proves": False,
            "saturated_wrong": True,
        },
        {**ok, "outcome": "greedy_refuted", "ratio": 4.0, "greedy_verdict": "refuted"},
        {"status": "timeout", "key": "t"},
    ]
    s = summarize(rows)
    assert (s["greedy_refuted"], s["greedy_verdict"]) == (1, {"proved": 2, "refuted": 1})
    assert (s["programs"], s["completed"], s["timeout"], s["smaller"], s["equal"], s["larger"]) == (
        4,
        3,
        1,
        1,
        1,
        0,
    )
    assert s["geomean_ratio"] == pytest.approx(0.5**0.5)  # a refuted greedy result is no yardstick
    assert (s["saturated_proves"], s["saturated_wrong"]) == (1, 1)
