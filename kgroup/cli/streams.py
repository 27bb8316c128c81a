"""describe, offsets, lag, snapshot and whatif for streams groups (KIP-1071): which of the named
groups are streams groups, and their tables. The computations are kgroup.group.streams,
kgroup.group.streams_state and kgroup.whatif.streams."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer

from kgroup.cli.common import ConnectionOptions, broker_label
from kgroup.errors import ExitCode, UsageError
from kgroup.output.render import Fit, OutputFormat, Table, info, warn

STREAMS_DESCRIBE_FIT = Fit(ids=("MEMBER-ID", "PROCESS-ID"), drop=("ENDPOINT", "HOST", "CLIENT-ID", "RECONCILING"))
STREAMS_OFFSETS_FIT = Fit(ids=("MEMBER-ID",), drop=("LOG-START", "HOST", "CLIENT-ID", "PROCESS-ID", "COMMITTED"))


def streams_groups(conn: ConnectionOptions, ids: list[str], snapshot: Optional[Path], capture: bool = True,
                   configs: bool = False) -> tuple[dict[str, Any], list[str], list[str]]:
    """({group: StreamsState} of the streams groups among ``ids`` (or the streams snapshot), the
    other groups in order, problems). Live, the groups are asked with StreamsGroupDescribe (where
    the cluster answers it): callers ask only where the other groups' path failed
    (:func:`after_unknown`); ``capture``: with their offsets and changelog bounds."""
    from kgroup.group import streams_state

    if snapshot is not None:
        state = streams_state.load(snapshot, ids)
        return ({}, ids, []) if state is None else ({state.group.group_id: state}, [], [])
    if not ids:
        return {}, ids, []
    return streams_state.described(conn.cluster(), ids, capture, configs)


def after_unknown(conn: ConnectionOptions, ids: list[str], error: Exception, capture: bool = True,
                  configs: bool = False) -> tuple[dict[str, Any], list[str], list[str]]:
    """The streams groups among ``ids`` (as :func:`streams_groups`), asked only after the path of the
    other groups failed on them with ``error`` (UnknownGroup, or GroupOfOtherType of type streams),
    so that consumer, classic and share groups cost no StreamsGroupDescribe; ``error`` raised again
    where none of ``ids`` is a streams group."""
    from kgroup.errors import GroupOfOtherType

    if isinstance(error, GroupOfOtherType) and error.type != "streams":
        raise error
    streams, rest, problems = streams_groups(conn, ids, None, capture, configs)
    if not streams:
        raise error
    return streams, rest, problems


def all_groups_part(conn: ConnectionOptions, ids: list[str], output: OutputFormat, command: str,
                    lag_above: Optional[int] = None) -> int:
    """--all-groups' streams groups (listed with ListGroups v5; librdkafka lists none): with -o table
    their own tables, after the other groups'; with -o json or csv left out and said (their
    documents differ from the other groups': name them). The exit code their part asks for (0:
    none), for the caller to give once the other groups are written."""
    if not ids:
        return 0
    names = ", ".join(ids[:5]) + (" and more" if len(ids) > 5 else "")
    if output != OutputFormat.table:
        info(f"-o {output.value} with --all-groups: streams group(s) {names} left out (their documents differ "
             f"from the other groups'): name them, 'kgroup {command} APP -o {output.value}'")
        return 0
    describe_only = command == "describe"
    states, rest, problems = streams_groups(conn, ids, None, capture=not describe_only, configs=describe_only)
    if rest:
        problems = [*problems, f"listed as streams group(s) but not described as such: {', '.join(rest[:5])}"]
    try:
        if describe_only:
            describe(states, output)
            if problems:
                for p in problems[:10]:
                    warn(p)
                return int(ExitCode.CLUSTER)
        else:
            offsets(states, output, lag_above, problems)
    except typer.Exit as e:
        return int(e.exit_code)
    return 0


def mixed(streams: dict[str, Any], rest: list[str], output: OutputFormat, command: str) -> None:
    if streams and rest and output != OutputFormat.table:
        raise UsageError(f"{', '.join(streams)} {'is a streams group' if len(streams) == 1 else 'are streams groups'}: "
                         f"with -o {output.value}, run 'kgroup {command}' on streams groups apart from other groups")


def _endpoint(m: Any) -> Optional[str]:
    return None if m.user_endpoint is None else f"{m.user_endpoint[0]}:{m.user_endpoint[1]}"


def describe_tables(doc: dict[str, Any]) -> list[Table]:
    from kgroup.group.streams import compact_tasks, describe_line

    head = (f"GROUP {doc['group']}  type=streams  state={doc['state']}  group-epoch={doc['group_epoch']}  "
            f"assignment-epoch={doc['assignment_epoch']}  coordinator={broker_label(doc['coordinator']) or '-'}  "
            f"members={len(doc['members'])}"
            + (f"  num.standby.replicas={doc['num_standby_replicas']['value']}" if "num_standby_replicas" in doc
               else ""))
    topology = doc["topology"]
    t_rows = []
    for s in topology["subtopologies"] if topology else []:
        t_rows.append([s["subtopology_id"], ",".join(s["source_topics"]),
                       ",".join(t["name"] for t in s["repartition_source_topics"]),
                       ",".join(s["repartition_sink_topics"]),
                       ",".join(t["name"] for t in s["state_changelog_topics"])])
    t_notes = ["no topology in the answer"] if topology is None else [f"topology epoch {topology['epoch']}"]
    for s in topology["subtopologies"] if topology else []:
        for t in [*s["state_changelog_topics"], *s["repartition_source_topics"]]:
            if t["configs"]:
                t_notes.append(f"{t['name']} configs: " + ", ".join(f"{k}={v}" for k, v in sorted(t["configs"].items())))
    tables = [Table(["SUBTOPOLOGY", "SOURCE-TOPICS", "REPARTITION-SOURCE", "REPARTITION-SINK", "CHANGELOGS"], t_rows,
                    title=head, notes=t_notes)]
    rows = []
    for m in doc["members"]:
        now, target = m["assignment"], m["target_assignment"]
        rows.append([m["member_id"], m["process_id"], m["client_id"], m["host"], _endpoint_doc(m),
                     ",".join(f"{k}={v}" for k, v in sorted(m["client_tags"].items())) or None, m["member_epoch"],
                     compact_tasks(now["active"]), compact_tasks(now["standby"]), compact_tasks(now["warmup"]),
                     _target_cell(now, target), m["reconciling"]])
    notes = []
    reconciling = [m for m in doc["members"] if m["reconciling"]]
    if reconciling:
        notes.append(f"{len(reconciling)} member(s) still reconciling towards their target tasks:")
        notes += ["  " + describe_line(m["member_id"], m["reconciliation"]) for m in reconciling]
    if any(m["task_offsets"] or m["task_end_offsets"] for m in doc["members"]):
        notes.append("task offsets reported: " + "; ".join(
            f"{m['member_id']}: " + ", ".join(f"{o['subtopology']}_{o['partition']}={o['offset']}"
                                              for o in m["task_offsets"]) for m in doc["members"] if m["task_offsets"]))
    else:
        notes.append("task offsets (standby and warm-up progress): not reported by the broker")
    tables.append(Table(["MEMBER-ID", "PROCESS-ID", "CLIENT-ID", "HOST", "ENDPOINT", "CLIENT-TAGS", "EPOCH",
                         "ACTIVE", "STANDBY", "WARMUP", "TARGET", "RECONCILING"], rows, notes=notes,
                        fit=STREAMS_DESCRIBE_FIT))
    return tables


def _endpoint_doc(m: dict[str, Any]) -> Optional[str]:
    e = m["user_endpoint"]
    return None if e is None else f"{e['host']}:{e['port']}"


def _target_cell(now: dict[str, Any], target: dict[str, Any]) -> str:
    from kgroup.group.streams import compact_tasks

    if all(compact_tasks(now[k]) == compact_tasks(target[k]) for k in ("active", "standby", "warmup")):
        return "="
    return " ".join(f"{k}:{compact_tasks(target[k]) or '-'}" for k in ("active", "standby", "warmup")
                    if compact_tasks(now[k]) != compact_tasks(target[k]))


def describe_csv_rows(doc: dict[str, Any]) -> list[list[Any]]:
    from kgroup.group.streams import compact_tasks

    return [[doc["group"], m["member_id"], m["process_id"], m["client_id"], m["host"], m["member_epoch"],
             compact_tasks(m["assignment"]["active"]), compact_tasks(m["assignment"]["standby"]),
             compact_tasks(m["assignment"]["warmup"]), compact_tasks(m["target_assignment"]["active"]),
             compact_tasks(m["target_assignment"]["standby"]), compact_tasks(m["target_assignment"]["warmup"]),
             m["reconciling"]] for m in doc["members"]]


DESCRIBE_CSV = ["GROUP", "MEMBER-ID", "PROCESS-ID", "CLIENT-ID", "HOST", "EPOCH", "ACTIVE", "STANDBY", "WARMUP",
                "TARGET-ACTIVE", "TARGET-STANDBY", "TARGET-WARMUP", "RECONCILING"]


def describe(states: dict[str, Any], output: OutputFormat) -> None:
    from kgroup.output.render import emit

    from kgroup.group.streams_state import describe_document

    docs = [describe_document(s) for s in states.values()]
    if output == OutputFormat.csv:
        emit(output, {"groups": docs}, [Table(DESCRIBE_CSV, [r for d in docs for r in describe_csv_rows(d)])])
    else:
        emit(output, {"groups": docs}, [t for d in docs for t in describe_tables(d)])


# -- offsets / lag ------------------------------------------------------------------------------

@dataclass(frozen=True)
class OffsetsAsked:
    """What ``kgroup offsets`` of streams groups was asked beyond the offsets: ``conn`` None where
    they come from a snapshot."""

    conn: Optional[ConnectionOptions] = None
    topics: Optional[list[str]] = None
    time_lag: bool = False
    expiry: bool = False
    fail_on_expiry: bool = False
    offsets_topic: str = "__consumer_offsets"
    expiry_warn: str = "24h"
    warn_ms: int = 0


def offsets_tables(doc: dict[str, Any], expiries: Optional[dict] = None) -> list[Table]:
    from kgroup.cli.common import expires_cell
    from kgroup.output.render import duration

    timed = any("time_lag_ms" in r for r in doc["partitions"])
    rows = [[doc["group"], r["task"], r["topic"], r["partition"], r["committed"], r["log_start"], r["log_end"],
             r["lag"], r["member_id"], r["process_id"], r["client_id"], r["host"]]
            + ([duration(r["time_lag_ms"]) if r["time_lag_ms"] is not None else None] if timed else [])
            + ([expires_cell(expiries.get((r["topic"], r["partition"])))] if expiries is not None else [])
            for r in doc["partitions"]]
    notes = [f"group {doc['group']} ({doc['state']}, streams): total lag "
             f"{'unknown (INCOMPLETE)' if doc['total_lag'] is None else doc['total_lag']}"]
    if doc["never_committed"]:
        notes.append(f"never committed (no lag until the group commits; where it starts depends on the "
                     f"application's auto.offset.reset): {', '.join(doc['never_committed'][:10])}"
                     + (" ..." if len(doc["never_committed"]) > 10 else ""))
    if timed:
        notes.append("TIME-LAG: how old the first record not consumed is (now - the timestamp of the record at the "
                     "committed offset)")
    if expiries is not None and "expiry" in doc:
        e = doc["expiry"]
        notes.append(f"EXPIRES: when Kafka deletes the committed offset under the group's state now "
                     f"(offsets.retention.minutes {e['retention_ms'] // 60_000}: {e['retention_source']})")
    tables = [Table(OFFSETS_CSV + (["TIME-LAG"] if timed else []) + (["EXPIRES"] if expiries is not None else []),
                    rows, notes=notes, fit=STREAMS_OFFSETS_FIT)]
    state_rows = []
    for t in doc["tasks_state"]:
        reported = "; ".join(f"{m}: {v['offset'] if v['offset'] is not None else '-'}/"
                             f"{v['end_offset'] if v['end_offset'] is not None else '-'}"
                             for m, v in t["reported"].items()) or "not reported"
        for i, c in enumerate(t["changelogs"]):
            state_rows.append([t["task"] if i == 0 else "", c["topic"], c["partition"], c["log_start"], c["log_end"],
                               c["to_restore"], ",".join(t["active"]) if i == 0 else "",
                               ",".join(t["standby"] + t["warmup"]) if i == 0 else "", reported if i == 0 else ""])
    if state_rows:
        tables.append(Table(["TASK", "CHANGELOG", "PARTITION", "LOG-START", "LOG-END", "TO-RESTORE", "ACTIVE",
                             "STANDBY/WARMUP", "TASK-OFFSETS"], state_rows,
                            title=f"State behind each task of {doc['group']}",
                            notes=["TO-RESTORE: offsets a new owner restores from scratch (log end - log start; "
                                   "on a compacted changelog the records are at most that)"]))
    return tables


OFFSETS_CSV = ["GROUP", "TASK", "TOPIC", "PARTITION", "COMMITTED", "LOG-START", "LOG-END", "LAG", "MEMBER-ID",
               "PROCESS-ID", "CLIENT-ID", "HOST"]


def offsets(states: dict[str, Any], output: OutputFormat, lag_above: Optional[int], problems: list[str],
            asked: OffsetsAsked = OffsetsAsked()) -> None:
    import time

    from kgroup.cli.common import expiry_warning
    from kgroup.lag.collect import streams_offsets
    from kgroup.output.progress import progress_bar
    from kgroup.output.render import emit

    if asked.time_lag and asked.conn is None:
        raise UsageError("--time-lag reads records from the cluster; it cannot work from --snapshot")
    now_ms = int(time.time() * 1000)
    with progress_bar() as progress:
        answer = streams_offsets(states, asked.conn.cluster() if asked.conn is not None else None,
                                 asked.conn.settings() if asked.conn is not None else None, asked.topics,
                                 asked.time_lag, asked.expiry or asked.fail_on_expiry, asked.offsets_topic, now_ms,
                                 progress, warn)
    docs, expiries, retentions = answer.documents, answer.expiries, answer.retentions
    if answer.expiry_unknown:
        warn(f"when the committed offsets expire is unknown: {answer.expiry_unknown}")
    problems = [*problems, *answer.problems,
                *([f"offset expiry: {answer.expiry_unknown}"] if answer.expiry_unknown and asked.fail_on_expiry else [])]
    tables = [t for d in docs for t in offsets_tables(d, expiries.get(d["group"]) if expiries else None)]
    if output == OutputFormat.csv:
        head = tables[0].headers if tables else OFFSETS_CSV
        tables = [Table(head, [row for t in tables if t.headers == head for row in t.rows])]
    emit(output, {"groups": docs}, tables)
    flagged = False
    for g, found in expiries.items():
        line = expiry_warning(g, found, retentions[g], now_ms + asked.warn_ms, asked.expiry_warn, now_ms)
        if line:
            warn(line)
            flagged = True
    if problems:
        for p in problems[:10]:
            warn(p)
        warn("INCOMPLETE: some values are unknown (shown as -); no threshold can pass on this answer")
        raise typer.Exit(ExitCode.CLUSTER)
    if asked.fail_on_expiry and flagged:
        raise typer.Exit(ExitCode.FLAGGED)
    if lag_above is not None:
        over = [(d["group"], r["topic"], r["partition"], r["lag"]) for d in docs for r in d["partitions"]
                if r["lag"] is not None and r["lag"] > lag_above]
        if over:
            warn(f"lag above {lag_above} on {len(over)} partition(s): "
                 + ", ".join(f"{g} {t}-{p} ({n})" for g, t, p, n in over[:10]))
            raise typer.Exit(ExitCode.FLAGGED)


# -- whatif -------------------------------------------------------------------------------------

def whatif(state: Any, remove: list[str], remove_process: list[str], add: list[str], standby: Optional[int],
           output: OutputFormat) -> None:
    from kgroup.group.streams import compact_tasks
    from kgroup.output.render import emit
    from kgroup.whatif.streams import StreamsChange, StreamsChangeError, run, standby_replicas_seen

    added = []
    for item in add:
        name, sep, process = item.partition("=")
        if not name or (sep and not process):
            raise UsageError("--add on a streams group expects NAME or NAME=PROCESS-ID")
        added.append((name, process or None))
    said: list = []  # where num.standby.replicas comes from: said once the change is known to apply
    if standby is None and state.num_standby_replicas is not None:
        standby = state.num_standby_replicas
        said.append((info, f"num.standby.replicas {standby}: {state.standby_source}"))
    elif standby is None:
        standby = standby_replicas_seen(state)
        if state.standby_source:
            said.append((warn, state.standby_source))
        said.append((warn, f"num.standby.replicas taken as {standby}: the most standby copies a task has in the "
                           "group's target assignment (the group's description does not carry it); give "
                           "--standby-replicas N to set it"))
    try:
        doc = run(state, StreamsChange(list(remove), list(remove_process), added), standby)
    except StreamsChangeError as e:
        raise UsageError(str(e)) from None
    for say, line in said:
        say(line)
    if doc["error"]:
        warn(f"Kafka's StickyTaskAssignor throws: {doc['error']} (the coordinator keeps the previous target)")
    rows = []
    for m in doc["members"]:
        now, after = m["now"], m["after"]
        rows.append([m["member_id"], m["process_id"],
                     "(new)" if now is None else compact_tasks(now["active"]) or "-",
                     "" if now is None else compact_tasks(now["standby"]) or "-",
                     "(removed)" if after is None else compact_tasks(after["active"]) or "-",
                     "" if after is None else compact_tasks(after["standby"]) or "-"])
    bits = [f"remove {r}" for r in doc["removed"]] + [f"add {a['member_id']} (process {a['process_id']})"
                                                      for a in doc["added"]]
    title = (f"What if {doc['group']} (streams, sticky, num.standby.replicas {doc['num_standby_replicas']}): "
             + ("; ".join(bits) or "no change (re-run the assignor)"))
    total = doc["to_restore_from_scratch"]
    moves = doc["moved_active_tasks"]
    tables = [Table(["MEMBER-ID", "PROCESS-ID", "ACTIVE-NOW", "STANDBY-NOW", "ACTIVE-AFTER", "STANDBY-AFTER"], rows,
                    title=title,
                    notes=[f"{len(moves)} active task(s) move; state restored from scratch: "
                           f"{'unknown' if total is None else total} offsets"
                           + "".join(f"; {mv['task']}: less than {mv['restore_from_scratch']} (held as {mv['held_as']})"
                                     for mv in moves if mv["held_as"] is not None and mv["stateful"])])]
    if moves:
        tables.append(Table(["TASK", "FROM", "TO", "TO-RESTORE", "NOTE"],
                            [[mv["task"], ",".join(mv["from"]) or "(none)", mv["to"],
                              mv["to_restore"] if mv["held_as"] is None else f"< {mv['restore_from_scratch']}",
                              mv["note"] or "stateless"] for mv in moves], title="Moved active tasks"))
    emit(output, doc, tables)
