"""A saturation rule as a value, and the egglog forms generated from it.

A rule is declared once: its name ("family/rule"), its `lhs -> rhs` comment, its egglog text
(a rewrite, a birewrite, or a rule with a query and actions; the side conditions are query atoms),
and the integer semantics it is sound under (docs/DESIGN.md, "Integer semantics"):

  "wrap"         sound for every int32 input under wraparound;
  "no_overflow"  sound when no intermediate int32 result leaves the int32 range.

What a saturation runs is one *form* of the rule per `int_semantics`, generated from that
declaration (FORM_KINDS, the one table every reader of rules uses), and a form is proved for the
e-graph of every `int_semantics` that runs it: under "wrap" for every int32 value with wraparound,
under "no_overflow" over the mathematical integers. An e-graph saturated under "no_overflow" holds
terms the program does not have (x*c + y*c beside (x + y)*c), whose exact values may leave int32
where the program's do not; its e-classes agree over the integers, and a rule that holds only where
no intermediate leaves int32 would let one of its members stand for what it is not:

  a wrap rule                    runs as declared ("wrap") under both semantics;
  a no_overflow rule             runs as declared ("noovf") under "no_overflow", and, when it has a
                                 :guard (query atoms that prove from the interval analysis that no
                                 intermediate result wraps), with the guard added ("guarded", sound
                                 under wraparound) under "wrap";
  a wrap rule with :exact        computes a new constant: under "wrap" wrapped to int32
                                 ("wraponly"), under "no_overflow" only where the exact value is an
                                 int32 ("exact"): a wrapped constant is not the integer the
                                 e-graph's terms compute;
  a wrap rule with :covered-by   runs under "wrap" only ("wrapcase"): under "no_overflow" the
                                 no_overflow rule it names finds the same matches;
  a wrap rule with :wrap-only    runs under "wrap" only ("wrapcase"): what it claims holds of int32
                                 values, not of every integer a no_overflow e-class may hold (every
                                 i32 sum lies in [MIN, MAX]).

Rules computed in Python (the folding step, evaluation, the piecewise-linear comparisons) are
values too (kind "python", python_rules.py): they have no egglog form, and run under the semantics
they declare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eqsat_uopc.rules.sexpr import Str, freeze, show

from eqsat_uopc.errors import UserError
from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS

__all__ = [
    "FORM_KINDS",
    "MAINTAINED",
    "PROVED_IN",
    "DeclarationError",
    "FormKind",
    "Rule",
    "form_kind",
    "python_rule",
]

# the schema's ruleset that the runner runs after every iteration (saturation/terms.py); a family's
# rules declared :maintained go there: they maintain relations the family's other rules match
# (digits' views), and are not units of the back-off scheduler
MAINTAINED = "bookkeeping"

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
_KINDS = ("rewrite", "birewrite", "rule", "python")
# the variable a rewrite's generated `rule` form (guarded, exact) binds its left-hand side to
_ROOT = "e"


class DeclarationError(UserError, ValueError):
    """A rule or family declaration that is not well formed (the message says where and why): a
    user's mistake in a family file, not a bug."""


# what a form run under each int_semantics is proved in: the values of that semantics' e-graph
PROVED_IN: dict[str, str] = {"wrap": "int32 wraparound", "no_overflow": "the integers"}


@dataclass(frozen=True)
class FormKind:
    """One egglog form a declaration generates: which `int_semantics` settings run it. It is
    proved for each of them (`proved_under`), in the values of that semantics' e-graph (PROVED_IN)."""

    name: str
    runs_under: tuple[str, ...]
    meaning: str

    @property
    def proved_under(self) -> tuple[str, ...]:
        """The semantics this form is proved for: every one that runs it."""
        return self.runs_under


FORM_KINDS: tuple[FormKind, ...] = (
    FormKind(
        "wrap",
        INT_SEMANTICS,
        "a wrap rule as declared: sound for every int32 input under wraparound and over the integers",
    ),
    FormKind(
        "guarded",
        ("wrap",),
        "a no_overflow rule with its :guard added to the query (the interval analysis proves that "
        "nothing wraps): sound under wraparound",
    ),
    FormKind("noovf", ("no_overflow",), "a no_overflow rule as declared, unguarded"),
    FormKind("wraponly", ("wrap",), "a rule with :exact, its new constant wrapped to int32"),
    FormKind(
        "exact",
        ("no_overflow",),
        "a rule with :exact, firing only where the new constant's exact value is an int32",
    ),
    FormKind(
        "wrapcase",
        ("wrap",),
        "a wrap rule :covered-by a no_overflow rule of its family, which finds the same matches "
        "(or more) under no_overflow, or declared :wrap-only (it holds of int32 values, not of every "
        "integer)",
    ),
)
_FORM_KIND = {k.name: k for k in FORM_KINDS}


