"""Sums spelled for a fused multiply-add: one kernel's index expressions re-associated for MULACC.

A renderer with a fused multiply-add (tinygrad's PYTHON device: `Ops.MULACC` in its
`code_for_op`) computes `a*b + c` in one op: codegen's late rewrites fuse every product that an
addition reads directly. How many products fuse depends on the association of a sum, which the
cost model of extraction does not see (it prices each node: a MUL and an ADD, whatever the shape):
`(x*6 + y*30) + z` is a MUL and a MULACC and an ADD, 3 ops, and `(z + y*30) + x*6` is two MULACCs,
2 ops, the same e-class. `fused_sums` re-associates each sum of the kernel's expressions so that
the terms that are not products come first and every product is then added to the partial sum:
with n terms, at least one of them not a product (a constant counts), the sum is n - 1 ops, the
fewest any association of those terms can take (each of the n - 1 additions fuses at most one
product). A sum's terms are read through the additions that only it uses; an addition another
expression also uses is a term (it is computed once, shared, whatever this sum does).

The same holds of a comparison: `0 < (y*3 + x)*10` makes tinygrad compute the product `(y*3 + x)*10`
on its own, which the sum that reads it had fused, where `0 < y*3 + x` reads the multiplicand that is
computed anyway; the cost model, pricing each node once, sees the two as one price. So
`unscaled_comparisons` writes each comparison of a constant with a product by a constant c >= 2 as
the index algebra's compare fold does (`fold_compare`: the gcd of the difference divided out), when
that reads the multiplicand instead.

Sums that differ only in their constants (`L - 22`, ..., `L - 12`, nothing computing L itself) cost
an addition each and one more for L, which its products cannot fuse into once it is shared: written
as offsets of the one with the least constant (`(L - 22) + 1`, `linear.shared_offsets`), L is read by
that one sum only and fuses with its constant. Whether that pays depends on the rest of the kernel,
so `offset_sums` is one spelling the simplifier counts against the other. So is `common_part_sums`:
two sums over their common part (`15*b + 5*c + a` and `66*b + 22*c + 2*a` as `F*5 + a` and
`F*22 + 2*a`, `F = 3*b + c`, `linear.shared_subforms`), which pays where F is computed once for both.

Re-association changes no value under wrap (int32 addition is associative); under no_overflow a
partial sum of the new order could overflow where the old one's did not, so a sum is re-spelled only
when the interval analysis bounds every new partial sum within int32, and the simplifier proves
every changed expression under both semantics anyway (simplifier.py, step 5).

    >>> from eqsat_uopc.ir.uop import UOp
    >>> from eqsat_uopc.saturation.explain.chain import infix
    >>> x, y, z = (UOp.param(k, bounds=(0, 9)) for k in range(3))
    >>> [infix(p) for p in fused_sums([(x * 6 + y * 30) + z, y * 30 + 5])]
    ['p2 + p0 * 6 + p1 * 30', 'p1 * 30 + 5']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from eqsat_uopc.ir.dtype import I32_MAX, I32_MIN, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.linear import LinearForm, fold_compare, shared_offsets, shared_subforms
from eqsat_uopc.semantics.intervals import bounds

__all__ = ["common_part_sums", "fused_sums", "offset_sums", "unscaled_comparisons"]


def fused_sums(programs: Sequence[UOp]) -> list[UOp]:
    """The programs with every i32 sum re-associated for a fused multiply-add (module docstring);
    a program with nothing to re-associate is returned as it is (the same UOp)."""
    nodes = list(dict.fromkeys(n for p in programs for n in p.toposort()))
    users: Counter[UOp] = Counter(s for n in nodes for s in dict.fromkeys(n.src))
    roots = set(programs)
    read_by_sums = {s for n in nodes if _is_sum(n) for s in n.src}

    def internal(n: UOp) -> bool:  # an addition that only one addition reads: a part of that sum
        return _is_sum(n) and users[n] == 1 and n not in roots and n in read_by_sums

    new: dict[UOp, UOp] = {}
    for n in nodes:
        src = tuple(new.get(s, s) for s in n.src)
        new[n] = n if src == n.src else n.replace(src=src)  # as it was, over the re-spelled terms
        if _is_sum(n) and not internal(n):
            if _unfused(n, internal) <= 0:
                continue  # every product of the sum fuses already, or all but one, which none can
            terms = [new.get(t, t) for t in _terms(n, internal)]
            ordered = [t for t in terms if not _is_product(t)] + [t for t in terms if _is_product(t)]
            spelled = _chain(ordered)
            if spelled is not None:
                new[n] = spelled
    return [new.get(p, p) for p in programs]


def _is_sum(u: UOp | None) -> bool:
    return u is not None and u.op is Ops.ADD and u.dtype is dtypes.i32 and u.shape == ()


def _is_product(u: UOp) -> bool:
    return u.op is Ops.MUL


def _terms(n: UOp, internal: Callable[[UOp], bool]) -> list[UOp]:
    """The terms of the sum n, in order, through the additions `internal` says are its own."""
    out: list[UOp] = []
    stack = [n]
    while stack:
        u = stack.pop()
        if u is n or (_is_sum(u) and internal(u)):
            stack.extend(reversed(u.src))
        else:
            out.append(u)
    return out


def _unfused(n: UOp, internal: Callable[[UOp], bool]) -> int:
    """The products of the sum n that no addition of its spelling can fuse, less those the chain
    cannot fuse either: an addition of two products fuses one; the chain leaves one product
    unfused when every term is one."""
    adds = [n]
    unfused = 0
    while adds:
        u = adds.pop()
        unfused += all(_is_product(s) for s in u.src)
        adds.extend(s for s in u.src if _is_sum(s) and internal(s))
    terms = _terms(n, internal)
    return unfused - all(_is_product(t) for t in terms)


def _chain(terms: list[UOp]) -> UOp | None:
    """((t0 + t1) + t2) + ...: None when a partial sum may leave int32 (the interval analysis)."""
    acc = terms[0]
    for t in terms[1:]:
        acc = acc + t
        lo, hi = bounds(acc)
        if lo <= I32_MIN or hi >= I32_MAX:
            return None
    return acc


def unscaled_comparisons(programs: Sequence[UOp]) -> list[UOp]:
    """The programs with each comparison of a constant and a product `m*c` (c >= 2 a constant) written
    by the compare fold when the result reads m itself (module docstring); the same UOp when none is."""
    mapping: dict[UOp, UOp] = {}
    for n in dict.fromkeys(n for p in programs for n in p.toposort()):
        if n.op not in (Ops.CMPLT, Ops.CMPNE) or n.shape or n.src[0].dtype is not dtypes.i32:
            continue
        products = [s for s in n.src if s.op is Ops.MUL and s.src[1].op is Ops.CONST and s.src[1].arg >= 2]
        if len(products) != 1 or not any(s.op is Ops.CONST for s in n.src):
            continue
        folded = fold_compare(n)
        multiplicand = products[0].src[0]
        if folded is not None and folded.op is n.op and multiplicand in folded.src:
            mapping[n] = folded
    if not mapping:
        return list(programs)
    return [p.substitute(mapping) for p in programs]


def offset_sums(programs: Sequence[UOp]) -> list[UOp]:
    """The programs with every sum that another sum of theirs differs from only in its constant
    written as the one with the least constant plus the difference (linear.shared_offsets; module
    docstring); the same UOps when there is none."""
    nodes = dict.fromkeys(n for p in programs for n in p.toposort())
    # a sum inside the base (L itself, under L - 22) stays: the base is written over it
    mapping = {t: b for t, b in shared_offsets(nodes) if t not in b.src[0].toposort()}
    if not mapping:
        return list(programs)
    return [p.substitute(mapping) for p in programs]


def common_part_sums(programs: Sequence[UOp]) -> list[UOp]:
    """The programs with every sum that has a common part with another sum of theirs written over
    it (linear.shared_subforms; module docstring), the outermost such sum of each expression; the
    same UOps when there is none."""
    nodes = dict.fromkeys(n for p in programs for n in p.toposort())
    spelled = dict(shared_subforms(nodes))

    def offset_of_another(t: UOp) -> bool:  # `T + 2` keeps reading T, written over the part itself
        form = LinearForm.of(t).without_const()
        return any(
            n is not t and n in spelled and LinearForm.of(n).without_const() == form for n in t.toposort()
        )

    mapping = {t: w for t, w in spelled.items() if not offset_of_another(t)}
    if not mapping:
        return list(programs)
    return [p.substitute(mapping) for p in programs]
