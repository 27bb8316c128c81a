"""kgroup scan on Spark: every reported value against the same aggregates computed
independently in plain Python from the records the test wrote; the live log (Tansu,
written in multi-record batches), JSON Lines and Parquet give identical tables."""
from __future__ import annotations

import uuid
from bisect import bisect_left
from collections import defaultdict
from pathlib import Path

import pytest

from spark_env import HOUR, T0, build_scenario, spark, write_jsonl, write_parquet, write_to_broker  # noqa: F401

pytestmark = [pytest.mark.spark]

STALE_AFTER = HOUR
DAY = 24 * HOUR  # --expiry-warn's default
STORM = 10
KIND_TYPE = {2: "classic", 3: "consumer", 4: "consumer", 5: "consumer", 6: "consumer", 7: "consumer", 8: "consumer",
             16: "consumer", 10: "share", 11: "share", 12: "share", 13: "share", 14: "share", 15: "share",
             17: "streams", 19: "streams", 20: "streams", 21: "streams", 22: "streams", 23: "streams"}


def _group_of(r) -> str:
    return r.key.get("group", r.key.get("groupId"))


_EXPECTED: dict = {}  # the tests ask for the same computations again: each is done once


def expected(sc, since=None, until=None, stale_after=STALE_AFTER, storm=STORM, live_ends=None):
    """The report, computed in plain Python from the scenario's own records (not their bytes);
    a copy of it, so that a test may change what it gets."""
    import copy

    key = (id(sc), since, until, stale_after, storm, None if live_ends is None else sorted(live_ends.items()))
    key = repr(key)
    if key not in _EXPECTED:
        _EXPECTED[key] = (sc, _expected(sc, since, until, stale_after, storm, live_ends))
    return copy.deepcopy(_EXPECTED[key][1])


def _replayed_expiries(window):
    """Each group's earliest offset expiry under Kafka's default retention, by kgroup's replay of
    its records in the window (kgroup.offsets_log.replay and .expiry: not the scan's fold and merge)."""
    from kgroup.offsets_log.expiry import Retention, first_expiry, group_expiries
    from kgroup.offsets_log.raw import RawRecord
    from kgroup.offsets_log.records import decode
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.offsets_log.selection import Entry

    replays: dict[str, GroupReplay] = {}
    for p, offset, r, _ in window:
        k, v = r.encoded()
        rec = decode(k, v)
        replay = replays.setdefault(rec.group_id, GroupReplay(rec.group_id))
        replay.apply(Entry(RawRecord(p, offset, r.timestamp, k, v), rec))
    out = {}
    for g, replay in replays.items():
        replay.finish()
        out[g] = first_expiry(group_expiries(replay, Retention()))
    return out


