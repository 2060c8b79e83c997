"""The e-graph of a run that stops before its first iteration, built in Python instead of egglog.

When the greedy seed of a program is a constant (or the piecewise-linear step decides the root
comparison), `stop_at_constant` ends the run before any rule runs: the e-graph it reads back is the
program and its seed lowered and unioned at the root, with the decided comparisons unioned with
their values. Building that in egglog costs a warm engine's push and pop (about 10 us a rule: 3-10
ms with the 200-300 `default` rules a Caviar expression needs), for an answer known before any rule
runs; `SeedGraph` builds the same e-graph with a union-find and congruence closure over hash-consed
UOps (the bookkeeping's subsumption of MUL and WHERE in constant e-classes has not run yet at that
point either: it needs the Const facts that the first bookkeeping run derives).
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.extract.egraph import EClass, EGraph, ENode
from eqsat_uopc.ir.uop import UOp, arg_key
from eqsat_uopc.saturation.errors import SaturationError

__all__ = ["NoEgglogEGraph", "SeedGraph"]


class SeedGraph:
    """Hash-consed UOp terms, unions and congruence: the e-graph before any rule has run."""

    def __init__(self) -> None:
        self._parent: list[int] = []  # union-find over e-classes
        self._types: list[tuple[Any, tuple[int, ...]]] = []  # dtype and shape per e-class
        self._nodes: dict[tuple, int] = {}  # (op, arg key, child e-classes) -> e-class, canonical
        self._args: dict[tuple, Any] = {}  # (op, arg key) -> the arg itself
        self._ids: dict[UOp, int] = {}

    def add(self, u: UOp) -> int:
        """The e-class of u's term, adding the nodes that are new."""
        for n in u.toposort():
            if n not in self._ids:
                self._args.setdefault((n.op, arg_key(n.arg)), n.arg)
                key = (n.op, arg_key(n.arg), tuple(self.find(self._ids[s]) for s in n.src))
                c = self._nodes.get(key)
                if c is None:
                    c = self._nodes[key] = len(self._parent)
                    self._parent.append(c)
                    self._types.append((n.dtype, n.shape))
                self._ids[n] = c
        return self.find(self._ids[u])

    def find(self, c: int) -> int:
        parent = self._parent
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    def union(self, a: int, b: int) -> None:
        """Merge two e-classes (the older id names the result), then restore congruence: e-nodes
        whose children are now the same e-classes merge their e-classes too."""
        if self._link(a, b):
            self._rebuild()

    def _link(self, a: int, b: int) -> bool:
        a, b = self.find(a), self.find(b)
        if a == b:
            return False
        self._parent[max(a, b)] = min(a, b)
        return True

    def _rebuild(self) -> None:
        merged = True
        while merged:
            merged = False
            nodes: dict[tuple, int] = {}
            for (op, arg, kids), c in self._nodes.items():
                key, c = (op, arg, tuple(self.find(k) for k in kids)), self.find(c)
                other = nodes.setdefault(key, c)
                merged |= self._link(other, c)
            self._nodes = {k: self.find(c) for k, c in nodes.items()}

    def class_of(self, u: UOp) -> int | None:
        """The e-class of u's term, or None if the e-graph does not hold it (nothing is added)."""
        classes: dict[UOp, int] = {}
        for n in u.toposort():
            if (i := self._ids.get(n)) is not None:
                classes[n] = self.find(i)
                continue
            c = self._nodes.get((n.op, arg_key(n.arg), tuple(classes[s] for s in n.src)))
            if c is None:
                return None
            classes[n] = self.find(c)
        return classes[u]

    @property
    def num_enodes(self) -> int:
        return len(self._nodes)

    @property
    def num_eclasses(self) -> int:
        return sum(1 for c, p in enumerate(self._parent) if c == p)

    def to_egraph(self, root: int) -> EGraph:
        """The extractors' EGraph, rooted at `root` (ids `c0, c1, ...` in the e-classes' order of making)."""
        members: dict[int, list[ENode]] = {}
        for (op, key, kids), c in self._nodes.items():
            members.setdefault(c, []).append(ENode(op, self._args[op, key], tuple(f"c{k}" for k in kids)))
        classes = {}
        for c in sorted(members):
            dtype, shape = self._types[c]
            classes[f"c{c}"] = EClass(f"c{c}", tuple(members[c]), dtype, shape)
        return EGraph(classes, (f"c{self.find(root)}",), meta={"egglog": NoEgglogEGraph()})


class NoEgglogEGraph:
    """The `egglog` handle of a SeedGraph's EGraph: egglog's extractors have no e-graph to run on."""

    def extract(self, mode: str, roots: Any) -> Any:
        raise SaturationError(
            "egglog's extractors need an egglog e-graph, and this program was decided (a constant) before "
            "any rule ran, so its e-graph was built without one: saturate with shortcut_decided=False "
            "to run them"
        )
