"""The per-user cache: what this machine measured, kept between runs.

Three things live here: the latency table `eqsat-uopc calibrate` measures (`latency.json`, read by
the latency cost model when present), the timings of `optimize(..., cost="measured")`
(`measured/`, one file per set of programs timed together), and the verdicts of the rules of family
files proved where they were loaded (`rule_verdicts/`, one file per rule form, keyed by its text and
the verifier's version: eqsat_uopc.verify.family_verdicts). The timings depend on the machine they
were measured on, so each of those records carries `machine()`; every file is only ever written
whole (a temporary file renamed into place), so a concurrent reader never sees half a file.

The directory is $EQSAT_UOPC_CACHE_DIR, else $XDG_CACHE_HOME/eqsat_uopc, else ~/.cache/eqsat_uopc:
the root under which the C backend keeps its compiled libraries too (`c/`, moved by $UOPC_CACHE_DIR).
The test suite points $EQSAT_UOPC_CACHE_DIR at a temporary directory, so that a calibration on the
developer's machine never changes what the tests compute.
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["CACHE_ENV", "machine", "machine_name", "read_json", "user_cache_dir", "write_json"]

CACHE_ENV = "EQSAT_UOPC_CACHE_DIR"


def user_cache_dir() -> Path:
    """The per-user cache directory (see the module docstring); not created until written to."""
    if env := os.environ.get(CACHE_ENV):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eqsat_uopc"


@cache
def machine() -> dict[str, str]:
    """What a timing depends on besides the program: host name, architecture, CPU model, OS.

    The host name is part of it because a home directory (and so this cache) may be shared by
    several machines."""
    return {
        "host": platform.node(),
        "arch": platform.machine(),
        "cpu": _cpu_model(),
        "system": f"{platform.system()} {platform.release()}",
    }


def machine_name(m: dict[str, str] | None = None) -> str:
    """One line naming a machine(): 'x86_64 Intel(R) Xeon(R) ... on host'."""
    m = machine() if m is None else m
    return f"{m.get('arch', '?')} {m.get('cpu', '?')} on {m.get('host', '?')}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def read_json(path: Path) -> Any:
    """The JSON value in path, or None if there is no such file; unreadable or malformed JSON
    raises OSError or ValueError (json.JSONDecodeError) for the caller to name."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    return json.loads(text)


def write_json(path: Path, value: Any) -> None:
    """Write value as JSON to path, whole or not at all (a temporary file renamed into place);
    creates the directories. An unwritable directory raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".json.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(value, indent=1) + "\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
