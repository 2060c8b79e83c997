"""Corpus sweeps that survive their worst program: isolated workers, limits, incremental results.

One exploding e-graph must not take a sweep down. `sweep` runs a job over many tasks in worker
processes of its own pool: each worker has an address-space limit (RLIMIT_AS), each task a wall
time limit enforced from outside (the worker is killed and replaced), and a worker that dies is
recorded as such for its task while the sweep goes on. The same sweep runs on a Dask cluster
(`scheduler=ADDRESS`), where the cluster's own worker memory limits apply and the job's own time
limit bounds the work.

Results are rows (dicts) written to a JSON-lines file as they finish, so an interrupted sweep
resumes where it stopped: tasks whose key is already in the file are not run again. Rows carry
`key`, `status` ("ok" | "timeout" | "crashed" | "error"), `error` and `seconds`, plus the job's
own fields. Rows come back in completion order; the file is the record.

A sweep given `settings` (what changes a row: the config, the job's options) records them in the
file's first line, `{"settings": {...}}`, and resumes only a file whose rows were computed under
the same settings: a file of other settings, or of none recorded, is refused with
SweepSettingsError naming the settings that differ, before any work, so that one file never mixes
rows of different settings. `separate_out` names the file such a sweep can write instead, by a
digest of its settings.

Progress: a bar on a terminal; with `progress="lines"`, one line on stderr every few seconds (for a
log or a pipe, where a bar is noise and silence looks like a hang).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import multiprocessing as mp
import os
import resource
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from eqsat_uopc.allocator import children_on_jemalloc
from eqsat_uopc.errors import UserError

__all__ = [
    "SchedulerError",
    "SweepError",
    "SweepSettingsError",
    "SweepTask",
    "completed_keys",
    "read_rows",
    "recorded_settings",
    "separate_out",
    "settings_differences",
    "sweep",
]


class SweepError(UserError, ValueError):
    """A sweep that cannot start: repeated task keys, a limit that is not positive."""


class SweepSettingsError(SweepError):
    """A results file to resume whose rows were computed under other settings (or under settings
    it does not record): resuming it would mix rows of different settings."""


class SchedulerError(UserError, ConnectionError):
    """The Dask scheduler named by `scheduler=` cannot be reached."""


Job = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class SweepTask:
    key: str
    payload: dict[str, Any]


def _records(out: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a results file, line by line (a torn line from a kill is skipped)."""
    if not out.exists():
        return
    for line in out.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield record


def read_rows(out: Path | str) -> list[dict[str, Any]]:
    """The rows of a results file, in file order: its settings line and torn lines left out."""
    return [r for r in _records(Path(out)) if "key" in r]


def completed_keys(out: Path) -> set[str]:
    """Keys already recorded in a results file (a torn last line from a kill is ignored)."""
    return {r["key"] for r in read_rows(out)}


_NOT_RECORDED = "not recorded"


def recorded_settings(out: Path | str) -> dict[str, Any] | None:
    """The settings a results file records (its first line), None for a missing or empty file, and
    {} for rows without a settings line (written before sweeps recorded them)."""
    records = list(_records(Path(out)))
    if not records:
        return None
    first = records[0]
    return first["settings"] if "settings" in first and "key" not in first else {}


def _flat(settings: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in settings.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def settings_differences(out: Path | str, settings: Mapping[str, Any]) -> list[str]:
    """What differs between the settings of a results file's rows and `settings`, one item per
    setting (`int_semantics: no_overflow in the file, wrap now`); [] when the file can be resumed
    (same settings, or no rows yet)."""
    recorded = recorded_settings(out)
    if recorded is None or (recorded == {} and not read_rows(out)):
        return []
    if recorded == {}:
        return ["the file records no settings (written before sweeps recorded them)"]
    now = json.loads(json.dumps(settings))  # tuples as lists, as the file holds them
    was, new = _flat(recorded), _flat(now)
    return [
        f"{k}: {_shown(was, k)} in the file, {_shown(new, k)} now"
        for k in sorted(set(was) | set(new))
        if was.get(k, _NOT_RECORDED) != new.get(k, _NOT_RECORDED)
    ]


def _shown(settings: Mapping[str, Any], key: str) -> str:
    return json.dumps(settings[key]) if key in settings else _NOT_RECORDED


def separate_out(out: Path | str, settings: Mapping[str, Any]) -> Path:
    """The results file of these settings beside `out`: `rows.jsonl` -> `rows.<digest>.jsonl`, the
    digest that of the settings (so that a rerun with the same settings resumes it)."""
    out = Path(out)
    text = json.dumps(json.loads(json.dumps(settings)), sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return out.with_name(f"{out.stem}.{digest}{out.suffix}")


def _run_job(job: Job, task: SweepTask) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        row = {"key": task.key, "status": "ok", "error": None, **job(task.payload)}
    except MemoryError:
        row = {"key": task.key, "status": "crashed", "error": "MemoryError (worker memory limit)"}
    except Exception as e:  # a job's failure is a row, not the end of the sweep
        row = {"key": task.key, "status": "error", "error": f"{type(e).__name__}: {e}"}
    row["seconds"] = round(time.perf_counter() - start, 6)
    return row


def _worker_main(conn: Connection, job: Job, memory_limit_mb: int | None) -> None:
    if memory_limit_mb is not None:
        limit = memory_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(_READY)  # imports are done: task time limits count from here
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            conn.send(_run_job(job, task))
        except Exception:  # an unpicklable job result: report it, keep serving
            conn.send({"key": task.key, "status": "error", "error": traceback.format_exc(limit=1)})


_READY = "ready"


class _Worker:
    """One worker process; its task's clock starts when it is ready (a fresh process imports first)."""

    def __init__(self, ctx: Any, job: Job, memory_limit_mb: int | None) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, job, memory_limit_mb), daemon=True)
        with children_on_jemalloc():  # egglog runs much faster on it (eqsat_uopc.allocator)
            self.proc.start()
        child.close()
        self.task: SweepTask | None = None
        self.ready = False
        self.started = 0.0

    def give(self, task: SweepTask) -> None:
        self.task, self.started = task, time.monotonic()
        self.conn.send(task)

    def timed_out(self, time_limit: float | None) -> bool:
        return self.ready and time_limit is not None and time.monotonic() - self.started >= time_limit

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()


