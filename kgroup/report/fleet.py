"""The fleet page of ``kgroup scan --html``: the scan's document drawn with plotly, with the same
tables as the text output, and the document itself embedded as JSON (id ``kgroup-scan-data``).

Charts, each from the document alone: the groups needing a look (horizontal bars, the count
written on each: every flag, storm, stale, expiring, rewinds, and every STATUS but OK where
the scan computed statuses; a group flagged twice counts in both; the groups with nothing to look
at are counted in the title, not drawn, so that one ERR among 300 OK is a bar as long as the
others), the stale, storming and
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
FLAGS = ("storm", "stale", "expiring", "rewinds")
GOOD = ("OK",)  # statuses that need no look


def group_flags(row: dict[str, Any]) -> list[str]:
    """Why a group needs a look: its flags (storm, stale, expiring, rewinds: a deleted group needs none) and, where the
    scan computed statuses, ``status X`` for a status other than OK (``status unknown``: none could
    be computed); empty: nothing to look at."""
    flags = [f for f in FLAGS if row.get(f)]
    # a share group's lag is not in the offsets log (it commits nothing): no status is no reason to look
    if "status" in row and row["status"] not in GOOD and not (row.get("type") == "share" and not row.get("commits")):
        flags.append(f"status {row['status'] or 'unknown'}")
    return flags


def status_counts(groups: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Groups per reason to look (:func:`group_flags`), the flags first then the statuses; a group
    with two reasons counts in both; a reason no group has is left out."""
    counts: dict[str, int] = {}
    for g in groups:
        for f in group_flags(g):
            counts[f] = counts.get(f, 0) + 1
    order = {f: i for i, f in enumerate(FLAGS)}
    return dict(sorted(counts.items(), key=lambda kv: (order.get(kv[0], len(FLAGS)), kv[0])))


def _look_bar(groups: Sequence[dict[str, Any]]) -> Any:
    import plotly.graph_objects as go

    counts = status_counts(groups)
    names = list(counts)
    fig = go.Figure(go.Bar(x=list(counts.values()), y=names, orientation="h", text=list(counts.values()),
                           textposition="outside", cliponaxis=False, marker={"color": HOT}, name="groups",
                           hovertemplate="%{y}: %{x} groups<extra></extra>"))
    fig.update_layout(meta=look_title(groups))
    fig.update_layout(height=max(140, 70 + 34 * len(names)), margin={"l": 10, "r": 30, "t": 10, "b": 40},
                      template="plotly_white", xaxis={"title": "groups", "rangemode": "tozero"},
                      yaxis={"type": "category", "autorange": "reversed", "automargin": True})
    if not names:
        fig.add_annotation(x=0.5, xref="paper", y=0.5, yref="paper", text="no group needs a look", showarrow=False)
    return fig


def busiest(groups: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(groups, key=lambda g: (-g["commits_per_hour"], g["group"]))[:MAX_BARS]


def _bar(x: list[Any], y: list[Any], colors: list[str] | str, name: str, title: str, xtitle: str,
         category: bool = True) -> Any:
    import plotly.graph_objects as go

    fig = go.Figure(go.Bar(x=x, y=y, marker={"color": colors}, name=name,
                           hovertemplate="%{x}: %{y}<extra></extra>"))
    fig.update_layout(height=340, margin={"l": 50, "r": 10, "t": 10, "b": 80}, template="plotly_white",
                      meta=title,
                      xaxis={"title": xtitle, **({"type": "category"} if category else {})},
                      yaxis={"rangemode": "tozero"})
    return fig


def look_title(groups: Sequence[dict[str, Any]]) -> str:
    fine = sum(1 for g in groups if not group_flags(g))
    return f"Groups needing a look: {len(groups) - fine} of {len(groups)} ({fine} with nothing flagged, not drawn)"


def figures(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """(element id, figure) of each chart; its title (the page's heading above it): the figure's
    ``layout.meta``."""
    groups, coordinators, brokers = doc["groups"], doc["coordinators"], doc["brokers"]
    out = []
    out.append(("kgroup-fleet-status", _look_bar(groups)))
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
            facts([("groups", s.get("group_count")),
                   ("by type", ", ".join(f"{t} {n}" for t, n in (s.get("group_types") or {}).items())), ("records", s.get("records")), ("commits", s.get("commits")),
                   ("rebalances", s.get("rebalance_count")), ("stale", s.get("stale_count")), ("storms", s.get("storm_count")),
                   ("expiring", s.get("expiring_count")), ("rewinds", s.get("rewinds")), ("undecodable", s.get("undecodable"))])]
    if s.get("lag_unknown"):
        n = len(s["lag_unknown"])
        body.append('<p class="incomplete">INCOMPLETE: some values of ' + esc(n) + f" group{'s' * (n != 1)} are "
                    "unknown (shown as -): " + esc("; ".join(f"{u['group']} ({u['reason']})"
                                                            for u in s["lag_unknown"][:5]))
                    + ("; and more (-o json lists them)" if n > 5 else "") + ".</p>")
    if s.get("undecodable"):
        body.append('<div class="warnings">' + esc(s["undecodable"]) + " records could not be decoded.</div>")
    body.append("<h2>Charts</h2>")
    for ident, fig in figures(doc):  # a heading above each chart: it wraps on a phone where a plotly title is cut
        body.append(f'<h3 id="{esc(ident)}-title">{esc(fig.layout.meta)}</h3>')
        body.append(charts.div(fig, ident))
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
