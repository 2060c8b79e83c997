"""`eqsat-uopc fuzz-soundness`: the command-line front of the soundness fuzzer (cli/fuzz_soundness.py
registers it and passes the optimizers: `optimize` lives above this layer).

Every option is checked when the command line is read (eqsat_uopc.cli_options), before any work; a
bad one is one line on stderr naming the option, the value and what is allowed, exit status 2. The
run shows its progress (a bar on a terminal, else a line on stderr at every tenth of each phase),
then prints, per optimizer and int semantics, how many results were identical to their input,
proved by z3, only tested (z3 unknown), unsound and crashed; then per family and per template, the
minimized failures with what to suspect; exit status 1 if anything was unsound or crashed, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from eqsat_uopc.cli_options import UsageError, integer, option, subset
from eqsat_uopc.fuzz.soundness.check import DEFAULT_RLIMIT, Optimizer
from eqsat_uopc.fuzz.soundness.registry import TEMPLATES
from eqsat_uopc.ir.uir import parse_uir, uir_line

__all__ = ["INT_SEMANTICS_CHOICES", "add_arguments", "render", "run", "settings_from"]

INT_SEMANTICS_CHOICES = {"both": ("wrap", "no_overflow"), "wrap": ("wrap",), "no_overflow": ("no_overflow",)}
_SHOWN = 12  # minimized failures and unshrunk failures printed at most (the JSON has every one)


def _seeds(text: str) -> tuple[int, ...]:
    expected = "an integer >= 0 or a range A..B with 0 <= A <= B"
    if ".." in text:
        a, _, b = text.partition("..")
        try:
            lo, hi = int(a), int(b)
        except ValueError:
            lo = hi = -1
        if lo < 0 or hi < lo:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return tuple(range(lo, hi + 1))
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return (v,)


def add_arguments(p: argparse.ArgumentParser) -> None:
    option(
        p,
        "--seed",
        type=_seeds,
        action="append",
        default=None,
        shown="0",
        metavar="N|A..B",
        help="seed or inclusive range, repeatable",
    )
    option(p, "--count", type=integer(minimum=1), default=100, metavar="N", help="expressions per seed")
    option(
        p,
        "--int-semantics",
        choices=list(INT_SEMANTICS_CHOICES),
        default="both",
        help="the int semantics to check under",
    )
    option(
        p, "--workers", type=integer(minimum=1, maximum=64), default=1, metavar="N", help="worker processes"
    )
    option(
        p,
        "--memory-limit",
        type=integer(minimum=0),
        default=4096,
        metavar="MB",
        help="each worker process's address space; a case that needs more is a crash, and only its worker "
        "dies (0: no limit, and with one worker no worker process)",
    )
    option(
        p,
        "--out",
        default=None,
        shown="none",
        metavar="FILE",
        help="write the JSON summary (every failure) to FILE",
    )
    option(
        p,
        "--json",
        action="store_true",
        default=False,
        help="print the JSON summary instead of the text report",
    )
    option(
        p,
        "--template",
        type=subset(TEMPLATES, "templates"),
        action="append",
        default=None,
        shown="every template",
        metavar="NAMES",
        help="only these templates (comma-separated, repeatable)",
    )
    option(
        p,
        "--samples",
        type=integer(minimum=1, maximum=100_000),
        default=64,
        metavar="N",
        help="edge inputs each result is tested on before z3",
    )
    option(
        p,
        "--rlimit",
        type=integer(minimum=1),
        default=DEFAULT_RLIMIT,
        metavar="N",
        help="z3's resource limit per proof (deterministic, unlike a timeout)",
    )
    option(
        p, "--no-shrink", action="store_true", default=False, help="check only: do not minimize the failures"
    )
    option(
        p,
        "--shrink-per-template",
        type=integer(minimum=0),
        default=10,
        metavar="N",
        help="failures minimized per template, optimizer, int semantics and kind",
    )
    option(
        p,
        "--shrink-budget",
        type=integer(minimum=1),
        default=150,
        metavar="N",
        help="optimizer calls per minimized failure",
    )
    option(
        p,
        "--regressions",
        default=None,
        shown="none",
        metavar="FILE",
        help="append the minimized failures (new shapes) to this soundness corpus file",
    )
    option(
        p,
        "--failures",
        default=None,
        shown="none",
        metavar="FILE",
        help="append every minimized failure (one JSON object per line) to FILE",
    )


def _writable(flag: str, text: str | None) -> None:
    if text is not None and not Path(text).resolve().parent.is_dir():
        raise UsageError(f"argument {flag}: expected a file in an existing directory, got {text!r}")


def settings_from(args: argparse.Namespace) -> Any:
    """The SoundnessSettings the options ask for; UsageError for an output file that cannot be written
    or a corpus file that is not one."""
    from eqsat_uopc.fuzz.soundness.campaign import SoundnessSettings

    for flag in ("out", "regressions", "failures"):
        _writable(f"--{flag}", getattr(args, flag))
    if args.regressions is not None and Path(args.regressions).exists():
        from eqsat_uopc.corpus.errors import CorpusError
        from eqsat_uopc.fuzz.soundness.regressions import load_cases

        try:
            load_cases(args.regressions)
        except (CorpusError, OSError) as e:
            raise UsageError(
                f"argument --regressions: {args.regressions!r} is not a soundness corpus: {e}"
            ) from None
    seeds = tuple(dict.fromkeys(s for group in args.seed or [(0,)] for s in group))
    templates = tuple(dict.fromkeys(t for group in args.template for t in group)) if args.template else None
    return SoundnessSettings(
        seeds=seeds,
        count=args.count,
        semantics=INT_SEMANTICS_CHOICES[args.int_semantics],
        templates=templates,
        samples=args.samples,
        rlimit=args.rlimit,
        shrink=not args.no_shrink,
        shrink_budget=args.shrink_budget,
        shrink_per_template=args.shrink_per_template,
        workers=args.workers,
        memory_mb=args.memory_limit or None,
    )


def run(args: argparse.Namespace, optimizers: Mapping[str, Optimizer]) -> int:
    """The command: the campaign run, the report printed (and written); 1 if anything failed."""
    from eqsat_uopc.fuzz.soundness.campaign import fuzz_soundness
    from eqsat_uopc.fuzz.soundness.regressions import append_cases
    from eqsat_uopc.fuzz.workers import terminal_progress

    settings = settings_from(args)
    bar, phase = (None, None) if args.json else terminal_progress()
    if bar is not None:
        with bar:
            report = fuzz_soundness(settings, optimizers, phase)
    else:
        report = fuzz_soundness(settings, optimizers, _progress_lines)
    if args.regressions is not None:
        report.regressions_written = append_cases(args.regressions, report.regressions)
    if args.failures is not None:
        with Path(args.failures).open("a") as f:
            for s in report.shrunk:
                f.write(json.dumps(s.row(), sort_keys=True) + "\n")
    summary = report.summary()
    text = json.dumps(summary, indent=1, sort_keys=True)
    print(text if args.json else render(summary))
    if args.out is not None:
        Path(args.out).write_text(text + "\n")
    return 1 if summary["failures"] else 0


def _progress_lines(phase: str, total: int) -> Callable[[], None]:
    """Off a terminal (a long run in the background): a line on stderr at every tenth of a phase."""
    done = [0]

    def tick() -> None:
        done[0] += 1
        if total >= 10 and done[0] * 10 // total != (done[0] - 1) * 10 // total:
            print(f"fuzz-soundness: {phase} {done[0]}/{total}", file=sys.stderr, flush=True)

    return tick


# ---------------------------------------------------------------------------
# the text report


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _seed_text(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}..{seeds[-1]}"
    return ",".join(map(str, seeds))


def _bad(c: dict[str, int]) -> str:
    return f"{c['unsound']}/{c['crash']}"


def _program_text(uir: str) -> str:
    """A program as one line, with its inputs' bounds: `floormod(p0, 3) [p0 in 0..100]`."""
    p = parse_uir(uir)
    bounded = sorted(
        {
            (u.arg.slot, u.arg.bounds)
            for u in p.toposort()
            if u.op.name == "PARAM" and u.arg.bounds is not None
        }
    )
    where = ", ".join(f"p{slot} in {lo}..{hi}" for slot, (lo, hi) in bounded)
    return uir_line(p) + (f" [{where}]" if where else "")


