"""A tinygrad kernel's integer index expressions, as programs here and back into the kernel.

After tinygrad's own simplification (codegen's "final symbolic" pass, once index arithmetic has its
concrete int32 dtype), a kernel is a graph whose integer and boolean ALU subgraphs compute the
addresses of its loads and stores, their gates and valid masks, loop-carried conditions and the
integers that float math reads (an arange's `CAST`). `kernel_expressions` finds them:

- a node is *pure* when it is an int32 or bool constant, a loop or GPU index (`RANGE`, `SPECIAL`),
  a kernel variable, or an ALU op the bridge translates exactly (bridge.ALU_OP_NAMES) over pure
  nodes; an int32 or bool node that is not an ALU op (a load, a conversion) is an *opaque leaf*: an
  input of the programs, assumed to be any int32 (or bool) value; an ALU op over anything else (a
  comparison of floats, a valid mask's `where(gate, idx, Invalid)`) is not pure, and uses its pure
  operands;
- the *roots* are the pure nodes with operands (not leaves) that some node outside the pure
  subgraph uses: an INDEX, a STORE, a gate, a float WHERE, a CAST to float. Expressions below a
  loop's or GPU index's extent are left alone (their RANGE would change identity).

Every root becomes one program over shared inputs: each leaf one input slot, in the order met,
bounded as tinygrad bounds it (a RANGE over [0, extent - 1], a variable over its range; an opaque
leaf unbounded). `KernelExpressions.rebuild` turns programs over those inputs back into tinygrad
nodes over the kernel's very own leaves, and `substitute` puts them in place of the roots.

`lowered_int_ops` counts what tinygrad's code generator will emit for a set of expressions: it
runs the decompositions codegen runs after "final symbolic" (floor division to truncating
division or shifts, magic-number division, MAX to a comparison, ...) for the renderer and counts the
integer and boolean ALU nodes. That is the measure the mode keeps a kernel's replacement by.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.tinygrad.bridge import (
    ALU_OP_NAMES,
    TinygradError,
    from_tinygrad,
    is_variable,
    tinygrad_ops,
    to_tinygrad,
)

__all__ = ["KernelExpressions", "count_int_ops", "kernel_expressions", "lowered_int_ops"]


@dataclass(frozen=True)
class KernelExpressions:
    """The index expressions of one kernel: tinygrad's roots and their programs here, over shared inputs.

    roots: the tinygrad nodes (int32 or bool), in the kernel's toposort order.
    programs: one program per root (i32 or bool), inputs in slots 0.. of `leaves`.
    leaves: the tinygrad node each input slot stands for.
    skipped: roots left alone, with the reason (an op without an exact translation).
    """

    roots: tuple[Any, ...]
    programs: tuple[UOp, ...]
    leaves: tuple[Any, ...]
    skipped: tuple[tuple[Any, str], ...] = ()
    gates: tuple[UOp | None, ...] = ()  # per root: the valid mask every use of it is under, or None
    masked_uses: tuple[tuple[Any, ...], ...] = ()  # per root with a gate: its `where(gate, root, Invalid)`s

    def gate(self, k: int) -> UOp | None:
        """The bool program of the valid mask root k is read under, or None: every use of it outside
        the pure subgraph is an index `where(gate, root, Invalid)` with this one gate (uses inside
        other roots' expressions are theirs: each root is a program of its own), so its value
        matters only where the gate holds."""
        return self.gates[k] if k < len(self.gates) else None

    def rebuild(self, programs: Sequence[UOp]) -> tuple[Any, ...]:
        """tinygrad nodes for programs over this kernel's inputs, over the kernel's own leaves
        (shared subterms built once: tinygrad's UOps are hash-consed too)."""
        tops = tinygrad_ops()
        leaves = dict(enumerate(self.leaves))
        return tuple(to_tinygrad(p, leaves=leaves, int_dtype=tops.dtypes.int32) for p in programs)

    def substitute(self, sink: Any, replacements: Sequence[Any], masked: Collection[int] = ()) -> Any:
        """The kernel with each root replaced by the tinygrad node at the same position; a root in
        `masked` (a replacement equal to it only where its gate holds) only in its masked uses, so
        that the other roots' expressions that contain it keep its value everywhere."""
        if len(replacements) != len(self.roots):
            raise TinygradError(f"{len(replacements)} replacements for {len(self.roots)} roots")
        everywhere = {
            r: n for k, (r, n) in enumerate(zip(self.roots, replacements, strict=True)) if k not in masked
        }
        mapping: dict[Any, Any] = dict(everywhere)
        for k in masked:
            if not self.masked_uses[k]:
                raise TinygradError(f"root {k} has no gate: it cannot be replaced under one")
            for use in self.masked_uses[k]:
                gate, _, invalid = use.src
                mapping[use] = use.replace(src=(everywhere.get(gate, gate), replacements[k], invalid))
        return sink.substitute(mapping)


def _int_like(tops: Any) -> tuple[Any, ...]:
    return (tops.dtypes.int32, tops.dtypes.bool)


def kernel_expressions(sink: Any) -> KernelExpressions:
    """The index expressions of a kernel after tinygrad's final symbolic pass (module docstring)."""
    tops = tinygrad_ops()
    TOps = tops.Ops
    int_like = _int_like(tops)
    alu = {getattr(TOps, name) for name in ALU_OP_NAMES}
    variables = (TOps.RANGE, TOps.SPECIAL)
    nodes = list(sink.toposort())
    pure: dict[Any, bool] = {}
    leaf: dict[Any, UOp] = {}
    leaves: list[Any] = []

    def add_leaf(n: Any, bounds: tuple[int, int] | None) -> None:
        dtype = dtypes.bool if n.dtype == tops.dtypes.bool else dtypes.i32
        if dtype is dtypes.bool or bounds == (I32_MIN, I32_MAX):
            bounds = None
        leaf[n] = UOp.param(len(leaves), dtype, bounds=bounds)
        leaves.append(n)

    for n in nodes:
        if n.dtype not in int_like:
            pure[n] = False
        elif n.op is TOps.CONST:
            pure[n] = isinstance(n.arg, bool | int)
        elif n.op in variables or is_variable(n, tops):
            pure[n] = True
            lo, hi = (0, n.src[0].vmax - 1) if n.op in variables else n.arg.vmin_vmax
            add_leaf(n, (max(int(lo), I32_MIN), min(int(hi), I32_MAX)))
        elif n.op in tops.GroupOp.ALU:  # computed here, from a value of another kind or an op with no
            pure[n] = n.op in alu and all(pure[s] for s in n.src)  # exact translation: used, not computed
        else:  # an int or bool the expressions read but do not compute (a load): any value of its dtype
            pure[n] = True
            add_leaf(n, None)
    extents: set[Any] = set()
    for n in nodes:
        if n.op in variables:
            extents.update(n.src[0].toposort())
    roots: dict[Any, None] = {}
    for n in nodes:
        if pure[n] and n not in leaf:
            continue
        for s in n.src:
            if (
                pure[s]
                and s.op is not TOps.CONST
                and s not in leaf
                and s not in extents
                and n.op not in variables
            ):
                roots.setdefault(s, None)
    users: dict[Any, list[Any]] = {}  # the uses of each node outside the pure subgraph
    for n in nodes:
        if pure[n] and n not in leaf:
            continue
        for s in n.src:
            users.setdefault(s, []).append(n)
    programs, kept, skipped, gates, masked_uses = [], [], [], [], []
    for r in roots:
        try:
            programs.append(from_tinygrad(r, {}, leaves=leaf))
            kept.append(r)
        except TinygradError as e:
            skipped.append((r, str(e)))
            continue
        gates.append(_gate(r, users.get(r, []), pure, leaf))
        masked_uses.append(tuple(users[r]) if gates[-1] is not None else ())
    return KernelExpressions(
        tuple(kept), tuple(programs), tuple(leaves), tuple(skipped), tuple(gates), tuple(masked_uses)
    )


def _gate(root: Any, users: list[Any], pure: dict[Any, bool], leaf: dict[Any, UOp]) -> UOp | None:
    """The valid mask of an index root: when every use of it outside the pure subgraph is
    `where(gate, root, Invalid)` with one pure gate (tinygrad's masked index), that gate as a program
    over the kernel's inputs, else None."""
    gates = {u.src[0] for u in users}
    if not users or len(gates) != 1:
        return None
    for u in users:
        if not (u.op.name == "WHERE" and len(u.src) == 3 and u.src[1] is root and u.src[0] is not root):
            return None
        if not u.src[2].is_invalid:  # a property of tinygrad's UOp
            return None
    (gate,) = gates
    if not pure.get(gate, False):
        return None
    try:
        return from_tinygrad(gate, {}, leaves=leaf)
    except TinygradError:
        return None


def lowered_int_ops(expressions: Sequence[Any], renderer: Any) -> int:
    """The integer and bool ALU nodes tinygrad emits for these expressions on `renderer`: codegen's
    decompositions after its final symbolic pass (early, dtype and late), then a count of the
    distinct ALU nodes of int or bool dtype (a subterm shared by two expressions counted once)."""
    if not expressions:
        return 0
    tops = tinygrad_ops()
    from tinygrad.codegen.decomp.dtype import pm_dtype_decomps
    from tinygrad.codegen.decomp.op import get_late_rewrite_patterns, get_simplifying_rewrite_patterns
    from tinygrad.helpers import DISABLE_FAST_IDIV
    from tinygrad.uop.symbolic import symbolic_simple
    from tinygrad.uop.weak import pm_commit_weak

    graph_rewrite = tops.graph_rewrite
    supported = tuple(renderer.code_for_op.keys())
    sink = tops.UOp.sink(*expressions)
    early = symbolic_simple + get_simplifying_rewrite_patterns(supported)
    sink = graph_rewrite(sink, early)
    sink = graph_rewrite(sink, pm_dtype_decomps + pm_commit_weak, ctx=(set(), renderer))
    late = early + get_late_rewrite_patterns(supported, bool(DISABLE_FAST_IDIV))
    sink = graph_rewrite(sink, late, ctx=renderer)
    return count_int_ops(sink.toposort())


def count_int_ops(uops: Any) -> int:
    """The integer ALU ops among `uops` (tinygrad's GroupOp.ALU): those with an integer result, and
    those with a bool result computed from integers or bools (a comparison of indices, a gate's
    AND), not a comparison of floats."""
    tops = tinygrad_ops()
    tdt = tops.dtypes

    def integral(dtype: Any) -> bool:
        return tdt.is_int(dtype) or dtype == tdt.bool

    return sum(
        1
        for u in uops
        if u.op in tops.GroupOp.ALU
        and (tdt.is_int(u.dtype) or (u.dtype == tdt.bool and all(integral(s.dtype) for s in u.src)))
    )
