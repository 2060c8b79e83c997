"""The soundness regression corpus: minimized expressions on which an optimizer returned a wrong
program or raised.

A .jsonl file, one shrunk failure per line (the bundled one is `regressions_path()`,
eqsat_uopc/corpus/data/soundness_fuzz.jsonl; tests/test_fuzz_soundness.py replays every case):

- `id` (`soundness/<template>/<seed>-<index>/<int semantics>`), `program` (the minimized program as
  .uir text: RANGEs and bool inputs included, constants exactly), `int_semantics`, `failure`
  (`unsound` or `crash`);
- what was found: `result` (the wrong program, .uir) and `counterexample` (`inputs` as v<slot> and
  RANGE identifiers, `expected`, `got`: null where the result is undefined, `kind`: value or
  undefined, `found_by`: tests or z3), or for a crash `error` (the exception, one line) and `where`
  (its site);
- `suspect`: the fold or rule family to blame (attribution.py); `template`, `family`, `seed`,
  `index`: the generated expression it was shrunk from (`original`, its .uir), which
  `generate(seed, index, [template])` draws again.

Cases are deduplicated by `shape_key`: the failure, the int semantics, the program with its inputs
renumbered by first use and each constant and bound reduced to its class (sign, and whether it is
small, near 2**16, near 2**30 or near an int32 end); for a crash also the error with numbers blanked.
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
from eqsat_uopc.fuzz.shrink import normalize_slots
from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.uir import UirError, parse_uir, to_uir
from eqsat_uopc.ir.uop import UOp

__all__ = [
    "FAILURES",
    "SoundnessCase",
    "append_cases",
    "error_key",
    "load_cases",
    "regressions_path",
    "shape_key",
]

FAILURES = ("unsound", "crash")
_REQUIRED = ("id", "program", "int_semantics", "failure")


def regressions_path() -> Path:
    """The bundled soundness regression corpus (package data of eqsat_uopc.corpus)."""
    return Path(str(resources.files("eqsat_uopc.corpus").joinpath("data", "soundness_fuzz.jsonl")))


@dataclass(frozen=True)
class SoundnessCase:
    """One case of the corpus, its program parsed."""

    id: str
    line: int
    program: UOp
    int_semantics: str
    failure: str
    row: dict[str, Any]  # the line as read, every field


def error_key(error: str) -> str:
    """An error message with its numbers blanked: two crashes of one kind share it."""
    return re.sub(r"-?\d+", "N", error)


def _class(v: int) -> str:
    a, sign = abs(v), "-" if v < 0 else "+"
    if v in (0, 1, -1):
        return str(v)
    if v <= I32_MIN + 64 or v >= I32_MAX - 64:
        return f"{sign}end"
    if abs(a - 2**30) <= 64:
        return f"{sign}p30"
    if abs(a - 2**16) <= 64 or abs(a - 46341) <= 1:
        return f"{sign}p16"
    return f"{sign}{'small' if a <= 64 else 'large'}"


def shape_key(program: UOp, int_semantics: str, failure: str, error: str = "") -> str:
    """What two failures must share to count as one (see the module docstring)."""
    p = normalize_slots(program)
    parts = []
    for line in to_uir(p).splitlines():
        line = re.sub(
            r"bounds=\((-?\d+), (-?\d+)\)",
            lambda m: f"bounds=({_class(int(m[1]))},{_class(int(m[2]))})",
            line,
        )
        line = re.sub(r"(?<![%\w])-?\d+(?![\w)])", lambda m: _class(int(m[0])), line)
        parts.append(line)
    tail = error_key(error) if failure == "crash" else ""
    return f"{int_semantics} {failure} {tail} | " + "; ".join(parts)


def _program(text: Any, where: str) -> UOp:
    if not isinstance(text, str):
        raise CorpusError(f"{where}: program must be .uir text, got {type(text).__name__}")
    try:
        return parse_uir(text)
    except UirError as e:
        raise CorpusError(f"{where}: program: {e}") from None


def load_cases(path: str | Path | None = None) -> list[SoundnessCase]:
    """Every case of a soundness corpus file (default: the bundled one), in file order. Errors name
    the file, the line and the field."""
    path = Path(path) if path is not None else regressions_path()
    out = []
    for row, lineno, where in json_lines(path):
        for key in _REQUIRED:
            if key not in row:
                raise CorpusError(f"{where}: entry has no {key!r} field")
        if row["int_semantics"] not in ("wrap", "no_overflow"):
            raise CorpusError(
                f"{where}: int_semantics must be 'wrap' or 'no_overflow', got {row['int_semantics']!r}"
            )
        if row["failure"] not in FAILURES:
            raise CorpusError(f"{where}: failure must be 'unsound' or 'crash', got {row['failure']!r}")
        program = _program(row["program"], where)
        if program.dtype not in (dtypes.i32, dtypes.bool) or program.shape:
            raise CorpusError(f"{where}: program must be an i32 or bool scalar")
        out.append(SoundnessCase(row["id"], lineno, program, row["int_semantics"], row["failure"], row))
    return out


def _row_key(row: dict[str, Any]) -> str:
    return shape_key(parse_uir(row["program"]), row["int_semantics"], row["failure"], row.get("error", ""))


def append_cases(path: str | Path, rows: list[dict[str, Any]]) -> int:
    """Append the rows whose shape (shape_key) the file does not hold yet, nor an earlier row; the
    number written. A row whose id the file holds already (the same template, seed and index drawn by
    another version of the grammar) gets the first free suffix `~2`, `~3`, ..."""
    path = Path(path)
    seen: set[str] = set()
    ids: set[str] = set()
    if path.exists():
        for case in load_cases(path):
            seen.add(_row_key(case.row))
            ids.add(case.id)
    written = 0
    with path.open("a") as f:
        for row in rows:
            key = _row_key(row)
            if key in seen:
                continue
            seen.add(key)
            rid, n = row["id"], 1
            while rid in ids:
                n += 1
                rid = f"{row['id']}~{n}"
            ids.add(rid)
            f.write(json.dumps(dict(row, id=rid), sort_keys=True) + "\n")
            written += 1
    return written
