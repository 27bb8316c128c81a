"""What every librdkafka client kgroup makes shares, written once: its configuration from
ConnectionSettings, a logger that prints the client's logs redacted (on -v), the errors it
reports (error_cb), and what an error means for the command (:func:`classify`,
:func:`final_error`): the exit code and the one line the user reads.

The cluster reads (kgroup.kafka.cluster) and the offsets-log reader (kgroup.kafka.logreader)
each make their clients through :class:`Client`.
"""
from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from kgroup.errors import (ClusterError, CoordinatorNotAvailable, KgroupError, NotAuthorized, NotSupported,
                           Unreachable, UnknownGroup, UsageError)
from kgroup.kafka.settings import ConnectionSettings
from kgroup.text import printable

# client errors that say the cluster could not be reached (in time)
UNREACHABLE = frozenset({KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._TIMED_OUT,
                         KafkaError._RESOLVE, KafkaError.REQUEST_TIMED_OUT})
# client errors that say this principal may not do what was asked, or could not log in
NOT_AUTHORIZED = frozenset({KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED,
                            KafkaError.CLUSTER_AUTHORIZATION_FAILED, KafkaError.TOPIC_AUTHORIZATION_FAILED,
                            KafkaError.GROUP_AUTHORIZATION_FAILED, KafkaError._SSL})
# librdkafka refuses a connection set-up timeout under 1 s; --timeout may be shorter.
MIN_SETUP_MS = 1000
# Properties kgroup forces so that the clients it makes stay read-only.
READ_ONLY = {"enable.auto.commit": "false", "enable.auto.offset.store": "false",
             "allow.auto.create.topics": "false"}
# Connections closed at once, before any answer, that make kgroup say authentication is the likely cause
CLOSED_AT_ONCE = 5
# How often a wait on the cluster looks at the client's own errors.
SLICE = 0.05

if TYPE_CHECKING:
    import concurrent.futures


class Deadline(Unreachable):
    """--timeout ran out while waiting for an answer."""


class _RedactingHandler(logging.Handler):
    def __init__(self, settings: ConnectionSettings):
        super().__init__()
        self.settings = settings

    def emit(self, record: logging.LogRecord) -> None:
        # a client log line quotes what brokers sent (hosts, topic and group names): escaped too
        sys.stderr.write(printable(self.settings.redact(f"librdkafka: {record.getMessage()}")) + "\n")


