"""The Caviar/Halide corpus: 1,303 Halide simplifier expressions, bundled as package data.

`load_caviar(path)` reads a file in the corpus format (see data/README.md) into `CorpusEntry`s;
`caviar_dev()` reads the bundled one. Variables become i32 PARAMs; their slots are assigned by
**sorted variable name** (natural order, so `v2` comes before `v10`), dense from 0, one mapping
per entry shared by `expr` and `expr_euclid`. `CorpusEntry.var_names[slot]` gives the name back,
so a counterexample can be printed as `v0 = 3, v1 = -7`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.corpus.sexpr import parse_sexpr, sexpr_var_names
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp

__all__ = ["CorpusEntry", "caviar_dev", "caviar_path", "load_caviar"]


@dataclass(frozen=True)
class CorpusEntry:
    """One Caviar expression as a UOp program, with its variables' names and the dataset's metadata."""

    id: str
    line: int  # 1-based line in the .jsonl file
    program: UOp  # from `expr`
    var_names: tuple[str, ...]  # var_names[slot] is the name of PARAM slot `slot`
    program_euclid: UOp | None  # from `expr_euclid` (Halide's Euclidean semantics), where present
    halide: str
    verdict: str  # "true_on_all_samples" | "false_on_all_samples" | "mixed"
    sample_counterexample: dict[str, int] | None
    halide_simplifier_proved: bool
    caviar_result: dict[str, Any] | None
    size: int
    num_vars: int
    possibly_negative_divisor: bool
    source: str = ""

    def params(self) -> tuple[UOp, ...]:
        """The PARAM node of every variable, by slot."""
        return tuple(UOp.param(slot, dtypes.i32) for slot in range(len(self.var_names)))

    def name_values(self, values_by_slot: list[int] | tuple[int, ...]) -> dict[str, int]:
        """A slot-ordered assignment as {variable name: value}, for printing a counterexample."""
        return dict(zip(self.var_names, values_by_slot, strict=True))


def caviar_path() -> Path:
    """The bundled caviar_dev.jsonl (package data of eqsat_uopc.corpus; data/README.md says where
    it comes from)."""
    return Path(str(resources.files(__package__).joinpath("data", "caviar_dev.jsonl")))


def caviar_dev() -> list[CorpusEntry]:
    """Every entry of the bundled Caviar development corpus, in file order."""
    return load_caviar(caviar_path())


def load_caviar(path: str | Path) -> list[CorpusEntry]:
    """Every entry of a caviar_dev.jsonl file, in file order. Errors name the file, line and entry id."""
    path = Path(path)
    entries = []
    with path.open() as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise CorpusError(f"{where}: column {e.colno}: not JSON: {e.msg}") from None
            entries.append(_entry(row, lineno, where))
    return entries


def _entry(row: dict, lineno: int, where: str) -> CorpusEntry:
    for key in ("id", "expr", "sample_verdict"):
        if key not in row:
            raise CorpusError(f"{where}: entry has no {key!r} field")
    where = f"{where} ({row['id']})"
    names = sexpr_var_names(row["expr"] + " " + (row.get("expr_euclid") or ""))
    slots = {n: k for k, n in enumerate(names)}
    program = parse_sexpr(row["expr"], slots, f"{where} expr")
    euclid = row.get("expr_euclid")
    return CorpusEntry(
        id=row["id"],
        line=lineno,
        program=program,
        var_names=tuple(names),
        program_euclid=None if euclid is None else parse_sexpr(euclid, slots, f"{where} expr_euclid"),
        halide=row.get("halide", ""),
        verdict=row["sample_verdict"],
        sample_counterexample=row.get("sample_counterexample"),
        halide_simplifier_proved=bool(row.get("halide_simplifier_proved", False)),
        caviar_result=row.get("caviar_result"),
        size=int(row.get("size", 0)),
        num_vars=int(row.get("num_vars", len(names))),
        possibly_negative_divisor=bool(row.get("possibly_negative_divisor", False)),
        source=row.get("source", ""),
    )
