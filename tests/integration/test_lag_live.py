"""kgroup lag against a real broker (Tansu): scenario groups get exactly their status, and every
point's lag equals the value computed here from the records produced.

A data topic of five partitions holds one record a second from BASE on (one record per batch,
CreateTime stamps set by the test), so the log of every partition ended at BASE + t at offset
ceil(t / 1 s). Offsets-log commit records, built by kgroup's writer, go into an ordinary topic
read with --offsets-topic (Tansu has no __consumer_offsets of its own). Tansu answers
ListOffsets by timestamp with the log start, so this runs through kgroup's check of every
answer and its search of the records.
"""
from __future__ import annotations

import re

import json
import math
import time
import uuid

import pytest
from conftest import run_kgroup
from logbuilder import Log, produce

pytestmark = pytest.mark.broker

RECORDS = 200  # per partition, one a second
BASE = (int(time.time()) - 3600) * 1000  # an hour ago
UNTIL = BASE + 130_000
GROUP = "lag-scenarios"

# partition -> its commits (seconds after BASE, offset) and the status Burrow's rules give
SCENARIOS = {
    0: ([(10 * k, 10 * k) for k in range(1, 14)], "OK"),  # caught up at every commit
    1: ([(10 * k, 5 * k) for k in range(1, 14)], "WARN"),  # half the production rate: lag grows
    2: ([(10 * k, 20) for k in range(3, 14)], "STALL"),  # the same offset again and again
    3: ([(10 * k, 10 * k) for k in range(1, 6)], "STOP"),  # caught up, then nothing for 80 s
    4: ([(10 * k, 10 * k) for k in range(1, 9)] + [(10 * k, 10 * k - 60) for k in range(9, 14)], "REWIND"),
}


def table_rows(page: str, element_id: str) -> list[list[str]]:
    """The cells of each body row of the page's table ``element_id``, as text."""
    import html

    body = page.split(f'<table id="{element_id}">', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]


def end_at(ms: int) -> int:
    """Where a partition's log ended at ms: the first record at or after it (ceil), or the end."""
    return min(RECORDS, max(0, math.ceil((ms - BASE) / 1000)))


@pytest.fixture(scope="module")
def topics(tansu):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    data = f"lagdata-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(data, len(SCENARIOS), 1)], request_timeout=10).values():
        f.result(15)
    producer = Producer({"bootstrap.servers": tansu, "linger.ms": 0, "batch.num.messages": 1})
    for p in SCENARIOS:
        for i in range(RECORDS):
            producer.produce(data, value=b"x", partition=p, timestamp=BASE + i * 1000)
            producer.flush(10)  # one record per batch: Tansu's latest offset is right only then
    log = Log(partitions=1)
    for p, (commits, _) in SCENARIOS.items():
        for seconds, offset in commits:
            log.commit(GROUP, data, p, offset, BASE + seconds * 1000)
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)
    return data, offsets_topic


