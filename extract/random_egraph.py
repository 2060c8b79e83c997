"""Random well-typed e-graphs, for differential tests and benchmarks of extractors.

`EGraphBuilder` is a small e-graph (union-find over e-classes, a hash-cons of e-nodes, congruence
closure by `rebuild`) that every e-node enters through UOp's constructor: each e-class keeps one
representative UOp, and a new e-node is built over its children's representatives, so it has passed
the IR's type and shape checks and any choice of e-nodes builds a valid program.

Two generators sit on top:
- `random_egraph`: merges random e-classes of one dtype and shape (not equivalences: arbitrary
  structure, cycles and self-loops included) to exercise extractors;
- `equivalent_egraph`: adds only rewrites that are exact under the IR's semantics (int32 wrap,
  IEEE f32, NaN, -0.0), so every program extracted from it computes what the input computes.
Both are deterministic functions of their seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph, ENode, arg_key

from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError

__all__ = ["EGraphBuilder", "equivalent_egraph", "random_egraph", "random_program"]


class EGraphBuilder:
    """A minimal e-graph over UOp-level e-nodes; e-class ids come out as 'c<N>' in creation order."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.rep: list[UOp] = []
        self.nodes: list[tuple[Ops, Any, tuple[int, ...], int]] = []  # op, arg, children, class
        self.hashcons: dict[tuple, int] = {}
        self.of_uop: dict[UOp, int] = {}
        self.members: dict[int, list[int]] = {}  # root e-class -> indices into self.nodes

    def find(self, c: int) -> int:
        while self.parent[c] != c:
            self.parent[c] = self.parent[self.parent[c]]
            c = self.parent[c]
        return c

    def _key(self, op: Ops, arg: Any, children: tuple[int, ...]) -> tuple:
        return (op, arg_key(arg), tuple(self.find(c) for c in children))

    def add(self, op: Ops, children: Sequence[int], arg: Any = None) -> int:
        """The e-class of op(children) with arg, created if new; raises UOpError if ill-typed."""
        children = tuple(self.find(c) for c in children)
        key = self._key(op, arg, children)
        if key in self.hashcons:
            return self.find(self.hashcons[key])
        u = UOp(op, tuple(self.rep[c] for c in children), arg)
        c = len(self.parent)
        self.parent.append(c)
        self.rep.append(u)
        self.members[c] = [len(self.nodes)]
        self.nodes.append((op, arg, children, c))
        self.hashcons[key] = c
        return c

    def add_uop(self, u: UOp) -> int:
        """The e-class of a whole program (every node of it added)."""
        for v in u.toposort():
            if v not in self.of_uop:
                self.of_uop[v] = self.add(v.op, [self.of_uop[s] for s in v.src], v.arg)
        return self.find(self.of_uop[u])

    def union(self, a: int, b: int) -> int:
        a, b = self.find(a), self.find(b)
        if a == b:
            return a
        ra, rb = self.rep[a], self.rep[b]
        if ra.dtype is not rb.dtype or ra.shape != rb.shape:
            raise UOpError(
                f"cannot merge a {ra.dtype.name} {ra.shape} e-class with a {rb.dtype.name} {rb.shape} one"
            )
        keep, drop = min(a, b), max(a, b)
        self.parent[drop] = keep
        self.members[keep].extend(self.members.pop(drop))
        return keep

    def rebuild(self) -> None:
        """Congruence closure: e-nodes equal up to their children's e-classes share one e-class."""
        changed = True
        while changed:
            changed = False
            table: dict[tuple, int] = {}
            for op, arg, children, c in self.nodes:
                key = self._key(op, arg, children)
                other = table.setdefault(key, self.find(c))
                if self.find(other) != self.find(c):
                    self.union(other, c)
                    changed = True
            self.hashcons = {k: self.find(v) for k, v in table.items()}

    def classes_of(self, dtype: DType, shape: tuple[int, ...]) -> list[int]:
        return [c for c in self.members if self.rep[c].dtype is dtype and self.rep[c].shape == shape]

    def node_list(self, c: int) -> list[tuple[Ops, Any, tuple[int, ...]]]:
        """The distinct e-nodes of e-class c, children canonical, in creation order."""
        c = self.find(c)
        out: dict[tuple, tuple[Ops, Any, tuple[int, ...]]] = {}
        for i in self.members[c]:
            op, arg, children, _ = self.nodes[i]
            kids = tuple(self.find(x) for x in children)
            out.setdefault((op, arg_key(arg), kids), (op, arg, kids))
        return list(out.values())

    def to_egraph(self, roots: Sequence[int]) -> EGraph:
        self.rebuild()
        members: dict[int, dict[tuple, ENode]] = {}
        for op, arg, children, c in self.nodes:
            k = self.find(c)
            node = ENode(op, arg, tuple(f"c{self.find(x)}" for x in children))
            members.setdefault(k, {}).setdefault(node.key, node)
        classes: dict[ClassId, EClass] = {}
        for k in sorted(members):
            r = self.rep[k]
            classes[f"c{k}"] = EClass(f"c{k}", tuple(members[k].values()), r.dtype, r.shape)
        return EGraph(classes, tuple(f"c{self.find(r)}" for r in roots)).validate()


