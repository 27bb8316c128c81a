// tests/differential/test_protocol_vote_java.py
import java.io.*;
import java.util.*;
// Re-states the vote of ClassicGroup.selectProtocol with the same Java collections:
// members in a HashMap keyed by member id, votes counted in a HashMap<String, Integer>,
// winner taken with stream().max() on the count.
public class VoteDriver {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      Map<String, List<String>> members = new HashMap<>();
      Map<String, Integer> support = new HashMap<>();
      for (String m : line.split(" ")) {
        String[] f = m.split("=");
        List<String> ps = Arrays.asList(f[1].split(","));
        members.put(f[0], ps);
        for (String p : new LinkedHashSet<>(ps)) support.merge(p, 1, Integer::sum);
      }
      Set<String> candidates = new HashSet<>();
      for (Map.Entry<String, Integer> e : support.entrySet())
        if (e.getValue() == members.size()) candidates.add(e.getKey());
      if (candidates.isEmpty()) { System.out.println("-"); continue; }
      Map<String, Integer> votes = new HashMap<>();
      for (List<String> ps : members.values()) {
        String choice = null;
        for (String p : ps) if (candidates.contains(p)) { choice = p; break; }
        votes.put(choice, votes.getOrDefault(choice, 0) + 1);
      }
      System.out.println(votes.entrySet().stream()
          .max(Comparator.comparingInt(Map.Entry::getValue)).map(Map.Entry::getKey).orElse(null));
    }
  }
}
