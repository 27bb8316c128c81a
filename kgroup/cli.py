"""The Typer layer: parse options, call the core or the adapter, render.

Nothing here computes anything Kafka-specific. Modules that talk to a cluster
are imported inside the commands that need one, so ``kgroup --help`` and the
offline commands never load confluent_kafka.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer
from typing_extensions import Annotated

from kgroup import __version__
from kgroup.errors import EXIT_FLAGGED, KgroupError, UsageError
from kgroup.render import OutputFormat, Table, emit, error, warn

CONNECTION = "Connection"

app = typer.Typer(
    name="kgroup",
    help="Read-only diagnostics for Apache Kafka consumer groups: coordinators, members, offsets, "
         "and what-if rebalances.\n\nExit codes: 0 ok; 1 a problem you asked to flag; 2 bad usage or "
         "input; 3 cluster unreachable, timed out or not authorized.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

Bootstrap = Annotated[Optional[str], typer.Option(
    "--bootstrap-server", "-b", metavar="HOST:PORT[,...]", rich_help_panel=CONNECTION,
    help="Kafka bootstrap servers. Default: $KGROUP_BOOTSTRAP_SERVERS, or bootstrap.servers in --command-config.")]
XProps = Annotated[Optional[List[str]], typer.Option(
    "-X", metavar="KEY=VALUE", rich_help_panel=CONNECTION,
    help="librdkafka client property, repeatable (as kcat takes them). Overrides --command-config.")]
CommandConfig = Annotated[Optional[Path], typer.Option(
    "--command-config", metavar="FILE", rich_help_panel=CONNECTION,
    help="Java client .properties file, as kafka-consumer-groups.sh takes it (translated to librdkafka).")]
Timeout = Annotated[float, typer.Option(
    "--timeout", metavar="SECONDS", rich_help_panel=CONNECTION, help="Give up on the cluster after this long.")]
Output = Annotated[OutputFormat, typer.Option("--output", "-o", help="Output format; data goes to stdout.")]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Show client logs on stderr (secrets redacted).")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kgroup {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[Optional[bool], typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")] = None) -> None:
    pass


def _settings(bootstrap: Optional[str], x: Optional[List[str]], command_config: Optional[Path],
              timeout: float, verbose: bool):
    from kgroup.settings import ConnectionSettings

    return ConnectionSettings.build(bootstrap, x or [], command_config, timeout, verbose)


def _cluster(settings):
    from kgroup.adapter import connect

    return connect(settings)


@app.command("find-coordinator")
def find_coordinator(
    groups: Annotated[Optional[List[str]], typer.Argument(metavar="GROUP...", show_default=False,
                                                          help="Group ids (use -- before ids that start with -).")] = None,
    all_groups: Annotated[bool, typer.Option("--all-groups", help="Every group the cluster lists, "
                                             "with a per-broker summary.")] = False,
    offline: Annotated[bool, typer.Option("--offline", help="Compute the offsets partition only; "
                                          "no cluster needed.")] = False,
    offsets_partitions: Annotated[Optional[int], typer.Option(
        "--offsets-partitions", metavar="N", min=1,
        help="Partitions of __consumer_offsets when the cluster does not show it (default 50).")] = None,
    fail_on_mismatch: Annotated[bool, typer.Option("--fail-on-mismatch", help="Exit 1 on any mismatch.")] = False,
    output: Output = OutputFormat.table,
    bootstrap: Bootstrap = None, x: XProps = None, command_config: CommandConfig = None,
    timeout: Timeout = 10.0, verbose: Verbose = False,
) -> None:
    """Which __consumer_offsets partition each group hashes to, who leads it, who the cluster
    says coordinates the group, and whether the two agree."""
    from kgroup import coordinator

    groups = list(groups or [])
    if offline:
        if all_groups:
            raise UsageError("--offline cannot list groups; name them")
        if not groups:
            raise UsageError("name at least one GROUP")
        result = coordinator.offline_survey(groups, offsets_partitions)
    else:
        if not groups and not all_groups:
            raise UsageError("name at least one GROUP, or pass --all-groups")
        settings = _settings(bootstrap, x, command_config, timeout, verbose)
        result = coordinator.survey(_cluster(settings), groups, all_groups, offsets_partitions)
    for w in result.warnings:
        warn(w)
    tables = [Table(
        ["GROUP", "PARTITION", "LEADER", "COORDINATOR", "VERDICT", "REASON"],
        [[r.group, f"{r.offsets_partition}/{r.offsets_partitions}", _broker(r.partition_leader),
          _broker(r.coordinator), r.verdict, r.reason] for r in result.reports])]
    if all_groups or len(result.brokers) > 1:
        tables.append(Table(["BROKER", "GROUPS", "OFFSETS-PARTITIONS-LED", "HOT"],
                            [[_broker(b.broker), b.groups, b.offsets_partitions_led, "HOT" if b.hot else ""]
                             for b in result.brokers], title="Groups coordinated per broker"))
    emit(output, result.to_json(), tables)
    if fail_on_mismatch and any(r.verdict == coordinator.MISMATCH for r in result.reports):
        raise typer.Exit(EXIT_FLAGGED)


def _broker(b) -> Optional[str]:
    return None if b is None else f"{b.host}:{b.port} ({b.id})"


def main() -> None:
    """Entry point: every expected failure becomes one line on stderr and its exit code."""
    try:
        code = app(standalone_mode=False, prog_name="kgroup")
    except typer.TyperException as e:  # bad usage: unknown option, bad value, missing argument
        ctx = getattr(e, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        if e.format_message():  # empty when help was shown for a bare command
            error(f"{e.format_message()}{hint}")
        code = 2
    except KgroupError as e:
        error(e.message)
        code = e.exit_code
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("kgroup: interrupted\n")
        code = 130
    except BrokenPipeError:
        code = 0
    sys.exit(code if isinstance(code, int) else 0)
