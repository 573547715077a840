package dev.ember.report;

import dev.ember.logging.JsonReader;

import java.util.Map;

/**
 * A pass that changed a compilation's graph, from its {@code graph_pass_diff} event: the stage
 * ({@code pre_grad}, {@code aot}, {@code post_grad}), the pass, what it does, and the graph before and after.
 */
record PassDiff(String stage, String pass, String description, String before, String after) {

    /** The event's diff, or null when its payload is not the {@code {"before", "after"}} JSON (its artifact page still shows it). */
    static PassDiff of(TraceEvent e) {
        try {
            if (JsonReader.parse(e.payload()) instanceof Map<?, ?> p && p.get("before") instanceof String before && p.get("after") instanceof String after) {
                return new PassDiff(String.valueOf(e.metaString("stage")), String.valueOf(e.metaString("pass")), String.valueOf(e.metaString("description")),
                        before, after);
            }
        } catch (IllegalArgumentException notJson) {
            // shown as written on its artifact page
        }
        return null;
    }

    /** {@code pre_grad.dead_code_elimination} */
    String name() {
        return stage + "." + pass;
    }
}
