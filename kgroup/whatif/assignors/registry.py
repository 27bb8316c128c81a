"""Every partition assignment strategy kgroup runs, in one table: its name, the name Kafka gives
it, where it runs in Kafka (``client``: in the group leader's consumer, a classic group;
``server``: in the group coordinator, a KIP-848 consumer group or a KIP-932 share group), the
group types it assigns for, the module under ``kgroup.whatif.assignors``
whose ``assign`` implements it, the Kafka class it mirrors and, for the client side, the
rebalance protocols it supports. Everything else (whatif's strategies and how it calls them,
the CLI's choices, the protocol vote's table) derives from it. Loading this module loads no
assignor: ``module`` is imported when a strategy runs.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:  # annotations only: importing the assignors' vocabulary here would load it at start-up
    from kgroup.whatif.assignors.base import GroupAssignment, MemberSubscription, TopicRacks


class Strategy(NamedTuple):
    name: str  # kgroup's name for it (--strategy, whatif's documents)
    kafka_name: str  # the assignor's name in Kafka: a classic member's protocol name, a KIP-848 group's assignor
    side: Literal["client", "server"]
    module: str  # the module under kgroup.whatif.assignors whose assign() implements it
    kafka_class: str
    # ConsumerPartitionAssignor.supportedProtocols (client side); a consumer rebalances with the
    # most advanced protocol *all* its assignors support
    rebalance_protocols: tuple[str, ...] = ()
    # the module's assign_rounds() gives the first rebalance and the follow-up that completes its
    # moves (cooperative: partitions changing owner are revoked first, assigned in the next round)
    two_rounds: bool = False
    # assign() takes the topics' ids and the brokers' JDK (both decide its iteration orders)
    takes_topic_ids: bool = False
    # the group types whose partitions it assigns: a share group's partitions may go to several
    # members at once, and only the share assignor does that
    group_types: tuple[str, ...] = ("classic", "consumer")
    function: str = "assign"  # the module's function that runs it

    def run(self, topics: dict[str, int], members: list[MemberSubscription], *,
            topic_racks: TopicRacks | None = None, topic_ids: dict[str, str] | None = None,
            jdk: int | None = None) -> tuple[GroupAssignment, GroupAssignment | None]:
        """The strategy's assignment of ``members``, and for a two-round strategy its first round
        (else None). ``topic_ids`` and ``jdk`` (None: the default) reach only a strategy that takes them."""
        module = importlib.import_module(f"kgroup.whatif.assignors.{self.module}")
        assign = getattr(module, self.function)
        if self.two_rounds:
            first, converged = module.assign_rounds(topics, members, topic_racks=topic_racks)
            return converged, first
        if self.takes_topic_ids:
            extra = {"topic_ids": topic_ids} if jdk is None else {"topic_ids": topic_ids, "jdk": jdk}
            return assign(topics, members, topic_racks=topic_racks, **extra), None
        return assign(topics, members, topic_racks=topic_racks), None


_CLIENTS = "org.apache.kafka.clients.consumer."
_COORDINATOR = "org.apache.kafka.coordinator.group.assignor."

STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("range", "range", "client", "range", _CLIENTS + "RangeAssignor", ("EAGER",)),
    Strategy("roundrobin", "roundrobin", "client", "roundrobin", _CLIENTS + "RoundRobinAssignor", ("EAGER",)),
    Strategy("sticky", "sticky", "client", "sticky", _CLIENTS + "StickyAssignor", ("EAGER",)),
    Strategy("cooperative-sticky", "cooperative-sticky", "client", "cooperative_sticky",
             _CLIENTS + "CooperativeStickyAssignor", ("EAGER", "COOPERATIVE"), two_rounds=True),
    Strategy("uniform", "uniform", "server", "uniform", _COORDINATOR + "UniformAssignor", takes_topic_ids=True),
    # Kafka names the server-side range assignor "range" too; kgroup tells the two apart
    Strategy("server-range", "range", "server", "server_range", _COORDINATOR + "RangeAssignor"),
    # KIP-932: the one assignor of share groups (group.share.assignors)
    Strategy("simple", "simple", "server", "simple", _COORDINATOR + "SimpleAssignor", takes_topic_ids=True,
             group_types=("share",), function="assign_subscriptions"),
)}


def for_group_type(group_type: str | None) -> list[str]:
    """The strategies that assign a group of this type (a group of no known type: a consumer group's)."""
    wanted = "share" if group_type == "share" else "consumer"
    return [name for name, s in STRATEGIES.items() if wanted in s.group_types]

CLIENT_SIDE = [name for name, s in STRATEGIES.items() if s.side == "client"]
SERVER_SIDE = [name for name, s in STRATEGIES.items() if s.side == "server" and "consumer" in s.group_types]
