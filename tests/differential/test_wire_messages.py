"""The wire client's requests and responses (kgroup/kmsg/messages.py) against Kafka's own
generated message classes (kafka-clients 4.3.0): random instances of every request kgroup sends
are written by Python and by Java to the same bytes, and every response Java writes is read by
Python to the instance Java was given, also with unknown tagged fields added (to be skipped).
"""
from __future__ import annotations

import json
import random

import pytest

import javadriver
from differential.test_codec_kafka_messages import java_input, rand_struct
from kgroup.kmsg import codec
from kgroup.kmsg import messages

pytestmark = pytest.mark.java

# every request the wire client can send (messages.py defines no other)
APIS = [v for v in vars(messages).values() if isinstance(v, messages.Api)]
PER_MESSAGE = 200


@pytest.fixture(scope="module")
def java_results():
    javadriver.require_java("kafka-clients' message classes")
    rng = random.Random(9)
    cases, lines = [], []
    for api in APIS:
        for layout in (api.request, api.response):
            for _ in range(PER_MESSAGE):
                data = rand_struct(layout.fields, api.version, rng)
                unknown = "."
                if layout.flexible_in(api.version) and rng.random() < 0.5:
                    unknown = f"{rng.choice((5, 99, 300))}:{bytes(rng.randrange(256) for _ in range(3)).hex()}"
                cases.append((api, layout, data))
                lines.append(f"{layout.name} {api.version} {unknown} "
                             f"{json.dumps(java_input(layout.fields, api.version, data))}")
    out = javadriver.compile_and_run("MessageDriver", "\n".join(lines) + "\n", jackson=True)
    results = out.decode("utf-8").split("\n")[:-1]
    assert len(results) == len(cases)
    return list(zip(cases, results))


def test_java_accepts_every_instance(java_results):
    errors = [(layout.name, line) for (_, layout, _), line in java_results if not line.startswith("OK ")]
    assert not errors, errors[:3]


def test_requests_are_written_as_kafka_writes_them(java_results):
    for (api, layout, data), line in java_results:
        if layout is api.request:
            assert codec.write(layout, api.version, data) == bytes.fromhex(line.split(" ", 3)[1][1:]), (layout.name, data)


def test_responses_are_read_as_kafka_wrote_them(java_results):
    for (api, layout, data), line in java_results:
        if layout is api.response:
            _, plain, with_unknown, _ = line.split(" ", 3)
            for raw in (bytes.fromhex(plain[1:]), bytes.fromhex(with_unknown[1:])):
                assert codec.read(layout, api.version, raw) == (data, len(raw)), (layout.name, raw.hex())


def test_only_reads_and_logins_can_be_sent(java_results):
    # Kafka's names of the requests messages.py can send: ApiVersions, FindCoordinator,
    # OffsetFetch, ConsumerGroupDescribe, DescribeGroups, ListGroups v4 and v5, Metadata,
    # ShareGroupDescribe and DescribeShareGroupOffsets v0 and v1, StreamsGroupDescribe, DescribeConfigs (read only:
    # AlterConfigs is another API), and the SASL login (SaslHandshake, SaslAuthenticate v1 and v2); nothing that
    # joins, commits, creates or alters
    sent = ("ApiVersionsRequest", "FindCoordinatorRequest", "FindCoordinatorRequest", "OffsetFetchRequest",
            "ConsumerGroupDescribeRequest", "DescribeGroupsRequest", "ListGroupsRequest", "ListGroupsRequest",
            "MetadataRequest", "ShareGroupDescribeRequest", "DescribeShareGroupOffsetsRequest",
            "DescribeShareGroupOffsetsRequest", "StreamsGroupDescribeRequest", "DescribeConfigsRequest",
            "SaslHandshakeRequest",
            "SaslAuthenticateRequest", "SaslAuthenticateRequest")
    assert sorted(layout.name for (api, layout, _), _line in java_results if layout is api.request
                  ) == sorted([n for n in sent for _ in range(PER_MESSAGE)])
    assert {api.key for api in APIS} == {18, 10, 9, 69, 15, 16, 3, 77, 90, 89, 32, 17, 36}  # their keys in Kafka's ApiKeys
    assert sorted(api.version for api in APIS if api.key == 36) == [1, 2]
    assert sorted(api.version for api in APIS if api.key == 16) == [4, 5]
    assert sorted(api.version for api in APIS if api.key == 90) == [0, 1]
    assert sorted(api.version for api in APIS if api.key == 10) == [4, 6]
    assert [api.version for api in APIS if api.key == 77] == [1]


def test_a_v0_share_offsets_answer_reads_as_no_lag(java_results):
    # DescribeShareGroupOffsets v0 has no Lag: Kafka's class reads it as -1 (unknown), so does kgroup
    v0 = [(data, line) for (api, layout, data), line in java_results
          if api is messages.DESCRIBE_SHARE_GROUP_OFFSETS_V0 and layout is api.response]
    partitions = [p for data, _ in v0 for g in data["groups"] for t in g["topics"] for p in t["partitions"]]
    assert partitions and all(p["lag"] == -1 for p in partitions)
