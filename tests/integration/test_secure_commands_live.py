"""Every kgroup command that reads a cluster, over SASL_SSL with SCRAM-SHA-512, as the on-call
engineer of issue 36 runs it: an unchanged Java client.properties (bootstrap.servers, SASL_SSL, a
JKS truststore with its password, ScramLoginModule in sasl.jaas.config) as --command-config, no
other connection option. Tansu is behind the test front (tests/kafkafront.py: Java's TLS and
Kafka's own broker-side SCRAM code), one front for the module.

What the commands read is written through the front by the test: the seed topics (Order 7,
Stock 5, records one per batch), a real consumer group (seed.LiveGroup, three consumers, range)
with the seed's committed offsets, and an offsets log built by kgroup's writer in an ordinary
topic (Tansu has no __consumer_offsets: --offsets-topic), whose commits for the same group point
into Stock's records (made at 1_700_000_000_000 + i s). Each answer is checked against values
worked out here, exit 0, and no password (the SCRAM one, the truststore's) in any output.

``vote`` reads no cluster (its members are given, or a snapshot), so it is not here; ``scan`` on
a live cluster through the front is in test_scan_secure_live.py (it needs the Spark session).
The smaller matrix (offsets --all-groups and describe over SCRAM-SHA-256, PLAIN, OIDC,
SASL_PLAINTEXT and mTLS) is in test_secure_live.py.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import front_certs, front_sasl_ssl, run_kgroup  # noqa: F401
from logbuilder import Log, produce

import seed

pytestmark = [pytest.mark.broker, pytest.mark.java]

GROUP = "secure-G1"
MECHANISM = "SCRAM-SHA-512"
OFFSETS_TOPIC = "offsets-secure"
LOG_PARTITIONS = 5
BASE = 1_700_000_000_000  # the seed's first record time; record i of a partition is at BASE + i s
SINCE, UNTIL = BASE, BASE + 16_000
FIRST, SECOND = 8, 12  # the offsets the log commits on every Stock partition, at BASE + 10 s and + 15 s
OTHERS = 20  # other groups' commits in the log (noise in every partition)


def java_hash_partition(group: str, partitions: int) -> int:
    """Kafka's partition of a group in the offsets log: Utils.abs(String.hashCode) % partitions."""
    data = group.encode("utf-16-be")  # Java hashes UTF-16 code units
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    signed = h - (1 << 32) if h >= 1 << 31 else h
    return (0 if signed == -(1 << 31) else abs(signed)) % partitions


def the_log(others: bool = True) -> Log:
    """GROUP's two generations (m1 and m2, then m1 alone) and commits on Stock, plus (``others``)
    other groups' commits."""
    log = Log(partitions=LOG_PARTITIONS)
    log.generation(GROUP, 1, BASE + 5_000, [{"id": "m1", "topics": ["Stock"], "assignment": {"Stock": [0, 1, 2]}},
                                            {"id": "m2", "topics": ["Stock"], "assignment": {"Stock": [3, 4]}}])
    for p in range(5):
        log.commit(GROUP, "Stock", p, FIRST, BASE + 10_000)
    log.generation(GROUP, 2, BASE + 12_000, [{"id": "m1", "topics": ["Stock"], "assignment": {"Stock": [0, 1, 2, 3, 4]}}])
    for p in range(5):
        log.commit(GROUP, "Stock", p, SECOND, BASE + 15_000)
    for i in range(OTHERS if others else 0):
        log.commit(f"other-{i}", "Order", i % 7, i, BASE + i)
    return log


@dataclass
class World:
    bootstrap: str
    config: Path  # the Java client.properties
    log_file: Path  # the offsets log's records, as `log --save` writes them
    secrets: tuple[str, ...]
    group: seed.LiveGroup


