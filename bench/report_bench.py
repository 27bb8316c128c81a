"""kgroup report on a large group: 1,000 partitions and 10,000 commits in the window (10 a
partition) with 20 rebalances of 10 members, from a saved offsets log; the time to build the page
and its size.

    python bench/report_bench.py [--partitions 1000] [--commits 10] [--runs 3] [--readme]

In process and without a broker: the log ends at the commit moments come from the synthetic
production the log was made with (each partition got one record per 100 ms), answered as
``kgroup.lag.ends.log_ends_at`` answers (the broker's side is measured by bench/lag_bench.py). Phases:
reading the saved log (decode, the group's records, replay, commits), the lag (evaluate and lag's
document: what ``kgroup lag -o json`` computes from the same answers, the baseline), the report's
document, and the page (plotly figure and HTML, written). The page is summarised, never drawn
whole: the points the chart draws are counted, beside those in the data. With --readme the table
replaces docs/benchmarks.md's report-bench block.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402

GROUP = "big"
T0 = 1_790_000_000_000
RATE_MS = 100  # each partition got one record every 100 ms from T0 on
WINDOW_MS = 6 * 3_600_000


def end_at(t: int) -> int:
    return max(0, math.ceil((t - T0) / RATE_MS))


def build(path: Path, partitions: int, commits: int, members: int = 10, rebalances: int = 20) -> int:
    """The saved log: ``rebalances`` generations of ``members`` (range over T, even ones one member
    short), and ``commits`` commits a partition spread over the window, each a bit behind the end."""
    from logbuilder import Log

    from kgroup.offsets_log.raw import write_jsonl

    log = Log(partitions=50)
    events = []
    for g in range(rebalances):
        n = members - (g % 2)
        per = -(-partitions // n)
        ms = [{"id": f"consumer-{i}-{g}", "topics": ["T"],
               "assignment": {"T": list(range(i * per, min(partitions, (i + 1) * per)))}} for i in range(n)]
        events.append((T0 + 1_000 + g * (WINDOW_MS // rebalances), "gen", g + 1, ms))
    step = WINDOW_MS // (commits + 1)
    for k in range(1, commits + 1):
        for p in range(partitions):
            t = T0 + 5_000 + k * step + p
            events.append((t, "commit", p, max(0, end_at(t) - 50 * ((p + k) % 7))))
    for e in sorted(events, key=lambda e: e[0]):
        if e[1] == "gen":
            log.generation(GROUP, e[2], e[0], e[3])
        else:
            log.commit(GROUP, "T", e[2], e[3], e[0])
    with open(path, "w", encoding="utf-8") as f:
        write_jsonl(log.records, f)
    return len(log.records)


def run_once(path: Path, out: Path) -> dict:
    from kgroup.lag.history import EndsAt, commits_from_log, document, evaluate, moments
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.offsets_log.saved import iter_saved
    from kgroup.offsets_log.selection import Selection, select
    from kgroup.offsets_log.window import Window
    from kgroup.report.data import report_document
    from kgroup.report.page import render

    since, until = T0, T0 + WINDOW_MS
    times = {}
    t = time.perf_counter()
    entries = [e for e in select(iter_saved(str(path), lambda *a: None, lambda m: None),
                                 Selection(frozenset([GROUP]), frozenset(), Window(None, until)))
               if e.record is not None]
    replay = GroupReplay(GROUP)
    for e in entries:
        replay.apply(e)
    replay.finish()
    commits = commits_from_log(entries, GROUP, until)
    times["read"] = time.perf_counter() - t
    asked = moments(commits, since, until)
    ends = EndsAt({tp: {m: end_at(m) for m in ms} for tp, ms in asked.items()}, {},
                  {tp: end_at(until) for tp in commits})
    t = time.perf_counter()
    lag = document(evaluate(GROUP, commits, ends, since, until))
    times["lag"] = time.perf_counter() - t
    t = time.perf_counter()
    doc = report_document(group=GROUP, since_ms=since, until_ms=until, generated_ms=until, version="bench",
                          source={"cluster": None, "input": str(path), "snapshot": None, "offsets_topic": None,
                                  "now": None},
                          lag=lag, lag_unavailable=None, replay=replay, commits=commits, offsets_partition=0,
                          now=None, warnings=[])
    times["document"] = time.perf_counter() - t
    t = time.perf_counter()
    html = render(doc)
    out.write_text(html, encoding="utf-8")
    times["page"] = time.perf_counter() - t
    from kgroup.report.page import figure

    fig = figure(doc)
    drawn = sum(len(tr.y) for tr in fig.data if tr.type == "scatter")
    points = sum(len(p["points"]) for p in lag["partitions"])
    return {"times": times, "page_bytes": out.stat().st_size, "json_bytes": len(json.dumps(doc)),
            "drawn": drawn, "points": points, "traces": len(fig.data), "rebalances": len(doc["history"]["rebalances"]),
            "partitions": len(lag["partitions"]), "commits": sum(len(cs) for cs in commits.values())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--commits", type=int, default=10, help="commits a partition in the window")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    import plotly

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    with tempfile.TemporaryDirectory(prefix="kgroup-report-bench-") as tmp:
        log = Path(tmp) / "log.jsonl"
        records = build(log, args.partitions, args.commits)
        results = []
        for run in range(args.runs):
            results.append(run_once(log, Path(tmp) / "report.html"))
            r = results[-1]
            print(f"run {run + 1}: " + ", ".join(f"{k} {v:.2f} s" for k, v in r["times"].items()), file=sys.stderr)
    r = results[-1]
    med = {k: statistics.median(x["times"][k] for x in results) for k in r["times"]}
    total = sum(med.values())
    lines = ["| phase | seconds | vs lag's document |", "|---|---|---|"]
    names = {"read": "read the saved log (decode, the group's records, replay, commits)",
             "lag": "lag: evaluate and its document (`kgroup lag -o json`'s work; the baseline)",
             "document": "the report's document (total lag, history, commits per member)",
             "page": "the page: plotly figure, HTML, written"}
    for k, label in names.items():
        lines.append(f"| {label} | {med[k]:.2f} | {med[k] / med['lag']:.2f}× |")
    lines.append(f"| **all** | **{total:.2f}** | {total / med['lag']:.2f}× |")
    lines += ["", "| size | bytes |", "|---|---|",
              f"| the page (`--out`) | {r['page_bytes']:,} |",
              f"| of which plotly's JavaScript, inlined | {plotly_js.stat().st_size:,} |",
              f"| its data (`-o json`) | {r['json_bytes']:,} |",
              "", f"{r['partitions']:,} partitions, {r['commits']:,} commits ({records:,} records in the saved log), "
              f"{r['rebalances']} rebalances in a 6 h window; lag points in the data: {r['points']:,}; points the "
              f"chart draws: {r['drawn']:,} in {r['traces']} series (the total, the 20 partitions with the most lag, "
              f"the rebalances; commits per member as bars). Median of {args.runs} runs in one process. "
              f"{measured_on()}"]
    table = "\n".join(lines)
    print(table, flush=True)
    if args.readme:
        write_block("report-bench", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
