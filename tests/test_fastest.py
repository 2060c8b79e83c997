"""The measured fastest: timing programs in C, the selection rule, its cache, optimize(p, "measured").

The selection rule is tested on injected timings (exact, deterministic); the C timing and
optimize end to end on small programs with short settings (what they return, not how fast)."""

import dataclasses
import json
import re

import numpy as np
import pytest
from eqsat_uopc.extract import ExtractionError

from eqsat_uopc.backend import CompilerNotFoundError
from eqsat_uopc.cli import main
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uir import parse_uir, to_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.pipeline import fastest, optimization
from eqsat_uopc.pipeline.fastest import (
    MeasureError,
    MeasureSettings,
    TimedCandidate,
    beats,
    choose,
    decide,
    measure_fastest,
    ratio_quartile,
)
from eqsat_uopc.pipeline.optimization import optimize
from eqsat_uopc.pipeline.timing import Timing, TimingRun, batchable, lane_values, time_programs

x, y = UOp.param(0, dtypes.i32), UOp.param(1, dtypes.i32)
SMALL = x + y  # 3 nodes
MID = (x + y) * 2  # 5 nodes
BIG = (x * 2 + y * 2) * 1  # 8 nodes
QUICK = {"lanes": 256, "rounds": 3, "round_seconds": 0.0002, "best_of": 2}


