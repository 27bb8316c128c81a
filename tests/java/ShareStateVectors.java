import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.coordinator.share.PersisterStateBatchCombiner;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotKey;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotValue;
import org.apache.kafka.coordinator.share.generated.ShareUpdateKey;
import org.apache.kafka.coordinator.share.generated.ShareUpdateValue;
import org.apache.kafka.server.share.persister.PersisterStateBatch;
import org.apache.kafka.tools.consumer.group.share.ShareGroupStateMessageFormatter;

/**
 * Vectors for tests/differential/test_share_state_vectors.py (scripts/gen_share_state_vectors.py
 * compiles this against classes Kafka's generator made from the share coordinator's record specs,
 * and Kafka's own formatter, serde and batch combiner, all from Kafka's sources; never committed).
 *
 * Arguments: seed, record count, combine count, Kafka revision. Prints one JSON document:
 *   {"meta": {...}, "records": [{"key": b64, "value": b64|null, "json": text}],
 *    "combines": [{"so_far": [[first,last,state,count]...], "new": [...], "start": n, "result": [...]}]}
 * A record's bytes are what Kafka's serde writes (MessageUtil: the record type or version, then
 * the message); its text is what ShareGroupStateMessageFormatter prints for it.
 */
public final class ShareStateVectors {
    private static final String[] ALPHABETS = {"abcXYZ019-_.:", "订单消费组", "😀🚀𝄞", "\u00e9\u00fc\"\\\n\t\u0001"};

    private final Random rng;

    private ShareStateVectors(long seed) {
        this.rng = new Random(seed);
    }

