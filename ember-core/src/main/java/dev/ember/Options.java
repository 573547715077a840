package dev.ember;

import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * How {@link Ember#compile} compiles: the backend (a name or a {@link Backend}), whether a graph
 * break is an error ({@code fullgraph}), the recompile limit and what happens when it is hit.
 * Immutable; each setter returns a new instance:
 * {@code Options.backend("eager").fullgraph(true).recompileLimit(4)}.
 */
public final class Options {
    private static final Options DEFAULTS = new Options();

    private String backendName = "inductor";
    private Backend backend;
    private boolean fullgraph;
    /** null: automatic dynamic (the default); true: dynamic from the first compile; false: never. */
    private Boolean dynamic;
    private CompileMode mode = CompileMode.DEFAULT;
    private int recompileLimit = 8;
    private boolean failOnRecompileLimitHit;
    private boolean reorderableLogging = true;
    private Set<String> ignoredLogging = Set.of();
    private boolean captureScalarOutputs;
    private boolean specializeFloat;
    /** The accuracy rule's default tolerance (the repro levels' and the fuzzer's; {@code dev.ember.debug.Accuracy}). */
    public static final double DEFAULT_TOLERANCE = 1e-3;

    private double reproTolerance = DEFAULT_TOLERANCE;
    private boolean suppressErrors;
    /** null: unset (a scope around the call decides, else false). */
    private Boolean errorOnGraphBreak;

    private Options() {}

    /** A copy with one setting changed: instances are never modified after they are returned. */
    private Options with(Consumer<Options> change) {
        Options o = new Options();
        o.backendName = backendName;
        o.backend = backend;
        o.fullgraph = fullgraph;
        o.dynamic = dynamic;
        o.mode = mode;
        o.recompileLimit = recompileLimit;
        o.failOnRecompileLimitHit = failOnRecompileLimitHit;
        o.reorderableLogging = reorderableLogging;
        o.ignoredLogging = ignoredLogging;
        o.captureScalarOutputs = captureScalarOutputs;
        o.specializeFloat = specializeFloat;
        o.reproTolerance = reproTolerance;
        o.suppressErrors = suppressErrors;
        o.errorOnGraphBreak = errorOnGraphBreak;
        change.accept(o);
        return o;
    }

    /**
     * Backend {@code inductor} (as torch.compile's default), no fullgraph, recompile limit 8,
     * reorderable logging on. {@code eager} and {@code aot_eager} stay for debugging.
     */
    public static Options defaults() { return DEFAULTS; }

    /** Defaults with a backend registered under {@code name} ({@code "inductor"}, {@code "aot_eager"}, {@code "eager"}, or a user's). */
    public static Options backend(String name) {
        Backends.get(name);
        return DEFAULTS.withBackendName(name);
    }

    /** Defaults with this backend object (e.g. a {@code CompileCounter}). */
    public static Options backend(Backend backend) { return DEFAULTS.withBackend(backend); }

    /** Defaults with fullgraph on: the first graph break throws {@code Unsupported}. */
    public static Options fullgraph() { return DEFAULTS.fullgraph(true); }

    public Options withBackendName(String name) {
        Backends.get(name);
        return with(o -> {
            o.backendName = name;
            o.backend = null;
        });
    }

    public Options withBackend(Backend b) {
        Objects.requireNonNull(b, "backend");
        return with(o -> {
            o.backendName = null;
            o.backend = b;
        });
    }

    public Options fullgraph(boolean on) { return with(o -> o.fullgraph = on); }

    /**
     * PyTorch's {@code error_on_graph_break}: on, a graph break throws the {@code Unsupported} that
     * {@code fullgraph} throws, except inside a {@code try (var s = Ember.errorOnGraphBreak(false))}
     * region of the function; off, a break splits the graph, except inside an
     * {@code Ember.errorOnGraphBreak(true)} region. Unset (the default), a scope open around the call
     * decides, else off. {@code fullgraph(true)} wins over all of these. See docs/stances.md.
     */
    public Options errorOnGraphBreak(boolean on) { return with(o -> o.errorOnGraphBreak = on); }

    /**
     * PyTorch's {@code dynamic}: true makes int and long inputs graph inputs and tensor sizes of 2 or
     * more symbols from the first compile; false specializes every one (a new value or size
     * recompiles); unset (the default) is automatic dynamic, where an input or size whose guard failed
     * becomes an input or a symbol at the recompile. A use that needs the value (a loop bound, an
     * index, an equality) specializes it after all; {@code Ember.markDynamic}/{@code markStatic}
     * override this for one dimension. See docs/dynamic.md.
     */
    public Options dynamic(boolean on) { return with(o -> o.dynamic = on); }

    /**
     * PyTorch's {@code assume_static_by_default}: true (the default) specializes sizes and ints until
     * they change (automatic dynamic); false makes them dynamic from the first compile, as
     * {@code dynamic(true)}.
     */
    public Options assumeStaticByDefault(boolean on) { return with(o -> o.dynamic = on ? null : Boolean.TRUE); }

    /**
     * Inductor's mode: "default"; "max-autotune" (times kernel variants and keeps the fastest); or
     * "reduce-overhead" (a compiled graph writes its outputs into the same arrays every call, so a
     * warm call allocates nothing; an output of the previous call is overwritten, and reading it
     * throws: clone() what you keep). See docs/compile.md. The name is parsed here, once: the
     * backend gets a {@link CompileMode}.
     *
     * @throws IllegalArgumentException for any other name
     */
    public Options mode(String m) {
        Objects.requireNonNull(m);
        return mode(CompileMode.parse(m));
    }

    /** {@link #mode(String)} by value: {@code Options.defaults().mode(CompileMode.MAX_AUTOTUNE)}. */
    public Options mode(CompileMode m) {
        Objects.requireNonNull(m);
        return with(o -> o.mode = m);
    }

    /** How many cache entries a compiled method may hold before it runs eagerly for new inputs (default 8). */
    public Options recompileLimit(int limit) {
        if (limit < 1) throw new IllegalArgumentException("recompileLimit must be at least 1, got " + limit);
        return with(o -> o.recompileLimit = limit);
    }

    /** When true, hitting the recompile limit throws instead of falling back to eager. */
    public Options failOnRecompileLimitHit(boolean on) { return with(o -> o.failOnRecompileLimitHit = on); }

    /**
     * Whether printing and logging calls ({@code System.out/err.print/println/printf/format},
     * {@code System.Logger.log}, {@code java.util.logging.Logger} levels) whose arguments are
     * constants or tensors are recorded while tracing and replayed after the graph instead of
     * breaking it, like PyTorch's {@code reorderable_logging_functions} (default on). Off, each such
     * call is a graph break (GB0005).
     */
    public Options reorderableLogging(boolean on) { return with(o -> o.reorderableLogging = on); }

    /**
     * Logging methods dropped from the trace (PyTorch's {@code ignore_logging_functions}), named
     * {@code class.method} with the class's binary name, e.g. {@code "java.util.logging.Logger.fine"}
     * or {@code "java.lang.System$Logger.log"}. A compiled function never makes these calls.
     */
    public Options ignoreLogging(Set<String> methods) {
        Set<String> copy = Set.copyOf(methods);
        return with(o -> o.ignoredLogging = copy);
    }

    /**
     * Whether {@code Tensor.item()} and {@code longItem()} stay in the graph (PyTorch's
     * {@code capture_scalar_outputs}, default off). On, the read becomes a {@code _local_scalar_dense}
     * node giving a 0-d tensor that stands for the Java number: tensor ops taking it as their scalar
     * and Java arithmetic on it become graph ops; anything else that needs its value (a comparison,
     * a JDK call, returning or storing it, string concatenation) is a graph break (GB0001). Off,
     * every such read is a graph break (GB0001).
     */
    public Options captureScalarOutputs(boolean on) { return with(o -> o.captureScalarOutputs = on); }

    /**
     * Whether a {@code double} the frame receives (an argument, a resume method's carried value, an
     * {@code item()} result after a break) is a constant of the graph, guarded by its exact value
     * (on), or an input of the graph (off, the default, as PyTorch's {@code specialize_float=False}):
     * a 0-d float64 tensor the graph computes with, so a new value runs the same compiled code. A
     * use that needs the value while tracing (a branch on it, a JDK call, a loop bound) specializes
     * that double after all: the frame is traced again with it as a guarded constant.
     */
    public Options specializeFloat(boolean on) { return with(o -> o.specializeFloat = on); }

    /**
     * The tolerance of the accuracy check at {@code EMBER_REPRO_LEVEL=4} and of the minifier's
     * accuracy failures (PyTorch's {@code repro_tolerance}, default 1e-3): compiled outputs within it
     * of eager's pass at once; beyond it they must be as close to a float64 run as eager is
     * ({@code dev.ember.debug.Accuracy}). Must be positive.
     */
    public Options reproTolerance(double tol) {
        if (!(tol > 0) || Double.isInfinite(tol)) throw new IllegalArgumentException("reproTolerance must be a positive number, got " + tol);
        return with(o -> o.reproTolerance = tol);
    }

    /**
     * When true, a backend that throws while compiling a graph does not fail the call: the graph
     * runs eagerly (op by op) from then on, after one warning naming the backend, the graph and the
     * cause (PyTorch's {@code suppress_errors}). Off (the default), the call throws
     * {@link BackendCompilerFailed}. {@code EMBER_SUPPRESS_ERRORS=1} turns it on for every compile.
     */
    public Options suppressErrors(boolean on) { return with(o -> o.suppressErrors = on); }

    /** Replaces every backend given by name, for the whole process: {@code EMBER_BACKEND=eager|aot_eager|inductor|<registered name>}. */
    public static final String BACKEND_ENV = "EMBER_BACKEND";
    /** The same as a system property, read first. */
    public static final String BACKEND_PROPERTY = "ember.backend";

    /**
     * The backend: the one named here, unless {@code EMBER_BACKEND} (or {@code -Dember.backend}) names
     * another, which then compiles every graph whose backend was given by name — the defaults'
     * {@code inductor} included; a {@link Backend} object passed in stays. This is how a run is
     * repeated with {@code eager} or {@code aot_eager} without editing it ({@code ember bisect} does).
     * A mode other than {@link CompileMode#DEFAULT} reaches only the backend it was set for: forced to another,
     * the graph compiles in mode default.
     *
     * @throws IllegalArgumentException when EMBER_BACKEND names no registered backend
     */
    public Backend getBackend() {
        if (backend != null) return backend;
        String forced = forcedBackend();
        if (forced == null || forced.equals(backendName)) return Backends.get(backendName);
        Backend b = Backends.get(forced);
        return new Backend() {
            @Override
            public CompiledGraph compile(GraphModule gm, List<FakeTensor> inputs) {
                return b.compile(gm, inputs);
            }

            @Override
            public CompiledGraph compile(GraphModule gm, List<FakeTensor> inputs, CompileMode mode) {
                return b.compile(gm, inputs);
            }

            @Override
            public boolean compilesSymbolicSizes() { return b.compilesSymbolicSizes(); }
        };
    }

    /** The backend's registered name (the forced one under EMBER_BACKEND), or its class name for a backend object. */
    public String getBackendName() {
        if (backend != null) return backend.getClass().getSimpleName();
        String forced = forcedBackend();
        return forced != null ? forced : backendName;
    }

    /** The backend EMBER_BACKEND (or {@code -Dember.backend}) forces, or null. */
    private static String forcedBackend() {
        String property = System.getProperty(BACKEND_PROPERTY);
        String value = property != null ? property : System.getenv(BACKEND_ENV);
        if (value == null || value.isBlank()) return null;
        String name = value.strip();
        try {
            Backends.get(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException((property != null ? "-D" + BACKEND_PROPERTY : BACKEND_ENV) + "=" + value + ": " + e.getMessage());
        }
        return name;
    }

    public boolean isFullgraph() { return fullgraph; }

    /** {@code errorOnGraphBreak} as set: true, false, or null when unset. */
    public Boolean errorOnGraphBreakSetting() { return errorOnGraphBreak; }

    /** Whether {@code dynamic(true)} was set. */
    public boolean isDynamic() { return Boolean.TRUE.equals(dynamic); }

    /** {@code dynamic} as set: true, false, or null for automatic. */
    public Boolean dynamicSetting() { return dynamic; }

    public CompileMode getMode() { return mode; }

    public int getRecompileLimit() { return recompileLimit; }

    public boolean isFailOnRecompileLimitHit() { return failOnRecompileLimitHit; }

    public boolean isReorderableLogging() { return reorderableLogging; }

    public Set<String> getIgnoredLogging() { return ignoredLogging; }

    public boolean isCaptureScalarOutputs() { return captureScalarOutputs; }

    public boolean isSpecializeFloat() { return specializeFloat; }

    public double getReproTolerance() { return reproTolerance; }

    public boolean isSuppressErrors() { return suppressErrors; }

    @Override
    public boolean equals(Object o) {
        return o instanceof Options x && Objects.equals(backendName, x.backendName) && backend == x.backend && fullgraph == x.fullgraph
                && Objects.equals(dynamic, x.dynamic) && mode == x.mode && recompileLimit == x.recompileLimit
                && failOnRecompileLimitHit == x.failOnRecompileLimitHit && reorderableLogging == x.reorderableLogging
                && ignoredLogging.equals(x.ignoredLogging) && captureScalarOutputs == x.captureScalarOutputs
                && specializeFloat == x.specializeFloat
                && reproTolerance == x.reproTolerance && suppressErrors == x.suppressErrors && Objects.equals(errorOnGraphBreak, x.errorOnGraphBreak);
    }

    @Override
    public int hashCode() {
        return Objects.hash(backendName, System.identityHashCode(backend), fullgraph, dynamic, mode, recompileLimit, failOnRecompileLimitHit, reorderableLogging,
                ignoredLogging, captureScalarOutputs, specializeFloat, reproTolerance, suppressErrors, errorOnGraphBreak);
    }

    @Override
    public String toString() {
        return "Options(backend=" + getBackendName() + ", fullgraph=" + fullgraph + ", dynamic=" + dynamic + ", mode=" + mode
                + ", recompileLimit=" + recompileLimit + ", failOnRecompileLimitHit=" + failOnRecompileLimitHit + ", reorderableLogging=" + reorderableLogging
                + ", ignoreLogging=" + ignoredLogging + ", specializeFloat=" + specializeFloat + ", reproTolerance=" + reproTolerance + ", suppressErrors=" + suppressErrors
                + (errorOnGraphBreak == null ? "" : ", errorOnGraphBreak=" + errorOnGraphBreak) + ")";
    }
}
