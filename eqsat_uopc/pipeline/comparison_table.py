"""The human-readable face of a corpus comparison: the rows as a table, the summary with units.

`compare_job` / `summarize` (comparison.py) make the rows and the summary; the JSON and CSV the
command line writes are those, unchanged. This module is what a person reads instead: one line per
program (costs under the chosen model, the outcome, why saturation stopped, the verdict, optimize's
validation, seconds),
the full text of every failure below the table (a table cell cuts messages), the summary as a
two-column table whose numbers carry their units and say what they are over (the compared
programs; the geometric mean names the rows it leaves out and why; unverified outcomes are
counted apart), the time split by phase with a hint when verification dominates, and a one-line
legend of the terms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eqsat_uopc.pipeline.comparison import GEOMEAN_LEFT_OUT

__all__ = ["LEGEND", "failures_text", "rows_table", "summary_text", "validated_cell", "verify_hint"]

LEGEND = (
    "legend: ratio = saturated cost / greedy cost (below 1: saturation found a smaller program); "
    "greedy_refuted = greedy's result is wrong under the int semantics; smaller/equal/larger_unverified "
    "= greedy's result was not verified (--no-verify, or its verdict is unknown), so a wrong one "
    "(which verification calls greedy_refuted) shows as larger or equal; stop = why saturation "
    "stopped; verdict = saturated result vs the input: proved (z3), tested (random inputs agreed), "
    "refuted (a counterexample), vacuous (no input is defined for both), unknown (nothing could be "
    "compared); validated = optimize's own check of its result before returning it: identical (the "
    "input itself), proved (z3), tested (the evaluator agreed), replaced by greedy/input (the result "
    "was refuted and that candidate returned instead: a bug of the rewrites)"
)

# header, row key, format; "greedy"/"saturated" hold the cost under the chosen model
_COLUMNS = (
    ("program", "key", "{}"),
    ("size", "size", "{}"),
    ("greedy", "greedy_cost", "{:g}"),
    ("saturated", "saturated_cost", "{:g}"),
    ("ratio", "ratio", "{:.3f}"),
    ("outcome", "outcome", "{}"),
    ("stop", "stop_reason", "{}"),
    ("verdict", "verdict", "{}"),
    ("validated", "validated", "{}"),
    ("time (s)", "seconds", "{:.2f}"),
)
_AGAINST_TINYGRAD = (("tinygrad", "tinygrad_cost", "{:g}"), ("vs tinygrad", "vs_tinygrad", "{}"))
_FAILED_CELL = 24  # a failed row's status and error start, in the verdict column


def _aligned(cells: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    )


def rows_table(rows: Sequence[Mapping[str, Any]], cost: str, against: str | None = None) -> str:
    """One line per row under a header; costs are under `cost` (named in the header: size is the
    input's node count). A row that did not complete shows its status, and the start of its error
    (failures_text has it in full)."""
    columns = _COLUMNS[:4] + _AGAINST_TINYGRAD + _COLUMNS[4:] if against == "tinygrad" else _COLUMNS
    header = [h if k not in ("greedy_cost", "saturated_cost", "tinygrad_cost") else f"{h} ({cost})"
              for h, k, _ in columns]  # fmt: skip
    cells = [header]
    for r in rows:
        if r.get("status", "ok") != "ok":
            error = str(r.get("error") or "")
            short = error if len(error) <= _FAILED_CELL else error[: _FAILED_CELL - 1] + "…"
            failed = {"key": r["key"], "outcome": r["status"], "verdict": short}
            cells.append([failed.get(k, "") for _, k, _ in columns[:-1]] + [f"{r.get('seconds') or 0:.2f}"])
            continue
        view = {
            **r,
            "validated": validated_cell(r),
            "greedy_cost": r[f"greedy_{cost}"],
            "saturated_cost": r[f"saturated_{cost}"],
            "tinygrad_cost": r.get(f"tinygrad_{cost}"),
        }
        cells.append(["" if view.get(k) is None else fmt.format(view[k]) for _, k, fmt in columns])
    return _aligned(cells)


def validated_cell(row: Mapping[str, Any]) -> str | None:
    """The validation of a row as its table cell: its status, or `replaced by greedy` (by `input`)
    when optimize refuted its result and returned another candidate."""
    if row.get("validation_replaced"):
        return f"replaced by {row.get('validation_returned')}"
    return row.get("validation")


def failures_text(rows: Sequence[Mapping[str, Any]], expected: Mapping[str, str] | None = None) -> str:
    """Every row that did not complete, with its whole error, one line each ("" if there is none).
    expected: key -> the error a .uir file's `# expect-error:` line announces; such a row says so."""
    lines = []
    for r in rows:
        if r.get("status", "ok") == "ok":
            continue
        note = (
            " (as the file's expect-error line says)"
            if expected and expected.get(r["key"]) == r["error"]
            else ""
        )
        lines.append(f"  {r['key']}: {r['status']}: {r.get('error')}{note}")
    return "" if not lines else "not compared:\n" + "\n".join(lines)


def _counts(counts: Mapping[str, int], order: Sequence[str] = ()) -> str:
    keys = [k for k in order if k in counts] + sorted(k for k in counts if k not in order)
    return ", ".join(f"{k} {counts[k]}" for k in keys) or "none"


def _seconds(s: float) -> str:
    return f"{s:.2f} s" if s < 120 else f"{s / 60:.1f} min"


def _keys(keys: Sequence[str], shown: int = 3) -> str:
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more


def _outcomes(s: Mapping[str, Any]) -> str:
    """The outcome counts: verified, then unverified (said so, with what it hides), each only when
    some row has it (both when none has either)."""
    ranks = ("smaller", "equal", "larger")
    verified = ", ".join(f"{r} {s[r]}" for r in ranks) + f", greedy refuted {s['greedy_refuted']}"
    unverified = sum(s.get(f"{r}_unverified", 0) for r in ranks)
    if not unverified:
        return verified
    text = (
        f"not verified {unverified}: "
        + ", ".join(f"{r} {s.get(f'{r}_unverified', 0)}" for r in ranks)
        + " (greedy's result unchecked: a wrong one counts as larger or equal here, not as greedy refuted)"
    )
    return text if unverified == s["completed"] else f"{verified}; {text}"


def _chosen(s: Mapping[str, Any]) -> str:
    """Which programs the rows are: a sample or the first N of the target (the command line's
    "selection"), and the results file they were read from, earlier runs' rows included."""
    text = ""
    if (chosen := s.get("selection")) is not None and chosen["how"] == "sample":
        text = f"; chosen: a random sample of {chosen['n']} of {chosen['of']} (seed {chosen['seed']})"
    elif chosen is not None:
        text = f"; chosen: the first {chosen['n']} of {chosen['of']}"
    if s.get("rows_file"):
        text += f"; rows read from {s['rows_file']} (any earlier run's included)"
    return text


def _geomean(s: Mapping[str, Any]) -> str:
    """The geometric mean, the rows it is over, and those it leaves out: how many, which, why."""
    left_out = s.get("geomean_left_out") or {}
    over = s.get("geomean_rows", 0)
    total = over + sum(len(v) for v in left_out.values())
    text = f"{s['geomean_ratio']:.3f} (saturated / greedy cost) over {over} of {total} programs"
    if unverified := sum(s.get(f"{r}_unverified", 0) for r in ("smaller", "equal", "larger")):
        text += f", greedy's result not verified on {unverified}"
    reasons = []
    for why, keys in left_out.items():
        what, because = GEOMEAN_LEFT_OUT.get(why, (why, "?"))
        reasons.append(f"{what} {len(keys)} ({_keys(keys)}), as {because}")
    return text + ("; left out: " + "; ".join(reasons) if reasons else "")


def summary_text(summary: Mapping[str, Any]) -> str:
    """The summary (comparison.summarize plus "int_semantics" and "cost_model") as a two-column
    table with units, the time split by phase, and a hint when verification took most of it. Each
    figure says what it is over: the compared programs (the counts sum to them), the geometric mean
    the rows it covers and those it leaves out, and why."""
    s = summary
    done = s["completed"]
    rows: list[tuple[str, str]] = [
        (
            "programs",
            f"{s['programs']} ({done} compared, {s['timeout']} timed out, {s['crashed']} crashed, "
            f"{s['error']} failed){_chosen(s)}",
        ),
        ("settings", f"int semantics {s['int_semantics']}, costs by {s['cost_model']}"),
        ("saturated vs greedy", _outcomes(s)),
    ]
    if s.get("geomean_ratio") is not None:
        rows.append(("geomean ratio", _geomean(s)))
    rows.append(
        ("greedy in e-graph", f"{s['greedy_in_egraph']} of {done} (saturation also found greedy's result)")
    )
    order = ("proved", "tested", "vacuous", "refuted", "unknown")
    for key, label in (("verdict", "saturated verdict"), ("greedy_verdict", "greedy verdict")):
        unchecked = done - sum(s[key].values())  # rows compared with verify=False
        counts = _counts(s[key], order) if s[key] else ""
        if unchecked:
            counts += ("; " if counts else "") + f"not checked {unchecked} (--no-verify)"
        if counts:
            rows.append((label, counts))
    if s.get("validation"):
        validated = _counts(s["validation"], ("identical", "proved", "tested", "unknown", "not_attempted"))
        rows.append(
            (
                "validated",
                f"{validated}; refuted and replaced {s.get('validation_replaced', 0)} (bugs of the rewrites)",
            )
        )
    if "saturated_proves" in s:
        rows.append(
            (
                "expected constant",
                f"reached by greedy {s['greedy_proves']}, by saturation {s['saturated_proves']}",
            )
        )
        rows.append(
            ("wrong constant", f"greedy {s['greedy_wrong']}, saturated {s['saturated_wrong']} (bugs)")
        )
    for key, label in (("vs_tinygrad", "vs tinygrad"), ("greedy_vs_tinygrad", "greedy vs tinygrad")):
        if key in s:
            rows.append((label, _counts(s[key], ("smaller", "equal", "larger"))))
    phases = ("saturate", "extract", "validate", "verify", "greedy")
    times = {p: s.get(f"time_{p}", 0.0) for p in phases}
    over = f" (summed over the {done} compared programs)"
    rows.append(("time", ", ".join(f"{p} {_seconds(times[p])}" for p in phases) + over))
    width = max(len(k) for k, _ in rows)
    lines = [f"  {k.ljust(width)}  {v}" for k, v in rows]
    if hint := verify_hint(times):
        lines.append(f"  {hint}")
    return "summary\n" + "\n".join(lines)


def verify_hint(times: Mapping[str, float]) -> str:
    """When verification took at least half the time (phase -> seconds), a line saying so and how to
    skip it; "" otherwise."""
    total = sum(times.values())
    if total <= 0 or times.get("verify", 0.0) < 0.5 * total:
        return ""
    share = round(100 * times["verify"] / total)
    return f"verification took {share}% of the time: --no-verify skips it, --samples lowers it"
