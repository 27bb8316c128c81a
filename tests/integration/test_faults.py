"""kgroup under faults: a Kafka-protocol proxy (tests/faultproxy.py) in front of a real Tansu
broker delays, drops, freezes or garbles the answers to one API while kgroup runs.

What must hold: no made-up number (a value the cluster did not give is null/`-`, the answer is
INCOMPLETE and exits 3, also with --lag-above), --timeout bounds the whole command within 1 s,
an immediate refusal fails at once with its reason, Ctrl-C stops within 0.5 s.

kgroup runs in a process of its own here (run_kgroup_process): against a frozen broker a command
ends at --timeout leaving a client call blocked in a thread, which the end of the process drops
(run in the test process, such a client aborted it when the broker came back).
"""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, run_kgroup_process

import faultproxy as fp
import seed

pytestmark = pytest.mark.broker  # a Tansu broker process behind the fault proxy

GROUP = "G-fault"
SPARE = tuple(seed.CLIENTS)  # the live group's own consumers are never faulted
EXPECTED = {(t, p): (seed.committed(t, p), 0, seed.records(t, p), p + 1)
            for t, n in seed.TOPICS.items() for p in range(n)}


@pytest.fixture(scope="module")
def proxied():
    """Tansu advertising the proxy's address, seeded, with a live group G-fault (C1, C2, C3)
    that has committed seed.committed(); yields the proxy (bootstrap: proxy.address)."""
    from brokers import stop_process

    proc, proxy = fp.start_tansu_behind_proxy()
    group = None
    try:
        seed.create_topics(proxy.address)
        seed.produce(proxy.address)
        group = seed.LiveGroup(proxy.address, GROUP).start()
        group.commit_seed_offsets()
        yield proxy
    finally:
        if group is not None:
            proxy.reset()
            group.stop()
        proxy.stop()
        stop_process(proc)


@pytest.fixture
def proxy(proxied):
    proxied.reset()
    yield proxied
    proxied.reset()


def _no_negative_numbers(text: str) -> None:
    assert not re.search(r"(?<![\w.])-\d", text), text


def _offsets(doc: dict) -> dict:
    (g,) = doc["groups"]
    return {(p["topic"], p["partition"]): (p["committed"], p["log_start"], p["log_end"], p["lag"])
            for p in g["partitions"]}


def test_healthy_through_the_proxy(proxy):
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "10")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert _offsets(doc) == EXPECTED
    (g,) = doc["groups"]
    assert g["incomplete"] is False and g["unknown"] == [] and g["total_lag"] == 43
    assert proxy.seen(fp.LIST_OFFSETS) >= 1  # the answers really went through the proxy


@pytest.mark.parametrize("action", ["freeze", "garble", "drop"])
def test_list_offsets_without_answer_is_incomplete_never_a_number(proxy, action):
    proxy.fault(fp.LIST_OFFSETS, action, spare=SPARE)
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "2", "--lag-above", "0")
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert r.seconds < 3.5  # --timeout 2, the process's start and end, on a busy machine
    doc = json.loads(r.stdout)
    got = _offsets(doc)
    # committed offsets came from OffsetFetch and are facts; nothing from ListOffsets is shown
    assert got == {tp: (c, None, None, None) for tp, (c, _, _, _) in EXPECTED.items()}
    (g,) = doc["groups"]
    assert g["total_lag"] is None and g["incomplete"] is True
    assert {(u["topic"], u["partition"]) for u in g["unknown"]} == set(EXPECTED)
    assert "INCOMPLETE" in r.stderr and "Traceback" not in r.stderr
    _no_negative_numbers(r.stdout)


def test_list_offsets_frozen_table_and_lag_above(proxy):
    proxy.fault(fp.LIST_OFFSETS, "freeze", spare=SPARE)
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "--timeout", "2", "--lag-above", "0")
    assert r.returncode == 3  # never 0 (pass) nor 1 (flagged) on data that is not there
    assert "total lag unknown (INCOMPLETE)" in r.stdout
    _no_negative_numbers(r.stdout)
    assert "-1001" not in r.stdout + r.stderr.replace("returned -1001", "")


