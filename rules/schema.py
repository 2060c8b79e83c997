"""What a rule may use, as a value: the sorts, constructors, functions and relations an egglog program
declares, egglog's primitives, and how each term constructor types its operands.

A family file is egglog text run against the engine's schema (eqsat_uopc/saturation/terms.py). A
rule that names a constructor the schema lacks (`Addd`), gives one the wrong number of arguments, or
binds a type variable to two types fails only when egglog parses it, inside a saturation, without
saying which file it came from. A Schema lets a family be checked when it is read instead
(rule_check.py), with the file, line and column: the saturation layer makes the engine's own
(`eqsat_uopc.saturation.ENGINE_SCHEMA`, read from the very text the engine parses) and a family's
declarations (a `relation` of its own) extend it.

    >>> schema = read_schema("(sort Op) (constructor Add (String Op Op) Op) (relation Mult (Op i64))")
    >>> schema.signatures["Add"]
    Signature(name='Add', kind='constructor', args=('String', 'Op', 'Op'), result='Op')
    >>> [p.args for p in PRIMITIVES["<"]]
    [('i64', 'i64'), ('f64', 'f64')]

TYPINGS names how a term constructor types its operands (the IR's typing rules, eqsat_uopc.ir.uop:
an ADD's operands have its type, a comparison is a bool of its operands' shape, ...). A term's first
String argument is its type string (`"i32"`, `"bool"`, `"f32[2,3]"`), its Op arguments its operands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from eqsat_uopc.rules.rule import DeclarationError
from eqsat_uopc.rules.sexpr import Str, read_sexprs, show

__all__ = ["BUILTIN_SORTS", "PRIMITIVES", "TYPINGS", "Primitive", "Schema", "Signature", "read_schema"]

BUILTIN_SORTS = frozenset({"i64", "bool", "String", "f64", "Unit"})


@dataclass(frozen=True)
class Signature:
    """A constructor, function or relation a program declares: its argument sorts and result sort
    (Unit for a relation). Only a function's value can be `set`; only a constructor makes terms."""

    name: str
    kind: str  # "constructor" | "function" | "relation"
    args: tuple[str, ...]
    result: str


@dataclass(frozen=True)
class Primitive:
    """One signature of an egglog primitive (several share a name: `+` on i64, f64, String).
    variadic: any number (two or more) of args[0]."""

    name: str
    args: tuple[str, ...]
    result: str
    variadic: bool = False


def _prims() -> dict[str, tuple[Primitive, ...]]:
    out: dict[str, list[Primitive]] = {}

    def add(names: str, args: str, result: str, variadic: bool = False) -> None:
        for n in names.split():
            out.setdefault(n, []).append(Primitive(n, tuple(args.split()), result, variadic))

    # egglog 14's built-in primitives (its Python bindings declare the same: egglog/builtins.py); the
    # suite checks every signature here against egglog itself (tests/test_rule_files.py)
    add("+ - * / % & | ^ << >> min max", "i64 i64", "i64")
    add("not-i64 log2 abs", "i64", "i64")
    add("< > <= >=", "i64 i64", "Unit")
    add("bool-< bool-> bool-<= bool->=", "i64 i64", "bool")
    add("to-string", "i64", "String")
    add("to-f64", "i64", "f64")
    add("+ - * / % ^ min max", "f64 f64", "f64")
    add("neg abs exp log sqrt", "f64", "f64")
    add("< > <= >=", "f64 f64", "Unit")
    add("to-i64", "f64", "i64")
    add("to-string", "f64", "String")
    add("and or xor =>", "bool bool", "bool")
    add("not", "bool", "bool")
    add("+", "String", "String", variadic=True)
    add("replace", "String String String", "String")
    add("count-matches", "String String", "i64")
    return {k: tuple(v) for k, v in out.items()}


# name -> its signatures; `!=` (any two values of one sort) and `=` are not primitives but atoms
PRIMITIVES: Mapping[str, tuple[Primitive, ...]] = MappingProxyType(_prims())

