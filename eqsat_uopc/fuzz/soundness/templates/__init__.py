"""The soundness fuzzer's templates, one module per family group; importing the package registers
them all (registry.TEMPLATES), in this order."""

from eqsat_uopc.fuzz.soundness.templates import (  # noqa: F401  (imported to register their templates)
    compare,
    conditions,
    divmod,
    egglog,
    generic,
    piecewise,
    sums,
)

__all__: list[str] = []
