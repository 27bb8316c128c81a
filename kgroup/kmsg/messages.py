"""The requests and responses the wire client speaks, as data (the vocabulary of
kgroup.kmsg.schema, walked by the same codec as the offsets log's records).

Written for kgroup from the facts of Apache Kafka 4.3.0's message specs
(clients/src/main/resources/common/message/): only the versions kgroup sends. Field names
are Kafka's JSON names. The request and response headers are not here: they are fixed
(connection.py writes and reads them).
"""
from __future__ import annotations

from typing import NamedTuple

from kgroup.kmsg.schema import F, Layout


class Api(NamedTuple):
    """One request kgroup sends: its API key, the version it sends, and the two bodies."""

    key: int
    version: int
    request: Layout
    response: Layout

    @property
    def flexible(self) -> bool:
        return self.request.flexible_in(self.version)


API_VERSIONS = Api(18, 0, Layout('ApiVersionsRequest', versions='0', flexible=None), Layout(
    'ApiVersionsResponse', versions='0', flexible=None, fields=(
        F('errorCode', 'int16', '0+'),
        F('apiKeys', '[]struct', '0+', fields=(
            F('apiKey', 'int16', '0+'),
            F('minVersion', 'int16', '0+'),
            F('maxVersion', 'int16', '0+'),
        )),
    )))

FIND_COORDINATOR = Api(10, 4, Layout('FindCoordinatorRequest', versions='4-6', flexible='3+', fields=(
    F('keyType', 'int8', '1+'),
    F('coordinatorKeys', '[]string', '4+'),
)), Layout('FindCoordinatorResponse', versions='4-6', flexible='3+', fields=(
    F('throttleTimeMs', 'int32', '1+'),
    F('coordinators', '[]struct', '4+', fields=(
        F('key', 'string', '4+'),
        F('nodeId', 'int32', '4+'),
        F('host', 'string', '4+'),
        F('port', 'int32', '4+'),
        F('errorCode', 'int16', '4+'),
        F('errorMessage', 'string', '4+', nullable='4+'),
    )),
)))

# v6 (Kafka 4.1+): the same fields, and key type 2 (a share partition's share coordinator, key
# "groupId:topicId:partition")
FIND_COORDINATOR_V6 = Api(10, 6, FIND_COORDINATOR.request, FIND_COORDINATOR.response)

OFFSET_FETCH = Api(9, 8, Layout('OffsetFetchRequest', versions='8', flexible='6+', fields=(
    F('groups', '[]struct', '8+', fields=(
        F('groupId', 'string', '8+'),
        F('topics', '[]struct', '8+', nullable='8+', fields=(
            F('name', 'string', '8'),
            F('partitionIndexes', '[]int32', '8+'),
        )),
    )),
    F('requireStable', 'bool', '7+'),
)), Layout('OffsetFetchResponse', versions='8', flexible='6+', fields=(
    F('throttleTimeMs', 'int32', '3+'),
    F('groups', '[]struct', '8+', fields=(
        F('groupId', 'string', '8+'),
        F('topics', '[]struct', '8+', fields=(
            F('name', 'string', '8+'),
            F('partitions', '[]struct', '8+', fields=(
                F('partitionIndex', 'int32', '8+'),
                F('committedOffset', 'int64', '8+'),
                F('committedLeaderEpoch', 'int32', '8+'),
                F('metadata', 'string', '8+', nullable='8+'),
                F('errorCode', 'int16', '8+'),
            )),
        )),
        F('errorCode', 'int16', '8+'),
    )),
)))

