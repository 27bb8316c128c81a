"""Benchmark: `kgroup offsets --all-groups -o json` at scale against the test broker, side by side
in the same run with a JVM baseline making the same Admin calls (Kafka's Java Admin client:
list groups, describe them, committed offsets, earliest and latest offsets).

    python bench/offsets_scale_bench.py [--groups 2000] [--partitions 100] [--topics 100] [--runs 5]
                                        [--listener plaintext|sasl_ssl|both] [--readme]

Each group commits every partition of one topic (`--partitions` each): groups x partitions rows
over topics x partitions partitions. Two listeners, each a broker of its own seeded alike:
plaintext (Tansu itself) and SASL_SSL with SCRAM-SHA-512 (Tansu behind the test front,
tests/kafkafront.py: Kafka's own TLS and SASL server code); over SASL_SSL both tools read the
same Java client properties file (a PEM truststore with the test CA, the SCRAM login), kgroup as
its --command-config. Both tools are measured end to end, process start to output, alternating
runs (kgroup, Java, on each listener in turn); wall time and peak memory (max RSS) medians.
Prints a Markdown table per listener; with --readme it also replaces docs/benchmarks.md's
offsets-scale-bench (plaintext) and offsets-scale-bench-sasl-ssl blocks.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
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


def seed(bootstrap: str, groups: int, topics: int, partitions: int, conf: dict[str, str] | None = None) -> None:
    """``topics`` topics of ``partitions`` partitions with 2 records each; group g commits every
    partition of topic g % topics at offset p % 3 (so lags 2, 1 and 0). ``conf``: the client's
    security settings (through the front)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient

    conf = dict(conf or {})
    names = [f"t{i:03d}" for i in range(topics)]
    create_topics(bootstrap, {t: partitions for t in names}, conf=conf)
    producer = Producer({"bootstrap.servers": bootstrap, "batch.num.messages": 1, "linger.ms": 0,
                         "allow.auto.create.topics": False, **conf})
    for t in names:
        for p in range(partitions):
            for _ in range(2):  # one record per batch (Tansu's `latest` offset is right only then)
                producer.produce(t, value=b"x", partition=p)
                producer.poll(0)
    assert producer.flush(120) == 0
    admin = AdminClient({"bootstrap.servers": bootstrap, **conf})
    ids = [f"bench-{g:05d}" for g in range(groups)]
    for start in range(0, groups, 100):
        futures = []
        for g in range(start, min(groups, start + 100)):
            tps = [TopicPartition(names[g % topics], p, p % 3) for p in range(partitions)]
            futures += admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(ids[g], tps)]).values()
        for f in futures:
            f.result(timeout=60)


@dataclass
class Listener:
    """One broker the tools are measured against, and how each tool connects to it."""

    name: str  # "plaintext" | "sasl_ssl"
    block: str  # its block in docs/benchmarks.md
    bootstrap: str
    kgroup_args: list[str]  # connection options of kgroup
    java_args: list[str]  # OffsetsAllBaseline's arguments after the bootstrap
    title: str  # how the table names the listener
    kgroup_name: str


LISTENERS = ("plaintext", "sasl_ssl")


def start_listener(name: str, work: Path, stops: list) -> tuple[Listener, dict[str, str]]:
    """Start the broker (and front) of one listener; returns it and the librdkafka settings that
    seed it. What to stop is appended to ``stops``."""
    if name == "plaintext":
        proc, bootstrap = start_tansu()
        stops.append(lambda: stop_process(proc))
        return Listener(name, "offsets-scale-bench", bootstrap, [], [], "plaintext",
                        "kgroup (Python: kgroup's batched client, many groups per request)"), {}
    from kafkafront import start_front

    mechanism = "SCRAM-SHA-512"
    front, stop = start_front(work / "front", protocol="SASL_SSL", mechanisms=(mechanism,))
    stops.append(stop)
    props = {k: v for k, v in front.java_properties(mechanism).items() if k != "bootstrap.servers"}
    config = work / "client.properties"  # as an on-call engineer's file: the Java client reads the same
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    config.chmod(0o600)
    seed_conf = {k: v for k, v in front.client_config(mechanism).items() if k != "bootstrap.servers"}
    return Listener(name, "offsets-scale-bench-sasl-ssl", front.bootstrap, ["--command-config", str(config)],
                    [str(config)], f"SASL_SSL + {mechanism} (Tansu behind the test front)",
                    f"kgroup (Python: kgroup's batched client over TLS, SASL {mechanism})"), seed_conf


