"""Benchmark: the ends phase of `kgroup lag` and `kgroup report` on Tansu, where the broker's
ListOffsets-by-time answers are wrong (it answers the log start for every timestamp) and every
log end at a commit moment is found from the records' timestamps.

    python bench/ends_bench.py [--before /work/main] [--runs 3] [--readme]

Set-up, on one Tansu broker (memory storage) started here:
- lag: a data topic of LAG_PARTITIONS partitions, each holding one record every LAG_RECORD_MS
  (one record per batch, so that Tansu's log end is right; CreateTime set here), and the group's
  LAG_COMMITS commits per partition (one every LAG_COMMIT_MS, kgroup's own writer, as Kafka's
  coordinator writes them) in an ordinary topic read with --offsets-topic: 20,000 commits over
  10 partitions by default;
- report: the same over REPORT_PARTITIONS partitions and a 2-hour window (one record every
  REPORT_RECORD_MS, a commit every REPORT_COMMIT_MS per partition), with two generations of the
  group, for `kgroup report --out`.

Measured, end to end (process start to exit):
- `kgroup lag G -b B --offsets-topic O --since S --until U -o json`;
- `kgroup report G -b B --offsets-topic O --since S --until U --out page.html -o json`;
- each by this worktree's code (median of --runs runs) and, with --before DIR, once by the code
  checked out in DIR (its kgroup package: the code before the change, minutes for the report) in
  the same run; the baseline of the same run: `kgroup log G --offsets-topic O -o json` (the read of
  the same commits alone, which lag and report both do first);
- the ends phase alone (kgroup.lag.collect.ends_for_commits over kgroup.lag.ends.log_ends_at, in
  a process of its own, whose stats say how many record reads it took).

Checked, not timed: every lag point (committed offset, end, lag) of `lag -o json` equals the
value worked out here from the records produced, and, with --before, both codes print the same
document (the report's bar its generation time and version). With --readme the table replaces
docs/benchmarks.md's ends-bench block.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after PYTHONPATH: --phase runs under the code compared
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402

LAG_PARTITIONS, LAG_COMMITS, LAG_COMMIT_MS, LAG_RECORD_MS = 10, 2_000, 1_000, 250
REPORT_PARTITIONS, REPORT_WINDOW_MS, REPORT_COMMIT_MS, REPORT_RECORD_MS = 24, 2 * 3_600_000, 5_000, 1_000
GROUP_LAG, GROUP_REPORT = "endsbench-lag", "endsbench-report"


class Scenario(NamedTuple):
    name: str
    group: str
    data: str
    offsets_topic: str
    partitions: int
    base: int  # the first record's time
    record_ms: int
    records: int  # per partition
    commit_ms: int
    commits: int  # per partition

    @property
    def since(self) -> int:
        return self.base

    @property
    def until(self) -> int:
        return self.commit_time(0, self.commits - 1) + self.commit_ms // 2

    def record_time(self, p: int, i: int) -> int:
        return self.base + i * self.record_ms + p

    def commit_time(self, p: int, k: int) -> int:
        return self.base + (k + 1) * self.commit_ms + 3 * p + 1

    def end_at(self, p: int, t: int) -> int:
        """Where partition p's log ended at t: the first offset whose record is at or after t (a
        ceiling over records one record_ms apart from base + p), or the log end."""
        return min(self.records, max(0, -(-(t - self.base - p) // self.record_ms)))

    def committed(self, p: int, k: int) -> int:
        """Commit k of partition p: behind the end then by (7k + p) % 40."""
        return max(0, self.end_at(p, self.commit_time(p, k)) - (7 * k + p) % 40)


def scenarios(base_now: int, lag_commits: int, report_window_ms: int) -> list[Scenario]:
    lag_records = lag_commits * LAG_COMMIT_MS // LAG_RECORD_MS + 10
    report_commits = report_window_ms // REPORT_COMMIT_MS - 1
    report_records = report_window_ms // REPORT_RECORD_MS + 10
    lag_base = base_now - lag_commits * LAG_COMMIT_MS - 600_000
    report_base = base_now - report_window_ms - 600_000
    return [Scenario("lag", GROUP_LAG, "endsbench-lag-data", "endsbench-lag-offsets", LAG_PARTITIONS, lag_base,
                     LAG_RECORD_MS, lag_records, LAG_COMMIT_MS, lag_commits),
            Scenario("report", GROUP_REPORT, "endsbench-report-data", "endsbench-report-offsets", REPORT_PARTITIONS,
                     report_base, REPORT_RECORD_MS, report_records, REPORT_COMMIT_MS, report_commits)]


def produce_data(bootstrap: str, s: Scenario) -> None:
    """The data topic, one record per batch (batch.num.messages=1: Tansu's log end is right only
    so), every partition's records in offset order with the CreateTime given; then checked: the
    log end of every partition is its record count."""
    from confluent_kafka import Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(s.data, s.partitions, 1)], request_timeout=30).values():
        f.result(60)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "batch.num.messages": 1,
                         "max.in.flight": 1, "allow.auto.create.topics": False, "queue.buffering.max.messages": 1_000_000})
    for i in range(s.records):
        for p in range(s.partitions):
            producer.produce(s.data, value=b"v%d" % i, partition=p, timestamp=s.record_time(p, i))
        if i % 1000 == 999:
            producer.poll(0)
    assert producer.flush(300) == 0
    latest = admin.list_offsets({TopicPartition(s.data, p): OffsetSpec.latest() for p in range(s.partitions)})
    for tp, f in latest.items():
        assert f.result(30).offset == s.records, (tp, f.result(30).offset)


def produce_commits(bootstrap: str, s: Scenario) -> int:
    """The group's commits (and, for the report, two generations) in the offsets topic."""
    from logbuilder import Log, produce

    log = Log(partitions=1)
    members = [{"id": f"consumer-{i}", "client": f"app-{i}", "host": f"/10.0.0.{i}", "topics": [s.data],
                "assignment": {s.data: list(range(i, s.partitions, 2))}} for i in range(2)]
    events: list[tuple[int, int, int]] = [(s.commit_time(p, k), p, k) for p in range(s.partitions)
                                          for k in range(s.commits)]
    events.sort()
    if s.name == "report":
        log.generation(s.group, 1, s.base + 500, members)
    for t, p, k in events:
        log.commit(s.group, s.data, p, s.committed(p, k), t)
    produce(bootstrap, s.offsets_topic, log)
    return len(log.records)


