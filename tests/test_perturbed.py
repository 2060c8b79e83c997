"""The perturbed Caviar corpus: which constants move, how, and that it is deterministic."""

import random

import pytest

from eqsat_uopc import UOp, optimize
from eqsat_uopc.corpus import caviar_dev, perturb_constants, perturbed_caviar, to_sexpr
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.verify import prove_equivalent

x = UOp.param(0)


def _pairs(old, new):
    """The (old, new) constants at the same places of two programs of one tree shape (an
    AssertionError where the shapes differ)."""
    assert (old.op, len(old.src)) == (new.op, len(new.src))
    if old.op is Ops.CONST:
        return [(old.arg, new.arg)]
    assert old.arg == new.arg
    return [p for a, b in zip(old.src, new.src, strict=True) for p in _pairs(a, b)]


def test_only_integer_constants_of_magnitude_two_and_more_move_and_none_to_zero():
    p = ((x * -1 + 5) // 3 < x + 1).where(UOp.const(True), (x % 2).ne(0))
    seen = set()
    for s in range(200):
        pairs = _pairs(p, perturb_constants(p, random.Random(s), share=1.0))
        assert len(dict(pairs)) == len(set(pairs))  # a constant moves to one value everywhere
        for old, new in pairs:
            if old in (-1, 0, 1) or old is True:
                assert new == old and type(new) is type(old)
            else:
                shifted = {old - 2, old - 1, old + 1, old + 2, old * 2}
                assert new in (shifted - {0}) | ({old + 3} if 0 in shifted else set()), (old, new)
                seen.add((old, new))
    # over 200 seeds every move happens: 2 - 2 = 0 becomes 2 + 3 = 5
    assert seen == {(c, m) for c in (5, 3) for m in (c - 2, c - 1, c + 1, c + 2, c * 2)} | {
        (2, 1),
        (2, 3),
        (2, 4),
        (2, 5),
    }
    # at least one constant moves, even at a tiny share; a program with none is itself
    assert perturb_constants(x + 7, random.Random(0), share=1e-9) is x + 8
    assert perturb_constants(x + 1, random.Random(0)) is x + 1
    with pytest.raises(ValueError, match=r"share must be in \(0, 1\], got 0"):
        perturb_constants(p, random.Random(0), share=0)


def test_the_perturbed_corpus_is_the_true_or_false_entries_moved_deterministically():
    first, again, other = perturbed_caviar(1), perturbed_caviar(1), perturbed_caviar(2)
    originals = [e for e in caviar_dev() if e.verdict in ("true_on_all_samples", "false_on_all_samples")]
    assert len(first) == len(originals) == 946
    assert [e.program for e in first] == [e.program for e in again]
    assert sum(a.program is not b.program for a, b in zip(first, other, strict=True)) > 850
    e, o = first[0], originals[0]
    assert (e.id, e.verdict, e.halide, e.caviar_result, e.var_names, e.size) == (
        o.id + "~1",
        "unknown",
        "",
        None,
        o.var_names,
        o.size,
    )
    assert e.source == f"{o.id} with its constants perturbed (seed 1)"
    assert e.program is not o.program and len(_pairs(o.program, e.program)) >= 2


def test_saturation_decides_perturbed_expressions_z3_proves_and_never_wrongly():
    """The first 40 of seed 1 (bench/perturbed.py runs them all): every one z3 proves true or
    false, saturation reduces to that constant."""
    decided = 0
    for e in perturbed_caviar(1)[:40]:
        proved = [
            v
            for v in (True, False)
            if prove_equivalent(e.program, UOp.const(v), "no_overflow", timeout_ms=3000).status == "proved"
        ]
        if len(proved) != 1:
            continue
        result = optimize(e.program, "dag_size", int_semantics="no_overflow").program
        assert result is UOp.const(proved[0]), (e.id, to_sexpr(e.program))
        decided += 1
    assert decided >= 30
