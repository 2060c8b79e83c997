"""The eqsat mode inside tinygrad: kernels' index expressions replaced, outputs unchanged, never larger.

The workload suite runs on tinygrad's PYTHON device (it interprets kernels: no compiler needed),
always; a few workloads also run on the CPU device when clang, the compiler tinygrad's CPU device
calls, is installed (docs/DESIGN.md, "tinygrad with eqsat inside").
"""

from __future__ import annotations

import os
import shutil

import pytest

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation import SaturationConfig, Seeds
from eqsat_uopc.saturation.hooks import RunSetup
from eqsat_uopc.tinygrad import mode
from eqsat_uopc.tinygrad.bridge import tinygrad_available
from eqsat_uopc.tinygrad.effect import measure_workload
from eqsat_uopc.tinygrad.kernel import kernel_expressions
from eqsat_uopc.tinygrad.simplifier import SimplifierSettings, StackElements, never_overflows
from eqsat_uopc.tinygrad.suite import SUITE

pytestmark = pytest.mark.skipif(not tinygrad_available(), reason="tinygrad is not installed")


@pytest.fixture(scope="module")
def suite_effects():
    return {name: measure_workload(w, "PYTHON", timing_rounds=0) for name, w in SUITE.items()}


def test_the_suite_has_the_workloads_the_issue_lists():
    assert len(SUITE) >= 20
    for needed in (
        "conv2d_dilation",
        "conv2d_groups",
        "conv_transpose2d",
        "max_pool_odd",
        "avg_pool_padding",
    ):
        assert needed in SUITE
    for needed in ("pad_flip", "gather", "embedding", "one_hot", "cumsum", "matmul_odd"):
        assert needed in SUITE
    for needed in ("interpolate_linear", "causal_attention", "resnet_block", "transformer_block"):
        assert needed in SUITE


def test_outputs_are_bit_identical_and_no_kernel_has_more_integer_ops(suite_effects):
    assert [name for name, e in suite_effects.items() if not e.same_outputs] == []
    larger = [
        (e.workload, k.name) for e in suite_effects.values() for k in e.kernels if k.ops_with > k.ops_without
    ]
    assert larger == []
    errors = [(k.name, k.outcome) for e in suite_effects.values() for k in e.kernels if "error" in k.outcome]
    assert errors == []
    assert all(k.outcome != "not seen by the mode" for e in suite_effects.values() for k in e.kernels)


def test_the_mode_makes_these_kernels_smaller(suite_effects):
    """Exact integer op counts of tinygrad's linearized programs on the PYTHON device, without and
    with the mode (tinygrad 0.14.0)."""
    names = ("pad_flip", "conv_transpose2d", "avg_pool_padding", "conv2d_groups", "conv2d_asymmetric")
    got = {name: (suite_effects[name].ops_without, suite_effects[name].ops_with) for name in names}
    # pad_flip and avg_pool_padding: a remainder of a masked index, one period under its mask;
    # conv_transpose2d: its masks pin parities, which share its divisions and imply its bounds checks;
    # avg_pool_padding and conv2d_groups: a padding mask `0 < x + y` reads an index's `2*x + y`;
    # conv2d_asymmetric, conv2d_groups and pad_flip: a sum is a multiple of a mask's sum, and every
    # sum is spelled so that the PYTHON renderer's MULACC fuses its products; conv_transpose2d: its
    # four parity masks packed into one comparison each of the two remainders; conv2d_groups: the
    # mask reads a multiple's multiplicand; conv2d_asymmetric: offsets of one sum; pad_flip: two
    # sums over their common parts
    assert got == {
        "pad_flip": (28, 14),
        "conv_transpose2d": (72, 29),
        "avg_pool_padding": (37, 35),
        "conv2d_groups": (38, 33),
        "conv2d_asymmetric": (28, 24),
    }
    smaller = [k for e in suite_effects.values() for k in e.kernels if k.ops_with < k.ops_without]
    assert all(k.outcome == "smaller" and k.changed > 0 for k in smaller)
    assert len(smaller) >= 8


def test_a_kernel_is_one_saturation_run():
    import tinygrad.codegen as codegen

    with mode.simplifying() as session:
        from tinygrad.helpers import Context

        with Context(DEV="PYTHON"):
            mode.forget_compiled()
            SUITE["conv_transpose2d"].run()
    assert codegen.graph_rewrite is not mode._graph_rewrite  # the wrappers are gone with the mode
    [report] = session.reports
    assert (report.saturations, report.expressions, report.outcome) == (1, 28, "smaller")
    assert session.summary().startswith(
        "eqsat: 1 kernels, 1 with fewer integer ops, 0 errors; integer ops 72 -> 29;"
    )


