"""--since, --until and --at are checked the same way in every command taking them (one parser:
kgroup/timeutil.py; one window: kgroup/offsets_log/window.py): a moment in the future where
only the past is known, --since after --until, a duration ago before the year 1 or a number after 9999 (an overflow), and a
number of 10 digits (epoch seconds where milliseconds are expected) are each exit 2 with one
line, before any cluster or file is read."""
from __future__ import annotations

import pytest
from conftest import run_kgroup

LOG = "examples/offsets-log-g1.jsonl"
# each command with whatever else it needs to get as far as its time options
COMMANDS = {
    "lag": ("lag", "G1"),
    "report": ("report", "G1"),
    "log": ("log", "--input", LOG),
    "history": ("history", "G1", "--input", LOG),
    "scan": ("scan", "--input", LOG),
}
SECONDS = "1795830050"
SECONDS_LINE = "epoch milliseconds expected (did you mean 1795830050000, 2026-11-28T01:40:50.000Z?)"
OVERFLOW_LINE = "999999999w ago is before 0001-01-01T00:00:00.000Z, the first moment a time can say"


def refused(*args: str) -> str:
    r = run_kgroup(*args)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout, r.stderr)
    return r.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_since_in_the_future_is_refused(command):
    assert refused(*COMMANDS[command], "--since", "2999-01-01T00:00Z") == (
        "kgroup: error: --since 2999-01-01T00:00Z is in the future\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_overflowing_duration_ago_is_refused_not_a_negative_window(command):
    assert refused(*COMMANDS[command], "--since", "999999999w") == f"kgroup: error: --since 999999999w: {OVERFLOW_LINE}\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_epoch_seconds_are_refused_with_the_milliseconds_meant(command):
    assert refused(*COMMANDS[command], "--since", SECONDS) == f"kgroup: error: --since {SECONDS}: {SECONDS_LINE}\n"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "history"])  # history takes no --until
def test_until_is_checked_as_since_is(command):
    assert refused(*COMMANDS[command], "--until", SECONDS) == f"kgroup: error: --until {SECONDS}: {SECONDS_LINE}\n"
    assert refused(*COMMANDS[command], "--until", "999999999w") == f"kgroup: error: --until 999999999w: {OVERFLOW_LINE}\n"
    assert refused(*COMMANDS[command], "--until", "99999999999999999") == (
        "kgroup: error: --until 99999999999999999: after 9999-12-31T23:59:59.999Z\n")
    assert refused(*COMMANDS[command], "--since", "2025-11-22T03:00Z", "--until", "2025-11-22T02:00Z") == (
        "kgroup: error: --since is later than --until\n")


def test_lag_s_default_since_after_until_is_refused():
    assert refused("lag", "G1", "--until", "2h") == "kgroup: error: --since is later than --until\n"


def test_snapshot_at_is_checked_as_since_is():
    at = ("snapshot", "G1", "--input", LOG, "--at")
    assert refused(*at, "2999-01-01T00:00Z") == "kgroup: error: --at 2999-01-01T00:00Z is in the future\n"
    assert refused(*at, "999999999w") == f"kgroup: error: --at 999999999w: {OVERFLOW_LINE}\n"
    assert refused(*at, SECONDS) == f"kgroup: error: --at {SECONDS}: {SECONDS_LINE}\n"


def test_epoch_milliseconds_and_times_still_work():
    r = run_kgroup("log", "--input", LOG, "--since", "1763780001000", "--until", "2025-11-22T02:53:22Z", "-o", "json")
    assert r.returncode == 0, r.stderr
    assert [line.split('"timestamp":')[1].split(",")[0] for line in r.stdout.splitlines()] == [
        "1763780001000"] * 6 + ["1763780001500"]
