package dev.ember.passes;

import dev.ember.fx.GraphModule;
import dev.ember.logging.Log;
import dev.ember.logging.Trace;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The graph passes, by stage, as PyTorch's inductor runs them: pre-grad passes on the captured
 * graph (mutations and all), post-grad passes on the functional, decomposed graph AOT hands to a
 * backend compiler. Each stage logs the graph before its passes and after each pass that changed
 * it ({@code EMBER_LOGS=pre_grad_graphs,post_grad_graphs}); any pass can be switched off by name
 * with {@code EMBER_DISABLE_PASSES=stage.name,…} (e.g. {@code post_grad.dead_code_elimination}),
 * to see what it does or to rule it out, and an opt-in pass switched on with
 * {@code EMBER_ENABLE_PASSES=stage.name,…}.
 */
public final class PassManager {
    private PassManager() {}

    /** Comma-separated {@code stage.pass} names to skip. */
    public static final String DISABLE_ENV = "EMBER_DISABLE_PASSES";

    /** Comma-separated {@code stage.pass} names of opt-in passes to run. */
    public static final String ENABLE_ENV = "EMBER_ENABLE_PASSES";

    private static final GraphPass DEAD_CODE = new GraphPass("dead_code_elimination",
            "drops nodes whose value nothing uses (never a mutation, a random op, an input or the output)",
            false, false, gm -> gm.graph().eliminateDeadCode());

    /** A stage of passes and the log artifact that shows it. */
    public enum Stage {
        /** On the captured graph, before functionalization. */
        PRE_GRAD("pre_grad", "pre_grad_graphs", List.of(DEAD_CODE, SplitCatNormalization.PASS, ConvBnFolding.PASS, BatchLinearFusion.PASS)),
        /** On the functional graph of core ops, after decomposition. */
        POST_GRAD("post_grad", "post_grad_graphs", List.of(DEAD_CODE));

        private final String id;
        private final String artifact;
        private final List<GraphPass> passes;

        Stage(String id, String artifact, List<GraphPass> passes) {
            this.id = id;
            this.artifact = artifact;
            this.passes = passes;
        }

        public String id() { return id; }

        public List<GraphPass> passes() { return passes; }
    }

    /**
     * Runs {@code stage}'s passes on {@code gm} in order, but for the inference-only ones when the
     * graph is compiled {@code forTraining}; returns the names of the passes that changed it.
     */
    public static List<String> run(Stage stage, GraphModule gm, boolean forTraining) {
        Set<String> disabled = DISABLED.names(), enabled = ENABLED.names();
        Log.artifact(stage.artifact, () -> "BEFORE " + stage.id.toUpperCase() + " PASSES" + (forTraining ? " (compiled for training)" : "") + "\n" + gm.code());
        List<String> changed = new java.util.ArrayList<>();
        for (GraphPass p : stage.passes) {
            String qualified = stage.id + "." + p.name();
            if (disabled.contains(qualified)) {
                Log.artifact(stage.artifact, () -> "SKIPPED " + qualified + " (" + DISABLE_ENV + ")");
                continue;
            }
            if (p.optIn() && !enabled.contains(qualified)) {
                Log.artifact(stage.artifact, () -> "SKIPPED " + qualified + " (opt-in: " + ENABLE_ENV + " does not name it)");
                continue;
            }
            if (forTraining && p.inferenceOnly()) {
                Log.artifact(stage.artifact, () -> "SKIPPED " + qualified + " (inference only; this graph is compiled for training)");
                continue;
            }
            String before = Trace.isEnabled() ? gm.code() : null;   // for the trace's diff of what the pass changed
            if (p.rewrite().test(gm)) {
                changed.add(p.name());
                Log.artifact(stage.artifact, () -> "AFTER " + qualified + " (" + p.description() + ")\n" + gm.code());
                if (before != null) Trace.graphPass(stage.id, p.name(), p.description(), before, gm::code);
            } else {
                Log.artifact(stage.artifact, () -> "UNCHANGED BY " + qualified);
            }
        }
        return changed;
    }

    /**
     * What decides the passes' output besides the graph: the passes switched off and on, and whether
     * the graph is compiled for training. A cache of compiled graphs keys on it, so that switching a
     * pass compiles anew.
     */
    public static String configuration(boolean forTraining) {
        return "disabled=" + DISABLED.names().stream().sorted().toList() + " enabled=" + ENABLED.names().stream().sorted().toList()
                + " training=" + forTraining;
    }

    /** Every {@code stage.pass} name, for messages and docs. */
    public static List<String> names() {
        return Arrays.stream(Stage.values()).flatMap(s -> s.passes.stream().map(p -> s.id + "." + p.name())).toList();
    }

    private static final NameList DISABLED = new NameList(DISABLE_ENV), ENABLED = new NameList(ENABLE_ENV);

    /** Sets the passes to skip as {@link #DISABLE_ENV} would ({@code null}: read the variable again); for tests and tools. */
    public static void disable(String spec) { DISABLED.set(spec); }

    /** Sets the opt-in passes to run as {@link #ENABLE_ENV} would ({@code null}: read the variable again); for tests and tools. */
    public static void enable(String spec) { ENABLED.set(spec); }

    /** Pass names from an environment variable, or from a program that sets them in its place. */
    private static final class NameList {
        private final String env;
        private volatile String override;

        NameList(String env) { this.env = env; }

        void set(String spec) {
            if (spec != null) parse(spec);   // refuse an unknown name here, not at the next compile
            override = spec;
        }

        Set<String> names() { return parse(override != null ? override : System.getenv(env)); }

        private Set<String> parse(String v) {
            if (v == null || v.isBlank()) return Set.of();
            Set<String> names = Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
            List<String> unknown = names.stream().filter(n -> !PassManager.names().contains(n)).sorted().toList();
            if (!unknown.isEmpty()) throw new IllegalArgumentException(env + " names no pass " + unknown + "; the passes are " + PassManager.names());
            return names;
        }
    }
}
