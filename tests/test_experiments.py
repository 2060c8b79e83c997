"""experiments: the notebooks' measurements, on programs whose answers are known exactly."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from eqsat_uopc import PatternMatcher, Rule, UOp, UPat, compile_c, dtypes, symbolic, to_uir
from eqsat_uopc.pipeline.experiments import (
    add_chain,
    batched,
    budget_sweep,
    c_runtime,
    caviar_path,
    caviar_sample,
    expected_constant,
    extractor_table,
    greedy_vs_saturated,
    growth_table,
    iteration_times,
    lane_values,
    permuted_matchers,
    proof_status,
    rule_order_results,
    run_corpus,
)
from eqsat_uopc.saturation import SaturationConfig, saturate

x = UOp.param(0, dtypes.i32)


def test_caviar_corpus_is_bundled_package_data():
    path = caviar_path()
    assert path.name == "caviar_dev.jsonl" and path.is_file()
    assert path.parent.parts[-3:] == ("eqsat_uopc", "corpus", "data")


def test_caviar_sample_is_seeded_and_in_file_order():
    sample = caviar_sample(3, seed=0)
    assert [e.id for e in sample] == [
        "caviar/lasteval/L01366",
        "caviar/lasteval/L16234",
        "caviar/lasteval/L17980",
    ]
    assert [e.id for e in caviar_sample(3, seed=0)] == [e.id for e in sample]
    assert [e.line for e in sample] == sorted(e.line for e in sample)
    with pytest.raises(ValueError, match=r"^caviar_sample: n must be >= 0, got -1$"):
        caviar_sample(-1)


def test_expected_constant_and_proof_status():
    entries = caviar_sample(3, seed=0)
    assert [(e.verdict, expected_constant(e)) for e in entries] == [
        (e.verdict, {"true_on_all_samples": True, "false_on_all_samples": False, "mixed": None}[e.verdict])
        for e in entries
    ]
    assert proof_status(True, UOp.const(True)) == "proved"
    assert proof_status(False, UOp.const(True)) == "wrong"
    assert proof_status(None, UOp.const(False)) == "wrong"  # a `mixed` expression made constant
    assert proof_status(True, UOp.const(1)) == "wrong"  # 1 is not True
    assert proof_status(True, x < 3) == "open"


def test_greedy_vs_saturated_one_saturation_two_cost_models():
    r = greedy_vs_saturated(((x * 4) + 8) // 4, int_semantics="no_overflow", node_budget=500)
    assert r["greedy_uir"] == r["saturated_uir"] == "%0 = param : slot=0 dtype=i32\n%1 = add %0, 2\n"
    assert (r["input_dag_size"], r["greedy_dag_size"], r["saturated_dag_size"], r["ratio_dag_size"]) == (
        6,
        3,
        3,
        1.0,
    )
    assert (r["greedy_latency"], r["saturated_latency"], r["ratio_latency"]) == (0.3, 0.3, 1.0)
    assert r["stop_reason"] == "saturated" and r["optimal_dag_size"] is True
    assert "greedy_status" not in r


def test_greedy_vs_saturated_proves_what_greedy_leaves_open():
    program = (x + 1) * 2 + x * 0 < x * 2 + 3
    r = greedy_vs_saturated(program, int_semantics="no_overflow", node_budget=2_000, expected=True)
    assert r["greedy_uir"].endswith("%4 = cmplt %2, %3\n") and r["saturated_uir"] == "%0 = const true\n"
    assert (r["greedy_status"], r["saturated_status"], r["ratio_dag_size"]) == ("open", "proved", 1 / 7)


def test_run_corpus_keeps_item_order_and_marks_status():
    rows = run_corpus([("b", x * 0, ...), ("a", x + 0, True)], SaturationConfig(node_budget=100), workers=0)
    assert [(r["key"], r["status"], r["greedy_uir"]) for r in rows] == [
        ("b", "ok", "%0 = const 0\n"),
        ("a", "ok", "%0 = param : slot=0 dtype=i32\n"),
    ]
    assert "greedy_status" not in rows[0] and rows[1]["saturated_status"] == "open"


def test_add_chain_and_its_growth():
    assert add_chain(3) is UOp.param(0, dtypes.i32) + UOp.param(1, dtypes.i32) + UOp.param(2, dtypes.i32)
    with pytest.raises(ValueError, match=r"^add_chain needs at least 2 leaves, got 1$"):
        add_chain(1)
    rep = SimpleNamespace(enodes=[2, 4, 4], eclasses=[2, 3, 3])
    assert growth_table(rep) == [
        {"iteration": 0, "enodes": 2, "eclasses": 2, "growth": None},
        {"iteration": 1, "enodes": 4, "eclasses": 3, "growth": 2.0},
        {"iteration": 2, "enodes": 4, "eclasses": 3, "growth": 1.0},
    ]


def test_iteration_times_replays_the_same_sizes():
    chain = add_chain(4)
    assert saturate(chain).report.enodes == [7, 14, 34, 54, 54, 54]
    rows = iteration_times(chain, iterations=3)
    assert [(r["iteration"], r["enodes"]) for r in rows] == [(1, 14), (2, 34), (3, 54)]
    assert all(r["seconds"] >= 0 for r in rows)
    assert len(iteration_times(chain, iterations=9)) == 5  # saturated after 5 iterations


def test_budget_sweep_keeps_every_e_graph_within_its_budget():
    rows = budget_sweep(add_chain(8), [20, 1000], extractor="greedy_dag")
    assert [(r["stop_reason"], r["iterations"], r["enodes"], r["overshoot"], r["cost"]) for r in rows] == [
        ("node_budget", 0, 15, 34, 15),
        ("node_budget", 4, 640, None, 15),
    ]


def test_extractor_table_runs_every_extractor():
    rows = extractor_table(saturate(x * 1 + 0).egraph)
    assert [(r["extractor"], r["cost"]) for r in rows] == [
        ("bottom_up", 1),
        ("greedy_dag", 1),
        ("exact", 1),
        ("egglog_tree", 1),
        ("egglog_dag", 1),
    ]
    assert [r["optimal"] for r in rows] == [None, None, True, None, None]


def test_rule_order_the_chapters_negative_zero():
    matchers = permuted_matchers(symbolic, n=3, seed=0)
    assert matchers[0] is symbolic and len(matchers) == 3
    assert all(sorted(r.name for r in m.rules) == sorted(r.name for r in symbolic.rules) for m in matchers)
    assert [r.name for r in matchers[1].rules] != [r.name for r in symbolic.rules]
    rev = PatternMatcher(symbolic.rules[1:] + symbolic.rules[:1])
    folded, ident = rule_order_results(UOp.const(-0.0) + UOp.const(0.0), [symbolic, rev])
    assert math.copysign(1, folded.arg) == 1.0 and math.copysign(1, ident.arg) == -1.0
    with pytest.raises(ValueError, match=r"^permuted_matchers: n must be >= 1, got 0$"):
        permuted_matchers(symbolic, n=0)


def test_rule_order_results_records_an_order_that_loops():
    a, b = UPat.var("a"), UPat.var("b")
    swap = PatternMatcher([Rule(a + b, lambda a, b: b + a, "add_comm")])  # a + b -> b + a, forever
    assert rule_order_results(x + UOp.param(1, dtypes.i32), [swap, symbolic], max_steps=1000) == [
        None,
        x + UOp.param(1, dtypes.i32),
    ]


def test_batched_program_computes_every_lane():
    prog = batched((x + 1) * 2, 4)
    assert to_uir(prog).splitlines()[0] == "%0 = param : slot=0 dtype=i32 shape=(4,)"
    assert compile_c(prog)([1, 2, 3, -4]) == [4, 6, 8, -6]
    i = UOp.range(5, "i")
    both = batched(i * 3 + x, 3)  # PARAMs by slot first, then RANGEs
    assert compile_c(both)([1, 2, 3], [0, 1, 4]) == [1, 5, 15]
    with pytest.raises(ValueError, match=r"^batched needs a scalar program, got shape \(4,\)$"):
        batched(prog, 2)


def test_lane_values_respect_range_extents_and_c_runtime_times_each_program():
    i = UOp.range(5, "i")
    v = lane_values([x, i], 1000, seed=0)
    assert v[0].min() >= -64 and v[0].max() <= 64 and v[1].min() == 0 and v[1].max() == 4
    assert np.array_equal(lane_values([x, i], 1000, seed=0)[1], v[1])
    ns = c_runtime({"input": (x * 1 + i) * 2, "simplified": (x + i) * 2}, lanes=64, number=2, repeat=1)
    assert list(ns) == ["input", "simplified"] and all(t > 0 for t in ns.values())
