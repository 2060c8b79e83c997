"""The e-graph as extractors see it: e-classes of UOp-level e-nodes, nothing egglog-specific.

The saturation layer serializes egglog's e-graph into this form (dropping the helper sorts that
carry dtypes, shapes and intervals); extractors, cost models and their tests work on it alone, so
an extractor can be tested on hand-built and random e-graphs without egglog.

An ENode is one UOp operator (op and arg as in UOp) over child e-classes, in UOp source order.
Choosing one e-node per needed e-class and building bottom-up gives a hash-consed UOp program.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from eqsat_uopc.dtype import DType
from eqsat_uopc.ops import Ops

__all__ = ["ClassId", "EClass", "EGraph", "ENode"]

ClassId = str


@dataclass(frozen=True)
class ENode:
    op: Ops
    arg: Any
    children: tuple[ClassId, ...]


@dataclass(frozen=True)
class EClass:
    id: ClassId
    nodes: tuple[ENode, ...]
    dtype: DType
    shape: tuple[int, ...]


@dataclass
class EGraph:
    classes: dict[ClassId, EClass]
    roots: tuple[ClassId, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[EClass]:
        return iter(self.classes.values())

    @property
    def num_enodes(self) -> int:
        return sum(len(c.nodes) for c in self.classes.values())

    @property
    def num_eclasses(self) -> int:
        return len(self.classes)