def _expected(sc, since, until, stale_after, storm, live_ends):
    rows_by_partition = sc.by_partition()
    win = []  # (partition, offset, rec, size)
    for p, recs in rows_by_partition.items():
        for offset, r in enumerate(recs):
            if (since is None or r.timestamp >= since) and (until is None or r.timestamp <= until):
                k, v = r.encoded()
                win.append((p, offset, r, len(k or b"") + len(v or b"")))
    win.sort(key=lambda w: (w[0], w[1]))
    first, last = min(w[2].timestamp for w in win), max(w[2].timestamp for w in win)
    now = until if until is not None else last
    seconds = max(1.0, (now - (since if since is not None else first)) / 1000)
    good = [w for w in win if w[2].type >= 0]
    per_group = defaultdict(list)
    for w in good:
        per_group[_group_of(w[2])].append(w)
    groups = {}
    committed = {}
    expiries = _replayed_expiries(good)
    for g, ws in per_group.items():
        commits = [w[2] for w in ws if w[2].type in (0, 1) and w[2].value is not None]
        by_tp = defaultdict(list)
        for c in commits:
            by_tp[(c.key["topic"], c.key["partition"])].append(c.value["offset"])
        rewinds = sum(1 for offs in by_tp.values() for a, b in zip(offs, offs[1:]) if b < a)
        for w in ws:
            r = w[2]
            if r.type in (0, 1):
                tp = (g, r.key["topic"], r.key["partition"])
                committed[tp] = None if r.value is None else r.value["offset"]
        state = [w[2] for w in ws if w[2].type >= 2]
        meta = [r for r in state if r.type in (2, 3, 11, 17)]
        meta_values = [r for r in meta if r.value is not None]
        classic = [r for r in state if r.type == 2 and r.value is not None]
        members = {}
        for r in state:
            if r.type in (5, 10, 19):
                members[r.key["memberId"]] = r
        live = [r for r in members.values() if r.value is not None]
        gtype = KIND_TYPE[state[-1].type] if state else "classic"
        deleted = bool(meta) and meta[-1].value is None
        if gtype == "classic":
            protocol = classic[-1].value["protocol"] if classic else None
            n_members = len(classic[-1].value["members"]) if classic else 0
        else:
            names = [r.value.get("serverAssignor") for r in live if r.value.get("serverAssignor") is not None]
            protocol = max(names) if names else None
            n_members = len(live)
        first_seen = {}
        for r in meta_values:
            gen = r.value["generation"] if r.type == 2 else r.value["epoch"]
            first_seen.setdefault((r.type, gen), r.timestamp)
        times = sorted(first_seen.values())
        most = max((i - bisect_left(times, t - HOUR + 1, 0, i + 1) + 1 for i, t in enumerate(times)), default=0)
        last_commit = max((c.value["commitTimestamp"] for c in commits), default=None)
        row = {
            "group": g, "type": gtype, "protocol": protocol, "offsets_partition": min(w[0] for w in ws),
            "generation": (meta_values[-1].value["generation"] if meta_values[-1].type == 2 else meta_values[-1].value["epoch"])
            if meta_values else None,
            "member_count": 0 if deleted else n_members, "commits": len(commits),
            "commits_per_hour": round(len(commits) * 3600 / seconds, 3),
            "first_commit_ms": min((c.value["commitTimestamp"] for c in commits), default=None),
            "last_commit_ms": last_commit, "rebalance_count": len(times), "partition_count": len(by_tp), "rewinds": rewinds,
            # a share group without commits: "no commit for long" does not apply (None)
            "deleted": deleted, "stale": None if gtype == "share" and not commits else (
                not deleted and bool(commits) and last_commit < now - stale_after),
            "storm": most >= storm, "expires_ms": expiries.get(g),
            "expiring": expiries.get(g) is not None and expiries[g] <= now + DAY,
        }
        groups[g] = row
    if live_ends is not None:
        lag = {}
        for (g, t, p), off in committed.items():
            if off is not None:
                lag[g] = lag.get(g, 0) + max(0, live_ends[(t, p)] - off)
        for g, row in groups.items():
            row["lag"] = lag.get(g)
    per_p = defaultdict(lambda: {"groups": set(), "records": 0, "commits": 0, "bytes": 0})
    for p, _o, r, size in win:
        d = per_p[p]
        d["records"] += 1
        d["bytes"] += size
        if r.type >= 0:
            d["groups"].add(_group_of(r))
            d["commits"] += r.type in (0, 1) and r.value is not None
    mean = sum(d["commits"] for d in per_p.values()) / len(per_p)
    coordinators = [{"offsets_partition": p, "group_count": len(d["groups"]), "records": d["records"],
                     "commits": d["commits"], "commits_per_s": round(d["commits"] / seconds, 3),
                     "bytes_per_s": round(d["bytes"] / seconds, 3), "hot": d["commits"] > 1.5 * mean}
                    for p, d in sorted(per_p.items())]
    extra = {"undecodable": sum(1 for w in win if w[2].type < 0), "records": len(win),
             "offset_records": sum(1 for w in good if w[2].type in (0, 1)),
             "events": sum(1 for w in good if w[2].type >= 2), "now": now}
    return [groups[g] for g in sorted(groups)], coordinators, extra


