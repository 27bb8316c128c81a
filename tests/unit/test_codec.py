"""The offsets-log codec without Java: hand-computed byte vectors for every record type and
every value version, tombstones, truncation, unknown types/versions, random round trips.

Every vector below was written by hand from the layout (layouts.py) and Kafka's wire rules:
keys are an int16 type and non-flexible fields (int16 string lengths); values are an int16
version then the fields; in flexible versions strings/bytes/arrays carry an unsigned varint
of length + 1 (0 = null) and every struct ends with its tagged fields (count, then tag, size,
data for each). The expected JSON text is what Kafka 4.3.0's CoordinatorRecordMessageFormatter
prints for the record (tagged fields only when not at their default, bytes in base64, uuids in
Kafka's url-safe base64). Records written and printed by Kafka's own classes (the ones its
message generator makes from the group coordinator's specs, its serde and formatter) are checked
in tests/differential/test_group_records_vectors.py.
"""
from __future__ import annotations

import base64
import json
import random
import struct

import pytest

from kgroup.java import jackson
from kgroup.offsets_log import records
from kgroup.kmsg.codec import DecodeError
from kgroup.kmsg.layouts import RECORD_TYPES
from kgroup.kmsg.schema import F


def h(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts).replace(" ", ""))


U0 = "00000000000000000000000000000000"  # the zero uuid
U_SEQ = "000102030405060708090a0b0c0d0e0f"  # bytes 0..15
U_FF = "ffffffffffffffffffffffffffffffff"
T_ZERO, T_SEQ, T_FF = "AAAAAAAAAAAAAAAAAAAAAA", "AAECAwQFBgcICQoLDA0ODw", "_____________________w"

KEY_G = ("0001 67", {"group": "g"})                     # group "g": int16 length 1, 'g'
KEY_GID = ("0001 67", {"groupId": "g"})
KEY_GID_M1 = ("0001 67  0002 6d31", {"groupId": "g", "memberId": "m1"})
KEY_OFFSETS = ("0001 67  0001 74  00000003", {"group": "g", "topic": "t", "partition": 3})

# the key's JSON data as Kafka prints it, by record type (every vector of a type uses the same key)
KEY_TEXT = {0: '{"group":"g","topic":"t","partition":3}', 1: '{"group":"g","topic":"t","partition":3}',
            2: '{"group":"g"}', 16: '{"groupId":"g","regularExpression":".*"}'}
KEY_TEXT.update({t: '{"groupId":"g"}' for t in (3, 4, 6, 11, 12, 15, 17, 20, 23)})
KEY_TEXT.update({t: '{"groupId":"g","memberId":"m1"}' for t in (5, 7, 8, 10, 13, 14, 19, 21, 22)})

