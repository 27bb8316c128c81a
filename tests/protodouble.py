"""A Kafka-protocol test double: brokers on 127.0.0.1 that answer from a scenario, with the bytes
Kafka's own generated message classes write.

Why: no broker on these machines has share groups (KIP-932) or streams groups (KIP-1071), and
Tansu lists no group of another protocol type. The double answers as a Kafka 4.3 cluster holding
the scenario's groups would, so kgroup and Kafka's own Java Admin client can be asked the same
question of the same double and their answers compared.

How it works
------------
- Each broker of the scenario listens on a free port of 127.0.0.1 (``double.brokers``: id ->
  (host, port); ``double.bootstrap``). A thread per connection reads one request at a time.
- Every request frame goes to one JVM kept running for the double (tests/java/ProtoDoubleCodec.java,
  kafka-clients 4.3 jar), which reads the header and body with Kafka's classes and hands back the
  body as JSON (Kafka's JsonConverter field names: camelCase, e.g. ``groupId``, ``typesFilter``).
- A handler (Python, below) decides the answer's JSON: the rules as Kafka 4.3 applies them
  (GroupCoordinatorService, GroupMetadataManager, KafkaApis), written here by hand; never kgroup's
  code. A handler writes only the fields that matter: the codec gives every field left out (at any
  depth) the generated class's default, then writes the answer at the version asked with Kafka's
  classes (fields the version lacks are dropped as Kafka drops them: ListGroups v4 has no
  ``groupType``). The header (correlation id, flexible or not) is Kafka's too.
- ApiVersions advertises, for each API a handler answers, Kafka 4.3's own range (the jar's
  ``ApiKeys``) cut to the handler's, unless the scenario says otherwise (``Scenario.versions``:
  ``{16: (0, 4)}`` makes a broker that cannot filter by type; ``{69: None}`` takes an API away).
  A request of a version not advertised closes the connection (a broker does); an ApiVersions of
  a version too new is answered at v0 with UNSUPPORTED_VERSION (as a broker does).
- Every request is logged in ``double.requests`` (broker id, API key, version, body) for asserts.

Answered now: ApiVersions (18), Metadata (3; the scenario's brokers and topics), ListOffsets (2;
v1-10, earliest and latest from ``Scenario.log_offsets``; or, as Fetch, passed to a real broker:
``Scenario.relay``, ``relay_keys``), FindCoordinator
(10; v0-6, key types 0 group and 2 share: ``groupId:topicId:partition``), ListGroups (16; v0-5,
states and types filters as GroupMetadataManager.listGroups applies them, each broker listing the
groups it coordinates), DescribeGroups (15; classic groups), ConsumerGroupDescribe (69; consumer
groups), OffsetFetch (9; v8-9, committed offsets by topic name). Per group errors:
``Group.errors = {"FindCoordinator": COORDINATOR_LOAD_IN_PROGRESS, "DescribeGroups": ...}`` keyed
by API name; a group asked of a broker that is not its coordinator is NOT_COORDINATOR; a group of
another type or none is GROUP_ID_NOT_FOUND with Kafka's message ("Group G is not a consumer
group."). Per broker ListGroups errors: ``Scenario.list_errors = {broker id: code}``.

Extending it (share38, streams39, ...)
--------------------------------------
Add a handler for your API in your branch, in the same shape::

    @handler(77, 1, 1)  # ShareGroupDescribe v1
    def share_group_describe(double: ProtoDouble, broker: int, request: Request) -> dict:
        out = []
        for gid in request.body["groupIds"]:
            g, error = double.group_for(broker, gid, "share", "ShareGroupDescribe")
            out.append(error or {"groupId": gid, "groupState": g.state, **g.description})
        return {"groups": out}

``Group.description`` holds the type's described group as Kafka's JSON names it (members,
epochs, assignor, topology, ...); ``Group.offsets`` the committed offsets; add fields to Group or
Scenario rather than new shapes. The Java Admin side is tests/java/AdminGroupsProbe.java
(``admin_probe(bootstrap, "listGroups", "share")``): add a command there for describeShareGroups,
listShareGroupOffsets, describeStreamsGroups, listStreamsGroupOffsets.

Usage::

    with ProtoDouble(Scenario(groups=[Group("g1", "share", "Stable")])) as double:
        ... double.bootstrap ...
    # or the ``protodouble`` fixture factory in tests/conftest.py
"""
from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

