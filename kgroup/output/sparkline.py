"""A series of values over a time window drawn as one short line of block characters.

Pure. However many points a window holds, the line has a fixed width: the window is cut into
equal slots, each showing the highest value in it (or the last value before it, carried
forward: a lag stands until the next commit changes it). Unknown values show as ``?``, slots
before the first value as a dot.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

WIDTH = 24
BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_BLOCKS = "_-=+*#%@"
# a slot before the first value (a table strips blanks, so it is drawn)
BLANK = "·"
ASCII_BLANK = "."
UNKNOWN = "?"

Series = Sequence[tuple[int, int | None]]  # (time ms, value or None: unknown), in time order


def slot_ends(start_ms: int, end_ms: int, width: int = WIDTH) -> list[int]:
    """Where each of ``width`` equal slots of [start_ms, end_ms] ends (the last at ``end_ms``, if later):
    the moments at which kgroup.lag.history asks the log end after a partition's last commit, so
    that a consumer that stopped shows its lag growing slot by slot."""
    span = max(1, end_ms - start_ms)
    return [start_ms + span * (k + 1) // width for k in range(width)]


def slots(series: Series, start_ms: int, end_ms: int, width: int = WIDTH) -> list[int | None | str]:
    """The value of each of ``width`` equal slots of [start_ms, end_ms]: the highest value in
    the slot, else the last value before it; ``UNKNOWN`` where an unknown value stands; ``""``
    before the first value."""
    out: list[int | None | str] = []
    index = 0
    current: int | None | str = ""
    for k, slot_end in enumerate(slot_ends(start_ms, end_ms, width)):
        best: int | None | str = None
        while index < len(series) and (series[index][0] <= slot_end or k == width - 1):
            value = series[index][1]
            current = UNKNOWN if value is None else value
            if isinstance(current, int) and (not isinstance(best, int) or current > best):
                best = current
            elif best is None:
                best = current
            index += 1
        out.append(current if best is None else best)
    return out


def total(series: Iterable[Series], start_ms: int, end_ms: int, width: int = WIDTH) -> list[int | None | str]:
    """The sum over several series, slot by slot (unknown when one of them is unknown there;
    a series that has not begun yet counts as nothing)."""
    columns = [slots(s, start_ms, end_ms, width) for s in series]
    out: list[int | None | str] = []
    for k in range(width):
        values = [c[k] for c in columns if c[k] != ""]
        if not values:
            out.append("")
        elif any(v == UNKNOWN for v in values):
            out.append(UNKNOWN)
        else:
            out.append(sum(v for v in values if isinstance(v, int)))
    return out


def draw(values: Sequence[int | None | str], blocks: str = BLOCKS, blank: str = BLANK) -> str:
    """The slots as characters, scaled from 0 to the highest value."""
    top = max((v for v in values if isinstance(v, int)), default=0)
    chars = []
    for v in values:
        if v == "" or v is None:
            chars.append(blank)
        elif v == UNKNOWN:
            chars.append(UNKNOWN)
        else:
            assert isinstance(v, int)
            # 0 is the lowest block; any lag above 0 at least the next one, the highest the top one
            level = 0 if v <= 0 or top == 0 else 1 + v * (len(blocks) - 2) // top
            chars.append(blocks[min(level, len(blocks) - 1)])
    return "".join(chars)
