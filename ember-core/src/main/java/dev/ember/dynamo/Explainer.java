package dev.ember.dynamo;

import dev.ember.fx.Backend;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;
import dev.ember.Options;
import dev.ember.dynamo.guards.Guard;
import dev.ember.dynamo.resume.Sneaky;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvents;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code Ember.explain(fn).with(args…)}: runs the function once, compiled in a cache of its own,
 * and reports every graph compiled (the one before each break and those of the resume methods
 * after it), every graph break with its reason and user stack, and the guards. Like
 * {@code torch._dynamo.explain}, the function really runs (its prints happen).
 */
public final class Explainer {
    private final FunctionTarget target;
    private final Options options;

    public Explainer(FunctionTarget target, Options options) {
        this.target = target;
        this.options = options;
    }

    /** Compiles and runs for these arguments (captured values are added in front). */
    public ExplainOutput with(Object... args) {
        Object[] cap = target.captured();
        Object[] frame = new Object[cap.length + args.length];
        System.arraycopy(cap, 0, frame, 0, cap.length);
        System.arraycopy(args, 0, frame, cap.length, args.length);
        List<Integer> ops = new ArrayList<>();
        List<String> graphs = new ArrayList<>();
        Map<String, Long> times = new LinkedHashMap<>();
        Backend inner = options.getBackend();
        // Records each graph and forwards the user's mode as it came: it wraps the backend, both overloads.
        Backend recording = new Backend() {
            @Override
            public CompiledGraph compile(GraphModule gm, List<FakeTensor> inputs) { return compile(gm, inputs, CompileMode.DEFAULT); }

            @Override
            public CompiledGraph compile(GraphModule gm, List<FakeTensor> inputs, CompileMode mode) {
                long t = System.nanoTime();
                CompiledGraph c = inner.compile(gm, inputs, mode);
                times.merge("backend_compile", System.nanoTime() - t, Long::sum);
                ops.add(OutputGraph.opCount(gm.graph()));
                graphs.add(gm.code());
                return c;
            }
        };
        List<ExplainOutput.BreakReason> breaks = new ArrayList<>();
        CompiledFrame compiled = FrameRegistry.frameFor(target.method(), options.withBackend(recording));
        long t0 = System.nanoTime();
        // Only this thread's breaks: others may be compiling at the same time.
        Thread explaining = Thread.currentThread();
        try (var s = CompileEvents.global().subscribe(GraphBreak.class, b -> {
            if (Thread.currentThread() == explaining) breaks.add(new ExplainOutput.BreakReason(b.type() + ": " + b.reason(), b.gbId(), b.userStack()));
        })) {
            compiled.call(target, frame, () -> runEagerly(frame));
        }
        times.put("trace", System.nanoTime() - t0 - times.getOrDefault("backend_compile", 0L));
        List<String> guards = new ArrayList<>();
        for (CacheEntry e : compiled.entries()) e.guards().guards().forEach((Guard g) -> guards.add(g.describe()));
        return new ExplainOutput(graphs.size(), breaks.size(), breaks, ops, guards, graphs, times);
    }

    private Object runEagerly(Object[] frame) {
        var m = target.method();
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(m.owner(), MethodHandles.lookup());
            MethodHandle h = m.isStatic() ? lookup.findStatic(m.owner(), m.name(), (java.lang.invoke.MethodType) m.type().resolveConstantDesc(lookup))
                    : lookup.findVirtual(m.owner(), m.name(), (java.lang.invoke.MethodType) m.type().resolveConstantDesc(lookup));
            return h.invokeWithArguments(frame);
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(t);
        }
    }
}
