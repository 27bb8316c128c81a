"""How ``kgroup history`` shows a group's rebalances (table, JSON, CSV)."""
from __future__ import annotations

import sys
from collections.abc import Mapping

from kgroup.java.jackson import dumps
from kgroup.offsets_log.deletions import Cause
from kgroup.offsets_log.replay import GroupReplay, Rebalance
from kgroup.timeutil import format_ms
from kgroup.group.assignment import compact
from kgroup.group.reconciliation import describe_line
from kgroup.output.render import Fit, OutputFormat, Table, duration, emit
from kgroup.text import printable


def _title(r: Rebalance) -> str:
    when = format_ms(r.timestamp)
    if r.type == "deleted":
        return f"{when}  group deleted (tombstone at {r.position[0]}/{r.position[1]})"
    what = "generation" if r.type == "classic" else "group epoch"
    parts = [f"{when}  {what} {r.generation}"]
    if r.type != "streams":  # a streams group has no assignor protocol: its coordinator assigns tasks
        parts.append(f"protocol {r.protocol or '-'}")
    if r.type == "classic":
        parts.append(f"leader {r.leader or '-'}")
    n = r.member_count()
    parts.append(f"{n} member{'s' * (n != 1)}")
    if r.since_previous_ms is not None:
        parts.append(f"{duration(r.since_previous_ms)} after the previous")
    return printable(", ".join(parts))


def _cause(c: Cause | None) -> str:
    return "cause unknown: not told" if c is None else c.line()


# how the tables fit a terminal: the columns left out first come first (docs/commands/history.md)
HISTORY_FIT = Fit(ids=("MEMBER", "INSTANCE-ID"), drop=("RACK", "INSTANCE-ID", "HOST", "CLIENT-ID"))
STREAMS_FIT = Fit(ids=("MEMBER", "PROCESS"), drop=("CLIENT-ID", "HOST"))


