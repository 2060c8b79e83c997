"""fold and symbolic: the constant folder and the chapter's algebra rule set; simplify.

`fold` evaluates a scalar ALU op whose sources are all CONSTs with exec_alu (so it folds exactly
what C computes, and refuses what C leaves undefined). `symbolic` is fold followed by the
chapter's rules, in the chapter's order (order is priority: -0.0 + 0.0 is 0.0 because folding
comes first). Each rule has a name and declares its integer semantics:

- "wrap": sound for every int32 input under wraparound (ring identities mod 2**32, bounds facts
  from the wrap-aware analysis, rules with no arithmetic);
- "no_overflow": sound only when no intermediate int32 result overflows. These are the rules that
  reason about the integer value of a sum or product, as index simplifiers do:
  (a*c + b) // c -> a + b//c, (a*c + b) % c -> b % c, (x + c1) < c2 -> x < c2 - c1,
  x*c1 < c2 -> x < ceil(c2/c1).

Deviations from the chapter's code, on purpose (docs/DESIGN.md, "Known defects"):
- (x % c1) // c2 -> (x // c2) % (c1 // c2) is guarded with c1 > 0 (unsound for c1 < 0);
- (CMPLT|CMPNE)(x, x) -> False keeps x's shape (the chapter's gave a scalar for a shaped x).

    >>> from eqsat_uopc.greedy.symbolic import simplify, simplify_under
    >>> from eqsat_uopc.ir.uop import UOp
    >>> x = UOp.param(0)
    >>> simplify((x * 4 + 8) // 4) is x + 2  # div_sum, a no_overflow rule
    True
    >>> simplify_under((x * 4 + 8) // 4, "wrap") is (x * 4 + 8) // 4  # the wrap-sound rules only
    True
"""

from __future__ import annotations

from collections.abc import Callable

from eqsat_uopc.greedy.matcher import PatternMatcher, Rule
from eqsat_uopc.greedy.rewrite import graph_rewrite
from eqsat_uopc.greedy.upat import UPat
from eqsat_uopc.ir.dtype import dtypes, truncate
from eqsat_uopc.ir.ops import ALU, Ops
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.semantics.alu import exec_alu
from eqsat_uopc.semantics.int_semantics import overflows
from eqsat_uopc.semantics.intervals import bounds, vmax, vmin

__all__ = [
    "SYMBOLIC_NO_OVERFLOW",
    "SYMBOLIC_WRAP",
    "fold",
    "simplify",
    "simplify_under",
    "sound_symbolic",
    "symbolic",
]


# ---------------------------------------------------------------------------
# constant folding


def _fold(x: UOp) -> UOp | None:
    # op(CONST, ...) -> CONST, by the reference semantics; None where C is undefined
    if x.shape != () or not all(s.op is Ops.CONST for s in x.src):
        return None
    r = exec_alu(x.op, x.dtype, [s.arg for s in x.src])
    return None if r is None else UOp.const(r, x.dtype)


fold = PatternMatcher([Rule(UPat(ALU, name="x"), _fold, "fold")])


# ---------------------------------------------------------------------------
# helpers of the div/mod and comparison rules


