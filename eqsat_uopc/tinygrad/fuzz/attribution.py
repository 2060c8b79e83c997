"""Which of tinygrad's rules simplified an expression: the names its own source gives them.

`tinygrad_rules(program)` runs tinygrad's `simplify` on the program with its symbolic pattern
matcher traced: every rewrite records the pattern that fired, named by its place in tinygrad's
source (`symbolic.py:233`) and the comment tinygrad writes beside or above it
(`(x*c0)+(x*c1) -> x*(c0+c1)`). The division and modulo folds are one pattern whose function,
`fold_divmod_general`, tries a fixed order of folds, each under a comment naming it; the fold that
returned is found from the line it returned on (`divandmod.py: fold_divmod_congruence`).

The fuzzer names its findings this way: a case that saturation leaves larger than tinygrad's
result is grouped by the tinygrad rules its minimized form needs. Rules that only reorder or fold
constants (`NOISE`) are left out of a group's name. The tracing is for reports only; the
comparison itself runs tinygrad untraced.
"""

from __future__ import annotations

import functools
import linecache
import sys
from typing import Any

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.tinygrad.bridge import to_tinygrad

__all__ = ["NOISE", "pattern_name", "significant", "tinygrad_rules"]

# rules that fire on almost everything and say nothing about what a simplifier must know, by their
# place in tinygrad 0.14.0's symbolic.py (the version the bridge pins; a test checks the names)
NOISE = {
    "symbolic.py:111": "x+0 / x^0 / x|0 -> x",  # the clean-up after a fold
    "symbolic.py:113": "x*1 -> x",
    "symbolic.py:115": "x//1 -> x",
    "symbolic.py:148": "unary constant folding",
    "symbolic.py:150": "binary constant folding",
    "symbolic.py:151": "ternary constant folding",
    "symbolic.py:153": "bool MUL is AND",  # the IR's spellings of AND and OR, renamed
    "symbolic.py:154": "bool ADD is OR",
    "symbolic.py:155": "bool MAX is OR",
    "symbolic.py:217": "commutative flipping",
    "symbolic.py:281": "move add consts to the end",
    "symbolic.py:282": "move mul consts to the end",
}


def _comment_block(filename: str, line: int) -> list[str]:
    """The lines of the comment block that ends just above `line`, top to bottom ([] if none)."""
    k, block = line - 1, []
    while k > 0 and (text := linecache.getline(filename, k).strip()).startswith("#"):
        block.insert(0, text.lstrip("#").strip())
        k -= 1
    return block


def _comment_block_head(filename: str, line: int) -> str:
    block = _comment_block(filename, line)
    return block[0] if block else ""


@functools.cache
def pattern_name(filename: str, line: int) -> str:
    """A pattern's name: the comment on its line, else the comment block right above it, else its
    code (of several patterns under one comment block, only the first is named by the comment)."""
    text = linecache.getline(filename, line)
    if "#" in text:
        return text.split("#", 1)[1].strip()
    if block := _comment_block(filename, line):
        # its first line that says what the rule does: not a NOTE, a TODO or commented-out code, nor
        # a "** section **" title (the last title when nothing else is left)
        said = [b for b in block if not b.startswith(("**", "NOTE", "TODO", "("))]
        titles = [b for b in block if b.startswith("**")]
        return said[0] if said else titles[-1] if titles else block[0]
    code = text.strip().removeprefix("(").removesuffix(",").removesuffix(")")
    return code if len(code) <= 90 else code[:87] + "..."


@functools.cache
def _fold_name(filename: str, line: int) -> str:
    """The fold of fold_divmod_general that returned on `line`: its comment's first word."""
    head = _comment_block_head(filename, line)
    k = line
    while not head and k > 1:  # a return inside a fold's block: walk up to the block's comment
        k -= 1
        if linecache.getline(filename, k).strip().startswith("#"):
            head = _comment_block_head(filename, k + 1)
    return head.split(":")[0].strip() or f"line {line}"


def _short(filename: str) -> str:
    return filename.rsplit("/", 1)[-1]


def _fold_that_returned(fold: Any, d: Any) -> str | None:
    """Run fold_divmod_general's body (uncached) on d and name the fold it returned from."""
    code = fold.__code__
    outer: list[Any] = []
    line: list[int] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is not code:
            return None
        if not outer:
            outer.append(frame)
        if event == "return" and frame is outer[0] and arg is not None:
            line.append(frame.f_lineno)
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        fold(d)
    finally:
        sys.settrace(previous)
    return _fold_name(code.co_filename, line[0]) if line else None


def tinygrad_rules(program: UOp) -> tuple[str, ...]:
    """The tinygrad rules that fire while tinygrad simplifies program, in firing order, each once.

    The trace replaces the pattern matcher's `rewrite` on the matcher object for the duration of
    the call (never a module global: tinygrad compiles its patterns against a copy of their
    globals).
    """
    import tinygrad.uop.divandmod as divandmod
    import tinygrad.uop.symbolic as symbolic_module

    matcher = symbolic_module.symbolic
    fold = divandmod.fold_divmod_general.__wrapped__  # the uncached body
    fired: dict[str, None] = {}

    def traced_rewrite(uop: Any, ctx: Any = None) -> Any:
        for pat, match, early_reject in matcher.pdict.get(uop.op, []):
            if not early_reject.issubset({u.op for u in uop.src}):
                continue
            ret = match(uop, ctx)
            if ret is None or ret is uop:
                continue
            filename, line = pat.location
            if "fold_divmod_general" in linecache.getline(filename, line):
                name = _fold_that_returned(fold, uop)
                fired.setdefault(f"divandmod.py: {name or 'fold_divmod_general'}")
            else:
                fired.setdefault(f"{_short(filename)}:{line} {pattern_name(filename, line)}")
            return ret
        return None

    t = to_tinygrad(program)
    matcher.rewrite = traced_rewrite
    try:
        t.simplify()
    finally:
        del matcher.rewrite
    return tuple(fired)


def significant(rules: tuple[str, ...]) -> tuple[str, ...]:
    """rules without the NOISE ones."""
    return tuple(r for r in rules if r.split(" ", 1)[0] not in NOISE)
