"""Piecewise-linear normal forms: integer comparisons of sums with MIN and MAX decided in Python.

Under `no_overflow` an integer term built of `+`, `*` by a constant, MAX and MIN over other terms
(the atoms) is a maximum of minima of linear forms over the atoms, and comparing two such normal
forms decides comparisons that the rules reach only by distributing `+` into MIN and MAX through
associativity and commutativity, an e-graph blow-up: `a + min(59, 297 - a) < min(a, 238) + 59` is
false, both sides being `min(a + 59, 297)`. This is the Python rule `linear/piecewise-compare` of the
`linear` family (no_overflow only: the distributions are identities of the mathematical integers).
The runner asks `decided_comparisons` for the comparisons of a program and of its greedy seed and
unions each decided one with its constant before saturating.

Modules, from the values up:
  forms       the normal forms' values (linear forms, minima, maxima) and the arithmetic on them
  normal      PiecewiseLinear: the normal form of every int term of a program, within a work budget
  division    x // c, x % c and (x // c) * (k * c): exact, as floor multiples, as rationals
  difference  decision 1: the sides' forms differ by a constant
  sign        decision 2: the atoms' bounds fix the sign of b - a
  compare     deciding one comparison with one builder (1, then 2), and a split's cases alike
  residues    a split on the residue of a division's argument
  ranges      a split on the range of an input between the constants of its MAX and MIN
  chains      && and || chains that bound one linear form out of every integer
  passes      decided_comparisons: which builder and which split, in which order

Work is bounded everywhere (forms per term, atoms per form, forms built, cases split, nodes per
comparison): past a bound a term is an atom, or a comparison undecided, which is sound, only weaker.
"""

from eqsat_uopc.saturation.piecewise.normal import PiecewiseLinear
from eqsat_uopc.saturation.piecewise.passes import decided_comparisons

__all__ = ["PiecewiseLinear", "decided_comparisons"]