_ASSIGNMENT = (  # ConsumerGroupDescribeResponse's common struct Assignment (and its TopicPartitions)
    F('topicPartitions', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('topicName', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
)

CONSUMER_GROUP_DESCRIBE = Api(69, 0, Layout('ConsumerGroupDescribeRequest', versions='0', flexible='0+', fields=(
    F('groupIds', '[]string', '0+'),
    F('includeAuthorizedOperations', 'bool', '0+'),
)), Layout('ConsumerGroupDescribeResponse', versions='0', flexible='0+', fields=(
    F('throttleTimeMs', 'int32', '0+'),
    F('groups', '[]struct', '0+', fields=(
        F('errorCode', 'int16', '0+'),
        F('errorMessage', 'string', '0+', nullable='0+'),
        F('groupId', 'string', '0+'),
        F('groupState', 'string', '0+'),
        F('groupEpoch', 'int32', '0+'),
        F('assignmentEpoch', 'int32', '0+'),
        F('assignorName', 'string', '0+'),
        F('members', '[]struct', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('instanceId', 'string', '0+', nullable='0+'),
            F('rackId', 'string', '0+', nullable='0+'),
            F('memberEpoch', 'int32', '0+'),
            F('clientId', 'string', '0+'),
            F('clientHost', 'string', '0+'),
            F('subscribedTopicNames', '[]string', '0+'),
            F('subscribedTopicRegex', 'string', '0+', nullable='0+'),
            F('assignment', 'struct', '0+', fields=_ASSIGNMENT),
            F('targetAssignment', 'struct', '0+', fields=_ASSIGNMENT),
        )),
        F('authorizedOperations', 'int32', '0+'),
    )),
)))

DESCRIBE_GROUPS = Api(15, 5, Layout('DescribeGroupsRequest', versions='5', flexible='5+', fields=(
    F('groups', '[]string', '0+'),
    F('includeAuthorizedOperations', 'bool', '3+'),
)), Layout('DescribeGroupsResponse', versions='5', flexible='5+', fields=(
    F('throttleTimeMs', 'int32', '1+'),
    F('groups', '[]struct', '0+', fields=(
        F('errorCode', 'int16', '0+'),
        F('groupId', 'string', '0+'),
        F('groupState', 'string', '0+'),
        F('protocolType', 'string', '0+'),
        F('protocolData', 'string', '0+'),
        F('members', '[]struct', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('groupInstanceId', 'string', '4+', nullable='4+'),
            F('clientId', 'string', '0+'),
            F('clientHost', 'string', '0+'),
            F('memberMetadata', 'bytes', '0+'),
            F('memberAssignment', 'bytes', '0+'),
        )),
        F('authorizedOperations', 'int32', '3+'),
    )),
)))

# SASL (KIP-152): the mechanism is agreed with SaslHandshake v1, whose answer only says so; the
# mechanism's own bytes then travel in SaslAuthenticate requests. An answer with a session
# lifetime (KIP-368, v1+) asks the client to log in again on the same connection before it ends.
SASL_HANDSHAKE = Api(17, 1, Layout('SaslHandshakeRequest', versions='1', flexible=None, fields=(
    F('mechanism', 'string', '0+'),
)), Layout('SaslHandshakeResponse', versions='1', flexible=None, fields=(
    F('errorCode', 'int16', '0+'),
    F('mechanisms', '[]string', '0+'),
)))

SASL_AUTHENTICATE = Api(36, 2, Layout('SaslAuthenticateRequest', versions='2', flexible='2+', fields=(
    F('authBytes', 'bytes', '0+'),
)), Layout('SaslAuthenticateResponse', versions='2', flexible='2+', fields=(
    F('errorCode', 'int16', '0+'),
    F('errorMessage', 'string', '0+', nullable='0+'),
    F('authBytes', 'bytes', '0+'),
    F('sessionLifetimeMs', 'int64', '1+', default=0),
)))

# the version before flexible encoding (Kafka 1.0 to 2.3 brokers answer no other)
SASL_AUTHENTICATE_V1 = Api(36, 1, Layout('SaslAuthenticateRequest', versions='1', flexible=None, fields=(
    F('authBytes', 'bytes', '0+'),
)), Layout('SaslAuthenticateResponse', versions='1', flexible=None, fields=(
    F('errorCode', 'int16', '0+'),
    F('errorMessage', 'string', '0+', nullable='0+'),
    F('authBytes', 'bytes', '0+'),
    F('sessionLifetimeMs', 'int64', '1+', default=0),
)))

