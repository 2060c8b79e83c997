"""SaturationConfig: one settings value, validated when made, passed through every layer."""

import dataclasses

import pytest
from eqsat_uopc.extract import AUTO_BRANCH_LIMIT, CostModelError, ExtractionError
from eqsat_uopc.rules import rule_set

from eqsat_uopc import SaturationConfig, UOp, compare, optimize, saturate
from eqsat_uopc.saturation import DEFAULT_CONFIG, FIELD_HELP, SaturationError, StopReason

x = UOp.param(0)


def test_defaults_live_in_one_place_and_every_setting_has_help():
    assert dataclasses.asdict(DEFAULT_CONFIG) == {
        "rules": "default",
        "int_semantics": "wrap",
        "node_budget": 10_000,
        "iter_limit": 30,
        "match_budget": None,
        "time_limit": None,
        "match_limit": 1000,
        "ban_length": 5,
        "seed_greedy": True,
        "stop_at_constant": True,
        "shortcut_decided": True,
        "prune_rules": True,
        "cost": "dag_size",
        "extractor": "auto",
        "extract_branch_limit": 100,
        "extract_time_limit": None,
        "pulses": 3,
        "validate": True,
    }
    assert sorted(FIELD_HELP) == sorted(f.name for f in dataclasses.fields(SaturationConfig))


def test_the_default_limits_count_work_and_the_wall_clock_ones_are_off():
    # a wall-clock limit that stops a run gives another result under another load (docs/DESIGN.md,
    # "Determinism"): by default only counts stop a run or an exact extraction
    assert (DEFAULT_CONFIG.time_limit, DEFAULT_CONFIG.extract_time_limit) == (None, None)
    assert DEFAULT_CONFIG.extract_branch_limit == AUTO_BRANCH_LIMIT
    c = DEFAULT_CONFIG.replace(time_limit=2.5, extract_time_limit=1.0, extract_branch_limit=None)
    assert (c.time_limit, c.extract_time_limit, c.extract_branch_limit) == (2.5, 1.0, None)


def test_the_match_budget_grows_with_the_node_budget_unless_one_is_set():
    # 100 matches per e-node of the node budget, at least 1,000,000 (the default node budget's): a
    # budget raised for a larger program buys the work to fill it (docs/DESIGN.md, "Scale")
    budgets = [
        DEFAULT_CONFIG.replace(**settings).match_budget_in_effect
        for settings in (
            {},
            {"node_budget": 2_000},
            {"node_budget": 10_001},
            {"node_budget": 1_000_000},
            {"node_budget": 1_000_000, "match_budget": 5},
        )
    ]
    assert budgets == [1_000_000, 1_000_000, 1_000_100, 100_000_000, 5]
    report = saturate(x + 1, node_budget=20_000).report
    assert (report.node_budget, report.match_budget) == (20_000, 2_000_000)


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"node_budget": 0}, SaturationError, "node_budget must be positive, got 0"),
        ({"iter_limit": 2.5}, SaturationError, "iter_limit must be an int, got 2.5"),
        ({"time_limit": "5"}, SaturationError, "time_limit must be a number of seconds, got '5'"),
        ({"time_limit": float("nan")}, SaturationError, "time_limit must be positive, got nan"),
        ({"extract_time_limit": -1}, SaturationError, "extract_time_limit must be positive, got -1"),
        ({"extract_branch_limit": 0}, SaturationError, "extract_branch_limit must be positive, got 0"),
        ({"extract_branch_limit": 2.0}, SaturationError, "extract_branch_limit must be an int, got 2.0"),
        ({"match_budget": -5}, SaturationError, "match_budget must be positive, got -5"),
        ({"match_budget": 1e6}, SaturationError, "match_budget must be an int, got 1000000.0"),
        ({"match_limit": True}, SaturationError, "match_limit must be an int, got True"),
        ({"pulses": 0}, SaturationError, "pulses must be positive, got 0"),
        ({"seed_greedy": 1}, SaturationError, "seed_greedy must be True or False, got 1"),
        ({"int_semantics": "c"}, SaturationError, "int_semantics must be 'wrap' or 'no_overflow', got 'c'"),
        (
            {"rules": "fancy"},
            SaturationError,
            "unknown rule set 'fancy' (known: none, symbolic, evaluate, run, ac, default, default+synth; "
            "or a bundled family, identities, fold, reassociation, distribution, divmod, recombination, "
            "comparisons, intervals, comm_assoc, boolean, minmax, linear, divisibility, digits, offsets, "
            "synth_small, evaluate; or a .egg file; joined by '+', with '++' for a '+' in a file name)",
        ),
        (
            {"cost": "cheap"},
            CostModelError,
            "unknown cost model 'cheap' (known: dag_size, depth, fastest, latency, smallest, tree_size)",
        ),
        (
            {"extractor": "magic"},
            ExtractionError,
            "unknown extractor 'magic' (known: auto, bottom_up, egglog_dag, egglog_tree, exact, greedy_dag)",
        ),
    ],
)
def test_a_bad_setting_is_refused_when_the_config_is_made(settings, error, message):
    with pytest.raises(error) as info:
        SaturationConfig(**settings)
    assert str(info.value) == message
    with pytest.raises(error):  # and by every entry point, before any work
        saturate(x + 1, **settings)