def test_list_offsets_frozen_all_groups(proxy):
    proxy.fault(fp.LIST_OFFSETS, "freeze", spare=SPARE)
    r = run_kgroup_process("offsets", "--all-groups", "-b", proxy.address, "-o", "json", "--timeout", "2")
    assert r.returncode == 3
    groups = {g["group"]: g for g in json.loads(r.stdout)["groups"]}
    assert GROUP in groups
    assert all(g["total_lag"] is None and g["incomplete"] for g in groups.values() if g["partitions"])
    assert all(p["lag"] is None for g in groups.values() for p in g["partitions"])


def test_slow_answers_within_the_timeout_are_complete(proxy):
    proxy.fault(fp.LIST_OFFSETS, "delay", 1.0, spare=SPARE)
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "8")
    assert r.returncode == 0, r.stderr
    assert _offsets(json.loads(r.stdout)) == EXPECTED
    assert r.seconds >= 1.0


def test_a_closed_connection_is_retried(proxy):
    proxy.fault(fp.METADATA, "close", once=True, spare=SPARE)
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "8")
    assert r.returncode == 0, r.stderr
    assert _offsets(json.loads(r.stdout)) == EXPECTED


def test_time_lag_with_fetch_frozen_is_incomplete(proxy):
    proxy.fault(fp.FETCH, "freeze", spare=SPARE)
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "2", "--time-lag")
    assert r.returncode == 3, r.stderr
    assert r.seconds < 3.5  # --timeout 2, the process's start and end, on a busy machine
    doc = json.loads(r.stdout)
    assert _offsets(doc) == EXPECTED  # the offsets were read; only the record ages were not
    (g,) = doc["groups"]
    assert all(p["time_lag_ms"] is None for p in g["partitions"])
    assert g["total_lag"] == 43 and g["incomplete"] is True
    assert "time lag unknown" in r.stderr and "INCOMPLETE" in r.stderr


def test_lag_above_names_the_partitions_over_it(proxy):
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--lag-above", "4", "--timeout", "10")
    assert r.returncode == 1, r.stderr
    over = {(t, p) for (t, p), (_, _, _, lag) in EXPECTED.items() if lag > 4}
    assert over == {("Order", 4), ("Order", 5), ("Order", 6), ("Stock", 4)}
    (g,) = json.loads(r.stdout)["groups"]
    assert {(o["topic"], o["partition"]): o["lag"] for o in g["over_threshold"]} == {tp: EXPECTED[tp][3] for tp in over}
    (line,) = [x for x in r.stderr.splitlines() if "lag above" in x]
    assert line == (f"kgroup: warning: lag above 4 on 4 partition(s): {GROUP} Order-4 (5), {GROUP} Order-5 (6), "
                    f"{GROUP} Order-6 (7), {GROUP} Stock-4 (5)")


# -- --timeout bounds the whole command ----------------------------------------------------

BOUNDED = [
    (["offsets", GROUP], fp.METADATA),
    (["offsets", GROUP], fp.OFFSET_FETCH),
    (["describe", GROUP], fp.CONSUMER_GROUP_DESCRIBE),
    (["describe", GROUP], fp.FIND_COORDINATOR),
    (["snapshot", GROUP], fp.LIST_OFFSETS),
    (["snapshot", GROUP], fp.OFFSET_FETCH),
    (["whatif", GROUP, "--add", "new1"], fp.LIST_OFFSETS),
    (["whatif", GROUP, "--add", "new1"], fp.METADATA),
    (["find-coordinator", GROUP], fp.CONSUMER_GROUP_DESCRIBE),
    (["find-coordinator", GROUP], fp.FIND_COORDINATOR),
    (["list"], fp.LIST_GROUPS),
]


@pytest.mark.parametrize("args,api", BOUNDED, ids=[f"{a[0]}-{api}" for a, api in BOUNDED])
def test_a_broker_freezing_mid_command_is_bounded_by_the_timeout(proxy, args, api):
    proxy.fault(api, "freeze", everywhere=True, spare=SPARE)
    timeout = 1.5
    r = run_kgroup_process(*args, "-b", proxy.address, "--timeout", str(timeout))
    ended = time.monotonic()
    assert proxy.seen(api) >= 1  # the command did reach the frozen API
    # it waited out its --timeout, and ended within 1 s of it counted from its first request (so
    # after the interpreter's start, which a loaded machine can make last longer than that)
    first = proxy.first_request(SPARE)
    assert first is not None and r.seconds >= timeout and ended - first <= timeout + 1.0, \
        (r.seconds, ended - (first or ended), r.stderr)
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.strip()
    _no_negative_numbers(r.stdout)


