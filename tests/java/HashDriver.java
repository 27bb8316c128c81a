// tests/differential/test_hashing_java.py: String.hashCode() and Utils.abs modulo the offsets topic's partitions;
// a line "S<TAB>group<TAB>topicId<TAB>partition" instead: the share coordinator's key of that share partition
// (groupId:topicId:partition, the topic id through kafka-clients' Uuid) and its __share_group_state partition
import java.io.*;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Utils;
public class HashDriver {
  static String units(String line) {
    StringBuilder s = new StringBuilder();
    for (String unit : line.split(",")) if (!unit.isEmpty()) s.append((char) Integer.parseInt(unit));
    return s.toString();
  }
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      if (line.startsWith("S\t")) {
        String[] f = line.split("\t", -1);
        Uuid topicId = Uuid.fromString(f[2]);
        String key = String.format("%s:%s:%d", units(f[1]), topicId, Integer.parseInt(f[3]));
        int h = key.hashCode();
        System.out.println(topicId + " " + h + " " + (Utils.abs(h) % 50) + " " + (Utils.abs(h) % 13) + " " + (Utils.abs(h) % 1000));
        continue;
      }
      int h = units(line).hashCode();
      int abs = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
      System.out.println(h + " " + (abs % 50) + " " + (abs % 13));
    }
  }
}
