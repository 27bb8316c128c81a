"""Expected failures, each carrying the documented exit code.

0 success; 1 a problem the command was asked to flag; 2 bad usage or bad input;
3 cluster unreachable, timed out, or not authorized; 4 internal error (a bug in kgroup:
an unexpected exception, reported as one line by the CLI's last guard).
"""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The documented exit statuses (README, "Exit codes")."""

    OK = 0
    FLAGGED = 1       # a problem the command was asked to flag (lag over a threshold, undecodable records)
    USAGE = 2         # bad usage or bad input
    CLUSTER = 3       # unreachable, timed out, not authorized, or an INCOMPLETE answer
    INTERNAL = 4      # a bug in kgroup, reported as one line
    INTERRUPTED = 130  # Ctrl-C (kgroup/__init__.py holds it too, before anything is imported)


class KgroupError(Exception):
    """An expected failure: printed as one line, no traceback."""

    exit_code = ExitCode.USAGE

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class UsageError(KgroupError):
    """Bad usage or bad input: unreadable file, untranslatable setting, unknown group."""

    exit_code = ExitCode.USAGE


class ClusterError(KgroupError):
    """The cluster could not be reached, timed out, or refused us."""

    exit_code = ExitCode.CLUSTER


# The reasons an expected failure has, as types: code that must tell them apart matches the class
# (``except NotAuthorized``), never the words of the message, which are for people.


class NotAuthorized(ClusterError):
    """The principal may not do what was asked, or could not log in (authentication failed)."""


class AuthenticationFailed(NotAuthorized):
    """The cluster refused the login (SASL): wrong password, unknown user, mechanism not enabled."""


class TlsFailed(ClusterError):
    """The TLS connection could not be set up: the broker's certificate is not trusted, has
    expired or names another host, or the broker refused the client's certificate."""


class WrongSecurityProtocol(ClusterError):
    """The listener wants TLS where none was configured, or speaks none where it was."""


class TokenUnavailable(ClusterError):
    """No OAuth token could be had: the token endpoint is down or answered no token."""


class Unreachable(ClusterError):
    """No broker answered within --timeout, or every broker is down."""


class CoordinatorNotAvailable(ClusterError):
    """The group's coordinator cannot answer (offsets topic not created yet, no live leader)."""


class NotSupported(ClusterError):
    """The cluster speaks no version of the request kgroup needs."""


class TopicMissing(UsageError):
    """A topic named (the offsets log, a --topic) does not exist on the cluster."""


class UnknownGroup(UsageError):
    """The cluster knows no group of that name."""


class NoCommitsInLog(UsageError):
    """The offsets log holds no commit of the group (in the window asked): nothing to rebuild lag
    from. A share group is one: it commits nothing."""


class GroupOfOtherType(UnknownGroup):
    """The group exists but is not one the command answers for: a share or streams group, or a
    classic group of another protocol type than consumer (Kafka Connect's "connect"). Its type
    (and protocol type) come from ListGroups (kgroup.kafka.group_types)."""

    def __init__(self, group: str, type_: str, protocol_type: str | None = None) -> None:
        self.group, self.type, self.protocol_type = group, type_, protocol_type
        kind = (f"a classic group of protocol type {protocol_type}" if type_ == "classic"
                else f"a {type_} group")
        super().__init__(f"group {group} is {kind}, not a consumer group: this command cannot answer for "
                         f"{type_ + ' groups' if type_ != 'classic' else 'it'} yet (kgroup list shows it)")
