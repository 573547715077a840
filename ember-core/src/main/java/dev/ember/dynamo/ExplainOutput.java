package dev.ember.dynamo;

import dev.ember.events.UserFrame;

import java.util.List;
import java.util.Map;

/**
 * What {@code Ember.explain} found: graphs captured, graph breaks with reason, GB id and user
 * stack, ops per graph, guards, and compile time per stage (nanoseconds); and when the function
 * raised an exception, that exception ({@code raised}, with its stack trace as eager's shows it)
 * and the user's line that raised it ({@code raisedAt}, null when no frame of the user's code shows).
 */
public record ExplainOutput(int graphCount, int graphBreakCount, List<BreakReason> breakReasons, List<Integer> opsPerGraph,
                            List<String> guards, List<String> graphs, Map<String, Long> compileTimesNanos,
                            Throwable raised, UserFrame raisedAt) {

    /** A run that returned. */
    public ExplainOutput(int graphCount, int graphBreakCount, List<BreakReason> breakReasons, List<Integer> opsPerGraph,
                         List<String> guards, List<String> graphs, Map<String, Long> compileTimesNanos) {
        this(graphCount, graphBreakCount, breakReasons, opsPerGraph, guards, graphs, compileTimesNanos, null, null);
    }

    /** One graph break: "type: details", its GB id, and where in user code (outermost first). */
    public record BreakReason(String reason, String gbId, List<UserFrame> userStack) {
        public UserFrame userFrame() { return userStack.isEmpty() ? null : userStack.getLast(); }
    }

    public int opCount() { return opsPerGraph.stream().mapToInt(Integer::intValue).sum(); }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append("Graph Count: ").append(graphCount).append('\n');
        sb.append("Graph Break Count: ").append(graphBreakCount).append('\n');
        sb.append("Op Count: ").append(opCount()).append('\n');
        sb.append("Break Reasons:\n");
        for (int i = 0; i < breakReasons.size(); i++) {
            BreakReason b = breakReasons.get(i);
            sb.append("  Break Reason ").append(i + 1).append(" [").append(b.gbId()).append("]:\n");
            sb.append("    Reason: ").append(b.reason()).append('\n');
            sb.append("    User Stack:\n");
            for (UserFrame f : b.userStack()) {
                sb.append("      ").append(f).append(f.sourceText() == null ? "" : ":  " + f.sourceText()).append('\n');
            }
        }
        sb.append("Ops per Graph:\n");
        for (int i = 0; i < opsPerGraph.size(); i++) sb.append("  Graph ").append(i + 1).append(": ").append(opsPerGraph.get(i)).append(" ops\n");
        for (int i = 0; i < graphs.size(); i++) sb.append("Graph ").append(i + 1).append(":\n").append(graphs.get(i).indent(2));
        sb.append("Guards:\n");
        for (String g : guards) sb.append("  ").append(g).append('\n');
        if (raised != null) {
            sb.append("Raised: ").append(raised).append('\n');
            // a line below 1: thrown in code after a break, whose frame the JVM hides (the method is known, the line not)
            if (raisedAt != null) sb.append("  at ").append(raisedAt.line() > 0 ? raisedAt.toString() : raisedAt.toString().replace(":" + raisedAt.line() + " in ", " (line unknown) in "))
                    .append(raisedAt.sourceText() == null ? "" : ":  " + raisedAt.sourceText()).append('\n');
        }
        sb.append("Compile Times:\n");
        compileTimesNanos.forEach((k, v) -> sb.append("  ").append(k).append(": ").append(String.format("%.3f ms", v / 1e6)).append('\n'));
        return sb.toString();
    }
}
