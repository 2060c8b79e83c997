"""extract(): hand-built e-graphs with exact answers, the result checks, and the error messages."""

import random

import pytest
from eqsat_uopc.extract import (
    EXTRACTORS,
    EClass,
    EGraph,
    ENode,
    ExtractionError,
    GreedyDagExtractor,
    check_choice,
    check_result,
    cost_of,
    extract,
)
from eqsat_uopc.extract.random_egraph import random_egraph, random_program

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import ParamArg, UOp

i32 = dtypes.i32
X = UOp.param(0, i32)
Y = UOp.param(1, i32)


def cls(cid, *nodes, dtype=i32, shape=()):
    return EClass(cid, tuple(nodes), dtype, shape)


def n(op, *children, arg=None):
    return ENode(op, arg, tuple(children))


def leaf_classes():
    return {
        "x": cls("x", n(Ops.PARAM, arg=ParamArg(0, i32))),
        "y": cls("y", n(Ops.PARAM, arg=ParamArg(1, i32))),
        "c3": cls("c3", n(Ops.CONST, arg=3)),
    }


def tree_vs_dag() -> EGraph:
    """root = (x+y)*(x+y) [tree 7, dag 4]  or  x + max(y, 3) [tree 5, dag 5]: the optima differ."""
    classes = leaf_classes()
    classes["s"] = cls("s", n(Ops.ADD, "x", "y"))
    classes["m"] = cls("m", n(Ops.MAX, "y", "c3"))
    classes["r"] = cls("r", n(Ops.MUL, "s", "s"), n(Ops.ADD, "x", "m"))
    return EGraph(classes, ("r",))


def test_tree_and_dag_optima_differ():
    g = tree_vs_dag()
    tree = extract(g, "tree_size", "bottom_up")
    assert tree.program is X + Y.maximum(3)
    assert (tree.cost, tree.optimal, tree.extractor, tree.cost_model) == (5, True, "bottom_up", "tree_size")
    dag = extract(g, "dag_size", "exact")
    assert dag.program is (X + Y) * (X + Y)
    assert (dag.cost, dag.optimal, dag.bound, dag.extractor) == (4, True, 4, "exact")
    assert extract(g, "dag_size", "greedy_dag").program is (X + Y) * (X + Y)
    assert cost_of(dag.program, "tree_size") == 7
    assert dag.choice == {
        "x": n(Ops.PARAM, arg=ParamArg(0, i32)),
        "y": n(Ops.PARAM, arg=ParamArg(1, i32)),
        "s": n(Ops.ADD, "x", "y"),
        "r": n(Ops.MUL, "s", "s"),
    }


def greedy_trap() -> EGraph:
    """a and b each have a private 3-node term and a term through a shared 4-node chain t4.

    Alone, each is cheaper privately (1 + 3 < 1 + 4), which is what greedy DAG extraction sees;
    together the shared chain is paid once (2 + 4 < 2 + 3 + 3): dag 9 against greedy's 11.
    """
    classes = leaf_classes()
    chain = [("t1", Ops.ADD, "x"), ("t2", Ops.MUL, "t1"), ("t3", Ops.ADD, "t2"), ("t4", Ops.MUL, "t3")]
    for cid, op, src in chain:
        classes[cid] = cls(cid, n(op, src, "c3"))
    for cid, op, src in [("pa1", Ops.ADD, "x"), ("pa2", Ops.MUL, "pa1"), ("pa3", Ops.ADD, "pa2")]:
        classes[cid] = cls(cid, n(op, src, "x"))
    for cid, op, src in [("pb1", Ops.MUL, "x"), ("pb2", Ops.ADD, "pb1"), ("pb3", Ops.MUL, "pb2")]:
        classes[cid] = cls(cid, n(op, src, "x"))
    classes["a"] = cls("a", n(Ops.MAX, "t4", "x"), n(Ops.MAX, "pa3", "x"))
    classes["b"] = cls("b", n(Ops.MAX, "t4", "c3"), n(Ops.MAX, "pb3", "c3"))
    classes["r"] = cls("r", n(Ops.ADD, "a", "b"))
    return EGraph(classes, ("r",))


def test_exact_beats_greedy_on_a_trap():
    g = greedy_trap()
    greedy = extract(g, "dag_size", "greedy_dag")
    pa = ((X + X) * X + X).maximum(X)
    pb = ((X * X + X) * X).maximum(3)
    assert greedy.program is pa + pb
    assert (greedy.cost, greedy.optimal, greedy.bound) == (11, None, None)
    exact = extract(g, "dag_size", "exact")
    t4 = (((X + 3) * 3) + 3) * 3
    assert exact.program is t4.maximum(X) + t4.maximum(3)
    assert (exact.cost, exact.optimal, exact.bound) == (9, True, 9)
    assert extract(g, "dag_size", "auto").extractor == "exact"
    assert extract(g, "tree_size", "bottom_up").program is pa + pb


