"""kgroup report against a real broker (Tansu), its page opened in headless Chromium with the
network off: the lag drawn equals ``lag -o json`` of the same broker and every point's lag equals
the value computed here from the records produced; the rebalances drawn equal ``history -o
json``; the group id, which is HTML, shown as text; a screenshot written (its path is printed).

A data topic of three partitions holds one record a second from BASE on (one record per batch,
CreateTime stamps set by the test), so each partition's log ended at BASE + t at offset
ceil(t / 1 s). The group's offsets-log records (two generations, then commits), built by kgroup's
writer, go into an ordinary topic read with --offsets-topic (Tansu has no __consumer_offsets).
"""
from __future__ import annotations

import json
import math
import time
import uuid
from datetime import datetime, timezone

import pytest
from browser import open_page
from conftest import run_kgroup
from logbuilder import Log, produce

pytestmark = pytest.mark.broker
pytest.importorskip("plotly", reason="the page needs kgroup's report extra")

RECORDS = 60  # per partition, one a second
BASE = (int(time.time()) - 3600) * 1000  # an hour ago
UNTIL = BASE + 50_000
GROUP = "<script>alert(1)</script>"
# partition -> its commits (seconds after BASE, offset)
COMMITS = {0: [(10 * k, 10 * k) for k in range(1, 5)],  # caught up
           1: [(10 * k, 4 * k) for k in range(1, 5)],  # falling behind
           2: [(10 * k, 5) for k in range(1, 5)]}  # stalled


def end_at(ms: int) -> int:
    return min(RECORDS, max(0, math.ceil((ms - BASE) / 1000)))


def ms(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp() * 1000)


@pytest.fixture(scope="module")
def topics(tansu):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    data = f"reportdata-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(data, len(COMMITS), 1)], request_timeout=10).values():
        f.result(15)
    producer = Producer({"bootstrap.servers": tansu, "linger.ms": 0, "batch.num.messages": 1})
    for p in COMMITS:
        for i in range(RECORDS):
            producer.produce(data, value=b"x", partition=p, timestamp=BASE + i * 1000)
            producer.flush(10)  # one record per batch: Tansu's latest offset is right only then
    log = Log(partitions=1)  # the records in time order
    events = [(BASE + s * 1000, p, o) for p, commits in COMMITS.items() for s, o in commits]
    events += [(BASE + 5_000, "gen", 1), (BASE + 25_000, "gen", 2)]
    for t, p, o in sorted(events, key=lambda e: (e[0], str(e[1]))):
        if p == "gen":
            members = ([{"id": "c1", "topics": [data], "assignment": {data: [0, 1]}},
                        {"id": "<b>c2</b>", "topics": [data], "assignment": {data: [2]}}] if o == 1 else
                       [{"id": "c1", "topics": [data], "assignment": {data: [0, 1, 2]}}])
            log.generation(GROUP, o, t, members)
        else:
            log.commit(GROUP, data, p, o, t)
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)
    return data, offsets_topic


def test_the_report_of_a_live_group_in_chromium(tansu, topics, tmp_path):
    data, offsets_topic = topics
    where = ["-b", tansu, "--offsets-topic", offsets_topic]
    window = ["--since", str(BASE), "--until", str(UNTIL)]
    page_file = tmp_path / "incident.html"
    r = run_kgroup("report", GROUP, *where, *window, "--out", str(page_file), "-o", "json", timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # the broker runs no such group now (only its records were written): said, not fatal
    assert (doc["now"], doc["warnings"]) == (None, [f"the group now is not shown: unknown group {GROUP}"])
    assert doc["now_unavailable"] == f"unknown group {GROUP}"
    lag = json.loads(run_kgroup("lag", GROUP, *where, *window, "-o", "json", timeout=120).stdout)
    history = json.loads(run_kgroup("history", GROUP, *where, "-o", "json", timeout=120).stdout)
    # the lag part is lag's but for its owners now (the report's are in its group now, here none)
    assert (lag.pop("owners_unknown"), lag.pop("never_committed")) == (None, [])
    assert all(p.pop("owner") is None for p in lag["partitions"])
    assert doc["lag"] == lag and doc["history"] == history
    for p in lag["partitions"]:
        assert [(pt["time_ms"], pt["committed"], pt["lag"]) for pt in p["points"]] == [
            (BASE + s * 1000, o, max(0, end_at(BASE + s * 1000) - o)) for s, o in COMMITS[p["partition"]]]
    assert [p["status"] for p in lag["partitions"]] == ["OK", "WARN", "STALL"]
    shot = tmp_path / "report-live.png"
    with open_page(page_file, shot) as page:
        print(f"screenshot of the live report page: {shot}")
        assert page.errors == [] and page.alerts == []
        assert page.requested == [page_file.resolve().as_uri()]
        data_drawn = page.js("return document.getElementById('kgroup-report-chart').data"
                             ".map(d => ({name: d.name, x: d.x, y: d.y}))")
        by_name = {d["name"]: d for d in data_drawn}
        # partition 0, caught up at every commit, is folded into the one "lag 0 throughout" entry
        # spanning its commits; the others are drawn point by point
        zero = by_name["lag 0 throughout (1 partition)"]
        assert [ms(x) for x in zero["x"]] == [BASE + 10_000, BASE + 40_000] and zero["y"] == [0, 0]
        for p in lag["partitions"][1:]:
            drawn = by_name[f"{p['topic']}-{p['partition']}"]
            assert [ms(x) for x in drawn["x"]] == [pt["time_ms"] for pt in p["points"]]
            assert drawn["y"] == [pt["lag"] for pt in p["points"]]
        assert [ms(x) for x in by_name["rebalance"]["x"]] == [e["timestamp"] for e in history["rebalances"]]
        assert page.js("return document.getElementById('kgroup-report-chart')"
                       ".querySelectorAll('.scatterlayer .trace').length") == 1 + len(lag["partitions"]) + 1
        assert page.js("return document.querySelector('h1').textContent") == f"kgroup report: group {GROUP}"
        assert "<b>c2</b>" in page.js("return document.body.innerText")