# how a term constructor types its operands (T its type string; a, b, c its Op operands in order):
TYPINGS: Mapping[str, str] = MappingProxyType(
    {
        "same": "a, b (and c) have the term's type: ADD, MUL, MAX",
        "int": "an i32 term of i32 operands of its type: FLOORDIV, FLOORMOD",
        "compare": "a bool of its operands' shape, the operands of one type: CMPLT, CMPNE",
        "where": "a bool condition of the term's shape, the branches of the term's type: WHERE",
        "cast": "the operand of the term's shape, any dtype: CAST",
        "float": "an f32 term of an operand of its type: RECIP, EXP2, LOG2, SQRT, SIN",
        "range": "an i32 scalar of an i32 scalar extent: RANGE",
        "reduce": "the operand of the term's dtype (its shape reduced): REDUCE",
        "i32": "an i32 scalar constant: (Int v)",
        "bool": "a bool scalar constant: (Bool b)",
        "f32": "an f32 scalar constant: (Flt bits), (Dbl bits)",
        "free": "no constraint this check knows: PARAM, STACK, INDEX, CALL, the movement ops",
    }
)


@dataclass(frozen=True)
class Schema:
    """The sorts and signatures an egglog program declares, and the typing of its term constructors
    (constructor -> a key of TYPINGS; a constructor not in it types nothing). `type_sort` is the sort
    of a term's type string."""

    sorts: frozenset[str]
    signatures: Mapping[str, Signature]
    typing: Mapping[str, str] = field(default_factory=dict)
    type_sort: str = "String"

    def __post_init__(self) -> None:
        unknown = sorted(set(self.typing.values()) - set(TYPINGS))
        if unknown:
            raise ValueError(f"unknown typings {unknown} (known: {', '.join(TYPINGS)})")

    def extended(self, declarations: Iterable[tuple[Any, str]]) -> Schema:
        """This schema and the declarations (an S-expression and where it was read: `file:line`)
        of a family: a DeclarationError names one that is malformed or taken."""
        sorts, signatures = set(self.sorts), dict(self.signatures)
        for tree, where in declarations:
            _declare(tree, where, sorts, signatures)
        return Schema(frozenset(sorts), MappingProxyType(signatures), self.typing, self.type_sort)

    @property
    def eq_sorts(self) -> frozenset[str]:
        """The sorts of terms (declared by `sort`): what `union` merges."""
        return self.sorts - BUILTIN_SORTS


_DECLARING = ("sort", "constructor", "function", "relation")


def _declare(tree: Any, where: str, sorts: set[str], signatures: dict[str, Signature]) -> None:
    """Add one declaration to sorts and signatures; other forms (rulesets, rules) declare nothing."""
    if not isinstance(tree, list | tuple) or not tree or tree[0] not in _DECLARING:
        kinds = ", ".join(f"({k} ...)" for k in _DECLARING)
        raise DeclarationError(f"{where}: {show(tree)} is no declaration a family may make ({kinds})")
    head = tree[0]
    name = tree[1] if len(tree) > 1 else None
    if not isinstance(name, str) or isinstance(name, Str):
        raise DeclarationError(f"{where}: ({head} NAME ...) needs a name, got {show(tree)}")
    if name in signatures or name in sorts or name in PRIMITIVES:
        taken = "a sort" if name in sorts else "a primitive" if name in PRIMITIVES else signatures[name].kind
        raise DeclarationError(f"{where}: {name} is already declared ({taken}): choose another name")
    if head == "sort":
        if len(tree) != 2:
            raise DeclarationError(f"{where}: a sort is (sort NAME), got {show(tree)}")
        sorts.add(name)
        return
    shapes = {
        "relation": "(relation NAME (SORT ...))",
        "constructor": "(constructor NAME (SORT ...) SORT ...)",
    }
    shape = shapes.get(head, "(function NAME (SORT ...) SORT :merge EXPR)")
    args = tree[2] if len(tree) > 2 else None
    result = "Unit" if head == "relation" else tree[3] if len(tree) > 3 else None
    if (
        not isinstance(args, list | tuple)
        or not isinstance(result, str)
        or (head == "relation" and len(tree) != 3)
    ):
        raise DeclarationError(f"{where}: a {head} is {shape}, got {show(tree)}")
    for sort in (*args, result):
        if sort not in sorts and sort not in BUILTIN_SORTS:
            raise DeclarationError(
                f"{where}: unknown sort {show(sort)} in {show(tree)} "
                f"(known: {', '.join(sorted(sorts | BUILTIN_SORTS))})"
            )
    signatures[name] = Signature(name, head, tuple(args), result)


def read_schema(text: str, typing: Mapping[str, str] | None = None) -> Schema:
    """The Schema an egglog program's declarations make (its rules and rulesets ignored)."""
    sorts: set[str] = set()
    signatures: dict[str, Signature] = {}
    for tree in read_sexprs(text):
        if tree and tree[0] in _DECLARING:
            _declare(tree, "<schema>", sorts, signatures)
    return Schema(frozenset(sorts), MappingProxyType(signatures), MappingProxyType(dict(typing or {})))