# Share groups (KIP-932). ShareGroupDescribe: v1 only (Kafka 4.1+; v0 was early access and
# is gone). Its Assignment and TopicPartitions are ConsumerGroupDescribe's common structs.
SHARE_GROUP_DESCRIBE = Api(77, 1, Layout('ShareGroupDescribeRequest', versions='1', flexible='0+', fields=(
    F('groupIds', '[]string', '0+'),
    F('includeAuthorizedOperations', 'bool', '0+'),
)), Layout('ShareGroupDescribeResponse', versions='1', flexible='0+', fields=(
    F('throttleTimeMs', 'int32', '0+'),
    F('groups', '[]struct', '0+', fields=(
        F('errorCode', 'int16', '0+'),
        F('errorMessage', 'string', '0+', nullable='0+', default=None),
        F('groupId', 'string', '0+'),
        F('groupState', 'string', '0+'),
        F('groupEpoch', 'int32', '0+'),
        F('assignmentEpoch', 'int32', '0+'),
        F('assignorName', 'string', '0+'),
        F('members', '[]struct', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('rackId', 'string', '0+', nullable='0+', default=None),
            F('memberEpoch', 'int32', '0+'),
            F('clientId', 'string', '0+'),
            F('clientHost', 'string', '0+'),
            F('subscribedTopicNames', '[]string', '0+'),
            F('assignment', 'struct', '0+', fields=_ASSIGNMENT),
        )),
        F('authorizedOperations', 'int32', '0+', default=-2147483648),
    )),
)))

# DescribeShareGroupOffsets: v0 (Kafka 4.1) and v1 (adds the broker's Lag; -1 where it does not
# know it, and what a v0 answer reads as). Topics null in a request: every partition of the group.
_SHARE_OFFSETS_REQUEST = (
    F('groups', '[]struct', '0+', fields=(
        F('groupId', 'string', '0+'),
        F('topics', '[]struct', '0+', nullable='0+', fields=(
            F('topicName', 'string', '0+'),
            F('partitions', '[]int32', '0+'),
        )),
    )),
)
_SHARE_OFFSETS_RESPONSE = (
    F('throttleTimeMs', 'int32', '0+'),
    F('groups', '[]struct', '0+', fields=(
        F('groupId', 'string', '0+'),
        F('topics', '[]struct', '0+', fields=(
            F('topicName', 'string', '0+'),
            F('topicId', 'uuid', '0+'),
            F('partitions', '[]struct', '0+', fields=(
                F('partitionIndex', 'int32', '0+'),
                F('startOffset', 'int64', '0+'),
                F('leaderEpoch', 'int32', '0+'),
                F('lag', 'int64', '1+', default=-1),
                F('errorCode', 'int16', '0+'),
                F('errorMessage', 'string', '0+', nullable='0+', default=None),
            )),
        )),
        F('errorCode', 'int16', '0+'),
        F('errorMessage', 'string', '0+', nullable='0+', default=None),
    )),
)
DESCRIBE_SHARE_GROUP_OFFSETS = Api(90, 1, Layout(
    'DescribeShareGroupOffsetsRequest', versions='0-1', flexible='0+', fields=_SHARE_OFFSETS_REQUEST),
    Layout('DescribeShareGroupOffsetsResponse', versions='0-1', flexible='0+', fields=_SHARE_OFFSETS_RESPONSE))
DESCRIBE_SHARE_GROUP_OFFSETS_V0 = Api(90, 0, DESCRIBE_SHARE_GROUP_OFFSETS.request, DESCRIBE_SHARE_GROUP_OFFSETS.response)
# ListGroups: v5 (Kafka 3.8+, KIP-848) filters by group type and names each group's type; v4
# (Kafka 2.6+, KIP-518) filters by state only and names no type. Both list every group of the
# broker's coordinators when the filters are empty.
_LISTED_GROUPS = F('groups', '[]struct', '0+', fields=(
    F('groupId', 'string', '0+'),
    F('protocolType', 'string', '0+'),
    F('groupState', 'string', '4+'),
    F('groupType', 'string', '5+'),
))

LIST_GROUPS = Api(16, 5, Layout('ListGroupsRequest', versions='5', flexible='3+', fields=(
    F('statesFilter', '[]string', '4+'),
    F('typesFilter', '[]string', '5+'),
)), Layout('ListGroupsResponse', versions='5', flexible='3+', fields=(
    F('throttleTimeMs', 'int32', '1+'),
    F('errorCode', 'int16', '0+'),
    _LISTED_GROUPS,
)))

