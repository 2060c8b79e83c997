"""The fuzzer's regression corpus: minimized expressions on which saturation was larger than tinygrad.

A .jsonl file in the corpus format (eqsat_uopc/corpus/format.py, so `load_corpus` and
`eqsat-uopc compare ... --against tinygrad` read it too), one minimized case per line:

- `id` (`fuzz/<template>/<seed>-<index>`), `expr` (the S-expression), `bounds` ({variable: [lo, hi]}),
  `tinygrad` (tinygrad's simplification of `expr`, an S-expression);
- `template`, `seed`, `index`: the generated expression it was shrunk from
  (`generate(seed, index, [template])` draws it again), and `original`, that expression's S-expression
  with `original_bounds`;
- `int_semantics`: the semantics under which ours was larger; `tinygrad_size` and `ours_size`, the DAG
  sizes when it was found; `tinygrad_rules`: the tinygrad rules its simplification fires
  (attribution.py), the significant ones first.

Cases are deduplicated by `shape_key`: the expression with its inputs renamed in order of first use,
its integer constants reduced to their sign class (0, 1, -1, positive, negative) and each input's
bounds to the signs of its ends. The bundled file is `REGRESSIONS_PATH`; the suite runs every case
(tests/test_fuzz_tinygrad.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.corpus.format import json_lines
from eqsat_uopc.corpus.sexpr import parse_sexpr, sexpr_var_names, to_sexpr
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp

__all__ = [
    "Regression",
    "append_regressions",
    "bounds_by_name",
    "load_regressions",
    "regressions_path",
    "shape_key",
]


def regressions_path() -> Path:
    """The bundled regression corpus (package data of eqsat_uopc.corpus)."""
    return Path(str(resources.files("eqsat_uopc.corpus").joinpath("data", "tinygrad_fuzz.jsonl")))


@dataclass(frozen=True)
class Regression:
    """One minimized case of the corpus."""

    id: str
    line: int
    program: UOp
    tinygrad: UOp | None
    template: str
    seed: int
    index: int
    int_semantics: str
    tinygrad_size: int
    ours_size: int
    tinygrad_rules: tuple[str, ...]
    row: dict[str, Any]  # the line as read, every field


def bounds_by_name(program: UOp) -> dict[str, list[int]]:
    """{vK: [lo, hi]} of the program's bounded inputs (the corpus format's `bounds`)."""
    out = {}
    for u in program.toposort():
        if u.op is Ops.PARAM and u.arg.bounds is not None:
            out[f"v{u.arg.slot}"] = list(u.arg.bounds)
    return dict(sorted(out.items()))


def _sign(v: int) -> str:
    return {0: "0", 1: "1", -1: "-1"}.get(v, "+" if v > 0 else "-")


def shape_key(program: UOp) -> str:
    """What two cases must share to count as one: the expression's form up to input names,
    constant values (kept: their sign class) and bounds (kept: the signs of their ends)."""
    text = to_sexpr(program)
    names: dict[str, str] = {}
    for name in re.findall(r"\(var (\w+)\)", text):
        names.setdefault(name, f"x{len(names)}")
    text = re.sub(r"\(var (\w+)\)", lambda m: f"(var {names[m.group(1)]})", text)
    text = re.sub(r"\(const (-?\d+)\)", lambda m: f"(const {_sign(int(m.group(1)))})", text)
    by_name = bounds_by_name(program)
    ranges = ",".join(
        f"{names[n]}:[{_sign(lo)},{_sign(hi)}]" for n, (lo, hi) in by_name.items() if n in names
    )
    return f"{text} {ranges}"


def load_regressions(path: str | Path | None = None) -> list[Regression]:
    """Every case of a regression corpus file (default: the bundled one), in file order. Errors
    name the file, the line and the field."""
    path = Path(path) if path is not None else regressions_path()
    return [_regression(row, lineno, where) for row, lineno, where in json_lines(path)]


_REQUIRED = ("id", "expr", "template", "seed", "index", "int_semantics", "tinygrad_size", "ours_size")


def _regression(row: dict[str, Any], lineno: int, where: str) -> Regression:
    for key in _REQUIRED:
        if key not in row:
            raise CorpusError(f"{where}: entry has no {key!r} field")
    if row["int_semantics"] not in ("wrap", "no_overflow"):
        raise CorpusError(
            f"{where}: int_semantics must be 'wrap' or 'no_overflow', got {row['int_semantics']!r}"
        )
    names = sexpr_var_names(row["expr"])
    slots = {n: int(n[1:]) if re.fullmatch(r"v\d+", n) else k for k, n in enumerate(names)}
    given = row.get("bounds") or {}
    bounds = {n: tuple(b) for n, b in given.items()}
    program = parse_sexpr(row["expr"], slots, f"{where} expr", bounds)
    tinygrad = None
    if row.get("tinygrad") is not None:
        tg_slots = dict(slots)
        for n in sexpr_var_names(row["tinygrad"]):
            if n not in tg_slots:
                raise CorpusError(f"{where}: tinygrad names variable {n!r}, which expr does not use")
        tinygrad = parse_sexpr(row["tinygrad"], tg_slots, f"{where} tinygrad", bounds)
    return Regression(
        id=row["id"],
        line=lineno,
        program=program,
        tinygrad=tinygrad,
        template=row["template"],
        seed=int(row["seed"]),
        index=int(row["index"]),
        int_semantics=row["int_semantics"],
        tinygrad_size=int(row["tinygrad_size"]),
        ours_size=int(row["ours_size"]),
        tinygrad_rules=tuple(row.get("tinygrad_rules", ())),
        row=row,
    )


def append_regressions(path: str | Path, rows: list[dict[str, Any]]) -> int:
    """Append the rows whose shape the file does not hold yet (nor an earlier row); the number
    written. Each row needs `expr` and `bounds` (shape_key is computed from them)."""
    path = Path(path)
    seen = set()
    if path.exists():
        seen = {shape_key(r.program) for r in load_regressions(path)}
    written = 0
    with path.open("a") as f:
        for row in rows:
            key = shape_key(_program_of(row))
            if key in seen:
                continue
            seen.add(key)
            f.write(json.dumps(row, sort_keys=True) + "\n")
            written += 1
    return written


def _program_of(row: dict[str, Any]) -> UOp:
    names = sexpr_var_names(row["expr"])
    slots = {n: int(n[1:]) for n in names}
    return parse_sexpr(row["expr"], slots, "row", {n: tuple(b) for n, b in (row.get("bounds") or {}).items()})
