"""kgroup scan --html: the fleet page in headless Chromium with the network off (tests/browser.py):
no console error, nothing requested but the file, no script of the log's strings run; its charts
drawn with a bar per status, offsets-log partition and group; the figures drawn equal those of
the document ``-o json`` writes in the same run; a group whose id is HTML shown as text; a
screenshot written (its path is printed)."""
from __future__ import annotations

import json

import pytest
from browser import assert_reads_at, open_page
from conftest import run_kgroup
from logbuilder import Log
from spark_env import spark  # noqa: F401

pytestmark = [pytest.mark.spark]
pytest.importorskip("plotly", reason="the page needs kgroup's report extra")
pytest.importorskip("pyspark")

HOSTILE = "<script>alert(1)</script>"
HOUR = 3_600_000
T0 = 1_790_000_000_000
CHARTS = """
return Object.fromEntries(Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => [gd.id, {
  bars: Array.from(gd.querySelectorAll('.barlayer .trace path')).filter(
      p => (p.getAttribute('d') || '') !== '' && p.getBoundingClientRect().height > 0).length,
  x: gd.data[0].x, y: gd.data[0].y}]));
"""


def fleet_log(path):
    """Four groups: a storm (12 generations within an hour), a stale one (its last commit 5 h
    before the newest record), a busy one, and one whose id is HTML."""
    log = Log(partitions=4)
    member = [{"id": "m1", "topics": ["T"], "assignment": {"T": [0]}}]
    for g in range(1, 13):
        log.generation("storm", g, T0 + g * 60_000, member)
    log.commit("stale", "T", 0, 5, T0)
    for k in range(60):
        log.commit("busy", "T", k % 3, 100 + k, T0 + k * 5 * 60_000)
    for k in range(6):
        log.commit(HOSTILE, "T", 0, k, T0 + 4 * HOUR + k * 60_000)
    log.commit("busy", "T", 0, 1000, T0 + 5 * HOUR)
    from kgroup.offsets_log.raw import write_jsonl

    with open(path, "w", encoding="utf-8") as f:
        write_jsonl(sorted(log.records, key=lambda r: (r.partition, r.offset)), f)
    return path


def test_the_fleet_page_in_chromium(spark, tmp_path):
    """One run (the whole CLI in this process, on the test run's session) writes the page and
    prints the JSON document: the page must hold that document and draw its figures."""
    log = fleet_log(tmp_path / "fleet.jsonl")
    page_file = tmp_path / "fleet.html"
    res = run_kgroup("scan", "--input", str(log), "--stale-after", "1h", "--storm", "10", "-o", "json",
                     "--html", str(page_file))
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert f"kgroup: wrote the fleet page to {page_file}" in res.stderr
    groups = {g["group"]: g for g in doc["groups"]}
    assert set(groups) == {"storm", "stale", "busy", HOSTILE}
    assert (groups["storm"]["storm"], groups["stale"]["stale"]) == (True, True)
    shot = tmp_path / "fleet.png"
    with open_page(page_file, shot) as page:
        print(f"screenshot of the fleet page: {shot}")
        assert page.errors == [] and page.alerts == []
        assert page.requested == [page_file.resolve().as_uri()]
        embedded = page.js("return JSON.parse(document.getElementById('kgroup-scan-data').textContent)")
        assert embedded["summary"] == doc["summary"]  # one run: the timings too
        assert (embedded["groups"], embedded["coordinators"], embedded["brokers"]) == (
            doc["groups"], doc["coordinators"], doc["brokers"])
        charts = page.js(CHARTS)
        # the groups needing a look, by flag, from scan -o json: horizontal bars (the counts on x), a
        # bar for each flag some group has, none for the groups with nothing flagged (said in the title)
        status = charts["kgroup-fleet-status"]
        assert dict(zip(status["y"], status["x"])) == {"storm": 1, "stale": 1}
        assert status["bars"] == 2
        assert page.js("return document.getElementById('kgroup-fleet-status-title').textContent") == \
            "Groups needing a look: 2 of 4 (2 with nothing flagged, not drawn)"
        # each bar says its count, the one-group bars too
        assert sorted(page.js("return Array.from(document.querySelectorAll('#kgroup-fleet-status .bartext'))"
                              ".map(t => t.textContent)")) == ["1", "1"]
        coordinators = charts["kgroup-fleet-coordinators"]
        assert dict(zip(coordinators["x"], coordinators["y"])) == {
            str(c["offsets_partition"]): c["commits"] for c in doc["coordinators"]}
        commits = charts["kgroup-fleet-commits"]
        assert [(x.replace("&lt;", "<").replace("&gt;", ">"), y) for x, y in zip(commits["x"], commits["y"])] == \
            sorted(((g["group"], g["commits_per_hour"]) for g in doc["groups"]), key=lambda t: (-t[1], t[0]))
        assert commits["bars"] == sum(1 for g in doc["groups"] if g["commits_per_hour"] > 0) == 3
        # the group id that is HTML: text in the tables and on the chart's axis
        cells = page.js("return Array.from(document.querySelectorAll('#kgroup-fleet-table-0 td')).map(c => c.textContent)")
        assert HOSTILE in cells
        ticks = page.js("return Array.from(document.querySelectorAll('#kgroup-fleet-commits .xtick text'))"
                        ".map(t => t.textContent)")
        assert HOSTILE in ticks
        assert page.js("return typeof Plotly.newPlot") == "function"
        # on a phone and a wide screen: no sideways scroll, no legend over a plot, no title cut
        for width in (390, 1440):
            assert_reads_at(page, width, tmp_path / f"fleet-{width}.png")
            print(f"screenshot of the fleet page at {width} px: {tmp_path / f'fleet-{width}.png'}")
    assert shot.stat().st_size > 10_000
    assert page_file.stat().st_size < 1_500_000  # plotly.js's basic bundle: the full one is 4.8 MB
