"""`--rules` with family files: the spec checked when the command line is read (an unknown name is
status 2), the files loaded, checked and proved before any work (a mistake in one, or a refuted
rule, is one line naming the file and line, status 1), a rule the verifier cannot check said on
stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from eqsat_uopc.cli.common import CliError

__all__ = ["load_rule_files", "rule_file_options", "rules_of", "rules_spec"]


def rules_spec(text: str) -> str:
    """A rules spec (eqsat_uopc.rules.RULES_SPEC): its names are checked here, its files when loaded."""
    from eqsat_uopc.rules import split_rules_spec

    try:
        split_rules_spec(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def rule_file_options(p: argparse.ArgumentParser) -> None:
    """The options of loading a --rules file: --allow-unsound, --quiet-rules."""
    p.add_argument(
        "--allow-unsound",
        action="store_true",
        help="load a rule of a --rules file that the verifier refutes (a warning each) instead of refusing "
        "it (default: refuse, status 1)",
    )
    p.add_argument(
        "--quiet-rules",
        action="store_true",
        help="no warning for a rule of a --rules file that the verifier cannot check "
        "(default: one line each, on stderr)",
    )


def rules_of(args: argparse.Namespace) -> Any:
    """What SaturationConfig's rules is: the spec itself, or the RuleSet of a spec naming files."""
    from eqsat_uopc.rules import split_rules_spec

    if not any(kind == "file" for kind, _ in split_rules_spec(args.rules)):
        return args.rules
    return load_rule_files(args.rules, args.allow_unsound, args.quiet_rules)


def load_rule_files(spec: str, allow_unsound: bool = False, quiet: bool = False) -> Any:
    """The RuleSet of a spec naming .egg files, the files checked and proved as they load
    (eqsat_uopc.verify.load_verified_rules): a mistake in one, or a rule the verifier refutes (unless
    allow_unsound), is a CliError naming the file and line; a refuted rule loaded anyway is a warning on
    stderr, and so is a rule it cannot check (unless quiet)."""
    from eqsat_uopc.rules import DeclarationError, split_rules_spec
    from eqsat_uopc.verify import UnsoundRuleError, load_verified_rules

    for kind, path in split_rules_spec(spec):
        if kind == "file" and not Path(path).is_file():
            raise CliError(f"{path}: no such file (named by --rules)")
    try:
        loaded = load_verified_rules(spec, allow_unsound=allow_unsound)
    except (DeclarationError, UnsoundRuleError) as e:
        raise CliError(str(e)) from None
    for line in loaded.warnings(unverifiable=not quiet):
        print(f"eqsat-uopc: warning: {line}", file=sys.stderr)
    return loaded.rule_set
