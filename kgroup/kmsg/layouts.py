"""The records Apache Kafka 4.3.0's group coordinator writes to ``__consumer_offsets``,
described as data (see schema.py for the vocabulary).

Written for kgroup from the facts of Kafka's message specs at the 4.3.0 release
(group-coordinator ``*Key``/``*Value`` messages and kafka-clients'
ConsumerProtocol messages): field names as Kafka prints them in JSON, types,
the versions each field exists in, nullable and tagged versions, tags and
defaults. The key of every record is its type id (int16) followed by the key
fields, always read as version 0; the value is a version (int16) followed by
the value fields, or null for a tombstone. Record types 9 and 18 existed in
earlier Kafka versions and were removed before 4.3.0.

One generic reader and one generic writer (codec.py) walk these tables; no
record has code of its own.
"""
from __future__ import annotations

from kgroup.kmsg.schema import F, Layout, RecordType

# --- record type 0: LegacyOffsetCommit
LEGACY_OFFSET_COMMIT_KEY = Layout('LegacyOffsetCommitKey', versions='0', flexible=None, fields=(
    F('group', 'string', '0'),
    F('topic', 'string', '0'),
    F('partition', 'int32', '0'),
))
LEGACY_OFFSET_COMMIT_VALUE = Layout('LegacyOffsetCommitValue', versions='0', flexible=None, fields=(
    F('offset', 'int64', '0'),
    F('metadata', 'string', '0'),
    F('commitTimestamp', 'int64', '0'),
))

# --- record type 1: OffsetCommit
OFFSET_COMMIT_KEY = Layout('OffsetCommitKey', versions='0', flexible=None, fields=(
    F('group', 'string', '0'),
    F('topic', 'string', '0'),
    F('partition', 'int32', '0'),
))
OFFSET_COMMIT_VALUE = Layout('OffsetCommitValue', versions='0-4', flexible='4+', fields=(
    F('offset', 'int64', '0+'),
    F('leaderEpoch', 'int32', '3+', default=-1),
    F('metadata', 'string', '0+'),
    F('commitTimestamp', 'int64', '0+'),
    F('expireTimestamp', 'int64', '1', default=-1),
    F('topicId', 'uuid', '4+', tagged='4+', tag=0),
))

# --- record type 2: GroupMetadata
GROUP_METADATA_KEY = Layout('GroupMetadataKey', versions='0', flexible=None, fields=(
    F('group', 'string', '0'),
))
GROUP_METADATA_VALUE = Layout('GroupMetadataValue', versions='0-4', flexible='4+', fields=(
    F('protocolType', 'string', '0+'),
    F('generation', 'int32', '0+'),
    F('protocol', 'string', '0+', nullable='0+'),
    F('leader', 'string', '0+', nullable='0+'),
    F('currentStateTimestamp', 'int64', '2+', default=-1),
    F('members', '[]struct', '0+', fields=(
        F('memberId', 'string', '0+'),
        F('groupInstanceId', 'string', '3+', nullable='3+', default=None),
        F('clientId', 'string', '0+'),
        F('clientHost', 'string', '0+'),
        F('rebalanceTimeout', 'int32', '1+', default=-1),
        F('sessionTimeout', 'int32', '0+'),
        F('subscription', 'bytes', '0+'),
        F('assignment', 'bytes', '0+'),
    )),
))