    private String text() {
        int n = new int[]{0, 1, 3, 8, 40}[rng.nextInt(5)];
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String alphabet = ALPHABETS[rng.nextInt(ALPHABETS.length)];
            int at = alphabet.offsetByCodePoints(0, rng.nextInt(alphabet.codePointCount(0, alphabet.length())));
            s.appendCodePoint(alphabet.codePointAt(at));
        }
        return s.toString();
    }

    private int anInt() {
        switch (rng.nextInt(5)) {
            case 0: return -1;
            case 1: return 0;
            case 2: return rng.nextInt(100);
            case 3: return Integer.MIN_VALUE + rng.nextInt(3);
            default: return rng.nextInt();
        }
    }

    private long aLong() {
        switch (rng.nextInt(5)) {
            case 0: return -1L;
            case 1: return rng.nextInt(1000);
            case 2: return 1_700_000_000_000L + rng.nextInt(1_000_000_000);
            case 3: return Long.MAX_VALUE - rng.nextInt(3);
            default: return rng.nextLong();
        }
    }

    private byte aState() {
        return rng.nextInt(8) == 0 ? (byte) rng.nextInt(256) : new byte[]{0, 2, 4}[rng.nextInt(3)];
    }

    private short aCount() {
        return rng.nextInt(8) == 0 ? (short) rng.nextInt(65536) : (short) rng.nextInt(7);
    }

    private void unknownTags(List<RawTaggedField> fields) {
        if (rng.nextInt(6) == 0) {
            byte[] data = new byte[rng.nextInt(4)];
            rng.nextBytes(data);
            fields.add(new RawTaggedField(1 + rng.nextInt(5), data));
        }
    }

    private static String b64(byte[] b) {
        return b == null ? null : Base64.getEncoder().encodeToString(b);
    }

    private static void json(StringBuilder out, String s) {
        out.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        out.append('"');
    }

    private String record(ShareGroupStateMessageFormatter formatter, long offset) {
        Uuid topicId = rng.nextInt(10) == 0 ? Uuid.ZERO_UUID : new Uuid(rng.nextLong(), rng.nextLong());
        String group = text();
        int partition = anInt();
        boolean snapshot = rng.nextBoolean();
        boolean tombstone = rng.nextInt(8) == 0;
        int batches = new int[]{0, 1, 2, 5}[rng.nextInt(4)];
        byte[] key;
        byte[] value = null;
        if (snapshot) {
            key = MessageUtil.toCoordinatorTypePrefixedBytes(
                new ShareSnapshotKey().setGroupId(group).setTopicId(topicId).setPartition(partition));
            if (!tombstone) {
                ShareSnapshotValue v = new ShareSnapshotValue().setSnapshotEpoch(anInt()).setStateEpoch(anInt())
                    .setLeaderEpoch(anInt()).setStartOffset(aLong()).setCreateTimestamp(aLong()).setWriteTimestamp(aLong());
                if (rng.nextBoolean()) v.setDeliveryCompleteCount(anInt());
                List<ShareSnapshotValue.StateBatch> list = new ArrayList<>();
                for (int i = 0; i < batches; i++) {
                    list.add(new ShareSnapshotValue.StateBatch().setFirstOffset(aLong()).setLastOffset(aLong())
                        .setDeliveryState(aState()).setDeliveryCount(aCount()));
                }
                v.setStateBatches(list);
                unknownTags(v.unknownTaggedFields());
                value = MessageUtil.toVersionPrefixedBytes((short) 0, v);
            }
        } else {
            key = MessageUtil.toCoordinatorTypePrefixedBytes(
                new ShareUpdateKey().setGroupId(group).setTopicId(topicId).setPartition(partition));
            if (!tombstone) {
                ShareUpdateValue v = new ShareUpdateValue().setSnapshotEpoch(anInt()).setLeaderEpoch(anInt())
                    .setStartOffset(aLong());
                if (rng.nextBoolean()) v.setDeliveryCompleteCount(anInt());
                List<ShareUpdateValue.StateBatch> list = new ArrayList<>();
                for (int i = 0; i < batches; i++) {
                    list.add(new ShareUpdateValue.StateBatch().setFirstOffset(aLong()).setLastOffset(aLong())
                        .setDeliveryState(aState()).setDeliveryCount(aCount()));
                }
                v.setStateBatches(list);
                unknownTags(v.unknownTaggedFields());
                value = MessageUtil.toVersionPrefixedBytes((short) 0, v);
            }
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            formatter.writeTo(new ConsumerRecord<>("__share_group_state", 0, offset, key, value), ps);
        }
        StringBuilder out = new StringBuilder("{\"key\":");
        json(out, b64(key));
        out.append(",\"value\":");
        if (value == null) out.append("null");
        else json(out, b64(value));
        out.append(",\"json\":");
        json(out, new String(printed.toByteArray(), StandardCharsets.UTF_8));
        return out.append('}').toString();
    }

    private List<PersisterStateBatch> batches(int max, int span) {
        List<PersisterStateBatch> out = new ArrayList<>();
        int n = rng.nextInt(max + 1);
        for (int i = 0; i < n; i++) {
            long first = rng.nextInt(span);
            long last = first + rng.nextInt(6);
            out.add(new PersisterStateBatch(first, last, new byte[]{0, 2, 4}[rng.nextInt(3)], (short) rng.nextInt(4)));
        }
        return out;
    }

    private static void batchesJson(StringBuilder out, List<PersisterStateBatch> batches) {
        out.append('[');
        for (int i = 0; i < batches.size(); i++) {
            PersisterStateBatch b = batches.get(i);
            if (i > 0) out.append(',');
            out.append('[').append(b.firstOffset()).append(',').append(b.lastOffset()).append(',')
                .append(b.deliveryState()).append(',').append(b.deliveryCount()).append(']');
        }
        out.append(']');
    }

    private String combine() {
        int span = new int[]{5, 12, 30}[rng.nextInt(3)];
        List<PersisterStateBatch> soFar = batches(new int[]{0, 1, 3, 8}[rng.nextInt(4)], span);
        List<PersisterStateBatch> incoming = batches(new int[]{0, 1, 3, 8}[rng.nextInt(4)], span);
        long start = rng.nextInt(3) == 0 ? -1 : rng.nextInt(span + 2);
        List<PersisterStateBatch> result = new PersisterStateBatchCombiner(soFar, incoming, start).combineStateBatches();
        StringBuilder out = new StringBuilder("{\"so_far\":");
        batchesJson(out, soFar);
        out.append(",\"new\":");
        batchesJson(out, incoming);
        out.append(",\"start\":").append(start).append(",\"result\":");
        batchesJson(out, result);
        return out.append('}').toString();
    }

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        int records = Integer.parseInt(args[1]);
        int combines = Integer.parseInt(args[2]);
        ShareStateVectors gen = new ShareStateVectors(seed);
        ShareGroupStateMessageFormatter formatter = new ShareGroupStateMessageFormatter();
        StringBuilder out = new StringBuilder("{\"meta\":{\"kafka_revision\":");
        json(out, args[3]);
        out.append(",\"seed\":").append(seed).append(",\"java_version\":");
        json(out, System.getProperty("java.specification.version"));
        out.append("},\n\"records\":[\n");
        for (int i = 0; i < records; i++) out.append(i > 0 ? ",\n" : "").append(gen.record(formatter, i));
        out.append("],\n\"combines\":[\n");
        for (int i = 0; i < combines; i++) out.append(i > 0 ? ",\n" : "").append(gen.combine());
        out.append("]}\n");
        System.out.print(out);
    }
}
