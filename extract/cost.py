"""Cost models: what "best" means when a term is extracted from an e-graph.

A cost model is any object with

- `name: str` (optional; the class name is used otherwise),
- `kind: "tree" | "dag" | "depth"`: how node costs aggregate into a program cost,
- `node_cost(op, arg, dtype, shape) -> number`: the cost of one node, finite and >= 0;
- `min_node_cost: number` (optional): a lower bound on every node's cost. When it is above 0, a
  program of cost C is at most C / min_node_cost nodes deep (on any kind: each node of a
  root-to-leaf path is counted at least once), so extraction may leave out the e-classes deeper
  than that below the roots when it knows a program of cost C (`extraction_depth`).

The kinds:
- "tree": cost(node) = node_cost + sum of the children's costs, counted with multiplicity (a
  subterm used twice is paid twice, as if the program were printed as a tree);
- "dag": the sum of node_cost over the distinct nodes of the (hash-consed) program, so a shared
  node is computed once: for every root together;
- "depth": cost(node) = node_cost + max of the children's costs (0 for a leaf): the critical path.

Built-in models (`COST_MODELS`): `tree_size` (1 per node, tree), `dag_size` (1 per node, dag:
"smallest"), `depth` (1 per node, depth) and `latency` (dag over a table of nanoseconds per
element, by op and dtype: "fastest" as estimated, from this machine's calibrated table when there is
one; see latency.py). A CONST or PARAM leaf costs 1 in the size
and depth models, like any node; in `latency` a leaf costs what its table entry says (0 by default:
constants are immediates and inputs are already in memory). Every node cost passes through
`checked_node_cost`, which rejects negative, NaN, infinite or non-numeric costs with an error naming
the cost model and the op.

    >>> from eqsat_uopc.extract import cost_of
    >>> from eqsat_uopc.ir.uop import UOp
    >>> y = UOp.param(0) + 1
    >>> cost_of(y * y, "tree_size"), cost_of(y * y, "dag_size"), cost_of(y * y, "depth")
    (7, 4, 3)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from eqsat_uopc.extract.errors import CostModelError
from eqsat_uopc.extract.latency import Latency

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = [
    "COST_ALIASES",
    "COST_KINDS",
    "COST_MODELS",
    "CostModel",
    "CostModelError",
    "DagSize",
    "Depth",
    "TreeSize",
    "aggregate",
    "checked_node_cost",
    "cost_model",
    "cost_model_name",
    "cost_of",
    "costs_of",
    "extraction_depth",
]

COST_KINDS: tuple[str, ...] = ("tree", "dag", "depth")


@runtime_checkable
class CostModel(Protocol):
    kind: str

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> float: ...


@dataclass(frozen=True)
class TreeSize:
    """Number of nodes of the program printed as a tree (shared subterms paid at every use)."""

    name: str = "tree_size"
    kind: str = "tree"
    min_node_cost: ClassVar[int] = 1  # every node costs 1

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> int:
        return 1


@dataclass(frozen=True)
class DagSize:
    """Number of distinct nodes of the hash-consed program: "smallest"."""

    name: str = "dag_size"
    kind: str = "dag"
    min_node_cost: ClassVar[int] = 1  # every node costs 1

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> int:
        return 1


@dataclass(frozen=True)
class Depth:
    """Length of the longest root-to-leaf path, counted in nodes (a lone leaf has depth 1)."""

    name: str = "depth"
    kind: str = "depth"
    min_node_cost: ClassVar[int] = 1  # every node costs 1

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> int:
        return 1


COST_MODELS: dict[str, Any] = {
    "tree_size": TreeSize(),
    "dag_size": DagSize(),
    "depth": Depth(),
    "latency": Latency(),
}
COST_ALIASES: dict[str, str] = {"smallest": "dag_size", "fastest": "latency"}


def extraction_depth(model: Any, cost: float) -> int | None:
    """The most nodes a root-to-leaf path of a program costing at most `cost` under model can have, or
    None when the model gives no positive lower bound on a node's cost (`min_node_cost`)."""
    least = getattr(model, "min_node_cost", 0)
    if not isinstance(least, numbers.Real) or isinstance(least, bool) or not least > 0:
        return None
    return math.floor(cost / least + 1e-9)


def cost_model_name(model: Any) -> str:
    name = getattr(model, "name", None)
    return name if isinstance(name, str) else type(model).__name__


