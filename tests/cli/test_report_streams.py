"""kgroup report of a streams group from a saved offsets log and a streams snapshot (no cluster):
the group now is the snapshot's (examples/streams-wordcount.json), its rebalances the log's epochs.
Expected values are read off the example snapshot and the records written here."""
from __future__ import annotations

import json

from conftest import run_kgroup
from logbuilder import Log, streams_group, streams_member
from schemas import validate

from kgroup.offsets_log.raw import write_jsonl

G = "wordcount"
T0 = 1_790_000_000_000


def _log(tmp_path):
    log = Log()
    streams_member(log, G, T0, "m-a1")
    streams_member(log, G, T0, "m-b1")
    streams_group(log, G, T0, ["words"])
    for member, partitions in (("m-a1", [0, 1]), ("m-b1", [2, 3])):
        log.add(G, T0, 21, {"groupId": G, "memberId": member}, 0, {
            "activeTasks": [{"subtopologyId": "0", "partitions": partitions}], "standbyTasks": [], "warmupTasks": []})
    log.add(G, T0, 20, {"groupId": G}, 0, {"assignmentEpoch": 1})
    log.commit(G, "words", 0, 900, T0 + 1_000)
    log.commit(G, "words", 2, 2900, T0 + 2_000)
    path = tmp_path / "log.jsonl"
    with open(path, "w") as f:
        write_jsonl(log.records, f)
    return path


def test_report_from_a_log_and_a_streams_snapshot(tmp_path):
    page = tmp_path / "wc.html"
    r = run_kgroup("report", G, "--input", str(_log(tmp_path)), "--snapshot", "examples/streams-wordcount.json",
                   "--since", str(T0 - 60_000), "--until", str(T0 + 60_000), "--out", str(page), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("report", doc)
    assert doc["lag"] is None and "the lag needs a cluster" in doc["lag_unavailable"]
    now = doc["now"]
    assert now["source"] == "snapshot" and now["describe"]["type"] == "streams"
    assert (now["describe"]["state"], now["describe"]["group_epoch"], now["describe"]["member_count"]) == (
        "Reconciling", 7, len(now["describe"]["members"]))
    words = [(p["task"], p["partition"], p["committed"], p["log_end"], p["lag"]) for p in now["offsets"]["partitions"]
             if p["topic"] == "words"]
    assert words == [("0_0", 0, 1000, 1000, 0), ("0_1", 1, 1993, 2000, 7), ("0_2", 2, 2986, 3000, 14),
                     ("0_3", 3, None, 4000, None)]
    # the commits counted for the member running each task (words-0: m-a1, words-2: m-b1)
    assert [(s["member"], s["commits"]) for s in doc["commit_rate"]["series"]] == [("m-a1", 1), ("m-b1", 1)]
    html = page.read_text()
    assert 'id="kgroup-streams-members"' in html and 'id="kgroup-streams-topology"' in html
    assert "cannot answer for streams groups" not in html


def test_a_snapshot_of_another_streams_group_is_refused(tmp_path):
    r = run_kgroup("report", "orders-app", "--input", "examples/offsets-log-streams.jsonl", "--snapshot",
                   "examples/streams-wordcount.json", "--out", str(tmp_path / "x.html"))
    assert r.returncode == 2, r.stderr
    assert "snapshot examples/streams-wordcount.json holds group wordcount, not orders-app" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "x.html").exists()


def test_report_of_one_topic_keeps_the_group_nows_rows_to_it(tmp_path):
    r = run_kgroup("report", G, "--input", str(_log(tmp_path)), "--snapshot", "examples/streams-wordcount.json",
                   "--since", str(T0 - 60_000), "--until", str(T0 + 60_000), "-t", "words", "--out",
                   str(tmp_path / "wc.html"), "-o", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["now"]["offsets"]["partitions"]
    assert [(p["topic"], p["partition"]) for p in rows] == [("words", p) for p in range(4)]
