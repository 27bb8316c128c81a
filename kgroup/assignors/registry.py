"""Every partition assignment strategy kgroup runs, in one table: its name, the module under
``kgroup.assignors`` that implements it, where it runs in Kafka (``client``: in the group
leader's consumer, a classic group; ``server``: in the group coordinator, a KIP-848 group), the
Kafka class it mirrors and, for the client side, the rebalance protocols it supports.
Everything else (whatif's strategies, the CLI's choices, the protocol vote's table) derives
from it. Loading this module loads no assignor: ``module`` is imported when a strategy runs.
"""
from __future__ import annotations

from typing import Literal, NamedTuple


class Strategy(NamedTuple):  # a NamedTuple: cheaper to define at start-up than a dataclass
    name: str  # kgroup's name for it (--strategy); for the client side also the assignor's name() in Kafka
    module: str  # the module under kgroup.assignors that implements it
    side: Literal["client", "server"]
    kafka_class: str
    # ConsumerPartitionAssignor.supportedProtocols (client side); a consumer rebalances with the
    # most advanced protocol *all* its assignors support
    rebalance_protocols: tuple[str, ...] = ()


_CLIENTS = "org.apache.kafka.clients.consumer."
_COORDINATOR = "org.apache.kafka.coordinator.group.assignor."

STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("range", "range", "client", _CLIENTS + "RangeAssignor", ("EAGER",)),
    Strategy("roundrobin", "roundrobin", "client", _CLIENTS + "RoundRobinAssignor", ("EAGER",)),
    Strategy("sticky", "sticky", "client", _CLIENTS + "StickyAssignor", ("EAGER",)),
    Strategy("cooperative-sticky", "cooperative_sticky", "client", _CLIENTS + "CooperativeStickyAssignor",
             ("EAGER", "COOPERATIVE")),
    Strategy("uniform", "uniform", "server", _COORDINATOR + "UniformAssignor"),
    # Kafka names the server-side range assignor "range" too; kgroup tells the two apart
    Strategy("server-range", "server_range", "server", _COORDINATOR + "RangeAssignor"),
)}

CLIENT_SIDE = [name for name, s in STRATEGIES.items() if s.side == "client"]
SERVER_SIDE = [name for name, s in STRATEGIES.items() if s.side == "server"]
