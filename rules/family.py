"""A rule family: one `.egg` file of rule declarations, read into a value.

A family file is egglog text with a few declaration options (docs/rule-declarations.md):

    ; x + 0 -> x
    (rewrite (Add t x (Int 0)) x :subsume :name "identities/add-zero")
    ; (x + c1) < c2 -> x < c2 - c1
    (rule ((= e (Lt t (Add t2 x (Int a)) (Int b))) (= d (- b a)) (>= d -2147483648) (<= d 2147483647))
          ((union e (Lt t x (Int d)))) :name "comparisons/lt-add-const" :semantics no_overflow
          :guard ((= l (lo x)) (= h (hi x)) (>= (+ l a) -2147483648) (<= (+ h a) 2147483647)))

Every rule has a `:name "family/rule"` and, on the line(s) right above it, its `; lhs -> rhs`
comment. Options: `:semantics no_overflow` (default wrap), `:guard (ATOMS)`, `:exact (ATOMS)`,
`:covered-by "family/rule"`, `:wrap-only`, `:maintained`, and egglog's `:subsume` (rule.py says what
each generates). Rulesets are not declared: the engine puts every rule in a ruleset of its own. Comment
lines starting with `;;` are prose (a section, a note), never a rule's comment; the comment block at
the top of the file, up to the first blank line, is the family's doc. Any other top-level form (a
`relation`, a `function`) is a declaration the family's rules need, parsed before them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eqsat_uopc.rules.rule import DeclarationError, Rule
from eqsat_uopc.rules.rule_check import Locate, check_rule
from eqsat_uopc.rules.schema import Schema
from eqsat_uopc.rules.sexpr import EGG_TOKEN, Spans, Str, freeze, read_sexprs, show

__all__ = ["Family", "load_family", "parse_family", "read_rules"]

_RULE_HEADS = ("rewrite", "birewrite", "rule")
_VALUED = (":name", ":semantics", ":guard", ":exact", ":covered-by")
_FLAGS = (":subsume", ":maintained", ":wrap-only")


@dataclass(frozen=True)
class Family:
    """A family: its rules (egglog and Python, in declaration order), the schema-level declarations
    they need (egglog text, parsed before the rules), its doc, and where it was read from.

    A value: two families with the same name and different rules are different families (an
    engine is keyed by them, not by the name), and a RuleSet composes them without registering
    anything."""

    name: str
    rules: tuple[Rule, ...]
    declarations: tuple[str, ...] = ()
    doc: str = ""
    source: str = ""

    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.name, self.rules, self.declarations))

    def __hash__(self) -> int:  # engines and programs are cached by family: hash the rules once
        return self._hash

    def __getstate__(self) -> dict[str, Any]:  # a string's hash differs between processes: not pickled
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @property
    def egg_rules(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.engine == "egglog")

    @property
    def python_rules(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.engine == "python")

    def rule(self, name: str) -> Rule:
        """The rule called name ("family/rule"), KeyError naming the family otherwise."""
        for r in self.rules:
            if r.name == name:
                return r
        raise KeyError(f"family {self.name!r} has no rule {name!r}")

    def __repr__(self) -> str:
        return f"Family({self.name!r}, {len(self.rules)} rules)"


@dataclass
class _Form:
    line: int
    tree: list[Any]
    comment: list[str]
    spans: Spans  # where each list of the tree was read (sexpr.read_sexprs)


def _read(text: str, source: str) -> tuple[list[str], list[_Form]]:
    """The doc lines and the top-level forms of a family text, each with its comment lines: the
    `;` lines right above it (`;;` lines are prose: they end a comment). The comment block at the
    top of the text is the doc when a blank line follows it, else the first form's comment."""
    doc: list[str] = []
    forms: list[_Form] = []
    comment: list[str] = []
    depth, start, top, after_form, end = 0, 0, True, False, 0
    for m in EGG_TOKEN.finditer(text):
        if m.start() != end:  # the one character no token matches: a '"' that opens no whole string
            raise DeclarationError(
                f"{source}:{_at(text, end)}: this string is not closed (a '\"' is missing)"
            )
        end = m.end()
        tok = m.group(0)
        if depth > 0 and tok not in "()":
            continue
        if tok[0].isspace():
            if tok.count("\n") >= 2:  # a blank line ends the doc and detaches a comment from a rule
                if top:
                    doc = [line.lstrip(";").strip() for line in comment]
                top, comment = False, []
            after_form = after_form and "\n" not in tok
        elif tok[0] == ";":
            if after_form:  # a comment on the line a form ends on is a note about that form
                continue
            if tok.startswith(";;") and not top:
                comment = []
            else:
                comment.append(tok)
        elif tok == "(":
            if depth == 0:
                start, top = m.start(), False
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth < 0:
                raise DeclarationError(f"{source}:{_at(text, m.start())}: unbalanced ')': no '(' opens it")
            if depth == 0:
                spans: Spans = {}
                tree = read_sexprs(text[start : m.end()], spans, start)[0]
                forms.append(_Form(_line(text, start), tree, [c[1:].strip() for c in comment], spans))
                comment, after_form = [], True
        else:
            raise DeclarationError(f"{source}:{_at(text, m.start())}: {tok!r} outside any form")
    if end != len(text):
        raise DeclarationError(f"{source}:{_at(text, end)}: this string is not closed (a '\"' is missing)")
    if depth:
        raise DeclarationError(f"{source}:{_at(text, start)}: this form is not closed (a ')' is missing)")
    if top:  # nothing but the doc
        doc = [line.lstrip(";").strip() for line in comment]
    return doc, forms


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _at(text: str, offset: int) -> str:
    """`line:column` of an offset (both from 1)."""
    return f"{_line(text, offset)}:{offset - text.rfind(chr(10), 0, offset)}"


