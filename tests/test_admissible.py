"""Extraction under no_overflow chooses no e-node that overflows where the input does not
(eqsat_uopc/saturation/admissible.py): on a hand-built e-graph, and end to end at the int32 edges."""

from eqsat_uopc.extract.egraph import EClass, EGraph, ENode

from eqsat_uopc import optimize
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import ParamArg, UOp
from eqsat_uopc.saturation.admissible import admissible_under_no_overflow
from eqsat_uopc.verify import prove_equivalent

I32_MIN, I32_MAX = -(2**31), 2**31 - 1


def _egraph():
    """-(a - b) beside the rules' -a + b: classes a, b, -1, b*-1, a + b*-1 (input), -a, -a + b."""
    i32 = dtypes.i32

    def c(cid, *nodes):
        return EClass(cid, tuple(nodes), i32, ())

    classes = {
        "a": c("a", ENode(Ops.PARAM, ParamArg(0, i32, ()), ())),
        "b": c("b", ENode(Ops.PARAM, ParamArg(1, i32, ()), ())),
        "m1": c("m1", ENode(Ops.CONST, -1, ())),
        "nb": c("nb", ENode(Ops.MUL, None, ("b", "m1"))),
        "d": c("d", ENode(Ops.ADD, None, ("a", "nb"))),
        "na": c("na", ENode(Ops.MUL, None, ("a", "m1"))),
        "r": c("r", ENode(Ops.MUL, None, ("d", "m1")), ENode(Ops.ADD, None, ("na", "b"))),
        "q": c("q", ENode(Ops.FLOORDIV, None, ("a", "b"))),
    }
    return EGraph(classes, ("r",)).validate()


UNBOUNDED = {"a": (I32_MIN, I32_MAX), "b": (I32_MIN, I32_MAX), "m1": (-1, -1)}


def test_a_new_sum_over_a_class_that_may_leave_int32_is_dropped_with_its_users():
    g = admissible_under_no_overflow(
        _egraph(), {"a", "b", "m1", "nb", "d", "r"}, {**UNBOUNDED, "na": (I32_MIN + 1, 2**31)}
    )
    assert sorted(g.classes) == ["a", "b", "d", "m1", "nb", "r"]  # -a (2**31 at a = MIN) and a // b gone
    assert g.classes["r"].nodes == (ENode(Ops.MUL, None, ("d", "m1")),)  # -a + b goes with -a


def test_new_e_nodes_whose_intervals_fit_int32_stay():
    small = {"a": (0, 100), "b": (1, 100), "m1": (-1, -1), "na": (-100, 0), "q": (0, 100)}
    g = admissible_under_no_overflow(_egraph(), {"a", "b", "m1", "nb", "d", "r"}, small)
    assert g is not None and g.num_enodes == _egraph().num_enodes  # nothing dropped: same e-graph
    divisor_may_be_zero = {**small, "b": (0, 100)}
    g = admissible_under_no_overflow(_egraph(), {"a", "b", "m1", "nb", "d", "r"}, divisor_may_be_zero)
    assert "q" not in g.classes  # a // b where b may be 0 and the input never divides by b


def test_the_whole_e_graph_when_the_root_would_be_left_with_nothing():
    g = _egraph()
    assert admissible_under_no_overflow(g, set(), {}) is g  # validation remains the check


def test_optimize_no_overflow_does_not_distribute_a_negation_into_a_new_overflow():
    a, b = UOp.param(0), UOp.param(1)
    program = (a + b * -1) * -1  # defined at a = -2**31, b = -1; -a is not
    result = optimize(program, int_semantics="no_overflow", validate=False)
    assert result.program is program
    assert prove_equivalent(program, result.program, "no_overflow", refinement=True).status == "proved"
    wrapped = optimize(program, int_semantics="wrap", validate=False).program
    assert (
        to_uir(wrapped)
        == "%0 = param : slot=0 dtype=i32\n%1 = mul %0, -1\n%2 = param : slot=1 dtype=i32\n%3 = add %1, %2\n"
    )


def test_optimize_no_overflow_distributes_where_the_bounds_say_it_fits():
    a, b = UOp.param(0, bounds=(0, 100)), UOp.param(1, bounds=(0, 100))
    result = optimize((a + b * -1) * -1, int_semantics="no_overflow", validate=False)
    assert to_uir(result.program) == (
        "%0 = param : slot=0 dtype=i32 bounds=(0, 100)\n%1 = mul %0, -1\n"
        "%2 = param : slot=1 dtype=i32 bounds=(0, 100)\n%3 = add %1, %2\n"
    )
