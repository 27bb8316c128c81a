"""Pure finishing logic of kgroup scan: per-group flags, coordinator load, the summary,
and the rows printed. No Spark here: the pipeline hands plain values in.

Definitions (the JSON keys are documented in docs/scan.md):
- a *rebalance* is a new generation (classic) or group epoch (consumer, share, streams):
  each distinct value first seen in the window counts once (kgroup.offsets_log.rebalance);
- ``storm``: some 60-minute span holds at least ``--storm`` rebalances;
- ``stale``: the group committed in the window, is not deleted, and its last commit
  (largest commit timestamp) is older than ``now - --stale-after``; ``now`` is
  ``--until`` when given, else the newest record's timestamp (the log's present);
- ``expires_ms``: the earliest moment Kafka deletes one of the group's committed offsets under
  the state the group is in at its last record in the window (kgroup.offsets_log.expiry's rule,
  computed by the merge), None when none goes; ``expiring``: that moment is at or before
  ``now + --expiry-warn`` (one already passed counts: Kafka deletes the offset at its next check);
- ``hot``: an offsets-log partition or broker carrying more than 1.5 times the mean
  commit records.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

HOUR_MS = 3_600_000
HOT_FACTOR = 1.5
DEFAULT_EXPIRY_WARN_MS = 24 * HOUR_MS
TYPE_OF_KIND = {"group": "classic", "consumer": "consumer", "regex": "consumer", "share": "share",
                "streams": "streams"}


@dataclass
class Window:
    """The time the report covers, in epoch ms."""

    since_ms: int | None
    until_ms: int | None
    first_ms: int | None  # oldest record in the window
    last_ms: int | None   # newest record in the window

    @property
    def now_ms(self) -> int | None:
        return self.until_ms if self.until_ms is not None else self.last_ms

    @property
    def seconds(self) -> float:
        start = self.since_ms if self.since_ms is not None else self.first_ms
        end = self.now_ms
        if start is None or end is None:
            return 1.0
        return max(1.0, (end - start) / 1000)


def max_in_span(times: list[int], span_ms: int = HOUR_MS) -> int:
    """The most events inside any ``span_ms``-long interval (both ends inclusive of
    events less than ``span_ms`` apart)."""
    ts = sorted(times)
    best = 0
    for i, t in enumerate(ts):
        j = bisect_left(ts, t - span_ms + 1, 0, i + 1)
        best = max(best, i - j + 1)
    return best


@dataclass
class GroupFacts:
    """What the pipeline gathered about one group (plain values)."""

    group: str
    offsets_partition: int
    commits: int = 0
    first_commit_ms: int | None = None
    last_commit_ms: int | None = None
    partitions: int = 0
    rewinds: int = 0
    last_kind: str | None = None          # kind of the group's last group-state record
    last_meta_type: int | None = None     # type of the last generation-carrying record
    last_meta_tombstone: bool | None = None
    generation: int | None = None          # last generation / epoch with a value
    classic_protocol: str | None = None    # protocol of the last classic GroupMetadata value
    classic_members: int | None = None     # members of that value
    live_members: int | None = None        # KIP-848 members whose last record has a value
    member_protocol: str | None = None     # a live member's server assignor
    rebalance_times: list[int] = field(default_factory=list)
    expires_ms: int | None = None          # the earliest moment one of its committed offsets expires


def group_row(f: GroupFacts, window: Window, stale_after_ms: int, storm: int,
              expiry_warn_ms: int = DEFAULT_EXPIRY_WARN_MS) -> dict[str, Any]:
    gtype = TYPE_OF_KIND.get(f.last_kind or "", "classic")
    deleted = bool(f.last_meta_tombstone)
    if gtype == "classic":
        protocol, members = f.classic_protocol, f.classic_members
    else:
        protocol, members = f.member_protocol, f.live_members
    if deleted:
        members = 0
    now = window.now_ms
    stale: bool | None = (not deleted and f.commits > 0 and now is not None and f.last_commit_ms is not None
                          and f.last_commit_ms < now - stale_after_ms)
    if gtype == "share" and not f.commits:
        stale = None  # a share group commits nothing to the offsets log: "no commit for long" says nothing of it
    return {
        "group": f.group, "type": gtype, "protocol": protocol, "offsets_partition": f.offsets_partition,
        "generation": f.generation, "member_count": members if members is not None else 0, "commits": f.commits,
        "commits_per_hour": round(f.commits * 3600 / window.seconds, 3),
        "first_commit_ms": f.first_commit_ms, "last_commit_ms": f.last_commit_ms,
        "rebalance_count": len(f.rebalance_times), "partition_count": f.partitions, "rewinds": f.rewinds,
        "deleted": deleted, "stale": stale, "storm": max_in_span(f.rebalance_times) >= storm,
        "expires_ms": f.expires_ms, "expiring": expiring(f.expires_ms, now, expiry_warn_ms),
    }


def type_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Groups per type (classic, consumer, share, streams), every type named even at 0."""
    counts = dict.fromkeys(("classic", "consumer", "share", "streams"), 0)
    for r in rows:
        counts[r["type"]] = counts.get(r["type"], 0) + 1
    return counts


