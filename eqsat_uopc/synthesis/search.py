"""synthesize(): enumerate, fingerprint, orient, minimize, prove; a .egg family as the result.

The loop (Ruler's, with Enumo's conditions):
1. enumerate terms by size with one representative per fingerprint class (enumeration.py); each
   term that matches a representative, unconditionally or under a side condition, is a candidate;
2. orient each candidate (rule.py) and check the orientation on the fingerprint (rhs defined and
   equal wherever lhs is, inside the condition): a cheap filter before z3;
3. in a fixed order (smaller left-hand sides first, unconditional before conditional), for each:
   drop it if the rules kept so far (the `base` rule set plus the synthesized rules kept before it)
   derive it by saturation (minimize.py); otherwise prove it with z3 (prove.py), under wrap, else
   under no_overflow; keep it if proved, drop it with the verifier's reason if not.

Every decision goes to a JSON-lines log beside the output. A run that stops (time limit, Ctrl-C)
leaves the log; the next run with the same settings replays it and continues where it stopped.
Same settings and seed, same rules in the same order.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.rules import RULE_SETS, Family
from eqsat_uopc.synthesis.enumeration import Candidate, Enumerator
from eqsat_uopc.synthesis.errors import SynthesisError
from eqsat_uopc.synthesis.fingerprint import make_inputs, refines
from eqsat_uopc.synthesis.grammar import Condition, Grammar
from eqsat_uopc.synthesis.minimize import derives, with_family
from eqsat_uopc.synthesis.prove import prove_rule
from eqsat_uopc.synthesis.rule import (
    OP_SHORT_NAMES,
    SynthRule,
    infix,
    instance,
    op_weight,
    orient,
    rule_text,
    tree_size,
)

__all__ = [
    "BASES",
    "SUPPORT_FAMILIES",
    "SynthesisResult",
    "egg_text",
    "log_path_for",
    "synthesize",
    "write_family",
]

# what a synthesized family is checked with when base="none": constant folding and the interval
# analysis its conditions read (lo/hi), no hand-written rewrites beyond those two families
SUPPORT_FAMILIES = ("fold", "intervals")


@dataclass
class SynthesisResult:
    """What a synthesis run kept, what it dropped and why, and what it cost."""

    family: str
    grammar: Grammar
    rules: list[SynthRule]
    log: list[dict[str, Any]]
    stats: dict[str, Any] = field(default_factory=dict)
    complete: bool = True  # False: stopped by the time limit or the candidate budget

    @property
    def text(self) -> str:
        return egg_text(self)

    def outcomes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.log:
            out[row["outcome"]] = out.get(row["outcome"], 0) + 1
        return out


@dataclass(frozen=True)
class _Draft:
    key: str
    lhs: Any
    rhs: Any
    condition: Condition | None


# what `base` may name: "none" (SUPPORT_FAMILIES only; RULE_SETS has a "none" too, with no rules
# at all, which a synthesized family could not even be checked with) or a rule set
BASES = tuple(dict.fromkeys(("none", *RULE_SETS)))


def _base_families(base: str) -> tuple[str | Family, ...]:
    if base == "none":
        return SUPPORT_FAMILIES
    if base not in RULE_SETS:
        raise SynthesisError(f"unknown base rule set {base!r} (known: {', '.join(BASES)})")
    return RULE_SETS[base].families


def _drafts(cands: Iterable[Candidate], g: Grammar, inputs: Any, log: Callable[[dict], None]) -> list[_Draft]:
    """Oriented, fingerprint-checked, deduplicated candidates in the order they are decided."""
    names = g.names()
    out: dict[str, _Draft] = {}
    for c in cands:
        o = orient(c.a.uop, c.b.uop, c.condition, g)
        text = f"{infix(c.a.uop, names)} == {infix(c.b.uop, names)}"
        if isinstance(o, str):
            log({"key": text, "condition": str(c.condition or ""), "outcome": "no_rule", "reason": o})
            continue
        lhs, rhs = o
        lv, rv = (c.a.vec, c.b.vec) if lhs is c.a.uop else (c.b.vec, c.a.vec)
        key = f"{infix(lhs, names)} -> {infix(rhs, names)}" + (f" if {c.condition}" if c.condition else "")
        if not refines(lv, rv, inputs.mask(c.condition)):
            log(
                {
                    "key": key,
                    "outcome": "no_rule",
                    "reason": "rhs undefined where lhs is defined (fingerprint)",
                }
            )
            continue
        out.setdefault(key, _Draft(key, lhs, rhs, c.condition))

    def order(d: _Draft) -> tuple:  # small and general first: a general rule derives its instances
        concrete = sum(u.op is Ops.CONST for u in d.lhs.toposort())
        return (
            tree_size(d.lhs),
            concrete,
            d.condition is not None,
            tree_size(d.rhs),
            op_weight(d.lhs),
            d.key,
        )

    return sorted(out.values(), key=order)


def _name(lhs: Any, condition: Condition | None, family: str, taken: set[str]) -> str:
    ops = [OP_SHORT_NAMES[u.op] for u in _preorder(lhs) if u.op in OP_SHORT_NAMES]
    base = f"{family}/{'-'.join(ops)}" + (f"-if-{condition.kind}" if condition is not None else "")
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    taken.add(name)
    return name


def _preorder(u: Any) -> list[Any]:
    out = [u]
    for s in u.src:
        out += _preorder(s)
    return out


def _settings(g: Grammar, int_semantics: str, seed: int, base: str, max_candidates: int) -> dict[str, Any]:
    gd = asdict(g)
    gd["ops"] = [op.name for op in g.ops]
    out = {
        "grammar": gd,
        "int_semantics": int_semantics,
        "seed": seed,
        "base": base,
        "max_candidates": max_candidates,
    }
    return json.loads(json.dumps(out))  # as the log stores it (tuples become lists)


def _read_log(path: Path | None, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if path is None or not path.exists():
        return {}
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    if not lines or lines[0].get("settings") != settings:
        raise SynthesisError(
            f"{path}: this log was written by a synthesis run with other settings; "
            "delete it (or choose another output) to start afresh"
        )
    return {row["key"]: row for row in lines[1:] if row.get("outcome") in ("kept", "derivable", "unproved")}


def synthesize(
    grammar: Grammar,
    *,
    int_semantics: str = "wrap",
    seed: int = 0,
    base: str = "default",
    family: str = "synth",
    max_candidates: int = 20_000,
    time_limit: float = 600.0,
    log_path: str | Path | None = None,
    progress: bool | None = None,
) -> SynthesisResult:
    """Synthesize a rule family over grammar (see the module docstring).

    int_semantics: the fingerprints' semantics ("no_overflow" makes overflowing slots don't-cares);
    rules are proved under wrap first either way. base: the rule set candidates are minimized
    against ("default": the hand-written rules; "none": only SUPPORT_FAMILIES, a self-contained
    family). max_candidates and time_limit (seconds) bound the run; log_path makes it resumable.
    """
    if int_semantics not in ("wrap", "no_overflow"):
        raise SynthesisError(f"int_semantics must be 'wrap' or 'no_overflow', got {int_semantics!r}")
    base_families = _base_families(base)
    start = time.perf_counter()
    settings = _settings(grammar, int_semantics, seed, base, max_candidates)
    log_file = Path(log_path) if log_path is not None else None
    previous = _read_log(log_file, settings)
    log: list[dict[str, Any]] = []
    sink = None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        sink = log_file.open("w")
        sink.write(json.dumps({"settings": settings}) + "\n")

    def record(row: dict[str, Any]) -> None:
        log.append(row)
        if sink is not None:
            sink.write(json.dumps(row) + "\n")
            sink.flush()

    show = sys.stderr.isatty() if progress is None else progress
    inputs = make_inputs(grammar, seed)
    enum = Enumerator(grammar, inputs, int_semantics)
    cands: list[Candidate] = []
    for c in enum.run(stop=lambda: len(cands) >= max_candidates or time.perf_counter() - start > time_limit):
        cands.append(c)
    t_enum = time.perf_counter() - start
    drafts = _drafts(cands, grammar, inputs, record)
    kept: list[SynthRule] = []
    taken: set[str] = set()
    complete = not enum.stopped
    timings = {"derive": 0.0, "prove": 0.0}

    def rule_set() -> Any:  # the base and the rules kept so far: a value, nothing registered
        return with_family(base_families, family, _egg_body(kept, grammar, family))

    current = rule_set()
    try:
        with _Progress(show, len(drafts)) as bar:
            for d in drafts:
                if time.perf_counter() - start > time_limit:
                    complete = False
                    break
                row = _decide(d, grammar, previous, current, family, taken, timings)
                record(row)
                if row["outcome"] == "kept":
                    sem, guarded = row["int_semantics"], row["guarded"]
                    kept.append(SynthRule(row["name"], d.lhs, d.rhs, d.condition, sem, guarded))
                    current = rule_set()
                bar.advance(len(kept))
    finally:
        if sink is not None:
            sink.close()
    stats = {
        "terms": enum.terms_seen,
        "representatives": sum(len(v) for d in enum.representatives.values() for v in d.values()),
        "candidates": len(cands),
        "drafts": len(drafts),
        "rules": len(kept),
        "seconds": time.perf_counter() - start,
        "seconds_enumerate": t_enum,
        "seconds_derive": timings["derive"],
        "seconds_prove": timings["prove"],
        "fingerprint_rows": inputs.size,
    }
    return SynthesisResult(family, grammar, kept, log, stats, complete)


def _decide(
    d: _Draft,
    g: Grammar,
    previous: dict[str, dict[str, Any]],
    rules: Any,
    family: str,
    taken: set[str],
    timings: dict[str, float],
) -> dict[str, Any]:
    """Keep, drop as derivable, or drop as unproved: one draft (replayed from the log if there)."""
    row: dict[str, Any] = {"key": d.key, "lhs_size": tree_size(d.lhs), "condition": str(d.condition or "")}
    old = previous.get(d.key)
    if old is not None:
        if old["outcome"] == "kept":
            taken.add(old["name"])
        return old
    li, ri = instance(d.lhs, d.rhs, d.condition, g)
    t = time.perf_counter()
    derivable = derives(rules, li, ri, "wrap")
    timings["derive"] += time.perf_counter() - t
    if derivable:
        return {**row, "outcome": "derivable", "int_semantics": "wrap"}
    t = time.perf_counter()
    verdict = prove_rule(SynthRule("", d.lhs, d.rhs, d.condition, "wrap"), g)
    timings["prove"] += time.perf_counter() - t
    if verdict.int_semantics is None:
        return {**row, "outcome": "unproved", "reason": verdict.reason}
    if verdict.int_semantics == "no_overflow":
        t = time.perf_counter()
        derivable = derives(rules, li, ri, "no_overflow")
        timings["derive"] += time.perf_counter() - t
        if derivable:
            return {**row, "outcome": "derivable", "int_semantics": "no_overflow"}
    name = _name(d.lhs, d.condition, family, taken)
    return {
        **row,
        "outcome": "kept",
        "name": name,
        "int_semantics": verdict.int_semantics,
        "guarded": verdict.guarded,
    }


class _Progress:
    """A rich progress bar on a TTY; nothing otherwise."""

    def __init__(self, show: bool, total: int) -> None:
        self.show, self.total, self.bar, self.task = show, total, None, None

    def __enter__(self) -> _Progress:
        if self.show:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("synthesize"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[kept]} rules"), TimeRemainingColumn(), transient=True,
            )  # fmt: skip
            self.bar.start()
            self.task = self.bar.add_task("candidates", total=self.total, kept=0)
        return self

    def advance(self, kept: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1, kept=kept)

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def _egg_body(rules: list[SynthRule], g: Grammar, family: str) -> str:
    return "".join(f"{rule_text(r, g, family)}\n" for r in rules)


def egg_text(result: SynthesisResult) -> str:
    """The .egg file of a synthesis result: a header saying how it was made, then the rules."""
    g, s = result.grammar, result.stats
    outcomes = result.outcomes()
    sems = [r.int_semantics for r in result.rules]
    header = [
        f"; {result.family}: rules synthesized by `eqsat-uopc synthesize` (eqsat_uopc.synthesis);",
        "; regenerate rather than edit.",
        f"; grammar: {g.describe()}",
        f"; {s.get('terms', 0)} terms, {s.get('candidates', 0)} candidates, {len(result.rules)} rules "
        f"({sems.count('wrap')} wrap, {sems.count('no_overflow')} no_overflow; "
        f"{sum(r.guarded for r in result.rules)} of those with a guard)",
        "; dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()) if k != "kept"),
        "; a rule is wrap unless declared no_overflow; the :guard of a no_overflow rule proves from lo/hi",
        '; that no ADD or MUL wraps, and makes the guarded form that int_semantics="wrap" runs.',
        f"; variables: {', '.join([*g.variables, *g.bool_variables]) or 'none'} match any e-class of "
        f"their type; {', '.join(g.constant_variables) or 'none'} match integer literals.",
    ]
    if not result.complete:
        header.append("; INCOMPLETE: stopped by the time limit or the candidate budget (rerun to continue)")
    return "\n".join(header) + "\n\n" + _egg_body(result.rules, g, result.family)


def log_path_for(out: str | Path) -> Path:
    """Where the log (JSON lines) of a family written to `out` lives: `<out>.log` beside it."""
    out = Path(out)
    return out.with_name(out.name + ".log")


def write_family(result: SynthesisResult, out: str | Path) -> Path:
    """Write the .egg file of a synthesis result (rules.load_family(path) reads it into a Family)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(egg_text(result))
    return out
