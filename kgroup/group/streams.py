"""Streams groups (KIP-1071), as kgroup's own types, and what is computed from them alone (pure).

A streams group is assigned *tasks*: task ``(subtopology, p)`` processes partition ``p`` of every
input topic of the subtopology (its source topics and its repartition source topics), and owns
partition ``p`` of every changelog topic of the subtopology (its state stores' changelogs). A
member holds active tasks, standby tasks (a copy of an active task's state, on another process)
and warm-up tasks, each as subtopology id -> partitions. The coordinator describes the group with
its topology (StreamsGroupDescribe): this module holds that answer, and says from it alone which
partitions a task reads and restores, who owns each task, and which members are still converging
to their target tasks (as Kafka's streams ``CurrentAssignmentBuilder`` lets them).

Nothing here guesses: what the answer does not carry is None ("not reported"). Kafka 4.3's
coordinator never fills the members' task offsets (``TaskOffsets``, ``TaskEndOffsets``): they are
kept as given (an empty list from 4.3) and shown only where a broker reports them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgroup.group.broker import Broker

TASK_KINDS = ("active", "standby", "warmup")
TaskMap = dict[str, list[int]]  # subtopology id -> partitions


class StreamsTopic(NamedTuple):
    """A topic the topology creates (a changelog or repartition topic): its name, its partition
    count and replication factor (0: not enforced / the broker default; changelog topics: always 0
    in Kafka 4.3's answer) and the topic configs the application asks for."""

    name: str
    partitions: int
    replication_factor: int
    configs: dict[str, str]


class Subtopology(NamedTuple):
    subtopology_id: str
    source_topics: list[str]
    repartition_sink_topics: list[str]
    state_changelog_topics: list[StreamsTopic]
    repartition_source_topics: list[StreamsTopic]

    @property
    def input_topics(self) -> list[str]:
        """The topics its tasks read and commit offsets for: source, then repartition source."""
        return list(dict.fromkeys([*self.source_topics, *(t.name for t in self.repartition_source_topics)]))

    @property
    def changelog_topics(self) -> list[str]:
        return [t.name for t in self.state_changelog_topics]

    @property
    def stateful(self) -> bool:
        return bool(self.state_changelog_topics)


class Topology(NamedTuple):
    epoch: int
    subtopologies: list[Subtopology]

    def subtopology(self, subtopology_id: str) -> Subtopology | None:
        return next((s for s in self.subtopologies if s.subtopology_id == subtopology_id), None)


class Tasks(NamedTuple):
    """A member's tasks of each kind (each subtopology's partitions as the answer lists them)."""

    active: TaskMap
    standby: TaskMap
    warmup: TaskMap

    def of(self, kind: str) -> TaskMap:
        return getattr(self, kind)  # type: ignore[no-any-return]


class TaskOffset(NamedTuple):
    subtopology_id: str
    partition: int
    offset: int


@dataclass
class StreamsMember:
    member_id: str
    process_id: str
    member_epoch: int
    topology_epoch: int
    client_id: str
    client_host: str
    instance_id: str | None = None
    rack_id: str | None = None
    user_endpoint: tuple[str, int] | None = None
    client_tags: dict[str, str] = field(default_factory=dict)
    task_offsets: list[TaskOffset] = field(default_factory=list)
    task_end_offsets: list[TaskOffset] = field(default_factory=list)
    assignment: Tasks = field(default_factory=lambda: Tasks({}, {}, {}))
    target_assignment: Tasks = field(default_factory=lambda: Tasks({}, {}, {}))
    is_classic: bool = False


@dataclass
class StreamsGroup:
    """A streams group as StreamsGroupDescribe tells it. ``topology`` None: the answer carried
    none (Kafka's Admin client refuses such an answer: "Topology information is missing")."""

    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    topology: Topology | None
    members: list[StreamsMember] = field(default_factory=list)
    coordinator: Broker | None = None

    def member(self, ref: str) -> StreamsMember | None:
        return next((m for m in self.members if m.member_id == ref), None)


# -- tasks and the partitions behind them -----------------------------------------------------

def task_count(sub: Subtopology, partitions_of: dict[str, int]) -> int | None:
    """How many tasks a subtopology has: the most partitions any of its input topics has (Kafka
    creates repartition topics and requires co-partitioned sources with as many); None when no
    input topic's count is known (``partitions_of``: topic -> partition count from the metadata,
    else a repartition topic's count as the topology names it)."""
    counts = [partitions_of[t] for t in sub.input_topics if partitions_of.get(t) is not None]
    counts += [t.partitions for t in sub.repartition_source_topics if t.name not in partitions_of and t.partitions > 0]
    return max(counts) if counts else None


def input_partitions(sub: Subtopology, partition: int, partitions_of: dict[str, int]) -> list[tuple[str, int]]:
    """The partitions task ``(sub, partition)`` reads: that partition of each input topic that has it."""
    return [(t, partition) for t in sub.input_topics if partition < partitions_of.get(t, 0)]


def changelog_partitions(sub: Subtopology, partition: int) -> list[tuple[str, int]]:
    """The changelog partitions behind task ``(sub, partition)``: partition ``partition`` of each of
    the subtopology's changelog topics, named as the topology names them."""
    return [(t, partition) for t in sub.changelog_topics]


def active_owners(group: StreamsGroup) -> dict[tuple[str, int], str]:
    """Each task some member holds as active now -> that member (by member id, the first in id
    order when an answer lists a task twice)."""
    out: dict[tuple[str, int], str] = {}
    for m in sorted(group.members, key=lambda m: m.member_id, reverse=True):
        for sub, parts in m.assignment.active.items():
            for p in parts:
                out[(sub, p)] = m.member_id
    return out


def count(tasks: TaskMap) -> int:
    return sum(len(set(ps)) for ps in tasks.values())


def compact_tasks(tasks: TaskMap) -> str:
    """``0:0-2,5 1:3``: subtopology:partitions (ranges), subtopologies in string order."""
    from kgroup.group.assignment import compact

    return compact({sub: sorted(set(ps)) for sub, ps in tasks.items() if ps})


def _pairs(tasks: TaskMap) -> set[tuple[str, int]]:
    return {(s, p) for s, ps in tasks.items() for p in ps}


def _by_sub(pairs: set[tuple[str, int]] | list[tuple[str, int]]) -> TaskMap:
    out: TaskMap = {}
    for s, p in sorted(pairs):
        out.setdefault(s, []).append(p)
    return out


# -- reconciliation ---------------------------------------------------------------------------

def reconciled(m: StreamsMember, assignment_epoch: int) -> bool:
    """Its tasks of every kind are its target's, and its epoch is not behind the assignment epoch."""
    return all(_pairs(m.assignment.of(k)) == _pairs(m.target_assignment.of(k)) for k in TASK_KINDS) \
        and m.member_epoch >= assignment_epoch


def explain(group: StreamsGroup) -> dict[str, dict[str, Any]]:
    """For each member not :func:`reconciled`, why, as Kafka's streams ``CurrentAssignmentBuilder``
    decides: per kind, the tasks it still holds that its target does not (``to_revoke``) and the
    tasks of its target it does not hold yet (``waiting_for``), each with the member that keeps it
    from having it (``held_by``; None: nobody, it gets the task at its next heartbeat). An active
    task waits while another member holds it as active, or a member of its own process holds it as
    standby or warm-up; a standby or warm-up task waits while a member of its own process holds it
    in any kind. From a describe answer (no pending revocations listed) a task held by nobody may
    still be pending revocation by a member in an older epoch."""
    pending = [m for m in group.members if not reconciled(m, group.assignment_epoch)]
    out: dict[str, dict[str, Any]] = {}
    for m in pending:
        to_revoke: dict[str, TaskMap] = {}
        waiting: list[dict[str, Any]] = []
        for kind in TASK_KINDS:
            held, target = _pairs(m.assignment.of(kind)), _pairs(m.target_assignment.of(kind))
            if held - target:
                to_revoke[kind] = _by_sub(held - target)
            for sub, p in sorted(target - held):
                waiting.append({"kind": kind, "subtopology": sub, "partition": p,
                                "held_by": _blocker(group, m, kind, (sub, p))})
        out[m.member_id] = {"member_epoch": m.member_epoch, "group_epoch": group.group_epoch,
                            "assignment_epoch": group.assignment_epoch, "to_revoke": to_revoke,
                            "waiting_for": waiting}
    return out


def _blocker(group: StreamsGroup, m: StreamsMember, kind: str, task: tuple[str, int]) -> str | None:
    for other in sorted(group.members, key=lambda o: o.member_id):
        if other.member_id == m.member_id:
            continue
        same_process = other.process_id == m.process_id
        for k in TASK_KINDS:
            if task in _pairs(other.assignment.of(k)):
                if (kind == "active" and (k == "active" or same_process)) or (kind != "active" and same_process):
                    return other.member_id
    return None


def describe_line(member_id: str, r: dict[str, Any], shown_at_most: int = 20) -> str:
    """One line of a table's notes from a member's :func:`explain` entry."""
    parts = [f"{member_id}: epoch {r['member_epoch']} (group epoch {r['group_epoch']}, "
             f"assignment epoch {r['assignment_epoch']})"]
    for kind, tasks in r["to_revoke"].items():
        parts.append(f"to revoke {kind} {compact_tasks(tasks)}")
    waiting = r["waiting_for"]
    if waiting:
        from kgroup.group.reconciliation import waiting_text

        parts.append(waiting_text([(f"{w['kind']} {w['subtopology']}_{w['partition']}", w["held_by"])
                                   for w in waiting], shown_at_most))
    if not r["to_revoke"] and not waiting:
        parts.append("holds its target tasks; its epoch has not reached the assignment epoch yet")
    return "; ".join(parts)


# -- documents --------------------------------------------------------------------------------

def _tasks_json(t: Tasks) -> dict[str, TaskMap]:
    return {k: {s: list(ps) for s, ps in t.of(k).items()} for k in TASK_KINDS}


def _topic_json(t: StreamsTopic) -> dict[str, Any]:
    return {"name": t.name, "partition_count": t.partitions, "replication_factor": t.replication_factor,
            "configs": dict(t.configs)}


def topology_json(topology: Topology | None) -> dict[str, Any] | None:
    if topology is None:
        return None
    return {"epoch": topology.epoch, "subtopologies": [{
        "subtopology_id": s.subtopology_id, "source_topics": list(s.source_topics),
        "repartition_sink_topics": list(s.repartition_sink_topics),
        "state_changelog_topics": [_topic_json(t) for t in s.state_changelog_topics],
        "repartition_source_topics": [_topic_json(t) for t in s.repartition_source_topics],
    } for s in topology.subtopologies]}


def _offsets_json(offsets: list[TaskOffset]) -> list[dict[str, Any]]:
    return [{"subtopology": o.subtopology_id, "partition": o.partition, "offset": o.offset} for o in offsets]


def member_json(m: StreamsMember) -> dict[str, Any]:
    return {
        "member_id": m.member_id, "process_id": m.process_id, "member_epoch": m.member_epoch,
        "topology_epoch": m.topology_epoch, "client_id": m.client_id, "host": m.client_host,
        "instance_id": m.instance_id, "rack_id": m.rack_id,
        "user_endpoint": None if m.user_endpoint is None else {"host": m.user_endpoint[0],
                                                               "port": m.user_endpoint[1]},
        "client_tags": dict(m.client_tags), "task_offsets": _offsets_json(m.task_offsets),
        "task_end_offsets": _offsets_json(m.task_end_offsets),
        "assignment": _tasks_json(m.assignment), "target_assignment": _tasks_json(m.target_assignment),
        "is_classic": m.is_classic,
    }


def group_json(g: StreamsGroup) -> dict[str, Any]:
    return {"group_id": g.group_id, "state": g.state, "group_epoch": g.group_epoch,
            "assignment_epoch": g.assignment_epoch, "topology": topology_json(g.topology),
            "members": [member_json(m) for m in g.members],
            "coordinator": None if g.coordinator is None else g.coordinator.to_json()}


def _tasks_from(doc: dict[str, Any]) -> Tasks:
    return Tasks(*({s: list(ps) for s, ps in doc.get(k, {}).items()} for k in TASK_KINDS))


def _topic_from(doc: dict[str, Any]) -> StreamsTopic:
    return StreamsTopic(doc["name"], doc["partition_count"], doc["replication_factor"], dict(doc.get("configs", {})))


def group_from_json(doc: dict[str, Any]) -> StreamsGroup:
    """The inverse of :func:`group_json` (on a document already checked: streams_snapshot.py)."""
    t = doc.get("topology")
    topology = None if t is None else Topology(t["epoch"], [Subtopology(
        s["subtopology_id"], list(s["source_topics"]), list(s["repartition_sink_topics"]),
        [_topic_from(x) for x in s["state_changelog_topics"]],
        [_topic_from(x) for x in s["repartition_source_topics"]]) for s in t["subtopologies"]])
    members = [StreamsMember(
        member_id=m["member_id"], process_id=m["process_id"], member_epoch=m["member_epoch"],
        topology_epoch=m["topology_epoch"], client_id=m["client_id"], client_host=m["host"],
        instance_id=m.get("instance_id"), rack_id=m.get("rack_id"),
        user_endpoint=None if m.get("user_endpoint") is None else (m["user_endpoint"]["host"],
                                                                   m["user_endpoint"]["port"]),
        client_tags=dict(m.get("client_tags", {})),
        task_offsets=[TaskOffset(o["subtopology"], o["partition"], o["offset"]) for o in m.get("task_offsets", [])],
        task_end_offsets=[TaskOffset(o["subtopology"], o["partition"], o["offset"])
                          for o in m.get("task_end_offsets", [])],
        assignment=_tasks_from(m["assignment"]), target_assignment=_tasks_from(m["target_assignment"]),
        is_classic=bool(m.get("is_classic", False))) for m in doc["members"]]
    c = doc.get("coordinator")
    return StreamsGroup(doc["group_id"], doc["state"], doc["group_epoch"], doc["assignment_epoch"], topology, members,
                        None if c is None else Broker.from_json(c))
