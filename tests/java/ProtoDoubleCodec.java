import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The codec of the protocol test double (tests/protodouble.py): Kafka's own generated message
 * classes (kafka-clients) read each request the double receives and write each answer it sends, so
 * the bytes on the wire are those a Kafka 4.3 broker's classes produce. One JVM serves a double for
 * its whole life; one command per input line, one answer line per command:
 *
 *   REQ hex                  the request frame (header and body, without the size) ->
 *                            OK {"apiKey", "apiVersion", "headerVersion", "correlationId", "clientId",
 *                                "body": the request as its JsonConverter writes it, or null,
 *                                "bodyError": why the body could not be read, or null}
 *   RESP key version corr json
 *                            the answer (header and body, without the size) as hex -> OK hex.
 *                            json is read by the response's JsonConverter at that version after
 *                            every field it leaves out (at any depth) is given the generated
 *                            class's default: a handler writes only the fields that matter.
 *                            Fields the version lacks are dropped as Kafka drops them (an
 *                            ignorable field silently, any other with an error).
 *   VERSIONS                 OK {"key": [lowest, highest stable]} for every API a broker listener has.
 *
 * Any failure: ERR exception-class: message.
 */
public final class ProtoDoubleCodec {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String PKG = "org.apache.kafka.common.message.";

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b) s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return s.toString();
    }

    static byte[] unhex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    /** The JsonConverter class of a generated message class (top level or nested). */
    static Class<?> converterOf(Class<?> message) throws ClassNotFoundException {
        Class<?> outer = message;
        while (outer.getEnclosingClass() != null) outer = outer.getEnclosingClass();
        Class<?> top = Class.forName(outer.getName() + "JsonConverter");
        if (outer == message) return top;
        return Class.forName(top.getName() + "$" + message.getSimpleName() + "JsonConverter");
    }

    static JsonNode write(Object message, short version) throws Exception {
        Class<?> conv = converterOf(message.getClass());
        return (JsonNode) conv.getMethod("write", message.getClass(), short.class).invoke(null, message, version);
    }

    static Object read(Class<?> message, JsonNode node, short version) throws Exception {
        return converterOf(message).getMethod("read", JsonNode.class, short.class).invoke(null, node, version);
    }

    /** The generated class of the elements of a list field, or null for a list of non-structs. */
    static Class<?> elementClass(Field f) {
        Type t = f.getGenericType();
        if (!(t instanceof ParameterizedType)) t = f.getType().getGenericSuperclass();
        if (t instanceof ParameterizedType) {
            Type[] args = ((ParameterizedType) t).getActualTypeArguments();
            if (args.length == 1 && args[0] instanceof Class && Message.class.isAssignableFrom((Class<?>) args[0]))
                return (Class<?>) args[0];
        }
        return null;
    }

    static Field fieldOf(Class<?> message, String name) {
        for (Field f : message.getDeclaredFields())
            if (!Modifier.isStatic(f.getModifiers()) && f.getName().equals(name)) return f;
        return null;
    }

    /** ``given`` completed with the defaults of ``message`` at ``version``, at every depth. */
    static JsonNode withDefaults(Class<?> message, JsonNode given, short version) throws Exception {
        ObjectNode out = (ObjectNode) write(message.getConstructor().newInstance(), version);
        if (given == null || !given.isObject()) return out;
        for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode value = e.getValue();
            Field f = fieldOf(message, e.getKey());
            if (f != null && value.isArray() && elementClass(f) != null) {
                ArrayNode items = MAPPER.createArrayNode();
                for (JsonNode item : value) items.add(withDefaults(elementClass(f), item, version));
                value = items;
            } else if (f != null && value.isObject() && Message.class.isAssignableFrom(f.getType())) {
                value = withDefaults(f.getType(), value, version);
            }
            out.set(e.getKey(), value);
        }
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

    static String request(String hexFrame) throws Exception {
        ByteBuffer buf = ByteBuffer.wrap(unhex(hexFrame));
        RequestHeader header = RequestHeader.parse(buf);
        ObjectNode out = MAPPER.createObjectNode();
        out.put("apiKey", header.apiKey().id);
        out.put("apiVersion", header.apiVersion());
        out.put("headerVersion", header.headerVersion());
        out.put("correlationId", header.correlationId());
        out.put("clientId", header.clientId());
        try {
            ApiMessage body = ApiMessageType.fromApiKey(header.apiKey().id).newRequest();
            body.read(new ByteBufferAccessor(buf), header.apiVersion());
            out.set("body", write(body, header.apiVersion()));
            out.putNull("bodyError");
        } catch (Exception e) {
            out.putNull("body");
            out.put("bodyError", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return out.toString();
    }

    static String response(short key, short version, int correlationId, String json) throws Exception {
        ApiMessage empty = ApiMessageType.fromApiKey(key).newResponse();
        Message body = (Message) read(empty.getClass(), withDefaults(empty.getClass(), MAPPER.readTree(json), version),
                                      version);
        short headerVersion = ApiKeys.forId(key).responseHeaderVersion(version);
        byte[] head = serialize(new ResponseHeaderData().setCorrelationId(correlationId), headerVersion);
        byte[] rest = serialize(body, version);
        byte[] all = new byte[head.length + rest.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(rest, 0, all, head.length, rest.length);
        return hex(all);
    }

    static String versions() {
        ObjectNode out = MAPPER.createObjectNode();
        for (ApiKeys key : ApiKeys.apisForListener(ApiMessageType.ListenerType.BROKER)) {
            ArrayNode range = out.putArray(Short.toString(key.id));
            range.add(key.oldestVersion());
            range.add(key.messageType.highestSupportedVersion(false));
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            try {
                String[] f = line.split(" ", 5);
                String answer;
                if (f[0].equals("REQ")) answer = request(f[1]);
                else if (f[0].equals("RESP"))
                    answer = response(Short.parseShort(f[1]), Short.parseShort(f[2]), Integer.parseInt(f[3]), f[4]);
                else if (f[0].equals("VERSIONS")) answer = versions();
                else throw new IllegalArgumentException("unknown command " + f[0]);
                out.println("OK " + answer);
            } catch (Exception e) {
                Throwable c = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                out.println("ERR " + c.getClass().getSimpleName() + ": " + String.valueOf(c.getMessage()).replace('\n', ' '));
            }
            out.flush();
        }
    }
}
