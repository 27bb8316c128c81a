"""kgroup list shows every group of every type (ListGroups v5 of every broker), as Kafka's own Java
Admin client lists them on the same cluster: the protocol test double (tests/protodouble.py) holding
six groups (classic consumer, classic connect, classic without a protocol type, consumer, share,
streams), its fallbacks (a broker of ListGroups v4, librdkafka) and errors, and Tansu live."""
from __future__ import annotations

import json

import pytest
from conftest import run_kgroup
from protodouble import COORDINATOR_LOAD_IN_PROGRESS, Scenario, admin_probe, six_groups
from schemas import validate

pytestmark = [pytest.mark.java, pytest.mark.broker]

# what a Kafka 4.3 cluster holding the six groups lists: written from the scenario, not from kgroup
SIX = {
    "classic-app": ("classic", "consumer", "Stable"),
    "connect-cluster": ("classic", "connect", "Stable"),
    "offsets-only": ("classic", "", "Empty"),
    "kip848-app": ("consumer", "consumer", "Reconciling"),
    "orders-share": ("share", "share", "Stable"),
    "wordcount-streams": ("streams", "streams", "NotReady"),
}


def _kgroup(double, *args, expect=0):
    r = run_kgroup("list", "-b", double.bootstrap, "-o", "json", *args)
    assert r.returncode == expect, r.stderr
    doc = json.loads(r.stdout)
    validate("list", doc)
    return {g["group"]: g for g in doc["groups"]}, r.stderr


def _java(double, *types):
    answer = admin_probe(double.bootstrap, "listGroups", *types)
    return {g["groupId"]: ((g["type"] or "").lower() or None, g["protocolType"], g["state"])
            for g in answer["listings"]}, answer["errors"]


def test_every_group_of_every_type_as_the_java_admin_lists_them(protodouble):
    double = protodouble(six_groups(brokers=3))
    rows, _ = _kgroup(double)
    java, errors = _java(double)
    assert java == SIX and errors == []
    assert {g: (r["type"], r["protocol_type"], r["state"]) for g, r in rows.items()} == java
    # asked of every broker, by kgroup and by Java; each group's coordinator is the broker that listed it (i % 3)
    assert sorted(b for b, r in double.asked(16) if r.api_version == 5 and r.body["typesFilter"] == []) == [
        0, 0, 1, 1, 2, 2]
    assert {g: r["coordinator"]["id"] for g, r in rows.items()} == {
        "classic-app": 0, "connect-cluster": 1, "offsets-only": 2, "kip848-app": 0, "orders-share": 1,
        "wordcount-streams": 2}
    # the classic consumer-protocol groups and the consumer group are described; the others are not
    assert (rows["classic-app"]["assignor"], rows["classic-app"]["member_count"]) == ("range", 0)
    assert (rows["orders-share"]["assignor"], rows["orders-share"]["member_count"]) == (None, None)
    assert double.codec_errors == []


@pytest.mark.parametrize("types", [["share"], ["streams"], ["classic"], ["consumer", "share"]])
def test_type_filter_as_the_java_admin(protodouble, types):
    double = protodouble(six_groups(brokers=2))
    rows, _ = _kgroup(double, *[a for t in types for a in ("--type", t)])
    java, errors = _java(double, *types)
    assert {g: (r["type"], r["protocol_type"], r["state"]) for g, r in rows.items()} == java and errors == []
    assert java == {g: v for g, v in SIX.items() if v[0] in types}
    # the filter went to the brokers (v5 TypesFilter), as Java sends it
    # (kgroup's in lower case; Java sends the names as its GroupType prints them: "Share")
    assert tuple(sorted(types)) in {tuple(r.body["typesFilter"]) for _, r in double.asked(16)}


def test_table_has_type_and_protocol_type_columns(protodouble):
    double = protodouble(six_groups())
    r = run_kgroup("list", "-b", double.bootstrap, "--type", "classic")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["GROUP", "TYPE", "STATE", "PROTOCOL-TYPE", "ASSIGNOR", "MEMBERS", "COORDINATOR"]
    assert [line.split()[:4] for line in lines[2:]] == [
        ["classic-app", "classic", "Stable", "consumer"], ["connect-cluster", "classic", "Stable", "connect"],
        ["offsets-only", "classic", "Empty", "-"]]


