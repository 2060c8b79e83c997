"""The "fastest" cost model: a table of nanoseconds per element, by op and dtype.

A node costs `table[op][dtype] * elements`, where elements is the product of the node's shape
(1 for a scalar) and dtype is the node's own dtype (its result type: comparisons are keyed under
"bool", CAST under its target type). An entry under "*" covers every dtype of that op. Costs
aggregate as a DAG: a shared node is computed once. It is an estimate: `optimize(p, "measured")`
(eqsat_uopc.pipeline.fastest) times candidate programs instead.

Which table: `Latency()` (the built-in "latency" model) uses this machine's calibrated table when
there is one, `latency.json` in the per-user cache (eqsat_uopc.user_cache; `eqsat-uopc calibrate`
writes it), and the default table otherwise; `describe()` says which, and the CLI prints it. The
file is read again whenever it changes (checked each time the model is looked up by `cost_model`).
`Latency(table)` uses the table given, `load_latency_table(path)` a table file. The table read is
kept in a cache of one entry, keyed by the file's path, modification time and size (its comment
says when it is checked; `forget_machine_table()` empties it).

The default table is an estimate for scalar code on a ~3 GHz x86-64 core (one add ~0.3 ns, a
32-bit division ~8 ns, sin ~12 ns); constants and PARAMs cost 0 (immediates and inputs already in
memory). A table file is JSON:

    {"unit": "ns", "source": "...", "costs": {"ADD": {"i32": 0.31, "f32": 0.95}, "CONST": {"*": 0}}}

plus, from a calibration, "date", "machine", "scale" and "measured" (calibrate.py). Ops or dtypes
missing from a given table fall back to the default table (a calibrated table has every entry).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eqsat_uopc.extract.errors import CostModelError

from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import prod
from eqsat_uopc.user_cache import machine, machine_name, user_cache_dir, write_json

__all__ = [
    "DEFAULT_LATENCY_TABLE",
    "MACHINE_TABLE_FILE",
    "Latency",
    "MachineTable",
    "forget_machine_table",
    "load_latency_table",
    "machine_table",
    "machine_table_path",
    "save_latency_table",
]

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


MACHINE_TABLE_FILE = "latency.json"
_DEFAULT_DESCRIPTION = "default table (estimates for a ~3 GHz x86-64 core)"


def machine_table_path() -> Path:
    """Where `eqsat-uopc calibrate` writes this machine's table: latency.json in the per-user cache."""
    return user_cache_dir() / MACHINE_TABLE_FILE


@dataclass(frozen=True)
class MachineTable:
    """What the per-user cache holds for the latency model: a calibrated table (costs, when and
    where it was measured) or nothing (costs None: the default table applies)."""

    path: Path
    costs: dict[str, dict[str, float]] | None = None
    date: str = ""
    machine: Mapping[str, str] = field(default_factory=dict)
    stamp: tuple[int, int] | None = None  # (mtime_ns, size) of the file read, None if absent

    def describe(self) -> str:
        if self.costs is None:
            return f"{_DEFAULT_DESCRIPTION}; `eqsat-uopc calibrate` measures this machine into {self.path}"
        text = f"calibrated table {self.path} ({self.date or 'undated'}, {machine_name(self.machine)})"
        here = machine()
        if any(self.machine.get(k) != here[k] for k in ("host", "arch", "cpu")):
            text += f"; measured on another machine than this one ({machine_name(here)})"
        return text


# This machine's table as last read: a cache of one entry (a MachineTable), keyed by the file's
# path and its (mtime_ns, size) stamp. machine_table() compares the key with the file (one stat)
# and reads the file again when they differ; cost_model("latency") calls it at every lookup, so a
# model looked up after `eqsat-uopc calibrate` (or with another EQSAT_UOPC_CACHE_DIR) prices with
# the new table. Latency's per-node lookups read the entry without the stat, so a model object kept
# from before sees a change at its next lookup. forget_machine_table() empties the cache.
_machine_state: MachineTable | None = None


def forget_machine_table() -> None:
    """Empty the cache of this machine's table: the next lookup reads the file (see above)."""
    global _machine_state
    _machine_state = None


