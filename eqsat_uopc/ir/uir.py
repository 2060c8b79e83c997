"""The .uir text format: programs as the chapter's listings, printed and parsed back exactly.

One line per node in toposort order, root last::

    %0 = param : slot=0 dtype=i32
    %1 = mul %0, %0
    %2 = call %1, 7 : name=sq

A line is `%N = op operands : key=value ...`; the `: ...` part is there only for ops with an
argument. What `to_uir` prints, `parse_uir` reads back as the very same node (`parse_uir(to_uir(u))
is u`), for every op, dtype and constant (-0.0, nan, inf and f32 CONSTs holding doubles that are
not f32 values, such as 16777217.0, included).

Spellings, op by op (op names are the Ops names in lower case):

    const 5                               a CONST as the root; everywhere else a CONST is inlined
    param : slot=0 dtype=f32 shape=(3,) addrspace=global    shape and addrspace only when set
    param : slot=1 dtype=i32 bounds=(0, 15)   an i32 input known to lie in [0, 15]
    add %0, 1                             also mul, max, cmplt, cmpne, floordiv, floormod
    sqrt %0                               also recip, exp2, log2, sin
    where %2, 1, 0                        the condition, then the two branches
    cast %2 : dtype=i32
    stack 1.0, 2.0, 3.0                   elements, first axis
    index %0, 1, %3                       the value, then one i32 index per leading axis
    reshape 2.0, (1, 1)    expand %2, (2, 3)    permute %4, (1, 0)
    shrink %0, ((0, 2), (1, 3))           one (begin, end) pair per axis
    reduce %5 : op=add pop=1              REDUCE arg (op, k): op add|mul|max, pop = k axes removed
    call %1, 7 : name=sq                  the body, then the arguments; name= only when set
    range 4 : id=r0                       the extent, then the loop's identifier

Literals: ints `7` `-3` (i32); floats always look like floats, as Python's repr prints them (`2.0`,
`1e+20`, `-0.0`, `nan`, `inf`, `-inf`) (f32); `true` / `false` (bool). A literal has its own dtype:
`mul %1, 2` with an f32 %1 is a type error that says to write `2.0`. Shapes and orders are tuples
of ints, `()` and `(3,)` included. Identifiers (name=, id=) are bare words (`[A-Za-z_][A-Za-z0-9_.]*`,
read as str), JSON strings (`"a b"`), ints, or tuples of those; addrspace= is a word or a string.

Parsing accepts more than the printer writes:
  - blank lines and `#` comments anywhere; `%N` names are any `%[A-Za-z0-9_]+`, defined once each,
    used only after their definition; the last line is the program's root;
  - sugar: a scalar CONST operand of a shaped ALU op or STACK is broadcast to the shape of the
    op's shaped operands with RESHAPE + EXPAND (`mul %1, 2.0` with %1 of shape (2, 3)).
Every error is a UirError (a ValueError) reading `line L, column C: what was wrong and what was
expected`, including the type errors UOp construction finds.

Example files (examples/*.uir) carry their expected results in header comments, which
`read_example` / `load_example` read (values in the literal syntax, nested in [ ] for tensors):

    # inputs: [5, 3]                      one value per PARAM slot (absent: a closed program)
    # expect: [4.0, 8.0, 12.0]            the program's value (on those inputs)
    # expect-error: IndexOutOfBoundsError: index 5 out of bounds for STACK of 3    evaluating it fails so

Floats in `expect:` are meant bit for bit: 0.0 is not -0.0, and nan matches nan.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eqsat_uopc.bulk import gc_paused
from eqsat_uopc.errors import UserError
from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import ALU, BINARY, MOVEMENT, REDUCE_OPS, TRANSCENDENTAL, Ops
from eqsat_uopc.ir.uop import ParamArg, UOp, UOpError

__all__ = ["UirError", "load_uir", "numbered_lines", "parse_uir", "parse_value", "to_uir", "uir_line"]


class UirError(UserError, ValueError):
    """A .uir text that cannot be read: the message starts with `line L, column C:`."""

    def __init__(self, line: int, column: int, message: str, source: str | None = None) -> None:
        self.line, self.column, self.message, self.source = line, column, message, source
        where = f"line {line}, column {column}: {message}"
        super().__init__(f"{source}: {where}" if source else where)


_OPS_BY_NAME = {op.name.lower(): op for op in Ops}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_FLOAT_WORDS = {"nan": math.nan, "inf": math.inf}
_MAX_NESTING = 64


# ---------------------------------------------------------------------------
# printing


def _float_text(v: float) -> str:
    return "nan" if math.isnan(v) else repr(v)


def _literal_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return _float_text(v)


def _tuple_text(t: tuple) -> str:
    items = [_tuple_text(x) if isinstance(x, tuple) else _ident_text(x) for x in t]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _ident_text(v: Any) -> str:
    """An identifier value (name=, id=, addrspace=, tuple items): bare word, JSON string, int or tuple."""
    if isinstance(v, str):
        return v if _WORD.match(v) else json.dumps(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, tuple):
        return _tuple_text(v)
    raise TypeError(
        f"cannot print {type(v).__name__} {v!r} (.uir identifiers are str, int or tuples of them)"
    )


def _attrs(u: UOp) -> list[str]:
    if u.op is Ops.PARAM:
        a: ParamArg = u.arg
        out = [f"slot={a.slot}", f"dtype={a.dtype.name}"]
        if a.shape:
            out.append(f"shape={_tuple_text(a.shape)}")
        if a.addrspace is not None:
            out.append(f"addrspace={_ident_text(a.addrspace)}")
        if a.bounds is not None:
            out.append(f"bounds={_tuple_text(a.bounds)}")
        return out
    if u.op is Ops.CAST:
        return [f"dtype={u.arg.name}"]
    if u.op is Ops.REDUCE:
        return [f"op={u.arg[0].name.lower()}", f"pop={u.arg[1]}"]
    if u.op is Ops.CALL:
        return [] if u.arg is None else [f"name={_ident_text(u.arg)}"]
    if u.op is Ops.RANGE:
        return [f"id={_ident_text(u.arg)}"]
    return []


def _operands(u: UOp, ref) -> list[str]:
    out = [ref(s) for s in u.src]
    if u.op in MOVEMENT:
        out.append(_tuple_text(u.arg))
    return out


def to_uir(root: UOp) -> str:
    """The listing of root: one `%N = ...` line per node that is not an inlined constant, root last."""
    names: dict[UOp, str] = {}
    lines: list[str] = []

    def ref(s: UOp) -> str:
        return _literal_text(s.arg) if s.op is Ops.CONST else names[s]

    for u in root.toposort():
        if u.op is Ops.CONST and u is not root:
            continue
        name = names[u] = f"%{len(lines)}"
        try:
            body = _literal_text(u.arg) if u.op is Ops.CONST else ", ".join(_operands(u, ref))
            attrs = _attrs(u)
        except TypeError as e:
            raise UirError(len(lines) + 1, 1, f"{u.op.name}: {e}") from None
        line = f"{name} = {u.op.name.lower()}"
        if body:
            line += f" {body}"
        if attrs:
            line += " : " + " ".join(attrs)
        lines.append(line)
    return "\n".join(lines) + "\n"


def uir_line(u: UOp, limit: int = 240) -> str:
    """u as one nested term with .uir literals, for traces: `add(mul(p0, 3), 11)`.

    PARAMs print as p<slot>, a CALL as name[body](args), and an op's argument follows its operands:
    `reduce(stack(1, 2), add, 1)`, `cast(p0, f32)`, `reshape(2.0, (1, 1))`, `range(4, r0)`. Each
    subterm's text is cut at `limit` characters, so a large DAG cannot make a trace line explode.
    """
    text: dict[UOp, str] = {}
    for n in u.toposort():
        if n.op is Ops.CONST:
            s = _literal_text(n.arg)
        elif n.op is Ops.PARAM:
            s = f"p{n.arg.slot}"
        elif n.op is Ops.CALL:
            s = f"{n.arg}[{text[n.src[0]]}]({', '.join(text[a] for a in n.src[1:])})"
        else:
            parts = [text[x] for x in n.src]
            if n.op in MOVEMENT:
                parts.append(_tuple_text(n.arg))
            elif n.op is Ops.REDUCE:
                parts += [n.arg[0].name.lower(), str(n.arg[1])]
            elif n.op is Ops.CAST:
                parts.append(n.arg.name)
            elif n.op is Ops.RANGE:
                try:
                    parts.append(_ident_text(n.arg))
                except TypeError:  # an identifier .uir cannot spell: a trace still shows it
                    parts.append(repr(n.arg))
            s = f"{n.op.name.lower()}({', '.join(parts)})"
        text[n] = s if len(s) <= limit else s[: limit - 3] + "..."
    return text[u]


# ---------------------------------------------------------------------------
# tokens


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # ref, word, int, float, str, sym, end
    text: str
    col: int  # 1-based


_TOKEN = re.compile(
    r"""(?P<space>[ \t\r]+)
      | (?P<comment>\#.*)
      | (?P<ref>%[A-Za-z0-9_]+)
      | (?P<float>-?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)|-inf\b)
      | (?P<int>-?\d+)
      | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
      | (?P<str>"(?:[^"\\]|\\.)*")
      | (?P<sym>[=,:()\[\]])""",
    re.VERBOSE,
)


def _tokens(line: str, lineno: int) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None:
            raise UirError(lineno, pos + 1, f"unexpected character {line[pos]!r}")
        kind = m.lastgroup
        if kind not in ("space", "comment"):
            out.append(_Tok(kind, m.group(), pos + 1))
        pos = m.end()
    out.append(_Tok("end", "", len(line.rstrip()) + 1))
    return out


_DESCRIBE = {"ref": "a %name", "word": "a word", "int": "an int", "float": "a float", "str": "a string"}


def _describe(t: _Tok) -> str:
    if t.kind == "end":
        return "the end of the line"
    return f"{t.text!r}" if t.kind == "sym" else f"{_DESCRIBE[t.kind]} {t.text!r}"


class _Line:
    """A cursor over one line's tokens, raising positioned errors."""

    def __init__(self, toks: list[_Tok], lineno: int) -> None:
        self.toks, self.i, self.lineno = toks, 0, lineno
        self.depth = 0  # nesting of ( ) and [ ]: bounded, so a hostile text cannot exhaust the stack

    def nest(self, tok: _Tok, delta: int) -> None:
        self.depth += delta
        if self.depth > _MAX_NESTING:
            raise self.error(tok, f"nested deeper than {_MAX_NESTING} levels")

    @property
    def peek(self) -> _Tok:
        return self.toks[self.i]

    def next(self) -> _Tok:
        t = self.toks[self.i]
        if t.kind != "end":
            self.i += 1
        return t

    def error(self, tok: _Tok, msg: str) -> UirError:
        return UirError(self.lineno, tok.col, msg)

    def expect(self, kind: str, text: str | None, what: str) -> _Tok:
        t = self.next()
        if t.kind != kind or (text is not None and t.text != text):
            raise self.error(t, f"expected {what}, got {_describe(t)}")
        return t

    def at(self, text: str) -> bool:
        return self.peek.kind == "sym" and self.peek.text == text


