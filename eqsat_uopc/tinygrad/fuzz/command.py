"""`eqsat-uopc fuzz-tinygrad`: the command-line front of the fuzzer (cli/fuzz.py registers it and passes
the optimizer: `optimize` lives above this layer).

Every option is checked before any work; a bad one is one line on stderr naming the option, the
value and what is allowed, and exit status 2. The run prints the comparison per int semantics and
per template, the minimized cases grouped by the tinygrad rules they need, and every unsound
result; exit status 1 if any result was unsound or the optimizer raised, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from eqsat_uopc.fuzz.workers import terminal_progress
from eqsat_uopc.tinygrad.fuzz.grammar import TEMPLATES

__all__ = ["UsageError", "add_arguments", "run", "settings_from"]

_SHOWN = 10  # unsound results and optimizer errors printed at most (the JSON has every one)
_SEMANTICS = {"both": ("no_overflow", "wrap"), "no_overflow": ("no_overflow",), "wrap": ("wrap",)}


class UsageError(ValueError):
    """A bad option value: printed as one line, exit status 2."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed",
        action="append",
        default=None,
        metavar="N|A..B",
        help="seed or inclusive range, repeatable (default: 0)",
    )
    p.add_argument("--count", default="100", metavar="N", help="expressions per seed (default: 100)")
    p.add_argument(
        "--semantics", default="both", metavar="S", help="no_overflow, wrap or both (default: both)"
    )
    p.add_argument("--workers", default="1", metavar="N", help="worker processes (default: 1)")
    p.add_argument(
        "--json", default=None, metavar="FILE", help="write the JSON summary to FILE (default: none)"
    )
    p.add_argument(
        "--regressions",
        default=None,
        metavar="FILE",
        help="append the minimized cases (new shapes) to FILE (default: none)",
    )
    p.add_argument(
        "--no-shrink",
        action="store_true",
        help="check only: do not minimize the larger cases (default: minimize)",
    )
    p.add_argument(
        "--template",
        action="append",
        default=None,
        metavar="NAME",
        help="only these templates, repeatable or comma-separated (default: every template)",
    )
    p.add_argument(
        "--samples", default="200", metavar="N", help="inputs each result is checked on (default: 200)"
    )
    p.add_argument(
        "--shrink-per-template",
        default="8",
        metavar="N",
        help="larger cases minimized per template (default: 8)",
    )
    p.add_argument(
        "--shrink-budget",
        default="200",
        metavar="N",
        help="optimizer calls per minimized case (default: 200)",
    )


def _int(option: str, text: str, lo: int, hi: int | None = None) -> int:
    allowed = f"an integer >= {lo}" if hi is None else f"an integer from {lo} to {hi}"
    try:
        v = int(text)
    except ValueError:
        raise UsageError(f"{option}: got {text!r}, allowed: {allowed}") from None
    if v < lo or (hi is not None and v > hi):
        raise UsageError(f"{option}: got {text!r}, allowed: {allowed}")
    return v


def _seeds(given: list[str] | None) -> tuple[int, ...]:
    seeds: list[int] = []
    for text in given or ["0"]:
        if ".." in text:
            a, _, b = text.partition("..")
            try:
                lo, hi = int(a), int(b)
            except ValueError:
                lo = hi = -1
            if lo < 0 or hi < lo:
                raise UsageError(
                    f"--seed: got {text!r}, allowed: an integer >= 0 or a range A..B with 0 <= A <= B"
                )
            seeds.extend(range(lo, hi + 1))
        else:
            seeds.append(_int("--seed", text, 0))
    return tuple(dict.fromkeys(seeds))


def _templates(given: list[str] | None) -> tuple[str, ...] | None:
    if not given:
        return None
    names = [n.strip() for text in given for n in text.split(",") if n.strip()]
    for n in names:
        if n not in TEMPLATES:
            raise UsageError(f"--template: got {n!r}, allowed: {', '.join(TEMPLATES)}")
    return tuple(dict.fromkeys(names))


def _writable(option: str, text: str | None) -> None:
    if text is not None and not Path(text).resolve().parent.is_dir():
        raise UsageError(f"--{option}: got {text!r}, allowed: a file in an existing directory")


def settings_from(args: argparse.Namespace) -> Any:
    """The FuzzSettings the options ask for; UsageError on the first bad option."""
    from eqsat_uopc.tinygrad.fuzz.campaign import FuzzSettings

    if args.semantics not in _SEMANTICS:
        raise UsageError(f"--semantics: got {args.semantics!r}, allowed: {', '.join(_SEMANTICS)}")
    _writable("json", args.json)
    _writable("regressions", args.regressions)
    if args.regressions is not None and Path(args.regressions).exists():
        from eqsat_uopc.corpus.errors import CorpusError
        from eqsat_uopc.tinygrad.fuzz.regressions import load_regressions

        try:
            load_regressions(args.regressions)
        except (CorpusError, OSError) as e:
            raise UsageError(
                f"--regressions: got {args.regressions!r}, which is not a regression corpus: {e}"
            ) from None
    return FuzzSettings(
        seeds=_seeds(args.seed),
        count=_int("--count", args.count, 1),
        semantics=_SEMANTICS[args.semantics],
        templates=_templates(args.template),
        samples=_int("--samples", args.samples, 1, 100_000),
        shrink=not args.no_shrink,
        shrink_budget=_int("--shrink-budget", args.shrink_budget, 1),
        shrink_per_template=_int("--shrink-per-template", args.shrink_per_template, 0),
        workers=_int("--workers", args.workers, 1, 64),
    )


