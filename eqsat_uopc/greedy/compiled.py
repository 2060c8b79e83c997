"""Compiled patterns (the chapter's exercise 10): each UPat becomes a specialized Python matcher.

`UPat.match` interprets the pattern tree on every call: it copies a dict per bound name, builds a
list per source, calls itertools.permutations for list sources and recurses per sub-pattern.
`compile_upat` does that walk once, ahead of time, and writes Python source for one function: a
nest of `if`s on `u.op`, `u.src[0].op`, ..., one straight-line block per order of every list
source (the permutations are unrolled), same-name checks as `is` on locals, and one dict literal
per way of matching. The source is exec'd once and cached per pattern.

The compiled matcher is a drop-in for `pat.match(u, {})`: it returns the same bindings in the same
order, with the same key order in each dict. That is a contract, checked by tests/test_compiled.py
on every rule of `symbolic + evaluate`; the interpreter stays the reference and the fallback
(UOPC_COMPILED=0).

Why the order is static: for a fixed choice of order at every list source, the interpreter visits
the pattern tree in one fixed order, so the order in which names are first bound (which is the
key order of its `{**store, name: u}` dicts) is known at compile time. The interpreter enumerates
choices lexicographically (outer list source first, then the first source's own choices, then the
second's); the generated blocks are emitted in exactly that order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from eqsat_uopc.ir.uop import UOp

__all__ = ["CompiledMatcher", "CompiledRewriter", "compile_rewriter", "compile_upat", "matcher_source"]

CompiledMatcher = Callable[[UOp], list[dict[str, UOp]]]
# (node, ctx) -> (replacement, index of the rule that fired) or None
CompiledRewriter = Callable[[UOp, Any], "tuple[UOp, int] | None"]

# generated source (and constants) -> matcher, so structurally equal patterns share one function;
# per pattern, the matcher is cached on the pattern itself (UPat._matcher)
_by_source: dict[str, CompiledMatcher] = {}


class _Emitter:
    """Writes the matcher's source. Constants the code needs go into `env` under generated names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.env: dict[str, Any] = {}
        self._names: dict[int, str] = {}
        self._next_var = 0

    def const(self, value: Any, prefix: str) -> str:
        """The global name under which the generated code sees `value`."""
        key = id(value)
        if key not in self._names:
            name = f"{prefix}{len(self._names)}"
            self._names[key] = name
            self.env[name] = value
        return self._names[key]

    def var(self) -> str:
        self._next_var += 1
        return f"n{self._next_var}"

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


# A continuation: given the indentation depth, the names bound so far on this path (in first-binding
# order, name -> local variable), it writes the code that runs when everything before it matched.
_Cont = Callable[[int, dict[str, str]], None]


def _node_checks(em: _Emitter, pat: Any, var: str) -> list[str]:
    """The tests on the node itself (op, dtype, arg), cheapest and most selective first."""
    checks = []
    if pat.op is not None:
        ops = tuple(pat.op)
        if len(ops) == 1:
            checks.append(f"{var}.op is {em.const(ops[0], 'OP')}")
        else:
            checks.append(f"{var}.op in {em.const(pat.op, 'OPS')}")
    if pat.dtype is not None:
        dts = tuple(pat.dtype)
        if len(dts) == 1:  # DType compares by identity, so `is` is `in` on a one-element set
            checks.append(f"{var}.dtype is {em.const(dts[0], 'DT')}")
        else:
            checks.append(f"{var}.dtype in {em.const(pat.dtype, 'DTS')}")
    if pat.arg is not None:  # the interpreter compares args with ==, and so must we (Pitfall 4)
        checks.append(f"not ({var}.arg != {em.const(pat.arg, 'ARG')})")
    return checks


def _emit(em: _Emitter, pat: Any, var: str, depth: int, bound: dict[str, str], cont: _Cont) -> None:
    """Code that matches `pat` against the UOp in local `var`, then runs `cont` for each way it matches."""
    checks = _node_checks(em, pat, var)
    if pat.name is not None and pat.name in bound:
        checks.append(f"{var} is {bound[pat.name]}")  # same name must bind the same node
    elif pat.name is not None:
        bound = {**bound, pat.name: var}
    if pat.src is None:
        _guarded(em, checks, depth, lambda d: cont(d, bound))
        return
    orders = list(itertools.permutations(pat.src)) if isinstance(pat.src, list) else [tuple(pat.src)]
    n = len(pat.src)
    length_ok = f"len({var}.src) >= {n}" if pat.allow_any_len else f"len({var}.src) == {n}"

    def body(d: int) -> None:
        srcs = [em.var() for _ in range(n)]
        if n:
            targets = ", ".join(srcs) + ("," if n == 1 else "")
            em.line(d, f"{targets} = {var}.src[:{n}]" if pat.allow_any_len else f"{targets} = {var}.src")
        for order in orders:  # one block per order of a list source, in permutations' order
            _emit_sources(em, list(order), srcs, d, bound, cont)

    _guarded(em, [*checks, length_ok], depth, body)


def _emit_sources(
    em: _Emitter, pats: list, srcs: list[str], depth: int, bound: dict[str, str], cont: _Cont
) -> None:
    """Match pats[k] against srcs[k] in turn: the join over sources, as nested code."""
    if not pats:
        cont(depth, bound)
        return
    first, rest = pats[0], pats[1:]
    rest_srcs = srcs[1:]
    _emit(em, first, srcs[0], depth, bound, lambda d, b: _emit_sources(em, rest, rest_srcs, d, b, cont))


