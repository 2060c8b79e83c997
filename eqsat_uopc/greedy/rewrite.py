"""graph_rewrite: the greedy engine. Bottom-up, iterative, memoized, to a fixed point.

Every source is rewritten to normal form before its user is looked at (innermost strategy), a
rule's result is itself rewritten again (stage 2), and `done` maps each node to its normal form,
so a shared node is rewritten once. An explicit stack replaces recursion: a 20,000-deep chain
works. `max_steps` turns a looping rule set into an error instead of a hang.

Two opt-in aids (the chapter's exercises 4 and 8):

- the rewrite check (UOPC_CHECK_REWRITES=1, or check=True): a rule must return a node of the
  dtype and shape of the node it replaces; a RewriteCheckError names the rule that did not;
- the rewrite tracer (DEBUG_REWRITE=1): each firing is printed to stderr as
  `rule-name: before -> after`, both sides one-line terms (the .uir one-line form, uir_line).

graph_rewrite_topdown (exercise 5) tries the rules on a node before rewriting its sources, and
again after: a rule that discards a subtree (WHERE(True, x, y) -> x) then never visits it.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any

from eqsat_uopc.greedy.matcher import PatternMatcher
from eqsat_uopc.greedy.oneline import one_line
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, call_params

__all__ = ["RewriteCheckError", "env_flag", "graph_rewrite", "graph_rewrite_topdown"]

NOT_CONVERGED = "graph_rewrite did not converge (a rule loops?)"


class RewriteCheckError(AssertionError):
    """A rule replaced a node with one of another dtype or shape; the message names the rule."""


def env_flag(name: str) -> bool:
    """Is the switch `name` (UOPC_CHECK_REWRITES, DEBUG_REWRITE) on: set in the environment, and not
    to "" or "0"? Read at each rewrite, so a test or a session can turn it on and off."""
    return os.environ.get(name, "") not in ("", "0")


def _rule_name(pm: Any) -> str:
    rule = getattr(pm, "last_fired", None)
    return "<unknown rule>" if rule is None else rule.name


def _check(pm: Any, n: UOp, m: UOp) -> None:
    change = None
    if m.dtype is not n.dtype:
        change = f"dtype of a {n.op.name} node from {n.dtype.name} to {m.dtype.name}"
    elif m.shape != n.shape:
        change = f"shape of a {n.op.name} node from {n.shape} to {m.shape}"
    if change is not None:
        raise RewriteCheckError(
            f"rule {_rule_name(pm)!r} changed the {change}: {one_line(n)} -> {one_line(m)}"
        )


def _rebuild(u: UOp, src: tuple[UOp, ...]) -> UOp:
    """u with its sources replaced by their normal forms.

    Deviation from the chapter's engine: a CALL's body is rewritten like any source, and a rewrite
    can remove a parameter's last use (`where(p0, False, False) -> False`). The IR reads a CALL's
    arity off its body's PARAMs, so the chapter's engine then failed to rebuild the CALL
    (`UOpError: CALL needs params 0..0, body has []`). Such a CALL keeps its original body (an
    equivalent one); its arguments are still rewritten, and inlining works on it as on any CALL.
    """
    if u.op is Ops.CALL and src[0] is not u.src[0] and call_params(src[0]) != call_params(u.src[0]):
        src = (u.src[0], *src[1:])
        if src == u.src:
            return u
    return u.replace(src=src)


class _Observer:
    """What graph_rewrite does with a firing besides using it: check it, trace it (or nothing)."""

    __slots__ = ("check", "debug", "pm")

    def __init__(self, pm: Any, check: bool | None):
        self.pm = pm
        self.check = env_flag("UOPC_CHECK_REWRITES") if check is None else check
        self.debug = env_flag("DEBUG_REWRITE")

    @property
    def active(self) -> bool:
        return self.check or self.debug

    def forget(self) -> None:
        """Before a rewrite: so that a matcher that fires without recording a rule is not blamed on
        the previous firing's rule."""
        if isinstance(self.pm, PatternMatcher):
            self.pm.last_fired = None

    def fired(self, n: UOp, m: UOp) -> None:
        if self.debug:
            print(f"{_rule_name(self.pm)}: {one_line(n)} -> {one_line(m)}", file=sys.stderr)
        if self.check:
            _check(self.pm, n, m)


_PAUSE_GC_AFTER_STEPS = 20_000  # 2.95 -> 2.14 s on a 200,001-node chain; small rewrites unchanged


