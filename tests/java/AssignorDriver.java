import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Test driver for kgroup's differential assignor test: runs Kafka's own client-side
 * assignors on many scenarios read from stdin, inside one JVM.
 *
 * <p>Every string is written as "_" followed by its UTF-16 code units in hex (4 digits
 * each), "-" stands for null. Input, one scenario at a time:
 * <pre>
 * BEGIN id strategy [ms]   strategy: range | roundrobin | sticky | cooperative-sticky
 *                          | hashorder | hashorder-computeIfAbsent; ms: limit per assignment, in
 *                          milliseconds of CPU time of the thread that runs the assignor
 * T name partitionCount    topic number i is the i-th T line (count 0: not in the metadata)
 * K topic partition rack*  racks of the replicas of one partition (optional)
 * M memberId groupInstanceId rack generation topics owned
 *                          topics: "1,3" (topic numbers) or "-"; owned: "1:0,3:2" or "-"
 * H key                    hashorder only: a String key put into a HashMap
 * END
 * </pre>
 * Output: "RESULT id round", then one line per member in input order "memberNumber t:p,t:p"
 * (or "memberNumber -"), or "ERROR id round ExceptionClass message" (AssignorDriver$Timeout when
 * the assignor did not return in time); "DONE id" ends a scenario.
 * The cooperative-sticky strategy runs two rounds: the second one feeds every member's
 * first-round assignment back as owned partitions with generation max(generation)+1.
 * For hashorder the result lists key numbers in HashMap iteration order (keys added with
 * putIfAbsent, or with computeIfAbsent).
 *
 * <p>Subscriptions go through ConsumerProtocol serialization, as they do between a real
 * consumer and the group leader (this sorts topics and owned partitions). Eager assignors
 * (range, roundrobin, sticky) get no owned partitions, like a consumer that revoked them all
 * before rejoining; StickyAssignor's userData is produced by a StickyAssignor instance that
 * saw the member's previous assignment through onAssignment, as in a real consumer.
 */
public final class AssignorDriver {

    private static final class Member {
        String id;
        String instanceId;
        String rack;
        int generation;
        List<String> topics = new ArrayList<>();
        List<TopicPartition> owned = new ArrayList<>();
    }

    private static final class Scenario {
        String id;
        String strategy;
        List<String> topicNames = new ArrayList<>();
        List<Integer> partitionCounts = new ArrayList<>();
        Map<TopicPartition, List<String>> replicaRacks = new HashMap<>();
        List<Member> members = new ArrayList<>();
        List<String> hashKeys = new ArrayList<>();
        long limitMillis = 60_000;
    }

