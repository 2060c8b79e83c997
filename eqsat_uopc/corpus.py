"""Benchmark corpora: the Caviar/Halide expressions of shared/bench, and generated index expressions.

Both give UOp programs over i32 variables, so the greedy engine and equality saturation are measured
on the same inputs.

`load_caviar` reads `caviar_dev.jsonl`, whose `expr` field is an S-expression over the IR's own ops
(`add mul floordiv floormod max lt ne where const var`). Variables become i32 PARAMs; their slots
are assigned by **sorted variable name** (natural order, so `v2` comes before `v10`), dense from 0,
one mapping per entry shared by `expr` and `expr_euclid`. `CorpusEntry.var_names[slot]` gives the
name back, so a counterexample can be printed as `v0 = 3, v1 = -7`.

`index_expressions` generates the address arithmetic a tensor compiler produces: a buffer of an
N-d shape seen through a chain of views (reshape, permute, expand, pad, shrink), indexed by one
RANGE per output axis. Each view composes index functions exactly as a view tracker does, so a
reshape becomes flat index -> unravel (// and %) -> ravel, a pad adds a validity mask (CMPLT,
CMPNE, WHERE), and the final expression is what a simplifier must clean up.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .dtype import dtypes
from .ops import Ops
from .uop import UOp, UOpError, prod

__all__ = [
    "CorpusEntry",
    "CorpusError",
    "IndexExpression",
    "caviar_path",
    "index_expressions",
    "load_caviar",
    "parse_sexpr",
    "to_sexpr",
]


class CorpusError(ValueError):
    """A corpus entry that cannot be read: the message names the entry and the position."""


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


def _natural_key(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def sexpr_var_names(text: str) -> list[str]:
    """The distinct `(var NAME)` names of an S-expression, in natural sort order (their slot order)."""
    return sorted(set(re.findall(r"\(\s*var\s+([^\s()]+)\s*\)", text)), key=_natural_key)


def parse_sexpr(text: str, slots: dict[str, int], where: str = "expression") -> UOp:
    """Parse one S-expression into a UOp; `slots` maps variable names to PARAM slots.

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
                node = _leaf(head, val, vcol, slots, fail)
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


def _leaf(head: str, val: str, col: int, slots: dict[str, int], fail: Callable) -> UOp:
    if head == "var":
        if val not in slots:
            raise fail(col, f"variable {val!r} has no slot")
        return UOp.param(slots[val], dtypes.i32)
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


CAVIAR_RELATIVE = Path("..") / "shared" / "bench" / "caviar_dev.jsonl"  # from the repository root
CAVIAR_FALLBACK = Path("/work/shared/bench/caviar_dev.jsonl")  # a developer checkout on these machines


def caviar_path() -> Path:
    """caviar_dev.jsonl: `../shared/bench/` beside the repository root (as CI lays it out), else
    /work/shared; FileNotFoundError naming both places when neither has it."""
    candidates = [Path(__file__).resolve().parent.parent / CAVIAR_RELATIVE, CAVIAR_FALLBACK]
    for path in candidates:
        if path.is_file():
            return path.resolve()
    raise FileNotFoundError("caviar_dev.jsonl not found; looked at " + ", ".join(str(p) for p in candidates))


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


# ---------------------------------------------------------------------------
# generated index expressions


@dataclass(frozen=True)
class IndexExpression:
    """One generated address computation: `program` indexes a buffer through `views`, over `ranges`."""

    program: UOp  # i32 scalar: the buffer offset, or WHERE(valid, offset, 0) when a view pads
    ranges: tuple[UOp, ...]  # one RANGE per output axis (ident = the axis number)
    # the view chain, e.g. (("buffer", (4, 6)), ("reshape", (2, 12)), ("permute", (1, 0))); also
    # ("expand", (axis, size)): a new axis of that size, ("pad", (axis, before, after)),
    # ("shrink", (axis, begin, end))
    views: tuple[tuple[str, Any], ...]
    params: tuple[UOp, ...] = field(default=())  # PARAMs the expression uses (a batch offset)

    @property
    def description(self) -> str:
        return " -> ".join(f"{kind} {arg}" for kind, arg in self.views)


# A view maps an index tuple of its shape to (buffer offset, validity or None).
_IndexFn = Callable[[list[UOp]], tuple[UOp, UOp | None]]


def _and(a: UOp | None, b: UOp) -> UOp:
    return b if a is None else a.where(b, False)


def _ravel(idx: list[UOp], shape: tuple[int, ...]) -> UOp:
    flat: UOp | None = None
    for x, s in zip(idx, shape, strict=True):
        flat = x if flat is None else flat * s + x
    return flat if flat is not None else UOp.const(0)