def graph_rewrite(
    root: UOp, pm: PatternMatcher, ctx: Any = None, max_steps: int = 10_000_000, *, check: bool | None = None
) -> UOp:
    """Bottom-up greedy rewrite of root to a fixed point of pm's rules.

    Stage 0: schedule the sources.  Stage 1: sources done -> rebuild, try the rules.
    Stage 2: a rule fired and its result has been rewritten -> that is our answer.
    A node whose sources are all done already goes from stage 0 straight into stage 1 (the stack
    would pop its stage 1 next anyway: same order, same steps).
    check: the dtype/shape check (None: on when UOPC_CHECK_REWRITES=1).
    """
    obs = _Observer(pm, check)
    observe = obs.active
    # a plain PatternMatcher's rewrite of a node whose op has no candidate rule returns None and does
    # nothing else: such nodes (the CONSTs of a STACK, ...) are done without the call
    with_rules = pm.by_op if type(pm) is PatternMatcher else None
    done: dict[UOp, UOp] = {}
    stack: list[tuple[UOp, int, UOp | None]] = [(root, 0, None)]
    steps = 0
    # a long rewrite pauses the cycle collector (see eqsat_uopc/bulk.py: the nodes it builds make no
    # cycles); checked where the step limit is, so a short one pays nothing
    next_check, paused = min(max_steps, _PAUSE_GC_AFTER_STEPS), False
    try:
        while stack:
            u, stage, aux = stack.pop()
            if stage == 2:
                done[u] = done[aux]
                continue
            if u in done:
                continue
            if not u.src:
                n = u
            else:
                if stage == 0 and (todo := [s for s in u.src if s not in done]):
                    stack.append((u, 1, None))
                    stack.extend([(s, 0, None) for s in reversed(todo)])
                    continue
                # every source is done (a node with none, or whose stage 0 found none left to schedule,
                # would have its stage 1 popped next anyway: doing it now keeps the order and the steps)
                src = tuple([done[s] for s in u.src])
                n = u if src == u.src else _rebuild(u, src)
            steps += 1
            if steps > next_check:
                if steps > max_steps:
                    raise RuntimeError(NOT_CONVERGED)
                paused, next_check = gc.isenabled(), max_steps
                gc.disable()
            if observe:
                obs.forget()
            if (with_rules is not None and n.op not in with_rules) or (m := pm.rewrite(n, ctx)) is None:
                done[u] = n
                continue
            if observe:
                obs.fired(n, m)
            if m in done:
                done[u] = done[m]
            else:
                stack.extend([(u, 2, m), (m, 0, None)])
    finally:
        if paused:
            gc.enable()
    return done[root]


def graph_rewrite_topdown(
    root: UOp, pm: PatternMatcher, ctx: Any = None, max_steps: int = 10_000_000, *, check: bool | None = None
) -> UOp:
    """Greedy rewrite that tries the rules on a node before rewriting its sources, and again after.

    Stage 0: try the rules on the node as it is; if one fires, rewrite its result instead.
    Stage 1: no rule fired before, sources now done -> rebuild and try again (as bottom-up does).
    Stage 2: the result of a firing has been rewritten -> that is our answer.
    The result is a normal form (no rule matches any node of it), though not always the one
    graph_rewrite reaches: the rules see sources before they are normalized.
    """
    obs = _Observer(pm, check)
    observe = obs.active
    done: dict[UOp, UOp] = {}
    stack: list[tuple[UOp, int, UOp | None]] = [(root, 0, None)]
    steps = 0

    def fire(u: UOp, n: UOp) -> bool:
        """Try the rules on n (standing for u); schedule the result if one fires."""
        nonlocal steps
        steps += 1
        if steps > max_steps:
            raise RuntimeError(NOT_CONVERGED)
        if observe:
            obs.forget()
        if (m := pm.rewrite(n, ctx)) is None:
            return False
        if observe:
            obs.fired(n, m)
        if m in done:
            done[u] = done[m]
        else:
            stack.extend([(u, 2, m), (m, 0, None)])
        return True

    while stack:
        u, stage, aux = stack.pop()
        if stage != 2 and u in done:
            continue
        if stage == 0:
            if fire(u, u):
                continue
            stack.append((u, 1, None))
            stack.extend((s, 0, None) for s in reversed(u.src) if s not in done)
        elif stage == 1:
            src = tuple(done[s] for s in u.src)
            n = u if src == u.src else _rebuild(u, src)
            if n is u:
                done[u] = u  # the rules already had their try on u in stage 0
            elif not fire(u, n):
                done[u] = n
        else:
            done[u] = done[aux]
    return done[root]