def _local(
    tasks: list[SweepTask], job: Job, workers: int, memory_limit_mb: int | None, time_limit: float | None
) -> Iterator[dict[str, Any]]:
    ctx = mp.get_context("spawn")  # fork after egglog/z3 have started threads is unsafe
    pending = list(reversed(tasks))
    pool = [_Worker(ctx, job, memory_limit_mb) for _ in range(min(workers, len(tasks)))]
    try:
        for w in pool:
            if pending:
                w.give(pending.pop())
        while any(w.task is not None for w in pool):
            busy = [w for w in pool if w.task is not None]
            timeout = None
            if time_limit is not None and any(w.ready for w in busy):
                now = time.monotonic()
                timeout = max(0.0, min(w.started + time_limit - now for w in busy if w.ready))
            ready = wait([w.conn for w in busy], timeout=timeout)
            for i, w in enumerate(pool):
                if w.task is None:
                    continue
                row = None
                if w.conn in ready:
                    try:
                        row = w.conn.recv()
                        if row == _READY:
                            w.ready, w.started = True, time.monotonic()
                            continue
                    except (EOFError, OSError):
                        w.proc.join()
                        if not w.ready:  # died while importing the job: every task would die the same way
                            raise RuntimeError(
                                f"a sweep worker exited with code {w.proc.exitcode} before it was ready: the "
                                "job must be importable in a fresh process (a module-level function; a "
                                "script needs an `if __name__ == '__main__':` guard)"
                            ) from None
                        row = {
                            "key": w.task.key,
                            "status": "crashed",
                            "error": f"worker died (exit code {w.proc.exitcode}; memory limit?)",
                        }
                elif w.timed_out(time_limit):
                    row = {"key": w.task.key, "status": "timeout", "error": f"over {time_limit:g} s"}
                if row is None:
                    continue
                row.setdefault("seconds", round(time.monotonic() - w.started, 6))
                if row["status"] in ("timeout", "crashed"):  # the process is suspect: replace it
                    w.kill()
                    pool[i] = w = _Worker(ctx, job, memory_limit_mb)
                w.task = None
                yield row
                if pending:
                    w.give(pending.pop())
    finally:
        for w in pool:
            if w.proc.is_alive():
                with contextlib.suppress(OSError):
                    w.conn.send(None)
                w.proc.join(timeout=2)
                if w.proc.is_alive():
                    w.kill()


def _dask(
    tasks: list[SweepTask], job: Job, scheduler: str, connect_timeout: float
) -> Iterator[dict[str, Any]]:
    from distributed import Client, as_completed

    try:
        client = Client(scheduler, timeout=connect_timeout)
    except OSError as e:  # no scheduler there: say so in one line, before any work
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    with client:
        futures = {client.submit(_run_job, job, t, key=f"sweep-{t.key}", pure=False): t for t in tasks}
        for fut in as_completed(futures):
            task = futures[fut]
            try:
                yield fut.result()
            except Exception as e:  # a killed worker (memory) or a lost task
                yield {
                    "key": task.key,
                    "status": "crashed",
                    "error": f"{type(e).__name__}: {e}",
                    "seconds": None,
                }