# (type, value version, key hex after the type, value hex after the version, key dict, value dict, JSON data)
VECTORS = [
    # --- 0 LegacyOffsetCommit v0: offset int64, metadata string, commitTimestamp int64
    (0, 0, *KEY_OFFSETS[:1],
     "0000000000000064"      # offset 100
     "0002 6d64"             # metadata "md"
     "00000000000003e8",     # commitTimestamp 1000
     KEY_OFFSETS[1], {"offset": 100, "metadata": "md", "commitTimestamp": 1000},
     '{"offset":100,"metadata":"md","commitTimestamp":1000}'),
    # --- 1 OffsetCommit v0-v4
    (1, 0, *KEY_OFFSETS[:1],
     "0000000000000005 0000 0000000000000007",  # offset 5, metadata "", commitTimestamp 7
     KEY_OFFSETS[1],
     {"offset": 5, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 7, "expireTimestamp": -1, "topicId": T_ZERO},
     '{"offset":5,"metadata":"","commitTimestamp":7}'),
    (1, 1, *KEY_OFFSETS[:1],
     "ffffffffffffffff"      # offset -1
     "0001 78"               # metadata "x"
     "0000000000000001"      # commitTimestamp 1
     "0000000000000002",     # expireTimestamp 2 (version 1 only)
     KEY_OFFSETS[1],
     {"offset": -1, "leaderEpoch": -1, "metadata": "x", "commitTimestamp": 1, "expireTimestamp": 2, "topicId": T_ZERO},
     '{"offset":-1,"metadata":"x","commitTimestamp":1,"expireTimestamp":2}'),
    (1, 2, *KEY_OFFSETS[:1],
     "7fffffffffffffff 0000 0000000000000000",  # offset max int64, metadata "", commitTimestamp 0
     KEY_OFFSETS[1],
     {"offset": 2**63 - 1, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 0, "expireTimestamp": -1,
      "topicId": T_ZERO},
     '{"offset":9223372036854775807,"metadata":"","commitTimestamp":0}'),
    (1, 3, *KEY_OFFSETS[:1],
     "000000000000000a"      # offset 10
     "00000004"              # leaderEpoch 4 (v3+)
     "0002 c3a9"             # metadata "é" (2 UTF-8 bytes)
     "0000000000000001",     # commitTimestamp 1
     KEY_OFFSETS[1],
     {"offset": 10, "leaderEpoch": 4, "metadata": "é", "commitTimestamp": 1, "expireTimestamp": -1, "topicId": T_ZERO},
     '{"offset":10,"leaderEpoch":4,"metadata":"é","commitTimestamp":1}'),
    (1, 4, *KEY_OFFSETS[:1],
     "000000000000000a"      # offset 10
     "ffffffff"              # leaderEpoch -1
     "02 6d"                 # metadata "m" (compact: length + 1)
     "0000000000000001"      # commitTimestamp 1
     "01 00 10" + U_SEQ,     # 1 tagged field: tag 0 (topicId), 16 bytes
     KEY_OFFSETS[1],
     {"offset": 10, "leaderEpoch": -1, "metadata": "m", "commitTimestamp": 1, "expireTimestamp": -1, "topicId": T_SEQ},
     '{"offset":10,"leaderEpoch":-1,"metadata":"m","commitTimestamp":1,"topicId":"AAECAwQFBgcICQoLDA0ODw"}'),
    (1, 4, *KEY_OFFSETS[:1],
     "000000000000000a ffffffff 01 0000000000000001 00",  # metadata "" (compact 01), no tagged fields
     KEY_OFFSETS[1],
     {"offset": 10, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 1, "expireTimestamp": -1, "topicId": T_ZERO},
     '{"offset":10,"leaderEpoch":-1,"metadata":"","commitTimestamp":1}'),
    # --- 2 GroupMetadata v0-v4
    (2, 0, *KEY_G[:1],
     "0008 636f6e73756d6572"  # protocolType "consumer"
     "00000001"               # generation 1
     "0005 72616e6765"        # protocol "range"
     "0002 6d31"              # leader "m1"
     "00000001"               # 1 member
     "0002 6d31"              #   memberId "m1"
     "0001 63 0001 68"        #   clientId "c", clientHost "h"
     "00002710"               #   sessionTimeout 10000
     "00000002 0102"          #   subscription 01 02
     "00000000",              #   assignment empty
     KEY_G[1],
     {"protocolType": "consumer", "generation": 1, "protocol": "range", "leader": "m1", "currentStateTimestamp": -1,
      "members": [{"memberId": "m1", "groupInstanceId": None, "clientId": "c", "clientHost": "h",
                   "rebalanceTimeout": -1, "sessionTimeout": 10000, "subscription": b"\x01\x02", "assignment": b""}]},
     '{"protocolType":"consumer","generation":1,"protocol":"range","leader":"m1","members":[{"memberId":"m1",'
     '"clientId":"c","clientHost":"h","sessionTimeout":10000,"subscription":"AQI=","assignment":""}]}'),
    (2, 1, *KEY_G[:1],
     "0008 636f6e73756d6572 00000002"  # "consumer", generation 2
     "ffff ffff"                       # protocol null, leader null
     "00000001 0001 61 0000 0000"      # 1 member: memberId "a", clientId "", clientHost ""
     "00007530 00002710"               #   rebalanceTimeout 30000 (v1+), sessionTimeout 10000
     "00000000 00000001 ff",           #   subscription empty, assignment ff
     KEY_G[1],
     {"protocolType": "consumer", "generation": 2, "protocol": None, "leader": None, "currentStateTimestamp": -1,
      "members": [{"memberId": "a", "groupInstanceId": None, "clientId": "", "clientHost": "",
                   "rebalanceTimeout": 30000, "sessionTimeout": 10000, "subscription": b"", "assignment": b"\xff"}]},
     '{"protocolType":"consumer","generation":2,"protocol":null,"leader":null,"members":[{"memberId":"a",'
     '"clientId":"","clientHost":"","rebalanceTimeout":30000,"sessionTimeout":10000,"subscription":"","assignment":"/w=="}]}'),
    (2, 2, *KEY_G[:1],
     "0000 00000000 ffff ffff"  # protocolType "", generation 0, protocol null, leader null
     "0000000000000064"         # currentStateTimestamp 100 (v2+)
     "00000000",                # no members
     KEY_G[1],
     {"protocolType": "", "generation": 0, "protocol": None, "leader": None, "currentStateTimestamp": 100,
      "members": []},
     '{"protocolType":"","generation":0,"protocol":null,"leader":null,"currentStateTimestamp":100,"members":[]}'),
    (2, 3, *KEY_G[:1],
     "0008 636f6e73756d6572 ffffffff"  # "consumer", generation -1
     "0002 7272 0001 61"               # protocol "rr", leader "a"
     "ffffffffffffffff"                # currentStateTimestamp -1
     "00000002"                        # 2 members
     "0001 61 0001 69 0001 63 0001 68 00000001 00000002 00000000 00000000"  # a, instance "i", c, h, 1, 2, -, -
     "0001 62 ffff 0000 0000 00000003 00000004 00000000 00000000",          # b, instance null, "", "", 3, 4
     KEY_G[1],
     {"protocolType": "consumer", "generation": -1, "protocol": "rr", "leader": "a", "currentStateTimestamp": -1,
      "members": [{"memberId": "a", "groupInstanceId": "i", "clientId": "c", "clientHost": "h", "rebalanceTimeout": 1,
                   "sessionTimeout": 2, "subscription": b"", "assignment": b""},
                  {"memberId": "b", "groupInstanceId": None, "clientId": "", "clientHost": "", "rebalanceTimeout": 3,
                   "sessionTimeout": 4, "subscription": b"", "assignment": b""}]},
     '{"protocolType":"consumer","generation":-1,"protocol":"rr","leader":"a","currentStateTimestamp":-1,"members":['
     '{"memberId":"a","groupInstanceId":"i","clientId":"c","clientHost":"h","rebalanceTimeout":1,"sessionTimeout":2,'
     '"subscription":"","assignment":""},{"memberId":"b","groupInstanceId":null,"clientId":"","clientHost":"",'
     '"rebalanceTimeout":3,"sessionTimeout":4,"subscription":"","assignment":""}]}'),
    (2, 4, *KEY_G[:1],
     "09 636f6e73756d6572"  # protocolType "consumer" (compact)
     "00000005"             # generation 5
     "06 72616e6765"        # protocol "range"
     "00"                   # leader null
     "0000000000000001"     # currentStateTimestamp 1
     "02"                   # 1 member
     "02 61 00 02 63 02 68" #   memberId "a", groupInstanceId null, clientId "c", clientHost "h"
     "00000001 00000002"    #   rebalanceTimeout 1, sessionTimeout 2
     "03 0102 01"           #   subscription 01 02, assignment empty
     "00"                   #   member: no tagged fields
     "00",                  # no tagged fields
     KEY_G[1],
     {"protocolType": "consumer", "generation": 5, "protocol": "range", "leader": None, "currentStateTimestamp": 1,
      "members": [{"memberId": "a", "groupInstanceId": None, "clientId": "c", "clientHost": "h",
                   "rebalanceTimeout": 1, "sessionTimeout": 2, "subscription": b"\x01\x02", "assignment": b""}]},
     '{"protocolType":"consumer","generation":5,"protocol":"range","leader":null,"currentStateTimestamp":1,"members":['
     '{"memberId":"a","groupInstanceId":null,"clientId":"c","clientHost":"h","rebalanceTimeout":1,"sessionTimeout":2,'
     '"subscription":"AQI=","assignment":""}]}'),
    # --- 3 ConsumerGroupMetadata v0 (flexible): epoch, tagged metadataHash (tag 0, default 0)
    (3, 0, *KEY_GID[:1], "00000007 01 00 08 00000000000000ff", KEY_GID[1],
     {"epoch": 7, "metadataHash": 255}, '{"epoch":7,"metadataHash":255}'),
    (3, 0, *KEY_GID[:1], "00000007 00", KEY_GID[1], {"epoch": 7, "metadataHash": 0}, '{"epoch":7}'),
    # --- 4 ConsumerGroupPartitionMetadata v0
    (4, 0, *KEY_GID[:1],
     "02" + U_SEQ +         # 1 topic: topicId
     "02 74 00000002"       #   topicName "t", numPartitions 2
     "02 00000000"          #   1 partitionMetadata: partition 0
     "03 03 7231 03 7232"   #     racks ["r1", "r2"]
     "00 00 00",            #     tags of partition, topic, value
     KEY_GID[1],
     {"topics": [{"topicId": T_SEQ, "topicName": "t", "numPartitions": 2,
                  "partitionMetadata": [{"partition": 0, "racks": ["r1", "r2"]}]}]},
     '{"topics":[{"topicId":"AAECAwQFBgcICQoLDA0ODw","topicName":"t","numPartitions":2,'
     '"partitionMetadata":[{"partition":0,"racks":["r1","r2"]}]}]}'),
    # --- 5 ConsumerGroupMemberMetadata v0, with the tagged NULLABLE struct classicMemberMetadata
    (5, 0, *KEY_GID_M1[:1],
     "00 03 7231 02 63 02 68"  # instanceId null, rackId "r1", clientId "c", clientHost "h"
     "02 02 74"                # subscribedTopicNames ["t"]
     "00"                      # subscribedTopicRegex null
     "00007530"                # rebalanceTimeoutMs 30000
     "08 756e69666f726d"       # serverAssignor "uniform"
     "01 00 10"                # 1 tagged field: tag 0, 16 bytes:
     "01"                      #   present (a tagged nullable struct's marker is a varint)
     "00002710"                #   sessionTimeoutMs 10000
     "02 06 72616e6765 02 ff"  #   supportedProtocols [{"range", ff}]
     "00 00",                  #   tags of the protocol and of the struct
     KEY_GID_M1[1],
     {"instanceId": None, "rackId": "r1", "clientId": "c", "clientHost": "h", "subscribedTopicNames": ["t"],
      "subscribedTopicRegex": None, "rebalanceTimeoutMs": 30000, "serverAssignor": "uniform",
      "classicMemberMetadata": {"sessionTimeoutMs": 10000, "supportedProtocols": [{"name": "range", "metadata": b"\xff"}]}},
     '{"instanceId":null,"rackId":"r1","clientId":"c","clientHost":"h","subscribedTopicNames":["t"],'
     '"subscribedTopicRegex":null,"rebalanceTimeoutMs":30000,"serverAssignor":"uniform","classicMemberMetadata":'
     '{"sessionTimeoutMs":10000,"supportedProtocols":[{"name":"range","metadata":"/w=="}]}}'),
    # classicMemberMetadata null, as the coordinator writes it for every member that is not a classic
    # one: the tag is present with marker 0, and Kafka prints it as null
    (5, 0, *KEY_GID_M1[:1],
     "02 69 00 01 01 01 00 ffffffff 00"  # instanceId "i", rackId null, "", "", [], regex null, -1, assignor null
     "01 00 01 00",                      # 1 tagged field: tag 0, 1 byte: marker 0 (null)
     KEY_GID_M1[1],
     {"instanceId": "i", "rackId": None, "clientId": "", "clientHost": "", "subscribedTopicNames": [],
      "subscribedTopicRegex": None, "rebalanceTimeoutMs": -1, "serverAssignor": None, "classicMemberMetadata": None},
     '{"instanceId":"i","rackId":null,"clientId":"","clientHost":"","subscribedTopicNames":[],'
     '"subscribedTopicRegex":null,"rebalanceTimeoutMs":-1,"serverAssignor":null,"classicMemberMetadata":null}'),
    # the tag absent: Kafka's default for the field is the EMPTY struct (the spec's "default": null is a JSON
    # null, i.e. no default), which it leaves out of the JSON
    (5, 0, *KEY_GID_M1[:1], "02 69 00 01 01 01 00 ffffffff 00 00", KEY_GID_M1[1],
     {"instanceId": "i", "rackId": None, "clientId": "", "clientHost": "", "subscribedTopicNames": [],
      "subscribedTopicRegex": None, "rebalanceTimeoutMs": -1, "serverAssignor": None,
      "classicMemberMetadata": {"sessionTimeoutMs": 0, "supportedProtocols": []}},
     '{"instanceId":"i","rackId":null,"clientId":"","clientHost":"","subscribedTopicNames":[],'
     '"subscribedTopicRegex":null,"rebalanceTimeoutMs":-1,"serverAssignor":null}'),
    # --- 6 ConsumerGroupTargetAssignmentMetadata v0: assignmentEpoch, tagged assignmentTimestamp
    (6, 0, *KEY_GID[:1], "00000003 01 00 08 000000000000000a", KEY_GID[1],
     {"assignmentEpoch": 3, "assignmentTimestamp": 10}, '{"assignmentEpoch":3,"assignmentTimestamp":10}'),
    # --- 7 ConsumerGroupTargetAssignmentMember v0
    (7, 0, *KEY_GID_M1[:1],
     "02" + U_FF +                          # 1 topic: topicId ff..ff
     "04 00000000 00000001 00000002 00"     #   partitions [0, 1, 2], no tags
     "00",
     KEY_GID_M1[1], {"topicPartitions": [{"topicId": T_FF, "partitions": [0, 1, 2]}]},
     '{"topicPartitions":[{"topicId":"_____________________w","partitions":[0,1,2]}]}'),
    # --- 8 ConsumerGroupCurrentMemberAssignment v0: the tagged nullable array assignmentEpochs
    (8, 0, *KEY_GID_M1[:1],
     "00000005 00000004 02"         # memberEpoch 5, previousMemberEpoch 4, state 2
     "02" + U_SEQ +                 # 1 assigned topic
     "02 00000001"                  #   partitions [1]
     "01 00 05 02 00000005"         #   tag 0 (assignmentEpochs), 5 bytes: [5]
     "01"                           # partitionsPendingRevocation []
     "00",
     KEY_GID_M1[1],
     {"memberEpoch": 5, "previousMemberEpoch": 4, "state": 2,
      "assignedPartitions": [{"topicId": T_SEQ, "partitions": [1], "assignmentEpochs": [5]}],
      "partitionsPendingRevocation": []},
     '{"memberEpoch":5,"previousMemberEpoch":4,"state":2,"assignedPartitions":[{"topicId":"AAECAwQFBgcICQoLDA0ODw",'
     '"partitions":[1],"assignmentEpochs":[5]}],"partitionsPendingRevocation":[]}'),
    (8, 0, *KEY_GID_M1[:1],
     "00000005 00000004 02 02" + U_SEQ +   # as above, then partitions [1] and
     "02 00000001 01 00 01 00"             #   tag 0, 1 byte: assignmentEpochs null (compact 0)
     "02" + U_FF + "01 00"                 # partitionsPendingRevocation [{ff..ff, [], no tags}]
     "00",
     KEY_GID_M1[1],
     {"memberEpoch": 5, "previousMemberEpoch": 4, "state": 2,
      "assignedPartitions": [{"topicId": T_SEQ, "partitions": [1], "assignmentEpochs": None}],
      "partitionsPendingRevocation": [{"topicId": T_FF, "partitions": [], "assignmentEpochs": []}]},
     '{"memberEpoch":5,"previousMemberEpoch":4,"state":2,"assignedPartitions":[{"topicId":"AAECAwQFBgcICQoLDA0ODw",'
     '"partitions":[1],"assignmentEpochs":null}],"partitionsPendingRevocation":[{"topicId":"_____________________w",'
     '"partitions":[]}]}'),
    # --- 10 ShareGroupMemberMetadata v0
    (10, 0, *KEY_GID_M1[:1], "00 02 63 02 68 01 00", KEY_GID_M1[1],
     {"rackId": None, "clientId": "c", "clientHost": "h", "subscribedTopicNames": []},
     '{"rackId":null,"clientId":"c","clientHost":"h","subscribedTopicNames":[]}'),
    # --- 11 ShareGroupMetadata v0: metadataHash is NOT tagged here
    (11, 0, *KEY_GID[:1], "00000001 8000000000000000 00", KEY_GID[1],
     {"epoch": 1, "metadataHash": -2**63}, '{"epoch":1,"metadataHash":-9223372036854775808}'),
    # --- 12 ShareGroupTargetAssignmentMetadata v0 (tagged timestamp at its default)
    (12, 0, *KEY_GID[:1], "00000009 00", KEY_GID[1],
     {"assignmentEpoch": 9, "assignmentTimestamp": 0}, '{"assignmentEpoch":9}'),
    # --- 13 ShareGroupTargetAssignmentMember v0
    (13, 0, *KEY_GID_M1[:1], "02" + U0 + "01 00 00", KEY_GID_M1[1],
     {"topicPartitions": [{"topicId": T_ZERO, "partitions": []}]},
     '{"topicPartitions":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","partitions":[]}]}'),
    # --- 14 ShareGroupCurrentMemberAssignment v0
    (14, 0, *KEY_GID_M1[:1], "00000001 00000000 01 02" + U_SEQ + "03 00000000 00000007 00 00", KEY_GID_M1[1],
     {"memberEpoch": 1, "previousMemberEpoch": 0, "state": 1,
      "assignedPartitions": [{"topicId": T_SEQ, "partitions": [0, 7]}]},
     '{"memberEpoch":1,"previousMemberEpoch":0,"state":1,"assignedPartitions":[{"topicId":"AAECAwQFBgcICQoLDA0ODw",'
     '"partitions":[0,7]}]}'),
    # --- 15 ShareGroupStatePartitionMetadata v0
    (15, 0, *KEY_GID[:1],
     "02" + U0 + "02 74 02 00000000 00"  # initializingTopics [{zero, "t", [0]}]
     "01"                                # initializedTopics []
     "02" + U_FF + "03 7432 00"          # deletingTopics [{ff..ff, "t2"}]
     "00",
     KEY_GID[1],
     {"initializingTopics": [{"topicId": T_ZERO, "topicName": "t", "partitions": [0]}], "initializedTopics": [],
      "deletingTopics": [{"topicId": T_FF, "topicName": "t2"}]},
     '{"initializingTopics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA","topicName":"t","partitions":[0]}],'
     '"initializedTopics":[],"deletingTopics":[{"topicId":"_____________________w","topicName":"t2"}]}'),
    # --- 16 ConsumerGroupRegularExpression v0; key: groupId "g", regularExpression ".*"
    (16, 0, "0001 67 0002 2e2a", "03 02 61 02 62 0000000000000001 0000000000000002 00",
     {"groupId": "g", "regularExpression": ".*"}, {"topics": ["a", "b"], "version": 1, "timestamp": 2},
     '{"topics":["a","b"],"version":1,"timestamp":2}'),
    # --- 17 StreamsGroupMetadata v0: two tagged fields, one a nullable array of structs
    (17, 0, *KEY_GID[:1],
     "00000001 0000000000000002"   # epoch 1, metadataHash 2
     "02"                          # 2 tagged fields
     "00 04 00000003"              #   tag 0 validatedTopologyEpoch 3
     "01 06 02 02 6b 02 76 00",    #   tag 1 lastAssignmentConfigs [{"k": "v"}]
     KEY_GID[1],
     {"epoch": 1, "metadataHash": 2, "validatedTopologyEpoch": 3, "lastAssignmentConfigs": [{"key": "k", "value": "v"}]},
     '{"epoch":1,"metadataHash":2,"validatedTopologyEpoch":3,"lastAssignmentConfigs":[{"key":"k","value":"v"}]}'),
    # --- 19 StreamsGroupMemberMetadata v0: a nullable (untagged) struct with a presence byte, uint16
    (19, 0, *KEY_GID_M1[:1],
     "02 69 00 02 63 02 68"    # instanceId "i", rackId null, clientId "c", clientHost "h"
     "00000064 00000002 02 70" # rebalanceTimeoutMs 100, topologyEpoch 2, processId "p"
     "01 02 68 ffff 00"        # userEndpoint present: host "h", port 65535
     "02 02 6b 02 76 00"       # clientTags [{"k": "v"}]
     "00",
     KEY_GID_M1[1],
     {"instanceId": "i", "rackId": None, "clientId": "c", "clientHost": "h", "rebalanceTimeoutMs": 100,
      "topologyEpoch": 2, "processId": "p", "userEndpoint": {"host": "h", "port": 65535},
      "clientTags": [{"key": "k", "value": "v"}]},
     '{"instanceId":"i","rackId":null,"clientId":"c","clientHost":"h","rebalanceTimeoutMs":100,"topologyEpoch":2,'
     '"processId":"p","userEndpoint":{"host":"h","port":65535},"clientTags":[{"key":"k","value":"v"}]}'),
    (19, 0, *KEY_GID_M1[:1], "00 00 01 01 ffffffff 00000000 01 ff 01 00", KEY_GID_M1[1],
     {"instanceId": None, "rackId": None, "clientId": "", "clientHost": "", "rebalanceTimeoutMs": -1,
      "topologyEpoch": 0, "processId": "", "userEndpoint": None, "clientTags": []},
     '{"instanceId":null,"rackId":null,"clientId":"","clientHost":"","rebalanceTimeoutMs":-1,"topologyEpoch":0,'
     '"processId":"","userEndpoint":null,"clientTags":[]}'),
    # --- 20 StreamsGroupTargetAssignmentMetadata v0
    (20, 0, *KEY_GID[:1], "00000001 01 00 08 0000000000000002", KEY_GID[1],
     {"assignmentEpoch": 1, "assignmentTimestamp": 2}, '{"assignmentEpoch":1,"assignmentTimestamp":2}'),
    # --- 21 StreamsGroupTargetAssignmentMember v0
    (21, 0, *KEY_GID_M1[:1], "02 02 30 02 00000001 00 01 01 00", KEY_GID_M1[1],
     {"activeTasks": [{"subtopologyId": "0", "partitions": [1]}], "standbyTasks": [], "warmupTasks": []},
     '{"activeTasks":[{"subtopologyId":"0","partitions":[1]}],"standbyTasks":[],"warmupTasks":[]}'),
    # --- 22 StreamsGroupCurrentMemberAssignment v0
    (22, 0, *KEY_GID_M1[:1],
     "00000003 00000002 00"                     # memberEpoch 3, previousMemberEpoch 2, state 0
     "02 02 31 03 00000000 00000001"            # activeTasks [{"1", [0, 1], ...
     "01 00 09 03 00000003 00000003"            #   tag 0 assignmentEpochs [3, 3]}]
     "01 01 01 01 01"                           # the five other task lists empty
     "00",
     KEY_GID_M1[1],
     {"memberEpoch": 3, "previousMemberEpoch": 2, "state": 0,
      "activeTasks": [{"subtopologyId": "1", "partitions": [0, 1], "assignmentEpochs": [3, 3]}],
      "standbyTasks": [], "warmupTasks": [], "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
      "warmupTasksPendingRevocation": []},
     '{"memberEpoch":3,"previousMemberEpoch":2,"state":0,"activeTasks":[{"subtopologyId":"1","partitions":[0,1],'
     '"assignmentEpochs":[3,3]}],"standbyTasks":[],"warmupTasks":[],"activeTasksPendingRevocation":[],'
     '"standbyTasksPendingRevocation":[],"warmupTasksPendingRevocation":[]}'),
    # --- 23 StreamsGroupTopology v0
    (23, 0, *KEY_GID[:1],
     "00000001 02"              # epoch 1, 1 subtopology
     "02 30"                    #   subtopologyId "0"
     "02 02 61"                 #   sourceTopics ["a"]
     "01"                       #   sourceTopicRegex []
     "02 02 63 00000003 0002"   #   stateChangelogTopics [{"c", 3 partitions, replicationFactor 2,
     "02 02 6b 02 76 00 00"     #     topicConfigs [{"k": "v"}]}]
     "01 01"                    #   repartitionSinkTopics [], repartitionSourceTopics []
     "02 02 0000 01 01 00"      #   copartitionGroups [{sourceTopics [0], [], []}]
     "00 00",
     KEY_GID[1],
     {"epoch": 1, "subtopologies": [{"subtopologyId": "0", "sourceTopics": ["a"], "sourceTopicRegex": [],
                                     "stateChangelogTopics": [{"name": "c", "partitions": 3, "replicationFactor": 2,
                                                               "topicConfigs": [{"key": "k", "value": "v"}]}],
                                     "repartitionSinkTopics": [], "repartitionSourceTopics": [],
                                     "copartitionGroups": [{"sourceTopics": [0], "sourceTopicRegex": [],
                                                            "repartitionSourceTopics": []}]}]},
     '{"epoch":1,"subtopologies":[{"subtopologyId":"0","sourceTopics":["a"],"sourceTopicRegex":[],'
     '"stateChangelogTopics":[{"name":"c","partitions":3,"replicationFactor":2,"topicConfigs":[{"key":"k","value":"v"}]}],'
     '"repartitionSinkTopics":[],"repartitionSourceTopics":[],"copartitionGroups":[{"sourceTopics":[0],'
     '"sourceTopicRegex":[],"repartitionSourceTopics":[]}]}]}'),
]


