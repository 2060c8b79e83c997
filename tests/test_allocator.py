"""The malloc choice: finding jemalloc, the environments for child processes, the re-executed command."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat_uopc import allocator
from eqsat_uopc.allocator import (
    JEMALLOC_CONF,
    MALLOC_ENV,
    MallocError,
    children_on_jemalloc,
    jemalloc_path,
    malloc_in_use,
    preload_env,
)
from eqsat_uopc.pipeline.sweep import SweepTask, sweep

JEMALLOC = jemalloc_path()
needs_jemalloc = pytest.mark.skipif(JEMALLOC is None, reason="no jemalloc on this machine (libjemalloc2)")


@pytest.fixture
def fake_lib(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    (tmp_path / "b" / "libjemalloc.so.2").write_bytes(b"")
    return (str(tmp_path / "a" / "libjemalloc.so.2"), str(tmp_path / "b" / "libjemalloc.so.2"))


def test_jemalloc_path_takes_the_first_pattern_that_matches(fake_lib):
    assert jemalloc_path(fake_lib) == fake_lib[1]
    assert jemalloc_path(fake_lib[:1]) is None


def test_preload_env_adds_jemalloc_in_front_and_keeps_other_preloads(fake_lib):
    env = preload_env({"LD_PRELOAD": "/x/libother.so", "HOME": "/h"}, fake_lib)
    assert env == {"LD_PRELOAD": f"{fake_lib[1]} /x/libother.so", "HOME": "/h", "MALLOC_CONF": JEMALLOC_CONF}
    assert preload_env(env, fake_lib) == env  # already preloaded: not twice
    required = {MALLOC_ENV: "jemalloc"}
    assert preload_env(required, fake_lib) == {
        **required,
        "LD_PRELOAD": fake_lib[1],
        "MALLOC_CONF": "dirty_decay_ms:-1",
    }
    own = {"MALLOC_CONF": "narenas:2"}  # the user's own settings stay
    assert preload_env(own, fake_lib) == {**own, "LD_PRELOAD": fake_lib[1]}


def test_preload_env_system_or_no_jemalloc_preloads_nothing(fake_lib):
    assert preload_env({MALLOC_ENV: "system"}, fake_lib) is None
    assert preload_env({}, fake_lib[:1]) is None
    assert preload_env({MALLOC_ENV: ""}, fake_lib[:1]) is None  # empty means auto


def test_preload_env_bad_choices_say_what_is_wrong(fake_lib):
    with pytest.raises(MallocError) as e:
        preload_env({MALLOC_ENV: "tcmalloc"}, fake_lib)
    assert str(e.value) == "EQSAT_UOPC_MALLOC='tcmalloc': expected one of auto, jemalloc, system"
    with pytest.raises(MallocError) as e:
        preload_env({MALLOC_ENV: "jemalloc"}, fake_lib[:1])
    assert str(e.value) == (
        f"EQSAT_UOPC_MALLOC=jemalloc but no jemalloc found (looked for {fake_lib[0]}); "
        "install it (Debian: apt-get install libjemalloc2) or set it to auto or system"
    )


def test_malloc_in_use_reads_the_process_maps(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f10 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n")
    assert malloc_in_use(str(maps)) == "jemalloc"
    maps.write_text("7f00-7f10 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    assert malloc_in_use(str(maps)) == "system"
    assert malloc_in_use(str(tmp_path / "missing")) == "system"


def test_children_on_jemalloc_sets_and_restores_ld_preload(fake_lib, monkeypatch):
    monkeypatch.setattr(allocator, "JEMALLOC_GLOBS", fake_lib)
    monkeypatch.setenv("LD_PRELOAD", "/x/libother.so")
    monkeypatch.delenv(MALLOC_ENV, raising=False)
    monkeypatch.delenv("MALLOC_CONF", raising=False)
    with children_on_jemalloc():
        assert os.environ["LD_PRELOAD"] == f"{fake_lib[1]} /x/libother.so"
        assert os.environ["MALLOC_CONF"] == JEMALLOC_CONF
    assert os.environ["LD_PRELOAD"] == "/x/libother.so"
    assert "MALLOC_CONF" not in os.environ
    monkeypatch.delenv("LD_PRELOAD")
    with children_on_jemalloc():
        assert os.environ["LD_PRELOAD"] == fake_lib[1]
    assert "LD_PRELOAD" not in os.environ
    monkeypatch.setenv(MALLOC_ENV, "system")
    with children_on_jemalloc():
        assert "LD_PRELOAD" not in os.environ


def test_pad_system_heap_sets_glibcs_thresholds_once_and_only_on_glibcs_malloc(monkeypatch):
    calls = []

    class Libc:
        def mallopt(self, param, value):
            calls.append((param, value))
            return 1

    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda name: Libc())
    for malloc, expected, made in (
        ("jemalloc", [], False),
        ("system", [(-3, 32 << 20), (-1, 64 << 20)], True),
    ):
        allocator.pad_system_heap.cache_clear()
        monkeypatch.setattr(allocator, "malloc_in_use", lambda malloc=malloc: malloc)
        assert allocator.pad_system_heap() is made
        assert allocator.pad_system_heap() is made  # cached: asked once
        assert calls == expected
    allocator.pad_system_heap.cache_clear()


def test_the_command_rejects_a_bad_choice(monkeypatch, capsys):
    from eqsat_uopc.cli import console

    monkeypatch.setenv(MALLOC_ENV, "bogus")
    monkeypatch.delenv("EQSAT_UOPC_REEXECUTED", raising=False)
    monkeypatch.setattr(sys, "argv", ["eqsat-uopc", "--version"])
    monkeypatch.setattr(allocator, "malloc_in_use", lambda: "jemalloc")  # checked even then
    with pytest.raises(SystemExit) as e:
        console()
    assert e.value.code == 1
    assert capsys.readouterr().err == (
        "eqsat-uopc: error: EQSAT_UOPC_MALLOC='bogus': expected one of auto, jemalloc, system\n"
    )


def _command(*args: str, **env: str) -> str:
    """The command's output, started without the preloads of this process (the suite may run on one)."""
    script = Path(sys.executable).with_name("eqsat-uopc")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"} | env
    r = subprocess.run([str(script), *args], capture_output=True, text=True, env=env, check=True)
    return r.stdout


@needs_jemalloc
def test_the_command_runs_itself_on_jemalloc():
    from importlib.metadata import version

    v = version("eqsat-uopc")
    assert _command("--version", EQSAT_UOPC_MALLOC="auto") == f"eqsat-uopc {v} (malloc: jemalloc)\n"
    assert _command("--version", EQSAT_UOPC_MALLOC="system") == f"eqsat-uopc {v} (malloc: system)\n"


def which_malloc(payload):
    return {"malloc": malloc_in_use()}


@needs_jemalloc
def test_sweep_workers_start_on_jemalloc(monkeypatch):
    monkeypatch.delenv(MALLOC_ENV, raising=False)
    monkeypatch.delenv("LD_PRELOAD", raising=False)  # workers inherit this process's preloads
    rows = sweep([SweepTask("a", {})], which_malloc, workers=1, progress=False)
    assert [(r["status"], r["malloc"]) for r in rows] == [("ok", "jemalloc")]
    monkeypatch.setenv(MALLOC_ENV, "system")
    rows = sweep([SweepTask("a", {})], which_malloc, workers=1, progress=False)
    assert [(r["status"], r["malloc"]) for r in rows] == [("ok", "system")]