def _locator(form: _Form, text: str) -> Locate:
    """Where a node of one of the form's generated egglog forms was read: the first list of the
    declaration equal to it (its element `index`), or the first element equal to an atom."""

    def find(node: Any, index: int | None) -> str | None:
        for lst in _lists(form.tree):
            start, elements = form.spans[id(lst)]
            if isinstance(node, tuple) and freeze(lst) == node:
                at = start if index is None or index >= len(elements) else elements[index]
                return _at(text, at)
            if not isinstance(node, tuple):
                for k, e in enumerate(lst):
                    if e == node and type(e) is type(node):
                        return _at(text, elements[k])
        return None

    return find


def _lists(tree: Any) -> Iterator[list[Any]]:
    if isinstance(tree, list):
        yield tree
        for e in tree:
            yield from _lists(e)


def _options(tree: list[Any], start: int, where: str) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    i = start
    while i < len(tree):
        key = tree[i]
        if key in _FLAGS:
            opts[key] = True
            i += 1
        elif key in _VALUED and i + 1 < len(tree):
            opts[key] = tree[i + 1]
            i += 2
        elif key == ":ruleset":
            raise DeclarationError(
                f"{where}: rulesets are generated (one per rule): drop :ruleset "
                "(a rule of the bookkeeping ruleset is declared :maintained)"
            )
        else:
            known = ", ".join((*_VALUED, *_FLAGS))
            raise DeclarationError(f"{where}: unknown option {show(key)} (known: {known})")
    return opts


def _rule(form: _Form, where: str, default_name: str, family: str = "") -> Rule:
    tree = form.tree
    head = tree[0]
    if len(tree) < 3:
        raise DeclarationError(f"{where}: a {head} needs two parts, got {show(tree)}")
    opts = _options(tree, 3, where)
    if ":name" not in opts and not default_name:
        raise DeclarationError(f'{where}: this {head} has no name: add :name "{family or "family"}/..."')
    name = opts.get(":name", default_name)
    if not isinstance(name, Str):
        raise DeclarationError(f'{where}: :name must be a string, as in :name "family/rule"')
    for key in (":guard", ":exact"):
        if key in opts and not isinstance(opts[key], list):
            raise DeclarationError(f"{where}: {key} takes a list of atoms, got {show(opts[key])}")
    sem = opts.get(":semantics", "wrap")
    fields: dict[str, Any] = {
        "comment": " ".join(form.comment),
        "semantics": sem,
        "kind": head,
        "subsume": opts.get(":subsume", False),
        "guard": opts.get(":guard"),
        "exact": opts.get(":exact"),
        "covered_by": None if ":covered-by" not in opts else str(opts[":covered-by"]),
        "maintained": opts.get(":maintained", False),
        "wrap_only": opts.get(":wrap-only", False),
        "where": where,
    }
    if head == "rule":
        if not isinstance(tree[1], list) or not isinstance(tree[2], list):
            raise DeclarationError(f"{where}: a rule is (rule (QUERY ...) (ACTIONS ...) ...)")
        fields |= {"query": tree[1], "actions": tree[2]}
    else:
        fields |= {"lhs": tree[1], "rhs": tree[2]}
    try:
        return Rule(str(name), **fields)
    except DeclarationError as e:
        raise DeclarationError(f"{where}: {e}") from None


