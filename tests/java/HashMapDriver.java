import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;

/**
 * Test driver for tests/test_java_hashmap.py. Each input line is
 *
 *   OP CAPACITY TYPE KEY...
 *
 * OP: "put" (HashMap.put of every key in turn), "cia" (HashMap.computeIfAbsent instead) or
 * "copy" (new HashSet of the key list; CAPACITY is ignored). CAPACITY: "-" for the default
 * constructor, else the constructor's initialCapacity. TYPE: "S" (String keys, each "_"
 * followed by the hex of its UTF-16 code units), "I" (Integer) or "U" (Kafka's Uuid,
 * "msb:lsb"). Each output line is the table length (0 before any allocation) followed by
 * the indices of the keys (into the input list) in iteration order; a first line names
 * the Java specification version (17, 21, ...). Reading the table
 * length needs --add-opens java.base/java.util=ALL-UNNAMED.
 */
public final class HashMapDriver {
    public static void main(String[] args) throws Exception {
        Field table = HashMap.class.getDeclaredField("table");
        table.setAccessible(true);
        Field setMap = HashSet.class.getDeclaredField("map");
        setMap.setAccessible(true);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        out.append(System.getProperty("java.specification.version")).append('\n');
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ");
            List<Object> keys = new ArrayList<>();
            for (int i = 3; i < f.length; i++) {
                keys.add(parse(f[2], f[i]));
            }
            Map<Object, Integer> index = new HashMap<>();
            for (int i = keys.size() - 1; i >= 0; i--) {
                index.put(keys.get(i), i);  // a duplicate key reports its first position
            }
            HashMap<Object, Object> map;
            Iterable<Object> order;
            if (f[0].equals("copy")) {
                HashSet<Object> set = new HashSet<>(keys);
                @SuppressWarnings("unchecked")
                HashMap<Object, Object> inner = (HashMap<Object, Object>) setMap.get(set);
                map = inner;
                order = set;
            } else {
                map = f[1].equals("-") ? new HashMap<>() : new HashMap<>(Integer.parseInt(f[1]));
                for (Object key : keys) {
                    if (f[0].equals("put")) {
                        map.put(key, key);
                    } else {
                        map.computeIfAbsent(key, k -> k);
                    }
                }
                order = map.keySet();
            }
            Object[] tab = (Object[]) table.get(map);
            out.append(tab == null ? 0 : tab.length);
            for (Object key : order) {
                out.append(' ').append(index.get(key));
            }
            out.append('\n');
        }
        System.out.print(out);
    }

    private static Object parse(String type, String text) {
        switch (type) {
            case "S": {
                StringBuilder s = new StringBuilder();
                for (int i = 1; i < text.length(); i += 4) {
                    s.append((char) Integer.parseInt(text.substring(i, i + 4), 16));
                }
                return s.toString();
            }
            case "I":
                return Integer.parseInt(text);
            default: {
                String[] parts = text.split(":");
                return new Uuid(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
            }
        }
    }
}
