"""The cost model of index expressions as tinygrad emits them: the integer ops its renderer executes.

tinygrad does not execute a program's nodes one for one: constants are immediates, loop and GPU
indices and loads are already in registers, and codegen's decompositions lower a floor division by
a constant to a multiply and a shift (or one shift by a power of two) and a floor remainder to
a multiply, a shift, a multiply and a subtraction (or one AND). `TinygradOps` prices each node by
that, as a DAG cost (a subterm shared by two indices is computed once): leaves cost nothing (a
hundredth, so that of two forms with the same ops the one with fewer distinct constants wins a
tie), an ALU op 1, a floor division 2 and a remainder 3 (the non-power-of-two lowering, less the
power-of-two case's discount). The count the mode decides by is tinygrad's own
(kernel.lowered_int_ops); this model only steers extraction towards what tinygrad will count.

    >>> from eqsat_uopc.extract import cost_of
    >>> from eqsat_uopc.ir.uop import UOp
    >>> i = UOp.param(0, bounds=(0, 99))
    >>> cost_of(i // 3 + i % 3, TINYGRAD_OPS), cost_of(i // 3 + i % 3, "dag_size")
    (6.02, 5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops

__all__ = ["TINYGRAD_OPS", "TinygradOps"]

_LEAVES = frozenset({Ops.CONST, Ops.PARAM, Ops.RANGE, Ops.STACK})
_OP_COST = {Ops.FLOORDIV: 2.0, Ops.FLOORMOD: 3.0, Ops.CAST: 0.0}


@dataclass(frozen=True)
class TinygradOps:
    """Integer ops tinygrad executes for an index expression (module docstring): a DAG cost."""

    name: str = "tinygrad_ops"
    kind: str = "dag"
    leaf: float = 0.01

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> float:
        if op in _LEAVES:
            return self.leaf
        return _OP_COST.get(op, 1.0)


TINYGRAD_OPS = TinygradOps()
