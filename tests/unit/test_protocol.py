"""Classic-group protocol selection (kgroup.whatif.vote), as ClassicGroup.selectProtocol does it.

Expected values: Kafka's ClassicGroupTest scenarios (testSelectProtocol,
testSelectProtocolChoosesCompatibleProtocol, testSupportsProtocols, ...), the worked
example of shared seed 004 (checked against the rules, it is right), and hand
derivations from the rules in kgroup/whatif/vote.py.  Tie-breaking relies on Java's
String.hashCode and HashMap bucket order; the hash values below were printed by Java 17,
and a differential test re-checks the whole vote against a JVM.
"""
from __future__ import annotations


import pytest

from kgroup.whatif.vote import (
    INCONSISTENT_GROUP_PROTOCOL,
    plan_rolling_switch,
    rebalance_protocol,
    select_protocol,
    simulate_restarts,
    supports_protocols,
    vote_bucket,
)

# (name, String.hashCode(), bucket in a 16-slot HashMap) as printed by Java 17
JAVA_BUCKETS = [
    ("range", 108280125, 9),
    ("roundrobin", -128548644, 10),
    ("sticky", -892259863, 8),
    ("cooperative-sticky", 1843682987, 15),
    ("uniform", -286926412, 1),
    ("foo", 101574, 7),
    ("Aa", 2112, 0),
    ("BB", 2112, 0),
]


@pytest.mark.parametrize("name,hash_code,bucket", JAVA_BUCKETS)
def test_vote_buckets_match_java(name, hash_code, bucket):
    from kgroup.java.strings import java_string_hash

    assert java_string_hash(name) == hash_code
    assert vote_bucket(name) == bucket


# ---------------------------------------------------------------- ClassicGroupTest scenarios

def test_select_protocol_kafka_scenario():
    # testSelectProtocol: member1 [range, roundrobin], member2 [roundrobin, range].
    # Kafka's test accepts either for the 1-1 tie; the code picks 'range' (bucket 9) over
    # 'roundrobin' (bucket 10).
    two = {"memberId": ["range", "roundrobin"], "member2": ["roundrobin", "range"]}
    result = select_protocol(two)
    assert result.selected == "range"
    assert result.tied == ["range", "roundrobin"]
    assert result.votes == {"range": 1, "roundrobin": 1}
    # "now we should prefer 'roundrobin'" once member3 [roundrobin, range] joins
    three = dict(two, member3=["roundrobin", "range"])
    result = select_protocol(three)
    assert result.selected == "roundrobin"
    assert result.votes == {"range": 1, "roundrobin": 2}
    assert result.tied == []


def test_select_protocol_chooses_compatible_protocol():
    # testSelectProtocolChoosesCompatibleProtocol
    result = select_protocol({"memberId": ["range", "roundrobin"], "member2": ["roundrobin", "foo"]})
    assert result.candidates == ["roundrobin"]
    assert result.ballots == {"memberId": "roundrobin", "member2": "roundrobin"}
    assert result.selected == "roundrobin"
    assert result.error is None


def test_select_protocol_raises_if_no_members():
    with pytest.raises(ValueError):
        select_protocol({})


def test_supports_protocols():
    # testSupportsProtocols: an empty group supports everything (non-empty) ...
    assert supports_protocols({}, ["range", "roundrobin"])
    assert not supports_protocols({}, [])
    # ... then only lists sharing a protocol with every member
    group = {"memberId": ["range", "roundrobin"]}
    assert supports_protocols(group, ["roundrobin", "foo"])
    assert supports_protocols(group, ["range", "bar"])
    assert not supports_protocols(group, ["foo", "bar"])
    # a name must be supported by *all* current members
    group = {"a": ["range", "roundrobin"], "b": ["roundrobin"]}
    assert not supports_protocols(group, ["range"])


# ---------------------------------------------------------------- seed document 004

def test_seed_example():
    # c1 {range, roundrobin, custom}, c2 {range, roundrobin, sticky}, c3 {roundrobin, range, sticky}:
    # candidates {range, roundrobin}; c1, c2 vote range, c3 roundrobin -> range, 2 votes to 1.
    result = select_protocol({
        "c1": ["range", "roundrobin", "custom"],
        "c2": ["range", "roundrobin", "sticky"],
        "c3": ["roundrobin", "range", "sticky"],
    })
    assert result.candidates == ["range", "roundrobin"]
    assert result.ballots == {"c3": "roundrobin", "c1": "range", "c2": "range"}  # vote order c3, c1, c2
    assert result.votes == {"range": 2, "roundrobin": 1}
    assert result.selected == "range"
    assert "'range' has the most votes" in result.explanation


# ---------------------------------------------------------------- ties are not alphabetical

