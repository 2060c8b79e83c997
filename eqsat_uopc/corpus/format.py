"""The corpus file format: one JSON object per line, each an expression and what is known about it.

Fields: `id`; `expr`, the expression as an S-expression over the IR's ops (sexpr.py); optionally
`expr_euclid` (the same under Halide's Euclidean division), `bounds` ({variable: [lo, hi]}: the
variable is an i32 input known to lie in [lo, hi]), `tinygrad` (tinygrad's simplification of the
expression, as an S-expression over the same variables), `sample_verdict` (`true_on_all_samples`,
`false_on_all_samples`, `mixed`; `unknown` when absent), and the Caviar metadata (`halide`,
`halide_simplifier_proved`, `caviar_result`, `size`, `num_vars`, `possibly_negative_divisor`,
`source`). Variables become i32 PARAMs whose slots are assigned by **sorted variable name**
(natural order, so `v2` comes before `v10`), dense from 0, one mapping per entry shared by every
expression of the entry. `CorpusEntry.var_names[slot]` gives the name back, so a counterexample can
be printed as `v0 = 3, v1 = -7`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.corpus.sexpr import parse_sexpr, sexpr_var_names
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.uop import UOp

__all__ = ["VERDICTS", "CorpusEntry", "json_lines", "load_corpus"]

# sample verdict -> the constant the expression should reduce to (None: not a constant, or unknown)
VERDICTS = {"true_on_all_samples": True, "false_on_all_samples": False, "mixed": None, "unknown": None}


@dataclass(frozen=True)
class CorpusEntry:
    """One corpus expression as a UOp program, with its variables' names and bounds and the metadata."""

    id: str
    line: int  # 1-based line in the .jsonl file
    program: UOp  # from `expr`
    var_names: tuple[str, ...]  # var_names[slot] is the name of PARAM slot `slot`
    program_euclid: UOp | None  # from `expr_euclid` (Halide's Euclidean semantics), where present
    halide: str
    verdict: str  # a key of VERDICTS
    sample_counterexample: dict[str, int] | None
    halide_simplifier_proved: bool
    caviar_result: dict[str, Any] | None
    size: int
    num_vars: int
    possibly_negative_divisor: bool
    source: str = ""
    bounds: tuple[tuple[int, int] | None, ...] = ()  # bounds[slot], where the corpus gives them
    tinygrad: UOp | None = None  # tinygrad's simplification of `program`, where recorded

    def params(self) -> tuple[UOp, ...]:
        """The PARAM node of every variable, by slot."""
        bounds = self.bounds or (None,) * len(self.var_names)
        return tuple(UOp.param(slot, dtypes.i32, bounds=b) for slot, b in enumerate(bounds))

    def name_values(self, values_by_slot: list[int] | tuple[int, ...]) -> dict[str, int]:
        """A slot-ordered assignment as {variable name: value}, for printing a counterexample."""
        return dict(zip(self.var_names, values_by_slot, strict=True))


def load_corpus(path: str | Path) -> list[CorpusEntry]:
    """Every entry of a corpus .jsonl file, in file order. Errors name the file, line and entry id."""
    return [_entry(row, lineno, where) for row, lineno, where in json_lines(Path(path))]


def json_lines(path: Path) -> Iterator[tuple[Any, int, str]]:
    """Each non-blank line of a .jsonl file read as JSON, with its line number and "file:line" (for
    errors); a line that is not JSON is a CorpusError naming the file, the line and the column."""
    with path.open() as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path.name}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise CorpusError(f"{where}: column {e.colno}: not JSON: {e.msg}") from None
            yield row, lineno, where


def _entry(row: dict, lineno: int, where: str) -> CorpusEntry:
    for key in ("id", "expr"):
        if key not in row:
            raise CorpusError(f"{where}: entry has no {key!r} field")
    where = f"{where} ({row['id']})"
    verdict = row.get("sample_verdict", "unknown")
    if verdict not in VERDICTS:
        raise CorpusError(f"{where}: sample_verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    names = sexpr_var_names(row["expr"] + " " + (row.get("expr_euclid") or ""))
    slots = {n: k for k, n in enumerate(names)}
    bounds = _bounds(row.get("bounds"), names, where)
    by_name = dict(zip(names, bounds, strict=True)) if bounds else None

    def parse(key: str) -> UOp | None:
        text = row.get(key)
        return None if text is None else parse_sexpr(text, slots, f"{where} {key}", by_name)

    return CorpusEntry(
        id=row["id"],
        line=lineno,
        program=parse("expr"),
        var_names=tuple(names),
        program_euclid=parse("expr_euclid"),
        halide=row.get("halide", ""),
        verdict=verdict,
        sample_counterexample=row.get("sample_counterexample"),
        halide_simplifier_proved=bool(row.get("halide_simplifier_proved", False)),
        caviar_result=row.get("caviar_result"),
        size=int(row.get("size", 0)),
        num_vars=int(row.get("num_vars", len(names))),
        possibly_negative_divisor=bool(row.get("possibly_negative_divisor", False)),
        source=row.get("source", ""),
        bounds=bounds,
        tinygrad=parse("tinygrad"),
    )


def _bounds(given: Any, names: list[str], where: str) -> tuple[tuple[int, int] | None, ...]:
    """bounds[slot] from the entry's {variable: [lo, hi]} (variables it does not name are unbounded)."""
    if given is None:
        return ()
    if not isinstance(given, dict):
        raise CorpusError(f"{where}: bounds must be an object {{variable: [lo, hi]}}, got {given!r}")
    for name, b in given.items():
        if name not in names:
            raise CorpusError(f"{where}: bounds name variable {name!r}, which the expression does not use")
        if not (isinstance(b, list) and len(b) == 2 and all(type(v) is int for v in b) and b[0] <= b[1]):
            raise CorpusError(
                f"{where}: bounds of {name!r} must be [lo, hi] integers with lo <= hi, got {b!r}"
            )
    return tuple(tuple(given[n]) if n in given else None for n in names)
