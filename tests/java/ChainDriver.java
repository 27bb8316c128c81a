// tests/differential/test_uniform_topic_ids_java.py
import java.io.*;
import java.util.*;
public class ChainDriver {
  // one line: name=msb:lsb ... in subscription-list order; prints the names in the order
  // new HashSet<>(ids inserted in new HashSet<>(names) order) iterates them
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      List<String> names = new ArrayList<>();
      Map<String, UuidKey> ids = new HashMap<>();
      Map<UuidKey, String> back = new HashMap<>();
      for (String f : line.split(" ")) {
        String[] nv = f.split("=");
        String[] x = nv[1].split(":");
        UuidKey k = new UuidKey(Long.parseLong(x[0]), Long.parseLong(x[1]));
        names.add(nv[0]); ids.put(nv[0], k); back.put(k, nv[0]);
      }
      Set<String> nameSet = new HashSet<>(names);
      List<UuidKey> inserted = new ArrayList<>();
      for (String n : nameSet) inserted.add(ids.get(n));
      Set<UuidKey> idSet = new HashSet<>(inserted);  // sized like new HashSet<>(TopicIds): one per name
      StringJoiner out = new StringJoiner(" ");
      for (UuidKey k : idSet) out.add(back.get(k));
      System.out.println(out);
    }
  }
}
