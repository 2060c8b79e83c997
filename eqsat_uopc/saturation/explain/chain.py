"""A chain of rewrites as a value: the steps from a program to an equivalent one, and their replay.

A `RewriteStep` names the rule that made it (an egglog rule `divmod/div-sum-term`, a Python rule
of a hook `linear/divmod-fold`, a greedy rule of the chapter's `symbolic` set `symbolic/add_zero`)
and what it rewrote: the subterm `before` at `path` (source indices from the root of the program
as it is before the step) becomes `after`. A step of a hook's greedy rewrite (`everywhere`) rewrites
every occurrence of `before` under `path`, as the greedy engine rewrites a shared node once for all
its users. A step the search could not attribute to a rule is `unexplained` (its two sides are
still one e-class's members, and still checked).

`replay(chain)` applies the steps to the chain's start, each where it says, and checks at each
step that the subterm is there: the chain is a derivation of its result, not a list of claims.

    >>> from eqsat_uopc.ir.uop import UOp
    >>> x = UOp.param(0)
    >>> step = RewriteStep("symbolic/add_zero", "greedy-seed", x + 0, x, (0,))
    >>> chain = RewriteChain((x + 0) * 3, x * 3, (step,), "wrap")
    >>> replay(chain) is x * 3, infix(chain.start), step.line()
    (True, '(p0 + 0) * 3', 'symbolic/add_zero [greedy-seed]: p0 + 0 -> p0')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uir import uir_line
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.errors import SaturationError

__all__ = [
    "UNEXPLAINED",
    "ReplayError",
    "RewriteChain",
    "RewriteStep",
    "apply_step",
    "infix",
    "replace_at",
    "replay",
    "reversed_steps",
    "same_head",
    "subterm_at",
]

UNEXPLAINED = "e-graph/unexplained"  # the rule of a step the search found no rule for


class ReplayError(SaturationError):
    """A step of a chain does not apply where it says (the message names the step)."""


@dataclass(frozen=True)
class RewriteStep:
    """One rewrite: `rule` (as the report names it), made by `by` ("egglog", or the hook that ran
    it: "greedy-seed", "index-algebra", "decided-comparisons"; "e-graph" for an unexplained
    step), turned `before`, the subterm at `path`, into `after` (every occurrence of it under
    `path` when `everywhere`). `backwards`: the rule rewrote `after` into `before` (a term the rules
    reached from the result's side; the e-class is an equality, so the step is read right to
    left). `note`: for an unexplained step, what the search learnt (the egglog rules that unite its
    two sides together, without a chain through them)."""

    rule: str
    by: str
    before: UOp
    after: UOp
    path: tuple[int, ...] = ()
    everywhere: bool = False
    note: str = ""
    backwards: bool = False

    @property
    def explained(self) -> bool:
        return self.rule != UNEXPLAINED

    @property
    def label(self) -> str:
        """The rule and who ran it: `symbolic/add_zero [greedy-seed]`, `... [greedy-seed, backwards]`."""
        return f"{self.rule} [{self.by}{', backwards' if self.backwards else ''}]"

    def line(self) -> str:
        """`divmod/div-sum-term [egglog]: (p0*4 + 8) // 4 -> p0*1 + 8 // 4`."""
        return f"{self.label}: {infix(self.before)} -> {infix(self.after)}"


@dataclass(frozen=True)
class RewriteChain:
    """The steps from `start` to `result`, under the run's int semantics (not yet checked: see
    eqsat_uopc.verify.explanation, which checks every step)."""

    start: UOp
    result: UOp
    steps: tuple[RewriteStep, ...]
    int_semantics: str

    @property
    def complete(self) -> bool:
        """Does every step name the rule that made it?"""
        return all(s.explained for s in self.steps)

    def rule_counts(self) -> dict[str, int]:
        """Steps per rule, most used first (ties by name): the rules the result depends on."""
        counts = Counter(s.rule for s in self.steps)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def __add__(self, other: RewriteChain) -> RewriteChain:
        """This chain, then other (which must start where this one ends)."""
        if other.start is not self.result:
            raise SaturationError("chains join only where the first ends and the second starts")
        return RewriteChain(self.start, other.result, self.steps + other.steps, self.int_semantics)


def subterm_at(term: UOp, path: tuple[int, ...]) -> UOp:
    """The subterm of term at path (source indices), ReplayError if there is none."""
    u = term
    for depth, i in enumerate(path):
        if i >= len(u.src):
            raise ReplayError(f"no subterm at {list(path)}: {uir_line(u)} has no source {i} (depth {depth})")
        u = u.src[i]
    return u


def replace_at(term: UOp, path: tuple[int, ...], new: UOp) -> UOp:
    """term with its subterm at path replaced by new (that one place only)."""
    if not path:
        return new
    spine = [term]
    for i in path[:-1]:
        spine.append(spine[-1].src[i])
    for node, i in zip(reversed(spine), reversed(path), strict=True):
        src = list(node.src)
        src[i] = new
        new = node.replace(src=tuple(src))
    return new


def apply_step(term: UOp, step: RewriteStep, number: int = 0) -> UOp:
    """term with step applied; ReplayError (naming step `number`) when its subterm is not there."""
    at = subterm_at(term, step.path)
    if step.everywhere:
        if step.before not in at.toposort(enter_call_bodies=False):
            raise ReplayError(
                f"step {number} ({step.rule}): {infix(step.before)} does not occur in {infix(at)}"
            )
        new = at.substitute({step.before: step.after})
    else:
        if at is not step.before:
            raise ReplayError(
                f"step {number} ({step.rule}): expected {infix(step.before)} at {list(step.path)}, "
                f"found {infix(at)}"
            )
        new = step.after
    return replace_at(term, step.path, new)


def replay(chain: RewriteChain) -> UOp:
    """Apply every step to chain.start, in order; ReplayError unless each applies where it says and
    the last gives chain.result."""
    term = chain.start
    for k, step in enumerate(chain.steps, 1):
        term = apply_step(term, step, k)
    if term is not chain.result:
        raise ReplayError(f"the steps give {infix(term)}, not the chain's result {infix(chain.result)}")
    return term


def reversed_steps(start: UOp, steps: list[RewriteStep] | tuple[RewriteStep, ...]) -> list[RewriteStep]:
    """The steps that take where `steps` end back to `start`, each read backwards (its two sides
    swapped), last first. An everywhere step whose `after` also occurs where the step did not put
    it (so that rewriting it back everywhere would overshoot) becomes one step per place it rewrote.
    ReplayError if `steps` do not apply to `start`."""
    terms = [start]
    for k, step in enumerate(steps, 1):
        terms.append(apply_step(terms[-1], step, k))
    out: list[RewriteStep] = []
    for k in range(len(steps) - 1, -1, -1):
        step, before, after = steps[k], terms[k], terms[k + 1]
        back = replace(step, before=step.after, after=step.before, backwards=not step.backwards)
        if not step.everywhere:
            out.append(back)
            continue
        try:
            if apply_step(after, back) is before:
                out.append(back)
                continue
        except ReplayError:
            pass
        old, new = subterm_at(before, step.path), subterm_at(after, step.path)
        for place in _places(old, new, step.before, step.after):
            out.append(replace(back, path=(*step.path, *place), everywhere=False))
    return out


def _places(old: UOp, new: UOp, before: UOp, after: UOp) -> list[tuple[int, ...]]:
    """The paths in `new` at which `old` (the same term with `before` in those places) has `before`
    where `new` has `after`: where an everywhere rewrite of before into after wrote."""
    out: list[tuple[int, ...]] = []
    todo: list[tuple[UOp, UOp, tuple[int, ...]]] = [(old, new, ())]
    while todo:
        o, n, path = todo.pop()
        if o is n:
            continue
        if o is before and n is after:
            out.append(path)
            continue
        pairs = list(enumerate(zip(o.src, n.src, strict=True)))
        todo.extend((s, t, (*path, i)) for i, (s, t) in reversed(pairs))
    return out


# -- a compact infix form, for one step a line
_INFIX = {Ops.ADD: ("+", 2), Ops.MUL: ("*", 3), Ops.FLOORDIV: ("//", 3), Ops.FLOORMOD: ("%", 3),
          Ops.CMPLT: ("<", 1), Ops.CMPNE: ("!=", 1)}  # fmt: skip
_CALLS = {Ops.MAX: "max", Ops.WHERE: "where", Ops.RECIP: "recip", Ops.EXP2: "exp2", Ops.LOG2: "log2",
          Ops.SQRT: "sqrt", Ops.SIN: "sin"}  # fmt: skip


def _leaf(u: UOp) -> str:
    if u.op is Ops.PARAM and not u.shape:
        return f"p{u.arg.slot}"
    if u.op is Ops.RANGE:
        return str(u.arg)
    if u.op is Ops.CONST and not u.shape:
        return str(u.arg).lower() if isinstance(u.arg, bool) else repr(u.arg)
    return uir_line(u)


def infix(u: UOp) -> str:
    """`(p0*4 + 8) // 4`-style text of a term: operators with Python's precedence (parentheses
    where a source binds looser, or as tightly on the right: `a + (b + c)` keeps its shape), MAX,
    WHERE and unary ops as calls, CAST as `i32(x)`; anything else in the .uir one-line form."""
    memo: dict[UOp, tuple[str, int]] = {}
    for n in u.toposort(enter_call_bodies=False):
        if n.op in _INFIX and len(n.src) == 2:
            sym, level = _INFIX[n.op]
            (a, la), (b, lb) = memo[n.src[0]], memo[n.src[1]]
            a = f"({a})" if la < level else a
            b = f"({b})" if lb <= level else b
            memo[n] = (f"{a} {sym} {b}", level)
        elif n.op in _CALLS:
            memo[n] = (f"{_CALLS[n.op]}({', '.join(memo[s][0] for s in n.src)})", 9)
        elif n.op is Ops.CAST and not n.shape:
            memo[n] = (f"{n.dtype.name}({memo[n.src[0]][0]})", 9)
        elif not n.src:
            text = _leaf(n)
            memo[n] = (text, 9 if not text.startswith("-") else 0)
        else:
            memo[n] = (uir_line(n), 9)
    return memo[u][0]


def same_head(a: UOp, b: UOp) -> bool:
    """Do a and b have one operator, argument, dtype, shape and arity (so that equal sources, or
    sources in equal classes, make them congruent)?"""
    return (
        a.op is b.op
        and a.arg == b.arg
        and a.dtype is b.dtype
        and a.shape == b.shape
        and len(a.src) == len(b.src)
    )
