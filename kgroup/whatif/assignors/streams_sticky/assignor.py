"""Kafka 4.3's streams-group ``StickyTaskAssignor``, step for step (re-written, not copied).

Mirrors ``StickyTaskAssignor`` and ``ProcessState`` of
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/streams/assignor/`` in Apache
Kafka 4.3.0 (Confluent's tag v8.3.0, commit 49fc2e1cfb) and, with ``kafka_20899=True``, on branch
4.3 from KAFKA-20899 (7b9d8474eb, Aug 2026) on: there ``findPrevMemberWithLeastLoad`` skips
previous standbys whose process already has the task, where 4.3.0 only skips them from the
second one on and gives up when the *first* one's process has it. Checked against Kafka's class
on the committed vectors of both (tests/differential/test_streams_sticky_assignor.py).

What the answer depends on besides the numbers
----------------------------------------------
* The member order: the coordinator hands the assignor a ``HashMap`` of member ids (filled in the
  order of its own member table, one ``put`` each), so members are visited in Java ``HashMap``
  order (:mod:`kgroup.java.hashmap`); ids sharing a bucket keep the order of the ``members``
  list. ``order="given"`` visits them as listed instead (a ``LinkedHashMap``, as Kafka's tests).
* Processes: ``processIdToState`` is a ``new HashMap<>(number of members)`` filled in member order;
  its order is the order processes enter the least-loaded heaps, which decides ties.
* Within a process, its members in ``HashMap`` order (``memberToTaskCounts``, a ``new HashMap<>()``),
  the order its members' heap is built in; that heap lives until a task is given to a named
  member of the process, and its tie-breaking is Java's ``PriorityQueue``'s
  (:mod:`kgroup.java.priority_queue`).
* Loads are doubles (``tasks / members``), compared as Java compares them.
* The order of a member's tasks does not matter: they only fill look-up tables (for a task listed
  as active by several members, the last member in member order counts).

What it does not do: warm-up tasks (it returns none and ignores the current ones), client tags
and racks (ignored), task offsets (Kafka 4.3 does not collect them). A task whose subtopology or
partition the topology no longer has is dropped. With no member and at least one task it raises
:class:`TaskAssignorError` as Kafka throws ``TaskAssignorException``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from kgroup.java.hashmap import iteration_order
from kgroup.java.priority_queue import JavaPriorityQueue
from kgroup.java.strings import java_string_key
from kgroup.whatif.assignors.streams_sticky.model import (StreamsGroupAssignment, StreamsMemberSpec, StreamsTasks,
                                                          Subtopology, TaskAssignorError, TaskIds)

Order = Literal["java", "given"]


class TaskId(NamedTuple):
    subtopology_id: str
    partition: int

    def __str__(self) -> str:  # TaskId.toString()
        return f"{self.subtopology_id}_{self.partition}"


class _Member(NamedTuple):
    process_id: str
    member_id: str


def _java_div(a: int, b: int) -> int:
    """``a / b`` on Java ints (truncated toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def tasks_per_member(tasks: int, members: int) -> int:
    """``computeTasksPerMember``: ``tasks / members`` rounded up (0 without members), on Java ints."""
    if members == 0:
        return 0
    quotient = _java_div(tasks, members)
    if tasks - members * quotient > 0:
        quotient += 1
    return quotient


def _compare_load(a: _ProcessState, b: _ProcessState) -> int:
    """``Comparator.comparingDouble(ProcessState::load)`` (loads are never NaN or -0.0)."""
    return (a.load > b.load) - (a.load < b.load)


def _compare_count(a: list[str | int], b: list[str | int]) -> int:
    """``Map.Entry.comparingByValue()`` on ``[member id, task count]`` entries."""
    x, y = a[1], b[1]
    assert isinstance(x, int) and isinstance(y, int)
    return (x > y) - (x < y)


class _ProcessState:
    """``ProcessState``: a process's members, their task counts and the process's load."""

    __slots__ = ("process_id", "capacity", "load", "task_count", "counts", "member_order", "active", "standby",
                 "tasks", "members_by_load")

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.capacity = 0
        self.load = float("inf")  # Double.MAX_VALUE until the first member; never compared before
        self.task_count = 0
        self.counts: dict[str, int] = {}  # memberToTaskCounts; its Java order is member_order
        self.member_order: list[str] = []
        self.active: dict[str, set[TaskId]] = {}
        self.standby: dict[str, set[TaskId]] = {}
        self.tasks: set[TaskId] = set()
        self.members_by_load: JavaPriorityQueue[list[str | int]] | None = None

    def add_member(self, member_id: str) -> None:
        self.counts[member_id] = 0
        self.capacity += 1
        self._compute_load()

    def seal(self) -> None:
        """Fix ``memberToTaskCounts``'s iteration order (a ``new HashMap<>()``) once every member is in."""
        self.member_order = iteration_order(self.counts)

    def _compute_load(self) -> None:
        self.load = -1.0 if self.capacity <= 0 else self.task_count / self.capacity

    def has_task(self, task: TaskId) -> bool:
        return task in self.tasks

    def _add(self, member_id: str, task: TaskId, active: bool) -> int:
        self.task_count += 1
        self.tasks.add(task)
        (self.active if active else self.standby).setdefault(member_id, set()).add(task)
        count = self.counts[member_id] + 1
        self.counts[member_id] = count
        self._compute_load()
        return count

    def add_task(self, member_id: str, task: TaskId, active: bool) -> int:
        """``addTask``: to a named member; the members' heap is dropped (rebuilt when next needed)."""
        count = self._add(member_id, task, active)
        self.members_by_load = None
        return count

    def add_task_to_least_loaded_member(self, task: TaskId, active: bool) -> int:
        """``addTaskToLeastLoadedMember``: the member with the fewest tasks (Java's heap decides ties)."""
        if not self.counts:
            return -1
        if len(self.counts) == 1:
            return self._add(self.member_order[0], task, active)
        if self.members_by_load is None:
            self.members_by_load = JavaPriorityQueue(_compare_count)
            self.members_by_load.add_all([[m, self.counts[m]] for m in self.member_order])
        entry = self.members_by_load.poll()
        if entry is None:
            raise TaskAssignorError(f"No members available to assign task {task}")
        member_id = entry[0]
        assert isinstance(member_id, str)
        count = self._add(member_id, task, active)
        entry[1] = count
        self.members_by_load.add(entry)
        return count


class _StickyTaskAssignor:
    """One ``assign`` call: ``LocalState`` and the steps that read and change it."""

    def __init__(self, members: list[StreamsMemberSpec], subtopologies: Sequence[Subtopology], replicas: int,
                 kafka_20899: bool) -> None:
        self.replicas = replicas
        self.kafka_20899 = kafka_20899
        self.total_active = 0
        self.total_tasks = 0
        for sub in subtopologies:
            self.total_tasks += sub.partitions
            self.total_active += sub.partitions
            if sub.stateful:
                self.total_tasks += sub.partitions * replicas
        self.members_with_active_capacity = len(members)
        self.members_with_capacity = len(members)
        self.active_per_member = tasks_per_member(self.total_active, self.members_with_active_capacity)
        self.total_per_member = tasks_per_member(self.total_tasks, self.members_with_capacity)

        self.processes: dict[str, _ProcessState] = {}
        self.prev_active: dict[TaskId, _Member] = {}
        self.prev_standby: dict[TaskId, list[_Member]] = {}
        for spec in members:
            member = _Member(spec.process_id, spec.member_id)
            self.processes.setdefault(spec.process_id, _ProcessState(spec.process_id)).add_member(spec.member_id)
            for sub_id, partitions in spec.active.items():
                for p in set(partitions):
                    self.prev_active[TaskId(sub_id, p)] = member  # the last claim wins
            for sub_id, partitions in spec.standby.items():
                for p in set(partitions):
                    self.prev_standby.setdefault(TaskId(sub_id, p), []).append(member)
        # processIdToState: new HashMap<>(numMembers), process ids put in member order
        order = iteration_order([m.process_id for m in members], initial_capacity=len(members))
        self.process_order = [self.processes[p] for p in order]
        for state in self.process_order:
            state.seal()

    # ------------------------------------------------------------------ quotas

    def _update_active_quota(self, count: int) -> None:
        if count == self.active_per_member:
            self.members_with_active_capacity -= 1
            self.total_active -= count
            self.active_per_member = tasks_per_member(self.total_active, self.members_with_active_capacity)

    def _update_total_quota(self, count: int) -> None:
        if count == self.total_per_member:
            self.members_with_capacity -= 1
            self.total_tasks -= count
            self.total_per_member = tasks_per_member(self.total_tasks, self.members_with_capacity)

    def _under_active_quota(self, member: _Member) -> bool:
        return self.processes[member.process_id].counts[member.member_id] < self.active_per_member

    def _under_quota(self, member: _Member) -> bool:
        return self.processes[member.process_id].counts[member.member_id] < self.total_per_member

    # ------------------------------------------------------------------ previous owners

    def _prev_member_with_least_load(self, members: list[_Member] | None, standby_task: TaskId | None) -> _Member | None:
        """``findPrevMemberWithLeastLoad``: the first candidate, replaced by a later one only when both
        its process's load and its own task count are strictly lower."""
        if not members:
            return None
        if self.kafka_20899:
            candidate: _Member | None = None
            candidate_load = candidate_count = 0.0
            for member in members:
                state = self.processes[member.process_id]
                if standby_task is not None and state.has_task(standby_task):
                    continue
                load, count = state.load, float(state.counts[member.member_id])
                if candidate is None or (load < candidate_load and count < candidate_count):
                    candidate, candidate_load, candidate_count = member, load, count
            return candidate
        # 4.3.0: the first member is the candidate whatever its process holds, and the check at
        # the end looks at the first member's process even when another member was chosen
        first = members[0]
        first_state = self.processes[first.process_id]
        chosen = first
        chosen_load, chosen_count = first_state.load, float(first_state.counts[first.member_id])
        for member in members[1:]:
            state = self.processes[member.process_id]
            load = state.load
            if load < chosen_load and (standby_task is None or not state.has_task(standby_task)):
                count = float(state.counts[member.member_id])
                if count < chosen_count:
                    chosen, chosen_load, chosen_count = member, load, count
        if standby_task is None or not first_state.has_task(standby_task):
            return chosen
        return None

    # ------------------------------------------------------------------ active tasks

    def assign_active(self, tasks: list[TaskId]) -> None:
        # range-like first: by partition, then subtopology
        tasks = sorted(tasks, key=lambda t: (t.partition, java_string_key(t.subtopology_id)))
        # 1. back to the member that had it active, while under the active quota
        rest: list[TaskId] = []
        for task in tasks:
            prev = self.prev_active.get(task)
            if prev is not None and self._under_active_quota(prev):
                count = self.processes[prev.process_id].add_task(prev.member_id, task, True)
                self._update_active_quota(count)
                self._update_total_quota(count)
            else:
                rest.append(task)
        # 2. to the least loaded member that had it as standby, if under the active quota
        tasks, rest = rest, []
        for task in tasks:
            prev = self._prev_member_with_least_load(self.prev_standby.get(task), None)
            if prev is not None and self._under_active_quota(prev):
                count = self.processes[prev.process_id].add_task(prev.member_id, task, True)
                self._update_active_quota(count)
                self._update_total_quota(count)
            else:
                rest.append(task)
        # 3. the rest, by subtopology then partition, to the least loaded process's least loaded member
        rest.sort(key=lambda t: (java_string_key(t.subtopology_id), t.partition))
        by_load: JavaPriorityQueue[_ProcessState] = JavaPriorityQueue(_compare_load)
        by_load.add_all(self.process_order)
        for task in rest:
            state = by_load.poll()
            if state is None:
                raise TaskAssignorError(f"No process available to assign active task {task}.")
            count = state.add_task_to_least_loaded_member(task, True)
            if count == -1:
                raise TaskAssignorError(f"No member available to assign active task {task}.")
            self._update_active_quota(count)
            self._update_total_quota(count)
            by_load.add(state)

    # ------------------------------------------------------------------ standby tasks

    def _standby_to_least_loaded(self, queue: JavaPriorityQueue[_ProcessState], task: TaskId) -> bool:
        """``assignStandbyToMemberWithLeastLoad``: the least loaded process without the task, looked
        for by polling deeper; every polled process goes back, the innermost first."""
        state = queue.poll()
        if state is None:
            return False
        found = False
        if not state.has_task(task):
            count = state.add_task_to_least_loaded_member(task, False)
            if count != -1:
                found = True
                self._update_total_quota(count)
        elif len(queue):
            found = self._standby_to_least_loaded(queue, task)
        queue.add(state)
        return found

    def assign_standby(self, tasks: list[TaskId]) -> None:
        replicas = self.replicas
        tasks = sorted(tasks, key=lambda t: (t.partition, java_string_key(t.subtopology_id)), reverse=True)
        left: list[tuple[TaskId, int]] = []
        for task in tasks:
            for i in range(replicas):
                prev = self.prev_active.get(task)
                if prev is not None:
                    state = self.processes[prev.process_id]
                    if not state.has_task(task) and self._under_quota(prev):
                        self._update_total_quota(state.add_task(prev.member_id, task, False))
                        continue
                prev = self._prev_member_with_least_load(self.prev_standby.get(task), task)
                if prev is not None and self._under_quota(prev):
                    state = self.processes[prev.process_id]
                    self._update_total_quota(state.add_task(prev.member_id, task, False))
                    continue
                left.append((task, replicas - i))
                break
        left.sort(key=lambda x: (java_string_key(x[0].subtopology_id), x[0].partition), reverse=True)
        by_load: JavaPriorityQueue[_ProcessState] = JavaPriorityQueue(_compare_load)
        by_load.add_all(self.process_order)
        for task, remaining in left:
            for _ in range(remaining):
                if not self._standby_to_least_loaded(by_load, task):
                    break  # Kafka logs "not enough available capacity" and gives up the task's others

    # ------------------------------------------------------------------ the answer

    def result(self, members: Sequence[StreamsMemberSpec]) -> StreamsGroupAssignment:
        out: StreamsGroupAssignment = {}
        for spec in members:
            state = self.processes[spec.process_id]
            out[spec.member_id] = StreamsTasks(
                active=_compact(state.active.get(spec.member_id, set())),
                standby=_compact(state.standby.get(spec.member_id, set())),
                warmup={},
            )
        return out


def _compact(tasks: set[TaskId]) -> TaskIds:
    by_sub: dict[str, list[int]] = {}
    for task in tasks:
        by_sub.setdefault(task.subtopology_id, []).append(task.partition)
    return {sub: tuple(sorted(by_sub[sub])) for sub in sorted(by_sub, key=java_string_key)}


def _validate(members: Sequence[StreamsMemberSpec], subtopologies: Sequence[Subtopology], replicas: int,
              order: str) -> None:
    if order not in ("java", "given"):
        raise ValueError(f"order must be 'java' or 'given', not {order!r}")
    if not isinstance(replicas, int) or replicas < 0:
        raise ValueError(f"num.standby.replicas must be an int >= 0, not {replicas!r}")
    seen: set[str] = set()
    for m in members:
        if m.member_id in seen:
            raise ValueError(f"duplicate member id {m.member_id!r}")
        seen.add(m.member_id)
    subs: set[str] = set()
    for sub in subtopologies:
        if sub.subtopology_id in subs:
            raise ValueError(f"duplicate subtopology id {sub.subtopology_id!r}")
        subs.add(sub.subtopology_id)
        if not isinstance(sub.partitions, int) or sub.partitions < 0:
            raise ValueError(f"subtopology {sub.subtopology_id!r}: partitions must be an int >= 0")


def assign(
    members: Sequence[StreamsMemberSpec],
    subtopologies: Sequence[Subtopology],
    *,
    num_standby_replicas: int = 0,
    order: Order = "java",
    kafka_20899: bool = False,
) -> StreamsGroupAssignment:
    """The target assignment Kafka's streams ``sticky`` assignor computes for ``members`` (their
    current target tasks in ``active``/``standby``/``warmup``) over ``subtopologies``, with the
    group's ``num.standby.replicas``: every member given, in the given order, with its tasks.

    ``order`` and ``kafka_20899`` (Kafka 4.3.0 when False, branch 4.3 after KAFKA-20899 when True):
    see the module's docstring. Raises :class:`TaskAssignorError` where Kafka throws, and
    ``ValueError`` on input no coordinator builds (duplicate ids, negative counts).
    """
    _validate(members, subtopologies, num_standby_replicas, order)
    if order == "java":
        by_id = {m.member_id: m for m in members}
        ordered = [by_id[i] for i in iteration_order([m.member_id for m in members])]
    else:
        ordered = list(members)
    run = _StickyTaskAssignor(ordered, subtopologies, num_standby_replicas, kafka_20899)
    run.assign_active([TaskId(s.subtopology_id, p) for s in subtopologies for p in range(s.partitions)])
    if num_standby_replicas > 0:
        run.assign_standby([TaskId(s.subtopology_id, p) for s in subtopologies if s.stateful
                            for p in range(s.partitions)])
    return run.result(members)