# Kafka's error codes (org.apache.kafka.common.protocol.Errors)
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
NOT_LEADER_OR_FOLLOWER = 6
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
UNSUPPORTED_VERSION = 35
INVALID_REQUEST = 42
GROUP_ID_NOT_FOUND = 69

# Kafka's default messages of the errors a handler gives without one of its own
_MESSAGES = {
    COORDINATOR_LOAD_IN_PROGRESS: "The coordinator is loading and hence can't process requests.",
    COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    NOT_COORDINATOR: "This is not the correct coordinator.",
    INVALID_REQUEST: "This most likely occurs because of a request being malformed by the client library or "
                     "the message was sent to an incompatible broker. See the broker logs for more details.",
}

GROUP_TYPES = ("classic", "consumer", "share", "streams")
# the protocol type each group type lists with (a classic group: its own, "" when it has none)
_PROTOCOL_TYPE = {"consumer": "consumer", "share": "share", "streams": "streams"}


@dataclass
class Group:
    """One group of the scenario. ``state`` is Kafka's name of it (Stable, Empty,
    PreparingRebalance, CompletingRebalance, Dead for classic; Empty, Assigning, Reconciling,
    Stable, Dead for consumer; Empty, Stable, Dead, Unknown for share; Empty, NotReady, Assigning,
    Reconciling, Stable, Dead for streams). ``protocol_type``: a classic group's ("consumer",
    "connect", ... or None: a group that only commits offsets); other types have theirs."""

    group_id: str
    type: str = "classic"
    state: str = "Stable"
    protocol_type: str | None = "consumer"
    coordinator: int = 0  # the broker id that coordinates it
    # the described group as the type's describe answer names its fields (DescribeGroups for
    # classic: protocolData, members; ConsumerGroupDescribe: groupEpoch, assignorName, members, ...)
    description: dict[str, Any] = field(default_factory=dict)
    offsets: dict[tuple[str, int], int] = field(default_factory=dict)  # committed offsets
    errors: dict[str, int] = field(default_factory=dict)  # API name -> error code for this group
    # a share group's partitions as DescribeShareGroupOffsets answers them: (topic, partition) ->
    # {"startOffset", "leaderEpoch", "lag" (v1 only), "errorCode", "errorMessage"} (left out: defaults)
    share_offsets: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    # how many more times the group's ``errors`` are answered before it answers as it is (None: always)
    errors_times: int | None = None
    # the group's own configs (KIP-848 group configs, DescribeConfigs of a GROUP resource): name -> value
    configs: dict[str, str] = field(default_factory=dict)

    @property
    def listed_protocol_type(self) -> str:
        return _PROTOCOL_TYPE.get(self.type, self.protocol_type or "")


@dataclass
class Scenario:
    groups: list[Group] = field(default_factory=list)
    brokers: int = 1  # ids 0..brokers-1, each on its own port
    # advertised versions overridden per API key: (lowest, highest), or None for not advertised
    versions: dict[int, tuple[int, int] | None] = field(default_factory=dict)
    list_errors: dict[int, int] = field(default_factory=dict)  # broker id -> ListGroups error code
    topics: dict[str, int] = field(default_factory=dict)  # topic -> partitions (leaders round robin)
    cluster_id: str = "protodouble-cluster"
    # (topic, partition) -> (log start, log end) that ListOffsets answers; left out: (0, 0)
    log_offsets: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    # a real broker (host, port) the requests of ``relay_keys`` (API key -> versions advertised) are
    # passed to, bytes as they are: records (Fetch, ListOffsets) come from it, the groups from the double
    relay: tuple[str, int] | None = None
    relay_keys: dict[int, tuple[int, int]] = field(default_factory=dict)
    # the brokers' defaults of the group configs (name -> value): DescribeConfigs (key 32) is
    # advertised and answers GROUP resources only where this is set
    group_config_defaults: dict[str, str] | None = None


@dataclass
class Request:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    body: dict[str, Any]


