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

    private static final ThreadLocal<CompileId> CURRENT = new ThreadLocal<>();

    /** An entered compilation; closing it restores the one that was current before. */
    public static final class Scope implements AutoCloseable {
        private final CompileId previous;
        private boolean closed;

        private Scope(CompileId previous) {
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
        if (id == null) throw new IllegalArgumentException("CompileContext.enter: compile id is null");
        Scope scope = new Scope(CURRENT.get());
        CURRENT.set(id);
        return scope;
    }

    /** The compilation this thread is in, or null outside any. */
    public static CompileId current() {
        return CURRENT.get();
    }
}
