"""Running a fuzzer's cases in worker processes, and the progress bar it draws on a terminal.

`run_all(fn, items, workers, tick)` is `[fn(x) for x in items]`, in `workers` processes when there
is more than one: results come back in item order whatever finishes first, so a campaign's report
is the same for any number of workers. Workers are spawned, not forked: egglog and z3 start threads,
and a fork of a process with threads is unsafe. `fn` and the items must pickle (module-level
functions, frozen dataclasses, UOps).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["Phase", "run_all", "terminal_progress"]

# a campaign's progress callback: phase(name, total) returns the function to call once per finished item
Phase = Callable[[str, int], Callable[[], None]]


def run_all(
    fn: Callable[[Any], Any], items: Sequence[Any], workers: int, tick: Callable[[], None]
) -> list[Any]:
    """fn over items, in worker processes when workers > 1; results in item order, `tick()` after each."""
    if workers <= 1 or len(items) <= 1:
        out = []
        for x in items:
            out.append(fn(x))
            tick()
        return out
    ctx = mp.get_context("spawn")  # fork after egglog/z3 have started threads is unsafe
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        out = []
        for r in pool.map(fn, items, chunksize=4):
            out.append(r)
            tick()
        return out


def terminal_progress() -> tuple[Any, Phase | None]:  # pragma: no cover  (drawn only on a terminal)
    """A rich progress bar on stderr and the phase callback that feeds it, or (None, None) when stderr
    is not a terminal. Use the bar as a context manager around the campaign."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        return None, None
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )

    def phase(name: str, total: int) -> Callable[[], None]:
        tid = bar.add_task(name, total=total)
        return lambda: bar.advance(tid)

    return bar, phase
