"""Every examples/*.uir program, run by rewriting, gives the value its `# expect:` line states
(after binding its `# inputs:`), or raises the error its `# expect-error:` line states."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from eqsat_uopc.greedy import run, simplify, to_python
from eqsat_uopc.uir import load_example
from eqsat_uopc.uop import call_params
from eqsat_uopc.values import bind_params

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.uir"))


def same(a, b) -> bool:
    """Values equal bit for bit: NaN is NaN, -0.0 is not 0.0, True is not 1."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


def test_there_are_examples():
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_to_its_expected_value(path):
    ex = load_example(path)
    prog = ex.program if ex.inputs is None else bind_params(ex.program, dict(enumerate(ex.inputs)))
    assert call_params(prog) == [], f"{path.name}: free PARAMs left after binding its inputs"
    if ex.expect_error is not None:
        with pytest.raises(Exception) as e:
            run(prog)
        assert f"{type(e.value).__name__}: {e.value}" == ex.expect_error
        return
    assert ex.expect is not None, f"{path.name} has neither an expect: nor an expect-error: line"
    assert same(to_python(run(prog)), ex.expect)
    assert same(to_python(run(simplify(prog))), ex.expect)  # simplifying first changes nothing
