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
from kgroup.lag.now import markers_notes
from kgroup.offsets_log.expiry import NOT_WHILE_CONSUMED
from kgroup.offsets_log.replay import streams_owners
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
ZERO_LABEL = "lag 0 throughout"
NO_LAG_SERIES = "no-lag-series"
REBALANCE_MARKER = "rebalance"
REBALANCE_COLOUR = "#b3261e"
MAX_MARKER_LABELS = 12  # rebalances labelled on the lag chart (a storm: lines only past these)
MAX_LABEL_NAMES = 3  # members named in one label
SHORT = 24  # characters of a member's name in a label
HOVER_TIME = "%Y-%m-%d %H:%M:%S.%L UTC"


def _names(ids: list[str]) -> str:
    shown = ", ".join(ids[:MAX_NAMES])
    return shown + (f" (+{len(ids) - MAX_NAMES} more)" if len(ids) > MAX_NAMES else "")


def _known_lags(p: dict[str, Any]) -> list[int]:
    return [pt["lag"] for pt in p["points"] if pt["lag"] is not None]


def zero_partitions(lag: dict[str, Any]) -> list[dict[str, Any]]:
    """The partitions whose every known lag point is 0: folded into one legend entry."""
    return [p for p in lag["partitions"] if _known_lags(p) and max(_known_lags(p)) == 0]


def drawn_partitions(lag: dict[str, Any]) -> list[dict[str, Any]]:
    """The partitions drawn as lines: of those not at lag 0 throughout (:func:`zero_partitions`), the
    MAX_PARTITION_LINES with the highest known lag at any point (ties: topic, partition)."""
    def peak(p: dict[str, Any]) -> int:
        return max(_known_lags(p), default=-1)

    ranked = sorted((p for p in lag["partitions"] if not (_known_lags(p) and peak(p) == 0)),
                    key=lambda p: (-peak(p), p["topic"], p["partition"]))
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


def _cut(text: str, width: int = SHORT) -> str:
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def member_names(rebalances: list[dict[str, Any]]) -> dict[str, str]:
    """The name of each member of the window's rebalances in a label: its member id (as the
    commits' legend and the tables say it), cut at SHORT characters."""
    return {m: _cut(m) for r in rebalances for m in [*(x["member_id"] for x in r["members"]), *r["left"], *r["joined"]]}


def rebalance_label(r: dict[str, Any], names: dict[str, str]) -> str:
    """``gen N: −left +joined`` (``epoch N`` for KIP-848 groups, ``deleted``), at most MAX_LABEL_NAMES names."""
    what = "deleted" if r["type"] == "deleted" else f"{'gen' if r['type'] == 'classic' else 'epoch'} {r['generation']}"
    moves = [f"\u2212{names.get(m, _cut(m))}" for m in r["left"]] + [f"+{names.get(m, _cut(m))}" for m in r["joined"]]
    if len(moves) > MAX_LABEL_NAMES:
        moves = moves[:MAX_LABEL_NAMES] + [f"(+{len(moves) - MAX_LABEL_NAMES} more)"]
    active = [m for m in r.get("tasks_moved") or [] if m["kind"] == "active" and m["from"] and m["to"]]
    if active:  # a streams epoch: the active tasks that changed hands (their state moves with them)
        moves.append(f"({len(active)} active task{'s' * (len(active) != 1)} moved)")
    return what + (": " + " ".join(moves) if moves else "")


def _assignment(r: dict[str, Any], m: dict[str, Any]) -> dict[str, list[int]]:
    got: dict[str, list[int]] = (m.get("assignment") if r["type"] == "classic" or m.get("assignment")
                                 else m.get("target_assignment")) or {}
    return got


def owner_at(rebalances: list[dict[str, Any]], topic: str, partition: int, time_ms: int) -> str | None:
    """The member that owned the partition at ``time_ms`` by the window's last rebalance before it
    (None: no rebalance of the window before it, or nobody owned it)."""
    before = [r for r in rebalances if r["timestamp"] <= time_ms]
    if not before or before[-1]["type"] == "deleted":
        return None
    r = before[-1]
    if r["type"] == "streams":
        return streams_owners(r.get("member_tasks"), r.get("topology")).get((topic, partition))
    return next((m["member_id"] for m in r["members"] if partition in _assignment(r, m).get(topic, [])), None)


