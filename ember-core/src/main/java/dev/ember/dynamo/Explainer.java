package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.fx.GraphModule;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code Ember.explain(fn).with(args…)}: one trace outside the cache, reported as an {@link ExplainOutput}. */
public final class Explainer {
    private final FunctionTarget target;
    private final Options options;

    public Explainer(FunctionTarget target, Options options) {
        this.target = target;
        this.options = options;
    }

    /** Traces and compiles for these arguments (captured values are added in front). */
    public ExplainOutput with(Object... args) {
        Object[] cap = target.captured();
        Object[] frame = new Object[cap.length + args.length];
        System.arraycopy(cap, 0, frame, 0, cap.length);
        System.arraycopy(args, 0, frame, cap.length, args.length);
        Map<String, Long> times = new LinkedHashMap<>();
        long t0 = System.nanoTime();
        Tracer.Result r = Tracer.trace(target, frame);
        times.put("trace", System.nanoTime() - t0);
        List<ExplainOutput.BreakReason> breaks = new ArrayList<>();
        List<Integer> ops = new ArrayList<>();
        List<String> graphs = new ArrayList<>();
        if (r.graphBreak() != null) {
            Unsupported u = r.graphBreak();
            breaks.add(new ExplainOutput.BreakReason(u.type().shortType() + ": " + u.reason(), u.gbId(), u.userStack()));
        } else {
            GraphModule gm = r.graph().toGraphModule();
            long t1 = System.nanoTime();
            if (r.graph().opCount() > 0) options.getBackend().compile(gm, r.graph().exampleInputs());
            times.put("backend_compile", System.nanoTime() - t1);
            ops.add(r.graph().opCount());
            graphs.add(gm.code());
        }
        List<String> guards = new ArrayList<>();
        r.graph().guards().forEach(g -> guards.add(g.describe()));
        return new ExplainOutput(graphs.size(), breaks.size(), breaks, ops, guards, graphs, times);
    }
}