# ---------------------------------------------------------------------------
# values: literals, tuples, identifiers


def _literal(t: _Tok) -> Any | None:
    """The Python scalar a literal token denotes, or None if it is not a literal."""
    if t.kind == "int":
        return int(t.text)
    if t.kind == "float":
        return float(t.text)
    if t.kind == "word":
        if t.text in _FLOAT_WORDS:
            return _FLOAT_WORDS[t.text]
        if t.text in ("true", "false"):
            return t.text == "true"
    return None


def _tuple(c: _Line, item) -> tuple:
    """`(a, b)`, `(a,)` or `()`, items read by item(cursor)."""
    c.nest(c.expect("sym", "(", "'('"), +1)
    return tuple(_items(c, ")", item))


def _items(c: _Line, close: str, item) -> list:
    """The comma-separated items up to `close`, after its opener was nested; closes the nesting."""
    items = []
    while not c.at(close):
        items.append(item(c))
        if not c.at(close):
            c.expect("sym", ",", f"',' or '{close}'")
    c.next()
    c.depth -= 1
    return items


def _int_item(c: _Line) -> int:
    return int(c.expect("int", None, "an int").text)


def _pair_item(c: _Line) -> tuple[int, int]:
    start = c.peek
    pair = _tuple(c, _int_item)
    if len(pair) != 2:
        raise c.error(start, f"expected a (begin, end) pair, got {len(pair)} ints")
    return pair


