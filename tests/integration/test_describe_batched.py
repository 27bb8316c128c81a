"""Describing many groups per request (kgroup.kafka.wire.describe) gives what librdkafka's
one-group-per-request describe gives, on a real broker.

Tansu answers ConsumerGroupDescribe and DescribeGroups for the groups it has with few fields
filled in, so the recording proxy in front of it replaces those answers by random ones
(members, assignments, states, group and protocol types, ConsumerProtocol assignment bytes of
every version, odd strings), the same answer for each group whichever client asks. The
adapter then describes the same groups through librdkafka and through kgroup.kafka.wire, and the
descriptions must be equal (but for the epochs of consumer groups and their members, which
only the batched path reads: librdkafka does not hand them on); where librdkafka reports an
error, the batched path must report the same one.
"""
from __future__ import annotations

import random
import struct

import pytest

from kgroup.kmsg import codec
from kgroup.kmsg.consumer_protocol import encode_assignment
from kgroup.kmsg.messages import CONSUMER_GROUP_DESCRIBE, DESCRIBE_GROUPS

pytestmark = pytest.mark.broker

GROUPS = 420  # five ConsumerGroupDescribe requests of at most 100 groups; more than the pause bound
STATES = ["Stable", "Empty", "Dead", "PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling",
          "stable", "EMPTY", "completingrebalance", "NotReady", "", "Unknown", "Stable "]
TEXT = ["", "a", "client-1", "é中文 \U0001F600", "/10.0.0.1", "x" * 300]
TOPICS = ["A", "B", "", "é", "t" * 200]


def _topic_partitions(rng: random.Random) -> list[dict]:
    return [{"topicId": codec.uuid_text(rng.randbytes(16)), "topicName": rng.choice(TOPICS),
             "partitions": [rng.randrange(60) for _ in range(rng.randrange(5))]} for _ in range(rng.randrange(4))]


def _assignment_bytes(rng: random.Random) -> bytes:
    kind = rng.randrange(5)
    if kind == 0:
        return b""
    data = {"assignedPartitions": [{"topic": rng.choice(TOPICS), "partitions": [rng.randrange(60) for _ in range(rng.randrange(4))]}
                                   for _ in range(rng.randrange(4))], "userData": rng.choice([None, b"", b"u\x00"])}
    if kind == 4:  # a version kgroup's layouts do not know: read as the highest (fields only ever added at the end)
        return struct.pack(">h", rng.choice([4, 9, 32767])) + encode_assignment(data, 3)[2:] + rng.randbytes(rng.randrange(3))
    return encode_assignment(data, rng.randrange(4))


def _consumer_group(rng: random.Random, name: str) -> dict:
    return {"errorCode": 0, "errorMessage": None, "groupId": name, "groupState": rng.choice(STATES),
            "groupEpoch": rng.randrange(100), "assignmentEpoch": rng.randrange(100),
            "assignorName": rng.choice(["", "uniform", "range", "é"]), "authorizedOperations": -2147483648,
            "members": [{
                "memberId": rng.choice(["", f"m{i}-{rng.randrange(10**6)}", "é中文"]),
                "instanceId": rng.choice([None, "", "instance-1"]), "rackId": rng.choice([None, "", "r1"]),
                "memberEpoch": rng.randrange(-1, 50), "clientId": rng.choice(TEXT), "clientHost": rng.choice(TEXT),
                "subscribedTopicNames": rng.sample(TOPICS, rng.randrange(3)), "subscribedTopicRegex": rng.choice([None, "t.*"]),
                "assignment": {"topicPartitions": _topic_partitions(rng)},
                "targetAssignment": {"topicPartitions": _topic_partitions(rng)},
            } for i in range(rng.randrange(5))]}


def _classic_group(rng: random.Random, name: str) -> dict:
    return {"errorCode": 0, "groupId": name, "groupState": rng.choice(STATES),
            "protocolType": rng.choice(["consumer", ""]), "protocolData": rng.choice(["", "range", "cooperative-sticky", "é"]),
            "authorizedOperations": -2147483648,
            "members": [{
                "memberId": rng.choice(["", f"c{i}-{rng.randrange(10**6)}", "é中文"]),
                "groupInstanceId": rng.choice([None, "", "instance-1"]), "clientId": rng.choice(TEXT),
                "clientHost": rng.choice(TEXT), "memberMetadata": rng.choice([b"", b"\x00\x01"]),
                "memberAssignment": _assignment_bytes(rng),
            } for i in range(rng.randrange(5))]}