def _unravel(flat: UOp, shape: tuple[int, ...]) -> list[UOp]:
    out, stride = [], 1
    for s in reversed(shape):
        out.append((flat // stride) % s if stride > 1 else flat % s)
        stride *= s
    return out[::-1]


def _factorizations(n: int, rng: random.Random, rank: int) -> tuple[int, ...]:
    """A random shape of `rank` axes whose product is n (axes of 1 allowed)."""
    dims = []
    for _ in range(rank - 1):
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        n //= d
    dims.append(n)
    rng.shuffle(dims)
    return tuple(dims)


def _one_expression(rng: random.Random, k: int) -> IndexExpression:
    rank = rng.randint(1, 4)
    base = tuple(rng.choice((1, 2, 3, 4, 5, 6, 8, 16)) for _ in range(rank))
    strides = [prod(base[i + 1 :]) for i in range(rank)]
    shape = base
    fn: _IndexFn = lambda idx: (_ravel_strided(idx, strides), None)
    views: list[tuple[str, Any]] = [("buffer", base)]
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("reshape", "reshape", "permute", "expand", "pad", "shrink"))
        if kind == "reshape":
            new = _factorizations(prod(shape), rng, rng.randint(1, 4))
            fn = _reshaped(fn, shape, new)
            view = ("reshape", new)
        elif kind == "permute" and len(shape) > 1:
            order = list(range(len(shape)))
            rng.shuffle(order)
            new = tuple(shape[o] for o in order)
            fn = _permuted(fn, tuple(order))
            view = ("permute", tuple(order))
        elif kind == "expand":
            axis = rng.randrange(len(shape) + 1)
            with_one = (*shape[:axis], 1, *shape[axis:])
            new = (*shape[:axis], rng.choice((2, 3, 4)), *shape[axis:])
            fn = _expanded(_reshaped(fn, shape, with_one), with_one, new)
            view = ("expand", (axis, new[axis]))
        elif kind == "pad":
            axis = rng.randrange(len(shape))
            before, after = rng.randint(0, 2), rng.randint(1, 2)
            new = tuple(d + before + after if a == axis else d for a, d in enumerate(shape))
            fn = _padded(fn, axis, before, shape[axis])
            view = ("pad", (axis, before, after))
        elif kind == "shrink" and any(d > 1 for d in shape):
            axis = rng.choice([a for a, d in enumerate(shape) if d > 1])
            begin = rng.randrange(shape[axis] - 1)
            end = rng.randint(begin + 1, shape[axis])
            new = tuple(end - begin if a == axis else d for a, d in enumerate(shape))
            fn = _shrunk(fn, axis, begin)
            view = ("shrink", (axis, begin, end))
        else:
            continue
        views.append(view)
        shape = new
    ranges = tuple(UOp.range(d, ident=(k, a)) for a, d in enumerate(shape))
    offset, valid = fn(list(ranges))
    params: tuple[UOp, ...] = ()
    if rng.random() < 0.3:  # a batch offset: the buffer is one of many, picked by a runtime value
        p = UOp.param(0, dtypes.i32)
        offset = p * prod(base) + offset
        params = (p,)
    program = offset if valid is None else valid.where(offset, 0)
    return IndexExpression(program, ranges, tuple(views), params)


def _ravel_strided(idx: list[UOp], strides: list[int]) -> UOp:
    terms = [x * s if s != 1 else x for x, s in zip(idx, strides, strict=True)]
    out = terms[0] if terms else UOp.const(0)
    for t in terms[1:]:
        out = out + t
    return out


def _reshaped(fn: _IndexFn, old: tuple[int, ...], new: tuple[int, ...]) -> _IndexFn:
    return lambda idx: fn(_unravel(_ravel(idx, new), old))


def _permuted(fn: _IndexFn, order: tuple[int, ...]) -> _IndexFn:
    inverse = [order.index(k) for k in range(len(order))]
    return lambda idx: fn([idx[inverse[k]] for k in range(len(order))])


def _expanded(fn: _IndexFn, old: tuple[int, ...], new: tuple[int, ...]) -> _IndexFn:
    broadcast = [o == 1 and n != 1 for o, n in zip(old, new, strict=True)]
    return lambda idx: fn([UOp.const(0) if b else x for x, b in zip(idx, broadcast, strict=True)])


def _padded(fn: _IndexFn, axis: int, before: int, size: int) -> _IndexFn:
    def padded(idx: list[UOp]) -> tuple[UOp, UOp | None]:
        x = idx[axis]
        inner = x + -before if before else x
        in_range = (x < before).ne(True).where(x < before + size, False) if before else x < size
        offset, valid = fn([inner if a == axis else v for a, v in enumerate(idx)])
        return offset, _and(valid, in_range)

    return padded


def _shrunk(fn: _IndexFn, axis: int, begin: int) -> _IndexFn:
    return lambda idx: fn([x + begin if a == axis and begin else x for a, x in enumerate(idx)])


def index_expressions(n: int, seed: int = 0) -> list[IndexExpression]:
    """n index expressions of views over N-d buffers, the same list for the same (n, seed)."""
    rng = random.Random(seed)
    return [_one_expression(rng, k) for k in range(n)]
