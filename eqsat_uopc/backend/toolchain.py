"""The system C compiler, its fixed flags, and the on-disk cache of compiled libraries.

Flags (fixed; part of the cache key):
  -O2                          optimize; GCC 12+ vectorizes the elementwise loops at -O2
  -fno-fast-math               IEEE semantics: no reassociation, NaN/inf/-0.0 honoured
  -ffp-contract=off            no fused multiply-add: a * b + c rounds twice, as exec_alu does
  -fexcess-precision=standard  every float expression is rounded to float (matters on x87)
  -fno-math-errno              sqrtf can be one instruction (errno is never read); results equal
  -fwrapv                      belt and braces: the helpers compute in unsigned anyway
  -fno-builtin-sin -fno-builtin-pow -fno-builtin-log2 -fno-builtin-exp2
                               the compiler must call libm (the library Python's math module
                               calls), not constant-fold with its own correctly rounded values
  -fPIC -shared                a shared library for ctypes

The cache key is the SHA-256 of the source, the flags and the compiler's identity (its path and
`--version` text). The cache directory is $UOPC_CACHE_DIR, else $XDG_CACHE_HOME/eqsat_uopc/c, else
~/.cache/eqsat_uopc/c. Each entry is `<key>.c` (kept for debugging) and `<key>.so`, both written
under a temporary name and renamed into place, so concurrent processes never see half a file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from eqsat_uopc.backend.errors import CacheDirectoryError, CompilerError, CompilerNotFoundError

__all__ = ["CFLAGS", "build_library", "cache_dir", "compiler_command", "compiler_identity"]

CFLAGS: tuple[str, ...] = (
    "-O2",
    "-fno-fast-math",
    "-ffp-contract=off",
    "-fexcess-precision=standard",
    "-fno-math-errno",
    "-fwrapv",
    "-fno-builtin-sin",
    "-fno-builtin-pow",
    "-fno-builtin-log2",
    "-fno-builtin-exp2",
    "-fPIC",
    "-shared",
)

_identities: dict[tuple[str, ...], str] = {}


def cache_dir() -> Path:
    """Where compiled libraries live ($UOPC_CACHE_DIR overrides)."""
    if env := os.environ.get("UOPC_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eqsat_uopc" / "c"


def compiler_command() -> list[str]:
    """$CC split like a shell would (it may carry flags), else `cc`; raises if it is not installed."""
    env = os.environ.get("CC")
    cmd = shlex.split(env) if env else ["cc"]
    if not cmd or shutil.which(cmd[0]) is None:
        where = f"$CC={env!r}" if env else "`cc` (no $CC set)"
        raise CompilerNotFoundError(
            f"no C compiler found: {where} is not an executable on PATH; install gcc or clang, or set CC"
        )
    return cmd


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Every compiler process goes through here (tests count the calls); messages in plain ASCII."""
    env = {**os.environ, "LC_ALL": "C"}
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, **kwargs)


def compiler_identity(cmd: list[str]) -> str:
    """The compiler's resolved path and `--version` text (memoized per process)."""
    key = tuple(cmd)
    if key not in _identities:
        try:
            r = _run([*cmd, "--version"])
        except OSError as e:
            raise CompilerNotFoundError(f"C compiler {' '.join(cmd)!r} cannot be run: {e}") from None
        _identities[key] = f"{shutil.which(cmd[0])}\n{' '.join(cmd)}\n{r.stdout}"
    return _identities[key]


def build_library(source: str) -> Path:
    """The shared library compiled from source: from the cache, or compiled now and cached."""
    cmd = compiler_command()
    key = hashlib.sha256("\0".join([source, " ".join(CFLAGS), compiler_identity(cmd)]).encode()).hexdigest()
    directory = cache_dir()
    lib = directory / f"{key[:40]}.so"
    if lib.exists():
        return lib
    src = directory / f"{key[:40]}.c"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _write_atomic(src, source)
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=directory)
    except OSError as e:
        raise CacheDirectoryError(
            f"cannot write the C backend's cache directory {directory}: {e.strerror}; "
            "set UOPC_CACHE_DIR to a writable directory"
        ) from None
    os.close(fd)
    try:
        try:
            r = _run([*cmd, *CFLAGS, "-o", tmp, str(src), "-lm"])
        except OSError as e:
            raise CompilerNotFoundError(f"C compiler {' '.join(cmd)!r} cannot be run: {e}") from None
        if r.returncode != 0:
            raise CompilerError(_explain(r, source, src))
        os.replace(tmp, lib)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return lib


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(suffix=".c.tmp", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^:\n]+\.c):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$", re.M
)


def _explain(r: subprocess.CompletedProcess, source: str, path: Path) -> str:
    """The compiler's first error with the generated source line it points at, then its full output."""
    out = (r.stderr or "") + (r.stdout or "")
    m = _DIAGNOSTIC.search(out)
    if m is None:
        return f"C compiler failed (exit {r.returncode}) on {path}:\n{out.strip()}"
    line = int(m["line"])
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else "<no such line>"
    col = f", column {m['col']}" if m["col"] else ""
    return (
        f"C compiler failed on generated source line {line}{col}: {m['msg']}\n"
        f"  {line} | {text}\n"
        f"source: {path}\ncompiler output:\n{out.strip()}"
    )
