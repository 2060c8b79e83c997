"""The malloc a process runs on, and jemalloc for the processes the tool starts.

egglog allocates and frees millions of small objects per program: every `(push)` clones each rule's
compiled state, every `(pop)` frees it, every iteration rebuilds the rules' seminaive variants, and
its overall run report (one entry per rule and iteration, carried across pops) grows with an
engine's age. Under glibc's malloc the heap of a long run fragments: after 300 Caviar programs a
fresh 249-rule engine pushes in 6-7 ms instead of 2 ms, with glibc walking tens of thousands of free
chunks (`_int_malloc`, `malloc_consolidate`), and every other egglog step slows alike. jemalloc does
not degrade so: 300 Caviar expressions take 15.5 s instead of 23.2 s, 200 index expressions 19.7
instead of 26.6 s, with the same results (bench/README.md).

A process cannot change its allocator once it runs, so the tool starts its own processes under
jemalloc when the system has it (Debian: `apt-get install libjemalloc2`): the `eqsat-uopc` command
executes itself again once with jemalloc preloaded, and a sweep's worker processes start with it.
A Python program that imports the library keeps the malloc it was started with; start it with
`LD_PRELOAD=<jemalloc_path()>` to get the same speed.

`EQSAT_UOPC_MALLOC` chooses: `auto` (the default: jemalloc if found), `jemalloc` (required: an error
if it is missing) or `system` (never preload anything).

z3 makes about 16 MiB of tables for every context it creates, and a proof or a validation runs in
a context of its own (verify/z3_encode.py, `own_z3_context`). Both allocators hand those pages back
to the system when the context is freed, and the next context faults them in again: 8 ms a context
instead of 0.5-0.9 ms (measured in a process that imported the package), most of a validation's
time on the Caviar expressions. So the tool keeps them: on glibc's malloc, the first z3 context
sets what glibc's own adaptive thresholds reach after a while (`pad_system_heap`): blocks up to 32
MiB come from the heap, not from their own mappings (M_MMAP_THRESHOLD), and the heap's top is given
back only beyond 64 MiB (M_TRIM_THRESHOLD);
the jemalloc the tool preloads runs with `MALLOC_CONF=dirty_decay_ms:-1` (freed pages are reused,
never returned while the process runs; a process's memory stays at its peak, which it reached
anyway), unless MALLOC_CONF is set already. The quick try of a validation takes its context ready
made: a background thread makes the next one and frees used ones (verify/quick_contexts.py), off
the caller's path. Under glibc that thread allocates from a malloc arena of its own, which reserves
up to 64 MiB more address space: a sweep worker's memory limit (RLIMIT_AS) counts it.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import os
import sys
from collections.abc import Iterator, Mapping

from eqsat_uopc.errors import UserError

__all__ = [
    "MALLOC_ENV",
    "MallocError",
    "children_on_jemalloc",
    "jemalloc_path",
    "malloc_choice",
    "malloc_in_use",
    "pad_system_heap",
    "preload_env",
    "reexec_with_jemalloc",
]

MALLOC_ENV = "EQSAT_UOPC_MALLOC"
_CHOICES = ("auto", "jemalloc", "system")
_REEXECUTED = "EQSAT_UOPC_REEXECUTED"  # set in the re-executed command: it never executes itself again
JEMALLOC_CONF = "dirty_decay_ms:-1"  # jemalloc's settings in the processes the tool starts (above)
# glibc's mallopt settings once a z3 context is made (above): (<malloc.h>'s parameter, bytes)
HEAP_SETTINGS = {"M_MMAP_THRESHOLD": (-3, 32 << 20), "M_TRIM_THRESHOLD": (-1, 64 << 20)}

# where Debian, Ubuntu, Fedora and a source build install it
JEMALLOC_GLOBS = (
    "/usr/lib/*-linux-gnu/libjemalloc.so.2",
    "/usr/lib64/libjemalloc.so.2",
    "/usr/lib/libjemalloc.so.2",
    "/usr/local/lib/libjemalloc.so.2",
)


class MallocError(UserError, ValueError):
    """`EQSAT_UOPC_MALLOC` holds an unknown choice, or asks for a jemalloc the system does not have."""


def jemalloc_path(globs: tuple[str, ...] | None = None) -> str | None:
    """The system's jemalloc shared library, or None: the first match, in the order of `globs`
    (default JEMALLOC_GLOBS)."""
    for pattern in JEMALLOC_GLOBS if globs is None else globs:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def malloc_in_use(maps: str = "/proc/self/maps") -> str:
    """'jemalloc' when this process has jemalloc loaded, else 'system'."""
    try:
        with open(maps) as f:
            return "jemalloc" if "libjemalloc" in f.read() else "system"
    except OSError:  # not Linux: no /proc
        return "system"


def malloc_choice(env: Mapping[str, str] | None = None) -> str:
    """The choice `EQSAT_UOPC_MALLOC` makes in `env` (default: this process's): auto when unset or
    empty. Raises MallocError for anything else than auto, jemalloc or system."""
    choice = (os.environ if env is None else env).get(MALLOC_ENV) or "auto"
    if choice not in _CHOICES:
        raise MallocError(f"{MALLOC_ENV}={choice!r}: expected one of {', '.join(_CHOICES)}")
    return choice


def preload_env(
    env: Mapping[str, str] | None = None, globs: tuple[str, ...] | None = None
) -> dict[str, str] | None:
    """The environment `env` (default: this process's) with jemalloc added to LD_PRELOAD, for a
    process about to start; None when nothing is to be preloaded (`system`, or `auto` without a
    jemalloc). Raises MallocError for an unknown choice or a required jemalloc that is missing."""
    env = dict(os.environ if env is None else env)
    choice = malloc_choice(env)
    if choice == "system":
        return None
    globs = JEMALLOC_GLOBS if globs is None else globs
    path = jemalloc_path(globs)
    if path is None:
        if choice == "jemalloc":
            raise MallocError(
                f"{MALLOC_ENV}=jemalloc but no jemalloc found (looked for {', '.join(globs)}); "
                "install it (Debian: apt-get install libjemalloc2) or set it to auto or system"
            )
        return None
    preloads = [p for p in env.get("LD_PRELOAD", "").split() if p]
    if path not in preloads:
        env["LD_PRELOAD"] = " ".join([path, *preloads])
    env.setdefault("MALLOC_CONF", JEMALLOC_CONF)
    return env


@functools.cache  # once per process: the setting is the process's, and stays
def pad_system_heap() -> bool:
    """On glibc's malloc, make HEAP_SETTINGS, so that z3's contexts reuse their pages (see the
    module docstring). True when the settings were made; False under another malloc (jemalloc has
    its own, JEMALLOC_CONF) or without glibc's mallopt."""
    if malloc_in_use() != "system":
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    return mallopt is not None and all(mallopt(*setting) == 1 for setting in HEAP_SETTINGS.values())


def reexec_with_jemalloc(module: str, argv: list[str]) -> None:
    """Replace this process by `python -m module argv...` with jemalloc preloaded, when there is one
    to preload and this process is not already running on it (nor itself such a re-execution).
    Returns only when nothing was done; raises MallocError for a bad `EQSAT_UOPC_MALLOC`."""
    malloc_choice()
    if os.environ.pop(_REEXECUTED, None) or not sys.executable or malloc_in_use() == "jemalloc":
        return  # (the marker goes: a command this one starts may execute itself again)
    env = preload_env()
    if env is None:
        return
    env[_REEXECUTED] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", module, *argv], env)


@contextlib.contextmanager
def children_on_jemalloc() -> Iterator[None]:
    """Within the block, processes started (spawned, not forked: a fork keeps its parent's malloc)
    inherit an LD_PRELOAD with jemalloc, when preload_env() gives one; this process's environment is
    restored after it."""
    env = preload_env()
    if env is None:
        yield
        return
    before = {name: os.environ.get(name) for name in ("LD_PRELOAD", "MALLOC_CONF")}
    os.environ.update({name: env[name] for name in before})
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
