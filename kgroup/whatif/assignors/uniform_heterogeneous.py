"""The ``uniform`` assignor's builder for members whose subscriptions differ (Kafka's
``UniformHeterogeneousAssignmentBuilder``): keep what is owned where it may stay, assign the
rest to the least loaded subscriber, then move partitions from the most to the least loaded
subscribers of each topic (``MemberAssignmentBalancer``), at most MAX_ITERATION_COUNT passes.
"""
from __future__ import annotations

from collections.abc import Callable

from kgroup.whatif.assignors.base import MemberSubscription
from kgroup.whatif.assignors.uniform_input import MAX_ITERATION_COUNT, Order, SubscribedTopics

class Balancer:
    """Least/most-loaded ranges over one topic's subscribers (MemberAssignmentBalancer)."""

    def __init__(self, sizes: list[int]):
        self.sizes = sizes  # shared with the builder: sizes change while balancing
        self.sorted: list[int] = []
        self.least_end = 0
        self.least_count = -1
        self.next_least = 0
        self.most_start = 0
        self.most_end = 0
        self.most_count = 1
        self.next_most = -1

    def initialize(self, subscribers: list[int]) -> int:
        if not subscribers:
            raise ValueError("Cannot balance an empty subscriber list.")
        self.sorted = sorted(subscribers, key=lambda i: (self.sizes[i], i))
        s = self.sorted
        self.least_end = 0
        self.least_count = self.sizes[s[0]] - 1
        self.next_least = 0
        self.most_start = len(s)
        self.most_end = len(s)
        self.most_count = self.sizes[s[-1]] + 1
        self.next_most = len(s) - 1
        return self.sizes[s[-1]] - self.sizes[s[0]]

    def next_least_loaded(self) -> int:
        s = self.sorted
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(s) and self.sizes[s[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = s[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        s = self.sorted
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = self.sizes[s[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and self.sizes[s[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = s[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        s = self.sorted
        i = self.next_most + 1
        s[i], s[self.most_end - 1] = s[self.most_end - 1], s[i]
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


def build_heterogeneous(
    meta: SubscribedTopics, members: list[MemberSubscription], order: Order
) -> dict[str, dict[str, set[int]]]:
    del order  # the current assignment's iteration order does not matter here
    ids = [m.member_id for m in members]
    subs: list[set[str]] = [{t for t in m.topics if meta.exists(t)} for m in members]
    subscribers: dict[str, list[int]] = {}
    for index, topics_of_member in enumerate(subs):
        for topic in topics_of_member:
            subscribers.setdefault(topic, []).append(index)
    if not subscribers:
        return {}

    def topic_key(topic: str) -> tuple[float, int, tuple[int, int] | str]:
        # partitions per subscriber descending, subscriber count ascending, topic id ascending
        return (-(meta.counts[topic] / len(subscribers[topic])), len(subscribers[topic]), meta.id_key(topic))

    sizes = [0] * len(members)
    owners = {topic: [-1] * meta.counts[topic] for topic in subscribers}
    target: dict[str, dict[str, set[int]]] = {mid: {} for mid in ids}

    for index, member in enumerate(members):
        grouped: dict[str, set[int]] = {}
        for topic, p in member.owned:
            if meta.exists(topic) and 0 <= p < meta.counts[topic]:
                grouped.setdefault(topic, set()).add(p)
        for topic, parts in grouped.items():
            if topic in subs[index]:
                sizes[index] += len(parts)
                for p in parts:
                    owners[topic][p] = index
                target[ids[index]][topic] = set(parts)
            # else: the topic is no longer subscribed and is revoked entirely

    def move(topic: str, p: int, new_owner: int) -> None:
        old = owners[topic][p]
        if old != -1:
            parts = target[ids[old]].get(topic)
            if parts is not None:
                parts.discard(p)
                if not parts:
                    del target[ids[old]][topic]
            owners[topic][p] = -1
            sizes[old] -= 1
        target[ids[new_owner]].setdefault(topic, set()).add(p)
        owners[topic][p] = new_owner
        sizes[new_owner] += 1

    # Hand out unassigned partitions.
    unassigned = {
        topic: [p for p in range(meta.counts[topic]) if owners[topic][p] == -1] for topic in subscribers
    }
    balancer = Balancer(sizes)
    for topic in sorted((t for t, ps in unassigned.items() if ps), key=topic_key):
        balancer.initialize(subscribers[topic])
        for p in unassigned[topic]:
            move(topic, p, balancer.next_least_loaded())

    # Iteratively balance topics that have at least two subscribers.
    movable = sorted((t for t in subscribers if len(subscribers[t]) >= 2), key=topic_key)
    if movable:
        last_rebalanced = -1
        balancer = Balancer(sizes)
        done = False
        for _ in range(MAX_ITERATION_COUNT):
            for topic_index, topic in enumerate(movable):
                if topic_index == last_rebalanced:
                    done = True
                    break
                moved = balance_topic(topic, meta.counts[topic], subscribers[topic], owners, balancer, move)
                if moved > 0 or last_rebalanced == -1:
                    last_rebalanced = topic_index
            if done:
                break
    return target


def balance_topic(topic: str, num_partitions: int, topic_subscribers: list[int], owners: dict[str, list[int]],
                   balancer: Balancer, move: Callable[[str, int, int], None]) -> int:
    moved = 0
    if balancer.initialize(topic_subscribers) <= 1:
        return moved
    owner = owners[topic]
    partitions = sorted(range(num_partitions), key=lambda p: (owner[p], p))
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    for i, p in enumerate(partitions):
        start.setdefault(owner[p], i)
        end[owner[p]] = i + 1
    while not balancer.is_balanced():
        most = -1
        while True:
            most = balancer.next_most_loaded()
            if most == -1:
                break
            if most not in end or end[most] - start[most] <= 0:
                balancer.exclude_most_loaded()
                continue
            break
        if most == -1:
            break
        p = partitions[end[most] - 1]
        end[most] -= 1
        least = balancer.next_least_loaded()
        if balancer.is_balanced():
            break
        move(topic, p, least)
        moved += 1
    return moved