def test_tie_range_beats_cooperative_sticky():
    # bucket 9 ('range') before bucket 15 ('cooperative-sticky'); alphabetical would say
    # cooperative-sticky.
    result = select_protocol({"A": ["cooperative-sticky", "range"], "B": ["range", "cooperative-sticky"]})
    assert result.selected == "range"
    assert list(result.votes) == ["range", "cooperative-sticky"]
    assert "not alphabetical" in result.explanation


def test_tie_sticky_beats_range():
    result = select_protocol({"A": ["range", "sticky"], "B": ["sticky", "range"]})
    assert result.selected == "sticky"  # bucket 8 < 9


def test_tie_uniform_beats_roundrobin_and_range_in_a_three_way_tie():
    result = select_protocol({
        "m1": ["roundrobin", "range", "uniform"],
        "m2": ["range", "uniform", "roundrobin"],
        "m3": ["uniform", "roundrobin", "range"],
    })
    assert result.tied == ["uniform", "range", "roundrobin"]  # buckets 1, 9, 10
    assert result.selected == "uniform"


def test_tie_in_one_bucket_goes_to_the_first_vote_in_member_order():
    # 'Aa' and 'BB' have the same hash code: the one first voted for wins.  Members vote in
    # the HashMap order of their ids: 'C3' (bucket 0) before 'C1' (bucket 14), whatever
    # the order of the dict.
    assert select_protocol({"C1": ["BB", "Aa"], "C3": ["Aa", "BB"]}).selected == "Aa"
    assert select_protocol({"C1": ["Aa", "BB"], "C3": ["BB", "Aa"]}).selected == "BB"
    result = select_protocol({"C1": ["BB", "Aa"], "C3": ["Aa", "BB"]})
    assert list(result.ballots) == ["C3", "C1"]


# ---------------------------------------------------------------- no common protocol

def test_inconsistent_group_protocol_explains_who_lacks_what():
    result = select_protocol({
        "c1": ["range", "roundrobin"],
        "c2": ["range"],
        "c3": ["cooperative-sticky"],
    })
    assert result.error == INCONSISTENT_GROUP_PROTOCOL
    assert result.selected is None and result.candidates == [] and result.ballots == {}
    assert "'range' is missing from 'c3'" in result.explanation
    assert "'cooperative-sticky' is missing from 'c1', 'c2'" in result.explanation
    assert "'roundrobin' is missing from 'c2', 'c3'" in result.explanation
    assert "refused" in result.explanation


def test_member_with_empty_protocol_list():
    result = select_protocol({"a": ["range"], "b": []})
    assert result.error == INCONSISTENT_GROUP_PROTOCOL
    assert "'b' list no protocol at all" in result.explanation


def test_duplicate_names_count_once():
    result = select_protocol({"a": ["range", "range"], "b": ["roundrobin", "range"]})
    assert result.candidates == ["range"] and result.selected == "range"


# ---------------------------------------------------------------- rolling switch

MEMBERS = {"c1": ["range"], "c2": ["range"], "c3": ["range"]}


def test_plan_rolling_switch_to_first():
    steps = plan_rolling_switch(MEMBERS, "range", "cooperative-sticky")
    assert [(s.bounce, s.member) for s in steps] == [
        (0, None), (1, "c1"), (1, "c2"), (1, "c3"), (2, "c1"), (2, "c2"), (2, "c3")]
    assert [s.protocols for s in steps[1:4]] == [["cooperative-sticky", "range"]] * 3
    assert [s.protocols for s in steps[4:]] == [["cooperative-sticky"]] * 3
    # Until the last member of bounce 1 is back, someone lacks cooperative-sticky, so
    # range is the only candidate; then everybody's first choice is cooperative-sticky.
    assert [s.selected for s in steps] == ["range", "range", "range", "cooperative-sticky",
                                           "cooperative-sticky", "cooperative-sticky", "cooperative-sticky"]
    assert all(s.accepted for s in steps)
    # range in the list keeps the client EAGER; only bounce 2 makes members COOPERATIVE
    assert [s.rebalance_protocol for s in steps[1:]] == ["EAGER"] * 3 + ["COOPERATIVE"] * 3
    assert "switches to 'cooperative-sticky' here" in steps[3].note


def test_plan_rolling_switch_from_first():
    steps = plan_rolling_switch(MEMBERS, "range", "cooperative-sticky", first_bounce="from-first")
    assert [s.protocols for s in steps[1:4]] == [["range", "cooperative-sticky"]] * 3
    # Everybody prefers range during bounce 1; the first member without range flips it.
    assert [s.selected for s in steps] == ["range", "range", "range", "range",
                                           "cooperative-sticky", "cooperative-sticky", "cooperative-sticky"]
    assert "switches to 'cooperative-sticky' here" in steps[4].note


