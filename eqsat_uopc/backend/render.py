"""render_c: a program as one C function over flat arrays, one statement (or loop) per node.

Every node's value is one of
- a *scalar*: a C local (`float n4 = ...;`), for nodes of shape ();
- a *buffer*: a flat row-major array (`n7[i]`): a fresh region of the caller's workspace, an
  input array, the output array, or a view at an offset into another buffer (RESHAPE and INDEX
  with constant indices cost nothing);
- a *uniform*: a tensor whose elements all equal one scalar (a broadcast constant), so
  `a * 2` loops over `a` only.
Elementwise ops are plain loops over restrict pointers, so GCC vectorizes them at -O2; movement
ops copy through their affine index map; REDUCE folds left to right in exec_alu's order.

Undefined behaviour is tracked per lane, never executed: a node that may depend on a FLOORDIV,
FLOORMOD or f32 -> i32 CAST carries a parallel int32 *poison* value (0: defined, otherwise the
status code of the first undefined operation it depends on). WHERE takes the poison of the lane
it selects, so `where(b != 0, a // b, 0)` is defined where b == 0: this is what `run` does, since
it folds a WHERE with a known condition to its selected branch whatever the other branch is. The
program fails with the root's first poisoned lane (flat order). Bounds errors are not poison: an
INDEX whose (defined) symbolic index is out of bounds, or a RANGE input outside [0, extent - 1],
stops the program at once, like `run`'s IndexError. See reference.py for the same rules in Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from eqsat_uopc.backend.c_expr import alu_expr, c_literal, c_type, poison_expr
from eqsat_uopc.backend.c_expr import fault as fault_of
from eqsat_uopc.backend.errors import INDEX_OOB, RANGE_OOB, IndexOutOfBoundsError, UnsupportedProgramError
from eqsat_uopc.backend.lower import InputSpec, Lowered, lower
from eqsat_uopc.backend.prelude import PRELUDE
from eqsat_uopc.ir.dtype import DType
from eqsat_uopc.ir.ops import BINARY, MOVEMENT, TRANSCENDENTAL, Ops
from eqsat_uopc.ir.uop import UOp, prod

__all__ = ["Rendered", "c_type", "render", "render_c", "render_many"]

_ALIGN = 64
_MAX_ELEMENTS = 2**31 - 1


@dataclass(frozen=True)
class Val:
    """How a node's elements are read: see the module docstring."""

    kind: str  # "scalar" | "buffer" | "uniform" | "temp" (a fused operand, inside its user's loop)
    expr: str  # scalar/uniform: a C expression; buffer: the pointer's name
    offset: str = "0"  # buffer only: first element (a C expression)

    def at(self, i: str) -> str:
        if self.kind != "buffer":
            return self.expr
        if self.offset == "0":
            return f"{self.expr}[{i}]"
        return f"{self.expr}[{self.offset}]" if i == "0" else f"{self.expr}[{self.offset} + {i}]"


@dataclass(frozen=True)
class Rendered:
    """The C source and what the loader needs to call it."""

    source: str  # the complete C file (prelude + body)
    body: str  # the program's functions alone
    symbol: str  # the entry point
    inputs: tuple[InputSpec, ...]
    work_bytes: int
    dtype: DType
    shape: tuple[int, ...]
    lowered: Lowered


def _strides(shape: tuple[int, ...]) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


