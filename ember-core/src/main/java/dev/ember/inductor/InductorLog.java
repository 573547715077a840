package dev.ember.inductor;

import java.util.Set;
import java.util.function.Supplier;

/**
 * The inductor's logs — {@code output_code}, {@code schedule}, {@code fusion}, {@code perf_hints}
 * and {@code inductor} (cache hits and misses) — switched on by name in {@code EMBER_LOGS} (or the
 * {@code ember.logs} system property), printed to stderr.
 */
final class InductorLog {
    private InductorLog() {}

    private static volatile Set<String> enabled = parse();

    private static Set<String> parse() {
        String spec = System.getProperty("ember.logs", System.getenv().getOrDefault("EMBER_LOGS", ""));
        Set<String> out = new java.util.HashSet<>();
        for (String s : spec.split(",")) {
            String n = s.strip().replaceFirst("^[+-]", "");
            if (!n.isEmpty()) out.add(n);
        }
        return out;
    }

    /** Re-reads the switches (tests set the system property). */
    static void refresh() { enabled = parse(); }

    static boolean isEnabled(String name) { return enabled.contains(name) || enabled.contains("all"); }

    static void log(String name, Supplier<String> text) {
        if (isEnabled(name)) System.err.println("[ember " + name + "] " + text.get());
    }
}