def form_kind(name: str) -> FormKind:
    """The FormKind called name (KeyError naming the known ones otherwise)."""
    if name not in _FORM_KIND:
        raise KeyError(f"unknown form kind {name!r} (known: {', '.join(_FORM_KIND)})")
    return _FORM_KIND[name]


def _symbols(tree: Any) -> set[str]:
    if isinstance(tree, tuple):
        return set().union(*(_symbols(t) for t in tree))
    return {tree} if isinstance(tree, str) and not isinstance(tree, Str) else set()


def _substitute(tree: Any, values: dict[str, Any]) -> Any:
    if isinstance(tree, tuple):
        return tuple(_substitute(t, values) for t in tree)
    return values.get(tree, tree) if isinstance(tree, str) and not isinstance(tree, Str) else tree


def _wrapped(expr: Any) -> tuple:
    """egglog i64 arithmetic for wrap(v) = ((v + 2^31) & (2^32 - 1)) - 2^31."""
    return ("-", ("&", ("+", expr, 2**31), 2**32 - 1), 2**31)


@dataclass(frozen=True)
class Rule:
    """One rule, declared once; its egglog forms are generated (form, text).

    kind "rewrite"/"birewrite" use lhs and rhs (and subsume); kind "rule" uses query (its first
    atom usually binds the matched term, `(= e LHS)`, the others are the side conditions) and
    actions; kind "python" has no egglog text (`where` names the module implementing it). Trees
    are S-expressions as tuples (sexpr.freeze)."""

    name: str  # "family/rule"
    comment: str = ""  # the rule as `lhs -> rhs`, with its conditions and notes
    semantics: str = "wrap"  # what the rewrite itself needs: "wrap" | "no_overflow"
    kind: str = "rule"  # "rewrite" | "birewrite" | "rule" | "python"
    lhs: Any = None
    rhs: Any = None
    query: tuple[Any, ...] = ()
    actions: tuple[Any, ...] = ()
    subsume: bool = False  # a rewrite's :subsume
    guard: tuple[Any, ...] | None = None  # no_overflow: the atoms that prove nothing wraps
    exact: tuple[Any, ...] | None = None  # wrap: the atoms binding a new constant and checking it
    covered_by: str | None = None  # wrap: the no_overflow rule that covers it under no_overflow
    wrap_only: bool = False  # wrap: holds of int32 values only, so "no_overflow" does not run it
    maintained: bool = False  # a rule of the bookkeeping ruleset (MAINTAINED)
    where: str = ""  # "rules/divmod.egg:42", or the module implementing a Python rule

    def __post_init__(self) -> None:
        for f in ("lhs", "rhs", "query", "actions", "guard", "exact"):
            object.__setattr__(self, f, freeze(getattr(self, f)))
        self._check()

    def _check(self) -> None:
        fail = DeclarationError
        if not isinstance(self.name, str) or not self.name:
            raise fail(f"a rule needs a name, got {self.name!r}")
        if self.semantics not in INT_SEMANTICS:
            raise fail(f"{self.name}: :semantics must be wrap or no_overflow, got {self.semantics!r}")
        if self.kind not in _KINDS:
            raise fail(f"{self.name}: kind must be one of {', '.join(_KINDS)}, got {self.kind!r}")
        if self.kind in ("rewrite", "birewrite"):
            if self.lhs is None or self.rhs is None or self.query or self.actions:
                raise fail(f"{self.name}: a {self.kind} has a left-hand and a right-hand side, nothing else")
        elif self.kind == "rule" and (self.lhs is not None or self.rhs is not None):
            raise fail(f"{self.name}: a rule has a query and actions, not lhs/rhs")
        elif self.kind == "python" and (self.lhs, self.rhs, self.query, self.actions) != (None, None, (), ()):
            raise fail(f"{self.name}: a Python rule has no egglog text")
        if self.subsume and self.kind != "rewrite":
            raise fail(f"{self.name}: :subsume is a rewrite's flag")
        options = [o for o, v in ((":guard", self.guard), (":exact", self.exact)) if v is not None]
        options += [":covered-by"] * (self.covered_by is not None) + [":maintained"] * self.maintained
        options += [":wrap-only"] * self.wrap_only
        if len(options) > 1:
            raise fail(f"{self.name}: {' and '.join(options)} do not go together")
        if options and self.kind not in ("rewrite", "rule"):
            raise fail(f"{self.name}: {options[0]} needs a rewrite or a rule, not a {self.kind}")
        if self.guard is not None and self.semantics != "no_overflow":
            raise fail(f"{self.name}: a :guard proves a no_overflow rule's precondition (declare it so)")
        if (self.exact is not None or self.covered_by is not None or self.maintained or self.wrap_only) and (
            self.semantics != "wrap"
        ):
            raise fail(f"{self.name}: {options[0]} is for a wrap rule")
        if self.maintained and self.kind != "rule":
            raise fail(f"{self.name}: :maintained is for a rule that adds relation rows")
        if self.guard == () or self.exact == ():
            raise fail(f"{self.name}: {options[0]} needs at least one atom")
        if self.exact is not None:
            bound = self._exact_constants()
            if not bound:
                raise fail(f"{self.name}: :exact must bind the new constant, as in (= s (+ a b))")
            if set(bound) & _symbols(self.lhs if self.kind == "rewrite" else self.query):
                raise fail(
                    f"{self.name}: :exact binds {', '.join(sorted(bound))}, already bound by the match"
                )
        generates_rule = (self.guard is not None or self.exact is not None) and self.kind == "rewrite"
        if generates_rule and _ROOT in _symbols((self.lhs, self.rhs)):
            raise fail(f"{self.name}: the variable {_ROOT} is taken by the generated rule form")

    def _exact_constants(self) -> dict[str, Any]:
        """The new constants :exact binds ((= s EXPR) with s used on the right-hand side): s -> EXPR."""
        used = _symbols(self.rhs if self.kind == "rewrite" else self.actions)
        out = {}
        for atom in self.exact or ():
            if len(atom) == 3 and atom[0] == "=" and isinstance(atom[1], str) and atom[1] in used:
                out[atom[1]] = atom[2]
        return out

    # -- what it is
    @property
    def family(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def local_name(self) -> str:
        """The name within its family: "divmod-fold" for "linear/divmod-fold"."""
        return self.name.split("/", 1)[1]

    @property
    def engine(self) -> str:
        """What runs it: "egglog", or "python" for a rule of the Python steps."""
        return "python" if self.kind == "python" else "egglog"

    @property
    def guarded(self) -> bool:
        """A no_overflow rule with a guard, so that "wrap" runs it too."""
        return self.guard is not None

    def forms(self) -> tuple[str, ...]:
        """The kinds of egglog form this rule generates (FORM_KINDS); none for a Python rule."""
        if self.kind == "python":
            return ()
        if self.semantics == "no_overflow":
            return ("guarded", "noovf") if self.guard is not None else ("noovf",)
        if self.exact is not None:
            return ("wraponly", "exact")
        return ("wrapcase",) if self.covered_by is not None or self.wrap_only else ("wrap",)

    def form_for(self, int_semantics: str) -> str | None:
        """The kind of form a saturation under int_semantics runs (None: it does not run this rule)."""
        return next((k for k in self.forms() if int_semantics in _FORM_KIND[k].runs_under), None)

    def runs_under(self, int_semantics: str) -> bool:
        """Does a saturation under int_semantics run this rule (in some form)?"""
        if self.kind == "python":
            return self.semantics == "wrap" or int_semantics == self.semantics
        return self.form_for(int_semantics) is not None

    # -- its egglog text
    def form(self, kind: str, ruleset: str) -> tuple:
        """The egglog form of the given kind as an S-expression, placed in ruleset."""
        if kind not in self.forms():
            raise KeyError(f"{self.name} has no {kind!r} form (it has: {', '.join(self.forms()) or 'none'})")
        flags = (":subsume",) if self.subsume else ()
        unsubsumed = (("subsume", self.lhs),) if self.subsume else ()
        if kind in ("wrap", "noovf", "wrapcase"):
            if self.kind == "rule":
                body: tuple = ("rule", self.query, self.actions)
            else:
                body = (self.kind, self.lhs, self.rhs, *flags)
        elif kind in ("guarded", "exact"):
            extra = self.guard if kind == "guarded" else self.exact
            if self.kind == "rule":
                body = ("rule", (*self.query, *extra), self.actions)
            else:  # the rewrite becomes a rule whose query holds the extra atoms
                root = ("=", _ROOT, self.lhs)
                body = ("rule", (root, *extra), (*unsubsumed, ("union", _ROOT, self.rhs)))
        else:  # wraponly: the new constants wrapped where they are used
            wrapped = {s: _wrapped(e) for s, e in self._exact_constants().items()}
            if self.kind == "rule":
                body = ("rule", self.query, _substitute(self.actions, wrapped))
            else:
                body = ("rewrite", self.lhs, _substitute(self.rhs, wrapped), *flags)
        return (*body, ":ruleset", ruleset, ":name", Str(self.name))

    def text(self, kind: str, ruleset: str) -> str:
        """The egglog text of the form of the given kind (one line), placed in ruleset."""
        return show(self.form(kind, ruleset))

    def __str__(self) -> str:
        return f"{self.name}: {self.comment}" if self.comment else self.name


def python_rule(name: str, comment: str, semantics: str = "wrap", where: str = "") -> Rule:
    """A rule computed in Python between egglog iterations (no egglog text)."""
    return Rule(name, comment, semantics, "python", where=where)
