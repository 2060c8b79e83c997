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
