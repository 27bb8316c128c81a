"""kgroup.whatif.compare in process: the change applied to a group, its facts when refused, the vote after it,
gained/lost per member; values worked by hand from Kafka's rules."""
from __future__ import annotations

import pytest


def _group(*members, protocol="range", topics=None):
    from kgroup.group.model import GroupDescription, GroupState, TopicLayout

    return GroupState(GroupDescription("G", state="Stable", assignor=protocol, members=list(members)),
                      {t: TopicLayout(n) for t, n in (topics or {"T": 4}).items()})


def test_gained_lost_lists_only_what_changes_hands():
    from kgroup.whatif.compare import gained_lost

    # T-0 and T-1 go, T-3 and U-0 come, T-2 stays
    assert gained_lost({"T": [0, 1, 2]}, {"T": [2, 3], "U": [0]}) == ({"T": [3], "U": [0]}, {"T": [0, 1]})
    assert gained_lost({"T": [0]}, {"T": [0]}) == ({}, {})
    assert gained_lost({}, {"T": [1]}) == ({"T": [1]}, {})  # a member added
    assert gained_lost({"T": [1]}, {}) == ({}, {"T": [1]})  # a member removed


def test_member_protocols_fall_back_to_the_group_protocol():
    from kgroup.group.model import Member
    from kgroup.whatif.compare import member_protocols

    state = _group()
    assert member_protocols(state, Member("m", protocols=["sticky", "range"])) == ["sticky", "range"]
    assert member_protocols(state, Member("m")) == ["range"]
    assert member_protocols(_group(protocol=None), Member("m")) == []


def test_refused_joins_each_joins_the_group_left_by_the_ones_before():
    from kgroup.group.model import Member
    from kgroup.whatif.compare import AddedMember, Change, refused_joins

    state = _group(Member("m1", protocols=["range", "roundrobin"]), Member("m2", protocols=["range"]))
    # m2 lacks roundrobin: x is refused; y (range) joins
    change = Change(add=[AddedMember("x", protocols=["roundrobin"]), AddedMember("y", protocols=["range"])])
    assert refused_joins(state, change) == ["x"]
    # with m2 removed, x joins; then y must share a protocol with x as well: refused
    change = Change(remove=["m2"], add=[AddedMember("x", protocols=["roundrobin"]),
                                        AddedMember("y", protocols=["range"])])
    assert refused_joins(state, change) == ["y"]
    # a member whose protocols are unknown: no check can be made
    unknown = _group(Member("m1"), protocol=None)
    assert refused_joins(unknown, Change(add=[AddedMember("x", protocols=["range"])])) == []


def test_vote_after_the_change():
    from kgroup.group.model import Member
    from kgroup.whatif.compare import AddedMember, Change, vote_after

    state = _group(Member("m1", protocols=["range", "roundrobin"]), Member("m2", protocols=["roundrobin", "range"]))
    # x supports roundrobin only: the one candidate, and every ballot goes to it
    v = vote_after(state, Change(add=[AddedMember("x", protocols=["roundrobin"])]), removed=[])
    assert (v["selected"], v["error"], v["candidates"]) == ("roundrobin", None, ["roundrobin"])
    assert v["votes"] == {"roundrobin": 3}
    # m2 removed: m1 alone, its first choice wins
    v = vote_after(state, Change(), removed=["m2"])
    assert (v["selected"], v["votes"]) == ("range", {"range": 1})
    assert vote_after(state, Change(), removed=["m1", "m2"]) == {
        "selected": None, "error": None,
        "explanation": "no member is left: an empty group selects no protocol until a member joins"}
    assert vote_after(_group(Member("m1"), protocol=None), Change(), removed=[])["explanation"] == \
        "some members' protocols are unknown"


