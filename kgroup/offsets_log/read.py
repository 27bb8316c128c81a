"""Reading the offsets log, live or saved: the use case behind ``log``, ``history``, ``lag``,
``report`` and ``snapshot --at``.

Raw records come from the live log (:func:`live_records`, through the cluster layer's log
reader) or from a saved one (:func:`file_records`); :func:`group_entries` decodes one group's.
What needs saying on the way (a saved file that was sorted, a ``--partition`` that holds none
of the groups) goes through the ``warn`` callable the caller gives: the core prints nothing.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgroup.errors import UsageError
from kgroup.offsets_log.raw import JsonlSave, RawRecord
from kgroup.offsets_log.selection import Entry, Selection, select
from kgroup.offsets_log.window import Window

if TYPE_CHECKING:
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.offsets_log.deletions import Cause
    from kgroup.offsets_log.replay import GroupReplay, Rebalance

Progress = Callable[[str, int, int], None]
Warn = Callable[[str], None]


def live_records(settings: ConnectionSettings, topic: str, partitions: list[int] | None, follow: bool,
                 progress: Progress, selection: Selection, warn: Warn,
                 caught_up: Callable[[], object] | None = None) -> Iterator[RawRecord]:
    """Raw records of the live offsets log, partition by partition; with ``follow``, then
    every new record until interrupted (``caught_up``, by default a flush of stdout, called each
    time it has read all there is). Only the partitions wanted are probed and read."""
    from kgroup.kafka.logreader import offsets_log_leaders, offsets_log_ranges, read_log_range

    count = len(offsets_log_leaders(settings, topic)[0])
    wanted = set(selection.partitions(count))
    if partitions:
        bad = [p for p in partitions if not 0 <= p < count]
        if bad:
            raise UsageError(f"--partition {bad[0]}: {topic} has partitions 0-{count - 1}")
        wanted &= set(partitions)
        if not wanted:
            warn("the groups named hash to none of the partitions given with --partition")
    ranges = offsets_log_ranges(settings, topic, sorted(wanted)) if wanted else []
    total = sum(r.end - r.start for r in ranges)
    done = 0
    position = {r.partition: r.start for r in ranges}
    for r in ranges:
        for batch in read_log_range(settings, topic, r):
            yield from batch
            done += len(batch)
            progress("reading offsets log", done, total)
        position[r.partition] = r.end
    while follow:
        (caught_up or sys.stdout.flush)()
        time.sleep(1.0)
        for r in offsets_log_ranges(settings, topic, sorted(wanted)):
            if r.end > position[r.partition]:
                yield from (rec for batch in read_log_range(
                    settings, topic, type(r)(r.partition, position[r.partition], r.end)) for rec in batch)
                position[r.partition] = r.end


def file_records(path: Path, progress: Progress, warn: Warn) -> Iterator[RawRecord]:
    """Every record of a saved log (JSON Lines or Parquet; ``-``: stdin), all of it checked before
    the first is handed out, in log order, each once (kgroup.offsets_log.saved); what the input
    needed (sorting, dropping repeats) is said in one warning each."""
    from kgroup.offsets_log.saved import iter_saved

    return iter_saved(str(path), progress, warn)


def open_save(save: Path) -> JsonlSave:
    """``log --save``'s file: whole lines only, written as the records come, each time the reader
    has caught up, and on Ctrl-C (kgroup.offsets_log.raw.JsonlSave), so that what was read before a
    Ctrl-C (the way ``--follow`` ends) is a saved log ``--input`` reads."""
    from kgroup import _on_interrupt

    try:
        out = JsonlSave(str(save))
    except OSError as e:
        raise UsageError(f"cannot write --save {save}: {e.strerror or e}") from None
    _on_interrupt.append(lambda: out.flush(last=True))
    return out


def saving(records: Iterable[RawRecord], out: JsonlSave) -> Iterator[RawRecord]:
    """``records`` as they come, each also written to ``out``; the file is whole once they end."""
    whole = False
    try:
        for r in records:
            out.add(r)
            yield r
        whole = True
    finally:
        out.close(whole)


def group_entries(group: str, input_: Path | None, offsets_topic: str, settings: ConnectionSettings | None,
                  until_ms: int | None, progress: Progress, warn: Warn) -> Iterator[Entry]:
    """Every record of one group, up to ``until_ms``, from the saved log ``input_`` or the live log
    (``settings``: the cluster to read it from): decoded, or with its error (a record that cannot
    be decoded and whose key bytes hold the group's id: kgroup.lag.history.commits_from_log tells
    which are the group's commits; the replay skips them)."""
    selection = Selection(frozenset([group]), frozenset(), Window(None, until_ms))
    if input_ is not None:
        raw = file_records(input_, progress, warn)
    else:
        assert settings is not None, "the live offsets log needs a cluster"
        raw = live_records(settings, offsets_topic, None, False, progress, selection, warn)
    return select(raw, selection)


def group_replays(groups: Iterable[str], input_: Path | None, offsets_topic: str,
                  settings: ConnectionSettings | None, progress: Progress, warn: Warn,
                  until_ms: int | None = None) -> dict[str, GroupReplay]:
    """Each group's records folded (kgroup.offsets_log.replay), read in one pass over the
    offsets-log partitions they hash to (or the saved log ``input_``)."""
    from kgroup.offsets_log.replay import GroupReplay

    replays = {g: GroupReplay(g) for g in dict.fromkeys(groups)}
    selection = Selection(frozenset(replays), frozenset(), Window(None, until_ms))
    if input_ is not None:
        raw = file_records(input_, progress, warn)
    else:
        assert settings is not None, "the live offsets log needs a cluster"
        raw = live_records(settings, offsets_topic, None, False, progress, selection, warn)
    for e in select(raw, selection):
        if e.record is not None:
            replay = replays.get(e.record.group_id)
            if replay is not None:
                replay.apply(e)
    for replay in replays.values():
        replay.finish()
    return replays


def group_history(group: str, input_: Path | None, offsets_topic: str, settings: ConnectionSettings | None,
                  cluster: Callable[[], Any] | None, window: Window, progress: Progress, warn: Warn
                  ) -> tuple[GroupReplay, list[Rebalance], dict[tuple[int, int], Cause]]:
    """``history``: the group's records folded, its rebalances in ``window``, and why each offset
    deleted in them was (kgroup.offsets_log.deletions), under the coordinator's retention settings
    where a cluster is named (``cluster()``, asked only when there is a deletion to tell; Kafka's
    default otherwise, and said when it stands in for the broker's)."""
    from kgroup.offsets_log.deletions import Deletions
    from kgroup.offsets_log.expiry import NO_CLUSTER, coordinator_retention
    from kgroup.offsets_log.replay import GroupReplay

    replay = GroupReplay(group)
    deletions = Deletions(replay)
    for e in group_entries(group, input_, offsets_topic, settings, None, progress, warn):
        replay.apply(e)
    replay.finish()
    if replay.type is None and not replay.rebalances and not replay.offsets and replay.commits_before == 0:
        raise UsageError(f"the offsets log holds no record of group {group}")
    events = [r for r in replay.rebalances if r.timestamp in window]
    retention = NO_CLUSTER
    if cluster is not None and any(r.offsets_deleted for r in events):
        retention = coordinator_retention(cluster(), group)
        if retention.is_default:
            warn(f"offset retention: {retention.source}; the causes of the deleted offsets assume it")
    return replay, events, deletions.causes(retention)
