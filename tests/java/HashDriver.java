// tests/differential/test_hashing_java.py: String.hashCode() and Utils.abs modulo the offsets topic's partitions
import java.io.*;
public class HashDriver {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      StringBuilder s = new StringBuilder();
      for (String unit : line.split(",")) if (!unit.isEmpty()) s.append((char) Integer.parseInt(unit));
      int h = s.toString().hashCode();
      int abs = h == Integer.MIN_VALUE ? 0 : Math.abs(h);
      System.out.println(h + " " + (abs % 50) + " " + (abs % 13));
    }
  }
}
