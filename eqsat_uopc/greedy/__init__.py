"""The greedy rewrite engine: patterns, matchers, graph_rewrite, and the chapter's rule sets."""

from .evaluate import evaluate, inline_call, run, to_python
from .matcher import INT_SEMANTICS, PatternMatcher, Rule
from .oneline import one_line
from .rewrite import RewriteCheckError, graph_rewrite, graph_rewrite_topdown
from .symbolic import fold, simplify, symbolic
from .upat import UPat

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
