"""Expected failures, each carrying the documented exit code.

0 success; 1 a problem the command was asked to flag; 2 bad usage or bad input;
3 cluster unreachable, timed out, or not authorized; 4 internal error (a bug in kgroup:
an unexpected exception, reported as one line by the CLI's last guard).
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_FLAGGED = 1
EXIT_USAGE = 2
EXIT_CLUSTER = 3
EXIT_INTERNAL = 4


class KgroupError(Exception):
    """An expected failure: printed as one line, no traceback."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class UsageError(KgroupError):
    """Bad usage or bad input: unreadable file, untranslatable setting, unknown group."""

    exit_code = EXIT_USAGE


class ClusterError(KgroupError):
    """The cluster could not be reached, timed out, or refused us."""

    exit_code = EXIT_CLUSTER
