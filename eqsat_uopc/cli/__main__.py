"""`python -m eqsat_uopc.cli`: the command without the jemalloc re-execution (what console() runs)."""

import sys

from eqsat_uopc.cli import guarded

sys.exit(guarded())