@pytest.fixture(scope="module")
def scenario():
    return build_scenario(groups=1000)


@pytest.fixture(scope="module")
def saved(scenario, tmp_path_factory):
    d = tmp_path_factory.mktemp("scan-input")
    write_jsonl(scenario, d / "log.jsonl")
    write_parquet(scenario, d / "log.parquet")
    return d


@pytest.fixture(scope="module")
def live(scenario, tansu):
    topic = f"scan-offsets-{uuid.uuid4().hex[:8]}"
    write_to_broker(scenario, tansu, topic)
    return tansu, topic


def _scan(spark, **kw):
    from kgroup.scan.run import ScanRequest, scan_report

    return scan_report(spark, ScanRequest(stale_after_ms=STALE_AFTER, storm=STORM, top=5, **kw))


def _live_request(bootstrap, topic, **kw):
    from kgroup.kafka.logreader import offsets_log_leaders, offsets_log_ranges
    from kgroup.kafka.settings import ConnectionSettings

    settings = ConnectionSettings.build(bootstrap, [], None, 10.0)
    leaders, brokers = offsets_log_leaders(settings, topic)
    return dict(settings=settings, topic=topic, ranges=offsets_log_ranges(settings, topic), leaders=leaders,
                brokers=brokers, **kw)


def _strip_live(rows):  # the live columns (status: tests/integration/test_scan_status.py)
    return [{k: v for k, v in r.items() if k not in ("lag", "offsets_partition_leader", "status", "status_complete",
                                                      "transaction_markers")}
            for r in rows]


def test_scenario_has_what_the_report_must_find(scenario):
    groups, coordinators, extra = expected(scenario)
    assert len(groups) > 1000 and extra["undecodable"] == 2
    assert sum(g["storm"] for g in groups) == 1 and sum(g["rewinds"] for g in groups) == 2
    assert {g["group"]: g["rewinds"] for g in groups if g["rewinds"]} == {"rewinder": 1, "rewinder-after-delete": 1}
    assert sum(bool(g["stale"]) for g in groups) >= 50 and sum(g["deleted"] for g in groups) >= 10
    assert {g["type"] for g in groups} == {"classic", "consumer", "share", "streams"}


def test_input_jsonl_and_parquet_match_the_independent_computation(spark, scenario, saved, out_scan):
    groups, coordinators, extra = expected(scenario)
    # the Parquet: scanned once for this and the --out tests (--out changes no report value)
    for rep in (_scan(spark, input=str(saved / "log.jsonl")), out_scan[0]):
        assert rep.groups == groups
        assert rep.coordinators == coordinators
        assert rep.brokers == []
        s = rep.summary
        assert (s["records"], s["undecodable"], s["group_count"]) == (extra["records"], 2, len(groups))
        assert s["group_types"] == {t: sum(g["type"] == t for g in groups)
                                    for t in ("classic", "consumer", "share", "streams")}
        assert s["group_types"]["share"] >= 1 and s["stale_count"] == sum(bool(g["stale"]) for g in groups)
        assert s["rebalance_count"] == sum(g["rebalance_count"] for g in groups)
        assert s["window"]["now_ms"] == extra["now"]
        assert [(e["partition"], e["offset"]) for e in s["errors"]] == sorted(
            (p, o) for p, recs in scenario.by_partition().items() for o, r in enumerate(recs) if r.type < 0)
        # the latest rows printed are the newest records of each table
        assert len(rep.latest_commits) == 5 and len(rep.latest_events) == 5
        assert rep.latest_commits[-1]["group"] == "storm-1" and rep.latest_commits[-1]["committed_offset"] == 600


@pytest.fixture(scope="module")
def out_scan(spark, saved, tmp_path_factory):
    """The saved Parquet scanned with --out (decoded records staged under the temporary directory,
    a local master's default): the report and the directory of the tables."""
    out = tmp_path_factory.mktemp("out") / "tables"
    return _scan(spark, input=str(saved / "log.parquet"), out=str(out)), out


