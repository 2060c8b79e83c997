"""Every examples/*.uir program, run by rewriting, gives the value its `# expect:` line states
(after binding its `# inputs:`), or raises the error its `# expect-error:` line states."""

from __future__ import annotations

from pathlib import Path

import pytest

from eqsat_uopc.greedy import run, simplify, to_python
from eqsat_uopc.ir.examples import load_example
from eqsat_uopc.ir.uop import call_params
from eqsat_uopc.semantics.values import bind_params
from eqsat_uopc.semantics.values import same_value as same

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.uir"))


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
