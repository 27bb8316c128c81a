"""Benchmark: decoding the offsets log (`kgroup log --input`) against reading it raw.

    python bench/log_bench.py [--records 1000000] [--group-fraction 0.1] [--runs 3] [--keep DIR] [--readme]

Builds, with kgroup's own writer, a raw-record file (the JSON Lines format of
`kgroup log --save`) of N records: 90% offset commits (v3, 2,000 groups, 20 topics,
varied partitions and offsets) and 10% classic GroupMetadata records (v3) whose
groups have 10 to 100 members (ConsumerProtocol subscription and assignment bytes
included), spread over 50 offsets-log partitions. Then, in the same run,
alternating, each timed over --runs runs (median):

* raw:         stream the file and parse each line into a RawRecord (no decoding);
* decode-only: the same, plus decoding every record completely (kgroup.offsets_log.records.decode);
* decoding alone, over records already in memory: the mix, then per record kind;
* `kgroup log --input FILE -o json > /dev/null` end to end, in a subprocess, with its peak RSS,
  and the same on the first half of the file (memory must not grow with the log).

Prints a Markdown table with records per second and the ratio decode-only / raw.
One core: the reads are single-threaded. With --readme the tables also replace docs/benchmarks.md's
log-bench block.
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402
from logbuilder import Log  # noqa: E402

from kgroup.offsets_log.raw import write_jsonl  # noqa: E402
from kgroup.offsets_log.saved import read_jsonl  # noqa: E402
from kgroup.kmsg import codec  # noqa: E402
from kgroup.offsets_log.records import decode  # noqa: E402

T0 = 1763780000000


def build(path: Path, records: int, group_fraction: float, seed: int = 1) -> dict:
    rnd = random.Random(seed)
    log = Log(partitions=50)
    # a pool of distinct GroupMetadata records (10-100 members), reused across the file
    pool = []
    for g in range(200):
        n = rnd.randint(10, 100)
        topics = [f"topic-{t}" for t in rnd.sample(range(20), 2)]
        members = [{"id": f"consumer-{g}-{i}-{rnd.getrandbits(64):016x}", "client": f"service-{g}-{i}",
                    "host": f"/10.{g % 250}.{i % 250}.{rnd.randint(1, 254)}", "topics": topics,
                    "assignment": {t: [i, i + n] for t in topics}} for i in range(n)]
        pool.append(log.generation(f"group-{g}", rnd.randint(1, 500), T0, members))
    log.records.clear()
    counts = {"commits": 0, "groups": 0}
    every = max(1, round(1 / group_fraction)) if group_fraction else 0
    with open(path, "w", encoding="utf-8") as out:
        batch = []
        for i in range(records):
            ts = T0 + i
            if every and i % every == every - 1:
                batch.append(log.again(pool[i % len(pool)], ts))  # at the next offset of its partition
                counts["groups"] += 1
            else:
                group = f"group-{rnd.randrange(2000)}"
                rec = log.commit(group, f"topic-{rnd.randrange(20)}", rnd.randrange(64), rnd.randrange(10**9), ts)
                batch.append(rec)
                counts["commits"] += 1
            if len(batch) >= 10_000:
                write_jsonl(batch, out)
                batch.clear()
                log.records.clear()
        write_jsonl(batch, out)
    counts["bytes"] = path.stat().st_size
    return counts


def time_raw(path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        for _ in read_jsonl(f, str(path)):
            n += 1
    return time.perf_counter() - start, n


def time_decode(path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        for r in read_jsonl(f, str(path)):
            decode(r.key, r.value)
            n += 1
    return time.perf_counter() - start, n


def decode_rates(path: Path, limit: int = 200_000) -> dict[str, float]:
    """Decoding alone (records already in memory), per kind: records per second on one core."""
    kinds: dict[str, list] = {"the mix, as in the file": [], "offset commits": [],
                              "GroupMetadata (10-100 members)": []}
    with open(path, "rb") as f:
        for i, r in enumerate(read_jsonl(f, str(path))):
            if i >= limit:
                break
            kinds["offset commits" if r.key[1] == 1 else "GroupMetadata (10-100 members)"].append((r.key, r.value))
            kinds["the mix, as in the file"].append((r.key, r.value))
    rates = {}
    for kind, recs in kinds.items():
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for k, v in recs:
                decode(k, v)
            best = min(best, time.perf_counter() - start)
        rates[kind] = len(recs) / best
    return rates


def time_cli(path: Path) -> tuple[float, int]:
    """kgroup log -o json to /dev/null: seconds and the child's peak RSS in KiB."""
    code = ("import resource, subprocess, sys\n"
            "with open('/dev/null', 'w') as null:\n"
            "    rc = subprocess.call([sys.executable, '-m', 'kgroup', 'log', '--input', sys.argv[1], '-o', 'json'],"
            " stdout=null)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)\n")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split()
    elapsed = time.perf_counter() - start
    if out[1] != "0":
        raise SystemExit(f"kgroup log exited {out[1]}")
    return elapsed, int(out[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--group-fraction", type=float, default=0.1)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--readme", action="store_true", help="write the tables into docs/benchmarks.md")
    args = ap.parse_args()
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="kgroup-log-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        return _run(args, tmp)
    finally:  # also when a run fails or is interrupted
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


def _run(args: argparse.Namespace, tmp: Path) -> int:
    full, half = tmp / "log.jsonl", tmp / "half.jsonl"
    t = time.perf_counter()
    counts = build(full, args.records, args.group_fraction)
    build(half, args.records // 2, args.group_fraction)
    print(f"built {args.records:,} records ({counts['commits']:,} commits, {counts['groups']:,} group metadata, "
          f"{counts['bytes'] / 2**20:.0f} MiB) in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    raw, dec, cli = [], [], []
    rss_full = rss_half = 0
    for run in range(args.runs):
        raw.append(time_raw(full)[0])
        dec.append(time_decode(full)[0])
        s, rss_full = time_cli(full)
        cli.append(s)
        print(f"run {run + 1}: raw {raw[-1]:.1f} s, decode {dec[-1]:.1f} s, cli {cli[-1]:.1f} s", file=sys.stderr)
    _, rss_half = time_cli(half)
    n = args.records
    med = statistics.median
    rows = [
        ("read raw (parse lines, no decoding)", n / med(raw), ""),
        ("read + decode every record", n / med(dec), f"{med(raw) / med(dec):.2f}× raw"),
        ("`kgroup log --input F -o json > /dev/null`", n / med(cli), f"{med(raw) / med(cli):.2f}× raw"),
    ]
    walker = "compiled walker" if codec.COMPILED else "pure-Python reader (KGROUP_PURE_PYTHON or no C build)"
    print(f"\n{n:,} records ({counts['commits']:,} offset commits, {counts['groups']:,} GroupMetadata of 10-100 "
          f"members; {counts['bytes'] / 2**20:.0f} MiB), decoder: {walker}\n")
    lines = ["| what | records/s | vs raw |", "|---|---|---|"]
    lines += [f"| {what} | {rate:,.0f} | {ratio} |" for what, rate, ratio in rows]
    limit = min(n, 200_000)
    lines += ["", f"Decoding alone, records already in memory (first {limit:,} records, best of 3):", "",
              "| record kind | records/s |", "|---|---|"]
    lines += [f"| {kind} | {rate:,.0f} |" for kind, rate in decode_rates(full, limit).items()]
    lines += ["", f"Peak RSS of `kgroup log -o json`: {rss_full / 1024:.0f} MiB over {n:,} records, "
              f"{rss_half / 1024:.0f} MiB over {n // 2:,}. Median of {args.runs} runs, every row measured in the "
              f"same run; the ratios are to the raw read of that run ({walker}). {measured_on()}"]
    table = "\n".join(lines)
    print(table, flush=True)
    if args.readme:
        write_block("log-bench", table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
