"""Running a fuzzer's cases in worker processes, and the progress bar it draws on a terminal.

`run_all(fn, items, workers, tick)` is `[fn(x) for x in items]`, in `workers` processes when there
is more than one (or when a memory limit is set): results come back in item order whatever finishes
first, so a campaign's report is the same for any number of workers. Workers are spawned, not forked:
egglog and z3 start threads, and a fork of a process with threads is unsafe. `fn` and the items must
pickle (module-level functions, frozen dataclasses, UOps).

A case can make the code under test allocate without end (an e-graph that grows past any budget in
memory): with `memory_mb`, each worker's address space is limited to that many MB, and a worker that
dies (the allocation fails and the process aborts) takes only its own item down. The items that were
in flight when a worker died are run again one at a time, each in a fresh worker; the one that kills
its worker again is *lost*: its result is `lost(item)`, and the run goes on.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["Phase", "run_all", "terminal_progress"]

# a campaign's progress callback: phase(name, total) returns the function to call once per finished item
Phase = Callable[[str, int], Callable[[], None]]
_MISSING = object()


def _limit_memory(memory_mb: int | None) -> None:
    """A worker's initializer: its address space limited to memory_mb MB."""
    if memory_mb:
        import resource

        limit = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _pool(workers: int, memory_mb: int | None) -> ProcessPoolExecutor:
    ctx = mp.get_context("spawn")  # fork after egglog/z3 have started threads is unsafe
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_limit_memory, initargs=(memory_mb,)
    )


def _run_pool(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    todo: list[int],
    results: list[Any],
    workers: int,
    memory_mb: int | None,
    tick: Callable[[], None],
) -> list[int]:
    """Run items[i] for i in todo, `workers` at a time; the indices left undone when a worker died
    (the ones in flight first), or [] when all are done."""
    pool = _pool(workers, memory_mb)
    try:
        queue = list(todo)
        running: dict[Any, int] = {}
        while queue or running:
            while queue and len(running) < workers:  # one item per worker: a death names few suspects
                i = queue.pop(0)
                running[pool.submit(fn, items[i])] = i
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                i = running.pop(f)
                try:
                    results[i] = f.result()
                except BrokenProcessPool:
                    return [i, *sorted(running.values()), *queue]  # the ones in flight first
                tick()
        return []
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_all(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    workers: int,
    tick: Callable[[], None],
    *,
    memory_mb: int | None = None,
    lost: Callable[[Any], Any] | None = None,
) -> list[Any]:
    """fn over items, results in item order, `tick()` after each; in worker processes when workers > 1
    or memory_mb is set (see the module docstring: `lost(item)` is the result of an item whose worker
    died twice; without `lost`, a dead worker's BrokenProcessPool propagates)."""
    if (workers <= 1 and not memory_mb) or not items:
        out = []
        for x in items:
            out.append(fn(x))
            tick()
        return out
    results: list[Any] = [_MISSING] * len(items)
    todo = list(range(len(items)))
    while todo:
        left = _run_pool(fn, items, todo, results, max(1, workers), memory_mb, tick)
        if not left:
            break
        if lost is None:
            raise BrokenProcessPool(f"a worker process died running item {left[0]} of {len(items)}")
        suspects, todo = left[: max(1, workers)], left[max(1, workers) :]
        for i in suspects:  # each alone: the one that dies again is lost
            if _run_pool(fn, items, [i], results, 1, memory_mb, tick):
                results[i] = lost(items[i])
                tick()
    return results


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