def member_count(r: dict[str, Any]) -> int:
    """The members after a rebalance (a streams epoch lists them with their tasks)."""
    return len(r.get("member_tasks") or []) if r["type"] == "streams" else len(r["members"])


def moved_count(r: dict[str, Any]) -> int | None:
    """The partitions that changed owner (of a streams epoch: the tasks whose holders changed; None: not known)."""
    if r["type"] == "streams":
        return None if r.get("tasks_moved") is None else len(r["tasks_moved"])
    return len(r["moved"])


def activity_range(doc: dict[str, Any]) -> tuple[int, int]:
    """The time axis's range: from the first to the last moment anything happened (a lag point, a
    rebalance, a commit bucket, the offsets' expiry), a twentieth of that around, within the window
    (and the last commit bucket, which may end after it)."""
    since, until = doc["since_ms"], doc["until_ms"]
    moments = [p["time_ms"] for p in doc["total_lag"]]
    if doc["lag"] is not None:
        moments += [pt["time_ms"] for p in doc["lag"]["partitions"] for pt in p["points"]]
    moments += [r["timestamp"] for r in doc["history"]["rebalances"]]
    first = doc["expiry"]["first_expires_ms"]
    if first is not None:
        moments.append(first)
    moments = [t for t in moments if since <= t <= until]
    rate = doc["commit_rate"]  # a bucket whole, the last one may end after --until
    for s in rate["series"]:
        for i, n in enumerate(s["counts"]):
            if n:
                moments += [rate["start_ms"] + i * rate["bucket_ms"], rate["start_ms"] + (i + 1) * rate["bucket_ms"]]
    if not moments:
        return since, until
    lo, hi = min(moments), max(moments)
    pad = max((hi - lo) // 20, 1_000)
    return max(since, lo - pad), min(max(until, hi), hi + pad)


def figure(doc: dict[str, Any]) -> Any:
    from plotly.colors import qualitative
    from plotly.subplots import make_subplots

    # 24 colours (plotly's Dark24 less its near-black, taken by the total): no repeat within the 20 lines
    palette = [c for c in qualitative.Dark24 if c != "#222A2A"]

    rate = doc["commit_rate"]
    width = duration(rate["bucket_ms"]) or f"{rate['bucket_ms']} ms"
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.07, row_heights=[0.55, 0.2, 0.25],
                        subplot_titles=("Lag over time", "Rebalances: members after each",
                                        f"Commits per member, per {width} bucket"))
    for title in fig.layout.annotations:  # from the left edge: never cut on a narrow screen
        title.update(x=0, xanchor="left", font={"size": 13})
    import plotly.graph_objects as go

    rebalances = doc["history"]["rebalances"]
    names = member_names(rebalances)
    lo, hi = activity_range(doc)
    lag = doc["lag"]
    if lag is not None:
        total = doc["total_lag"]
        fig.add_trace(go.Scatter(x=[chart_time(p["time_ms"]) for p in total], y=[p["lag"] for p in total], name="total",
                                 mode="lines", line={"shape": "hv", "width": 3, "color": "#1d2330"},
                                 hovertemplate="%{x|" + HOVER_TIME + "}<br>total lag %{y}<extra></extra>",
                                 meta="total", legendgroup="total"), row=1, col=1)
        drawn = drawn_partitions(lag)
        owned = {(p["topic"], p["partition"]): owner_at(rebalances, p["topic"], p["partition"],
                                                         max((pt["time_ms"] for pt in p["points"]), default=0))
                 for p in drawn}
        drawn.sort(key=lambda p: (owned[p["topic"], p["partition"]] is None,
                                  names.get(owned[p["topic"], p["partition"]] or "", ""), p["topic"], p["partition"]))
        titled: set[str] = set()
        for i, p in enumerate(drawn):
            label = chart_text(f"{p['topic']}-{p['partition']}")
            owner = owned[p["topic"], p["partition"]]
            group = "owner " + chart_text(names.get(owner, owner) if owner else "unknown")
            fig.add_trace(go.Scatter(
                x=[chart_time(pt["time_ms"]) for pt in p["points"]], y=[pt["lag"] for pt in p["points"]],
                name=label, mode="lines+markers", line={"shape": "hv", "width": 1.5, "color": palette[i % len(palette)]},
                marker={"size": 5}, legendgroup=group,
                legendgrouptitle={"text": group} if group not in titled else None,
                customdata=[[pt["committed"], pt["end"],
                             chart_text(owner_at(rebalances, p["topic"], p["partition"], pt["time_ms"]) or "unknown")]
                            for pt in p["points"]],
                hovertemplate=label + " at %{x|" + HOVER_TIME + "}<br>lag %{y}<br>committed %{customdata[0]}"
                              "<br>end %{customdata[1]}<br>owner %{customdata[2]}<extra>" + esc(p["status"]) + "</extra>",
                meta="partition"), row=1, col=1)
            titled.add(group)
        zero = zero_partitions(lag)
        if zero:
            times = [pt["time_ms"] for p in zero for pt in p["points"]]
            listed = _names([f"{p['topic']}-{p['partition']}" for p in zero])
            fig.add_trace(go.Scatter(
                x=[chart_time(min(times)), chart_time(max(times))], y=[0, 0], mode="lines",
                name=chart_text(f"{ZERO_LABEL} ({len(zero)} partition{'s' if len(zero) > 1 else ''})"),
                line={"color": "#7d8799", "width": 2, "dash": "dot"}, legendgroup="zero",
                hovertemplate=chart_text(f"lag 0 at every commit: {listed}") + "<extra></extra>", meta="zero"),
                row=1, col=1)
        if not drawn and all(p["lag"] == 0 for p in total):
            _say_on_lag_chart(fig, ZERO_LABEL)
    else:
        _say_on_lag_chart(fig, f"no lag: {doc['lag_unavailable']}")
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
        fig.add_trace(go.Scatter(x=[chart_time(r["timestamp"]) for r in rebalances], y=[member_count(r) for r in rebalances],
                                 mode="markers", name="rebalance", hovertext=texts,
                                 hovertemplate="%{x|" + HOVER_TIME + "}<br>%{hovertext}<extra></extra>",
                                 marker={"symbol": "diamond", "size": 10, "color": REBALANCE_COLOUR}, meta="rebalance"),
                      row=2, col=1)
        for k, r in enumerate(rebalances):  # and on the lag chart: a line each, labelled who left and joined
            at = chart_time(r["timestamp"])
            fig.add_shape(type="line", xref="x", yref="y domain", x0=at, x1=at, y0=0, y1=1, name=REBALANCE_MARKER,
                          line={"color": REBALANCE_COLOUR, "width": 1, "dash": "dot"}, opacity=0.7)
            if k < MAX_MARKER_LABELS:
                fig.add_annotation(x=at, xref="x", y=1 - (k % 3) * 0.09, yref="y domain",
                                   text=chart_text(rebalance_label(r, names)), showarrow=False,
                                   xanchor="left" if r["timestamp"] <= (lo + hi) / 2 else "right",  # inside the chart
                                   yanchor="top", font={"size": 10, "color": REBALANCE_COLOUR},
                                   bgcolor="rgba(255,255,255,0.8)", name=REBALANCE_MARKER,
                                   hovertext=texts[k])
    centres = [chart_time(rate["start_ms"] + (i + 0.5) * rate["bucket_ms"]) for i in range(rate["buckets"])]
    starts = [moment(rate["start_ms"] + i * rate["bucket_ms"]) for i in range(rate["buckets"])]
    base = [0] * rate["buckets"]
    for k, s in enumerate(drawn_members(rate)):  # stacked by hand: each series on the ones before it
        name = chart_text("(no owner known)" if s["member"] is None else s["member"])
        fig.add_trace(go.Bar(x=centres, y=s["counts"], base=list(base), name=name, width=rate["bucket_ms"] * 0.9,
                             customdata=starts, legendgroup="commits",
                             legendgrouptitle={"text": "commits by member"} if k == 0 else None,
                             marker={"color": palette[(k + 12) % len(palette)]},
                             hovertemplate="%{y} commits in the " + width + " from %{customdata}<extra>" + name
                                           + "</extra>", meta="commits"), row=3, col=1)
        base = [b + n for b, n in zip(base, s["counts"])]
    first = doc["expiry"]["first_expires_ms"]
    if first is not None and doc["since_ms"] <= first <= doc["until_ms"]:
        at = chart_time(first)  # on the lag chart's axes: its x, the whole height of its y
        fig.add_shape(type="line", xref="x", yref="y domain", x0=at, x1=at, y0=0, y1=1, name=EXPIRY_LABEL,
                      line={"color": "#8a4b00", "width": 2, "dash": "dash"})
        fig.add_annotation(x=at, xref="x", y=0.02, yref="y domain", text=EXPIRY_LABEL, showarrow=False,
                           xanchor="left", yanchor="bottom", font={"color": "#8a4b00"},
                           hovertext=chart_text(f"committed offsets expire at {moment(first)}"))
    if rebalances:
        fig.update_yaxes(range=[0, max(member_count(r) for r in rebalances) * 1.25 + 1], row=2, col=1)
    fig.update_layout(barmode="overlay", height=900, margin={"l": 50, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0, "yanchor": "bottom",
                              "groupclick": "toggleitem", "font": {"size": 11}},
                      hovermode="closest", template="plotly_white")
    fig.update_xaxes(type="date", range=[chart_time(lo), chart_time(hi)], hoverformat=HOVER_TIME)
    fig.update_xaxes(title={"text": "time (UTC)"}, row=3, col=1)
    fig.update_yaxes(rangemode="tozero")
    for row, title in ((1, "lag (messages)"), (2, "members"), (3, f"commits per {width}")):
        fig.update_yaxes(title={"text": title, "font": {"size": 11}}, row=row, col=1)
    return fig