@pytest.fixture(scope="module")
def staged(spark, tmp_path_factory):
    """A smaller log scanned with --out three ways, the decoded records staged (pipeline.stage) in a
    directory under the system's temporary directory (a local master's default), under --scratch,
    and nowhere (no shared directory: Spark's disk cache); the stage directories each scan used,
    and what was left in the temporary and scratch directories afterwards."""
    import tempfile

    from kgroup.scan import pipeline
    from kgroup.scan.run import ScanRequest, _scan_report

    small = build_scenario(groups=150, partitions=4, seed=3)
    root = tmp_path_factory.mktemp("staging")
    write_parquet(small, root / "log.parquet")
    temp, scratch = root / "temp", root / "scratch"  # the system's temporary directory, for these scans alone
    temp.mkdir()
    scratch.mkdir()
    used: list[str | None] = []
    stage = pipeline.stage
    saved_tempdir, tempfile.tempdir = tempfile.tempdir, str(temp)
    pipeline.stage = lambda decoded, stage_dir: used.append(stage_dir) or stage(decoded, stage_dir)
    try:
        path = str(root / "log.parquet")
        reports = {
            "temp": _scan(spark, input=path, out=str(root / "out-temp")),
            "scratch": _scan(spark, input=path, scratch=str(scratch), out=str(root / "out-scratch")),
            "cache": _scan_report(spark, ScanRequest(input=path, stale_after_ms=STALE_AFTER, storm=STORM, top=5,
                                                     out=str(root / "out-cache")), lambda *a: None, None),
        }
    finally:
        tempfile.tempdir = saved_tempdir
        pipeline.stage = stage
    return {"scenario": small, "reports": reports, "out": {k: root / f"out-{k}" for k in reports}, "used": used,
            "temp": temp, "scratch": scratch, "left": sorted(p.name for p in (*temp.iterdir(), *scratch.iterdir()))}


def test_staging_on_disk_cache_scratch_or_temp_gives_the_same_tables_and_leaves_nothing(staged):
    import pyarrow.parquet as pq

    groups, coordinators, extra = expected(staged["scenario"])
    temp_dir, scratch_dir, cache = staged["used"]
    for used, parent in ((temp_dir, staged["temp"]), (scratch_dir, staged["scratch"])):  # a directory of the scan's own
        assert Path(used).name == "folded" and Path(used).parent.parent == parent
        assert Path(used).parent.name.startswith("kgroup-scan-")
    assert cache is None
    for rep in staged["reports"].values():
        assert rep.groups == groups and rep.coordinators == coordinators
    assert staged["left"] == []  # each scan deleted its stage directory
    tables = {k: {t: pq.read_table(out / t).to_pylist() for t in ("commits", "group_events", "groups")}
              for k, out in staged["out"].items()}
    assert len(tables["temp"]["commits"]) == extra["offset_records"] and len(tables["temp"]["group_events"]) == extra["events"]
    assert tables["scratch"] == tables["temp"] and tables["cache"] == tables["temp"]


def test_live_scan_matches_input_and_adds_lag_and_coordinators(spark, scenario, saved, live, tmp_path):
    bootstrap, topic = live
    groups, coordinators, extra = expected(scenario, live_ends=scenario.produced)
    rep = _scan(spark, **_live_request(bootstrap, topic))  # records decoded in the reading tasks
    assert _strip_live(rep.groups) == _strip_live(groups)
    assert {r["group"]: r["lag"] for r in rep.groups} == {g["group"]: g["lag"] for g in groups}
    assert {r["transaction_markers"] for r in rep.groups} == {0}  # no transactional topic here
    host, port = bootstrap.rsplit(":", 1)
    leader = {"id": 111, "host": host, "port": int(port)}  # a broker as every document names one
    assert all(r["offsets_partition_leader"] == leader for r in rep.groups)
    assert _strip_live(rep.coordinators) == coordinators
    assert all(c["offsets_partition_leader"] == leader for c in rep.coordinators)
    [broker] = rep.brokers
    assert broker["id"] == 111 and broker["commits"] == sum(c["commits"] for c in coordinators)
    assert broker["partition_count"] == scenario.partitions and broker["hot"] is False
    assert broker["group_count"] == sum(c["group_count"] for c in coordinators)
    # --save: raw records read live, written as Parquet, then scanned from there: same tables;
    # and scanning that save again as --input gives them without the live columns
    saved_live = _scan(spark, **_live_request(bootstrap, topic, save=str(tmp_path / "saved")))
    assert saved_live.groups == rep.groups and saved_live.coordinators == rep.coordinators
    again = _scan(spark, input=str(tmp_path / "saved"))
    assert again.groups == _strip_live(groups) and again.coordinators == coordinators


