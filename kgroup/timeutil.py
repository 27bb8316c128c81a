"""Time as kgroup reads and prints it, in one place: durations (``2h``), instants (a duration
ago, an ISO-8601 time, epoch milliseconds) and the one printed form of a moment (ISO-8601 UTC
with milliseconds). Every option that takes a time and every output that shows one goes through
here (``--since``/``--until`` windows: kgroup.offsets_log.window)."""
from __future__ import annotations

import re
from datetime import datetime, timezone

from kgroup.errors import UsageError

_DURATION = re.compile(r"^(\d{1,9})(ms|s|m|h|d|w)$")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}


def parse_duration_ms(text: str, option: str) -> int:
    """``90s``, ``15m``, ``2h``, ``7d``, ``1w``, ``500ms`` -> milliseconds."""
    m = _DURATION.match(text.strip())
    if not m:
        raise UsageError(f"{option}: {text!r} is not a duration such as 30s, 15m, 2h or 7d")
    return int(m.group(1)) * _UNIT_MS[m.group(2)]


# the first and last milliseconds of the years 1 to 9999: the moments an ISO-8601 time (and
# format_ms) can say; a duration ago or a number beyond them is an overflow, not a moment
FIRST_MS = -62_135_596_800_000
LAST_MS = 253_402_300_799_999


def parse_instant_ms(text: str, now_ms: int, option: str) -> int:
    """A point in time: a duration ago (``2h``), an ISO-8601 time (UTC unless it says
    otherwise: ``2026-11-22T03:00``, ``2026-11-22 03:00:00+01:00``) or epoch milliseconds.
    A moment no time can say (``999999999w`` ago, a number past the year 9999) is refused, and
    so is a number of 10 digits: epoch seconds, which as milliseconds would be early 1970."""
    t = text.strip()
    if _DURATION.match(t):
        ms = now_ms - parse_duration_ms(t, option)
        if ms < FIRST_MS:
            raise UsageError(f"{option} {t}: {t} ago is before 0001-01-01T00:00:00.000Z, the first moment a time can say")
        return ms
    if t.isascii() and t.isdigit() and len(t) == 10:
        meant = int(t) * 1000
        raise UsageError(f"{option} {t}: epoch milliseconds expected (did you mean {meant}, {format_ms(meant)}?)")
    if t.isascii() and t.isdigit() and len(t) > 10:
        ms = int(t)
    else:
        try:
            dt = datetime.fromisoformat(t.replace("Z", "+00:00")) if t.isascii() else None
        except ValueError:
            dt = None
        if dt is None:
            raise UsageError(f"{option}: {text!r} is neither a time (2026-11-22T03:00Z), "
                             "epoch milliseconds, nor a duration ago (2h)")
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        try:
            ms = int(dt.timestamp() * 1000)
        except (OverflowError, OSError, ValueError):  # 0001-01-01 or 9999-12-31 in a zone beyond UTC
            raise UsageError(f"{option} {t}: not a moment a time can say (years 1 to 9999)") from None
    if ms > LAST_MS:
        raise UsageError(f"{option} {t}: after 9999-12-31T23:59:59.999Z")
    return ms


def parse_past_instant_ms(text: str, now_ms: int, option: str) -> int:
    """:func:`parse_instant_ms` of a moment that must not be later than ``now_ms`` (a window's
    start, the moment of a snapshot): what the log holds then is not known yet."""
    ms = parse_instant_ms(text, now_ms, option)
    if ms > now_ms:
        raise UsageError(f"{option} {text.strip()} is in the future")
    return ms


def format_ms(ms: int) -> str:
    """Epoch milliseconds as an ISO-8601 UTC time with milliseconds."""
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def moment(ms: int | None) -> str | None:
    """:func:`format_ms` of a moment that may be unknown (None stays None: shown as unknown)."""
    return None if ms is None else format_ms(ms)
