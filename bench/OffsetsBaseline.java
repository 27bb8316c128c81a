import java.util.*;
import java.util.stream.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * JVM baseline for `kgroup offsets GROUP`: the Admin calls kafka-consumer-groups.sh --describe
 * makes (describe the group, fetch committed offsets, list log-start and log-end offsets),
 * printing one line per partition. Usage: OffsetsBaseline BOOTSTRAP GROUP TOPIC
 */
public class OffsetsBaseline {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        try (Admin admin = Admin.create(props)) {
            String group = args[1];
            ConsumerGroupDescription description =
                admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
            TopicDescription topic = admin.describeTopics(List.of(args[2])).allTopicNames().get().get(args[2]);
            List<TopicPartition> tps = topic.partitions().stream()
                .map(p -> new TopicPartition(args[2], p.partition())).collect(Collectors.toList());
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                    Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(tps)))
                .partitionsToOffsetAndMetadata(group).get();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>(), earliest = new HashMap<>();
            for (TopicPartition tp : tps) { latest.put(tp, OffsetSpec.latest()); earliest.put(tp, OffsetSpec.earliest()); }
            var end = admin.listOffsets(latest).all().get();
            var start = admin.listOffsets(earliest).all().get();
            StringBuilder out = new StringBuilder();
            out.append(description.groupId()).append(' ').append(description.groupState()).append('\n');
            for (TopicPartition tp : tps) {
                OffsetAndMetadata c = committed.get(tp);
                long e = end.get(tp).offset();
                out.append(tp.topic()).append(' ').append(tp.partition()).append(' ')
                   .append(c == null ? "-" : Long.toString(c.offset())).append(' ')
                   .append(start.get(tp).offset()).append(' ').append(e).append(' ')
                   .append(c == null ? "-" : Long.toString(e - c.offset())).append('\n');
            }
            System.out.print(out);
        }
    }
}
