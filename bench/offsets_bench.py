"""Benchmark: `kgroup offsets` on a 5,000-partition group against the test broker, side by side
in the same run with a JVM baseline making the same Admin calls (Kafka's Java Admin client).

    python bench/offsets_bench.py [--partitions 5000] [--runs 5] [--readme]

Both are measured end to end, process start to output, alternating runs; prints a Markdown table
(with --readme it also replaces docs/benchmarks.md's offsets-bench block).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402
from brokers import start_tansu, stop_process  # noqa: E402
from seed import LiveGroup, create_topics, produce  # noqa: E402


def compile_baseline(build: Path) -> str:
    jar = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch_kafka_clients.py")], check=True,
                         capture_output=True, text=True).stdout.strip()
    cp = os.pathsep.join([jar, str(Path(jar).with_name("slf4j-api-2.0.18.jar"))])
    subprocess.run(["javac", "-nowarn", "-d", str(build), "-cp", cp, str(ROOT / "bench" / "OffsetsBaseline.java")],
                   check=True)
    return os.pathsep.join([str(build), cp])


def timed(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {proc.stderr[-2000:]}")
    return elapsed, proc.stdout


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--partitions", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    topic = "big"
    proc, bootstrap = start_tansu()
    group = None
    try:
        print(f"setting up: topic {topic} with {args.partitions} partitions, one record each", file=sys.stderr)
        create_topics(bootstrap, {topic: args.partitions})
        produce(bootstrap, {topic: args.partitions}, count=lambda t, p: 1 + p % 3)
        group = LiveGroup(bootstrap, "bench", clients=("B1", "B2"), topics={topic: args.partitions}).start(60)
        group.commit_seed_offsets(offset=lambda t, p: p % 2)
        with tempfile.TemporaryDirectory() as build:
            cp = compile_baseline(Path(build))
            kgroup = [sys.executable, "-m", "kgroup", "offsets", "bench", "-b", bootstrap, "-o", "json"]
            java = ["java", "-cp", cp, "OffsetsBaseline", bootstrap, "bench", topic]
            timed(kgroup), timed(java)  # warm the broker and the page cache
            k_times, j_times = [], []
            for _ in range(args.runs):
                k, k_out = timed(kgroup)
                j, j_out = timed(java)
                k_times.append(k)
                j_times.append(j)
        import json

        rows = json.loads(k_out)["groups"][0]["partitions"]
        java_rows = j_out.splitlines()[1:]
        assert len(rows) == len(java_rows) == args.partitions, (len(rows), len(java_rows))
        assert sum(r["lag"] for r in rows) == sum(int(line.split()[5]) for line in java_rows)
        k_med, j_med = statistics.median(k_times), statistics.median(j_times)
        table = "\n".join([
            f"| tool ({args.partitions} partitions, median of {args.runs}) | seconds | min | max |",
            "|---|---|---|---|",
            f"| kgroup offsets (Python, librdkafka) | {k_med:.2f} | {min(k_times):.2f} | {max(k_times):.2f} |",
            f"| Java Admin baseline (kafka-clients 4.3.0) | {j_med:.2f} | {min(j_times):.2f} | {max(j_times):.2f} |",
            "",
            f"kgroup / JVM: {k_med / j_med:.2f}x time (same run). {measured_on()}",
        ])
        print(table, flush=True)
        if args.readme:
            write_block("offsets-bench", table)
        return 0
    finally:
        if group is not None:
            group.stop()
        stop_process(proc)


if __name__ == "__main__":
    raise SystemExit(main())