def test_the_live_read_is_one_task_per_range_and_its_plan_never_shows_the_connection_settings(spark):
    """The read tasks' client settings (a SASL password here) travel inside the tasks' function:
    Spark's plans, which it prints (explain, -v logs, its UI), name the function only."""
    from kgroup.kafka.logreader import LogRange
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.scan.source import live_frame

    settings = ConnectionSettings.build("127.0.0.1:9", ["sasl.password=hunter2-pw", "sasl.username=alice"], None, 1.0)
    ranges = [LogRange(0, 0, 10), LogRange(1, 5, 5), LogRange(2, 0, 2_500)]
    frame = live_frame(spark, settings, "offsets", ranges, split=1_000)
    assert frame.rdd.getNumPartitions() == 1 + 3  # partition 1 is empty; 2,500 offsets in three pieces
    plans = frame._jdf.queryExecution().toString()
    assert "read(" in plans and "hunter2" not in plans and "alice" not in plans


def test_window_since_until(spark, scenario, saved):
    since, until = T0 + 2 * HOUR, T0 + 5 * HOUR
    groups, coordinators, extra = expected(scenario, since, until)
    rep = _scan(spark, input=str(saved / "log.parquet"), since_ms=since, until_ms=until)
    assert rep.groups == groups and rep.coordinators == coordinators
    assert rep.summary["records"] == extra["records"] < len(scenario.records)


def test_csv_and_table_rendering(out_scan, scenario):
    """CSV holds every group row (the table output only the top ones), with the JSON keys' values."""
    import copy
    import csv
    import io

    from kgroup.cli.scan import _tables
    from kgroup.output.render import OutputFormat, emit

    groups, _, _ = expected(scenario)
    rep = copy.deepcopy(out_scan[0])  # the saved Parquet, scanned (--out does not change the report)
    buf = io.StringIO()
    emit(OutputFormat.csv, {}, _tables(rep.groups, rep.coordinators, [], [], [], rep.summary, 5, all_groups=True,
                                       live=False), buf)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert [r["group"] for r in rows] == [g["group"] for g in groups]
    assert [int(r["commits"]) for r in rows] == [g["commits"] for g in groups]
    assert [r["storm"] == "True" for r in rows] == [g["storm"] for g in groups]
    rep.summary.update(seconds=1.0, spark_start_seconds=1.0)
    buf = io.StringIO()
    emit(OutputFormat.table, {}, _tables(rep.groups, rep.coordinators, [], rep.latest_commits, rep.latest_events,
                                         rep.summary, 5, all_groups=False, live=False), buf)
    text = buf.getvalue()
    assert text.splitlines()[3].startswith("storm-1 ")  # title, header, rule, then storms first
    for title in ("GROUPS (top 5 of", "COORDINATORS", "COMMITS (latest 5)", "GROUP EVENTS (latest 5)", "SUMMARY"):
        assert title in text