def vector_bytes(vec) -> tuple[bytes, bytes]:
    type_id, version, key_hex, value_hex = vec[:4]
    return struct.pack(">h", type_id) + h(key_hex), struct.pack(">h", version) + h(value_hex)


def vector_id(vec) -> str:
    return f"type{vec[0]}-v{vec[1]}"


def test_vectors_cover_every_record_type_and_value_version():
    covered = {(v[0], v[1]) for v in VECTORS}
    assert covered == {(t, v) for t, rt in RECORD_TYPES.items() for v in rt.value.version_range()}


@pytest.mark.parametrize("vec", VECTORS, ids=[vector_id(v) for v in VECTORS])
def test_hand_computed_vector(vec):
    type_id, version, _, _, key_dict, value_dict, data_json = vec
    key, value = vector_bytes(vec)
    rec = records.decode(key, value)
    assert (rec.type, rec.key, rec.version, rec.value) == (type_id, key_dict, version, value_dict)
    assert jackson.dumps(records.kafka_json(rec)) == (
        f'{{"key":{{"type":{type_id},"data":{KEY_TEXT[type_id]}}},"value":{{"version":{version},"data":{data_json}}}}}')
    assert records.encode(type_id, key_dict, version, value_dict) == (key, value)


@pytest.mark.parametrize("vec", VECTORS, ids=vector_id)
def test_tombstone(vec):
    type_id, _, _, _, key_dict = vec[:5]
    key, _ = vector_bytes(vec)
    rec = records.decode(key, None)
    assert (rec.type, rec.key, rec.version, rec.value, rec.tombstone) == (type_id, key_dict, None, None, True)
    assert jackson.dumps(records.kafka_json(rec)) == f'{{"key":{{"type":{type_id},"data":{KEY_TEXT[type_id]}}},"value":null}}'
    assert records.encode(type_id, key_dict, None, None) == (key, None)


