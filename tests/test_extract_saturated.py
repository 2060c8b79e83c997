"""Extraction from e-graphs of real saturation runs (Caviar programs and hand-written ones).

- both tree-optimal extractors (bottom_up and egglog's own tree extractor, which prices every UOp
  e-node at 1) agree on tree size;
- no extractor beats the exact one on DAG size, and the exact one proves its optimum here;
- every extracted program computes what the input computes: through `run` and the C backend.
"""

import random

import pytest
from eqsat_uopc.extract import COST_MODELS, EXTRACTORS, extract

from eqsat_uopc.backend import compile_many
from eqsat_uopc.corpus import caviar_path, load_corpus
from eqsat_uopc.greedy import run, to_python
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp, call_params
from eqsat_uopc.saturation import saturate
from eqsat_uopc.semantics.values import bind_params, random_value
from eqsat_uopc.semantics.values import same_value as same

CAVIAR = caviar_path()


def programs() -> list[UOp]:
    a, b = UOp.param(0, dtypes.i32), UOp.param(1, dtypes.i32)
    f = UOp.param(2, dtypes.f32)
    hand = [(a + b) * (a + b) + (b + a) * 2, (a * 2 + a * 2) // 4 + (a < b).where(a, b), (f * 1.0 + f) * 2.0]
    sample = random.Random(5).sample(load_corpus(CAVIAR), 6)
    return hand + [e.program for e in sample]


@pytest.fixture(scope="module")
def extractions():
    out = []
    for p in programs():
        g = saturate(p, node_budget=1500, shortcut_decided=False).egraph  # egglog's extractors run too
        results = {
            (cost, name): extract(g, cost, name, time_limit=20) for cost in COST_MODELS for name in EXTRACTORS
        }
        out.append((p, g, results))
    return out


def test_tree_optimal_extractors_agree(extractions):
    for _, _, r in extractions:
        assert r["tree_size", "bottom_up"].cost == r["tree_size", "egglog_tree"].cost
        assert r["tree_size", "bottom_up"].optimal is True
        for name in EXTRACTORS:
            assert r["tree_size", name].cost >= r["tree_size", "bottom_up"].cost
            assert r["depth", name].cost >= r["depth", "bottom_up"].cost


def test_nothing_beats_the_exact_extractor(extractions):
    for _, g, r in extractions:
        exact = r["dag_size", "exact"]
        assert exact.optimal is True and exact.bound == exact.cost
        for name in EXTRACTORS:
            assert r["dag_size", name].cost >= exact.cost
            assert r["latency", name].cost >= r["latency", "exact"].cost - 1e-9
        assert extract(g).extractor == "exact" and extract(g).cost == exact.cost


def test_extracted_programs_compute_the_input(extractions):
    cases = []
    for p, _, r in extractions:
        outs = sorted({res.program for res in r.values()}, key=lambda u: u.size)
        rng = random.Random(p.size)
        params = call_params(p)
        inputs = [{q.arg.slot: random_value(rng, q.dtype, q.shape) for q in params} for _ in range(8)]
        cases.append((p, outs, inputs))
    everything = list(dict.fromkeys(u for p, outs, _ in cases for u in (p, *outs)))
    compiled = dict(zip(everything, compile_many(everything), strict=True))
    for p, outs, inputs in cases:
        nslots = len(compiled[p].inputs)
        sets = [[i.get(s, 0) for s in range(nslots)] for i in inputs]
        expected = compiled[p].run_batch(sets)
        for out in outs:
            got = compiled[out].run_batch([s[: len(compiled[out].inputs)] for s in sets])
            for i, e, g in zip(inputs, expected, got, strict=True):
                if isinstance(e, Exception):
                    continue
                assert same(g, e), (p, out, i)
                assert same(to_python(run(bind_params(out, i))), e), (p, out, i)


def test_exact_survives_a_class_that_pruning_leaves_without_a_term():
    # Regression (found by notebook 3): after the first bound-pruning pass some child e-class had no
    # usable e-node left, its necessary-class set became "no term" (None), and the second pass
    # crashed with TypeError: 'NoneType' object is not iterable.
    (entry,) = [e for e in load_corpus(caviar_path()) if e.id == "caviar/lasteval/L27566"]
    sat = saturate(entry.program, int_semantics="no_overflow", node_budget=5000, iter_limit=3)
    exact = extract(sat.egraph, "dag_size", "exact")
    greedy = extract(sat.egraph, "dag_size", "greedy_dag")
    assert exact.cost <= greedy.cost and exact.optimal is True