def _result_text(uir: str | None) -> str:
    return uir_line(parse_uir(uir)) if uir else "-"


def render(summary: dict[str, Any]) -> str:
    """The text report of a summary: totals per optimizer and semantics, per family and template,
    the minimized failures with their suspects."""
    sems = summary["int_semantics"]
    lines = [
        f"fuzz-soundness: {summary['expressions']} expressions (seeds {_seed_text(summary['seeds'])}, "
        f"{summary['count']} each), {summary['samples']} edge inputs per check, z3 rlimit {summary['rlimit']}"
    ]
    for label, by_sem in summary["results"].items():
        lines.append(f"  optimizer {label}:")
        for sem, c in by_sem.items():
            lines.append(
                f"    {sem:<11} identical {c['identical']:>5}  proved {c['proved']:>5}  "
                f"z3 unknown {c['tested']:>4}  unsound {c['unsound']:>4} (undefined {c['new_undefined']})  "
                f"crash {c['crash']:>4}  proved or identical {_pct(c['proved_share'])}"
            )
    labels = summary["optimizers"]
    header = "   ".join(f"{label}/{sem}" for label in labels for sem in sems)
    lines += ["", f"  per family (unsound/crash of cases): {header}"]
    for fam, by in summary["per_family"].items():
        n = sum(by[labels[0]][sems[0]][s] for s in ("identical", "proved", "tested", "unsound", "crash"))
        cells = "   ".join(_bad(by[label][sem]) for label in labels for sem in sems)
        lines.append(f"  {fam:<22} {n:>6}   {cells}")
    lines += ["", f"  per template (unsound/crash of cases): {header}"]
    for t, by in summary["per_template"].items():
        n = sum(by[labels[0]][sems[0]][s] for s in ("identical", "proved", "tested", "unsound", "crash"))
        cells = "   ".join(_bad(by[label][sem]) for label in labels for sem in sems)
        lines.append(f"  {t:<28} {n:>6}   {cells}")
    rows = summary["regressions"]
    if rows:
        lines += [
            "",
            f"  minimized failures ({summary['shrunk']} shrunk, {summary['not_shrunk']} not shrunk, "
            f"{summary['not_reproduced']} not reproduced, {len(rows)} shapes):",
        ]
        for row in rows[:_SHOWN]:
            blame = row["suspect"].get("family", "?")
            lines.append(
                f"  [{blame}] {row['int_semantics']} {row['failure']}: {_program_text(row['program'])}"
            )
            if row["failure"] == "crash":
                lines.append(f"      {row['error']} at {row['where']}")
            else:
                cex = row.get("counterexample", {})
                lines.append(
                    f"      -> {_result_text(row.get('result'))} at {cex.get('inputs')}: "
                    f"expected {cex.get('expected')}, got {cex.get('got')}"
                )
    elif summary["failures"]:
        lines.append("")
        for f in summary["failures"][:_SHOWN]:
            what = f.get("error") or f"-> {_result_text(f.get('result'))} at {f['counterexample']['inputs']}"
            lines.append(
                f"  {f['status'].upper()} {f['key']} {f['template']} ({f['optimizer']}, "
                f"{f['int_semantics']}): {_program_text(f['program'])} {what}"
            )
    hidden = max(0, (len(rows) if rows else len(summary["failures"])) - _SHOWN)
    if hidden:
        lines.append(f"  ... and {hidden} more (the JSON summary lists them all)")
    return "\n".join(lines)
