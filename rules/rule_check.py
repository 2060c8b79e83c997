"""A rule checked against a Schema before egglog ever sees it: names, arities, sorts, bound variables
and the IR types of its terms, each mistake with where it is.

Every egglog form a declaration generates (rule.py, FORM_KINDS) is checked, as egglog would parse it:

- every call names a constructor, function or relation of the schema (or one the rule's families
  declare), or one of egglog's primitives (schema.PRIMITIVES), with as many arguments as it takes,
  each of the sort it takes (a near name is suggested: `Addd` -> `Add`);
- every variable has one sort, and the query binds it: a variable of the query is an argument of a
  term, function or relation, or `(= v EXPR)` of bound ones (egglog calls the others "ungrounded");
  the actions and a rewrite's right-hand side use only what the query or the left-hand side binds;
- `union` merges terms, `set` sets a function (not a constructor), `subsume` hides a term;
- the terms are well typed in the IR (schema.TYPINGS): a type variable (`t` in `(Add t x y)`) stands
  for one type string, so `(Lt t (Add t x (Int 1)) y)`, where t would be both the comparison's bool
  and the sum's i32, is refused with both places; so is a term variable used as two types, and a
  type string that names no type.

A rule that passes is one egglog parses (the suite checks the bundled families and a set of broken
ones against egglog itself), and whose every term can exist in an e-graph of the IR: a rule that
could never match for want of a well-typed term is a mistake, said here rather than never.

    >>> from eqsat_uopc.rules import read_rules, read_schema
    >>> schema = read_schema("(sort Op) (constructor Add (String Op Op) Op) (constructor Int (i64) Op)",
    ...                      {"Add": "same", "Int": "i32"})
    >>> [rule] = read_rules('(rewrite (Add t x (Int 0)) (Addd t x) :name "my/add-zero")')
    >>> try:
    ...     check_rule(rule, schema)
    ... except DeclarationError as e:
    ...     print(e)
    <text>:1: my/add-zero: unknown constructor Addd (did you mean Add?)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from typing import Any

from eqsat_uopc.rules.rule import DeclarationError, Rule
from eqsat_uopc.rules.schema import PRIMITIVES, Primitive, Schema
from eqsat_uopc.rules.sexpr import Str, show

from eqsat_uopc.ir.dtype import dtypes

__all__ = ["Locate", "check_rule"]

# where a node (an element of it, when the index is given) was read: "line:col", None if unknown
Locate = Callable[[Any, int | None], str | None]

_FLOAT = re.compile(r"-?\d+\.\d*(e-?\d+)?|-?inf|NaN")
_ROOT = "$lhs"  # the variable a rewrite's left-hand side is bound to here (no rule can name it)
_ACTIONS = "union, set, let, subsume, delete, panic, or a term or relation row to add"
# names other languages give egglog's primitives, for the hint of an unknown one
_ALIASES = {"mod": "%", "rem": "%", "div": "/", "quot": "/", "shl": "<<", "shr": ">>", "band": "&",
            "bor": "|", "eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
            "neq": "!="}  # fmt: skip


class _Problem(Exception):
    """A mistake at a node (element `index` of it): the message, located by the caller."""

    def __init__(self, message: str, node: Any = None, index: int | None = None) -> None:
        super().__init__(message)
        self.node, self.index = node, index


class _Later(Exception):
    """A sort that depends on a variable not bound yet: try the atom again after the others."""


def check_rule(rule: Rule, schema: Schema, locate: Locate | None = None, source: str = "") -> None:
    """Check every egglog form of rule against schema; a DeclarationError says where and what
    (`source:line:col: name: message` when locate finds the node, else the rule's own `where`)."""
    kinds = ("wrap",) if rule.maintained else rule.forms()
    for kind in kinds:
        try:
            _FormCheck(schema, locate).check(rule.form(kind, "u"))
        except _Problem as p:
            at = locate(p.node, p.index) if locate is not None and p.node is not None else None
            where = f"{source}:{at}" if at is not None and source else rule.where or source or "<rule>"
            raise DeclarationError(f"{where}: {rule.name}: {p}") from None


def _is_var(x: Any) -> bool:
    return (
        isinstance(x, str)
        and not isinstance(x, Str)
        and x not in ("true", "false")
        and not _FLOAT.fullmatch(x)
        and not x.startswith(":")
    )


def _a(sort: str) -> str:
    return f"an {sort}" if sort[:1] in "aeiouAEIOU" else f"a {sort}"


def _arity(sigs: Iterable[tuple[str, ...] | Primitive]) -> str:
    counts = sorted(
        {"2 or more" if isinstance(s, Primitive) and s.variadic else str(len(_args(s))) for s in sigs}
    )
    return " or ".join(counts)


def _args(s: tuple[str, ...] | Primitive) -> tuple[str, ...]:
    return s.args if isinstance(s, Primitive) else s


class _FormCheck:
    """One egglog form: its sorts and bound variables, then its IR types."""

    def __init__(self, schema: Schema, locate: Locate | None) -> None:
        self.schema = schema
        self.locate = locate
        self.sorts: dict[str, str] = {}  # variable -> its sort
        self.rewrite = False
        self.types = _Types(self)

    # -- the form
    def check(self, form: tuple) -> None:
        head = form[0]
        if head in ("rewrite", "birewrite"):
            self.rewrite = True
            lhs, rhs = form[1], form[2]
            for side, k in ((lhs, 1),) + (((rhs, 2),) if head == "birewrite" else ()):
                if not isinstance(side, tuple) or not side or side[0] in PRIMITIVES:
                    what = (
                        "a variable"
                        if _is_var(side)
                        else "a primitive"
                        if isinstance(side, tuple)
                        else "a value"
                    )
                    raise _Problem(
                        f"the {'left' if k == 1 else 'right'}-hand side of a {head} must be a term, not "
                        f"{what} ({show(side)}): egglog matches terms",
                        side,
                        None,
                    )
            query, actions = (("=", _ROOT, lhs),), (("union", _ROOT, rhs),)
            self.run(query, actions)
            if head == "birewrite":  # the reverse direction binds the other side's variables
                reverse = _FormCheck(self.schema, self.locate)
                reverse.rewrite = True
                reverse.run((("=", _ROOT, rhs),), (("union", _ROOT, lhs),))
            return
        query, actions = form[1], form[2]
        self.run(query, actions)

    def run(self, query: tuple, actions: tuple) -> None:
        self.query(query)
        self.grounded(query)
        for k, act in enumerate(actions):
            self.action(act, actions, k)
        for atom in query:
            self.types.atom(atom)
        for act in actions:
            self.types.action(act)

    # -- sorts
    def sort_of(self, x: Any, expected: str | None, parent: Any, i: int | None, query: bool) -> str | None:
        """The sort of an expression (binding a query variable to `expected`); None: not known yet."""
        if isinstance(x, bool):  # pragma: no cover  (the reader gives symbols)
            sort = "bool"
        elif isinstance(x, int):
            sort = "i64"
        elif isinstance(x, Str):
            sort = "String"
        elif isinstance(x, str):
            if x in ("true", "false"):
                sort = "bool"
            elif _FLOAT.fullmatch(x):
                sort = "f64"
            elif x.startswith(":"):
                raise _Problem(f"unexpected {x} here: options go after the whole form", parent, i)
            elif x in self.sorts:
                sort = self.sorts[x]
            elif query:
                if expected is None:
                    return None
                self.sorts[x] = expected
                return expected
            else:
                bound = "the left-hand side" if self.rewrite else "the query (nor by a let)"
                raise _Problem(f"the variable {x} is not bound by {bound}", parent, i)
        elif isinstance(x, tuple):
            found = self.call(x, query)
            if found is None:
                return None
            sort = found
        else:  # pragma: no cover
            raise _Problem(f"unexpected {show(x)}", parent, i)
        if expected is not None and sort != expected:
            what = f"the variable {x}" if _is_var(x) else show(x)
            raise _Problem(f"{what} is {_a(sort)}, where {_a(expected)} is needed", parent, i)
        return sort

    def call(self, x: tuple, query: bool) -> str | None:
        if not x or not isinstance(x[0], str) or isinstance(x[0], Str):
            raise _Problem(f"{show(x)} is no call: a call starts with a name", x, None)
        head, args = x[0], x[1:]
        sig = self.schema.signatures.get(head)
        if sig is not None:
            if len(args) != len(sig.args):
                raise _Problem(
                    f"{head} takes {len(sig.args)} argument(s) ({' '.join(sig.args)}), "
                    f"got {len(args)}: {show(x)}",
                    x,
                    0,
                )
            pending = False
            for k, (a, s) in enumerate(zip(args, sig.args, strict=True)):
                pending |= self.sort_of(a, s, x, k + 1, query) is None
            return None if pending else sig.result
        prims = PRIMITIVES.get(head)
        if prims is None:
            raise _Problem(self.unknown(head), x, 0)
        fits = [p for p in prims if len(p.args) == len(args) or (p.variadic and len(args) >= 2)]
        if not fits:
            raise _Problem(f"{head} takes {_arity(prims)} argument(s), got {len(args)}: {show(x)}", x, 0)
        known = [self.sort_of(a, None, x, k + 1, query) for k, a in enumerate(args)]
        fits = [p for p in fits if all(s is None or s == self.param(p, k) for k, s in enumerate(known))]
        if not fits:
            given = " ".join(s or "?" for s in known)
            takes = "; ".join(" ".join(p.args) + (" ..." if p.variadic else "") for p in prims)
            raise _Problem(f"{head} takes no ({given}) (it takes: {takes}): {show(x)}", x, 0)
        if None in known:
            if len({tuple(self.param(p, k) for k in range(len(args))) for p in fits}) > 1:
                return None
            for k, a in enumerate(args):
                if known[k] is None:
                    self.sort_of(a, self.param(fits[0], k), x, k + 1, query)
        return fits[0].result

    @staticmethod
    def param(p: Primitive, k: int) -> str:
        return p.args[0] if p.variadic else p.args[k]

    def unknown(self, head: str) -> str:
        """An unknown call's message: what it might have been."""
        sigs = self.schema.signatures
        if head[:1].isupper():
            what = "constructor"
            known = sorted(n for n, s in sigs.items() if n[:1].isupper())
        else:
            what = "primitive"
            known = sorted([*PRIMITIVES, *(n for n in sigs if not n[:1].isupper())])
        near = [_ALIASES[head]] if head in _ALIASES else difflib.get_close_matches(head, known, n=1)
        hint = f"did you mean {near[0]}?" if near else f"known: {', '.join(known)}"
        return f"unknown {what} {head} ({hint})"

    # -- the query
    def query(self, query: tuple) -> None:
        pending = list(enumerate(query))
        while pending:
            later = []
            for k, atom in pending:
                try:
                    self.atom(atom, query, k)
                except _Later:
                    later.append((k, atom))
            if len(later) == len(pending):
                k, atom = later[0]
                free = sorted(v for v in _variables(atom) if v not in self.sorts)
                raise _Problem(
                    f"the sort of {', '.join(free)} cannot be told: bind it by a term, a function or a "
                    f"relation of the query",
                    query,
                    k,
                )
            pending = later

    def atom(self, atom: Any, query: tuple, k: int) -> None:
        if not isinstance(atom, tuple) or not atom:
            raise _Problem(
                f"{show(atom)} is no query atom (a term, a relation row, (= a b), or a comparison)", query, k
            )
        if atom[0] in ("=", "!="):
            if len(atom) != 3:
                raise _Problem(f"{atom[0]} compares two values, got {show(atom)}", atom, 0)
            a = self.sort_of(atom[1], None, atom, 1, True)
            b = self.sort_of(atom[2], a, atom, 2, True)
            if a is None and b is not None:
                a = self.sort_of(atom[1], b, atom, 1, True)
            if a is None or b is None:
                raise _Later
            return
        if self.sort_of(atom, None, query, k, True) is None:
            raise _Later

    def grounded(self, query: tuple) -> None:
        """Every variable of the query is bound by a term, function or relation, or computed from
        bound ones."""
        bound: set[str] = set()

        def args_of_calls(x: Any) -> None:
            if isinstance(x, tuple) and x:
                calls = x[0] in self.schema.signatures
                for a in x[1:]:
                    if calls and _is_var(a):
                        bound.add(a)
                    args_of_calls(a)

        for atom in query:
            args_of_calls(atom)
        equations = [a for a in query if isinstance(a, tuple) and len(a) == 3 and a[0] == "="]
        changed = True
        while changed:
            changed = False
            for _, a, b in equations:
                for v, e in ((a, b), (b, a)):
                    if _is_var(v) and v not in bound and self.computed(e, bound):
                        bound.add(v)
                        changed = True
        for k, atom in enumerate(query):
            free = sorted(v for v in _variables(atom) if v not in bound)
            if free:
                raise _Problem(
                    f"the variable {free[0]} is not bound by the query: a query variable must be an argument "
                    "of a term, a function or a relation, or (= v EXPR) of bound variables",
                    query,
                    k,
                )

    def computed(self, e: Any, bound: set[str]) -> bool:
        if _is_var(e):
            return e in bound
        if isinstance(e, tuple) and e:
            if e[0] in self.schema.signatures:
                return True
            return all(self.computed(a, bound) for a in e[1:])
        return True

    # -- the actions
    def action(self, act: Any, actions: tuple, k: int) -> None:
        if not isinstance(act, tuple) or not act or not isinstance(act[0], str):
            raise _Problem(f"{show(act)} is no action ({_ACTIONS})", actions, k)
        head, args = act[0], act[1:]
        sigs = self.schema.signatures
        if head == "union":
            if len(args) != 2:
                raise _Problem(f"union merges two terms, got {show(act)}", act, 0)
            a = self.sort_of(args[0], None, act, 1, False)
            if a not in self.schema.eq_sorts:
                raise _Problem(f"union merges terms; {show(args[0])} is {_a(a or '?')}", act, 1)
            self.sort_of(args[1], a, act, 2, False)
        elif head == "set":
            target = args[0] if len(args) == 2 else None
            if not isinstance(target, tuple) or not target or target[0] not in sigs:
                raise _Problem(f"set is (set (FUNCTION ARGS ...) VALUE), got {show(act)}", act, 0)
            sig = sigs[target[0]]
            if sig.kind != "function":
                raise _Problem(
                    f"{target[0]} is a {sig.kind}: only a function's value is set "
                    "(a term is merged with union)",
                    act,
                    1,
                )
            self.sort_of(target, None, act, 1, False)
            self.sort_of(args[1], sig.result, act, 2, False)
        elif head in ("subsume", "delete"):
            target = args[0] if len(args) == 1 else None
            if not isinstance(target, tuple) or not target or target[0] not in sigs:
                raise _Problem(f"{head} takes one term or function row, got {show(act)}", act, 0)
            if head == "subsume" and sigs[target[0]].kind != "constructor":
                raise _Problem(f"subsume hides a term; {target[0]} is a {sigs[target[0]].kind}", act, 1)
            self.sort_of(target, None, act, 1, False)
        elif head == "let":
            if len(args) != 2 or not _is_var(args[0]):
                raise _Problem(f"let is (let NAME EXPR), got {show(act)}", act, 0)
            if args[0] in self.sorts:
                raise _Problem(f"let {args[0]}: the variable {args[0]} is bound already", act, 1)
            sort = self.sort_of(args[1], None, act, 2, False)
            self.sorts[args[0]] = sort or "?"
        elif head == "panic":
            if len(args) != 1 or not isinstance(args[0], Str):
                raise _Problem(f'panic takes a message, (panic "..."), got {show(act)}', act, 0)
        elif head in sigs:
            self.sort_of(act, None, actions, k, False)
        elif head in PRIMITIVES:
            raise _Problem(f"{show(act)} computes a value and does nothing with it ({_ACTIONS})", actions, k)
        else:
            hint = self.unknown(head) if head[:1].isupper() else f"unknown action {head} ({_ACTIONS})"
            raise _Problem(hint, act, 0)


def _variables(x: Any) -> set[str]:
    if isinstance(x, tuple):
        return set().union(*(_variables(a) for a in x[1:])) if x else set()
    return {x} if _is_var(x) else set()


# ---------------------------------------------------------------------------
# IR types: a type string is a dtype and a shape; unification over both


_DTYPES = tuple(d.name for d in (dtypes.i32, dtypes.bool, dtypes.f32))
_SCALAR: tuple[int, ...] = ()


def _parse_type(text: str) -> tuple[str, tuple[int, ...]] | None:
    name, _, rest = text.partition("[")
    if name not in _DTYPES:
        return None
    if not rest:
        return name, _SCALAR
    if not rest.endswith("]"):
        return None
    try:
        shape = tuple(int(d) for d in rest[:-1].split(","))
    except ValueError:
        return None
    return (name, shape) if shape and all(d > 0 for d in shape) else None


def _shown(kind: int, value: Any) -> str:
    if kind == 0:
        return _a(value)
    return "a scalar" if value == _SCALAR else f"of shape [{','.join(map(str, value))}]"


class _Types:
    """Union-find over the dtype and the shape of every term, type variable and term variable."""

    def __init__(self, form: _FormCheck) -> None:
        self.form = form
        self.parent: list[int] = []
        # class root -> (value, why, node, index): the one literal the class is bound to
        self.value: dict[int, tuple[Any, str, Any, int | None]] = {}
        self.names: dict[int, list[str]] = {}  # class root -> the variables in it, for messages
        self.of_var: dict[str, tuple[int, int]] = {}

    def new(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def pair(self) -> tuple[int, int]:
        return self.new(), self.new()

    def find(self, n: int) -> int:
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def var(self, name: str, what: str) -> tuple[int, int]:
        if name not in self.of_var:
            self.of_var[name] = p = self.pair()
            for n in p:
                self.names[n] = [f"{what} {name}"]
        return self.of_var[name]

    def fix(self, n: int, kind: int, value: Any, why: str, node: Any, index: int | None) -> None:
        """Bind node n's class to a literal dtype (kind 0) or shape (kind 1)."""
        m = self.new()
        self.value[m] = (value, why, node, index)
        self.join(n, m, kind, node, index)

    def join(self, a: int, b: int, kind: int, node: Any, index: int | None) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        va, vb = self.value.get(ra), self.value.get(rb)
        if va is not None and vb is not None and va[0] != vb[0]:
            names = self.names.get(ra, []) + self.names.get(rb, [])
            here = _variables(node) if isinstance(node, tuple) else set()
            at = node[index] if isinstance(node, tuple) and index is not None and index < len(node) else None
            subject = next((n for n in names if _is_var(at) and n.split()[-1] == at), None)
            subject = subject or next((n for n in names if n.startswith("the type variable")), None)
            subject = subject or next((n for n in names if n.split()[-1] in here), None)
            subject = subject or (names[0] if names else "this term")
            parts = []
            for value, why, at_node, at_index in (vb, va):
                at = self.form.locate(at_node, at_index) if self.form.locate is not None else None
                parts.append(f"{_shown(kind, value)} ({why}{f', at {at}' if at else ''})")
            hint = (
                ": a type variable stands for one type string; give the other type a variable of its own, "
                "or write the type string"
                if subject.startswith("the type variable")
                else ""
            )
            raise _Problem(f"{subject} is both {parts[0]} and {parts[1]}{hint}", node, index)
        self.parent[rb] = ra
        if va is None and vb is not None:
            self.value[ra] = vb
        self.names[ra] = self.names.get(ra, []) + self.names.get(rb, [])

    def same(self, a: tuple[int, int], b: tuple[int, int], node: Any, index: int | None) -> None:
        self.join(a[0], b[0], 0, node, index)
        self.join(a[1], b[1], 1, node, index)

    # -- walking the form
    def atom(self, atom: tuple) -> None:
        if atom[0] == "=":  # one e-class, so one type (`!=` says nothing of types)
            a, b = atom[1], atom[2]
            sort = self.sort(a) or self.sort(b)
            if sort == "Op":
                self.same(self.term(a), self.term(b), atom, 0)
            elif sort == self.form.schema.type_sort:
                self.same(self.type_string(a), self.type_string(b), atom, 0)
            else:
                self.walk(a)
                self.walk(b)
        else:
            self.walk(atom)

    def action(self, act: tuple) -> None:
        if act[0] == "union":
            self.same(self.term(act[1]), self.term(act[2]), act, 0)
        elif act[0] == "let":
            if self.sort(act[2]) == "Op":
                self.of_var[act[1]] = self.term(act[2])
        elif act[0] != "panic":
            for a in act[1:]:
                self.walk(a)

    def sort(self, x: Any) -> str | None:
        if _is_var(x):
            return self.form.sorts.get(x)
        if isinstance(x, tuple) and x and x[0] in self.form.schema.signatures:
            return self.form.schema.signatures[x[0]].result
        return None

    def walk(self, x: Any) -> None:
        """Type the terms inside an expression that is no term itself (a relation row, a primitive)."""
        if isinstance(x, tuple) and x:
            if self.sort(x) == "Op":
                self.term(x)
                return
            for a in x[1:]:
                self.walk(a)

    def type_string(self, x: Any) -> tuple[int, int]:
        """The dtype and shape a String expression stands for (a type field, or (ty x))."""
        if isinstance(x, Str):
            parsed = _parse_type(x)
            if parsed is None:
                raise _Problem(
                    f'"{x}" is no type string (a dtype, {", ".join(_DTYPES)}, shaped as "f32[2,3]")', x, None
                )
            p = self.pair()
            self.fix(p[0], 0, parsed[0], f'the type string "{x}"', x, None)
            self.fix(p[1], 1, parsed[1], f'the type string "{x}"', x, None)
            return p
        if _is_var(x):
            return self.var(x, "the type variable")
        if isinstance(x, tuple) and len(x) == 2 and x[0] == "ty":
            return self.term(x[1])
        self.walk(x)
        return self.pair()

    def term(self, x: Any) -> tuple[int, int]:
        """The dtype and shape of an Op expression, its operands constrained by its constructor's typing."""
        if _is_var(x):
            return self.var(x, "the variable")
        sig = self.form.schema.signatures[x[0]]
        typing = self.form.schema.typing.get(x[0], "free")
        args = x[1:]
        tfield = next((k for k, s in enumerate(sig.args) if s == self.form.schema.type_sort), None)
        own = self.type_string(args[tfield]) if tfield is not None and typing != "free" else self.pair()
        operands = [
            (k + 1, self.term(a)) for k, (a, s) in enumerate(zip(args, sig.args, strict=True)) if s == "Op"
        ]
        for k, (a, s) in enumerate(zip(args, sig.args, strict=True)):
            if s != "Op" and (k != tfield or typing == "free"):
                self.walk(a)
        head = x[0]
        where = (x, tfield + 1 if tfield is not None else 0)
        if typing in ("i32", "bool", "f32"):
            self.fix(own[0], 0, typing, f"({head} ...) is {_a(typing)}", x, 0)
            self.fix(own[1], 1, _SCALAR, f"({head} ...) is a scalar", x, 0)
        elif typing in ("same", "int", "float"):
            if typing != "same":
                dtype = "i32" if typing == "int" else "f32"
                self.fix(own[0], 0, dtype, f"{head} is {dtype} only", *where)
            for k, t in operands:
                self.same(own, t, x, k)
        elif typing == "compare":
            self.fix(own[0], 0, "bool", f"a comparison, {head}, is a bool", *where)
            (ka, a), (kb, b) = operands[0], operands[1]
            self.same(a, b, x, kb)
            self.join(own[1], a[1], 1, x, ka)
        elif typing == "where":
            (kc, c), *branches = operands
            self.fix(c[0], 0, "bool", f"the condition of {head} is a bool", x, kc)
            self.join(c[1], own[1], 1, x, kc)
            for k, t in branches:
                self.same(own, t, x, k)
        elif typing == "cast":
            self.join(own[1], operands[0][1][1], 1, x, operands[0][0])
        elif typing == "range":
            for k, t in ((None, own), *operands):
                self.fix(t[0], 0, "i32", f"{head} is an i32 scalar", x, k)
                self.fix(t[1], 1, _SCALAR, f"{head} is an i32 scalar", x, k)
        elif typing == "reduce":
            self.join(own[0], operands[0][1][0], 0, x, operands[0][0])
        return own
