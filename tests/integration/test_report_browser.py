"""The report page in a real browser: headless Chromium (tests/browser.py) opens the file with the
network off. No console error, nothing requested but the file, no script of the cluster's strings
run; the chart drawn with the series and markers expected; the figures drawn and the tables equal
those of ``lag -o json`` and ``history -o json`` for the same input; the group id, which is HTML,
shown as text. A screenshot is written for a person to look at (its path is printed).

The group and its figures are worked by hand in tests/reportcase.py."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from browser import assert_reads_at, open_page
from conftest import ROOT
from reportcase import (EMPTIED, EMPTIED_EXPIRES_MS, EMPTIED_WINDOW, HOSTILE, M2, ONE_MINUTE, WINDOW, build_log,
                        emptied_log, run, use_fake_cluster, write_log)

pytest.importorskip("plotly", reason="the page needs kgroup's report extra")

CHART = """
const gd = document.getElementById('kgroup-report-chart');
const traces = (layer) => Array.from(gd.querySelectorAll('.' + layer + ' .trace'));
return {
  scatter: traces('scatterlayer').map(t => t.querySelectorAll('path.point').length),
  bars: traces('barlayer').map(t => Array.from(t.querySelectorAll('path')).filter(
      p => (p.getAttribute('d') || '').length > 0 && p.getBoundingClientRect().height > 0).length),
  data: gd.data.map(d => ({name: d.name, x: d.x, y: d.y, base: d.base || null})),
  legend: Array.from(gd.querySelectorAll('.legendtext')).map(t => t.textContent),
  annotations: Array.from(gd.querySelectorAll('.annotation-text')).map(t => t.textContent),
  shapes: (gd.layout.shapes || []).map(s => ({name: s.name, x0: s.x0, yref: s.yref})),
  groups: gd.data.map(d => [d.name, d.legendgroup]),
  colours: gd.data.filter(d => d.meta === 'partition').map(d => d.line.color),
  xtitle: (gd.layout.xaxis3.title || {}).text, ytitles: [1, 2, 3].map(
      i => (gd.layout['yaxis' + (i > 1 ? i : '')].title || {}).text),
  hover: gd.layout.xaxis.hoverformat, range: gd.layout.xaxis.range,
};
"""
CELLS = "return Array.from(document.querySelectorAll(arguments[0] + ' tbody tr')).map(r => Array.from(r.cells).map(c => c.textContent));"


def ms(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp() * 1000)


def test_the_report_page_in_chromium(tmp_path, monkeypatch):
    use_fake_cluster(monkeypatch)
    log = write_log(tmp_path / "log.jsonl", build_log())
    seed = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    seed["group"]["group_id"] = HOSTILE
    snapshot = tmp_path / "now.json"
    snapshot.write_text(json.dumps(seed))
    page_file = tmp_path / "incident.html"
    code, out, err = run("report", HOSTILE, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                         "--out", str(page_file), "-o", "json")
    assert code == 0, err
    lag = json.loads(run("lag", HOSTILE, "--input", str(log), *WINDOW, "-o", "json")[1])
    history = json.loads(run("history", HOSTILE, "--input", str(log), "-o", "json")[1])
    shot = tmp_path / "report.png"
    with open_page(page_file, shot) as page:
        print(f"screenshot of the report page: {shot}")
        assert page.errors == [] and page.alerts == []
        assert page.requested == [page_file.resolve().as_uri()]
        chart = page.js(CHART)
        by_name = {d["name"]: d for d in chart["data"]}
        # drawn: the total (a line), T-1 (a marker per commit), T-0 at lag 0 throughout folded into
        # one entry (a line, no marker), the rebalances (one marker each), and one bar series per
        # member (a bar per bucket with commits)
        assert chart["scatter"] == [0, 4, 0, 2]
        assert chart["bars"] == [4, 2]
        # the lines grouped by the member owning the partition (T-1: c1 since generation 2), the
        # commits by member; group titles are legend text too
        assert chart["legend"] == ["total", "owner c1", "T-1", "lag 0 throughout (1 partition)", "rebalance",
                                   "commits by member", "c1", M2]
        assert ["T-1", "owner c1"] in chart["groups"]
        # the rebalances on the lag chart: a dotted line each, labelled who left (−) and joined (+)
        assert [s["x0"] for s in chart["shapes"] if s["name"] == "rebalance"] == [
            "1970-01-01 00:00:05.000", "1970-01-01 00:00:25.000"]
        assert {s["yref"] for s in chart["shapes"] if s["name"] == "rebalance"} == {"y domain"}
        cut = M2[:23] + "\u2026"  # a long member id is cut in a label
        assert f"gen 1: +{cut} +c1" in chart["annotations"] and f"gen 2: \u2212{cut}" in chart["annotations"]
        # labels: UTC on the time axis and in hover, every y axis titled, the commits' bucket width
        assert chart["xtitle"] == "time (UTC)" and chart["hover"].endswith(" UTC")
        assert chart["ytitles"] == ["lag (messages)", "members", "commits per 1.0s"]
        assert "Commits per member, per 1.0s bucket" in chart["annotations"]
        # the time axis spans the activity (rebalance at 5 s to the end of the last commit's bucket,
        # 41 s), a twentieth of it (1.8 s) before, within the window (0 to 40 s) and that bucket
        assert [ms(x) for x in chart["range"]] == [3_200, 41_000]
        # the figures drawn are lag's and history's
        for p in lag["partitions"][1:]:
            drawn = by_name[f"{p['topic']}-{p['partition']}"]
            assert [ms(x) for x in drawn["x"]] == [pt["time_ms"] for pt in p["points"]]
            assert drawn["y"] == [pt["lag"] for pt in p["points"]]
        total = by_name["total"]
        assert total["y"] == [8, 16, 24, 32]  # tests/reportcase.py
        assert [ms(x) for x in by_name["rebalance"]["x"]] == [r["timestamp"] for r in history["rebalances"]]
        assert by_name["rebalance"]["y"] == [len(r["members"]) for r in history["rebalances"]]
        assert by_name["lag 0 throughout (1 partition)"]["y"] == [0, 0]  # T-0
        c1 = by_name["c1"]
        assert {ms(x): y for x, y in zip(c1["x"], c1["y"]) if y} == {10_500: 1, 20_500: 1, 30_500: 2, 40_500: 2}
        # the tables: status per partition as lag, the rebalances as history
        status = page.js(CELLS, "#kgroup-status")
        assert [(r[0], int(r[1]), r[2], int(r[4]), int(r[5]), int(r[6])) for r in status] == [
            (p["topic"], p["partition"], p["status"], p["lag"], p["committed"], p["end"]) for p in lag["partitions"]]
        rebalances = page.js(CELLS, "#kgroup-rebalances")
        assert [(int(r[2]), int(r[5]), r[7]) for r in rebalances] == [
            (r["generation"], len(r["members"]), ", ".join(r["left"]) or "-") for r in history["rebalances"]]
        # the page's data are -o json's
        assert page.js("return JSON.parse(document.getElementById('kgroup-report-data').textContent)") == \
            json.loads(out)
        # HTML from the cluster is text
        assert page.js("return document.querySelector('h1').textContent") == f"kgroup report: group {HOSTILE}"
        assert page.js("return document.title") == f"kgroup report: {HOSTILE}"
        assert page.js("return document.querySelectorAll('img').length") == 0
        assert M2 in page.js("return document.body.innerText")
        text = page.js("return document.body.innerText")
        assert "total lag at --until\n32 at 1970-01-01T00:00:40.000Z (the window's end)" in text
        # one page, plotly.js's basic bundle inlined once: a fifth of the full bundle's 4.8 MB
        assert page.js("return typeof Plotly.newPlot") == "function"
        assert page.js("return Plotly.version") == plotly_js_version()
    assert shot.stat().st_size > 10_000
    size = page_file.stat().st_size
    assert 1_000_000 < size < 1_500_000, size
    assert page_file.read_text().count("plotly.js (basic - minified)") == 1


def plotly_js_version() -> str:
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


@pytest.mark.parametrize("width", [390, 1440])
def test_the_report_page_reads_on_a_phone_and_a_wide_screen(tmp_path, monkeypatch, width):
    """At 390 px (a phone) and 1440 px: the page never scrolls sideways (its tables scroll in their
    own box), the legend covers no plot and no axis title, every chart title and label is inside
    the window. A screenshot for a person to look at (its path is printed)."""
    use_fake_cluster(monkeypatch)
    log = write_log(tmp_path / "log.jsonl", build_log())
    seed = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    seed["group"]["group_id"] = HOSTILE
    snapshot = tmp_path / "now.json"
    snapshot.write_text(json.dumps(seed))
    page_file = tmp_path / "incident.html"
    code, _, err = run("report", HOSTILE, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot), *WINDOW,
                       "--out", str(page_file))
    assert code == 0, err
    shot = tmp_path / f"report-{width}.png"
    with open_page(page_file) as page:
        facts = assert_reads_at(page, width, shot)
        print(f"screenshot of the report page at {width} px: {shot}")
        (chart,) = facts["charts"]
        assert len(chart["plots"]) == 3 and len(chart["legend"]) == 1
        # the legend below the charts, not beside them: the plots take the chart's width
        assert chart["legend"][0][1] > max(p[3] for p in chart["plots"])
        assert min(p[2] - p[0] for p in chart["plots"]) > 0.7 * (chart["chart"][2] - chart["chart"][0])


def test_a_page_without_lag_says_why_in_the_lag_charts_place(tmp_path):
    """No cluster: no lag series; the lag chart says why instead of drawing an empty 0-1 axis, and
    the time axis spans the three minutes of activity, not the day's window."""
    page_file = tmp_path / "g1.html"
    code, _, err = run("report", "G1", "--input", str(ROOT / "examples" / "offsets-log-g1.jsonl"),
                       "--since", "2025-11-22T00:00Z", "--until", "2025-11-23T00:00Z", "--out", str(page_file))
    assert code == 0, err
    with open_page(page_file) as page:
        assert page.errors == []
        chart = page.js(CHART)
        # in lines of at most 40 characters (plotly draws each line as its own text: joined without a space)
        assert [a for a in chart["annotations"] if a.startswith("no lag: ")] == [
            "no lag: the lag needs a cluster: the logends at past moments are asked of it(give -b with --input)"]
        # the empty lag axis is not drawn (no 0-1 ticks); the other rows keep theirs
        assert page.js("const l = document.getElementById('kgroup-report-chart').layout; "
                       "return [l.yaxis.showticklabels, l.yaxis2.showticklabels !== false, l.yaxis3.showticklabels !== false]") == [
            False, True, True]
        lo, hi = (ms(x) for x in chart["range"])
        assert hi - lo < 10 * 60_000  # the G1 log's activity: about 3 minutes
        text = page.js("return document.body.innerText")
        assert ("Not shown: it is read from a cluster (-b) or a snapshot file (--snapshot), and neither was given."
                in text)
        assert "Partitions of the subscribed topics never committed: not known" in text
        assert_reads_at(page, 390)


