import org.apache.kafka.coordinator.group.streams.assignor.AssignmentMemberSpec;
import org.apache.kafka.coordinator.group.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.assignor.TopologyDescriber;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

/**
 * Test vectors for kgroup's port of Kafka's streams-group StickyTaskAssignor: random groups
 * (members over processes, a topology, num.standby.replicas, current tasks, stale ones too) and
 * what Kafka's own class answers for each (or the exception it throws), as gzipped JSON.
 *
 * NOT compiled with the other drivers (tests/javadriver.py leaves it out): it needs Kafka's
 * group-coordinator sources, which are not in the kafka-clients jar. scripts/gen_streams_sticky_vectors.py
 * takes them from a Kafka git directory at a given revision, compiles them with this file and runs it.
 *
 * Usage: StickyTaskAssignorVectors SEED COUNT OUT.json.gz KAFKA_LABEL
 *
 * The group spec is built as the coordinator builds it (TargetAssignmentBuilder): a HashMap of
 * member specs, filled in the scenario's member order, each member's tasks a HashMap of HashSets;
 * a scenario whose "order" is "given" uses a LinkedHashMap instead (the member order as listed).
 * For every "java" scenario the generator also runs the assignor on the members in the reverse of
 * the HashMap's order (a LinkedHashMap) and records whether the answer changes ("order_sensitive").
 */
public final class StickyTaskAssignorVectors {

    private static final String[] ODD = {"\uD83D\uDE00", "\uD83D\uDE80", "\uD834\uDD1E", "\uFB01", "\uFF21", "\uE000",
        "\u00E9", "\u6D88", "\u8D39", "a", "A", "z", "-", "_", "0", "9"};

    static final class Sub {
        final String id;
        int partitions;
        boolean stateful;

        Sub(final String id, final int partitions, final boolean stateful) {
            this.id = id;
            this.partitions = partitions;
            this.stateful = stateful;
        }
    }

    static final class Mem {
        final String id;
        final String process;
        String instance;
        String rack;
        final Map<String, String> tags = new LinkedHashMap<>();
        final Map<String, List<Integer>> active = new LinkedHashMap<>();
        final Map<String, List<Integer>> standby = new LinkedHashMap<>();
        final Map<String, List<Integer>> warmup = new LinkedHashMap<>();

        Mem(final String id, final String process) {
            this.id = id;
            this.process = process;
        }
    }

    static final class Scenario {
        String kind;
        String order = "java";
        int replicas;
        final List<Sub> subs = new ArrayList<>();
        final List<Mem> members = new ArrayList<>();
    }

    private final Random rng;

    private StickyTaskAssignorVectors(final long seed) {
        this.rng = new Random(seed);
    }

    public static void main(final String[] args) throws IOException {
        final long seed = Long.parseLong(args[0]);
        final int count = Integer.parseInt(args[1]);
        final String out = args[2];
        final String label = args[3];
        final StickyTaskAssignorVectors gen = new StickyTaskAssignorVectors(seed);
        final StringBuilder sb = new StringBuilder();
        sb.append("{\"kafka\":").append(q(label)).append(",\"seed\":").append(seed)
            .append(",\"generator\":\"tests/java/StickyTaskAssignorVectors.java\",\"scenarios\":[");
        int sensitive = 0;
        int errors = 0;
        for (int i = 0; i < count; i++) {
            final Scenario s = gen.scenario();
            if (i > 0) sb.append(',');
            sb.append('\n');
            final boolean[] flags = gen.emit(sb, s, i);
            if (flags[0]) sensitive++;
            if (flags[1]) errors++;
        }
        sb.append("\n]}\n");
        try (OutputStream os = new GZIPOutputStream(new FileOutputStream(out))) {
            os.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        }
        System.out.println(count + " scenarios, " + sensitive + " order-sensitive, " + errors + " exceptions -> " + out);
    }

    // ------------------------------------------------------------------ names

