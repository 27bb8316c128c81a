"""Every partition assignment strategy kgroup runs, in one table: its name, the name Kafka gives
it, where it runs in Kafka (``client``: in the group leader's consumer, a classic group;
``server``: in the group coordinator, a KIP-848 group), the module under ``kgroup.whatif.assignors``
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

    def run(self, topics: dict[str, int], members: list[MemberSubscription], *,
            topic_racks: TopicRacks | None = None, topic_ids: dict[str, str] | None = None,
            jdk: int | None = None) -> tuple[GroupAssignment, GroupAssignment | None]:
        """The strategy's assignment of ``members``, and for a two-round strategy its first round
        (else None). ``topic_ids`` and ``jdk`` (None: the default) reach only a strategy that takes them."""
        module = importlib.import_module(f"kgroup.whatif.assignors.{self.module}")
        if self.two_rounds:
            first, converged = module.assign_rounds(topics, members, topic_racks=topic_racks)
            return converged, first
        if self.takes_topic_ids:
            extra = {"topic_ids": topic_ids} if jdk is None else {"topic_ids": topic_ids, "jdk": jdk}
            return module.assign(topics, members, topic_racks=topic_racks, **extra), None
        return module.assign(topics, members, topic_racks=topic_racks), None


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
)}

CLIENT_SIDE = [name for name, s in STRATEGIES.items() if s.side == "client"]
SERVER_SIDE = [name for name, s in STRATEGIES.items() if s.side == "server"]