def test_a_dataset_out_of_log_order_is_folded_again_in_order(spark, scenario, tmp_path, monkeypatch):
    """Rows shuffled across files: the read tasks' segments of a key interleave, the merge
    sees it and folds again from the records sorted by log position; same tables."""
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq

    from kgroup.scan import pipeline

    groups, coordinators, _ = expected(scenario)
    rows = scenario.raw()
    random.Random(5).shuffle(rows)
    path = tmp_path / "shuffled"
    path.mkdir()
    cols = list(zip(*rows))
    table = pa.table({"partition": pa.array(cols[0], pa.int32()), "offset": pa.array(cols[1], pa.int64()),
                      "timestamp": pa.array(cols[2], pa.int64()), "key": pa.array(cols[3], pa.binary()),
                      "value": pa.array(cols[4], pa.binary())})
    quarter = len(rows) // 4
    for i in range(4):
        pq.write_table(table.slice(i * quarter, quarter if i < 3 else None), path / f"part-{i}.parquet")
    sorted_again = []
    in_log_order = pipeline.in_log_order
    monkeypatch.setattr(pipeline, "in_log_order", lambda raw: sorted_again.append(1) or in_log_order(raw))
    rep = _scan(spark, input=str(path))
    assert sorted_again == [1]
    assert rep.groups == groups and rep.coordinators == coordinators


def test_out_writes_every_offset_record_and_group_event(out_scan, scenario):
    import pyarrow.parquet as pq

    groups, _, _ = expected(scenario)
    rep, out = out_scan
    assert rep.groups == groups
    offset_records, events = [], []
    for p, recs in scenario.by_partition().items():
        for o, r in enumerate(recs):
            if r.type in (0, 1):
                offset_records.append((_group_of(r), r.key["topic"], r.key["partition"],
                                       None if r.value is None else r.value["offset"], r.value is None, p, o))
            elif r.type >= 2:
                events.append((r.timestamp, p, o, _group_of(r), r.type, r.value is None))
    commits = pq.read_table(out / "commits").to_pylist()
    assert len(commits) == len(offset_records)
    assert sorted(((c["group"], c["topic"], c["topic_partition"], c["committed_offset"], c["tombstone"],
                   c["partition"], c["offset"]) for c in commits), key=repr) == sorted(offset_records, key=repr)
    written = pq.read_table(out / "group_events").to_pylist()
    assert [(e["timestamp"], e["partition"], e["offset"], e["group"], e["type"], e["tombstone"])
            for e in written] == sorted(events)
    assert [r["group"] for r in pq.read_table(out / "groups").to_pylist()] == [g["group"] for g in groups]


def test_the_cli_document_from_a_saved_log_matches_its_schema(spark, scenario, saved):
    """`kgroup scan --input F -o json` through the whole CLI (in this process, on the test run's
    session, which kgroup uses and leaves running: the real process is integration/test_scan_faults.py):
    the document validates against docs/schemas/scan.schema.json, which refuses unknown keys at
    every level (the live document is validated in integration/test_scan_cluster.py)."""
    import json

    from conftest import run_kgroup
    from schemas import validate

    groups, coordinators, extra = expected(scenario)
    res = run_kgroup("scan", "--input", str(saved / "log.parquet"), "--stale-after", "1h", "--storm", str(STORM),
                     "-o", "json")
    assert res.returncode == 1, res.stderr  # the scenario's two undecodable records are flagged
    doc = json.loads(res.stdout)
    validate("scan", doc)
    assert doc["groups"] == groups and doc["coordinators"] == coordinators and doc["brokers"] == []
    summary = doc["summary"]
    assert summary["undecodable"] == extra["undecodable"] == 2
    # each undecodable record with the record type its key begins with (0x0063, 0x0001)
    bad_records = sorted((p, o, int.from_bytes(r.raw_key[:2], "big", signed=True))
                         for p, recs in scenario.by_partition().items() for o, r in enumerate(recs) if r.type < 0)
    assert [(e["partition"], e["offset"], e["record_type"]) for e in summary["errors"]] == bad_records
    assert [t for _, _, t in bad_records] == [99, 1]
    assert summary["hot_brokers"] == [] and summary["master"] == "local[2]"  # the session's, not the default
    assert spark.range(3).count() == 3  # kgroup did not stop a session it did not make, nor its JVM
    for extra_key in ("doc", "summary", "window"):  # an unknown key anywhere is refused
        bad = json.loads(res.stdout)
        {"doc": bad, "summary": bad["summary"], "window": bad["summary"]["window"]}[extra_key]["surprise"] = 1
        with pytest.raises(Exception, match="surprise"):
            validate("scan", bad)