_SCALAR_OPS = (
    Ops.ADD,
    Ops.MUL,
    Ops.MAX,
    Ops.CMPLT,
    Ops.CMPNE,
    Ops.WHERE,
    Ops.FLOORDIV,
    Ops.FLOORMOD,
    Ops.CAST,
)


def random_program(rng: random.Random, num_ops: int = 30, num_params: int = 3) -> UOp:
    """A random scalar program over i32, f32 and bool with sharing (later nodes reuse earlier ones)."""
    pool: dict[DType, list[UOp]] = {
        dtypes.i32: [UOp.param(s, dtypes.i32) for s in range(max(num_params - 1, 1))]
        + [UOp.const(2), UOp.const(3)],
        dtypes.f32: [UOp.param(max(num_params - 1, 1), dtypes.f32), UOp.const(0.5)],
        dtypes.bool: [UOp.const(True)],
    }

    def pick(d: DType) -> UOp:
        xs = pool[d]
        return xs[-1 - min(int(rng.expovariate(0.4)), len(xs) - 1)]  # recent nodes are likelier

    last = pool[dtypes.i32][0]
    for _ in range(num_ops):
        op = rng.choice(_SCALAR_OPS)
        d = (
            dtypes.i32
            if op in (Ops.FLOORDIV, Ops.FLOORMOD)
            else rng.choice((dtypes.i32, dtypes.i32, dtypes.f32))
        )
        if op in (Ops.CMPLT, Ops.CMPNE):
            u = UOp(op, (pick(d), pick(d)))
        elif op is Ops.WHERE:
            u = pick(dtypes.bool).where(pick(d), pick(d))
        elif op is Ops.CAST:
            u = pick(dtypes.f32 if d is dtypes.i32 else dtypes.i32).cast(d)
        else:
            u = UOp(op, (pick(d), pick(d)))
        pool[u.dtype].append(u)
        last = u
    return last


def _rng(seed: int | random.Random) -> random.Random:
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def random_egraph(
    seed: int | random.Random, programs: Sequence[UOp] | None = None, *, num_ops: int = 30, merges: int = 10
) -> EGraph:
    """An e-graph of programs (default: one random_program) after `merges` random same-type merges.

    The merges are arbitrary, not equivalences: the result tests extractors, not rewrites. Every e-class
    still holds a term (its original node), so every root is extractable.
    """
    rng = _rng(seed)
    programs = [random_program(rng, num_ops)] if programs is None else list(programs)
    b = EGraphBuilder()
    roots = [b.add_uop(p) for p in programs]
    groups: dict[tuple, list[int]] = {}
    for c, u in enumerate(b.rep):
        groups.setdefault((u.dtype, u.shape), []).append(c)
    mergeable = [g for g in groups.values() if len(g) > 1]
    for _ in range(merges if mergeable else 0):
        g = rng.choice(mergeable)
        b.union(*rng.sample(g, 2))
    return b.to_egraph(roots)