    private AssignorDriver() {
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16));
        Scenario scenario = null;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty())
                continue;
            String[] f = line.split(" ", -1);
            switch (f[0]) {
                case "BEGIN":
                    scenario = new Scenario();
                    scenario.id = f[1];
                    scenario.strategy = f[2];
                    if (f.length > 3)
                        scenario.limitMillis = Long.parseLong(f[3]);
                    break;
                case "T":
                    scenario.topicNames.add(decode(f[1]));
                    scenario.partitionCounts.add(Integer.parseInt(f[2]));
                    break;
                case "K": {
                    TopicPartition tp = new TopicPartition(scenario.topicNames.get(Integer.parseInt(f[1])), Integer.parseInt(f[2]));
                    List<String> racks = new ArrayList<>();
                    for (int i = 3; i < f.length; i++)
                        racks.add(decode(f[i]));
                    scenario.replicaRacks.put(tp, racks);
                    break;
                }
                case "M":
                    scenario.members.add(parseMember(scenario, f));
                    break;
                case "H":
                    scenario.hashKeys.add(decode(f[1]));
                    break;
                case "END":
                    run(scenario, out);
                    out.println("DONE " + scenario.id);
                    out.flush();  // what is answered is known even if the JVM is killed later
                    scenario = null;
                    break;
                default:
                    throw new IllegalArgumentException("bad input line: " + line);
            }
        }
        out.flush();
    }

    private static Member parseMember(Scenario scenario, String[] f) {
        Member m = new Member();
        m.id = decode(f[1]);
        m.instanceId = decode(f[2]);
        m.rack = decode(f[3]);
        m.generation = Integer.parseInt(f[4]);
        if (!f[5].equals("-"))
            for (String t : f[5].split(","))
                m.topics.add(scenario.topicNames.get(Integer.parseInt(t)));
        if (!f[6].equals("-"))
            for (String tp : f[6].split(",")) {
                int colon = tp.indexOf(':');
                m.owned.add(new TopicPartition(scenario.topicNames.get(Integer.parseInt(tp.substring(0, colon))),
                        Integer.parseInt(tp.substring(colon + 1))));
            }
        return m;
    }

    private static void run(Scenario scenario, PrintWriter out) {
        if (scenario.strategy.startsWith("hashorder")) {
            boolean computeIfAbsent = scenario.strategy.equals("hashorder-computeIfAbsent");
            Map<String, Integer> map = new HashMap<>();
            for (int i = 0; i < scenario.hashKeys.size(); i++) {
                int index = i;
                if (computeIfAbsent)
                    map.computeIfAbsent(scenario.hashKeys.get(i), k -> index);
                else
                    map.putIfAbsent(scenario.hashKeys.get(i), i);
            }
            out.println("RESULT " + scenario.id + " 1");
            for (Integer index : map.values())
                out.println(index);
            return;
        }
        Cluster cluster = cluster(scenario);
        List<Member> members = scenario.members;
        int rounds = scenario.strategy.equals("cooperative-sticky") ? 2 : 1;
        for (int round = 1; round <= rounds; round++) {
            Map<String, List<TopicPartition>> result;
            try {
                result = assignWithTimeout(scenario.strategy, cluster, members, scenario.limitMillis);
            } catch (Throwable e) {
                String message = String.valueOf(e.getMessage()).replace('\n', ' ').replace('\r', ' ');
                out.println("ERROR " + scenario.id + " " + round + " " + e.getClass().getName() + " " + message);
                return;
            }
            out.println("RESULT " + scenario.id + " " + round);
            Map<String, Integer> topicIndex = new HashMap<>();
            for (int i = 0; i < scenario.topicNames.size(); i++)
                topicIndex.putIfAbsent(scenario.topicNames.get(i), i);
            for (int i = 0; i < members.size(); i++) {
                List<TopicPartition> partitions = result.get(members.get(i).id);
                StringBuilder sb = new StringBuilder().append(i).append(' ');
                if (partitions == null) {
                    sb.append("MISSING");
                } else if (partitions.isEmpty()) {
                    sb.append('-');
                } else {
                    for (int j = 0; j < partitions.size(); j++) {
                        TopicPartition tp = partitions.get(j);
                        if (j > 0)
                            sb.append(',');
                        sb.append(topicIndex.get(tp.topic())).append(':').append(tp.partition());
                    }
                }
                out.println(sb);
            }
            if (round < rounds)
                members = nextRound(members, result);
        }
    }

    /** Every member reports its assignment as owned partitions in the generation just completed. */
    private static List<Member> nextRound(List<Member> members, Map<String, List<TopicPartition>> result) {
        int maxGeneration = -1;
        for (Member m : members)
            maxGeneration = Math.max(maxGeneration, m.generation);
        List<Member> next = new ArrayList<>();
        for (Member m : members) {
            Member n = new Member();
            n.id = m.id;
            n.instanceId = m.instanceId;
            n.rack = m.rack;
            n.generation = maxGeneration + 1;
            n.topics = m.topics;
            n.owned = new ArrayList<>(result.get(m.id));
            next.add(n);
        }
        return next;
    }

    private static Cluster cluster(Scenario scenario) {
        Node noRack = new Node(0, "broker-0", 9092);
        Map<String, Node> rackNodes = new LinkedHashMap<>();
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int t = 0; t < scenario.topicNames.size(); t++) {
            String topic = scenario.topicNames.get(t);
            for (int p = 0; p < scenario.partitionCounts.get(t); p++) {
                List<String> racks = scenario.replicaRacks.get(new TopicPartition(topic, p));
                Node[] replicas;
                if (racks == null || racks.isEmpty()) {
                    replicas = new Node[] {noRack};
                } else {
                    replicas = new Node[racks.size()];
                    for (int r = 0; r < racks.size(); r++) {
                        String rack = racks.get(r);
                        replicas[r] = rackNodes.computeIfAbsent(rack,
                            k -> new Node(rackNodes.size() + 1, "broker-" + (rackNodes.size() + 1), 9092, k));
                    }
                }
                partitions.add(new PartitionInfo(topic, p, replicas[0], replicas, replicas));
            }
        }
        List<Node> nodes = new ArrayList<>();
        nodes.add(noRack);
        nodes.addAll(rackNodes.values());
        return new Cluster("kgroup-test", nodes, partitions, Collections.emptySet(), Collections.emptySet());
    }

    /** Thrown when Kafka's assignor did not return within the scenario's limit. */
    private static final class Timeout extends RuntimeException {
        Timeout(long millis) {
            super("no result after " + millis + " ms of CPU time");
        }
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * Runs one assignment in a worker thread: some inputs make Kafka's sticky assignors loop
     * forever, and the driver must survive them (the looping thread is stopped). The limit is the
     * worker's own CPU time, not the clock's: on a busy machine the assignor gets what it would
     * have had on an idle one before it is said not to return.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static Map<String, List<TopicPartition>> assignWithTimeout(String strategy, Cluster cluster,
                                                                      List<Member> members, long limitMillis) throws Throwable {
        Object[] outcome = new Object[2];
        Thread worker = new Thread(() -> {
            try {
                outcome[0] = assignOnce(strategy, cluster, members);
            } catch (Throwable e) {
                outcome[1] = e;
            }
        }, "assignor");
        worker.setDaemon(true);
        worker.start();
        long limitNanos = limitMillis * 1_000_000L;
        while (worker.isAlive()) {
            worker.join(10);  // returns as soon as the worker ends
            long used = THREADS.getThreadCpuTime(worker.getId());  // -1 once it has ended
            if (used >= limitNanos && worker.isAlive()) {
                try {
                    worker.stop();
                } catch (UnsupportedOperationException e) {
                    // newer JDKs cannot stop threads: leave the daemon thread spinning
                }
                throw new Timeout(limitMillis);
            }
        }
        if (outcome[1] != null)
            throw (Throwable) outcome[1];
        @SuppressWarnings("unchecked")
        Map<String, List<TopicPartition>> result = (Map<String, List<TopicPartition>>) outcome[0];
        return result;
    }

    private static Map<String, List<TopicPartition>> assignOnce(String strategy, Cluster cluster, List<Member> members) {
        // ConsumerCoordinator.onLeaderElected collects the subscriptions into a plain HashMap
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (Member m : members) {
            Subscription subscription = subscription(strategy, m);
            ByteBuffer wire = ConsumerProtocol.serializeSubscription(subscription);
            Subscription received = ConsumerProtocol.deserializeSubscription(wire);
            received.setGroupInstanceId(Optional.ofNullable(m.instanceId));
            subscriptions.put(m.id, received);
        }
        ConsumerPartitionAssignor assignor = assignor(strategy);
        Map<String, Assignment> assignments = assignor.assign(cluster, new GroupSubscription(subscriptions)).groupAssignment();
        Map<String, List<TopicPartition>> result = new HashMap<>();
        for (Map.Entry<String, Assignment> e : assignments.entrySet())
            result.put(e.getKey(), e.getValue().partitions());
        return result;
    }

    private static ConsumerPartitionAssignor assignor(String strategy) {
        switch (strategy) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "sticky":
                return new StickyAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new IllegalArgumentException("unknown strategy " + strategy);
        }
    }

    /** The Subscription a real consumer of this strategy would send, with its assignor's userData. */
    private static Subscription subscription(String strategy, Member m) {
        Optional<String> rack = Optional.ofNullable(m.rack);
        Set<String> topicSet = new HashSet<>(m.topics);
        ConsumerGroupMetadata metadata = new ConsumerGroupMetadata("kgroup-test", m.generation, m.id, Optional.ofNullable(m.instanceId));
        switch (strategy) {
            case "sticky": {
                StickyAssignor memberAssignor = new StickyAssignor();
                // a consumer that was assigned something (even nothing) in a generation sends it as userData
                if (m.generation >= 0 || !m.owned.isEmpty())
                    memberAssignor.onAssignment(new Assignment(new ArrayList<>(m.owned)), metadata);
                return new Subscription(m.topics, memberAssignor.subscriptionUserData(topicSet),
                        Collections.emptyList(), m.generation, rack);
            }
            case "cooperative-sticky": {
                CooperativeStickyAssignor memberAssignor = new CooperativeStickyAssignor();
                if (m.generation >= 0)
                    memberAssignor.onAssignment(new Assignment(new ArrayList<>(m.owned)), metadata);
                return new Subscription(m.topics, memberAssignor.subscriptionUserData(topicSet),
                        m.owned, m.generation, rack);
            }
            default:
                // eager protocol: partitions were revoked before joining, no userData
                return new Subscription(m.topics, null, Collections.emptyList(), m.generation, rack);
        }
    }

    private static String decode(String token) {
        if (token.equals("-"))
            return null;
        if (!token.startsWith("_"))
            throw new IllegalArgumentException("bad string token " + token);
        StringBuilder sb = new StringBuilder((token.length() - 1) / 4);
        for (int i = 1; i + 4 <= token.length(); i += 4)
            sb.append((char) Integer.parseInt(token.substring(i, i + 4), 16));
        return sb.toString();
    }
}
