"""Benchmark: `kgroup lag` on a group of 1,000 partitions with 10,000 commits in the window,
against a Tansu broker behind the fault proxy (tests/faultproxy.py), which counts every request.

    python bench/lag_bench.py [--partitions 1000] [--compare 100] [--runs 5] [--readme]

Set-up, for each size (--partitions, and --compare for the comparison): a data topic of that
many partitions, each holding RECORDS records one RECORD_STEP_MS apart from BASE (one record per
batch, CreateTime set here), and the group's offset commits (kgroup's own writer, as Kafka's
coordinator writes them) in an ordinary topic read with --offsets-topic: COMMITS commits per
partition, all in the window, the last COMMIT_STEP_MS before --until. The last commit of every
partition is also committed to the broker, so `kgroup offsets` (lag now) sees the same group.

Each size runs through both ways a broker answers ListOffsets by timestamp:
- tansu: Tansu's own answer, the log start for every timestamp; kgroup checks every answer against
  the records and searches the records where it is wrong (the record reads are counted);
- kafka: the proxy answers ListOffsets as Kafka does (tests/listoffsets.py); every answer passes
  the check, nothing is searched.

Measured, alternating, medians of --runs runs, each command end to end in a process of its own:
- `kgroup lag G --offsets-topic O --since S --until U -o json` (the command);
- `kgroup log G --offsets-topic O -o json` (the read of the same commits alone) and
  `kgroup offsets G -o json` (lag now): the baselines of the same run;
- the command's two phases, timed inside one process through its own functions
  (kgroup.lag.collect.read_commits, then ends_for_commits over kgroup.lag.ends.log_ends_at, whose stats say
  how the ends were found), each phase with a client id of its own so that the proxy counts each
  phase's ListOffsets requests apart.

Checked, not timed: every point's committed offset, end and lag equal the values worked out here
from the records produced; the ListOffsets requests of the ends phase are calls x leaders + 2
(earliest and latest), where a call asks one moment of every partition asked (a slot: the k-th
moment), the same at --compare partitions as at --partitions. Logs this short are read whole in
one ordered pass (kgroup.lag.ends), so nothing is asked by time: 2 requests. With --readme the
tables replace docs/benchmarks.md's lag-bench block.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402

RECORDS = 6  # per data partition
RECORD_STEP_MS = 10_000  # record i at BASE + i * 10 s
COMMITS = 10  # per partition, all in the window
COMMIT_STEP_MS = 5_000  # commit k at BASE + (k + 1) * 5 s
UNTIL_AFTER_LAST_MS = 5_000  # --until: 5 s after the last commit, so the only poll moment after it is --until
READ_ID, ENDS_ID = "lag-bench-read", "lag-bench-ends"


class Scenario(NamedTuple):
    partitions: int
    group: str
    data: str
    offsets_topic: str
    base: int
    times: dict[tuple[str, int], list[int]]  # every record's timestamp, per partition of both topics

    @property
    def since(self) -> int:
        return self.base

    @property
    def until(self) -> int:
        return self.commit_time(COMMITS - 1) + UNTIL_AFTER_LAST_MS

    def commit_time(self, k: int) -> int:
        return self.base + (k + 1) * COMMIT_STEP_MS

    def end_at(self, t: int) -> int:
        """Where every data partition's log ended at t: the first offset whose record is at or
        after t, or the log end (records at BASE, BASE + 10 s, ...: a ceiling)."""
        return min(RECORDS, max(0, -(-(t - self.base) // RECORD_STEP_MS)))

    def committed(self, p: int, k: int) -> int:
        """Commit k of partition p: behind the end by p % 3 (lags 0, 1, 2)."""
        return max(0, self.end_at(self.commit_time(k)) - p % 3)

    @property
    def slots(self) -> int:
        """The moments asked per partition: its commit moments and --until (the poll moments
        --until - 10 s, ... are at or before the last commit)."""
        return COMMITS + 1


def setup(bootstrap: str, partitions: int, base: int) -> Scenario:
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient
    from listoffsets import produce_one_per_batch
    from logbuilder import Log, produce

    data, offsets_topic, group = f"lagbench-data-{partitions}", f"lagbench-offsets-{partitions}", f"lagbench-{partitions}"
    stamps = {p: [base + i * RECORD_STEP_MS for i in range(RECORDS)] for p in range(partitions)}
    produce_one_per_batch(bootstrap, data, stamps)
    scenario = Scenario(partitions, group, data, offsets_topic, base, {})
    log = Log(partitions=1)
    for k in range(COMMITS):
        for p in range(partitions):
            log.commit(group, data, p, scenario.committed(p, k), scenario.commit_time(k))
    produce(bootstrap, offsets_topic, log)
    times = {(data, p): ts for p, ts in stamps.items()}
    times[(offsets_topic, 0)] = [r.timestamp for r in log.records]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    last = [TopicPartition(data, p, scenario.committed(p, COMMITS - 1)) for p in range(partitions)]
    for f in admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(group, last)]).values():
        f.result(60)
    return scenario._replace(times=times)


def leaders(bootstrap: str, topic: str) -> int:
    from confluent_kafka.admin import AdminClient

    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=30)
    return len({p.leader for p in md.topics[topic].partitions.values()})


def timed(cmd: list[str]) -> tuple[float, str]:
    """(seconds, stdout) of one run of ``cmd`` in a process of its own, from start to exit."""
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[2:5])} failed ({r.returncode}): {r.stderr[-2000:]}")
    return elapsed, r.stdout


def kgroup(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgroup", *args]


def phases(bootstrap: str, s: Scenario) -> dict:
    """The command's phases in one process of their own (this script with --phases)."""
    args = json.dumps({"bootstrap": bootstrap, "group": s.group, "offsets_topic": s.offsets_topic,
                       "since": s.since, "until": s.until})
    _, out = timed([sys.executable, str(Path(__file__).resolve()), "--phases", args])
    return json.loads(out)