def _guarded(em: _Emitter, checks: list[str], depth: int, inner: Callable[[int], None]) -> None:
    if not checks:
        inner(depth)
        return
    em.line(depth, f"if {' and '.join(checks)}:")
    start = len(em.lines)
    inner(depth + 1)
    if len(em.lines) == start:
        em.line(depth + 1, "pass")


def matcher_source(pat: Any) -> tuple[str, dict[str, Any]]:
    """The Python source of pat's specialized matcher, and the globals it needs."""
    em = _Emitter()
    em.line(0, "def match(n0):")
    em.line(1, "out = []")

    def emit_result(depth: int, bound: dict[str, str]) -> None:
        items = ", ".join(f"{name!r}: {var}" for name, var in bound.items())
        em.line(depth, f"out.append({{{items}}})")

    _emit(em, pat, "n0", 1, {}, emit_result)
    em.line(1, "return out")
    return "\n".join(em.lines) + "\n", em.env


# Each pattern node on a matching path adds an indentation level (the code is a nest of ifs, and the
# join over sources continues inside the previous source's block); Python allows 100 levels.
_MAX_PATTERN_NODES = 60


def _pattern_nodes(pat: Any) -> int:
    count, stack = 0, [pat]
    while stack:
        p = stack.pop()
        count += 1
        stack.extend(p.src or ())
    return count


def _interpreted(pat: Any) -> CompiledMatcher:
    """The fallback for a pattern too deep to compile: the interpreter itself (not cached as compiled)."""
    match = pat.match
    return lambda u: match(u, {})


def compile_upat(pat: Any) -> CompiledMatcher:
    """A function u -> pat.match(u, {}), generated for this pattern; built once and cached."""
    hit = getattr(pat, "_matcher", None)
    if hit is not None and getattr(hit, "compiled_upat", False):
        return hit
    if _pattern_nodes(pat) > _MAX_PATTERN_NODES:
        return _interpreted(pat)
    source, env = matcher_source(pat)
    key = source + repr(sorted((k, type(v).__name__, repr(v)) for k, v in env.items()))
    fn = _by_source.get(key)
    if fn is None:
        namespace: dict[str, Any] = dict(env)
        try:
            code = compile(source, f"<compiled UPat {pat!r}>", "exec")
        except (SyntaxError, RecursionError):  # nested past Python's 100 indentation levels
            return _interpreted(pat)
        exec(code, namespace)
        fn = namespace["match"]
        fn.__doc__ = f"Compiled matcher for {pat!r}:\n\n{source}"
        fn.compiled_upat = True
        _by_source[key] = fn
    if hasattr(pat, "_matcher"):
        pat._matcher = fn
    return fn


# Hook proposed to the greedy core (matcher.py is not this module's to edit): with compiled matching
# on, PatternMatcher could build {op: compile_rewriter(rules)} from by_op and let rewrite() call
# it, setting last_fired = by_op[u.op][index]. bench/greedy.py's FusedPatternMatcher does exactly
# that and measures it; tests/test_compiled.py checks it against the interpreter rule for rule.
def compile_rewriter(rules: list[Any]) -> CompiledRewriter:
    """One function for an ordered rule list (the candidates of one op): PatternMatcher.rewrite, fused.

    For each rule in order and each way its pattern matches (in UPat.match's order), it calls the
    rule's function with the bindings as keyword arguments (plus ctx= when ctx is not None) and
    returns the first result that is not None and not the node itself, with the rule's index.
    That is exactly what PatternMatcher.rewrite does over interpreted bindings; fused, it builds no
    binding dicts and no lists, and stops matching a rule's pattern at the first result.
    """
    em = _Emitter()
    em.line(0, "def rewrite(n0, ctx):")
    for k, rule in enumerate(rules):
        fn = em.const(rule.fn, "FN")

        def emit_call(depth: int, bound: dict[str, str], fn: str = fn, k: int = k) -> None:
            args = ", ".join(f"{name}={var}" for name, var in bound.items())
            with_ctx = f"{args}, ctx=ctx" if args else "ctx=ctx"
            em.line(depth, f"ret = {fn}({args}) if ctx is None else {fn}({with_ctx})")
            em.line(depth, "if ret is not None and ret is not n0:")
            em.line(depth + 1, f"return ret, {k}")

        if not all(name.isidentifier() for name in _names(rule.pat)):
            raise ValueError(
                f"rule {rule.name}: pattern names must be identifiers, got {sorted(_names(rule.pat))}"
            )
        em.line(1, f"# {k}: {getattr(rule, 'name', '')}")
        if _pattern_nodes(rule.pat) > _MAX_PATTERN_NODES:  # too deep to inline: loop over its bindings
            match = em.const(_interpreted(rule.pat), "MATCH")
            em.line(1, f"for b in {match}(n0):")
            em.line(2, f"ret = {fn}(**b) if ctx is None else {fn}(**b, ctx=ctx)")
            em.line(2, "if ret is not None and ret is not n0:")
            em.line(3, f"return ret, {k}")
            continue
        _emit(em, rule.pat, "n0", 1, {}, emit_call)
    em.line(1, "return None")
    source = "\n".join(em.lines) + "\n"
    namespace: dict[str, Any] = dict(em.env)
    exec(compile(source, f"<compiled rewriter of {len(rules)} rules>", "exec"), namespace)
    fn = namespace["rewrite"]
    fn.source = source
    return fn


def _names(pat: Any) -> set[str]:
    out = {pat.name} if pat.name is not None else set()
    for p in pat.src or ():
        out |= _names(p)
    return out
