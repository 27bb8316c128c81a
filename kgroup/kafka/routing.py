"""Which client asks about many groups: kgroup's batched client (kgroup.kafka.wire, many groups
per request) or librdkafka (one group per request).

The batched client is used for describes and committed offsets of at least BATCHED_FROM groups
when nothing speaks against it: ``-X kgroup.batched=false`` (a switch of kgroup's own, never
passed to librdkafka), connection settings it does not speak (kgroup.kafka.wire.security.why_not:
socket settings, GSSAPI, ...; it speaks plaintext, TLS and mTLS, SASL PLAIN, SCRAM and
OAUTHBEARER), no broker answering it, a cluster that does not speak the question, or a
connection of it that failed earlier. Whatever it cannot answer goes to librdkafka, so errors
read the same whichever path met them; a login the cluster refused, or a TLS failure, is the
command's error at once (librdkafka would meet it too). On -v one line says which path answered
each question, and why not the batched one where it did not.

A describe of fewer groups goes through librdkafka, but a consumer group's (KIP-848) member
epochs, which librdkafka does not report, are then asked of kgroup's own client
(ConsumerGroupDescribe) where it speaks the connection.

The batched client's connections are opened once per Cluster, shared by every question, and
closed by ``Routing.close()`` (Cluster.close(); at the latest when the Cluster is collected or
the process exits).
"""
from __future__ import annotations

import functools
import sys
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from kgroup.group.model import Broker, GroupDescription
from kgroup.kafka.settings import ConnectionSettings
from kgroup.text import printable

if TYPE_CHECKING:
    from kgroup.kafka.wire.coordinators import Coordinators, Exchange
    from kgroup.kafka.wire.list_groups import Listing
    from kgroup.kafka.wire.security import Security

OffsetRequest = tuple[Any, str, list[tuple[str, int]] | None]  # (caller's key, group, partitions or None: all)

BATCHED_FROM = 10  # groups from which they are asked about many groups per request
_OFF = "off"  # the batched client is not used, for the reason in Routing._why_not


class OneByOne(Protocol):
    """What routing needs of the Cluster: librdkafka's one-group-per-request answers, the
    brokers the metadata named, the bootstrap servers and the command's deadline."""

    brokers: dict[int, Broker]
    bootstrap: str
    deadline: float

    def rd_describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]: ...

    def rd_iter_describe_groups(self, groups: list[str], window: int = ..., batch: int = ...
                                ) -> Iterator[GroupDescription]: ...

    def rd_iter_committed_offsets(self, next_request: Callable[[], OffsetRequest | None], window: int = ...
                                  ) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]: ...


def _groups(n: int | None) -> str:
    return "" if n is None else f" of {n} group" + ("" if n == 1 else "s")


