"""The measured fastest of equivalent programs: time the candidates in C, pick by what was measured.

"Fastest" by the latency cost model is an estimate (a table of ns per op, summed over nodes); the
program it picks can run slower than the smallest one or than greedy's result. `measure_fastest`
is the check: a selection step over candidate programs, not a per-node cost model, so it runs
after saturation (`optimize(p, "measured")` gathers the candidates: see optimization.py).

The candidates are timed together by timing.py (batched over lanes, interleaved rounds, each the
best of short bursts, the same inputs), and one is chosen by this rule:

1. A candidate is *beaten* if another one is faster beyond the run's spread and by more than the
   margin (2% by default). The rounds interleave the candidates, so round k of every candidate ran
   at about the same time, under the same load: the comparison is paired. With r_k = (the other's
   time in round k) / (this one's), the other beats this one if the upper quartile of the r_k,
   times (1 + margin), is below 1: in three rounds out of four or more it was faster by more than
   the margin.
2. Of the candidates not beaten, the smallest (dag_size) is chosen; equal sizes go to the one
   given first (`optimize` gives the smallest first).
3. If that is not the smallest candidate given first, all are timed again (`confirm`), on other
   inputs and in the reverse order, and a candidate is beaten only if it is beaten in both runs. A
   program other than the smallest is so chosen only when it was faster beyond the noise, and
   beyond the margin, twice.
4. If it is the smallest but another candidate is faster than it by more than the margin in the
   median round, though not beyond the spread, the run was too noisy to tell them apart: all are
   timed again (other inputs, reverse order), and a candidate is beaten if another is faster in the
   median round by more than the margin in both runs. bench/fastest.py found such runs: Caviar
   L12708, whose 21-node greedy result ran 3.6% faster than the 18-node smallest inside a noisy
   run's spread, then 2.5% faster beyond it in two fresh runs.

The choice is never beaten, beyond the run's spread and the margin, by any candidate (the smallest
and greedy's result among them). The margin is there because a difference of a percent or two is
within what the placement of code and data alone moves a loop, and not worth a larger program. Pairing
matters on a shared machine: when another process takes the core for a stretch of rounds, every
candidate timed in that stretch slows down together; the ratios within a round stay put, while
the quartiles of each candidate's own times jump between the fast and the slow mode (bench/fastest.py
saw a 16% reversal between two index expressions that way before the pairing).

Measurements are cached on disk in the per-user cache (eqsat_uopc.user_cache, `measured/`), one
file per set of programs timed together, keyed by the programs' text, the timing settings, the
C compiler (flags and identity), the machine and a digest of this package's code: asking again
costs no compile and no timing. The cache keeps whole runs, not one timing per program, because
timings are only comparable within the run that made them (the load of a shared machine changes
between runs). `optimize` also caches which candidates a program's saturations gave
(`candidates/`, keyed by the program, the saturation settings, the timing settings, the C
compiler, the machine and a digest of this package's code and rules), so that asking again runs
no saturation either.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eqsat_uopc.backend.toolchain import CFLAGS, compiler_command, compiler_identity
from eqsat_uopc.extract import cost_model, cost_of
from eqsat_uopc.ir.uir import to_uir
from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.pipeline.timing import Timing, TimingRun, time_programs
from eqsat_uopc.user_cache import machine, read_json, user_cache_dir, write_json

__all__ = [
    "MeasureError",
    "MeasureSettings",
    "Measurement",
    "TimedCandidate",
    "beats",
    "choose",
    "decide",
    "measure_fastest",
    "ratio_quartile",
]

CACHE_FORMAT = 1  # bump when a cached record would mean something else


class MeasureError(ValueError):
    """Candidates that cannot be measured (bad settings, no candidate that runs); says which and why."""


@dataclass(frozen=True)
class MeasureSettings:
    """How candidates are timed and compared (timing.py and the module docstring): lanes per
    evaluation of a batched program, timed rounds, the seed of the random inputs, the length of a
    round and its bursts, the margin a larger program must win by, whether a second run is made when
    the first chose another than the smallest or could not tell (`confirm`), and whether to use the
    on-disk cache."""

    lanes: int = 4096
    rounds: int = 21
    seed: int = 0
    round_seconds: float = 0.002
    best_of: int = 5
    margin: float = 0.02
    confirm: bool = True
    cache: bool = True

    def __post_init__(self) -> None:
        for name in ("lanes", "rounds", "best_of"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise MeasureError(f"{name} must be a positive int, got {v!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise MeasureError(f"seed must be an int, got {self.seed!r}")
        rs = self.round_seconds
        if isinstance(rs, bool) or not isinstance(rs, int | float) or not math.isfinite(rs) or rs <= 0:
            raise MeasureError(f"round_seconds must be a positive number of seconds, got {rs!r}")
        m = self.margin
        if isinstance(m, bool) or not isinstance(m, int | float) or not 0 <= m < 1:
            raise MeasureError(f"margin must be a fraction in [0, 1), got {m!r}")
        for name in ("confirm", "cache"):
            if not isinstance(getattr(self, name), bool):
                raise MeasureError(f"{name} must be True or False, got {getattr(self, name)!r}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def replace(self, **changes: Any) -> MeasureSettings:
        """A copy with some settings changed; an unknown one is a MeasureError naming it."""
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            raise MeasureError(f"unknown setting {unknown[0]!r} (known: {', '.join(self.names())})")
        return dataclasses.replace(self, **changes)


def _stats(t: Timing) -> dict[str, Any]:
    if t.error is not None or not t.ns:
        return {"error": t.error, "ns": list(t.ns)}
    return {
        "error": None,
        "min": t.min,
        "median": t.median,
        "q25": t.q25,
        "q75": t.q75,
        "spread": t.spread,
        "ns": list(t.ns),
    }


@dataclass(frozen=True)
class TimedCandidate:
    """One candidate: its program, the names it was given, its size, the latency model's estimate
    and its timings (ns per lane per round), one per run (a second run only to confirm a choice)."""

    program: UOp
    labels: tuple[str, ...]
    dag_size: int
    latency: float
    timings: tuple[Timing, ...]

    @property
    def timing(self) -> Timing:
        """The first run's timing: the one every candidate has."""
        return self.timings[0]

    def to_dict(self) -> dict[str, Any]:
        """Labels, hash, size, estimate, the first run's statistics, the confirming run's, the .uir."""
        text = to_uir(self.program)
        row: dict[str, Any] = {
            "labels": list(self.labels),
            "hash": hashlib.sha256(text.encode()).hexdigest()[:12],
            "dag_size": self.dag_size,
            "latency": self.latency,
            **_stats(self.timing),
        }
        if len(self.timings) > 1:
            row["confirmation"] = _stats(self.timings[1])
        return row | {"program": text}


