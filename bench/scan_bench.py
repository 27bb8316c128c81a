"""Benchmark: `kgroup scan` over a synthetic offsets log in the test broker (Tansu).

    python bench/scan_bench.py [--records 5000000] [--groups 20000] [--partitions 50] [--readme]

In the same run: (a) a plain single-process confluent-kafka consume loop reading the whole
log, (b) `kgroup scan` end to end from Kafka (local[*]), (b') the same with --save to
Parquet, (c) `kgroup scan --input` of that Parquet save. Records per second for each;
Spark start-up reported separately (the rate of (b) and (c) excludes it); peak memory of
the driver (Python + JVM). Prints a Markdown table; with --readme it also replaces docs/benchmarks.md's
scan-bench block and the sizing table of docs/scan.md (scan-bench-sizing block).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from brokers import start_tansu, stop_process  # noqa: E402
from figures import cpu, measured_on, write_block  # noqa: E402

T0 = 1_790_000_000_000
COMMITTED_TOPICS = ("orders", "payments", "clicks")  # 4 partitions each


def write_log(bootstrap: str, topic: str, records: int, groups: int, partitions: int) -> None:
    """Offset commits of ``groups`` groups (3 topics x 4 partitions each) plus a generation
    record per group every ~250 commits, in multi-record batches."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from kgroup.group.hashing import offsets_partition_for
    from kgroup.offsets_log.records import encode

    admin = AdminClient({"bootstrap.servers": bootstrap})
    # the offsets log, and the topics its commits name (else every group's lag is unknown and the
    # live scan is INCOMPLETE, exit 3)
    new = [NewTopic(topic, partitions, 1), *(NewTopic(t, 4, 1) for t in COMMITTED_TOPICS)]
    for f in admin.create_topics(new, request_timeout=30).values():
        f.result(60)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": 10000,
                  "batch.size": 1_000_000, "queue.buffering.max.messages": 2_000_000,
                  "queue.buffering.max.kbytes": 1_048_576, "compression.type": "none"})
    names = [f"fleet-app-{i:05d}" for i in range(groups)]
    where = [offsets_partition_for(g, partitions) for g in names]
    keys = {}
    template = encode(1, {"group": "g", "topic": "t", "partition": 0}, 3,
                      {"offset": 0, "leaderEpoch": 7, "metadata": "", "commitTimestamp": 0})[1]
    # OffsetCommitValue v3: version int16, offset int64 @2, leaderEpoch int32 @10, metadata, commitTimestamp int64 @16
    assert len(template) == 24
    value = bytearray(template)
    for n in range(records):
        gi = n % groups
        g = names[gi]
        ts = T0 + n // 10
        if (n // groups) % 250 == 0:  # a new generation for every group every 250 rounds
            gen = n // groups // 250 + 1
            k, v = encode(2, {"group": g}, 3, {
                "protocolType": "consumer", "generation": gen, "protocol": "range", "leader": f"{g}-m0",
                "currentStateTimestamp": ts, "members": [
                    {"memberId": f"{g}-m0", "groupInstanceId": None, "clientId": "c0", "clientHost": "/10.0.0.1",
                     "rebalanceTimeout": 300000, "sessionTimeout": 45000, "subscription": b"", "assignment": b""}]})
            p.produce(topic, key=k, value=v, partition=where[gi], timestamp=ts)
            continue
        tp = (n // groups) % 12
        kk = keys.get((gi, tp))
        if kk is None:
            kk = keys[(gi, tp)] = encode(1, {"group": g, "topic": COMMITTED_TOPICS[tp % 3],
                                            "partition": tp // 3}, None, None)[0]
        struct.pack_into(">q", value, 2, n)
        struct.pack_into(">q", value, 16, ts)
        while True:
            try:
                p.produce(topic, key=kk, value=bytes(value), partition=where[gi], timestamp=ts)
                break
            except BufferError:
                p.poll(0.1)
        if n % 20000 == 0:
            p.poll(0)
    assert p.flush(120) == 0


def plain_loop(bootstrap: str, topic: str) -> tuple[int, float]:
    """(a): one process, one consumer assigned every partition, reading everything."""
    from confluent_kafka import Consumer, KafkaError, TopicPartition

    from kgroup.kafka.logreader import offsets_log_ranges
    from kgroup.kafka.settings import ConnectionSettings

    ranges = offsets_log_ranges(ConnectionSettings.build(bootstrap, [], None, 30.0), topic)
    start = time.perf_counter()
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{uuid.uuid4()}", "enable.auto.commit": False,
                  "enable.partition.eof": True, "fetch.max.bytes": 64 * 1024 * 1024,
                  "max.partition.fetch.bytes": 16 * 1024 * 1024})
    c.assign([TopicPartition(topic, r.partition, r.start) for r in ranges])
    pending = {r.partition for r in ranges if r.end > r.start}
    n = size = 0
    while pending:
        for m in c.consume(50000, 1.0):
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    pending.discard(m.partition())
                continue
            k, v = m.key(), m.value()
            size += len(k) + (len(v) if v else 0)
            n += 1
    c.close()
    return n, time.perf_counter() - start


class PeakRss:
    """Peak resident memory of a process and its children (the driver JVM), from /proc."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.stop = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                children.setdefault(ppid, []).append(int(d))
        out, todo = [], [self.pid]
        while todo:
            p = todo.pop()
            out.append(p)
            todo.extend(children.get(p, []))
        return out

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            total = 0
            for p in self._tree():
                try:
                    for line in open(f"/proc/{p}/status"):
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1]) * 1024
                except OSError:
                    pass
            self.peak = max(self.peak, total)


def kgroup_scan(*args: str) -> tuple[dict, float, int]:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kgroup", "scan", *args, "-o", "json", "--storm", "10"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    rss = PeakRss(proc.pid)
    out, err = proc.communicate()
    rss.stop.set()
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"kgroup scan failed ({proc.returncode}): {err[-3000:]}")
    return json.loads(out), elapsed, rss.peak


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=5_000_000)
    ap.add_argument("--groups", type=int, default=20_000)
    ap.add_argument("--partitions", type=int, default=50)
    ap.add_argument("--readme", action="store_true", help="write the tables into docs/benchmarks.md and docs/scan.md")
    args = ap.parse_args()
    proc, bootstrap = start_tansu()
    work = Path(tempfile.mkdtemp(prefix="kgroup-scan-bench-"))
    try:
        topic = "bench-offsets"
        t = time.perf_counter()
        print(f"setting up: {args.records:,} records, {args.groups:,} groups, {args.partitions} partitions",
              file=sys.stderr, flush=True)
        write_log(bootstrap, topic, args.records, args.groups, args.partitions)
        print(f"written in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
        n_a, s_a = plain_loop(bootstrap, topic)
        print(f"(a) {n_a:,} records in {s_a:.1f} s", file=sys.stderr, flush=True)
        common = ["-b", bootstrap, "--offsets-topic", topic, "--timeout", "30"]
        doc_b, s_b, rss_b = kgroup_scan(*common)
        print(f"(b) {s_b:.1f} s", file=sys.stderr, flush=True)
        save = work / "saved.parquet"
        doc_s, s_s, rss_s = kgroup_scan(*common, "--save", str(save))
        print(f"(b') {s_s:.1f} s", file=sys.stderr, flush=True)
        doc_c, s_c, rss_c = kgroup_scan("--input", str(save))
        print(f"(c) {s_c:.1f} s", file=sys.stderr, flush=True)
        for doc in (doc_b, doc_s, doc_c):
            assert doc["summary"]["records_read"] == n_a, (doc["summary"]["records_read"], n_a)
        live_only = ("lag", "offsets_partition_leader", "status", "status_complete")  # what --input cannot know
        strip = [[{k: v for k, v in r.items() if k not in live_only} for r in d["groups"]]
                 for d in (doc_b, doc_s, doc_c)]
        assert strip[0] == strip[1] == strip[2], "live, --save and --input disagree"

        def rate(doc, seconds):
            work_s = seconds - doc["summary"]["spark_start_seconds"]
            return n_a / work_s, work_s

        r_a = n_a / s_a
        r_b, w_b = rate(doc_b, s_b)
        r_s, w_s = rate(doc_s, s_s)
        r_c, w_c = rate(doc_c, s_c)
        print(f"\n{n_a:,} records, {args.groups:,} groups, {args.partitions} partitions\n")
        runs = (("(b) `kgroup scan` from Kafka", doc_b, s_b, r_b, rss_b),
                ("(b') from Kafka with `--save` Parquet", doc_s, s_s, r_s, rss_s),
                ("(c) `kgroup scan --input` the Parquet save", doc_c, s_c, r_c, rss_c))
        lines = ["| run | seconds | Spark start-up s | records/s (excluding start-up) | vs (a) | driver peak RSS |",
                 "|---|---|---|---|---|---|",
                 f"| (a) a plain single-process confluent-kafka consume loop | {s_a:.1f} | - | {r_a:,.0f} | 1.00 | - |"]
        lines += [f"| {label} | {s:.1f} | {doc['summary']['spark_start_seconds']:.1f} | {r:,.0f} | {r / r_a:.2f} | "
                  f"{rss / 2**20:,.0f} MiB |" for label, doc, s, r, rss in runs]
        lines += ["", f"{n_a:,} records, {args.groups:,} groups, {args.partitions} partitions; vs (a): the rate "
                  f"against the plain loop of the same run. {measured_on()}"]
        table = "\n".join(lines)
        print(table, flush=True)
        cores = cpu()[1] or 1
        starts = sorted(doc["summary"]["spark_start_seconds"] for _, doc, *_ in runs)
        sizing = "\n".join([
            "| run | records/s (after Spark start-up) | per core |", "|---|---|---|",
            f"| plain single-process confluent-kafka loop (reference) | {r_a:,.0f} | - |",
            f"| `kgroup scan` from Kafka, `local[*]` | {r_b:,.0f} | ~{round(r_b / cores, -3):,.0f} |",
            f"| `kgroup scan --input` Parquet | {r_c:,.0f} | ~{round(r_c / cores, -3):,.0f} |",
            "", f"Spark start-up took {starts[0]:.1f}-{starts[-1]:.1f} s on top. {measured_on()}"])
        if args.readme:
            write_block("scan-bench", table)
            write_block("scan-bench-sizing", sizing, ROOT / "docs" / "scan.md")
        return 0
    finally:
        stop_process(proc)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
