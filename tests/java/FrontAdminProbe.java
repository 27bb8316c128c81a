import java.io.FileInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's Java Admin client, the reference for the tests' TLS/SASL front: lists the groups and
 * fetches one group's committed offsets with the client properties given.
 * Usage: FrontAdminProbe CLIENT_PROPERTIES GROUP
 * Prints "GROUP id" per group listed (sorted), then "OFFSET topic partition offset" (sorted).
 */
public class FrontAdminProbe {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (InputStream in = new FileInputStream(args[0])) {
            props.load(in);
        }
        try (Admin admin = Admin.create(props)) {
            List<String> groups = new ArrayList<>();
            for (GroupListing g : admin.listGroups().all().get(60, TimeUnit.SECONDS)) groups.add(g.groupId());
            Collections.sort(groups);
            StringBuilder out = new StringBuilder();
            for (String g : groups) out.append("GROUP ").append(g).append('\n');
            Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(args[1]).partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            List<String> rows = new ArrayList<>();
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet())
                rows.add("OFFSET " + e.getKey().topic() + " " + e.getKey().partition() + " " + e.getValue().offset());
            Collections.sort(rows);
            for (String row : rows) out.append(row).append('\n');
            System.out.print(out);
        }
    }
}
