"""kgroup find-coordinator."""
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import ConnectionOptions, Output, Snapshot, app, broker_label, connection_options, examples
from kgroup.errors import ExitCode, UsageError
from kgroup.output.render import OutputFormat, Table, emit, warn


@app.command("find-coordinator", short_help="The coordinator of each group, checked against its hash.", epilog=examples(
    "kgroup find-coordinator --offline --offsets-partitions 50 G1 payments-etl",
    "kgroup find-coordinator -b broker1:9092 --all-groups --fail-on-mismatch",
    "kgroup find-coordinator --offline SG1 --share-state 0c2xzWoOQ7i7A7k2P3pqXA:3",
))
@connection_options
def find_coordinator(
    groups: Annotated[Optional[List[str]], typer.Argument(metavar="GROUP", show_default=False,
                                                          help="Group ids (use -- before ids that start with -).")] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Every group the cluster lists, "
                                             "with a per-broker summary.")] = False,
    offline: Annotated[bool, typer.Option("--offline", help="Compute the offsets partition only; "
                                          "no cluster needed.")] = False,
    offsets_partitions: Annotated[Optional[int], typer.Option(
        "--offsets-partitions", metavar="N", min=1,
        help="Partitions of __consumer_offsets when the cluster does not show it (default 50).")] = None,
    fail_on_mismatch: Annotated[bool, typer.Option("--fail-on-mismatch", help="Exit 1 on any mismatch.")] = False,
    share_state: Annotated[Optional[List[str]], typer.Option(
        "--share-state", metavar="TOPIC:PARTITION",
        help="Instead: the share coordinator of this share partition of the (share) GROUP, its "
             "__share_group_state partition (repeatable; TOPIC may be a topic id).")] = None,
    topic_id: Annotated[Optional[str], typer.Option(
        "--topic-id", metavar="ID", help="The topic id (base64) of --share-state's topic; needed --offline "
                                         "unless TOPIC is the id.")] = None,
    share_state_partitions: Annotated[Optional[int], typer.Option(
        "--share-state-partitions", metavar="N", min=1,
        help="Partitions of __share_group_state when the cluster does not show it (default 50).")] = None,
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Which __consumer_offsets partition each group hashes to, who leads it, who the cluster
    says coordinates the group, and whether the two agree."""
    from kgroup.group import coordinator
    from kgroup.group.hashing import OFFSETS_TOPIC

    groups = list(groups or [])
    if share_state:
        _share_state(groups, share_state, topic_id, share_state_partitions, offline, all_groups, snapshot,
                     offsets_partitions, output, conn, fail_on_mismatch)
        return
    if topic_id is not None or share_state_partitions is not None:
        raise UsageError("--topic-id and --share-state-partitions go with --share-state")
    if snapshot is not None:
        from kgroup.cli.common import group_states

        if offline or all_groups:
            raise UsageError("--snapshot cannot be combined with --offline or --all-groups")
        (state,) = group_states(snapshot, groups, ConnectionOptions())[0].values()
        result = coordinator.snapshot_survey(state, offsets_partitions)
    elif offline:
        if all_groups:
            raise UsageError("--offline cannot list groups; name them")
        if not groups:
            raise UsageError("name at least one GROUP")
        result = coordinator.offline_survey(groups, offsets_partitions)
    else:
        if not groups and not all_groups:
            raise UsageError("name at least one GROUP, or pass --all-groups")
        cluster = conn.cluster()
        result = coordinator.survey(cluster, groups, all_groups, offsets_partitions)
    count = result.count
    if count.ignored is not None:
        warn(f"--offsets-partitions {count.ignored} ignored: the cluster's {OFFSETS_TOPIC} has {count.count} partitions")
    elif count.source == "default" and offline:
        warn(f"--offline without --offsets-partitions: assuming {count.count} (Kafka's default)")
    elif count.source == "default":
        warn(f"{OFFSETS_TOPIC} is not visible to this client; assuming offsets.topic.num.partitions={count.count} "
             "(Kafka's default), pass --offsets-partitions N if the cluster differs")
    tables = [Table(
        ["GROUP", "PARTITION", "LEADER", "COORDINATOR", "VERDICT", "REASON"],
        [[r.group, f"{r.offsets_partition}/{r.offsets_partitions}", broker_label(r.offsets_partition_leader),
          broker_label(r.coordinator), r.verdict, r.reason] for r in result.reports])]
    if all_groups or len(result.brokers) > 1:
        tables.append(Table(["BROKER", "GROUPS", "OFFSETS-PARTITIONS-LED", "HOT"],
                            [[broker_label(b.broker), b.group_count, b.offsets_partitions_led, "HOT" if b.hot else ""]
                             for b in result.brokers], title="Groups coordinated per broker"))
    for p in result.problems:  # what --all-groups could not list, said as offsets and describe say it
        warn(p)
    emit(output, result.to_json(), tables)
    if fail_on_mismatch and any(r.verdict == coordinator.MISMATCH for r in result.reports):
        raise typer.Exit(ExitCode.FLAGGED)




def _share_state(groups: list[str], specs: list[str], topic_id: Optional[str], state_partitions: Optional[int],
                 offline: bool, all_groups: bool, snapshot: object, offsets_partitions: Optional[int],
                 output: OutputFormat, conn: ConnectionOptions, fail_on_mismatch: bool = False) -> None:
    """find-coordinator --share-state: where each share partition's state lives."""
    from kgroup.group import coordinator
    from kgroup.group.hashing import SHARE_STATE_TOPIC
    from kgroup.text import printable

    if all_groups or snapshot is not None or offsets_partitions is not None:
        raise UsageError("--share-state cannot be combined with --all-groups, --snapshot or --offsets-partitions")
    if not groups:
        raise UsageError("--share-state needs the share group: name it as GROUP")
    parsed = []
    for spec in specs:
        topic, sep, number = spec.rpartition(":")
        if not sep or not topic or not number.isdigit() or int(number) > 2**31 - 1:
            raise UsageError(f"--share-state {printable(spec)}: expected TOPIC:PARTITION (a partition is a number "
                             "from 0 to 2147483647)")
        parsed.append((topic, int(number)))
    if topic_id is not None and len({t for t, _ in parsed}) > 1:
        raise UsageError("--topic-id names the topic of one --share-state topic; give TOPIC_ID:PARTITION for several")
    requests = [(g, t, p) for g in groups for t, p in parsed]
    if offline:
        shares = coordinator.resolve_shares(requests, topic_id, None, {})
        result = coordinator.offline_share_survey(shares, state_partitions)
    else:
        result = coordinator.share_survey(conn.cluster(), requests, topic_id, state_partitions)
    count = result.count
    if count.ignored is not None:
        warn(f"--share-state-partitions {count.ignored} ignored: the cluster's {SHARE_STATE_TOPIC} has "
             f"{count.count} partitions")
    elif count.source == "default" and offline:
        warn(f"--offline without --share-state-partitions: assuming {count.count} (Kafka's default)")
    elif count.source == "default":
        warn(f"{SHARE_STATE_TOPIC} is not visible to this client (no share coordinator, or not created yet); "
             f"assuming share.coordinator.state.topic.num.partitions={count.count} (Kafka's default), pass "
             "--share-state-partitions N if the cluster differs")
    emit(output, result.to_json(), [Table(
        ["GROUP", "TOPIC", "TOPIC-ID", "PARTITION", "STATE-PARTITION", "LEADER", "COORDINATOR", "VERDICT", "REASON"],
        [[r.share.group, r.share.topic, r.share.topic_id, r.share.partition,
          f"{r.state_partition}/{r.state_partitions}", broker_label(r.state_partition_leader),
          broker_label(r.coordinator), r.verdict, r.reason]
         for r in result.reports])])
    if fail_on_mismatch and any(r.verdict == coordinator.MISMATCH for r in result.reports):
        raise typer.Exit(ExitCode.FLAGGED)