@pytest.mark.parametrize("vec", VECTORS, ids=vector_id)
def test_every_truncation_is_a_decode_error(vec):
    key, value = vector_bytes(vec)
    for cut in range(len(key)):
        with pytest.raises(DecodeError):
            records.decode(key[:cut], value)
        with pytest.raises(DecodeError):
            records.decode(key[:cut], None)
    for cut in range(len(value)):
        with pytest.raises(DecodeError):
            records.decode(key, value[:cut])


def test_trailing_bytes_are_ignored():
    key, value = vector_bytes(VECTORS[0])
    assert records.decode(key + b"\x00", value + b"\x01\x02").value == VECTORS[0][5]


def test_unknown_tagged_fields_are_skipped_at_every_level():
    # type 7 vector with an unknown tag 5 (2 bytes) in the topic struct and tag 300 (0 bytes) at the top
    key = h("0007 0001 67 0002 6d31")
    value = h("0000 02" + U_FF + "04 00000000 00000001 00000002", "01 05 02 abcd", "01 ac02 00")
    assert records.decode(key, value).value == {"topicPartitions": [{"topicId": T_FF, "partitions": [0, 1, 2]}]}
    # an unknown tag whose size runs past the end is an error
    with pytest.raises(DecodeError):
        records.decode(key, h("0000 01 01 07 05 abcd"))


