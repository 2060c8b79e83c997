"""evaluate, run, to_python, inline_call: running closed programs by rewriting.

A closed program (no free PARAMs) is a DAG of constants, STACKs, INDEXes, ALU ops, movement ops
and CALLs. `symbolic` folds scalar ALU ops; the `evaluate` rules eliminate everything else: push
ALU ops through STACK, index into STACKs, compute movement ops and REDUCE on known data, and
inline CALLs (beta reduction that respects scopes). The normal form of a closed program under
symbolic + evaluate is its value: rewriting is the interpreter.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.errors import IndexOutOfBoundsError
from eqsat_uopc.greedy.matcher import PatternMatcher, Rule
from eqsat_uopc.greedy.rewrite import env_flag, graph_rewrite
from eqsat_uopc.greedy.symbolic import symbolic
from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.dtype import dtypes
from eqsat_uopc.ir.ops import ALU, MOVEMENT, Ops
from eqsat_uopc.ir.uop import UOp, call_params, prod
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.interpret import movement_map

__all__ = ["evaluate", "inline_call", "run", "to_python"]


_PYTHON_TYPE = {dtypes.bool: bool, dtypes.i32: int, dtypes.f32: float}


def _columns(x: UOp) -> list | None:
    """The sources of an ALU op over STACKs split along the first axis (a non-STACK source with
    INDEX), or None when no source is a STACK."""
    if x.shape == () or not any(s.op is Ops.STACK for s in x.src):
        return None
    return [s.src if s.op is Ops.STACK else [s.index(i) for i in range(x.shape[0])] for s in x.src]


def _push_stack(x: UOp) -> UOp | None:
    # f(STACK(a0, a1), STACK(b0, b1)) -> STACK(f(a0, b0), f(a1, b1)); other sources are split with INDEX
    if (cols := _columns(x)) is None:
        return None
    return UOp(Ops.STACK, tuple(x.replace(src=src) for src in zip(*cols, strict=True)))


def _push_stack_folded(x: UOp) -> UOp | None:
    """push_stack for `run`: the same STACK, with the elements `fold` folds already folded.

    graph_rewrite rewrites a rule's result to normal form, and on an element f(a_i, b_i) with
    all-CONST sources the first rule of symbolic + evaluate to match is `fold`, whose result (a
    CONST) is a normal form. Folding those elements here reaches the same normal form without
    building f(a_i, b_i) and visiting it (at n = 1000 those nodes and visits were most of `run`'s
    time). Where `fold` refuses (exec_alu undefined: division by zero, ...) the element is built as
    push_stack builds it, and every rule sees it. Only the one-step result differs from
    push_stack's, so `evaluate` keeps the chapter's rule and the rewrite tracer sees it.
    """
    if (cols := _columns(x)) is None:
        return None
    op, dtype, const = x.op, x.dtype, Ops.CONST
    pytype = _PYTHON_TYPE[dtype]
    out = []
    for src in zip(*cols, strict=True):
        args = []
        for s in src:
            if s.op is not const:
                break
            args.append(s.arg)
        else:
            if (r := exec_alu(op, dtype, args)) is not None:
                # UOp.const(r, dtype), as `fold` builds it (exec_alu gives the dtype's Python type)
                out.append(UOp(const, (), r) if type(r) is pytype else UOp.const(r, dtype))
                continue
        out.append(x.replace(src=src))
    return UOp(Ops.STACK, tuple(out))


def _index_stack(s: UOp, i: UOp, rest: tuple[UOp, ...]) -> UOp | None:
    # INDEX(STACK(e0, e1, ...), c, *rest) -> INDEX(e_c, *rest); an out-of-range constant is a program error
    if not 0 <= i.arg < len(s.src):
        raise IndexOutOfBoundsError(f"index {i.arg} out of bounds for STACK of {len(s.src)}")
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
    if u.op in MOVEMENT:  # the index maps are semantics.interpret's, the one definition
        out = [flat[i] for i in movement_map(u)]
    elif u.op is Ops.REDUCE:
        rop, k = u.arg
        inner = prod(ishape[len(ishape) - k :])
        out = []
        for i in range(prod(u.shape)):
            acc = flat[i * inner]
            for v in flat[i * inner + 1 : (i + 1) * inner]:
                acc = exec_alu(rop, u.dtype, [acc, v])
            out.append(acc)
    else:
        return None
    return _from_flat(out, u.shape, u.dtype)


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
# the same rules, push_stack folding the elements it creates (_push_stack_folded): same normal forms
_run_fast = PatternMatcher(
    [r._replace(fn=_push_stack_folded) if r.fn is _push_stack else r for r in _run_matcher.rules]
)


def run(u: UOp) -> UOp:
    """The normal form of u under symbolic + evaluate: for a closed program, its value.

    With the rewrite tracer on (DEBUG_REWRITE=1) the rules are exactly symbolic + evaluate, so
    that every firing is printed; otherwise push_stack folds the elements it creates (the same
    normal form, without the intermediate nodes).
    """
    return graph_rewrite(u, _run_matcher if env_flag("DEBUG_REWRITE") else _run_fast)


def to_python(u: UOp) -> Any:
    """A fully evaluated program as nested python lists."""
    if u.op is Ops.CONST:
        return u.arg
    if u.op is Ops.STACK:
        return [to_python(s) for s in u.src]
    raise ValueError(f"program did not evaluate to a value, stuck at {u.op}")
