import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;

/**
 * Test driver for tests/test_consumer_protocol.py. One command a line:
 *
 *   SS version topics userData owned generation rack  serialize a Subscription (ConsumerProtocol)
 *   SA version partitions userData                    serialize an Assignment
 *   DS hex                                            deserialize a version-prefixed subscription
 *   DA hex                                            deserialize a version-prefixed assignment
 *
 * Serializing prints "B hex" then the message read back as by DS/DA. Deserializing prints the
 * raw message, "R topics userData owned generation rack" or "R assigned userData", or
 * "E ExceptionClass" when kafka-clients refuses the bytes.
 * Strings are "_" + UTF-16BE hex ("-" for null); lists are comma-separated ("." when empty);
 * bytes are "_" + hex ("-" for null); topic-partition lists are "topic=p,p;topic=..." or ".";
 * the flat partition lists of SS/SA are "topic:p,topic:p" or ".".
 */
public final class ConsumerProtocolDriver {

    static String str(String s) {
        if (s == null) return "-";
        StringBuilder b = new StringBuilder("_");
        for (int i = 0; i < s.length(); i++) b.append(String.format("%04x", (int) s.charAt(i)));
        return b.toString();
    }

    static String unstr(String e) {
        if (e.equals("-")) return null;
        StringBuilder b = new StringBuilder();
        for (int i = 1; i < e.length(); i += 4) b.append((char) Integer.parseInt(e.substring(i, i + 4), 16));
        return b.toString();
    }

    static String hex(ByteBuffer buf) {
        if (buf == null) return "-";
        ByteBuffer d = buf.duplicate();
        StringBuilder b = new StringBuilder("_");
        while (d.hasRemaining()) b.append(String.format("%02x", d.get() & 0xff));
        return b.toString();
    }

    static byte[] unhex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    static ByteBuffer unbytes(String e) {
        return e.equals("-") ? null : ByteBuffer.wrap(unhex(e.substring(1)));
    }

    static List<String> strList(String e) {
        List<String> out = new ArrayList<>();
        if (!e.equals(".")) for (String s : e.split(",")) out.add(unstr(s));
        return out;
    }

    static List<TopicPartition> flat(String e) {
        List<TopicPartition> out = new ArrayList<>();
        if (!e.equals(".")) {
            for (String s : e.split(",")) {
                String[] tp = s.split(":");
                out.add(new TopicPartition(unstr(tp[0]), Integer.parseInt(tp[1])));
            }
        }
        return out;
    }

    static String strs(List<String> l) {
        if (l.isEmpty()) return ".";
        StringBuilder b = new StringBuilder();
        for (String s : l) b.append(b.length() == 0 ? "" : ",").append(str(s));
        return b.toString();
    }

    static String ints(List<Integer> l) {
        StringBuilder b = new StringBuilder();
        for (Integer i : l) b.append(b.length() == 0 ? "" : ",").append(i);
        return b.toString();
    }

    static String subscription(ByteBuffer buf) {
        ConsumerProtocolSubscription m = ConsumerProtocol.deserializeConsumerProtocolSubscription(buf);
        StringBuilder owned = new StringBuilder();
        for (ConsumerProtocolSubscription.TopicPartition tp : m.ownedPartitions())
            owned.append(owned.length() == 0 ? "" : ";").append(str(tp.topic())).append('=').append(ints(tp.partitions()));
        return "R " + strs(m.topics()) + " " + hex(m.userData()) + " " + (owned.length() == 0 ? "." : owned)
            + " " + m.generationId() + " " + str(m.rackId());
    }

    static String assignment(ByteBuffer buf) {
        ConsumerProtocolAssignment m = ConsumerProtocol.deserializeConsumerProtocolAssignment(buf);
        StringBuilder assigned = new StringBuilder();
        for (ConsumerProtocolAssignment.TopicPartition tp : m.assignedPartitions())
            assigned.append(assigned.length() == 0 ? "" : ";").append(str(tp.topic())).append('=').append(ints(tp.partitions()));
        return "R " + (assigned.length() == 0 ? "." : assigned) + " " + hex(m.userData());
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        PrintStream out = new PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16), false, "US-ASCII");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ");
            try {
                switch (f[0]) {
                    case "SS": {
                        Optional<String> rack = f[6].equals("-") ? Optional.empty() : Optional.of(unstr(f[6]));
                        Subscription s = new Subscription(strList(f[2]), unbytes(f[3]), flat(f[4]), Integer.parseInt(f[5]), rack);
                        ByteBuffer b = ConsumerProtocol.serializeSubscription(s, Short.parseShort(f[1]));
                        out.println("B " + hex(b).substring(1));
                        out.println(subscription(b.duplicate()));
                        break;
                    }
                    case "SA": {
                        Assignment a = new Assignment(flat(f[2]), unbytes(f[3]));
                        ByteBuffer b = ConsumerProtocol.serializeAssignment(a, Short.parseShort(f[1]));
                        out.println("B " + hex(b).substring(1));
                        out.println(assignment(b.duplicate()));
                        break;
                    }
                    case "DS":
                        out.println(subscription(ByteBuffer.wrap(unhex(f.length > 1 ? f[1] : ""))));
                        break;
                    case "DA":
                        out.println(assignment(ByteBuffer.wrap(unhex(f.length > 1 ? f[1] : ""))));
                        break;
                    default:
                        throw new IllegalArgumentException(line);
                }
            } catch (RuntimeException e) {
                if (f[0].startsWith("S")) throw e;
                out.println("E " + e.getClass().getSimpleName());
            }
        }
        out.flush();
    }
}
