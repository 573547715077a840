package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.GraphCaptured;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.fx.Node;
import dev.ember.logging.Trace;
import dev.ember.logging.TraceFrame;
import dev.ember.tensor.FakeTensor;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The compile events in the structured trace ({@code EMBER_TRACE}, read by {@code ember report}):
 * {@code dynamo_start}, the recompile reasons, the graph break reason, the original and modified
 * bytecode, the output graph and the guards. Its compilation metrics are {@link CompileMetrics}'.
 */
final class CompileTrace {
    private CompileTrace() {}

    static void accept(CompileEvent event) {
        switch (event) {
            case FrameStarted f -> {
                var at = f.firstLine();
                Trace.dynamoStart(List.of(new TraceFrame(at.fileName(), at.line(), at.methodName(), at.sourceText())));
            }
            case Recompile r -> Trace.recompileReasons(r.failedGuards());
            case GraphBreak b -> Trace.graphBreak(b.message());
            case Bytecode b when b.generated() != null && Trace.isEnabled() -> Trace.bytecode(b.original().get(), b.generated());
            case GraphCaptured g when Trace.isEnabled() -> {
                Map<String, List<Integer>> sizes = new LinkedHashMap<>();
                for (Node n : g.graph().graph().nodes()) {
                    if (n.val() instanceof FakeTensor t) sizes.put(n.name(), Arrays.stream(t.shape()).boxed().toList());
                }
                Trace.outputGraph(sizes, () -> g.graph().code());
                Trace.guards(g.guards());
            }
            default -> { }
        }
    }
}