LIST_GROUPS_V4 = Api(16, 4, Layout('ListGroupsRequest', versions='4', flexible='3+', fields=(
    F('statesFilter', '[]string', '4+'),
)), Layout('ListGroupsResponse', versions='4', flexible='3+', fields=(
    F('throttleTimeMs', 'int32', '1+'),
    F('errorCode', 'int16', '0+'),
    _LISTED_GROUPS,
)))

# Metadata v12 (Kafka 3.1+) asked with an empty topic list: the brokers only (no topic is named,
# none can be created)
METADATA = Api(3, 12, Layout('MetadataRequest', versions='12', flexible='9+', fields=(
    F('topics', '[]struct', '0+', nullable='1+', fields=(
        F('topicId', 'uuid', '10+'),
        F('name', 'string', '0+', nullable='10+'),
    )),
    F('allowAutoTopicCreation', 'bool', '4+', default=True),
    F('includeTopicAuthorizedOperations', 'bool', '8+'),
)), Layout('MetadataResponse', versions='12', flexible='9+', fields=(
    F('throttleTimeMs', 'int32', '3+'),
    F('brokers', '[]struct', '0+', fields=(
        F('nodeId', 'int32', '0+'),
        F('host', 'string', '0+'),
        F('port', 'int32', '0+'),
        F('rack', 'string', '1+', nullable='1+', default=None),
    )),
    F('clusterId', 'string', '2+', nullable='2+', default=None),
    F('controllerId', 'int32', '1+', default=-1),
    F('topics', '[]struct', '0+', fields=(
        F('errorCode', 'int16', '0+'),
        F('name', 'string', '0+', nullable='12+'),
        F('topicId', 'uuid', '10+'),
        F('isInternal', 'bool', '1+', default=False),
        F('partitions', '[]struct', '0+', fields=(
            F('errorCode', 'int16', '0+'),
            F('partitionIndex', 'int32', '0+'),
            F('leaderId', 'int32', '0+'),
            F('leaderEpoch', 'int32', '7+', default=-1),
            F('replicaNodes', '[]int32', '0+'),
            F('isrNodes', '[]int32', '0+'),
            F('offlineReplicas', '[]int32', '5+'),
        )),
        F('topicAuthorizedOperations', 'int32', '8+', default=-2147483648),
    )),
)))

# KIP-1071 streams groups: StreamsGroupDescribe v0 (Kafka 4.1+). TaskOffsets / TaskEndOffsets are
# left empty by Kafka 4.3 (its coordinator does not take them from members yet).
_STREAMS_TOPIC_INFO = (  # StreamsGroupDescribeResponse's common struct TopicInfo
    F('name', 'string', '0+'),
    F('partitions', 'int32', '0+'),
    F('replicationFactor', 'int16', '0+'),
    F('topicConfigs', '[]struct', '0+', fields=(
        F('key', 'string', '0+'),
        F('value', 'string', '0+'),
    )),
)
_STREAMS_TASK_IDS = (  # TaskIds
    F('subtopologyId', 'string', '0+'),
    F('partitions', '[]int32', '0+'),
)
_STREAMS_ASSIGNMENT = (  # Assignment
    F('activeTasks', '[]struct', '0+', fields=_STREAMS_TASK_IDS),
    F('standbyTasks', '[]struct', '0+', fields=_STREAMS_TASK_IDS),
    F('warmupTasks', '[]struct', '0+', fields=_STREAMS_TASK_IDS),
)
_STREAMS_TASK_OFFSET = (  # TaskOffset
    F('subtopologyId', 'string', '0+'),
    F('partition', 'int32', '0+'),
    F('offset', 'int64', '0+'),
)

