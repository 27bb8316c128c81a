"""How ``kgroup log --type share-state --replay`` shows the share partitions' states (table, JSON, CSV)."""
from __future__ import annotations

from kgroup.offsets_log.share_state import DELIVERY_STATES, ShareStateReplay, at_risk
from kgroup.output.render import OutputFormat, Table, emit
from kgroup.timeutil import format_ms


def render(output: OutputFormat, replay: ShareStateReplay, limit: int) -> None:
    parts = replay.live()
    doc = {"delivery_limit": limit, "share_partitions": [sp.to_json(limit) for sp in parts]}
    risky: list[list[object]] = []
    rows: list[list[object]] = []
    for sp in parts:
        s = sp.state
        assert s is not None
        group, topic_id, partition = sp.key
        ranges = at_risk(s, limit)
        risky.extend([group, topic_id, partition, r.batch.first, r.batch.last, r.batch.last - r.batch.first + 1,
                      DELIVERY_STATES.get(r.batch.state, str(r.batch.state)), r.batch.deliveries, r.status]
                     for r in ranges)
        in_flight = sum(b.last - b.first + 1 for b in s.batches if b.state == 0)
        rows.append([group, topic_id, partition, s.start_offset, s.state_epoch, s.snapshot_epoch, s.leader_epoch,
                     None if s.delivery_complete_count < 0 else s.delivery_complete_count, in_flight,
                     sum(r.batch.last - r.batch.first + 1 for r in ranges),
                     format_ms(sp.last_timestamp) if sp.last_timestamp is not None else None])
    tables = [
        Table(["GROUP", "TOPIC-ID", "PARTITION", "FIRST", "LAST", "RECORDS", "STATE", "DELIVERIES", "STATUS"], risky,
              title=f"Records at or near the delivery limit ({limit})",
              notes=[] if risky else ["none: no available record has been delivered "
                                      f"{limit - 1} times, none was archived after {limit}"]),
        Table(["GROUP", "TOPIC-ID", "PARTITION", "START-OFFSET", "STATE-EPOCH", "SNAPSHOT-EPOCH", "LEADER-EPOCH",
               "DELIVERED", "AVAILABLE", "AT-RISK", "LAST-WRITE"], rows, title="Share partitions"),
    ]
    emit(output, doc, tables)
