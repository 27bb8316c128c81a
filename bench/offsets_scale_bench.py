"""Benchmark: `kgroup offsets --all-groups -o json` at scale against the test broker, side by side
in the same run with a JVM baseline making the same Admin calls (Kafka's Java Admin client:
list groups, describe them, committed offsets, earliest and latest offsets).

    python bench/offsets_scale_bench.py [--groups 2000] [--partitions 100] [--topics 100] [--runs 5] [--readme]

Each group commits every partition of one topic (`--partitions` each): groups x partitions rows
over topics x partitions partitions. Both tools are measured end to end, process start to
output, alternating runs; wall time and peak memory (max RSS) medians. Prints a Markdown table;
with --readme it also replaces docs/benchmarks.md's offsets-scale-bench block.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from brokers import start_tansu, stop_process  # noqa: E402
from figures import machine, write_block  # noqa: E402
from seed import create_topics  # noqa: E402


def compile_baseline(build: Path) -> str:
    jar = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch_kafka_clients.py")], check=True,
                         capture_output=True, text=True).stdout.strip()
    cp = os.pathsep.join([jar, str(Path(jar).with_name("slf4j-api-2.0.18.jar"))])
    subprocess.run(["javac", "-nowarn", "-d", str(build), "-cp", cp,
                    str(ROOT / "bench" / "OffsetsAllBaseline.java")], check=True)
    return os.pathsep.join([str(build), cp])


# Runs the measured command and reports its wall time and peak RSS on the last line of stderr: a
# small process of its own, so that the peak is the command's and not that of this process (a
# forked child counts its parent's pages until it runs the command).
_MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:])
elapsed = time.perf_counter() - start
sys.stderr.write(f"\\n{elapsed} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n")
sys.exit(code)
"""


def measured(cmd: list[str]) -> tuple[float, float, str]:
    """(seconds, peak RSS in MiB, stdout) of one run of ``cmd``."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        code = subprocess.call([sys.executable, "-c", _MEASURE, *cmd], stdout=out, stderr=err, cwd=ROOT)
        out.seek(0)
        err.seek(0)
        errors = err.read().decode()
        if code != 0:
            raise RuntimeError(f"{cmd[0]} failed ({code}): {errors[-2000:]}")
        elapsed, rss_kib = errors.rstrip().rsplit("\n", 1)[-1].split()
        return float(elapsed), int(rss_kib) / 1024, out.read().decode()


def seed(bootstrap: str, groups: int, topics: int, partitions: int) -> None:
    """``topics`` topics of ``partitions`` partitions with 2 records each; group g commits every
    partition of topic g % topics at offset p % 3 (so lags 2, 1 and 0)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient

    names = [f"t{i:03d}" for i in range(topics)]
    create_topics(bootstrap, {t: partitions for t in names})
    producer = Producer({"bootstrap.servers": bootstrap, "batch.num.messages": 1, "linger.ms": 0,
                         "allow.auto.create.topics": False})
    for t in names:
        for p in range(partitions):
            for _ in range(2):  # one record per batch (Tansu's `latest` offset is right only then)
                producer.produce(t, value=b"x", partition=p)
                producer.poll(0)
    assert producer.flush(120) == 0
    admin = AdminClient({"bootstrap.servers": bootstrap})
    ids = [f"bench-{g:05d}" for g in range(groups)]
    for start in range(0, groups, 100):
        futures = []
        for g in range(start, min(groups, start + 100)):
            tps = [TopicPartition(names[g % topics], p, p % 3) for p in range(partitions)]
            futures += admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(ids[g], tps)]).values()
        for f in futures:
            f.result(timeout=60)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--partitions", type=int, default=100, help="committed partitions per group (= per topic)")
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--readme", action="store_true", help="write the figures into docs/benchmarks.md")
    args = ap.parse_args()
    proc, bootstrap = start_tansu()
    try:
        print(f"setting up: {args.topics} topics x {args.partitions} partitions, {args.groups} groups",
              file=sys.stderr)
        seed(bootstrap, args.groups, args.topics, args.partitions)
        with tempfile.TemporaryDirectory() as build:
            cp = compile_baseline(Path(build))
            kgroup = [sys.executable, "-m", "kgroup", "offsets", "--all-groups", "-b", bootstrap, "-o", "json",
                      "--timeout", "120"]
            java = ["java", "-cp", cp, "OffsetsAllBaseline", bootstrap]
            measured(kgroup), measured(java)  # warm the broker and the page cache
            k_runs, j_runs = [], []
            for _ in range(args.runs):
                k_runs.append(measured(kgroup))
                j_runs.append(measured(java))
        import json

        doc = json.loads(k_runs[-1][2])
        rows = {(g["group"], p["topic"], p["partition"]): (p["committed"], p["log_start"], p["log_end"], p["lag"])
                for g in doc["groups"] for p in g["partitions"]}
        java_rows = {}
        for line in j_runs[-1][2].splitlines():
            group, _state, topic, partition, c, s, e, lag = line.split()
            java_rows[(group, topic, int(partition))] = (int(c), int(s), int(e), int(lag))
        rows_expected = args.groups * args.partitions
        assert len(doc["groups"]) == args.groups, len(doc["groups"])
        assert rows == java_rows and len(rows) == rows_expected, (len(rows), len(java_rows))
        assert not any(g["incomplete"] for g in doc["groups"])

        def med(runs, i):
            return statistics.median(r[i] for r in runs)

        k_s, j_s, k_m, j_m = med(k_runs, 0), med(j_runs, 0), med(k_runs, 1), med(j_runs, 1)
        lines = [f"| `offsets --all-groups -o json`, {args.groups:,} groups x {args.partitions} partitions "
                 f"({rows_expected:,} rows), median of {args.runs} | seconds | min | max | peak MiB |"]
        lines.append("|---|---|---|---|---|")
        for name, runs in (("kgroup (Python: librdkafka, batched describe and OffsetFetch)", k_runs), ("Java Admin baseline (kafka-clients 4.3.0)", j_runs)):
            times = [r[0] for r in runs]
            lines.append(f"| {name} | {med(runs, 0):.2f} | {min(times):.2f} | {max(times):.2f} | {med(runs, 1):.0f} |")
        lines += ["", f"kgroup / JVM: {k_s / j_s:.2f}x time, {k_m / j_m:.2f}x peak memory (same run; {machine()})"]
        text = "\n".join(lines)
        print(text, flush=True)
        if args.readme:
            write_block("offsets-scale-bench", text)
        return 0
    finally:
        stop_process(proc)


if __name__ == "__main__":
    raise SystemExit(main())
