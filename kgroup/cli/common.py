"""What every command shares: the Typer app, connection and output options,
and the way a command gets a cluster or a snapshot."""
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from kgroup import __version__
from kgroup.cli.params import KgroupCommand, KgroupGroup
from kgroup.errors import UsageError
from kgroup.kmsg import states
from kgroup.output.render import OutputFormat

CONNECTION = "Connection"
# States a group can be in, as Kafka names them (kgroup.kmsg.states): the values of list --state,
# offered by the shell completions.
GROUP_STATES = list(states.ALL)
# Values of options whose metavar does not list them, for the shell completions.
CHOICES_BY_METAVAR = {"STATE": GROUP_STATES}


class _Typer(typer.Typer):
    """Typer whose commands are :class:`KgroupCommand` unless a command names its own ``cls=``."""

    def command(self, *args, cls=None, **kwargs):
        return super().command(*args, cls=cls or KgroupCommand, **kwargs)


def examples(*command_lines: str) -> str:
    """A command's --help epilog: real command lines, one paragraph each (rich joins single lines)."""
    return "Examples:\n\n" + "\n\n".join(command_lines)


app = _Typer(
    cls=KgroupGroup,
    name="kgroup",
    help="Read-only diagnostics for Apache Kafka consumer groups: coordinators, members, offsets, "
         "and what-if rebalances.\n\nExit codes: 0 ok; 1 a problem you asked to flag; 2 bad usage or "
         "input; 3 cluster unreachable, timed out or not authorized, or the answer INCOMPLETE; 4 internal error "
         "(a bug: please report it); 130 interrupted (Ctrl-C).",
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
DEFAULT_TIMEOUT = 10.0


def _timeout(value: float) -> float:
    if value == DEFAULT_TIMEOUT:  # valid: an offline command need not load the settings module
        return value
    from kgroup.kafka.settings import check_timeout

    return check_timeout(value)


Timeout = Annotated[float, typer.Option(
    "--timeout", metavar="SECONDS", rich_help_panel=CONNECTION, callback=_timeout,
    help="Give up on the cluster after this long.")]
Output = Annotated[OutputFormat, typer.Option("--output", "-o", metavar="table|wide|json|csv",
                                              help="Output format; data goes to stdout. A table fits a terminal's "
                                                   "width; wide: every column and full ids.")]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="Show client logs on stderr (secrets redacted).")]
# (name, annotation, default) of the connection options, in the order every command's help lists them
_CONNECTION_PARAMETERS = [("bootstrap", Bootstrap, None), ("x", XProps, None), ("command_config", CommandConfig, None),
                          ("timeout", Timeout, DEFAULT_TIMEOUT), ("verbose", Verbose, False)]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kgroup {__version__}")
        raise typer.Exit()


# a bool with a bool default: Typer takes the value as it is, without building its value
# coercion (pydantic), which `kgroup COMMAND --help` would otherwise load for this option alone
@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")] = False) -> None:
    pass


class ConnectionOptions:
    """A command's connection options, as given (-b, -X, --command-config, --timeout, -v),
    passed explicitly to whatever needs the cluster; it makes the command's one read-only
    Cluster on first use and keeps it. A plain class: no generated repr that could print an
    -X secret, and cheaper to define than a dataclass."""

    __slots__ = ("bootstrap", "x", "command_config", "timeout", "verbose", "_cluster")

    def __init__(self, bootstrap: Optional[str] = None, x: Optional[List[str]] = None,
                 command_config: Optional[Path] = None, timeout: float = DEFAULT_TIMEOUT,
                 verbose: bool = False) -> None:
        self.bootstrap = bootstrap
        self.x = x
        self.command_config = command_config
        self.timeout = timeout
        self.verbose = verbose
        self._cluster: object = None

    def settings(self):
        """The core's ConnectionSettings (translated --command-config, -X, defaults). Every way to
        the cluster starts here, so Ctrl-C is routed to its watcher here (see kgroup.cli.interrupt)."""
        from kgroup.cli import interrupt
        from kgroup.kafka.settings import ConnectionSettings

        interrupt.install()

        return ConnectionSettings.build(self.bootstrap, list(self.x or []), self.command_config, self.timeout,
                                        self.verbose)

    def cluster(self):
        if self._cluster is None:
            from kgroup.kafka.cluster import connect

            self._cluster = connect(self.settings())
        return self._cluster