def check_lag(s: Scenario, doc: dict) -> None:
    """Every point of the lag document as worked out here from the records produced."""
    parts = {p["partition"]: p for p in doc["partitions"]}
    assert sorted(parts) == list(range(s.partitions)), sorted(parts)
    for p, part in parts.items():
        got = [(pt["time_ms"], pt["committed"], pt["end"], pt["lag"]) for pt in part["points"]]
        expected = []
        for k in range(s.commits):
            t, c = s.commit_time(p, k), s.committed(p, k)
            expected.append((t, c, s.end_at(p, t), max(0, s.end_at(p, t) - c)))
        assert got == expected, (p, got[:3], expected[:3])
        assert part["end"] == s.end_at(p, s.until), (part["end"], s.end_at(p, s.until))


def run(cmd: list[str], code: Path, timeout: float | None = None) -> tuple[float, str | None]:
    """(seconds, stdout) of one run of ``cmd`` in a process of its own with ``code`` on the path;
    past ``timeout`` the run is stopped: (timeout, None)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    start = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=code, env=env, stdin=subprocess.DEVNULL,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return float(timeout or 0), None
    elapsed = time.perf_counter() - start
    if r.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(cmd[2:5])} failed ({r.returncode}): {r.stderr[-2000:]}")
    return elapsed, r.stdout


def kgroup(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgroup", *args]


def ends_phase(bootstrap: str, s: Scenario, code: Path) -> dict:
    """The ends phase alone, timed in a process of its own (this script with --phase)."""
    args = json.dumps({"bootstrap": bootstrap, "group": s.group, "offsets_topic": s.offsets_topic,
                       "since": s.since, "until": s.until})
    _, out = run([sys.executable, str(Path(__file__).resolve()), "--phase", args], code)
    return json.loads(out)


def run_phase(args: dict) -> None:
    """ends_for_commits of the scenario's commits, timed; prints one JSON document."""
    from kgroup.kafka.cluster import connect
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.lag import ends as ends_module
    from kgroup.lag.collect import ends_for_commits, read_commits

    settings = ConnectionSettings.build(args["bootstrap"], [], None, 120.0, False)

    def quiet(*_: object) -> None:
        pass

    def warn(line: str) -> None:
        sys.stderr.write(f"ends_bench: {line}\n")

    commits = read_commits(args["group"], None, args["until"], None, args["offsets_topic"], settings, quiet, warn)
    answers = []
    log_ends_at = ends_module.log_ends_at

    def kept(*a, **k):
        answers.append(log_ends_at(*a, **k))
        return answers[-1]

    ends_module.log_ends_at = kept  # ends_for_commits imports it when called
    start = time.perf_counter()
    try:
        ends_for_commits(connect(settings), commits, args["since"], args["until"], False, warn)
    finally:
        ends_module.log_ends_at = log_ends_at
    ends_s = time.perf_counter() - start
    print(json.dumps({"ends_s": ends_s, "moments": len(answers[0].ends), "stats": answers[0].stats._asdict()}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="a checkout of the code to compare with (its kgroup package)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before-timeout", type=float, help="stop the code before after this many seconds")
    ap.add_argument("--lag-commits", type=int, default=LAG_COMMITS, help="commits per partition of the lag case")
    ap.add_argument("--report-hours", type=float, default=REPORT_WINDOW_MS / 3_600_000)
    ap.add_argument("--only", choices=("lag", "report"))
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md")
    ap.add_argument("--phase", help=argparse.SUPPRESS)  # internal: the ends phase, in this process
    args = ap.parse_args()
    if args.phase:
        run_phase(json.loads(args.phase))
        return 0

    from brokers import start_tansu, stop_process

    codes = {"after": ROOT}
    if args.before is not None:
        codes = {"before": args.before.resolve(), "after": ROOT}
    med = statistics.median
    proc, bootstrap = start_tansu()
    results: dict[str, dict[str, list[float]]] = {}
    stats: dict[str, dict] = {}
    stopped: set[str] = set()
    sizes: dict[str, str] = {}
    try:
        base_now = (int(time.time()) // 60) * 60_000
        wanted = scenarios(base_now, args.lag_commits, int(args.report_hours * 3_600_000))
        if args.only:
            wanted = [s for s in wanted if s.name == args.only]
        for s in wanted:
            t = time.perf_counter()
            produce_data(bootstrap, s)
            n = produce_commits(bootstrap, s)
            sizes[s.name] = (f"{s.partitions} partitions x {s.records:,} records (one every {s.record_ms} ms), "
                             f"{s.partitions * s.commits:,} commits ({n:,} records in the offsets topic)")
            print(f"set up {s.name}: {sizes[s.name]} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="kgroup-ends-bench-") as tmp:
            for s in wanted:
                window = ["--since", str(s.since), "--until", str(s.until)]
                conn = ["-b", bootstrap, "--offsets-topic", s.offsets_topic, "--timeout", "120"]
                log_cmd = kgroup("log", s.group, *conn, "-o", "json")
                if s.name == "lag":
                    cmd = kgroup("lag", s.group, *conn, *window, "-o", "json")
                else:
                    cmd = kgroup("report", s.group, *conn, *window, "--out", str(Path(tmp) / "page.html"), "-o", "json")
                r: dict[str, list[float]] = {"before": [], "after": [], "log": [], "ends": []}
                results[s.name] = r
                # the code before: one run (minutes on the report), its document kept for the comparison
                before_out = None
                if "before" in codes:
                    seconds, before_out = run(cmd, codes["before"], args.before_timeout)
                    r["before"].append(seconds)
                    if before_out is None:
                        stopped.add(s.name)
                    print(f"  {s.name} before: {seconds:.2f} s{' (stopped)' if before_out is None else ''}",
                          file=sys.stderr)
                _, after_out = run(cmd, ROOT)  # a first run, not counted: its output checked
                if s.name == "lag":
                    check_lag(s, json.loads(after_out or ""))
                if before_out is not None:
                    docs = [json.loads(text) for text in (before_out, after_out or "")]
                    for d in docs:  # when the report was made, by which version: not the same
                        d.pop("generated_ms", None)
                        d.pop("version", None)
                    assert docs[0] == docs[1], f"{s.name}: the two codes print different documents"
                stats[s.name] = ends_phase(bootstrap, s, ROOT)
                for _ in range(args.runs):
                    r["after"].append(run(cmd, ROOT)[0])
                    r["log"].append(run(log_cmd, ROOT)[0])
                    r["ends"].append(ends_phase(bootstrap, s, ROOT)["ends_s"])
                    print(f"  {s.name}: {r['after'][-1]:.2f} s, log {r['log'][-1]:.2f} s, ends phase "
                          f"{r['ends'][-1]:.2f} s", file=sys.stderr)
    finally:
        stop_process(proc)

    targets = {"lag": 3.0, "report": 10.0}
    lines = ["| command | before s | after s | target s | after: ends phase s | `kgroup log` s (the read alone) | "
             "after: record reads | records read | moments |", "|---|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        st = stats[name]["stats"]
        before = f"{med(r['before']):.2f}" if r["before"] else "-"
        if name in stopped:
            before = f"> {r['before'][0]:.0f} (stopped)"
        lines.append(f"| `{name}` | {before} | {med(r['after']):.2f} | {targets[name]:g} | {med(r['ends']):.2f} | "
                     f"{med(r['log']):.2f} | {st['record_reads']:,} | {st['records_read']:,} | "
                     f"{stats[name]['moments']:,} |")
    lines += [""] + [f"- `{name}`: {text}" for name, text in sizes.items()]
    lines += ["", f"Tansu (memory storage), one broker, answering ListOffsets by time with the log start. After: "
              f"median of {args.runs} runs" + (f"; before: one run of {args.before} in the same run" if args.before
                                              else "") + (f", stopped after {args.before_timeout:g} s where it "
                                                          f"took longer (its output not compared)" if stopped else "")
              + (", its output equal to after's" if args.before and len(stopped) < len(results) else "") + f". {measured_on()}"]
    table = "\n".join(lines)
    print(table, flush=True)
    if args.readme:
        write_block("ends-bench", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