class Routing:
    """The choice of client for one Cluster's questions about groups, and the batched client's
    connections once opened."""

    def __init__(self, settings: ConnectionSettings):
        self.settings = settings
        self._coordinators: Coordinators | str | None = None  # None: not tried yet; _OFF: not usable
        self._why_not = ""
        self._why_not_settings = False  # whether _why_not is the settings' doing (else the cluster's)
        self._security: Security | None = None  # how the own client connects, once opened
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def close(self) -> None:
        """Close the batched client's connections, if it opened any."""
        if self._finalizer is not None:
            self._finalizer()

    def _say(self, line: str) -> None:
        if self.settings.verbose:
            sys.stderr.write(printable(self.settings.redact(f"kgroup: {line}")) + "\n")

    def _through_librdkafka(self, question: str, why: str) -> None:
        self._say(f"{question}: librdkafka, one group per request ({why})")

    # -- describes -----------------------------------------------------------------

    def describe_groups(self, cluster: OneByOne, names: list[str]) -> dict[str, GroupDescription]:
        """Cluster.describe_groups: ``names`` are distinct."""
        question = f"describe{_groups(len(names))}"
        coordinators = self._batched(cluster, question, len(names), _describe())
        if coordinators is None:
            described = cluster.rd_describe_groups(names)
            if len(names) < BATCHED_FROM and self.settings.batched:
                described.update(self._with_epochs(cluster, described))
            return described
        return dict(zip(names, self._batched_describe(cluster, question, names, coordinators)))

    def _with_epochs(self, cluster: OneByOne, described: dict[str, GroupDescription]) -> dict[str, GroupDescription]:
        """The descriptions of the consumer groups (KIP-848) among ``described`` as kgroup's own
        client gives them (ConsumerGroupDescribe), with the group, assignment and member epochs
        librdkafka does not report; a group it cannot describe keeps librdkafka's description."""
        wanted = [g for g, d in described.items() if d.type == "consumer"]
        if not wanted:
            return {}
        question = f"member epochs of consumer group{'' if len(wanted) == 1 else 's'} {', '.join(wanted)}"
        coordinators = self._open(cluster)
        if coordinators is None or coordinators.broken or not coordinators.speaks(_describe()):
            why = (self._why_not if coordinators is None else "a connection of kgroup's own client failed earlier"
                   if coordinators.broken else "the cluster does not answer DescribeGroups v5")
            self._say(f"{question}: not known (librdkafka does not report them; kgroup's own client: {why})")
            return {}
        out: dict[str, GroupDescription] = {}
        failed: deque[Any] = deque()
        names = iter(wanted)
        for _, group, description in coordinators.iterate(
                _describe(), lambda: next(((g, g, None) for g in names), None), failed):
            if description.type == "consumer":
                out[group] = description
        self._say(f"{question}: kgroup's own client (ConsumerGroupDescribe{self._over()})"
                  if out else f"{question}: not known (kgroup's own client could not describe them)")
        return out

    def _over(self) -> str:
        """How the own client's connections are made, for -v: '' for plaintext."""
        return _over(self._security)

    def iter_describe_groups(self, cluster: OneByOne, groups: list[str], window: int, batch: int
                             ) -> Iterator[GroupDescription]:
        """Cluster.iter_describe_groups."""
        question = f"describe{_groups(len(groups))}"
        coordinators = self._batched(cluster, question, len(groups), _describe())
        if coordinators is None:
            yield from cluster.rd_iter_describe_groups(groups, window, batch)
            return
        yield from self._batched_describe(cluster, question, groups, coordinators)

    def _batched_describe(self, cluster: OneByOne, question: str, groups: list[str],
                          coordinators: Coordinators) -> Iterator[GroupDescription]:
        """The descriptions of ``groups``, in the order given, asked through kgroup.kafka.wire's
        Coordinators (ConsumerGroupDescribe, then DescribeGroups for classic groups, up to 100
        groups per request); a group it hands back is described through librdkafka (so errors
        read as they always have), and after a connection of it failed, every group not yet
        described is. At most a few hundred descriptions are held at once."""
        from kgroup.kafka.wire.coordinators import GROUPS_PER_REQUEST, REQUESTS_IN_FLIGHT

        names = iter(enumerate(groups))
        exhausted = False
        failed: deque[Any] = deque()
        ready: dict[int, GroupDescription] = {}
        head = 0
        bound = 2 * GROUPS_PER_REQUEST * REQUESTS_IN_FLIGHT  # held, handed back or answered, before pausing

        def next_request() -> tuple[int, str, None] | None:
            nonlocal exhausted
            if len(failed) + len(ready) >= bound:
                return None  # let iterate end, settle what was handed back, hand out, go on
            item = next(names, None)
            if item is None:
                exhausted = True
                return None
            return item[0], item[1], None

        def settle() -> None:
            if failed:
                asked = list(failed)
                failed.clear()
                described = cluster.rd_describe_groups(list(dict.fromkeys(g for _, g, _ in asked)))
                for i, g, _ in asked:
                    ready[i] = described[g]

        exchange = _describe()
        while True:
            for i, _, description in coordinators.iterate(exchange, next_request, failed):
                ready[i] = description
                while head in ready:
                    yield ready.pop(head)
                    head += 1
            settle()
            while head in ready:
                yield ready.pop(head)
                head += 1
            if coordinators.broken:
                self._broke(question)
                yield from cluster.rd_iter_describe_groups([g for _, g in names])
                return
            if exhausted:
                return

    # -- streams groups (KIP-1071) ----------------------------------------------------

    def describe_streams_groups(self, cluster: OneByOne, names: list[str]) -> dict[str, Any] | None:
        """Cluster.describe_streams_groups: StreamsGroupDescribe through kgroup's own client (librdkafka
        has no call for it), whatever the number of groups; None when it cannot be asked (the
        connection settings, or a cluster without the API: no streams group there), said on -v."""
        from kgroup.kafka.wire.streams_describe import StreamsDescribe

        question = f"streams groups among {', '.join(names)}"
        exchange = StreamsDescribe()
        coordinators = self._open(cluster)
        if coordinators is None or coordinators.broken or not coordinators.speaks(exchange):
            why = (self._why_not if coordinators is None else "a connection of kgroup's own client failed earlier"
                   if coordinators.broken else "the cluster does not answer StreamsGroupDescribe v0")
            self._say(f"{question}: not asked ({why})")
            return None
        from kgroup.kafka.wire.share import GroupError
        from kgroup.kafka.wire.streams_describe import StreamsDescribeError

        out = self.ask_own(cluster, coordinators, exchange, [(g, g, None) for g in names])
        self._say(f"{question}: kgroup's own client (StreamsGroupDescribe{self._over()})")
        # a group still handed back at the deadline: the last error it was handed back for
        return {g: StreamsDescribeError(r.code, r.message) if isinstance(r, GroupError) else r for g, r in out.items()}
    # -- listing ---------------------------------------------------------------------

    def list_every_group(self, cluster: OneByOne, types: list[str]) -> tuple[Listing | None, str]:
        """Every group of ``types`` (empty: all) through kgroup's own client (ListGroups v5, else
        v4, of every broker: kgroup.kafka.wire.list_groups), or (None, why not) where it cannot
        be used: the caller lists through librdkafka, which lists consumer-protocol groups only."""
        from kgroup.kafka.wire.connection import WireError
        from kgroup.kafka.wire.list_groups import list_groups

        own, why = self._any_broker(cluster)
        if own is not None:
            addresses, security, client_id = own
            now = time.monotonic()
            try:
                listing = list_groups(addresses, client_id, now + (cluster.deadline - now) * 2 / 3, security, types)
            except WireError as e:
                why = f"kgroup's own client: {e}"
            else:
                self._say(f"list groups: kgroup's own client, ListGroups of each of {len(listing.brokers)} "
                          f"broker(s){_over(security)}")
                for broker in listing.untyped:
                    self._say(f"list groups: {broker} answers ListGroups v4 only (before Kafka 3.8): it names no "
                              "group types; its classic and consumer groups are told apart by their "
                              "descriptions, and it holds no share or streams groups")
                return listing, ""
        self._say(f"list groups: librdkafka ({why})")
        return None, why

    def _any_broker(self, cluster: OneByOne) -> tuple[tuple[list[tuple[str, int]], Any, str] | None, str]:
        """((bootstrap addresses, security, client id), "") for kgroup's own client to ask any broker
        of the cluster, or (None, why it cannot be used)."""
        from kgroup.kafka.wire.coordinators import bootstrap_addresses
        from kgroup.kafka.wire.security import security_of, why_not

        unspoken = why_not(self.settings.properties, self.settings.makes_tokens)
        addresses = bootstrap_addresses(cluster.bootstrap)
        if not self.settings.batched:
            return None, "-X kgroup.batched=false"
        if unspoken is not None:
            return None, f"the connection settings ask for what kgroup's own client does not speak: {unspoken}"
        if not addresses:
            return None, "no bootstrap server"
        return (addresses, security_of(self.settings.properties, self.settings.token_source()),
                self.settings.properties.get("client.id", "rdkafka")), ""

    # -- group configs ---------------------------------------------------------------

    def group_configs(self, cluster: OneByOne, groups: list[str], names: list[str] | None) -> tuple[Any, str]:
        """Cluster.group_configs: DescribeConfigs of GROUP resources through kgroup's own client
        (librdkafka cannot name one); (None, why not) where it cannot be asked."""
        from kgroup.kafka.wire.connection import WireError
        from kgroup.kafka.wire.describe_configs import describe_group_configs

        question = f"the configs of group {', '.join(groups)}"
        own, why = self._any_broker(cluster)
        if own is not None:
            addresses, security, client_id = own
            try:
                found = describe_group_configs(addresses, client_id, cluster.deadline, security, groups, names)
            except WireError as e:
                why = f"kgroup's own client: {e}"
            else:
                self._say(f"{question}: kgroup's own client (DescribeConfigs{_over(security)})")
                return found, ""
        self._say(f"{question}: not asked ({why})")
        return None, why

    # -- committed offsets ---------------------------------------------------------

    def iter_committed_offsets(self, cluster: OneByOne,
                               next_request: Callable[[], OffsetRequest | None],
                               window: int, groups: int | None) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
        """Cluster.iter_committed_offsets."""
        from kgroup.kafka.wire.offset_fetch import OffsetFetch

        question = f"committed offsets{_groups(groups)}"
        exchange = OffsetFetch()
        coordinators = self._batched(cluster, question, groups, exchange)
        if coordinators is None:
            yield from cluster.rd_iter_committed_offsets(next_request, window)
            return
        failed: deque[Any] = deque()
        while True:
            yield from coordinators.iterate(exchange, next_request, failed)
            if coordinators.broken:  # the rest through librdkafka
                self._broke(question)
                yield from cluster.rd_iter_committed_offsets(
                    lambda: failed.popleft() if failed else next_request(), window)
                return
            if not failed:
                return
            yield from cluster.rd_iter_committed_offsets(lambda: failed.popleft() if failed else None, window)

    # -- share groups (KIP-932): kgroup's own client only ------------------------

    def own_client(self, cluster: OneByOne, question: str, exchange: Any, api: str) -> Coordinators:
        """kgroup's own client to ask ``exchange`` (named ``api``), which librdkafka cannot ask:
        UsageError (exit 2) where the connection settings keep it from being used, ClusterError
        (exit 3) where no broker answered it or a connection of it failed earlier, NotSupported
        where the cluster does not speak ``api``."""
        from kgroup.errors import ClusterError, NotSupported, UsageError

        coordinators = self._open(cluster)
        if coordinators is None:
            why = self._why_not.replace("kgroup's batched client: ", "")
            text = f"cannot {question}: only kgroup's own client can ask it ({api}), and it cannot be used: {why}"
            raise UsageError(text) if self._why_not_settings else ClusterError(text)
        if coordinators.broken:
            raise ClusterError(f"cannot {question}: a connection of kgroup's own client failed earlier")
        if not coordinators.speaks(exchange):
            raise NotSupported(f"cannot {question}: the cluster does not answer {api}")
        self._say(f"{question}: kgroup's own client ({api}{self._over()})")
        return coordinators

    def ask_own(self, cluster: OneByOne, coordinators: Coordinators, exchange: Any, requests: list[Any]
                ) -> dict[str, Any]:
        """{group: result} of ``exchange`` (kgroup.kafka.wire.share) for each request, asked of the
        groups' coordinators many groups per request. A group handed back (its coordinator loading,
        moved or not found) is asked again, its coordinator looked up anew, after a pause that
        doubles up to a second, until the command's deadline; then its result is the last
        GroupError it was handed back for. ClusterError when a connection fails."""
        from kgroup.errors import ClusterError
        from kgroup.kafka.wire.share import GroupError
        from kgroup.kmsg import errors

        results: dict[str, Any] = {}
        pending = list(requests)
        pause = 0.1
        while pending:
            failed: deque[Any] = deque()
            items = iter(pending)
            for _, group, result in coordinators.iterate(exchange, functools.partial(next, items, None), failed):
                results[group] = result
            if coordinators.broken:
                raise ClusterError("a connection of kgroup's own client failed (no broker answered in time)")
            if not failed:
                break
            pending = list({r[1]: r for r in failed}.values())
            for r in pending:
                coordinators.forget(r[1])
            # the last try must leave time for its answer (the own client's connections end first)
            if time.monotonic() + pause + 0.5 >= min(cluster.deadline, coordinators.deadline):
                for r in pending:
                    results[r[1]] = exchange.retry.get(r[1]) or GroupError(
                        errors.COORDINATOR_NOT_AVAILABLE, "FindCoordinator found no coordinator")
                break
            time.sleep(pause)
            pause = min(2 * pause, 1.0)
        return results

    # -- the choice ----------------------------------------------------------------

    def _broke(self, question: str) -> None:
        self._say(f"{question}: a connection of kgroup's batched client failed; the rest through librdkafka")

    def _batched(self, cluster: OneByOne, question: str, groups: int | None, exchange: Exchange) -> Coordinators | None:
        """The batched client's Coordinators to ask ``exchange`` about ``groups`` groups (None:
        not known how many), or None where librdkafka asks; says which on -v."""
        if groups is not None and groups < BATCHED_FROM:
            # the connections the batched path opens would cost more than they save
            self._through_librdkafka(question, f"fewer than {BATCHED_FROM} groups")
            return None
        coordinators = self._open(cluster)
        if coordinators is None:
            self._through_librdkafka(question, self._why_not)
            return None
        if coordinators.broken:
            self._through_librdkafka(question, "a connection of kgroup's batched client failed earlier")
            return None
        if not coordinators.speaks(exchange):
            self._through_librdkafka(question, f"the cluster does not answer {_api_name(exchange)}")
            return None
        self._say(f"{question}: kgroup's batched client, many groups per request{self._over()}")
        return coordinators

    def _open(self, cluster: OneByOne) -> Coordinators | None:
        """kgroup.kafka.wire's Coordinators, opened once, on the brokers the metadata named (else
        the bootstrap servers); None where they cannot be used (the reason in ``_why_not``)."""
        if self._coordinators is None:
            self._coordinators = _OFF
            from kgroup.kafka.wire.coordinators import bootstrap_addresses
            from kgroup.kafka.wire.security import why_not

            addresses = ([(b.host, b.port) for b in sorted(cluster.brokers.values(), key=lambda b: b.id)]
                         or bootstrap_addresses(cluster.bootstrap))
            unspoken = why_not(self.settings.properties, self.settings.makes_tokens)
            self._why_not_settings = True
            if not self.settings.batched:
                self._why_not = "-X kgroup.batched=false"
            elif unspoken is not None:
                self._why_not = ("the connection settings ask for what kgroup's batched client does not speak: "
                                 f"{unspoken}")
            elif not addresses:
                self._why_not = "no bootstrap server"
            else:
                from kgroup.kafka.wire.connection import WireError
                from kgroup.kafka.wire.coordinators import Coordinators
                from kgroup.kafka.wire.security import security_of

                self._security = security_of(self.settings.properties, self.settings.token_source())
                # a third of the time left is kept for librdkafka, should a batched answer never come
                now = time.monotonic()
                try:
                    opened = Coordinators(addresses, self.settings.properties.get("client.id", "rdkafka"),
                                          now + (cluster.deadline - now) * 2 / 3, self._security)
                except WireError as e:
                    self._why_not_settings = False
                    self._why_not = f"kgroup's batched client: {e}"
                else:
                    self._coordinators = opened
                    self._finalizer = weakref.finalize(self, opened.close)
        return None if isinstance(self._coordinators, str) else self._coordinators


def _describe() -> Exchange:
    from kgroup.kafka.wire.describe import Describe

    return Describe()


def _api_name(exchange: Exchange) -> str:
    from kgroup.kafka.wire.describe import Describe

    return "DescribeGroups v5" if isinstance(exchange, Describe) else "OffsetFetch v8"


def _over(security: Any) -> str:
    """How kgroup's own client connects, for -v: '' for plaintext, else ', ' and its summary."""
    return "" if security is None or (security.tls is None and security.sasl is None) else f", {security.summary}"
