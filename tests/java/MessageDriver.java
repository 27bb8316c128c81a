import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * Test driver for tests/test_codec_kafka_messages.py. Each input line is
 *
 *   Name version unknownTags json
 *
 * Name is a kafka-clients message (org.apache.kafka.common.message.{Name}Data); json is read with
 * its generated {Name}DataJsonConverter at that version. unknownTags is "." or "tag:hex,tag:hex"
 * (raw tagged fields added to the top-level struct after the first serialization). Output:
 *
 *   OK bytes bytesWithUnknownTags jsonText     (bytes as hex; jsonText = Converter.write(msg, v).toString())
 *   ERR exception                             (the line could not be built or written)
 *
 * A line "READ Name version hex" instead reads the message from the bytes (the generated
 * constructor) and prints "OK jsonText", or "ERR exception" when Kafka refuses the bytes.
 */
public final class MessageDriver {
    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 2 + 1).append('_');
        for (byte x : b) s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return s.toString();
    }

    static byte[] unhex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    static byte[] serialize(Message msg, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = msg.size(cache, version);
        ByteBuffer buf = ByteBuffer.allocate(size);
        msg.write(new ByteBufferAccessor(buf), cache, version);
        if (buf.hasRemaining()) throw new IllegalStateException("size() disagrees with write()");
        return buf.array();
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new java.io.BufferedOutputStream(System.out, 1 << 16), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ", 4);
            try {
                if (f[0].equals("READ")) {
                    Class<?> data = Class.forName("org.apache.kafka.common.message." + f[1] + "Data");
                    Class<?> conv = Class.forName("org.apache.kafka.common.message." + f[1] + "DataJsonConverter");
                    short version = Short.parseShort(f[2]);
                    ByteBuffer buf = ByteBuffer.wrap(unhex(f.length > 3 ? f[3] : ""));
                    Message msg = (Message) data.getConstructor(Readable.class, short.class)
                        .newInstance(new ByteBufferAccessor(buf), version);
                    out.println("OK " + conv.getMethod("write", data, short.class).invoke(null, msg, version));
                    continue;
                }
                Class<?> data = Class.forName("org.apache.kafka.common.message." + f[0] + "Data");
                Class<?> conv = Class.forName("org.apache.kafka.common.message." + f[0] + "DataJsonConverter");
                Method read = conv.getMethod("read", JsonNode.class, short.class);
                Method write = conv.getMethod("write", data, short.class);
                short version = Short.parseShort(f[1]);
                Message msg = (Message) read.invoke(null, mapper.readTree(f[3]), version);
                byte[] plain = serialize(msg, version);
                String json = ((JsonNode) write.invoke(null, msg, version)).toString();
                if (!f[2].equals(".")) {
                    for (String t : f[2].split(",")) {
                        String[] kv = t.split(":", -1);
                        msg.unknownTaggedFields().add(new RawTaggedField(Integer.parseInt(kv[0]), unhex(kv[1])));
                    }
                }
                byte[] withUnknown = serialize(msg, version);
                out.println("OK " + hex(plain) + " " + hex(withUnknown) + " " + json);
            } catch (Exception e) {
                Throwable c = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                out.println("ERR " + c.getClass().getSimpleName() + ": " + String.valueOf(c.getMessage()).replace('\n', ' '));
            }
        }
        out.flush();
    }
}