def test_offset_expiry_per_group_from_a_saved_log(spark, tmp_path):
    """Groups whose committed offsets Kafka deletes soon, from a JSON Lines log written with
    tests/logbuilder.py; Kafka's default retention (7 days: no broker to ask); each moment by hand."""
    import base64
    import json

    from logbuilder import Log, kip848_epoch, kip848_member

    week = 7 * DAY
    log = Log(partitions=4)
    one = {"id": "c1", "topics": ["A"], "assignment": {"A": [0]}}
    log.generation("emptied", 1, T0, [one])
    log.commit("emptied", "A", 0, 1, T0 + 1_000)
    log.generation("emptied", 2, T0 + 2_000, [])            # Empty since T0 + 2 s
    log.generation("stable", 1, T0, [one])
    log.commit("stable", "A", 0, 1, T0 + 3_000)             # consumed: never while Stable
    kip848_member(log, "k848", T0, "m1", ["A"])
    kip848_epoch(log, "k848", T0, 1, {"m1": {"AAAAAAAAAAAAAAAAAAAAAQ": [0]}})
    log.commit("k848", "A", 0, 1, T0 + DAY)
    log.add("k848", T0 + DAY + 1, 5, {"groupId": "k848", "memberId": "m1"}, None, None)  # Empty
    log.add("k848", T0 + DAY + 1, 3, {"groupId": "k848"}, 0, {"epoch": 2})
    log.commit("alone", "B", 0, 9, T0 + 6 * DAY + 12 * HOUR)   # the newest record: now
    path = tmp_path / "expiry.jsonl"
    path.write_text("".join(json.dumps({
        "partition": r.partition, "offset": r.offset, "timestamp": r.timestamp,
        "key": base64.b64encode(r.key).decode(), "value": None if r.value is None else base64.b64encode(r.value).decode(),
    }) + "\n" for r in sorted(log.records, key=lambda r: (r.partition, r.offset))))
    rep = _scan(spark, input=str(path))
    got = {g["group"]: (g["expires_ms"], g["expiring"]) for g in rep.groups}
    now = T0 + 6 * DAY + 12 * HOUR
    assert rep.summary["window"]["now_ms"] == now
    assert got == {
        "emptied": (T0 + 2_000 + week, True),             # T0 + 7 d + 2 s <= now + 24 h (T0 + 7.5 d)
        "stable": (None, False),
        "k848": (T0 + DAY + week, False),                 # T0 + 8 d, after T0 + 7.5 d
        "alone": (now + week, False),                     # a standalone consumer: its last commit
    }
    assert rep.summary["expiring_count"] == 1 and rep.summary["retention_ms"] == week
    assert rep.summary["retention_source"].startswith("Kafka's default")
    # --until moves now back two days: T0 + 4.5 d + 24 h is before T0 + 7 d; nothing is expiring
    early = _scan(spark, input=str(path), until_ms=now - 2 * DAY)
    assert {g["group"]: g["expiring"] for g in early.groups} == {"emptied": False, "stable": False, "k848": False}
    assert early.summary["expiring_count"] == 0
    # --out of a fleet none of whose offsets expire: the groups table has a null expires_ms column
    import pyarrow.parquet as pq

    only_stable = tmp_path / "stable.jsonl"
    only_stable.write_text("".join(line + "\n" for line in path.read_text().splitlines()
                                   if b"stable" in base64.b64decode(json.loads(line)["key"])))
    out = _scan(spark, input=str(only_stable), out=str(tmp_path / "out"))
    assert [(g["group"], g["expires_ms"]) for g in out.groups] == [("stable", None)]
    table = pq.read_table(tmp_path / "out" / "groups")
    assert table.column("expires_ms").to_pylist() == [None] and str(table.schema.field("expires_ms").type) == "int64"
