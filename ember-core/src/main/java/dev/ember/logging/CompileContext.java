package dev.ember.logging;

/**
 * The compilation the current thread is working on, so that every log line and trace event made inside it
 * carries its {@link CompileId} without passing it around:
 * <pre>{@code
 * try (var c = CompileContext.enter(CompileId.of(0, 1))) {
 *     Log.of("graph_breaks").info(() -> "...");   // tagged [0/1]
 * }
 * }</pre>
 * Scopes nest (a compilation started while another runs on the same thread); closing one restores the outer id.
 */
public final class CompileContext {
    private CompileContext() {}

    /** The compilation's id and the compiled function's name ({@code MyApp.fn}), null when not known. */
    private record Current(CompileId id, String function) {}

    private static final ThreadLocal<Current> CURRENT = new ThreadLocal<>();

    /** An entered compilation; closing it restores the one that was current before. */
    public static final class Scope implements AutoCloseable {
        private final Current previous;
        private boolean closed;

        private Scope(Current previous) {
            this.previous = previous;
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            if (previous == null) CURRENT.remove();
            else CURRENT.set(previous);
        }
    }

    /** Makes {@code id} the current compilation of this thread until the returned scope is closed. */
    public static Scope enter(CompileId id) {
        return enter(id, null);
    }

    /**
     * Makes {@code id}, compiling {@code function} ({@code MyApp.fn}), the current compilation of this
     * thread until the returned scope is closed. Backends name the function in what they build (a
     * NaN assert's message) without knowing the frame they compile for.
     */
    public static Scope enter(CompileId id, String function) {
        if (id == null) throw new IllegalArgumentException("CompileContext.enter: compile id is null");
        Scope scope = new Scope(CURRENT.get());
        CURRENT.set(new Current(id, function));
        return scope;
    }

    /**
     * The current compilation's analysis starts over (a restart): until its scope closes, its id is
     * the next attempt's, {@code 0/1} then {@code 0/1_1}, so what the new attempt logs and traces is
     * told apart from the attempt that ended.
     *
     * @return the id of the attempt that ended
     * @throws IllegalStateException outside any compilation
     */
    public static CompileId nextAttempt() {
        Current c = CURRENT.get();
        if (c == null) throw new IllegalStateException("CompileContext.nextAttempt: this thread is in no compilation");
        CURRENT.set(new Current(c.id().withAttempt(c.id().attempt() + 1), c.function()));
        return c.id();
    }

    /** The compilation this thread is in, or null outside any. */
    public static CompileId current() {
        Current c = CURRENT.get();
        return c == null ? null : c.id();
    }

    /** The function the current compilation compiles ({@code MyApp.fn}), or null when not known or outside any. */
    public static String currentFunction() {
        Current c = CURRENT.get();
        return c == null ? null : c.function();
    }

    /**
     * The current compilation as people read it: {@code MyApp.fn [0/1]}, {@code [0/1]} when the
     * function is not known, null outside any compilation.
     */
    public static String describeCurrent() {
        Current c = CURRENT.get();
        if (c == null) return null;
        return c.function() == null ? "[" + c.id() + "]" : c.function() + " [" + c.id() + "]";
    }
}