def run_phases(args: dict) -> None:
    """What `kgroup lag` does, phase by phase, timed; prints one JSON document."""
    from kgroup.kafka.cluster import connect
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.lag import ends as ends_module
    from kgroup.lag.collect import ends_for_commits, read_commits
    from kgroup.lag.history import document, evaluate

    def settings(client_id: str) -> ConnectionSettings:
        return ConnectionSettings.build(args["bootstrap"], [f"client.id={client_id}"], None, 120.0, False)

    def quiet(*_: object) -> None:
        pass

    def warn(line: str) -> None:
        sys.stderr.write(f"lag_bench: {line}\n")

    start = time.perf_counter()
    commits = read_commits(args["group"], None, args["until"], None, args["offsets_topic"], settings(READ_ID), quiet,
                           warn, watch_hint=True)
    read_s = time.perf_counter() - start

    start = time.perf_counter()
    cluster = connect(settings(ENDS_ID))
    answers = []
    log_ends_at = ends_module.log_ends_at

    def kept(cluster, moments):
        answers.append(log_ends_at(cluster, moments))
        return answers[-1]

    ends_module.log_ends_at = kept  # ends_for_commits imports it when called
    try:
        ends = ends_for_commits(cluster, commits, args["since"], args["until"], False, warn)
    finally:
        ends_module.log_ends_at = log_ends_at
    ends_s = time.perf_counter() - start

    start = time.perf_counter()
    report = evaluate(args["group"], commits, ends, args["since"], args["until"], False)
    text = json.dumps(document(report, False))
    evaluate_s = time.perf_counter() - start
    print(json.dumps({"read_s": read_s, "ends_s": ends_s, "evaluate_s": evaluate_s, "bytes": len(text),
                      "commits": sum(map(len, commits.values())), "stats": answers[0].stats._asdict()}))


def check_points(s: Scenario, doc: dict) -> None:
    """Every point of the lag document as worked out from the records produced."""
    assert len(doc["partitions"]) == s.partitions, len(doc["partitions"])
    for part in doc["partitions"]:
        p = part["partition"]
        assert part["topic"] == s.data
        got = [(pt["time_ms"], pt["committed"], pt["end"], pt["lag"]) for pt in part["points"]]
        expected = []
        for k in range(COMMITS):
            t, c = s.commit_time(k), s.committed(p, k)
            expected.append((t, c, s.end_at(t), max(0, s.end_at(t) - c)))
        assert got == expected, (p, got, expected)
        assert part["end"] == s.end_at(s.until) == RECORDS and part["lag"] == RECORDS - s.committed(p, COMMITS - 1)


def list_offsets_of(proxy, client_id: str) -> int:
    from faultproxy import LIST_OFFSETS

    with proxy._lock:
        return sum(1 for api, _, c in proxy.requests if api == LIST_OFFSETS and c == client_id)