def _ident_item(c: _Line) -> Any:
    t = c.peek
    if t.kind == "sym" and t.text == "(":
        return _tuple(c, _ident_item)
    c.next()
    if t.kind == "word":
        return t.text
    if t.kind == "int":
        return int(t.text)
    if t.kind == "str":
        return json.loads(t.text)
    raise c.error(t, f'expected an identifier (a word, an int, a "string" or a tuple), got {_describe(t)}')


# ---------------------------------------------------------------------------
# parsing


@dataclass(slots=True)
class _Operand:
    tok: _Tok  # first token, for error positions
    node: UOp | None = None  # a node operand (a %ref or a literal)
    literal: bool = False  # the node came from an inline literal
    tuple_: tuple | None = None  # a tuple operand (movement ops)


_ATTRS: dict[Ops, tuple[set[str], set[str]]] = {  # op -> (required keys, optional keys)
    Ops.PARAM: ({"slot", "dtype"}, {"shape", "addrspace", "bounds"}),
    Ops.CAST: ({"dtype"}, set()),
    Ops.REDUCE: ({"op", "pop"}, set()),
    Ops.CALL: (set(), {"name"}),
    Ops.RANGE: ({"id"}, set()),
}


class _Parser:
    def __init__(self) -> None:
        self.defs: dict[str, tuple[UOp, int]] = {}  # %name -> (node, line defined on)
        self.root: UOp | None = None

    def statement(self, c: _Line) -> None:
        name_tok = c.expect("ref", None, "a '%N = op ...' line")
        if name_tok.text in self.defs:
            raise c.error(
                name_tok, f"{name_tok.text} is already defined on line {self.defs[name_tok.text][1]}"
            )
        c.expect("sym", "=", "'='")
        op_tok = c.expect("word", None, "an op name")
        if (op := _OPS_BY_NAME.get(op_tok.text)) is None:
            raise c.error(
                op_tok, f"unknown op {op_tok.text!r} (expected one of {', '.join(sorted(_OPS_BY_NAME))})"
            )
        operands = self.operands(c, op)
        attrs = self.attrs(c, op, op_tok)
        node = self.build(c, op, op_tok, operands, attrs)
        self.defs[name_tok.text] = (node, c.lineno)
        self.root = node

    def operands(self, c: _Line, op: Ops) -> list[_Operand]:
        out: list[_Operand] = []
        if c.peek.kind == "end" or c.at(":"):
            return out
        while True:
            out.append(self.operand(c, op, len(out)))
            if c.peek.kind == "end" or c.at(":"):
                return out
            c.expect("sym", ",", "',', ':' or the end of the line")

    def operand(self, c: _Line, op: Ops, k: int) -> _Operand:
        t = c.peek
        if t.kind == "sym" and t.text == "(":
            if op is Ops.SHRINK:
                return _Operand(t, tuple_=_tuple(c, _pair_item))
            return _Operand(t, tuple_=_tuple(c, _int_item))
        c.next()
        if t.kind == "ref":
            if t.text not in self.defs:
                raise c.error(t, f"undefined {t.text} (a %name must be defined on an earlier line)")
            return _Operand(t, node=self.defs[t.text][0])
        if (v := _literal(t)) is not None:
            return _Operand(t, node=self.const(c, t, v), literal=True)
        raise c.error(
            t,
            f"expected an operand (a %name, a literal such as 7, 2.0, true, or a tuple), got {_describe(t)}",
        )

    def const(self, c: _Line, t: _Tok, v: Any) -> UOp:
        try:
            return UOp(Ops.CONST, (), v)
        except UOpError as e:
            raise c.error(t, str(e)) from None

    def attrs(self, c: _Line, op: Ops, op_tok: _Tok) -> dict[str, tuple[_Tok, Any]]:
        out: dict[str, tuple[_Tok, Any]] = {}
        required, optional = _ATTRS.get(op, (set(), set()))
        if c.at(":"):
            colon = c.next()
            if not required | optional:
                raise c.error(colon, f"{op.name.lower()} takes no key=value arguments")
            while c.peek.kind != "end":
                key = c.expect("word", None, "a key=value argument")
                if key.text not in required | optional:
                    raise c.error(
                        key, f"unknown key {key.text!r} for {op.name.lower()} (expected {_keys(op)})"
                    )
                if key.text in out:
                    raise c.error(key, f"key {key.text!r} given twice")
                c.expect("sym", "=", f"'=' after {key.text}")
                out[key.text] = (c.peek, self.value(c, op, key.text))
        if missing := sorted(required - out.keys()):
            end = c.peek
            raise c.error(
                end, f"{op.name.lower()} needs {', '.join(k + '=' for k in missing)} (expected {_keys(op)})"
            )
        if c.peek.kind != "end":
            raise c.error(c.peek, f"expected the end of the line, got {_describe(c.peek)}")
        return out

    def value(self, c: _Line, op: Ops, key: str) -> Any:
        t = c.peek
        if key in ("dtype",):
            c.next()
            if t.kind != "word" or t.text not in ("bool", "i32", "f32"):
                raise c.error(t, f"expected a dtype (bool, i32 or f32), got {_describe(t)}")
            return dtypes.by_name(t.text)
        if key in ("slot", "pop"):
            return _int_item(c)
        if key == "shape":
            return _tuple(c, _int_item)
        if key == "bounds":
            start = c.peek
            pair = _tuple(c, _int_item)
            if len(pair) != 2:
                raise c.error(start, f"expected bounds (lo, hi), got {len(pair)} ints")
            return pair
        if key == "op":
            c.next()
            names = {o.name.lower(): o for o in REDUCE_OPS}
            if t.kind != "word" or t.text not in names:
                raise c.error(t, f"expected a reduce op (add, max or mul), got {_describe(t)}")
            return names[t.text]
        if key == "addrspace":
            c.next()
            if t.kind == "word":
                return t.text
            if t.kind == "str":
                return json.loads(t.text)
            raise c.error(t, f'expected an address space (a word or a "string"), got {_describe(t)}')
        return _ident_item(c)  # name, id

    def build(self, c: _Line, op: Ops, op_tok: _Tok, xs: list[_Operand], attrs: dict) -> UOp:
        opname = op.name.lower()

        def arity(lo: int, hi: int | None, what: str) -> None:
            if len(xs) < lo or (hi is not None and len(xs) > hi):
                at = xs[hi].tok if hi is not None and len(xs) > hi else c.peek
                raise c.error(
                    at, f"{opname} takes {what}, got {len(xs)} operand{'s' if len(xs) != 1 else ''}"
                )

        def nodes(ops: list[_Operand]) -> list[UOp]:
            for x in ops:
                if x.node is None:
                    raise c.error(x.tok, f"{opname} operand must be a %name or a literal, not a tuple")
            return [x.node for x in ops]

        def val(key: str) -> Any:
            return attrs[key][1] if key in attrs else None

        try:
            if op is Ops.CONST:
                arity(1, 1, "one literal")
                if not xs[0].literal:
                    raise c.error(xs[0].tok, "const takes a literal (7, 2.0, true), not a %name or a tuple")
                return xs[0].node
            if op is Ops.PARAM:
                arity(0, 0, "no operands")
                arg = ParamArg(val("slot"), val("dtype"), val("shape") or (), val("addrspace"), val("bounds"))
                return UOp(Ops.PARAM, (), arg)
            if op in MOVEMENT:
                arity(2, 2, "a value and a tuple")
                (src,) = nodes(xs[:1])
                if xs[1].tuple_ is None:
                    expected = "((begin, end), ...)" if op is Ops.SHRINK else "a tuple of ints"
                    raise c.error(xs[1].tok, f"{opname} needs {expected} as its second operand")
                return UOp(op, (src,), xs[1].tuple_)
            if any(x.tuple_ is not None for x in xs):
                bad = next(x for x in xs if x.tuple_ is not None)
                raise c.error(bad.tok, f"{opname} operands are %names or literals, not tuples")
            if op is Ops.REDUCE:
                arity(1, 1, "one operand")
                return UOp(op, tuple(nodes(xs)), (val("op"), val("pop")))
            if op is Ops.CAST:
                arity(1, 1, "one operand")
                return UOp(op, tuple(nodes(xs)), val("dtype"))
            if op is Ops.RANGE:
                arity(1, 1, "one operand (the extent)")
                return UOp(op, tuple(nodes(xs)), val("id"))
            if op is Ops.CALL:
                arity(1, None, "a body and its arguments")
                return UOp(op, tuple(nodes(xs)), val("name"))
            if op is Ops.INDEX:
                arity(1, None, "a value and its indices")
                return UOp(op, tuple(nodes(xs)))
            if op is Ops.STACK:
                arity(1, None, "at least one element")
                return UOp(op, tuple(self.broadcast(c, op, xs, xs)))
            n = 2 if op in BINARY else 3 if op is Ops.WHERE else 1
            arity(n, n, f"{n} operand{'s' if n != 1 else ''}")
            if op in TRANSCENDENTAL:
                return UOp(op, tuple(nodes(xs)))
            assert op in ALU
            same = xs[1:] if op is Ops.WHERE else xs  # the operands that must agree in dtype
            return UOp(op, tuple(self.broadcast(c, op, xs, same)))
        except UOpError as e:
            raise c.error(op_tok, str(e)) from None
        except TypeError as e:  # an argument of the wrong kind that got past the checks above
            raise c.error(op_tok, f"{op.name}: {e}") from None

    def broadcast(self, c: _Line, op: Ops, xs: list[_Operand], same: list[_Operand]) -> list[UOp]:
        """The sugar: scalar CONST operands take the shape of the shaped ones. Literals keep their dtype."""
        shaped = [x.node for x in xs if x.node.shape != ()]
        typed = [x for x in same if not x.literal]
        if typed:
            want = typed[0].node.dtype
            for x in same:
                if x.literal and x.node.dtype is not want:
                    raise c.error(x.tok, _literal_mismatch(op, x, typed[0], want))
        out = []
        for x in xs:
            u = x.node
            if shaped and u.shape == () and u.op is Ops.CONST:
                u = u.broadcast(shaped[0].shape)
            out.append(u)
        return out