def _total(u: UOp) -> bool:
    """No op of u's terms can be undefined (so a WHERE over it keeps definedness unchanged)."""
    return not any(v.op in (Ops.FLOORDIV, Ops.FLOORMOD, Ops.CAST) for v in u.toposort())


def _one(v: UOp) -> Any:
    return 1.0 if v.dtype is dtypes.f32 else 1


def _exact_rewrites(b: EGraphBuilder, rng: random.Random, c: int) -> list[int]:
    """E-classes equal to e-class c in every input, by rewrites that are exact in the IR's semantics."""
    r = b.rep[c]
    d, shape = r.dtype, r.shape
    out: list[int] = []

    def const(v: Any) -> int:
        return b.add_uop(UOp.const(v, d, shape))

    if d is not dtypes.bool:
        out.append(b.add(Ops.MUL, [c, const(_one(r))]))  # x -> x * 1
        out.append(b.add(Ops.ADD, [c, const(-0.0 if d is dtypes.f32 else 0)]))  # x -> x + 0  (f32: x + -0.0)
        out.append(b.add(Ops.MAX, [c, c]))  # x -> max(x, x)
    conds = [k for k in b.classes_of(dtypes.bool, shape) if _total(b.rep[k])]
    if conds:
        out.append(b.add(Ops.WHERE, [rng.choice(conds), c, c]))  # x -> where(p, x, x)
    for op, _, kids in b.node_list(c):
        if op in (Ops.ADD, Ops.MUL, Ops.CMPNE) or (op is Ops.MAX and d is not dtypes.f32):
            out.append(b.add(op, [kids[1], kids[0]]))  # a op b -> b op a
        if op is Ops.ADD and kids[0] == kids[1] and d is not dtypes.bool:
            out.append(b.add(Ops.MUL, [kids[0], const(2 if d is dtypes.i32 else 2.0)]))  # x + x -> x * 2
        if op in (Ops.ADD, Ops.MUL) and d is dtypes.i32:
            for op2, _, inner in b.node_list(kids[0]):
                if op2 is op:  # (a op b) op q -> a op (b op q)   (exact under int32 wrap)
                    out.append(b.add(op, [inner[0], b.add(op, [inner[1], kids[1]])]))
                    break
        if op is Ops.MUL and d is dtypes.i32:
            for op2, _, inner in b.node_list(kids[1]):
                if op2 is Ops.ADD:  # a * (p + q) -> a*p + a*q   (exact under int32 wrap)
                    out.append(
                        b.add(
                            Ops.ADD,
                            [b.add(Ops.MUL, [kids[0], inner[0]]), b.add(Ops.MUL, [kids[0], inner[1]])],
                        )
                    )
                    break
    return out


def equivalent_egraph(seed: int | random.Random, programs: Sequence[UOp], *, rounds: int = 2) -> EGraph:
    """An e-graph of programs grown by `rounds` passes of exact rewrites over (a sample of) its e-classes.

    Every term in the e-class of a root computes exactly what that root computes (same bits, NaN and
    -0.0 included), so extracted programs can be checked against the input by evaluation.
    """
    rng = _rng(seed)
    b = EGraphBuilder()
    roots = [b.add_uop(p) for p in programs]
    for _ in range(rounds):
        live = sorted(b.members)
        for c in rng.sample(live, max(1, len(live) // 2)):
            for alt in _exact_rewrites(b, rng, b.find(c)):
                b.union(c, alt)
        b.rebuild()
    return b.to_egraph(roots)
