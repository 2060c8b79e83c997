"""Sweeps: isolation (timeouts, crashes, memory), resumption, and the Dask path."""

import json
import os
import re
import time

import pytest

from eqsat_uopc.pipeline.sweep import (
    SweepSettingsError,
    SweepTask,
    completed_keys,
    read_rows,
    recorded_settings,
    separate_out,
    sweep,
)


def job(payload):
    kind = payload["kind"]
    if kind == "square":
        return {"value": payload["n"] ** 2}
    if kind == "sleep":
        time.sleep(60)
    if kind == "raise":
        raise ValueError("bad program")
    if kind == "exit":
        os._exit(3)
    if kind == "hog":
        blocks = []
        while True:
            blocks.append(bytearray(64 * 2**20))
    raise AssertionError(kind)


def tasks(*kinds):
    return [SweepTask(f"t{i}", {"kind": k, "n": i}) for i, k in enumerate(kinds)]


def by_key(rows):
    return {r["key"]: (r["status"], r.get("value"), r["error"]) for r in rows}


def test_one_bad_task_does_not_stop_the_sweep():
    rows = sweep(
        tasks("square", "raise", "exit", "hog", "square"),
        job,
        workers=2,
        time_limit=60,
        memory_limit_mb=1024,
        progress=False,
    )
    assert by_key(rows) == {
        "t0": ("ok", 0, None),
        "t1": ("error", None, "ValueError: bad program"),
        "t2": ("crashed", None, "worker died (exit code 3; memory limit?)"),
        "t3": ("crashed", None, "MemoryError (worker memory limit)"),
        "t4": ("ok", 16, None),
    }


def test_a_task_over_its_time_limit_is_killed_and_the_worker_replaced():
    start = time.monotonic()
    rows = sweep(tasks("sleep", "square"), job, workers=1, time_limit=1, progress=False)
    assert by_key(rows) == {"t0": ("timeout", None, "over 1 s"), "t1": ("ok", 1, None)}
    assert time.monotonic() - start < 30  # not the job's 60 s


def test_results_are_written_incrementally_and_resumed(tmp_path):
    out = tmp_path / "rows.jsonl"
    first = sweep(tasks("square", "square"), job, out=out, workers=0, progress=False)
    assert [r["key"] for r in first] == ["t0", "t1"]
    out.write_text(out.read_text() + '{"key": "torn')  # an interrupted write
    assert completed_keys(out) == {"t0", "t1"}
    again = sweep(tasks("square", "square", "square"), job, out=out, workers=0, progress=False)
    assert [r["key"] for r in again] == ["t2"]
    assert json.loads(out.read_text().splitlines()[-1])["value"] == 4


def test_a_resumed_sweep_reuses_only_rows_of_its_own_settings(tmp_path):
    # issue 37: a second run with other settings reused the first run's rows
    out = tmp_path / "rows.jsonl"
    settings = {"config": {"int_semantics": "no_overflow", "rules": "default"}, "options": {"samples": 5}}
    sweep(tasks("square", "square"), job, out=out, workers=0, progress=False, settings=settings)
    lines = out.read_text().splitlines()
    assert json.loads(lines[0]) == {"settings": settings} and len(lines) == 3
    assert recorded_settings(out) == settings and [r["key"] for r in read_rows(out)] == ["t0", "t1"]
    # the same settings: resumed, only the new task runs
    again = sweep(
        tasks("square", "square", "square"), job, out=out, workers=0, progress=False, settings=settings
    )
    assert [r["key"] for r in again] == ["t2"] and recorded_settings(out) == settings
    # other settings: refused before any task runs, naming what differs
    other = {"config": {"int_semantics": "wrap", "rules": "symbolic"}, "options": {"samples": 5}}
    before = out.read_text()
    message = (
        f'{out} holds rows computed under other settings (config.int_semantics: "no_overflow" in the file, '
        '"wrap" now; config.rules: "default" in the file, "symbolic" now): resuming it would mix them'
    )
    with pytest.raises(SweepSettingsError, match=f"^{re.escape(message)}$"):
        sweep(tasks("raise"), job, out=out, workers=0, progress=False, settings=other)
    assert out.read_text() == before
    # their own file beside it, named by a digest of the settings, resumed by a rerun
    separate = separate_out(out, other)
    assert separate.parent == tmp_path and re.fullmatch(r"rows\.[0-9a-f]{10}\.jsonl", separate.name)
    assert separate_out(out, dict(reversed(other.items()))) == separate  # key order does not matter
    sweep(tasks("square"), job, out=separate, workers=0, progress=False, settings=other)
    assert recorded_settings(separate) == other
    # rows written before files recorded settings: refused too
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text('{"key": "t0", "status": "ok"}\n')
    message = f"{legacy} holds rows computed under other settings (the file records no settings"
    with pytest.raises(SweepSettingsError, match=f"^{re.escape(message)}"):
        sweep(tasks("square"), job, out=legacy, workers=0, progress=False, settings=settings)
    # without settings, a sweep resumes any file, as before
    assert sweep(tasks("square", "square"), job, out=legacy, workers=0, progress=False)[0]["key"] == "t1"


def test_duplicate_keys_and_bad_limits_are_refused():
    with pytest.raises(ValueError, match="sweep task keys must be unique, 'a' repeats"):
        sweep([SweepTask("a", {}), SweepTask("a", {})], job)
    with pytest.raises(ValueError, match="time_limit must be positive, got 0"):
        sweep([], job, time_limit=0)
    with pytest.raises(ValueError, match="memory_limit_mb must be positive, got -1"):
        sweep([], job, memory_limit_mb=-1)


def test_dask_local_cluster_runs_the_same_sweep():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as c:
        rows = sweep(tasks("square", "raise", "square"), job, scheduler=c.scheduler_address, progress=False)
    assert by_key(rows) == {
        "t0": ("ok", 0, None),
        "t1": ("error", None, "ValueError: bad program"),
        "t2": ("ok", 4, None),
    }


def test_a_job_that_cannot_start_fails_fast_with_a_clear_error(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"  # no __main__ guard: spawned workers re-run it and die
    script.write_text(
        "from eqsat_uopc.pipeline.sweep import SweepTask, sweep\n"
        "def job(p):\n    return {}\n"
        "sweep([SweepTask(str(i), {}) for i in range(20)], job, workers=1, progress=False)\n"
    )
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert "RuntimeError: a sweep worker exited with code 1 before it was ready" in r.stderr


def test_an_unreachable_dask_scheduler_is_one_clear_error():
    pytest.importorskip("distributed")
    with pytest.raises(ConnectionError, match=r"^cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9: "):
        sweep(tasks("square"), job, scheduler="tcp://127.0.0.1:9", connect_timeout=1, progress=False)
