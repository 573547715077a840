package dev.ember;

import dev.ember.dynamo.Backend;
import dev.ember.dynamo.Backends;

import java.util.Objects;

/**
 * How {@link Ember#compile} compiles: the backend (a name or a {@link Backend}), whether a graph
 * break is an error ({@code fullgraph}), the recompile limit and what happens when it is hit.
 * Immutable; each setter returns a new instance:
 * {@code Options.backend("eager").fullgraph(true).recompileLimit(4)}.
 */
public final class Options {
    private static final Options DEFAULTS = new Options("eager", null, false, false, "default", 8, false);

    private final String backendName;
    private final Backend backend;
    private final boolean fullgraph;
    private final boolean dynamic;
    private final String mode;
    private final int recompileLimit;
    private final boolean failOnRecompileLimitHit;

    private Options(String backendName, Backend backend, boolean fullgraph, boolean dynamic, String mode, int recompileLimit,
                    boolean failOnRecompileLimitHit) {
        this.backendName = backendName;
        this.backend = backend;
        this.fullgraph = fullgraph;
        this.dynamic = dynamic;
        this.mode = mode;
        this.recompileLimit = recompileLimit;
        this.failOnRecompileLimitHit = failOnRecompileLimitHit;
    }

    /** Backend {@code eager}, no fullgraph, recompile limit 8. */
    public static Options defaults() { return DEFAULTS; }

    /** Defaults with a backend registered under {@code name} ({@code "eager"}, later {@code "aot_eager"}, {@code "inductor"}). */
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
        return new Options(name, null, fullgraph, dynamic, mode, recompileLimit, failOnRecompileLimitHit);
    }

    public Options withBackend(Backend b) {
        return new Options(null, Objects.requireNonNull(b, "backend"), fullgraph, dynamic, mode, recompileLimit, failOnRecompileLimitHit);
    }

    public Options fullgraph(boolean on) { return new Options(backendName, backend, on, dynamic, mode, recompileLimit, failOnRecompileLimitHit); }

    /** Reserved for dynamic shapes (not implemented yet: shapes are always specialised). */
    public Options dynamic(boolean on) { return new Options(backendName, backend, fullgraph, on, mode, recompileLimit, failOnRecompileLimitHit); }

    /** Reserved for inductor modes ("default", "reduce-overhead", "max-autotune"). */
    public Options mode(String m) { return new Options(backendName, backend, fullgraph, dynamic, Objects.requireNonNull(m), recompileLimit, failOnRecompileLimitHit); }

    /** How many cache entries a compiled method may hold before it runs eagerly for new inputs (default 8). */
    public Options recompileLimit(int limit) {
        if (limit < 1) throw new IllegalArgumentException("recompileLimit must be at least 1, got " + limit);
        return new Options(backendName, backend, fullgraph, dynamic, mode, limit, failOnRecompileLimitHit);
    }

    /** When true, hitting the recompile limit throws instead of falling back to eager. */
    public Options failOnRecompileLimitHit(boolean on) { return new Options(backendName, backend, fullgraph, dynamic, mode, recompileLimit, on); }

    public Backend getBackend() { return backend != null ? backend : Backends.get(backendName); }

    /** The backend's registered name, or its class name for a backend object. */
    public String getBackendName() { return backendName != null ? backendName : backend.getClass().getSimpleName(); }

    public boolean isFullgraph() { return fullgraph; }

    public boolean isDynamic() { return dynamic; }

    public String getMode() { return mode; }

    public int getRecompileLimit() { return recompileLimit; }

    public boolean isFailOnRecompileLimitHit() { return failOnRecompileLimitHit; }

    @Override
    public boolean equals(Object o) {
        return o instanceof Options x && Objects.equals(backendName, x.backendName) && backend == x.backend && fullgraph == x.fullgraph
                && dynamic == x.dynamic && mode.equals(x.mode) && recompileLimit == x.recompileLimit
                && failOnRecompileLimitHit == x.failOnRecompileLimitHit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(backendName, System.identityHashCode(backend), fullgraph, dynamic, mode, recompileLimit, failOnRecompileLimitHit);
    }

    @Override
    public String toString() {
        return "Options(backend=" + getBackendName() + ", fullgraph=" + fullgraph + ", dynamic=" + dynamic + ", mode=" + mode
                + ", recompileLimit=" + recompileLimit + ", failOnRecompileLimitHit=" + failOnRecompileLimitHit + ")";
    }
}
