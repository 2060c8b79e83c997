"""The runner's hooks: one small interface, each hook testable alone, a new one is a class and a line."""

import pytest

from eqsat_uopc import UOp, dtypes
from eqsat_uopc.ir.ops import Ops
from eqsat_uopc.saturation import (
    HOOKS,
    Additions,
    Hook,
    RunSetup,
    SaturationConfig,
    SaturationError,
    Seeds,
    saturate,
)
from eqsat_uopc.saturation.hooks import DecidedComparisons, GreedySeed, PythonFold


def _setup(program: UOp, **settings) -> RunSetup:
    config = SaturationConfig(**settings)
    rules = frozenset(r.name for r in config.rule_set.rules(config.int_semantics))
    return RunSetup(program, config, tuple(program.toposort()), rules)


class MulTwoIsAdd(Hook):
    """x * 2 -> x + x, as a Python step after every iteration (a rule would do; this shows the plumbing)."""

    name = "mul-two-is-add"
    iterates = True

    def after_iteration(self, snapshot) -> int:
        unions = 0
        for cls, node in snapshot.by_ctor.get("Mul", ()):
            a, two = node.kids
            if any(n.ctor == "Int" and n.prim == 2 for n in snapshot.classes[two]):
                key = ("Add", node.t, None, (a, a))
                if snapshot.index.get(key) == cls:
                    continue  # already there: a hook adds nothing twice, so the run can saturate
                name_a, name_cls = snapshot.names[a], snapshot.names[cls]
                self.lowerer.union(name_cls, self.lowerer.row(Ops.ADD, node.t, (name_a, name_a)))
                unions += 1
                self.matches["test/mul-two-is-add"] = self.matches.get("test/mul-two-is-add", 0) + 1
        return unions


class KnownAnswer(Hook):
    """A start phase: the program `x * 1` is `x` (a term equal to the root), and `x + 0` is `x` (a pair)."""

    name = "known-answer"

    def start(self, seeds: Seeds) -> Additions:
        x = UOp.param(0)
        seen = [u for u in seeds.terms() if u is x + 0]
        return Additions({"known": x}, tuple((u, x) for u in seen), {"test/known": 1})


def test_a_new_iterating_hook_is_a_class_and_one_line():
    x = UOp.param(0)
    without = saturate(x * 2, rules="none")
    with_hook = saturate(x * 2, rules="none", hooks=(*HOOKS, MulTwoIsAdd))
    assert not without.equivalent(x * 2, x + x)
    assert with_hook.equivalent(x * 2, x + x)
    assert with_hook.report.matches == {"test/mul-two-is-add": 1}
    assert (with_hook.report.stop_reason, with_hook.report.iterations) == ("saturated", 2)
    assert with_hook.report.enodes == [3, 4, 4]


def test_a_start_hook_adds_root_terms_and_equalities_before_any_rule():
    x = UOp.param(0)
    s = saturate((x + 0) * 1, rules="none", hooks=(KnownAnswer,))
    assert s.seeds.root_terms == {"known": x} and s.seeds.equalities == [(x + 0, x)]
    assert s.equivalent((x + 0) * 1, x) and s.equivalent(x + 0, x)
    assert s.extract().program is x and s.report.matches == {"test/known": 1}


def test_start_hooks_run_in_order_and_see_what_came_before():
    x = UOp.param(0, dtypes.i32, bounds=(0, 9))
    p = (x < 10).where(x * 1, x + 3)
    setup = _setup(p, int_semantics="no_overflow")
    seeds = Seeds(p)
    seeds.add(GreedySeed(setup).start(seeds))
    assert seeds.root_terms == {"greedy": x}
    seeds.add(DecidedComparisons(setup).start(seeds))
    assert seeds.equalities == [(x < 10, UOp.const(True))]
    assert seeds.matches == {"linear/piecewise-compare": 1}
    assert seeds.root_constant() is False


def test_which_hooks_apply_depends_on_the_rules_the_settings_and_the_program():
    x, f = UOp.param(0), UOp.param(1, dtypes.f32)
    assert [h.name for h in HOOKS if h.applies(_setup(x + 1))] == ["greedy-seed", "index-algebra"]
    assert [h.name for h in HOOKS if h.applies(_setup(x + 1, int_semantics="no_overflow"))] == [
        "greedy-seed",
        "index-algebra",
        "decided-comparisons",
    ]
    assert [h.name for h in HOOKS if h.applies(_setup(x + 1, rules="symbolic"))] == ["greedy-seed"]
    assert [h.name for h in HOOKS if h.applies(_setup(f + 1.0))] == ["python-fold"]
    assert [h.name for h in HOOKS if h.applies(_setup(x + 1, seed_greedy=False))] == []
    assert [h.name for h in HOOKS if h.applies(_setup(f + 1.0, rules="ac"))] == []
    assert PythonFold.iterates and not GreedySeed.iterates


def test_a_constant_from_the_start_phases_decides_the_run_without_an_engine():
    x = UOp.param(0)

    class Zero(Hook):
        name = "zero"

        def start(self, seeds):
            return Additions({"zero": UOp.const(0)})

    s = saturate(x * 0 + x * 0, rules="none", hooks=(Zero,))
    assert s.report.decided_without_engine and s.extract().program is UOp.const(0)


def test_hooks_must_be_hook_classes():
    with pytest.raises(SaturationError, match=r"^hooks must be Hook subclasses, got <function"):
        saturate(UOp.param(0), hooks=(lambda s: None,))


def test_the_index_algebra_hook_counts_the_rules_it_fired():
    a, n = UOp.param(0, dtypes.i32, bounds=(0, 30)), UOp.param(1, dtypes.i32, bounds=(0, 100))
    g = UOp.param(2, dtypes.i32, bounds=(0, 255))
    p = (a * 6) // 9 + n + (g // 8) * 24 + (g % 8) * 3
    s = saturate(p, int_semantics="no_overflow")
    assert s.seeds.root_terms["algebra"] is (a * 2) // 3 + n + g * 3
    assert {k: v for k, v in s.report.matches.items() if k.startswith(("linear/", "boolean/"))} == {
        "linear/divmod-fold": 1,
        "linear/sum-fold": 1,
    }


def test_an_iterating_hook_sees_the_e_graph_as_it_is_and_one_snapshot_while_it_is_unchanged():
    # rules banned by a small match limit: iterations change nothing while they wait, and the hooks
    # get the snapshot they last saw again; every snapshot a hook gets equals a fresh read-back
    from eqsat_uopc.saturation.serialize import Snapshot

    seen = []

    class Witness(Hook):
        name = "witness"
        iterates = True

        def after_iteration(self, snapshot):
            fresh = Snapshot(self.lowerer.egraph)
            same = (fresh.classes, fresh.names, fresh.by_name) == (
                snapshot.classes,
                snapshot.names,
                snapshot.by_name,
            )
            seen.append((snapshot, same))
            return 0

    x, y, z = UOp.param(0), UOp.param(1), UOp.param(2)
    p = (x + y) * (y + z) + (z + x) * 3 + (x * 2 + 0) * 1
    s = saturate(p, hooks=(*HOOKS, Witness), match_limit=3, ban_length=3)
    assert (s.report.stop_reason.value, s.report.iterations) == ("saturated", 11)
    assert [same for _, same in seen] == [True] * 11
    assert len({id(snapshot) for snapshot, _ in seen}) == 5
