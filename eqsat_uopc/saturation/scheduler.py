"""A persistent back-off scheduler over egglog rule units (as egg's BackoffScheduler).

Each rule (or both directions of a birewrite) is an egglog ruleset of its own, a *unit*. Every
iteration runs the units that are not banned, in one egglog iteration of a combined ruleset. A unit
whose matches in an iteration exceed `match_limit << times_banned` is banned for
`ban_length << times_banned` iterations, so a rule that explodes (associativity) runs less and less
often while the others keep going. egglog's seminaive evaluation remembers where each rule stopped,
so a unit let back in sees every fact added while it was banned. The runner holds back a unit
whose matches would not fit in the node budget (`hold_back`) rather than let it overshoot; it
forecasts them from the unit's matches the last time it ran, grown with the square of the
e-graph's growth since (the rules that explode match a pattern nested in its own operator, whose
matches are the forms of a class times the forms of its child's).

This is the runner's own scheduler rather than egglog's `back-off` (egglog-experimental's
`run-with`), which on a 16-leaf ADD chain under associativity left rows whose children are not
e-classes after its 13th iteration (egglog 14.0).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

__all__ = ["BackoffScheduler"]


@dataclass
class _Unit:
    ruleset: str
    name: str
    times_banned: int = 0
    banned_until: int = 0
    last_matches: int = 0  # its matches the last time it ran (the iteration that banned it, if banned)
    last_size: int = 1  # the e-nodes the e-graph had when that iteration started
    held: bool = False  # kept banned for the node budget (hold_back), not for its own matches


def _forecast(u: _Unit, size: int) -> int:
    """u's matches if it ran on `size` e-nodes: its last matches grown with the square of the growth."""
    return round(u.last_matches * max(size / u.last_size, 1.0) ** 2)


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

    def record(self, matches: dict[str, int], size: int) -> None:
        """After an iteration that started with `size` e-nodes: ban the units that matched too much
        (by rule name, `=>` and `<=` summed)."""
        per_name: dict[str, int] = {}
        for name, n in matches.items():
            base = name[:-2] if name.endswith(("=>", "<=")) else name
            per_name[base] = per_name.get(base, 0) + n
        for u in self.units:
            if u.banned_until > self.iteration:
                continue
            u.last_matches, u.last_size = per_name.get(u.name, 0), max(size, 1)
            if u.last_matches > self.match_limit << u.times_banned:
                u.held = False
                self._ban(u)
                u.times_banned += 1
        self.iteration += 1

    def _ban(self, u: _Unit) -> None:
        """Ban u from the next iteration on, for ban_length doubled at each of its earlier bans."""
        u.banned_until = self.iteration + 1 + (self.ban_length << u.times_banned)

    def _returning(self) -> list[_Unit]:
        """The units whose ban (for their matches or held back) ends with this iteration."""
        return [u for u in self.units if 0 < u.banned_until == self.iteration]

    @property
    def any_banned(self) -> bool:
        return any(u.banned_until > self.iteration for u in self.units)

    @property
    def any_returning(self) -> bool:
        """Does a banned unit come back this iteration?"""
        return bool(self._returning())

    def hold_back(self, room: int, size: int) -> None:
        """Keep banned, or ban, for a ban length, each unit that would run this iteration (coming back
        or still active) whose forecast matches exceed `room`, the e-nodes the budget has left;
        `size` is the e-nodes now.

        egg's scheduler drops a rule's matches when there are too many, before applying them; egglog
        applies every match it finds, so the choice has to be made before the iteration. The
        forecast is the unit's matches the last time it ran, times the square of the e-graph's
        growth since: associativity and distribution, the units that blow an e-graph up, match a
        pattern nested in its own operator, and the classes on both levels grow (a returning
        `mul-assoc` matched 1,690,002 times in a 6,927-node e-graph, against 2,097 when it was
        banned at 228). A unit that would overshoot the budget is undone with its whole iteration
        and ends the run: holding it back loses nothing and lets the other rules go on.
        """
        for u in self.units:
            if u.banned_until <= self.iteration and u.last_matches and _forecast(u, size) > room:
                self._ban(u)
                u.held = True

    def held_forecasts(self, size: int) -> dict[str, int]:
        """The units held back now, by rule name, with their forecast matches on `size` e-nodes."""
        return {u.name: _forecast(u, size) for u in self.units if u.held and u.banned_until > self.iteration}

    def held_after_ban(self) -> tuple[str, ...]:
        """The units held back now that the match limit had banned before (by rule name)."""
        return tuple(
            u.name for u in self.units if u.held and u.banned_until > self.iteration and u.times_banned
        )

    @property
    def only_held(self) -> bool:
        """Are the banned units (if any) all held back for the budget?"""
        return all(u.held for u in self.units if u.banned_until > self.iteration)

    def state(self) -> tuple[list[_Unit], int]:
        """Everything restore() needs to bring the scheduler back to now."""
        return [dataclasses.replace(u) for u in self.units], self.iteration

    def restore(self, state: tuple[list[_Unit], int]) -> None:
        units, self.iteration = state
        self.units = [dataclasses.replace(u) for u in units]
