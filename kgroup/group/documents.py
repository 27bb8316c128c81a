"""Documents for list and describe, built from GroupState (pure); the offsets document is lag's
(kgroup.lag.now).

The JSON documents are the contract (README); tables render from them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from kgroup.group.assignment import normalized, partition_count
from kgroup.group.model import GroupDescription, GroupState
from kgroup.kmsg.states import EMPTY, REBALANCING, STABLE

if TYPE_CHECKING:
    from kgroup.group.metadata import GroupListing


def listing_row(g: GroupListing, d: GroupDescription | None, states: list[str],
                types: list[str] | None) -> dict[str, Any] | None:
    """One group's row of the list document (ListGroups completed by its description), or None
    when ``states`` (any of them) or ``types`` (any of them) leave it out. Without a description
    (share, streams and Kafka Connect groups are not described here), what ListGroups said stands:
    the coordinator is the broker that listed the group."""
    # the description's state, but where it says Unknown (librdkafka knows six states only, not
    # Assigning or Reconciling): ListGroups names it as Kafka does
    state = (d.state if d and d.state not in (None, "Unknown") else None) or g.state or (d.state if d else None)
    gtype = g.type or (d.type if d else None)
    if states and (state or "").lower().replace("_", "") not in {s.lower().replace("_", "") for s in states}:
        return None
    if types and gtype not in types:
        return None
    coordinator = d.coordinator if d and d.coordinator else g.coordinator
    return {"group": g.group_id, "type": gtype, "state": state,
            "protocol_type": (d.protocol_type if d else None) or g.protocol_type,
            "assignor": d.assignor if d else None, "member_count": len(d.members) if d else None,
            "coordinator": coordinator.to_json() if coordinator else None}


def describe_document(states: Iterable[GroupState]) -> dict[str, Any]:
    return {"groups": [describe_group(s) for s in states]}


def describe_group(s: GroupState) -> dict[str, Any]:
    """One group of the describe document: its members sorted static first (by instance id),
    then by member id, each with its assignment and, for KIP-848, its target; a KIP-848 member
    that is not reconciled (kgroup.group.reconciliation) is ``reconciling`` and says why in
    ``reconciliation``."""
    from kgroup.group.reconciliation import explain

    g = s.group
    share = g.type == "share"
    why = {} if share else explain(g)
    members = []
    for m in sorted(g.members, key=lambda m: (m.group_instance_id is None, m.group_instance_id or "",
                                              m.member_id)):
        target = normalized(m.target_assignment) if m.target_assignment is not None else None
        r = why.get(m.member_id)
        members.append({
            "member_id": m.member_id, "group_instance_id": m.group_instance_id, "client_id": m.client_id,
            "host": m.host, "partition_count": partition_count(m.assignment),
            "assignment": normalized(m.assignment), "target_assignment": target,
            "reconciling": r is not None,
            **({"reconciliation": r.to_json()} if r is not None else {}),
            # a share group's member (ShareGroupDescribe): what kafka-share-groups.sh shows, and more
            **({"rack": m.rack, "member_epoch": m.member_epoch, "subscription": sorted(m.subscription or ())}
               if share else {}),
        })
    return {"group": g.group_id, "type": g.type, "state": g.state, "assignor": g.assignor,
            "coordinator": g.coordinator.to_json() if g.coordinator else None,
            **({"group_epoch": g.generation, "assignment_epoch": g.assignment_epoch} if share else {}),
            "member_count": len(members),
            "members": members}


def describe_notes(g: dict[str, Any]) -> list[str]:
    """Plain statements about a group's condition, under its table."""
    state = g["state"]
    notes = []
    if state == EMPTY:
        notes.append(f"Group {g['group']} is empty: no active members (offsets may still be committed).")
    elif state in REBALANCING:
        notes.append(f"Group {g['group']} is rebalancing ({state}): assignments are in flux.")
    elif state == STABLE and not g["members"]:
        notes.append(f"Group {g['group']} is Stable but the broker returned no member details "
                     "(some Kafka-compatible brokers do not implement ConsumerGroupDescribe fully).")
    reconciling = [m for m in g["members"] if m["reconciling"]]
    if reconciling:
        from kgroup.group.reconciliation import describe_line

        notes.append(f"{len(reconciling)} member(s) still reconciling towards their target assignment:")
        notes.extend("  " + describe_line(m["member_id"], m["reconciliation"]) for m in reconciling)
        if any(m["reconciliation"]["member_epoch"] is None for m in reconciling):
            notes.append("Epochs shown as - are not known here: librdkafka does not report them (kgroup's own "
                         "describe of many groups per request and the offsets log do).")
    return notes