def scenario(seed: int, names: list[str]) -> dict[str, tuple[dict, dict | None]]:
    """Per group: its ConsumerGroupDescribe answer and, for a classic group (the first answer
    says GROUP_ID_NOT_FOUND or UNSUPPORTED_VERSION), its DescribeGroups answer."""
    rng = random.Random(seed)
    out: dict[str, tuple[dict, dict | None]] = {}
    for name in names:
        if rng.random() < 0.5:
            out[name] = (_consumer_group(rng, name), None)
        else:
            not_found = {"errorCode": rng.choice([69, 69, 35]), "errorMessage": rng.choice([None, "not a consumer group"]),
                         "groupId": name, "groupState": "", "groupEpoch": -1, "assignmentEpoch": -1, "assignorName": "",
                         "members": [], "authorizedOperations": -2147483648}
            out[name] = (not_found, _classic_group(rng, name))
    return out


def _body(frame: bytes) -> int:
    """Where a flexible request's body starts: after its header (v2: client id, tagged fields)."""
    (length,) = struct.unpack_from(">h", frame, 12)
    return codec.skip_tagged_fields(frame, 14 + max(length, 0))


def answering(answers: dict[str, tuple[dict, dict | None]]):
    """The proxy's answer makers, (ConsumerGroupDescribe's, DescribeGroups'), from ``answers``."""
    def maker(api, asked_key: str, which: int):
        def make(version: int, frame: bytes) -> bytes:
            assert version == api.version
            pos = _body(frame)
            asked, _ = codec.read(api.request, version, frame, pos)
            groups = [answers[g][which] for g in asked[asked_key]]
            return b"\x00" + codec.write(api.response, version, {"throttleTimeMs": 0, "groups": groups})
        return make

    return maker(CONSUMER_GROUP_DESCRIBE, "groupIds", 0), maker(DESCRIBE_GROUPS, "groups", 1)


@pytest.fixture(scope="module")
def broker():
    from brokers import stop_process
    from faultproxy import start_tansu_behind_proxy

    proc, proxy = start_tansu_behind_proxy()
    try:
        yield proxy
    finally:
        proxy.stop()
        stop_process(proc)


def _cluster(proxy, batched: bool, timeout: float = 30.0):
    from kgroup.kafka.cluster import connect
    from kgroup.kafka.settings import ConnectionSettings

    # -X kgroup.batched=false: every describe through librdkafka
    cluster = connect(ConnectionSettings.build(proxy.address, [] if batched else ["kgroup.batched=false"], None,
                                               timeout, False))
    cluster.metadata()
    return cluster


def _without_epochs(descriptions: dict) -> dict:
    """The descriptions with the epochs librdkafka does not report taken out (set to none)."""
    import copy

    out = copy.deepcopy(descriptions)
    for d in out.values():
        d.generation = d.assignment_epoch = None
        for m in d.members:
            m.member_epoch = None
    return out


def _epochs(descriptions: dict) -> dict:
    return {g: (d.generation, d.assignment_epoch, [m.member_epoch for m in d.members])
            for g, d in descriptions.items()}


def _describe(proxy, answers, names, batched: bool, timeout: float = 30.0, epochs: bool = False) -> tuple[str, object]:
    proxy.reset()
    for key, make in zip((CONSUMER_GROUP_DESCRIBE.key, DESCRIBE_GROUPS.key), answering(answers)):
        proxy.answer_with(key, make)
    try:
        described = _cluster(proxy, batched, timeout).describe_groups(names)
        return "ok", described if epochs else _without_epochs(described)
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("seed", [1, 2])
def test_batched_descriptions_are_librdkafkas(broker, seed):
    names = [f"d{seed}-{i:04d}" for i in range(GROUPS)]
    answers = scenario(seed, names)
    kind, one_by_one = _describe(broker, answers, names, batched=False, epochs=True)
    assert kind == "ok", one_by_one
    # librdkafka hands on no epoch
    assert all(e == (None, None, [None] * len(e[2])) for e in _epochs(one_by_one).values())
    asked_one_by_one = broker.seen(CONSUMER_GROUP_DESCRIBE.key), broker.seen(DESCRIBE_GROUPS.key)
    kind, batched = _describe(broker, answers, names, batched=True, epochs=True)
    assert kind == "ok", batched
    assert _without_epochs(batched) == one_by_one
    # the epochs the batched path read are the answers' (a negative one: none)
    sent = {g: (cgd["groupEpoch"], cgd["assignmentEpoch"], [m["memberEpoch"] for m in cgd["members"]])
            for g, (cgd, _) in answers.items() if not cgd["errorCode"]}
    assert {g: e for g, e in _epochs(batched).items() if g in sent} == {
        g: (ge, ae, [me if me >= 0 else None for me in mes]) for g, (ge, ae, mes) in sent.items()}
    assert any(-1 in e[2] for e in sent.values())
    # it was the batched path that answered: a few requests of many groups, not one per group
    classic = sum(1 for cgd, _ in answers.values() if cgd["errorCode"])
    assert asked_one_by_one == (GROUPS, classic)
    assert broker.seen(CONSUMER_GROUP_DESCRIBE.key) <= 2 * GROUPS // 100 + 2
    assert broker.seen(DESCRIBE_GROUPS.key) <= 2 * GROUPS // 100 + 2
    # and the answers were varied enough to mean something
    descriptions = list(batched.values())
    assert {d.type for d in descriptions} == {"consumer", "classic"}
    assert {d.protocol_type for d in descriptions} == {"consumer", None}
    assert {"Unknown", "Stable", "Empty", "Dead", "PreparingRebalance", "CompletingRebalance"} <= {d.state for d in descriptions}
    members = [m for d in descriptions for m in d.members]
    assert any(m.assignment for m in members) and any(m.target_assignment == {} for m in members)
    assert any("" in m.assignment for m in members)


