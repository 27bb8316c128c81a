"""The incident report page of one group, drawn from its document (kgroup.report.data) with plotly.

One figure, three rows on one time axis: lag over time (the group's total and the partitions with
the most lag, each commit a marker; a vertical line, ``offsets expire``, at the moment the group's
first committed offset expires when that is in the window), the rebalances (one marker per
generation or KIP-848 epoch, at its member count), and commits per time bucket per member. Then the tables: status per
partition as ``lag`` computes it, the rebalances, the group now (``describe``/``offsets``), and the
document itself embedded as JSON (id ``kgroup-report-data``).

Large groups are summarised, never drawn whole: at most ``MAX_PARTITION_LINES`` partition lines
(the total is always drawn), ``MAX_MEMBER_BARS`` member series (the rest as one ``others``), and
the tables of partitions and rebalances cut at ``MAX_ROWS`` rows, each cut said on the page.
"""
from __future__ import annotations

from typing import Any

from kgroup.group.assignment import compact
from kgroup.group.broker import Broker
from kgroup.offsets_log.expiry import NOT_WHILE_CONSUMED
from kgroup.output.render import duration
from kgroup.report.html import Charts, chart_text, chart_time, embed_json, esc, facts, frame, table
from kgroup.timeutil import moment

MAX_PARTITION_LINES = 20
MAX_MEMBER_BARS = 10
MAX_ROWS = 1000
MAX_NAMES = 10
DATA_ID = "kgroup-report-data"
EXPIRY_LABEL = "offsets expire"
CHART_ID = "kgroup-report-chart"


def _names(ids: list[str]) -> str:
    shown = ", ".join(ids[:MAX_NAMES])
    return shown + (f" (+{len(ids) - MAX_NAMES} more)" if len(ids) > MAX_NAMES else "")


def drawn_partitions(lag: dict[str, Any]) -> list[dict[str, Any]]:
    """The partitions drawn as lines: the MAX_PARTITION_LINES with the highest known lag at any
    point (ties: topic, partition)."""
    def peak(p: dict[str, Any]) -> int:
        return max((pt["lag"] for pt in p["points"] if pt["lag"] is not None), default=-1)

    ranked = sorted(lag["partitions"], key=lambda p: (-peak(p), p["topic"], p["partition"]))
    return ranked[:MAX_PARTITION_LINES]


def drawn_members(rate: dict[str, Any]) -> list[dict[str, Any]]:
    """The commit-rate series drawn: the busiest members, the rest summed as one (member ``others``)."""
    series = rate["series"]
    if len(series) <= MAX_MEMBER_BARS:
        return list(series)
    rest = series[MAX_MEMBER_BARS - 1:]
    others = [sum(s["counts"][i] for s in rest) for i in range(rate["buckets"])]
    return list(series[:MAX_MEMBER_BARS - 1]) + [
        {"member": f"others ({len(rest)} members)", "commits": sum(others), "counts": others, "others": True}]


