"""Offset expiry (kgroup.offsets_log.expiry): each of Kafka 4.3's cases, the expected moment worked
out by hand from its rule (OffsetMetadataManager.cleanupExpiredOffsets and each group type's
offsetExpirationCondition / isSubscribedToTopic) and written next to the case."""
from __future__ import annotations

from kgroup.errors import NotAuthorized
from kgroup.offsets_log.expiry import (DEFAULT_RETENTION_MS, NOT_WHILE_CONSUMED, Retention, facts, first_expiry,
                                       group_expiries, retention_of)
from kgroup.offsets_log.replay import GroupReplay
from kgroup.offsets_log.selection import Selection, select
from tests.logbuilder import Log, kip848_epoch, kip848_member, kip848_regex_member, streams_group, streams_member

T0 = 1_700_000_000_000
DAY = 86_400_000
WEEK = 7 * DAY
RETENTION = Retention(WEEK, 600_000, "broker 1")


def replay_of(log: Log, group: str) -> GroupReplay:
    r = GroupReplay(group)
    for e in select(log.records, Selection(frozenset([group]))):
        r.apply(e)
    r.finish()
    return r


def member(mid: str, topics: list[str], assignment: dict[str, list[int]] | None = None) -> dict:
    return {"id": mid, "topics": topics, "assignment": assignment or {t: [0] for t in topics}}


def test_default_retention_is_seven_days():
    assert DEFAULT_RETENTION_MS == 604_800_000 == Retention().retention_ms
    assert Retention().check_interval_ms == 600_000 and Retention().is_default and not RETENTION.is_default


def test_classic_empty_group_expires_retention_after_it_became_empty():
    log = Log()
    log.generation("G", 1, T0, [member("c1", ["A"])])
    log.commit("G", "A", 0, 42, T0 + 1_000)
    log.commit("G", "B", 3, 7, T0 + 2_000)
    log.generation("G", 2, T0 + 5_000, [])  # the last member left: Empty since T0 + 5 s
    got = group_expiries(replay_of(log, "G"), RETENTION)
    # base: currentStateTimestamp (T0 + 5000), not the commit times; every topic (Empty: subscribed to nothing)
    assert got[("A", 0)].expires_ms == T0 + 5_000 + WEEK == 1_700_604_805_000
    assert got[("B", 3)].expires_ms == 1_700_604_805_000
    assert got[("A", 0)].reason == ("offsets.retention.minutes (7 d) after the group became Empty "
                                    "(2023-11-14T22:13:25.000Z)")
    assert first_expiry(got) == 1_700_604_805_000


def test_classic_empty_group_without_a_state_time_uses_each_commit_time():
    log = Log()
    log.commit("G", "A", 0, 42, T0 + 1_000)
    log.commit("G", "A", 1, 43, T0 + 9_000)
    log.generation("G", 2, T0 + 10_000, [], version=1)  # GroupMetadata v1: no currentStateTimestamp
    got = group_expiries(replay_of(log, "G"), RETENTION)
    assert got[("A", 0)].expires_ms == T0 + 1_000 + WEEK
    assert got[("A", 1)].expires_ms == T0 + 9_000 + WEEK
    assert "no state time" in got[("A", 0)].reason


def test_classic_stable_consumer_group_expires_only_unsubscribed_topics_after_their_last_commit():
    log = Log()
    log.generation("G", 1, T0, [member("c1", ["A"]), member("c2", ["A"], {"A": [1]})])
    log.commit("G", "A", 0, 42, T0 + 1_000)
    log.commit("G", "B", 0, 9, T0 + 2_000)  # B: committed once, no longer subscribed
    log.commit("G", "B", 0, 10, T0 + 3_000)
    got = group_expiries(replay_of(log, "G"), RETENTION)
    assert got[("A", 0)].expires_ms is None and got[("A", 0)].reason == NOT_WHILE_CONSUMED
    assert got[("B", 0)].expires_ms == T0 + 3_000 + WEEK  # the last commit, not the first
    assert "no member subscribes to B" in got[("B", 0)].reason


def test_classic_group_in_a_rebalance_expires_nothing():
    log = Log()
    log.generation("G", 1, T0, [member("c1", ["A"])])
    log.commit("G", "B", 0, 9, T0 + 2_000)
    got = group_expiries(replay_of(log, "G"), RETENTION, live_state="PreparingRebalance")
    assert got[("B", 0)].expires_ms is None
    assert got[("B", 0)].reason == "not while the group is PreparingRebalance"


def test_classic_stable_group_of_another_protocol_type_expires_nothing():
    log = Log()
    log.generation("G", 1, T0, [member("w1", ["A"])])
    replay = replay_of(log, "G")
    # a Connect worker group: protocol type "connect", its members' metadata not ConsumerProtocol
    replay.classic = dict(replay.classic or {}, protocolType="connect")
    replay.classic_members[0].subscription = None
    f = facts(replay)
    assert f.protocol_type == "connect" and f.subscribed is None
    from kgroup.offsets_log.expiry import expiry
    from kgroup.offsets_log.replay import Commit

    e = expiry(f, "A", Commit(1, None, "", T0 + 1, (0, 0)), RETENTION)
    assert e.expires_ms is None and e.reason == "not while the group is Stable (protocol type connect)"