def check_same(k_out: str, j_out: str, groups: int, partitions: int) -> None:
    """Both tools gave the same offsets for every one of groups x partitions rows."""
    import json

    doc = json.loads(k_out)
    rows = {(g["group"], p["topic"], p["partition"]): (p["committed"], p["log_start"], p["log_end"], p["lag"])
            for g in doc["groups"] for p in g["partitions"]}
    java_rows = {}
    for line in j_out.splitlines():
        group, _state, topic, partition, c, s, e, lag = line.split()
        java_rows[(group, topic, int(partition))] = (int(c), int(s), int(e), int(lag))
    assert len(doc["groups"]) == groups, len(doc["groups"])
    assert rows == java_rows and len(rows) == groups * partitions, (len(rows), len(java_rows))
    assert not any(g["incomplete"] for g in doc["groups"])


def table(listener: Listener, k_runs: list, j_runs: list, groups: int, partitions: int, runs: int,
          load: tuple[float, float]) -> str:
    def med(rs, i):
        return statistics.median(r[i] for r in rs)

    k_s, j_s, k_m, j_m = med(k_runs, 0), med(j_runs, 0), med(k_runs, 1), med(j_runs, 1)
    lines = [f"| `offsets --all-groups -o json` over {listener.title}, {groups:,} groups x {partitions} partitions "
             f"({groups * partitions:,} rows), median of {runs} | seconds | min | max | peak MiB |"]
    lines.append("|---|---|---|---|---|")
    for name, rs in ((listener.kgroup_name, k_runs), ("Java Admin baseline (kafka-clients 4.3.0)", j_runs)):
        times = [r[0] for r in rs]
        lines.append(f"| {name} | {med(rs, 0):.2f} | {min(times):.2f} | {max(times):.2f} | {med(rs, 1):.0f} |")
    lines += ["", f"kgroup / JVM: {k_s / j_s:.2f}x time, {k_m / j_m:.2f}x peak memory (same run; {machine()}; "
                  f"1-minute load average {load[0]:.1f} at the start, {load[1]:.1f} at the end: "
                  "other work shares the cores)"]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--partitions", type=int, default=100, help="committed partitions per group (= per topic)")
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--listener", choices=(*LISTENERS, "both"), default="both")
    ap.add_argument("--readme", action="store_true", help="write the figures into docs/benchmarks.md")
    args = ap.parse_args()
    names = LISTENERS if args.listener == "both" else (args.listener,)
    stops: list = []
    load = os.getloadavg()[0]  # the machine is shared: said with the figures
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            listeners = []
            for name in names:
                listener, conf = start_listener(name, work / name, stops)
                print(f"setting up {name}: {args.topics} topics x {args.partitions} partitions, {args.groups} groups",
                      file=sys.stderr)
                seed(listener.bootstrap, args.groups, args.topics, args.partitions, conf)
                listeners.append(listener)
            (work / "build").mkdir()
            cp = compile_baseline(work / "build")
            commands = {}
            for lst in listeners:
                kgroup = [sys.executable, "-m", "kgroup", "offsets", "--all-groups", "-b", lst.bootstrap,
                          *lst.kgroup_args, "-o", "json", "--timeout", "120"]
                java = ["java", "-cp", cp, "OffsetsAllBaseline", lst.bootstrap, *lst.java_args]
                commands[lst.name] = (kgroup, java)
                measured(kgroup), measured(java)  # warm the broker and the page cache
            results: dict[str, tuple[list, list]] = {lst.name: ([], []) for lst in listeners}
            for _ in range(args.runs):
                for lst in listeners:
                    kgroup, java = commands[lst.name]
                    results[lst.name][0].append(measured(kgroup))
                    results[lst.name][1].append(measured(java))
            loads = (load, os.getloadavg()[0])
            for lst in listeners:
                k_runs, j_runs = results[lst.name]
                check_same(k_runs[-1][2], j_runs[-1][2], args.groups, args.partitions)
                text = table(lst, k_runs, j_runs, args.groups, args.partitions, args.runs, loads)
                print(text + "\n", flush=True)
                if args.readme:
                    write_block(lst.block, text)
        return 0
    finally:
        for stop in reversed(stops):
            stop()


if __name__ == "__main__":
    raise SystemExit(main())