def _say_on_lag_chart(fig: Any, text: str) -> None:
    """A sentence in the lag chart's place, its empty axis hidden; in lines of at most 40 characters
    (a phone's width: plotly does not wrap text)."""
    import textwrap

    fig.add_annotation(x=0.5, xref="x domain", y=0.5, yref="y domain", showarrow=False,
                       text="<br>".join(chart_text(line) for line in textwrap.wrap(text, 40)),
                       font={"size": 14, "color": "#566074"}, name=NO_LAG_SERIES)
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, row=1, col=1)


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
        ("total lag at --until", None if not lag else f"{_or_unknown(lag['total_lag'])} at {moment(doc['until_ms'])} "
                                                      "(the window's end)"),
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


def _or_unknown(value: Any) -> Any:
    return "unknown" if value is None else value


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


def owners_now(doc: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]] | None:
    """The member owning each partition now, as the group now's offsets show it (``kgroup offsets``:
    member_id, client_id, host), by (topic, partition); None where not known (:func:`owners_unknown`)."""
    now = doc["now"]
    if now is None or now.get("offsets") is None or owners_unknown(doc) is not None:
        return None
    return {(p["topic"], p["partition"]): p for p in now["offsets"]["partitions"]}


def owners_unknown(doc: dict[str, Any]) -> str | None:
    """Why the owners now are not known, else None: no group now, or a group with members that the
    broker does not name (a state other than Empty or Dead, and no member details)."""
    now = doc["now"]
    if now is None or now.get("offsets") is None:
        return now_missing(doc)
    d = now["describe"]
    if not d.get("members") and d.get("state") not in ("Empty", "Dead"):
        return f"the group is {d.get('state') or 'in no known state'} but the broker returned no member details"
    return None