def _divides(u: UOp, c: int) -> UOp | None:
    """u / c if every term of u is a multiple of c, else None."""
    if u.op is Ops.CONST:
        return u.const_like(u.arg // c) if u.arg % c == 0 else None
    if u.op is Ops.MUL and u.src[1].op is Ops.CONST:
        return u.src[0] * (u.src[1].arg // c) if u.src[1].arg % c == 0 else None
    if u.op is Ops.ADD:
        a = _divides(u.src[0], c)
        b = _divides(u.src[1], c)
        if a is not None and b is not None:
            return a + b
    return None


def _split_terms(u: UOp) -> list[UOp]:
    """The terms of a sum, left to right (iterative: sums can be long chains)."""
    out: list[UOp] = []
    stack = [u]
    while stack:
        t = stack.pop()
        if t.op is Ops.ADD:
            stack.extend(reversed(t.src))
        else:
            out.append(t)
    return out


def _div_sum(x: UOp, c: UOp, mod: bool, refining: bool = False) -> UOp | None:
    """(a*c + b) // c -> a + b//c  and  (a*c + b) % c -> b % c, for c > 0 (if a*c + b does not wrap).

    refining (the no_overflow set): only where the sums it builds fit int32 wherever x does not
    overflow. The rest of the sum is new (-p0 + -2**30 out of (r*4096 + -p0 + -2**30) // 4096): its
    partial sums must fit by the bounds of its terms. A quotient a of a term a*c of x lies in
    [-(2**31 // c), (2**31 - 1) // c] wherever x is defined; the partial sums of the quotients must
    fit by those bounds too. The last sum, quotients + rest // c, is x // c itself: an int32."""
    if c.arg <= 0:
        return None
    quot: list[UOp] = []
    rest: list[UOp] = []
    for t in _split_terms(x):
        q = _divides(t, c.arg)
        if q is None:
            rest.append(t)
        else:
            quot.append(q)
    if not quot:
        return None
    if refining and not _sums_fit([bounds(t) for t in rest]):
        return None
    r = sum(rest[1:], rest[0]) if rest else x.const_like(0)
    if mod:
        return r % c
    if refining:
        low, high = -(2**31 // c.arg), (2**31 - 1) // c.arg
        if not _sums_fit([(max(lo, low), min(hi, high)) for lo, hi in map(bounds, quot)]):
            return None
    return sum(quot[1:], quot[0]) + r // c


def _const_bounds(x: UOp) -> UOp | None:
    # an int/bool expression whose bounds pin it to one value *is* that value
    if x.shape == () and not x.dtype.is_float and x.op in ALU and (b := bounds(x))[0] == b[1]:
        return UOp.const(b[0], x.dtype)
    return None


def _lt_mul(x: UOp, c1: UOp, c2: UOp) -> UOp | None:
    # x*c1 < c2  <=>  x < ceil(c2/c1)  for c1 > 0 (if x*c1 does not wrap)
    return x < -(-c2.arg // c1.arg) if c1.arg > 0 else None


def _i32(v: int) -> int:
    return truncate(dtypes.i32, v)  # int32 arithmetic wraps, so folded constants must too


def _self_compare(x: UOp) -> UOp:
    # Deviation from the chapter: it returned UOp.const(False), a scalar even for a shaped x
    # (a < a on a STACK gave False, not [False, False, False]). The replacement keeps x's shape.
    return UOp.const(False, dtypes.bool, x.shape)


def _mod_div(x: UOp, c1: UOp, c2: UOp) -> UOp | None:
    # Deviation from the chapter: it did not require c1 > 0, and for c1 < 0 the rule is unsound
    # ((a % -8) // 2 at a = 1 is -4, (a // 2) % -4 is 0).
    if c1.arg > 0 and c2.arg > 0 and c1.arg % c2.arg == 0:
        return (x // c2) % (c1.arg // c2.arg)
    return None


def _div_div(x: UOp, c1: UOp, c2: UOp) -> UOp | None:
    if c1.arg > 0 and c2.arg > 0 and c1.arg * c2.arg < 2**31:
        return x // (c1.arg * c2.arg)
    return None


def _lt_add(x: UOp, c1: UOp, c2: UOp) -> UOp | None:
    return x < (c2.arg - c1.arg) if -(2**31) <= c2.arg - c1.arg < 2**31 else None


x, y, z = UPat.var("x"), UPat.var("y"), UPat.var("z")
c1, c2 = UPat.cvar("c1"), UPat.cvar("c2")
ints = (dtypes.i32, dtypes.bool)
xi = UPat.var("x", dtype=dtypes.i32)

W, NO = "wrap", "no_overflow"

symbolic = fold + PatternMatcher(
    [
        # canonical form: constants on the right of commutative ops: c op y -> y op c
        Rule(
            UPat(
                (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPNE),
                src=(UPat(Ops.CONST, name="c"), UPat(name="y")),
                name="u",
            ),
            lambda u, c, y: u.replace(src=(y, c)) if y.op is not Ops.CONST else None,
            "const_to_right",
            W,
        ),
        # identities
        Rule(x + 0, lambda x: x, "add_zero", W),  # x + 0 -> x
        Rule(x + 0.0, lambda x: x, "add_fzero", W),  # x + 0.0 -> x  (not exact for x=-0.0; accepted)
        Rule(x * 1, lambda x: x, "mul_one", W),  # x * 1 -> x
        Rule(x * 1.0, lambda x: x, "mul_fone", W),  # x * 1.0 -> x
        Rule(
            UPat.var("x", dtype=ints) * 0, lambda x: x.const_like(0), "mul_zero", W
        ),  # x * 0 -> 0  (ints only)
        Rule(x // 1, lambda x: x, "div_one", W),  # x // 1 -> x
        Rule(x % 1, lambda x: x.const_like(0), "mod_one", W),  # x % 1 -> 0
        Rule(UPat(Ops.MAX, src=(x, x)), lambda x: x, "max_self", W),  # max(x, x) -> x
        Rule(UPat(Ops.WHERE, src=(UPat(), x, x)), lambda x: x, "where_same", W),  # where(c, x, x) -> x
        # where(True, x, y) -> x, where(False, x, y) -> y
        Rule(
            UPat(Ops.WHERE, src=(UPat.cvar("c"), x, y)), lambda c, x, y: x if c.arg else y, "where_const", W
        ),
        # where(z, where(z, x, _), y) -> where(z, x, y)
        Rule(
            UPat(Ops.WHERE, src=(z, UPat(Ops.WHERE, src=(z, x, UPat())), y)),
            lambda z, x, y: z.where(x, y),
            "where_nested_true",
            W,
        ),
        # where(z, x, where(z, _, y)) -> where(z, x, y)
        Rule(
            UPat(Ops.WHERE, src=(z, x, UPat(Ops.WHERE, src=(z, UPat(), y)))),
            lambda z, x, y: z.where(x, y),
            "where_nested_false",
            W,
        ),
        # cast(x: d, d) -> x
        Rule(
            UPat(Ops.CAST, src=(x,), name="c"), lambda c, x: x if c.dtype == x.dtype else None, "cast_noop", W
        ),
        # (x: bool) != False -> x
        Rule(
            UPat(Ops.CMPNE, src=(UPat.var("x", dtype=dtypes.bool), UPat(Ops.CONST, arg=False))),
            lambda x: x,
            "bool_ne_false",
            W,
        ),
        # x < x -> False, x != x -> False  (of x's shape)
        Rule(UPat((Ops.CMPLT, Ops.CMPNE), src=(xi, xi)), _self_compare, "cmp_self", W),
        Rule(xi + xi, lambda x: x * 2, "add_self", W),  # x + x -> x * 2
        Rule(xi + xi * -1, lambda x: x.const_like(0), "sub_self", W),  # x + x*-1 -> 0
        # reassociate constants outward, so that they can meet and fold (ints only: float + isn't associative)
        # (x + c1) + c2 -> x + (c1 + c2)
        Rule((xi + c1) + c2, lambda x, c1, c2: x + _i32(c1.arg + c2.arg), "add_add_const", W),
        # (x * c1) * c2 -> x * (c1 * c2)
        Rule((xi * c1) * c2, lambda x, c1, c2: x * _i32(c1.arg * c2.arg), "mul_mul_const", W),
        # (x + c1) * c2 -> x*c2 + c1*c2
        Rule((xi + c1) * c2, lambda x, c1, c2: x * c2 + _i32(c1.arg * c2.arg), "add_mul_const", W),
        # distribute constants over sums so div/mod can see every term: (x + y) * c -> x*c + y*c
        Rule(
            UPat(Ops.MUL, src=(UPat(Ops.ADD, src=(xi, UPat.var("y")), name="s"), UPat.cvar("c"))),
            lambda x, y, s, c: x * c + y * c,
            "distribute_const",
            W,
        ),
        # (x + c1) + y -> (x + y) + c1  (y not a constant)
        Rule(
            UPat(Ops.ADD, src=[xi + c1, UPat.var("y")]),
            lambda x, c1, y: (x + y) + c1 if y.op is not Ops.CONST else None,
            "const_outward",
            W,
        ),
        # x*c1 + x*c2 -> x*(c1 + c2)
        Rule(xi * c1 + xi * c2, lambda x, c1, c2: x * _i32(c1.arg + c2.arg), "factor_consts", W),
        # x*c1 + x -> x*(c1 + 1)
        Rule(xi * c1 + xi, lambda x, c1: x * _i32(c1.arg + 1), "factor_const_one", W),
        # division and modulo (floor semantics)
        # (x // c1) // c2 -> x // (c1*c2)  (c1, c2 > 0)
        Rule((xi // c1) // c2, _div_div, "div_div", W),
        # (x % c1) % c2 -> x % c2  (c2 > 0 divides c1)
        Rule(
            (xi % c1) % c2,
            lambda x, c1, c2: x % c2 if c2.arg > 0 and c1.arg % c2.arg == 0 else None,
            "mod_mod",
            W,
        ),
        # (x % c1) // c2 -> (x // c2) % (c1 // c2)  (c1 > 0, c2 > 0 divides c1)
        Rule((xi % c1) // c2, _mod_div, "mod_div", W),
        # (a*c + b) // c -> a + b // c  (c > 0)
        Rule(
            UPat(Ops.FLOORDIV, src=(xi, UPat.cvar("c"))),
            lambda x, c: _div_sum(x, c, mod=False),
            "div_sum",
            NO,
        ),
        # (a*c + b) % c -> b % c  (c > 0)
        Rule(
            UPat(Ops.FLOORMOD, src=(xi, UPat.cvar("c"))), lambda x, c: _div_sum(x, c, mod=True), "mod_sum", NO
        ),
        # x // c -> 0  (0 <= x < c)
        Rule(
            UPat(Ops.FLOORDIV, src=(xi, UPat.cvar("c"))),
            lambda x, c: x.const_like(0) if vmin(x) >= 0 and vmax(x) < c.arg else None,
            "div_small",
            W,
        ),
        # x % c -> x  (0 <= x < c)
        Rule(
            UPat(Ops.FLOORMOD, src=(xi, UPat.cvar("c"))),
            lambda x, c: x if vmin(x) >= 0 and vmax(x) < c.arg else None,
            "mod_small",
            W,
        ),
        # recombine: (x // c1)*c1 + x % c1 -> x
        Rule(UPat(Ops.ADD, src=[(xi // c1) * c1, xi % c1]), lambda x, c1: x, "divmod_recombine", W),
        # ((x // c1)*c1 + y) + x % c1 -> x + y
        Rule(
            UPat(Ops.ADD, src=[(xi // c1) * c1 + y, xi % c1]),
            lambda x, c1, y: x + y,
            "divmod_recombine_sum",
            W,
        ),
        # comparisons
        Rule((xi + c1) < c2, _lt_add, "lt_add_const", NO),  # x + c1 < c2 -> x < c2 - c1
        Rule((xi * c1) < c2, _lt_mul, "lt_mul_const", NO),  # x*c1 < c2 -> x < ceil(c2/c1)  (c1 > 0)
        # bounds say this int expression is a constant: x -> c  (vmin(x) == vmax(x) == c)
        Rule(UPat(ALU, name="x"), _const_bounds, "const_bounds", W),
    ]
)


# ---------------------------------------------------------------------------
# the rules sound under each int semantics


def _fits(v: int) -> bool:
    return -(2**31) <= v < 2**31


def _no_wrap(op: Ops, a: UOp, b: UOp) -> bool:
    """Can a op b (i32 ADD or MUL) be computed without leaving int32, by the operands' bounds?"""
    (alo, ahi), (blo, bhi) = bounds(a), bounds(b)
    ends = [alo + blo, ahi + bhi] if op is Ops.ADD else [p * q for p in (alo, ahi) for q in (blo, bhi)]
    return _fits(min(ends)) and _fits(max(ends))


def _fold_exact(x: UOp) -> UOp | None:
    # op(CONST, ...) -> CONST, but not an i32 ADD, MUL or FLOORDIV whose exact value leaves int32
    constants = x.shape == () and all(s.op is Ops.CONST for s in x.src)
    if constants and x.dtype is dtypes.i32 and overflows(x.op, [s.arg for s in x.src]):
        return None
    return _fold(x)


def _sums_fit(intervals: list[tuple[int, int]]) -> bool:
    """Do the partial sums t1 + t2, (t1 + t2) + t3, ... of terms in these intervals fit int32?"""
    lo, hi = intervals[0] if intervals else (0, 0)
    for tlo, thi in intervals[1:]:
        lo, hi = lo + tlo, hi + thi
        if not (_fits(lo) and _fits(hi)):
            return False
    return True


# Under no_overflow a rewrite must be a refinement: where the input computes no intermediate outside
# int32, the result computes none either. The chapter's rules wrap the constants they compute
# (`(x + c1) + c2 -> x + (c1 + c2)` with c1 + c2 = 2**31 gives x + -2**31, which overflows at x = -1
# where the input does not) and reorder sums (`(x + c1) + y -> (x + y) + c1`: x + y may overflow
# where x + c1 + y does not). These replace them in the no_overflow set: a constant is folded only
# when its exact value is an int32, a new intermediate only built when its bounds fit int32.
_REFINING: dict[str, Callable[..., UOp | None]] = {
    "fold": _fold_exact,
    "add_add_const": lambda x, c1, c2: x + (c1.arg + c2.arg) if _fits(c1.arg + c2.arg) else None,
    "mul_mul_const": lambda x, c1, c2: x * (c1.arg * c2.arg) if _fits(c1.arg * c2.arg) else None,
    "add_mul_const": lambda x, c1, c2: (
        x * c2 + (c1.arg * c2.arg) if _fits(c1.arg * c2.arg) and _no_wrap(Ops.MUL, x, c2) else None
    ),
    "distribute_const": lambda x, y, s, c: (
        x * c + y * c if _no_wrap(Ops.MUL, x, c) and _no_wrap(Ops.MUL, y, c) else None
    ),
    "const_outward": lambda x, c1, y: (
        (x + y) + c1 if y.op is not Ops.CONST and _no_wrap(Ops.ADD, x, y) else None
    ),
    "factor_consts": lambda x, c1, c2: x * (c1.arg + c2.arg) if _fits(c1.arg + c2.arg) else None,
    "factor_const_one": lambda x, c1: x * (c1.arg + 1) if _fits(c1.arg + 1) else None,
    # the rest of the sum is a new sum (-p0 + -2**30 out of (-2**30 + (r*4096 + -p0)) // 4096)
    "div_sum": lambda x, c: _div_sum(x, c, mod=False, refining=True),
    "mod_sum": lambda x, c: _div_sum(x, c, mod=True, refining=True),
}

# the rules sound for every int32 input under wraparound: the chapter's "wrap" rules
SYMBOLIC_WRAP = PatternMatcher([r for r in symbolic.rules if r.int_semantics == "wrap"])
# the rules sound under no_overflow as refinements: every rule, those of _REFINING replaced
SYMBOLIC_NO_OVERFLOW = PatternMatcher(
    [r._replace(fn=_REFINING[r.name]) if r.name in _REFINING else r for r in symbolic.rules]
)


def sound_symbolic(int_semantics: str) -> PatternMatcher:
    """The symbolic rules sound under int_semantics: the "wrap" ones under "wrap"; under
    "no_overflow" all of them, each a refinement (no new overflow: _REFINING). The chapter's set,
    `symbolic`, applies its no_overflow rules unconditionally and wraps the constants it computes."""
    if int_semantics == "no_overflow":
        return SYMBOLIC_NO_OVERFLOW
    if int_semantics != "wrap":
        raise ValueError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    return SYMBOLIC_WRAP


def simplify_under(u: UOp, int_semantics: str) -> UOp:
    """Greedy rewriting of u with the symbolic rules sound under int_semantics: a result that holds
    for every input int_semantics admits, as a refinement (simplify itself is the chapter's set)."""
    return graph_rewrite(u, sound_symbolic(int_semantics))


def simplify(u: UOp) -> UOp:
    """graph_rewrite(u, symbolic): the chapter's greedy simplification, a pure function of u.

    Not memoized across calls: `compare` simplifies each program once, and a memo (as this had,
    of up to 200,000 programs) saved at most 0.5 ms per repeated call on the Caviar corpus while
    keeping every program it saw alive."""
    return graph_rewrite(u, symbolic)
