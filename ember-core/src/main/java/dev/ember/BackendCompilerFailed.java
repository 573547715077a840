package dev.ember;

import java.nio.file.Path;

/**
 * A backend threw while compiling a captured graph (PyTorch's {@code BackendCompilerFailed}). The
 * message names the backend, the function and compile id, the graph's size and source lines, and
 * the cause; then how to get a repro (the launcher's folder when a repro level wrote one, else the
 * switches that write one) and how to go on without the backend. {@link #getCause()} is the
 * backend's own exception.
 */
public final class BackendCompilerFailed extends RuntimeException {
    /** {@code 1} runs graphs whose backend fails eagerly, after one warning, for every compile. */
    public static final String SUPPRESS_ENV = "EMBER_SUPPRESS_ERRORS";

    private final String backend;
    private final String graph;
    private final Path repro;

    /**
     * @param graph  the function and compile id, {@code MyApp.fn [0/1]}
     * @param ops    the number of ops in the graph
     * @param source the graph's user source lines ({@code MyApp.java:12-19}), or empty
     * @param repro  the repro a repro level wrote (a launcher folder or a repro.java), or null
     */
    public BackendCompilerFailed(String backend, String graph, int ops, String source, Path repro, Throwable cause) {
        super(message(backend, graph, ops, source, repro, cause), cause);
        this.backend = backend;
        this.graph = graph;
        this.repro = repro;
    }

    private static String message(String backend, String graph, int ops, String source, Path repro, Throwable cause) {
        String what = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        String get = repro == null
                ? "to write a repro, run again with EMBER_REPRO_AFTER=dynamo EMBER_REPRO_LEVEL=2 (then ./ember minify <the folder it names>)"
                : repro.getFileName().toString().endsWith(".java")
                        ? "repro: " + repro + " (run it with java -cp <ember-core and its dependencies>; EMBER_REPRO_LEVEL=2 writes a minifier launcher instead)"
                        : "repro: ./ember minify " + repro + "   (replay once: ./ember minify " + repro + " run)";
        return "backend '" + backend + "' failed to compile " + graph + " (graph of " + ops + " op" + (ops == 1 ? "" : "s")
                + (source.isEmpty() ? "" : " from " + source) + "): " + what
                + "\n  " + get
                + "\n  to run the graph eagerly instead: Options.suppressErrors(true) or " + SUPPRESS_ENV + "=1"
                + (dev.ember.logging.Verbose.enabled() ? "" : "\n  " + dev.ember.logging.Verbose.HINT);
    }

    public String backend() { return backend; }

    /** The function and compile id, {@code MyApp.fn [0/1]}. */
    public String graph() { return graph; }

    /** The repro a repro level wrote for this failure, or null. */
    public Path repro() { return repro; }

    /**
     * Whether {@code EMBER_SUPPRESS_ERRORS} (or the system property {@code ember.suppress.errors})
     * says to suppress backend failures: {@code 1} yes, {@code 0} or unset no.
     *
     * @throws IllegalArgumentException for any other value, naming the variable
     */
    public static boolean suppressedByEnvironment() {
        String v = System.getProperty("ember.suppress.errors", System.getenv(SUPPRESS_ENV));
        if (v == null || v.isBlank() || v.strip().equals("0")) return false;
        if (v.strip().equals("1")) return true;
        throw new IllegalArgumentException(SUPPRESS_ENV + "=" + v + ": expected 1 (run a graph whose backend fails eagerly, with a warning) or 0");
    }
}
