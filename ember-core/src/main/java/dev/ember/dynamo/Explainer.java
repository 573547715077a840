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
 * {@code torch._dynamo.explain}, the function really runs (its prints happen). When it raises an
 * exception of its own, the report says so ({@link ExplainOutput#raised}, with the user's line that
 * raised it) after the graphs and breaks so far, instead of throwing it.
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
        Throwable raised = null;
        CompiledFrame compiled = FrameRegistry.frameFor(target.method(), options.withBackend(recording));
        long t0 = System.nanoTime();
        // Only this thread's breaks: others may be compiling at the same time.
        Thread explaining = Thread.currentThread();
        try (var s = CompileEvents.global().subscribe(GraphBreak.class, b -> {
            if (Thread.currentThread() == explaining) breaks.add(new ExplainOutput.BreakReason(b.type() + ": " + b.reason(), b.gbId(), b.userStack()));
        })) {
            compiled.call(target, frame, () -> runEagerly(frame));
        } catch (Throwable t) {
            // The function itself raised: reported with what was compiled up to there, as a run's log
            // shows it. Ember's own failures (a backend's, fullgraph's break, a recompile error) still throw.
            if (UserStackTraces.isEmbers(t.getClass().getName(), "dev.ember.") || t instanceof VirtualMachineError) throw t;
            raised = t;
        }
        times.put("trace", System.nanoTime() - t0 - times.getOrDefault("backend_compile", 0L));
        List<String> guards = new ArrayList<>();
        for (CacheEntry e : compiled.entries()) e.guards().guards().forEach((Guard g) -> guards.add(g.describe()));
        return new ExplainOutput(graphs.size(), breaks.size(), breaks, ops, guards, graphs, times, raised, raised == null ? null : raisedAt(raised, breaks));
    }

    /**
     * The innermost frame of the user's code in {@code t}'s stack trace (not Ember's, not the JDK's),
     * with its source text. Code after a break runs in a hidden class whose frame has no line: the
     * trace's own break that found this exception thrown ("the traced path throws …") says where.
     */
    private dev.ember.events.UserFrame raisedAt(Throwable t, List<ExplainOutput.BreakReason> breaks) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getLineNumber() < 1 && !breaks.isEmpty()) {
                ExplainOutput.BreakReason last = breaks.getLast();
                dev.ember.events.UserFrame f = last.userFrame();
                if (f != null && last.reason().endsWith("throws " + t) && f.className().equals(e.getClassName())
                        && ResumeCodegen.userMethod(f.methodName()).equals(e.getMethodName())) {
                    return new dev.ember.events.UserFrame(f.className(), e.getMethodName(), f.fileName(), f.line(), f.bci(), f.sourceText());
                }
            }
            String cls = e.getClassName();
            if (UserStackTraces.isEmbers(cls, "dev.ember.") || cls.startsWith("java.") || cls.startsWith("jdk.") || cls.startsWith("sun.")) continue;
            String text = null;
            try {
                Class<?> owner = Class.forName(cls, false, target.method().owner().getClassLoader());
                if (e.getLineNumber() > 0) text = SourceLines.line(owner, e.getFileName(), e.getLineNumber());
            } catch (ClassNotFoundException | LinkageError ignored) {
                // a class the target's loader does not see: the frame without its source text
            }
            return new dev.ember.events.UserFrame(cls, e.getMethodName(), e.getFileName(), e.getLineNumber(), -1, text);
        }
        return null;
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
