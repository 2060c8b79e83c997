"""Extraction over the part of a run's e-graph where a program as cheap as the cheapest candidate
can be (`Saturation.extract`, `Snapshot.region`, `extraction_depth`): the same programs and costs as
extraction over the whole e-graph, from far fewer e-nodes when the candidate is small."""

import random

import pytest
from eqsat_uopc.extract import COST_MODELS, extract, extraction_depth
from eqsat_uopc.extract.egraph import EGraph

from eqsat_uopc.corpus import caviar_path, load_corpus
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation import saturate


def _chain(k: int) -> UOp:
    p = UOp.param(0)
    for i in range(k):
        p = p + i
    return p


class _Model:
    kind = "dag"

    def __init__(self, least):
        self.min_node_cost = least

    def node_cost(self, op, arg, dtype, shape):
        return 2


def test_extraction_depth_is_cost_over_the_least_node_cost():
    assert extraction_depth(COST_MODELS["dag_size"], 3) == 3
    assert extraction_depth(COST_MODELS["tree_size"], 7.5) == 7
    assert extraction_depth(COST_MODELS["depth"], 1) == 1
    assert extraction_depth(_Model(2), 9) == 4
    assert extraction_depth(_Model(0.1), 0.3) == 3  # not 2: 0.3 / 0.1 is 2.9999999999999996
    # no positive lower bound, no depth: latency's leaves cost 0, and a bool is no cost
    for model in (COST_MODELS["latency"], _Model(0), _Model(-1), _Model(True), _Model("1")):
        assert extraction_depth(model, 10) is None


def _whole(sat, **kw):
    """Extraction over the whole extractable e-graph, as Saturation.extract did before regions."""
    c = sat.config
    return extract(
        sat.extractable,
        cost=kw.get("cost", c.cost),
        extractor=kw.get("extractor", c.extractor),
        branch_limit=c.extract_branch_limit,
        time_limit=c.extract_time_limit,
        candidates=(*sat.seeds.root_terms.values(), sat.program),
    )


def _region_by_hand(egraph: EGraph, steps: int) -> int:
    """The e-nodes of the region, computed on the EGraph: the e-classes at most `steps` child steps
    below the root, their e-nodes over kept e-classes only, to a fixed point."""
    (root,) = egraph.roots
    depth = {root: 0}
    frontier = [root]
    while frontier:
        nxt = []
        for cid in frontier:
            if depth[cid] == steps:
                continue
            for n in egraph.classes[cid].nodes:
                for ch in n.children:
                    if ch not in depth:
                        depth[ch] = depth[cid] + 1
                        nxt.append(ch)
        frontier = nxt
    kept = {cid: list(egraph.classes[cid].nodes) for cid in depth}
    while True:
        alive = {cid for cid, nodes in kept.items() if nodes}
        pruned = {cid: [n for n in nodes if alive.issuperset(n.children)] for cid, nodes in kept.items()}
        if pruned == kept:
            return sum(len(nodes) for nodes in kept.values())
        kept = pruned


@pytest.mark.parametrize("semantics", ["wrap", "no_overflow"])
def test_a_sum_chain_is_extracted_from_a_handful_of_enodes(semantics):
    p = _chain(2000)
    sat = saturate(p, node_budget=10_000, int_semantics=semantics)
    r = sat.extract()
    whole = _whole(sat)
    expected = UOp.param(0) + sum(range(2000))
    assert r.programs == whole.programs == (expected,)
    assert r.cost == whole.cost == 3
    assert whole.optimal is None  # bottom_up over 8,000 e-nodes, the seed as its candidate
    assert r.optimal is True and r.extractor == "exact"  # the region is small enough to prove it
    region = r.info["region"]
    assert region["depth"] == 3
    assert region["of"] == sum(len(ec.nodes) for ec in sat.egraph.classes.values())
    if semantics == "wrap":  # under no_overflow the region is also filtered by admissible.py
        assert region["enodes"] == _region_by_hand(sat.egraph, 2)
    assert region["enodes"] * 100 < region["of"]


def _programs() -> list[UOp]:
    sample = random.Random(11).sample(load_corpus(caviar_path()), 12)
    x, y = UOp.param(0, bounds=(0, 255)), UOp.param(1, bounds=(0, 63))
    stack = UOp.stack(*[((x * 3 + y) // 8) % 5 + i for i in range(30)])
    return [e.program for e in sample] + [_chain(300), stack, (x * 4 + 8) // 4 - x]


@pytest.mark.parametrize("semantics", ["wrap", "no_overflow"])
def test_the_region_gives_what_the_whole_e_graph_gives(semantics):
    regions = 0
    for p in _programs():
        sat = saturate(p, node_budget=5_000, int_semantics=semantics)
        r, whole = sat.extract(), _whole(sat)
        assert (r.programs, r.cost) == (whole.programs, whole.cost), p
        regions += "region" in r.info
        if "region" in r.info:
            assert r.info["region"]["enodes"] < r.info["region"]["of"]
    assert regions >= 3  # the chain, the STACK and the sum at least: the region is no corner case


def test_egglog_extractors_and_latency_read_the_whole_e_graph():
    sat = saturate(_chain(200), node_budget=2_000)
    assert "region" in sat.extract().info
    for kw in ({"extractor": "egglog_dag"}, {"extractor": "egglog_tree"}, {"cost": "latency"}):
        r = sat.extract(**kw)
        assert "region" not in r.info
        assert (r.programs, r.cost) == (_whole(sat, **kw).programs, _whole(sat, **kw).cost)


def test_reading_the_whole_e_graph_first_changes_no_extraction():
    p = _chain(200)
    fresh, read_first = saturate(p, node_budget=2_000), saturate(p, node_budget=2_000)
    assert len(read_first.egraph.classes) > 100
    a, b = fresh.extract(), read_first.extract()
    assert (a.programs, a.cost, a.optimal, a.extractor, a.info) == (
        b.programs,
        b.cost,
        b.optimal,
        b.extractor,
        b.info,
    )


def test_close_keeps_extraction_and_queries_working():
    p = _chain(200)
    sat = saturate(p, node_budget=2_000)
    before = sat.extract()
    sat.close()
    after = sat.extract()
    assert (after.programs, after.cost) == (before.programs, before.cost)
    assert after.info["region"] == before.info["region"]
    assert sat.class_of(p) == sat.class_of(before.program)  # the whole e-graph, built after close
    assert sat.egraph.classes[sat.class_of(p)].nodes[0].op is Ops.ADD