def test_changes_the_group_cannot_take_carry_their_facts():
    from kgroup.errors import UsageError
    from kgroup.group.model import MAX_GROUP_PARTITIONS, Member
    from kgroup.whatif.compare import (
        AddedMember,
        Change,
        MemberExists,
        PartitionsDecrease,
        RemovedTwice,
        TooManyPartitions,
        UnknownTopic,
        apply_change,
    )

    state = _group(Member("m1", subscription=["T"]), Member("m2", subscription=["T"]), topics={"T": 4, "U": 2})
    with pytest.raises(UnknownTopic) as e:
        apply_change(state, Change(partitions={"V": 9}))
    assert (e.value.topic, e.value.partitions, e.value.known) == ("V", 9, ["T", "U"])
    with pytest.raises(PartitionsDecrease) as e:
        apply_change(state, Change(partitions={"T": 3}))
    assert (e.value.topic, e.value.partitions, e.value.current) == ("T", 3, 4)
    with pytest.raises(TooManyPartitions) as e:
        apply_change(state, Change(partitions={"T": MAX_GROUP_PARTITIONS}))
    assert (e.value.total, e.value.limit) == (MAX_GROUP_PARTITIONS + 2, MAX_GROUP_PARTITIONS)
    with pytest.raises(RemovedTwice) as e:
        apply_change(state, Change(remove=["m1", "m1"]))
    assert e.value.member_id == "m1"
    with pytest.raises(MemberExists) as e:
        apply_change(state, Change(add=[AddedMember("m2")]))
    assert e.value.name == "m2" and isinstance(e.value, UsageError)  # exit 2 if a caller does not word it
    assert "--" not in str(e.value)  # the core names no option


def test_inferred_subscriptions_are_a_note_with_the_topics():
    from kgroup.group.model import Member
    from kgroup.whatif.compare import Change, SubscriptionsInferred, run

    result = run(_group(Member("m1", assignment={"T": [0, 1]}), topics={"T": 2}), Change(), ["range"])
    assert result.inferred_subscriptions
    assert result.notes == [SubscriptionsInferred(["T"])]
    assert str(result.notes[0]) == "subscriptions inferred as the group's topics (T): the cluster does not report them"


def test_run_on_the_seed_group_removing_c3():
    """Seed G1: C1 owns Order 0-2 and Stock 0-1, C2 Order 3-4 and Stock 2-3, C3 Order 5-6 and Stock 4.
    Without C3, range deals each topic to C1, C2 (member id order) in contiguous ranges, the first
    member taking the extra: Order 7 -> 0-3 / 4-6, Stock 5 -> 0-2 / 3-4. Roundrobin deals the 12
    partitions sorted by topic then partition to C1, C2 in turn."""
    from pathlib import Path

    from kgroup.group.snapshot import load
    from kgroup.whatif.compare import Change, Move, run

    state = load(Path(__file__).resolve().parents[2] / "examples" / "seed-g1.json")
    c1, c2, c3 = sorted(m.member_id for m in state.group.members)
    result = run(state, Change(remove=["C3"]), ["range", "roundrobin"])
    assert (result.removed, result.added) == ([c3], [])
    by_name = {r.strategy: r for r in result.results}
    rng = by_name["range"]
    assert rng.assignment == {c1: {"Order": [0, 1, 2, 3], "Stock": [0, 1, 2]}, c2: {"Order": [4, 5, 6], "Stock": [3, 4]}}
    assert rng.moves == [Move("Order", 3, c2, c1), Move("Order", 5, c3, c2), Move("Order", 6, c3, c2),
                         Move("Stock", 2, c2, c1), Move("Stock", 4, c3, c2)]
    assert (rng.moved_partitions, rng.changed_members, rng.min_partitions, rng.max_partitions) == (5, [c1, c2], 5, 7)
    rr = by_name["roundrobin"]
    assert rr.assignment == {c1: {"Order": [0, 2, 4, 6], "Stock": [1, 3]}, c2: {"Order": [1, 3, 5], "Stock": [0, 2, 4]}}
    # Order 1, 4, 5, 6 and Stock 0, 3, 4 change hands
    assert [(m.topic, m.partition) for m in rr.moves] == [("Order", 1), ("Order", 4), ("Order", 5), ("Order", 6),
                                                         ("Stock", 0), ("Stock", 3), ("Stock", 4)]
    assert (rr.unassigned, rr.min_partitions, rr.max_partitions) == ({}, 6, 6)


def test_a_strategy_whose_assignor_never_returns_is_a_result(monkeypatch):
    """An assignor that raises AssignorNeverReturns (Kafka's would loop forever) gives a result that
    does not complete, with the reason; the strategies around it answer as always."""
    from kgroup.whatif.assignors import range as range_assignor
    from kgroup.whatif.assignors.base import AssignorNeverReturns
    from kgroup.group.model import Member
    from kgroup.whatif.compare import Change, run

    def loops(*args, **kwargs):
        raise AssignorNeverReturns("loops")

    monkeypatch.setattr(range_assignor, "assign", loops)
    state = _group(Member("a", subscription=["T"], assignment={"T": [0, 1, 2, 3]}))
    result = run(state, Change(add=[]), ["roundrobin", "range"])
    rr, rng = result.results
    assert rr.completes and rr.to_json()["completes"] is True
    assert rr.assignment == {"a": {"T": [0, 1, 2, 3]}}
    assert not rng.completes and rng.assignment == {} and rng.moves == []
    assert rng.to_json() == {"strategy": "range", "completes": False, "reason": rng.reason}
    assert rng.reason.startswith("Kafka's RangeAssignor never returns on this input")
    assert "the rebalance never completes" in rng.reason


