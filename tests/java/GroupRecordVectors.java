import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.tools.consumer.CoordinatorRecordMessageFormatter;

/**
 * Vectors for tests/differential/test_group_records_vectors.py (scripts/gen_group_records_vectors.py
 * compiles this against the classes Kafka's generator made from the group coordinator's record specs,
 * Kafka's GroupCoordinatorRecordSerde and CoordinatorRecordMessageFormatter, all from Kafka's
 * sources; never committed).
 *
 * Argument: an input file {"meta": {...}, "records": [{"type", "key", "version", "value",
 * "unknownTags"?: [{"tag", "data"}]}]} whose key and value are in the JSON form Kafka's generated
 * converters read. Each is read by CoordinatorRecordJsonConverters, given the unknown tagged fields
 * if any, written by Kafka's serde and printed by a CoordinatorRecordMessageFormatter allowing
 * every record type (GroupMetadataMessageFormatter and OffsetsMessageFormatter are the same class
 * with a filter). Prints {"meta": input meta, "records": [{"key": b64, "value": b64|null, "json": text}]}.
 */
public final class GroupRecordVectors {
    /** Kafka's formatter for __consumer_offsets with no record type filtered out. */
    private static final class EveryRecord extends CoordinatorRecordMessageFormatter {
        EveryRecord() {
            super(new GroupCoordinatorRecordSerde());
        }

        @Override
        protected boolean isRecordTypeAllowed(short recordType) {
            return true;
        }

        @Override
        protected JsonNode keyAsJson(ApiMessage message) {
            return CoordinatorRecordJsonConverters.writeRecordKeyAsJson(message);
        }

        @Override
        protected JsonNode valueAsJson(ApiMessage message, short version) {
            return CoordinatorRecordJsonConverters.writeRecordValueAsJson(message, version);
        }
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
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

    public static void main(String[] args) throws Exception {
        JsonNode input = new ObjectMapper().readTree(new File(args[0]));
        GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
        EveryRecord formatter = new EveryRecord();
        StringBuilder out = new StringBuilder("{\"meta\":");
        out.append(input.get("meta").toString()).append(",\"java_version\":");
        json(out, System.getProperty("java.specification.version"));
        out.append(",\n\"records\":[\n");
        long offset = 0;
        for (JsonNode r : input.get("records")) {
            short type = (short) r.get("type").asInt();
            ApiMessage key = CoordinatorRecordJsonConverters.readRecordKeyFromJson(r.get("key"), type);
            CoordinatorRecord record;
            if (r.get("value").isNull()) {
                record = CoordinatorRecord.tombstone(key);
            } else {
                short version = (short) r.get("version").asInt();
                ApiMessage value = CoordinatorRecordJsonConverters.readRecordValueFromJson(r.get("value"), type, version);
                JsonNode tags = r.get("unknownTags");
                for (JsonNode tag : tags == null ? List.<JsonNode>of() : tags) {
                    value.unknownTaggedFields().add(new RawTaggedField(tag.get("tag").asInt(),
                        Base64.getDecoder().decode(tag.get("data").asText())));
                }
                record = CoordinatorRecord.record(key, new ApiMessageAndVersion(value, version));
            }
            byte[] keyBytes = serde.serializeKey(record);
            byte[] valueBytes = serde.serializeValue(record);
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            try (PrintStream ps = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
                formatter.writeTo(new ConsumerRecord<>("__consumer_offsets", 0, offset, keyBytes, valueBytes), ps);
            }
            out.append(offset > 0 ? ",\n" : "").append("{\"key\":");
            json(out, b64(keyBytes));
            out.append(",\"value\":");
            if (valueBytes == null) out.append("null");
            else json(out, b64(valueBytes));
            out.append(",\"json\":");
            json(out, new String(printed.toByteArray(), StandardCharsets.UTF_8));
            out.append('}');
            offset++;
        }
        out.append("]}\n");
        System.out.print(out);
    }
}
