"""A persistent back-off scheduler over egglog rule units (as egg's BackoffScheduler).

Each rule (or both directions of a birewrite) is an egglog ruleset of its own, a *unit*. Every
iteration runs the units that are not banned, in one egglog iteration of a combined ruleset. A unit
whose matches in an iteration exceed `match_limit << times_banned` is banned for
`ban_length << times_banned` iterations, so a rule that explodes (associativity) runs less and less
often while the others keep going. egglog's seminaive evaluation remembers where each rule stopped,
so a unit let back in sees every fact added while it was banned.

This is the runner's own scheduler rather than egglog's `back-off` (egglog-experimental's
`run-with`), which on a 16-leaf ADD chain under associativity left rows whose children are not
e-classes after its 13th iteration (egglog 14.0).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BackoffScheduler"]


@dataclass
class _Unit:
    ruleset: str
    name: str
    times_banned: int = 0
    banned_until: int = 0


@dataclass
class BackoffScheduler:
    units: list[_Unit]
    match_limit: int = 1000
    ban_length: int = 5
    iteration: int = 0

    @staticmethod
    def of(
        units: tuple[tuple[str, str], ...], match_limit: int = 1000, ban_length: int = 5
    ) -> BackoffScheduler:
        return BackoffScheduler([_Unit(r, n) for r, n in units], match_limit, ban_length)

    def active(self) -> tuple[str, ...]:
        """The rulesets to run this iteration (every unit if all are banned: a ban never stalls a run)."""
        live = tuple(u.ruleset for u in self.units if u.banned_until <= self.iteration)
        return live or tuple(u.ruleset for u in self.units)

    def record(self, matches: dict[str, int]) -> None:
        """After an iteration: ban the units that matched too much (by rule name, `=>` and `<=` summed)."""
        per_name: dict[str, int] = {}
        for name, n in matches.items():
            base = name[:-2] if name.endswith(("=>", "<=")) else name
            per_name[base] = per_name.get(base, 0) + n
        for u in self.units:
            if u.banned_until > self.iteration:
                continue
            if per_name.get(u.name, 0) > self.match_limit << u.times_banned:
                u.banned_until = self.iteration + 1 + (self.ban_length << u.times_banned)
                u.times_banned += 1
        self.iteration += 1

    @property
    def any_banned(self) -> bool:
        return any(u.banned_until > self.iteration for u in self.units)

    @property
    def any_returning(self) -> bool:
        """Does a banned unit come back this iteration?"""
        return any(u.times_banned and u.banned_until == self.iteration for u in self.units)

    def state(self) -> list[tuple[int, int]]:
        return [(u.times_banned, u.banned_until) for u in self.units]

    def restore(self, state: list[tuple[int, int]], iteration: int) -> None:
        for u, (t, b) in zip(self.units, state, strict=True):
            u.times_banned, u.banned_until = t, b
        self.iteration = iteration