def test_replace_names_an_unknown_setting_and_to_dict_is_json_able():
    with pytest.raises(SaturationError, match=r"^unknown setting 'budget' \(known: ban_length, cost, "):
        DEFAULT_CONFIG.replace(budget=5)
    c = DEFAULT_CONFIG.replace(node_budget=123, extract_time_limit=None)
    assert (c.node_budget, c.extract_time_limit, DEFAULT_CONFIG.node_budget) == (123, None, 10_000)
    assert c.to_dict()["node_budget"] == 123 and c.to_dict()["rules"] == "default"


def test_the_config_reaches_the_run_and_the_extraction():
    config = SaturationConfig(node_budget=500, iter_limit=3, cost="tree_size", int_semantics="no_overflow")
    s = saturate((x * 4 + 8) // 4, config)
    assert (s.report.node_budget, s.report.iter_limit, s.report.int_semantics) == (500, 3, "no_overflow")
    assert s.extract().cost_model == "tree_size" and s.extract(cost="depth").cost_model == "depth"
    best = optimize((x * 4 + 8) // 4, None, config, iter_limit=5)
    assert (best.program, best.cost_model, best.report.iter_limit) == (x + 2, "tree_size", 5)
    c = compare((x * 4 + 8) // 4, config, verify=False, cost="dag_size")
    assert (c.cost_model, c.report.node_budget, c.int_semantics) == ("dag_size", 500, "no_overflow")


def test_the_greedy_seed_makes_optimize_never_worse_than_greedy():
    # greedy's div_sum is a no_overflow rule: under no_overflow the seed holds x + 2 from the start
    p = (x * 4 + 8) // 4
    seeded = saturate(p, int_semantics="no_overflow", iter_limit=1, rules="symbolic")
    assert seeded.seed is x + 2 and seeded.equivalent(p, x + 2)
    unseeded = saturate(p, int_semantics="no_overflow", rules="symbolic", iter_limit=1, seed_greedy=False)
    assert unseeded.seed is None
    # under wrap the seed uses only greedy's wrap rules, so it keeps the division
    wrap = saturate(p, rules="symbolic")
    assert wrap.seed is not None and not wrap.equivalent(p, x + 2)
    # no seed where greedy's rules are not all in the rule set, or the program has f32 nodes
    assert saturate(p, rules="ac").seed is None
    f = UOp.param(1, UOp.const(0.0).dtype)
    assert saturate(f + 0.0, rules="symbolic").seed is None


def test_optimize_pulses_again_after_rules_held_back_only_when_one_could_fit_in_a_fresh_budget(monkeypatch):
    import eqsat_uopc.pipeline.optimization as optimization
    from eqsat_uopc.saturation import SaturationReport

    # mul-assoc, held back on 1,539 of 10,000 e-nodes: its forecast exceeds the whole budget, so a new
    # pulse would hold it back again; one pulse, and forcing a second changes nothing
    # (inputs in [0, 7], so that x * 3 + x * 2 -> x * 5 and the reordered products stay in int32 and
    # extraction under no_overflow may choose them: saturation/admissible.py)
    small = UOp.param(0, bounds=(0, 7))
    p = small
    for i in range(1, 10):
        p = p * UOp.param(i, bounds=(0, 7))
    p = p + small * 3 + small * 2
    once = optimize(p, int_semantics="no_overflow")
    assert "pulses" not in once.info and once.report.stop_reason is StopReason.NODE_BUDGET
    assert (once.report.final_enodes, once.report.held_back) == (1_539, {"comm_assoc/mul-assoc": 52_488})
    assert (p.size, once.program.op.name, once.cost) == (25, "ADD", 22)
    monkeypatch.setattr(optimization, "_may_improve", lambda report: True)
    forced = optimize(p, int_semantics="no_overflow")
    assert len(forced.info["pulses"]) == 2 and forced.program is once.program
    monkeypatch.undo()

    def held(final_enodes: int, forecasts: dict[str, int]) -> SaturationReport:
        report = SaturationReport("default", "no_overflow", 10_000, 30, 1_000_000)
        report.stop_reason, report.held_back = StopReason.NODE_BUDGET, forecasts
        report.enodes.append(final_enodes)
        return report

    may_improve = optimization._may_improve
    assert not may_improve(held(1_523, {"comm_assoc/mul-assoc": 61_854}))
    assert may_improve(held(1_381, {"boolean/and-assoc": 9_539, "comm_assoc/mul-assoc": 61_854}))  # one fits
    assert may_improve(held(5_001, {"comm_assoc/mul-assoc": 61_854}))  # more than half the budget used


def test_optimize_pulses_from_its_own_result_while_the_budget_stops_it():
    x2, x3 = UOp.param(1), UOp.param(2)
    p = (((x + 1) + (x2 + 2)) + (x3 + 3)) < (((x3 + 3) + (x + 1)) + x2)  # 6 + s < 4 + s: false
    # the linear family's piecewise-linear comparison decides it before any iteration; without the
    # family, rewriting needs AC, which the budget cuts short
    decided = optimize(p, node_budget=100, int_semantics="no_overflow")
    assert (decided.program, decided.report.stop_reason, decided.report.iterations) == (
        UOp.const(False),
        StopReason.CONSTANT,
        0,
    )
    rules = rule_set("default").without("linear")
    assert rules.name == "default-linear" and "linear" not in rules.family_names
    # inputs in [0, 100]: the reassociated sums between pulses stay in int32, so extraction under
    # no_overflow may choose them (saturation/admissible.py); unbounded, it keeps the input's sums
    b0, b1, b2 = (UOp.param(k, bounds=(0, 100)) for k in range(3))
    q = (((b0 + 1) + (b1 + 2)) + (b2 + 3)) < (((b2 + 3) + (b0 + 1)) + b1)
    once = optimize(q, node_budget=100, int_semantics="no_overflow", pulses=1, rules=rules)
    assert once.report.stop_reason is StopReason.NODE_BUDGET and "pulses" not in once.info
    assert (once.program.op.name, once.cost) == ("CMPLT", 12)
    # the second saturation starts from the first's extraction (12 nodes) and decides it
    best = optimize(q, node_budget=100, int_semantics="no_overflow", rules=rules, pulses=4)
    assert best.program is UOp.const(False)
    pulses = best.info["pulses"]
    assert pulses[0].program is once.program and pulses[-1].program is best.program
    assert [p.cost for p in pulses] == [12, 1]
    assert [p.report.stop_reason for p in pulses] == [StopReason.NODE_BUDGET, StopReason.CONSTANT]
    assert best.report is pulses[-1].report
    unbounded = optimize(p, node_budget=100, int_semantics="no_overflow", rules=rules, pulses=4)
    assert unbounded.program is not UOp.const(False) and unbounded.validation.status in (
        "proved",
        "identical",
    )
    with pytest.raises(SaturationError, match=r"^optimize: config must be a SaturationConfig, got str$"):
        optimize(p, None, "default")
    with pytest.raises(SaturationError, match=r"^compare: config must be a SaturationConfig, got str$"):
        compare(p, "default")
