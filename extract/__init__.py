"""Cost models and extractors over the serialized e-graph."""

from .egraph import ClassId, EClass, EGraph, ENode

__all__ = ["ClassId", "EClass", "EGraph", "ENode"]
