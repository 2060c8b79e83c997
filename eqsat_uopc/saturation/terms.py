"""The term encoding: how a UOp becomes an egglog term, and the egglog declarations behind it.

Every UOp-valued term is an `Op`. Its first field is its *type string* (`"i32"`, `"bool"`,
`"f32[2,3]"`: dtype and shape), so dtype and shape are part of the term: a rule's right-hand side
copies the type strings of its left-hand side, and two terms of different types can never be merged
by congruence. Constants carry their type in the constructor:

    CONST i32    (Int v)             CONST bool  (Bool b)
    CONST f32    (Flt bits)          bits = f32_bits(v): egglog's f64 would merge -0.0 with 0.0
    CONST f32    (Dbl bits64)        a double that is not an f32 value (0.1): kept exactly, so that
                                     raising gives back the very same UOp; the folding step unions
                                     it with the (Flt bits) it denotes

Whatever a rule set does not look inside is still a term: its UOp arg (a RANGE identifier, a CALL
name, a ParamArg, a movement argument, a REDUCE (op, k)) is stored in a per-e-graph table and the
term holds the table key, so raising rebuilds the exact arg. Variable-arity sources (STACK
elements, INDEX indices, CALL arguments) are an `OpList` (Cons/Nil). CAST's target is its type.

`(N k)` names the k-th node the lowering has written (unextractable, not a UOp e-node); `(LN k)`
names a list. The loader relations `Ld*` and the `load` ruleset turn rows of tab-separated files
into terms in one egglog iteration, which is what makes lowering linear (one `let` command per node
costs ~70 us in egglog; a TSV row costs ~2 us).
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat_uopc.ir.dtype import DType, dtypes
from eqsat_uopc.ir.ops import Ops

__all__ = [
    "CONST_CTORS",
    "CTOR_OF",
    "DOUBLE_CTOR",
    "LOADER_SORTS",
    "OP_OF",
    "SCHEMA",
    "TermKind",
    "parse_type",
    "type_string",
]


@dataclass(frozen=True)
class TermKind:
    """How one op is written: its constructor, its loader relation and the fields after the type."""

    ctor: str
    loader: str  # loader relation name
    fields: str  # "" | "a" | "ab" | "abc" | "ak" (child + key) | "l" | "al" | "alk"


_KINDS: dict[Ops, TermKind] = {
    Ops.PARAM: TermKind("Param", "LdLeaf", "k"),
    Ops.RANGE: TermKind("Range", "LdK", "ak"),
    Ops.STACK: TermKind("Stack", "LdS", "l"),
    Ops.INDEX: TermKind("Index", "LdI", "al"),
    Ops.CALL: TermKind("Call", "LdC", "alk"),
    Ops.CAST: TermKind("Cast", "LdU", "a"),
    Ops.RECIP: TermKind("Recip", "LdU", "a"),
    Ops.EXP2: TermKind("Exp2", "LdU", "a"),
    Ops.LOG2: TermKind("Log2", "LdU", "a"),
    Ops.SQRT: TermKind("Sqrt", "LdU", "a"),
    Ops.SIN: TermKind("Sin", "LdU", "a"),
    Ops.ADD: TermKind("Add", "LdB", "ab"),
    Ops.MUL: TermKind("Mul", "LdB", "ab"),
    Ops.MAX: TermKind("Max", "LdB", "ab"),
    Ops.CMPLT: TermKind("Lt", "LdB", "ab"),
    Ops.CMPNE: TermKind("Ne", "LdB", "ab"),
    Ops.FLOORDIV: TermKind("Div", "LdB", "ab"),
    Ops.FLOORMOD: TermKind("Mod", "LdB", "ab"),
    Ops.WHERE: TermKind("Where", "LdW", "abc"),
    Ops.RESHAPE: TermKind("Reshape", "LdK", "ak"),
    Ops.EXPAND: TermKind("Expand", "LdK", "ak"),
    Ops.PERMUTE: TermKind("Permute", "LdK", "ak"),
    Ops.SHRINK: TermKind("Shrink", "LdK", "ak"),
    Ops.REDUCE: TermKind("Reduce", "LdK", "ak"),
}
KINDS = _KINDS
CTOR_OF: dict[Ops, str] = {op: k.ctor for op, k in _KINDS.items()}
OP_OF: dict[str, Ops] = {k.ctor: op for op, k in _KINDS.items()}
DOUBLE_CTOR = "Dbl"  # an f32 CONST that holds a double which is no f32 value
CONST_CTORS = ("Int", "Bool", "Flt", DOUBLE_CTOR)  # CONST i32, bool, f32 (its bits), f32 (a double's)

_SIG = {"": "", "a": " Op", "ab": " Op Op", "abc": " Op Op Op", "ak": " Op i64", "k": " i64",
        "l": " OpList", "al": " Op OpList", "alk": " Op OpList i64"}  # fmt: skip
_LOADER_SIG = {
    "LdLeaf": "i64 String String i64",  # id op type key
    "LdU": "i64 String String i64",  # id op type a
    "LdB": "i64 String String i64 i64",  # id op type a b
    "LdW": "i64 String String i64 i64 i64",  # id op type c a b
    "LdK": "i64 String String i64 i64",  # id op type a key
    "LdS": "i64 String String i64",  # id op type list
    "LdI": "i64 String String i64 i64",  # id op type base list
    "LdC": "i64 String String i64 i64 i64",  # id op type body list key
}
_LOADER_ARGS = {"k": "k", "a": "(N a)", "ab": "(N a) (N b)", "abc": "(N a) (N b) (N c)",
                "ak": "(N a) k", "l": "(LN l)", "al": "(N a) (LN l)", "alk": "(N a) (LN l) k"}  # fmt: skip
_LOADER_VARS = {"k": "k", "a": "a", "ab": "a b", "abc": "a b c", "ak": "a k", "l": "l", "al": "a l",
                "alk": "a l k"}  # fmt: skip


def _schema() -> str:
    lines = [
        "(sort Op)",
        "(sort OpList)",
        "(constructor Nil () OpList :cost 0)",
        "(constructor Cons (Op OpList) OpList :cost 0)",
        "(constructor N (i64) Op :unextractable)",
        "(constructor LN (i64) OpList :unextractable)",
        "(constructor Int (i64) Op)",
        "(constructor Bool (bool) Op)",
        "(constructor Flt (i64) Op)",
        "(constructor Dbl (i64) Op)",
    ]
    for k in _KINDS.values():
        lines.append(f"(constructor {k.ctor} (String{_SIG[k.fields]}) Op)")
    # interval analysis of i32 scalars: every e-class's value lies in [lo, hi]; facts only tighten
    lines += ["(function lo (Op) i64 :merge (max old new))", "(function hi (Op) i64 :merge (min old new))"]
    # relational analyses the rule families share (so that a rule may use two of them): Mult x c, x is
    # a multiple of c; AskMult x c, the question; AtLeast b c m, b >= c + m
    lines += ["(relation Mult (Op i64))", "(relation AskMult (Op i64))", "(relation AtLeast (Op Op i64))"]
    # bookkeeping, run after every iteration: `ty` is each e-class's type string, for rules that need
    # an operand's type (CAST to its own dtype); it has one row per e-class that has a UOp e-node
    # (rows merge when classes do), so its size (print-size) is also the number of e-classes
    # (and Const marks the e-classes that hold a scalar constant: a root there cannot get smaller)
    # (a family may add rules of its own to this ruleset: views its other rules match, rules.MAINTAINED)
    lines += ["(function ty (Op) String :merge old)", "(relation Const (Op))"]
    lines += ["(ruleset bookkeeping)"]
    for k in _KINDS.values():
        term = f"({k.ctor} t {_LOADER_VARS[k.fields]})"
        lines.append(f"(rule ((= e {term})) ((set (ty e) t)) :ruleset bookkeeping)")
    for c in CONST_CTORS:
        t = {"Int": "i32", "Bool": "bool"}.get(c, "f32")
        lines.append(f'(rule ((= e ({c} v))) ((set (ty e) "{t}") (Const e)) :ruleset bookkeeping)')
    # a product or a selection in an e-class that holds a constant is subsumed (egg's constant
    # folding keeps only the constant): the ops with an absorbing element (x * 0, and(x, false) and
    # or(x, true), which are WHEREs) otherwise put terms like 0 * 3 in the class of 0, associativity
    # multiplies their constants out (0 * (3 * 3), then 9 * 9, ... up to 3^16) and the e-graph fills
    # its budget with them. Not the other ops: rules read facts off terms such as x // c whose class
    # is a constant, and subsuming those lost results (index expression 14 of seed 0, 24 -> 30 nodes)
    for ctor, vs in (("Mul", "a b"), ("Where", "a b c")):
        term = f"({ctor} t {vs})"
        lines.append(f"(rule ((Const e) (= e {term})) ((subsume {term})) :ruleset bookkeeping)")
    # loaders
    lines += [f"(relation {name} ({sig}))" for name, sig in _LOADER_SIG.items()]
    lines += [
        "(relation LdInt (i64 i64))",
        "(relation LdBool (i64 i64))",
        "(relation LdFlt (i64 i64))",
        "(relation LdDbl (i64 i64))",
        "(relation LdCons (i64 i64 i64))",
        "(relation LdNil (i64))",
        "(relation LdUnion (i64 i64))",
        "(relation LdBound (i64 i64 i64))",  # a bounded PARAM's [lo, hi], for the interval analysis
        "(ruleset load)",
        "(rule ((LdInt id v)) ((union (N id) (Int v))) :ruleset load)",
        "(rule ((LdBool id 1)) ((union (N id) (Bool true))) :ruleset load)",
        "(rule ((LdBool id 0)) ((union (N id) (Bool false))) :ruleset load)",
        "(rule ((LdFlt id v)) ((union (N id) (Flt v))) :ruleset load)",
        "(rule ((LdDbl id v)) ((union (N id) (Dbl v))) :ruleset load)",
        "(rule ((LdCons id h t)) ((union (LN id) (Cons (N h) (LN t)))) :ruleset load)",
        "(rule ((LdNil id)) ((union (LN id) (Nil))) :ruleset load)",
        "(rule ((LdUnion a b)) ((union (N a) (N b))) :ruleset load)",
        "(rule ((LdBound id l h)) ((set (lo (N id)) l) (set (hi (N id)) h)) :ruleset load)",
    ]
    for op, k in _KINDS.items():
        lines.append(
            f'(rule (({k.loader} id "{op.name}" t {_LOADER_VARS[k.fields]})) '
            f"((union (N id) ({k.ctor} t {_LOADER_ARGS[k.fields]}))) :ruleset load)"
        )
    return "\n".join(lines) + "\n"


SCHEMA = _schema()
# loader relation -> the sorts of its columns (the one-int-payload loaders of constants and lists too)
LOADER_SORTS: dict[str, tuple[str, ...]] = {name: tuple(sig.split()) for name, sig in _LOADER_SIG.items()} | {
    "LdInt": ("i64", "i64"),
    "LdBool": ("i64", "i64"),
    "LdFlt": ("i64", "i64"),
    "LdDbl": ("i64", "i64"),
    "LdCons": ("i64", "i64", "i64"),
    "LdNil": ("i64",),
    "LdUnion": ("i64", "i64"),
    "LdBound": ("i64", "i64", "i64"),
}

_type_cache: dict[str, tuple[DType, tuple[int, ...]]] = {}


def type_string(dtype: DType, shape: tuple[int, ...]) -> str:
    """`i32`, `bool`, `f32[2,3]`: the type field of a term."""
    return dtype.name if not shape else f"{dtype.name}[{','.join(map(str, shape))}]"


def parse_type(t: str) -> tuple[DType, tuple[int, ...]]:
    """The (dtype, shape) of a type string."""
    hit = _type_cache.get(t)
    if hit is None:
        name, _, rest = t.partition("[")
        shape = tuple(int(d) for d in rest.rstrip("]").split(",")) if rest else ()
        hit = _type_cache[t] = (dtypes.by_name(name), shape)
    return hit


I32, BOOL = dtypes.i32, dtypes.bool