    private String colliding(final int blocks) {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < blocks; i++) sb.append(rng.nextBoolean() ? "Aa" : "BB");
        return sb.toString();
    }

    private String odd() {
        final StringBuilder sb = new StringBuilder();
        final int n = 1 + rng.nextInt(5);
        for (int i = 0; i < n; i++) sb.append(ODD[rng.nextInt(ODD.length)]);
        return sb.toString();
    }

    private String base64Uuid() {
        final byte[] b = new byte[16];
        rng.nextBytes(b);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private String processName(final String style, final int index) {
        switch (style) {
            case "uuid": return new UUID(rng.nextLong(), rng.nextLong()).toString();
            case "short": return "p" + index;
            case "collide": return colliding(3) + (rng.nextInt(5) == 0 ? "" + index : "");
            default: return odd() + index;
        }
    }

    private String memberName(final String style, final int index) {
        switch (style) {
            case "uuid": return base64Uuid();
            case "plain": return "member-" + index;
            case "collide": return colliding(4) + (rng.nextInt(6) == 0 ? "" + (index % 3) : "");
            case "short": return "" + (char) ('a' + rng.nextInt(26)) + index;
            default: return odd() + index;
        }
    }

    private List<String> unique(final int n, final java.util.function.IntFunction<String> make, final Set<String> taken) {
        final List<String> names = new ArrayList<>();
        int attempts = 0;
        while (names.size() < n) {
            attempts++;
            final String name = attempts < 200 ? make.apply(rng.nextInt(20)) : base64Uuid();
            if (taken.add(name)) names.add(name);
        }
        return names;
    }

    private <T> T pick(final T[] options) {
        return options[rng.nextInt(options.length)];
    }

    // ------------------------------------------------------------------ scenarios

    private final Set<String> memberNames = new HashSet<>();
    private String memberStyle;
    private List<String> processes;

    private Mem newMember() {
        final String id = unique(1, i -> memberName(memberStyle, i), memberNames).get(0);
        final Mem m = new Mem(id, processes.get(rng.nextInt(processes.size())));
        if (rng.nextInt(4) == 0) m.instance = "instance-" + rng.nextInt(100);
        if (rng.nextInt(4) == 0) m.rack = "rack-" + rng.nextInt(3);
        final int tags = rng.nextInt(3);
        for (int t = 0; t < tags; t++) m.tags.put("tag" + t, "v" + rng.nextInt(3));
        return m;
    }

    private Scenario scenario() {
        final Scenario s = new Scenario();
        memberNames.clear();
        memberStyle = pick(new String[]{"uuid", "uuid", "plain", "collide", "collide", "short", "odd"});
        final String processStyle = pick(new String[]{"uuid", "uuid", "short", "collide", "odd"});
        final int numProcesses = 1 + rng.nextInt(5);
        processes = unique(numProcesses, i -> processName(processStyle, i), new HashSet<>());
        final int numMembers = rng.nextInt(30) == 0 ? 0 : 1 + rng.nextInt(10);
        final String subStyle = pick(new String[]{"numeric", "numeric", "gaps", "named"});
        final int numSubs = 1 + rng.nextInt(4);
        final List<String> subIds = new ArrayList<>();
        if (subStyle.equals("numeric")) {
            for (int i = 0; i < numSubs; i++) subIds.add(Integer.toString(i));
        } else if (subStyle.equals("gaps")) {
            subIds.addAll(unique(numSubs, i -> Integer.toString(rng.nextInt(13)), new HashSet<>()));
        } else {
            final String[] names = {"a", "b", "Aa", "BB", "sub-1", "sub-10", "sub-2", "\u6D88\u8D39", "\uD83D\uDE00", "\uFF21"};
            subIds.addAll(unique(numSubs, i -> names[rng.nextInt(names.length)], new HashSet<>()));
        }
        for (final String id : subIds) {
            s.subs.add(new Sub(id, 1 + rng.nextInt(16), rng.nextInt(3) != 0));
        }
        s.replicas = rng.nextInt(3);
        for (int i = 0; i < numMembers; i++) s.members.add(newMember());
        if (rng.nextInt(5) == 0) s.order = "given";

        final int mode = rng.nextInt(20);
        if (mode < 4) {
            s.kind = "fresh";
        } else if (mode < 13) {
            s.kind = "chain";
            chain(s);
        } else {
            s.kind = "random";
            for (final Mem m : s.members) randomTasks(s, m);
        }
        if (rng.nextInt(3) == 0) noise(s);
        return s;
    }

    /** Run the assignor, take its answer as the current tasks, then change the group. */
    private void chain(final Scenario s) {
        if (rng.nextInt(3) == 0) {
            for (final Mem m : s.members) randomTasks(s, m);
        }
        final GroupAssignment first;
        try {
            first = run(s, memberMap(s, s.members));
        } catch (RuntimeException e) {
            return;
        }
        for (final Mem m : s.members) {
            m.active.clear();
            m.standby.clear();
            m.warmup.clear();
            final MemberAssignment a = first.members().get(m.id);
            copyTasks(a.activeTasks(), m.active);
            copyTasks(a.standbyTasks(), m.standby);
        }
        // the change whose effect the what-if asks about
        final int removals = s.members.isEmpty() ? 0 : rng.nextInt(Math.min(4, s.members.size() + 1));
        for (int i = 0; i < removals && !s.members.isEmpty(); i++) {
            s.members.remove(rng.nextInt(s.members.size()));
        }
        if (rng.nextInt(3) == 0 && !processes.isEmpty()) {  // a whole process stops
            final String gone = processes.get(rng.nextInt(processes.size()));
            s.members.removeIf(m -> m.process.equals(gone));
        }
        final int additions = rng.nextInt(4);
        if (rng.nextInt(3) == 0) processes.add(processName("uuid", 0));
        for (int i = 0; i < additions && s.members.size() < 10; i++) s.members.add(newMember());
        if (rng.nextInt(4) == 0) {  // the topology changes
            final Sub sub = s.subs.get(rng.nextInt(s.subs.size()));
            sub.partitions = 1 + rng.nextInt(16);
            if (rng.nextBoolean()) sub.stateful = !sub.stateful;
        }
        if (rng.nextInt(4) == 0) s.replicas = rng.nextInt(3);
        if (rng.nextInt(4) == 0) Collections.shuffle(s.members, rng);
    }

    private static void copyTasks(final Map<String, Set<Integer>> from, final Map<String, List<Integer>> to) {
        for (final Map.Entry<String, Set<Integer>> e : new TreeMap<>(from).entrySet()) {
            to.put(e.getKey(), new ArrayList<>(new TreeSet<>(e.getValue())));
        }
    }

    private void randomTasks(final Scenario s, final Mem m) {
        for (final Sub sub : s.subs) {
            for (int p = 0; p < sub.partitions; p++) {
                final int r = rng.nextInt(Math.max(2, s.members.size() * 2));
                if (r == 0) m.active.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
                else if (r == 1 && sub.stateful) m.standby.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
                else if (r == 2 && rng.nextInt(3) == 0) m.warmup.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
            }
        }
    }

    /** Tasks the coordinator would not hand over as they are: stale, doubled, overlapping. */
    private void noise(final Scenario s) {
        if (s.members.isEmpty()) return;
        final int n = 1 + rng.nextInt(4);
        for (int i = 0; i < n; i++) {
            final Mem m = s.members.get(rng.nextInt(s.members.size()));
            final Sub sub = s.subs.get(rng.nextInt(s.subs.size()));
            final Map<String, List<Integer>> target = pick(new String[]{"active", "standby", "warmup"}).equals("active")
                ? m.active : rng.nextBoolean() ? m.standby : m.warmup;
            switch (rng.nextInt(4)) {
                case 0:  // a partition the subtopology no longer has
                    target.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(sub.partitions + rng.nextInt(4));
                    break;
                case 1:  // a subtopology the topology no longer has
                    target.computeIfAbsent("gone-" + rng.nextInt(2), k -> new ArrayList<>()).add(rng.nextInt(4));
                    break;
                case 2: {  // a task another member holds too, as active
                    final Mem other = s.members.get(rng.nextInt(s.members.size()));
                    final int p = rng.nextInt(sub.partitions);
                    other.active.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
                    m.active.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
                    break;
                }
                default: {  // the same task active and standby in one member or process
                    final int p = rng.nextInt(sub.partitions);
                    m.active.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
                    m.standby.computeIfAbsent(sub.id, k -> new ArrayList<>()).add(p);
                }
            }
        }
        for (final Mem m : s.members) {  // one list per subtopology without repeats, as a record holds them
            for (final Map<String, List<Integer>> tasks : List.of(m.active, m.standby, m.warmup)) {
                tasks.replaceAll((k, v) -> new ArrayList<>(new java.util.LinkedHashSet<>(v)));
            }
        }
    }

    // ------------------------------------------------------------------ Kafka's assignor

    private static Map<String, Set<Integer>> taskMap(final Map<String, List<Integer>> tasks) {
        final Map<String, Set<Integer>> map = new HashMap<>();  // Collectors.toMap + new HashSet<>(list)
        for (final Map.Entry<String, List<Integer>> e : tasks.entrySet()) map.put(e.getKey(), new HashSet<>(e.getValue()));
        return map;
    }

    private static Map<String, AssignmentMemberSpec> memberMap(final Scenario s, final List<Mem> members) {
        final Map<String, AssignmentMemberSpec> map = s.order.equals("java") ? new HashMap<>() : new LinkedHashMap<>();
        fill(map, members);
        return map;
    }

    private static void fill(final Map<String, AssignmentMemberSpec> map, final List<Mem> members) {
        for (final Mem m : members) {
            map.put(m.id, new AssignmentMemberSpec(Optional.ofNullable(m.instance), Optional.ofNullable(m.rack),
                taskMap(m.active), taskMap(m.standby), taskMap(m.warmup), m.process, m.tags, Map.of(), Map.of()));
        }
    }

    private static GroupAssignment run(final Scenario s, final Map<String, AssignmentMemberSpec> members) {
        final Map<String, Sub> byId = new LinkedHashMap<>();
        for (final Sub sub : s.subs) byId.put(sub.id, sub);
        final List<String> ids = new ArrayList<>(byId.keySet());
        final TopologyDescriber topology = new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return ids;
            }

            @Override
            public int maxNumInputPartitions(final String id) {
                final Sub sub = byId.get(id);
                if (sub == null) throw new NoSuchElementException(id);
                return sub.partitions;
            }

            @Override
            public boolean isStateful(final String id) {
                final Sub sub = byId.get(id);
                if (sub == null) throw new NoSuchElementException(id);
                return sub.stateful;
            }
        };
        final Map<String, String> configs = new TreeMap<>(Map.of("num.standby.replicas", Integer.toString(s.replicas)));
        return new StickyTaskAssignor().assign(new GroupSpecImpl(Collections.unmodifiableMap(members), configs), topology);
    }

    private static String answer(final Scenario s, final Map<String, AssignmentMemberSpec> members) {
        final StringBuilder sb = new StringBuilder();
        try {
            final GroupAssignment result = run(s, members);
            sb.append("\"result\":{");
            boolean first = true;
            for (final Map.Entry<String, MemberAssignment> e : new TreeMap<>(result.members()).entrySet()) {
                if (!first) sb.append(',');
                first = false;
                sb.append(q(e.getKey())).append(":{\"active\":");
                tasks(sb, e.getValue().activeTasks());
                sb.append(",\"standby\":");
                tasks(sb, e.getValue().standbyTasks());
                sb.append(",\"warmup\":");
                tasks(sb, e.getValue().warmupTasks());
                sb.append('}');
            }
            sb.append('}');
        } catch (RuntimeException e) {
            sb.append("\"error\":{\"class\":").append(q(e.getClass().getName()))
                .append(",\"message\":").append(q(String.valueOf(e.getMessage()))).append('}');
        }
        return sb.toString();
    }

    /** The scenario and Kafka's answer; returns {order-sensitive, threw}. */
    private boolean[] emit(final StringBuilder sb, final Scenario s, final int index) {
        final Map<String, AssignmentMemberSpec> members = memberMap(s, s.members);
        final String answer = answer(s, members);
        boolean sensitive = false;
        if (s.order.equals("java")) {
            final List<Mem> reversed = new ArrayList<>();
            final Map<String, Mem> byId = new HashMap<>();
            for (final Mem m : s.members) byId.put(m.id, m);
            for (final String id : members.keySet()) reversed.add(0, byId.get(id));
            final Map<String, AssignmentMemberSpec> other = new LinkedHashMap<>();
            fill(other, reversed);
            sensitive = !answer(s, other).equals(answer);
        }
        sb.append("{\"id\":").append(index).append(",\"kind\":").append(q(s.kind))
            .append(",\"order\":").append(q(s.order)).append(",\"num_standby_replicas\":").append(s.replicas)
            .append(",\"subtopologies\":[");
        for (int i = 0; i < s.subs.size(); i++) {
            final Sub sub = s.subs.get(i);
            if (i > 0) sb.append(',');
            sb.append('[').append(q(sub.id)).append(',').append(sub.partitions).append(',').append(sub.stateful).append(']');
        }
        sb.append("],\"members\":[");
        for (int i = 0; i < s.members.size(); i++) {
            final Mem m = s.members.get(i);
            if (i > 0) sb.append(',');
            sb.append("{\"id\":").append(q(m.id)).append(",\"process\":").append(q(m.process));
            if (m.instance != null) sb.append(",\"instance\":").append(q(m.instance));
            if (m.rack != null) sb.append(",\"rack\":").append(q(m.rack));
            sb.append(",\"tags\":{");
            boolean first = true;
            for (final Map.Entry<String, String> t : m.tags.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                sb.append(q(t.getKey())).append(':').append(q(t.getValue()));
            }
            sb.append("},\"active\":");
            lists(sb, m.active);
            sb.append(",\"standby\":");
            lists(sb, m.standby);
            sb.append(",\"warmup\":");
            lists(sb, m.warmup);
            sb.append('}');
        }
        sb.append("],\"order_sensitive\":").append(sensitive).append(',').append(answer).append('}');
        return new boolean[]{sensitive, answer.startsWith("\"error\"")};
    }

    // ------------------------------------------------------------------ JSON

    private static void lists(final StringBuilder sb, final Map<String, List<Integer>> tasks) {
        sb.append('{');
        boolean first = true;
        for (final Map.Entry<String, List<Integer>> e : tasks.entrySet()) {
            if (!first) sb.append(',');
            first = false;
            sb.append(q(e.getKey())).append(':').append(e.getValue().toString().replace(" ", ""));
        }
        sb.append('}');
    }

    private static void tasks(final StringBuilder sb, final Map<String, Set<Integer>> tasks) {
        final Map<String, List<Integer>> sorted = new TreeMap<>();
        for (final Map.Entry<String, Set<Integer>> e : tasks.entrySet()) sorted.put(e.getKey(), new ArrayList<>(new TreeSet<>(e.getValue())));
        lists(sb, sorted);
    }

    private static String q(final String s) {
        final StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}