def never_committed(doc: dict[str, Any]) -> list[tuple[str, int, str | None]] | None:
    """The partitions of the subscribed topics the group owns now but never committed (in the log
    up to --until, nor in the group now's offsets): (topic, partition, owner's member id) each, from
    the group now's assignment; None without the group now."""
    now = doc["now"]
    if now is None or owners_unknown(doc) is not None or (now.get("offsets") or {}).get("type") == "share":
        return None  # a share group commits nothing: no partition of it is "never committed"
    committed = {(p["topic"], p["partition"]) for p in (doc["lag"] or {}).get("partitions", [])}
    offsets = now.get("offsets")
    if offsets is not None:
        committed |= {(p["topic"], p["partition"]) for p in offsets["partitions"] if p["committed"] is not None}
    if now["describe"].get("type") == "streams":  # every input partition of the topology, owned or not
        return sorted((p["topic"], p["partition"], p["member_id"]) for p in offsets["partitions"]
                      if (p["topic"], p["partition"]) not in committed)
    owned = {(t, int(p)): m["member_id"] for m in now["describe"]["members"]
             for t, ps in (m.get("assignment") or {}).items() for p in ps}
    return sorted((t, p, m) for (t, p), m in owned.items() if (t, p) not in committed)


def _lag_tables(doc: dict[str, Any]) -> str:
    lag = doc["lag"]
    if lag is None:
        return f'<h2>Lag</h2><p class="note">No lag: {esc(doc["lag_unavailable"])}</p>' + _never_committed(doc)
    owners = owners_now(doc)
    rows = []
    for p in lag["partitions"]:
        o = (owners or {}).get((p["topic"], p["partition"]), {})
        rows.append([p["topic"], p["partition"], p["status"], p["complete"], p["lag"], p["committed"], p["end"],
                     p["consume_per_s"], p["produce_per_s"], _catch_up_cell(p),
                     len(p["points"]), "; ".join(p["unknown"]), o.get("member_id"), o.get("host"), o.get("client_id")])
    named = "; ".join(f"{s}: {', '.join(ps)}" for s, ps in sorted(lag["partitions_by_status"].items()) if s != "OK")
    notes = [f"group {lag['group']}: {lag['status']}" + (f" ({named})" if named else "")]
    notes += markers_notes((p["topic"], p["partition"], p["transaction_markers"]) for p in lag["partitions"]
                           if p.get("transaction_markers"))
    notes.append("CONSUMER-ID, HOST, CLIENT-ID: the member owning the partition now (the group now, below)"
                 if owners is not None else f"The owners now are not known: {owners_unknown(doc)}.")
    if len(rows) > MAX_ROWS:
        notes.append(f"{len(rows) - MAX_ROWS} more partitions in the data (-o json)")
    drawn = len(drawn_partitions(lag)) + len(zero_partitions(lag))
    if drawn < len(lag["partitions"]):
        notes.append(f"The chart draws the {len(drawn_partitions(lag))} partitions with the highest lag of "
                     f"{len(lag['partitions'])}, and the total of all.")
    return ("<h2>Status per partition</h2>"
            + table(["TOPIC", "PARTITION", "STATUS", "COMPLETE", "LAG", "COMMITTED", "END", "CONSUME/S", "PRODUCE/S",
                     "CATCH-UP", "POINTS", "UNKNOWN", "CONSUMER-ID", "HOST", "CLIENT-ID"], rows[:MAX_ROWS], notes=notes,
                    element_id="kgroup-status")
            + _never_committed(doc))