def test_a_follow_up_rebalance_that_never_completes_is_named(monkeypatch):
    from kgroup.whatif.assignors import cooperative_sticky
    from kgroup.whatif.assignors.base import AssignorNeverReturns
    from kgroup.group.model import Member
    from kgroup.whatif.compare import Change, run

    calls = []

    def second_loops(topics, members, topic_racks):
        calls.append(members)
        if len(calls) == 2:
            raise AssignorNeverReturns("loops")
        return {m.member_id: [] for m in members}

    monkeypatch.setattr(cooperative_sticky, "_assign_once", second_loops)
    state = _group(Member("a", subscription=["T"], assignment={"T": [0]}))
    (r,) = run(state, Change(), ["cooperative-sticky"]).results
    assert len(calls) == 2 and not r.completes
    assert "so the follow-up rebalance (the one that hands out the revoked partitions) never completes" in r.reason


def test_switch_rebalances_bring_what_kafkas_consumers_bring(monkeypatch):
    """range -> cooperative-sticky, to-first, on a and b (generation 4; a owns T-0,1, b T-2,3).
    Step 1 (a restarts, lists both) still selects range; from step 2 cooperative-sticky runs. Worked
    by hand: a consumer listing range rebalances EAGER and brings nothing; a restarted consumer
    owns nothing in generation -1; a COOPERATIVE one (step 4: a, restarted in step 3) brings what
    the last rebalance gave it, in that rebalance's generation (4 + one per completed rebalance)."""
    from kgroup.whatif.assignors import cooperative_sticky
    from kgroup.group.model import Member
    from kgroup.whatif.vote import plan_rolling_switch
    from kgroup.whatif.switch import switch_rebalances

    calls = []

    def record(topics, members, topic_racks=None):
        calls.append([(m.member_id, m.owned, m.generation) for m in members])
        return {"a": [("T", 0), ("T", 1), ("T", 2), ("T", 3)], "b": []}

    monkeypatch.setattr(cooperative_sticky, "assign", record)
    state = _group(Member("a", subscription=["T"], assignment={"T": [0, 1]}),
                   Member("b", subscription=["T"], assignment={"T": [2, 3]}))
    state.group.generation = 4
    steps = plan_rolling_switch({"a": ["range"], "b": ["range"]}, "range", "cooperative-sticky")
    assert [s.selected for s in steps] == ["range", "range", "cooperative-sticky", "cooperative-sticky",
                                           "cooperative-sticky"]
    out = switch_rebalances(state, steps)
    assert out[0] is None and all(o is not None and o.completes for o in out[1:])
    everything = (("T", 0), ("T", 1), ("T", 2), ("T", 3))
    assert calls == [[("a", (), 5), ("b", (), -1)],
                     [("a", (), -1), ("b", (), 6)],
                     [("a", everything, 7), ("b", (), -1)]]


def test_switch_rebalances_give_sticky_its_memory(monkeypatch):
    """sticky -> range, from-first, on a and b running sticky (generation 2): every bounce-1 step
    still selects sticky; its userData is the member's assignment of the last sticky rebalance,
    none for a restarted consumer."""
    from kgroup.whatif.assignors import sticky
    from kgroup.group.model import Member
    from kgroup.whatif.vote import plan_rolling_switch
    from kgroup.whatif.switch import switch_rebalances

    calls = []

    def record(topics, members, topic_racks=None):
        calls.append([(m.member_id, m.owned, m.generation) for m in members])
        return {"a": [("T", 0), ("T", 1)], "b": [("T", 2), ("T", 3)]}

    monkeypatch.setattr(sticky, "assign", record)
    state = _group(Member("a", subscription=["T"], assignment={"T": [0, 1]}),
                   Member("b", subscription=["T"], assignment={"T": [2, 3]}), protocol="sticky")
    state.group.generation = 2
    steps = plan_rolling_switch({"a": ["sticky"], "b": ["sticky"]}, "sticky", "range", first_bounce="from-first")
    assert [s.selected for s in steps[:3]] == ["sticky"] * 3
    switch_rebalances(state, steps)
    assert calls[:2] == [[("a", (), -1), ("b", (("T", 2), ("T", 3)), 2)],
                         [("a", (("T", 0), ("T", 1)), 3), ("b", (), -1)]]
