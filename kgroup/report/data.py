"""The data behind the incident report of one group: the document ``kgroup report -o json``
prints and the page embeds (docs/schemas/report.schema.json). Pure.

Its parts are the documents the other commands print, unchanged, so that each figure on the page
can be checked against them:

- ``lag``: ``kgroup lag -o json`` for the window (null when it could not be computed: the log ends
  at past moments are asked of a cluster; ``lag_unavailable`` says why);
- ``history``: ``kgroup history -o json``, its rebalances those in the window;
- ``now``: the group as ``describe -o json`` and ``offsets -o json`` show it (one group each), from
  the cluster or a snapshot file; null without either;
- ``expiry``: when Kafka deletes each committed offset under the group's state at the window's end
  (kgroup.offsets_log.expiry), with the retention used and where it comes from;

and what is drawn from them: ``total_lag`` (the group's lag over time, the sum of the partitions'
lags as they stood at each commit moment) and ``commit_rate`` (commits per time bucket per member
owning the partition at the commit's moment, from the rebalances' assignments).
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgroup.group.assignment import owners_of
from kgroup.lag.history import Commit
from kgroup.offsets_log.expiry import Retention, document, group_expiries
from kgroup.offsets_log.replay import GroupReplay, Rebalance, streams_owners

TopicPartition = tuple[str, int]

# bucket widths of the commit rate, smallest first: the first that gives at most MAX_BUCKETS wins
BUCKETS_MS = [1_000, 5_000, 10_000, 30_000, 60_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
              7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 604_800_000]
MAX_BUCKETS = 60
NO_OWNER = None  # the member of commits to a partition nobody owned (or owned unknown) at that moment


def history_document(group: str, replay: GroupReplay, since_ms: int, until_ms: int,
                     causes: Mapping[tuple[int, int], Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """``kgroup history -o json``, its rebalances those from ``since_ms`` to ``until_ms``;
    ``causes``: why each offset was deleted, by its tombstone's log position
    (kgroup.offsets_log.deletions)."""
    return {"group": group, "type": replay.type, "deleted": replay.deleted,
            "commits_before_first_rebalance": replay.commits_before,
            "rebalances": [r.to_json(causes) for r in replay.rebalances if since_ms <= r.timestamp <= until_ms]}


def expiry_document(replay: GroupReplay, retention: Retention, live_state: str | None = None) -> dict[str, Any]:
    """When Kafka deletes each committed offset the log holds for the group (``replay``: its records
    up to the window's end), under ``retention`` and the group's state then (``live_state``: as the
    cluster describes it, where that is the state then): the earliest moment and each partition's."""
    return document(group_expiries(replay, retention, live_state), retention)


def total_lag(lag: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The group's lag at each commit moment of any partition: the sum, over the partitions that
    had a point by then, of each one's lag at its latest point (null when one of those is
    unknown). ``lag`` is a ``kgroup lag -o json`` document."""
    events = sorted((pt["time_ms"], i, pt["lag"]) for i, p in enumerate(lag["partitions"]) for pt in p["points"])
    current: dict[int, int | None] = {}
    total, unknown = 0, 0
    out: list[dict[str, Any]] = []
    for k, (t, i, value) in enumerate(events):
        old = current.get(i, 0)
        if i in current and old is None:
            unknown -= 1
        elif old is not None:
            total -= old
        current[i] = value
        if value is None:
            unknown += 1
        else:
            total += value
        if k + 1 == len(events) or events[k + 1][0] != t:
            out.append({"time_ms": t, "lag": None if unknown else total})
    return out


def bucket_ms(since_ms: int, until_ms: int) -> int:
    span = max(1, until_ms - since_ms)
    return next((b for b in BUCKETS_MS if -(-span // b) <= MAX_BUCKETS), BUCKETS_MS[-1])


def _owner_timeline(rebalances: Sequence[Rebalance]) -> tuple[list[int], list[dict[TopicPartition, str]]]:
    """For each rebalance (in log order) its moment and who owned each partition from then on."""
    times: list[int] = []
    owners: list[dict[TopicPartition, str]] = []
    for r in rebalances:
        pairs: Iterable[tuple[str, Mapping[str, Iterable[int]] | None]] = (
            (m.member_id, m.assignment if r.type == "classic" or m.assignment else m.target_assignment)
            for m in r.members)
        times.append(r.timestamp)
        if r.type == "streams":  # the members' active tasks and their subtopologies' input topics
            owners.append(streams_owners(r.member_tasks, r.topology))
            continue
        owners.append({} if r.type == "deleted" else owners_of(pairs))
    return times, owners


def commit_rate(commits: Mapping[TopicPartition, Sequence[Commit]], rebalances: Sequence[Rebalance],
                since_ms: int, until_ms: int) -> dict[str, Any]:
    """Commits from ``since_ms`` to ``until_ms`` counted per bucket of ``bucket_ms`` and per member
    that owned the committed partition at the commit's moment (by the last rebalance before it;
    ``member`` null: no owner known), members with the most commits first. The buckets span the
    commits, not the window (three minutes of commits in a day's window get 5 s buckets, not
    30 min ones): ``start_ms``, the first bucket's start, is the first commit's moment rounded down
    to a multiple of the width (``since_ms`` when there is no commit)."""
    moments = [c.time_ms for cs in commits.values() for c in cs if since_ms <= c.time_ms <= until_ms]
    first, last = (min(moments), max(moments)) if moments else (since_ms, until_ms)
    width = bucket_ms(first, last)
    start = max(since_ms, first - first % width) if moments else since_ms
    n = max(1, (last - start) // width + 1) if moments else max(1, -(-(until_ms - since_ms) // width))
    times, owners = _owner_timeline(rebalances)
    counts: dict[str | None, list[int]] = {}
    for tp, cs in commits.items():
        for c in cs:
            if not since_ms <= c.time_ms <= until_ms:
                continue
            k = bisect_right(times, c.time_ms) - 1
            member = owners[k].get(tp, NO_OWNER) if k >= 0 else NO_OWNER
            row = counts.setdefault(member, [0] * n)
            row[min(n - 1, (c.time_ms - start) // width)] += 1
    series = [{"member": m, "commits": sum(row), "counts": row}
              for m, row in sorted(counts.items(), key=lambda kv: (-sum(kv[1]), kv[0] is None, kv[0] or ""))]
    return {"start_ms": start, "bucket_ms": width, "buckets": n, "series": series}


def report_document(*, group: str, since_ms: int, until_ms: int, generated_ms: int, version: str,
                    source: Mapping[str, Any], lag: dict[str, Any] | None, lag_unavailable: str | None,
                    replay: GroupReplay, commits: Mapping[TopicPartition, Sequence[Commit]],
                    offsets_partition: int | None, now: dict[str, Any] | None,
                    warnings: Sequence[str], expiry: dict[str, Any], now_unavailable: str | None = None,
                    causes: Mapping[tuple[int, int], Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The report's document. ``source``: what was asked of (``cluster``: the bootstrap servers,
    ``input``, ``snapshot``, ``offsets_topic``); ``offsets_partition``: the offsets-log partition
    the group's records were read from; ``warnings``: every warning the commands printed;
    ``expiry``: :func:`expiry_document`; ``now_unavailable``: the cluster's answer where it could
    not tell the group now;
    ``causes``: why each offset was deleted (the history's)."""
    incomplete = bool(lag is not None and lag["incomplete"]) or bool(
        now is not None and now.get("offsets") is not None and now["offsets"]["incomplete"])
    return {"kgroup_report": 1, "kgroup_version": version, "generated_ms": generated_ms, "group": group,
            "since_ms": since_ms, "until_ms": until_ms, "source": dict(source),
            "offsets_partition": offsets_partition,
            "lag": lag, "lag_unavailable": lag_unavailable,
            "total_lag": total_lag(lag) if lag is not None else [],
            "history": history_document(group, replay, since_ms, until_ms, causes),
            "expiry": expiry,
            "commit_rate": commit_rate(commits, replay.rebalances, since_ms, until_ms),
            "now": now, "now_unavailable": now_unavailable, "warnings": list(warnings), "incomplete": incomplete}