Handler = Callable[["ProtoDouble", int, Request], "dict[str, Any] | None"]
# API key -> (lowest, highest version the handler answers, the handler)
HANDLERS: dict[int, tuple[int, int, Handler]] = {}


def handler(key: int, lowest: int, highest: int) -> Callable[[Handler], Handler]:
    """Register the handler of API ``key`` for versions ``lowest``..``highest``. It returns the
    answer's body as JSON (fields left out take their defaults), or None to close the connection."""
    def register(fn: Handler) -> Handler:
        HANDLERS[key] = (lowest, highest, fn)
        return fn
    return register


def error_message(code: int) -> str | None:
    return _MESSAGES.get(code)


def topic_id(name: str) -> str:
    """A topic's id in Kafka's JSON form (Uuid.toString: URL-safe base64, no padding), fixed by name."""
    return base64.urlsafe_b64encode(hashlib.sha256(name.encode()).digest()[:16]).decode().rstrip("=")


class CodecError(RuntimeError):
    pass


class _Codec:
    """The JVM of tests/java/ProtoDoubleCodec.java: one command at a time."""

    def __init__(self) -> None:
        from javadriver import driver_classpath

        self._proc = subprocess.Popen(
            ["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", driver_classpath(jackson=True),
             "ProtoDoubleCodec"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
        self._lock = threading.Lock()

    def ask(self, line: str) -> str:
        with self._lock:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            try:
                self._proc.stdin.write(line + "\n")
                self._proc.stdin.flush()
                answer = self._proc.stdout.readline()
            except (OSError, ValueError) as e:
                raise CodecError(f"the codec JVM is gone: {e}") from None
        if answer.startswith("OK "):
            return answer[3:].rstrip("\n")
        raise CodecError(answer.strip() or "the codec JVM ended")

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


class ProtoDouble:
    """The scenario's brokers, listening until ``stop()`` (or the end of a ``with`` block)."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.requests: list[tuple[int, Request]] = []  # (broker id, request), in arrival order
        self.codec_errors: list[str] = []  # requests or answers the codec refused (a test asserts none)
        self._codec = _Codec()
        self._stopping = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self.brokers: dict[int, tuple[str, int]] = {}
        try:
            self._kafka_versions = {int(k): tuple(v) for k, v in json.loads(self._codec.ask("VERSIONS")).items()}
            for broker in range(scenario.brokers):
                listener = socket.socket()
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                listener.bind(("127.0.0.1", 0))
                listener.listen(64)
                self._sockets.append(listener)
                self.brokers[broker] = listener.getsockname()
                threading.Thread(target=self._accept, args=(broker, listener), daemon=True,
                                 name=f"protodouble-{broker}").start()
        except BaseException:
            self.stop()
            raise
        self.bootstrap = ",".join(f"{h}:{p}" for h, p in self.brokers.values())

    def __enter__(self) -> ProtoDouble:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopping = True
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._sockets.clear()
        self._codec.close()

    # -- what the brokers advertise ------------------------------------------------

    def advertised(self) -> dict[int, tuple[int, int]]:
        """API key -> (lowest, highest) every broker advertises."""
        out = {}
        for key, (low, high, _) in HANDLERS.items():
            kafka = self._kafka_versions.get(key)
            if kafka is None or (key == DESCRIBE_CONFIGS_KEY and self.scenario.group_config_defaults is None):
                continue
            out[key] = (max(low, kafka[0]), min(high, kafka[1]))
        out.update(self.scenario.relay_keys)
        for key, override in self.scenario.versions.items():
            if override is None:
                out.pop(key, None)
            else:
                out[key] = override
        return out

    # -- helpers for handlers ------------------------------------------------------

    def group(self, group_id: str) -> Group | None:
        return next((g for g in self.scenario.groups if g.group_id == group_id), None)

    def coordinator_of(self, group_id: str) -> int:
        """The broker that coordinates ``group_id`` (a group not in the scenario: the lowest id)."""
        g = self.group(group_id)
        return g.coordinator if g is not None else min(self.brokers)

    def group_for(self, broker: int, group_id: str, type_: str, api: str,
                  message_field: str = "errorMessage") -> tuple[Group | None, dict[str, Any] | None]:
        """The group ``group_id`` of type ``type_`` as a describe API called ``api`` finds it on
        ``broker``: (group, None), or (None, the described group's error entry): the group's own
        error for ``api``, NOT_COORDINATOR on another broker, GROUP_ID_NOT_FOUND with Kafka's
        message for a group missing or of another type (GroupMetadataManager)."""
        g = self.group(group_id)
        code = self.group_error(g, api)
        if code:
            return None, {"groupId": group_id, "errorCode": code, message_field: error_message(code)}
        if self.coordinator_of(group_id) != broker:
            return None, {"groupId": group_id, "errorCode": NOT_COORDINATOR,
                          message_field: error_message(NOT_COORDINATOR)}
        if g is None:
            return None, {"groupId": group_id, "errorCode": GROUP_ID_NOT_FOUND,
                          message_field: f"Group {group_id} not found."}
        if g.type != type_:
            return None, {"groupId": group_id, "errorCode": GROUP_ID_NOT_FOUND,
                          message_field: f"Group {group_id} is not a {type_} group."}
        return g, None

    def group_error(self, g: Group | None, api: str) -> int:
        """The error ``g`` answers ``api`` with now (0: none), counting down ``errors_times``."""
        if g is None or not g.errors.get(api):
            return NONE
        with self._lock:
            if g.errors_times is None:
                return g.errors[api]
            if g.errors_times <= 0:
                return NONE
            g.errors_times -= 1
            return g.errors[api]

    # -- the connections -----------------------------------------------------------

    def _accept(self, broker: int, listener: socket.socket) -> None:
        while not self._stopping:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with self._lock:
                if self._stopping:
                    conn.close()
                    return
                self._sockets.append(conn)
            threading.Thread(target=self._serve, args=(broker, conn), daemon=True,
                             name=f"protodouble-{broker}-conn").start()

    @staticmethod
    def _read(conn: socket.socket, n: int) -> bytes | None:
        data = bytearray()
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return bytes(data)

    def _serve(self, broker: int, conn: socket.socket) -> None:
        try:
            while not self._stopping:
                head = self._read(conn, 4)
                if head is None:
                    return
                frame = self._read(conn, struct.unpack(">i", head)[0])
                if frame is None:
                    return
                answer = self._answer(broker, frame)
                if answer is None:
                    return
                conn.sendall(struct.pack(">i", len(answer)) + answer)
        except (OSError, CodecError):
            return
        finally:
            conn.close()

    def _relayed(self, frame: bytes) -> bytes | None:
        """The relay broker's answer to ``frame``, on a connection of its own."""
        assert self.scenario.relay is not None
        with socket.create_connection(self.scenario.relay, timeout=30) as upstream:
            upstream.sendall(struct.pack(">i", len(frame)) + frame)
            head = self._read(upstream, 4)
            return None if head is None else self._read(upstream, struct.unpack(">i", head)[0])

    def _answer(self, broker: int, frame: bytes) -> bytes | None:
        key, version = struct.unpack(">hh", frame[:4])
        if key in self.scenario.relay_keys and self.scenario.relay is not None:
            low, high = self.scenario.relay_keys[key]
            if not low <= version <= high:
                return None
            with self._lock:
                self.requests.append((broker, Request(key, version, struct.unpack(">i", frame[4:8])[0], None, {})))
            return self._relayed(frame)
        try:
            parsed = json.loads(self._codec.ask("REQ " + frame.hex()))
        except CodecError as e:
            self.codec_errors.append(f"request: {e}")
            return None
        key, version = parsed["apiKey"], parsed["apiVersion"]
        advertised = self.advertised()
        if key == 18 and (parsed["body"] is None or version > advertised[18][1]):
            # a broker answers an ApiVersions it cannot read at v0, naming the versions it reads
            low, high = advertised[18]
            body: dict[str, Any] | None = {"errorCode": UNSUPPORTED_VERSION,
                                           "apiKeys": [{"apiKey": 18, "minVersion": low, "maxVersion": high}]}
            version = 0
        else:
            if parsed["body"] is None or key not in advertised or not advertised[key][0] <= version <= advertised[key][1]:
                return None  # a broker closes the connection on a request it cannot read
            request = Request(key, version, parsed["correlationId"], parsed["clientId"], parsed["body"])
            with self._lock:
                self.requests.append((broker, request))
            body = HANDLERS[key][2](self, broker, request)
        if body is None:
            return None
        try:
            return bytes.fromhex(self._codec.ask(f"RESP {key} {version} {parsed['correlationId']} {json.dumps(body)}"))
        except CodecError as e:
            self.codec_errors.append(f"answer to {key} v{version}: {e}")
            return None

    def asked(self, api_key: int) -> list[tuple[int, Request]]:
        """The requests of ``api_key`` received so far: (broker id, request)."""
        with self._lock:
            return [(b, r) for b, r in self.requests if r.api_key == api_key]


# ---------------------------------------------------------------------------
# the handlers: Kafka 4.3's rules
# ---------------------------------------------------------------------------

@handler(18, 0, 4)
def api_versions(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    return {"errorCode": NONE, "apiKeys": [{"apiKey": k, "minVersion": low, "maxVersion": high}
                                           for k, (low, high) in sorted(double.advertised().items())]}


@handler(3, 0, 13)
def metadata(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """The scenario's brokers and topics: all of them for a null topic list, none for an empty
    one, UNKNOWN_TOPIC_OR_PARTITION for a name not in the scenario (no topic is created)."""
    s = double.scenario
    asked = request.body.get("topics")
    names = list(s.topics) if asked is None else [t.get("name") for t in asked]
    ids = sorted(double.brokers)
    topics = []
    for name in names:
        if name not in s.topics:
            topics.append({"name": name, "errorCode": UNKNOWN_TOPIC_OR_PARTITION})
            continue
        topics.append({"name": name, "topicId": topic_id(name), "partitions": [
            # no leader epoch where records come from the relay broker: a client then sends none for it to check
            {"partitionIndex": p, "leaderId": ids[p % len(ids)], "leaderEpoch": -1 if s.relay else 0,
             "replicaNodes": [ids[p % len(ids)]], "isrNodes": [ids[p % len(ids)]]}
            for p in range(s.topics[name])]})
    return {"brokers": [{"nodeId": b, "host": h, "port": p} for b, (h, p) in sorted(double.brokers.items())],
            "clusterId": s.cluster_id, "controllerId": ids[0], "topics": topics}


@handler(2, 1, 10)
def list_offsets(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """A partition's log start (EARLIEST -2, EARLIEST_LOCAL -4) and end (LATEST -1) from
    ``Scenario.log_offsets``; any other timestamp finds no record (offset and timestamp -1, as for a
    time past the last record). A partition this broker does not lead: NOT_LEADER_OR_FOLLOWER; a
    topic or partition the scenario does not have: UNKNOWN_TOPIC_OR_PARTITION."""
    s = double.scenario
    ids = sorted(double.brokers)
    topics = []
    for t in request.body["topics"]:
        answers = []
        for asked in t["partitions"]:
            p, ts = asked["partitionIndex"], asked["timestamp"]
            if t["name"] not in s.topics or not 0 <= p < s.topics[t["name"]]:
                answers.append({"partitionIndex": p, "errorCode": UNKNOWN_TOPIC_OR_PARTITION})
                continue
            if ids[p % len(ids)] != broker:
                answers.append({"partitionIndex": p, "errorCode": NOT_LEADER_OR_FOLLOWER})
                continue
            start, end = s.log_offsets.get((t["name"], p), (0, 0))
            offset = {-2: start, -4: start, -1: end}.get(ts, -1)
            answers.append({"partitionIndex": p, "timestamp": -1, "offset": offset, "leaderEpoch": 0})
        topics.append({"name": t["name"], "partitions": answers})
    return {"topics": topics}


DESCRIBE_CONFIGS_KEY = 32
GROUP_RESOURCE, GROUP_CONFIG_SOURCE, DEFAULT_CONFIG_SOURCE = 32, 8, 5
INVALID_REQUEST = 42


@handler(DESCRIBE_CONFIGS_KEY, 1, 4)
def describe_configs(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """GROUP resources (type 32) as Kafka's ConfigHelper answers them, for any group name: each
    group config asked for (null: every one), the group's own value (source GROUP_CONFIG, 8) or the
    brokers' default (``Scenario.group_config_defaults``; source DEFAULT_CONFIG, 5); an empty name:
    INVALID_REQUEST "Group name must not be empty"; a group's ``errors["DescribeConfigs"]``: that
    code. Any other resource: INVALID_REQUEST (not held by this double)."""
    defaults = double.scenario.group_config_defaults or {}
    results = []
    for r in request.body["resources"]:
        head = {"resourceType": r["resourceType"], "resourceName": r["resourceName"]}
        g = double.group(r["resourceName"])
        code = (g.errors.get("DescribeConfigs", NONE) if g is not None else NONE)
        if r["resourceType"] != GROUP_RESOURCE or not r["resourceName"] or code:
            message = ("Group name must not be empty" if r["resourceType"] == GROUP_RESOURCE and not r["resourceName"]
                       else error_message(code) if code else "not held by the protocol double")
            results.append({**head, "errorCode": code or INVALID_REQUEST, "errorMessage": message, "configs": []})
            continue
        own = g.configs if g is not None else {}
        asked = r.get("configurationKeys")
        configs = [{"name": n, "value": own.get(n, defaults.get(n)), "readOnly": False, "isSensitive": False,
                    "configSource": GROUP_CONFIG_SOURCE if n in own else DEFAULT_CONFIG_SOURCE, "synonyms": []}
                   for n in sorted({*defaults, *own}) if asked is None or n in asked]
        results.append({**head, "errorCode": NONE, "errorMessage": None, "configs": configs})
    return {"throttleTimeMs": 0, "results": results}


def _share_key_ok(key: str) -> bool:
    """A share coordinator key is "groupId:topicId:partition" (SharePartitionKey.validate)."""
    parts = key.rsplit(":", 2)
    return len(parts) == 3 and bool(parts[0]) and len(parts[1]) == 22 and parts[2].lstrip("-").isdigit()


@handler(10, 0, 6)
def find_coordinator(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """Key type 0 (group): the group's coordinator, or its error ``errors["FindCoordinator"]``;
    key type 2 (share, v6+): the coordinator of the key's group (the share coordinator here), or
    INVALID_REQUEST for a key not "groupId:topicId:partition"; key type 1: the lowest broker."""
    key_type = request.body.get("keyType", 0)
    keys = request.body["coordinatorKeys"] if request.api_version >= 4 else [request.body["key"]]
    out = []
    for key in keys:
        code, node = NONE, min(double.brokers)
        if key_type == 0:
            g = double.group(key)
            code = g.errors.get("FindCoordinator", NONE) if g is not None else NONE
            node = double.coordinator_of(key)
        elif key_type == 2:
            if request.api_version < 6 or not _share_key_ok(key):
                code = INVALID_REQUEST
            else:
                group_id = key.rsplit(":", 2)[0]
                g = double.group(group_id)
                code = g.errors.get("FindCoordinator", NONE) if g is not None else NONE
                node = double.coordinator_of(group_id)
        host, port = double.brokers[node]
        entry = ({"key": key, "errorCode": code, "errorMessage": error_message(code), "nodeId": -1, "host": "",
                  "port": -1} if code else
                 {"key": key, "errorCode": NONE, "errorMessage": None, "nodeId": node, "host": host, "port": port})
        out.append(entry)
    if request.api_version >= 4:
        return {"coordinators": out}
    first = dict(out[0])
    first.pop("key")
    return first


def _state_lower(g: Group) -> str:
    """The group state as GroupMetadataManager compares it with a states filter."""
    return "not_ready" if g.type == "streams" and g.state == "NotReady" else g.state.lower()


@handler(16, 0, 5)
def list_groups(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """The groups ``broker`` coordinates, as GroupMetadataManager.listGroups filters them: states
    lower-cased and trimmed, compared with each group's lower-case state name; types parsed
    without regard to case, an unknown name matching no group; an empty filter keeps all. A
    broker's error (``list_errors``) answers with no groups."""
    code = double.scenario.list_errors.get(broker, NONE)
    if code:
        return {"errorCode": code, "groups": []}
    states = {s.lower().strip() for s in request.body.get("statesFilter", [])}
    types = {t.lower() if t.lower() in GROUP_TYPES else "unknown" for t in request.body.get("typesFilter", [])}
    groups = []
    for g in double.scenario.groups:
        if g.coordinator != broker:
            continue
        if states and _state_lower(g) not in states:
            continue
        if types and g.type not in types:
            continue
        groups.append({"groupId": g.group_id, "protocolType": g.listed_protocol_type, "groupState": g.state,
                       "groupType": g.type})
    return {"errorCode": NONE, "groups": groups}


@handler(15, 0, 6)
def describe_groups(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """Classic groups (GroupMetadataManager.describeGroups): a group missing or of another type is
    Dead, with GROUP_ID_NOT_FOUND and Kafka's message from v6 on (no error before)."""
    out = []
    for gid in request.body["groups"]:
        g, error = double.group_for(broker, gid, "classic", "DescribeGroups")
        if error is not None:
            if error["errorCode"] == GROUP_ID_NOT_FOUND:
                error["groupState"] = "Dead"
                if request.api_version < 6:
                    error = {"groupId": gid, "groupState": "Dead"}
            out.append(error)
            continue
        assert g is not None
        out.append({"groupId": gid, "groupState": g.state, "protocolType": g.protocol_type or "",
                    **g.description})
    return {"groups": out}


def _modern_describe(double: ProtoDouble, broker: int, request: Request, type_: str, api: str,
                     defaults: dict[str, Any], empty_id_invalid: bool = False) -> dict[str, Any]:
    """ConsumerGroupDescribe, ShareGroupDescribe and StreamsGroupDescribe: each group asked, its
    description over the type's ``defaults``, or its error entry (group_for); an empty id
    INVALID_GROUP_ID where the type's describe says so."""
    out = []
    for gid in request.body["groupIds"]:
        if empty_id_invalid and not gid:
            out.append({"groupId": "", "errorCode": 24})
            continue
        g, error = double.group_for(broker, gid, type_, api)
        if error is not None:
            out.append(error)
            continue
        assert g is not None
        out.append({"groupId": gid, "groupState": g.state, **defaults, **g.description})
    return {"groups": out}


@handler(69, 0, 1)
def consumer_group_describe(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    return _modern_describe(double, broker, request, "consumer", "ConsumerGroupDescribe",
                            {"groupEpoch": 1, "assignmentEpoch": 1, "assignorName": "uniform"})


@handler(9, 8, 9)
def offset_fetch(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """Committed offsets by topic name (v8-9): all of a group's, or the partitions asked (-1 for
    one never committed); NOT_COORDINATOR on another broker; a group's ``errors["OffsetFetch"]``."""
    out = []
    for asked in request.body["groups"]:
        gid = asked["groupId"]
        g = double.group(gid)
        code = g.errors.get("OffsetFetch", NONE) if g is not None else NONE
        if not code and double.coordinator_of(gid) != broker:
            code = NOT_COORDINATOR
        if code:
            out.append({"groupId": gid, "errorCode": code, "topics": []})
            continue
        offsets = g.offsets if g is not None else {}
        if asked.get("topics") is None:
            wanted = sorted(offsets)
        else:
            wanted = [(t["name"], p) for t in asked["topics"] for p in t["partitionIndexes"]]
        topics: dict[str, list[dict[str, Any]]] = {}
        for t, p in wanted:
            topics.setdefault(t, []).append({"partitionIndex": p, "committedOffset": offsets.get((t, p), -1),
                                             "committedLeaderEpoch": -1, "metadata": ""})
        out.append({"groupId": gid, "topics": [{"name": t, "partitions": ps} for t, ps in topics.items()]})
    return {"groups": out}


@handler(77, 1, 1)
def share_group_describe(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """ShareGroupDescribe v1 (GroupMetadataManager.shareGroupDescribe): the group's description
    with the broker's default assignor "simple"; a group missing or of another type is
    GROUP_ID_NOT_FOUND ("Group G is not a share group."); an empty id INVALID_GROUP_ID."""
    return _modern_describe(double, broker, request, "share", "ShareGroupDescribe",
                            {"groupEpoch": 1, "assignmentEpoch": 1, "assignorName": "simple"}, empty_id_invalid=True)


@handler(89, 0, 0)
def streams_group_describe(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """StreamsGroupDescribe v0 (GroupMetadataManager.streamsGroupDescribe): the group's description
    (``Group.description``: groupEpoch, assignmentEpoch, topology, members as Kafka's JSON names
    them); a group missing or of another type GROUP_ID_NOT_FOUND (group_for)."""
    return _modern_describe(double, broker, request, "streams", "StreamsGroupDescribe",
                            {"groupEpoch": 1, "assignmentEpoch": 1})


@handler(90, 0, 1)
def describe_share_group_offsets(double: ProtoDouble, broker: int, request: Request) -> dict[str, Any]:
    """DescribeShareGroupOffsets v0-1 (KafkaApis, GroupCoordinatorService): with topics null, every
    partition the group has state for (``share_offsets``); with topics, those asked, a topic the
    cluster does not have answered with start offset -1; an empty topic list: nothing. A group
    missing or of another type has no state: no topics, no error. NOT_COORDINATOR on another
    broker; a group's ``errors["DescribeShareGroupOffsets"]`` (with Errors' default message)."""
    out = []
    for asked in request.body["groups"]:
        gid = asked["groupId"]
        g = double.group(gid)
        code = double.group_error(g, "DescribeShareGroupOffsets")
        if not code and double.coordinator_of(gid) != broker:
            code = NOT_COORDINATOR
        if code:
            out.append({"groupId": gid, "errorCode": code, "errorMessage": error_message(code)})
            continue
        state = g.share_offsets if g is not None and g.type == "share" else {}
        topics: dict[str, list[dict[str, Any]]] = {}
        if asked.get("topics") is None:
            for (t, p), values in sorted(state.items()):
                topics.setdefault(t, []).append({"partitionIndex": p, **values})
        else:
            for t in asked["topics"]:
                for p in t["partitions"]:
                    values = state.get((t["topicName"], p)) if t["topicName"] in double.scenario.topics else None
                    topics.setdefault(t["topicName"], []).append(
                        {"partitionIndex": p, **(values or {"startOffset": -1, "leaderEpoch": 0})})
        out.append({"groupId": gid, "topics": [
            {"topicName": t, "topicId": topic_id(t) if t in double.scenario.topics else "AAAAAAAAAAAAAAAAAAAAAA",
             "partitions": ps} for t, ps in topics.items()]})
    return {"groups": out}


# ---------------------------------------------------------------------------
# Kafka's Java Admin client against a double (tests/java/AdminGroupsProbe.java)
# ---------------------------------------------------------------------------

def admin_probe(bootstrap: str, command: str, *args: str, timeout_ms: int = 15_000) -> dict[str, Any]:
    """Run AdminGroupsProbe ``command`` against ``bootstrap``; its JSON document."""
    from kafkafront import front_classpath  # slf4j's API jar first: the Admin client logs through it

    proc = subprocess.run(["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                           front_classpath(), "AdminGroupsProbe", bootstrap, str(timeout_ms), command,
                           *args],
                          capture_output=True, text=True, timeout=timeout_ms / 1000 + 60)
    if proc.returncode != 0:
        raise RuntimeError(f"AdminGroupsProbe exited with {proc.returncode}:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# scenarios the tests share
# ---------------------------------------------------------------------------

def six_groups(brokers: int = 1) -> Scenario:
    """One group of each kind a Kafka 4.3 cluster lists: a classic consumer group, a Kafka Connect
    workers' group (classic, protocol type "connect"), a classic group that only commits offsets
    (no protocol type), a consumer group (KIP-848), a share group and a streams group. With more
    brokers they are spread over them."""
    groups = [
        Group("classic-app", "classic", "Stable", "consumer",
              description={"protocolData": "range", "members": []}),
        Group("connect-cluster", "classic", "Stable", "connect",
              description={"protocolData": "sessioned", "members": []}),
        Group("offsets-only", "classic", "Empty", None),
        Group("kip848-app", "consumer", "Reconciling", description={"groupEpoch": 5, "assignmentEpoch": 4}),
        Group("orders-share", "share", "Stable"),
        Group("wordcount-streams", "streams", "NotReady"),
    ]
    for i, g in enumerate(groups):
        g.coordinator = i % brokers
    return Scenario(groups=groups, brokers=brokers, topics={"orders": 3})
