"""The folding step reads e-nodes by op, dtype and shape (SNode), finds them by op (Snapshot), and runs
one sweep per family; its rule names are the ones eqsat_uopc.rules declares."""

import pytest
from egglog import bindings
from eqsat_uopc.rules import PYTHON_RULES

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.saturation import fold
from eqsat_uopc.saturation.fold import FoldStep
from eqsat_uopc.saturation.lower import Lowerer
from eqsat_uopc.saturation.serialize import Snapshot, SNode
from eqsat_uopc.saturation.terms import SCHEMA


def lowered(program: UOp) -> tuple[Lowerer, Snapshot]:
    """program lowered into a fresh e-graph of the bare schema (no rules), and its snapshot."""
    eg = bindings.EGraph()
    eg.parse_and_run_program(SCHEMA)
    lowerer = Lowerer(eg)
    lowerer.lower(program)
    lowerer.flush()
    return lowerer, Snapshot(eg)


def test_an_snode_says_its_op_dtype_and_shape():
    assert (SNode("Int", "i32", 3, ()).op, SNode("Int", "i32", 3, ()).dtype) == (Ops.CONST, dtypes.i32)
    add = SNode("Add", "f32[2,3]", None, ())
    assert (add.op, add.dtype, add.shape) == (Ops.ADD, dtypes.f32, (2, 3))
    assert SNode("Lt", "bool", None, ()).op is Ops.CMPLT and SNode("Lt", "bool", None, ()).shape == ()
    # an f32 constant holds an f32's bits (Flt) or a double that is no f32 value (Dbl)
    assert [SNode(c, "f32", 0, ()).holds_double for c in ("Flt", "Dbl")] == [False, True]
    assert SNode("Flt", "f32", 0, ()) == ("Flt", "f32", 0, ())  # the read-back index's key


def test_a_snapshot_finds_e_nodes_by_op_and_by_their_children():
    program = UOp(Ops.STACK, (UOp.const(1.5), UOp.const(0.1))).index(UOp.const(1))
    _, snap = lowered(program)
    consts = [n for _, n in snap.nodes_of(Ops.CONST)]  # i32, bool, f32, double in turn
    assert [(n.dtype, n.holds_double, n.const_value()) for n in consts] == [
        (dtypes.i32, False, 1),
        (dtypes.f32, False, 1.5),
        (dtypes.f32, True, 0.1),
    ]
    ((v, index),) = snap.nodes_of(Ops.INDEX)
    assert snap.class_of(Ops.INDEX, "f32", index.kids) is v
    assert snap.class_of(Ops.INDEX, "f32", index.kids[::-1]) is None
    assert snap.type_of(index.kids[0]) == (dtypes.f32, (2,)) and snap.type_of(v) == (dtypes.f32, ())
    assert snap.nodes_of(Ops.MUL) == []


def test_a_snapshot_reads_lists_that_share_cells_as_each_e_nodes_own_elements():
    # the lowering shares the cons cells of a common suffix; the read-back flattens each list whole
    x, y, z = UOp.param(0), UOp.param(1), UOp.param(2)
    stacks = (UOp.stack(x, y, z), UOp.stack(y, z), UOp.stack(z, y))
    eg = bindings.EGraph()
    eg.parse_and_run_program(SCHEMA)
    lowerer = Lowerer(eg)
    for s in stacks:
        lowerer.lower(s)
    assert len(lowerer.rows["LdCons"]) == 5  # (z), (y z), (x y z); (y z) shared; (y), (z y)
    lowerer.flush()
    snap = Snapshot(eg)
    read = {v: n.kids for v, n in snap.nodes_of(Ops.STACK)}
    name = {u: snap.by_name[i] for u, i in lowerer.ids.items()}
    assert read == {name[s]: tuple(name[e] for e in s.src) for s in stacks}
    wide = UOp.stack(*(UOp.const(i) for i in range(2_000)))
    _, snap = lowered(wide)
    ((_, node),) = snap.nodes_of(Ops.STACK)
    assert [snap.classes[k][0].const_value() for k in node.kids] == list(range(2_000))


@pytest.mark.parametrize(
    ("families", "unions", "matches"),
    [
        ({"fold"}, 0, {}),
        ({"identities"}, 1, {"identities/cmp-self": 1}),
        ({"evaluate"}, 1, {"evaluate/push-stack": 1}),
        ({"fold", "identities", "evaluate"}, 2, {"identities/cmp-self": 1, "evaluate/push-stack": 1}),
    ],
)
def test_each_family_runs_its_own_sweep(families, unions, matches):
    stack = UOp(Ops.STACK, (UOp.param(0), UOp.param(1)))
    lowerer, snap = lowered(stack < stack)
    step = FoldStep(lowerer, families)
    assert step.active and step(snap) == unions and step.matches == matches


def test_constants_fold_and_literals_evaluate():
    # STACK(1.5, 0.1)[1]: the double 0.1 gets its f32, the INDEX of a literal its value
    lowerer, snap = lowered(UOp(Ops.STACK, (UOp.const(1.5), UOp.const(0.1))).index(UOp.const(1)))
    step = FoldStep(lowerer, {"fold", "evaluate"})
    assert step(snap) == 2 and step.matches == {"fold/f64-to-f32": 1, "evaluate/literal": 1}
    assert not FoldStep(lowerer, {"linear", "symbolic"}).active


def test_the_rule_names_are_the_declared_ones():
    names = {v for k, v in vars(fold).items() if k.isupper() and isinstance(v, str)}
    declared = {r.name for r in PYTHON_RULES if r.family in ("fold", "identities", "evaluate")}
    assert names == declared
    assert [s.family for s in fold._SWEEPS] == ["fold", "identities", "evaluate"]