def test_per_expression_runs_one_saturation_per_expression():
    from tinygrad.helpers import Context

    with mode.simplifying(per_expression=True) as session, Context(DEV="PYTHON"):
        mode.forget_compiled()
        SUITE["pad_flip"].run()
    [report] = session.reports
    assert (report.saturations, report.expressions) == (3, 3)


def test_the_mode_keeps_its_own_compiled_kernels():
    """A kernel compiled outside the mode is compiled again inside, and the other way round."""
    from tinygrad.helpers import Context

    with Context(DEV="PYTHON"):
        mode.forget_compiled()
        SUITE["pad_flip"].run()
        with mode.simplifying() as first:
            SUITE["pad_flip"].run()
        with mode.simplifying() as second:
            SUITE["pad_flip"].run()  # the mode's kernel, compiled by `first`: nothing to report
        with mode.simplifying(node_budget=5_000) as other:
            SUITE["pad_flip"].run()  # other settings: compiled again
        mode.forget_compiled()
    assert (len(first.reports), len(second.reports), len(other.reports)) == (1, 0, 1)


def test_nested_modes_and_disable():
    with mode.simplifying() as outer:
        with mode.simplifying(rlimit=1_000_000) as inner:
            assert mode.active_session() is inner
        assert mode.active_session() is outer
    assert mode.active_session() is None
    with pytest.raises(mode.ModeError, match=r"^the eqsat mode is not on: nothing to disable$"):
        mode.disable()


def test_the_environment_variable(monkeypatch):
    monkeypatch.setenv("EQSAT", "yes")
    with pytest.raises(
        mode.ModeError, match=r"^EQSAT='yes': set EQSAT=1 to turn the mode on, EQSAT=0 to leave it off$"
    ):
        mode.enable_from_environment()
    monkeypatch.setenv("EQSAT", "0")
    assert mode.enable_from_environment() is None and mode.active_session() is None
    monkeypatch.setenv("EQSAT", "1")
    session = mode.enable_from_environment()
    try:
        assert mode.active_session() is session
    finally:
        mode.disable()


def test_a_tinygrad_without_the_pass_is_refused(monkeypatch):
    import tinygrad.codegen as codegen

    def full_rewrite_to_sink(ast, ren, optimize=True):  # a codegen that has no "final symbolic" pass
        return ast

    monkeypatch.setattr(codegen, "full_rewrite_to_sink", full_rewrite_to_sink)
    with pytest.raises(mode.ModeError, match=r"^tinygrad's codegen has no pass named 'final symbolic'"):
        mode.enable()
    assert mode.active_session() is None


def test_an_unproved_change_leaves_the_kernel_as_tinygrad_made_it(monkeypatch):
    from tinygrad.helpers import Context

    from eqsat_uopc.tinygrad import simplifier
    from eqsat_uopc.verify import Proof

    monkeypatch.setattr(simplifier, "prove_equivalent", lambda a, b, sem, *args, **kw: Proof("unknown", sem))
    with mode.simplifying() as session, Context(DEV="PYTHON"):
        mode.forget_compiled()
        SUITE["pad_flip"].run()
    [report] = session.reports
    assert (report.outcome, report.replaced, report.unproved, report.ops) == ("unproved", False, 3, 28)


def test_an_internal_error_leaves_the_kernel_as_tinygrad_made_it(monkeypatch):
    from tinygrad.helpers import Context

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(mode, "simplify_kernel", broken)
    with mode.simplifying() as session, Context(DEV="PYTHON"):
        mode.forget_compiled()
        outputs = SUITE["pad_flip"].run()
    assert [r.outcome for r in session.reports] == ["internal error: KeyError: 'boom'"]
    with Context(DEV="PYTHON"):
        mode.forget_compiled()
        assert [o.tobytes() for o in SUITE["pad_flip"].run()] == [o.tobytes() for o in outputs]