@dataclass(frozen=True)
class Measurement:
    """The candidates as timed together, the index of the one chosen, and how they were timed."""

    candidates: tuple[TimedCandidate, ...]
    chosen: int
    lanes: int
    batched: bool
    settings: MeasureSettings
    cached: bool
    seconds: float
    latency_table: str

    @property
    def confirmed(self) -> bool:
        """Was there a second run (the first run chose another than the smallest given first, or could
        not tell: steps 3 and 4)?"""
        return len(self.candidates[0].timings) > 1

    @property
    def program(self) -> UOp:
        return self.candidates[self.chosen].program

    @property
    def timing(self) -> Timing:
        return self.candidates[self.chosen].timing

    def labelled(self, label: str) -> TimedCandidate | None:
        """The candidate given under this label, if any."""
        return next((c for c in self.candidates if label in c.labels), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: every candidate (labels, hash, size, estimate, rounds, quartiles, .uir text)."""
        unit = "ns per lane" if self.batched else "ns per evaluation"
        return {
            "unit": unit,
            "lanes": self.lanes,
            "batched": self.batched,
            "rounds": self.settings.rounds,
            "best_of": self.settings.best_of,
            "margin": self.settings.margin,
            "confirmed": self.confirmed,
            "cached": self.cached,
            "seconds": self.seconds,
            "latency_table": self.latency_table,
            "chosen": self.chosen,
            "candidates": [c.to_dict() for c in self.candidates],
        }


Timer = Callable[[Sequence[UOp], MeasureSettings], TimingRun]


def _time(programs: Sequence[UOp], s: MeasureSettings) -> TimingRun:
    return time_programs(programs, s.lanes, s.rounds, s.seed, s.round_seconds, s.best_of)


def _timed(c: TimedCandidate) -> bool:
    return all(t.error is None and t.ns for t in c.timings)


def _paired(a: Timing, b: Timing) -> Timing:
    """a's time / b's time in each round (the rounds of one run, paired)."""
    if len(a.ns) != len(b.ns):
        raise MeasureError(f"cannot pair {len(a.ns)} rounds with {len(b.ns)}: timings of different runs")
    return Timing(tuple(x / y for x, y in zip(a.ns, b.ns, strict=True)))


def ratio_quartile(a: Timing, b: Timing) -> float:
    """The upper quartile, over rounds, of a's time / b's time in the same round."""
    return _paired(a, b).q75


def beats(a: TimedCandidate, b: TimedCandidate, margin: float, statistic: str = "q75") -> bool:
    """Is a faster than b beyond the run's spread and the margin (paired by round), in every run
    they were timed in? (statistic "median": faster in the median round, by more than the margin.)"""
    return all(
        getattr(_paired(ta, tb), statistic) * (1 + margin) < 1
        for ta, tb in zip(a.timings, b.timings, strict=True)
    )


def choose(candidates: Sequence[TimedCandidate], margin: float = 0.02, statistic: str = "q75") -> int:
    """The index of the candidate the rule of the module docstring picks, over the runs the candidates
    were timed in (steps 1 and 2; `decide` takes steps 3 and 4); MeasureError if none of them could
    be timed."""
    ok = [k for k, c in enumerate(candidates) if _timed(c)]
    if not ok:
        errors = "; ".join(f"{'/'.join(c.labels)}: {c.timing.error}" for c in candidates)
        raise MeasureError(f"no candidate could be timed ({errors})")
    kept = [k for k in ok if not any(beats(candidates[j], candidates[k], margin, statistic) for j in ok)]
    return min(kept, key=lambda k: (candidates[k].dag_size, k))


def decide(candidates: Sequence[TimedCandidate], margin: float = 0.02) -> tuple[int, bool]:
    """The module docstring's rule over the runs the candidates were timed in: (the choice, whether a
    second run is needed to make it). A pure function of the timings, so that a cached measurement
    is decided as it was when it was made."""
    first = [dataclasses.replace(c, timings=c.timings[:1]) for c in candidates]
    chosen = choose(first, margin)
    smallest = min((k for k, c in enumerate(first) if _timed(c)), key=lambda k: (first[k].dag_size, k))
    noisy = chosen == smallest and any(
        k != chosen and _timed(c) and beats(c, first[chosen], margin, "median") for k, c in enumerate(first)
    )
    if chosen != smallest or noisy:
        if len(candidates[0].timings) == 1:
            return chosen, True
        return choose(candidates, margin, "median" if noisy else "q75"), False
    return chosen, False


def _labelled(
    candidates: Mapping[str, UOp] | Sequence[UOp] | Sequence[tuple[str, UOp]],
) -> dict[UOp, list[str]]:
    """Distinct programs in order of first appearance, with every label each was given."""
    if isinstance(candidates, Mapping):
        pairs = list(candidates.items())
    else:
        pairs = [c if isinstance(c, tuple) else (str(k), c) for k, c in enumerate(candidates)]
    out: dict[UOp, list[str]] = {}
    for label, program in pairs:
        if not isinstance(program, UOp):
            raise MeasureError(f"candidate {label!r} must be a UOp, got {type(program).__name__}")
        out.setdefault(program, []).append(str(label))
    if not out:
        raise MeasureError("measure_fastest needs at least one candidate program")
    shapes = {(p.dtype, p.shape) for p in out}
    if len(shapes) > 1:
        raise MeasureError(
            f"candidates differ in dtype or shape ({sorted(map(str, shapes))}): not equivalent"
        )
    return out


def _cache_key(programs: Sequence[UOp], s: MeasureSettings) -> tuple[str, list[str]]:
    texts = [to_uir(p) for p in programs]
    payload = {
        "format": CACHE_FORMAT,
        "programs": texts,
        "lanes": s.lanes,
        "rounds": s.rounds,
        "seed": s.seed,
        "round_seconds": s.round_seconds,
        "best_of": s.best_of,
        "margin": s.margin,
        "confirm": s.confirm,
        "cflags": list(CFLAGS),
        "compiler": compiler_identity(compiler_command()),
        "machine": machine(),
        "code": code_digest(),  # how programs are timed and rendered is code too
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest(), texts


def _cache_file(key: str) -> Path:
    return user_cache_dir() / "measured" / f"{key[:40]}.json"


def _cached(key: str, texts: list[str]) -> list[TimingRun] | None:
    """The runs recorded under key, or None (absent, unreadable or not these programs: timed again)."""
    try:
        data = read_json(_cache_file(key))
        if data is None or data.get("key") != key or data.get("programs") != texts:
            return None
        return [
            TimingRun(
                tuple(Timing(tuple(float(x) for x in t["ns"]), t["error"]) for t in run["timings"]),
                int(run["lanes"]),
                bool(run["batched"]),
                int(run["rounds"]),
            )
            for run in data["runs"]
        ] or None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _store(key: str, texts: list[str], runs: list[TimingRun]) -> None:
    record = {
        "key": key,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "machine": machine(),
        "programs": texts,
        "runs": [
            {
                "lanes": run.lanes,
                "batched": run.batched,
                "rounds": run.rounds,
                "timings": [{"ns": list(t.ns), "error": t.error} for t in run.timings],
            }
            for run in runs
        ],
    }
    with contextlib.suppress(OSError):  # a cache that cannot be written costs the next call its timing
        write_json(_cache_file(key), record)


def code_digest() -> str:
    """SHA-256 of this package's Python and .egg sources: a cached result of optimize is only
    reused by the very code that made it."""
    global _code_digest
    if _code_digest is None:
        import eqsat_uopc
        import eqsat_uopc.extract
        import eqsat_uopc.rules

        h = hashlib.sha256()
        for mod in (eqsat_uopc, eqsat_uopc.extract, eqsat_uopc.rules):
            for root in map(Path, mod.__path__):
                for f in sorted(root.rglob("*")):
                    if f.suffix in (".py", ".egg") and "__pycache__" not in f.parts:
                        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
        _code_digest = h.hexdigest()
    return _code_digest


_code_digest: str | None = None


def candidates_key(payload: Mapping[str, Any], s: MeasureSettings) -> str:
    """The key of a cached candidate list: payload (what made the candidates: a program, settings)
    with the timing settings, the C compiler, the machine and code_digest()."""
    full = {
        "format": CACHE_FORMAT,
        **payload,
        "measure": {n: getattr(s, n) for n in MeasureSettings.names() if n != "cache"},
        "cflags": list(CFLAGS),
        "compiler": compiler_identity(compiler_command()),
        "machine": machine(),
        "code": code_digest(),
    }
    return hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()


def cached_candidates(key: str) -> list[tuple[str, UOp]] | None:
    """The (label, program) list stored under key, or None."""
    from eqsat_uopc.ir.uir import parse_uir

    try:
        data = read_json(user_cache_dir() / "candidates" / f"{key[:40]}.json")
        if data is None or data.get("key") != key:
            return None
        return [(str(label), parse_uir(text)) for label, text in data["candidates"]] or None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store_candidates(key: str, candidates: Sequence[tuple[str, UOp]]) -> None:
    record = {"key": key, "candidates": [[label, to_uir(p)] for label, p in candidates]}
    with contextlib.suppress(OSError):
        write_json(user_cache_dir() / "candidates" / f"{key[:40]}.json", record)


def measure_fastest(
    candidates: Mapping[str, UOp] | Sequence[UOp] | Sequence[tuple[str, UOp]],
    settings: MeasureSettings | None = None,
    /,
    *,
    timer: Timer | None = None,
    **overrides: Any,
) -> Measurement:
    """Time equivalent candidate programs together and choose by the module docstring's rule.

    candidates: {label: program}, [(label, program), ...] (a program may come under several
    labels; it is timed once) or [program, ...] (labelled "0", "1", ...); ties in size go to
    the one given first. settings (or keyword overrides of MeasureSettings'
    fields): how to time.
    timer(programs, settings) -> TimingRun replaces the C timing (tests inject timings with it;
    nothing is cached then). Needs a C compiler (CompilerNotFoundError otherwise).
    """
    s = settings or MeasureSettings()
    if not isinstance(s, MeasureSettings):
        raise MeasureError(f"settings must be a MeasureSettings, got {type(s).__name__}")
    s = s.replace(**overrides)
    labelled = _labelled(candidates)
    programs = list(labelled)
    start = time.perf_counter()
    latency = cost_model("latency")
    sizes = [int(cost_of(p, "dag_size")) for p in programs]
    # the key names the C compiler, so without one this fails first (CompilerNotFoundError)
    key, texts = ("", []) if timer is not None else _cache_key(programs, s)
    record = _cached(key, texts) if timer is None and s.cache else None
    cached = record is not None
    runs: list[TimingRun] = list(record or ())
    if not runs:
        runs.append(_run(programs, s, timer))
    timed = _candidates(programs, labelled, sizes, latency, runs)
    chosen, again = decide(timed, s.margin)
    if s.confirm and again:  # again on other inputs, in the reverse order
        second = _run(programs[::-1], s.replace(seed=s.seed + 1), timer)
        runs.append(TimingRun(second.timings[::-1], second.lanes, second.batched, second.rounds))
        timed = _candidates(programs, labelled, sizes, latency, runs)
        chosen, _ = decide(timed, s.margin)
    if timer is None and s.cache and not cached:
        _store(key, texts, runs)
    seconds = time.perf_counter() - start
    first = runs[0]
    return Measurement(timed, chosen, first.lanes, first.batched, s, cached, seconds, latency.describe())


def _run(programs: Sequence[UOp], s: MeasureSettings, timer: Timer | None) -> TimingRun:
    run = (timer or _time)(programs, s)
    if len(run.timings) != len(programs):
        raise MeasureError(f"the timer returned {len(run.timings)} timings for {len(programs)} programs")
    return run


def _candidates(
    programs: list[UOp], labelled: dict[UOp, list[str]], sizes: list[int], latency: Any, runs: list[TimingRun]
) -> tuple[TimedCandidate, ...]:
    return tuple(
        TimedCandidate(
            p, tuple(labelled[p]), sizes[k], cost_of(p, latency), tuple(r.timings[k] for r in runs)
        )
        for k, p in enumerate(programs)
    )
