"""evaluate, run, to_python, inline_call: running closed programs by rewriting.

A closed program (no free PARAMs) is a DAG of constants, STACKs, INDEXes, ALU ops, movement ops
and CALLs. `symbolic` folds scalar ALU ops; the `evaluate` rules eliminate everything else: push
ALU ops through STACK, index into STACKs, compute movement ops and REDUCE on known data, and
inline CALLs (beta reduction that respects scopes). The normal form of a closed program under
symbolic + evaluate is its value: rewriting is the interpreter.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.greedy.matcher import PatternMatcher, Rule
from eqsat_uopc.greedy.rewrite import graph_rewrite
from eqsat_uopc.greedy.symbolic import symbolic
from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.layout import ravel, unravel
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp, call_params, prod
from eqsat_uopc.semantics.alu import exec_alu

__all__ = ["evaluate", "inline_call", "run", "to_python"]


def _elem(s: UOp, i: int) -> UOp:
    return s.src[i] if s.op is Ops.STACK else s.index(i)


def _push_stack(x: UOp) -> UOp | None:
    # f(STACK(a0, a1), STACK(b0, b1)) -> STACK(f(a0, b0), f(a1, b1)); other sources are split with INDEX
    if x.shape == () or not any(s.op is Ops.STACK for s in x.src):
        return None
    return UOp(Ops.STACK, tuple(x.replace(src=tuple(_elem(s, i) for s in x.src)) for i in range(x.shape[0])))


def _index_stack(s: UOp, i: UOp, rest: tuple[UOp, ...]) -> UOp | None:
    # INDEX(STACK(e0, e1, ...), c, *rest) -> INDEX(e_c, *rest); an out-of-range constant is a program error
    if not 0 <= i.arg < len(s.src):
        raise IndexError(f"index {i.arg} out of bounds for STACK of {len(s.src)}")
    return s.src[i.arg].index(*rest) if rest else s.src[i.arg]


def inline_call(call: UOp) -> UOp:
    """Beta reduction: the body of call with each of its PARAMs replaced by the matching argument.

    Scoped: a nested CALL's body (its src[0]) binds its own PARAMs, which are the same hash-consed
    nodes as the outer ones, so substitution never enters it (UOp.substitute never does).
    """
    body = call.src[0]
    args = {p: call.src[1 + p.arg.slot] for p in call_params(body)}
    return body.substitute(args)


def _literal(u: UOp) -> tuple[list[Any], tuple[int, ...]] | None:
    """A CONST/STACK tree as (flat list of python values, shape), or None if anything is symbolic."""
    flat: list[Any] = []
    stack = [u]
    while stack:
        n = stack.pop()
        if n.op is Ops.CONST:
            flat.append(n.arg)
        elif n.op is Ops.STACK:
            stack.extend(reversed(n.src))
        else:
            return None
    return flat, u.shape


def _from_flat(flat: list[Any], shape: tuple[int, ...], dtype) -> UOp:
    if not shape:
        return UOp.const(flat[0], dtype)
    n = len(flat) // shape[0]
    return UOp(
        Ops.STACK, tuple(_from_flat(flat[i * n : (i + 1) * n], shape[1:], dtype) for i in range(shape[0]))
    )


def _eval_movement(u: UOp) -> UOp | None:
    """Movement ops and REDUCE on fully known values: just compute them."""
    if (lit := _literal(u.src[0])) is None:
        return None
    flat, ishape = lit
    oshape, n_out = u.shape, prod(u.shape)
    match u.op:
        case Ops.RESHAPE:
            out = flat
        case Ops.EXPAND:
            out = [
                flat[
                    ravel(
                        [0 if s == 1 else x for x, s in zip(unravel(i, oshape), ishape, strict=True)], ishape
                    )
                ]
                for i in range(n_out)
            ]
        case Ops.PERMUTE:
            inv = [u.arg.index(k) for k in range(len(ishape))]
            out = [
                flat[ravel([unravel(i, oshape)[inv[k]] for k in range(len(ishape))], ishape)]
                for i in range(n_out)
            ]
        case Ops.SHRINK:
            out = [
                flat[ravel([x + b for x, (b, _) in zip(unravel(i, oshape), u.arg, strict=True)], ishape)]
                for i in range(n_out)
            ]
        case Ops.REDUCE:
            rop, k = u.arg
            inner = prod(ishape[len(ishape) - k :])
            out = []
            for i in range(n_out):
                acc = flat[i * inner]
                for v in flat[i * inner + 1 : (i + 1) * inner]:
                    acc = exec_alu(rop, u.dtype, [acc, v])
                out.append(acc)
        case _:
            return None
    return _from_flat(out, oshape, u.dtype)


x = UPat.var("x")

evaluate = PatternMatcher(
    [
        # movement op / REDUCE of a CONST/STACK tree -> its value
        Rule(
            UPat({Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK, Ops.REDUCE}, name="u"),
            _eval_movement,
            "movement",
        ),
        # INDEX(x) -> x
        Rule(UPat(Ops.INDEX, src=(x,)), lambda x: x, "index_none"),
        # INDEX(INDEX(x, i), j) -> INDEX(x, i, j)
        Rule(
            UPat(Ops.INDEX, src=(UPat(Ops.INDEX, name="a"),), allow_any_len=True, name="b"),
            lambda a, b: a.src[0].index(*a.src[1:], *b.src[1:]),
            "index_index",
        ),
        # INDEX(STACK(e0, ...), c, *rest) -> INDEX(e_c, *rest)
        Rule(
            UPat(Ops.INDEX, src=(UPat(Ops.STACK, name="s"), UPat.cvar("i")), allow_any_len=True, name="u"),
            lambda s, i, u: _index_stack(s, i, u.src[2:]),
            "index_stack",
        ),
        # f(STACK(a...), STACK(b...)) -> STACK(f(a0, b0), ...)
        Rule(UPat(ALU, name="x"), _push_stack, "push_stack"),
        # CALL(body, args) -> body[params := args]
        Rule(UPat(Ops.CALL, name="call"), inline_call, "inline_call"),
    ]
)

_run_matcher = symbolic + evaluate


def run(u: UOp) -> UOp:
    """The normal form of u under symbolic + evaluate: for a closed program, its value."""
    return graph_rewrite(u, _run_matcher)


def to_python(u: UOp) -> Any:
    """A fully evaluated program as nested python lists."""
    if u.op is Ops.CONST:
        return u.arg
    if u.op is Ops.STACK:
        return [to_python(s) for s in u.src]
    raise ValueError(f"program did not evaluate to a value, stuck at {u.op}")
