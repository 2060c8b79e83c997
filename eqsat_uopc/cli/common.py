"""What every subcommand shares: the command's own error, reading .uir files, output checks, and one
validated option per SaturationConfig setting."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eqsat_uopc.cli_options import integer, option, seconds, yes_no
from eqsat_uopc.errors import ProgramError, UserError

if TYPE_CHECKING:
    from eqsat_uopc.ir.examples import Example
    from eqsat_uopc.saturation import SaturationConfig

__all__ = [
    "CliError",
    "load",
    "need_compiler",
    "program_errors",
    "saturation_config",
    "saturation_options",
    "say",
    "uir_files",
    "writable",
]


class CliError(UserError):
    """A failure the command itself finds (a missing file, an empty directory): its message is the
    whole line, exit status 1."""


def say(message: str) -> None:
    print(f"eqsat-uopc: error: {message}", file=sys.stderr)


# ---------------------------------------------------------------------------
# files


def uir_files(target: Path) -> Iterator[Path]:
    if target.is_dir():
        files = sorted(target.glob("*.uir"))
        if not files:
            raise CliError(f"{target}: no .uir files in this directory")
        yield from files
    elif target.is_file():
        yield target
    else:
        raise CliError(f"{target}: no such file or directory")


def load(path: Path) -> Example:
    from eqsat_uopc.ir.examples import load_example
    from eqsat_uopc.ir.uir import UirError

    try:
        return load_example(path)
    except UnicodeDecodeError:
        raise CliError(f"{path}: not a .uir text file (not UTF-8)") from None
    except FileNotFoundError:
        raise CliError(f"{path}: no such file or directory") from None
    except OSError as e:
        raise CliError(f"{path}: cannot read: {e.strerror}") from None
    except UirError as e:  # its message names the file, line and column
        raise CliError(str(e)) from None


@contextmanager
def program_errors(path: Path) -> Iterator[None]:
    """A ProgramError raised by the work on the program of `path` (its own evaluation fails: a
    constant index out of bounds) as that program's error: one line naming the file, status 1."""
    try:
        yield
    except ProgramError as e:
        raise CliError(
            f"{path}: {type(e).__name__}: {e} (the program's own error: evaluating it fails)"
        ) from None


def writable(path: str | None, flag: str) -> None:
    """Refuse, before any work, an output file whose directory does not exist."""
    if path is None:
        return
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise CliError(f"{flag} {path}: directory {parent} does not exist")


def need_compiler(what: str) -> None:
    """Refuse, before any work, an option that needs the C compiler when there is none."""
    from eqsat_uopc.backend import CompilerNotFoundError
    from eqsat_uopc.backend.toolchain import compiler_command

    try:
        compiler_command()
    except CompilerNotFoundError as e:
        raise CliError(f"{what} times programs compiled by the C backend: {e}") from None


# ---------------------------------------------------------------------------
# saturation settings, one option per SaturationConfig field


def saturation_options(p: argparse.ArgumentParser, extra_costs: Sequence[str] = ()) -> None:
    """One validated option per SaturationConfig setting, with the config's defaults and help;
    extra_costs are more choices of --cost that the command handles itself (optimize's "measured")."""
    import dataclasses

    from eqsat_uopc.cli.rule_files import rule_file_options, rules_spec
    from eqsat_uopc.extract import COST_MODELS, EXTRACTORS
    from eqsat_uopc.rules import INT_SEMANTICS, RULE_SETS
    from eqsat_uopc.saturation import DEFAULT_CONFIG, FIELD_HELP

    choices = {
        "int_semantics": list(INT_SEMANTICS),
        "cost": [*COST_MODELS, *extra_costs],
        "extractor": ["auto", *EXTRACTORS],
    }
    for f in dataclasses.fields(DEFAULT_CONFIG):
        default = getattr(DEFAULT_CONFIG, f.name)
        flags = [f"--{f.name.replace('_', '-')}", *(["--budget"] if f.name == "node_budget" else [])]
        kw: dict[str, Any] = {"dest": f.name}
        if isinstance(default, bool):
            kw.update(type=yes_no, metavar="yes|no")
        elif f.name == "rules":
            kw.update(type=rules_spec, metavar="SPEC")  # names checked here, files when loaded
        elif f.name in choices:
            kw["choices"] = choices[f.name]
        elif f.name in ("time_limit", "extract_time_limit"):  # wall-clock, off by default
            kw.update(type=seconds(allow_none=True), metavar="S|none")
        elif f.name == "extract_branch_limit":
            kw.update(type=integer(minimum=1, allow_none=True), metavar="N|none")
        elif f.name == "match_budget":  # None: derived from the node budget (match_budget_in_effect)
            kw.update(type=integer(minimum=1), metavar="N")
        elif isinstance(default, float):
            kw.update(type=seconds(), metavar="S")
        else:
            kw.update(type=integer(minimum=1), metavar="N")
        help_text = FIELD_HELP[f.name].replace("(None: no limit)", "('none': no limit)")
        if f.name == "rules":
            help_text = help_text.replace("; or a RuleSet", f" (rule sets: {', '.join(RULE_SETS)})")
        shown = "none" if default is None else None
        if f.name == "match_budget":
            shown = "100 per e-node of --node-budget, at least 1000000"
            help_text = help_text.replace("; None: 100 per e-node of node_budget, at least 1,000,000", "")
        option(p, *flags, default=default, help=help_text, shown=shown, **kw)
    rule_file_options(p)


def saturation_config(args: argparse.Namespace) -> SaturationConfig:
    """The config of the saturation options; a --rules spec naming files is loaded here, the files
    checked and proved (load_rule_files), so that every run of the command uses that one value."""
    import dataclasses

    from eqsat_uopc.cli.rule_files import rules_of
    from eqsat_uopc.saturation import SaturationConfig

    settings = {f.name: getattr(args, f.name) for f in dataclasses.fields(SaturationConfig)}
    return SaturationConfig(**settings | {"rules": rules_of(args)})
