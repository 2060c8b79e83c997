"""The IR: dtypes, Ops, the hash-consed UOp with its type and shape checks, and the .uir text format.

The bottom layer: nothing here imports from any other part of eqsat_uopc.
"""