def test_tagged_nullable_struct_marker_zero_is_null():
    # classicMemberMetadata sent with marker 0: read as null (as Kafka's readUnsignedVarint() <= 0)
    key = h("0005 0001 67 0002 6d31")
    value = h("0000 00 00 01 01 01 00 ffffffff 00", "01 00 01 00")
    assert records.decode(key, value).value["classicMemberMetadata"] is None


def test_unknown_type_and_version_are_errors():
    with pytest.raises(DecodeError, match="unknown record type 9"):
        records.decode(h("0009 0001 67"), None)
    with pytest.raises(DecodeError, match="unknown record type"):
        records.decode(h("0018 0001 67"), h("0000"))
    with pytest.raises(DecodeError, match="unknown record type"):
        records.decode(h("ffff"), h("0000"))
    with pytest.raises(DecodeError, match="unknown version 5"):
        records.decode(h("0001 0001 67 0001 74 00000000"), h("0005 0000000000000001 0000 0000000000000001"))
    with pytest.raises(DecodeError, match="unknown version 1"):
        records.decode(h("0003 0001 67"), h("0001 00000007 00"))
    with pytest.raises(DecodeError):
        records.decode(None, h("0000"))
    with pytest.raises(DecodeError):
        records.decode(h("0003 0001 67"), h("00"))
    with pytest.raises(ValueError):
        records.encode(3, {"groupId": "g"}, 1, {"epoch": 1})
    with pytest.raises(DecodeError):
        records.encode(9, {"groupId": "g"}, None, None)


