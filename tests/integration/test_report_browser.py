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
from browser import open_page
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
        # drawn: the total (a line), T-1 and T-0 (a marker per commit), the rebalances (one marker
        # each), and one bar series per member (a bar per bucket with commits)
        assert chart["scatter"] == [0, 4, 4, 2]
        assert chart["bars"] == [4, 2]
        assert sorted(chart["legend"]) == sorted(["total", "T-0", "T-1", "rebalance", "c1", M2])
        # the figures drawn are lag's and history's
        for p in lag["partitions"]:
            drawn = by_name[f"{p['topic']}-{p['partition']}"]
            assert [ms(x) for x in drawn["x"]] == [pt["time_ms"] for pt in p["points"]]
            assert drawn["y"] == [pt["lag"] for pt in p["points"]]
        total = by_name["total"]
        assert total["y"] == [8, 16, 24, 32]  # tests/reportcase.py
        assert [ms(x) for x in by_name["rebalance"]["x"]] == [r["timestamp"] for r in history["rebalances"]]
        assert by_name["rebalance"]["y"] == [len(r["members"]) for r in history["rebalances"]]
        c1 = by_name["c1"]
        assert {ms(x): y for x, y in zip(c1["x"], c1["y"]) if y} == {10_500: 1, 20_500: 1, 30_500: 2, 39_500: 2}
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
    assert shot.stat().st_size > 10_000


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