def figure(doc: dict[str, Any]) -> Any:
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06, row_heights=[0.55, 0.2, 0.25],
                        subplot_titles=("Lag over time (messages)", "Rebalances (members after each)",
                                        "Commits per member"))
    import plotly.graph_objects as go

    lag = doc["lag"]
    if lag is not None:
        total = doc["total_lag"]
        fig.add_trace(go.Scatter(x=[chart_time(p["time_ms"]) for p in total], y=[p["lag"] for p in total], name="total",
                                 mode="lines", line={"shape": "hv", "width": 3, "color": "#1d2330"},
                                 meta="total"), row=1, col=1)
        for p in drawn_partitions(lag):
            label = chart_text(f"{p['topic']}-{p['partition']}")
            fig.add_trace(go.Scatter(
                x=[chart_time(pt["time_ms"]) for pt in p["points"]], y=[pt["lag"] for pt in p["points"]],
                name=label, mode="lines+markers", line={"shape": "hv", "width": 1}, marker={"size": 5},
                customdata=[[pt["committed"], pt["end"]] for pt in p["points"]],
                hovertemplate=label + "<br>lag %{y}<br>committed %{customdata[0]}<br>end %{customdata[1]}"
                              "<extra>" + esc(p["status"]) + "</extra>",
                meta="partition"), row=1, col=1)
    rebalances = doc["history"]["rebalances"]
    if rebalances:
        texts = []
        for r in rebalances:
            what = "deleted" if r["type"] == "deleted" else (
                f"{'generation' if r['type'] == 'classic' else 'group epoch'} {r['generation']}")
            lines = [what, f"{len(r['members'])} members", f"moved {len(r['moved'])} partitions"]
            if r["since_previous_ms"] is not None:
                lines.append(f"{duration(r['since_previous_ms'])} after the previous")
            if r["joined"]:
                lines.append("joined: " + _names(r["joined"]))
            if r["left"]:
                lines.append("left: " + _names(r["left"]))
            texts.append("<br>".join(chart_text(line) for line in lines))
        fig.add_trace(go.Scatter(x=[chart_time(r["timestamp"]) for r in rebalances], y=[len(r["members"]) for r in rebalances],
                                 mode="markers", name="rebalance", hovertext=texts, hoverinfo="text+x",
                                 marker={"symbol": "diamond", "size": 10, "color": "#b3261e"}, meta="rebalance"),
                      row=2, col=1)
    rate = doc["commit_rate"]
    centres = [chart_time(rate["start_ms"] + (i + 0.5) * rate["bucket_ms"]) for i in range(rate["buckets"])]
    base = [0] * rate["buckets"]
    for s in drawn_members(rate):  # stacked by hand: each series on the ones before it
        name = chart_text("(no owner known)" if s["member"] is None else s["member"])
        fig.add_trace(go.Bar(x=centres, y=s["counts"], base=list(base), name=name, width=rate["bucket_ms"] * 0.9,
                             hovertemplate="%{y} commits<extra>" + name + "</extra>", meta="commits"), row=3, col=1)
        base = [b + n for b, n in zip(base, s["counts"])]
    first = doc["expiry"]["first_expires_ms"]
    if first is not None and doc["since_ms"] <= first <= doc["until_ms"]:
        at = chart_time(first)  # on the lag chart's axes: its x, the whole height of its y
        fig.add_shape(type="line", xref="x", yref="y domain", x0=at, x1=at, y0=0, y1=1, name=EXPIRY_LABEL,
                      line={"color": "#8a4b00", "width": 2, "dash": "dash"})
        fig.add_annotation(x=at, xref="x", y=1, yref="y domain", text=EXPIRY_LABEL, showarrow=False,
                           xanchor="left", yanchor="top", font={"color": "#8a4b00"},
                           hovertext=chart_text(f"committed offsets expire at {moment(first)}"))
    if rebalances:
        fig.update_yaxes(range=[0, max(len(r["members"]) for r in rebalances) * 1.25 + 1], row=2, col=1)
    fig.update_layout(barmode="overlay", height=860, margin={"l": 60, "r": 20, "t": 40, "b": 40},
                      legend={"orientation": "v"}, hovermode="closest", template="plotly_white")
    fig.update_xaxes(type="date", range=[chart_time(doc["since_ms"]), chart_time(doc["until_ms"])])
    fig.update_yaxes(rangemode="tozero")
    return fig


def _header(doc: dict[str, Any]) -> str:
    src = doc["source"]
    lag = doc["lag"]
    parts = [f"<h1>kgroup report: group {esc(doc['group'])}</h1>", facts([
        ("group", doc["group"]),
        ("window", f"{moment(doc['since_ms'])} to {moment(doc['until_ms'])}"),
        ("cluster", src.get("cluster")),
        ("offsets log", src.get("input") or src.get("offsets_topic")),
        ("offsets-log partition", doc["offsets_partition"]),
        ("snapshot", src.get("snapshot")) if src.get("snapshot") else ("group now from", src.get("now")),
        ("status", lag["status"] if lag else None),
        ("total lag now", lag["total_lag"] if lag else None),
        ("offset expiry", expiry_fact(doc["expiry"])),
        ("offset retention", retention_fact(doc["expiry"])),
        ("generated", moment(doc["generated_ms"])),
        ("by", f"kgroup {doc['kgroup_version']}"),
    ])]
    if doc["incomplete"]:
        parts.append('<p class="incomplete">INCOMPLETE: some values are unknown (shown as -); '
                     "the statuses are computed from the known points.</p>")
    if doc["warnings"]:
        parts.append('<div class="warnings"><h3>Warnings</h3><ul>'
                     + "".join(f"<li>{esc(w)}</li>" for w in doc["warnings"]) + "</ul></div>")
    return "\n".join(parts)


def retention_fact(expiry: dict[str, Any]) -> str:
    """offsets.retention.minutes as the page's facts say it, with where it comes from."""
    minutes = expiry["retention_ms"] / 60_000
    scaled = next(f"{minutes / n:g} {unit}" for n, unit in ((1440, "d"), (60, "h"), (1, "min"))
                  if minutes % n == 0 or n == 1)
    return f"offsets.retention.minutes {minutes:g} ({scaled}), {expiry['retention_source']}"


def expiry_fact(expiry: dict[str, Any]) -> str:
    """When the group's committed offsets expire, as the page's facts say it."""
    first = expiry["first_expires_ms"]
    parts = expiry["partitions"]
    if first is not None:
        going = [f"{p['topic']}-{p['partition']}" for p in parts if p["expires_ms"] == first]
        why: str = next(p["expiry"] for p in parts if p["expires_ms"] == first)
        return f"committed offsets expire at {moment(first)}: {_names(going)} first ({why})"
    if not parts:
        return "no committed offset in the log"
    reasons = sorted({p["expiry"] for p in parts})
    if reasons == [NOT_WHILE_CONSUMED]:
        return "not while the group consumes them"
    return "not under the group's state at the window's end: " + "; ".join(reasons)


