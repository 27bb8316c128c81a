"""kgroup/whatif/assignors/sticky_core/general.py: Kafka's GeneralAssignmentBuilder (subscriptions differ),
on groups worked by hand: owned partitions kept, the rest to the least loaded eligible member
(members ordered by size, then id in Java's String order), then partitions moved while a member
could take one from a member with at least two more, preferring the owner of an older
generation, with every move recorded in PartitionMovements."""
from __future__ import annotations

import random

from kgroup.whatif.assignors.base import TopicPartition
from kgroup.whatif.assignors.sticky_core import MemberData, StickySubscription, assign_partitions
from kgroup.whatif.assignors.sticky_core.general import GeneralAssignmentBuilder, balance_score
from kgroup.whatif.assignors.sticky_core.rack_info import RackInfo


def _sub(member: str, topics: list[str], owned: tuple[TopicPartition, ...] | list[TopicPartition] = (),
         generation: int | None = None) -> StickySubscription:
    return StickySubscription(member, sorted(topics), [], generation, None, MemberData(list(owned), generation))


def T(p: int) -> TopicPartition:
    return ("T", p)


def test_an_owner_of_an_older_generation_gets_its_partition_back_first():
    """T has 6 partitions, U one. a (T, generation 2) owns all of T; b (T) is new; c (T and U,
    generation 1) owned T-0 and U-0 then, but a's newer claim on T-0 wins, so c keeps only U-0.
    U has one possible member (c): it stays out of the balancing. Sizes a 6, b 0, c 1:

    * T-0: c owned it in an older generation and a has more than c + 1: T-0 goes back to c
      (the least loaded member, b, would have had it otherwise);  a 5, b 0, c 2
    * T-1: to the least loaded member subscribed to T, b;  a 4, b 1, c 2
    * T-2: to b again (1 < c's 2);  a 3, b 2, c 2: balanced, done.
    """
    subs = {
        "a": _sub("a", ["T"], [T(0), T(1), T(2), T(3), T(4), T(5)], 2),
        "b": _sub("b", ["T"]),
        "c": _sub("c", ["T", "U"], [T(0), ("U", 0)], 1),
    }
    result = assign_partitions({"T": 6, "U": 1}, subs, None)
    assert result.assignment == {"a": [T(3), T(4), T(5)], "b": [T(1), T(2)], "c": [("U", 0), T(0)]}
    movements = result.partition_movements
    assert movements is not None
    assert movements.movements == {T(0): ("a", "c"), T(1): ("a", "b"), T(2): ("a", "b")}
    assert movements.is_sticky() is True


def test_members_tie_on_size_in_java_string_order():
    """Both members can take T-0 and hold nothing. Java's String order compares UTF-16 code
    units: U+1F600 is the surrogate pair D83D DE00, which sorts before U+FFFD (a code point
    order would put it after), so the emoji member gets T-0."""
    emoji, replacement = "\U0001f600", "\ufffd"
    subs = {replacement: _sub(replacement, ["T", "X"]), emoji: _sub(emoji, ["T"])}
    result = assign_partitions({"T": 1}, subs, None)
    assert result.assignment == {replacement: [], emoji: [T(0)]}


def test_members_that_can_take_nothing_more_are_left_unbalanced():
    """a can only take U (1 partition), b only T (3): 1 against 3 is as balanced as it gets.
    Topics sort by number of possible members (1 each), then name: T first."""
    result = assign_partitions({"T": 3, "U": 1}, {"a": _sub("a", ["U"]), "b": _sub("b", ["T"])}, None)
    assert result.assignment == {"a": [("U", 0)], "b": [T(0), T(1), T(2)]}
    assert result.partition_movements is not None and result.partition_movements.movements == {}


def test_the_builder_knows_each_member_s_topics_and_largest_possible_assignment():
    """c subscribes to every topic: it could hold all 7 partitions; a only T's 6 (X, which does
    not exist, is dropped); topics sort by number of possible members: U (c), then T (a, c)."""
    subs = {"a": _sub("a", ["T", "X"]), "c": _sub("c", ["T", "U"])}
    builder = GeneralAssignmentBuilder({"T": 6, "U": 1}, RackInfo({}, {}, None), {"a": [], "c": []}, subs, -1)
    assert builder.consumer_topics == {"a": ["T"], "c": ["T", "U"]}
    assert builder.topic_consumers == {"T": ["a", "c"], "U": ["c"]}
    assert builder.max_sizes == {"a": 6, "c": 7}
    assert builder.sorted_all_partitions == [("U", 0)] + [T(p) for p in range(6)]


def test_balance_score_sums_the_size_differences_of_every_member_pair():
    assert balance_score({"a": [T(0)] * 6, "b": [], "c": [T(1)]}) == 6 + 5 + 1
    assert balance_score({"a": [T(0)] * 3, "b": [T(1)] * 2, "c": [T(2)] * 2}) == 1 + 1 + 0
    assert balance_score({}) == 0


def test_the_general_builder_never_trades_partitions_of_a_topic_between_two_members():
    """Kafka's own tests assert isSticky() after every assignment; the same on 300 random groups
    with differing subscriptions and owned partitions of random generations."""
    rng = random.Random(20261122)
    with_moves = 0
    for _ in range(300):
        topics = {f"t{i}": rng.randint(1, 6) for i in range(rng.randint(2, 5))}
        subs = {}
        for m in range(rng.randint(2, 7)):
            mine = sorted(rng.sample(list(topics), rng.randint(1, len(topics))))
            owned = [(t, p) for t in mine for p in range(topics[t]) if rng.random() < 0.4]
            subs[f"m{m}"] = _sub(f"m{m}", mine, owned, rng.choice([None, 1, 2, 3]))
        movements = assign_partitions(topics, subs, None).partition_movements
        if movements is None:  # the subscriptions came out equal: the constrained builder ran
            continue
        with_moves += bool(movements.movements)
        assert movements.is_sticky(), (topics, subs)
    assert with_moves > 100  # the check saw groups where partitions moved
