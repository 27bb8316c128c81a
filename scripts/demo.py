"""kgroup's demo: a local Kafka-compatible broker, the seed scenario with live
consumers, and kgroup run against it as a user would run it.

Starts Tansu (a demo/test dependency, never a runtime one of kgroup) on a free
loopback port, creates Order (7 partitions) and Stock (5), starts consumers C1,
C2, C3 in group G1 (range assignor), commits known offsets, runs kgroup, and
stops everything. Where Tansu cannot answer like Kafka, it says so and shows
the same command on the shipped snapshot file instead.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from brokers import start_tansu, stop_process  # noqa: E402
from seed import LiveGroup, create_topics, produce  # noqa: E402

SNAPSHOT = "examples/seed-g1.json"
LOG_EXAMPLE = "examples/offsets-log-g1.jsonl"
# where the demo leaves its pages (outside the repository), to open in a browser
PAGES = Path(os.environ.get("TMPDIR", "/tmp")) / "kgroup-demo"


def say(text: str) -> None:
    print(f"\n# {text}", flush=True)


def kgroup(*args: str) -> int:
    print(f"$ kgroup {' '.join(shlex.quote(a) for a in args)}", flush=True)
    env = {k: v for k, v in os.environ.items()}
    return subprocess.run([sys.executable, "-m", "kgroup", *args], cwd=ROOT, env=env).returncode


def main() -> int:
    say("starting Tansu on 127.0.0.1 (memory storage)")
    proc, bootstrap = start_tansu()
    group = None
    try:
        say(f"broker at {bootstrap}; creating Order (7 partitions) and Stock (5), producing records")
        create_topics(bootstrap)
        produce(bootstrap)
        say("starting consumers C1, C2, C3 in group G1 (range assignor); waiting for the join")
        group = LiveGroup(bootstrap, "G1").start()
        group.commit_seed_offsets()
        os.environ["KGROUP_BOOTSTRAP_SERVERS"] = bootstrap
        rebalances = group.rebalances

        say("where is G1 coordinated? (Tansu has no __consumer_offsets topic, so the verdict is unverified)")
        kgroup("find-coordinator", "G1", "GROUPS", "polygenelubricants")
        say("the same computation offline, for a 50-partition offsets topic")
        kgroup("find-coordinator", "--offline", "--offsets-partitions", "50", "G1", "GROUPS", "polygenelubricants")

        for extra in _more_commands():
            say(extra[0])
            kgroup(*extra[1:])

        _offsets_log_demo(bootstrap)
        _scan_demo(bootstrap)

        if group.rebalances != rebalances:
            print("\nkgroup caused a rebalance: this is a bug", file=sys.stderr)
            return 1
        say(f"no rebalance happened while kgroup ran (rebalances seen by the consumers: {rebalances})")
        return 0
    finally:
        if group is not None:
            group.stop()
        stop_process(proc)


def _offsets_log_demo(bootstrap: str) -> None:
    """Tansu keeps no offsets log of its own: write the example one (three generations of a
    group G1, then its deletion) into a __consumer_offsets topic and read it back live."""
    import tempfile

    from logbuilder import Log, produce

    from kgroup.offsets_log.saved import read_jsonl

    log = Log(partitions=50)
    with open(ROOT / LOG_EXAMPLE, "rb") as f:
        log.records.extend(read_jsonl(f, LOG_EXAMPLE))
    say(f"writing {LOG_EXAMPLE} ({len(log.records)} records) into a 50-partition __consumer_offsets topic")
    produce(bootstrap, "__consumer_offsets", log)
    say("the offsets log of G1, decoded as Kafka prints it (only the partition G1 hashes to is read)")
    kgroup("log", "G1", "--type", "group")
    say("G1's rebalance history: generations, who joined and left, what moved, the commits between")
    kgroup("history", "G1")
    say("the example log's commits (offsets up to 170) are beyond the seeded Order partitions: 200 more records "
        "each, dated the day before the log, so that every lag point on the page is a fact")
    _backfill_order(bootstrap, 200, 1_763_596_800_000)  # 2025-11-20T00:00Z
    PAGES.mkdir(parents=True, exist_ok=True)
    report = PAGES / "g1-report.html"
    say("the post-mortem page of G1 over the day of that log: lag over time, rebalances and commits on one "
        "time axis, the group now")
    kgroup("report", "G1", "--since", "2025-11-22T00:00Z", "--until", "2025-11-23T00:00Z", "--out", str(report))
    say(f"open {report} in a browser (one self-contained file: it loads nothing from the network)")
    with tempfile.TemporaryDirectory() as tmp:
        past = str(Path(tmp) / "g1-past.json")
        say("G1 as it stood just after generation 2, rebuilt from the log, then a what-if on that past state")
        kgroup("snapshot", "G1", "--at", "1763780061500", "--out", past)
        kgroup("whatif", "G1", "--snapshot", past, "--remove", "c2", "--strategy", "range")


def _backfill_order(bootstrap: str, count: int, start_ms: int) -> None:
    """``count`` more records on each of Order's partitions 0-5, one second apart from ``start_ms``,
    in multi-record batches, the last one alone (Tansu's `latest` is right for a one-record batch)."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "allow.auto.create.topics": False})
    for partition in range(6):
        for i in range(count):
            p.produce("Order", value=f"Order-{partition}-backfill-{i}".encode(), partition=partition,
                      timestamp=start_ms + i * 1000)
            if i == count - 2:
                p.flush(30)
        p.flush(30)


def _scan_demo(bootstrap: str) -> None:
    """A synthetic fleet (300 groups, six hours of traffic: commits, generations, KIP-848, share and
    streams records, a rebalance storm, stale groups, a rewind, one undecodable record) written
    into the demo broker, then the fleet report on Spark (local[*], the default)."""
    from spark_env import HOUR, T0, build_scenario, write_to_broker

    scenario = build_scenario(groups=300, partitions=8)
    say(f"writing a synthetic fleet log ({len(scenario.raw())} records, 300 groups) into the topic fleet-offsets")

    def data_time(k: int, n: int) -> int:
        """The data topics' records, dated so that each commit of the fleet lies within the log as it
        was then (every lag point a fact): 90% written the hour before the fleet's six hours, the
        rest spread over them."""
        backlog = n * 9 // 10
        return T0 - HOUR + k * HOUR // backlog if k < backlog else T0 + (k - backlog) * 6 * HOUR // (n - backlog)

    write_to_broker(scenario, bootstrap, "fleet-offsets", data_time)
    say("the fleet report: kgroup scan reads the whole log on Spark (local[*]) and flags what needs a look")
    PAGES.mkdir(parents=True, exist_ok=True)
    fleet = PAGES / "fleet.html"
    kgroup("scan", "--offsets-topic", "fleet-offsets", "--top", "5", "--html", str(fleet))
    say(f"the fleet page, with charts of the same scan: open {fleet} in a browser")


def _more_commands() -> list[tuple[str, ...]]:
    return [
        ("the committed offsets, log-end offsets and lag of all 12 partitions, read live",
         "offsets", "G1"),
        ("the group's members as the broker describes them (Tansu answers ConsumerGroupDescribe with no "
         "members, unlike Kafka: kgroup says so rather than invent them)", "describe", "G1"),
        (f"the same command on the shipped snapshot of the seed scenario ({SNAPSHOT})",
         "describe", "--snapshot", SNAPSHOT),
        ("what happens to G1 if C3 leaves, under every assignor (Kafka's algorithms, from the snapshot "
         "because Tansu gives no member details)", "whatif", "--snapshot", SNAPSHOT, "--remove", "C3"),
        ("planning a rolling switch from range to cooperative-sticky, restart by restart",
         "vote", "--snapshot", SNAPSHOT, "--switch", "range:cooperative-sticky"),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
