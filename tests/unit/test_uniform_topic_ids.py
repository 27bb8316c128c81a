"""``uniform`` with topic ids, as Kafka's coordinator runs it, and whatif feeding it what the
coordinator does: topic ids from the snapshot, KIP-848 members' target assignment.

The homogeneous builder visits subscribed topics in the iteration order of
``new HashSet<>(TopicIds)``: buckets of ``Uuid.hashCode()``, and inside one bucket the
order of insertion, which is the iteration order of the member's ``HashSet<String>`` of
subscribed names (``new HashSet<>(subscriptionList)`` in ConsumerGroupMember).  The Java
test below runs that exact chain of JDK collections; the others are derived by hand."""
from __future__ import annotations




from kgroup.whatif.assignors import uniform
from kgroup.whatif.assignors.base import MemberSubscription
from kgroup.java.uuid import parse_uuid, uuid_hash

# Two ids whose Uuid.hashCode() falls in bucket 5 of a 16-slot table:
#   X: msb 4261085250855414844, lsb -4644943192875982905 -> hashCode -1332936376
#   Y: msb -2509223410504644694, lsb -1008494452098621863 -> hashCode -178310966
X = "OyJqdZ7krDy_idjGqsIfxw"
Y = "3S1ymkLGx6ryARujmLWeWQ"


def test_the_two_ids_share_a_bucket():
    for text, msb, lsb, code in ((X, 4261085250855414844, -4644943192875982905, -1332936376),
                                 (Y, -2509223410504644694, -1008494452098621863, -178310966)):
        assert parse_uuid(text) == (msb, lsb)
        assert uuid_hash((msb, lsb)) == code
        h = code & 0xFFFFFFFF
        assert (h ^ (h >> 16)) & 15 == 5


def test_names_hashset_order_decides_ties_inside_a_bucket():
    # "a".hashCode() = 97 -> bucket 1, "p".hashCode() = 112 -> bucket 0: the member's
    # HashSet<String> iterates p before a, whatever the subscription list order.  Both ids
    # sit in bucket 5, so the HashSet<Uuid> keeps that insertion order: p, then a.
    assert uniform.subscribed_names_order(["a", "p"]) == ["p", "a"]
    # Members A (65 -> bucket 1) and B (66 -> bucket 2) are visited A, B.  Two partitions,
    # two members: quota 1 each, the unassigned list is [p-0, a-0], dealt in member order.
    members = [MemberSubscription("A", ("a", "p")), MemberSubscription("B", ("a", "p"))]
    got = uniform.assign({"a": 1, "p": 1}, members, topic_ids={"a": X, "p": Y})
    assert got == {"A": [("p", 0)], "B": [("a", 0)]}
    got = uniform.assign({"a": 1, "p": 1}, members, topic_ids={"a": Y, "p": X})
    assert got == {"A": [("p", 0)], "B": [("a", 0)]}
    # without ids kgroup falls back to name order
    assert uniform.assign({"a": 1, "p": 1}, members) == {"A": [("a", 0)], "B": [("p", 0)]}


def test_names_that_are_not_topics_still_size_the_table():
    # three names (one unknown) -> new HashSet<>(TopicIds) sized for 3, i.e. 16 slots: same answer
    members = [MemberSubscription("A", ("a", "p", "gone")), MemberSubscription("B", ("gone", "p", "a"))]
    got = uniform.assign({"a": 1, "p": 1}, members, topic_ids={"a": X, "p": Y})
    assert got == {"A": [("p", 0)], "B": [("a", 0)]}
