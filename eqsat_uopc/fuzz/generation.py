"""What both fuzzers' generators share: an rng's choices, random sums, and drawing case `index` of a seed.

The differential fuzzer against tinygrad (eqsat_uopc.tinygrad.fuzz.grammar, `Draw`) and the
soundness fuzzer (eqsat_uopc.fuzz.soundness.draw, `EdgeDraw`) draw different inputs, constants and
divisors, but make their elementary choices, sums and cases alike. Both build on `Choices` and
`draw_case`, which make exactly the rng calls each fuzzer made before they shared them, so a
seed's expressions are the ones it always gave (tests/test_fuzz_generation.py holds digests).

A case is reproduced from (seed, index, template) alone, whatever ran before it: its rng is seeded
by those and the attempt number, never shared between cases.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eqsat_uopc.ir.uop import UOp

__all__ = ["Choices", "FuzzCase", "draw_case"]


@dataclass(frozen=True)
class FuzzCase:
    """One generated expression: what made it (seed, index, template) and the program itself."""

    seed: int
    index: int
    template: str
    program: UOp

    @property
    def key(self) -> str:
        return f"{self.seed}:{self.index}"


class Choices:
    """The elementary random choices of one expression, and the inputs drawn so far."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.inputs: list[UOp] = []

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: Sequence[Any]) -> Any:
        return self.rng.choice(list(options))

    def add(self, a: UOp, b: UOp) -> UOp:
        """a + b, either operand first."""
        return a + b if self.chance(0.5) else b + a

    def total(self, terms: Sequence[UOp]) -> UOp:
        """The sum of terms, in a random order and association."""
        terms = list(terms)
        self.rng.shuffle(terms)
        out = terms[0]
        for t in terms[1:]:
            out = self.add(out, t) if self.chance(0.8) else self.add(t, out)
        return out


def draw_case[Draw: Choices, Case: FuzzCase](
    fuzzer: str,
    seed: int,
    index: int,
    templates: Sequence[str] | None,
    builders: Mapping[str, Callable[[Draw], UOp]],
    new_draw: Callable[[random.Random], Draw],
    acceptable: Callable[[UOp], bool],
    case: Callable[[int, int, str, UOp], Case],
    refused: tuple[type[Exception], ...] = (),
    attempts: int = 50,
) -> Case:
    """Expression `index` of `seed`: template `templates[index % len(templates)]` (default: every
    one of `builders`, in their order), built from a fresh draw of an rng seeded by (fuzzer, seed,
    index, template, attempt) until `acceptable` takes it; a build that raises one of `refused` is
    drawn again too. ValueError for no or unknown templates."""
    names = tuple(templates) if templates is not None else tuple(builders)
    if not names:
        raise ValueError("generate: no templates to draw from")
    unknown = [n for n in names if n not in builders]
    if unknown:
        raise ValueError(f"unknown template {unknown[0]!r} (expected one of {', '.join(builders)})")
    name = names[index % len(names)]
    build = builders[name]
    for attempt in range(attempts):
        rng = random.Random(f"{fuzzer}:{seed}:{index}:{name}:{attempt}")
        try:
            program = build(new_draw(rng))
        except refused:
            continue
        if acceptable(program):
            return case(seed, index, name, program)
    raise RuntimeError(  # pragma: no cover  (every template draws acceptable ones; tests run them all)
        f"template {name!r} drew no acceptable expression in {attempts} attempts"
    )
