"""S-expressions over the IR's own ops: the corpus syntax (`(add (var x) (const 1))`).

`parse_sexpr` reads one into a UOp (variables become i32 PARAMs at the slots the caller gives),
`to_sexpr` prints an i32/bool scalar program back, `sexpr_var_names` lists the variables in their
slot order (natural sort, so `v2` comes before `v10`).

    >>> from eqsat_uopc.corpus import parse_sexpr, to_sexpr
    >>> from eqsat_uopc.corpus.sexpr import sexpr_var_names
    >>> text = "(lt (add (var v10) (const 1)) (var v2))"
    >>> sexpr_var_names(text)
    ['v2', 'v10']
    >>> to_sexpr(parse_sexpr(text, {"v2": 0, "v10": 1}), ["v2", "v10"]) == text
    True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from eqsat_uopc.corpus.errors import CorpusError
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError

__all__ = ["natural_key", "parse_sexpr", "sexpr_var_names", "to_sexpr"]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_BINARY = {
    "add": Ops.ADD,
    "mul": Ops.MUL,
    "floordiv": Ops.FLOORDIV,
    "floormod": Ops.FLOORMOD,
    "max": Ops.MAX,
    "lt": Ops.CMPLT,
    "ne": Ops.CMPNE,
}
_ARITY = {**dict.fromkeys(_BINARY, 2), "where": 3}
_SEXPR_NAME = {op: name for name, op in _BINARY.items()} | {Ops.WHERE: "where"}


def natural_key(name: str) -> tuple:
    """Sort key of a variable name in natural order (`v2` before `v10`): names' slot order."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def sexpr_var_names(text: str) -> list[str]:
    """The distinct `(var NAME)` names of an S-expression, in natural sort order (their slot order)."""
    return sorted(set(re.findall(r"\(\s*var\s+([^\s()]+)\s*\)", text)), key=natural_key)


def parse_sexpr(
    text: str,
    slots: dict[str, int],
    where: str = "expression",
    bounds: dict[str, tuple[int, int] | None] | None = None,
) -> UOp:
    """Parse one S-expression into a UOp; `slots` maps variable names to PARAM slots, `bounds` (if
    given) variable names to the bounds of their inputs.

    Errors are CorpusError naming `where` and the 1-based column. Iterative: no recursion limit.
    """
    tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(text)]

    def fail(col: int, msg: str) -> CorpusError:
        return CorpusError(f"{where}: column {col}: {msg}")

    if not tokens:
        raise fail(1, "expected '(', got end of input")
    # each frame: [head token, head column, open-paren column, operands]
    stack: list[list[Any]] = []
    result: UOp | None = None
    i = 0
    while i < len(tokens):
        tok, col = tokens[i]
        if result is not None:
            raise fail(col, f"expected end of input, got {tok!r}")
        if tok == "(":
            if i + 1 >= len(tokens):
                raise fail(col, "expected an operator after '(', got end of input")
            head, hcol = tokens[i + 1]
            if head in ("const", "var"):
                if i + 2 >= len(tokens):
                    raise fail(hcol, f"expected a value after {head!r}, got end of input")
                val, vcol = tokens[i + 2]
                if val in "()":
                    raise fail(vcol, f"expected a value after {head!r}, got {val!r}")
                if i + 3 >= len(tokens) or tokens[i + 3][0] != ")":
                    got = repr(tokens[i + 3][0]) if i + 3 < len(tokens) else "end of input"
                    col3 = tokens[i + 3][1] if i + 3 < len(tokens) else len(text) + 1
                    raise fail(col3, f"expected ')' closing ({head} {val}, got {got}")
                node = _leaf(head, val, vcol, slots, bounds or {}, fail)
                i += 4
                if stack:
                    stack[-1][3].append(node)
                else:
                    result = node
                continue
            if head not in _ARITY:
                known = ", ".join([*sorted(_ARITY), "const", "var"])
                raise fail(hcol, f"unknown operator {head!r} (expected one of {known})")
            stack.append([head, hcol, col, []])
            i += 2
            continue
        if tok == ")":
            if not stack:
                raise fail(col, "unbalanced ')'")
            head, hcol, pcol, operands = stack.pop()
            if len(operands) != _ARITY[head]:
                raise fail(pcol, f"{head} takes {_ARITY[head]} operands, got {len(operands)}")
            try:
                op = Ops.WHERE if head == "where" else _BINARY[head]
                node = UOp(op, tuple(operands))
            except UOpError as e:
                raise fail(pcol, str(e)) from None
            if stack:
                stack[-1][3].append(node)
            else:
                result = node
            i += 1
            continue
        raise fail(col, f"expected '(' or ')', got {tok!r}")
    if stack:
        raise fail(stack[-1][2], f"unclosed '(' of {stack[-1][0]}: expected ')', got end of input")
    assert result is not None
    return result


def _leaf(head: str, val: str, col: int, slots: dict[str, int], bounds: dict, fail: Callable) -> UOp:
    if head == "var":
        if val not in slots:
            raise fail(col, f"variable {val!r} has no slot")
        return UOp.param(slots[val], dtypes.i32, bounds=bounds.get(val))
    if val in ("true", "false"):
        return UOp.const(val == "true", dtypes.bool)
    if not re.fullmatch(r"-?\d+", val):
        raise fail(col, f"expected an integer, true or false after 'const', got {val!r}")
    v = int(val)
    if not -(2**31) <= v < 2**31:
        raise fail(col, f"constant {v} is outside the int32 range")
    return UOp.const(v, dtypes.i32)


def to_sexpr(u: UOp, var_names: tuple[str, ...] | list[str] | None = None) -> str:
    """The S-expression of an i32/bool scalar program (the corpus's own syntax); a tree, sharing unfolded.

    PARAM slot k prints as `(var var_names[k])`, or `(var vK)` without names.
    """
    memo: dict[UOp, str] = {}
    for n in u.toposort():
        if n.op is Ops.CONST:
            memo[n] = f"(const {str(n.arg).lower() if isinstance(n.arg, bool) else n.arg})"
        elif n.op is Ops.PARAM:
            name = var_names[n.arg.slot] if var_names is not None else f"v{n.arg.slot}"
            memo[n] = f"(var {name})"
        elif n.op in _SEXPR_NAME:
            memo[n] = f"({_SEXPR_NAME[n.op]} {' '.join(memo[s] for s in n.src)})"
        else:
            raise ValueError(f"to_sexpr: {n.op.name} has no S-expression form")
    return memo[u]
