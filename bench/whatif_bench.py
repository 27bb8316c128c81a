"""Benchmark: `kgroup whatif` on a big group against Kafka's own Java assignors (kafka-clients).

    python bench/whatif_bench.py [--runs 3] [--members 1000] [--partitions 5000] [--topics 100]
                                 [--remove-fraction 0.1] [--strategy S ...] [--scenario fresh|remove ...]
                                 [--profile auto|always|never] [--keep DIR] [--readme]

Generates a deterministic group (seeded RNG): N members with Kafka-like member ids
("consumer-<n>-<uuid4>"), all subscribed to all topics, partition counts varying per topic,
generation 5. Two scenarios per strategy:

* fresh:  nobody owns anything yet (every member's assignment is empty);
* remove: the group runs with the strategy (its current assignment is what kgroup's own
          assignor produces for the full group), then 10% of the members leave
          (`--remove MEMBER` repeated, 100 ids: a few KB of argv).

Each run is timed end to end, process start to output, alternating kgroup and the JVM:

    python -m kgroup whatif --snapshot F --strategy S -o json [--remove M]...
    java -cp kafka-clients:slf4j-api:BUILD AssignorBaseline INPUT S

AssignorBaseline (bench/AssignorBaseline.java, compiled into a temp dir) reads the same
scenario from a line file written here and runs RangeAssignor, RoundRobinAssignor,
StickyAssignor or CooperativeStickyAssignor (cooperative-sticky: the first rebalance and the
follow-up one, as kgroup reports both). uniform and server-range are Kafka's server-side
assignors (group-coordinator module, not in kafka-clients): kgroup is timed alone there.

Strategy `all` times `kgroup whatif --strategy all` (all six strategies, one process) against
one JVM running the four client-side assignors one after another (`AssignorBaseline INPUT all`);
its remove scenario starts from cooperative-sticky's assignment of the full group, and every
client-side strategy is checked against the JVM's.

Both sides must assign the same partitions to the same members (kgroup's
`strategies[0].assignment`, and `first_round` for cooperative-sticky); a mismatch is printed
loudly, timings are printed anyway. Prints a Markdown table; where kgroup is slower than the
JVM (or with --profile always) the kgroup side is run once under cProfile and the top
functions are printed. With --readme (and every output the same as the JVM's) the table also
replaces docs/benchmarks.md's whatif-bench block.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from figures import measured_on, write_block  # noqa: E402

from kgroup.whatif.assignors.registry import CLIENT_SIDE, SERVER_SIDE  # noqa: E402

STRATEGIES = CLIENT_SIDE + SERVER_SIDE
ALL = "all"  # kgroup runs all six strategies in one process; the JVM the four client-side ones in one JVM
SCENARIOS = ["fresh", "remove"]
GENERATION = 5
WORDS = ["orders", "payments", "stock", "clicks", "users", "audit", "invoices", "shipments", "metrics", "events",
         "sessions", "prices", "carts", "alerts", "ledger", "refunds"]
REGIONS = ["eu", "us", "ap", "global"]


# ---------------------------------------------------------------------------
# the group
# ---------------------------------------------------------------------------

def make_topics(rng: random.Random, count: int, total: int) -> dict[str, int]:
    """``count`` topics whose partition counts vary (1..~200) and add up to ``total``."""
    names = [f"{rng.choice(WORDS)}-{rng.choice(REGIONS)}-{i:03d}" for i in range(count)]
    raw = [rng.choice([1, 2, 3, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]) for _ in range(count)]
    scale = total / sum(raw)
    sizes = [max(1, round(r * scale)) for r in raw]
    sizes[sizes.index(max(sizes))] += total - sum(sizes)
    return dict(zip(names, sizes))


def make_members(rng: random.Random, count: int) -> list[dict]:
    members = []
    for n in range(1, count + 1):
        uid = uuid.UUID(int=rng.getrandbits(128), version=4)
        members.append({"member_id": f"consumer-{n}-{uid}", "client_id": f"consumer-{n}",
                        "host": f"/10.{n // 250}.{n % 250}.{rng.randint(1, 254)}", "group_instance_id": None,
                        "rack": None})
    rng.shuffle(members)  # the order the coordinator lists them in: not the numeric one
    return members


def snapshot_doc(topics: dict[str, int], members: list[dict], strategy: str,
                 assignment: dict[str, dict[str, list[int]]] | None) -> dict:
    if strategy == ALL:  # the group runs cooperative-sticky; whatif runs every strategy
        strategy = "cooperative-sticky"
    client_side = strategy in CLIENT_SIDE
    return {
        "kgroup_snapshot": 2,
        "captured_at": "2026-11-21T10:00:00Z",
        "cluster": {"brokers": [{"id": 1, "host": "b1", "port": 9092, "rack": None}], "offsets_partitions": 50,
                    "topics": {t: {"partitions": n} for t, n in topics.items()}},
        "group": {
            "group_id": "bench", "type": "classic" if client_side else "consumer", "state": "Stable",
            "protocol_type": "consumer", "assignor": strategy if client_side else None,
            "generation": GENERATION, "coordinator": 1,
            "members": [dict(m, subscription=list(topics), protocols=[strategy] if client_side else None,
                             assignment=(assignment or {}).get(m["member_id"], {})) for m in members],
        },
    }


def current_assignment(fresh: dict, strategy: str) -> dict[str, dict[str, list[int]]]:
    """What kgroup's own assignor gives the full group: the group's current assignment."""
    from kgroup.group.snapshot import parse
    from kgroup.whatif.compare import Change, run

    if strategy == ALL:
        strategy = "cooperative-sticky"
    (result,) = run(parse(fresh, "fresh"), Change(), [strategy]).results
    if not result.completes:  # no assignment to start from, and the JVM would never return
        raise SystemExit(f"{strategy} never completes on this group ({result.reason}); choose other sizes")
    return result.assignment


def baseline_input(topics: dict[str, int], members: list[dict], doc: dict, removed: set[str]) -> str:
    owned = {m["member_id"]: m["assignment"] for m in doc["group"]["members"]}
    lines = ["# AssignorBaseline input: topic NAME PARTITIONS / member ID GENERATION TOPICS OWNED"]
    lines += [f"topic {t} {n}" for t, n in topics.items()]
    subscription = ",".join(topics)
    for m in members:
        if m["member_id"] in removed:
            continue
        a = owned[m["member_id"]]
        text = ";".join(f"{t}:{','.join(map(str, ps))}" for t, ps in a.items() if ps) or "-"
        lines.append(f"member {m['member_id']} {GENERATION} {subscription} {text}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# running and checking
# ---------------------------------------------------------------------------

def compile_baseline(build: Path) -> str:
    jar = subprocess.run([sys.executable, str(ROOT / "scripts" / "fetch_kafka_clients.py")], check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    cp = os.pathsep.join([jar, str(Path(jar).with_name("slf4j-api-2.0.18.jar"))])
    subprocess.run(["javac", "-nowarn", "-d", str(build), "-cp", cp, str(ROOT / "bench" / "AssignorBaseline.java")],
                   check=True)
    return os.pathsep.join([cp, str(build)])


# kgroup's modules compiled once and reused, as in an installed package (not recompiled per run)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str]) -> tuple[float, str, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])} ... exited {proc.returncode}: {proc.stderr[-3000:]}")
    return elapsed, proc.stdout, proc.stderr


def parse_java(out: str) -> dict[str, dict[str, set[tuple[str, int]]]]:
    """{"final"|"first": {member: {(topic, partition), ...}}} from AssignorBaseline's stdout."""
    rounds: dict[str, dict[str, set[tuple[str, int]]]] = {}
    for line in out.splitlines():
        label, member, text = line.split(" ")
        parts: set[tuple[str, int]] = set()
        if text != "-":
            for group in text.split(";"):
                topic, _, ps = group.rpartition(":")
                parts.update((topic, int(p)) for p in ps.split(","))
        rounds.setdefault(label, {})[member] = parts
    return rounds