def measure(proxy, s: Scenario, runs: int) -> dict:
    """Every measurement of one scenario through the proxy's current answers."""
    from faultproxy import LIST_OFFSETS

    b = proxy.address
    lag_cmd = kgroup("lag", s.group, "-b", b, "--offsets-topic", s.offsets_topic, "--since", str(s.since),
                     "--until", str(s.until), "-o", "json", "--timeout", "120")
    log_cmd = kgroup("log", s.group, "-b", b, "--offsets-topic", s.offsets_topic, "-o", "json", "--timeout", "120")
    offsets_cmd = kgroup("offsets", s.group, "-b", b, "-o", "json", "--timeout", "120")
    out: dict = {"lag": [], "log": [], "offsets": [], "read": [], "ends": [], "evaluate": []}
    # a first run of each, not counted: the broker and the page cache warmed, the outputs checked
    before = proxy.seen(LIST_OFFSETS)
    _, text = timed(lag_cmd)
    out["lag_requests"] = proxy.seen(LIST_OFFSETS) - before
    check_points(s, json.loads(text))
    before = proxy.seen(LIST_OFFSETS)
    _, text = timed(log_cmd)
    out["log_requests"] = proxy.seen(LIST_OFFSETS) - before
    assert len(text.splitlines()) == s.partitions * COMMITS  # JSON Lines: one a record, every commit read
    timed(offsets_cmd)
    read0, ends0 = list_offsets_of(proxy, READ_ID), list_offsets_of(proxy, ENDS_ID)
    first = phases(b, s)
    out["read_requests"] = list_offsets_of(proxy, READ_ID) - read0
    out["ends_requests"] = list_offsets_of(proxy, ENDS_ID) - ends0
    out["stats"], out["commits"] = first["stats"], first["commits"]
    for _ in range(runs):
        out["lag"].append(timed(lag_cmd)[0])
        out["log"].append(timed(log_cmd)[0])
        out["offsets"].append(timed(offsets_cmd)[0])
        ph = phases(b, s)
        for key in ("read", "ends", "evaluate"):
            out[key].append(ph[f"{key}_s"])
        print(f"  lag {out['lag'][-1]:.2f} s, log {out['log'][-1]:.2f} s, offsets {out['offsets'][-1]:.2f} s; "
              f"phases: read {ph['read_s']:.2f} s, ends {ph['ends_s']:.2f} s, evaluate {ph['evaluate_s']:.2f} s",
              file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--compare", type=int, default=100, help="the smaller group the request count is compared with")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--readme", action="store_true", help="write the tables into docs/benchmarks.md")
    ap.add_argument("--phases", help=argparse.SUPPRESS)  # internal: the phases of one run, in this process
    args = ap.parse_args()
    if args.phases:
        run_phases(json.loads(args.phases))
        return 0

    from brokers import stop_process
    from faultproxy import LIST_OFFSETS, start_tansu_behind_proxy
    from listoffsets import kafka_list_offsets

    proc, proxy = start_tansu_behind_proxy()
    try:
        base = (int(time.time()) // 60 - 60) * 60_000  # about an hour ago, on a minute
        sizes = [args.partitions, args.compare]
        scenarios = {}
        for n in sizes:
            t = time.perf_counter()
            scenarios[n] = setup(proxy.address, n, base)
            print(f"set up {n} partitions x {RECORDS} records, {n * COMMITS:,} commits in "
                  f"{time.perf_counter() - t:.0f} s", file=sys.stderr)
        times = {k: v for s in scenarios.values() for k, v in s.times.items()}
        results = {}
        for path in ("tansu", "kafka"):
            for n in sizes:
                proxy.reset()
                if path == "kafka":
                    proxy.answer_with(LIST_OFFSETS, kafka_list_offsets(times, {}))
                print(f"{path}, {n} partitions:", file=sys.stderr)
                results[(path, n)] = measure(proxy, scenarios[n], args.runs)
        lead = {n: leaders(proxy.address, scenarios[n].data) for n in sizes}
    finally:
        proxy.stop()
        stop_process(proc)

    med = statistics.median
    answered = {"tansu": "Tansu (the log start: checked, searched)", "kafka": "as Kafka (proxy: checked)"}
    lines = ["| partitions x commits | ListOffsets by time answered | `kgroup lag` s | read the log s | "
             "end offsets s | evaluate s | `kgroup log` s (the read alone) | `kgroup offsets` s (lag now) | "
             "lag / log |", "|---|---|---|---|---|---|---|---|---|"]
    for (path, n), r in results.items():
        lines.append(f"| {n:,} x {COMMITS} | {answered[path]} | {med(r['lag']):.2f} | {med(r['read']):.2f} | "
                     f"{med(r['ends']):.2f} | {med(r['evaluate']):.2f} | {med(r['log']):.2f} | "
                     f"{med(r['offsets']):.2f} | {med(r['lag']) / med(r['log']):.2f}x |")
    lines += ["", "| partitions | answered | calls x leaders + 2 | ListOffsets: end offsets | reading the log | "
              "whole `kgroup lag` | `kgroup log` | moments checked | searched | record reads | positions read | "
              "records read |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    problems = []
    for (path, n), r in results.items():
        s, st = scenarios[n], r["stats"]
        expected = st["list_offsets_calls"] * lead[n] + 2
        lines.append(f"| {n:,} | {path} | {st['list_offsets_calls']} x {lead[n]} + 2 = {expected} | {r['ends_requests']} | "
                     f"{r['read_requests']} | {r['lag_requests']} | {r['log_requests']} | {st['checked']:,} | "
                     f"{st['searched']:,} | {st['record_reads']} | {st['positions_read']:,} | {st['records_read']:,} |")
        if r["ends_requests"] != expected or st["list_offsets_calls"] > s.slots:
            problems.append(f"{path}, {n} partitions: {r['ends_requests']} ListOffsets requests for the ends "
                            f"({st['list_offsets_calls']} calls), expected {expected} (at most {s.slots} slots)")
        if r["commits"] != n * COMMITS:
            problems.append(f"{path}, {n} partitions: {r['commits']} commits read")
    lines += ["", f"{args.partitions:,} partitions x {COMMITS} commits in the window ({args.partitions * COMMITS:,}), "
              f"{RECORDS} records per partition; Tansu behind the counting proxy, one broker (leader). Median of "
              f"{args.runs} runs, every row measured in the same run; lag / log: the whole command against the read "
              f"of the same commits alone. {measured_on()}"]
    table = "\n".join(lines)
    print(table, flush=True)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    if args.readme:
        write_block("lag-bench", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
