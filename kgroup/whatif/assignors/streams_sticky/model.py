"""What Kafka's streams-group task assignor is given and what it returns, as kgroup's own types.

A streams group (KIP-1071) is assigned *tasks*: task ``(subtopology, partition)`` processes that
partition of the subtopology's input topics. A member holds active tasks, standby tasks (a copy
of an active task's state, kept warm on another process) and warm-up tasks, each as a map from
subtopology id to partition numbers, as the coordinator's ``TasksTuple`` and
``AssignmentMemberSpec`` hold them.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

#: a member's tasks of one kind: subtopology id -> partitions
TaskMap = Mapping[str, Collection[int]]


class TaskAssignorError(Exception):
    """What Kafka's streams assignor throws as ``TaskAssignorException`` (the coordinator then
    keeps the group's previous target assignment); the message is Kafka's."""


@dataclass(frozen=True)
class Subtopology:
    """A subtopology as the assignor's ``TopologyDescriber`` describes it."""

    subtopology_id: str
    #: the number of its tasks: the most partitions any of its source topics has
    partitions: int
    #: whether it has changelog topics (state stores): only such tasks get standbys
    stateful: bool


@dataclass(frozen=True)
class StreamsMemberSpec:
    """One member as the assignor sees it (``AssignmentMemberSpec``): its process and its current
    target tasks. ``client_tags``, ``instance_id`` and ``rack_id`` are carried as Kafka carries
    them; its sticky assignor reads none of them."""

    member_id: str
    process_id: str
    active: TaskMap = field(default_factory=dict)
    standby: TaskMap = field(default_factory=dict)
    warmup: TaskMap = field(default_factory=dict)
    client_tags: Mapping[str, str] = field(default_factory=dict)
    instance_id: str | None = None
    rack_id: str | None = None


#: tasks of one kind in an answer: subtopology id (in ``String`` order) -> partitions, ascending
TaskIds = dict[str, tuple[int, ...]]


@dataclass(frozen=True)
class StreamsTasks:
    """A member's new target tasks (``MemberAssignment``). Kafka returns sets; the coordinator
    writes and describes them sorted (subtopology ids, then partitions), and so are these."""

    active: TaskIds
    standby: TaskIds
    warmup: TaskIds


#: member id -> its tasks, for every member given
StreamsGroupAssignment = dict[str, StreamsTasks]
