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

from eqsat_uopc.ir.uir import UirError, _describe, _items, _Line, _lines, _literal, _tokens, parse_uir
from eqsat_uopc.ir.uop import UOp

__all__ = ["Example", "expected_value", "load_example", "read_example"]

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
    for lineno, line in _lines(text):
        if (m := _HEADER.match(line)) is None:
            continue
        key = m.group(1)
        if key in found:
            raise UirError(lineno, 1, f"a second '# {key}:' line", source)
        if key == "expect-error":
            found[key] = m.group(2).strip()
            continue
        col = m.start(2) + 1
        c = _Line(_tokens(" " * (col - 1) + m.group(2), lineno), lineno)
        try:
            v = _expect_value(c)
            if c.peek.kind != "end":
                raise c.error(c.peek, f"expected the end of the '# {key}:' line, got {_describe(c.peek)}")
            if key == "inputs" and not isinstance(v, list):
                raise c.error(c.toks[0], "expected a [list] with one value per PARAM slot")
        except UirError as e:
            raise UirError(e.line, e.column, e.message, source) from None
        found[key] = v
    return Example(program, found.get("inputs"), found.get("expect"), found.get("expect-error"))


def load_example(path: str | Path) -> Example:
    """read_example of a file; errors name the file."""
    path = Path(path)
    return read_example(path.read_text(), source=str(path))


def expected_value(text: str, source: str | None = None) -> Any:
    """The value of a `# expect: VALUE` comment (None if there is none): scalars or nested lists."""
    return read_example(text, source).expect


def _expect_value(c: _Line) -> Any:
    t = c.next()
    if t.kind == "sym" and t.text == "[":
        c.nest(t, +1)
        return _items(c, "]", _expect_value)
    if (v := _literal(t)) is not None:
        return v
    raise c.error(t, f"expected a literal (7, 2.0, true) or a [list], got {_describe(t)}")
