"""A time window over the log: ``--since`` / ``--until`` as a time or a duration ago. ``--since``
may not be in the future, nor later than ``--until`` (what ``--until`` may be is the command's:
``lag`` and ``report`` refuse it in the future, ``log`` takes it as a bound)."""
from __future__ import annotations

from dataclasses import dataclass

from kgroup.errors import UsageError
from kgroup.timeutil import parse_instant_ms, parse_past_instant_ms


@dataclass(frozen=True)
class Window:
    since_ms: int | None = None
    until_ms: int | None = None

    @classmethod
    def parse(cls, since: str | None, until: str | None, now_ms: int) -> "Window":
        w = cls(None if since is None else parse_past_instant_ms(since, now_ms, "--since"),
                None if until is None else parse_instant_ms(until, now_ms, "--until"))
        if w.since_ms is not None and w.until_ms is not None and w.since_ms > w.until_ms:
            raise UsageError("--since is later than --until")
        return w

    def __contains__(self, ts: int) -> bool:
        return (self.since_ms is None or ts >= self.since_ms) and (self.until_ms is None or ts <= self.until_ms)