class _Emitter:
    def __init__(self, lowered: Lowered) -> None:
        self.lw = lowered
        self.lines: list[str] = []
        self.work = 0
        self.names: set[str] = set()
        self.val: dict[UOp, Val] = {}
        self.poison: dict[UOp, Val | None] = {}
        self.wrote_out = False  # the root was computed straight into the output array
        self.users: dict[UOp, set[UOp]] = {}
        for u in lowered.nodes:
            for src in u.src:
                self.users.setdefault(src, set()).add(u)
        self.users.setdefault(lowered.root, set()).add(lowered.root)  # the output is a use too
        self.pending: dict[UOp, list[str]] = {}  # fused node -> its statements in the user's loop

    # -- helpers
    def emit(self, line: str, depth: int = 1) -> None:
        self.lines.append("  " * depth + line)

    def name(self, u: UOp, prefix: str = "n") -> str:
        base = f"{prefix}{self.lw.number[u]}"
        name, k = base, 1
        while name in self.names:
            name, k = f"{base}_{k}", k + 1
        self.names.add(name)
        return name

    def alloc(self, name: str, ctype: str, n: int, target: str | None = None) -> str:
        if target is not None:
            self.wrote_out = True
        else:
            target = f"(char *)work + {self.work}" if self.work else "(char *)work"
            self.work += -(-n * (1 if ctype == "bool" else 4) // _ALIGN) * _ALIGN
        self.emit(f"{ctype} *restrict {name} = ({ctype} *)({target});")
        return name

    def scalar(self, u: UOp, expr: str, ctype: str | None = None, prefix: str = "n") -> Val:
        name = self.name(u, prefix)
        self.emit(f"{ctype or c_type(u.dtype)} {name} = {expr};")
        return Val("scalar", name)

    # -- per node
    def node(self, u: UOp, is_root: bool) -> None:
        if u.op is Ops.CONST:  # inlined into its users, as in the .uir listing
            self.val[u], self.poison[u] = Val("scalar", c_literal(u.arg, u.dtype)), None
            return
        if self.fusible(u):
            self.elementwise(u, None, fused=True)
            return
        self.emit(f"/* {self.comment(u)} */")
        n = prod(u.shape)
        if n > _MAX_ELEMENTS:
            raise UnsupportedProgramError(
                f"{u.op.name} at %{self.lw.number[u]} has {n} elements (at most 2**31 - 1)"
            )
        out = "out" if is_root else None
        if u.op is Ops.PARAM:
            self.input(u, f"p{u.arg.slot}")
        elif u.op is Ops.RANGE:
            self.range(u)
        elif u.op in BINARY or u.op in TRANSCENDENTAL or u.op in (Ops.WHERE, Ops.CAST):
            self.elementwise(u, out)
        elif u.op is Ops.STACK:
            self.stack(u, out)
        elif u.op is Ops.INDEX:
            self.index(u, out)
        elif u.op in MOVEMENT:
            self.movement(u, out)
        elif u.op is Ops.REDUCE:
            self.reduce(u, out)
        else:
            raise UnsupportedProgramError(
                f"the C backend cannot render {u.op.name} (at %{self.lw.number[u]})"
            )

    def input(self, u: UOp, ptr: str) -> None:
        if u.shape:
            self.val[u] = Val("buffer", ptr)
        else:
            self.val[u] = self.scalar(u, f"{ptr}[0]")
        self.poison[u] = None

    def range(self, u: UOp) -> None:
        k = [s.node for s in self.lw.inputs if s.kind == "range"].index(u)
        self.input(u, f"r{k}")
        v, ext = self.val[u].expr, self.val[u.src[0]].at("0")
        cond = f"{v} < 0 || {v} >= {ext}"
        if (q := self.poison[u.src[0]]) is not None:
            cond = f"{q.at('0')} == 0 && ({cond})"
        code = self.lw.number[u] * 8 + RANGE_OOB
        self.emit(f"if ({cond}) {{ detail[0] = {v}; detail[1] = {ext}; return {code}; }}")

    def comment(self, u: UOp) -> str:
        """u's .uir line, and the CALL it was inlined from (a body's line shows the body's names)."""
        line = self.lw.lines[self.lw.number[u]]
        return (
            line if u not in self.lw.called_from else f"{line}  (inlined from CALL %{self.lw.called_from[u]})"
        )

    def fusible(self, u: UOp) -> bool:
        """An elementwise tensor whose only user is an elementwise op of its shape: computed inside
        the user's loop as a scalar temporary, never stored (a * b + a is one loop)."""
        if not _is_elementwise(u) or not u.shape or len(self.users.get(u, ())) != 1:
            return False
        (user,) = self.users[u]
        if user is u or not _is_elementwise(user) or user.shape != u.shape:
            return False
        return not all(self.val[s].kind == "uniform" for s in u.src)

    def gather(self, srcs: tuple[UOp, ...]) -> list[str]:
        """The statements of the fused operands among srcs (theirs first), each once."""
        out: list[str] = []
        seen: set[UOp] = set()

        def visit(s: UOp) -> None:
            if s in seen or s not in self.pending:
                return
            seen.add(s)
            out.extend(self.pending[s])

        for src in srcs:
            visit(src)
        return out

    def elementwise(self, u: UOp, out: str | None, fused: bool = False) -> None:
        num, srcs = self.lw.number[u], u.src
        vals = [self.val[s] for s in srcs]
        polys = [self.poison[s] for s in srcs]
        fault = fault_of(u)
        poisoned = fault is not None or any(p is not None for p in polys)
        uniform = all(v.kind == "uniform" for v in vals) and all(
            p is None or p.kind == "uniform" for p in polys
        )
        if not u.shape or uniform:
            args = [v.at("0") for v in vals]
            kind = "scalar" if not u.shape else "uniform"
            value = self.scalar(u, alu_expr(u, args))
            self.val[u] = Val(kind, value.expr)
            if poisoned:
                q = self.scalar(
                    u,
                    poison_expr(u, args, [p.at("0") if p else None for p in polys], fault, num),
                    "int32_t",
                    "q",
                )
                self.poison[u] = Val(kind, q.expr)
            else:
                self.poison[u] = None
            if out is not None and u.shape:  # a uniform root still has to fill the output
                self.val[u] = self.fill(u, self.val[u], "out")
            return
        n = prod(u.shape)
        args = [v.at("i") for v in vals]
        qs = [p.at("i") if p else None for p in polys]
        prologue = self.gather(srcs)
        if fused:
            t = self.name(u, "t")
            lines = [*prologue, f"{c_type(u.dtype)} {t} = {alu_expr(u, args)}; /* {self.comment(u)} */"]
            self.val[u], self.poison[u] = Val("temp", t), None
            if poisoned:
                tq = self.name(u, "tq")
                lines.append(f"int32_t {tq} = {poison_expr(u, args, qs, fault, num)};")
                self.poison[u] = Val("temp", tq)
            self.pending[u] = lines
            return
        name = self.alloc(self.name(u), c_type(u.dtype), n, out)
        qname = self.alloc(self.name(u, "q"), "int32_t", n) if poisoned else None
        body = [*prologue, f"{name}[i] = {alu_expr(u, args)};"]
        if qname:
            body.append(f"{qname}[i] = {poison_expr(u, args, qs, fault, num)};")
        self.loop(n, body)
        self.val[u] = Val("buffer", name)
        self.poison[u] = Val("buffer", qname) if qname else None

    def loop(self, n: int, body: list[str], var: str = "i", depth: int = 1) -> None:
        head = f"for (int32_t {var} = 0; {var} < {n}; {var}++)"
        if len(body) == 1:
            self.emit(f"{head} {body[0]}", depth)
        else:
            self.emit(f"{head} {{", depth)
            for line in body:
                self.emit(line, depth + 1)
            self.emit("}", depth)

    def fill(self, u: UOp, v: Val, target: str | None) -> Val:
        """A buffer holding v's elements (a uniform, or a view that must be copied into target)."""
        n = prod(u.shape)
        name = self.alloc(self.name(u), c_type(u.dtype), n, target)
        self.loop(n, [f"{name}[i] = {v.at('i')};"])
        return Val("buffer", name)

    def stack(self, u: UOp, out: str | None) -> None:
        inner = prod(u.shape[1:])
        name = self.alloc(self.name(u), c_type(u.dtype), prod(u.shape), out)
        poisoned = any(self.poison[s] is not None for s in u.src)
        qname = self.alloc(self.name(u, "q"), "int32_t", prod(u.shape)) if poisoned else None
        for k, s in enumerate(u.src):
            v, q = self.val[s], self.poison[s]
            if inner == 1:
                self.emit(f"{name}[{k}] = {v.at('0')};")
                if qname:
                    self.emit(f"{qname}[{k}] = {q.at('0') if q else '0'};")
            else:
                body = [f"{name}[{k * inner} + i] = {v.at('i')};"]
                if qname:
                    body.append(f"{qname}[{k * inner} + i] = {q.at('i') if q else '0'};")
                self.loop(inner, body)
        self.val[u] = Val("buffer", name)
        self.poison[u] = Val("buffer", qname) if qname else None

    def index(self, u: UOp, out: str | None) -> None:
        base, idx = u.src[0], u.src[1:]
        num, strides = self.lw.number[u], _strides(base.shape)
        consts = [i.arg if i.op is Ops.CONST else None for i in idx]
        terms: list[str] = []
        fixed = 0
        idx_poison = [self.poison[i] for i in idx if self.poison[i] is not None]
        for axis, (i, c) in enumerate(zip(idx, consts, strict=True)):
            dim = base.shape[axis]
            if c is not None:
                if not 0 <= c < dim:
                    raise IndexOutOfBoundsError(
                        f"INDEX at %{num}: index {c} out of bounds for axis {axis} of size {dim}"
                    )
                fixed += c * strides[axis]
                continue
            v = self.val[i].at("0")
            cond = f"{v} < 0 || {v} >= {dim}"
            if (q := self.poison[i]) is not None:
                cond = f"{q.at('0')} == 0 && ({cond})"
            code = num * 8 + INDEX_OOB
            self.emit(
                f"if ({cond}) {{ detail[0] = {v}; detail[1] = {axis}; detail[2] = {dim}; return {code}; }}"
            )
            terms.append(f"{v} * {strides[axis]}" if strides[axis] != 1 else v)
        bval, bq = self.val[base], self.poison[base]
        local = str(fixed)
        reads_a_buffer = bval.kind == "buffer" or (bq is not None and bq.kind == "buffer")
        if terms and reads_a_buffer:  # (a uniform base reads the same element at every index)
            expr = " + ".join(terms) + (f" + {fixed}" if fixed else "")
            if idx_poison:  # a poisoned index reads element 0: the value is never used
                guard = " || ".join(f"{q.at('0')} != 0" for q in idx_poison)
                expr = f"({guard}) ? 0 : {expr}"
            local = self.scalar(u, expr, "int32_t", "o").expr
        view = Val("buffer", bval.expr, _add_offset(bval.offset, local)) if bval.kind == "buffer" else bval
        qview = None
        if bq is not None:
            qview = Val("buffer", bq.expr, _add_offset(bq.offset, local)) if bq.kind == "buffer" else bq
        if idx_poison:
            first = idx_poison[0].at("0")
            for q in idx_poison[1:]:
                first = f"uopc_first({first}, {q.at('0')})"
            if qview is None:
                qview = Val("uniform", first)
            elif qview.kind != "buffer" or not u.shape:
                qview = Val("uniform", f"uopc_first({first}, {qview.at('0')})")
            else:
                n = prod(u.shape)
                qname = self.alloc(self.name(u, "q"), "int32_t", n)
                self.loop(n, [f"{qname}[i] = uopc_first({first}, {qview.at('i')});"])
                qview = Val("buffer", qname)
        self.finish_view(u, view, qview, out)

    def finish_view(self, u: UOp, view: Val, qview: Val | None, out: str | None) -> None:
        """Record a view as u's value (a scalar load for shape (), a copy into out for the root)."""
        if not u.shape:
            self.val[u] = self.scalar(u, view.at("0"))
            self.poison[u] = None if qview is None else self.scalar(u, qview.at("0"), "int32_t", "q")
            return
        if out is not None:
            view = self.fill(u, view, out)
        elif view.kind == "uniform" and view.expr not in self.names:
            view = Val("uniform", self.scalar(u, view.expr).expr)
        if qview is not None and qview.kind == "uniform" and qview.expr not in self.names:
            qview = Val("uniform", self.scalar(u, qview.expr, "int32_t", "q").expr)
        self.val[u], self.poison[u] = view, qview

    def movement(self, u: UOp, out: str | None) -> None:
        src = u.src[0]
        v, q = self.val[src], self.poison[src]
        if u.op is Ops.RESHAPE or (v.kind != "buffer" and (q is None or q.kind != "buffer")):
            # same flat order (RESHAPE), or every element is the same anyway
            self.finish_view(u, _as_view(v), None if q is None else _as_view(q), out)
            return
        if prod(src.shape) == 1:  # EXPAND of a single element: a uniform
            self.finish_view(
                u, Val("uniform", v.at("0")), None if q is None else Val("uniform", q.at("0")), out
            )
            return
        offset, strides = _view(u)
        n = prod(u.shape)
        name = self.alloc(self.name(u), c_type(u.dtype), n, out)
        qname = self.alloc(self.name(u, "q"), "int32_t", n) if q is not None else None
        self.copy_view(u.shape, offset, strides, [(name, v), *([(qname, q)] if q is not None else [])])
        self.val[u] = Val("buffer", name)
        self.poison[u] = Val("buffer", qname) if qname else None

    def copy_view(self, shape, offset: int, strides: list[int], pairs: list[tuple[str, Val]]) -> None:
        """dst[flat(i...)] = src[offset + sum(i_k * stride_k)] as nested loops."""
        ostrides = _strides(shape)
        depth = 1
        for k, d in enumerate(shape):
            self.emit(
                f"for (int32_t i{k} = 0; i{k} < {d}; i{k}++)" + (" {" if k == len(shape) - 1 else ""), depth
            )
            depth += 1
        dst = " + ".join(f"i{k} * {s}" if s != 1 else f"i{k}" for k, s in enumerate(ostrides))
        src_terms = [f"i{k} * {s}" if s != 1 else f"i{k}" for k, s in enumerate(strides) if s != 0]
        src = " + ".join(([str(offset)] if offset else []) + src_terms) or "0"
        for dname, sval in pairs:
            self.emit(f"{dname}[{dst}] = {sval.at(src) if sval.kind == 'buffer' else sval.expr};", depth)
        self.emit("}", depth - 1)

    def reduce(self, u: UOp, out: str | None) -> None:
        src = u.src[0]
        rop, k = u.arg
        v, q = self.val[src], self.poison[src]
        inner = prod(src.shape[len(src.shape) - k :])
        n_out = prod(u.shape)
        fn = f"uopc_{rop.name.lower()}_{u.dtype.name}"
        ct = c_type(u.dtype)
        if not u.shape:
            name = self.name(u)
            self.emit(f"{ct} {name} = {v.at('0')};")
            if inner > 1:
                self.loop(inner - 1, [f"{name} = {fn}({name}, {v.at('j + 1')});"], "j")
            self.val[u] = Val("scalar", name)
            if q is not None:
                qname = self.name(u, "q")
                self.emit(f"int32_t {qname} = {q.at('0')};")
                if inner > 1:
                    self.loop(inner - 1, [f"{qname} = uopc_first({qname}, {q.at('j + 1')});"], "j")
                self.poison[u] = Val("scalar", qname)
            else:
                self.poison[u] = None
            return
        name = self.alloc(self.name(u), ct, n_out, out)
        qname = self.alloc(self.name(u, "q"), "int32_t", n_out) if q is not None else None
        base = f"o * {inner}"
        body = [f"{ct} acc = {v.at(base)};"]
        if inner > 1:
            body.append(f"for (int32_t j = 1; j < {inner}; j++) acc = {fn}(acc, {v.at(base + ' + j')});")
        body.append(f"{name}[o] = acc;")
        if q is not None:
            body.append(f"int32_t qacc = {q.at(base)};")
            if inner > 1:
                body.append(
                    f"for (int32_t j = 1; j < {inner}; j++) qacc = uopc_first(qacc, {q.at(base + ' + j')});"
                )
            body.append(f"{qname}[o] = qacc;")
        self.loop(n_out, body, "o")
        self.val[u] = Val("buffer", name)
        self.poison[u] = Val("buffer", qname) if qname else None

    def finish(self, root: UOp) -> None:
        """Fail on the root's first poisoned lane; make sure the value is in out."""
        v, q = self.val[root], self.poison[root]
        n = prod(root.shape)
        if q is not None:
            if q.kind == "buffer":
                self.loop(n, [f"if ({q.at('i')}) return {q.at('i')};"])
            else:
                self.emit(f"if ({q.expr}) return {q.expr};")
        if self.wrote_out:
            return
        if not root.shape:
            self.emit(f"out[0] = {v.expr};")
        else:
            self.loop(n, [f"out[i] = {v.at('i')};"])


def _is_elementwise(u: UOp) -> bool:
    return u.op in BINARY or u.op in TRANSCENDENTAL or u.op in (Ops.WHERE, Ops.CAST)


def _add_offset(a: str, b: str) -> str:
    if a == "0":
        return b
    return a if b == "0" else f"{a} + {b}"


def _as_view(v: Val) -> Val:
    """A scalar read as a tensor (RESHAPE of a scalar to (1, 1)) is a uniform."""
    return Val("uniform", v.expr) if v.kind == "scalar" else v


def _view(u: UOp) -> tuple[int, list[int]]:
    """The source offset and per-output-axis source strides of a movement op (not RESHAPE)."""
    ishape = u.src[0].shape
    istrides = _strides(ishape)
    if u.op is Ops.EXPAND:
        return 0, [0 if ishape[k] == 1 and u.shape[k] != 1 else istrides[k] for k in range(len(ishape))]
    if u.op is Ops.PERMUTE:
        return 0, [istrides[a] for a in u.arg]
    # SHRINK
    return sum(b * s for (b, _), s in zip(u.arg, istrides, strict=True)), istrides


def render(program: UOp, symbol: str = "uopc_run") -> Rendered:
    """Render program with its entry point named symbol; also returns what the loader needs."""
    lw = lower(program)
    em = _Emitter(lw)
    for u in lw.nodes:
        em.node(u, u is lw.root and u.op not in (Ops.PARAM, Ops.CONST, Ops.RANGE))
    em.finish(lw.root)
    em.emit("return 0;")

    used = [s for s in lw.inputs if s.kind != "unused"]
    params = []
    for s in used:
        ptr = (
            f"p{s.slot}"
            if s.kind == "param"
            else f"r{[x.node for x in used if x.kind == 'range'].index(s.node)}"
        )
        params.append(f"const {c_type(s.dtype)} *restrict {ptr}")
    rt = c_type(lw.root.dtype)
    params += [f"{rt} *restrict out", "void *restrict work", "int32_t *restrict detail"]
    head = f"static int32_t {symbol}_kernel(" + ", ".join(params) + ")"
    calls = []
    for s in used:
        ptr_t = c_type(s.dtype)
        calls.append(f"(const {ptr_t} *)inputs[{s.slot}] + b * {prod(s.shape)}")
    calls += [f"({rt} *)out + b * {prod(lw.root.shape)}", "work", "st + 1"]
    signature = "int64_t n, const void *const *inputs, void *out, void *work, int32_t *status"
    entry = [
        "/* Runs the program on n input sets laid out one after another; status[4 * b] is the code",
        "   of set b (0: defined), status[4 * b + 1 ..] the details of a bounds error. */",
        f"int32_t {symbol}({signature}) {{",
        "  int32_t failed = 0;",
        "  for (int64_t b = 0; b < n; b++) {",
        "    int32_t *st = status + 4 * b;",
        f"    st[0] = {symbol}_kernel({', '.join(calls)});",
        "    failed += st[0] != 0;",
        "  }",
        "  return failed;",
        "}",
        "",
        "/* Runs the program n times on input set 0, for timing; status[0] is the last run's code. */",
        f"int32_t {symbol}_repeat({signature}) {{",
        "  const int64_t b = 0;",
        "  for (int64_t r = 0; r < n; r++) {",
        '    __asm__ volatile("" ::: "memory"); /* inputs may have changed: no run is hoisted away */',
        "    int32_t *st = status;",
        f"    st[0] = {symbol}_kernel({', '.join(calls)});",
        "  }",
        "  return status[0] != 0;",
        "}",
    ]
    if not used:
        entry.insert(3, "  (void)inputs;")
        entry.insert(entry.index("  const int64_t b = 0;"), "  (void)inputs;")
    unused = "  (void)work; (void)detail; /* not every program needs them */"
    body = "\n".join([f"{head} {{", unused, *em.lines, "}", "", *entry, ""])
    return Rendered(PRELUDE + "\n" + body, body, symbol, lw.inputs, em.work, lw.root.dtype, lw.root.shape, lw)


def render_many(programs: list[UOp]) -> tuple[str, list[Rendered]]:
    """One C source holding every program (entry points uopc_run_0, uopc_run_1, ...), one prelude."""
    parts = [render(p, f"uopc_run_{k}") for k, p in enumerate(programs)]
    return "\n".join([PRELUDE, *(r.body for r in parts)]), parts


def render_c(program: UOp) -> str:
    """The C source compile_c compiles for program (deterministic: the cache key)."""
    return render(program).source
