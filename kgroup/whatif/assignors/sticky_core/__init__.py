"""Shared logic of the sticky assignors: a Python port of Kafka's ``AbstractStickyAssignor``.

Mirrors ``org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor`` of
kafka-clients 4.x (checked against 4.3.0): the owned-partition bookkeeping of
``allSubscriptionsEqual``, the ``ConstrainedAssignmentBuilder`` used when every
member has the same subscription, the ``GeneralAssignmentBuilder`` used otherwise,
the KIP-881 rack-aware variants of both (``RackInfo``) and ``PartitionMovements``.
The two public assignors (:mod:`.sticky`, :mod:`.cooperative_sticky`) only differ in
where a member's previous assignment comes from (:class:`MemberData`).

One module per piece of Kafka's class:

* ``skeleton``: ``assignPartitions`` and ``allSubscriptionsEqual`` (which owned partitions
  each member may keep, the generations, the choice of builder);
* ``builder``: ``AbstractAssignmentBuilder``, the state both builders share;
* ``constrained`` / ``general``: ``ConstrainedAssignmentBuilder`` / ``GeneralAssignmentBuilder``;
* ``movements``: ``PartitionMovements`` (and its sticky check, ``isSticky``);
* ``rack_info``: ``RackInfo``; ``member_data``: ``MemberData`` and a member's ``Subscription``;
* ``errors``: what Java throws (or where it never returns), as exceptions.

The aim is the *same output as Java*, including its quirks: which member comes first
when Java iterates a ``HashMap``, which partition of a ``HashSet`` is picked first,
lists where ``remove`` drops the first occurrence, and the failures Java hits on
inconsistent input (raised here as :class:`StickyAssignmentError`).  Data structures
differ where Java's are quadratic (sorted lists instead of a ``TreeSet`` scanned from
the start, per-topic owner counts for ``isBalanced``), but every decision is the same.

Known limits of the emulation (none seen in the differential test):

* Java keeps ``maxGeneration`` in the assignor instance, so a leader that assigned an
  earlier rebalance remembers that generation; this port behaves like a fresh
  assignor instance (as if the leader had just started).
* When an assignment holds a partition twice (possible only with owned partitions of
  a topic since recreated with fewer partitions), Java's ``isBalanced`` lets the last
  holder in ``HashMap`` order win; that order is modelled as the map's initial order,
  which Java can change only by removing members from a red-black tree bin (9+ member
  ids with colliding hashes).
* ``PartitionMovements`` picks the first partition of a ``HashSet``; its tree bins are
  not modelled (see :class:`kgroup.java.hashset_first.JavaHashSetFirst`: impossible below 257 partitions
  per topic, and announced by a warning).
* Inputs on which Java never returns raise :class:`AssignmentDoesNotTerminate`.
"""
from .errors import AssignmentDoesNotTerminate, StickyAssignmentError
from .member_data import DEFAULT_GENERATION, MemberData, StickySubscription
from .skeleton import StickyResult, as_assignment, assign_partitions

__all__ = ["AssignmentDoesNotTerminate", "StickyAssignmentError", "DEFAULT_GENERATION", "MemberData",
           "StickySubscription", "StickyResult", "as_assignment", "assign_partitions"]