def test_standalone_consumer_offsets_expire_after_their_last_commit():
    log = Log()
    log.commit("S", "A", 0, 5, T0 + 3_000)  # commits and no group record: a standalone consumer
    got = group_expiries(replay_of(log, "S"), RETENTION)
    assert got[("A", 0)].expires_ms == T0 + 3_000 + WEEK
    assert "standalone" in got[("A", 0)].reason


def test_an_explicit_expire_timestamp_of_an_old_client_is_the_moment():
    log = Log()
    log.add("S", T0, 1, {"group": "S", "topic": "A", "partition": 0}, 1,
            {"offset": 5, "metadata": "", "commitTimestamp": T0, "expireTimestamp": T0 + DAY})
    got = group_expiries(replay_of(log, "S"), RETENTION)
    assert got[("A", 0)].expires_ms == T0 + DAY


def test_kip848_group_expires_after_the_last_commit_of_unsubscribed_topics_and_all_once_empty():
    log = Log()
    kip848_member(log, "K", T0, "m1", ["A"])
    kip848_epoch(log, "K", T0, 1, {"m1": {"AAAAAAAAAAAAAAAAAAAAAQ": [0]}})
    log.commit("K", "A", 0, 10, T0 + 1_000)
    log.commit("K", "B", 0, 20, T0 + 2_000)
    stable = group_expiries(replay_of(log, "K"), RETENTION)
    assert stable[("A", 0)].expires_ms is None and stable[("A", 0)].reason == NOT_WHILE_CONSUMED
    assert stable[("B", 0)].expires_ms == T0 + 2_000 + WEEK
    # the member leaves: Empty, subscribed to nothing; the base stays the commit time (not when it emptied)
    log.add("K", T0 + 50_000, 5, {"groupId": "K", "memberId": "m1"}, None, None)
    log.add("K", T0 + 50_000, 3, {"groupId": "K"}, 0, {"epoch": 2})
    empty = group_expiries(replay_of(log, "K"), RETENTION)
    assert empty[("A", 0)].expires_ms == T0 + 1_000 + WEEK
    assert empty[("B", 0)].expires_ms == T0 + 2_000 + WEEK
    assert "(the group is Empty)" in empty[("A", 0)].reason


def test_kip848_regex_subscription_counts_its_resolved_topics():
    log = Log()
    kip848_regex_member(log, "K", T0, "m1", "orders-.*", ["orders-eu"])
    log.add("K", T0, 3, {"groupId": "K"}, 0, {"epoch": 1})
    log.commit("K", "orders-eu", 0, 1, T0 + 10)
    log.commit("K", "payments", 0, 1, T0 + 20)
    got = group_expiries(replay_of(log, "K"), RETENTION)
    assert got[("orders-eu", 0)].expires_ms is None
    assert got[("payments", 0)].expires_ms == T0 + 20 + WEEK


def test_streams_group_expires_offsets_of_non_input_topics_and_all_once_empty():
    log = Log()
    streams_group(log, "ST", T0, ["in"], ["ST-rep"])
    streams_member(log, "ST", T0, "m1")
    log.commit("ST", "in", 0, 5, T0 + 100)
    log.commit("ST", "ST-rep", 0, 6, T0 + 200)
    log.commit("ST", "old-in", 0, 7, T0 + 300)
    running = group_expiries(replay_of(log, "ST"), RETENTION)
    assert running[("in", 0)].expires_ms is None and running[("ST-rep", 0)].expires_ms is None
    assert running[("old-in", 0)].expires_ms == T0 + 300 + WEEK
    streams_member(log, "ST", T0 + 1_000, "m1", joined=False)  # the last instance stops: Empty
    empty = group_expiries(replay_of(log, "ST"), RETENTION)
    assert [empty[tp].expires_ms for tp in [("in", 0), ("ST-rep", 0), ("old-in", 0)]] == [
        T0 + 100 + WEEK, T0 + 200 + WEEK, T0 + 300 + WEEK]


def test_share_groups_have_no_offsets_to_expire():
    log = Log()
    log.add("SH", T0, 11, {"groupId": "SH"}, 0, {"epoch": 1, "metadataHash": 0})
    replay = replay_of(log, "SH")
    assert facts(replay).kind == "share"
    from kgroup.offsets_log.expiry import expiry
    from kgroup.offsets_log.replay import Commit

    e = expiry(facts(replay), "A", Commit(1, None, "", T0, (0, 0)), RETENTION)
    assert e.expires_ms is None and "share groups" in e.reason


class _Configs:
    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def broker_configs(self, broker_id, names):
        self.asked.append((broker_id, list(names)))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_retention_is_the_coordinators_or_kafkas_default_with_the_reason():
    cluster = _Configs({"offsets.retention.minutes": "1440", "offsets.retention.check.interval.ms": "300000"})
    r = retention_of(cluster, 2)
    assert (r.retention_ms, r.check_interval_ms, r.source) == (86_400_000, 300_000, "broker 2")
    assert cluster.asked == [(2, ["offsets.retention.minutes", "offsets.retention.check.interval.ms"])]
    assert retention_of(_Configs({}), 2) == Retention(
        604_800_000, 600_000, "Kafka's default (broker 2 does not report offsets.retention.minutes)")
    refused = retention_of(_Configs(NotAuthorized("not authorized to describe broker 2")), 2)
    assert refused.retention_ms == WEEK and refused.is_default
    assert refused.source == ("Kafka's default (broker 2's configuration cannot be read: not authorized to "
                              "describe broker 2)")
    assert retention_of(_Configs({}), None).source == "Kafka's default (the group's coordinator is not known)"