def self_loop() -> EGraph:
    """x = x * 1 after a merge: the class of x contains a node that uses itself."""
    classes = leaf_classes()
    classes["one"] = cls("one", n(Ops.CONST, arg=1))
    classes["x"] = cls("x", n(Ops.MUL, "x", "one"), n(Ops.PARAM, arg=ParamArg(0, i32)))
    classes["r"] = cls("r", n(Ops.ADD, "x", "x"), n(Ops.MUL, "x", "two"))
    classes["two"] = cls("two", n(Ops.CONST, arg=2))
    return EGraph(classes, ("r",))


@pytest.mark.parametrize("name", ["bottom_up", "greedy_dag", "exact"])
@pytest.mark.parametrize("cost", ["tree_size", "dag_size", "depth", "latency"])
def test_cycles_are_never_extracted(name, cost):
    r = extract(self_loop(), cost, name)
    assert r.program in (X + X, X * 2)
    assert r.choice["x"] == n(Ops.PARAM, arg=ParamArg(0, i32))


def test_depth_and_multiple_roots():
    g = tree_vs_dag()
    g2 = EGraph(g.classes, ("r", "s", "r"))
    r = extract(g2, "depth", "auto")
    assert r.programs == ((X + Y) * (X + Y), X + Y, (X + Y) * (X + Y))  # a tie at depth 3: first e-node
    assert (r.cost, r.optimal, r.extractor) == (3, True, "bottom_up")
    d = extract(g2, "dag_size")
    assert d.extractor == "exact" and d.cost == 4 and d.programs[0] is (X + Y) * (X + Y)


def test_check_choice_errors():
    g = tree_vs_dag()
    with pytest.raises(ExtractionError, match=r"^root 'r' has no chosen e-node$"):
        check_choice(g, {})
    needs = r"^e-class 'r' \(chosen MUL\(s, s\)\) needs child 's', which has no chosen e-node$"
    with pytest.raises(ExtractionError, match=needs):
        check_choice(g, {"r": n(Ops.MUL, "s", "s")})
    stray = r"^chosen e-node ADD\(x, x\) for e-class 'r' is not one of its e-nodes$"
    with pytest.raises(ExtractionError, match=stray):
        check_choice(g, {"r": n(Ops.ADD, "x", "x")})
    loop = self_loop()
    with pytest.raises(ExtractionError, match=r"^choice is cyclic: x -> x$"):
        choice = {"r": n(Ops.ADD, "x", "x"), "x": n(Ops.MUL, "x", "one"), "one": n(Ops.CONST, arg=1)}
        check_choice(loop, choice)


def test_unknown_extractor_and_registry():
    known = r"\(known: auto, bottom_up, egglog_dag, egglog_tree, exact, greedy_dag\)$"
    with pytest.raises(ExtractionError, match=r"^unknown extractor 'fast' " + known):
        extract(tree_vs_dag(), "dag_size", "fast")
    assert {k: v.optimal_for for k, v in EXTRACTORS.items()} == {
        "bottom_up": "tree",
        "greedy_dag": None,
        "exact": "dag",
        "egglog_tree": None,
        "egglog_dag": None,
    }


def test_egglog_extractors_need_the_egglog_handle():
    with pytest.raises(ExtractionError, match=r"^extractor 'egglog_tree' needs the egglog e-graph"):
        extract(tree_vs_dag(), "dag_size", "egglog_tree")


