"""One readable line for a record: what ``kgroup log -o table`` shows after time and position.

"G1 Order-3 → 1042", "G1 generation 7, 3 members, range", "G1 deleted".
"""
from __future__ import annotations

from typing import Any

from kgroup.offsets_log.records import CoordinatorRecord, ShareStateRecord

_STATE = {0: "stable", 1: "unrevoked-partitions", 2: "unreleased-partitions", 3: "unknown"}


def _parts(tps: list[Any] | None) -> str:
    if not tps:
        return "nothing"
    return ";".join(f"{tp['topicId']}:{','.join(map(str, tp['partitions']))}" for tp in tps)


def _tasks(tasks: list[Any] | None) -> int:
    return sum(len(t.get("partitions", [])) for t in tasks or [])


def _share_state_gist(rec: ShareStateRecord) -> str:
    k, v = rec.key, rec.value
    where = f"{rec.group_id} {k['topicId']}:{k['partition']}"
    if v is None:
        return f"{where} state deleted"
    batches = v["stateBatches"]
    spans = ", ".join(f"{b['firstOffset']}-{b['lastOffset']} {_DELIVERY.get(b['deliveryState'], b['deliveryState'])}"
                      f"×{b['deliveryCount']}" for b in batches[:3]) + (f", +{len(batches) - 3}" if len(batches) > 3 else "")
    head = (f"snapshot {v['snapshotEpoch']} (state epoch {v['stateEpoch']})" if rec.type == 0
            else f"update of snapshot {v['snapshotEpoch']}")
    start = "" if v["startOffset"] == -1 else f" start {v['startOffset']}"
    return f"{where} {head}{start}: {spans or 'no batches'}"


_DELIVERY = {0: "available", 2: "acknowledged", 4: "archived"}


def gist(rec: CoordinatorRecord) -> str:
    if isinstance(rec, ShareStateRecord):
        return _share_state_gist(rec)
    k, v, t = rec.key, rec.value, rec.type
    g = rec.group_id
    if t in (0, 1):
        where = f"{k['topic']}-{k['partition']}"
        if v is None:
            return f"{g} {where} committed offset deleted"
        extra = f" (leader epoch {v['leaderEpoch']})" if v.get("leaderEpoch", -1) != -1 else ""
        return f"{g} {where} → {v['offset']}{extra}"
    if t == 2:
        if v is None:
            return f"{g} deleted"
        members = len(v["members"])
        proto = v["protocol"] if v["protocol"] is not None else "no protocol"
        kind = "" if v["protocolType"] == "consumer" else f" ({v['protocolType'] or 'no protocol type'})"
        return f"{g} generation {v['generation']}, {members} member{'s' * (members != 1)}, {proto}{kind}"
    member = k.get("memberId")
    if v is None:
        what = {3: "group metadata", 11: "group metadata", 17: "group metadata",
                5: f"member {member}", 10: f"member {member}", 19: f"member {member}",
                7: f"target assignment of {member}", 13: f"target assignment of {member}",
                21: f"target assignment of {member}",
                8: f"assignment of {member}", 14: f"assignment of {member}", 22: f"assignment of {member}",
                16: f"regular expression {k.get('regularExpression')}"}.get(t, rec.name)
        return f"{g} {what} deleted"
    if t in (3, 11, 17):
        return f"{g} group epoch {v['epoch']}"
    if t == 4:
        return f"{g} subscribed topics metadata: {len(v['topics'])} topics"
    if t in (5, 10, 19):
        subs = v.get("subscribedTopicNames")
        regex = v.get("subscribedTopicRegex")
        what = (f"subscribes {','.join(subs)}" if subs else "") + (f" regex {regex}" if regex else "")
        return f"{g} member {member} ({v['clientId']}@{v['clientHost']}) {what}".rstrip()
    if t in (6, 12, 20):
        return f"{g} target assignment epoch {v['assignmentEpoch']}"
    if t in (7, 13):
        return f"{g} target for {member}: {_parts(v['topicPartitions'])}"
    if t in (8, 14):
        state = _STATE.get(v["state"], str(v["state"]))
        return f"{g} member {member} epoch {v['memberEpoch']} ({state}) owns {_parts(v['assignedPartitions'])}"
    if t == 16:
        return f"{g} regular expression {k['regularExpression']} → {len(v['topics'])} topics"
    if t == 21:
        return f"{g} target for {member}: {_tasks(v['activeTasks'])} active tasks"
    if t == 22:
        return f"{g} member {member} epoch {v['memberEpoch']}: {_tasks(v['activeTasks'])} active tasks"
    if t == 15:
        return f"{g} share state: {len(v['initializedTopics'])} topics initialized"
    if t == 23:
        return f"{g} topology epoch {v['epoch']}, {len(v['subtopologies'])} subtopologies"
    return f"{g} {rec.name}"
