import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * JVM baseline for `kgroup offsets --all-groups`: list the groups, describe them, fetch every
 * group's committed offsets, list the earliest and latest offsets of every committed partition,
 * and print one line per (group, partition): GROUP TOPIC PARTITION COMMITTED START END LAG.
 * Usage: OffsetsAllBaseline BOOTSTRAP [CLIENT_PROPERTIES]: the properties file (the client's
 * security settings: TLS, SASL) is read as the Admin client's own configuration.
 */
public class OffsetsAllBaseline {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        if (args.length > 1) {
            try (var in = new java.io.FileInputStream(args[1])) {
                props.load(in);
            }
        }
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        long t0 = System.nanoTime();
        try (Admin admin = Admin.create(props)) {
            List<String> groups = new ArrayList<>();
            for (GroupListing g : admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get()) {
                groups.add(g.groupId());
            }
            Collections.sort(groups);
            long t1 = System.nanoTime();
            Map<String, ConsumerGroupDescription> described = admin.describeConsumerGroups(groups).all().get();
            long t2 = System.nanoTime();
            Map<String, ListConsumerGroupOffsetsSpec> specs = new LinkedHashMap<>();
            for (String g : groups) specs.put(g, new ListConsumerGroupOffsetsSpec());
            Map<String, Map<TopicPartition, OffsetAndMetadata>> committed =
                admin.listConsumerGroupOffsets(specs).all().get();
            long t3 = System.nanoTime();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>(), earliest = new HashMap<>();
            for (Map<TopicPartition, OffsetAndMetadata> offsets : committed.values()) {
                for (TopicPartition tp : offsets.keySet()) {
                    latest.put(tp, OffsetSpec.latest());
                    earliest.put(tp, OffsetSpec.earliest());
                }
            }
            var endFuture = admin.listOffsets(latest).all();
            var startFuture = admin.listOffsets(earliest).all();
            var end = endFuture.get();
            var start = startFuture.get();
            long t4 = System.nanoTime();
            System.err.printf("list %d ms, describe %d ms, committed %d ms, list offsets %d ms%n",
                              (t1 - t0) / 1000000, (t2 - t1) / 1000000, (t3 - t2) / 1000000, (t4 - t3) / 1000000);
            StringBuilder out = new StringBuilder();
            for (String g : groups) {
                GroupState state = described.get(g).groupState();
                List<Map.Entry<TopicPartition, OffsetAndMetadata>> rows = new ArrayList<>(committed.get(g).entrySet());
                rows.sort(Comparator.comparing((Map.Entry<TopicPartition, OffsetAndMetadata> e) -> e.getKey().topic())
                          .thenComparingInt(e -> e.getKey().partition()));
                for (var e : rows) {
                    TopicPartition tp = e.getKey();
                    long c = e.getValue().offset(), last = end.get(tp).offset();
                    out.append(g).append(' ').append(state).append(' ').append(tp.topic()).append(' ')
                       .append(tp.partition()).append(' ').append(c).append(' ').append(start.get(tp).offset())
                       .append(' ').append(last).append(' ').append(last - c).append('\n');
                }
            }
            System.out.print(out);
        }
    }
}
