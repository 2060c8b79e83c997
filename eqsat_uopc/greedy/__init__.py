"""The greedy rewrite engine: patterns, matchers, graph_rewrite, and the chapter's rule sets."""

from eqsat_uopc.greedy.evaluate import evaluate, inline_call, run, to_python
from eqsat_uopc.greedy.matcher import INT_SEMANTICS, PatternMatcher, Rule
from eqsat_uopc.greedy.oneline import one_line
from eqsat_uopc.greedy.rewrite import RewriteCheckError, graph_rewrite, graph_rewrite_topdown
from eqsat_uopc.greedy.symbolic import fold, simplify, symbolic
from eqsat_uopc.greedy.upat import UPat

__all__ = [
    "INT_SEMANTICS",
    "PatternMatcher",
    "RewriteCheckError",
    "Rule",
    "UPat",
    "evaluate",
    "fold",
    "graph_rewrite",
    "graph_rewrite_topdown",
    "inline_call",
    "one_line",
    "run",
    "simplify",
    "symbolic",
    "to_python",
]
