"""Authentication failures say so, at once, against Tansu started with --authentication (SASL).

Right credentials are not tested: Tansu keeps users in its storage, the only storage built
into the wheel the tests use is memory (sqlite and file are not compiled in), and creating a
user on a running authenticating broker needs an authenticated connection (`tansu user create`
is refused with NotAuthenticated), so no user can exist for a test to log in as.

kgroup runs in a process of its own here (run_kgroup_process): librdkafka clients that failed a
SASL handshake were seen to crash when destroyed, so the program ends without destroying them.
"""
from __future__ import annotations

import pytest
from conftest import run_kgroup_process

pytestmark = pytest.mark.broker  # an authenticating Tansu broker process


@pytest.fixture(scope="module")
def authenticating():
    from brokers import start_tansu, stop_process

    proc, bootstrap = start_tansu(extra=("--authentication",))
    try:
        yield bootstrap
    finally:
        stop_process(proc)


# the answer comes from the broker's refusals, not from waiting out --timeout 20: half of it (the
# refusals take 2-4 s of librdkafka's reconnect backoff, over 5 s on a machine running the suite
# in parallel)
WELL_BEFORE_TIMEOUT = 10


def _sasl(mechanism: str, user: str, password: str) -> list[str]:
    return ["-X", "security.protocol=SASL_PLAINTEXT", "-X", f"sasl.mechanisms={mechanism}",
            "-X", f"sasl.username={user}", "-X", f"sasl.password={password}"]


@pytest.mark.parametrize("command", [["offsets", "G1"], ["describe", "G1"], ["list"], ["find-coordinator", "G1"],
                                     ["log"], ["snapshot", "G1", "--at", "2h"]])
def test_no_credentials_names_authentication(authenticating, command):
    r = run_kgroup_process(*command, "-b", authenticating, "--timeout", "20")
    assert r.returncode == 3 and r.seconds < WELL_BEFORE_TIMEOUT, (r.seconds, r.stderr)
    (line,) = r.stderr.splitlines()
    assert "requires authentication (SASL) or TLS" in line and "security.protocol" in line


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_unknown_user_says_authentication_failed(authenticating, mechanism):
    secret = "not-the-password-4711"
    r = run_kgroup_process("offsets", "G1", "-b", authenticating, "--timeout", "20", *_sasl(mechanism, "nobody", secret))
    assert r.returncode == 3 and r.seconds < WELL_BEFORE_TIMEOUT, (r.seconds, r.stderr)
    (line,) = r.stderr.splitlines()
    assert line.startswith("kgroup: error: authentication failed") and "unknown-user" in line
    assert secret not in r.stderr + r.stdout


def test_mechanism_the_broker_refuses_says_authentication_failed(authenticating):
    r = run_kgroup_process("describe", "G1", "-b", authenticating, "--timeout", "20", *_sasl("PLAIN", "nobody", "pw-0815"))
    assert r.returncode == 3 and r.seconds < WELL_BEFORE_TIMEOUT, (r.seconds, r.stderr)
    (line,) = r.stderr.splitlines()
    assert line.startswith("kgroup: error: authentication failed") and "PLAIN" in line
