"""What programs mean: exec_alu (the scalar primitive), interval bounds, literal values and binding.

Above the IR and below every engine: the greedy rewriter, the C backend, saturation and
verification all take an op's meaning from here.
"""