def _catch_up_cell(p: dict[str, Any]) -> str | None:
    """CATCH-UP on the page: caught up (saying how many offsets are transaction markers or aborted
    records, never consumed, where those are what lies between committed and end), else the
    estimate, else why there is none (as ``kgroup lag`` says it)."""
    markers = p.get("transaction_markers")
    if p["lag"] == 0 and markers:
        return f"caught up; {markers} transaction marker{'s' * (markers != 1)}"
    if p["lag"] == 0:
        return "caught up"
    if p["eta_s"] is not None and p["catching_up"]:
        return duration(int(p["eta_s"] * 1000))
    return p.get("catch_up") or ("not catching up" if p["catching_up"] is False else None)


def _never_committed(doc: dict[str, Any]) -> str:
    if ((doc["now"] or {}).get("offsets") or {}).get("type") == "share":
        return ""  # a share group commits nothing: its start offsets are under the group now
    missing = never_committed(doc)
    if missing is None:
        return (f'<p class="note" id="kgroup-never-committed">Partitions of the subscribed topics never committed: '
                f"not known ({esc(owners_unknown(doc) or now_missing(doc))}).</p>")
    if not missing:
        return ('<p class="note" id="kgroup-never-committed">Every partition the group owns now has a committed '
                "offset.</p>")
    if doc["now"]["describe"].get("type") == "streams":
        member, what = "MEMBER-ID", "input partitions of the topology"
        note = ("Input partitions (source and repartition topics) with no committed offset, in the log up to "
                "--until or the group now, and the member running their task as active (none: no member): where "
                "the application starts there depends on its auto.offset.reset.")
    else:
        member, what = "CONSUMER-ID", "partitions the group owns now"
        note = ("Owned by a member now (the group now's assignment) with no committed offset, in the log up to "
                "--until or the group now: consumption starts at auto.offset.reset. Partitions of the subscribed "
                "topics owned by no member are not known here.")
    return table(["TOPIC", "PARTITION", member], [list(m) for m in missing[:MAX_ROWS]],
                 title=f"Never committed: {len(missing)} {what}", notes=[note], element_id="kgroup-never-committed")


