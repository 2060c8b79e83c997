"""The serialized e-graph: e-node identity, validation errors, the JSON form, e-graphs of programs."""

import math

import pytest
from eqsat_uopc.extract import EClass, EGraph, EGraphError, ENode, extract
from eqsat_uopc.extract.builder import EGraphBuilder

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import ParamArg, UOp

i32 = dtypes.i32


def test_enodes_keep_apart_what_python_merges():
    consts = [ENode(Ops.CONST, v, ()) for v in (0, 0.0, -0.0, False)]
    assert len(set(consts)) == 4
    assert ENode(Ops.CONST, math.nan, ()) == ENode(Ops.CONST, float("nan"), ())
    assert repr(ENode(Ops.ADD, None, ("a", "b"))) == "ADD(a, b)"
    assert repr(ENode(Ops.CONST, 3, ())) == "CONST[3]()"


def test_from_programs_and_json_round_trip():
    x = UOp.param(0, dtypes.f32, (2,))
    prog = (x + UOp.const(-0.0, dtypes.f32, (2,))).reduce(Ops.MAX, 1).cast(i32)
    other = UOp.stack(UOp.const(math.nan), UOp.const(math.inf), UOp.const(1.5)).shrink(((1, 3),))
    g = EGraph.from_programs(prog, other)
    assert g.roots == ("u6", "u11") and g.num_eclasses == g.num_enodes == 12
    back = EGraph.from_json(g.to_json())
    assert back.classes == g.classes and back.roots == g.roots
    assert extract(back, "dag_size").programs == (prog, other)
    assert back.classes["u0"].nodes[0].arg == ParamArg(0, dtypes.f32, (2,))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: {}, "root 'u2' is not an e-class"),
        (
            lambda c: {**c, "u1": EClass("u9", c["u1"].nodes, i32, ())},
            "e-class stored under 'u1' has id 'u9'",
        ),
        (lambda c: {**c, "u1": EClass("u1", (), i32, ())}, "e-class 'u1' has no e-nodes"),
        (
            lambda c: {**c, "u1": EClass("u1", c["u1"].nodes, "i32", ())},
            "e-class 'u1' dtype must be a DType, got 'i32'",
        ),
        (
            lambda c: {**c, "u2": EClass("u2", (ENode(Ops.ADD, None, ("u0", "zz")),), i32, ())},
            "e-class 'u2' e-node 0 (ADD(u0, zz)) has child 'zz', not an e-class",
        ),
        (
            lambda c: {**c, "u1": EClass("u1", c["u0"].nodes, i32, ())},
            "e-node PARAM[ParamArg(slot=0, dtype=dtypes.i32, shape=(), addrspace=None)]() "
            "is in e-classes 'u0' and 'u1' (one e-class per e-node)",
        ),
    ],
)
def test_validate_errors(change, message):
    x = UOp.param(0, i32)
    g = EGraph.from_programs(x + 1)
    bad = EGraph(change(dict(g.classes)), g.roots)
    with pytest.raises(EGraphError) as e:
        bad.validate()
    assert str(e.value) == message
    with pytest.raises(EGraphError):
        extract(bad)
    with pytest.raises(EGraphError, match=r"^e-graph has no roots$"):
        EGraph(g.classes, ()).validate()


def test_json_errors():
    with pytest.raises(EGraphError, match=r"^bad e-graph JSON: KeyError: 'roots'$"):
        EGraph.from_json('{"classes": []}')
    with pytest.raises(EGraphError, match=r"^bad e-graph JSON: ValueError: unknown arg tag 'q'$"):
        EGraph.from_json('{"roots": ["a"], "classes": [{"id": "a", "dtype": "i32", "shape": [], '
                         '"nodes": [{"op": "CONST", "arg": {"q": 1}, "children": []}]}]}')  # fmt: skip


def test_parents_and_lookup():
    x = UOp.param(0, i32)
    g = EGraph.from_programs((x + 1) * x)
    assert g.parents()["u0"] == [
        ("u2", ENode(Ops.ADD, None, ("u0", "u1"))),
        ("u3", ENode(Ops.MUL, None, ("u2", "u0"))),
    ]
    assert g.lookup()[ENode(Ops.CONST, 1, ())] == "u1"


def test_builder_congruence_closure():
    b = EGraphBuilder()
    x, y = UOp.param(0, i32), UOp.param(1, i32)
    cx, cy = b.add_uop(x), b.add_uop(y)
    fx, fy = b.add_uop(x + 1), b.add_uop(y + 1)
    b.union(cx, cy)
    g = b.to_egraph([fx, fy])
    assert g.roots == ("c3", "c3")  # x + 1 and y + 1 merged by congruence
    assert g.classes["c0"].nodes == (ENode(Ops.PARAM, x.arg, ()), ENode(Ops.PARAM, y.arg, ()))
    with pytest.raises(ValueError, match=r"^cannot merge a i32 \(\) e-class with a f32 \(\) one$"):
        b.union(cx, b.add_uop(UOp.const(1.0)))


def test_class_of_finds_a_term_through_its_nodes_e_classes():
    x, y = UOp.param(0), UOp.param(1)
    b = EGraphBuilder()
    root = b.add_uop((x * 0) + y)
    b.union(b.add_uop(x * 0), b.add_uop(UOp.const(0)))  # 0 + y is then found through the class of x * 0
    g = b.to_egraph((root,))
    assert g.class_of(UOp.const(0) + y) == g.class_of((x * 0) + y) == g.roots[0]
    assert g.class_of(x * 0) == g.class_of(UOp.const(0)) != g.roots[0]
    assert g.class_of(y + UOp.const(0)) is None and g.class_of(x * 1) is None
