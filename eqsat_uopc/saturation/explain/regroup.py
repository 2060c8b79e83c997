"""Sums regrouped by associativity and commutativity, one rule application a step.

egglog reassociates a sum at every level at once, so two spellings of one sum are one e-class
after an iteration or two, while a chain needs each rotation and swap as a step of its own:
`comm_assoc/add-assoc` (`(a + b) + c -> a + (b + c)`, a birewrite: `backwards` for right to left)
and `comm_assoc/add-comm` (`a + b -> b + a`). `regroup(start, target)` gives those steps between two
i32 sums of the same summands (as terms, with their multiplicities): start rotated into a right
comb, the comb's summands put in target's order by adjacent swaps, the comb rotated into target's
grouping.

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.saturation.explain.chain import RewriteChain, replay
    >>> x, y, z = UOp.param(0), UOp.param(1), UOp.param(2)
    >>> steps = regroup(x + y + z, z + (x + y), ())
    >>> for s in steps: print(s.line())
    comm_assoc/add-assoc [egglog]: p0 + p1 + p2 -> p0 + (p1 + p2)
    comm_assoc/add-comm [egglog]: p1 + p2 -> p2 + p1
    comm_assoc/add-assoc [egglog, backwards]: p0 + (p2 + p1) -> p0 + p2 + p1
    comm_assoc/add-comm [egglog]: p0 + p2 -> p2 + p0
    comm_assoc/add-assoc [egglog]: p2 + p0 + p1 -> p2 + (p0 + p1)
    >>> replay(RewriteChain(x + y + z, z + (x + y), tuple(steps), "wrap")) is z + (x + y)
    True
"""

from __future__ import annotations

from collections import Counter

from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation.explain.chain import RewriteStep, replace_at, reversed_steps, subterm_at

__all__ = ["ADD_ASSOC", "ADD_COMM", "is_sum", "leaf_paths", "regroup"]

ADD_ASSOC = "comm_assoc/add-assoc"  # (a + b) + c <-> a + (b + c), i32
ADD_COMM = "comm_assoc/add-comm"  # a + b -> b + a


def is_sum(u: UOp) -> bool:
    """An i32 scalar ADD (the sums the two rules are stated for)."""
    return u.op is Ops.ADD and u.dtype is dtypes.i32 and not u.shape


def leaf_paths(u: UOp) -> list[tuple[tuple[int, ...], UOp]]:
    """The summands of u, left to right, with their paths from u (a sum's nested sums flattened)."""
    out: list[tuple[tuple[int, ...], UOp]] = []
    todo: list[tuple[tuple[int, ...], UOp]] = [((), u)]
    while todo:
        path, t = todo.pop()
        if is_sum(t):
            todo.append(((*path, 1), t.src[1]))
            todo.append(((*path, 0), t.src[0]))
        else:
            out.append((path, t))
    return out


def _to_comb(term: UOp, path: tuple[int, ...], steps: list[RewriteStep]) -> UOp:
    """term rotated into a right comb s1 + (s2 + (...)), one add-assoc step a rotation."""
    at: tuple[int, ...] = ()
    while is_sum(t := subterm_at(term, at)):
        left = t.src[0]
        if is_sum(left):
            new = t.replace(src=(left.src[0], t.replace(src=(left.src[1], t.src[1]))))
            steps.append(RewriteStep(ADD_ASSOC, "egglog", t, new, (*path, *at)))
            term = replace_at(term, at, new)
        else:
            at = (*at, 1)
    return term


def regroup(start: UOp, target: UOp, path: tuple[int, ...]) -> list[RewriteStep]:
    """The add-assoc and add-comm steps from start to target, two sums (at `path`) of the same
    summands; ValueError if their summands differ."""
    order = [t for _, t in leaf_paths(start)]
    goal = [t for _, t in leaf_paths(target)]
    if Counter(order) != Counter(goal):
        raise ValueError("regroup: the two sums have different summands")
    steps: list[RewriteStep] = []
    term = _to_comb(start, path, steps)
    for i, want in enumerate(goal):  # the comb's summand i becomes goal[i], by adjacent swaps
        j = next(k for k in range(i, len(order)) if order[k] is want)
        for k in range(j - 1, i - 1, -1):
            term = _swap(term, k, len(order), path, steps)
            order[k], order[k + 1] = order[k + 1], order[k]
    back: list[RewriteStep] = []
    _to_comb(target, (), back)
    steps.extend(RewriteStep(s.rule, s.by, s.before, s.after, (*path, *s.path), backwards=s.backwards)
                 for s in reversed_steps(target, back))  # fmt: skip
    return steps


def _swap(term: UOp, k: int, n: int, path: tuple[int, ...], steps: list[RewriteStep]) -> UOp:
    """The comb term with its summands k and k + 1 swapped (n summands)."""
    at = (1,) * k
    t = subterm_at(term, at)
    if k == n - 2:  # the last two: s_k + s_k+1
        new = t.replace(src=(t.src[1], t.src[0]))
        steps.append(RewriteStep(ADD_COMM, "egglog", t, new, (*path, *at)))
        return replace_at(term, at, new)
    a, (b, rest) = t.src[0], t.src[1].src
    grouped = t.replace(src=(t.replace(src=(a, b)), rest))
    swapped = t.replace(src=(t.replace(src=(b, a)), rest))
    new = t.replace(src=(b, t.replace(src=(a, rest))))
    steps.append(RewriteStep(ADD_ASSOC, "egglog", t, grouped, (*path, *at), backwards=True))
    steps.append(RewriteStep(ADD_COMM, "egglog", grouped.src[0], swapped.src[0], (*path, *at, 0)))
    steps.append(RewriteStep(ADD_ASSOC, "egglog", swapped, new, (*path, *at)))
    return replace_at(term, at, new)
