"""Suite-wide settings: deterministic hypothesis runs, the greedy engine's rewrite checks on, and a
per-user cache of the suite's own."""

import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# Exercise 4 of the chapter: every rewrite must preserve dtype and shape; the suite runs with the check on.
os.environ.setdefault("UOPC_CHECK_REWRITES", "1")

# The per-user cache (eqsat_uopc.user_cache: this machine's calibrated latency table, measured
# timings) is a fresh empty directory: a calibration on the developer's machine must not change what
# the tests compute, and the tests must not write into the developer's home. Notebooks executed by the
# suite inherit it. (The C backend's compiled libraries stay where $UOPC_CACHE_DIR says.)
os.environ["EQSAT_UOPC_CACHE_DIR"] = _user_cache = tempfile.mkdtemp(prefix="eqsat_uopc_test_cache_")
atexit.register(shutil.rmtree, _user_cache, ignore_errors=True)

# Same examples every run (CI must be reproducible); no per-example deadline on shared machines.
settings.register_profile(
    "suite", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("suite")
