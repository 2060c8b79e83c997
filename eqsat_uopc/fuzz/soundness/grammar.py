"""Generating the soundness fuzzer's expressions: template `index % len(templates)`, drawn from an rng
seeded by (seed, index, template).

`generate(seed, index, templates)` is deterministic: a case is reproduced from those three alone,
whatever ran before it and whatever template filter was used. An expression is drawn again (up to
50 times) when it is a lone leaf, larger than `MAX_SIZE` nodes, or undefined on every one of
a few edge inputs under "wrap" (a check of a program defined nowhere would prove nothing: any
result refines it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eqsat_uopc.fuzz import generation
from eqsat_uopc.fuzz.soundness import templates as _templates  # noqa: F401  (registers the templates)
from eqsat_uopc.fuzz.soundness.draw import EdgeDraw
from eqsat_uopc.fuzz.soundness.inputs import edge_inputs
from eqsat_uopc.fuzz.soundness.registry import TEMPLATES
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.ir.uop import UOp, UOpError
from eqsat_uopc.semantics.evaluation import evaluate

__all__ = ["MAX_SIZE", "FuzzCase", "families", "generate", "template_names"]

MAX_SIZE = 48  # DAG nodes of a generated expression at most
_PROBES = 12  # edge inputs an expression must be defined on one of


@dataclass(frozen=True)
class FuzzCase(generation.FuzzCase):
    """One generated expression: what made it (seed, index, template) and the program itself."""

    @property
    def family(self) -> str:
        return TEMPLATES[self.template].family


def template_names() -> tuple[str, ...]:
    """Every template, in the order generate() cycles through them."""
    return tuple(TEMPLATES)


def families() -> dict[str, tuple[str, ...]]:
    """Each family and its templates, in template order."""
    out: dict[str, list[str]] = {}
    for t in TEMPLATES.values():
        out.setdefault(t.family, []).append(t.name)
    return {f: tuple(names) for f, names in out.items()}


def _acceptable(program: UOp, key: str) -> bool:
    if program.op in (Ops.CONST, Ops.PARAM, Ops.RANGE) or len(program.toposort()) > MAX_SIZE:
        return False
    return any(
        evaluate(program, a.params, a.ranges, "wrap").defined for a in edge_inputs(program, _PROBES, key)
    )


def generate(seed: int, index: int, templates: Sequence[str] | None = None) -> FuzzCase:
    """Expression `index` of `seed`: template `templates[index % len(templates)]` (default: every
    template, in TEMPLATES order), drawn from an rng seeded by (seed, index, template); a draw the
    IR refuses to type is drawn again (never a constant outside int32: draws wrap)."""
    builders = {name: t.build for name, t in TEMPLATES.items()}

    def acceptable(program: UOp) -> bool:
        return _acceptable(program, f"{seed}:{index}")

    return generation.draw_case(
        "fuzz-soundness", seed, index, templates, builders, EdgeDraw, acceptable, FuzzCase, (UOpError,)
    )
