"""``kgroup report``'s use case: read the group's records, its lag over the window and the group
now, and make the report's document (kgroup.report.data) from them.

Nothing here prints: warnings go through the ``warn`` callable the caller gives (the page lists
every one), -v lines through ``info``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgroup.errors import NotAuthorized, UsageError
from kgroup.offsets_log.selection import Entry

if TYPE_CHECKING:
    from kgroup.group.capture import GroupSource
    from kgroup.offsets_log.expiry import Retention
    from kgroup.kafka.cluster import Cluster
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.offsets_log.read import Progress, Warn


class NowUnavailable(Exception):
    """The cluster could not answer for the group now (its answer in ``reason``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ReportRequest:
    """What the report is of: the group, the window, where its records and its state come from."""

    group: str
    since_ms: int
    until_ms: int
    until_is_now: bool
    now_ms: int
    topics: list[str] | None
    allowed_lag: int
    input: Path | None
    snapshot: Path | None
    offsets_topic: str
    settings: ConnectionSettings | None  # None: no cluster named (a saved log only)


def entries(group: str, input_: Path | None, offsets_topic: str, settings: ConnectionSettings | None, until_ms: int,
            progress: Progress, warn: Warn) -> list[Entry]:
    """Every decoded record of the group up to ``until_ms``, from the saved log or the live one."""
    from kgroup.offsets_log.read import group_entries

    try:
        return list(group_entries(group, input_, offsets_topic, settings if input_ is None else None, until_ms,
                                  progress, warn))
    except NotAuthorized as e:
        raise NotAuthorized(f"cannot read the offsets log {offsets_topic}: {e.message}; the report is built "
                            f"from it (a saved log works too: --input)") from None


def report(request: ReportRequest, cluster: Callable[[], Cluster], version: str, warnings: Sequence[str],
           progress: Progress, warn: Warn, info: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The report's document. ``cluster()`` makes the cluster to ask (only where one is named);
    ``warnings``: the lines said so far and until the document is made (the page shows them)."""
    from kgroup.lag.history import commits_from_log
    from kgroup.offsets_log.deletions import Deletions
    from kgroup.offsets_log.replay import GroupReplay
    from kgroup.report.data import expiry_document, report_document

    r = request
    cluster_named = r.settings is not None and r.settings.bootstrap is not None
    found = entries(r.group, r.input, r.offsets_topic, r.settings, r.until_ms, progress, warn)
    if not found:
        raise UsageError(f"the offsets log holds no record of group {r.group} at or before --until")
    replay = GroupReplay(r.group)
    deletions = Deletions(replay)
    for e in found:
        replay.apply(e)
    replay.finish()
    commits = commits_from_log(found, r.group, r.until_ms, r.topics)
    retention = offset_retention(r.group, cluster if cluster_named else None)
    lag, unavailable = None, None
    if not commits and replay.type == "share":
        unavailable = (f"group {r.group} is a share group: it commits nothing to the offsets log (its positions "
                       "are kept in __share_group_state), so its lag over time is not there; its lag now, the "
                       "broker's, is under the group now")
    elif not commits:
        unavailable = f"the offsets log holds no commit of group {r.group} at or before --until"
    elif not cluster_named:
        unavailable = ("the lag needs a cluster: the log ends at past moments are asked of it (give -b with "
                       "--input)")
    else:
        from kgroup.lag.collect import lag_of
        from kgroup.lag.history import document

        answer = lag_of(cluster(), r.group, commits, replay, r.since_ms, r.until_ms, r.until_is_now, r.allowed_lag,
                        False, warn, info, retention, progress=progress)
        problems = answer.report.problems
        for line in problems[:10]:
            warn(line)
        if len(problems) > 10:
            warn(f"... and {len(problems) - 10} more")
        lag = document(answer.report, False, answer.expiries, answer.retention)  # as lag -o json
    if unavailable:
        warn(f"no lag: {unavailable}")
    try:
        now, now_unavailable = group_now(r, cluster if cluster_named else None, progress, warn), None
    except NowUnavailable as e:  # said, not fatal: a group gone since the incident is no reason to stop
        now, now_unavailable = None, e.reason
        warn(f"the group now is not shown: {e.reason}")
    source = {"cluster": r.settings.bootstrap if r.settings is not None and cluster_named else None,
              "input": str(r.input) if r.input is not None else None,
              "snapshot": str(r.snapshot) if r.snapshot is not None else None,
              "offsets_topic": r.offsets_topic if r.input is None else None,
              "now": None if now is None else now["source"]}
    return report_document(group=r.group, since_ms=r.since_ms, until_ms=r.until_ms, generated_ms=r.now_ms,
                           version=version, source=source, lag=lag, lag_unavailable=unavailable, replay=replay,
                           commits=commits, offsets_partition=found[0].raw.partition, now=now,
                           now_unavailable=now_unavailable, warnings=warnings,
                           expiry=expiry_document(replay, retention, live_state(r, now)),
                           causes=deletions.causes_json(retention))


def offset_retention(group: str, cluster: Callable[[], Cluster] | None) -> Retention:
    """The offset retention settings the expiries and the deletions' causes follow: the group's
    coordinator's when a cluster is named, else Kafka's default; the source says which and why."""
    from kgroup.offsets_log.expiry import NO_CLUSTER, coordinator_retention

    if cluster is None:
        return NO_CLUSTER
    return coordinator_retention(cluster(), group)


def live_state(r: ReportRequest, now: dict[str, Any] | None) -> str | None:
    """The group's state at --until as the cluster describes it: only when --until is now and the
    group now is the cluster's (a rebalance in progress is not in the log), a settled or rebalancing
    state (None: the log's state counts)."""
    from kgroup.kmsg.states import EMPTY, REBALANCING, STABLE

    if not r.until_is_now or now is None or now["source"] != "cluster":
        return None
    state = now["describe"]["state"]
    return state if state in (STABLE, EMPTY, *REBALANCING) else None


def group_now(r: ReportRequest, cluster: Callable[[], GroupSource] | None, progress: Progress,
              warn: Warn) -> dict[str, Any] | None:
    """The group now as describe and offsets show it, from the snapshot or the cluster; None
    without either, or when the cluster no longer knows the group (said, not fatal: a group gone
    since the incident is no reason to stop)."""
    if r.snapshot is None and cluster is None:
        return None
    from kgroup.group.documents import describe_group
    from kgroup.lag.now import offsets_group
    from kgroup.group.load import group_states

    def no_cluster() -> GroupSource:
        raise AssertionError("a snapshot is read, not a cluster")

    share_doc = None
    try:
        loaded = group_states(r.snapshot, [r.group], cluster or no_cluster, progress=progress)
    except UsageError as e:
        streams = streams_now(r, cluster, warn)
        if streams is not None:
            return streams
        if r.snapshot is not None:
            raise
        assert cluster is not None
        # a share group is not known to librdkafka's describe: asked of kgroup's own client only then
        among = getattr(cluster(), "share_groups_among", None)
        shares = among([r.group])[0] if among is not None else {}
        if r.group not in shares:
            raise NowUnavailable(e.message) from None
        from kgroup.group.share import WithShareGroups, offsets_document

        loaded = group_states(None, [r.group], lambda: WithShareGroups(cluster(), shares), offsets=False,
                              progress=progress)
        from kgroup.lag.share import share_offsets

        answer = share_offsets(cluster(), r.settings, [r.group], warn)[r.group]
        share_doc = offsets_document(shares[r.group], answer, r.topics, None)
    for line in [*loaded.notes, *loaded.problems]:
        warn(line)
    state = loaded.states.get(r.group)
    if state is None:
        return None
    if share_doc is not None:
        for u in share_doc["unknown"]:
            warn(f"{r.group} {u['topic']}-{u['partition']}: {u['reason']}")
        share_doc.pop("topic_lag")
        return {"source": "cluster", "describe": describe_group(state), "offsets": share_doc}
    offsets = offsets_group(state, None, None, r.now_ms)
    offsets.pop("topic_lag")  # as offsets -o json
    return {"source": "snapshot" if r.snapshot is not None else "cluster", "describe": describe_group(state),
            "offsets": offsets}


def streams_now(r: ReportRequest, cluster: Callable[[], GroupSource] | None, warn: Warn) -> dict[str, Any] | None:
    """The group now of a streams group (KIP-1071), as ``kgroup describe`` and ``kgroup offsets`` show
    it (their streams documents: topology, members and tasks; every input partition's offsets with
    its task and member, and the state behind each task), from a streams snapshot or asked with
    StreamsGroupDescribe; None where the group is not a streams group."""
    from kgroup.group import streams_state

    if r.snapshot is not None:
        loaded = streams_state.load(r.snapshot, [r.group])
        if loaded is None:
            return None
        states: dict[str, Any] = {r.group: loaded}
        problems: list[str] = []
    elif cluster is not None:
        states, _, problems = streams_state.described(cluster(), [r.group])
    else:
        return None
    if r.group not in states:
        return None
    state = states[r.group]
    offsets = streams_state.offsets_document(state, r.topics)  # -t: those input topics only
    problems = [*problems, *streams_state.offsets_problems(offsets)]
    for line in problems:
        warn(line)
    offsets["incomplete"] = bool(problems)
    describe = streams_state.describe_document(state)
    describe["member_count"] = len(describe["members"])  # as describe -o json of other groups says it
    return {"source": "snapshot" if r.snapshot is not None else "cluster", "describe": describe, "offsets": offsets}
