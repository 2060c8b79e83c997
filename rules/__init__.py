"""Saturation rules as values: rules, families of rules, and rule sets that compose them.

A rule is declared once, in its family's `.egg` file (family.py says how; docs/rules.md lists
every rule, generated from these values): its name, its `lhs -> rhs` comment, its egglog text and
the integer semantics it is sound under. The forms a saturation runs under `int_semantics="wrap"`
or `"no_overflow"` (guarded, unguarded, with a wrapped or an exact new constant) are generated from
that one declaration (rule.py, FORM_KINDS). Rules computed in Python are declared as values too
(python_rules.py). A Family is the rules of one file; a RuleSet composes families, bundled ones by
name or any Family value, and nothing is registered globally:

    >>> from eqsat_uopc.rules import FAMILIES, RULE_SETS, rule_set
    >>> rule_set("symbolic").family_names[:3]
    ('identities', 'fold', 'reassociation')
    >>> FAMILIES["divmod"].rule("divmod/div-sum-term").forms()
    ('guarded', 'noovf')

A family file may be checked as it is read against a Schema (what an egglog program declares:
`eqsat_uopc.saturation.ENGINE_SCHEMA` is the engine's): an unknown constructor, a wrong arity, a
type variable bound to two types is then a DeclarationError at its file, line and column. A rules
spec (RULES_SPEC) names rule sets, families and files joined by '+' (`default+my_rules.egg`);
`eqsat_uopc.saturation.load_rules` loads one.

Modules: sexpr (egglog text as data), rule (Rule, FORM_KINDS, the generated forms), schema (what a
rule may use: signatures, egglog's primitives, the typing of terms), rule_check (a rule checked
against a Schema), family (a family file read into a Family), python_rules (the Python rules),
catalogue (the bundled families, FAMILIES), rule_sets (RuleSet, RULE_SETS, rules specs, the egglog
program of a rule set), docs (docs/rules.md).
"""

from eqsat_uopc.rules.catalogue import BEYOND_CHAPTER_FAMILIES, BUNDLED, FAMILIES, SYMBOLIC_FAMILIES
from eqsat_uopc.rules.family import Family, load_family, parse_family, read_rules
from eqsat_uopc.rules.python_rules import PYTHON_RULES
from eqsat_uopc.rules.rule import (
    FORM_KINDS,
    MAINTAINED,
    PROVED_IN,
    DeclarationError,
    FormKind,
    Rule,
    form_kind,
)
from eqsat_uopc.rules.rule_check import check_rule
from eqsat_uopc.rules.rule_sets import (
    RULE_SETS,
    RULES_SPEC,
    RuleSet,
    compose_rule_set,
    egglog_forms,
    egglog_program,
    escape_rules_path,
    family_digest,
    resolve_rule_set,
    rule_set,
    split_rules_spec,
)
from eqsat_uopc.rules.schema import PRIMITIVES, TYPINGS, Schema, Signature, read_schema
from eqsat_uopc.rules.sexpr import EGG_TOKEN, Spans, Str, freeze, read_sexprs, show, thaw

from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS

__all__ = [
    "BEYOND_CHAPTER_FAMILIES",
    "BUNDLED",
    "EGG_TOKEN",
    "FAMILIES",
    "FORM_KINDS",
    "INT_SEMANTICS",
    "MAINTAINED",
    "PRIMITIVES",
    "PROVED_IN",
    "PYTHON_RULES",
    "RULES_SPEC",
    "RULE_SETS",
    "SYMBOLIC_FAMILIES",
    "TYPINGS",
    "DeclarationError",
    "Family",
    "FormKind",
    "Rule",
    "RuleSet",
    "Schema",
    "Signature",
    "Spans",
    "Str",
    "check_rule",
    "compose_rule_set",
    "egglog_forms",
    "egglog_program",
    "escape_rules_path",
    "family_digest",
    "form_kind",
    "freeze",
    "load_family",
    "parse_family",
    "read_rules",
    "read_schema",
    "read_sexprs",
    "resolve_rule_set",
    "rule_set",
    "show",
    "split_rules_spec",
    "thaw",
]
