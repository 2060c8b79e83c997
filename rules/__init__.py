"""Saturation rule sets, declared as egglog programs (one `.egg` file per family)."""