class _DisconnectCounter(logging.Handler):
    """Counts connections the broker closed or reset as soon as they were up: the sign of a
    listener that wants authentication (SASL) or TLS from a client that offers neither."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0
        self.at_first_request = 0  # closed while the first request (ApiVersions) waited for its answer

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "Disconnected" in message and "after 0ms" in message:
            self.count += 1
        if "Disconnected" in message and "in state APIVERSION_QUERY" in message:
            self.at_first_request += 1


class Client:
    """The set-up of librdkafka clients for one purpose: ``config()`` gives what a client is
    made with (kgroup's defaults, the user's properties, what kgroup forces), its log lines go
    to stderr redacted on -v (or with -X debug), its errors to ``errors``, and connections
    closed at once are counted in ``closed_at_once``. ``close()`` detaches the logger."""

    def __init__(self, settings: ConnectionSettings, name: str):
        self.settings = settings
        self.bootstrap = settings.require_bootstrap()
        self.errors: list[KafkaError] = []
        noisy = settings.verbose or "debug" in settings.properties
        printer = _RedactingHandler(settings)
        printer.setLevel(logging.DEBUG if noisy else logging.CRITICAL + 1)
        self._closed = _DisconnectCounter()
        self._diagnosed = False
        self.logger = logging.getLogger(name)
        self.logger.propagate = False
        self.logger.addHandler(printer)
        self.logger.addHandler(self._closed)
        self.logger.setLevel(logging.DEBUG)

    @property
    def closed_at_once(self) -> int:
        return self._closed.count

    def config(self, defaults: Mapping[str, Any] | None = None, /, **extra: object) -> dict[str, Any]:
        """A client's configuration: the connection set-up bounded by --timeout, ``defaults``,
        the user's properties, then ``extra`` (what kgroup forces), the logger and error_cb."""
        conf: dict[str, Any] = {
            "socket.connection.setup.timeout.ms": max(MIN_SETUP_MS, int(self.settings.timeout * 1000)),
            **(defaults or {}), **self.settings.properties, **extra}
        conf["logger"] = self.logger
        conf["error_cb"] = self.errors.append
        if self.settings.makes_tokens:  # Amazon MSK IAM: kgroup makes the tokens (kgroup.kafka.oauth)
            from kgroup.kafka.oauth import oauth_cb

            source = self.settings.token_source()
            if source is not None:
                conf["oauth_cb"] = oauth_cb(source, self.settings.timeout)
        return conf

    def fail(self, what: str, error: KafkaError | Exception | None = None, *,
             oldest_reason: bool = False) -> ClusterError:
        """:func:`classify` of ``error`` with the errors this client has met."""
        return _cluster_error(self.settings, what, _kafka_error(error), self.errors, oldest_reason)

    def final_error(self, what: str, answered: bool) -> ClusterError | None:
        """:func:`final_error` of what this client has met, or what kgroup's own TLS handshake
        finds where librdkafka's failed without naming the cause (:meth:`_diagnose`)."""
        found = None if answered else self._diagnose(what)
        return found or final_error(self.settings, what, self.errors, self.closed_at_once, answered)

    def _diagnose(self, what: str) -> ClusterError | None:
        """Once, before any answer: where librdkafka's TLS handshake failed ("certificate verify
        failed", whatever the cause), the cause as Python's ssl names it (expired, another host
        name, not signed by a trusted CA); where connections without TLS are closed at the first
        request, whether the listener speaks TLS. None when nothing is found (librdkafka's own
        errors then say what they say)."""
        if self._diagnosed:
            return None
        tls = self.settings.properties.get("security.protocol", "plaintext").strip().lower() in ("ssl", "sasl_ssl")
        if tls and any(e.code() == KafkaError._SSL for e in self.errors):
            from kgroup.kafka.wire.security import tls_context

            try:
                context = tls_context(self.settings.properties)
            except UsageError:
                return None
        elif not tls and self._closed.at_first_request >= 2:
            context = None
        else:
            return None
        self._diagnosed = True
        from kgroup.kafka.wire.connection import tls_diagnosis
        from kgroup.kafka.wire.coordinators import bootstrap_addresses

        for host, port in bootstrap_addresses(self.bootstrap)[:3]:
            found = tls_diagnosis(host, port, context, min(2.0, self.settings.timeout))
            if found is not None:
                return type(found)(self.settings.redact(f"cannot {what}: {found.message}"))
        return None

    def close(self) -> None:
        self.logger.handlers.clear()