# --- record type 3: ConsumerGroupMetadata
CONSUMER_GROUP_METADATA_KEY = Layout('ConsumerGroupMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
CONSUMER_GROUP_METADATA_VALUE = Layout('ConsumerGroupMetadataValue', versions='0', flexible='0+', fields=(
    F('epoch', 'int32', '0+'),
    F('metadataHash', 'int64', '0+', tagged='0+', tag=0, default=0),
))

# --- record type 4: ConsumerGroupPartitionMetadata
CONSUMER_GROUP_PARTITION_METADATA_KEY = Layout('ConsumerGroupPartitionMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
CONSUMER_GROUP_PARTITION_METADATA_VALUE = Layout('ConsumerGroupPartitionMetadataValue', versions='0', flexible='0+', fields=(
    F('topics', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('topicName', 'string', '0+'),
        F('numPartitions', 'int32', '0+'),
        F('partitionMetadata', '[]struct', '0+', fields=(
            F('partition', 'int32', '0+'),
            F('racks', '[]string', '0+'),
        )),
    )),
))

# --- record type 5: ConsumerGroupMemberMetadata
CONSUMER_GROUP_MEMBER_METADATA_KEY = Layout('ConsumerGroupMemberMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
CONSUMER_GROUP_MEMBER_METADATA_VALUE = Layout('ConsumerGroupMemberMetadataValue', versions='0', flexible='0+', fields=(
    F('instanceId', 'string', '0+', nullable='0+'),
    F('rackId', 'string', '0+', nullable='0+'),
    F('clientId', 'string', '0+'),
    F('clientHost', 'string', '0+'),
    F('subscribedTopicNames', '[]string', '0+'),
    F('subscribedTopicRegex', 'string', '0+', nullable='0+'),
    F('rebalanceTimeoutMs', 'int32', '0+', default=-1),
    F('serverAssignor', 'string', '0+', nullable='0+'),
    F('classicMemberMetadata', 'struct', '0+', nullable='0+', tagged='0+', tag=0, fields=(
        F('sessionTimeoutMs', 'int32', '0+'),
        F('supportedProtocols', '[]struct', '0+', fields=(
            F('name', 'string', '0+'),
            F('metadata', 'bytes', '0+'),
        )),
    )),
))

# --- record type 6: ConsumerGroupTargetAssignmentMetadata
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_KEY = Layout('ConsumerGroupTargetAssignmentMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = Layout('ConsumerGroupTargetAssignmentMetadataValue', versions='0', flexible='0+', fields=(
    F('assignmentEpoch', 'int32', '0+'),
    F('assignmentTimestamp', 'int64', '0+', tagged='0+', tag=0, default=0),
))

# --- record type 7: ConsumerGroupTargetAssignmentMember
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY = Layout('ConsumerGroupTargetAssignmentMemberKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = Layout('ConsumerGroupTargetAssignmentMemberValue', versions='0', flexible='0+', fields=(
    F('topicPartitions', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
))

# --- record type 8: ConsumerGroupCurrentMemberAssignment
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY = Layout('ConsumerGroupCurrentMemberAssignmentKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = Layout('ConsumerGroupCurrentMemberAssignmentValue', versions='0', flexible='0+', fields=(
    F('memberEpoch', 'int32', '0+'),
    F('previousMemberEpoch', 'int32', '0+'),
    F('state', 'int8', '0+'),
    F('assignedPartitions', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
    F('partitionsPendingRevocation', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
))

# --- record type 10: ShareGroupMemberMetadata
SHARE_GROUP_MEMBER_METADATA_KEY = Layout('ShareGroupMemberMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
SHARE_GROUP_MEMBER_METADATA_VALUE = Layout('ShareGroupMemberMetadataValue', versions='0', flexible='0+', fields=(
    F('rackId', 'string', '0+', nullable='0+'),
    F('clientId', 'string', '0+'),
    F('clientHost', 'string', '0+'),
    F('subscribedTopicNames', '[]string', '0+'),
))

# --- record type 11: ShareGroupMetadata
SHARE_GROUP_METADATA_KEY = Layout('ShareGroupMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
SHARE_GROUP_METADATA_VALUE = Layout('ShareGroupMetadataValue', versions='0', flexible='0+', fields=(
    F('epoch', 'int32', '0+'),
    F('metadataHash', 'int64', '0+'),
))

# --- record type 12: ShareGroupTargetAssignmentMetadata
SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_KEY = Layout('ShareGroupTargetAssignmentMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = Layout('ShareGroupTargetAssignmentMetadataValue', versions='0', flexible='0+', fields=(
    F('assignmentEpoch', 'int32', '0+'),
    F('assignmentTimestamp', 'int64', '0+', tagged='0+', tag=0, default=0),
))

# --- record type 13: ShareGroupTargetAssignmentMember
SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY = Layout('ShareGroupTargetAssignmentMemberKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = Layout('ShareGroupTargetAssignmentMemberValue', versions='0', flexible='0+', fields=(
    F('topicPartitions', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
))

# --- record type 14: ShareGroupCurrentMemberAssignment
SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY = Layout('ShareGroupCurrentMemberAssignmentKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = Layout('ShareGroupCurrentMemberAssignmentValue', versions='0', flexible='0+', fields=(
    F('memberEpoch', 'int32', '0+'),
    F('previousMemberEpoch', 'int32', '0+'),
    F('state', 'int8', '0+'),
    F('assignedPartitions', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
))

# --- record type 15: ShareGroupStatePartitionMetadata
SHARE_GROUP_STATE_PARTITION_METADATA_KEY = Layout('ShareGroupStatePartitionMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
SHARE_GROUP_STATE_PARTITION_METADATA_VALUE = Layout('ShareGroupStatePartitionMetadataValue', versions='0', flexible='0+', fields=(
    F('initializingTopics', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('topicName', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
    F('initializedTopics', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('topicName', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
    F('deletingTopics', '[]struct', '0+', fields=(
        F('topicId', 'uuid', '0+'),
        F('topicName', 'string', '0+'),
    )),
))

# --- record type 16: ConsumerGroupRegularExpression
CONSUMER_GROUP_REGULAR_EXPRESSION_KEY = Layout('ConsumerGroupRegularExpressionKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('regularExpression', 'string', '0'),
))
CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE = Layout('ConsumerGroupRegularExpressionValue', versions='0', flexible='0+', fields=(
    F('topics', '[]string', '0+'),
    F('version', 'int64', '0+'),
    F('timestamp', 'int64', '0+'),
))

# --- record type 17: StreamsGroupMetadata
STREAMS_GROUP_METADATA_KEY = Layout('StreamsGroupMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
STREAMS_GROUP_METADATA_VALUE = Layout('StreamsGroupMetadataValue', versions='0', flexible='0+', fields=(
    F('epoch', 'int32', '0+'),
    F('metadataHash', 'int64', '0+'),
    F('validatedTopologyEpoch', 'int32', '0+', tagged='0+', tag=0, default=-1),
    F('lastAssignmentConfigs', '[]struct', '0+', nullable='0+', tagged='0+', tag=1, fields=(
        F('key', 'string', '0+'),
        F('value', 'string', '0+'),
    )),
))

# --- record type 19: StreamsGroupMemberMetadata
STREAMS_GROUP_MEMBER_METADATA_KEY = Layout('StreamsGroupMemberMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
STREAMS_GROUP_MEMBER_METADATA_VALUE = Layout('StreamsGroupMemberMetadataValue', versions='0', flexible='0+', fields=(
    F('instanceId', 'string', '0+', nullable='0+'),
    F('rackId', 'string', '0+', nullable='0+'),
    F('clientId', 'string', '0+'),
    F('clientHost', 'string', '0+'),
    F('rebalanceTimeoutMs', 'int32', '0+', default=-1),
    F('topologyEpoch', 'int32', '0+'),
    F('processId', 'string', '0+'),
    F('userEndpoint', 'struct', '0+', nullable='0+', default=None, fields=(
        F('host', 'string', '0+'),
        F('port', 'uint16', '0+'),
    )),
    F('clientTags', '[]struct', '0+', fields=(
        F('key', 'string', '0+'),
        F('value', 'string', '0+'),
    )),
))

# --- record type 20: StreamsGroupTargetAssignmentMetadata
STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_KEY = Layout('StreamsGroupTargetAssignmentMetadataKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = Layout('StreamsGroupTargetAssignmentMetadataValue', versions='0', flexible='0+', fields=(
    F('assignmentEpoch', 'int32', '0+'),
    F('assignmentTimestamp', 'int64', '0+', tagged='0+', tag=0, default=0),
))

# --- record type 21: StreamsGroupTargetAssignmentMember
STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY = Layout('StreamsGroupTargetAssignmentMemberKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = Layout('StreamsGroupTargetAssignmentMemberValue', versions='0', flexible='0+', fields=(
    F('activeTasks', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
    F('standbyTasks', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
    F('warmupTasks', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
))

# --- record type 22: StreamsGroupCurrentMemberAssignment
STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY = Layout('StreamsGroupCurrentMemberAssignmentKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('memberId', 'string', '0'),
))
STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = Layout('StreamsGroupCurrentMemberAssignmentValue', versions='0', flexible='0+', fields=(
    F('memberEpoch', 'int32', '0+'),
    F('previousMemberEpoch', 'int32', '0+'),
    F('state', 'int8', '0+'),
    F('activeTasks', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
    F('standbyTasks', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
    F('warmupTasks', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
    F('activeTasksPendingRevocation', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
    F('standbyTasksPendingRevocation', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
    F('warmupTasksPendingRevocation', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
        F('assignmentEpochs', '[]int32', '0+', nullable='0+', tagged='0+', tag=0),
    )),
))

# --- record type 23: StreamsGroupTopology
STREAMS_GROUP_TOPOLOGY_KEY = Layout('StreamsGroupTopologyKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
))
STREAMS_GROUP_TOPOLOGY_VALUE = Layout('StreamsGroupTopologyValue', versions='0', flexible='0+', fields=(
    F('epoch', 'int32', '0+'),
    F('subtopologies', '[]struct', '0+', fields=(
        F('subtopologyId', 'string', '0+'),
        F('sourceTopics', '[]string', '0+'),
        F('sourceTopicRegex', '[]string', '0+'),
        F('stateChangelogTopics', '[]struct', '0+', fields=(
            F('name', 'string', '0+'),
            F('partitions', 'int32', '0+'),
            F('replicationFactor', 'int16', '0+'),
            F('topicConfigs', '[]struct', '0+', fields=(
                F('key', 'string', '0+'),
                F('value', 'string', '0+'),
            )),
        )),
        F('repartitionSinkTopics', '[]string', '0+'),
        F('repartitionSourceTopics', '[]struct', '0+', fields=(
            F('name', 'string', '0+'),
            F('partitions', 'int32', '0+'),
            F('replicationFactor', 'int16', '0+'),
            F('topicConfigs', '[]struct', '0+', fields=(
                F('key', 'string', '0+'),
                F('value', 'string', '0+'),
            )),
        )),
        F('copartitionGroups', '[]struct', '0+', fields=(
            F('sourceTopics', '[]int16', '0+'),
            F('sourceTopicRegex', '[]int16', '0+'),
            F('repartitionSourceTopics', '[]int16', '0+'),
        )),
    )),
))

# --- ConsumerProtocol (kafka-clients), inside classic group members
CONSUMER_PROTOCOL_SUBSCRIPTION = Layout('ConsumerProtocolSubscription', versions='0-3', flexible=None, fields=(
    F('topics', '[]string', '0+'),
    F('userData', 'bytes', '0+', nullable='0+', default=None),
    F('ownedPartitions', '[]struct', '1+', fields=(
        F('topic', 'string', '1+'),
        F('partitions', '[]int32', '1+'),
    )),
    F('generationId', 'int32', '2+', default=-1),
    F('rackId', 'string', '3+', nullable='3+', default=None),
))

# --- ConsumerProtocol (kafka-clients), inside classic group members
CONSUMER_PROTOCOL_ASSIGNMENT = Layout('ConsumerProtocolAssignment', versions='0-3', flexible=None, fields=(
    F('assignedPartitions', '[]struct', '0+', fields=(
        F('topic', 'string', '0+'),
        F('partitions', '[]int32', '0+'),
    )),
    F('userData', 'bytes', '0+', nullable='0+', default=None),
))

RECORD_TYPES = {
    0: RecordType(0, 'LegacyOffsetCommit', LEGACY_OFFSET_COMMIT_KEY, LEGACY_OFFSET_COMMIT_VALUE),
    1: RecordType(1, 'OffsetCommit', OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE),
    2: RecordType(2, 'GroupMetadata', GROUP_METADATA_KEY, GROUP_METADATA_VALUE),
    3: RecordType(3, 'ConsumerGroupMetadata', CONSUMER_GROUP_METADATA_KEY, CONSUMER_GROUP_METADATA_VALUE),
    4: RecordType(4, 'ConsumerGroupPartitionMetadata', CONSUMER_GROUP_PARTITION_METADATA_KEY, CONSUMER_GROUP_PARTITION_METADATA_VALUE),
    5: RecordType(5, 'ConsumerGroupMemberMetadata', CONSUMER_GROUP_MEMBER_METADATA_KEY, CONSUMER_GROUP_MEMBER_METADATA_VALUE),
    6: RecordType(6, 'ConsumerGroupTargetAssignmentMetadata', CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
    7: RecordType(7, 'ConsumerGroupTargetAssignmentMember', CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY, CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
    8: RecordType(8, 'ConsumerGroupCurrentMemberAssignment', CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
    10: RecordType(10, 'ShareGroupMemberMetadata', SHARE_GROUP_MEMBER_METADATA_KEY, SHARE_GROUP_MEMBER_METADATA_VALUE),
    11: RecordType(11, 'ShareGroupMetadata', SHARE_GROUP_METADATA_KEY, SHARE_GROUP_METADATA_VALUE),
    12: RecordType(12, 'ShareGroupTargetAssignmentMetadata', SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
    13: RecordType(13, 'ShareGroupTargetAssignmentMember', SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY, SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
    14: RecordType(14, 'ShareGroupCurrentMemberAssignment', SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
    15: RecordType(15, 'ShareGroupStatePartitionMetadata', SHARE_GROUP_STATE_PARTITION_METADATA_KEY, SHARE_GROUP_STATE_PARTITION_METADATA_VALUE),
    16: RecordType(16, 'ConsumerGroupRegularExpression', CONSUMER_GROUP_REGULAR_EXPRESSION_KEY, CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE),
    17: RecordType(17, 'StreamsGroupMetadata', STREAMS_GROUP_METADATA_KEY, STREAMS_GROUP_METADATA_VALUE),
    19: RecordType(19, 'StreamsGroupMemberMetadata', STREAMS_GROUP_MEMBER_METADATA_KEY, STREAMS_GROUP_MEMBER_METADATA_VALUE),
    20: RecordType(20, 'StreamsGroupTargetAssignmentMetadata', STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_KEY, STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
    21: RecordType(21, 'StreamsGroupTargetAssignmentMember', STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_KEY, STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
    22: RecordType(22, 'StreamsGroupCurrentMemberAssignment', STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_KEY, STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
    23: RecordType(23, 'StreamsGroupTopology', STREAMS_GROUP_TOPOLOGY_KEY, STREAMS_GROUP_TOPOLOGY_VALUE),
}

# --- __share_group_state: the share coordinator's records (Kafka 4.3.0's share-coordinator
# ShareSnapshotKey/Value and ShareUpdateKey/Value specs). Their record types 0 and 1 are numbers of
# their own topic, not of __consumer_offsets: a table of their own.
_STATE_BATCH = (
    F('firstOffset', 'int64', '0+'),
    F('lastOffset', 'int64', '0+'),
    F('deliveryState', 'int8', '0+'),  # 0 available, 2 acknowledged, 4 archived
    F('deliveryCount', 'int16', '0+'),
)

# --- share-state record type 0: ShareSnapshot (a share partition's whole state)
SHARE_SNAPSHOT_KEY = Layout('ShareSnapshotKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('topicId', 'uuid', '0'),
    F('partition', 'int32', '0'),
))
SHARE_SNAPSHOT_VALUE = Layout('ShareSnapshotValue', versions='0', flexible='0+', fields=(
    F('snapshotEpoch', 'int32', '0+'),
    F('stateEpoch', 'int32', '0+'),
    F('leaderEpoch', 'int32', '0+'),
    F('startOffset', 'int64', '0+'),
    F('deliveryCompleteCount', 'int32', '0+', tagged='0+', tag=0, default=-1),  # since Kafka 4.2 (KIP-1226)
    F('createTimestamp', 'int64', '0+'),
    F('writeTimestamp', 'int64', '0+'),
    F('stateBatches', '[]struct', '0+', fields=_STATE_BATCH),
))

# --- share-state record type 1: ShareUpdate (the batches changed since the snapshot)
SHARE_UPDATE_KEY = Layout('ShareUpdateKey', versions='0', flexible=None, fields=(
    F('groupId', 'string', '0'),
    F('topicId', 'uuid', '0'),
    F('partition', 'int32', '0'),
))
SHARE_UPDATE_VALUE = Layout('ShareUpdateValue', versions='0', flexible='0+', fields=(
    F('snapshotEpoch', 'int32', '0+'),
    F('leaderEpoch', 'int32', '0+'),
    F('startOffset', 'int64', '0+'),  # -1: not changed
    F('deliveryCompleteCount', 'int32', '0+', tagged='0+', tag=0, default=-1),
    F('stateBatches', '[]struct', '0+', fields=_STATE_BATCH),
))

SHARE_STATE_RECORD_TYPES = {
    0: RecordType(0, 'ShareSnapshot', SHARE_SNAPSHOT_KEY, SHARE_SNAPSHOT_VALUE),
    1: RecordType(1, 'ShareUpdate', SHARE_UPDATE_KEY, SHARE_UPDATE_VALUE),
}
