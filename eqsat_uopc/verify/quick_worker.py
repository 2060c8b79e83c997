"""A z3 process of its own for quick tries begun early: z3's work off the caller's interpreter.

`optimize` often knows the program it will return before saturation ends (pipeline/early_validation.py),
and the quick try of its validation (proof.py) could run meanwhile, on the second core. A thread
of this process cannot do it: z3's Python API makes a dozen ctypes calls a question and some fifty
to make a context, and after each the thread needs the GIL back, which a caller running Python
(a run's start phases, extraction) holds for up to the interpreter's switch interval (5 ms): a try
begun 2 ms before it was needed had made one call of its dozen. So the question goes to a process
of its own (this module run by path: it imports z3 alone), which answers "unsat", "sat" or
"unknown" while the caller goes on, and makes its next context while it waits for the next one.

Its quick solver is made by the steps of quick_contexts.py's `_prepare`, in the same order (a
fresh `z3.Context()`, the quick tactics' solver, the rlimit, the SMT-LIB reader made by reading
nothing), with the same z3 library, so its answer is the one the caller would get in a context of
its own: deterministic, whichever process asked. The caller uses an answer only to skip a check
whose answer it knows (proof.py: "unsat", then the witness on the caller); anything else is asked
again on the caller's side, as if nothing had been begun.

The protocol, on the process's stdin and stdout: the process writes `ready` once it has imported
z3; each question is a line `<id> <rlimit or -> <bytes>` and that many bytes of
SMT-LIB text; each answer a line `<id> <unsat|sat|unknown|error>`, in order. End of input ends
it. A process is started on the first question of a process (and again in a forked child); until
it is ready, and once it is gone, questions are answered on the caller's side (`Asked.answer`
None).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ANSWER_WAIT", "Asked", "ask", "start", "worker_cpu_seconds"]

# seconds the caller waits for an answer not there yet before it asks z3 itself (a Caviar quick try
# takes it 1-2 ms): the same answer either way, so only the time depends on it
ANSWER_WAIT = 0.001


@dataclass(eq=False)
class Asked:
    """A question sent to the z3 process (`ask`); `answer()` reads its answer."""

    client: _Client | None
    ident: int

    def answer(self) -> str | None:
        """z3's answer: "unsat", "sat" or "unknown"; None when the process was not ready when the
        question was sent, is gone, or has not answered within ANSWER_WAIT seconds (the caller then
        asks itself: on a loaded machine the process may not get a core soon)."""
        if self.client is None:
            return None
        return self.client.answer(self.ident, ANSWER_WAIT)

    def drop(self) -> None:
        """Not needed: its answer is read and thrown away."""
        if self.client is not None:
            self.client.drop(self.ident)


class _Client:
    """The caller's end of one z3 process (one per Python process)."""

    def __init__(self, tactics: Sequence[str]) -> None:
        self.pid = os.getpid()
        self.process = subprocess.Popen(
            [sys.executable, "-P", __file__, *tactics],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        self.tactics = tuple(tactics)
        self.fd = self.process.stdout.fileno()  # type: ignore[union-attr]
        self.buffer = b""
        self.ready = False
        self.gone = False
        self.sent = 0
        self.answers: dict[int, str] = {}
        self.dropped: set[int] = set()

    def ask(self, text: str, rlimit: int | None) -> int | None:
        """Send a question; its id, or None when the process is not ready (or gone)."""
        self._read(0.0)
        if not self.ready or self.gone:
            return None
        self.sent += 1
        data = text.encode()
        head = f"{self.sent} {'-' if rlimit is None else rlimit} {len(data)}\n".encode()
        try:
            self.process.stdin.write(head + data)  # type: ignore[union-attr]
        except OSError:
            self.gone = True
            return None
        return self.sent

    def answer(self, ident: int, wait: float) -> str | None:
        deadline = time.monotonic() + wait
        self._read(0.0)
        while ident not in self.answers and not self.gone:
            left = deadline - time.monotonic()
            if left <= 0:
                self.drop(ident)
                return None
            self._read(left)
        found = self.answers.pop(ident, None)
        return None if found in (None, "error") else found

    def drop(self, ident: int) -> None:
        if self.answers.pop(ident, None) is None:
            self.dropped.add(ident)

    def _read(self, wait: float) -> None:
        """Read what the process has written, waiting at most `wait` seconds for something."""
        while select.select([self.fd], [], [], wait)[0]:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.gone = True
                return
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                self._take(line.decode())
            wait = 0.0

    def _take(self, line: str) -> None:
        if line == "ready":
            self.ready = True
            return
        ident_text, _, result = line.partition(" ")
        ident = int(ident_text)
        if ident in self.dropped:
            self.dropped.discard(ident)
        else:
            self.answers[ident] = result

    def close(self) -> None:
        """End its input (the process then ends), in the process that started it."""
        if self.pid == os.getpid():
            with contextlib.suppress(OSError):
                self.process.stdin.close()  # type: ignore[union-attr]
            self.process.poll()  # (reaped, if it has ended)


_lock = threading.Lock()
_client: _Client | None = None
_starts = 0  # z3 processes started by this process
MAX_STARTS = 3  # then, should each have ended (z3 failing to load, say), every question is the caller's


def _current(tactics: Sequence[str]) -> _Client | None:
    """This process's client, a new z3 process started where there is none (or it is gone, or is a
    forked parent's, or runs other tactics), at most MAX_STARTS times in a process: None once
    that is spent, or when no process can be started (every question is then the caller's).
    Holding _lock."""
    global _client, _starts
    if _client is not None and _client.pid != os.getpid():  # a forked child: the parent's process
        _client, _starts = None, 0
    if _client is None or _client.gone or _client.tactics != tuple(tactics):
        if _client is not None:
            _client.close()
            _client = None
        if _starts >= MAX_STARTS:
            return None
        _starts += 1
        try:
            _client = _Client(tactics)
        except OSError:
            return None
        atexit.register(_client.close)
    return _client


def ask(text: str, rlimit: int | None, tactics: Sequence[str]) -> Asked:
    """Send the z3 process the question `text` (SMT-LIB: declarations and assertions), to be checked
    by a quick solver of `tactics` within rlimit in a fresh context. The process is started on the
    first question (that one is then answered on the caller's side: `answer()` None)."""
    with _lock:
        client = _current(tactics)
        ident = client.ask(text, rlimit) if client is not None else None
    return Asked(client if ident is not None else None, ident or 0)


def start(tactics: Sequence[str], wait: float) -> bool:
    """Start the z3 process for `tactics` if there is none, and wait at most `wait` seconds until it is
    ready to answer: is it? (A warm-up, off the clock, for a benchmark or a test.)"""
    with _lock:
        client = _current(tactics)
        if client is None:
            return False
        deadline = time.monotonic() + wait
        while not client.ready and not client.gone and time.monotonic() < deadline:
            client._read(max(0.0, deadline - time.monotonic()))
        return client.ready and not client.gone


def worker_cpu_seconds() -> float:
    """The CPU time the z3 process has used so far (0.0 if there is none, or off Linux)."""
    client = _client
    if client is None or client.pid != os.getpid():
        return 0.0
    try:
        with open(f"/proc/{client.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _serve(tactics: Sequence[str]) -> None:  # pragma: no cover  (runs in the z3 process)
    """The z3 process: answer questions, each in a fresh context made ahead (see the module docstring)."""
    import z3

    def prepare(rlimit: int | None) -> tuple[z3.Context, z3.Solver, int | None]:
        context = z3.Context()
        solver = z3.Then(*tactics, ctx=context).solver()
        if rlimit is not None:
            solver.set("rlimit", rlimit)
        solver.from_string("")
        return context, solver, rlimit

    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sink.write(b"ready\n")
    sink.flush()
    ahead = None
    while head := source.readline():
        ident, limit, size = head.split()
        text = source.read(int(size)).decode()
        rlimit = None if limit == b"-" else int(limit)
        if ahead is None or ahead[2] != rlimit:  # (the first question, or another rlimit)
            ahead = prepare(rlimit)
        context, solver, _ = ahead
        try:
            solver.from_string(text)
            result = str(solver.check())
        except z3.Z3Exception:
            result = "error"
        sink.write(ident + f" {result}\n".encode())
        sink.flush()
        del solver, context
        ahead = None
        ahead = prepare(rlimit)


if __name__ == "__main__":  # pragma: no cover
    _serve(sys.argv[1:])
