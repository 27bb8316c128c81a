import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * JVM baseline for bench/whatif_bench.py: runs Kafka's own client-side assignors
 * (kafka-clients) on a group described in a small line format, and prints the result.
 *
 * Usage: java -cp kafka-clients.jar:slf4j-api.jar:. AssignorBaseline INPUT STRATEGY
 * with STRATEGY one of range, roundrobin, sticky, cooperative-sticky, or all (the four
 * one after another in this one JVM, as `kgroup whatif --strategy all` runs them).
 *
 * INPUT, one record per line (names contain no blanks):
 *   topic NAME PARTITIONS
 *   member MEMBER_ID GENERATION TOPIC,TOPIC,... OWNED
 * where OWNED is "-" or TOPIC:P,P;TOPIC:P,... (the member's previous assignment).
 * Members are given in the order the group leader received them.
 *
 * Every member's Subscription is what a consumer of that strategy would send: eager
 * members revoke before joining and send no owned partitions; StickyAssignor and
 * CooperativeStickyAssignor userData come from a per-member assignor instance that
 * was told the previous assignment and generation through onAssignment. Each
 * subscription goes through the ConsumerProtocol wire format, as the leader sees it.
 *
 * Output on stdout, one line per member: "final MEMBER TOPIC:P,P;TOPIC:P" (an empty
 * assignment prints "-"). cooperative-sticky runs the follow-up rebalance too (every
 * member then owns its first-round partitions, one generation later) and also prints
 * the first round as "first MEMBER ..." lines. The time spent inside assign() goes to
 * stderr as "assign-seconds S". With STRATEGY all, every line's label is prefixed with
 * the strategy ("range/final MEMBER ...") and the time is that of the four together.
 */
public final class AssignorBaseline {

    private static final class Member {
        final String id;
        final int generation;
        final List<String> topics;
        final List<TopicPartition> owned;

        Member(String id, int generation, List<String> topics, List<TopicPartition> owned) {
            this.id = id;
            this.generation = generation;
            this.topics = topics;
            this.owned = owned;
        }
    }

    private AssignorBaseline() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: AssignorBaseline INPUT range|roundrobin|sticky|cooperative-sticky|all");
            System.exit(2);
        }
        String strategy = args[1];
        List<PartitionInfo> partitions = new ArrayList<>();
        List<Member> members = new ArrayList<>();
        Node broker = new Node(0, "broker-0", 9092);
        Node[] replicas = {broker};
        try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("#"))
                    continue;
                String[] f = line.split(" ");
                if (f[0].equals("topic")) {
                    int count = Integer.parseInt(f[2]);
                    for (int p = 0; p < count; p++)
                        partitions.add(new PartitionInfo(f[1], p, broker, replicas, replicas));
                } else if (f[0].equals("member")) {
                    List<String> topics = new ArrayList<>();
                    Collections.addAll(topics, f[3].split(","));
                    members.add(new Member(f[1], Integer.parseInt(f[2]), topics, parseOwned(f[4])));
                } else {
                    throw new IllegalArgumentException("unknown record: " + f[0]);
                }
            }
        }
        Cluster cluster = new Cluster("bench", Collections.singletonList(broker), partitions,
                Collections.emptySet(), Collections.emptySet());

        List<String> strategies = strategy.equals("all")
                ? List.of("range", "roundrobin", "sticky", "cooperative-sticky") : List.of(strategy);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        double seconds = 0;
        for (String s : strategies) {
            long start = System.nanoTime();
            Map<String, List<TopicPartition>> result = assign(s, cluster, members);
            Map<String, List<TopicPartition>> first = null;
            if (s.equals("cooperative-sticky")) {
                first = result;
                int generation = -1;
                for (Member m : members)
                    generation = Math.max(generation, m.generation);
                List<Member> next = new ArrayList<>(members.size());
                for (Member m : members)
                    next.add(new Member(m.id, generation + 1, m.topics, new ArrayList<>(first.get(m.id))));
                result = assign(s, cluster, next);
            }
            seconds += (System.nanoTime() - start) / 1e9;
            String prefix = strategies.size() > 1 ? s + "/" : "";
            if (first != null)
                print(out, prefix + "first", members, first);
            print(out, prefix + "final", members, result);
        }
        out.flush();
        System.err.printf("assign-seconds %.6f%n", seconds);
    }

    private static List<TopicPartition> parseOwned(String text) {
        List<TopicPartition> owned = new ArrayList<>();
        if (text.equals("-"))
            return owned;
        for (String group : text.split(";")) {
            int colon = group.lastIndexOf(':');
            String topic = group.substring(0, colon);
            for (String p : group.substring(colon + 1).split(","))
                owned.add(new TopicPartition(topic, Integer.parseInt(p)));
        }
        return owned;
    }

    private static ConsumerPartitionAssignor assignor(String strategy) {
        switch (strategy) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "sticky":
                return new StickyAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new IllegalArgumentException("no kafka-clients assignor for strategy " + strategy);
        }
    }

    private static Map<String, List<TopicPartition>> assign(String strategy, Cluster cluster, List<Member> members) {
        // the leader (ConsumerCoordinator.onLeaderElected) keeps the subscriptions in a HashMap
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (Member m : members) {
            ByteBuffer wire = ConsumerProtocol.serializeSubscription(subscription(strategy, m));
            subscriptions.put(m.id, ConsumerProtocol.deserializeSubscription(wire));
        }
        Map<String, Assignment> assigned =
                assignor(strategy).assign(cluster, new GroupSubscription(subscriptions)).groupAssignment();
        Map<String, List<TopicPartition>> result = new HashMap<>();
        for (Map.Entry<String, Assignment> e : assigned.entrySet())
            result.put(e.getKey(), e.getValue().partitions());
        return result;
    }

    // ConsumerGroupMetadata's generation-carrying constructor is marked for removal, but it is the
    // only way to hand onAssignment a generation, which the sticky assignors' userData records
    @SuppressWarnings("removal")
    private static Subscription subscription(String strategy, Member m) {
        // a consumer subscribes with a sorted set of topics
        List<String> topics = new ArrayList<>(new TreeSet<>(m.topics));
        Set<String> topicSet = new HashSet<>(topics);
        ConsumerGroupMetadata metadata = new ConsumerGroupMetadata("bench", m.generation, m.id, Optional.empty());
        if (strategy.equals("sticky")) {
            // eager: everything is revoked before joining; the previous assignment travels in userData
            StickyAssignor own = new StickyAssignor();
            if (m.generation >= 0 || !m.owned.isEmpty())
                own.onAssignment(new Assignment(new ArrayList<>(m.owned)), metadata);
            return new Subscription(topics, own.subscriptionUserData(topicSet), Collections.emptyList(),
                    m.generation, Optional.empty());
        }
        if (strategy.equals("cooperative-sticky")) {
            CooperativeStickyAssignor own = new CooperativeStickyAssignor();
            if (m.generation >= 0)
                own.onAssignment(new Assignment(new ArrayList<>(m.owned)), metadata);
            return new Subscription(topics, own.subscriptionUserData(topicSet), m.owned, m.generation,
                    Optional.empty());
        }
        return new Subscription(topics, null, Collections.emptyList(), m.generation, Optional.empty());
    }

    private static void print(BufferedWriter out, String label, List<Member> members,
                              Map<String, List<TopicPartition>> assignment) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Member m : members) {
            sb.setLength(0);
            sb.append(label).append(' ').append(m.id).append(' ');
            List<TopicPartition> parts = assignment.get(m.id);
            if (parts == null || parts.isEmpty()) {
                sb.append('-');
            } else {
                String topic = null;
                for (TopicPartition tp : parts) {
                    if (!tp.topic().equals(topic)) {
                        if (topic != null)
                            sb.append(';');
                        topic = tp.topic();
                        sb.append(topic).append(':');
                    } else {
                        sb.append(',');
                    }
                    sb.append(tp.partition());
                }
            }
            out.write(sb.toString());
            out.newLine();
        }
    }
}