INTERRUPTED = [
    (["snapshot", GROUP], fp.METADATA),
    (["offsets", GROUP, "--time-lag"], fp.FETCH),
    (["offsets", GROUP], fp.LIST_OFFSETS),
    (["describe", GROUP], fp.CONSUMER_GROUP_DESCRIBE),
    (["whatif", GROUP, "--add", "new1"], fp.OFFSET_FETCH),
    (["find-coordinator", GROUP], fp.FIND_COORDINATOR),
    (["log"], fp.METADATA),
]


@pytest.mark.parametrize("args,api", INTERRUPTED, ids=[f"{a[0]}-{api}" for a, api in INTERRUPTED])
def test_silent_broker_gets_ctrl_c_within_half_a_second(proxy, args, api):
    proxy.fault(api, "freeze", everywhere=True, spare=SPARE)
    proc = subprocess.Popen([sys.executable, "-m", "kgroup", *args, "-b", proxy.address,
                             "--timeout", "30"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while proxy.seen(api) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert time.monotonic() - sent <= 0.5
    assert (proc.returncode, err) == (130, "kgroup: interrupted\n")


# -- failing at once, with the reason -------------------------------------------------------


def test_short_timeout_names_no_property_the_user_did_not_set(proxy):
    # librdkafka refuses a connection set-up timeout under 1 s: kgroup sets 1 s, never says so
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "0.9")
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert _offsets(json.loads(r.stdout)) == EXPECTED
    # and a short timeout that runs out says only that
    proxy.fault(fp.OFFSET_FETCH, "freeze", everywhere=True, spare=SPARE)
    r = run_kgroup_process("offsets", GROUP, "-b", proxy.address, "-o", "json", "--timeout", "0.5")
    assert (r.returncode, r.stdout) == (3, ""), r.stderr
    line = (f"kgroup: error: cannot reach the cluster at {proxy.address} within 0.5 s while trying to fetch the "
            f"committed offsets of group {GROUP} ({{}})\n")
    # librdkafka's reason: the request's own timeout, or the wait for it, whichever ends first
    assert r.stderr in (line.format("Failed while waiting for response from broker: Local: Timed out"),
                        line.format("Local: Timed out")), r.stderr


def test_whatif_on_the_live_group_with_list_offsets_garbled(proxy):
    proxy.fault(fp.LIST_OFFSETS, "garble", spare=SPARE)
    r = run_kgroup_process("whatif", GROUP, "--add", "new1", "-s", "range", "-b", proxy.address, "-o", "json",
                           "--timeout", "3")
    assert r.returncode == 3 and r.seconds < 4.0, (r.seconds, r.stdout, r.stderr)
    (result,) = json.loads(r.stdout)["strategies"]
    assert "lag" not in result  # no lag was read: none is shown, not a sum of zeros
    assert "INCOMPLETE" in r.stderr
    _no_negative_numbers(r.stdout)


def test_snapshot_with_garbled_list_offsets_writes_nulls_and_exits_3(proxy, tmp_path):
    proxy.fault(fp.LIST_OFFSETS, "garble", spare=SPARE)
    out = tmp_path / "g.json"
    r = run_kgroup_process("snapshot", GROUP, "-b", proxy.address, "--out", str(out), "--timeout", "5")
    assert r.returncode == 3, r.stderr
    assert "INCOMPLETE" in r.stderr
    doc = json.loads(out.read_text())
    offsets = doc["group"]["offsets"]
    got = {(t, int(p)): (o["committed"], o["log_start"], o["log_end"]) for t, ps in offsets.items() for p, o in ps.items()}
    assert got == {tp: (c, None, None) for tp, (c, _, _, _) in EXPECTED.items()}
    # and the file read back is itself INCOMPLETE: its lags are unknown, not guessed
    r = run_kgroup_process("offsets", "--snapshot", str(out), "-o", "json", "--lag-above", "0")
    assert r.returncode == 3
    (g,) = json.loads(r.stdout)["groups"]
    assert g["total_lag"] is None and all(p["lag"] is None for p in g["partitions"])