def test_broker_of_listgroups_v4_lists_every_group_without_types(protodouble):
    """A broker without v5 lists every group it holds, without types: kgroup still shows all six,
    the types from the protocol types (connect: classic) and the descriptions (classic/consumer)."""
    double = protodouble(Scenario(groups=six_groups().groups, versions={16: (0, 4)}))
    rows, stderr = _kgroup(double, "-v")
    assert {g: (r["type"], r["protocol_type"], r["state"]) for g, r in rows.items()} == SIX
    assert "answers ListGroups v4 only" in stderr
    assert {r.api_version for _, r in double.asked(16)} == {4}
    java, _ = _java(double)  # Java's listings carry no type from such a broker
    assert java == {g: (None, p, s) for g, (_, p, s) in SIX.items()}
    shares, _ = _kgroup(double, "--type", "share")
    assert sorted(shares) == ["orders-share"]


def test_librdkafka_fallback_says_what_it_cannot_list(protodouble):
    double = protodouble(six_groups(brokers=2))
    rows, stderr = _kgroup(double, "-X", "kgroup.batched=false", expect=3)
    assert sorted(rows) == ["classic-app", "kip848-app", "offsets-only"]
    assert "Kafka Connect's, share and streams groups) could not be listed" in stderr
    assert "-X kgroup.batched=false" in stderr and "INCOMPLETE" in stderr
    # only consumer groups asked: librdkafka lists them all, the answer is complete
    rows, stderr = _kgroup(double, "-X", "kgroup.batched=false", "--type", "consumer")
    assert sorted(rows) == ["kip848-app"] and "INCOMPLETE" not in stderr


def test_broker_error_is_incomplete(protodouble):
    scenario = six_groups(brokers=2)
    scenario.list_errors = {1: 31}  # CLUSTER_AUTHORIZATION_FAILED
    double = protodouble(scenario)
    rows, stderr = _kgroup(double, expect=3)
    java, errors = _java(double)
    assert sorted(rows) == sorted(java) == ["classic-app", "offsets-only", "orders-share"]
    assert [e["class"] for e in errors] == ["ClusterAuthorizationException"]
    assert "broker 1 (" in stderr and "CLUSTER_AUTHORIZATION_FAILED" in stderr and "INCOMPLETE" in stderr


def test_loading_coordinator_is_asked_again_then_incomplete(protodouble):
    scenario = six_groups(brokers=2)
    scenario.list_errors = {0: COORDINATOR_LOAD_IN_PROGRESS}
    double = protodouble(scenario)
    rows, stderr = _kgroup(double, "--timeout", "4", expect=3)
    assert sorted(rows) == ["connect-cluster", "kip848-app", "wordcount-streams"]  # broker 1's
    assert "COORDINATOR_LOAD_IN_PROGRESS" in stderr
    order = [b for b, _ in double.asked(16)]
    assert order.count(0) > 1  # asked again
    # every broker is asked at once, the loading one again after: its wait does not take the
    # others' time (broker 1 asked before broker 0's second ask)
    assert order.index(1) < [i for i, b in enumerate(order) if b == 0][1]


def test_tansu_lists_as_the_java_admin(seed_group, tansu):
    """Tansu answers ListGroups v5: kgroup lists what the Java Admin lists there."""
    r = run_kgroup("list", "-b", tansu, "-o", "json", "-v")
    assert r.returncode == 0, r.stderr
    assert "kgroup's own client" in r.stderr
    rows = {g["group"]: g for g in json.loads(r.stdout)["groups"]}
    answer = admin_probe(tansu, "listGroups")
    assert answer["errors"] == []
    java = {g["groupId"]: g["protocolType"] for g in answer["listings"]}
    assert "G1" in java
    assert {g: r["protocol_type"] for g, r in rows.items()} == java
    # Tansu lists its groups' state as Unknown; kgroup shows the description's where it names one
    assert {g["state"] for g in answer["listings"] if g["groupId"] == "G1"} == {"Unknown"}
    assert rows["G1"]["state"] == "Stable"