def test_bad_lengths_are_decode_errors():
    cases = [
        h("0003 8001 67"),              # key string of negative length (non-nullable)
        h("0003 0005 67"),              # key string longer than the key
    ]
    for bad_key in cases:
        with pytest.raises(DecodeError):
            records.decode(bad_key, None)
    key = h("0004 0001 67")
    values = [
        (key, h("0000 ffffffff0f")),  # compact array length varint of 5 bytes: 2^32 - 1 -> -2: error
        (key, h("0000 ffffffffff")),  # varint too long
        (key, h("0000 7f")),  # 126 topics claimed, no bytes
        (h("0005 0001 67 0002 6d31"), h("0000 00 00 00")),  # non-nullable clientId sent as null
        (h("0010 0001 67 0002 2e2a"), h("0000 02 00 0000000000000001 0000000000000002 00")),  # null element in []string
    ]
    for key_bytes, value in values:
        with pytest.raises(DecodeError):
            records.decode(key_bytes, value)


# -- random round trips ---------------------------------------------------------------

_RANGES = {"int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "uint16": (0, 2**16 - 1),
           "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
_TEXT = "aZ09 -_.\"\\\x00\x1f\x7fé€中\U0001F680\U00010000\u2028"


def rand_value(f: F, t: str, version: int, rng: random.Random):
    if t in _RANGES:
        lo, hi = _RANGES[t]
        return rng.choice((lo, hi, 0, rng.randint(lo, hi)))
    if t == "bool":
        return rng.random() < 0.5
    if t == "float64":
        return rng.choice((0.0, -1.5, 1e300))
    if t == "string":
        return "".join(rng.choice(_TEXT) for _ in range(rng.randrange(0, 10)))
    if t == "bytes":
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 10)))
    if t == "uuid":
        return base64.urlsafe_b64encode(bytes(rng.randrange(256) for _ in range(16))).decode()[:22]
    if t == "struct":
        return rand_struct(f.fields, version, rng)
    raise AssertionError(t)