def _rebalance_table(doc: dict[str, Any]) -> str:
    h = doc["history"]
    rows = [[moment(r["timestamp"]), r["type"], r["generation"], r["protocol"], r["leader"], member_count(r),
             _names(r["joined"]), _names(r["left"]), moved_count(r),
             duration(r["since_previous_ms"]), r["commits"]] for r in h["rebalances"]]
    notes = [f"{len(rows)} rebalances in the window"] + (
        ["MOVED of a streams epoch: the tasks whose holders changed in its target assignment (- where the "
         "records read do not hold it)"] if any(r["type"] == "streams" for r in h["rebalances"]) else []) + (
        [f"the first {MAX_ROWS} shown; all in the data (-o json)"] if len(rows) > MAX_ROWS else [])
    return ("<h2>Rebalances</h2>"
            + table(["TIME", "TYPE", "GENERATION", "PROTOCOL", "LEADER", "MEMBERS", "JOINED", "LEFT", "MOVED",
                     "SINCE PREVIOUS", "COMMITS"], rows[:MAX_ROWS], notes=notes, element_id="kgroup-rebalances"))


def now_missing(doc: dict[str, Any]) -> str:
    """Why the document has no group now: nothing to read it from, or what the cluster answered."""
    src = doc["source"]
    if src.get("cluster") is None and src.get("snapshot") is None:
        return "it is read from a cluster (-b) or a snapshot file (--snapshot), and neither was given"
    if doc.get("now_unavailable"):
        return f"the cluster ({src.get('cluster')}) could not be asked: {doc['now_unavailable']}"
    return (f"the cluster ({src.get('cluster')}) does not know group {doc['group']} now (no state returned: "
            "deleted, expired or never created there)")


def _now(doc: dict[str, Any]) -> str:
    now = doc["now"]
    if now is None:
        return f'<h2>The group now</h2><p class="note">Not shown: {esc(now_missing(doc))}.</p>'
    if now["describe"].get("type") == "streams":
        return _streams_now(doc)
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
    if o is not None and o.get("type") == "share":  # kgroup offsets of a share group: the broker's lag now
        total = "unknown (INCOMPLETE)" if o["total_lag"] is None else o["total_lag"]
        out.append(table(["TOPIC", "PARTITION", "START-OFFSET", "LEADER-EPOCH", "LAG", "MEMBERS", "ERROR"],
                         [[p["topic"], p["partition"], p["start_offset"], p["leader_epoch"], p["lag"],
                           ", ".join(p["members"]), p["error"]] for p in o["partitions"]][:MAX_ROWS],
                         title="Share-group offsets",
                         notes=[f"total lag {total} (the broker's: end - start offset - records delivered past it)"],
                         element_id="kgroup-offsets"))
    elif o is not None:
        rows = [[p["topic"], p["partition"], p["committed"], p["log_start"], p["log_end"], p["lag"], p["member_id"],
                 p["client_id"], p["host"], p["metadata"]] for p in o["partitions"]]
        total = "unknown (INCOMPLETE)" if o["total_lag"] is None else o["total_lag"]
        out.append(table(["TOPIC", "PARTITION", "COMMITTED", "LOG-START", "LOG-END", "LAG", "MEMBER-ID", "CLIENT-ID",
                          "HOST", "METADATA"], rows[:MAX_ROWS], title="Offsets",
                         notes=[f"total lag {total}"], element_id="kgroup-offsets"))
    return "\n".join(out)


