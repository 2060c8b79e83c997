"""docs/results.md is written by the benchmark scripts: each replaces its own section, stamped.

A figure copied by hand from a terminal into a document goes stale without anyone noticing, and
nobody can say any more which code, which machine and which options produced it. So the figures
of docs/results.md are written only by the scripts that measure them: run with `--write-results`,
a script replaces the text between its section's markers

    <!-- results:NAME -->
    ...
    <!-- /results:NAME -->

with what it printed to stdout, under a stamp: the date (UTC), the commit (and whether the tree had
uncommitted changes), the machine (architecture, CPU, cores), the malloc the process ran on, and the
exact command line, saying so when it was a quick or limited run and not the full one. Everything
outside the markers is left byte for byte as it was. A script names its sections in
`RESULTS_SECTIONS` (tests/test_results.py checks that every marker of docs/results.md has a script
that writes it, and the other way round).

Use from a script (bench/ is the script's directory, so `import results` finds this module):

    with results.recorded("rule-power", args.write_results, partial="--quick: 120 of 946 ..."):
        ...  # everything printed here becomes the section
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results.md"
FLAG = "--write-results"
FLAG_HELP = "replace this script's section of docs/results.md with what it prints (stamped)"

__all__ = [
    "FLAG",
    "FLAG_HELP",
    "RESULTS",
    "ResultsError",
    "recorded",
    "replace_section",
    "section_names",
    "stamp",
    "write_section",
]

_MARKER = re.compile(r"<!-- (/?)results:([a-z0-9-]+) -->")


class ResultsError(ValueError):
    """docs/results.md has no section of that name, or its markers are malformed."""


def section_names(text: str) -> list[str]:
    """The names of the sections in text, in order; malformed markers raise ResultsError."""
    names, open_ = [], None
    for m in _MARKER.finditer(text):
        closing, name = m.group(1) == "/", m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        if not closing:
            if open_ is not None:
                raise ResultsError(f"line {line}: section {name!r} opens inside section {open_!r}")
            if name in names:
                raise ResultsError(f"line {line}: a second section {name!r}")
            open_ = name
            names.append(name)
        elif name != open_:
            raise ResultsError(f"line {line}: closes section {name!r}, but the open one is {open_!r}")
        else:
            open_ = None
    if open_ is not None:
        raise ResultsError(f"section {open_!r} is never closed (<!-- /results:{open_} -->)")
    return names


def replace_section(text: str, name: str, body: str) -> str:
    """text with the content of section `name` replaced by body; nothing outside it changes.

    The content is everything between the end of the opening marker's line and the closing marker;
    body is written there as its own lines (a trailing newline is added when missing)."""
    names = section_names(text)
    if name not in names:
        known = ", ".join(names) or "none"
        raise ResultsError(f"docs/results.md has no section {name!r} (sections: {known})")
    start = text.index(f"<!-- results:{name} -->")
    start = text.index("\n", start) + 1 if "\n" in text[start:] else len(text)
    end = text.index(f"<!-- /results:{name} -->")
    if end < start:  # both markers on one line
        raise ResultsError(f"section {name!r}: put its two markers on lines of their own")
    if body and not body.endswith("\n"):
        body += "\n"
    return text[:start] + body + text[end:]


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def stamp(command: str, partial: str | None = None) -> str:
    """The line under a section's heading: when (the run's start), which commit, which machine, which
    command; and with `partial`, a second saying what the run left out."""
    # imported here so that a test can check the section logic without the package's import cost
    from eqsat_uopc.allocator import malloc_in_use
    from eqsat_uopc.user_cache import machine

    commit = _git("rev-parse", "--short=10", "HEAD") or "unknown"
    # the results file itself does not count: the first section a series of runs writes changes it
    if _git("status", "--porcelain", "--untracked-files=no", "--", ".", f":!{RESULTS.relative_to(ROOT)}"):
        commit += " with uncommitted changes"
    m = machine()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"_Written by `{command}` on {when}, commit {commit}; {m['arch']} {m['cpu']}, "
        f"{os.cpu_count()} cores, {m['system']}, Python {sys.version.split()[0]}, "
        f"malloc {malloc_in_use()}._"
    ]
    if partial:
        lines += ["", f"_A partial run ({partial}): the full run's figures differ._"]
    return "\n".join(lines)


def write_section(name: str, output: str, stamped: str, path: Path = RESULTS) -> None:
    """Replace section `name` of path with output (as a text block) under the stamp line(s) `stamped`."""
    fence = "```"
    while fence in output:  # output holding a fence of its own must not close ours
        fence += "`"
    body = f"{stamped}\n\n{fence}text\n{output.rstrip()}\n{fence}\n"
    path.write_text(replace_section(path.read_text(), name, body))


class _Tee(io.TextIOBase):
    def __init__(self, out) -> None:
        self.out, self.seen = out, io.StringIO()

    def write(self, s: str) -> int:
        self.seen.write(s)
        return self.out.write(s)

    def flush(self) -> None:
        self.out.flush()


def _command(script: str) -> str:
    args = [a for a in sys.argv[1:] if a != FLAG]
    return " ".join(["python", f"bench/{Path(script).name}", *args])


@contextlib.contextmanager
def recorded(name: str, enabled: bool, partial: str | None = None, path: Path = RESULTS) -> Iterator[None]:
    """What the block prints to stdout still goes to stdout; with `enabled`, it also becomes section
    `name` of docs/results.md once the block has finished without an exception. The section is
    checked to exist, and the stamp taken (the commit and tree the run measures), before the block
    runs, so a long run neither ends in a missing marker nor names a commit made while it ran."""
    if not enabled:
        yield
        return
    replace_section(path.read_text(), name, "")  # a ResultsError now if the section is missing
    stamped = stamp(_command(sys.argv[0]), partial)
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield
    write_section(name, tee.seen.getvalue(), stamped, path)
    print(f"wrote section {name!r} of {path}", file=sys.stderr)
