"""The fuzzers' shared generation (eqsat_uopc/fuzz/generation.py): a seed's expressions never change
meaning, and draw_case's errors and redraws."""

import hashlib
import random

import pytest

from eqsat_uopc import UOp
from eqsat_uopc.fuzz.generation import Choices, FuzzCase, draw_case
from eqsat_uopc.fuzz.soundness import generate as generate_soundness
from eqsat_uopc.fuzz.soundness import template_names as soundness_templates
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.tinygrad.fuzz import generate as generate_tinygrad
from eqsat_uopc.tinygrad.fuzz import template_names as tinygrad_templates

# sha256 of the first 90 expressions of seed 1 ("key:template:uir" lines), as each fuzzer drew them
# before the two shared Choices and draw_case: a change here changes what every reported seed means.
# A template added since changes which template an index cycles to (a seed of an older run is
# reproduced by naming the templates of its day), never what an older template draws: the digests
# are over the templates of their day, in order.
ADDED_SINCE = {
    "soundness": ("where-period", "cmp-packed", "sum-remainder-through-quotient"),
    "tinygrad": (),
}
DIGESTS = {
    "soundness": "2237c808fa32bb232011d1aace2a3bc64b8fbb023b04eb455bc2388fd35464ae",
    "tinygrad": "d603bf2793e432ce9b3b0336135afa53a507cacbe2bb05ecfc36b82e0fa0989b",
}


@pytest.mark.parametrize("fuzzer", sorted(DIGESTS))
def test_a_seed_draws_the_expressions_it_always_drew(fuzzer):
    generate, names = {
        "soundness": (generate_soundness, soundness_templates()),
        "tinygrad": (generate_tinygrad, tinygrad_templates()),
    }[fuzzer]
    of_their_day = [n for n in names if n not in ADDED_SINCE[fuzzer]]
    h = hashlib.sha256()
    for i in range(90):
        c = generate(1, i, of_their_day)
        h.update(f"{c.key}:{c.template}:{to_uir(c.program)}\n".encode())
    assert h.hexdigest() == DIGESTS[fuzzer]


def _leaf(draw: Choices) -> UOp:
    return UOp.param(0) + draw.int(1, 9)


def test_draw_case_cycles_templates_and_reproduces_a_case_from_its_key():
    builders = {"a": _leaf, "b": lambda d: UOp.param(0) * d.int(2, 9)}
    args = (builders, Choices, lambda p: True, FuzzCase)
    first = draw_case("test", 4, 3, None, *args)
    assert (first.key, first.template) == ("4:3", "b")
    assert draw_case("test", 4, 3, None, *args) == first
    assert draw_case("test", 4, 3, ["a"], *args).template == "a"


def test_draw_case_draws_again_until_acceptable_and_after_a_refused_build():
    seen = []

    def build(draw: Choices) -> UOp:
        seen.append(draw.rng.random())
        if len(seen) == 1:
            raise ArithmeticError("refused")
        return UOp.param(0) + len(seen)

    case = draw_case(
        "test", 0, 0, None, {"t": build}, Choices, lambda p: p.src[1].arg == 3, FuzzCase, (ArithmeticError,)
    )
    assert case.program is UOp.param(0) + 3
    assert len(set(seen)) == 3  # a fresh rng each attempt
    seen.clear()
    with pytest.raises(ArithmeticError, match="refused"):  # not among `refused`: not swallowed
        draw_case("test", 0, 0, None, {"t": build}, Choices, lambda p: True, FuzzCase)


def test_draw_case_says_which_template_is_unknown():
    with pytest.raises(ValueError) as e:
        draw_case("test", 0, 0, ["zz"], {"a": _leaf}, Choices, lambda p: True, FuzzCase)
    assert str(e.value) == "unknown template 'zz' (expected one of a)"
    with pytest.raises(ValueError) as e:
        draw_case("test", 0, 0, [], {"a": _leaf}, Choices, lambda p: True, FuzzCase)
    assert str(e.value) == "generate: no templates to draw from"


def test_total_sums_every_term_once():
    terms = [UOp.param(k) for k in range(4)]
    s = Choices(random.Random(0)).total(terms)
    assert sorted(u.arg.slot for u in s.toposort() if u.op.name == "PARAM") == [0, 1, 2, 3]
    assert sum(1 for u in s.toposort() if u.op.name == "ADD") == 3
