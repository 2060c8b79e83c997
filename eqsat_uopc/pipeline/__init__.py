"""The pipeline users call: optimize (saturate + extract), compare (greedy against optimize on one
program), corpus sweeps in isolated workers, and the measurements the research notebooks make.
"""