def sweep(
    tasks: Iterable[SweepTask],
    job: Job,
    *,
    out: Path | str | None = None,
    workers: int | None = None,
    memory_limit_mb: int | None = 4096,
    time_limit: float | None = 60.0,
    scheduler: str | None = None,
    connect_timeout: float = 10.0,
    progress: bool | str | None = None,
    progress_label: str = "sweep",
    progress_every: float = 5.0,
    settings: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run job(task.payload) for every task not already in `out`; the rows of this run.

    settings (JSON-able: what changes a row) are recorded in `out`, and a file of rows computed
    under other settings is refused (SweepSettingsError, before any task runs; see the module
    docstring).

    job must be a picklable top-level function. workers=0 runs in this process (no isolation,
    for debugging); the default is one worker per core. progress: None a bar on a terminal and
    nothing otherwise, True a bar, False nothing, "lines" a line on stderr every `progress_every`
    seconds (`progress_label: 12 of 40 done, ...`).
    """
    tasks = list(tasks)
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise SweepError(f"sweep task keys must be unique, {dup!r} repeats")
    if time_limit is not None and not time_limit > 0:
        raise SweepError(f"time_limit must be positive, got {time_limit}")
    if memory_limit_mb is not None and memory_limit_mb <= 0:
        raise SweepError(f"memory_limit_mb must be positive, got {memory_limit_mb}")
    if progress not in (None, True, False, "lines"):
        raise SweepError(f"progress must be None, True, False or 'lines', got {progress!r}")
    if workers is not None and workers < 0:
        raise SweepError(f"workers must be 0 (in this process) or more, got {workers}")
    out_path = Path(out) if out is not None else None
    if out_path is not None and settings is not None and (diff := settings_differences(out_path, settings)):
        raise SweepSettingsError(
            f"{out_path} holds rows computed under other settings ({'; '.join(diff)}): "
            "resuming it would mix them"
        )
    if out_path is not None:
        done = completed_keys(out_path)
        tasks = [t for t in tasks if t.key not in done]
    if workers is None:
        workers = os.cpu_count() or 1
    if scheduler is not None:
        rows: Iterator[dict[str, Any]] = _dask(tasks, job, scheduler, connect_timeout)
    elif workers == 0:
        rows = (_run_job(job, t) for t in tasks)
    else:
        rows = _local(tasks, job, workers, memory_limit_mb, time_limit)
    show: bool | str = sys.stderr.isatty() if progress is None else progress
    collected: list[dict[str, Any]] = []
    sink = out_path.open("a") if out_path is not None else None
    if sink is not None and out_path.stat().st_size and not out_path.read_bytes().endswith(b"\n"):
        sink.write("\n")  # end a line torn by an interrupted run, so the next row stands alone
    if sink is not None and settings is not None and recorded_settings(out_path) is None:
        sink.write(json.dumps({"settings": settings}, sort_keys=True) + "\n")  # the file's first line
        sink.flush()
    try:
        for row in _with_progress(rows, len(tasks), show, progress_label, progress_every):
            collected.append(row)
            if sink is not None:
                sink.write(json.dumps(row, sort_keys=True) + "\n")
                sink.flush()
    finally:
        if sink is not None:
            sink.close()
    return collected


def _with_progress(
    rows: Iterator[dict[str, Any]], total: int, show: bool | str, label: str, every: float
) -> Iterator[dict[str, Any]]:
    if not show or total == 0:
        yield from rows
        return
    if show == "lines":
        with _ProgressLines(total, label, every) as lines:
            for row in rows:
                lines.add(row)
                yield row
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        tid = bar.add_task(label, total=total)
        for row in rows:
            bar.advance(tid)
            yield row


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 120 else f"{seconds // 60} min {seconds % 60:02d} s"


class _ProgressLines:
    """A line on stderr every `every` seconds while rows arrive (from a thread, so that a slow task
    does not silence it), and one when the sweep ends:
    `compare: 120 of 1303 done (2 timed out, 0 crashed, 1 failed), 45 s, about 7 min 30 s left`."""

    def __init__(self, total: int, label: str, every: float) -> None:
        self.total, self.label, self.every = total, label, every
        self.counts = {"ok": 0, "timeout": 0, "crashed": 0, "error": 0}
        self.start = time.monotonic()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._loop, name="sweep-progress", daemon=True)

    def __enter__(self) -> _ProgressLines:
        self.thread.start()
        return self

    def add(self, row: dict[str, Any]) -> None:
        with self.lock:
            status = row.get("status", "ok")
            self.counts[status] = self.counts.get(status, 0) + 1

    def line(self) -> str:
        with self.lock:
            done, c = sum(self.counts.values()), dict(self.counts)
        elapsed = time.monotonic() - self.start
        text = (
            f"{self.label}: {done} of {self.total} done ({c['timeout']} timed out, {c['crashed']} crashed, "
            f"{c['error']} failed), {_duration(elapsed)}"
        )
        if 0 < done < self.total:
            left = elapsed / done * (self.total - done)
            text += f", about {_duration(left)} left" if math.isfinite(left) else ""
        return text

    def _loop(self) -> None:
        while not self.stop.wait(self.every):
            print(self.line(), file=sys.stderr, flush=True)

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join()
        print(self.line(), file=sys.stderr, flush=True)
