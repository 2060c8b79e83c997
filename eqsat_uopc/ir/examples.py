"""Example files: a .uir program plus what its header comments promise about it.

`# inputs: [v0, v1, ...]` gives a value per PARAM slot, `# expect: VALUE` the program's value on
them, `# expect-error: Type: message` the error evaluating it raises instead. The run command and
the tests check those promises; the format of the program itself is uir.py's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eqsat_uopc.ir.uir import UirError, numbered_lines, parse_uir, parse_value
from eqsat_uopc.ir.uop import UOp

__all__ = ["Example", "load_example", "read_example"]

_HEADER = re.compile(r"^\s*#\s*(expect|inputs|expect-error):(.*)$")


@dataclass(frozen=True)
class Example:
    """A .uir example file: its program and what its header comments promise about it.

    `# inputs: [v0, v1, ...]` gives a value per PARAM slot (absent: the program is closed),
    `# expect: VALUE` the program's value on those inputs, `# expect-error: Type: message` the error
    evaluating it raises instead. Values use .uir literals, nested in [ ] for tensors.
    """

    program: UOp
    inputs: list | None = None
    expect: Any = None
    expect_error: str | None = None


def read_example(text: str, source: str | None = None) -> Example:
    """The program of a .uir text and its `# inputs:` / `# expect:` / `# expect-error:` header."""
    program = parse_uir(text, source)
    found: dict[str, Any] = {}
    for lineno, line in numbered_lines(text):
        if (m := _HEADER.match(line)) is None:
            continue
        key = m.group(1)
        if key in found:
            raise UirError(lineno, 1, f"a second '# {key}:' line", source)
        if key == "expect-error":
            found[key] = m.group(2).strip()
            continue
        col = m.start(2) + 1
        try:
            v = parse_value(m.group(2), lineno, col, f"the '# {key}:' line")
        except UirError as e:
            raise UirError(e.line, e.column, e.message, source) from None
        if key == "inputs" and not isinstance(v, list):
            first = col + len(m.group(2)) - len(m.group(2).lstrip())
            raise UirError(lineno, first, "expected a [list] with one value per PARAM slot", source)
        found[key] = v
    return Example(program, found.get("inputs"), found.get("expect"), found.get("expect-error"))


def load_example(path: str | Path) -> Example:
    """read_example of a file; errors name the file."""
    path = Path(path)
    return read_example(path.read_text(), source=str(path))
