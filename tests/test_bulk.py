"""gc_paused: the collector off inside, on again after (also after an exception), untouched if it was off."""

import gc

import pytest

from eqsat_uopc.bulk import gc_paused


def test_paused_inside_and_restored_after():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: still off, and the inner exit does not turn it on
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError), gc_paused():
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_left_off_when_it_was_off():
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_as_a_decorator_keeps_the_function():
    @gc_paused()
    def collecting(x: int) -> tuple[int, bool]:
        """doc"""
        return x + 1, gc.isenabled()

    assert collecting(1) == (2, False)
    assert collecting.__doc__ == "doc" and collecting.__name__ == "collecting"
    assert gc.isenabled()


def test_optimize_runs_with_the_collector_paused_and_restores_it():
    # optimize pauses it over its pulses and validation (the read-back e-graph is scanned once,
    # when it ends): a cost model sees it off, and it is on again after, also after an error
    from eqsat_uopc import UOp, optimize

    seen = []

    class Watching:
        kind = "dag"

        def node_cost(self, op, arg, dtype, shape):
            seen.append(gc.isenabled())
            return 1

    x, y = UOp.param(0), UOp.param(1)
    # one iteration a pulse: optimize costs each pulse's start program to decide on the next
    result = optimize((x + y) * 3 + (y + x) * 3, Watching(), iter_limit=1, pulses=2)
    assert len(result.info["pulses"]) == 2 and len(seen) > 20
    assert not any(seen) and gc.isenabled()

    class Failing(Watching):
        def node_cost(self, op, arg, dtype, shape):
            raise RuntimeError("no cost")

    with pytest.raises(RuntimeError, match=r"^no cost$"):
        optimize(x + 0, Failing())
    assert gc.isenabled()
