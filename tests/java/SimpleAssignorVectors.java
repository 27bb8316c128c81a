import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Test vectors for kgroup's port of Kafka's share-group SimpleAssignor
 * (kgroup/whatif/assignors/simple/): random scenarios and what Kafka's own classes return for them.
 *
 * Compiled against Kafka's sources (SimpleAssignor, its two builders and the coordinator classes
 * that feed it, taken from a Kafka git revision by scripts/gen_simple_vectors.py, never committed)
 * and the kafka-clients jar. The input is built as the group coordinator builds it after loading
 * the group from its records (TargetAssignmentBuilder.build and Assignment.fromRecord):
 * <ul>
 *   <li>the members in a {@code new HashMap<>()}, one {@code put} per member, in list order;</li>
 *   <li>a member's subscription: {@code new TopicIds(new HashSet<>(names), CachedTopicResolver)};</li>
 *   <li>its current target assignment: {@code Collectors.toMap(topicId, new HashSet<>(partitions))}
 *       over the record's list, wrapped in {@code Assignment};</li>
 *   <li>the subscription type by ModernGroup.subscriptionType's rule over subscribed names;</li>
 *   <li>the assignable (initialized) partitions as an Optional map, or empty: all assignable.</li>
 * </ul>
 * Output: one JSON document, {"meta": {...}, "scenarios": [...]}; each scenario holds the input and
 * either "result" (the members in the result map's iteration order, each with its topics and
 * partitions in Kafka's iteration order) or "error" (the class of what the assignor threw).
 *
 * Usage: java SimpleAssignorVectors SEED COUNT KAFKA_REVISION > vectors.json
 */
public final class SimpleAssignorVectors {

    private static final String B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    private SimpleAssignorVectors() {
    }

    /** One topic of the metadata image. */
    private record Topic(Uuid id, String name, int partitionCount) implements CoordinatorMetadataImage.TopicMetadata {
        @Override
        public List<String> partitionRacks(int partitionId) {
            return List.of();
        }
    }

    /** The metadata image: the topics that exist. */
    private static final class Image implements CoordinatorMetadataImage {
        private final Map<String, Topic> byName = new HashMap<>();
        private final Map<Uuid, Topic> byId = new HashMap<>();

        Image(List<Topic> topics) {
            for (Topic t : topics) {
                byName.put(t.name(), t);
                byId.put(t.id(), t);
            }
        }

        @Override
        public Set<Uuid> topicIds() {
            return Collections.unmodifiableSet(byId.keySet());
        }

        @Override
        public Set<String> topicNames() {
            return Collections.unmodifiableSet(byName.keySet());
        }

        @Override
        public Optional<TopicMetadata> topicMetadata(String topicName) {
            return Optional.ofNullable(byName.get(topicName));
        }

        @Override
        public Optional<TopicMetadata> topicMetadata(Uuid topicId) {
            return Optional.ofNullable(byId.get(topicId));
        }

        @Override
        public CoordinatorMetadataDelta emptyDelta() {
            return CoordinatorMetadataDelta.EMPTY;
        }

        @Override
        public long version() {
            return 1L;
        }

        @Override
        public boolean isEmpty() {
            return byId.isEmpty();
        }
    }

    /** A member as its records hold it: subscribed names (a list) and current target assignment (a list). */
    private record Member(String id, List<String> topics, List<Map.Entry<Uuid, List<Integer>>> current) {
    }

    private record Scenario(long seed, String kind, List<Topic> topics, List<Uuid> deleted,
                            Map<Uuid, List<Integer>> assignable, List<Member> members) {
    }

    // ------------------------------------------------------------------------------------
    // random input
    // ------------------------------------------------------------------------------------

    private static Uuid uuidWithHash(Random rnd, int hash) {
        // Uuid.hashCode() = (int) (x >> 32) ^ (int) x with x = msb ^ lsb: choose x's halves to give `hash`
        long msb = rnd.nextLong();
        int high = rnd.nextInt();
        int low = high ^ hash;
        long x = ((long) high << 32) | (low & 0xFFFFFFFFL);
        return new Uuid(msb, msb ^ x);
    }

    private static Uuid randomUuid(Random rnd, List<Uuid> taken, int collideWith) {
        while (true) {
            Uuid id;
            if (collideWith >= 0 && rnd.nextInt(3) == 0) {
                // same bucket as an earlier id in a table of 16 (sometimes of 64): the order inside a bucket shows
                int mask = rnd.nextBoolean() ? 15 : 63;
                int h = (rnd.nextInt() & ~mask) | (collideWith & mask);
                id = uuidWithHash(rnd, h);
            } else {
                id = new Uuid(rnd.nextLong(), rnd.nextLong());
            }
            if (!taken.contains(id) && !id.equals(Uuid.ZERO_UUID) && !id.equals(Uuid.METADATA_TOPIC_ID)
                && !id.equals(Uuid.ONE_UUID)) {
                return id;
            }
        }
    }

    private static String randomName(Random rnd, int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(B64.charAt(rnd.nextInt(B64.length())));
        }
        return sb.toString();
    }

    /** Strings with one hashCode: any mix of the blocks "Aa" and "BB" (equal hashes) behind a common prefix. */
    private static String collidingId(Random rnd, String prefix, int blocks) {
        StringBuilder sb = new StringBuilder(prefix);
        for (int i = 0; i < blocks; i++) {
            sb.append(rnd.nextBoolean() ? "Aa" : "BB");
        }
        return sb.toString();
    }

    private static List<String> memberIds(Random rnd, int count) {
        List<String> ids = new ArrayList<>();
        int style = rnd.nextInt(6);
        String prefix = randomName(rnd, 3);
        while (ids.size() < count) {
            String id;
            switch (style) {
                case 0, 1 -> id = randomName(rnd, 22); // as Kafka makes them: 22 characters of base64
                case 2 -> id = "consumer-" + rnd.nextInt(100);
                case 3 -> id = collidingId(rnd, prefix, 4); // all share one hash: one bucket, ever
                case 4 -> {
                    // mostly ordinary ids, some of them colliding
                    id = rnd.nextInt(3) == 0 ? collidingId(rnd, prefix, 3) : randomName(rnd, 1 + rnd.nextInt(8));
                }
                default -> {
                    // characters outside ASCII and outside the BMP: hashed over UTF-16 code units
                    String[] pieces = {"é", "ß", "\uD83D\uDE00", "m", "Ω", "-", "\u4E2D"};
                    StringBuilder sb = new StringBuilder();
                    int n = 1 + rnd.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        sb.append(pieces[rnd.nextInt(pieces.length)]);
                    }
                    id = sb.toString();
                }
            }
            if (!ids.contains(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    private static Scenario randomScenario(long seed) {
        Random rnd = new Random(seed);
        int numTopics = 1 + rnd.nextInt(6);
        List<Topic> topics = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < numTopics; i++) {
            Uuid id = randomUuid(rnd, ids, ids.isEmpty() ? -1 : ids.get(rnd.nextInt(ids.size())).hashCode());
            ids.add(id);
            String name;
            do {
                name = rnd.nextInt(4) == 0 ? randomName(rnd, 1 + rnd.nextInt(10)) : "topic-" + rnd.nextInt(40);
            } while (names.contains(name));
            names.add(name);
            int partitions = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(3) : 1 + rnd.nextInt(40);
            topics.add(new Topic(id, name, partitions));
        }
        // topics deleted since: their ids linger in current assignments
        List<Uuid> deleted = new ArrayList<>();
        int numDeleted = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(2) : 0;
        List<Uuid> taken = new ArrayList<>(ids);
        for (int i = 0; i < numDeleted; i++) {
            Uuid id = randomUuid(rnd, taken, -1);
            taken.add(id);
            deleted.add(id);
        }
        // names that no topic has (subscribed before the topic exists)
        List<String> ghostNames = new ArrayList<>();
        if (rnd.nextInt(5) == 0) {
            ghostNames.add("ghost-" + rnd.nextInt(10));
        }

        // assignable (initialized) partitions: absent means all
        Map<Uuid, List<Integer>> assignable = null;
        int assignableMode = rnd.nextInt(10);
        if (assignableMode >= 3) {
            assignable = new LinkedHashMap<>();
            for (Topic t : topics) {
                if (assignableMode == 9 && rnd.nextInt(3) == 0) {
                    continue; // topic not initialized at all
                }
                List<Integer> parts = new ArrayList<>();
                double keep = assignableMode >= 7 ? 0.6 + 0.4 * rnd.nextDouble() : 1.0;
                for (int p = 0; p < t.partitionCount(); p++) {
                    if (rnd.nextDouble() < keep) {
                        parts.add(p);
                    }
                }
                assignable.put(t.id(), parts);
            }
        }

        int numMembers = rnd.nextInt(10) == 0 ? 0 : 1 + rnd.nextInt(12);
        List<String> memberIds = memberIds(rnd, numMembers);
        boolean homogeneous = rnd.nextInt(5) < 2;
        List<String> pool = new ArrayList<>(names);
        pool.addAll(ghostNames);
        List<String> common = new ArrayList<>();
        for (String n : pool) {
            if (rnd.nextInt(4) != 0) {
                common.add(n);
            }
        }
        if (common.isEmpty() && rnd.nextInt(8) != 0) {
            common.add(pool.get(rnd.nextInt(pool.size())));
        }

        // current assignments: clean (each assignable partition to some subscribers), or with stale entries
        int currentMode = rnd.nextInt(4); // 0: none, 1: clean, 2-3: clean plus stale
        List<Member> members = new ArrayList<>();
        for (String memberId : memberIds) {
            List<String> subscribed;
            if (homogeneous) {
                subscribed = new ArrayList<>(common);
                if (rnd.nextBoolean()) {
                    Collections.shuffle(subscribed, rnd); // same names, another list order
                }
            } else {
                subscribed = new ArrayList<>();
                for (String n : pool) {
                    if (rnd.nextInt(3) != 0) {
                        subscribed.add(n);
                    }
                }
                if (rnd.nextInt(10) == 0) {
                    subscribed.clear();
                }
                Collections.shuffle(subscribed, rnd);
            }
            LinkedHashMap<Uuid, List<Integer>> current = new LinkedHashMap<>();
            if (currentMode > 0) {
                for (Topic t : topics) {
                    boolean subscribes = subscribed.contains(t.name());
                    if (!subscribes && !(currentMode >= 2 && rnd.nextInt(4) == 0)) {
                        continue;
                    }
                    double share = rnd.nextDouble() * 2.0 / Math.max(1, numMembers);
                    List<Integer> parts = new ArrayList<>();
                    for (int p = 0; p < t.partitionCount(); p++) {
                        if (rnd.nextDouble() < share) {
                            parts.add(p);
                        }
                    }
                    if (currentMode >= 2 && rnd.nextInt(4) == 0) {
                        parts.add(t.partitionCount() + rnd.nextInt(5)); // beyond the partition count (shrunk topic)
                    }
                    if (!parts.isEmpty() || rnd.nextInt(10) == 0) {
                        Collections.shuffle(parts, rnd);
                        current.put(t.id(), new ArrayList<>(new java.util.LinkedHashSet<>(parts)));
                    }
                }
                if (currentMode >= 2) {
                    for (Uuid id : deleted) {
                        if (rnd.nextBoolean()) {
                            List<Integer> parts = new ArrayList<>();
                            int n = 1 + rnd.nextInt(4);
                            for (int i = 0; i < n; i++) {
                                int p = rnd.nextInt(10);
                                if (!parts.contains(p)) {
                                    parts.add(p);
                                }
                            }
                            current.put(id, parts);
                        }
                    }
                }
            }
            List<Map.Entry<Uuid, List<Integer>>> entries = new ArrayList<>(current.entrySet());
            Collections.shuffle(entries, rnd);
            members.add(new Member(memberId, subscribed, entries));
        }
        if (!members.isEmpty() && rnd.nextInt(8) == 0) {
            Collections.shuffle(members, rnd);
        }
        String kind = (homogeneous ? "homogeneous" : "heterogeneous") + "/current-" + currentMode
            + "/assignable-" + (assignable == null ? "all" : String.valueOf(assignableMode));
        return new Scenario(seed, kind, topics, deleted, assignable, members);
    }

    // ------------------------------------------------------------------------------------
    // Kafka's answer
    // ------------------------------------------------------------------------------------

    /** ModernGroup.subscriptionType over the members' subscribed names. */
    private static SubscriptionType subscriptionType(List<Member> members) {
        Map<String, Integer> counts = new HashMap<>();
        for (Member m : members) {
            for (String name : new HashSet<>(m.topics())) {
                counts.merge(name, 1, Integer::sum);
            }
        }
        for (int count : counts.values()) {
            if (count != members.size()) {
                return SubscriptionType.HETEROGENEOUS;
            }
        }
        return SubscriptionType.HOMOGENEOUS;
    }

    private static GroupAssignment run(Scenario s) {
        Image image = new Image(s.topics());
        TopicIds.TopicResolver resolver = new TopicIds.CachedTopicResolver(image);
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        for (Member m : s.members()) {
            Map<Uuid, Set<Integer>> partitions = m.current().stream().collect(Collectors.toMap(
                Map.Entry::getKey, e -> new HashSet<>(e.getValue())));
            specs.put(m.id(), new MemberSubscriptionAndAssignmentImpl(
                Optional.empty(), Optional.empty(),
                new TopicIds(new HashSet<>(m.topics()), resolver),
                new Assignment(partitions)));
        }
        Optional<Map<Uuid, Set<Integer>>> assignable = s.assignable() == null
            ? Optional.empty()
            : Optional.of(s.assignable().entrySet().stream().collect(Collectors.toMap(
                Map.Entry::getKey, e -> new HashSet<>(e.getValue()))));
        GroupSpecImpl spec = new GroupSpecImpl(Collections.unmodifiableMap(specs), subscriptionType(s.members()),
            Map.of(), assignable);
        return new SimpleAssignor().assign(spec, new SubscribedTopicDescriberImpl(image));
    }

    // ------------------------------------------------------------------------------------
    // JSON
    // ------------------------------------------------------------------------------------

    private static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }

    private static void ints(StringBuilder sb, Iterable<Integer> values) {
        sb.append('[');
        boolean first = true;
        for (int v : values) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(v);
        }
        sb.append(']');
    }

    private static void topicMap(StringBuilder sb, Iterable<? extends Map.Entry<Uuid, ? extends Iterable<Integer>>> entries) {
        sb.append('[');
        boolean first = true;
        for (Map.Entry<Uuid, ? extends Iterable<Integer>> e : entries) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append('[');
            str(sb, e.getKey().toString());
            sb.append(',');
            ints(sb, e.getValue());
            sb.append(']');
        }
        sb.append(']');
    }

    private static String json(Scenario s, SubscriptionType type, GroupAssignment result, Throwable error) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"seed\":").append(s.seed()).append(",\"kind\":");
        str(sb, s.kind());
        sb.append(",\"subscription_type\":");
        str(sb, type.name());
        sb.append(",\"topics\":[");
        for (int i = 0; i < s.topics().size(); i++) {
            Topic t = s.topics().get(i);
            if (i > 0) {
                sb.append(',');
            }
            sb.append('[');
            str(sb, t.id().toString());
            sb.append(',');
            str(sb, t.name());
            sb.append(',').append(t.partitionCount()).append(']');
        }
        sb.append("],\"assignable\":");
        if (s.assignable() == null) {
            sb.append("null");
        } else {
            topicMap(sb, s.assignable().entrySet());
        }
        sb.append(",\"members\":[");
        for (int i = 0; i < s.members().size(); i++) {
            Member m = s.members().get(i);
            if (i > 0) {
                sb.append(',');
            }
            sb.append('[');
            str(sb, m.id());
            sb.append(",[");
            for (int j = 0; j < m.topics().size(); j++) {
                if (j > 0) {
                    sb.append(',');
                }
                str(sb, m.topics().get(j));
            }
            sb.append("],");
            topicMap(sb, m.current());
            sb.append(']');
        }
        sb.append(']');
        if (error != null) {
            sb.append(",\"error\":");
            str(sb, error.getClass().getName());
        } else {
            sb.append(",\"result\":[");
            boolean first = true;
            for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append('[');
                str(sb, e.getKey());
                sb.append(',');
                topicMap(sb, e.getValue().partitions().entrySet());
                sb.append(']');
            }
            sb.append(']');
        }
        sb.append('}');
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        long seed = Long.parseLong(args[0]);
        int count = Integer.parseInt(args[1]);
        String revision = args[2];
        Random seeds = new Random(seed);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        StringBuilder meta = new StringBuilder("{\"meta\":{\"generator\":\"tests/java/SimpleAssignorVectors.java\",");
        meta.append("\"kafka_revision\":");
        str(meta, revision);
        meta.append(",\"java_version\":");
        str(meta, System.getProperty("java.version"));
        meta.append(",\"seed\":").append(seed).append(",\"count\":").append(count).append("},\"scenarios\":[\n");
        out.write(meta.toString());
        for (int i = 0; i < count; i++) {
            Scenario s = randomScenario(seeds.nextLong());
            GroupAssignment result = null;
            Throwable error = null;
            try {
                result = run(s);
            } catch (RuntimeException e) {
                error = e;
            }
            out.write(json(s, subscriptionType(s.members()), result, error));
            out.write(i + 1 < count ? ",\n" : "\n");
        }
        out.write("]}\n");
        out.flush();
    }
}