def expiring(expires_ms: int | None, now_ms: int | None, warn_ms: int) -> bool:
    """An expiry at or before ``now + warn`` (already passed counts: Kafka deletes at its next check)."""
    return expires_ms is not None and now_ms is not None and expires_ms <= now_ms + warn_ms


def coordinator_rows(per_partition: dict[int, dict[str, Any]], window: Window) -> list[dict[str, Any]]:
    """One row per offsets-log partition with records: ``per_partition[p]`` holds
    groups, records, commits, bytes."""
    seconds = window.seconds
    mean = (sum(v["commits"] for v in per_partition.values()) / len(per_partition)) if per_partition else 0
    rows = []
    for p in sorted(per_partition):
        v = per_partition[p]
        rows.append({"offsets_partition": p, "group_count": v["groups"], "records": v["records"],
                     "commits": v["commits"], "commits_per_s": round(v["commits"] / seconds, 3),
                     "bytes_per_s": round(v["bytes"] / seconds, 3), "hot": v["commits"] > HOT_FACTOR * mean})
    return rows


def broker_rows(per_partition: dict[int, dict[str, Any]], leaders: dict[int, int | None], brokers: dict[int, tuple[str, int]],
                window: Window) -> list[dict[str, Any]]:
    """Load per broker, by the offsets-log partitions it leads (every broker counts in the mean)."""
    seconds = window.seconds
    load = {b: {"partitions": 0, "groups": 0, "commits": 0, "bytes": 0} for b in brokers}
    for p, leader in leaders.items():
        if leader is None or leader not in load:
            continue
        load[leader]["partitions"] += 1
        v = per_partition.get(p)
        if v:
            for k in ("groups", "commits", "bytes"):
                load[leader][k] += v[k]
    mean = (sum(v["commits"] for v in load.values()) / len(load)) if load else 0
    return [{"id": b, "host": brokers[b][0], "port": brokers[b][1], "partition_count": v["partitions"],
             "group_count": v["groups"], "commits": v["commits"], "commits_per_s": round(v["commits"] / seconds, 3),
             "bytes_per_s": round(v["bytes"] / seconds, 3), "hot": v["commits"] > HOT_FACTOR * mean}
            for b, v in sorted(load.items())]