@pytest.fixture(autouse=True)
def user_cache(tmp_path, monkeypatch):
    """Every test here measures into a cache of its own."""
    monkeypatch.setenv("EQSAT_UOPC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


class Stub:
    """A timer that returns given rounds (ns) per program, one list per call, and records its calls."""

    def __init__(self, rounds: dict):
        self.rounds = rounds
        self.calls: list[tuple[list, MeasureSettings]] = []

    def __call__(self, programs, settings):
        k = len(self.calls)
        self.calls.append((list(programs), settings))
        timings = tuple(Timing(tuple(self.rounds[p][k])) for p in programs)
        return TimingRun(timings, settings.lanes, True, settings.rounds)


def timed(program, *runs, labels=("p",)):
    from eqsat_uopc.extract import cost_of

    return TimedCandidate(program, labels, int(cost_of(program)), 0.0, tuple(Timing(tuple(r)) for r in runs))


def test_quartiles_and_spread_of_a_timing():
    t = Timing((5.0, 1.0, 2.0, 4.0, 3.0))
    assert (t.min, t.median, t.q25, t.q75, t.spread) == (1.0, 3.0, 2.0, 4.0, 2.0)
    assert Timing((7.0,)).spread == 0.0 and Timing((7.0,)).q25 == 7.0


def test_faster_beyond_the_spread_of_paired_rounds_and_the_margin_beats():
    fast, slow = timed(BIG, [1.0, 1.1, 1.2]), timed(SMALL, [1.25, 1.375, 1.5])  # every round: 0.8 as long
    assert ratio_quartile(fast.timing, slow.timing) == pytest.approx(0.8)
    assert beats(fast, slow, 0.0) and not beats(slow, fast, 0.0)
    assert beats(fast, slow, 0.2) and not beats(fast, slow, 0.3)  # 0.8 * 1.3 = 1.04
    # the rounds are paired: a load that slows every program of a round alike does not hide the win ...
    loaded = timed(BIG, [1.0, 2.0, 3.0]), timed(SMALL, [1.1, 2.2, 3.3])
    assert beats(*loaded, 0.02) and loaded[0].timing.q75 > loaded[1].timing.q25
    # ... and one round's win is not enough: the upper quartile of the ratios must be below 1
    assert not beats(timed(BIG, [1.0, 1.0, 1.0]), timed(SMALL, [2.0, 0.9, 0.9]), 0.0)
    with pytest.raises(MeasureError, match=r"^cannot pair 3 rounds with 2: timings of different runs$"):
        beats(fast, timed(SMALL, [1.0, 1.0]), 0.0)


def test_the_smallest_of_the_unbeaten_is_chosen_ties_to_the_first_given():
    cands = [
        timed(BIG, [1.0, 1.0, 1.0], labels=("big",)),
        timed(MID, [1.0, 1.0, 1.0], labels=("mid",)),
        timed(SMALL, [2.0, 2.0, 2.0], labels=("small",)),  # beaten by both
    ]
    assert choose(cands) == 1
    cands[2] = timed(SMALL, [0.5, 1.0, 2.0], labels=("small",))  # its spread reaches them: not beaten
    assert choose(cands) == 2
    same = [timed(MID, [1.0] * 3, labels=("a",)), timed((x + y) * 3, [1.0] * 3, labels=("b",))]
    assert choose(same) == 0 and choose(same[::-1]) == 0  # equal sizes and times: the one given first
    # equal sizes: the one given first unless beaten, even if its median is higher
    noisy = [timed(MID, [1.0, 1.0, 0.9], labels=("a",)), timed((x + y) * 3, [0.95, 0.95, 1.0], labels=("b",))]
    assert not beats(noisy[1], noisy[0], 0.0) and choose(noisy) == 0


def test_a_candidate_that_could_not_be_timed_is_never_chosen():
    bad = TimedCandidate(
        SMALL, ("small",), 3, 0.0, (Timing((), "UndefinedBehaviorError: FLOORDIV by zero at %2"),)
    )
    assert choose([bad, timed(BIG, [5.0] * 3)]) == 1
    with pytest.raises(MeasureError) as e:
        choose([bad])
    assert (
        str(e.value) == "no candidate could be timed (small: UndefinedBehaviorError: FLOORDIV by zero at %2)"
    )


def test_a_larger_winner_is_timed_again_and_kept_only_if_it_wins_again():
    wins_once = Stub({SMALL: [[2.0] * 3, [1.0] * 3], BIG: [[1.0] * 3, [1.0] * 3]})
    m = measure_fastest({"small": SMALL, "big": BIG}, timer=wins_once)
    assert (m.program, m.confirmed) == (SMALL, True)
    (first, s1), (second, s2) = wins_once.calls
    assert first == [SMALL, BIG] and second == [BIG, SMALL]  # the second run compiles in reverse order
    assert (s1.seed, s2.seed) == (0, 1)  # ... on other inputs
    assert m.candidates[0].timings == (Timing((2.0,) * 3), Timing((1.0,) * 3))
    wins_twice = Stub({SMALL: [[2.0] * 3, [2.0] * 3], BIG: [[1.0] * 3, [1.0] * 3]})
    m = measure_fastest([("small", SMALL), ("big", BIG)], timer=wins_twice)
    assert (m.program, m.confirmed, m.timing.median) == (BIG, True, 1.0)
    no_second_run = Stub({SMALL: [[1.0] * 3], BIG: [[0.5] * 3]})
    m = measure_fastest({"small": SMALL, "big": BIG}, timer=no_second_run, confirm=False)
    assert (m.program, m.confirmed, len(no_second_run.calls)) == (BIG, False, 1)
    smallest_wins = Stub({SMALL: [[1.0] * 3], BIG: [[2.0] * 3]})
    m = measure_fastest({"small": SMALL, "big": BIG}, timer=smallest_wins)
    assert (m.program, m.confirmed, len(smallest_wins.calls)) == (SMALL, False, 1)


def test_a_run_too_noisy_to_tell_is_followed_by_another_and_the_median_rounds_decide():
    """The smallest is kept when nothing beats it beyond the spread; but when another candidate is
    faster in the median round by more than the margin (Caviar L12708: 3.6% faster, inside a noisy
    run's spread), that run could not tell: a second run is made, and a candidate faster in the
    median round by more than the margin in both runs is taken."""
    first = {SMALL: [1.0] * 5, BIG: [0.95, 0.95, 0.95, 1.0, 1.0]}  # BIG / SMALL: median 0.95, q75 1.0
    assert not beats(timed(BIG, first[BIG]), timed(SMALL, first[SMALL]), 0.02)
    assert beats(timed(BIG, first[BIG]), timed(SMALL, first[SMALL]), 0.02, "median")
    tells = Stub({SMALL: [first[SMALL], [1.0] * 5], BIG: [first[BIG], [0.9] * 5]})
    m = measure_fastest({"small": SMALL, "big": BIG}, timer=tells)
    assert [(programs, s.seed) for programs, s in tells.calls] == [([SMALL, BIG], 0), ([BIG, SMALL], 1)]
    assert (m.program, m.confirmed) == (BIG, True)
    assert decide(m.candidates) == (1, False)  # as a cached measurement is decided again
    # the second run finds them alike: the smallest stays
    keeps = Stub({SMALL: [first[SMALL], [1.0] * 5], BIG: [first[BIG], [1.0] * 5]})
    m = measure_fastest({"small": SMALL, "big": BIG}, timer=keeps)
    assert (m.program, m.confirmed, len(keeps.calls)) == (SMALL, True, 2)
    # faster in the median round by less than the margin: the first run stands
    close = Stub({SMALL: [[1.0] * 5], BIG: [[0.99] * 5]})
    m = measure_fastest({"small": SMALL, "big": BIG}, timer=close)
    assert (m.program, len(close.calls)) == (SMALL, 1)
    assert decide(m.candidates) == (0, False)


def test_the_measurement_as_a_dict():
    stub = Stub({SMALL: [[3.0, 1.0, 2.0]], MID: [[4.0, 4.0, 4.0]]})
    m = measure_fastest([("smallest", SMALL), ("latency", MID), ("greedy", SMALL)], timer=stub)
    assert m.labelled("greedy") is m.candidates[0] and m.labelled("input") is None
    d = m.to_dict()
    assert d["chosen"] == 0 and (d["unit"], d["lanes"], d["rounds"], d["best_of"], d["margin"]) == (
        "ns per lane",
        4096,
        21,
        5,
        0.02,
    )
    assert (d["confirmed"], d["cached"], d["batched"]) == (False, False, True)
    assert d["latency_table"].startswith("default table")
    assert d["candidates"][0] == {
        "labels": ["smallest", "greedy"],
        "hash": __import__("hashlib").sha256(to_uir(SMALL).encode()).hexdigest()[:12],
        "dag_size": 3,
        "latency": 0.3,
        "error": None,
        "min": 1.0,
        "median": 2.0,
        "q25": 1.5,
        "q75": 2.5,
        "spread": 1.0,
        "ns": [3.0, 1.0, 2.0],
        "program": to_uir(SMALL),
    }
    assert parse_uir(d["candidates"][1]["program"]) is MID and d["candidates"][1]["latency"] == 0.3 + 1.0
    json.dumps(d)  # JSON-able


def test_bad_candidates_and_settings_are_refused():
    stub = Stub({})
    with pytest.raises(MeasureError, match=r"^measure_fastest needs at least one candidate program$"):
        measure_fastest({}, timer=stub)
    with pytest.raises(MeasureError, match=r"^candidate 'b' must be a UOp, got int$"):
        measure_fastest({"a": SMALL, "b": 3}, timer=stub)
    with pytest.raises(MeasureError, match=r"^candidates differ in dtype or shape .*: not equivalent$"):
        measure_fastest([SMALL, SMALL < 2], timer=stub)
    with pytest.raises(MeasureError, match=r"^lanes must be a positive int, got 0$"):
        MeasureSettings(lanes=0)
    with pytest.raises(MeasureError, match=r"^margin must be a fraction in \[0, 1\), got 1$"):
        measure_fastest([SMALL], timer=stub, margin=1)
    with pytest.raises(MeasureError, match=r"^round_seconds must be a positive number of seconds, got nan$"):
        MeasureSettings(round_seconds=float("nan"))
    with pytest.raises(MeasureError, match=r"^unknown setting 'lane' \(known: lanes, rounds, seed, "):
        measure_fastest([SMALL], timer=stub, lane=3)
    with pytest.raises(MeasureError, match=r"^the timer returned 0 timings for 1 programs$"):
        measure_fastest([SMALL], timer=lambda p, s: TimingRun((), 1, True, 1))


# -- timing in C


def test_lane_values_respect_dtypes_bounds_and_ranges():
    b = UOp.param(2, dtypes.bool)
    f = UOp.param(3, dtypes.f32)
    bounded = UOp.param(4, dtypes.i32, bounds=(100, 103))
    i = UOp.range(5, "i")
    v = lane_values([x, b, f, bounded, i], 2000, seed=1)
    assert [a.dtype for a in v] == [np.int32, np.bool_, np.float32, np.int32, np.int32]
    assert v[0].min() == -64 and v[0].max() == 64 and set(v[1].tolist()) == {False, True}
    assert v[2].min() >= -64 and v[2].max() <= 64 and (v[3].min(), v[3].max()) == (100, 103)
    assert (v[4].min(), v[4].max()) == (0, 4)
    assert all(
        np.array_equal(a, c) for a, c in zip(v, lane_values([x, b, f, bounded, i], 2000, seed=1), strict=True)
    )


def test_time_programs_batches_scalar_programs_and_times_each_round():
    run = time_programs([SMALL, BIG], **QUICK)
    assert (run.lanes, run.batched, run.rounds) == (256, True, 3)
    assert all(t.error is None and len(t.ns) == 3 and t.min > 0 for t in run.timings)
    assert (
        batchable(SMALL) and not batchable(UOp.stack(x, y)) and not batchable(UOp.param(0, dtypes.i32, (3,)))
    )


def test_time_programs_times_other_programs_whole():
    v = UOp.param(0, dtypes.i32, (3,))
    run = time_programs([v * 2, v + v], **QUICK)
    assert (run.lanes, run.batched) == (1, False) and all(len(t.ns) == 3 for t in run.timings)


def test_lanes_a_program_is_undefined_on_are_replaced():
    # x // y is undefined where y == 0 (1 in 129 lanes); the lanes it is defined on are timed
    run = time_programs([x // y, (x // y) + 0], **QUICK)
    assert all(t.error is None and len(t.ns) == 3 for t in run.timings)
    with pytest.raises(
        ValueError, match=r"^no input lane of 256 drawn is defined for every program to time$"
    ):
        time_programs([x // (y * 0)], **QUICK)


def test_measurements_are_cached_and_a_second_call_times_nothing(monkeypatch, user_cache):
    first = measure_fastest({"small": SMALL, "big": BIG}, **QUICK)
    assert not first.cached and len(list((user_cache / "measured").iterdir())) == 1

    def no_timing(*args, **kwargs):
        raise AssertionError("timed again")

    monkeypatch.setattr(fastest, "time_programs", no_timing)
    again = measure_fastest({"small": SMALL, "big": BIG}, **QUICK)
    assert again.cached and [c.timings for c in again.candidates] == [c.timings for c in first.candidates]
    assert again.chosen == first.chosen
    with pytest.raises(AssertionError, match="timed again"):  # other settings: another key
        measure_fastest({"small": SMALL, "big": BIG}, **{**QUICK, "rounds": 4})
    with pytest.raises(AssertionError, match="timed again"):
        measure_fastest({"small": SMALL, "big": BIG}, **QUICK, cache=False)


# -- optimize(p, "measured")


def test_optimize_measured_end_to_end_and_again_from_the_cache(monkeypatch):
    program = (x * 2 + y) * 3
    r = optimize(program, "measured", **QUICK)
    m = r.info["measured"]
    labels = [label for c in m["candidates"] for label in c["labels"]]
    assert labels[:2] == ["smallest", "latency"] and {"greedy", "input"} <= set(labels)
    chosen = m["candidates"][m["chosen"]]
    assert r.program is parse_uir(chosen["program"]) and r.cost == chosen["median"]
    assert (r.cost_model, r.optimal, m["candidates_cached"]) == ("measured", None, False)
    assert set(r.info["runs"]) == {"dag_size", "latency"} and r.report is not None
    assert r.info["runs"]["dag_size"].program is parse_uir(m["candidates"][0]["program"])
    with pytest.raises(ExtractionError) as err:
        r.explain()  # no one chain leads to a measured choice; each run's result has its own
    assert str(err.value) == (
        "explain: a cost='measured' result is not explained (it is chosen among the candidates of two "
        "runs); explain the run under dag_size or latency instead"
    )
    assert r.info["runs"]["dag_size"].explain().checked

    def no_saturation(*args, **kwargs):
        raise AssertionError("saturated again")

    monkeypatch.setattr(optimization, "saturate", no_saturation)
    again = optimize(program, "measured", **QUICK)
    assert again.program is r.program and again.cost == r.cost
    assert again.info["measured"]["candidates_cached"] and again.info["measured"]["cached"]
    assert (again.report, again.saturation, dict(again.choice)) == (None, None, {})


def test_optimize_measured_returns_what_the_timings_say(monkeypatch):
    """With injected timings: the input program measured fastest in both runs is chosen."""
    program = (x * 2 + y) * 3  # 7 nodes; the smallest result p0*6 + p1*3 has 7 too

    def stub(programs, s):
        ns = [(1.0,) * 3 if p is program else (2.0,) * 3 for p in programs]
        return TimingRun(tuple(Timing(t) for t in ns), s.lanes, True, s.rounds)

    monkeypatch.setattr(fastest, "_time", stub)
    r = optimize(program, "measured", int_semantics="wrap")
    assert r.program is program and r.cost == 1.0
    assert r.info["measured"]["candidates"][r.info["measured"]["chosen"]]["labels"][-1] == "input"


def test_a_measured_choice_that_validation_refutes_is_replaced(monkeypatch):
    """The measured fastest is validated as any result: refuted, greedy's result is returned (timed
    too, as every candidate is), the star and the cost follow it."""
    from eqsat_uopc.saturation.result import Saturation

    program = ((x + 1) % 6 - 1) % 3  # wrap: x % 3 but at x = 2**31 - 1
    original = Saturation.extract

    def wrong(self, cost=None, *args, **kwargs):  # every extraction gives x % 3, cheapest and "fastest"
        return dataclasses.replace(original(self, cost, *args, **kwargs), programs=(x % 3,))

    monkeypatch.setattr(Saturation, "extract", wrong)

    def stub(programs, s):
        ns = [(1.0,) * 3 if p is x % 3 else (2.0,) * 3 for p in programs]
        return TimingRun(tuple(Timing(t) for t in ns), s.lanes, True, s.rounds)

    monkeypatch.setattr(fastest, "_time", stub)
    r = optimize(program, "measured", int_semantics="wrap", cache=False)
    m = r.info["measured"]
    assert r.program is not x % 3 and r.program is r.info["runs"]["dag_size"].saturation.seed
    assert m["candidates"][m["chosen"]]["labels"][-1] == "greedy" and r.cost == 2.0
    val = r.validation
    assert (val.status, val.candidate, [c.candidate for c in val.replaced]) == (
        "proved",
        "greedy",
        ["measured"],
    )
    assert val.replaced[0].validation.counterexample == {0: 2147483647}


def test_measure_settings_only_with_measured_and_a_compiler(monkeypatch):
    with pytest.raises(MeasureError, match=r"^lanes is a setting of cost='measured' only$"):
        optimize(SMALL, "dag_size", lanes=10)
    with pytest.raises(MeasureError, match=r"^rounds must be a positive int, got 0$"):
        optimize(SMALL, "measured", rounds=0)
    monkeypatch.setenv("CC", "/nonexistent/cc")

    def no_saturation(*args, **kwargs):
        raise AssertionError("saturated without a compiler")

    monkeypatch.setattr(optimization, "saturate", no_saturation)
    with pytest.raises(CompilerNotFoundError, match=r"^no C compiler found: \$CC='/nonexistent/cc' is not"):
        optimize(SMALL, "measured")
    with pytest.raises(CompilerNotFoundError):
        measure_fastest([SMALL])


# -- the command line


def test_cli_optimize_measured(tmp_path, capsys, monkeypatch):
    path = tmp_path / "p.uir"
    path.write_text("%0 = param : slot=0 dtype=i32\n%1 = mul %0, 3\n%2 = add %1, %1\n")

    def stub(programs, s):  # every candidate alike: the smallest is chosen
        return TimingRun(tuple(Timing((1.0, 2.0, 3.0)) for _ in programs), s.lanes, True, s.rounds)

    monkeypatch.setattr(fastest, "_time", stub)
    assert main(["optimize", str(path), "--cost", "measured"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["%0 = param : slot=0 dtype=i32", "%1 = mul %0, 6"]
    assert out[2] == (
        "# cost (measured): 2 ns per lane, median of 21 rounds over 4096 lanes; "
        "chosen: smallest, latency, latency_greedy_dag, latency_tree, latency_on_smallest, greedy; "
        "int semantics wrap"
    )
    assert out[3].startswith("# latency table (the estimates below): default table (estimates for a ~3 GHz")
    assert out[4].startswith(
        "# * smallest, latency, latency_greedy_dag, latency_tree, latency_on_smallest, greedy: 3 nodes, "
        "latency estimate 1; median 2, min 1, quartiles 1.5-2.5 ["
    )
    assert out[5].startswith("#   input: 4 nodes, latency estimate 1.3; median 2, min 1, quartiles 1.5-2.5 [")
    assert re.fullmatch(r"# validated: proved \(z3, bit-vectors, \d+ ms\)", out[6])
    assert [line.split(":")[0] for line in out[7:]] == [
        "# saturation (dag_size run)",
        "# saturation (latency run)",
    ]
    assert main(["optimize", str(path), "--cost", "measured", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["cost_model"], got["cost"], got["config"]["cost"], got["report"]) == (
        "measured",
        2.0,
        "measured",
        None,
    )
    assert got["measured"]["candidates_cached"] and got["measured"]["runs"] == {}
    assert (got["validation"]["status"], got["validation"]["candidate"]) == ("proved", "measured")


def test_cli_optimize_latency_says_which_table(capsys):
    from eqsat_uopc.extract.latency import machine_table_path

    assert main(["optimize", "examples/distribute.uir", "--cost", "latency"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[6] == (
        "# latency table: default table (estimates for a ~3 GHz x86-64 core); "
        f"`eqsat-uopc calibrate` measures this machine into {machine_table_path()}"
    )


def test_cli_measured_without_a_compiler_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert main(["optimize", "examples/distribute.uir", "--cost", "measured"]) == 1
    assert capsys.readouterr().err == (
        "eqsat-uopc: error: --cost measured times programs compiled by the C backend: no C compiler found: "
        "$CC='/nonexistent/cc' is not an executable on PATH; install gcc or clang, or set CC\n"
    )
    assert main(["calibrate"]) == 1
    assert capsys.readouterr().err.startswith("eqsat-uopc: error: calibrate times programs compiled by the C")


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--ops", "FMA"],
            "argument --ops: invalid choice: 'FMA' (choose from 'ADD', 'MUL', 'MAX', 'CMPLT', ",
        ),
        (["--elements", "0"], "argument --elements: expected a positive integer, got '0'"),
        (["--repeats", "x"], "argument --repeats: expected a positive integer, got 'x'"),
        (["--ops"], "argument --ops: expected at least one argument"),
    ],
)
def test_cli_calibrate_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["calibrate", *args])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_cli_calibrate_writes_this_machines_table(capsys, user_cache):
    assert main(["calibrate", "--elements", "4096", "--repeats", "3", "--ops", "SIN"]) == 0
    out = capsys.readouterr().out.splitlines()
    path = user_cache / "latency.json"
    assert out[0].startswith("SIN  f32=") and out[2:] == [
        f"wrote {path}",
        "the latency cost model uses this table from now on (delete the file to go back to the default)",
    ]
    assert main(["optimize", "examples/distribute.uir", "--cost", "latency"]) == 0
    table = [line for line in capsys.readouterr().out.splitlines() if line.startswith("# latency table")]
    assert table[0].startswith(f"# latency table: calibrated table {path} (")
