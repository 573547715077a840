package dev.ember.dynamo;

import dev.ember.Options;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.util.List;

/**
 * Whether a graph break is an error (PyTorch's {@code error_on_graph_break}): the break throws the
 * {@link Unsupported} that {@code fullgraph} throws, instead of splitting the graph. Three places
 * say it, the innermost winning: a region inside the compiled function,
 * {@code try (var s = Ember.errorOnGraphBreak(false)) { … }}, which the tracer follows without a
 * break (as it follows grad-mode scopes); {@code Options.errorOnGraphBreak(b)} for one function;
 * and the same scope run around the call, for every function compiled inside it on this thread.
 * {@code fullgraph(true)} is stronger than all of them: with it every break throws.
 */
public final class ErrorOnGraphBreak {
    /** What scopes run eagerly around calls said, on this thread; null when none is open. */
    private static final ThreadLocal<Boolean> AROUND = new ThreadLocal<>();

    private ErrorOnGraphBreak() {}

    /** The scope run eagerly: compiled functions traced on this thread until it closes take {@code on}, unless their options say otherwise. */
    public static Scope enter(boolean on) {
        Boolean before = AROUND.get();
        AROUND.set(on);
        return new Scope(false, before);
    }

    /** Whether a trace of a function compiled with {@code options} starts with graph breaks as errors. */
    static boolean atEntry(Options options) {
        Boolean set = options.errorOnGraphBreakSetting();
        if (set != null) return set;
        return Boolean.TRUE.equals(AROUND.get());
    }

    /**
     * The options of the resume method of a break where the setting was {@code atBreak}: a region
     * open at the break is still open where the resume method starts, so its setting goes with it.
     */
    static Options forResume(Options options, boolean atBreak) {
        return atBreak == atEntry(options) ? options : options.errorOnGraphBreak(atBreak);
    }

    /** {@code Ember.errorOnGraphBreak(on)} met while tracing: the setting changes from here, and the scope's close() changes it back. */
    static VariableTracker invokeStatic(TraceContext ctx, List<VariableTracker> args) {
        Boolean on = args.getFirst() instanceof ConstantVariable c ? bool(c.value()) : null;
        if (on == null) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "Ember.errorOnGraphBreak with a value only known at run time (" + args.getFirst().describe() + ")");
        }
        boolean before = ctx.errorOnGraphBreak;
        ctx.errorOnGraphBreak = on;
        return ConstantVariable.of(new Scope(true, before));
    }

    /** A scope's {@code close()} while tracing. */
    static VariableTracker scopeMethod(TraceContext ctx, Scope scope, String name) {
        if (!name.equals("close")) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "calling " + name + "() on an errorOnGraphBreak scope");
        if (!scope.traced) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "closing, inside a compiled function, an errorOnGraphBreak scope opened outside it");
        }
        ctx.errorOnGraphBreak = scope.before;
        return null;
    }

    private static Boolean bool(Object v) {
        return switch (v) {
            case Boolean b -> b;
            case Integer i -> i != 0;
            case null, default -> null;
        };
    }

    /**
     * A region of {@code Ember.errorOnGraphBreak(on)}; closing it restores the setting it found. One
     * made while tracing changes only what the tracer does, so running its close() (in code that runs
     * eagerly after a break) changes nothing.
     */
    public static final class Scope implements AutoCloseable {
        private final boolean traced;
        private final Boolean before;
        private boolean closed;

        private Scope(boolean traced, Boolean before) {
            this.traced = traced;
            this.before = before;
        }

        @Override
        public void close() {
            if (traced || closed) return;
            closed = true;
            if (before == null) AROUND.remove();
            else AROUND.set(before);
        }

        @Override
        public String toString() { return "ErrorOnGraphBreak.Scope(" + (traced ? "traced" : "eager") + ", restores " + before + ")"; }
    }
}
