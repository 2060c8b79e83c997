"""Suite-wide settings: deterministic hypothesis runs, and the greedy engine's rewrite checks on."""

import os

from hypothesis import HealthCheck, settings

# Exercise 4 of the chapter: every rewrite must preserve dtype and shape; the suite runs with the check on.
os.environ.setdefault("UOPC_CHECK_REWRITES", "1")

# Same examples every run (CI must be reproducible); no per-example deadline on shared machines.
settings.register_profile(
    "suite", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("suite")
