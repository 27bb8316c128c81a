import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListGroupsResult;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;

/**
 * Kafka's own Java Admin client (kafka-clients) asked about groups, for the tests that hold kgroup's
 * answers to it on the same cluster (the protocol test double, tests/protodouble.py, or Tansu).
 *
 * Usage: AdminGroupsProbe BOOTSTRAP TIMEOUT_MS COMMAND [ARG...]
 *
 * Prints one JSON document on stdout. Commands:
 *
 *   listGroups [TYPE...]   Admin.listGroups, with ListGroupsOptions.withTypes(TYPE...) when types are
 *                          given (classic, consumer, share, streams): {"listings": [{"groupId",
 *                          "type" (null when the broker said none), "protocolType", "state" (null
 *                          when none)}, ...] sorted by group id, "errors": [{"class", "message"}]}
 *                          (valid() and errors() of the result, so a partial answer shows both).
 *
 *   describeShareGroups GROUP...   Admin.describeShareGroups: {"groups": {GROUP: {"groupId", "state",
 *                          "groupEpoch", "assignmentEpoch", "coordinator": {"id", "host", "port"},
 *                          "members": [{"memberId", "rack" (null: none), "clientId", "host",
 *                          "memberEpoch", "assignment": {TOPIC: [partitions ascending]}}] (by
 *                          member id)} or {"error": {"class", "message"}}}}.
 *
 *   listShareGroupOffsets GROUP...  Admin.listShareGroupOffsets (every partition of each group):
 *                          {"groups": {GROUP: {"partitions": [{"topic", "partition", "startOffset",
 *                          "leaderEpoch", "lag"} (each null when Admin's value is absent; all
 *                          null where Admin maps the partition to null)] (by topic, partition)}
 *                          or {"error": {...}}}}.
 *
 *   describeStreamsGroups GROUP...  Admin.describeStreamsGroups: {"groups": {GROUP: {"groupId", "state",
 *                          "groupEpoch", "assignmentEpoch", "topologyEpoch", "coordinator", "subtopologies":
 *                          [{"subtopologyId", "sourceTopics", "repartitionSinkTopics" (sorted),
 *                          "repartitionSourceTopics", "stateChangelogTopics": {TOPIC: partitions}}] (by id),
 *                          "members": [{"memberId", "memberEpoch", "instanceId", "rackId", "clientId",
 *                          "clientHost", "processId", "userEndpoint" ("host:port" or null), "clientTags",
 *                          "assignment", "targetAssignment": {"active"|"standby"|"warmup": {SUBTOPOLOGY:
 *                          [partitions ascending]}}}] (by member id)} or {"error": {...}}}}.
 *
 *   listStreamsGroupOffsets GROUP...  Admin.listStreamsGroupOffsets (every committed partition):
 *                          {"groups": {GROUP: {"partitions": [{"topic", "partition", "offset" (null
 *                          where Admin maps the partition to null), "leaderEpoch"}] (by topic,
 *                          partition)} or {"error": {...}}}}.
 *
 *   describeGroupConfigs GROUP...  Admin.describeConfigs of ConfigResource(GROUP, GROUP): {"groups": {GROUP:
 *                          {"configs": {NAME: {"value", "source" (ConfigEntry.ConfigSource's name)}}} or
 *                          {"error": {...}}}}.
 *
 * Add a command (describeShareGroups, listShareGroupOffsets, describeStreamsGroups,
 * listStreamsGroupOffsets, ...) as one more entry of COMMANDS: a method taking (Admin, timeout ms,
 * args) and returning the JSON to print. A failure of a whole call is printed as
 * {"error": {"class", "message"}} (the cause of an ExecutionException), exit 0: the test compares.
 */
public final class AdminGroupsProbe {
    static final ObjectMapper MAPPER = new ObjectMapper();

    interface Command {
        JsonNode run(Admin admin, int timeoutMs, List<String> args) throws Exception;
    }

