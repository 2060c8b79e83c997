"""The soundness fuzzer's templates: named families of expressions, each aimed at rewrites of one kind.

A template is registered with `@template(name, family, targets)`; `family` groups templates in the
report by what they exercise: the index algebra's folds (`linear/divmod`, `linear/compare`,
`linear/sums`, `linear/conditions`), the piecewise comparisons (`piecewise`), the egglog rule
families (`egglog/divmod`, ...: rules/*.egg) and the broad grammar (`generic`). The templates live in
templates/ (one module per family group); grammar.py draws from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from eqsat_uopc.fuzz.soundness.draw import EdgeDraw
from eqsat_uopc.ir.uop import UOp

__all__ = ["TEMPLATES", "Template", "template"]


@dataclass(frozen=True)
class Template:
    """A named family of expressions: what it is aimed at, and how one is drawn."""

    name: str
    family: str
    targets: str  # the rewrites it exercises, in words
    build: Callable[[EdgeDraw], UOp]


TEMPLATES: dict[str, Template] = {}


def template(
    name: str, family: str, targets: str
) -> Callable[[Callable[[EdgeDraw], UOp]], Callable[[EdgeDraw], UOp]]:
    """Register the decorated builder as a template (a name registered twice is refused)."""

    def register(build: Callable[[EdgeDraw], UOp]) -> Callable[[EdgeDraw], UOp]:
        if name in TEMPLATES:
            raise ValueError(f"template {name!r} is registered twice")
        TEMPLATES[name] = Template(name, family, targets, build)
        return build

    return register
