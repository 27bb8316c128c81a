"""kgroup report run in process against an in-memory cluster (tests/reportcase.py, worked by hand
there): its document is lag's, history's, describe's and offsets' documents unchanged plus the
total lag and commits per member; what it needs (a cluster for the lag, plotly for the page);
escaping. The page in a real browser: tests/integration/test_report_browser.py."""
from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import ROOT
from reportcase import (COMMIT_TIMES, EMPTIED, EMPTIED_EXPIRES_MS, EMPTIED_WINDOW, HOSTILE, M2, ONE_MINUTE, SINCE_MS,
                        T0_LAGS, T1_LAGS, TOTAL_LAGS, UNTIL_MS, WINDOW, build_log, emptied_log, run, use_fake_cluster,
                        write_log)
from schemas import validate


@pytest.fixture
def files(tmp_path, monkeypatch):
    use_fake_cluster(monkeypatch)
    log = write_log(tmp_path / "log.jsonl", build_log())
    seed = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    seed["group"]["group_id"] = HOSTILE
    snapshot = tmp_path / "now.json"
    snapshot.write_text(json.dumps(seed))
    return log, snapshot


def test_the_document_is_the_other_commands_documents(files):
    log, snapshot = files
    code, out, err = run("report", HOSTILE, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                         "-o", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    validate("report", doc)
    assert (doc["group"], doc["since_ms"], doc["until_ms"]) == (HOSTILE, SINCE_MS, UNTIL_MS)
    # the lag part is lag -o json for the same input and window, but for lag's owners now and
    # never-committed partitions (the report's are in its group now)
    code, lag_out, _ = run("lag", HOSTILE, "--input", str(log), *WINDOW, "-o", "json")
    assert code == 0
    lag_doc = json.loads(lag_out)
    assert (lag_doc.pop("owners_unknown"), lag_doc.pop("never_committed")) == ("not described here", [])
    assert all(p.pop("owner") is None for p in lag_doc["partitions"])
    assert doc["lag"] == lag_doc
    validate("lag", doc["lag"])
    t0, t1 = doc["lag"]["partitions"]
    assert [p["lag"] for p in t0["points"]] == T0_LAGS and [p["lag"] for p in t1["points"]] == T1_LAGS
    assert (t0["status"], t1["status"], doc["lag"]["status"]) == ("OK", "WARN", "WARN")
    assert doc["total_lag"] == [{"time_ms": t, "lag": v} for t, v in zip(COMMIT_TIMES, TOTAL_LAGS)]
    # the history part is history -o json (every rebalance of the log is in the window)
    code, history_out, _ = run("history", HOSTILE, "--input", str(log), "-o", "json")
    assert code == 0
    assert doc["history"] == json.loads(history_out)
    validate("history", doc["history"])
    assert [(r["generation"], r["left"], len(r["moved"])) for r in doc["history"]["rebalances"]] == [
        (1, [], 2), (2, [M2], 1)]
    # the group now is describe's and offsets' document of the snapshot
    for command, key in (("describe", "describe"), ("offsets", "offsets")):
        code, now_out, _ = run(command, "--snapshot", str(snapshot), "-o", "json")
        assert doc["now"][key] == json.loads(now_out)["groups"][0]
    validate("describe", {"groups": [doc["now"]["describe"]]})
    # commits per member owning the partition at the commit's moment, 1 s buckets over the commits
    # (10 s to 40 s: 31 buckets from 10 s)
    rate = doc["commit_rate"]
    assert (rate["start_ms"], rate["bucket_ms"], rate["buckets"]) == (10_000, 1_000, 31)
    c1, m2 = rate["series"]
    assert (c1["member"], c1["commits"], m2["member"], m2["commits"]) == ("c1", 6, M2, 2)
    assert {i: n for i, n in enumerate(c1["counts"]) if n} == {0: 1, 10: 1, 20: 2, 30: 2}
    assert {i: n for i, n in enumerate(m2["counts"]) if n} == {0: 1, 10: 1}
    assert doc["source"] == {"cluster": "x:1", "input": str(log), "snapshot": str(snapshot), "offsets_topic": None,
                             "now": "snapshot"}
    assert (doc["offsets_partition"], doc["warnings"], doc["incomplete"]) == (
        build_log().records[0].partition, [], False)
    # the coordinator (broker 1) reports no retention: Kafka's default; the group is Stable and consumes T
    consumed = "not while the group consumes it"
    assert doc["expiry"] == {"retention_ms": 604_800_000, "check_interval_ms": 600_000, "first_expires_ms": None,
                             "retention_source": "Kafka's default (broker 1 does not report offsets.retention.minutes)",
                             "partitions": [{"topic": "T", "partition": 0, "expires_ms": None, "expiry": consumed},
                                            {"topic": "T", "partition": 1, "expires_ms": None, "expiry": consumed}]}


def test_the_page_embeds_the_document_and_escapes_every_string(files, tmp_path):
    log, snapshot = files
    page = tmp_path / "incident.html"
    code, out, err = run("report", HOSTILE, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                         "--out", str(page), "-o", "json")
    assert code == 0, err
    assert err == f"kgroup: wrote the report of {HOSTILE} to {page} ({page.stat().st_size // 1024} KiB)\n"
    text = page.read_text()
    embedded = re.search(r'<script type="application/json" id="kgroup-report-data">(.*?)</script>', text, re.S)
    assert json.loads(embedded.group(1)) == json.loads(out)
    # the ids appear only escaped: as HTML text, as JSON with < and > escaped, as plotly text
    assert HOSTILE not in text and M2 not in text and "<b>app</b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    # nothing is loaded from anywhere: no tag outside the scripts has a src or href, no style a url(
    outside = re.sub(r"<script[^>]*>.*?</script>", "", text, flags=re.S)
    tags = re.findall(r"<[a-zA-Z][^>]*>", outside)
    assert [t for t in tags if re.search(r"\b(src|href)\s*=", t)] == []
    assert not re.search(r"url\(|@import", "".join(re.findall(r"<style>(.*?)</style>", outside, re.S)))


def test_without_a_cluster_the_lag_is_said_to_need_one(files):
    log, snapshot = files
    code, out, err = run("report", HOSTILE, "--input", str(log), *WINDOW, "-o", "json")
    assert code == 0
    doc = json.loads(out)
    validate("report", doc)
    message = "the lag needs a cluster: the log ends at past moments are asked of it (give -b with --input)"
    assert (doc["lag"], doc["lag_unavailable"], doc["total_lag"], doc["now"]) == (None, message, [], None)
    assert err == f"kgroup: warning: no lag: {message}\n"
    assert doc["warnings"] == [f"no lag: {message}"]
    assert len(doc["history"]["rebalances"]) == 2 and doc["commit_rate"]["series"][0]["commits"] == 6
    expiry = doc["expiry"]
    assert (expiry["retention_ms"], expiry["retention_source"], expiry["first_expires_ms"]) == (
        604_800_000, "Kafka's default (no cluster named)", None)


def test_the_moment_the_offsets_expire_is_marked_on_the_lag_charts_time_axis(tmp_path, monkeypatch):
    """Group EMPTIED of tests/reportcase.py: Empty from 20 s, the coordinator keeps offsets a
    minute: T-0's expires at 80 s, inside the window (0 to 100 s)."""
    use_fake_cluster(monkeypatch).configs = ONE_MINUTE
    log = write_log(tmp_path / "log.jsonl", emptied_log())
    seed = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    seed["group"]["group_id"] = EMPTIED  # the group now names its coordinator: broker 1
    snapshot = tmp_path / "now.json"
    snapshot.write_text(json.dumps(seed))
    page = tmp_path / "emptied.html"
    code, out, err = run("report", EMPTIED, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot),
                         *EMPTIED_WINDOW, "--out", str(page), "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    validate("report", doc)
    assert (doc["since_ms"], doc["until_ms"]) == (0, 100_000)
    # 60,000 ms after the group became Empty (20 s): 80,000
    assert doc["expiry"] == {"retention_ms": 60_000, "check_interval_ms": 600_000, "retention_source": "broker 1",
                             "first_expires_ms": 80_000,
                             "partitions": [{"topic": "T", "partition": 0, "expires_ms": EMPTIED_EXPIRES_MS,
                                             "expiry": "offsets.retention.minutes (1 min) after the group "
                                                       "became Empty (1970-01-01T00:00:20.000Z)"}]}
    from kgroup.report.page import EXPIRY_LABEL, figure

    fig = figure(doc)
    (line,) = [s for s in fig.layout.shapes if s.name == EXPIRY_LABEL]
    assert (line.x0, line.x1, line.xref, line.yref, line.y0, line.y1) == (
        "1970-01-01 00:01:20.000", "1970-01-01 00:01:20.000", "x", "y domain", 0, 1)
    (label,) = [a for a in fig.layout.annotations if a.text == EXPIRY_LABEL]
    assert (label.x, label.xref) == ("1970-01-01 00:01:20.000", "x")
    text = page.read_text()
    assert "committed offsets expire at 1970-01-01T00:01:20.000Z: T-0 first" in text
    assert '"name":"offsets expire"' in text.replace(": ", ":")
    # the window 0 to 40 s ends before 80 s: no line; the facts say when
    code, out, _ = run("report", EMPTIED, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                       "-o", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["expiry"]["first_expires_ms"] == 80_000
    assert not [s for s in figure(doc).layout.shapes if s.name == EXPIRY_LABEL]


def test_the_page_says_when_the_offsets_of_a_consuming_group_expire(files, tmp_path):
    from kgroup.report.page import EXPIRY_LABEL, figure

    log, snapshot = files
    page = tmp_path / "incident.html"
    code, out, err = run("report", HOSTILE, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                         "--out", str(page), "-o", "json")
    assert code == 0, err
    assert "<dt>offset expiry</dt><dd>not while the group consumes them</dd>" in page.read_text()
    assert ("<dt>total lag at --until</dt><dd>32 at 1970-01-01T00:00:40.000Z (the window&#x27;s end)</dd>"
            in page.read_text())
    assert ("<dt>offset retention</dt><dd>offsets.retention.minutes 10080 (7 d), Kafka&#x27;s default (broker 1 "
            "does not report offsets.retention.minutes)</dd>") in page.read_text()
    assert not [s for s in figure(json.loads(out)).layout.shapes if s.name == EXPIRY_LABEL]


def test_the_page_needs_the_report_extra(files, tmp_path, monkeypatch):
    log, _ = files
    monkeypatch.setitem(sys.modules, "plotly", None)  # as if not installed
    code, out, err = run("report", HOSTILE, "--input", str(log), "--out", str(tmp_path / "x.html"))
    assert (code, out) == (2, "")
    assert err == "kgroup: error: the HTML page needs plotly: pip install 'kgroup[report]'\n"
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("args, message", [
    (["--out", "/nonexistent-dir/x.html"], "cannot write --out /nonexistent-dir/x.html: no such directory"),
    (["--until", "9999999999999", "-o", "json"], "--until is in the future"),
])
def test_usage_errors(files, args, message):
    log, _ = files
    code, out, err = run("report", HOSTILE, "--input", str(log), *args)
    assert (code, out, err) == (2, "", f"kgroup: error: {message}\n")


def test_without_out_the_summary_only(files):
    log, snapshot = files
    code, out, err = run("report", HOSTILE, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                         "-o", "csv")
    assert (code, err) == (0, "")
    assert out.splitlines() == ["group,status,total_lag,partitions,rebalances,commits,members_now,page",
                                f"{HOSTILE},WARN,32,2,2,8,3,"]


def test_a_group_without_records(files):
    log, _ = files
    assert run("report", "other", "--input", str(log), "-o", "json") == (
        2, "", "kgroup: error: the offsets log holds no record of group other at or before --until\n")


def test_the_fleet_page_needs_the_report_extra_before_spark_starts(files, tmp_path, monkeypatch):
    log, _ = files
    monkeypatch.setitem(sys.modules, "plotly", None)  # as if not installed
    monkeypatch.setattr("kgroup.scan.require_pyspark", lambda: pytest.fail("Spark was reached"))
    code, out, err = run("scan", "--input", str(log), "--html", str(tmp_path / "fleet.html"))
    assert (code, out) == (2, "")
    assert err == "kgroup: error: the HTML page needs plotly: pip install 'kgroup[report]'\n"


def test_the_page_needs_plotlyjs_basic_bundle(files, tmp_path, monkeypatch):
    """The page inlines plotly.js's basic bundle (scripts/setup.sh fetches it): missing, one line
    saying how to get it, before any work; a file of another version is refused too."""
    from plotly.offline import get_plotlyjs_version

    log, _ = files
    version = get_plotlyjs_version()
    monkeypatch.setenv("KGROUP_PLOTLYJS", str(tmp_path / "none.js"))
    code, out, err = run("report", HOSTILE, "--input", str(log), "--out", str(tmp_path / "x.html"))
    assert (code, out) == (2, "")
    assert err == (f"kgroup: error: the HTML page needs plotly.js's basic bundle {version} (KGROUP_PLOTLYJS="
                   f"{tmp_path / 'none.js'} is missing): run scripts/setup.sh, or set KGROUP_PLOTLYJS to npm's "
                   f"plotly.js-basic-dist-min@{version} plotly-basic.min.js\n")
    other = tmp_path / "other.js"
    other.write_text("/** plotly.js (basic - minified) v0.0.1 */")
    monkeypatch.setenv("KGROUP_PLOTLYJS", str(other))
    code, _, err = run("report", HOSTILE, "--input", str(log), "--out", str(tmp_path / "x.html"))
    assert code == 2 and err.startswith(f"kgroup: error: {other} is not plotly.js's basic bundle {version}")
    assert not (tmp_path / "x.html").exists()


def test_without_the_basic_bundle_the_page_carries_plotlys_full_one_said_once(files, tmp_path, monkeypatch):
    """kgroup installed without this checkout's set-up (no .cache/ bundle, no KGROUP_PLOTLYJS): the
    page still works, with the full plotly.js of plotly's Python package, and one line says so."""
    from plotly.offline import get_plotlyjs, get_plotlyjs_version

    log, _ = files
    monkeypatch.delenv("KGROUP_PLOTLYJS", raising=False)
    monkeypatch.setattr("kgroup.report.CACHE", tmp_path / "no-cache")
    page = tmp_path / "x.html"
    code, _, err = run("report", HOSTILE, "--input", str(log), "--out", str(page))
    assert code == 0
    note = [line for line in err.splitlines() if "full bundle" in line]
    assert note == [f"kgroup: the page inlines plotly.js's full bundle (4.8 MB) of plotly's Python package: the "
                    f"basic one (1.2 MB) is not in {tmp_path / 'no-cache' / f'plotly-basic-{get_plotlyjs_version()}.min.js'}"
                    " (scripts/setup.sh fetches it)"]
    text = page.read_text(encoding="utf-8")
    full = get_plotlyjs()
    assert full[:200] in text and text.count(full[:200]) == 1 and page.stat().st_size > len(full)
