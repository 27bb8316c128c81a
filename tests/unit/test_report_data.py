"""The report's pure parts, worked by hand: the total lag over time (unknowns, partitions that
start late), the commit buckets and the owner of each commit, what the page draws of a large
group, the fleet page's status counts, and the escaping helpers."""
from __future__ import annotations

import json

from kgroup.lag.history import Commit
from kgroup.group.model import Member
from kgroup.offsets_log.replay import Rebalance
from kgroup.report import data, fleet
from kgroup.report.html import chart_text, chart_time, embed_json, esc


def _lag(*partitions):
    return {"partitions": [{"topic": "T", "partition": i, "points": [{"time_ms": t, "lag": v} for t, v in pts]}
                           for i, pts in enumerate(partitions)]}


def test_total_lag_sums_each_partitions_latest_point():
    # T-0: 5 at 10, 3 at 30; T-1 starts at 20 with 4, then 6 at 30 (same moment as T-0's)
    assert data.total_lag(_lag([(10, 5), (30, 3)], [(20, 4), (30, 6)])) == [
        {"time_ms": 10, "lag": 5}, {"time_ms": 20, "lag": 9}, {"time_ms": 30, "lag": 9}]


def test_an_unknown_point_makes_the_total_unknown_until_it_is_known_again():
    assert data.total_lag(_lag([(10, 5), (20, None), (40, 1)], [(30, 2)])) == [
        {"time_ms": 10, "lag": 5}, {"time_ms": 20, "lag": None}, {"time_ms": 30, "lag": None},
        {"time_ms": 40, "lag": 3}]


def test_bucket_width_is_the_smallest_giving_at_most_60():
    assert data.bucket_ms(0, 60_000) == 1_000  # 60 buckets of 1 s
    assert data.bucket_ms(0, 61_000) == 5_000  # 61 would be too many: 13 of 5 s
    assert data.bucket_ms(0, 6 * 3_600_000) == 600_000  # 6 h: 36 of 10 min (5 min would be 72)
    assert data.bucket_ms(5, 5) == 1_000


def test_each_commit_counts_for_the_owner_at_its_moment():
    def gen(ts, type_, owners):
        return Rebalance(ts, (0, 0), type_, 1, members=[Member(m, assignment=a) for m, a in owners.items()])

    rebalances = [gen(1_000, "classic", {"a": {"T": [0]}, "b": {"T": [1]}}),
                  gen(5_000, "classic", {"a": {"T": [0, 1]}}),
                  gen(8_000, "deleted", {})]
    commits = {("T", 0): [Commit(500, 1), Commit(2_000, 2), Commit(9_000, 3)],
               ("T", 1): [Commit(2_500, 1), Commit(6_000, 2), Commit(12_000, 9)]}
    rate = data.commit_rate(commits, rebalances, 0, 10_000)
    assert (rate["start_ms"], rate["bucket_ms"], rate["buckets"]) == (0, 1_000, 10)
    # 500: before any rebalance; 2,000 a; 9,000 after the deletion; 2,500 b; 6,000 a; 12,000 out of the window
    # busiest first; on a tie the members before no owner
    assert rate["series"] == [
        {"member": "a", "commits": 2, "counts": [0, 0, 1, 0, 0, 0, 1, 0, 0, 0]},
        {"member": None, "commits": 2, "counts": [1, 0, 0, 0, 0, 0, 0, 0, 0, 1]},
        {"member": "b", "commits": 1, "counts": [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]}]


def test_a_large_group_is_summarised():
    from kgroup.report.page import MAX_MEMBER_BARS, MAX_PARTITION_LINES, drawn_members, drawn_partitions

    lag = _lag(*[[(10, p)] for p in range(100)])
    drawn = drawn_partitions(lag)
    assert [p["partition"] for p in drawn] == list(range(99, 99 - MAX_PARTITION_LINES, -1))
    rate = {"buckets": 2, "series": [{"member": f"m{i}", "commits": 30 - i, "counts": [30 - i, 0]} for i in range(15)]}
    members = drawn_members(rate)
    assert len(members) == MAX_MEMBER_BARS
    # the last 6 (m9..m14: 21 + 20 + ... + 16 = 111) as one series
    assert members[-1] == {"member": "others (6 members)", "commits": 111, "counts": [111, 0], "others": True}


def test_fleet_counts_every_reason_to_look_and_leaves_the_fine_groups_out():
    rows = [{"storm": True, "stale": False, "rewinds": 0, "deleted": False},
            {"storm": False, "stale": True, "rewinds": 2, "deleted": False},
            {"storm": False, "stale": False, "rewinds": 0, "deleted": True},
            {"storm": False, "stale": False, "rewinds": 0, "deleted": False, "expiring": True}]
    assert fleet.status_counts(rows) == {"storm": 1, "stale": 1, "expiring": 1, "rewinds": 1}
    # with statuses: a stale group that is OK by its status still counts as stale; OK is no reason
    rows = [{"status": "OK", "stale": True}, {"status": "ERR"}, {"status": "OK"}, {"status": None, "storm": True}]
    assert fleet.status_counts(rows) == {"storm": 1, "stale": 1, "status ERR": 1, "status unknown": 1}
    assert fleet.look_title(rows) == "Groups needing a look: 3 of 4 (1 with nothing flagged, not drawn)"


