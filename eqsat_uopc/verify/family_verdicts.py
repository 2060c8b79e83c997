"""One verdict per rule of a family file, where it is loaded: proved, tested, refuted (with a
counterexample) or unverifiable (and why), and rule sets whose files are proved when they load.

The bundled families are proved by the suite (verify_saturation_rules over FAMILIES). A family of
your own is proved when you load it: `load_verified_rules("default+my_rules.egg")` (what the
command line's `--rules` runs) loads the spec (eqsat_uopc.saturation.load_rules: the file checked
against the engine's schema), proves every egglog form of every rule of each file under each
semantics that runs it, and

- refuses a refuted rule (UnsoundRuleError, naming the rule, its line, the semantics and a
  counterexample) unless allow_unsound: a refuted rule merges e-classes that differ, so extraction
  picks wrong programs from them, which translation validation then refutes and replaces by
  greedy's result (or the input) -- a silently worse result, or, with validation off, a wrong one;
- says which rules it could not verify (`warnings()`: the verifier does not encode an op, z3 gave
  up, the f32 typings of a `rule` are not tested), one line each, for the caller to print.

Verdicts are kept in the per-user cache (eqsat_uopc.user_cache), one file per rule form, keyed by the
form's text, the verifier's settings and a digest of the verifier's own sources: a file loaded again
is not proved again, and a rule edited (or a verifier changed) is.

    >>> from eqsat_uopc.rules import parse_family
    >>> mine = parse_family("mine", '; x * 1 -> x\\n(rewrite (Mul t x (Int 1)) x :name "mine/mul-one")')
    >>> [str(v) for v in rule_verdicts(mine)]
    ['<family mine>:2: mine/mul-one: proved under wrap and no_overflow']
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from eqsat_uopc.errors import UserError
from eqsat_uopc.rules import FAMILIES, Family, RuleSet
from eqsat_uopc.saturation import load_rules
from eqsat_uopc.user_cache import read_json, user_cache_dir, write_json
from eqsat_uopc.verify.egg_text import EggRule, egg_rules
from eqsat_uopc.verify.saturation_rules import EggRuleVerification, verify_egg_rule

__all__ = [
    "RuleVerdict",
    "UnsoundRuleError",
    "VerifiedRules",
    "load_verified_rules",
    "rule_verdicts",
]

_VERIFIED = ("proved", "tested", "vacuous")
_UNVERIFIED = ("not_attempted", "unknown")


class UnsoundRuleError(UserError, ValueError):
    """A rule of a family file that the verifier refutes: loading it would make saturation unsound."""


@dataclass(frozen=True)
class RuleVerdict:
    """What the verifier found for one rule: every form under every semantics that runs it
    (`forms`), summed up in `status`:

    "refuted"       some form is refuted (the counterexample is in `refutation`);
    "unverifiable"  some form could not be checked (`reason`: an op the verifier does not encode,
                    z3 gave up), or its f32 typings are not tested;
    "tested"        no form refuted, some proved only on constant instances (z3 could not decide the
                    symbolic question);
    "vacuous"       every form's hypotheses are contradictory (it can never fire);
    "proved"        every form proved for every constant."""

    rule: str
    where: str
    status: str
    forms: tuple[EggRuleVerification, ...]

    @property
    def refutation(self) -> EggRuleVerification | None:
        return next((f for f in self.forms if f.status == "refuted"), None)

    @property
    def reason(self) -> str:
        """Why it is unverifiable (or refuted): the semantics and what stopped the verifier."""
        if (r := self.refutation) is not None:
            values = ", ".join(f"{k} = {v}" for k, v in (r.counterexample or {}).items())
            return f"under {r.int_semantics} ({r.form} form), at {values}"
        why: dict[str, list[str]] = {}
        for f in self.forms:
            if f.status in _UNVERIFIED:
                why.setdefault(f.reason or f.status, []).append(f.int_semantics)
            if f.f32_untested:
                why.setdefault("its f32 typings are not tested (only a rewrite's are)", []).append(
                    f.int_semantics
                )
        return "; ".join(f"under {' and '.join(dict.fromkeys(sems))}: {text}" for text, sems in why.items())

    @property
    def semantics(self) -> tuple[str, ...]:
        """The int semantics some form of it runs under."""
        return tuple(dict.fromkeys(f.int_semantics for f in self.forms))

    def __str__(self) -> str:
        head = f"{self.where}: {self.rule}: {self.status}"
        if self.status in ("refuted", "unverifiable"):
            return f"{head} {self.reason}"
        return f"{head} under {' and '.join(self.semantics)}"


def _summary(forms: tuple[EggRuleVerification, ...]) -> str:
    statuses = {f.status for f in forms}
    if "refuted" in statuses:
        return "refuted"
    if statuses & set(_UNVERIFIED) or any(f.f32_untested for f in forms):
        return "unverifiable"
    if statuses == {"vacuous"}:
        return "vacuous"
    return "tested" if "tested" in statuses else "proved"


# ---------------------------------------------------------------------------
# the cache of verdicts


@functools.cache  # the sources do not change while the process runs
def _verifier_digest() -> str:
    """What a verdict depends on besides the rule: the verifier's sources and z3's version."""
    here = Path(__file__).parent
    h = hashlib.sha256(metadata.version("z3-solver").encode())
    for name in ("saturation_rules.py", "egg_encode.py", "egg_text.py", "egg_float.py", "z3_encode.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()


def _key(form: EggRule, settings: dict[str, Any]) -> str:
    text = json.dumps([str(form), form.form, form.int_semantics, settings, _verifier_digest()])
    return hashlib.sha256(text.encode()).hexdigest()


def _verify(form: EggRule, settings: dict[str, Any], cache: bool) -> EggRuleVerification:
    path = user_cache_dir() / "rule_verdicts" / f"{_key(form, settings)}.json"
    if cache:
        try:
            if (hit := read_json(path)) is not None:
                return EggRuleVerification(**hit)
        except (OSError, ValueError, TypeError):
            pass  # an unreadable entry is proved again and rewritten
    verdict = verify_egg_rule(form, **settings)
    if cache:
        with contextlib.suppress(OSError, TypeError, ValueError):  # an unwritable cache costs time only
            write_json(path, dataclasses.asdict(verdict))
    return verdict


def rule_verdicts(
    family: Family, cache: bool = True, rlimit: int = 2_000_000, instances: int = 24, seed: int = 0
) -> tuple[RuleVerdict, ...]:
    """The verdict of every egglog rule of family (verify_egg_rule on each of its forms, under each
    semantics that runs it), in declaration order; verdicts come from the per-user cache when it
    has them (cache=False: always proved anew)."""
    settings = {"rlimit": rlimit, "instances": instances, "seed": seed}
    out = []
    for rule in family.egg_rules:
        forms = tuple(_verify(f, settings, cache) for f in egg_rules(rule))
        out.append(RuleVerdict(rule.name, rule.where, _summary(forms), forms))
    return tuple(out)


# ---------------------------------------------------------------------------
# loading a rule set with its files proved


@dataclass(frozen=True)
class VerifiedRules:
    """A rule set loaded with the verdicts of its families that are not bundled (the bundled ones
    are proved by the suite)."""

    rule_set: RuleSet
    verdicts: tuple[RuleVerdict, ...]

    def warnings(self, unverifiable: bool = True) -> tuple[str, ...]:
        """One line per rule loaded that is not verified: refuted and loaded anyway (allow_unsound),
        and, unless unverifiable=False, one the verifier cannot check."""
        out = []
        for v in self.verdicts:
            if v.status == "unverifiable" and unverifiable:
                out.append(f"{v.where}: {v.rule} is not verified {v.reason}")
            elif v.status == "refuted":
                out.append(f"{v.where}: {v.rule} is refuted {v.reason}; loaded anyway (allow_unsound)")
        return tuple(out)


def _own_families(rs: RuleSet) -> list[Family]:
    return [f for f in rs.families if FAMILIES.get(f.name) != f]


def load_verified_rules(
    spec: str | RuleSet, allow_unsound: bool = False, cache: bool = True
) -> VerifiedRules:
    """load_rules(spec) with the rules of every family that is not bundled proved (rule_verdicts);
    a refuted rule raises UnsoundRuleError unless allow_unsound (the module docstring says why)."""
    rs = load_rules(spec)
    verdicts = tuple(v for f in _own_families(rs) for v in rule_verdicts(f, cache))
    refuted = [v for v in verdicts if v.status == "refuted"]
    if refuted and not allow_unsound:
        v = refuted[0]
        more = f" (and {len(refuted) - 1} more refuted rule(s))" if len(refuted) > 1 else ""
        raise UnsoundRuleError(
            f"{v.where}: {v.rule} is refuted {v.reason}{more}: a refuted rule makes saturation unsound; "
            "fix it, declare it :semantics no_overflow with a :guard if it needs one, or load it anyway "
            "with allow_unsound (--allow-unsound)"
        )
    return VerifiedRules(rs, verdicts)