class Session:
    """An AdminClient made with a :class:`Client`'s set-up, and the waits on it: --timeout bounds
    them all together (``deadline``), each fails early on what the client knows to be final, and
    errors read as :func:`classify` says. kgroup.kafka.cluster's Cluster is one; routing.py and
    records.py wait through it too. ``admin`` may be given instead of the one the settings make."""

    def __init__(self, settings: ConnectionSettings, name: str, admin: Any = None):
        self.settings = settings
        self.client = Client(settings, name)
        self.bootstrap = self.client.bootstrap
        # --timeout bounds the whole command: every request gets what is left of it
        self.deadline = time.monotonic() + settings.timeout
        self.answered = False  # has any broker answered yet?
        self.admin = admin if admin is not None else AdminClient(self.client.config())

    def fail(self, what: str, error: KafkaError | Exception) -> ClusterError:
        """The error to raise for ``error``, met while trying to ``what`` (kgroup.kafka.client.classify)."""
        self.admin.poll(0)  # the client's own errors say why better than the final timeout does
        return self.client.fail(what, error)

    def group_error(self, group: str, what: str, e: KafkaException) -> Exception:
        """The error to raise for ``e``, met while asking to ``what`` group ``group`` (classify)."""
        self.admin.poll(0)
        return classify(self.settings, what, e, self.client.errors, group=group)

    def left(self, what: str) -> float:
        """Seconds left of --timeout; the command fails (exit 3) when none are."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self.fail(what, KafkaError(KafkaError._TIMED_OUT))
        return left

    def check_errors(self, what: str) -> None:
        """Fail now on what the client already knows to be final (kgroup.kafka.client.final_error)."""
        self.admin.poll(0)
        error = self.client.final_error(what, self.answered)
        if error is not None:
            raise error

    def wait(self, what: str, future: concurrent.futures.Future[Any], grace: float = 0.0) -> Any:
        """The result of ``future`` (KafkaException as raised), waited for no longer than what is
        left of --timeout (plus ``grace``), failing early on final client errors."""
        import concurrent.futures

        while True:
            left = self.deadline + grace - time.monotonic()
            if left <= 0:
                raise Deadline(self.fail(what, KafkaError(KafkaError._TIMED_OUT)).message)
            try:
                result = future.result(timeout=min(SLICE, left))
            except concurrent.futures.TimeoutError:
                self.check_errors(what)
                continue
            self.answered = True
            return result

    def renew_deadline(self) -> None:
        self.deadline = max(self.deadline, time.monotonic() + self.settings.timeout)


def readonly_consumer(client: Client, defaults: Mapping[str, Any] | None = None, /, **extra: object) -> Consumer:
    """The one way kgroup makes a consumer: it only reads the partitions it is assigned. librdkafka
    insists on a group.id; a throwaway one (``kgroup-readonly-<uuid>``) is never joined (assign(),
    not subscribe()) and nothing is committed to it: READ_ONLY (no auto-commit, no offset store,
    no topic auto-creation) and the group.id come last, over the user's properties, and ``extra``
    cannot name them (a TypeError). ``defaults`` give way to the user's properties, ``extra`` does
    not (client.config). The partitions' ends come as messages (enable.partition.eof). Properties
    librdkafka refuses are a usage error (exit 2)."""
    import uuid

    conf = client.config(defaults, **extra, **READ_ONLY,
                         **{"group.id": f"kgroup-readonly-{uuid.uuid4()}", "enable.partition.eof": "true"})
    try:
        return Consumer(conf)
    except (KafkaException, TypeError, ValueError) as e:
        raise invalid_configuration(client.settings, e) from None


def invalid_configuration(settings: ConnectionSettings, error: Exception) -> UsageError:
    """The error for properties librdkafka refuses when a client is made (exit 2)."""
    if isinstance(error, KafkaException):
        return UsageError(settings.redact(f"invalid client configuration: {error.args[0].str()}"))
    return UsageError(settings.redact(f"invalid client configuration: {error}"))


def _kafka_error(error: KafkaError | Exception | None) -> KafkaError | None:
    if isinstance(error, KafkaError):
        return error
    if isinstance(error, KafkaException) and error.args and isinstance(error.args[0], KafkaError):
        return error.args[0]
    return None


def classify(settings: ConnectionSettings, what: str, error: KafkaError | Exception | None = None,
             errors: Sequence[KafkaError] = (), *, group: str | None = None,
             oldest_reason: bool = False) -> KgroupError:
    """What ``error``, met while trying to ``what``, means for the command, given the errors the
    client reported meanwhile (``errors``, oldest first): the exit code (the error's class) and
    the line the user reads, secrets redacted.

    - With ``group``, ``what`` is what was asked about it ("describe"), and the group's own
      errors come first: not authorized for the group, its coordinator not available, neither
      describe API spoken (exit 3), an unknown group (exit 2).
    - An authorization or authentication failure, in ``error`` or among ``errors``: "not
      authorized or authentication failed" (exit 3).
    - Anything else: the cluster cannot be reached within --timeout (exit 3).

    The reason shown in parentheses is the client's own error where it has one (it says why
    better than the final timeout does): the newest authorization failure among ``errors``
    (with ``oldest_reason``: the first among ``errors`` and ``error``), else the newest error,
    else ``error``'s, else "no answer"."""
    err = _kafka_error(error)
    if group is not None and err is not None:
        code = err.code()
        if code == KafkaError.GROUP_AUTHORIZATION_FAILED:
            return NotAuthorized(f"not authorized to {what} group {group} (this principal needs DESCRIBE on it)")
        if code == KafkaError.COORDINATOR_NOT_AVAILABLE:
            return CoordinatorNotAvailable(f"cannot {what} group {group}: COORDINATOR_NOT_AVAILABLE (offsets topic not created "
                                "yet, or its partition for this group has no live leader; see kgroup find-coordinator)")
        if code == KafkaError._UNSUPPORTED_FEATURE:
            return NotSupported(f"cannot {what} group {group}: the cluster supports neither ConsumerGroupDescribe "
                                "nor DescribeGroups")
        if code == KafkaError.GROUP_ID_NOT_FOUND:
            return UnknownGroup(f"unknown group {group}")
    if group is not None:
        what = f"{what} group {group}"
    return _cluster_error(settings, what, err, errors, oldest_reason)