def read_rules(text: str, source: str = "<text>") -> list[Rule]:
    """The rule declarations of an egglog text (rewrite, birewrite, rule), names optional
    ("rule@0", ...), other forms ignored: for checking rules one by one (verify)."""
    _, forms = _read(text, source)
    out = []
    for form in forms:
        if form.tree and form.tree[0] in ("rewrite", "birewrite", "rule"):
            out.append(_rule(form, f"{source}:{form.line}", f"{form.tree[0]}@{len(out)}"))
    return out


def parse_family(
    name: str, text: str, source: str = "", python_rules: Iterable[Rule] = (), schema: Schema | None = None
) -> Family:
    """The family a declaration text defines (see the module docstring), with the Python rules it
    owns; DeclarationError saying where (source:line) and what is wrong otherwise.

    With a schema (the engine's, `eqsat_uopc.saturation.ENGINE_SCHEMA`, and the declarations of
    the families it is composed with), every rule is checked against it as it is read
    (rule_check.py): an unknown constructor, a wrong arity, a type variable bound to two types, an
    unbound variable are DeclarationErrors at `source:line:column`, not egglog's errors when a
    saturation parses the rule."""
    source = source or f"<family {name}>"
    doc, forms = _read(text, source)
    if schema is not None:
        declared = [(f.tree, f"{source}:{f.line}") for f in forms if f.tree and f.tree[0] not in _RULE_HEADS]
        schema = schema.extended(d for d in declared if d[0][0] != "ruleset")
    rules: list[Rule] = []
    declarations: list[str] = []
    seen: dict[str, Rule] = {}
    for form in forms:
        where = f"{source}:{form.line}"
        head = form.tree[0] if form.tree else None
        if head in _RULE_HEADS:
            rule = _rule(form, where, "", family=name)
            if not rule.name.startswith(f"{name}/"):
                raise DeclarationError(
                    f"{where}: rule {rule.name!r} of family {name!r} must be named '{name}/...'"
                )
            if rule.name in seen:
                raise DeclarationError(
                    f"{where}: rule {rule.name!r} is declared twice (first at {seen[rule.name].where}): "
                    "give each rule a name of its own"
                )
            if not rule.comment:
                raise DeclarationError(
                    f"{where}: rule {rule.name!r} needs its `; lhs -> rhs` comment on the line above"
                )
            if schema is not None:
                check_rule(rule, schema, _locator(form, text), source)
            seen[rule.name] = rule
            rules.append(rule)
        elif head == "ruleset":
            raise DeclarationError(f"{where}: rulesets are generated (one per rule): drop {show(form.tree)}")
        else:
            declarations.append(show(form.tree))
    python = tuple(python_rules)
    for r in python:
        if r.engine != "python" or r.family != name:
            raise DeclarationError(f"{source}: {r.name!r} is not a Python rule of family {name!r}")
        if r.name in seen:
            raise DeclarationError(
                f"{seen[r.name].where}: rule {r.name!r} is a Python rule of the family too"
            )
    for r in rules:
        if r.covered_by is not None:
            cover = next((c for c in rules if c.name == r.covered_by), None)
            if cover is None or cover.semantics != "no_overflow":
                raise DeclarationError(
                    f"{r.where}: {r.name} is :covered-by {r.covered_by!r}, which must be a no_overflow "
                    f"rule of family {name!r}"
                )
    return Family(name, (*rules, *python), tuple(declarations), " ".join(doc), source)


def load_family(
    path: str | Path, name: str | None = None, python_rules: Iterable[Rule] = (), schema: Schema | None = None
) -> Family:
    """The family declared in a `.egg` file, named after the file unless name is given: a value to
    compose into a RuleSet (`RuleSet("mine", ("intervals", load_family(path)))`). With a schema,
    its rules are checked against it (parse_family); `eqsat_uopc.saturation.load_rules` loads a
    file checked against the engine's."""
    path = Path(path)
    return parse_family(name or path.stem, path.read_text(), str(path), python_rules, schema)