def test_plan_rolling_switch_two_members_to_first_never_ties_wrongly():
    # With two members the halfway point of bounce 1 has one [cs, range] and one [range]:
    # only range is common, so no tie can arise.
    steps = plan_rolling_switch({"a": ["range"], "b": ["range"]}, "range", "cooperative-sticky")
    assert [s.selected for s in steps] == ["range", "range", "cooperative-sticky",
                                           "cooperative-sticky", "cooperative-sticky"]


def test_plan_from_the_kafka_3_default_needs_only_the_second_bounce():
    # Since Kafka 3.0 the client default is [range, cooperative-sticky]: bounce 1 of the
    # "from-first" plan changes nothing, and removing range switches the group.
    default = {"a": ["range", "cooperative-sticky"], "b": ["range", "cooperative-sticky"]}
    steps = plan_rolling_switch(default, "range", "cooperative-sticky", first_bounce="from-first")
    assert all("can be skipped" in s.note for s in steps[1:3])
    assert [s.selected for s in steps] == ["range", "range", "range", "cooperative-sticky", "cooperative-sticky"]


def test_plan_of_a_group_already_on_the_new_assignor_keeps_every_note_and_claims_no_switch():
    # Both members list [cooperative-sticky, range]: both vote cooperative-sticky, so the group
    # selects it before any restart. Bounce 1 of "to-first" restarts each with the list it has
    # (skippable); no restart switches the group, it is on cooperative-sticky throughout.
    already = {"a": ["cooperative-sticky", "range"], "b": ["cooperative-sticky", "range"]}
    steps = plan_rolling_switch(already, "range", "cooperative-sticky")
    assert [s.selected for s in steps] == ["cooperative-sticky"] * 5
    skip = (" Its list already has both protocols in this order (as with the client default "
            "[range, cooperative-sticky] since Kafka 3.0): this restart can be skipped.")
    assert steps[1].note == ("a rejoins with ['cooperative-sticky', 'range']. Group selects 'cooperative-sticky'. "
                             "a itself rebalances EAGER." + skip
                             + " Bounce 1: add 'cooperative-sticky' while keeping 'range'.")
    assert steps[2].note == ("b rejoins with ['cooperative-sticky', 'range']. Group selects 'cooperative-sticky'. "
                             "b itself rebalances EAGER." + skip)
    assert not any("switches" in s.note for s in steps)


def test_plan_notes_the_switch_where_the_selection_becomes_the_new_assignor():
    # from-first on a group already on cooperative-sticky: bounce 1 makes both [range, cs], a
    # 1-1 tie that range wins (bucket 9 before 15), so the group leaves cs; the first restart of
    # bounce 2 (a without range) brings it back: that step, and only that one, is the switch.
    already = {"a": ["cooperative-sticky", "range"], "b": ["cooperative-sticky", "range"]}
    steps = plan_rolling_switch(already, "range", "cooperative-sticky", first_bounce="from-first")
    assert [s.selected for s in steps] == ["cooperative-sticky", "range", "range",
                                           "cooperative-sticky", "cooperative-sticky"]
    assert [i for i, s in enumerate(steps) if "switches to 'cooperative-sticky' here" in s.note] == [3]


def test_plan_requires_current_protocol():
    with pytest.raises(ValueError):
        plan_rolling_switch({"a": ["roundrobin"]}, "range", "cooperative-sticky")


def test_single_bounce_straight_to_new_protocol_is_refused():
    steps = simulate_restarts(MEMBERS, [("c1", ["cooperative-sticky"])])
    assert not steps[1].accepted
    assert INCONSISTENT_GROUP_PROTOCOL in steps[1].note
    assert steps[1].group == {"c2": ["range"], "c3": ["range"]}
    assert steps[1].selected == "range"


def test_mixed_group_can_tie_during_a_manual_switch():
    # Half the group prefers cooperative-sticky, half range, all support both: 2-2 tie,
    # Kafka keeps range (bucket 9 < 15).
    group = {"a": ["cooperative-sticky", "range"], "b": ["cooperative-sticky", "range"],
             "c": ["range", "cooperative-sticky"], "d": ["range", "cooperative-sticky"]}
    assert select_protocol(group).selected == "range"


def test_static_member_restart_is_checked_against_its_old_protocols():
    # A lone static member stays in the group while it restarts, so its new list must
    # share a protocol with its old one; a dynamic member leaves first and is free.
    assert not simulate_restarts({"a": ["range"]}, [("a", ["uniform"])], static_members=True)[1].accepted
    assert simulate_restarts({"a": ["range"]}, [("a", ["uniform"])])[1].accepted


def test_rebalance_protocol():
    assert rebalance_protocol(["cooperative-sticky"]) == "COOPERATIVE"
    assert rebalance_protocol(["cooperative-sticky", "range"]) == "EAGER"
    assert rebalance_protocol(["range", "cooperative-sticky"]) == "EAGER"
    assert rebalance_protocol(["my.custom.Assignor"]) == "unknown"