def test_kernel_expressions_of_a_hand_built_kernel():
    """Roots are the pure expressions a non-pure node uses; a load is an opaque leaf (any int32), a
    RANGE an input over [0, extent - 1]; a valid mask's where(gate, idx, Invalid) is not pure: its
    operands are the roots. Rebuilding a root's program gives back a node over the kernel's leaves."""
    from tinygrad.dtype import Invalid
    from tinygrad.dtype import dtypes as tdt
    from tinygrad.uop.ops import AxisType, KernelInfo, Ops
    from tinygrad.uop.ops import UOp as T

    buf, ibuf = T.placeholder((6,), tdt.float32, 0), T.placeholder((6,), tdt.int32, 1)
    r = T.range(6, 0, AxisType.LOOP, dtype=tdt.int32)
    loaded = T(Ops.LOAD, tdt.int32, (ibuf.index(r),))
    c = lambda v: T.const(v, tdt.int32)  # the kernel's constants are int32 once lowered
    gate = r < c(5)
    idx = (r * c(4) + loaded).alu(Ops.FLOORDIV, c(2))
    store = buf.index(gate.where(idx, T.const(Invalid, tdt.int32))).store(T.const(1.0, tdt.float32))
    ke = kernel_expressions(T.sink(store, arg=KernelInfo()))
    assert ke.roots == (gate, idx)
    assert ke.skipped == ()
    p0, p1 = UOp.param(0, bounds=(0, 5)), [UOp.param(k) for k, leaf in enumerate(ke.leaves) if leaf is loaded]
    assert ke.programs == (p0 < 5, (p0 * 4 + p1[0]) // 2)
    assert ke.rebuild(ke.programs) == (gate, idx)
    assert ke.gates == (None, p0 < 5)  # idx is read only under its valid mask; the gate is read as is


def test_a_masked_index_is_simplified_where_its_mask_holds():
    """pad_flip's load: its index `(L + 98) % 540` is read only where its mask holds, and the mask
    keeps L + 98 in [0, 539]: the remainder goes (proved as where(mask, index, 0) on both sides)."""
    from tinygrad.helpers import Context

    with mode.simplifying() as session, Context(DEV="PYTHON"):
        mode.forget_compiled()
        SUITE["pad_flip"].run()
    [report] = session.reports
    assert report.details["narrowed"] == 1
    assert (report.tinygrad_ops, report.ops, report.outcome, report.unproved) == (28, 14, "smaller", 0)


def test_stack_elements_pairs_the_seeds_elements():
    """A union of two STACKs does not union their elements: the hook pairs them, the bools under
    both CASTs."""
    x = UOp.param(0, bounds=(0, 100))
    a, b = (x * 4 + 8) // 4, ((x + 1) < 1)
    bundle = UOp.stack(a, b.cast(dtypes.i32))
    seeds = Seeds(bundle, root_terms={"greedy": UOp.stack(x + 2, UOp.const(False).cast(dtypes.i32))})
    setup = RunSetup(bundle, SaturationConfig(), tuple(bundle.toposort()), frozenset())
    assert StackElements.applies(setup)
    assert StackElements(setup).start(seeds).equalities == ((a, x + 2), (b, UOp.const(False)))


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        (UOp.param(0, bounds=(0, 2**30)) * 2, False),  # 2**31 leaves int32
        (UOp.param(0, bounds=(0, 2**30 - 1)) * 2, True),
        (UOp.param(0, bounds=(I32_MIN, -1)) + 1, True),
        (UOp.param(0, bounds=(I32_MIN + 1, 0)) + -1, True),
        (UOp.param(0, bounds=(I32_MIN, 0)) + -1, False),
        (UOp.param(0, bounds=(0, I32_MAX)) + 1, False),
        (UOp.param(0) // -1, False),  # MIN // -1
        (UOp.param(0) // 2, True),
        (UOp.param(0) + 0, False),  # unbounded: the full range, which the analysis cannot tell from a wrap
    ],
)
def test_never_overflows_at_the_int32_edges(program, expected):
    assert never_overflows(program) is expected


def test_settings_replace_reaches_the_saturation_config():
    s = SimplifierSettings().replace(node_budget=3_000, rlimit=7)
    assert (s.config.node_budget, s.rlimit, s.config.int_semantics) == (3_000, 7, "no_overflow")
    with pytest.raises(Exception, match=r"unknown setting 'budget'"):
        SimplifierSettings().replace(budget=1)


_CC = os.environ.get("CC", "clang")


@pytest.mark.skipif(
    shutil.which(_CC) is None, reason=f"tinygrad's CPU device compiles with {_CC}, not installed"
)
@pytest.mark.parametrize("name", ["conv_transpose2d", "pad_flip", "interpolate_linear"])
def test_on_the_cpu_device_outputs_are_bit_identical_and_kernels_smaller(name):
    e = measure_workload(SUITE[name], "CPU", timing_rounds=0)
    assert e.same_outputs
    assert all(k.ops_with <= k.ops_without for k in e.kernels)
    assert e.ops_with < e.ops_without