EXPIRY = """
const gd = document.getElementById('kgroup-report-chart');
return {
  shapes: (gd.layout.shapes || []).map(s => ({name: s.name, x0: s.x0, x1: s.x1, yref: s.yref})),
  drawn: Array.from(gd.querySelectorAll('.shapelayer path')).length,
  labels: Array.from(gd.querySelectorAll('.annotation-text')).map(t => t.textContent),
};
"""


def test_the_moment_the_offsets_expire_is_a_line_on_the_lag_chart(tmp_path, monkeypatch):
    """Group EMPTIED of tests/reportcase.py: its offset expires at 80 s, inside the window 0 to 100 s."""
    use_fake_cluster(monkeypatch).configs = ONE_MINUTE
    log = write_log(tmp_path / "log.jsonl", emptied_log())
    seed = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
    seed["group"]["group_id"] = EMPTIED
    snapshot = tmp_path / "now.json"
    snapshot.write_text(json.dumps(seed))
    page_file = tmp_path / "emptied.html"
    code, _, err = run("report", EMPTIED, "-b", "x:1", "--input", str(log), "--snapshot", str(snapshot),
                       *EMPTIED_WINDOW, "--out", str(page_file))
    assert code == 0, err
    with open_page(page_file, tmp_path / "emptied.png") as page:
        assert page.errors == [] and page.requested == [page_file.resolve().as_uri()]
        drawn = page.js(EXPIRY)
        (line,) = [s for s in drawn["shapes"] if s["name"] == "offsets expire"]
        assert ms(line["x0"]) == ms(line["x1"]) == EMPTIED_EXPIRES_MS and line["yref"] == "y domain"
        assert drawn["drawn"] >= 1 and "offsets expire" in drawn["labels"]
