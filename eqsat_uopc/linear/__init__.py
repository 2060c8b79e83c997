"""The index algebra on linear forms: divisions, remainders, comparisons, sums and conditions.

form.py (the linear form of an i32 term, the analysis), divmod.py, compare.py, sums.py,
conditions.py (the folds), rules.py (the folds as greedy rules, `simplify_algebra`).
"""

from eqsat_uopc.linear.compare import fold_compare, fold_conjunction, shared_zero_tests, zero_test
from eqsat_uopc.linear.conditions import assume, fold_bool, fold_where
from eqsat_uopc.linear.divmod import fold_divmod
from eqsat_uopc.linear.form import LinearForm, Product
from eqsat_uopc.linear.rules import ALGEBRA, simplify_algebra
from eqsat_uopc.linear.sums import fold_sum, shared_multiples, shared_offsets, shared_subforms

__all__ = [
    "ALGEBRA",
    "LinearForm",
    "Product",
    "assume",
    "fold_bool",
    "fold_compare",
    "fold_conjunction",
    "fold_divmod",
    "fold_sum",
    "fold_where",
    "shared_multiples",
    "shared_offsets",
    "shared_subforms",
    "shared_zero_tests",
    "simplify_algebra",
    "zero_test",
]