# ---------------------------------------------------------------------------------------------
# a group the consumer-group commands cannot answer for says what it is (exit 2, one line)
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["describe"], ["offsets"], ["snapshot"], ["whatif", "--remove", "m1"]])
@pytest.mark.parametrize("group, said", [
    ("connect-cluster", "group connect-cluster is a classic group of protocol type connect, not a consumer "
                        "group: this command cannot answer for it yet"),
])
def test_group_of_another_type_is_named(protodouble, command, group, said):
    double = protodouble(six_groups(brokers=2))
    r = run_kgroup(command[0], group, *command[1:], "-b", double.bootstrap, "--timeout", "20")
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [f"kgroup: error: {said} (kgroup list shows it)"]
    assert r.stdout == ""


def test_a_share_group_is_described_and_whatif_answers_for_it(protodouble):
    """Share groups are described by kgroup's own client (ShareGroupDescribe), and whatif runs the
    share groups' assignor on them: this one has no member, so a member added to it takes every
    partition of orders (3) alone, from nobody."""
    double = protodouble(six_groups(brokers=2))
    r = run_kgroup("describe", "orders-share", "-b", double.bootstrap, "--timeout", "20", "-o", "json")
    assert r.returncode == 0, r.stderr
    (g,) = json.loads(r.stdout)["groups"]
    assert (g["group"], g["type"]) == ("orders-share", "share")
    r = run_kgroup("whatif", "orders-share", "--remove", "m1", "-b", double.bootstrap, "--timeout", "20")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines()[-1].startswith("kgroup: error: no member matches 'm1'")
    r = run_kgroup("whatif", "orders-share", "--add", "m1=orders", "-b", double.bootstrap, "--timeout", "20",
                   "-o", "json")
    assert r.returncode == 0, r.stderr
    (s,) = json.loads(r.stdout)["strategies"]
    assert (s["strategy"], s["assignment"]) == ("simple", {"m1": {"orders": [0, 1, 2]}})
    assert [(m["partition"], m["from"], m["to"]) for m in s["moves"]] == [(0, None, "m1"), (1, None, "m1"),
                                                                          (2, None, "m1")]


@pytest.mark.parametrize("command", [["describe"], ["offsets"], ["snapshot"], ["whatif", "--remove", "m1"]])
def test_a_streams_group_is_asked_for_as_one(protodouble, command):
    """A streams group named is described with StreamsGroupDescribe (tests/integration/
    test_streams_groups_double.py); this one is NotReady, its topology not initialized yet, which
    Kafka's Admin client refuses too ("Topology information is missing"): said, exit 3."""
    double = protodouble(six_groups(brokers=2))
    r = run_kgroup(command[0], "wordcount-streams", *command[1:], "-b", double.bootstrap, "--timeout", "20")
    assert r.returncode == 3, r.stderr
    assert r.stderr.splitlines()[-1] == ("kgroup: error: describe streams group wordcount-streams: "
                                         "UNKNOWN_SERVER_ERROR: Topology information is missing")


def test_unknown_group_is_still_unknown(protodouble):
    double = protodouble(six_groups(brokers=2))
    r = run_kgroup("describe", "nosuch", "-b", double.bootstrap, "--timeout", "20")
    assert (r.returncode, r.stderr.splitlines()) == (2, ["kgroup: error: unknown group nosuch"])


def test_group_types_lookup(protodouble):
    from kgroup.kafka.cluster import Cluster
    from kgroup.kafka.group_types import group_types
    from kgroup.kafka.settings import ConnectionSettings

    double = protodouble(six_groups(brokers=3))
    with Cluster(ConnectionSettings({"bootstrap.servers": double.bootstrap}, timeout=20)) as cluster:
        found = group_types(cluster, ["orders-share", "connect-cluster", "kip848-app", "nosuch"])
    assert {g: (lg.type, lg.protocol_type, lg.coordinator.id if lg.coordinator else None)
            for g, lg in found.items()} == {"orders-share": ("share", "share", 1),
                                            "connect-cluster": ("classic", "connect", 1),
                                            "kip848-app": ("consumer", "consumer", 0)}
