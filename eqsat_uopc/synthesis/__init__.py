"""Rule synthesis in the style of Ruler (OOPSLA 2021) and Enumo (OOPSLA 2023).

    synthesize(Grammar(parse_ops("add,mul,max,lt"), max_size=5), base="default",
               family="synth_small", log_path=...) -> SynthesisResult
    SynthesisResult.rules, .text (the .egg file), .log (every candidate and its fate), .stats
    write_family(result, path)                      the .egg file and its log beside it

Terms over a grammar (IR ops, variables, constant variables, constants, a size limit) are
enumerated by size, one representative per fingerprint class; a term whose fingerprint (its values
on fixed edge-biased int32 inputs, computed as exec_alu does) matches a representative's, everywhere
or under a side condition (`c > 0`, `0 <= x < c`, ...), is a candidate rule. Candidates are
oriented, dropped when saturation with the rules kept so far already derives them, and proved with
z3 by the suite's own rule verifier under wrap or no_overflow. The output is an ordinary `.egg`
rule family: `eqsat_uopc.rules.load_family(path)` reads it into a Family value, which composes
into a RuleSet like a bundled family (`rule_set("default") + family`); the bundled
`rules/synth_small.egg` is in the rule set "default+synth".

Modules: grammar (ops, leaves, conditions), fingerprint (inputs, vectorized evaluation),
enumeration, rule (orientation, egglog text, instances), prove (z3 through verify), minimize
(derivability by saturation), search (synthesize: the loop, log, resume), measure (notebook helpers).
"""

from eqsat_uopc.synthesis.grammar import OP_NAMES, Condition, Grammar, parse_ops
from eqsat_uopc.synthesis.minimize import derives, with_family
from eqsat_uopc.synthesis.rule import SynthRule
from eqsat_uopc.synthesis.search import SUPPORT_FAMILIES, SynthesisResult, egg_text, synthesize, write_family

__all__ = [
    "OP_NAMES",
    "SUPPORT_FAMILIES",
    "Condition",
    "Grammar",
    "SynthRule",
    "SynthesisResult",
    "derives",
    "egg_text",
    "parse_ops",
    "synthesize",
    "with_family",
    "write_family",
]