    static final Map<String, Command> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("listGroups", AdminGroupsProbe::listGroups);
        COMMANDS.put("describeShareGroups", AdminGroupsProbe::describeShareGroups);
        COMMANDS.put("listShareGroupOffsets", AdminGroupsProbe::listShareGroupOffsets);
        COMMANDS.put("describeStreamsGroups", AdminGroupsProbe::describeStreamsGroups);
        COMMANDS.put("listStreamsGroupOffsets", AdminGroupsProbe::listStreamsGroupOffsets);
        COMMANDS.put("describeGroupConfigs", AdminGroupsProbe::describeGroupConfigs);
    }

    static ObjectNode error(Throwable t) {
        ObjectNode e = MAPPER.createObjectNode();
        e.put("class", t.getClass().getSimpleName());
        e.put("message", t.getMessage());
        return e;
    }

    static JsonNode listGroups(Admin admin, int timeoutMs, List<String> args) throws Exception {
        ListGroupsOptions options = new ListGroupsOptions().timeoutMs(timeoutMs);
        if (!args.isEmpty()) {
            Set<GroupType> types = new HashSet<>();
            for (String a : args) types.add(GroupType.parse(a));
            options = options.withTypes(types);
        }
        ListGroupsResult result = admin.listGroups(options);
        List<GroupListing> listings = new ArrayList<>(result.valid().get(timeoutMs + 5000L, TimeUnit.MILLISECONDS));
        listings.sort(Comparator.comparing(GroupListing::groupId));
        ObjectNode out = MAPPER.createObjectNode();
        ArrayNode rows = out.putArray("listings");
        for (GroupListing g : listings) {
            ObjectNode row = rows.addObject();
            row.put("groupId", g.groupId());
            row.put("type", g.type().map(GroupType::toString).orElse(null));
            row.put("protocolType", g.protocol());
            row.put("state", g.groupState().map(Object::toString).orElse(null));
        }
        ArrayNode errors = out.putArray("errors");
        for (Throwable t : result.errors().get(timeoutMs + 5000L, TimeUnit.MILLISECONDS)) errors.add(error(t));
        return out;
    }

    interface GroupWriter<T> {
        void write(ObjectNode group, T value) throws Exception;
    }

    /** {"groups": {GROUP: what ``write`` puts for the group's answer, or {"error": {"class",
     * "message"}} where its future failed}}, the groups in ``futures``' order. */
    static <T> JsonNode perGroup(Map<String, KafkaFuture<T>> futures, int timeoutMs, GroupWriter<T> write)
            throws Exception {
        ObjectNode out = MAPPER.createObjectNode();
        ObjectNode groups = out.putObject("groups");
        for (var e : futures.entrySet()) {
            ObjectNode g = groups.putObject(e.getKey());
            T value;
            try {
                value = e.getValue().get(timeoutMs + 5000L, TimeUnit.MILLISECONDS);
            } catch (ExecutionException ex) {
                g.set("error", error(cause(ex)));
                continue;
            }
            write.write(g, value);
        }
        return out;
    }

    static Throwable cause(Throwable t) {
        return t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
    }

    static JsonNode describeShareGroups(Admin admin, int timeoutMs, List<String> args) throws Exception {
        var result = admin.describeShareGroups(args,
            new org.apache.kafka.clients.admin.DescribeShareGroupsOptions().timeoutMs(timeoutMs));
        return perGroup(result.describedGroups(), timeoutMs, (g, d) -> {
        g.put("groupId", d.groupId());
        g.put("state", d.groupState().toString());
        g.put("groupEpoch", d.groupEpoch());
        g.put("assignmentEpoch", d.targetAssignmentEpoch());
        ObjectNode c = g.putObject("coordinator");
        c.put("id", d.coordinator().id());
        c.put("host", d.coordinator().host());
        c.put("port", d.coordinator().port());
        ArrayNode members = g.putArray("members");
        List<org.apache.kafka.clients.admin.ShareMemberDescription> sorted = new ArrayList<>(d.members());
        sorted.sort(Comparator.comparing(org.apache.kafka.clients.admin.ShareMemberDescription::consumerId));
        for (var m : sorted) {
            ObjectNode mo = members.addObject();
            mo.put("memberId", m.consumerId());
            mo.put("rack", m.rackId().orElse(null));
            mo.put("clientId", m.clientId());
            mo.put("host", m.host());
            mo.put("memberEpoch", m.memberEpoch());
            java.util.TreeMap<String, java.util.TreeSet<Integer>> byTopic = new java.util.TreeMap<>();
            for (var tp : m.assignment().topicPartitions())
                byTopic.computeIfAbsent(tp.topic(), t -> new java.util.TreeSet<>()).add(tp.partition());
            ObjectNode a = mo.putObject("assignment");
            for (var t : byTopic.entrySet()) {
                ArrayNode ps = a.putArray(t.getKey());
                for (int p : t.getValue()) ps.add(p);
            }
        }
        });
    }

    static ObjectNode tasks(org.apache.kafka.clients.admin.StreamsGroupMemberAssignment a) {
        ObjectNode out = MAPPER.createObjectNode();
        String[] kinds = {"active", "standby", "warmup"};
        List<List<org.apache.kafka.clients.admin.StreamsGroupMemberAssignment.TaskIds>> lists =
            List.of(a.activeTasks(), a.standbyTasks(), a.warmupTasks());
        for (int i = 0; i < kinds.length; i++) {
            java.util.TreeMap<String, java.util.TreeSet<Integer>> bySub = new java.util.TreeMap<>();
            for (var t : lists.get(i)) bySub.computeIfAbsent(t.subtopologyId(), s -> new java.util.TreeSet<>()).addAll(t.partitions());
            ObjectNode k = out.putObject(kinds[i]);
            for (var e : bySub.entrySet()) {
                ArrayNode ps = k.putArray(e.getKey());
                for (int p : e.getValue()) ps.add(p);
            }
        }
        return out;
    }

    static ObjectNode topicPartitions(Map<String, org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription.TopicInfo> topics) {
        ObjectNode out = MAPPER.createObjectNode();
        for (var e : new java.util.TreeMap<>(topics).entrySet()) out.put(e.getKey(), e.getValue().partitions());
        return out;
    }

    static JsonNode describeStreamsGroups(Admin admin, int timeoutMs, List<String> args) throws Exception {
        var result = admin.describeStreamsGroups(args,
            new org.apache.kafka.clients.admin.DescribeStreamsGroupsOptions().timeoutMs(timeoutMs));
        return perGroup(result.describedGroups(), timeoutMs, (g, d) -> {
        g.put("groupId", d.groupId());
        g.put("state", d.groupState().toString());
        g.put("groupEpoch", d.groupEpoch());
        g.put("assignmentEpoch", d.targetAssignmentEpoch());
        g.put("topologyEpoch", d.topologyEpoch());
        ObjectNode c = g.putObject("coordinator");
        c.put("id", d.coordinator().id());
        c.put("host", d.coordinator().host());
        c.put("port", d.coordinator().port());
        ArrayNode subs = g.putArray("subtopologies");
        List<org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription> sortedSubs = new ArrayList<>(d.subtopologies());
        sortedSubs.sort(Comparator.comparing(org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription::subtopologyId));
        for (var s : sortedSubs) {
            ObjectNode so = subs.addObject();
            so.put("subtopologyId", s.subtopologyId());
            ArrayNode src = so.putArray("sourceTopics");
            new java.util.TreeSet<>(s.sourceTopics()).forEach(src::add);
            ArrayNode sink = so.putArray("repartitionSinkTopics");
            new java.util.TreeSet<>(s.repartitionSinkTopics()).forEach(sink::add);
            so.set("repartitionSourceTopics", topicPartitions(s.repartitionSourceTopics()));
            so.set("stateChangelogTopics", topicPartitions(s.stateChangelogTopics()));
        }
        ArrayNode members = g.putArray("members");
        List<org.apache.kafka.clients.admin.StreamsGroupMemberDescription> sorted = new ArrayList<>(d.members());
        sorted.sort(Comparator.comparing(org.apache.kafka.clients.admin.StreamsGroupMemberDescription::memberId));
        for (var m : sorted) {
            ObjectNode mo = members.addObject();
            mo.put("memberId", m.memberId());
            mo.put("memberEpoch", m.memberEpoch());
            mo.put("instanceId", m.instanceId().orElse(null));
            mo.put("rackId", m.rackId().orElse(null));
            mo.put("clientId", m.clientId());
            mo.put("clientHost", m.clientHost());
            mo.put("processId", m.processId());
            mo.put("userEndpoint", m.userEndpoint().map(ep -> ep.host() + ":" + ep.port()).orElse(null));
            ObjectNode tags = mo.putObject("clientTags");
            new java.util.TreeMap<>(m.clientTags()).forEach(tags::put);
            mo.set("assignment", tasks(m.assignment()));
            mo.set("targetAssignment", tasks(m.targetAssignment()));
        }
        });
    }

    /** One row per partition of ``found`` (by topic, then partition) under g's "partitions", each
     * filled by ``fill`` with the partition's value (null where Admin maps it to null). */
    static <V> void partitionRows(ObjectNode g, Map<org.apache.kafka.common.TopicPartition, V> found,
                                  java.util.function.BiConsumer<ObjectNode, V> fill) {
        List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>(found.keySet());
        tps.sort(Comparator.comparing(org.apache.kafka.common.TopicPartition::topic)
            .thenComparingInt(org.apache.kafka.common.TopicPartition::partition));
        ArrayNode rows = g.putArray("partitions");
        for (var tp : tps) {
            ObjectNode r = rows.addObject();
            r.put("topic", tp.topic());
            r.put("partition", tp.partition());
            fill.accept(r, found.get(tp));
        }
    }

    static JsonNode listStreamsGroupOffsets(Admin admin, int timeoutMs, List<String> args) throws Exception {
        Map<String, org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec> specs = new LinkedHashMap<>();
        for (String g : args) specs.put(g, new org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec());
        var result = admin.listStreamsGroupOffsets(specs,
            new org.apache.kafka.clients.admin.ListStreamsGroupOffsetsOptions().timeoutMs(timeoutMs));
        Map<String, KafkaFuture<Map<org.apache.kafka.common.TopicPartition,
            org.apache.kafka.clients.consumer.OffsetAndMetadata>>> futures = new LinkedHashMap<>();
        for (String gid : args) futures.put(gid, result.partitionsToOffsetAndMetadata(gid));
        return perGroup(futures, timeoutMs, (g, found) -> partitionRows(g, found, (r, o) -> {
            if (o == null) {
                r.putNull("offset");
                r.putNull("leaderEpoch");
            } else {
                r.put("offset", o.offset());
                r.put("leaderEpoch", o.leaderEpoch().orElse(null));
            }
        }));
    }

    static JsonNode listShareGroupOffsets(Admin admin, int timeoutMs, List<String> args) throws Exception {
        Map<String, org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec> specs = new LinkedHashMap<>();
        for (String g : args) specs.put(g, new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec());
        var result = admin.listShareGroupOffsets(specs,
            new org.apache.kafka.clients.admin.ListShareGroupOffsetsOptions().timeoutMs(timeoutMs));
        Map<String, KafkaFuture<Map<org.apache.kafka.common.TopicPartition,
            org.apache.kafka.clients.admin.SharePartitionOffsetInfo>>> futures = new LinkedHashMap<>();
        for (String gid : args) futures.put(gid, result.partitionsToOffsetInfo(gid));
        return perGroup(futures, timeoutMs, (g, found) -> partitionRows(g, found, (r, info) -> {
            if (info == null) {
                r.putNull("startOffset");
                r.putNull("leaderEpoch");
                r.putNull("lag");
            } else {
                r.put("startOffset", info.startOffset());
                r.put("leaderEpoch", info.leaderEpoch().orElse(null));
                r.put("lag", info.lag().orElse(null));
            }
        }));
    }

    static JsonNode describeGroupConfigs(Admin admin, int timeoutMs, List<String> args) throws Exception {
        List<org.apache.kafka.common.config.ConfigResource> resources = new ArrayList<>();
        for (String g : args) {
            resources.add(new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.GROUP, g));
        }
        var result = admin.describeConfigs(resources,
            new org.apache.kafka.clients.admin.DescribeConfigsOptions().timeoutMs(timeoutMs));
        Map<String, KafkaFuture<org.apache.kafka.clients.admin.Config>> futures = new LinkedHashMap<>();
        result.values().forEach((resource, future) -> futures.put(resource.name(), future));
        return perGroup(futures, timeoutMs, (g, config) -> {
            ObjectNode configs = g.putObject("configs");
            for (var entry : config.entries()) {
                ObjectNode c = configs.putObject(entry.name());
                c.put("value", entry.value());
                c.put("source", entry.source().name());
            }
        });
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        int timeoutMs = Integer.parseInt(args[1]);
        props.put("default.api.timeout.ms", Integer.toString(timeoutMs));
        props.put("request.timeout.ms", Integer.toString(Math.min(timeoutMs, 10_000)));
        Command command = COMMANDS.get(args[2]);
        if (command == null) throw new IllegalArgumentException("unknown command " + args[2] + "; known: " + COMMANDS.keySet());
        List<String> rest = List.of(args).subList(3, args.length);
        JsonNode out;
        try (Admin admin = Admin.create(props)) {
            try {
                out = command.run(admin, timeoutMs, rest);
            } catch (ExecutionException e) {
                out = MAPPER.createObjectNode().set("error", error(e.getCause()));
            }
        }
        System.out.println(MAPPER.writeValueAsString(out));
    }
}
