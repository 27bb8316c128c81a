"""What ``lag`` and ``report`` read before they evaluate: the group's commits (from the offsets
log, live or saved), the log ends at each moment that matters, the record timestamps of
``--time-lag``, and the live samples of ``--watch``.

The use cases behind the commands, over the cluster layer; the evaluation itself is
kgroup.lag.history's. Nothing here prints: what needs saying goes through the ``warn`` (and,
with -v, ``info``) callables the caller gives.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kgroup.errors import NotAuthorized, TopicMissing
from kgroup.offsets_log.expiry import Expiry, Retention
from kgroup.lag.history import (Commit, EndsAt, LagReport, TopicPartition, Watch, commits_from_log, evaluate, moments,
                                time_lag_positions)

if TYPE_CHECKING:
    from kgroup.lag.ends import LogSource
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.offsets_log.read import Progress, Warn
    from kgroup.offsets_log.replay import GroupReplay

Commits = dict[TopicPartition, list[Commit]]


def read_commits(group: str, topics: list[str] | None, until_ms: int, input_: Path | None, offsets_topic: str,
                 settings: ConnectionSettings | None, progress: Progress, warn: Warn,
                 watch_hint: bool = False, keep: list[Any] | None = None) -> Commits:
    """The group's commits per partition up to ``until_ms``, from the saved log ``input_`` or the
    live one. A live log this principal may not read says what works without it (``watch_hint``:
    ``lag --watch`` samples the lag live)."""
    from kgroup.offsets_log.read import group_entries

    try:
        entries = group_entries(group, input_, offsets_topic, settings, until_ms, progress, warn)
        if keep is not None:  # every entry read is also kept for the caller
            entries = _kept(entries, keep)
        return commits_from_log(entries, group, until_ms, topics)
    except NotAuthorized as e:
        if not watch_hint:
            raise
        raise NotAuthorized(f"cannot read the offsets log {offsets_topic}: {e.message}; "
                            f"'kgroup lag {group} --watch' samples the lag live without it") from None


def _kept(entries: Iterable[Any], into: list[Any]) -> Iterator[Any]:
    for e in entries:
        into.append(e)
        yield e


def ends_for_commits(cluster: LogSource, commits: Mapping[TopicPartition, list[Commit]], since_ms: int,
                     until_ms: int, until_is_now: bool, warn: Warn,
                     info: Callable[[str], None] | None = None, progress: Progress | None = None) -> EndsAt:
    """The log ends :func:`kgroup.lag.history.evaluate` needs, asked of the cluster; ``info``
    (with -v) hears where the cluster's answers by timestamp had to be checked against records,
    ``progress`` how many of the moments are answered."""
    from kgroup.lag.ends import log_ends_at

    answer = log_ends_at(cluster, moments(commits, since_ms, until_ms, until_is_now), progress)
    now = {tp: answer.bounds[tp].end if tp in answer.bounds else None for tp in commits}
    stats = answer.stats
    if info is not None and stats.searched:
        info(f"the cluster's ListOffsets answers by timestamp did not match its records for {stats.searched} of "
             f"{stats.checked} moments; kgroup found those from the records themselves")
    for line in answer.problems:
        warn(line)
    return EndsAt.found(answer.ends, now)


def record_times(cluster: LogSource, commits: Mapping[TopicPartition, list[Commit]], ends: EndsAt, since_ms: int,
                 until_ms: int, until_is_now: bool) -> dict[tuple[str, int, int], int]:
    """For ``--time-lag``: the timestamp of the record at each committed offset with lag."""
    draft = evaluate("", commits, ends, since_ms, until_ms, until_is_now)
    from kgroup.lag.ends import record_timestamps

    return record_timestamps(cluster, time_lag_positions(draft))


def never_consumed(cluster: Any, positions: Mapping[TopicPartition, tuple[int, int]]) -> dict[TopicPartition, int]:
    """Of the partitions at ``positions`` (``{tp: (committed, log end)}``, kgroup.lag.now's
    marker_positions), those where a consumer of committed records would get nothing between
    committed and log end (all transaction markers or records of aborted transactions: the cluster's
    ``deliverable`` read says so), with how many offsets that is: their lag will never be consumed.
    What the read could not decide (a transaction still open, a read that failed) is left out: its
    lag stays."""
    if not positions:
        return {}
    found = cluster.deliverable(positions)
    return {tp: end - committed for tp, (committed, end) in positions.items() if found.get(tp) is False}


def markers_at_until(cluster: Any, report: Any) -> dict[TopicPartition, int]:
    """:func:`never_consumed` of a lag report's partitions at --until (now): those whose lag
    there is at most kgroup.lag.now.MARKER_CHECK_MAX, read from their last committed offset."""
    from kgroup.lag.now import MARKER_CHECK_MAX

    return never_consumed(cluster, {(p.topic, p.partition): (p.committed, p.end) for p in report.partitions
                                    if p.lag and p.lag <= MARKER_CHECK_MAX and p.committed is not None
                                    and p.end is not None})


def start_watch(group: str, topics: list[str] | None, now_ms: int, since_offset_ms: int, input_: Path | None,
                offsets_topic: str, settings: ConnectionSettings, progress: Progress, warn: Warn,
                info: Callable[[str], None] | None = None) -> Watch:
    """``lag --watch``'s first state: the group's commits and log ends over the window before now,
    from the offsets log; where the live log is refused or missing, an empty watch (said once): the
    lag is then sampled from now on. A file given is read, or its fault said, and a cluster out of
    reach is said as such."""
    from kgroup.kafka.cluster import connect

    try:
        commits = read_commits(group, topics, now_ms, input_, offsets_topic, settings if input_ is None else None,
                               progress, warn)
        if not commits:
            return Watch(group, commits, None)
        ends = ends_for_commits(connect(settings), commits, now_ms + since_offset_ms, now_ms, True, warn, info,
                                progress)
        return Watch(group, commits, ends)
    except (NotAuthorized, TopicMissing) as e:
        if input_ is not None:
            raise
        warn(f"the offsets log cannot be read ({e.message}); the lag is sampled from now on")
        return Watch(group)


def sample(settings: ConnectionSettings, group: str, topics: list[str] | None, logged: Iterable[TopicPartition] = ()
           ) -> tuple[dict[TopicPartition, int | None], dict[TopicPartition, int | None], GroupNow]:
    """The group's committed offsets and log ends now, read as ``kgroup offsets`` reads them, and
    the group now from the same description (:func:`group_now_of`; ``logged``: the partitions with a
    commit in the log); a new client each time, so that --timeout bounds each sample."""
    from kgroup.group.capture import capture
    from kgroup.kafka.cluster import connect

    cluster = connect(settings)
    found = capture(cluster, [group], topics=topics)
    state = found.states[group]
    pairs = [((t, p), o) for t, parts in state.offsets.items() for p, o in parts.items()]
    return ({tp: o.committed for tp, o in pairs}, {tp: o.log_end for tp, o in pairs},
            streams_now(cluster, state, topics, logged) or group_now_of(state, topics, logged))


def watch_report(settings: ConnectionSettings, watch: Watch, since_ms: int, allowed_lag: int) -> LagReport:
    """``lag --watch``'s report at its last sample: as at --until now, a lag of nothing but
    transaction markers or aborted records (read from the cluster, :func:`markers_at_until`) is
    none, and the status follows."""
    from kgroup.kafka.cluster import connect

    report = watch.report(since_ms, allowed_lag)
    skipped = markers_at_until(connect(settings), report) if any(
        p.lag and p.committed is not None for p in report.partitions) else {}
    return watch.report(since_ms, allowed_lag, undeliverable=skipped) if skipped else report


def read_history(group: str, topics: list[str] | None, until_ms: int, input_: Path | None, offsets_topic: str,
                 settings: ConnectionSettings | None, progress: Progress, warn: Warn,
                 watch_hint: bool = False) -> tuple[Commits, GroupReplay]:
    """:func:`read_commits`, and the group's records up to ``until_ms`` folded (its state then: what
    offset expiry follows)."""
    from kgroup.offsets_log.replay import GroupReplay

    entries: list[Any] = []
    commits = read_commits(group, topics, until_ms, input_, offsets_topic, settings, progress, warn, watch_hint,
                           keep=entries)
    replay = GroupReplay(group)
    for e in entries:
        replay.apply(e)
    replay.finish()
    return commits, replay


def expiring(expiries: Mapping[TopicPartition, Expiry], by_ms: int) -> list[tuple[TopicPartition, int]]:
    """The offsets that go at or before ``by_ms`` (already due included), earliest first."""
    return sorted(((tp, e.expires_ms) for tp, e in expiries.items() if e.expires_ms is not None
                   and e.expires_ms <= by_ms), key=lambda x: (x[1], x[0]))


def groups_expiries(states: Mapping[str, Any], wanted: Iterable[str], offsets_topic: str,
                    settings: ConnectionSettings, cluster: Any, progress: Progress, warn: Warn
                    ) -> tuple[dict[str, dict[TopicPartition, Expiry]], dict[str, Retention], str | None]:
    """``offsets``' expiry of the groups ``wanted`` (GroupStates in ``states``): each one's records
    read in one pass over the offsets log, under its state now (as described) and its coordinator's
    retention settings. Third: why the expiries are unknown (the log cannot be read), else None."""
    from kgroup.errors import NotAuthorized
    from kgroup.offsets_log.expiry import group_expiries, retention_of
    from kgroup.offsets_log.read import group_replays

    wanted = [g for g in dict.fromkeys(wanted) if g in states]
    if not wanted:
        return {}, {}, None
    try:
        replays = group_replays(wanted, None, offsets_topic, settings, progress, warn)
    except (NotAuthorized, TopicMissing) as e:
        return {}, {}, f"cannot read the offsets log {offsets_topic}: {e.message}"
    by_broker: dict[int | None, Retention] = {}
    expiries, retentions = {}, {}
    for g in wanted:
        desc = states[g].group
        broker = desc.coordinator.id if desc.coordinator is not None else None
        if broker not in by_broker:
            by_broker[broker] = retention_of(cluster, broker)
        retentions[g] = by_broker[broker]
        expiries[g] = group_expiries(replays[g], retentions[g], live_state=desc.state)
    return expiries, retentions, None


class StreamsOffsets(NamedTuple):
    """``offsets`` of streams groups: their documents (kgroup.group.streams_state.offsets_document,
    with ``expiry`` where asked), each group's expiries and retention, what could not be read, and
    why the expiries are unknown (None: known or not asked)."""

    documents: list[dict[str, Any]]
    expiries: dict[str, dict[TopicPartition, Expiry]]
    retentions: dict[str, Retention]
    problems: list[str]
    expiry_unknown: str | None


def streams_offsets(states: Mapping[str, Any], cluster: Any | None, settings: ConnectionSettings | None,
                    topics: list[str] | None, time_lag: bool, expiry: bool, offsets_topic: str, now_ms: int,
                    progress: Progress, warn: Warn) -> StreamsOffsets:
    """The offsets of streams groups (StreamsStates): of ``topics`` only when given; with the time
    lag (the records at the committed offsets read from ``cluster``) when asked; with when each
    committed offset expires for the Empty groups, or all with ``expiry`` (their records in the
    offsets log, their coordinator's retention). ``cluster`` None (a snapshot): neither is read."""
    from kgroup.group.streams_state import offsets_document, offsets_problems, time_lag_positions
    from kgroup.kmsg.states import EMPTY
    from kgroup.offsets_log.expiry import document as expiry_document

    timestamps = None
    if time_lag and cluster is not None:
        positions = {tp: o for s in states.values() for tp, o in time_lag_positions(s).items()}
        timestamps = cluster.first_record_timestamps(positions) if positions else {}
    docs = [offsets_document(s, topics, timestamps, now_ms) for s in states.values()]
    expiries: dict[str, dict[TopicPartition, Expiry]] = {}
    retentions: dict[str, Retention] = {}
    unknown = None
    wanted = [g for g, s in states.items() if expiry or s.group.state == EMPTY]
    if cluster is not None and settings is not None and wanted:
        expiries, retentions, unknown = groups_expiries(states, wanted, offsets_topic, settings, cluster, progress,
                                                        warn)
    for d in docs:
        if d["group"] in expiries:
            shown = {(r["topic"], r["partition"]) for r in d["partitions"]}
            expiries[d["group"]] = {tp: e for tp, e in expiries[d["group"]].items() if tp in shown}
            d["expiry"] = expiry_document(expiries[d["group"]], retentions[d["group"]])
    return StreamsOffsets(docs, expiries, retentions, [p for d in docs for p in offsets_problems(d)], unknown)


class Owner(NamedTuple):
    """The member that owns a partition now, as kafka-consumer-groups.sh --describe shows it; of a
    streams group, also the task (SUBTOPOLOGY_PARTITION) the member runs as active for it."""

    member_id: str
    client_id: str
    host: str
    task: str | None = None

    def to_json(self) -> dict[str, str]:
        out = self._asdict()
        if self.task is None:
            out.pop("task")
        return out


class GroupNow(NamedTuple):
    """What the group's live description says beside the lag: the owner of each assigned
    partition (a partition of no member: absent), the partitions of its subscribed topics it has
    never committed (no commit in the log up to --until, none now) with their log end now (None:
    unknown), and ``unknown``: why neither is known (then both are empty), else None."""

    owners: dict[TopicPartition, Owner]
    never_committed: dict[TopicPartition, int | None]
    unknown: str | None = None
    state: str | None = None  # the group's state now, as described


def group_now(cluster: Any, group: str, topics: list[str] | None, committed: Iterable[TopicPartition]) -> GroupNow:
    """The group's owners now and its never-committed partitions (:class:`GroupNow`), from its
    live description and committed offsets, read as ``kgroup offsets`` reads them (the
    partitions of the subscribed topics, or of ``topics``). ``committed``: the partitions with a
    commit in the log."""
    from kgroup.errors import KgroupError, UnknownGroup
    from kgroup.group.capture import capture

    try:
        found = capture(cluster, [group], topics=topics)
    except UnknownGroup:  # no member, no subscription: nobody owns a partition, none is expected to be committed
        return GroupNow({}, {}, None, None)
    except KgroupError as e:
        return GroupNow({}, {}, f"the group's description could not be read: {e.message}")
    state = found.states.get(group)
    if state is None:
        why = "; ".join(found.problems) or "the cluster does not know the group now"
        return GroupNow({}, {}, why)
    return streams_now(cluster, state, topics, committed) or group_now_of(state, topics, committed)


def streams_now(cluster: Any, state: Any, topics: list[str] | None,
                committed: Iterable[TopicPartition]) -> GroupNow | None:
    """The group now of a streams group (KIP-1071), which Kafka describes as Dead to DescribeGroups
    although it commits: each input partition's owner is the member holding its task as active
    (StreamsGroupDescribe through kgroup's own client), with the task, and the input partitions of
    its topology (of ``topics`` only, when given) never committed, with their log end now (None:
    not read). None where the group is not such a group."""
    from kgroup.errors import KgroupError
    from kgroup.group.streams import StreamsGroup, active_owners, input_partitions
    from kgroup.kmsg.states import DEAD

    describe = getattr(cluster, "describe_streams_groups", None)
    if state.group.state != DEAD or not state.offsets or describe is None:
        return None
    try:
        answer = (describe([state.group.group_id]) or {}).get(state.group.group_id)
    except KgroupError as e:
        return GroupNow({}, {}, f"the streams group's description could not be read: {e.message}")
    if not isinstance(answer, StreamsGroup) or answer.topology is None:
        return None
    partitions_of = {t: layout.partitions for t, layout in state.topics.items()}
    subs = {s.subtopology_id: s for s in answer.topology.subtopologies}
    members = {m.member_id: m for m in answer.members}
    owners: dict[TopicPartition, Owner] = {}
    for (sub_id, p), member_id in active_owners(answer).items():
        m = members[member_id]
        for tp in input_partitions(subs[sub_id], p, partitions_of) if sub_id in subs else []:
            owners[tp] = Owner(member_id, m.client_id, m.client_host, f"{sub_id}_{p}")
    seen = set(committed) | {(t, p) for t, parts in state.offsets.items() for p, o in parts.items()
                             if o.committed is not None}
    inputs = {(t, p) for s in subs.values() for t in s.input_topics for p in range(partitions_of.get(t, 0))
              if topics is None or t in topics}
    never = sorted(inputs - seen)
    ends: dict[TopicPartition, tuple[int | None, int | None]] = {}
    if never:
        try:  # a partition whose end could not be read keeps None: shown unknown, never guessed
            ends = cluster.log_offsets(never)[0]
        except KgroupError:
            pass
    return GroupNow(owners, {tp: ends.get(tp, (None, None))[1] for tp in never}, None, answer.state)


def group_now_of(state: Any, topics: list[str] | None, committed: Iterable[TopicPartition]) -> GroupNow:
    """:class:`GroupNow` from a group's captured state (its description and committed offsets now)."""
    from kgroup.kmsg.states import DEAD, EMPTY, REBALANCING
    from kgroup.lag.now import offset_table

    if not state.group.members and state.group.state not in (EMPTY, DEAD):  # members it has, but does not name
        what = ("rebalancing" if state.group.state in REBALANCING else state.group.state or "in no known state")
        return GroupNow({}, {}, f"the group is {what} but the broker returned no member details")
    seen = set(committed)
    rows = offset_table(state, topics)[0]
    owners = {(r[0], r[1]): Owner(r[6], r[7], r[8]) for r in rows if r[6] is not None}
    never = {}
    for r in rows:
        tp = (r[0], r[1])
        o = state.offsets.get(r[0], {}).get(r[1])
        if tp not in seen and (o is None or o.committed is None):
            never[tp] = r[4]
    return GroupNow(owners, never, None, state.group.state)


class LagAnswer(NamedTuple):
    """``lag``'s answer (and the report's lag part): the evaluated report, each shown partition's
    offset expiry, the retention those follow, and the group now (owners, never-committed
    partitions; None where not asked)."""

    report: LagReport
    expiries: dict[TopicPartition, Expiry]
    retention: Retention
    now: GroupNow | None = None


def lag_of(cluster: Any, group: str, commits: Commits, replay: GroupReplay, since_ms: int, until_ms: int,
           until_is_now: bool, allowed_lag: int, time_lag: bool, warn: Warn,
           info: Callable[[str], None] | None = None, retention: Retention | None = None,
           owners: bool = False, topics: list[str] | None = None, progress: Progress | None = None) -> LagAnswer:
    """The group's lag over the window from its commits: the log ends at each moment asked of the
    cluster, with ``time_lag`` the records' timestamps, Burrow's statuses; at --until now, a lag that
    is nothing but transaction markers or aborted records is none; and when each committed offset
    expires under ``retention`` (default: the group's coordinator's). With ``owners``, the group now
    (:func:`group_now`, over ``topics`` when given). ``progress`` hears the log ends phase (on a
    terminal, a progress line)."""
    from kgroup.offsets_log.expiry import group_expiries

    ends = ends_for_commits(cluster, commits, since_ms, until_ms, until_is_now, warn, info, progress)
    times = record_times(cluster, commits, ends, since_ms, until_ms, until_is_now) if time_lag else None
    report = evaluate(group, commits, ends, since_ms, until_ms, until_is_now, allowed_lag, times)
    skipped = markers_at_until(cluster, report) if until_is_now else {}
    if skipped:
        report = evaluate(group, commits, ends, since_ms, until_ms, until_is_now, allowed_lag, times,
                          undeliverable=skipped)
    if retention is None:
        from kgroup.offsets_log.expiry import coordinator_retention

        retention = coordinator_retention(cluster, group)
    shown = {(p.topic, p.partition) for p in report.partitions}
    expiries = {tp: e for tp, e in group_expiries(replay, retention).items() if tp in shown}
    now = group_now(cluster, group, topics, {*commits, *getattr(commits, "unreadable", {})}) if owners else None
    return LagAnswer(report, expiries, retention, now)
