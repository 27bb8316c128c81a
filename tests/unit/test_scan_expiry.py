"""Offset expiry in kgroup scan, without Spark: the read tasks' fold keeps each key's last commit
(its time and explicit expire timestamp), the merge reads each group's state records as
kgroup.offsets_log.expiry does and gives the group's earliest expiry (``expires_ms``), and the
report flags the groups whose offsets go within ``--expiry-warn`` (``expiring``). Each moment is
worked out by hand from Kafka's rule (see tests/unit/test_expiry.py) and written next to its case;
the merge is also checked against the replay-based computation on one log holding every case."""
from __future__ import annotations

from kgroup.offsets_log.expiry import Retention, first_expiry, group_expiries
from kgroup.offsets_log.replay import GroupReplay
from kgroup.offsets_log.selection import Selection, select
from kgroup.scan import report
from kgroup.scan.fold import fold_columns
from kgroup.scan.merge import combine, merge_columns
from kgroup.scan.report import GroupFacts, Window
from tests.logbuilder import Log, kip848_epoch, kip848_member, kip848_regex_member, streams_group, streams_member

T0 = 1_700_000_000_000
DAY = 86_400_000
H = 3_600_000
ONE_DAY = Retention(DAY, 600_000, "broker 1")  # offsets.retention.minutes=1440


def member(mid: str, topics: list[str]) -> dict:
    return {"id": mid, "topics": topics, "assignment": {t: [0] for t in topics}}


def scan_facts(log: Log, retention: Retention = ONE_DAY, split: int | None = None) -> dict[str, GroupFacts]:
    """The log folded (in two read tasks when ``split`` says where) and merged, as the pipeline does."""
    rows = [(r.partition, r.offset, r.timestamp, r.key, r.value) for r in log.records]
    tasks = [rows] if split is None else [rows[:split], rows[split:]]
    parts: dict[str, list] = {}
    for task in tasks:
        for name, col in fold_columns([[list(c) for c in zip(*task)]]).items():
            parts.setdefault(name, []).extend(col)
    return {f.group: f for f in combine(merge_columns(parts, retention=retention)).facts}


def replay_expiry(log: Log, group: str, retention: Retention = ONE_DAY) -> int | None:
    r = GroupReplay(group)
    for e in select(log.records, Selection(frozenset([group]))):
        r.apply(e)
    r.finish()
    return first_expiry(group_expiries(r, retention))


def test_classic_group_empty_since_t_expires_t_plus_retention():
    log = Log()
    log.generation("C", 1, T0, [member("c1", ["A"])])
    log.commit("C", "A", 0, 42, T0 + 1_000)
    log.commit("C", "B", 0, 7, T0 + 2_000)
    log.generation("C", 2, T0 + 5_000, [])  # the last member left: Empty since T0 + 5 s
    # from when it became Empty, whatever the commit times: T0 + 5 000 + 86 400 000
    assert scan_facts(log)["C"].expires_ms == 1_700_086_405_000


def test_kip848_group_empty_expires_retention_after_its_oldest_last_commit():
    log = Log()
    kip848_member(log, "K", T0, "m1", ["A"])
    kip848_epoch(log, "K", T0, 1, {"m1": {"AAAAAAAAAAAAAAAAAAAAAQ": [0]}})
    log.commit("K", "A", 0, 10, T0 + 1_000)
    log.commit("K", "A", 0, 11, T0 + 3_000)  # A's last commit: T0 + 3 s
    log.commit("K", "B", 0, 20, T0 + 2_000)
    stable = scan_facts(log)["K"]
    assert stable.expires_ms == T0 + 2_000 + DAY == 1_700_086_402_000  # B only: m1 consumes A
    log.add("K", T0 + 50_000, 5, {"groupId": "K", "memberId": "m1"}, None, None)  # m1 leaves: Empty
    log.add("K", T0 + 50_000, 3, {"groupId": "K"}, 0, {"epoch": 2})
    # every topic from its last commit (not from when it emptied): min(T0 + 3 s, T0 + 2 s) + 1 d
    assert scan_facts(log)["K"].expires_ms == 1_700_086_402_000
    log.commit("K", "B", 0, 21, T0 + 60_000)  # B committed again: A's T0 + 3 s is now the earliest
    assert scan_facts(log)["K"].expires_ms == T0 + 3_000 + DAY == 1_700_086_403_000


def test_stable_classic_group_subscribed_to_its_topics_expires_nothing():
    log = Log()
    log.generation("S", 1, T0, [member("c1", ["A"]), member("c2", ["A", "B"])])
    log.commit("S", "A", 0, 1, T0 + 1_000)
    log.commit("S", "B", 0, 2, T0 + 2_000)
    facts = scan_facts(log)["S"]
    assert facts.expires_ms is None
    row = report.group_row(facts, Window(None, None, T0, T0 + 10 * DAY), H, 10)
    assert row["expires_ms"] is None and row["expiring"] is False


def test_stable_classic_group_expires_the_topic_no_member_subscribes_to():
    log = Log()
    log.generation("S", 1, T0, [member("c1", ["A"])])
    log.commit("S", "A", 0, 1, T0 + 1_000)
    log.commit("S", "old", 3, 2, T0 + 2_000)
    assert scan_facts(log)["S"].expires_ms == T0 + 2_000 + DAY


