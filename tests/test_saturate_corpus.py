"""Soundness of saturation on corpora: the Caviar/Halide comparisons and generated index expressions.

For a sample of each corpus (the full corpus runs in bench/saturate.py): saturate under a budget,
then on random inputs (small and full-range int32) every e-node of every e-class must evaluate to
its class's value (eqsat_uopc.verify.egraph_soundness.check_sound), a `mixed` Caviar expression must never
be merged with a constant, and a constant found must be the sampled verdict.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqsat_uopc.corpus import caviar_path, index_expressions, load_corpus
from eqsat_uopc.greedy import simplify
from eqsat_uopc.saturation import saturate
from eqsat_uopc.verify.egraph_soundness import check_sound
from tests.strategies import inputs_for, programs, range_bindings

CAVIAR = caviar_path()
ENTRIES = load_corpus(CAVIAR)
SAMPLE = ENTRIES[::130]  # 11 entries, every verdict among them
VERDICT = {"true_on_all_samples": True, "false_on_all_samples": False}


def _random_inputs(rng: random.Random, n: int) -> list[dict[int, int]]:
    out = []
    for lim in (8, 64, 2**31):
        for _ in range(2):
            out.append({i: rng.randint(-lim, lim - 1) for i in range(n)})
    return out


@pytest.mark.parametrize("entry", SAMPLE, ids=lambda e: e.id.rsplit("/", 1)[-1])
def test_caviar_sound(entry) -> None:
    s = saturate(entry.program, rules="default", node_budget=2_000, iter_limit=12)
    rng = random.Random(entry.line)
    for params in _random_inputs(rng, len(entry.var_names)):
        assert check_sound(s.egraph, params) == [], params
    lit = s.literal()
    if lit is not None:
        assert entry.verdict != "mixed", f"{entry.id}: a mixed expression merged with {lit.arg}"
        assert lit.arg is VERDICT[entry.verdict]
    assert s.report.stop_reason in ("saturated", "node_budget", "iter_limit", "constant")


@pytest.mark.parametrize("entry", SAMPLE[::2], ids=lambda e: e.id.rsplit("/", 1)[-1])
def test_caviar_sound_no_overflow(entry) -> None:
    """Under no_overflow the rules are sound over the mathematical integers: checked on small inputs
    (the corpus's own samples are about [-64, 64], where nothing overflows)."""
    s = saturate(
        entry.program, rules="default", int_semantics="no_overflow", node_budget=2_000, iter_limit=12
    )
    rng = random.Random(entry.line)
    for _ in range(4):
        params = {i: rng.randint(-64, 63) for i in range(len(entry.var_names))}
        assert check_sound(s.egraph, params, int_semantics="no_overflow") == [], params
    lit = s.literal()
    if lit is not None:
        assert entry.verdict != "mixed" and lit.arg is VERDICT[entry.verdict]


def test_caviar_sample_figures() -> None:
    """How often the greedy result is in the root's e-class, and how many are proved, on the sample."""
    greedy_in_root = proved = 0
    for e in SAMPLE:
        s = saturate(e.program, rules="default", node_budget=2_000, iter_limit=12)
        greedy_in_root += s.equivalent(e.program, simplify(e.program))
        proved += s.literal() is not None
    assert (len(SAMPLE), greedy_in_root, proved) == (11, 11, 5)


@pytest.mark.parametrize("k", range(6))
def test_index_expressions_sound(k: int) -> None:
    ie = index_expressions(6, seed=3)[k]
    s = saturate(ie.program, rules="default", node_budget=3_000, iter_limit=10)
    rng = random.Random(k)
    for _ in range(4):
        ranges = {(r.arg, r.src[0].arg): rng.randrange(r.src[0].arg) for r in ie.ranges}
        params = {p.arg.slot: rng.randint(-100, 100) for p in ie.params}
        assert check_sound(s.egraph, params, ranges) == []
    assert s.equivalent(ie.program, simplify(ie.program)) or s.report.stop_reason != "saturated"


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_programs_sound(data) -> None:
    """Random scalar programs (every ALU op, i32/bool/f32, RANGEs): the saturated e-graph is sound."""
    p = data.draw(programs(shaped=False, calls=False, ranges=True, max_ops=8))
    s = saturate(p, rules="default", node_budget=1_500, iter_limit=8)
    for _ in range(3):
        params = data.draw(inputs_for(p))
        ranges = data.draw(range_bindings(p))
        assert check_sound(s.egraph, params, {(r.arg, r.src[0].arg): v for r, v in ranges.items()}) == []