def rand_struct(fields, version: int, rng: random.Random) -> dict:
    out = {}
    for f in fields:
        if not f.present_in(version) or (f.tagged_in(version) and rng.random() < 0.3):
            out[f.name] = f.default_value()
        elif f.nullable_in(version) and rng.random() < 0.25:
            out[f.name] = None
        elif f.is_array:
            out[f.name] = [rand_value(f, f.element, version, rng) for _ in range(rng.randrange(0, 4))]
        else:
            out[f.name] = rand_value(f, f.type, version, rng)
    return out


@pytest.mark.parametrize("type_id", sorted(RECORD_TYPES))
def test_random_round_trip(type_id):
    rng = random.Random(type_id)
    rt = RECORD_TYPES[type_id]
    for version in rt.value.version_range():
        for _ in range(150):
            key, value = rand_struct(rt.key.fields, 0, rng), rand_struct(rt.value.fields, version, rng)
            kb, vb = records.encode(type_id, key, version, value)
            rec = records.decode(kb, vb)
            assert (rec.type, rec.key, rec.version, rec.value) == (type_id, key, version, value)
            assert records.encode(type_id, rec.key, rec.version, rec.value) == (kb, vb)
            text = jackson.dumps(records.kafka_json(rec))
            assert json.loads(text)["value"]["version"] == version
            # corrupt one byte: either still a record or a DecodeError, never another exception
            if len(vb) > 2:
                i = rng.randrange(2, len(vb))
                bad = vb[:i] + bytes([rng.choice((0x00, 0x7F, 0x80, 0xFF, rng.randrange(256)))]) + vb[i + 1:]
                try:
                    jackson.dumps(records.kafka_json(records.decode(kb, bad)))
                except DecodeError:
                    pass


def test_defaults_of_absent_fields_are_not_shared_between_records():
    from kgroup.kmsg.consumer_protocol import decode_subscription

    v0 = h("0000 00000000 ffffffff")  # subscription v0: no topics, userData null; ownedPartitions absent
    first, second = decode_subscription(v0), decode_subscription(v0)
    first["ownedPartitions"].append({"topic": "t", "partitions": [0]})
    assert second["ownedPartitions"] == [] and decode_subscription(v0)["ownedPartitions"] == []
