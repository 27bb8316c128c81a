"""The fleet page of ``kgroup scan --html``: the scan's document drawn with plotly, with the same
tables as the text output, and the document itself embedded as JSON (id ``kgroup-scan-data``).

Charts, each from the document alone: groups by status (the scan's STATUS per group where the
document has one, else its flags: storm, stale, rewinds, deleted, none), the stale, storming and
expiring groups (EXPIRING: the moment their first committed offset expires), coordinator load per offsets-log partition and per broker (commits; the hot ones red),
and commits per hour of the busiest groups. Summarised for large fleets: at most ``MAX_BARS``
bars per chart, the cut said on the page.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgroup.report.html import Charts, chart_text, embed_json, esc, facts, frame, table
from kgroup.timeutil import moment

MAX_BARS = 50
DATA_ID = "kgroup-scan-data"
HOT, COOL = "#b3261e", "#4c78a8"
FLAGS = ("storm", "stale", "rewinds", "deleted", "none")


def group_flags(row: dict[str, Any]) -> list[str]:
    """What the scan flagged of a group: storm, stale, rewinds, deleted, or none."""
    flags = [f for f in ("storm", "stale", "deleted") if row.get(f)]
    if row.get("rewinds"):
        flags.insert(2, "rewinds")
    return flags or ["none"]


def status_counts(groups: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Groups per status: the scan's ``status`` where the rows carry one, else per flag (a group
    flagged twice counts in both)."""
    if groups and all("status" in g for g in groups):
        out: dict[str, int] = {}
        for g in groups:
            key = g["status"] or "UNKNOWN"
            out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))
    counts = dict.fromkeys(FLAGS, 0)
    for g in groups:
        for f in group_flags(g):
            counts[f] += 1
    return counts


def busiest(groups: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(groups, key=lambda g: (-g["commits_per_hour"], g["group"]))[:MAX_BARS]


def _bar(x: list[Any], y: list[Any], colors: list[str] | str, name: str, title: str, xtitle: str,
         category: bool = True) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure(go.Bar(x=x, y=y, marker={"color": colors}, name=name,
                           hovertemplate="%{x}: %{y}<extra></extra>"))
    fig.update_layout(title=title, height=360, margin={"l": 60, "r": 20, "t": 50, "b": 80}, template="plotly_white",
                      xaxis={"title": xtitle, **({"type": "category"} if category else {})},
                      yaxis={"rangemode": "tozero"})
    return fig


def figures(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """(element id, figure) of each chart."""
    groups, coordinators, brokers = doc["groups"], doc["coordinators"], doc["brokers"]
    out = []
    counts = status_counts(groups)
    out.append(("kgroup-fleet-status", _bar(list(counts), list(counts.values()),
                                            [HOT if k in ("storm", "stale", "ERR", "STOP", "STALL", "REWIND") else COOL
                                             for k in counts], "groups", "Groups by status", "status")))
    coord = sorted(coordinators, key=lambda c: c["offsets_partition"])[:MAX_BARS] if len(coordinators) <= MAX_BARS \
        else sorted(coordinators, key=lambda c: (-c["commits"], c["offsets_partition"]))[:MAX_BARS]
    out.append(("kgroup-fleet-coordinators", _bar(
        [str(c["offsets_partition"]) for c in coord], [c["commits"] for c in coord],
        [HOT if c["hot"] else COOL for c in coord], "commits",
        "Coordinator load: commits per offsets-log partition (hot in red)", "offsets-log partition")))
    if brokers:
        out.append(("kgroup-fleet-brokers", _bar(
            [chart_text(f"{b['id']} {b['host']}:{b['port']}") for b in brokers], [b["commits"] for b in brokers],
            [HOT if b["hot"] else COOL for b in brokers], "commits",
            "Coordinator load: commits per broker (hot in red)", "broker")))
    top = busiest(groups)
    out.append(("kgroup-fleet-commits", _bar(
        [chart_text(g["group"]) for g in top], [g["commits_per_hour"] for g in top],
        [HOT if g["stale"] or g["storm"] else COOL for g in top], "commits/h",
        f"Commits per hour: the {len(top)} busiest groups", "group")))
    return out


def render(doc: dict[str, Any], tables: Sequence[Any], asked: Sequence[tuple[str, Any]]) -> str:
    """The whole page: ``doc`` is ``scan -o json``'s document, ``tables`` the text output's tables
    (kgroup.output.render.Table), ``asked`` what was asked (label, value) for the header."""
    charts = Charts()
    s = doc["summary"]
    flagged = [g for g in doc["groups"] if g["stale"] or g["storm"] or g.get("expiring")]
    body = ["<h1>kgroup scan: the fleet</h1>", facts(asked),
            facts([("groups", s.get("group_count")), ("records", s.get("records")), ("commits", s.get("commits")),
                   ("rebalances", s.get("rebalance_count")), ("stale", s.get("stale_count")), ("storms", s.get("storm_count")),
                   ("expiring", s.get("expiring_count")), ("rewinds", s.get("rewinds")), ("undecodable", s.get("undecodable"))])]
    if s.get("lag_unknown"):
        body.append('<p class="incomplete">INCOMPLETE: the lag of ' + esc(len(s["lag_unknown"]))
                    + " groups is unknown (shown as -).</p>")
    if s.get("undecodable"):
        body.append('<div class="warnings">' + esc(s["undecodable"]) + " records could not be decoded.</div>")
    body.append("<h2>Charts</h2>")
    body.extend(charts.div(fig, ident) for ident, fig in figures(doc))
    if len(doc["coordinators"]) > MAX_BARS:
        body.append(f'<p class="note">The coordinator chart shows the {MAX_BARS} busiest of '
                    f'{len(doc["coordinators"])} offsets-log partitions.</p>')
    body.append("<h2>Stale, storming and expiring groups</h2>")
    body.append(table(["GROUP", "STALE", "STORM", "EXPIRING", "REBALANCES", "LAST COMMIT", "COMMITS/H"],
                      [[g["group"], g["stale"], g["storm"], moment(g.get("expires_ms")) if g.get("expiring") else None,
                        g["rebalance_count"], moment(g["last_commit_ms"]), g["commits_per_hour"]]
                       for g in flagged[:1000]], element_id="kgroup-fleet-flagged",
                      notes=[f"{len(flagged)} groups stale, storming or expiring"]))
    body.append("<h2>Tables</h2>")
    for i, t in enumerate(tables):
        body.append(table(t.headers, t.rows, title=t.title, notes=t.notes, element_id=f"kgroup-fleet-table-{i}"))
    body.append(embed_json(doc, DATA_ID))
    return frame("kgroup scan: the fleet", "\n".join(body))