def lag_json(tansu, offsets_topic, *extra):
    r = run_kgroup("lag", GROUP, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-o", "json", *extra, timeout=120)
    return r, (json.loads(r.stdout) if r.stdout else None)


def test_scenarios_get_their_status_and_every_point_its_lag(tansu, topics):
    data, offsets_topic = topics
    r, doc = lag_json(tansu, offsets_topic)
    assert r.returncode == 0, r.stderr
    from schemas import validate

    validate("lag", doc)
    got = {p["partition"]: p for p in doc["partitions"]}
    assert sorted(got) == sorted(SCENARIOS)
    for p, (commits, status) in SCENARIOS.items():
        part = got[p]
        assert part["topic"] == data and part["status"] == status, (p, part["status"])
        expected = [{"time_ms": BASE + s * 1000, "committed": o, "end": end_at(BASE + s * 1000),
                     "lag": max(0, end_at(BASE + s * 1000) - o)} for s, o in commits]
        assert part["points"] == expected, p
        assert part["end"] == end_at(UNTIL) == 130
        assert part["lag"] == 130 - commits[-1][1]
    assert doc["status"] == "ERR"
    assert doc["partitions_by_status"] == {"OK": [f"{data}-0"], "WARN": [f"{data}-1"], "STALL": [f"{data}-2"],
                                           "STOP": [f"{data}-3"], "REWIND": [f"{data}-4"]}
    assert doc["total_lag"] == 0 + 65 + 110 + 80 + 60


def test_fail_on_and_the_table(tansu, topics):
    data, offsets_topic = topics
    r, _ = lag_json(tansu, offsets_topic, "--fail-on", "err")
    assert r.returncode == 1 and r.stderr == f"kgroup: warning: group {GROUP} is ERR\n", r.stderr
    r = run_kgroup("lag", GROUP, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-t", data, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["TOPIC", "PARTITION", "STATUS", "COMPLETE"]
    # the problems first (REWIND, STOP, STALL, WARN), OK last
    assert [line.split()[:5] for line in lines[2:7]] == [
        [data, "4", "REWIND", "1.0", "60"], [data, "3", "STOP", "0.5", "80"], [data, "2", "STALL", "1.0", "110"],
        [data, "1", "WARN", "1.0", "65"], [data, "0", "OK", "1.0", "0"]]
    assert lines[-3].startswith(f"group {GROUP}: ERR (REWIND: {data}-4; STALL: {data}-2; STOP: {data}-3; "
                                f"WARN: {data}-1)")
    # the group is no live group: nobody owns its partitions now
    assert lines[-1] == "no member owns any of these partitions now (the group is unknown to the cluster now)", \
        lines[-1]
    # Tansu reports no broker configuration: Kafka's default retention, said with the reason
    assert re.fullmatch(r"EXPIRES: when Kafka deletes the committed offset under the group's state at --until "
                        r"\(offsets.retention.minutes 10080: Kafka's default \(broker \d+ does not report "
                        r"offsets.retention.minutes\)\)", lines[-2]), lines[-2]


def test_a_group_with_no_commit_is_refused(tansu, topics):
    _, offsets_topic = topics
    r = run_kgroup("lag", "nobody", "-b", tansu, "--offsets-topic", offsets_topic, timeout=60)
    assert r.returncode == 2
    assert r.stderr == "kgroup: error: the offsets log holds no commit of group nobody at or before --until\n"


def test_time_lag_at_every_point(tansu, topics):
    _, offsets_topic = topics
    r, doc = lag_json(tansu, offsets_topic, "--time-lag")
    assert r.returncode == 0, r.stderr
    for part in doc["partitions"]:
        commits, _ = SCENARIOS[part["partition"]]
        # the record at offset o was produced at BASE + o s; a commit at BASE + s with lag waited s - o
        assert [pt["time_lag_ms"] for pt in part["points"]] == [
            0 if end_at(BASE + s * 1000) <= o else (s - o) * 1000 for s, o in commits]


def test_a_stopped_partition_has_no_catch_up_and_its_lag_drawn_growing(tansu, topics):
    data, offsets_topic = topics
    r, doc = lag_json(tansu, offsets_topic)
    stop = {p["partition"]: p for p in doc["partitions"]}[3]
    assert (stop["status"], stop["eta_s"], stop["catching_up"], stop["catch_up"]) == ("STOP", None, False,
                                                                                      "none: STOP")
    r = run_kgroup("lag", GROUP, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-t", data, "-o", "wide", timeout=120)
    row = next(line for line in r.stdout.splitlines() if line.split()[1:3] == ["3", "STOP"])
    # 24 slots of 130 s / 24: blank before the first commit (10 s), lag 0 at the commits (to 50 s),
    # then at each slot's end t (s) after 50 s the log end ceil(t) minus the last committed 50
    ends = [130_000 * (k + 1) // 24 for k in range(24)]
    lags = [None] + [0 if t <= 50_000 else math.ceil(t / 1000) - 50 for t in ends[1:]]
    assert lags[-1] == 80 and lags[9:11] == [5, 10]
    blocks, blank = ("▁▂▃▄▅▆▇█", "·") if "·" in row else ("_-=+*#%@", ".")
    # drawn as docs/commands/lag.md says: 0 the lowest block, v > 0 level 1 + v * 6 // 80
    drawn = "".join(blank if v is None else blocks[0] if v == 0 else blocks[1 + v * 6 // 80] for v in lags)
    assert row.endswith(drawn), row


def test_time_lag_at_until(tansu, topics):
    _, offsets_topic = topics
    r, doc = lag_json(tansu, offsets_topic, "--time-lag")
    for part in doc["partitions"]:
        commits, _ = SCENARIOS[part["partition"]]
        offset = commits[-1][1]
        # at --until (130 s) the first record not consumed (offset o, produced at o s) was 130 - o s old
        assert part["time_lag_ms"] == (0 if offset >= 130 else (130 - offset) * 1000), part["partition"]


def test_the_table_at_80_columns_in_a_terminal(tansu, topics):
    from cli.test_terminal_fit import in_terminal

    data, offsets_topic = topics
    lines = in_terminal(80, "lag", GROUP, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                        "--until", str(UNTIL), "-t", data)
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert lines[0].split() == ["TOPIC", "PARTITION", "STATUS", "LAG", "LAG", "OVER", "WINDOW"]
    assert [line.split()[:4] for line in lines[2:8]] == [
        [data, "4", "REWIND", "60"], [data, "3", "STOP", "80"], [data, "2", "STALL", "110"],
        [data, "1", "WARN", "65"], [data, "0", "OK", "0"], ["TOTAL", "-", "ERR", "315"]]
    assert "left out to fit the terminal: PRODUCE/S, CONSUME/S, COMMITTED, END, COMPLETE, EXPIRES, CATCH-UP" \
        in " ".join(" ".join(lines).split())


def stderr_in_terminal(*args: str) -> tuple[bytes, str, int]:
    """(stderr as the terminal got it, stdout, exit code) of ``python -m kgroup args`` with only its
    stderr on a pseudo-terminal (stdout a file, as in ``kgroup lag ... > file`` at a prompt)."""
    import terminal

    return terminal.run(*args, on="stderr")


def test_the_ends_phase_shows_its_progress_on_a_terminal_only(tansu, topics):
    data, offsets_topic = topics
    args = ["lag", GROUP, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE), "--until",
            str(UNTIL), "-o", "json"]
    seen, out, code = stderr_in_terminal(*args)
    assert code == 0, seen
    doc = json.loads(out)
    text = seen.decode()
    # the ends phase's line, drawn first at 0 of all its moments and last at all of them, each
    # drawn in place (carriage return, line, erase to its end), and cleared at the end
    first = re.search(r"\rlog ends {11}\[\.{30}\] 0/(\d+)\x1b\[K", text)
    assert first, text
    total = int(first.group(1))
    # every commit's moment is asked (55 commits, at distinct moments per partition), and more:
    # --until and the moments after each partition's last commit
    assert total > sum(len(commits) for commits, _ in SCENARIOS.values()) == 55
    last = "\rlog ends           [" + "#" * 30 + f"] {total}/{total}\x1b[K"
    assert first.start() < text.index(last), text
    assert text.endswith("\r\x1b[K"), text
    assert "\n" not in text, text  # nothing else was said
    # the same command with stderr not a terminal: nothing on stderr, the same document
    r, again = lag_json(tansu, offsets_topic)
    assert r.returncode == 0 and r.stderr == "" and again == doc


FACTS = "lag-facts"


@pytest.fixture(scope="module")
def facts_log(tansu, topics):
    """Group lag-facts on the same data topic: numbers that are not offsets, and a commit record cut short."""
    data, _ = topics
    log = Log(partitions=1)
    log.commit(FACTS, data, 0, 50, BASE + 50_000)
    log.commit(FACTS, data, 0, -1, BASE + 120_000)  # a sentinel, not an offset
    log.commit(FACTS, data, 1, 10_000, BASE + 120_000)  # beyond the log end (120 then, 130 at --until)
    log.commit(FACTS, data, 2, 50, BASE + 50_000)
    cut = log.cut_commit(FACTS, data, 2, 100, BASE + 100_000)  # its key decodes, its value does not
    log.commit(FACTS, data, 3, 130, BASE + 130_000)  # a plain one: caught up
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)
    return data, offsets_topic, cut


def test_offsets_that_are_not_offsets_and_a_cut_record_are_unknown(tansu, topics, facts_log):
    data, offsets_topic, cut = facts_log
    r = run_kgroup("lag", FACTS, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-o", "json", timeout=120)
    assert r.returncode == 3, r.stderr
    assert r.stderr.splitlines() == [
        f"kgroup: warning: {data}-0: committed offset -1 is not an offset",
        f"kgroup: warning: {data}-1: committed 10000 is beyond the log end 130",
        f"kgroup: warning: {data}-2: the commit record at offsets-log partition 0 offset {cut.offset} cannot be "
        "decoded (truncated value of record type 1 v3): the committed offset since then is unknown, so are the lag "
        "and the status",
        "kgroup: warning: INCOMPLETE: some values are unknown (shown as -); the status is computed from the "
        "known points"]
    doc = json.loads(r.stdout)
    from schemas import validate

    validate("lag", doc)
    got = {p["partition"]: (p["committed"], p["end"], p["lag"], p["status"], [pt["lag"] for pt in p["points"]])
           for p in doc["partitions"]}
    assert got == {0: (-1, 130, None, None, [0, None]), 1: (10_000, 130, None, None, [None]),
                   2: (None, 130, None, None, [0]), 3: (130, 130, 0, "OK", [0])}
    assert doc["incomplete"] is True and doc["total_lag"] is None and doc["status"] == "OK"
    assert doc["partitions_by_status"] == {"UNKNOWN": [f"{data}-0", f"{data}-1", f"{data}-2"], "OK": [f"{data}-3"]}


def test_the_report_says_the_same_unknowns(tansu, topics, facts_log, tmp_path):
    data, offsets_topic, cut = facts_log
    r = run_kgroup("report", FACTS, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-o", "json", timeout=120)
    assert r.returncode == 3, r.stderr
    doc = json.loads(r.stdout)
    assert doc["incomplete"] is True
    lag = doc["lag"]
    assert [(p["partition"], p["committed"], p["lag"], p["status"]) for p in lag["partitions"]] == [
        (0, -1, None, None), (1, 10_000, None, None), (2, None, None, None), (3, 130, 0, "OK")]
    assert [u for p in lag["partitions"] for u in p["unknown"]] == [
        "committed offset -1 is not an offset", "committed 10000 is beyond the log end 130",
        f"the commit record at offsets-log partition 0 offset {cut.offset} cannot be decoded (truncated value of "
        "record type 1 v3): the committed offset since then is unknown, so are the lag and the status"]
    assert f"kgroup: warning: {data}-2: the commit record at offsets-log partition 0 offset {cut.offset}" in r.stderr


def test_a_lag_of_nothing_but_a_transaction_marker_is_none_and_ok_not_stall(tansu, tmp_path):
    """A consumer of a transactional topic that committed "last processed + 1" (3, the commit
    marker at 3 ending the log at 4) again and again is caught up: lag 0, OK, not STALL; one that
    keeps a real record unconsumed (partition 1, 2 of 3) keeps its lag 1 and is STALL."""
    import transactions

    base = int(time.time() * 1000) - 600_000
    topic, open_ = transactions.transactional_topic(tansu, timestamp_ms=base)
    try:
        group = f"txn-{uuid.uuid4().hex[:8]}"
        log = Log(partitions=1)
        for k in range(1, 10):  # a commit a minute, the last a minute ago
            log.commit(group, topic, 0, 3, base + k * 60_000)
            log.commit(group, topic, 1, 2, base + k * 60_000)
        offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
        produce(tansu, offsets_topic, log)
        r = run_kgroup("lag", group, "-b", tansu, "--offsets-topic", offsets_topic, "--since", "15m", "-o", "json",
                       timeout=120)
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        from schemas import validate

        validate("lag", doc)
        got = [(p["partition"], p["status"], p["lag"], p["end"], p["committed"], p["transaction_markers"],
                p["catch_up"]) for p in doc["partitions"]]
        assert got == [(0, "OK", 0, 4, 3, 1, "caught up"), (1, "STALL", 1, 3, 2, None, "none: STALL")]
        assert (doc["status"], doc["total_lag"]) == ("ERR", 1)
        r = run_kgroup("lag", group, "-b", tansu, "--offsets-topic", offsets_topic, "--since", "15m", timeout=120)
        assert f"{topic}-0: caught up; 1 offset is a transaction marker or an aborted record, never consumed" \
            in r.stdout.splitlines(), r.stdout
        # the report's lag part and its page say the same
        page = tmp_path / "r.html"
        r = run_kgroup("report", group, "-b", tansu, "--offsets-topic", offsets_topic, "--since", "15m",
                       "--out", str(page), "-o", "json", timeout=120)
        assert r.returncode == 0, r.stderr
        got = [(p["partition"], p["status"], p["lag"], p["transaction_markers"])
               for p in json.loads(r.stdout)["lag"]["partitions"]]
        assert got == [(0, "OK", 0, 1), (1, "STALL", 1, None)]
        rows = {row[1]: row for row in table_rows(page.read_text(), "kgroup-status")}
        assert (rows["0"][2], rows["0"][4], rows["0"][9]) == ("OK", "0", "caught up; 1 transaction marker")
        assert (rows["1"][2], rows["1"][4], rows["1"][9]) == ("STALL", "1", "none: STALL")
        assert f"{topic}-0: caught up; 1 offset is a transaction marker or an aborted record, never consumed" \
            in page.read_text()
    finally:
        open_.abort_transaction(10)


@pytest.fixture(scope="module")
def compacted(tansu):
    """A topic whose cleanup.policy is compact (Tansu keeps every record: nothing is removed).
    Partition 0: 200 records one a second from BASE, as the data topic. Partition 1: records
    0-9 at BASE + 0..9 s, a transaction of one record (offset 10, at BASE + 10 s) whose commit
    marker is offset 11, then records 12-19 at BASE + 11..18 s: offset 11 holds no record a
    consumer reads, as one compaction removed would look."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = f"compacted-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(topic, 2, 1, config={"cleanup.policy": "compact"})],
                                 request_timeout=10).values():
        f.result(15)
    producer = Producer({"bootstrap.servers": tansu, "linger.ms": 0})

    def one(p: int, i: int, at_s: int, via=producer) -> None:
        via.produce(topic, key=b"k%d" % (i % 7), value=b"x", partition=p, timestamp=BASE + at_s * 1000)
        via.flush(10)  # one record per batch: Tansu's latest offset is right only then

    for i in range(RECORDS):
        one(0, i, i)
    for i in range(10):
        one(1, i, i)
    txn = Producer({"bootstrap.servers": tansu, "transactional.id": f"{topic}-t", "linger.ms": 0})
    txn.init_transactions(20)
    txn.begin_transaction()
    one(1, 10, 10, txn)
    txn.commit_transaction(20)
    for i in range(12, 20):
        one(1, i, i - 1)
    log = Log(partitions=1)
    for k in range(1, 11):  # caught up on 0 at every commit, 10 s apart; the last at 100 s
        log.commit("compact-ok", topic, 0, 10 * k, BASE + 10_000 * k)
    log.commit("compact-gap", topic, 1, 5, BASE + 5_000)  # the end then: 5
    log.commit("compact-gap", topic, 1, 8, BASE + 10_500)  # the end then: 11 or 12 (offset 11 holds no record)
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)
    return topic, offsets_topic


def test_a_compacted_topic_whose_records_are_all_there_is_known_and_fail_on_answers(tansu, compacted):
    """Before, every point of a compacted topic was unknown: lag 0, OK and exit 3 on every run,
    so --fail-on never answered. The records before each end are there: every point is a fact."""
    topic, offsets_topic = compacted
    r = run_kgroup("lag", "compact-ok", "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-o", "json", "--fail-on", "warn", timeout=120)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    doc = json.loads(r.stdout)
    part, = doc["partitions"]
    assert part["points"] == [{"time_ms": BASE + 10_000 * k, "committed": 10 * k, "end": 10 * k, "lag": 0}
                              for k in range(1, 11)]
    assert (part["status"], part["lag"], part["end"], part["unknown"], doc["incomplete"]) == ("OK", 30, 130, [], False)
    r = run_kgroup("report", "compact-ok", "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "-o", "json", timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["incomplete"] is False


def test_a_compacted_topic_where_an_offset_holds_no_record_says_which(tansu, compacted):
    topic, offsets_topic = compacted
    r = run_kgroup("lag", "compact-gap", "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(BASE + 30_000), "-o", "json", timeout=120)
    assert r.returncode == 3, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"kgroup: warning: {topic}-1: 1 of 2 points unknown: compacted topic: offset 11 holds no record now, so "
        "where the log ended then (from 11 to 12) is unknown")
    part, = json.loads(r.stdout)["partitions"]
    assert [(pt["end"], pt["lag"]) for pt in part["points"]] == [(5, 0), (None, None)]
    assert (part["end"], part["lag"]) == (20, 12)


def test_owners_tansu_does_not_name_are_said_unknown(tansu):
    """A live group of three consumers on Tansu, whose offsets log holds a commit of partition 0
    of three: Tansu describes the group as Stable with no member details, so the owners now and
    the partitions never committed (which follow from the members' subscriptions) are unknown,
    said once, not guessed as "no owner"; the lag is whole (exit 0). The owners themselves are
    tested in tests/cli/test_lag.py."""
    import seed

    topic = f"owned-{uuid.uuid4().hex[:8]}"
    counts = {topic: 3}
    seed.create_topics(tansu, counts)
    seed.produce(tansu, counts, count=lambda t, p: 4 + p)  # ends 4, 5, 6
    group = seed.LiveGroup(tansu, f"owners-{uuid.uuid4().hex[:8]}", topics=dict(counts)).start()
    try:
        log = Log(partitions=1)
        log.commit(group.group_id, topic, 0, 4, int(time.time() * 1000) - 5_000)
        offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
        produce(tansu, offsets_topic, log)
        r = run_kgroup("lag", group.group_id, "-b", tansu, "--offsets-topic", offsets_topic, "-o", "json",
                       timeout=120)
        table = run_kgroup("lag", group.group_id, "-b", tansu, "--offsets-topic", offsets_topic, timeout=120)
    finally:
        group.stop()
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    from schemas import validate

    validate("lag", doc)
    part, = doc["partitions"]
    assert (part["partition"], part["lag"], part["owner"]) == (0, 0, None)
    why = "the group is Stable but the broker returned no member details"
    assert (doc["owners_unknown"], doc["never_committed"], doc["incomplete"]) == (why, [], False)
    assert table.returncode == 0 and "CLIENT-ID" not in table.stdout.splitlines()[0]
    assert table.stdout.splitlines()[-1] == f"the owners now and the partitions never committed are unknown: {why}"