def no_cluster_with(conn: "ConnectionOptions", option: str = "--input") -> None:
    """A command reading saved records refuses cluster options rather than ignore them."""
    given = [name for name, value in (("-b", conn.bootstrap), ("-X", conn.x), ("--command-config", conn.command_config))
             if value]
    if given:
        raise UsageError(f"{given[0]} names a cluster, but {option} reads saved records instead: give one or the other")


def connection_options(command):
    """The shared connection options (-b, -X, --command-config, --timeout, -v) for ``command``:
    they are added after its own parameters (so every command's help lists them last, in one
    order) and reach it as one ``conn: ConnectionOptions`` argument."""
    import functools
    import inspect

    signature = inspect.signature(command)
    own = [p for name, p in signature.parameters.items() if name != "conn"]
    # keyword-only: they may follow a command's own keyword-only parameters (Typer passes all by name)
    shared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
              for name, annotation, default in _CONNECTION_PARAMETERS]

    @functools.wraps(command)
    def with_connection(*args, bootstrap, x, command_config, timeout, verbose, **kwargs):
        return command(*args, conn=ConnectionOptions(bootstrap, x, command_config, timeout, verbose), **kwargs)

    with_connection.__signature__ = signature.replace(parameters=own + shared)  # type: ignore[attr-defined]
    with_connection.__annotations__ = {p.name: p.annotation for p in own + shared if p.annotation is not p.empty}
    if signature.return_annotation is not signature.empty:
        with_connection.__annotations__["return"] = signature.return_annotation
    return with_connection


def group_states(snapshot: Optional[Path], groups: list[str], conn: ConnectionOptions, *, topics=None,
                 offsets: bool = True, racks: bool = False, drop_deleted: bool = False, also_topics=()):
    """kgroup.group.load.group_states with a progress bar and its notes said; returns (states, problems)."""
    from kgroup.errors import GroupOfOtherType, UnknownGroup
    from kgroup.group.load import group_states as load
    from kgroup.output.progress import progress_bar
    from kgroup.output.render import warn

    def load_from(cluster):
        with progress_bar() as progress:
            return load(snapshot, groups, cluster, topics=topics, offsets=offsets, racks=racks,
                        drop_deleted=drop_deleted, progress=progress, also_topics=also_topics)

    try:
        loaded = load_from(conn.cluster)
    except UnknownGroup as e:
        # a share group is not a consumer group: librdkafka's describe does not know it. Only then,
        # so that other groups take the path they always took, kgroup's own client is asked which
        # of the groups are share groups, and those are described by it (KIP-932)
        if snapshot is not None or not groups or isinstance(e, GroupOfOtherType) and e.type != "share":
            raise
        shares, why = share_groups(conn, groups)
        if not shares:
            if why is None:
                raise
            raise UnknownGroup(f"{e.message} (whether it is a share group is not known: {why})") from None
        from kgroup.group.share import WithShareGroups

        loaded = load_from(lambda: WithShareGroups(conn.cluster(), shares))
    for note in loaded.notes:
        warn(note)
    return loaded.states, loaded.problems


def unless_share_groups(conn: ConnectionOptions, groups: list[str], error: Exception) -> dict:
    """After a command failed with ``error`` (UnknownGroup, NoCommitsInLog, ...) on ``groups``: the share
    groups among them (described), for the caller to answer for them; ``error`` raised again where
    none is, or where a group said to be of another type is not a share group. Asked only then, so
    that consumer and classic groups take the path they always took, with no extra round trip."""
    from kgroup.errors import GroupOfOtherType, UnknownGroup

    if isinstance(error, GroupOfOtherType) and error.type != "share":
        raise error
    shares, why = share_groups(conn, groups)
    if not shares:
        if why is None or not isinstance(error, UnknownGroup) or isinstance(error, GroupOfOtherType):
            raise error
        raise UnknownGroup(f"{error.message} (whether it is a share group is not known: {why})") from None
    return shares


