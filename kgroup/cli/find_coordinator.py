"""kgroup find-coordinator."""
from typing import Annotated, List, Optional

import typer

from kgroup.cli.common import ConnectionOptions, Output, Snapshot, app, broker_label, connection_options, examples
from kgroup.errors import ExitCode, UsageError
from kgroup.output.render import OutputFormat, Table, emit, warn


@app.command("find-coordinator", short_help="The coordinator of each group, checked against its hash.", epilog=examples(
    "kgroup find-coordinator -b broker1:9092 G1",
    "kgroup find-coordinator --offline --offsets-partitions 50 G1 payments-etl",
    "kgroup find-coordinator -b broker1:9092 --all-groups --fail-on-mismatch",
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
    snapshot: Snapshot = None,
    output: Output = OutputFormat.table,
    *, conn: ConnectionOptions,
) -> None:
    """Which __consumer_offsets partition each group hashes to, who leads it, who the cluster
    says coordinates the group, and whether the two agree."""
    from kgroup.group import coordinator
    from kgroup.group.hashing import OFFSETS_TOPIC

    groups = list(groups or [])
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
    emit(output, result.to_json(), tables)
    if fail_on_mismatch and any(r.verdict == coordinator.MISMATCH for r in result.reports):
        raise typer.Exit(ExitCode.FLAGGED)


