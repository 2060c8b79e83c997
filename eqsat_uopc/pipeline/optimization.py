"""optimize: the one call for "give me the best equivalent of this program".

It is saturation followed by extraction, with the settings a user tunes named in one place, so
the CLI, compare and notebooks mean the same thing by a budget or a cost model.
"""

from __future__ import annotations

from typing import Any

from eqsat_uopc.ir.uop import UOp
from eqsat_uopc.saturation import (
    DEFAULT_ITER_LIMIT,
    DEFAULT_NODE_BUDGET,
    DEFAULT_TIME_LIMIT,
    Extraction,
    saturate,
)

__all__ = ["optimize"]


def optimize(
    program: UOp,
    cost: str | Any = "dag_size",
    *,
    node_budget: int = DEFAULT_NODE_BUDGET,
    extractor: str | Any = "auto",
    rules: str | Any = "default",
    int_semantics: str = "wrap",
    iter_limit: int = DEFAULT_ITER_LIMIT,
    time_limit: float = DEFAULT_TIME_LIMIT,
    extract_time_limit: float | None = None,
) -> Extraction:
    """The best program equivalent to `program` under `cost`, with the saturation report.

    The result's `.program`, `.cost`, `.optimal` and `.report` say what was found, whether the
    extractor proved it optimal for the e-graph, and how saturation stopped. time_limit bounds
    saturation, extract_time_limit an exact extractor (None: the extractor registry's default).
    """
    sat = saturate(
        program,
        rules=rules,
        int_semantics=int_semantics,
        node_budget=node_budget,
        iter_limit=iter_limit,
        time_limit=time_limit,
    )
    return sat.extract(cost=cost, extractor=extractor, time_limit=extract_time_limit)