def error_entries(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The undecodable records as ``summary.errors`` lists them: the record type their key
    begins with is ``record_type`` (``type`` is the group's type in the document)."""
    return [{"partition": e["partition"], "offset": e["offset"], "record_type": e["type"], "error": e["error"]}
            for e in errors]


def group_lag(committed: list[tuple[str, str, int, int]], ends: dict[tuple[str, int], int | None],
              undeliverable: dict[str, dict[tuple[str, int], int]] | None = None) -> dict[str, int | None]:
    """Lag per group now: sum over its committed partitions of (log end - committed); None when
    the end of one of them is unknown, or its committed offset is no offset (negative, or beyond
    the log end: never floored to 0). ``undeliverable``: per group, the partitions whose offsets
    between committed and end hold no record a consumer gets (transaction markers, aborted
    records), with how many: where that is the partition's whole lag, it counts 0."""
    from kgroup.lag.history import point_lag

    skipped = undeliverable or {}
    out: dict[str, int | None] = {}
    for group, topic, partition, offset in committed:
        if group in out and out[group] is None:
            continue
        so_far = out.get(group, 0)
        lag = point_lag(offset, ends.get((topic, partition)))[0]
        if lag and skipped.get(group, {}).get((topic, partition)) == lag:
            lag = 0
        out[group] = None if lag is None or so_far is None else so_far + lag
    return out


def lag_unknown(committed: list[tuple[str, str, int, int]], ends: dict[tuple[str, int], int | None],
                unknown: dict[tuple[str, int], str]) -> dict[str, str]:
    """Why each group whose lag is unknown has it so (the first of its partitions that makes it):
    a topic or partition the cluster no longer has, a log end it did not give (``unknown``: why,
    per partition), or a committed offset that is no offset (negative, or beyond the log end).
    ``ends`` holds every partition the cluster has."""
    from kgroup.lag.history import point_lag

    topics = {t for t, _ in ends}
    out: dict[str, str] = {}
    for group, topic, partition, offset in committed:
        if group in out:
            continue
        tp = (topic, partition)
        if tp not in ends:
            out[group] = (f"topic {topic} does not exist" if topic not in topics
                          else f"partition {topic}-{partition} does not exist")
        elif ends[tp] is None:
            out[group] = f"the log end of {topic}-{partition} is unknown ({unknown.get(tp, 'not answered')})"
        else:
            wrong = point_lag(offset, ends[tp])[1]
            if wrong is not None:
                out[group] = f"{topic}-{partition}: {wrong}"
    return out


def top_groups(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The rows worth a look first: storms, stale groups, groups whose offsets expire soon, then by
    rebalances and commits."""
    return sorted(rows, key=lambda r: (not r["storm"], not r["stale"], not r.get("expiring"), -r["rebalance_count"],
                                       -r["commits"], r["group"]))[:n]


def top_coordinators(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (-r["commits"], -r["bytes_per_s"], r.get("offsets_partition", r.get("id"))))[:n]


def unreadable_commits(cuts: list[dict[str, Any]]) -> dict[str, dict[tuple[str, int], list[Any]]]:
    """The commit records that are no commit to read (kgroup.scan.merge.Merged.cuts), per group and
    partition, as kgroup.lag.history.Unreadable: ``after`` is where it stands among the commits
    (0: before the last readable one; a large number: after every one, as the status evaluation
    reads it against the partition's commits)."""
    from kgroup.lag.history import Unreadable

    out: dict[str, dict[tuple[str, int], list[Any]]] = {}
    for c in sorted(cuts, key=lambda c: (c["partition"], c["offset"])):
        out.setdefault(c["group"], {}).setdefault((c["topic"], c["topic_partition"]), []).append(
            Unreadable(c["partition"], c["offset"], c["error"], -1 if c["last"] else 0, c["detail"]))
    return out


def cut_reasons(cuts: list[dict[str, Any]]) -> dict[str, str]:
    """Why each group with a commit record that is no commit to read is incomplete (its first such
    record, by log position), as ``kgroup lag`` says it: ``{group: "topic-partition: why"}``."""
    out: dict[str, str] = {}
    for group, parts in unreadable_commits(cuts).items():
        (topic, partition), us = min(parts.items(), key=lambda kv: (kv[1][0].log_partition, kv[1][0].log_offset))
        out[group] = f"{topic}-{partition}: {us[0].reason(us[0].after == -1)}"
    return out


def marker_rounds(committed: list[tuple[str, str, int, int]], ends: dict[tuple[str, int], int | None]
                  ) -> list[dict[tuple[str, int], tuple[str, int, int]]]:
    """The partitions whose lag now may be nothing but transaction markers or aborted records
    (0 < lag <= kgroup.lag.now.MARKER_CHECK_MAX), to be read: in rounds, each partition at most
    once a round (a read starts each partition at one committed offset), ``{(topic, partition):
    (group, committed, end)}``."""
    from kgroup.lag.now import MARKER_CHECK_MAX

    rounds: list[dict[tuple[str, int], tuple[str, int, int]]] = []
    for group, topic, partition, offset in committed:
        end = ends.get((topic, partition))
        if end is None or not 0 <= offset < end <= offset + MARKER_CHECK_MAX:
            continue
        tp = (topic, partition)
        free = next((r for r in rounds if tp not in r), None)
        if free is None:
            free = {}
            rounds.append(free)
        free[tp] = (group, offset, end)
    return rounds


def group_statuses(tails: dict[str, dict[tuple[str, int], list[Any]]], ends: Any, until_ms: int,
                   until_is_now: bool, unreadable: dict[str, dict[tuple[str, int], list[Any]]] | None = None,
                   undeliverable: dict[str, dict[tuple[str, int], int]] | None = None
                   ) -> dict[str, tuple[str | None, float, list[str]]]:
    """Each group's status by Burrow's rules, as ``kgroup lag`` computes it (the same window and
    rules: kgroup.lag.history.evaluate over the same commits; ``unreadable``: per group, its commit
    records that are no commit, see :func:`unreadable_commits`): ``{group: (status, complete,
    problems)}``; the status is None when no partition's could be known."""
    from kgroup.lag.history import evaluate

    out: dict[str, tuple[str | None, float, list[str]]] = {}
    for group, commits in tails.items():
        cut = {tp: [u._replace(after=len(commits[tp])) if u.after == -1 and tp in commits else u for u in us]
               for tp, us in (unreadable or {}).get(group, {}).items()}
        r = evaluate(group, commits, ends, until_ms, until_ms, until_is_now, unreadable=cut,
                     undeliverable=(undeliverable or {}).get(group) if until_is_now else None)
        known = any(p.status is not None for p in r.partitions)
        out[group] = (r.status if known else None, r.complete, r.problems)
    return out


def status_moments(tails: dict[str, dict[tuple[str, int], list[Any]]], until_ms: int,
                   until_is_now: bool) -> dict[tuple[str, int], list[int]]:
    """Every moment whose log end some group's status needs, per data partition (one ListOffsets
    slot per moment rank: the partitions' k-th moments go together)."""
    from kgroup.lag.history import moments

    out: dict[tuple[str, int], set[int]] = {}
    for commits in tails.values():
        for tp, ts in moments(commits, until_ms, until_ms, until_is_now).items():
            out.setdefault(tp, set()).update(ts)
    return {tp: sorted(ts) for tp, ts in out.items()}
