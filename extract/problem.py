"""An extraction problem: the e-graph in integer-indexed form, with every e-node's cost computed once.

Extractors work on indices (e-class i, e-node j) rather than ids, so that their inner loops are
list lookups; `Solution` is what an extractor returns, before `extraction.extract` checks it and
builds programs from it. The order of e-classes is the e-graph's dict order and the order of
e-nodes is each e-class's tuple order: tie-breaks in every extractor refer to these orders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from eqsat_uopc.extract.cost import checked_node_cost, cost_model_name
from eqsat_uopc.extract.egraph import ClassId, EClass, EGraph, ENode
from eqsat_uopc.extract.errors import ExtractionError

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops

__all__ = ["ExtractionProblem", "Solution"]


@dataclass(frozen=True)
class Solution:
    """An extractor's answer: e-class index -> chosen e-node index (may include unneeded e-classes).

    optimal: True if the extractor proved the choice optimal for the problem's cost model, False if
    an exact extractor stopped (a limit: info["limit"] says which) before proving it, None if it
    makes no claim.
    bound: a proved lower bound on the optimal cost, where the extractor has one.
    claimed_cost: the extractor's own idea of the cost, checked against the recomputed one.
    """

    choice: Mapping[int, int]
    optimal: bool | None = None
    bound: float | None = None
    claimed_cost: float | None = None
    info: Mapping[str, Any] = field(default_factory=dict)


class ExtractionProblem:
    """egraph + cost model, indexed: class_ids[i], class_nodes[i] -> e-node indices, node_* arrays."""

    def __init__(self, egraph: EGraph, model: Any) -> None:
        if not self._index(egraph, model):
            egraph.validate()  # raises, naming the first problem the indexing pass found
            raise ExtractionError("the e-graph passed validate() but not ExtractionProblem's indexing pass")
        self.roots: list[int] = [self.class_index[r] for r in egraph.roots]

    def _index(self, egraph: EGraph, model: Any) -> bool:
        """Index the e-graph and cost its e-nodes, checking on the way what `EGraph.validate` checks
        (one pass over the e-nodes, not two: a read-back e-graph has hundreds of thousands); False at
        the first thing validate would refuse."""
        self.egraph = egraph
        self.model = model
        self.kind: str = model.kind
        self.model_name = cost_model_name(model)
        self.class_ids: list[ClassId] = list(egraph.classes)
        self.class_index: dict[ClassId, int] = {cid: i for i, cid in enumerate(self.class_ids)}
        self.class_nodes: list[list[int]] = []
        self.node_class: list[int] = []
        self.node_children: list[tuple[int, ...]] = []
        self.node_cost: list[float] = []
        self.enodes: list[ENode] = []
        classes = egraph.classes
        if not egraph.roots or any(r not in classes for r in egraph.roots):
            return False
        memo: dict[tuple, float] = {}
        index = self.class_index.get  # None for a child that is no e-class
        owner: dict[ENode, int] = {}  # one e-class per e-node
        claim = owner.setdefault
        enodes, node_class, node_children = self.enodes, self.node_class, self.node_children
        node_cost = self.node_cost
        for i, (cid, ec) in enumerate(classes.items()):
            if not isinstance(ec, EClass) or ec.id != cid or not ec.nodes or not isinstance(ec.dtype, DType):
                return False
            dtype, shape, nodes = ec.dtype, ec.shape, ec.nodes
            first = len(enodes)
            for n in nodes:
                if not isinstance(n, ENode) or not isinstance(n.op, Ops) or claim(n, i) != i:
                    return False
                key = (n.op, n.key[1], dtype, shape)  # key[1]: the arg's key, computed with the e-node
                c = memo.get(key)
                if c is None:
                    c = memo[key] = checked_node_cost(model, n.op, n.arg, dtype, shape)
                node_cost.append(c)
                if n.children:
                    kids = tuple(map(index, n.children))
                    if None in kids:
                        return False
                    node_children.append(kids)
                else:
                    node_children.append(())
            enodes.extend(nodes)
            node_class.extend([i] * len(nodes))
            self.class_nodes.append(list(range(first, len(enodes))))
        return True

    @property
    def num_classes(self) -> int:
        return len(self.class_ids)

    @property
    def num_nodes(self) -> int:
        return len(self.enodes)

    @cached_property
    def node_position(self) -> list[int]:
        """Index of each e-node within its e-class (the tie-break order)."""
        pos = [0] * self.num_nodes
        for nodes in self.class_nodes:
            for k, n in enumerate(nodes):
                pos[n] = k
        return pos

    @cached_property
    def parents(self) -> list[list[int]]:
        """For each e-class, the e-nodes that have it as a child (each e-node once)."""
        out: list[list[int]] = [[] for _ in range(self.num_classes)]
        for n, kids in enumerate(self.node_children):
            if len(kids) == 1:
                out[kids[0]].append(n)
            elif len(kids) == 2 and kids[0] != kids[1]:  # most e-nodes: binary ALU ops
                out[kids[0]].append(n)
                out[kids[1]].append(n)
            else:
                for c in dict.fromkeys(kids):
                    out[c].append(n)
        return out

    def needed(self, choice: Mapping[int, int]) -> list[int]:
        """The e-classes reachable from the roots through a (closed) choice, in first-visit order."""
        seen: dict[int, None] = {}
        stack = list(reversed(self.roots))
        while stack:
            c = stack.pop()
            if c in seen:
                continue
            seen[c] = None
            stack.extend(reversed(self.node_children[choice[c]]))
        return list(seen)

    def dag_cost(self, choice: Mapping[int, int]) -> float:
        """The sum of chosen node costs over the needed e-classes (the "dag" aggregation)."""
        return sum(self.node_cost[choice[c]] for c in self.needed(choice))

    def to_ids(self, choice: Mapping[int, int]) -> dict[ClassId, ENode]:
        return {self.class_ids[c]: self.enodes[n] for c, n in choice.items()}