def machine_table() -> MachineTable:
    """This machine's calibrated table as the per-user cache holds it now (read again when the path
    or the file changed since the last call; a malformed file is a CostModelError naming it). The
    table read is cached, one entry keyed by path and file stamp (forget_machine_table empties it)."""
    global _machine_state
    path = machine_table_path()
    try:
        st = os.stat(path)
        stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    state = _machine_state
    if state is None or state.path != path or state.stamp != stamp:
        state = _machine_state = _read_machine_table(path, stamp)
    return state


def _read_machine_table(path: Path, stamp: tuple[int, int] | None) -> MachineTable:
    if stamp is None:
        return MachineTable(path)
    data = _read_table_file(path)
    how = " (run `eqsat-uopc calibrate` again, or delete the file to use the default table)"
    try:
        costs = _check_table(data.get("costs"), repr(str(path)))
    except CostModelError as e:
        raise CostModelError(f"{e}{how}") from None
    missing = sorted(set(DEFAULT_LATENCY_TABLE) - set(costs))
    if missing:
        raise CostModelError(
            f"calibrated latency table {str(path)!r} has no entry for {', '.join(missing)}{how}"
        )
    m = data.get("machine")
    return MachineTable(path, costs, str(data.get("date", "")), m if isinstance(m, Mapping) else {}, stamp)


@dataclass(frozen=True)
class Latency:
    """Estimated run time in ns: table[op][dtype] per element, summed over distinct nodes.

    table None (the default, and the built-in "latency" model): this machine's calibrated table
    when the per-user cache holds one, else DEFAULT_LATENCY_TABLE. origin: what a given table is,
    for describe()."""

    table: Mapping[str, Mapping[str, float]] | None = None
    name: str = "latency"
    kind: str = "dag"
    origin: str = ""

    def refresh(self) -> None:
        """Re-read this machine's table if it changed (cost_model calls this at every lookup)."""
        if self.table is None:
            machine_table()

    def describe(self) -> str:
        """Which table this model prices nodes with, in words (the CLI prints it)."""
        if self.table is not None:
            return self.origin or "a table given in Python"
        return machine_table().describe()

    def _costs(self) -> Mapping[str, Mapping[str, float]]:
        if self.table is not None:
            return self.table
        state = _machine_state if _machine_state is not None else machine_table()
        return state.costs if state.costs is not None else DEFAULT_LATENCY_TABLE

    def per_element(self, op: Ops, dtype: DType) -> float:
        for table in (self._costs(), DEFAULT_LATENCY_TABLE):
            entry = table.get(op.name)
            if entry is not None:
                if dtype.name in entry:
                    return entry[dtype.name]
                if "*" in entry:
                    return entry["*"]
        raise CostModelError(f"latency table has no entry for {op.name} {dtype.name}")  # pragma: no cover

    def node_cost(self, op: Ops, arg: Any, dtype: DType, shape: tuple[int, ...]) -> float:
        return self.per_element(op, dtype) * prod(shape)


def _read_table_file(path: str | Path) -> Mapping[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise CostModelError(f"cannot read latency table {str(path)!r}: {e}") from None
    if not isinstance(data, Mapping):
        raise CostModelError(f'latency table {str(path)!r} must be a JSON object with a "costs" entry')
    return data


def load_latency_table(path: str | Path) -> Latency:
    """A latency cost model from a JSON table file (written by `eqsat-uopc calibrate --out` or
    save_latency_table); entries it lacks fall back to the default table."""
    data = _read_table_file(path)
    costs = _check_table(data.get("costs"), repr(str(path)))
    origin = f"table {path}"
    if data.get("date") or isinstance(data.get("machine"), Mapping):
        m = data.get("machine")
        origin += f" ({data.get('date') or 'undated'}, {machine_name(m if isinstance(m, Mapping) else {})})"
    return Latency(costs, origin=origin)


def save_latency_table(
    table: LatencyTable, path: str | Path, source: str = "", meta: Mapping[str, Any] | None = None
) -> None:
    """Write a table in the form load_latency_table reads; meta adds entries beside "costs" (a
    calibration's date, machine, scale and measured entries)."""
    checked = _check_table(table, "save_latency_table")
    reserved = {"unit", "source", "costs"} & set(meta or {})
    if reserved:
        raise CostModelError(f"save_latency_table: meta may not set {', '.join(sorted(reserved))}")
    write_json(Path(path), {"unit": "ns", "source": source, **(meta or {}), "costs": checked})
