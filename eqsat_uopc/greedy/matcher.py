"""Rule and PatternMatcher: an ordered list of named rules, indexed by the op of their root.

Order is priority: `rewrite` tries the candidate rules of a node's op in the order given and returns
the first non-None result. Every rule has a name (for the tracer and the rewrite check) and declares
the integer semantics it is sound under (docs/DESIGN.md, "Integer semantics"):

- "wrap": sound for every int32 input under two's-complement wraparound;
- "no_overflow": sound only when no intermediate int32 result leaves the int32 range.

The chapter's plain `(pat, fn)` pairs are accepted too. Such a rule is named after its function
(or `rule<position>` for a lambda) and is declared "wrap": an undeclared rule is held to the
stricter claim, so a soundness check tests it under wraparound and a rule that needs no-overflow
has to say so.

Matching goes through a per-pattern matcher function: the compiled matcher of
`eqsat_uopc.greedy.compiled.compile_upat` when that module exists and UOPC_COMPILED is unset or
"1", else the interpreter `UPat.match` (the reference). Both return the same bindings in the
same order.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from typing import Any, Literal, NamedTuple

from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.int_semantics import INT_SEMANTICS

__all__ = ["INT_SEMANTICS", "PatternMatcher", "Rule"]

IntSemantics = Literal["wrap", "no_overflow"]

Matcher = Callable[[UOp], list[dict[str, UOp]]]


class Rule(NamedTuple):
    """One rewrite rule: when pat matches, fn(**bindings) returns the replacement or None."""

    pat: UPat
    fn: Callable[..., UOp | None]
    name: str
    int_semantics: IntSemantics = "wrap"


def _as_rule(r: Any, position: int) -> Rule:
    if isinstance(r, Rule):
        rule = r
    elif isinstance(r, tuple) and len(r) == 2:
        pat, fn = r
        fname = getattr(fn, "__name__", "")
        rule = Rule(pat, fn, fname if fname and fname != "<lambda>" else f"rule{position}")
    else:
        raise TypeError(
            f"rule {position}: expected Rule(pat, fn, name, int_semantics) or (pat, fn), got {r!r}"
        )
    if not isinstance(rule.pat, UPat):
        raise TypeError(
            f"rule {position} ({rule.name}): pattern must be a UPat, got {type(rule.pat).__name__}"
        )
    if not callable(rule.fn):
        raise TypeError(f"rule {position} ({rule.name}): function is not callable: {rule.fn!r}")
    if rule.int_semantics not in INT_SEMANTICS:
        raise ValueError(
            f"rule {position} ({rule.name}): int_semantics must be 'wrap' or 'no_overflow', "
            f"got {rule.int_semantics!r}"
        )
    return rule


def _compiled_enabled() -> bool:
    return os.environ.get("UOPC_COMPILED", "1") != "0"


def _compiled_module() -> Any:
    """The compiled-patterns module, or None when it is absent."""
    try:
        return importlib.import_module(".compiled", __package__)
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}.compiled":
            raise  # the module exists but is broken: say so, don't silently fall back
        return None


def _compile_upat() -> Callable[[UPat], Matcher] | None:
    """compile_upat from the compiled-patterns module, or None when that module is absent."""
    mod = _compiled_module()
    return None if mod is None else mod.compile_upat


def interpreted_matcher(pat: UPat) -> Matcher:
    """The reference matcher: UPat.match from an empty store."""
    match = pat.match
    return lambda u: match(u, {})


def matcher_for(pat: UPat, compiled: bool) -> Matcher:
    """The matcher function of a root pattern, compiled (when available) or interpreted; cached."""
    if not compiled:
        return interpreted_matcher(pat)
    if pat._matcher is None:
        compile_upat = _compile_upat()
        pat._matcher = interpreted_matcher(pat) if compile_upat is None else compile_upat(pat)
    return pat._matcher


class PatternMatcher:
    """An ordered rule list, indexed by root op (in Ops declaration order); `+` concatenates."""

    def __init__(
        self, rules: Iterable[Rule | tuple[UPat, Callable[..., UOp | None]]], compiled: bool | None = None
    ):
        self.rules: list[Rule] = [_as_rule(r, i) for i, r in enumerate(rules)]
        self.compiled = _compiled_enabled() if compiled is None else compiled
        # index by root op so only rules that could possibly match are tried
        self.by_op: dict[Ops, list[Rule]] = {}
        self._candidates: dict[Ops, list[tuple[Rule, Matcher]]] = {}
        matchers = [matcher_for(rule.pat, self.compiled) for rule in self.rules]
        for op in Ops:  # keys in Ops declaration order, each list in rule order
            for rule, m in zip(self.rules, matchers, strict=True):
                if rule.pat.op is None or op in rule.pat.op:
                    self.by_op.setdefault(op, []).append(rule)
                    self._candidates.setdefault(op, []).append((rule, m))
        self.last_fired: Rule | None = None  # the rule behind the last non-None rewrite (for checks, tracing)
        # compiled mode: one fused function per op (all its candidate rules), built on first use
        self._fused: dict[Ops, Callable[[UOp, Any], tuple[UOp, int] | None] | None] = {}

    def __add__(self, other: PatternMatcher) -> PatternMatcher:
        return PatternMatcher(self.rules + other.rules, compiled=self.compiled)

    def __repr__(self) -> str:
        return f"PatternMatcher(<{len(self.rules)} rules>)"

    def rewrite(self, u: UOp, ctx: Any = None) -> UOp | None:
        """The first non-None result of a rule that matches u, or None.

        A rule returning u itself counts as "no change" (with hash consing the check is exact).
        With ctx not None every rule function receives ctx= as an extra keyword argument.
        """
        if self.compiled:
            fused = self._fused.get(u.op, _UNBUILT)
            if fused is _UNBUILT:
                fused = self._fused[u.op] = self._build_fused(u.op)
            if fused is not None:
                if (hit := fused(u, ctx)) is None:
                    return None
                ret, k = hit
                self.last_fired = self.by_op[u.op][k]
                return ret
        for rule, match in self._candidates.get(u.op, ()):
            for binding in match(u):
                kw = {**binding, "ctx": ctx} if ctx is not None else binding
                if (ret := rule.fn(**kw)) is not None and ret is not u:
                    self.last_fired = rule
                    return ret
        return None

    def _build_fused(self, op: Ops) -> Callable[[UOp, Any], tuple[UOp, int] | None] | None:
        """compile_rewriter over op's candidates; None (use the per-rule path) if unavailable."""
        rules = self.by_op.get(op)
        mod = _compiled_module()
        if not rules or mod is None:
            return None
        return mod.compile_rewriter(rules)


_UNBUILT: Any = object()