def render(fmt: OutputFormat, group: str, replay: GroupReplay, events: list[Rebalance],
           causes: Mapping[tuple[int, int], Cause] | None = None) -> None:
    """``causes``: why each offset was deleted, by its tombstone's log position
    (kgroup.offsets_log.deletions); any other's is unknown."""
    causes = causes or {}
    as_json = {at: c.to_json() for at, c in causes.items()}
    doc = {"group": group, "type": replay.type, "deleted": replay.deleted,
           "commits_before_first_rebalance": replay.commits_before,
           "rebalances": [r.to_json(as_json) for r in events]}
    if fmt == OutputFormat.json:
        sys.stdout.write(dumps(doc) + "\n")
        return
    if fmt == OutputFormat.csv:
        emit(fmt, doc, [Table(
            ["TIME", "TYPE", "GENERATION", "PROTOCOL", "LEADER", "MEMBERS", "JOINED", "LEFT", "MOVED",
             "SINCE-PREVIOUS-MS", "COMMITS", "OFFSETS-DELETED"],
            [[format_ms(r.timestamp), r.type, r.generation, r.protocol, r.leader, r.member_count(),
              " ".join(r.joined), " ".join(r.left), r.moved_count(), r.since_previous_ms, r.commits,
              " ".join(f"{t}-{p}" for t, p, _ in r.offsets_deleted)]
             for r in events])])
        return
    tables = []
    before: dict | None = None  # the topology of the previous streams epoch shown
    for r in events:
        notes = []
        if r.joined:
            notes.append("joined: " + printable(", ".join(r.joined)))
        if r.left:
            notes.append("left:   " + printable(", ".join(r.left)))
        if r.moved:
            shown = [f"{m['topic']}-{m['partition']} {m['from'] or '(none)'} → {m['to'] or '(none)'}"
                     for m in r.moved[:20]]
            more = f" (+{len(r.moved) - 20} more)" if len(r.moved) > 20 else ""
            notes.append(f"moved:  {printable('; '.join(shown))}{more}")
        if r.type == "streams":
            if r.topology is not None:
                notes.append(f"topology epoch {r.topology['epoch']}: subtopologies "
                             f"{printable(', '.join(r.topology['subtopologies'])) or '(none)'}")
                if before is not None and before["epoch"] != r.topology["epoch"]:
                    added = [s for s in r.topology["subtopologies"] if s not in before["subtopologies"]]
                    gone = [s for s in before["subtopologies"] if s not in r.topology["subtopologies"]]
                    notes.append(f"topology changed since the previous epoch (topology epoch {before['epoch']} → "
                                 f"{r.topology['epoch']})" + (f"; subtopologies added: {printable(', '.join(added))}"
                                                              if added else "")
                                 + (f"; removed: {printable(', '.join(gone))}" if gone else ""))
            before = r.topology or before
            if not r.closed:
                notes.append("tasks moved: not known (the epoch's target assignment is not in the records read)")
            elif r.tasks_moved:
                shown = [f"{m['task']} ({m['kind']}) {m['from'] or '(none)'} → {m['to'] or '(none)'}"
                         for m in r.tasks_moved[:20]]
                more = f" (+{len(r.tasks_moved) - 20} more)" if len(r.tasks_moved) > 20 else ""
                notes.append(f"tasks moved: {printable('; '.join(shown))}{more}")
        notes.append(f"then {r.commits} offset commit{'s' * (r.commits != 1)}"
                     + (f", last on {printable(compact({t: list(ps) for t, ps in r.last_commits.items()}))}"
                            if r.last_commits else ""))
        if r.reconciliation:
            when = "when the epoch ended" if r.epoch_ended else "at the last record read"
            notes.append(f"still reconciling {when} ({format_ms(r.reconciliation_timestamp or 0)}): "
                         f"{len(r.reconciliation)} member{'s' * (len(r.reconciliation) != 1)}")
            notes.extend("  " + describe_line(m.member_id, m.to_json()) for m in r.reconciliation)
        after_commits = len(notes)  # a deleted group's block shows only what follows its tombstone
        if r.offsets_deleted:
            n = len(r.offsets_deleted)
            notes.append(f"then {n} committed offset{'s' * (n != 1)} deleted:")
            notes.extend(printable(f"  {t}-{p} (tombstone at {at[0]}/{at[1]}): {_cause(causes.get(at))}")
                         for t, p, at in r.offsets_deleted[:20])
            if n > 20:
                notes.append(f"  (+{n - 20} more)")
        for member_id, problems in sorted(r.problems.items()):
            notes.extend(printable(f"member {member_id}: {p}") for p in problems)
        rows = [[printable(str(v)) if isinstance(v, str) else v for v in
                 [m.member_id, m.client_id, m.host, m.group_instance_id, m.rack,
                  compact(m.assignment if r.type == "classic" else m.target_assignment)]]
                for m in r.members]
        if r.type == "deleted":
            tables.append(Table([], [], title=_title(r), notes=notes[after_commits:] or notes[-1:]))
            continue
        if r.type == "streams":
            def tasks(ids: list[str] | None) -> str:
                return "(not known)" if ids is None else " ".join(ids)
            tables.append(Table(["MEMBER", "PROCESS", "CLIENT-ID", "HOST", "ACTIVE", "STANDBY", "WARMUP"],
                                [[printable(str(v)) if v is not None else None for v in
                                  [m["member_id"], m["process_id"], m["client_id"], m["host"]]]
                                 + [printable(tasks(m[k])) for k in ("active", "standby", "warmup")]
                                 for m in r.member_tasks], title=_title(r), notes=notes, fit=STREAMS_FIT))
            continue
        tables.append(Table(["MEMBER", "CLIENT-ID", "HOST", "INSTANCE-ID", "RACK",
                             "ASSIGNMENT" if r.type != "consumer" else "TARGET-ASSIGNMENT"],
                            rows, title=_title(r), notes=notes, fit=HISTORY_FIT))
    if not tables:
        sys.stdout.write(f"no rebalance of {printable(group)} in the window "
                         f"({replay.commits_before} offset commits before any rebalance record)\n")
        return
    emit(fmt, doc, tables)