def test_the_last_commit_of_a_key_counts_across_read_tasks_and_a_deleted_offset_does_not():
    log = Log()
    log.commit("A", "t", 0, 1, T0)                # standalone: from each key's last commit
    log.commit("A", "u", 0, 1, T0 + 500)
    log.commit("A", "t", 0, 2, T0 + 9_000)        # t's last commit, in the second task
    log.delete_commit("A", "u", 0, T0 + 9_500)    # u deleted: nothing of it left to expire
    assert all(r.partition == log.records[0].partition for r in log.records)
    for split in (None, 2):
        assert scan_facts(log, split=split)["A"].expires_ms == T0 + 9_000 + DAY


def test_an_old_clients_expire_timestamp_is_the_moment():
    log = Log()
    log.add("O", T0, 1, {"group": "O", "topic": "t", "partition": 0}, 1,
            {"offset": 5, "metadata": "", "commitTimestamp": T0, "expireTimestamp": T0 + 3 * H})
    assert scan_facts(log)["O"].expires_ms == T0 + 3 * H


def _every_case() -> Log:
    log = Log()
    log.generation("empty", 1, T0, [member("c1", ["A"])])
    log.commit("empty", "A", 0, 1, T0 + 10)
    log.generation("empty", 2, T0 + 20, [])
    log.generation("stable", 1, T0, [member("c1", ["A"])])
    log.commit("stable", "A", 0, 1, T0 + 30)
    log.commit("stable", "gone", 0, 1, T0 + 40)
    log.generation("old", 1, T0, [member("c1", ["A"])], version=1)  # no currentStateTimestamp
    log.commit("old", "A", 0, 1, T0 + 50)
    log.generation("old", 2, T0 + 60, [], version=1)
    log.generation("deleted", 1, T0, [member("c1", ["A"])])
    log.commit("deleted", "A", 0, 1, T0 + 70)
    log.delete_group("deleted", T0 + 80)              # its offsets go with it...
    log.commit("deleted", "B", 0, 1, T0 + 90)         # ...a commit after is kept
    log.commit("alone", "A", 0, 1, T0 + 100)
    kip848_member(log, "regex", T0, "m1", [])
    kip848_regex_member(log, "regex", T0, "m1", "orders-.*", ["orders-eu"])
    log.add("regex", T0, 3, {"groupId": "regex"}, 0, {"epoch": 1})
    log.commit("regex", "orders-eu", 0, 1, T0 + 110)
    log.commit("regex", "payments", 0, 1, T0 + 120)
    streams_group(log, "ST", T0, ["in"], ["ST-rep"])
    streams_member(log, "ST", T0, "m1")
    log.commit("ST", "in", 0, 1, T0 + 130)
    log.commit("ST", "ST-rep", 0, 1, T0 + 140)
    log.commit("ST", "old-in", 0, 1, T0 + 150)
    return log


def test_the_merge_gives_what_the_replay_gives_for_every_group_type():
    log = _every_case()
    got = {g: f.expires_ms for g, f in scan_facts(log).items()}
    assert got == {g: replay_expiry(log, g) for g in got}
    # and by hand: Empty classic from its state time; Stable from the unsubscribed topic's commit;
    # no state time: the commit; deleted: only the commit after; standalone; regex and streams:
    # the topics they do not consume
    assert got == {"empty": T0 + 20 + DAY, "stable": T0 + 40 + DAY, "old": T0 + 50 + DAY,
                   "deleted": T0 + 90 + DAY, "alone": T0 + 100 + DAY, "regex": T0 + 120 + DAY,
                   "ST": T0 + 150 + DAY}


def test_expiring_is_at_or_before_now_plus_the_warning_and_already_passed_counts():
    now = T0 + 10 * DAY
    w = Window(None, None, T0, now)

    def row(expires_ms, warn=24 * H):
        return report.group_row(GroupFacts("g", 0, expires_ms=expires_ms), w, H, 10, warn)

    assert row(now + 24 * H)["expiring"] is True       # exactly at the edge
    assert row(now + 24 * H + 1)["expiring"] is False
    assert row(now - DAY)["expiring"] is True          # passed: deleted at the next check
    assert row(now + 2 * H, warn=H)["expiring"] is False
    assert row(None)["expiring"] is False and row(None)["expires_ms"] is None
    assert row(now + 5)["expires_ms"] == now + 5
    # --until moves "now": the same group, scanned up to a moment 2 days earlier, is not expiring
    assert report.group_row(GroupFacts("g", 0, expires_ms=now + H), Window(None, now - 2 * DAY, T0, now),
                            H, 10)["expiring"] is False


def test_expiring_groups_come_right_after_storms_and_stale_ones():
    base = {"storm": False, "stale": False, "expiring": False, "rebalance_count": 0, "commits": 0}
    rows = [{**base, "group": "busy", "commits": 100}, {**base, "group": "exp", "expiring": True},
            {**base, "group": "stale", "stale": True}, {**base, "group": "storm", "storm": True}]
    assert [r["group"] for r in report.top_groups(rows, 4)] == ["storm", "stale", "exp", "busy"]