STREAMS_GROUP_DESCRIBE = Api(89, 0, Layout('StreamsGroupDescribeRequest', versions='0', flexible='0+', fields=(
    F('groupIds', '[]string', '0+'),
    F('includeAuthorizedOperations', 'bool', '0+'),
)), Layout('StreamsGroupDescribeResponse', versions='0', flexible='0+', fields=(
    F('throttleTimeMs', 'int32', '0+'),
    F('groups', '[]struct', '0+', fields=(
        F('errorCode', 'int16', '0+'),
        F('errorMessage', 'string', '0+', nullable='0+'),
        F('groupId', 'string', '0+'),
        F('groupState', 'string', '0+'),
        F('groupEpoch', 'int32', '0+'),
        F('assignmentEpoch', 'int32', '0+'),
        F('topology', 'struct', '0+', nullable='0+', fields=(
            F('epoch', 'int32', '0+'),
            F('subtopologies', '[]struct', '0+', nullable='0+', fields=(
                F('subtopologyId', 'string', '0+'),
                F('sourceTopics', '[]string', '0+'),
                F('repartitionSinkTopics', '[]string', '0+'),
                F('stateChangelogTopics', '[]struct', '0+', fields=_STREAMS_TOPIC_INFO),
                F('repartitionSourceTopics', '[]struct', '0+', fields=_STREAMS_TOPIC_INFO),
            )),
        )),
        F('members', '[]struct', '0+', fields=(
            F('memberId', 'string', '0+'),
            F('memberEpoch', 'int32', '0+'),
            F('instanceId', 'string', '0+', nullable='0+'),
            F('rackId', 'string', '0+', nullable='0+'),
            F('clientId', 'string', '0+'),
            F('clientHost', 'string', '0+'),
            F('topologyEpoch', 'int32', '0+'),
            F('processId', 'string', '0+'),
            F('userEndpoint', 'struct', '0+', nullable='0+', fields=(
                F('host', 'string', '0+'),
                F('port', 'uint16', '0+'),
            )),
            F('clientTags', '[]struct', '0+', fields=(
                F('key', 'string', '0+'),
                F('value', 'string', '0+'),
            )),
            F('taskOffsets', '[]struct', '0+', fields=_STREAMS_TASK_OFFSET),
            F('taskEndOffsets', '[]struct', '0+', fields=_STREAMS_TASK_OFFSET),
            F('assignment', 'struct', '0+', fields=_STREAMS_ASSIGNMENT),
            F('targetAssignment', 'struct', '0+', fields=_STREAMS_ASSIGNMENT),
            F('isClassic', 'bool', '0+'),
        )),
        F('authorizedOperations', 'int32', '0+', default=-2147483648),
    )),
)))

# DescribeConfigs v4 (Kafka 2.8+), asked of any broker for GROUP resources (type 32, KIP-848's
# group configs), which librdkafka cannot name
DESCRIBE_CONFIGS = Api(32, 4, Layout('DescribeConfigsRequest', versions='4', flexible='4+', fields=(
    F('resources', '[]struct', '0+', fields=(
        F('resourceType', 'int8', '0+'),
        F('resourceName', 'string', '0+'),
        F('configurationKeys', '[]string', '0+', nullable='0+'),
    )),
    F('includeSynonyms', 'bool', '1+'),
    F('includeDocumentation', 'bool', '3+'),
)), Layout('DescribeConfigsResponse', versions='4', flexible='4+', fields=(
    F('throttleTimeMs', 'int32', '0+'),
    F('results', '[]struct', '0+', fields=(
        F('errorCode', 'int16', '0+'),
        F('errorMessage', 'string', '0+', nullable='0+'),
        F('resourceType', 'int8', '0+'),
        F('resourceName', 'string', '0+'),
        F('configs', '[]struct', '0+', fields=(
            F('name', 'string', '0+'),
            F('value', 'string', '0+', nullable='0+'),
            F('readOnly', 'bool', '0+'),
            F('configSource', 'int8', '1+', default=-1),
            F('isSensitive', 'bool', '0+'),
            F('synonyms', '[]struct', '1+', fields=(
                F('name', 'string', '1+'),
                F('value', 'string', '1+', nullable='0+'),
                F('source', 'int8', '1+'),
            )),
            F('configType', 'int8', '3+', default=0),
            F('documentation', 'string', '3+', nullable='0+'),
        )),
    )),
)))