def as_sets(assignment: dict[str, dict[str, list[int]]]) -> dict[str, set[tuple[str, int]]]:
    return {m: {(t, p) for t, ps in a.items() for p in ps} for m, a in assignment.items()}


def compare(label: str, kgroup: dict[str, set], java: dict[str, set]) -> list[str]:
    problems = []
    if set(kgroup) != set(java):
        only_k, only_j = sorted(set(kgroup) - set(java)), sorted(set(java) - set(kgroup))
        problems.append(f"{label}: members differ (only kgroup: {only_k[:3]}..., only JVM: {only_j[:3]}...)")
    differing = [m for m in kgroup if m in java and kgroup[m] != java[m]]
    if differing:
        m = differing[0]
        problems.append(f"{label}: {len(differing)} member(s) get different partitions, e.g. {m}: "
                        f"kgroup-only {sorted(kgroup[m] - java[m])[:5]}, JVM-only {sorted(java[m] - kgroup[m])[:5]}")
    return problems


def check_outputs(strategy: str, k_out: str, j_out: str) -> list[str]:
    docs = {d["strategy"]: d for d in json.loads(k_out)["strategies"]}
    java = parse_java(j_out)
    problems = []
    for name in CLIENT_SIDE if strategy == ALL else [strategy]:
        prefix = f"{name}/" if strategy == ALL else ""
        doc = docs[name]
        if not doc["completes"]:
            problems.append(f"{prefix}kgroup says the rebalance never completes, the JVM returned")
            continue
        problems += compare(f"{prefix}assignment", as_sets(doc["assignment"]), java.get(f"{prefix}final", {}))
        if name == "cooperative-sticky":
            problems += compare(f"{prefix}first round", as_sets(doc.get("first_round") or {}),
                                java.get(f"{prefix}first", {}))
    return problems


