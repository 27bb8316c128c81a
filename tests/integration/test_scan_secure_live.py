"""kgroup scan of a live cluster over SASL_SSL with SCRAM-SHA-512, from an unchanged Java
client.properties (JKS truststore): the plan is read on the driver and the records by the read
tasks on the Spark executors, both through the test front (tests/kafkafront.py) before Tansu.

On the test run's Spark session (spark_env.spark), so this file is one unit of work with the
others on it (conftest.SPARK_SESSION_FILES). The offsets log is an ordinary topic written through
the front (Tansu has no __consumer_offsets): test_secure_commands_live's group (two generations,
commits on Stock at BASE + 10 s and + 15 s) and seven other groups, each committing offset 1 on
one partition of Order. The values expected are worked out from those records and the seed's.
"""
from __future__ import annotations

import json

import pytest
from conftest import front_certs, front_sasl_ssl, run_kgroup  # noqa: F401
from integration.test_secure_commands_live import BASE, GROUP, MECHANISM, SECOND, the_log
from logbuilder import Log, produce
from spark_env import spark  # noqa: F401

import seed

pytestmark = [pytest.mark.spark, pytest.mark.broker, pytest.mark.java]

OFFSETS_TOPIC = "offsets-secure-scan"
OTHERS = 7  # other-i commits offset 1 on Order-i at BASE + 5 s + i ms


def scan_log() -> Log:
    log = the_log(others=False)
    for i in range(OTHERS):
        log.commit(f"other-{i}", "Order", i, 1, BASE + 5_000 + i)
    return log


@pytest.fixture(scope="module")
def secured(front_sasl_ssl, tmp_path_factory):
    front = front_sasl_ssl
    conf = {k: v for k, v in front.client_config(MECHANISM).items() if k != "bootstrap.servers"}
    seed.create_topics(front.bootstrap, conf=conf)
    seed.produce(front.bootstrap, conf=conf)
    log = scan_log()
    produce(front.bootstrap, OFFSETS_TOPIC, log, conf=conf)
    c = front.certs
    user, password = next(iter(front.users.items()))
    config = tmp_path_factory.mktemp("secure-scan") / "client.properties"
    config.write_text("\n".join([
        f"bootstrap.servers={front.bootstrap}", "security.protocol=SASL_SSL",
        f"ssl.truststore.location={c.truststore_jks}", "ssl.truststore.type=JKS", f"ssl.truststore.password={c.password}",
        f"sasl.mechanism={MECHANISM}",
        f'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
        f'username="{user}" password="{password}";']) + "\n")
    return front, config, log, (password, c.password)


def test_scan_of_a_live_cluster_through_the_sasl_ssl_front(spark, secured):
    front, config, log, secrets = secured
    r = run_kgroup("scan", "--command-config", str(config), "--offsets-topic", OFFSETS_TOPIC, "-o", "json",
                   "--timeout", "30", timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    for secret in secrets:
        assert secret not in r.stdout and secret not in r.stderr
    doc = json.loads(r.stdout)
    summary = doc["summary"]
    assert (summary["records"], summary["undecodable"], summary["incomplete"]) == (len(log.records), 0, False)
    assert (summary["group_count"], summary["commits"], summary["rebalance_count"]) == (1 + OTHERS, 10 + OTHERS, 2)
    host, port = front.bootstrap.rsplit(":", 1)
    leader = {"id": 111, "host": host, "port": int(port)}  # Tansu advertises the front
    groups = {g["group"]: g for g in doc["groups"]}
    g = groups[GROUP]
    assert (g["generation"], g["member_count"], g["commits"], g["rebalance_count"], g["partition_count"]) == (
        2, 1, 10, 2, 5)
    # the lag now: each Stock partition's log end (the seed's records) less the last commit
    assert g["lag"] == sum(seed.records("Stock", p) - SECOND for p in range(5))
    assert g["offsets_partition_leader"] == leader
    for i in range(OTHERS):
        assert (groups[f"other-{i}"]["commits"], groups[f"other-{i}"]["lag"]) == (1, seed.records("Order", i) - 1)
    assert [b["id"] for b in doc["brokers"]] == [111]
