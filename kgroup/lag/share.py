"""A share group's lag where the broker reports none (Kafka 4.1 answers DescribeShareGroupOffsets
at v0, which has no lag): kgroup computes it as Kafka 4.2+ does, from the share coordinator's own
state of each share partition.

For each partition without a lag: the ``__share_group_state`` partition holding its state (Kafka's
hash of group, topic id and partition), those partitions' records read with the read-only reader
of the offsets log, replayed as the share coordinator replays them
(kgroup.offsets_log.share_state), and the partition's end from ListOffsets: lag = end - start
offset - records past it delivered to the end (acknowledged or archived). Where any of that cannot
be read (no topic id, the state topic missing or not readable, no state for the partition, its
end unknown, or a start offset that is not the broker's), the lag stays unknown and says why:
never guessed.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgroup.errors import KgroupError
from kgroup.group.hashing import SHARE_STATE_TOPIC, share_state_partition_for
from kgroup.group.share import ShareOffsets

Warn = Callable[[str], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def lags_from_share_state(cluster: Any, settings: Any, group: str, offsets: ShareOffsets, warn: Warn,
                          state_topic: str = SHARE_STATE_TOPIC) -> ShareOffsets:
    """``offsets`` with the lag of every partition that has a start offset but no lag filled in from
    ``state_topic`` (``lag_source`` "share-state"), or its ``unknown_because`` said."""
    from kgroup.offsets_log.records import decode_share_state
    from kgroup.offsets_log.read import live_records
    from kgroup.offsets_log.selection import Selection
    from kgroup.offsets_log.share_state import ShareStateReplay, lag

    wanted = sorted(tp for tp, o in offsets.partitions.items()
                    if o.lag is None and o.error is None and o.start_offset is not None)
    if not wanted:
        return offsets
    found = dict(offsets.partitions)

    def unknown(tps: list[tuple[str, int]], why: str) -> ShareOffsets:
        for tp in tps:
            found[tp] = found[tp]._replace(unknown_because=why)
        return ShareOffsets(found, offsets.lag_reported)

    metadata = cluster.metadata()
    info = metadata.topics.get(state_topic)
    if info is None or info.error is not None or not info.partitions:
        return unknown(wanted, f"the broker reports no lag (Kafka 4.1) and the share coordinator's state topic "
                               f"{state_topic} is not in the metadata, so kgroup cannot compute it")
    count = len(info.partitions)
    ids = cluster.topic_ids(sorted({t for t, _ in wanted}))
    keyed = {}
    for t, p in wanted:
        if t in ids:
            keyed[(group, ids[t], p)] = (t, p)
    no_id = [tp for tp in wanted if tp[0] not in ids]
    if no_id:
        unknown(no_id, "the broker reports no lag (Kafka 4.1) and the topic's id is not known, so its share "
                       "state cannot be found")
    state_partitions = sorted({share_state_partition_for(g, tid, p, count) for g, tid, p in keyed})
    replay = ShareStateReplay()
    try:
        for raw in live_records(settings, state_topic, state_partitions, False, _no_progress,
                                Selection(share_state=True), warn):
            try:
                record = decode_share_state(raw.key, raw.value)
            except ValueError:
                continue  # not a share-state record kgroup decodes: `kgroup log --type share-state` says which
            k = record.key
            if (k.get("groupId"), k.get("topicId"), k.get("partition")) in keyed:
                replay.apply(record, raw.offset, raw.timestamp)
    except KgroupError as e:
        return unknown(list(keyed.values()), f"the broker reports no lag (Kafka 4.1) and {state_topic} cannot be "
                                             f"read: {e.message}")
    ends, _ = cluster.log_offsets(list(keyed.values()))
    for key, tp in keyed.items():
        sp = replay.partitions.get(key)
        end = ends.get(tp, (None, None))[1]
        o = found[tp]
        if sp is None or sp.state is None:
            found[tp] = o._replace(unknown_because=f"the broker reports no lag (Kafka 4.1) and {state_topic} holds "
                                                   "no state of this share partition")
        elif end is None:
            found[tp] = o._replace(unknown_because="the broker reports no lag (Kafka 4.1) and the partition's end "
                                                   "could not be read")
        elif sp.state.start_offset != o.start_offset:
            found[tp] = o._replace(unknown_because=(
                f"the broker reports no lag (Kafka 4.1); its start offset {o.start_offset} is not the one of "
                f"{state_topic} ({sp.state.start_offset}): the state moved between the two reads"))
        elif lag(sp.state, end) < 0:
            found[tp] = o._replace(unknown_because=(
                f"the broker reports no lag (Kafka 4.1) and {state_topic}'s state of this share partition is past "
                f"the partition's end {end}"))
        else:
            found[tp] = o._replace(lag=lag(sp.state, end), lag_source="share-state")
    return ShareOffsets(found, offsets.lag_reported)


def share_offsets(cluster: Any, settings: Any, groups: list[str], warn: Warn) -> dict[str, ShareOffsets]:
    """Each share group's offsets (DescribeShareGroupOffsets), with kgroup's own lag where the broker
    reports none (:func:`lags_from_share_state`)."""
    found: dict[str, ShareOffsets] = cluster.share_group_offsets({g: None for g in groups})
    return {g: o if o.lag_reported else lags_from_share_state(cluster, settings, g, o, warn) for g, o in found.items()}
