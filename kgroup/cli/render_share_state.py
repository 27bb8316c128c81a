"""How ``kgroup log --type share-state --replay`` shows the share partitions' states (table, JSON, CSV)."""
from __future__ import annotations

from kgroup.offsets_log.share_state import DELIVERY_STATES, ShareStateReplay, at_risk
from kgroup.output.render import OutputFormat, Table, emit
from kgroup.timeutil import format_ms


def render(output: OutputFormat, replay: ShareStateReplay, limit: int,
           limits: dict[str, tuple[int, str]] | None = None) -> None:
    """``limit``: the delivery limit of a group that has none of its own in ``limits`` (group ->
    (its share.delivery.count.limit, where that comes from))."""
    limits = limits or {}
    parts = replay.live()

    def limit_of(group: str) -> int:
        return limits[group][0] if group in limits else limit
    doc = {"delivery_limit": limit, "share_partitions": [sp.to_json(limit_of(sp.key[0])) for sp in parts],
           **({"delivery_limits": {g: {"limit": n, "source": where} for g, (n, where) in sorted(limits.items())}}
              if limits else {})}
    risky: list[list[object]] = []
    rows: list[list[object]] = []
    for sp in parts:
        s = sp.state
        assert s is not None
        group, topic_id, partition = sp.key
        ranges = at_risk(s, limit_of(group))
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
              title=(f"Records at or near the delivery limit ({limit})" if not limits else
                     "Records at or near the delivery limit (each group's: "
                     + ", ".join(f"{g} {n}" for g, (n, _) in sorted(limits.items())) + f"; others {limit})"),
              notes=[] if risky else [f"none: no available record has been delivered {limit - 1} times, none was "
                                      f"archived after {limit}" if not limits else
                                      "none: no available record is on its last delivery attempt or past its "
                                      "group's limit, none was archived at it"]),
        Table(["GROUP", "TOPIC-ID", "PARTITION", "START-OFFSET", "STATE-EPOCH", "SNAPSHOT-EPOCH", "LEADER-EPOCH",
               "DELIVERED", "AVAILABLE", "AT-RISK", "LAST-WRITE"], rows, title="Share partitions"),
    ]
    emit(output, doc, tables)