def listed_other_groups(conn: ConnectionOptions, describe_shares: bool = True) -> tuple[dict, list[str], list[str]]:
    """Every share and streams group of the cluster (ListGroups v5 with the type filter through
    kgroup's own client): what --all-groups adds to the groups librdkafka lists. The share groups
    described, the streams groups' ids (the caller answers them its own way), and the share groups
    listed but not described, as problems (the answer is INCOMPLETE). Where they cannot be listed
    at all (kgroup's own client not usable) a warning says so: never silently left out.
    ``describe_shares`` False: no share group is described (the caller leaves them out)."""
    from kgroup.output.render import warn

    listing, problems = conn.cluster().list_every_group(["share", "streams"])
    for p in problems:
        warn(p)
    ids = [g.group_id for g in listing if g.type == "share"] if describe_shares else []
    streams = [g.group_id for g in listing if g.type == "streams"]
    if not ids:
        return {}, streams, []
    shares, why = share_groups(conn, ids)
    missing = [g for g in ids if g not in shares]
    if not missing:
        return shares, streams, []
    return shares, streams, [f"share group(s) {', '.join(missing[:5])}{' and more' if len(missing) > 5 else ''} "
                             f"could not be described{f': {why}' if why else ''}"]


def share_groups(conn: ConnectionOptions, groups: list[str]) -> tuple[dict, Optional[str]]:
    """The share groups (KIP-932) among ``groups``, described (kgroup.kafka.cluster.Cluster.share_groups_among),
    and why that could not be asked, where it could not."""
    cluster = conn.cluster()
    among = getattr(cluster, "share_groups_among", None)  # a cluster held in memory (tests) has none
    return ({}, None) if among is None else among(groups)


def report_problems(problems: list[str]) -> None:
    """Partial results are never presented as complete: say what is missing, exit 3."""
    from kgroup.errors import ExitCode
    from kgroup.output.render import warn

    if problems:
        for p in problems[:10]:
            warn(p)
        if len(problems) > 10:
            warn(f"... and {len(problems) - 10} more")
        warn("INCOMPLETE: some values are unknown (shown as -); no threshold can pass on this answer")
        raise typer.Exit(ExitCode.CLUSTER)


# the options of the commands that read the offsets log (log, history, lag, report, snapshot --at)
Input = Annotated[Optional[Path], typer.Option(
    "--input", metavar="FILE", help="Read raw records saved earlier instead of a cluster: JSON Lines (log --save; "
    "- for stdin) or Parquet (scan --save).")]
OffsetsTopic = Annotated[str, typer.Option(
    "--offsets-topic", metavar="NAME", help="Read the offsets log from a topic of this name.")]
Since = Annotated[Optional[str], typer.Option(
    "--since", metavar="TIME", help="Only records at or after TIME: 2h (ago), 2026-11-22T03:00Z, or epoch ms.")]
Until = Annotated[Optional[str], typer.Option("--until", metavar="TIME", help="Only records at or before TIME.")]

Snapshot = Annotated[Optional[Path], typer.Option(
    "--snapshot", metavar="FILE", help="Read the group from a kgroup snapshot file instead of a cluster.")]


def broker_label(b) -> Optional[str]:
    """HOST:PORT (ID) of a Broker, or of a document's broker object; None for none."""
    from kgroup.group.broker import Broker

    if b is None:
        return None
    return (Broker.from_json(b) if isinstance(b, dict) else b).label


# offset expiry as lag and offsets show it
def expires_cell(e) -> Optional[str]:
    """An Expiry as a table shows it: the moment, or in a few words why none (None: unknown)."""
    from kgroup.offsets_log.expiry import NOT_WHILE_CONSUMED
    from kgroup.timeutil import format_ms

    if e is None:
        return None
    if e.expires_ms is not None:
        return format_ms(e.expires_ms)
    if e.reason == NOT_WHILE_CONSUMED:
        return "not while consumed"
    return e.reason.split(" (")[0]


def expiry_warning(group: str, expiries, retention, by_ms: int, within: str, now_ms: int) -> Optional[str]:
    """The one warning line for committed offsets that expire by ``by_ms`` (None: none do)."""
    from kgroup.lag.collect import expiring
    from kgroup.timeutil import format_ms

    soon = expiring(expiries, by_ms)
    if not soon:
        return None
    named = ", ".join(f"{t}-{p} at {format_ms(ms)}" for (t, p), ms in soon[:5])
    more = f" and {len(soon) - 5} more" if len(soon) > 5 else ""
    due = sum(1 for _, ms in soon if ms <= now_ms)
    when = (f"expire within {within}" if not due else "are past their expiry time (Kafka deletes them at its next "
            "retention check)" if due == len(soon) else f"expire within {within} ({due} already past it)")
    return (f"committed offsets of group {group} {when}: {named}{more} (offsets.retention.minutes "
            f"{retention.retention_ms // 60_000}: {retention.source}); consumers that start after that begin at "
            "auto.offset.reset")
