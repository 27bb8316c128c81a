"""What a streams group's task assignor (Kafka 4.3's ``StickyTaskAssignor``, the coordinator's
``sticky``) does after members leave or join, and the state each moved active task's new owner
must restore (pure).

The assignor is given what the coordinator gives it: every member (after the change) with its
current *target* tasks, in the order the group's description lists them (the coordinator's own
member table, which the description walks; members added come last), the topology's
subtopologies in ``String`` order of their ids with their task counts (the most partitions of
their input topics) and whether they are stateful, and ``num.standby.replicas``.

A moved active task (its active owner in the target changes, or its owner was removed) costs its
new owner a restore of the task's changelog partitions: from scratch, every offset between their
log start and end; less where the new owner (its member, or another member of its process) already
holds the task as standby or warm-up: how much less is not known where members do not report
their task offsets (Kafka 4.3 never does), and the result says so rather than guess.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgroup.group.streams import TASK_KINDS, StreamsMember, TaskMap
from kgroup.group.streams_state import StreamsState, restore_of
from kgroup.java.strings import java_string_key
from kgroup.whatif.assignors.streams_sticky import StreamsMemberSpec, Subtopology, TaskAssignorError, assign


class StreamsChangeError(Exception):
    """A change the group cannot take, said in terms of what was asked."""


@dataclass
class StreamsChange:
    remove: list[str] = field(default_factory=list)  # member id, client id, instance id or host
    remove_process: list[str] = field(default_factory=list)
    add: list[tuple[str, str | None]] = field(default_factory=list)  # (member id, process id or None: its own)


def _matches(m: StreamsMember, ref: str) -> bool:
    return ref in (m.member_id, m.client_id, m.instance_id, m.client_host)


def standby_replicas_seen(state: StreamsState) -> int:
    """The most standby copies any task has in the group's target assignment (what
    ``num.standby.replicas`` is at least, where there were enough processes)."""
    copies: dict[tuple[str, int], int] = {}
    for m in state.group.members:
        for sub, ps in m.target_assignment.standby.items():
            for p in set(ps):
                copies[(sub, p)] = copies.get((sub, p), 0) + 1
    return max(copies.values(), default=0)


def _owners(assignment: dict[str, dict[str, TaskMap]], kind: str) -> dict[tuple[str, int], list[str]]:
    out: dict[tuple[str, int], list[str]] = {}
    for member, tasks in assignment.items():
        for sub, ps in tasks[kind].items():
            for p in ps:
                out.setdefault((sub, p), []).append(member)
    return out


def run(state: StreamsState, change: StreamsChange, standby_replicas: int, kafka_20899: bool = False
        ) -> dict[str, Any]:
    """The document of the what-if (docs/schemas/whatif-streams.schema.json)."""
    g = state.group
    if g.topology is None:
        raise StreamsChangeError(f"group {g.group_id}'s description carries no topology")
    removed: list[str] = []
    for ref in change.remove:
        found = [m.member_id for m in g.members if _matches(m, ref)]
        if not found:
            raise StreamsChangeError(f"--remove {ref}: no member of group {g.group_id} has that member id, client "
                                     "id, instance id or host")
        removed += found
    for process in change.remove_process:
        found = [m.member_id for m in g.members if m.process_id == process]
        if not found:
            raise StreamsChangeError(f"--remove-process {process}: no member of group {g.group_id} runs in that "
                                     "process")
        removed += found
    removed = list(dict.fromkeys(removed))
    ids = {m.member_id for m in g.members}
    for name, _ in change.add:
        if name in ids:
            raise StreamsChangeError(f"--add {name}: a member with that id already exists")
        ids.add(name)
    specs = [StreamsMemberSpec(m.member_id, m.process_id, m.target_assignment.active, m.target_assignment.standby,
                               m.target_assignment.warmup, m.client_tags, m.instance_id, m.rack_id)
             for m in g.members if m.member_id not in removed]
    specs += [StreamsMemberSpec(name, process or name) for name, process in change.add]
    tasks = state.tasks()
    unknown = [s.subtopology_id for s in g.topology.subtopologies if s.subtopology_id not in tasks]
    if unknown:
        raise StreamsChangeError(f"the number of tasks of subtopolog{'ies' if len(unknown) > 1 else 'y'} "
                                 f"{', '.join(unknown)} is not known (their input topics' partition counts were "
                                 "not read)")
    subs = sorted((Subtopology(s.subtopology_id, tasks[s.subtopology_id], s.stateful)
                   for s in g.topology.subtopologies), key=lambda s: java_string_key(s.subtopology_id))
    try:
        result = assign(specs, subs, num_standby_replicas=standby_replicas, kafka_20899=kafka_20899)
        error = None
    except TaskAssignorError as e:
        result, error = {}, str(e)
    process_of = {m.member_id: m.process_id for m in g.members}
    process_of.update({name: process or name for name, process in change.add})
    before = {m.member_id: {k: {s: sorted(set(ps)) for s, ps in m.target_assignment.of(k).items() if ps}
                            for k in TASK_KINDS} for m in g.members}
    after = {member: {"active": dict(t.active), "standby": dict(t.standby), "warmup": dict(t.warmup)}
             for member, t in result.items()}
    after_j = {member: {k: {s: list(ps) for s, ps in v.items()} for k, v in kinds.items()}
               for member, kinds in after.items()}
    old_active, new_active = _owners(before, "active"), _owners(after_j, "active")
    held_before = {kind: _owners(before, kind) for kind in TASK_KINDS}
    restore = restore_of(state)
    moves = []
    for task in sorted(set(old_active) | set(new_active), key=lambda t: (java_string_key(t[0]), t[1])):
        old, new = old_active.get(task, []), new_active.get(task, [])
        if sorted(old) == sorted(new) or not new:
            continue
        owner = new[0]
        kept_as = next((k for k in ("standby", "warmup") if any(
            process_of.get(h) == process_of[owner] for h in held_before[k].get(task, []))), None)
        full = restore.get(task) if task in restore else 0
        moves.append({"task": f"{task[0]}_{task[1]}", "subtopology": task[0], "partition": task[1],
                      "from": old, "to": owner, "stateful": task in restore,
                      "to_restore": full if kept_as is None else None,
                      "restore_from_scratch": full, "held_as": kept_as,
                      "note": None if task not in restore else
                      ("from scratch" if kept_as is None else
                       f"less: its new owner's process holds it as {kept_as}; how much less is not reported "
                       "(the broker reports no task offsets)")})
    total: int | None = 0
    for mv in moves:
        n = mv["to_restore"]
        if mv["held_as"] is None and mv["stateful"]:
            total = None if total is None or not isinstance(n, int) else total + n
    return {
        "group": g.group_id, "assignor": "sticky", "kafka": "4.3" + (" (KAFKA-20899)" if kafka_20899 else ".0"),
        "num_standby_replicas": standby_replicas, "removed": removed,
        "added": [{"member_id": n, "process_id": p or n} for n, p in change.add],
        "error": error,
        "members": [{"member_id": m, "process_id": process_of.get(m), "now": before.get(m),
                     "after": after_j.get(m)} for m in [*[m.member_id for m in g.members], *[n for n, _ in change.add]]],
        "moved_active_tasks": moves,
        "to_restore_from_scratch": total,
    }