def test_hill_climbing_lets_a_root_reuse_another_root():
    """roots p = True and r2 = x // y | where(p, x, x): alone r2's e-nodes tie (3 classes each), so plain
    greedy takes the first; reusing the root p makes the WHERE one cheaper in total (3 against 4)."""
    classes = leaf_classes()
    classes["p"] = cls("p", n(Ops.CONST, arg=True), dtype=dtypes.bool)
    classes["r2"] = cls("r2", n(Ops.FLOORDIV, "x", "y"), n(Ops.WHERE, "p", "x", "x"))
    g = EGraph(classes, ("p", "r2"))
    plain = extract(g, "dag_size", GreedyDagExtractor(improve=False))
    assert (plain.programs, plain.cost, plain.extractor) == ((UOp.const(True), X // Y), 4, "greedy_dag")
    for name in ("greedy_dag", "exact"):
        r = extract(g, "dag_size", name)
        assert (r.programs, r.cost) == ((UOp.const(True), UOp.const(True).where(X, X)), 3)


def _needs_three_branch_and_bound_nodes() -> EGraph:
    # 90 e-nodes whose ILP takes three solves of one branch-and-bound node each (two rounds of cuts)
    rng = random.Random(42)
    return random_egraph(rng, [random_program(rng, 20, 3) for _ in range(12)], merges=80)


def test_exact_branch_limit_stops_the_search_at_the_same_place_every_time():
    g = _needs_three_branch_and_bound_nodes()
    full = extract(g, "dag_size", "exact", branch_limit=None)
    assert (full.cost, full.optimal, full.info["bb_nodes"], full.info["rounds"]) == (24, True, 3, 3)
    assert "limit" not in full.info
    for _ in range(2):  # a count, not a time: the same result under any load
        cut = extract(g, "dag_size", "exact", branch_limit=2)
        assert (cut.cost, cut.optimal, cut.bound) == (25, False, 24)
        assert cut.info["status"] == "Branch limit reached"
        assert cut.info["limit"] == "branch_limit 2 reached (2 branch-and-bound nodes, 2 solves)"
    one = extract(g, "dag_size", "exact", branch_limit=1)
    assert one.info["limit"] == "branch_limit 1 reached (1 branch-and-bound node, 1 solve)"
    assert extract(g, "dag_size", "exact").optimal is True  # the default, AUTO_BRANCH_LIMIT, is ample here


def test_exact_time_limit_returns_its_best_unproved():
    rng = random.Random(2000)
    g = random_egraph(rng, [random_program(rng, 80, 4) for _ in range(71)], merges=710)
    greedy = extract(g, "dag_size", "greedy_dag")
    r = extract(g, "dag_size", "exact", time_limit=0)
    assert (r.optimal, r.info["status"]) == (False, "Time limit reached")
    assert r.info["limit"] == (
        "time_limit 0 s reached (wall-clock: under another load the search stops elsewhere, with another "
        "result)"
    )
    assert r.cost <= greedy.cost
    assert g.num_enodes > 400  # above AUTO_EXACT_MAX_ENODES, "auto" is the greedy DAG extractor
    assert extract(g, "dag_size", "auto", time_limit=0).extractor == "greedy_dag"


class OpCosts:
    """A DAG cost model from per-op costs (default 1); the constants 7 and 3 cost 5 and 2."""

    kind = "dag"
    name = "op_costs"

    def __init__(self, table):
        self.table = table

    def node_cost(self, op, arg, dtype, shape):
        if op is Ops.CONST and arg in (7, 3):
            return {7: 5, 3: 2}[arg]
        return self.table.get(op, 1)


def test_exact_cuts_a_cycle_the_relaxation_chose():
    """a = 7 | b*b;  b = a+a | max(c, d) | e % f;  e = 3 | a // a;  f = c*c; costs: 7: 5, 3: 2, MAX: 2.

    {a, b, e} is one cycle class set. Its up-front cut is met by e's leaf 3, so the first solve takes
    the cycle a = b*b, b = a+a (cost 4 with that leaf); the cut for {a, b} then forces an exit: a = 7
    or b = max(c, d), both cost 5, proved in round 2 (through e % f it would cost 6)."""
    classes = {
        "a": cls("a", n(Ops.CONST, arg=7), n(Ops.MUL, "b", "b")),
        "b": cls("b", n(Ops.ADD, "a", "a"), n(Ops.MAX, "c", "d"), n(Ops.FLOORMOD, "e", "f")),
        "c": cls("c", n(Ops.CONST, arg=1)),
        "d": cls("d", n(Ops.CONST, arg=2)),
        "e": cls("e", n(Ops.CONST, arg=3), n(Ops.FLOORDIV, "a", "a")),
        "f": cls("f", n(Ops.MUL, "c", "c")),
    }
    g = EGraph(classes, ("a",))
    m = UOp.const(1).maximum(2)
    model = OpCosts({Ops.MAX: 2})
    r = extract(g, model, "exact")
    assert (r.cost, r.optimal, r.bound, r.info["rounds"]) == (5, True, 5, 2)
    assert r.program in (m * m, UOp.const(7))
    assert extract(g, model, "greedy_dag").cost == 5
    assert extract(g, OpCosts({Ops.MAX: 20}), "exact").program is UOp.const(7)


def test_necessary_classes():
    """r = a + b | c; a = x * y | x; b = a * 2 | b + 0 (self-loop); c = c * 1 (no finite term)."""
    from eqsat_uopc.extract import COST_MODELS
    from eqsat_uopc.extract.ilp import necessary_classes
    from eqsat_uopc.extract.problem import ExtractionProblem

    classes = leaf_classes()
    classes["two"] = cls("two", n(Ops.CONST, arg=2))
    classes["zero"] = cls("zero", n(Ops.CONST, arg=0))
    classes["one"] = cls("one", n(Ops.CONST, arg=1))
    classes["a"] = cls("a", n(Ops.MUL, "x", "y"), n(Ops.MAX, "x", "x"))
    classes["b"] = cls("b", n(Ops.MUL, "a", "two"), n(Ops.ADD, "b", "zero"))
    classes["c"] = cls("c", n(Ops.MUL, "c", "one"))
    classes["r"] = cls("r", n(Ops.ADD, "a", "b"), n(Ops.MAX, "c", "c"))
    p = ExtractionProblem(EGraph(classes, ("r",)), COST_MODELS["dag_size"])
    nec = necessary_classes(p, [True] * p.num_nodes)
    ids = p.class_ids
    named = {ids[k]: None if s is None else sorted(ids[d] for d in s) for k, s in enumerate(nec)}
    assert named == {
        "x": ["x"],
        "y": ["y"],
        "c3": ["c3"],
        "two": ["two"],
        "zero": ["zero"],
        "one": ["one"],
        "a": ["a", "x"],
        "b": ["a", "b", "two", "x"],
        "c": None,
        "r": ["a", "b", "r", "two", "x"],
    }


def test_check_result_catches_tampering():
    import dataclasses

    g = tree_vs_dag()
    r = extract(g, "dag_size")
    check_result(g, r)
    with pytest.raises(ExtractionError, match=r"^reported cost 3, but the programs cost 4$"):
        check_result(g, dataclasses.replace(r, cost=3))
    with pytest.raises(ExtractionError, match=r"^choice holds e-classes no root needs: c3$"):
        check_result(g, dataclasses.replace(r, choice={**r.choice, "c3": n(Ops.CONST, arg=3)}))
    with pytest.raises(ExtractionError, match=r"^the choice does not rebuild the reported programs$"):
        check_result(g, dataclasses.replace(r, programs=(X + Y,)))
    user = extract(g, OpCosts({Ops.MUL: 10}))  # a user model is not in COST_MODELS: pass it
    assert user.program is X + Y.maximum(3)
    check_result(g, user, OpCosts({Ops.MUL: 10}))


def test_a_20000_deep_chain():
    """Iterative everywhere, and no quadratic sets: greedy hands a chain's set down, exact sees it forced."""
    u = X
    for i in range(20000):
        u = u + (i % 7)
    g = EGraph.from_programs(u)
    for name in ("bottom_up", "greedy_dag", "exact"):
        r = extract(g, "dag_size", name)
        assert r.program is u and r.cost == 20008  # 20000 ADDs, x and the constants 0..6
    assert (r.optimal, r.info["status"]) == (True, "forced")  # the exact one
    assert extract(g, "depth").cost == 20001


class FakeEgglog:
    """Stands in for the saturation layer's handle: returns what it was given, records the calls."""

    def __init__(self, answer):
        self.answer = answer
        self.calls = []

    def extract(self, mode, roots):
        self.calls.append((mode, tuple(roots)))
        return self.answer


def test_egglog_extractors_accept_a_choice_or_programs():
    base = tree_vs_dag()
    handle = FakeEgglog([X + Y.maximum(3)])
    g = EGraph(base.classes, base.roots, {"egglog": handle})
    r = extract(g, "dag_size", "egglog_tree")
    assert (r.program, r.cost, r.optimal, r.extractor) == (X + Y.maximum(3), 5, None, "egglog_tree")
    handle.answer = {"r": n(Ops.MUL, "s", "s"), "s": n(Ops.ADD, "x", "y"), "x": base.classes["x"].nodes[0],
                     "y": base.classes["y"].nodes[0]}  # fmt: skip
    assert extract(g, "dag_size", "egglog_dag").program is (X + Y) * (X + Y)
    assert handle.calls == [("tree", ("r",)), ("dag", ("r",))]
    handle.answer = [X * Y]
    stray = r"^extractor 'egglog_dag': egglog's program has MUL\(x, y\), which is in no e-class$"
    with pytest.raises(ExtractionError, match=stray):
        extract(g, "dag_size", "egglog_dag")
    handle.answer = {"r": n(Ops.ADD, "y", "x")}
    foreign = r"egglog chose ADD\(y, x\) for e-class 'r', not one of its e-nodes$"
    with pytest.raises(ExtractionError, match=foreign):
        extract(g, "dag_size", "egglog_dag")
    handle.answer = 42
    with pytest.raises(ExtractionError) as e:
        extract(g, "dag_size", "egglog_dag")
    assert (
        str(e.value)
        == "extractor 'egglog_dag': egglog returned 42; expected a choice or one UOp per root (1)"
    )


@pytest.mark.parametrize("name", ["bottom_up", "greedy_dag", "exact"])
def test_a_root_without_a_finite_term(name):
    classes = leaf_classes()
    classes["r"] = cls("r", n(Ops.MUL, "r", "x"))  # r = r * x: only infinite terms
    msg = rf"^extractor '{name}' chose no e-node for root 'r' \(does it have an acyclic term\?\)$"
    with pytest.raises(ExtractionError, match=msg):
        extract(EGraph(classes, ("r",)), "dag_size", name)


def test_a_candidate_the_heuristic_missed_replaces_its_result():
    g = greedy_trap()
    t4 = (((X + 3) * 3) + 3) * 3
    best = t4.maximum(X) + t4.maximum(3)
    res = extract(g, "dag_size", "greedy_dag", candidates=[best])
    assert (res.program, res.cost, res.extractor, res.info["candidate"]) == (best, 9, "greedy_dag", 0)
    assert res.optimal is None  # the heuristic proved nothing about the candidate either
    check_result(g, res)
    # a candidate that costs more, or that the e-graph does not hold, changes nothing
    pa_pb = ((X + X) * X + X).maximum(X) + ((X * X + X) * X).maximum(3)
    for cand in (pa_pb, X + Y, (X + X) * X):
        kept = extract(g, "dag_size", "greedy_dag", candidates=[cand])
        assert kept.program is pa_pb and "candidate" not in kept.info


def test_choice_of_maps_programs_to_e_nodes_or_says_none():
    g = tree_vs_dag()
    assert g.choice_of(((X + Y) * (X + Y),)) == {
        "x": n(Ops.PARAM, arg=ParamArg(0, i32)),
        "y": n(Ops.PARAM, arg=ParamArg(1, i32)),
        "s": n(Ops.ADD, "x", "y"),
        "r": n(Ops.MUL, "s", "s"),
    }
    assert g.choice_of((X + Y,)) is None  # in the e-graph, but not in the root's e-class
    assert g.choice_of((X * Y,)) is None  # not an e-node of it
    assert g.choice_of((X + Y, X)) is None  # one program per root


def sidestep_egraph(with_q: bool) -> EGraph:
    """m = (x + -2) % 4 or (x + 2) % 4, and (with q) r = m + q where q uses the constant 1 or 2 (an
    abstract e-graph: only its costs matter). Each switch alone costs nothing; together they share
    the constant 2: DAG cost 8 against 9."""
    classes = leaf_classes()
    for cid, k in (("c1", 1), ("c2", 2), ("cm2", -2), ("c4", 4)):
        classes[cid] = cls(cid, n(Ops.CONST, arg=k))
    classes["sm"] = cls("sm", n(Ops.ADD, "x", "cm2"))
    classes["sp"] = cls("sp", n(Ops.ADD, "x", "c2"))
    classes["m"] = cls("m", n(Ops.FLOORMOD, "sm", "c4"), n(Ops.FLOORMOD, "sp", "c4"))
    if not with_q:
        return EGraph(classes, ("m",))
    classes["q"] = cls("q", n(Ops.ADD, "y", "c1"), n(Ops.ADD, "y", "c2"))
    classes["r"] = cls("r", n(Ops.ADD, "m", "q"))
    return EGraph(classes, ("r",))


def test_greedy_dag_sidesteps_to_share_and_undoes_sidesteps_that_do_not_pay():
    g = sidestep_egraph(with_q=True)
    plain = extract(g, "dag_size", GreedyDagExtractor(improve=False))
    assert (plain.program, plain.cost) == (((X + -2) % 4) + (Y + 1), 9)
    res = extract(g, "dag_size", "greedy_dag")
    assert (res.program, res.cost) == (((X + 2) % 4) + (Y + 2), 8)
    assert extract(g, "dag_size", "exact").cost == 8
    # alone, m's sidestep to (x + 2) % 4 pays nothing: undone, the first choice stays
    alone = extract(sidestep_egraph(with_q=False), "dag_size", "greedy_dag")
    assert (alone.program, alone.cost) == ((X + -2) % 4, 5)