def test_commit_buckets_span_the_commits_not_the_window():
    """Three minutes of commits in a day's window: 5 s buckets from the first commit, not 30 min ones."""
    day = 86_400_000
    commits = {("T", 0): [Commit(day // 2 + k * 10_000, k) for k in range(19)]}  # 0 to 180 s after noon
    rate = data.commit_rate(commits, [], 0, day)
    assert (rate["start_ms"], rate["bucket_ms"], rate["buckets"]) == (day // 2, 5_000, 37)
    assert sum(rate["series"][0]["counts"]) == 19 and rate["series"][0]["counts"][-1] == 1
    assert data.commit_rate({}, [], 0, day)["start_ms"] == 0  # no commit: the window


def _doc(**over):
    doc = {"group": "G", "source": {"cluster": None, "snapshot": None}, "warnings": [], "now": None, "lag": None}
    doc.update(over)
    return doc


def test_the_page_says_why_the_group_now_is_missing():
    from kgroup.report.page import now_missing

    assert now_missing(_doc()) == ("it is read from a cluster (-b) or a snapshot file (--snapshot), and neither "
                                   "was given")
    asked = {"cluster": "b:9092", "snapshot": None}
    assert now_missing(_doc(source=asked, now_unavailable="not authorized to describe G")) \
        == "the cluster (b:9092) could not be asked: not authorized to describe G"
    # a warning's text is not read for it
    assert now_missing(_doc(source=asked, warnings=["the group now is not shown: x"])).startswith(
        "the cluster (b:9092) does not know group G now")
    assert now_missing(_doc(source=asked)).startswith("the cluster (b:9092) does not know group G now")


def test_never_committed_partitions_of_the_group_now():
    from kgroup.report.page import never_committed, owners_now

    now = {"describe": {"members": [{"member_id": "m1", "assignment": {"T": [0, 1]}},
                                    {"member_id": "m2", "assignment": {"T": [2], "U": [0]}}]},
           "offsets": {"partitions": [{"topic": "T", "partition": 0, "committed": 5, "member_id": "m1"},
                                      {"topic": "T", "partition": 2, "committed": None, "member_id": "m2"}]}}
    lag = {"partitions": [{"topic": "U", "partition": 0}]}
    assert never_committed(_doc(now=now, lag=lag)) == [("T", 1, "m1"), ("T", 2, "m2")]
    assert never_committed(_doc()) is None
    assert owners_now(_doc(now=now))[("T", 0)]["member_id"] == "m1"


def test_owners_of_a_group_whose_members_the_broker_does_not_name_are_unknown():
    """A Stable group described with no members (as Tansu answers) has owners, unnamed: neither "no
    owner" nor "every owned partition has a commit"; an Empty group has none."""
    from kgroup.report.page import never_committed, owners_now, owners_unknown

    offsets = {"partitions": [{"topic": "T", "partition": 0, "committed": 5, "member_id": None}]}
    stable = {"describe": {"state": "Stable", "members": []}, "offsets": offsets}
    assert owners_now(_doc(now=stable)) is None and never_committed(_doc(now=stable)) is None
    assert owners_unknown(_doc(now=stable)) == "the group is Stable but the broker returned no member details"
    empty = {"describe": {"state": "Empty", "members": []}, "offsets": offsets}
    assert owners_unknown(_doc(now=empty)) is None
    assert owners_now(_doc(now=empty)) == {("T", 0): offsets["partitions"][0]}
    assert never_committed(_doc(now=empty)) == []

def test_escaping():
    hostile = '<script>alert("x")</script>&'
    assert esc(hostile) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;"
    assert (esc(None), esc(True), esc(3)) == ("-", "yes", "3")
    assert chart_text(hostile) == '&lt;script&gt;alert("x")&lt;/script&gt;&amp;'
    block = embed_json({"g": hostile + "\u2028"}, "d")
    assert "</script>" not in block[:-len("</script>")] and "<script>" not in block.split(">", 1)[1]
    assert json.loads(block.split(">", 1)[1].rsplit("<", 1)[0]) == {"g": hostile + "\u2028"}
    assert chart_time(5_000) == "1970-01-01 00:00:05.000"  # not the year 5000


def test_the_retention_fact_names_the_largest_whole_unit():
    from kgroup.report.page import retention_fact

    def fact(ms):
        return retention_fact({"retention_ms": ms, "retention_source": "broker 1"})

    assert fact(604_800_000) == "offsets.retention.minutes 10080 (7 d), broker 1"
    assert fact(7_200_000) == "offsets.retention.minutes 120 (2 h), broker 1"
    assert fact(5_400_000) == "offsets.retention.minutes 90 (90 min), broker 1"


def test_the_expiry_fact():
    from kgroup.report.page import expiry_fact

    def part(p, ms, why):
        return {"topic": "T", "partition": p, "expires_ms": ms, "expiry": why}

    assert expiry_fact({"first_expires_ms": 80_000, "partitions": [part(0, 90_000, "b"), part(1, 80_000, "a"),
                                                                    part(2, 80_000, "a")]}) == \
        "committed offsets expire at 1970-01-01T00:01:20.000Z: T-1, T-2 first (a)"
    consumed = "not while the group consumes it"
    assert expiry_fact({"first_expires_ms": None, "partitions": [part(0, None, consumed)]}) == \
        "not while the group consumes them"
    assert expiry_fact({"first_expires_ms": None, "partitions": [part(0, None, consumed),
                                                                 part(1, None, "not while the group is Dead")]}) == \
        "not under the group's state at the window's end: not while the group consumes it; not while the group is Dead"
    assert expiry_fact({"first_expires_ms": None, "partitions": []}) == "no committed offset in the log"
