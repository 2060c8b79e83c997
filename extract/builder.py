"""A small e-graph built in Python: union-find over e-classes, a hash-cons of e-nodes, congruence
closure by `rebuild`.

Every e-node enters through UOp's constructor: each e-class keeps one representative UOp, and a new
e-node is built over its children's representatives, so it has passed the IR's type and shape checks
and any choice of e-nodes builds a valid program. The random e-graphs of the extractors' tests and
benchmarks (random_egraph.py) are built with it, and so is the e-graph of a saturation run that is
decided before any rule runs (eqsat_uopc.saturation.seed_graph), which needs no egglog engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph, ENode, arg_key

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError

__all__ = ["EGraphBuilder"]


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

    def to_egraph(self, roots: Sequence[int], meta: Mapping[str, Any] | None = None) -> EGraph:
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
        return EGraph(classes, tuple(f"c{self.find(r)}" for r in roots), dict(meta or {})).validate()