def run(args: argparse.Namespace, optimizer: Any) -> int:
    """The command: options checked, the campaign run, the report printed (and written)."""
    from eqsat_uopc.tinygrad.fuzz.campaign import fuzz
    from eqsat_uopc.tinygrad.fuzz.regressions import append_regressions

    try:
        settings = settings_from(args)
    except UsageError as e:
        print(f"eqsat-uopc: error: {e}", file=sys.stderr)
        return 2
    bar, phase = terminal_progress()
    if bar is not None:
        with bar:
            report = fuzz(settings, optimizer, phase)
    else:
        report = fuzz(settings, optimizer)
    if args.regressions is not None:
        report.regressions_written = append_regressions(args.regressions, report.regressions)
    summary = report.summary()
    summary["minimized"] = report.regressions
    print(render(summary))
    if args.json is not None:
        Path(args.json).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return 1 if summary["unsound"] or summary["optimizer_errors"] else 0


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def render(summary: dict[str, Any]) -> str:
    """The text report of a summary: per semantics, per template, the minimized cases by tinygrad
    rule, and the unsound results."""
    lines = [
        f"fuzz-tinygrad: {summary['expressions']} expressions (seeds {_seed_text(summary['seeds'])}, "
        f"{summary['count']} each), {summary['samples']} inputs per check",
    ]
    for sem, r in summary["results"].items():
        lines.append(
            f"  {sem:<11} smaller {r['smaller']:>5}  equal {r['equal']:>5}  larger {r['larger']:>5}  "
            f"no tinygrad {r['no_tinygrad']:>3}  errors {r['error']:>3}  unsound {r['unsound']:>3}  "
            f"at most tinygrad's {_pct(r['at_most_tinygrad'])}  smaller {_pct(r['smaller_share'])}"
        )
    sems = summary["int_semantics"]
    lines.append("")
    lines.append("  per template (smaller/equal/larger/unsound): " + ", ".join(sems))
    for t, by_sem in summary["per_template"].items():
        cells = "   ".join(
            f"{c['smaller']:>4}/{c['equal']:>4}/{c['larger']:>4}/{c['unsound']}" for c in by_sem.values()
        )
        lines.append(f"  {t:<18} {cells}")
    if summary["tinygrad_errors"] or summary["tinygrad_disagreements"]:
        lines.append("")
        lines.append(
            f"  tinygrad failed on {summary['tinygrad_errors']}, and disagreed with its input on "
            f"{len(summary['tinygrad_disagreements'])}"
        )
        for d in summary["tinygrad_disagreements"][:10]:
            where = f"{d['expr']} {d['bounds']}"
            lines.append(f"    {d['key']} {d['template']}: {where} -> {d['tinygrad']} at {d['inputs']}")
    if summary["minimized"]:
        lines.append("")
        s = summary
        lines.append(
            f"  larger than tinygrad, minimized ({s['shrunk']} shrunk, {s['shrink_dropped']} dropped, "
            f"{s['regressions']} shapes):"
        )
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in summary["minimized"]:
            groups.setdefault(_group(row), []).append(row)
        for name, rows in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  [{len(rows)}] {name}")
            for row in rows[:3]:
                lines.append(
                    f"      {row['expr']} {row['bounds']} ({row['int_semantics']}): ours {row['ours_size']} "
                    f"{row['ours']}, tinygrad {row['tinygrad_size']} {row['tinygrad']}"
                )
    for u in summary["unsound"][:_SHOWN]:
        lines.append(
            f"  UNSOUND {u['key']} {u['template']} ({u['int_semantics']}): {u['expr']} {u['bounds']} -> "
            f"{u['ours']} at {u['inputs']}: expected {u['expected']}, got {u['got']}"
        )
    for e in summary["optimizer_errors"][:_SHOWN]:
        lines.append(f"  OPTIMIZER ERROR {e['key']} {e['template']} ({e['int_semantics']}): {e['error']}")
    hidden = max(0, len(summary["unsound"]) - _SHOWN) + max(0, len(summary["optimizer_errors"]) - _SHOWN)
    if hidden:
        lines.append(f"  ... and {hidden} more (the JSON summary lists them all)")
    return "\n".join(lines)


def _group(row: dict[str, Any]) -> str:
    from eqsat_uopc.tinygrad.fuzz.attribution import significant

    rules = tuple(row.get("tinygrad_rules", ()))
    return " + ".join(significant(rules) or rules) or "(no rule)"


def _seed_text(seeds: list[int]) -> str:
    if seeds and seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2:
        return f"{seeds[0]}..{seeds[-1]}"
    return ",".join(map(str, seeds))