@pytest.fixture(scope="module")
def world(front_sasl_ssl, tmp_path_factory):
    from kgroup.offsets_log.raw import write_jsonl

    front = front_sasl_ssl
    conf = {k: v for k, v in front.client_config(MECHANISM).items() if k != "bootstrap.servers"}
    seed.create_topics(front.bootstrap, conf=conf)
    seed.produce(front.bootstrap, conf=conf)
    group = seed.LiveGroup(front.bootstrap, GROUP, conf=conf).start()
    try:
        group.commit_seed_offsets()
        log = the_log()
        produce(front.bootstrap, OFFSETS_TOPIC, log, conf=conf)
        tmp = tmp_path_factory.mktemp("secure-commands")
        log_file = tmp / "log.jsonl"
        with open(log_file, "w") as f:
            write_jsonl(log.records, f)
        c = front.certs
        user, password = next(iter(front.users.items()))
        config = tmp / "client.properties"
        config.write_text("\n".join([
            "# an on-call engineer's kafka-consumer-groups.sh config",
            f"bootstrap.servers={front.bootstrap}",
            "security.protocol=SASL_SSL",
            f"ssl.truststore.location={c.truststore_jks}",
            "ssl.truststore.type=JKS",
            f"ssl.truststore.password={c.password}",
            f"sasl.mechanism={MECHANISM}",
            f"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{user}" password="{password}";']) + "\n")
        yield World(front.bootstrap, config, log_file, (password, c.password), group)
    finally:
        group.stop()


def kgroup(world: World, *args: str):
    """kgroup with the Java config and nothing else to connect: exit 0, no secret in any output."""
    r = run_kgroup(*args, "--command-config", str(world.config), "--timeout", "30")
    assert r.returncode == 0, (args, r.stderr[-3000:])
    for secret in world.secrets:
        assert secret not in r.stdout and secret not in r.stderr, args
    return r


def front_address(world: World) -> dict:
    host, port = world.bootstrap.rsplit(":", 1)
    return {"id": 111, "host": host, "port": int(port)}  # Tansu (node 111) advertises the front


SEED_ROWS = {(t, p): (seed.committed(t, p), 0, seed.records(t, p), p + 1)
             for t, n in seed.TOPICS.items() for p in range(n)}
SEED_LAG = sum(p + 1 for n in seed.TOPICS.values() for p in range(n))  # 43


def offsets_rows(group_doc: dict) -> dict:
    return {(p["topic"], p["partition"]): (p["committed"], p["log_start"], p["log_end"], p["lag"])
            for p in group_doc["partitions"]}


def lag_points() -> list[dict]:
    """Each Stock partition's points: the log ends at BASE + t at offset t / 1 s (records before t)."""
    return [{"time_ms": BASE + 10_000, "committed": FIRST, "end": 10, "lag": 10 - FIRST},
            {"time_ms": BASE + 15_000, "committed": SECOND, "end": 15, "lag": 15 - SECOND}]


def check_list(world: World, r) -> None:
    rows = {g["group"]: g for g in json.loads(r.stdout)["groups"]}
    assert set(rows) == {GROUP}  # Tansu lists the groups with committed offsets: the live one
    assert (rows[GROUP]["state"], rows[GROUP]["coordinator"]) == ("Stable", front_address(world))


def check_describe(world: World, r) -> None:
    (g,) = json.loads(r.stdout)["groups"]
    assert (g["group"], g["state"], g["coordinator"]) == (GROUP, "Stable", front_address(world))
    # Tansu names a live consumer's member id where the assignor belongs (test-brokers.md)
    assert g["assignor"] in {c.memberid() for c in world.group.consumers.values()}


def check_offsets(world: World, r) -> None:
    (g,) = json.loads(r.stdout)["groups"]
    assert g["group"] == GROUP and offsets_rows(g) == SEED_ROWS and g["total_lag"] == SEED_LAG


def check_find_coordinator(world: World, r) -> None:
    (g,) = json.loads(r.stdout)["groups"]
    assert g["coordinator"] == front_address(world)
    assert (g["offsets_partition"], g["offsets_partitions"]) == (java_hash_partition(GROUP, 50), 50)
    assert g["verdict"] == "unverified"  # no __consumer_offsets on Tansu


def _lines_by_position(text: str) -> list[dict]:
    return sorted((json.loads(line) for line in text.splitlines()), key=lambda x: (x["partition"], x["offset"]))


def check_log(world: World, r) -> None:
    offline = run_kgroup("log", "--input", str(world.log_file), "-o", "json")
    live = _lines_by_position(r.stdout)
    assert live == _lines_by_position(offline.stdout)
    assert len(live) == 2 + 10 + OTHERS
    ours = [x for x in live if x["key"]["data"].get("group") == GROUP]
    assert {x["partition"] for x in ours} == {java_hash_partition(GROUP, LOG_PARTITIONS)}


def check_history(world: World, r) -> None:
    doc = json.loads(r.stdout)
    assert doc == json.loads(run_kgroup("history", GROUP, "--input", str(world.log_file), "-o", "json").stdout)
    assert [(g["generation"], g["joined"], g["left"], g["commits"]) for g in doc["rebalances"]] == [
        (1, ["m1", "m2"], [], 5), (2, [], ["m2"], 5)]
    assert [(m["partition"], m["from"], m["to"]) for m in doc["rebalances"][1]["moved"]] == [(3, "m2", "m1"),
                                                                                          (4, "m2", "m1")]


def check_snapshot(world: World, r) -> None:
    doc = json.loads(r.stdout)
    assert doc["group"]["group_id"] == GROUP and doc["group"]["state"] == "Stable"
    assert {t: v["partitions"] for t, v in doc["cluster"]["topics"].items()} == seed.TOPICS
    assert doc["cluster"]["brokers"] == [{**front_address(world), "rack": None}]
    got = {(t, int(p)): (o["committed"], o["log_start"], o["log_end"])
           for t, parts in doc["group"]["offsets"].items() for p, o in parts.items()}
    assert got == {k: v[:3] for k, v in SEED_ROWS.items()}


def check_snapshot_at(world: World, r) -> None:
    doc = json.loads(r.stdout)
    g = doc["group"]
    assert (g["group_id"], g["generation"], g["assignor"]) == (GROUP, 2, "range")
    assert [(m["member_id"], m["assignment"]) for m in g["members"]] == [("m1", {"Stock": [0, 1, 2, 3, 4]})]
    assert {p: o["committed"] for p, o in g["offsets"]["Stock"].items()} == {str(p): FIRST for p in range(5)}
    assert doc["cluster"]["offsets_partitions"] == LOG_PARTITIONS
    assert doc["cluster"]["topics"]["Stock"]["partitions"] == 5  # today's, read through the front


def check_lag(world: World, r) -> None:
    doc = json.loads(r.stdout)
    assert [(p["topic"], p["partition"]) for p in doc["partitions"]] == [("Stock", p) for p in range(5)]
    for p in doc["partitions"]:
        assert p["points"] == lag_points(), p["partition"]
        assert (p["end"], p["committed"], p["lag"]) == (16, SECOND, 16 - SECOND)  # the end at UNTIL
    assert doc["total_lag"] == 5 * (16 - SECOND)


def check_report(world: World, r) -> None:
    doc = json.loads(r.stdout)
    window = ["--since", str(SINCE), "--until", str(UNTIL)]
    lag = kgroup(world, "lag", GROUP, "--offsets-topic", OFFSETS_TOPIC, *window, "-o", "json")
    history = kgroup(world, "history", GROUP, "--offsets-topic", OFFSETS_TOPIC, "-o", "json")
    lag_doc = json.loads(lag.stdout)
    # the lag part is lag's but for its owners now (the report's are in its group now): Tansu names
    # no members of a Stable group, so lag says them unknown
    assert lag_doc.pop("owners_unknown") == "the group is Stable but the broker returned no member details"
    assert lag_doc.pop("never_committed") == [] and all(p.pop("owner") is None for p in lag_doc["partitions"])
    assert doc["lag"] == lag_doc and doc["history"] == json.loads(history.stdout)
    assert [pt["lag"] for pt in doc["lag"]["partitions"][0]["points"]] == [pt["lag"] for pt in lag_points()]
    assert doc["now"]["source"] == "cluster" and doc["warnings"] == []
    assert offsets_rows(doc["now"]["offsets"]) == SEED_ROWS  # the group now: the live group's commits
    assert doc["now"]["describe"]["state"] == "Stable"


def check_whatif(world: World, r) -> None:
    doc = json.loads(r.stdout)
    # Tansu describes no members (test-brokers.md): the group is computed as empty, and C4 gets all
    assert doc["topics"] == seed.TOPICS and doc["added"] == ["C4"]
    (s,) = doc["strategies"]
    assert s["assignment"] == {"C4": {t: list(range(n)) for t, n in seed.TOPICS.items()}}
    assert s["lag"] == {"C4": SEED_LAG}  # the lag of what C4 is given: the group's committed offsets


WINDOW = ("--since", str(SINCE), "--until", str(UNTIL))
COMMANDS = {
    "list": (["list", "-o", "json"], check_list),
    "describe": (["describe", GROUP, "-o", "json"], check_describe),
    "offsets": (["offsets", GROUP, "-o", "json"], check_offsets),
    "offsets --all-groups": (["offsets", "--all-groups", "-o", "json"], check_offsets),
    "find-coordinator": (["find-coordinator", GROUP, "-o", "json"], check_find_coordinator),
    "log": (["log", "--offsets-topic", OFFSETS_TOPIC, "-o", "json"], check_log),
    "history": (["history", GROUP, "--offsets-topic", OFFSETS_TOPIC, "-o", "json"], check_history),
    "snapshot": (["snapshot", GROUP], check_snapshot),
    "snapshot --at": (["snapshot", GROUP, "--at", str(BASE + 13_000), "--offsets-topic", OFFSETS_TOPIC],
                      check_snapshot_at),
    "lag": (["lag", GROUP, "--offsets-topic", OFFSETS_TOPIC, *WINDOW, "-o", "json"], check_lag),
    "report": (["report", GROUP, "--offsets-topic", OFFSETS_TOPIC, *WINDOW, "-o", "json"], check_report),
    "whatif": (["whatif", GROUP, "--add", "C4", "-s", "range", "-o", "json"], check_whatif),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_over_sasl_ssl_scram_with_a_java_config(world, command):
    args, check = COMMANDS[command]
    check(world, kgroup(world, *args))


def test_verbose_with_the_client_logs_on_leaks_nothing(world):
    """-v, and librdkafka's security and broker debug logs: still no secret in any output."""
    r = kgroup(world, "describe", "--all-groups", "-o", "json", "-v")
    assert [g["group"] for g in json.loads(r.stdout)["groups"]] == [GROUP]
    r = kgroup(world, "offsets", "--all-groups", "-o", "json", "-v", "-X", "debug=security,broker")
    (g,) = json.loads(r.stdout)["groups"]
    assert offsets_rows(g) == SEED_ROWS
