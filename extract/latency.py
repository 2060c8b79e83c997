"""The "fastest" cost model: a table of nanoseconds per element, by op and dtype.

A node costs `table[op][dtype] * elements`, where elements is the product of the node's shape
(1 for a scalar) and dtype is the node's own dtype (its result type: comparisons are keyed under
"bool", CAST under its target type). An entry under "*" covers every dtype of that op. Costs
aggregate as a DAG: a shared node is computed once.

The default table is an estimate for scalar code on a ~3 GHz x86-64 core (one add ~0.3 ns, a
32-bit division ~8 ns, sin ~12 ns); constants and PARAMs cost 0 (immediates and inputs already in
memory). `python -m eqsat_uopc.extract.calibrate --out FILE` measures this machine with the C
backend and writes a JSON table; `load_latency_table(FILE)` turns it into a cost model:

    {"unit": "ns", "source": "...", "costs": {"ADD": {"i32": 0.31, "f32": 0.95}, "CONST": {"*": 0}}}

Ops or dtypes missing from a loaded table fall back to the default table.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eqsat_uopc.extract.errors import CostModelError

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import prod

__all__ = ["DEFAULT_LATENCY_TABLE", "Latency", "load_latency_table", "save_latency_table"]

LatencyTable = Mapping[str, Mapping[str, float]]

DEFAULT_LATENCY_TABLE: dict[str, dict[str, float]] = {
    "CONST": {"*": 0.0},
    "PARAM": {"*": 0.0},
    "RANGE": {"*": 0.3},
    "STACK": {"*": 0.3},
    "CALL": {"*": 0.5},
    "INDEX": {"*": 0.3},
    "CAST": {"bool": 0.3, "i32": 1.0, "f32": 1.0},
    "RECIP": {"*": 1.5},
    "ADD": {"bool": 0.3, "i32": 0.3, "f32": 1.3},
    "MUL": {"bool": 0.3, "i32": 1.0, "f32": 1.3},
    "CMPLT": {"*": 0.3},
    "FLOORDIV": {"*": 8.0},
    "FLOORMOD": {"*": 8.0},
    "WHERE": {"*": 0.5},
    "CMPNE": {"*": 0.3},
    "MAX": {"bool": 0.3, "i32": 0.5, "f32": 1.3},
    "EXP2": {"*": 6.0},
    "LOG2": {"*": 6.0},
    "SQRT": {"*": 5.0},
    "SIN": {"*": 12.0},
    "RESHAPE": {"*": 0.0},
    "EXPAND": {"*": 0.2},
    "PERMUTE": {"*": 0.3},
    "SHRINK": {"*": 0.2},
    "REDUCE": {"*": 1.0},
}


def _check_table(table: Any, source: str) -> dict[str, dict[str, float]]:
    if not isinstance(table, Mapping):
        raise CostModelError(f"latency table from {source} must map op names to {{dtype: ns}}, got {table!r}")
    out: dict[str, dict[str, float]] = {}
    for op, per_dtype in table.items():
        if op not in Ops.__members__:
            raise CostModelError(f"latency table from {source} names unknown op {op!r}")
        if not isinstance(per_dtype, Mapping):
            raise CostModelError(
                f"latency table from {source}: {op} must map dtypes to ns, got {per_dtype!r}"
            )
        for dt, ns in per_dtype.items():
            if dt not in ("*", "bool", "i32", "f32"):
                raise CostModelError(f"latency table from {source}: {op} has unknown dtype {dt!r}")
            if isinstance(ns, bool) or not isinstance(ns, int | float) or not math.isfinite(ns) or ns < 0:
                raise CostModelError(
                    f"latency table from {source}: {op} {dt} costs {ns!r}; "
                    "costs must be finite and non-negative"
                )
        out[op] = dict(per_dtype)
    return out


@dataclass(frozen=True)
class Latency:
    """Estimated run time in ns: table[op][dtype] per element, summed over distinct nodes."""

    table: Mapping[str, Mapping[str, float]] = field(default_factory=lambda: DEFAULT_LATENCY_TABLE)
    name: str = "latency"
    kind: str = "dag"

    def per_element(self, op: Ops, dtype: DType) -> float:
        for table in (self.table, DEFAULT_LATENCY_TABLE):
            entry = table.get(op.name)
            if entry is not None:
                if dtype.name in entry:
                    return entry[dtype.name]
                if "*" in entry:
                    return entry["*"]
        raise CostModelError(f"latency table has no entry for {op.name} {dtype.name}")  # pragma: no cover

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> float:
        return self.per_element(op, dtype) * prod(shape)


def load_latency_table(path: str | Path) -> Latency:
    """A latency cost model from a JSON table written by `python -m eqsat_uopc.extract.calibrate`."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise CostModelError(f"cannot read latency table {str(path)!r}: {e}") from None
    costs = data.get("costs") if isinstance(data, Mapping) else None
    return Latency(_check_table(costs, repr(str(path))))


def save_latency_table(table: LatencyTable, path: str | Path, source: str = "") -> None:
    """Write a table in the form load_latency_table reads."""
    checked = _check_table(table, "save_latency_table")
    Path(path).write_text(json.dumps({"unit": "ns", "source": source, "costs": checked}, indent=1) + "\n")