def _streams_now(doc: dict[str, Any]) -> str:
    """The group now of a streams group: as ``kgroup describe`` and ``kgroup offsets`` show it."""
    from kgroup.group.streams import compact_tasks

    now = doc["now"]
    d, o = now["describe"], now["offsets"]
    c = d["coordinator"]
    topology = d["topology"]
    out = ["<h2>The group now</h2>",
           facts([("state", d["state"]), ("type", "streams"), ("group epoch", d["group_epoch"]),
                  ("assignment epoch", d["assignment_epoch"]),
                  ("topology epoch", topology["epoch"] if topology else None),
                  ("coordinator", Broker.from_json(c).label if c else None),
                  ("offsets-log partition", doc["offsets_partition"]), ("members", len(d["members"])),
                  ("from", now["source"])])]
    if topology is None:
        out.append('<p class="note">No topology: the group has not been given one yet (its tasks and input '
                   "partitions are not known).</p>")
    else:
        out.append(table(["SUBTOPOLOGY", "SOURCE-TOPICS", "REPARTITION-SOURCE", "REPARTITION-SINK", "CHANGELOGS"],
                         [[s["subtopology_id"], ", ".join(s["source_topics"]),
                           ", ".join(t["name"] for t in s["repartition_source_topics"]),
                           ", ".join(s["repartition_sink_topics"]),
                           ", ".join(t["name"] for t in s["state_changelog_topics"])]
                          for s in topology["subtopologies"]], title="Topology", element_id="kgroup-streams-topology"))
    rows = [[m["member_id"], m["process_id"], m["client_id"], m["host"], m["member_epoch"],
             compact_tasks(m["assignment"]["active"]) or None, compact_tasks(m["assignment"]["standby"]) or None,
             compact_tasks(m["assignment"]["warmup"]) or None,
             "yes" if m["reconciling"] else "no"] for m in d["members"]]
    out.append(table(["MEMBER-ID", "PROCESS-ID", "CLIENT-ID", "HOST", "EPOCH", "ACTIVE", "STANDBY", "WARMUP",
                      "RECONCILING"], rows[:MAX_ROWS], title="Members and their tasks (SUBTOPOLOGY:PARTITIONS)",
                     element_id="kgroup-streams-members"))
    total = "unknown (INCOMPLETE)" if o["total_lag"] is None else o["total_lag"]
    out.append(table(["TASK", "TOPIC", "PARTITION", "COMMITTED", "LOG-START", "LOG-END", "LAG", "MEMBER-ID",
                      "PROCESS-ID", "HOST"],
                     [[p["task"], p["topic"], p["partition"], p["committed"], p["log_start"], p["log_end"], p["lag"],
                       p["member_id"], p["process_id"], p["host"]] for p in o["partitions"]][:MAX_ROWS],
                     title="Offsets of the input partitions", notes=[f"total lag {total}"], element_id="kgroup-offsets"))
    state_rows = [[t["task"], c["topic"], c["partition"], c["log_start"], c["log_end"], c["to_restore"],
                   ", ".join(t["active"]) or None, ", ".join(t["standby"] + t["warmup"]) or None]
                  for t in o["tasks_state"] for c in t["changelogs"]]
    if state_rows:
        out.append(table(["TASK", "CHANGELOG", "PARTITION", "LOG-START", "LOG-END", "TO-RESTORE", "ACTIVE",
                          "STANDBY/WARMUP"], state_rows[:MAX_ROWS], title="State behind each task",
                         notes=["TO-RESTORE: offsets a new owner restores from scratch (log end - log start; on a "
                                "compacted changelog the records are at most that)"],
                         element_id="kgroup-streams-state"))
    return "\n".join(out)


def render(doc: dict[str, Any]) -> str:
    """The whole page, self-contained."""
    charts = Charts()
    body = [_header(doc), "<h2>Lag, rebalances and commits</h2>", charts.div(figure(doc), CHART_ID),
            _lag_tables(doc), _rebalance_table(doc), _now(doc), embed_json(doc, DATA_ID)]
    return frame(f"kgroup report: {doc['group']}", "\n".join(body))
