package dev.ember.logging;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every name {@code EMBER_LOGS} accepts, with TORCH_LOGS' names and meanings. Components first, then the
 * artifacts of each; {@code all} and {@code help} are keywords, not entries.
 */
public final class LogRegistry {
    private LogRegistry() {}

    private static final Map<String, Loggable> ENTRIES = new LinkedHashMap<>();

    static {
        component("dynamo", "Dynamo: bytecode capture, guards, graph breaks, the frame cache");
        component("aot", "AOT autograd: decompositions, joint graph, partitioning");
        component("inductor", "Inductor: lowering, fusion, code generation");
        component("dynamic", "Dynamic shapes: symbols, specializations, shape guards");

        artifact("graph_breaks", "dynamo", false,
                "Every graph break: where in user code, the reason, its GB id and the hint that fixes it");
        artifact("recompiles", "dynamo", false,
                "Why a method was compiled again: the guard of the newest cache entry that failed, in words");
        artifact("recompiles_verbose", "dynamo", true,
                "Like recompiles, but every failing guard of every cache entry, not just the newest");
        artifact("guards", "dynamo", false, "The guards of each new cache entry");
        artifact("graph", "dynamo", false, "The captured FX graph as a table (see graph_code for the code)");
        artifact("graph_code", "dynamo", false, "The captured FX graph as readable code, with a source line per node");
        artifact("graph_sizes", "dynamo", false, "The shape of every node of the captured graph");
        artifact("bytecode", "dynamo", true, "The original and the transformed bytecode of each compiled method");
        artifact("side_effects", "dynamo", false, "Side effects recorded while tracing and replayed after the graph");
        artifact("trace_source", "dynamo", false, "Each user source line as the tracer reaches it");
        artifact("trace_call", "dynamo", false, "Each call the tracer makes a graph node from, with its location");
        artifact("trace_bytecode", "dynamo", false, "Each bytecode instruction the tracer runs, with the value stack");
        artifact("aot_graphs", "aot", false, "The forward and backward graphs after partitioning");
        artifact("aot_joint_graph", "aot", false, "The joint forward-backward graph before partitioning");
        artifact("partitioner", "aot", false, "What the partitioner saved for backward, what it recomputes there, and the bytes each choice costs");
        artifact("pre_grad_graphs", "inductor", false, "The FX graph before the pre-grad passes");
        artifact("post_grad_graphs", "inductor", false, "The FX graph after the post-grad passes, as Inductor lowers it");
        artifact("output_code", "inductor", true, "The code Inductor generates");
        artifact("schedule", "inductor", true, "The scheduler's nodes and their order");
        artifact("fusion", "inductor", true, "Every fusion decision, and why pairs were not fused");
        artifact("perf_hints", "inductor", true, "Places where the generated code is likely slow, and why");
    }

    private static void component(String name, String description) {
        ENTRIES.put(name, new Loggable(name, name, false, false, description));
    }

    private static void artifact(String name, String component, boolean offByDefault, String description) {
        ENTRIES.put(name, new Loggable(name, component, true, offByDefault, description));
    }

    /** The entry of a registered name. */
    public static Optional<Loggable> find(String name) {
        return Optional.ofNullable(ENTRIES.get(name));
    }

    /** All entries: components first, then artifacts, in registration order. */
    public static List<Loggable> all() {
        return List.copyOf(ENTRIES.values());
    }

    /** Every name {@code EMBER_LOGS} accepts, keywords included. */
    public static List<String> validNames() {
        List<String> names = new ArrayList<>(List.of("all", "help"));
        names.addAll(ENTRIES.keySet());
        return names;
    }

    /** The registered name closest to a misspelling, when one is close enough to be a likely typo. */
    public static Optional<String> nearest(String name) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : validNames()) {
            int d = editDistance(name, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        boolean plausible = bestDistance <= Math.max(2, name.length() / 3) || best.startsWith(name) || name.startsWith(best);
        return plausible ? Optional.of(best) : Optional.empty();
    }

    private static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1], cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(substitution, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev; prev = cur; cur = t;
        }
        return prev[b.length()];
    }

    /** The text {@code EMBER_LOGS=help} prints: usage, then every name with its meaning. */
    public static String help() {
        StringBuilder sb = new StringBuilder();
        sb.append("EMBER_LOGS (like TORCH_LOGS): a comma-separated list of names.\n")
          .append("  name    a component at INFO, or an artifact switched on\n")
          .append("  +name   a component at DEBUG (also switches on its artifacts, except those marked *)\n")
          .append("  -name   a component at ERROR (hides its warnings)\n")
          .append("  all     every component (+all: every component at DEBUG)\n")
          .append("Examples: EMBER_LOGS=graph_breaks,recompiles   EMBER_LOGS=+dynamo,graph_code   EMBER_LOGS=-dynamo\n")
          .append("Or in code: Ember.setLogs(\"graph_breaks,guards\") (EMBER_LOGS, when set, wins).\n\n");
        int width = ENTRIES.keySet().stream().mapToInt(String::length).max().orElse(10) + 2;
        sb.append("Components:\n");
        for (Loggable l : ENTRIES.values()) {
            if (!l.artifact()) sb.append(String.format("  %-" + width + "s %s%n", l.name(), l.description()));
        }
        sb.append("Artifacts (* = shown only when named):\n");
        for (Loggable l : ENTRIES.values()) {
            if (l.artifact()) {
                String label = l.name() + (l.offByDefault() ? "*" : "");
                sb.append(String.format("  %-" + width + "s %-9s %s%n", label, "[" + l.component() + "]", l.description()));
            }
        }
        return sb.toString();
    }
}