def sanity(k_out: str, topics: dict[str, int], strategy: str | None = None) -> list[str]:
    """Every partition assigned exactly once by ``strategy`` (default: the only one run); for
    the server-side strategies, which have no JVM to compare with."""
    docs = json.loads(k_out)["strategies"]
    doc = docs[0] if strategy is None else next(d for d in docs if d["strategy"] == strategy)
    if not doc["completes"]:
        return [f"{doc['strategy']} never completes: {doc['reason']}"]
    seen: dict[tuple[str, int], int] = {}
    for a in doc["assignment"].values():
        for t, ps in a.items():
            for p in ps:
                seen[(t, p)] = seen.get((t, p), 0) + 1
    total = sum(topics.values())
    twice = sum(1 for c in seen.values() if c > 1)
    return [] if len(seen) == total and not twice else [f"{total - len(seen)} unassigned, {twice} assigned twice"]


def profile(cmd: list[str], out_dir: Path, name: str, top: int) -> str:
    """Run the kgroup command once under cProfile; the top functions by own and cumulative time."""
    prof = out_dir / f"{name}.prof"
    python, rest = cmd[0], cmd[2:]  # drop "-m" (rest starts with "kgroup")
    subprocess.run([python, "-m", "cProfile", "-o", str(prof), "-m", *rest], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = io.StringIO()
    # cumulative time of kgroup's own functions (where a phase goes: load, assign, moves, output) ...
    pstats.Stats(str(prof), stream=text).sort_stats("cumulative").print_stats(f"{ROOT}/kgroup/", top)
    # ... and the functions that spend the time themselves, anywhere (imports, json, builtins)
    pstats.Stats(str(prof), stream=text).strip_dirs().sort_stats("tottime").print_stats(top)
    report = text.getvalue().replace(f"{ROOT}/", "")
    (out_dir / f"{name}.txt").write_text(report)
    return report


def fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="timed runs per side (alternating), median reported")
    ap.add_argument("--members", type=int, default=1000)
    ap.add_argument("--partitions", type=int, default=5000, help="total partitions over all topics")
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--remove-fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--strategy", action="append", choices=STRATEGIES + [ALL],
                    help="repeatable; default all six, then all (every strategy in one process)")
    ap.add_argument("--scenario", action="append", choices=SCENARIOS, help="repeatable; default both")
    ap.add_argument("--profile", choices=["auto", "always", "never"], default="auto",
                    help="cProfile the kgroup side where it is slower than the JVM (auto), always or never")
    ap.add_argument("--top", type=int, default=25, help="functions shown per profile listing")
    ap.add_argument("--keep", type=Path, help="write the snapshots, inputs and profiles here (kept)")
    ap.add_argument("--readme", action="store_true", help="write the table into docs/benchmarks.md (when every output agrees)")
    args = ap.parse_args()
    strategies = args.strategy or STRATEGIES + [ALL]
    scenarios = args.scenario or SCENARIOS

    rng = random.Random(args.seed)
    topics = make_topics(rng, args.topics, args.partitions)
    members = make_members(rng, args.members)
    removed = [m["member_id"] for m in rng.sample(members, round(args.members * args.remove_fraction))]
    print(f"group: {len(members)} members, {len(topics)} topics, {sum(topics.values())} partitions "
          f"(per topic {min(topics.values())}..{max(topics.values())}), generation {GENERATION}; "
          f"remove scenario drops {len(removed)} members", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="whatif-bench-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        build = Path(tmp) / "classes"
        build.mkdir()
        cp = compile_baseline(build)
        rows, failures, profiles = [], [], []
        for scenario in scenarios:
            for strategy in strategies:
                fresh = snapshot_doc(topics, members, strategy, None)
                if scenario == "fresh":
                    doc, gone = fresh, []
                else:
                    doc, gone = snapshot_doc(topics, members, strategy, current_assignment(fresh, strategy)), removed
                name = f"{scenario}-{strategy}"
                snap = work / f"{name}.json"
                snap.write_text(json.dumps(doc))
                kgroup = [sys.executable, "-m", "kgroup", "whatif", "--snapshot", str(snap), "--strategy", strategy,
                          "-o", "json"] + [arg for m in gone for arg in ("--remove", m)]
                java = None
                if strategy in CLIENT_SIDE or strategy == ALL:
                    inp = work / f"{name}.txt"
                    inp.write_text(baseline_input(topics, members, doc, set(gone)))
                    java = ["java", "-cp", cp, "AssignorBaseline", str(inp), strategy]
                print(f"{scenario} / {strategy}: ", end="", file=sys.stderr, flush=True)
                k_times, j_times, j_assign = [], [], []
                k_out = j_out = ""
                for _ in range(args.runs):
                    k, k_out, _ = timed(kgroup)
                    k_times.append(k)
                    print(f"kgroup {k:.2f}s ", end="", file=sys.stderr, flush=True)
                    if java:
                        j, j_out, j_err = timed(java)
                        j_times.append(j)
                        j_assign += [float(x.split()[1]) for x in j_err.splitlines() if x.startswith("assign-seconds")]
                        print(f"jvm {j:.2f}s ", end="", file=sys.stderr, flush=True)
                print(file=sys.stderr)
                problems = check_outputs(strategy, k_out, j_out) if java else sanity(k_out, topics)
                if strategy == ALL:  # and the server-side ones, which have no JVM to compare with
                    problems += [p for name in SERVER_SIDE for p in sanity(k_out, topics, name)]
                if problems:
                    failures.append((scenario, strategy, problems))
                    print(f"!!! MISMATCH {scenario} / {strategy}:\n    " + "\n    ".join(problems), file=sys.stderr)
                k_med = statistics.median(k_times)
                j_med = statistics.median(j_times) if j_times else None
                ja_med = statistics.median(j_assign) if j_assign else None
                if java:
                    verdict = "MISMATCH" if problems else "same"
                else:
                    verdict = "no JVM baseline in kafka-clients" + ("; INVALID" if problems else "")
                rows.append((scenario, strategy, k_med, j_med, ja_med, verdict))
                slower = j_med is not None and k_med > j_med
                if args.profile == "always" or (args.profile == "auto" and slower):
                    profiles.append((name, profile(kgroup, work, f"profile-{name}", args.top)))

    print(f"\n### kgroup whatif vs kafka-clients 4.3.0 assignors ({len(members)} members, "
          f"{sum(topics.values())} partitions, {len(topics)} topics; median of {args.runs}, end to end)\n")
    lines = ["| scenario | strategy | kgroup s | JVM s | ratio | JVM inside assign() s | outputs |",
             "|---|---|---|---|---|---|---|"]
    for scenario, strategy, k, j, ja, verdict in rows:
        ratio = f"{k / j:.2f}x" if j else "-"
        label = "fresh" if scenario == "fresh" else f"remove {len(removed)}"
        lines.append(f"| {label} | {strategy} | {fmt(k)} | {fmt(j)} | {ratio} | {fmt(ja)} | {verdict} |")
    lines += ["", f"Median of {args.runs} runs, kgroup and the JVM alternating; ratio = kgroup / JVM in the same run "
              f"(below 1: kgroup faster). {measured_on()}"]
    table = "\n".join(lines)
    print(table)
    print("\nJVM inside assign() = time inside the assignor calls, "
          "as measured by AssignorBaseline itself: excludes JVM start, reading the input and printing, "
          "includes loading the assignor classes and running them cold (interpreted, JIT warming up).")
    if args.readme and not failures:
        write_block("whatif-bench", table)
    for name, text in profiles:
        print(f"\n#### cProfile of kgroup, {name}\n\n```\n{text.strip()}\n```")
    if failures:
        print("\n**OUTPUT MISMATCH** between kgroup and Kafka's assignors:")
        for scenario, strategy, problems in failures:
            for p in problems:
                print(f"- {scenario} / {strategy}: {p}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
