"""one_line: a node as a one-line nested term, the form the chapter's traces print.

`add(mul(p0, 3), 11)`: constants print as their Python value, PARAMs as p<slot>, a CALL as
name[body](args), and ops with an argument (movement, REDUCE, CAST, RANGE) print it last. The
rewrite tracer and the rewrite check use it; it is kept small so that it can be swapped for the
.uir printer's one-line form.

Strings are built bottom-up once per node (a shared subterm costs one string) and each is cut
at `limit` characters, so a large DAG cannot make a trace line explode.
"""

from __future__ import annotations

from ..ops import Ops
from ..uop import UOp

__all__ = ["one_line"]


def _arg_text(u: UOp) -> str | None:
    if u.op is Ops.REDUCE:
        return f"{u.arg[0].name.lower()}, {u.arg[1]}"
    if u.op is Ops.CAST:
        return u.arg.name
    if u.op in (Ops.RESHAPE, Ops.EXPAND, Ops.PERMUTE, Ops.SHRINK, Ops.RANGE):
        return repr(u.arg)
    return None


def one_line(u: UOp, limit: int = 240) -> str:
    """u as a one-line term, cut with '...' beyond limit characters."""
    text: dict[UOp, str] = {}
    for n in u.toposort():
        if n.op is Ops.CONST:
            s = repr(n.arg)
        elif n.op is Ops.PARAM:
            s = f"p{n.arg.slot}"
        elif n.op is Ops.CALL:
            s = f"{n.arg}[{text[n.src[0]]}]({', '.join(text[a] for a in n.src[1:])})"
        else:
            parts = [text[s] for s in n.src]
            if (a := _arg_text(n)) is not None:
                parts.append(a)
            s = f"{n.op.name.lower()}({', '.join(parts)})"
        text[n] = s if len(s) <= limit else s[: limit - 3] + "..."
    return text[u]
