// tests/differential/test_hash_order_java.py: HashMap/HashSet iteration order, as a JDK gives it
import java.io.*;
import java.util.*;
public class OrderDriver {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      String[] f = line.split(" ");
      StringJoiner out = new StringJoiner(" ");
      if (f[0].equals("S")) {            // new HashMap<>() + put, String keys
        Map<String, Integer> m = new HashMap<>();
        for (int i = 1; i < f.length; i++) m.put(f[i], i);
        for (String k : m.keySet()) out.add(k);
      } else if (f[0].equals("U")) {     // new HashSet<>(list) of Uuid-like keys
        List<UuidKey> keys = new ArrayList<>();
        for (int i = 1; i < f.length; i++) {
          String[] x = f[i].split(":");
          keys.add(new UuidKey(Long.parseLong(x[0]), Long.parseLong(x[1])));
        }
        for (UuidKey k : new HashSet<>(keys)) out.add(k.msb() + ":" + k.lsb());
      } else {                           // new HashSet<>(list) of Integers
        List<Integer> keys = new ArrayList<>();
        for (int i = 1; i < f.length; i++) keys.add(Integer.parseInt(f[i]));
        for (Integer k : new HashSet<>(keys)) out.add(k.toString());
      }
      System.out.println(out);
    }
  }
}