def _cluster_error(settings: ConnectionSettings, what: str, err: KafkaError | None, errors: Sequence[KafkaError],
                   oldest_reason: bool) -> ClusterError:
    every = [e for e in [*errors, err] if e is not None]
    refused = [e for e in every if e.code() in NOT_AUTHORIZED]
    if oldest_reason:
        reason = refused[0] if refused else None
    else:
        reason = next((e for e in reversed(errors) if e.code() in NOT_AUTHORIZED), None)
    if reason is None:
        reason = errors[-1] if errors else err
    detail = reason.str() if reason is not None else "no answer"
    if refused:
        return NotAuthorized(settings.redact(f"not authorized or authentication failed: could not {what} ({detail})"))
    return Unreachable(settings.redact(
        f"cannot reach the cluster at {settings.bootstrap} within {settings.timeout:g} s "
        f"while trying to {what} ({detail})"))


def final_error(settings: ConnectionSettings, what: str, errors: Sequence[KafkaError],
                closed_at_once: int, answered: bool) -> ClusterError | None:
    """What the client already knows to be final, so the command need not wait out --timeout:
    an authentication failure; before any broker answered, every broker down with a reason (a
    refused connection, a name that does not resolve); or connections closed as soon as they
    were open (a listener that wants SASL or TLS). A broker that dropped a connection is
    reconnected by the client and reported as down without such a reason: that waits (None)."""
    bootstrap = settings.bootstrap
    for e in errors:
        if e.code() in (KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED):
            return NotAuthorized(settings.redact(f"authentication failed: could not {what} ({e.str()})"))
    if answered:
        return None
    if any(e.code() == KafkaError._ALL_BROKERS_DOWN for e in errors):
        for e in errors:
            if e.code() == KafkaError._RESOLVE or (e.code() == KafkaError._TRANSPORT and "Disconnected" not in e.str()):
                return Unreachable(settings.redact(f"cannot reach the cluster at {bootstrap} "
                                                    f"while trying to {what} ({e.str()})"))
    if closed_at_once >= CLOSED_AT_ONCE:
        protocol = settings.properties.get("security.protocol", "plaintext").upper()
        if protocol.startswith("SASL"):
            hint = (f"the broker at {bootstrap} closed {closed_at_once} connections as soon as they were open "
                    f"(security.protocol={protocol}): check sasl.mechanisms and the credentials")
        else:
            hint = (f"the broker at {bootstrap} closed {closed_at_once} connections as soon as they were open: "
                    f"it probably requires authentication (SASL) or TLS, and none was configured "
                    f"(-X security.protocol=SASL_PLAINTEXT|SASL_SSL|SSL with -X sasl.mechanisms, -X sasl.username, "
                    f"-X sasl.password, or --command-config)")
        return Unreachable(settings.redact(f"cannot {what}: {hint}"))
    return None