def cost_model(cost: str | Any) -> Any:
    """The cost model a name (or alias) denotes, or a user object checked against the protocol."""
    if isinstance(cost, str):
        name = COST_ALIASES.get(cost, cost)
        if name not in COST_MODELS:
            known = ", ".join(sorted([*COST_MODELS, *COST_ALIASES]))
            raise CostModelError(f"unknown cost model {cost!r} (known: {known})")
        cost = COST_MODELS[name]
        if isinstance(cost, Latency):
            cost.refresh()  # this machine's calibrated table, if it changed since the last lookup
        return cost
    if not callable(getattr(cost, "node_cost", None)):
        raise CostModelError(
            f"cost model {cost!r} has no node_cost(op, arg, dtype, shape) method (pass a name: "
            f"{', '.join(sorted(COST_MODELS))})"
        )
    kind = getattr(cost, "kind", None)
    if kind not in COST_KINDS:
        raise CostModelError(
            f"cost model {cost_model_name(cost)!r} has kind {kind!r}; expected 'tree', 'dag' or 'depth'"
        )
    if isinstance(cost, Latency):
        cost.refresh()
    return cost


def checked_node_cost(model: Any, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> float:
    """model.node_cost(...), refusing what would make extraction meaningless (negative, NaN, inf)."""
    c = model.node_cost(op, arg, dtype, shape)
    if type(c) is int or type(c) is float:  # the common case: checked without the generic tests
        if c >= 0 and c != math.inf:  # NaN fails c >= 0
            return c
    elif isinstance(c, bool) or not isinstance(c, numbers.Real):  # numpy scalars are Real too
        raise CostModelError(
            f"cost model {cost_model_name(model)!r} gave {op.name} a cost of type "
            f"{type(c).__name__} ({c!r}); costs must be numbers [at {_where(op, dtype, shape)}]"
        )
    if not math.isfinite(c) or c < 0:
        raise CostModelError(
            f"cost model {cost_model_name(model)!r} gave {op.name} cost {c!r}; costs must be finite and "
            f"non-negative [at {_where(op, dtype, shape)}]"
        )
    return c


def _where(op: Ops, dtype: DType, shape: tuple[int, ...]) -> str:
    """Where a cost model's bad cost came from, for its error (written only then: costs are checked
    once per node of every program costed)."""
    return f"{op.name} ({dtype.name} {shape})"


def aggregate(kind: str, own: float, child_costs: Iterable[float]) -> float:
    """The tree or depth cost of a node from its own cost and its children's (not used for "dag")."""
    if kind == "tree":
        return own + sum(child_costs)
    return own + max(child_costs, default=0)


def cost_of(programs: UOp | Iterable[UOp], cost: str | Any = "dag_size") -> float:
    """The cost of a program (or of several roots together) under a cost model.

    Several roots: "tree" sums the roots' tree costs, "dag" counts every distinct node once across
    all roots, "depth" takes the deepest root.
    """
    model = cost_model(cost)
    roots = [programs] if isinstance(programs, UOp) else list(programs)
    for r in roots:
        if not isinstance(r, UOp):
            raise CostModelError(f"cost_of needs UOp programs, got {type(r).__name__}: {r!r}")
    if type(model) is DagSize and len(roots) == 1:
        # every node costs 1: the program's distinct nodes, counted once per program (UOp.size is
        # memoized; optimize costs its 100,000-node input three times, a walk each at 0.1 s)
        return roots[0].size
    own: dict[UOp, float] = {}
    order: list[UOp] = []
    for r in roots:
        for u in r.toposort():
            if u not in own:
                own[u] = checked_node_cost(model, u.op, u.arg, u.dtype, u.shape)
                order.append(u)
    if model.kind == "dag":
        return sum(own[u] for u in order)
    total: dict[UOp, float] = {}
    for u in order:
        total[u] = aggregate(model.kind, own[u], (total[s] for s in u.src))
    per_root = [total[r] for r in roots]
    return sum(per_root) if model.kind == "tree" else max(per_root, default=0)


def costs_of(programs: UOp | Iterable[UOp]) -> dict[str, float]:
    """The cost under every built-in model, by name: what a report shows for each program."""
    programs = [programs] if isinstance(programs, UOp) else list(programs)
    return {name: cost_of(programs, model) for name, model in COST_MODELS.items()}