def _literal_mismatch(op: Ops, lit: _Operand, other: _Operand, want: DType) -> str:
    v, have = lit.node.arg, lit.node.dtype
    if want is dtypes.f32 and have is dtypes.i32:
        hint = f"write {float(v)!r} for an f32 constant"
    elif want is dtypes.i32 and have is dtypes.f32 and math.isfinite(v) and v.is_integer():
        hint = f"write {int(v)} for an i32 constant"
    elif want is dtypes.bool:
        hint = "write true or false for a bool constant"
    else:
        hint = f"write an {want.name} literal"
    return (
        f"literal {lit.tok.text} is {have.name} but {op.name.lower()} needs {want.name} operands "
        f"(like {other.tok.text}); a literal has its own dtype: {hint}"
    )


def _keys(op: Ops) -> str:
    required, optional = _ATTRS.get(op, (set(), set()))
    keys = [f"{k}=" for k in sorted(required)] + [f"[{k}=]" for k in sorted(optional)]
    return " ".join(keys) if keys else "no keys"


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number from 1, line) of a .uir text, as parse_uir numbers them in its errors."""
    # split on "\n" only (str.splitlines also splits on form feeds etc., and line numbers would drift)
    for lineno, line in enumerate(text.split("\n"), start=1):
        yield lineno, line.removesuffix("\r")


def parse_value(text: str, lineno: int, column: int = 1, what: str = "the value") -> Any:
    """The value a .uir literal or a [list] of values (nested) spells, as example headers write
    them (`# inputs: [1, 2.0, true]`): Python scalars and lists. `text` starts at `column` of line
    `lineno`, so errors point into the line it came from; `what` names the text in them.

    >>> parse_value("[[1, 2], [3, -4]]", 1)
    [[1, 2], [3, -4]]
    >>> parse_value("[1, nan", 3, 11, "the '# inputs:' line")
    Traceback (most recent call last):
    ...
    eqsat_uopc.ir.uir.UirError: line 3, column 18: expected ',' or ']', got the end of the line
    """
    c = _Line(_tokens(" " * (column - 1) + text, lineno), lineno)
    v = _value_item(c)
    if c.peek.kind != "end":
        raise c.error(c.peek, f"expected the end of {what}, got {_describe(c.peek)}")
    return v


def _value_item(c: _Line) -> Any:
    t = c.next()
    if t.kind == "sym" and t.text == "[":
        c.nest(t, +1)
        return _items(c, "]", _value_item)
    if (v := _literal(t)) is not None:
        return v
    raise c.error(t, f"expected a literal (7, 2.0, true) or a [list], got {_describe(t)}")


@gc_paused()  # a node per line, no cycles: 2.4 -> 1.5 s on a 200,001-line file
def parse_uir(text: str, source: str | None = None) -> UOp:
    """The program a .uir text describes: its last line's node. source names the text in errors."""
    p = _Parser()
    try:
        for lineno, line in numbered_lines(text):
            toks = _tokens(line, lineno)
            if toks[0].kind == "end":
                continue
            p.statement(_Line(toks, lineno))
        if p.root is None:
            raise UirError(1, 1, "empty program: expected at least one '%N = op ...' line")
    except UirError as e:
        if source is None:
            raise
        raise UirError(e.line, e.column, e.message, source) from None
    return p.root


def load_uir(path: str | Path) -> UOp:
    """parse_uir of a file; errors name the file."""
    path = Path(path)
    return parse_uir(path.read_text(), source=str(path))