def _lag_tables(doc: dict[str, Any]) -> str:
    lag = doc["lag"]
    if lag is None:
        return f'<h2>Lag</h2><p class="note">No lag: {esc(doc["lag_unavailable"])}</p>'
    rows = [[p["topic"], p["partition"], p["status"], p["complete"], p["lag"], p["committed"], p["end"],
             p["consume_per_s"], p["produce_per_s"],
             "caught up" if p["lag"] == 0 else "not catching up" if p["catching_up"] is False else
             (None if p["eta_s"] is None else duration(int(p["eta_s"] * 1000))),
             len(p["points"]), "; ".join(p["unknown"])] for p in lag["partitions"]]
    named = "; ".join(f"{s}: {', '.join(ps)}" for s, ps in sorted(lag["partitions_by_status"].items()) if s != "OK")
    notes = [f"group {lag['group']}: {lag['status']}" + (f" ({named})" if named else "")]
    if len(rows) > MAX_ROWS:
        notes.append(f"{len(rows) - MAX_ROWS} more partitions in the data (-o json)")
    drawn = len(drawn_partitions(lag))
    if drawn < len(lag["partitions"]):
        notes.append(f"The chart draws the {drawn} partitions with the highest lag of {len(lag['partitions'])}, "
                     "and the total of all.")
    return ("<h2>Status per partition</h2>"
            + table(["TOPIC", "PARTITION", "STATUS", "COMPLETE", "LAG", "COMMITTED", "END", "CONSUME/S", "PRODUCE/S",
                     "CATCH-UP", "POINTS", "UNKNOWN"], rows[:MAX_ROWS], notes=notes, element_id="kgroup-status"))


def _rebalance_table(doc: dict[str, Any]) -> str:
    h = doc["history"]
    rows = [[moment(r["timestamp"]), r["type"], r["generation"], r["protocol"], r["leader"], len(r["members"]),
             _names(r["joined"]), _names(r["left"]), len(r["moved"]),
             duration(r["since_previous_ms"]), r["commits"]] for r in h["rebalances"]]
    notes = [f"{len(rows)} rebalances in the window"] + (
        [f"the first {MAX_ROWS} shown; all in the data (-o json)"] if len(rows) > MAX_ROWS else [])
    return ("<h2>Rebalances</h2>"
            + table(["TIME", "TYPE", "GENERATION", "PROTOCOL", "LEADER", "MEMBERS", "JOINED", "LEFT", "MOVED",
                     "SINCE PREVIOUS", "COMMITS"], rows[:MAX_ROWS], notes=notes, element_id="kgroup-rebalances"))


def _now(doc: dict[str, Any]) -> str:
    now = doc["now"]
    if now is None:
        return ('<h2>The group now</h2><p class="note">Not shown: it is read from a cluster (-b) or a snapshot '
                "file (--snapshot).</p>")
    out = ["<h2>The group now</h2>"]
    d = now["describe"]
    c = d["coordinator"]
    out.append(facts([("state", d["state"]), ("type", d["type"]), ("assignor", d["assignor"]),
                      ("coordinator", Broker.from_json(c).label if c else None),
                      ("offsets-log partition", doc["offsets_partition"]), ("members", d["member_count"]),
                      ("from", now["source"])]))
    out.append(table(["MEMBER-ID", "GROUP-INSTANCE-ID", "CLIENT-ID", "HOST", "#PARTITIONS", "ASSIGNMENT"],
                     [[m["member_id"], m["group_instance_id"], m["client_id"], m["host"], m["partition_count"],
                       compact(m["assignment"])] for m in d["members"]], title="Members", element_id="kgroup-members"))
    o = now["offsets"]
    if o is not None:
        rows = [[p["topic"], p["partition"], p["committed"], p["log_start"], p["log_end"], p["lag"], p["member_id"],
                 p["client_id"], p["host"], p["metadata"]] for p in o["partitions"]]
        total = "unknown (INCOMPLETE)" if o["total_lag"] is None else o["total_lag"]
        out.append(table(["TOPIC", "PARTITION", "COMMITTED", "LOG-START", "LOG-END", "LAG", "MEMBER-ID", "CLIENT-ID",
                          "HOST", "METADATA"], rows[:MAX_ROWS], title="Offsets",
                         notes=[f"total lag {total}"], element_id="kgroup-offsets"))
    return "\n".join(out)


def render(doc: dict[str, Any]) -> str:
    """The whole page, self-contained."""
    charts = Charts()
    body = [_header(doc), "<h2>Lag, rebalances and commits</h2>", charts.div(figure(doc), CHART_ID),
            _lag_tables(doc), _rebalance_table(doc), _now(doc), embed_json(doc, DATA_ID)]
    return frame(f"kgroup report: {doc['group']}", "\n".join(body))