def _with_one(seed: int, change) -> tuple[list[str], dict]:
    names = [f"e{seed}-{i:02d}" for i in range(12)]
    answers = scenario(seed, names)
    change(answers, names[5])
    return names, answers


def _cgd_error(code):
    def change(answers, name):
        answers[name] = ({**answers[name][0], "errorCode": code, "errorMessage": "no"}, None)
    return change


def _classic(**fields):
    def change(answers, name):
        rng = random.Random(name)
        cgd = {**_consumer_group(rng, name), "errorCode": 69, "members": []}
        answers[name] = (cgd, {**_classic_group(rng, name), **fields})
    return change


def _bad_assignment(raw: bytes):
    def change(answers, name):
        rng = random.Random(name)
        dg = _classic_group(rng, name)
        dg["members"] = [{**(dg["members"] or [{"memberId": "m", "groupInstanceId": None, "clientId": "c",
                                                "clientHost": "h", "memberMetadata": b""}])[0], "memberAssignment": raw}]
        answers[name] = ({**_consumer_group(rng, name), "errorCode": 69, "members": []}, dg)
    return change


def _odd_string(text: str):
    def change(answers, name):
        rng = random.Random(name)
        group = _consumer_group(rng, name)
        group["members"] = group["members"] or [_consumer_group(random.Random(1), name)["members"][0]]
        group["members"][0]["clientId"] = text
        answers[name] = (group, None)
    return change


@pytest.mark.parametrize("change", [
    _cgd_error(30),                          # GROUP_AUTHORIZATION_FAILED
    _classic(protocolType="connect"),        # not a consumer group
    _classic(errorCode=30),
    _bad_assignment(b"\x00\x01\x00\x00\x00\x05"),  # five topics announced, none there
    _bad_assignment(b"\xff\xff\x00\x00\x00\x00"),  # version -1: librdkafka reads it anyway
    _odd_string("client\x00hidden"),         # a C string ends at the NUL
], ids=["auth", "connect", "classic-auth", "truncated-assignment", "negative-version", "nul"])
def test_what_librdkafka_reports_differently_is_left_to_it(broker, change):
    names, answers = _with_one(7, change)
    expected = _describe(broker, answers, names, batched=False, timeout=10)
    assert _describe(broker, answers, names, batched=True, timeout=10) == expected


def test_a_failed_batched_answer_leaves_the_describe_to_librdkafka(broker):
    names = [f"f-{i:03d}" for i in range(150)]
    answers = scenario(3, names)
    expected = _describe(broker, answers, names, batched=False)
    for action in ("close", "garble", "freeze"):
        broker.reset()
        for key, make in zip((CONSUMER_GROUP_DESCRIBE.key, DESCRIBE_GROUPS.key), answering(answers)):
            broker.answer_with(key, make)
        broker.fault(CONSUMER_GROUP_DESCRIBE.key, action, once=True)  # the first: the batched path's
        got = _cluster(broker, batched=True, timeout=9).describe_groups(names)
        assert ("ok", _without_epochs(got)) == expected, action
        # the rest went through librdkafka, one group per request
        assert broker.seen(CONSUMER_GROUP_DESCRIBE.key) > len(names) // 2, action
