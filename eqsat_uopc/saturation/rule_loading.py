"""Rule sets named by a spec: bundled rule sets, bundled families and `.egg` family files composed
with '+' (`default+my_rules.egg`), checked against the engine's schema when they are loaded.

`load_rules(spec)` is what `saturate(p, rules="default+my_rules.egg")`, `optimize` and the command
line's `--rules` run: each file is read into a Family (named after the file) and every rule of it
checked against ENGINE_SCHEMA, the schema the engine parses (terms.py's SCHEMA, read as data, and
the IR's typing of its term constructors), extended by the declarations of the families it is
composed with. So an unknown constructor, a wrong arity, a type variable bound to two types or an
unbound variable is a DeclarationError with the file, line and column when the rules are loaded,
not egglog's `Unbound function Addd` inside a saturation. A RuleSet value made in Python is checked
the same way when a config takes it (`check_rule_set`), its rules located by their line.

    >>> load_rules("symbolic+boolean").family_names[-2:]
    ('intervals', 'boolean')

What is not checked here is soundness: `eqsat_uopc.verify.load_verified_rules` proves a file's rules
when they are loaded (the command line does), and refuses a refuted one.
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import MappingProxyType

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.rules import (
    FAMILIES,
    RULE_SETS,
    DeclarationError,
    Family,
    RuleSet,
    check_rule,
    compose_rule_set,
    parse_family,
    read_schema,
    read_sexprs,
    split_rules_spec,
)
from eqsat_uopc.rules.schema import Schema
from eqsat_uopc.saturation.errors import SaturationError
from eqsat_uopc.saturation.terms import CTOR_OF, SCHEMA

__all__ = ["ENGINE_SCHEMA", "TERM_TYPINGS", "check_rule_set", "load_rules"]

# how each term constructor types its operands (eqsat_uopc.rules.TYPINGS; the IR's rules, ir/uop.py)
_OP_TYPINGS = {
    Ops.ADD: "same",
    Ops.MUL: "same",
    Ops.MAX: "same",
    Ops.FLOORDIV: "int",
    Ops.FLOORMOD: "int",
    Ops.CMPLT: "compare",
    Ops.CMPNE: "compare",
    Ops.WHERE: "where",
    Ops.CAST: "cast",
    Ops.RECIP: "float",
    Ops.EXP2: "float",
    Ops.LOG2: "float",
    Ops.SQRT: "float",
    Ops.SIN: "float",
    Ops.RANGE: "range",
    Ops.REDUCE: "reduce",
}
TERM_TYPINGS = MappingProxyType(
    {CTOR_OF[op]: t for op, t in _OP_TYPINGS.items()}
    | {"Int": "i32", "Bool": "bool", "Flt": "f32", "Dbl": "f32"}
)
ENGINE_SCHEMA: Schema = read_schema(SCHEMA, TERM_TYPINGS)


def load_rules(spec: str | RuleSet) -> RuleSet:
    """The RuleSet a spec names (eqsat_uopc.rules.RULES_SPEC), its files read and checked against
    the engine's schema; a RuleSet is checked and returned. A spec naming nothing known, a missing
    file or a family name taken twice is a SaturationError; a mistake inside a file a
    DeclarationError at its line and column."""
    if isinstance(spec, RuleSet):
        check_rule_set(spec)
        return spec
    try:
        parts = split_rules_spec(spec)
    except ValueError as e:
        raise SaturationError(str(e)) from None
    if len(parts) == 1 and parts[0][0] == "rule set":
        return RULE_SETS[parts[0][1]]
    texts = {path: _read(path) for kind, path in parts if kind == "file"}
    # the declarations every file's rules may use: the schema's, and those of every other family
    bundled = [
        f
        for kind, name in parts
        if kind != "file"
        for f in (RULE_SETS[name].families if kind == "rule set" else (FAMILIES[name],))
    ]
    files = {path: parse_family(Path(path).stem, text, path) for path, text in texts.items()}
    loaded: dict[str, Family] = {}
    for path, text in texts.items():
        others = [*bundled, *(f for p, f in files.items() if p != path)]
        schema = ENGINE_SCHEMA.extended(_declarations(others))
        loaded[path] = parse_family(Path(path).stem, text, path, schema=schema)
    names = [name if kind != "file" else loaded[name].name for kind, name in parts]
    values = [
        RULE_SETS[name] if kind == "rule set" else FAMILIES[name] if kind == "family" else loaded[name]
        for kind, name in parts
    ]
    try:
        return compose_rule_set("+".join(names), values)
    except ValueError as e:
        raise DeclarationError(str(e)) from None


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise SaturationError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise SaturationError(f"{path}: not a text file (not UTF-8)") from None
    except OSError as e:
        raise SaturationError(f"{path}: cannot read: {e.strerror}") from None


def _declarations(families: list[Family]) -> list[tuple[object, str]]:
    return [(read_sexprs(d)[0], f.source or f.name) for f in families for d in f.declarations]


def check_rule_set(rs: RuleSet) -> None:
    """Check the rules of every family of rs that is not bundled (the suite checks those) against
    the engine's schema and the declarations of rs's families; DeclarationError at a rule's line."""
    for family in rs.families:
        if FAMILIES.get(family.name) != family:
            others = tuple(f for f in rs.families if f is not family)
            _check_family(family, others)


@functools.lru_cache(maxsize=256)
def _check_family(family: Family, others: tuple[Family, ...]) -> None:
    schema = ENGINE_SCHEMA.extended(_declarations(list(others))).extended(_declarations([family]))
    for rule in family.egg_rules:
        check_rule(rule, schema)
